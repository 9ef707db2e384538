"""The server-level fast path of :func:`symloss.simulate`: the hand-written numba kernel of the shipped
policies (private ``symloss.finite_n._kernels``), used only when the model's finite-N chain is
identical (SymPy, :func:`symloss.core.registry.same_system`) to the count chain the kernel realises.

The kernel module is imported on first use (``_kernel``), not at import: it loads numba and
compiles or loads the machine code from numba's disk cache, which ``import symloss`` should not pay.
"""
from __future__ import annotations

import math
import time
import warnings

import numpy as np
import sympy as sp

from ..core.certify import DefinitionMismatchWarning
from ..core.model import RHO
from ..core.random import spawn
from ..core.registry import same_system
from ..core.stats import truncated_poisson_weights
from ..meanfield.models import JSQ, PowerOfD, RandomRouting, RetrialOfD
from .chain import NSYM, finite_n_chain, finite_n_key
from .common import N_BATCHES
from .sim_result import SimulationResult, _check_total, _default_warmup, _intervals
from .states import tails_from_occupancy

__all__ = ["server_level_policy"]


_KERNEL_READY = False


def _kernel():
    """Import (and, the first time in a process, compile or load from cache) the server-level numba
    kernel. Returns (module, seconds spent)."""
    global _KERNEL_READY
    from . import _kernels as _simkernel  # on first use: numba (see the module docstring)
    if _KERNEL_READY:
        return _simkernel, 0.0
    t0 = time.perf_counter()
    occ = np.zeros(4, np.int32)
    st = np.random.SeedSequence(0).generate_state(4, np.uint64)
    bt = np.zeros(5)
    z = np.zeros(1)
    zi = np.zeros(1, np.int64)
    _simkernel.run_kernel(1, 4, 2, 2, 1.0, False, 10, 0, occ, st, bt, z.copy(), zi.copy(), zi.copy(),
                          z.copy(), np.zeros((1, 3)))
    _KERNEL_READY = True
    return _simkernel, time.perf_counter() - t0


def _initial_occupancy(rng, N, C, rho):
    """Independent truncated-Poisson(rho) occupancies: the stationary law of random routing, a
    starting point close to stationarity for every policy."""
    return rng.choice(C + 1, size=N, p=truncated_poisson_weights(C, rho)).astype(np.int32)


def _server_template(policy, C, d, N, sampling, U):
    """The count chain (``{jump: rate}``, loss probability) that the server-level kernel realises for
    ``policy`` (hand-written specification of the kernel's branches, compared with the definition by
    :func:`server_level_policy`). ``U``: the count symbols (occupancy ``n_0..n_C`` or tails
    ``U_1..U_C``)."""
    without = sampling == "without_replacement" and policy != "jsq"
    Nn = sp.Integer(N) if without else NSYM
    out = {}

    def add(jump, rate):
        out[jump] = out.get(jump, sp.Integer(0)) + rate
    if policy in ("random", "retrial"):           # occupancy counts, arrival k -> k+1
        nC = U[C]
        if not without:
            geo = sum(((nC / NSYM) ** j for j in range(d)), sp.Integer(0)) / NSYM
            block = (nC / NSYM) ** d
        else:
            geo, allfull = sp.Integer(0), sp.Integer(1)
            for j in range(d):
                geo += allfull / (Nn - j)
                allfull = allfull * (nC - j) / (Nn - j)
            block = allfull
        for k in range(C):
            jump = tuple(-1 if i == k else (1 if i == k + 1 else 0) for i in range(C + 1))
            add(jump, Nn * RHO * U[k] * geo)
        for k in range(1, C + 1):
            jump = tuple(-1 if i == k else (1 if i == k - 1 else 0) for i in range(C + 1))
            add(jump, k * U[k])
        return out, block
    T = (Nn,) + tuple(U) + (sp.Integer(0),)        # tails U_0 = N, U_1..U_C, U_{C+1} = 0
    if policy == "power":
        def P(k):
            if not without:
                return (T[k] / NSYM) ** d
            p = sp.Integer(1)
            for i in range(d):
                p *= (T[k] - i) / (Nn - i)
            return p
        for k in range(1, C + 1):
            add(tuple(1 if i == k - 1 else 0 for i in range(C)), Nn * RHO * (P(k - 1) - P(k)))
        block = P(C)
    else:  # jsq: the lowest level that is not full
        H = sp.Heaviside
        for k in range(1, C + 1):
            lower = sp.Integer(1) if k == 1 else H(T[k - 1] / NSYM - 1, 1)
            add(tuple(1 if i == k - 1 else 0 for i in range(C)), NSYM * RHO * lower * (1 - H(T[k] / NSYM - 1, 1)))
        block = H(T[C] - NSYM, 1)
    for k in range(1, C + 1):
        add(tuple(-1 if i == k - 1 else 0 for i in range(C)), k * (T[k] - T[k + 1]))
    return out, block


