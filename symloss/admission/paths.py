r"""Uniformised sample paths of the admission network, the offline optimum on a path, policies run on
a path, and the decomposition of the cost estimated on common random numbers (the solvers behind
:meth:`~symloss.admission.network.OverloadedLossNetwork.sample_path`, ``offline_optimal``,
``evaluate`` and ``decomposition``; the class validates its arguments and delegates here).

They are fast paths written for the shipped rules (the class refuses an edited table). The numba
kernels are imported from ``symloss.admission._kernels`` inside the function ``_kernels()``, on first use: importing numba
and compiling (or loading the cached) kernels is not paid by ``import symloss.admission``.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ..core.docstrings import fill_doc
from ..core.random import seed_sequence, spawn
from ..core.validation import BudgetError, check_budget, check_int
from ._docfragments import ADMISSION_DOCS
from .policies import PFI, SSS, TrunkReservation, WindowDP
from .results import Decomposition, Estimate, OfflineResult, PolicyResult, SamplePath

__all__ = ["sample_path", "offline_optimal", "evaluate", "decomposition", "rng_of", "seed_label"]

H, L, D = 0, 1, 2  # event kinds of a uniformised path


def _kernels() -> dict:
    """The numba kernels (imported, and compiled or loaded from cache, on first use)."""
    from ._kernels import kernels
    return kernels()


def rng_of(seed) -> np.random.Generator:
    """The generator of a ``seed=`` argument: a ``Generator`` itself (advanced), else a new one.

    Parameters
    ----------
    seed : None, int, sequence of int, SeedSequence or Generator
        As :func:`symloss.core.random.seed_sequence` accepts (a ``SeedSequence`` is not changed).

    Returns
    -------
    numpy.random.Generator
        ``seed`` itself when it is a ``Generator``, else a new one seeded from it.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed_sequence(seed, "seed", allow_generator=True))


def seed_label(seed):
    """What a result records as its seed: the seed itself, or ``"generator"`` for a ``Generator``.

    Parameters
    ----------
    seed : object
        The ``seed=`` argument.

    Returns
    -------
    object
        ``seed``, or the string ``"generator"``.
    """
    return seed if not isinstance(seed, np.random.Generator) else "generator"


@fill_doc(ADMISSION_DOCS)
def check_path(net, path) -> SamplePath:
    """``path`` if it is a :class:`SamplePath` drawn for this network's ``N`` and rates.

    Parameters
    ----------
    {{net_param}}
    path : SamplePath
        A path of :func:`sample_path`.

    Returns
    -------
    SamplePath

    Raises
    ------
    TypeError, ValueError
        For another type, or a path of another network.
    """
    if not isinstance(path, SamplePath):
        raise TypeError(f"path must be a SamplePath from sample_path(), got {type(path).__name__}")
    lH, lL, mu, _, _ = net._floats()
    if path.N != net.N or not np.allclose([path.lam_H, path.lam_L, path.mu], [lH, lL, mu]):
        raise ValueError(f"path was drawn for N={path.N}, rates ({path.lam_H}, {path.lam_L}, {path.mu}); "
                         f"this network has N={net.N}, rates ({lH}, {lL}, {mu})")
    return path


@fill_doc(ADMISSION_DOCS)
def start_state(net, n0) -> int:
    """The busy count a path starts from: ``n0``, or ``N - K*`` (the online threshold's boundary).

    Parameters
    ----------
    {{net_param}}
    n0 : int or None
        ``0 <= n0 <= N``.

    Returns
    -------
    int
        The validated ``n0``, or ``N - K*`` when it is None.
    """
    if n0 is None:
        return net.N - net.online_optimal().threshold
    return check_int(n0, "n0", min_value=0, max_value=net.N)


