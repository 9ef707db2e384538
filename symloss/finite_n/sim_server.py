"""The server-level fast path of :func:`symloss.simulate`: the hand-written numba kernel of the shipped
policies (private ``symloss.finite_n._kernels``), used only when the model's finite-N chain is
identical (SymPy, :func:`symloss.core.registry.same_system`) to the count chain the kernel realises.

It is the fast path :data:`SERVER_KERNEL` of the one registry (:mod:`symloss.core.registry`, family
``"finite_n"``, subjects ``(model, N, sampling)``), registered for the shipped classes
(:class:`~symloss.RetrialOfD`, :class:`~symloss.PowerOfD`, :class:`~symloss.JSQ`): ``applies`` is the
identity above (cached on ``finite_n_key``, the definition with its
finite-N rates at this ``(N, sampling)``); ``verify`` checks the simulated answer against three
martingale identities of the *definition's* chain (arrivals at the total rate ``N rho``; departures
at the definition's total departure rate, evaluated at the time-averaged counts; lost arrivals at the
definition's loss probability), each within 8 standard deviations (statistical evidence: a wrong
kernel fails it, a right one fails with probability below 1e-14); a rejected answer is discarded with
a :class:`~symloss.DefinitionMismatchWarning` and the count-level kernel generated from the
definition answers.

The kernel module is imported on first use (``_kernel``), not at import: it loads numba and
compiles or loads the machine code from numba's disk cache, which ``import symloss`` should not pay.
"""
from __future__ import annotations

import math
import time

import numpy as np
import sympy as sp

from ..core.certify import DefinitionMismatchWarning
from ..core.docstrings import fill_doc
from ..core.model import RHO
from ..core.random import spawn
from ..core.registry import FastPath, dispatch, register_fast_path, same_system, warn_outside_package
from ..core.stats import truncated_poisson_weights
from ..meanfield.models import JSQ, PowerOfD, RandomRouting, RetrialOfD
from .chain import NSYM, finite_n_chain, finite_n_key
from ._docfragments import FINITE_N_DOCS
from .common import N_BATCHES
from .sim_count import _simulate_count
from .sim_result import SimulationResult, _check_total, _default_warmup, _intervals
from .states import tails_from_occupancy

__all__ = ["SERVER_KERNEL", "ServerKernelFastPath", "server_level_policy"]


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


#: kept for the old import path (``symloss.finite_n.simulate._FAST_CACHE``); the bindings live in the
#: registry's one binding cache (:func:`symloss.core.registry.binding`)
_FAST_CACHE: dict = {}


def _policy_of(model):
    """The kernel branch of a shipped class, or ``None``."""
    if isinstance(model, RandomRouting):
        return "random"
    if isinstance(model, RetrialOfD):
        return "retrial"
    if isinstance(model, PowerOfD):
        return "power"
    if isinstance(model, JSQ):
        return "jsq"
    return None


#: how many standard deviations a martingale identity of :meth:`ServerKernelFastPath.verify` may be off
VERIFY_SIGMAS = 8