def _same(a, b) -> bool:
    """Whether two expressions of the count chain are identical (:func:`~symloss.core.registry.same_system`)."""
    return same_system(a, b)


_FAST_CACHE: dict = {}


def server_level_policy(model, N: int, sampling: str):
    """``(policy, d)`` when the server-level kernel simulates exactly ``model``'s finite-N chain
    (identical transitions and loss probability, checked in SymPy), else ``None`` (with a
    :class:`~symloss.DefinitionMismatchWarning` for a shipped class whose definition was edited).

    Parameters
    ----------
    model : MeanFieldModel
        The model.
    N : int
        Number of servers.
    sampling : {"with_replacement", "without_replacement"}
        The finite-N convention.

    Returns
    -------
    tuple of (str, int) or None

    Warns
    -----
    DefinitionMismatchWarning
        For a shipped class whose finite-N definition differs from the kernel's chain.

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.finite_n.simulate import server_level_policy
    >>> server_level_policy(PowerOfD(2, 2), 10, "with_replacement")
    ('power', 2)
    """
    if isinstance(model, RandomRouting):
        policy = "random"
    elif isinstance(model, RetrialOfD):
        policy = "retrial"
    elif isinstance(model, PowerOfD):
        policy = "power"
    elif isinstance(model, JSQ):
        policy = "jsq"
    else:
        return None
    ck = finite_n_key(model, N, sampling)          # the definition and its finite-N rates at this N
    if ck in _FAST_CACHE:
        out = _FAST_CACHE[ck]
        if out is None:
            _mismatch_warning(model, policy)
        return out
    chain = finite_n_chain(model, N, sampling)
    C, d = model.C, model.d
    template, block = _server_template(policy, C, d, N, sampling, chain.symbols)
    mine = {}
    for jump, rate in zip(chain.jumps, chain.rates):
        t = tuple(int(v) for v in jump)
        mine[t] = mine.get(t, sp.Integer(0)) + rate
    ok = set(mine) == set(template) and _same(mine, template) and _same(chain.blocking, block)
    out = (policy, d) if ok else None
    if not ok:
        _mismatch_warning(model, policy)
    if len(_FAST_CACHE) > 256:
        _FAST_CACHE.clear()
    _FAST_CACHE[ck] = out
    return out


def _mismatch_warning(model, policy):
    warnings.warn(f"{model!r}: the finite-N definition differs from the {policy!r} chain the server-level "
                  "kernel simulates; using the count-level kernel generated from the definition",
                  DefinitionMismatchWarning, stacklevel=4)