@fill_doc(ADMISSION_DOCS)
def sample_path(net, horizon: float, seed, max_events: float, max_bytes) -> SamplePath:
    """The uniformised event sequence on ``[0, horizon]`` (see ``OverloadedLossNetwork.sample_path``).

    Parameters
    ----------
    {{net_param}}
    horizon, max_events : float
        Checked horizon and event budget.
    {{seed_param}}
    max_bytes : float
        Checked memory budget.

    Returns
    -------
    SamplePath
        The events of the uniformised chain on ``[0, horizon]``, with their marks.
    """
    lH, lL, mu, _, _ = net._floats()
    N = net.N
    rate = N * (lH + lL + mu)
    mean = rate * horizon
    check_budget(mean, max_events, "max_events", what=f"sample_path: N={N}, horizon={horizon:g}",
                 unit="events", hint="lower the horizon or raise max_events")
    check_budget(40.0 * (mean + 6 * math.sqrt(mean) + 1), max_bytes, "max_bytes",
                 what=f"sample_path: {mean:.3g} events", unit="bytes", hint="lower the horizon")
    rng = rng_of(seed)
    M = int(rng.poisson(mean))
    sp = rng.standard_exponential(M + 1)
    times = np.cumsum(sp)
    times = times[:M] * (horizon / times[M]) if M else np.empty(0)
    u = rng.random(M)
    pH, pL = lH / (lH + lL + mu), lL / (lH + lL + mu)
    kinds = np.full(M, D, dtype=np.int8)
    kinds[u < pH + pL] = L
    kinds[u < pH] = H
    marks = rng.random(M)
    return SamplePath(N=N, lam_H=lH, lam_L=lL, mu=mu, horizon=horizon,
                      seed=seed_label(seed),
                      times=times, kinds=kinds, marks=marks)


@fill_doc(ADMISSION_DOCS)
def offline_optimal(net, path: SamplePath, n0: int, method: str, max_work: float) -> OfflineResult:
    """The exact offline optimum on a path (see ``OverloadedLossNetwork.offline_optimal``).

    Parameters
    ----------
    {{net_param}}
    path : SamplePath
        A checked path.
    {{n0_param}}
    method : {"shift", "plain"}
        The dynamic programme.
    max_work : float
        Checked work budget.

    Returns
    -------
    OfflineResult
        The optimal reward with hindsight of the whole path, and its cost rate against the fluid.
    """
    _, _, _, rH, rL = net._floats()
    check_budget(float(net.N + 1) * path.n_events, max_work, "max_work",
                 what=f"offline_optimal: N={net.N} x {path.n_events} events", unit="state updates",
                 hint="a shorter path, or raise max_work")
    kern = _kernels()["offline_dp" if method == "shift" else "offline_dp_plain"]
    V = float(kern(path.kinds, path.marks, net.N, rH, rL, n0))
    X = path.control_variate(rH, rL)
    T = path.horizon
    return OfflineResult(total_reward=V, reward_rate=V / T, cost_rate=(X - V) / T, horizon=T, n0=n0,
                         n_events=path.n_events,
                         method="backward dynamic program over the uniformised events, state n in 0..N "
                                f"(numba, {method})")


@fill_doc(ADMISSION_DOCS)
def evaluate(net, policy, path: SamplePath, n0: int, max_work: float) -> PolicyResult:
    """A policy run on a path (see ``OverloadedLossNetwork.evaluate``).

    Parameters
    ----------
    {{net_param}}
    policy : SSS, PFI, WindowDP, TrunkReservation or "online"
        The policy.
    path : SamplePath
        A checked path.
    {{n0_param}}
    max_work : float
        Checked work budget.

    Returns
    -------
    PolicyResult
        The policy's counts, reward and cost rate on this path.
    """
    _, _, _, rH, rL = net._floats()
    N = net.N
    dummy_h = np.zeros(1)
    if isinstance(policy, str):
        if policy != "online":
            raise ValueError(f"policy must be a policy object or 'online', got {policy!r}")
        policy = TrunkReservation(net.online_optimal().threshold)
    if isinstance(policy, TrunkReservation):
        if policy.K > N:
            raise ValueError(f"K must be in [0, {N}], got {policy.K}")
        args = (0, policy.K, 0.0, 0, dummy_h)
    elif isinstance(policy, SSS):
        args = (1, 0, policy.W, 0, dummy_h)
    elif isinstance(policy, PFI):
        level = policy.level if policy.level is not None else max(1, math.isqrt(N))
        if level > N:
            raise ValueError(f"PFI level must be in [1, N={N}] (the idle count never exceeds N), got {level}")
        args = (2, 0, 0.0, level, dummy_h)
    elif isinstance(policy, WindowDP):
        h = net.online_bias() if policy.terminal == "online" else np.zeros(N + 1)
        args = (3, 0, policy.W, 0, h)
    else:
        raise TypeError(f"policy must be SSS, PFI, WindowDP, TrunkReservation or 'online', "
                        f"got {type(policy).__name__}")
    mode, K, W, level, h = args
    if mode in (1, 3):
        nL = path.counts["L"]
        w = min(float(path.n_events), path.n_events / path.horizon * W + 1.0) if path.horizon > 0 else 0.0
        est = nL * (w if mode == 1 else w * min(N + 1.0, w + 1.0))
        check_budget(est, max_work, "max_work", what=f"evaluate({policy.name}): {nL} L arrivals x a window of "
                     f"~{w:.3g} events", unit="steps", hint="a shorter window or path, or raise max_work")
    accH, accL, lostH, rejL, wasted, n_end = _kernels()["simulate"](
        path.times, path.kinds, path.marks, N, n0, mode, K, W, level, h, rH, rL, float(max_work))
    if n_end < 0:
        raise BudgetError(f"evaluate({policy.name}): the lookahead work passed max_work={max_work:.3g} steps "
                          f"on this path of {path.n_events} events; a shorter path or lookahead, or raise "
                          f"max_work")
    V = rH * accH + rL * accL
    X = path.control_variate(rH, rL)
    T = path.horizon
    return PolicyResult(policy=policy.name, accepted_H=int(accH), accepted_L=int(accL), lost_H=int(lostH),
                        rejected_L=int(rejL), wasted=int(wasted), total_reward=float(V),
                        reward_rate=float(V) / T, cost_rate=(X - V) / T, horizon=T, n0=n0, n_end=int(n_end))