class ServerKernelFastPath(FastPath):
    """The server-level numba kernel as a fast path of the one registry (family ``"finite_n"``, subjects
    ``(model, N, sampling)``; the instance :data:`SERVER_KERNEL`; the protocol is
    :class:`symloss.core.registry.FastPath`).

    * ``decide``: the definition's finite-N transitions and loss probability at ``(N, sampling)`` are
      identical (:func:`~symloss.core.registry.same_system`) to the chain the kernel realises;
      ``binding_key``: the kernel branch and ``finite_n_key``;
      ``warn_on_mismatch``: for a shipped class;
    * ``solve(subject, rho_f, events, warmup, replications, ss)``: the kernel run;
    * ``verify``: over the measured events (``T`` the simulated time, the sum of the expected holding
      times) the arrivals ``A`` have mean ``N rho T``, the departures mean ``T`` times the definition's
      total departure rate (its job-decreasing transitions, linear in the counts, at the time-averaged
      counts), the lost arrivals mean ``A`` times the blocking estimate (the definition's loss
      probability at arrival epochs); each within ``VERIFY_SIGMAS`` standard deviations (Poisson
      bound), and the occupancy is a probability vector. EVIDENCE, not a proof.

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.finite_n.sim_server import SERVER_KERNEL
    >>> SERVER_KERNEL.applies((PowerOfD(2, 2), 10, "with_replacement"))[0]
    True
    """
    name = "server-level kernel"

    def binding_key(self, subject):
        model, N, sampling = subject
        return (_policy_of(model), finite_n_key(model, N, sampling))

    def decide(self, subject):
        model, N, sampling = subject
        policy = _policy_of(model)
        if policy is None:
            return False, "not a shipped policy"
        chain = finite_n_chain(model, N, sampling)
        template, block = _server_template(policy, model.C, model.d, N, sampling, chain.symbols)
        mine = {}
        for jump, rate in zip(chain.jumps, chain.rates):
            t = tuple(int(v) for v in jump)
            mine[t] = mine.get(t, sp.Integer(0)) + rate
        if set(mine) != set(template) or not _same(mine, template):
            return False, f"the finite-N transitions differ from the {policy!r} chain the kernel simulates"
        if not _same(chain.blocking, block):
            return False, f"the finite-N loss probability differs from the {policy!r} chain's"
        return True, f"the finite-N chain is the {policy!r} chain the kernel simulates (exact SymPy identity)"

    def warn_on_mismatch(self, subject) -> bool:
        return _policy_of(subject[0]) is not None

    def solve(self, subject, rho_f, events, warmup, replications, ss, progress=None):
        model, N, sampling = subject
        return _run_server(model, (_policy_of(model), model.d), N, rho_f, events, warmup, replications, ss, sampling,
                           progress)

    def verify(self, subject, res, *args):
        model, N, sampling = subject
        occ = np.asarray(res.occupancy, dtype=float)
        if not (np.all(np.isfinite(occ)) and occ.min() >= -1e-12 and abs(occ.sum() - 1) <= 1e-9):
            return False, f"the occupancy {occ.tolist()} is not a probability vector"
        T = float(res.simulated_time)
        A = float(res.arrivals)
        D = float(res.events * res.replications) - A

        def off(observed, expected, what):
            bound = VERIFY_SIGMAS * math.sqrt(max(expected, observed, 1.0)) + 1.0 + 1e-9 * abs(expected)
            if not abs(observed - expected) <= bound:
                return (f"{what}: {observed:.6g} observed, {expected:.6g} expected by the definition "
                        f"(|difference| > {bound:.3g})")
            return None
        checks = [off(A, N * float(res.rho) * T, "arrivals at rate N rho")]
        rate = _departure_rate(model, N, sampling, occ, float(res.rho))
        if rate is not None:
            checks.append(off(D, rate * T, "departures at the definition's departure rate"))
        checks.append(off(A * float(res.lost_fraction), A * float(res.blocking),
                          "lost arrivals at the definition's loss probability"))
        bad = [c for c in checks if c is not None]
        if bad:
            return False, "; ".join(bad)
        return True, f"{len(checks)} martingale identities of the definition's chain hold within {VERIFY_SIGMAS} sd"


def _departure_rate(model, N, sampling, occ, rho):
    """The definition's total departure rate at the time-averaged counts (``None`` when it is not
    linear in the counts, so that the average of the rate is not the rate at the average)."""
    chain = finite_n_chain(model, N, sampling)
    kind = chain.state_kind
    syms = list(chain.symbols)
    if kind == "occupancy" and len(syms) == len(occ):
        counts = [N * float(v) for v in occ]
        weight = list(range(len(syms)))                   # jobs in a server at level k: k
    elif kind == "tail" and len(syms) == len(occ) - 1:
        counts = [N * float(occ[k:].sum()) for k in range(1, len(occ))]
        weight = [1] * len(syms)                          # U_k counts the servers with >= k jobs
    else:
        return None
    total = sp.Integer(0)
    for jump, r in zip(chain.jumps, chain.rates):
        if sum(w * int(v) for w, v in zip(weight, jump)) < 0:
            total += r
    total = sp.expand(total.subs({NSYM: N, RHO: rho}))
    if total.free_symbols - set(syms):
        return None
    try:
        if sp.Poly(total, *syms).total_degree() > 1:
            return None
    except sp.PolynomialError:
        return None
    return float(total.subs(dict(zip(syms, counts))))