def _simulate_server(model, fast, N, rho_f, events, warmup, replications, ss, sampling):
    policy, d = fast
    C = model.C
    if N * C >= 2 ** 31:
        raise ValueError(f"N * C must be < 2**31, got N = {N}, C = {C}")
    if warmup is None:
        warmup = _default_warmup(max(events // 10, int(math.ceil(10 * N * (rho_f + min(rho_f, C))))), events)
    _check_total(events, warmup, replications)
    mod, compile_time = _kernel()
    nb = N_BATCHES if events >= N_BATCHES else 1
    code = mod.POLICY_CODES[policy]
    without = sampling == "without_replacement" and policy in ("retrial", "power")
    # loss probability when m servers are full, from the definition (checked to depend on that count only)
    chain = finite_n_chain(model, N, sampling)
    fb = sp.lambdify([chain.symbols[-1], RHO, NSYM], chain.blocking, modules=[{"Heaviside": _heaviside_np}, "numpy"])
    with np.errstate(all="ignore"):
        btable = np.broadcast_to(np.asarray(fb(np.arange(N + 1, dtype=np.float64), rho_f, float(N)), dtype=np.float64),
                                 (N + 1,)).copy()
    lam = N * rho_f
    rep_sum = np.zeros(replications)
    rep_arr = np.zeros(replications, np.int64)
    rep_lost = np.zeros(replications, np.int64)
    rep_time = np.zeros(replications)
    rep_area = np.zeros((replications, C + 1))
    batches = []
    wall = 0.0
    for r, rep_ss in enumerate(spawn(ss, replications)):
        init_ss, kern_ss = spawn(rep_ss, 2)
        occ = _initial_occupancy(np.random.default_rng(init_ss), N, C, rho_f)
        st = kern_ss.generate_state(4, np.uint64)
        if not st.any():  # pragma: no cover - probability 2**-256
            st[0] = 1
        b_sum = np.zeros(nb)
        b_arr = np.zeros(nb, np.int64)
        b_lost = np.zeros(nb, np.int64)
        b_time = np.zeros(nb)
        b_area = np.zeros((nb, C + 1))
        t0 = time.perf_counter()
        mod.run_kernel(code, N, C, d, lam, without, events, warmup, occ, st, btable,
                       b_sum, b_arr, b_lost, b_time, b_area)
        wall += time.perf_counter() - t0
        rep_sum[r] = b_sum.sum()
        rep_arr[r] = b_arr.sum()
        rep_lost[r] = b_lost.sum()
        rep_time[r] = b_time.sum()
        rep_area[r] = b_area.sum(axis=0)
        batches.append((b_sum, b_arr, b_lost, b_time, b_area))

    total_arr = int(rep_arr.sum())
    blocking = float(rep_sum.sum() / total_arr) if total_arr else float("nan")
    lost = float(rep_lost.sum() / total_arr) if total_arr else float("nan")
    occupancy = rep_area.sum(axis=0) / (N * rep_time.sum())
    method, est, ci, se, lost_ci, occ_ci, one_sided = _intervals(
        rep_sum, rep_arr, rep_lost, rep_time, rep_area, batches, replications, N, blocking, lost, occupancy,
        lambda area, t: area / (N * t[:, None]))
    state_mean = _state_from_occupancy(model, occupancy)
    return SimulationResult(
        policy=policy, N=N, C=C, rho=rho_f, d=d if policy in ("retrial", "power") else None,
        sampling=sampling, blocking=blocking, ci=ci, std_error=se, ci_method=method,
        lost_fraction=lost, lost_ci=lost_ci, occupancy=occupancy, occupancy_ci=occ_ci,
        estimates=np.asarray(est), events=events, warmup=warmup, replications=replications,
        arrivals=total_arr, simulated_time=float(rep_time.sum()), wall_time=wall,
        compile_time=compile_time, seed_entropy=ss.entropy,
        method=("numba event-driven simulation of the N-server system (xoshiro256**), server-level kernel "
                f"{policy!r}: the definition's finite-N chain was checked identical to the one it realises"),
        model=repr(model), kernel="server", state_mean=state_mean, symbols=chain.symbols, ci_one_sided=one_sided)


def _heaviside_np(x, h0=0.5):
    return np.heaviside(x, h0)


def _state_from_occupancy(model, occupancy):
    if getattr(model, "state_kind", "") == "tail":
        return tails_from_occupancy(occupancy)
    return occupancy.copy()