@fill_doc(ADMISSION_DOCS)
def decomposition(net, horizon: float, replications: int, cs: list, seed, n0, progress,
                  max_work: float) -> Decomposition:
    """The cost decomposition on common random numbers (see ``OverloadedLossNetwork.decomposition``).

    Parameters
    ----------
    {{net_param}}
    horizon : float
        Checked horizon of each path.
    replications : int
        Checked number of paths (>= 2).
    cs : list of float
        Checked window constants.
    seed : object
        The root seed.
    n0 : int or None
        The start state (``start_state``).
    progress : callable or None
        Called as ``progress(i, replications)``.
    max_work : float
        Checked work budget.

    Returns
    -------
    Decomposition
        The estimated costs, with 95 % intervals over the ``replications`` paths.
    """
    t0 = time.perf_counter()
    lH, lL, mu, _, _ = net._floats()
    events = net.N * (lH + lL + mu) * horizon
    nL = net.N * lL * horizon
    work = events * (net.N + 1) + events * 3
    for x in cs:
        w = min(events, (lH + lL + mu) * net.N * net.window(x) + 1.0)
        work += nL * (w * min(net.N + 1.0, w + 1.0) * 2 + w)
    check_budget(work * replications, max_work, "max_work",
                 what=f"decomposition: {replications} paths of ~{events:.3g} events, N={net.N}",
                 unit="steps", hint="a shorter horizon, fewer replications or window constants, or raise "
                                    "max_work")
    opt = net.online_optimal()
    n0 = start_state(net, n0)
    seqs = spawn(seed_sequence(seed), replications)
    vol, on, pfi = [], [], []
    names = ("WindowDP(online)", "WindowDP(zero)", "SSS")
    costs = {x: {nm: [] for nm in names} for x in cs}
    for i, ss in enumerate(seqs):
        path = net.sample_path(horizon, ss)
        off = net.offline_optimal(path, n0)
        onr = net.evaluate(TrunkReservation(opt.threshold), path, n0)
        vol.append(off.cost_rate)
        on.append(onr.cost_rate)
        pfi.append(net.evaluate(PFI(), path, n0).cost_rate)
        for x in cs:
            W = net.window(x)
            for nm, pol in zip(names, (WindowDP(W), WindowDP(W, terminal="zero"), SSS(W))):
                costs[x][nm].append(net.evaluate(pol, path, n0).cost_rate)
        if progress:
            progress(i + 1, replications)
    E = Estimate.from_samples
    vol_a, on_a = np.array(vol), np.array(on)
    best, lng, sht, look = {}, {}, {}, {}
    for x in cs:
        look[x] = {nm: E(v) for nm, v in costs[x].items()}
        best[x] = min(names, key=lambda nm: look[x][nm].value)
        b = np.array(costs[x][best[x]])
        lng[x] = E(b - vol_a)      # (V_off - V_W) / T
        sht[x] = E(on_a - b)       # (V_W - V_on) / T
    return Decomposition(N=net.N, params=net.params, horizon=horizon, replications=replications,
                         fluid=net.fluid_reward(), online_regret=float(opt.regret), threshold=opt.threshold,
                         C_vol=E(vol), C_long=lng, C_short=sht, sss={x: look[x]["SSS"] for x in cs},
                         pfi=E(pfi), online_sim=E(on), windows={x: net.window(x) for x in cs},
                         seconds=time.perf_counter() - t0,
                         window_cost={x: look[x][best[x]] for x in cs}, lookahead=look, best=best)