#: the finite-N fast path (registered for the shipped classes)
SERVER_KERNEL = ServerKernelFastPath()
for _cls in (RetrialOfD, PowerOfD, JSQ):
    register_fast_path("finite_n", _cls, SERVER_KERNEL)


@fill_doc(FINITE_N_DOCS)
def server_level_policy(model, N: int, sampling: str):
    """``(policy, d)`` when the server-level kernel simulates exactly ``model``'s finite-N chain
    (identical transitions and loss probability, checked in SymPy: ``ServerKernelFastPath.applies``),
    else ``None`` (with a :class:`~symloss.DefinitionMismatchWarning` for a shipped class whose
    definition was edited).

    Parameters
    ----------
    {{model_N_sampling}}

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
    policy = _policy_of(model)
    if policy is None:
        return None
    if SERVER_KERNEL.applies((model, N, sampling))[0]:
        return policy, model.d
    _mismatch_warning(model, policy)
    return None


def _mismatch_warning(model, policy):
    # reported at the caller's line (the first frame outside symloss), however it reached this check:
    # server_level_policy called directly, or through simulate
    warn_outside_package(f"{model!r}: the finite-N definition differs from the {policy!r} chain the server-level "
          "kernel simulates; using the count-level kernel generated from the definition",
          DefinitionMismatchWarning, 3)


_REJECTED = ("{subject!r}: the server-level kernel's answer does not satisfy the definition's finite-N chain "
             "({reason}); using the count-level kernel generated from the definition")


def _count_fallback(subject, rho_f, events, warmup, replications, ss, progress=None):
    model, N, sampling = subject
    return _simulate_count(model, N, rho_f, events, warmup, replications, ss, sampling, None, progress)


def _simulate_server(model, fast, N, rho_f, events, warmup, replications, ss, sampling, progress=None):
    """The server-level branch of :func:`symloss.simulate` (``fast`` from :func:`server_level_policy`):
    the registry's flow (:func:`symloss.core.registry.dispatch`): the kernel, its answer verified on the
    definition's chain, else the count-level kernel. ``progress(done, total)`` is called with the events
    simulated so far (the kernel runs in ranges; the numbers are those of one call)."""
    res, _ = dispatch("finite_n", (model, N, sampling), _count_fallback,
                      args=(rho_f, events, warmup, replications, ss), kwargs={"progress": progress},
                      verify_kwargs={}, warning=DefinitionMismatchWarning, rejected=_REJECTED)
    return res


#: events per kernel call when a progress callback is given (about 0.05-0.3 s each)
PROGRESS_CHUNK = 1 << 21


def _run_server(model, fast, N, rho_f, events, warmup, replications, ss, sampling, progress=None):
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
        # one kernel call without a progress callback, ranges of PROGRESS_CHUNK events with one (the
        # kernel carries its whole state between ranges: the same numbers either way)
        state = mod.kernel_state(N, C)
        per_rep = warmup + events
        step = per_rep if progress is None else PROGRESS_CHUNK
        for lo in range(0, per_rep, step):
            hi = min(lo + step, per_rep)
            mod.run_kernel_range(code, N, C, d, lam, without, events, warmup, occ, st, btable,
                                 b_sum, b_arr, b_lost, b_time, b_area, *state, lo, hi)
            if progress is not None:
                progress(r * per_rep + hi, replications * per_rep)
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
