"""Simulation of the supermarket model on a graph (numba kernels in ``symloss.supermarket._kernels``).

The kernels are imported inside the functions that run them, so ``import symloss.supermarket`` does
not load numba (nor compile or load the cached kernels).
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

import numpy as np

from ..core.random import child, seed_sequence
from ..core.results import ResultMixin
from ..core.stats import ZeroObservationsWarning, t_quantile
from ..core.validation import (
    BudgetError,
    boolean,
    check_budget,
    check_choice,
    check_int,
    check_max_bytes,
    integer,
    real_float,
)
from .graphs import Graph, _graph_from_user, make_graph
from .meanfield import _check_d, _check_lam

MAX_D_SIMULATION = 10_000       # the kernels keep d - 1 sampled neighbours per event in buffers
DEFAULT_MAX_EVENTS = 1e9        # about a minute at ~2e7 events per second

# --------------------------------------------------------------------------------------------------
# simulation
# --------------------------------------------------------------------------------------------------


@dataclass
class SimulationResult(ResultMixin):
    r"""Output of :func:`simulate_supermarket`.

    Parameters
    ----------
    t : ndarray, shape (n,)
        Recording times ``0, record_every, 2 record_every, ...`` up to ``t_end``.
    s : ndarray, shape (n, K + 1)
        ``s[i, k]`` = fraction of vertices with at least ``k`` tasks at time ``t[i]`` (column 0 is 1).
    stationary_s : ndarray
        Time averages of :math:`s_k` over ``[warmup, t_end]``.
    mean_queue_length : float
        Time average over ``[warmup, t_end]`` of the mean number of tasks per vertex.
    ci : (float, float)
        95 % confidence interval for ``mean_queue_length`` by batch means: ``[warmup, t_end]`` is cut
        into ``batches`` equal time windows, and the interval is
        :math:`\bar x \pm t_{0.975, B-1}\, s_B/\sqrt{B}` over the window averages; ``(0, inf)`` with a
        :class:`~symloss.core.stats.ZeroObservationsWarning` when every window average is 0 (no task seen
        after the warm-up: a zero-width interval would exclude any positive truth).
    batch_means : ndarray
        The window averages behind ``ci``.
    N, d, lam, t_end, warmup, replace
        The arguments of :func:`simulate_supermarket` (``warmup`` rounded up to the recording grid by
        the uniformized method).
    graph : dict
        The graph's description (``Graph.to_dict()``).
    arrivals, departures : int
        Events simulated.
    seconds : float
        Time spent in the numba kernel.
    final_queues : ndarray, optional
        Queue lengths at ``t_end``.
    method : str, optional
        The simulation method and the estimators.
    dummy_events : int, optional
        Potential departures at an empty queue (uniformized method; 0 for the event method).
    """
    t: np.ndarray
    s: np.ndarray
    stationary_s: np.ndarray
    mean_queue_length: float
    ci: tuple
    batch_means: np.ndarray
    N: int
    d: int
    lam: float
    t_end: float
    warmup: float
    replace: bool
    graph: dict
    arrivals: int
    departures: int
    seconds: float
    final_queues: np.ndarray | None = None
    method: str = ""
    dummy_events: int = 0

    @property
    def events(self) -> int:
        return self.arrivals + self.departures

    @property
    def events_per_second(self) -> float:
        """Events per second of kernel time (0 when no event happened; never NaN)."""
        if self.events == 0:
            return 0.0
        return self.events / max(self.seconds, 1e-9)

    @property
    def sojourn_time(self) -> float:
        """Mean sojourn time by Little's law, ``mean_queue_length / lam``."""
        return self.mean_queue_length / self.lam

    @property
    def half_width(self) -> float:
        return 0.5 * (self.ci[1] - self.ci[0])

    def to_dict(self) -> dict:
        return {"N": self.N, "d": self.d, "lam": self.lam, "t_end": self.t_end, "warmup": self.warmup,
                "replace": self.replace, "graph": self.graph, "mean_queue_length": self.mean_queue_length,
                "ci": list(self.ci), "batch_means": self.batch_means.tolist(),
                "stationary_s": self.stationary_s.tolist(), "t": self.t.tolist(), "s": self.s.tolist(),
                "arrivals": self.arrivals, "departures": self.departures, "seconds": self.seconds,
                "method": self.method}

    def __repr__(self) -> str:
        lo, hi = self.ci
        return (f"SimulationResult(N={self.N}, d={self.d}, lam={self.lam}, graph={self.graph.get('family')}, "
                f"mean_queue_length={self.mean_queue_length:.5f} [95% CI {lo:.5f}, {hi:.5f}], "
                f"events={self.events}, {self.events_per_second:.3g} events/s)")


def _seed_seq(seed) -> np.random.SeedSequence:
    """``None``, an int, a SeedSequence or a Generator (whose stream is advanced) as a SeedSequence."""
    return seed_sequence(seed, allow_generator=True)


def _child(ss: np.random.SeedSequence, i: int) -> np.random.SeedSequence:
    """Child ``1000 + i`` of ``ss`` (:func:`symloss.core.random.child`; ``ss`` is not changed)."""
    return child(ss, 1000 + i)


def _seed_int(seed) -> tuple[int, np.random.SeedSequence]:
    ss = _seed_seq(seed)
    return int(ss.generate_state(1, dtype=np.uint32)[0]), ss


def _validate_graph_for(g: Graph, d: int, replace: bool) -> None:
    if g.N == 0:
        raise ValueError("graph is empty (0 vertices)")
    if d == 1:
        return
    if g.complete:
        if not replace and d - 1 > g.N - 1:
            raise ValueError(f"d={d}: sampling d-1={d - 1} distinct neighbours without replacement needs "
                             f"N-1 >= d-1 on the complete graph, got N={g.N}")
        if g.N == 1:
            raise ValueError("graph has a single vertex and no edges (empty graph): cannot sample neighbours")
        return
    deg = g.degrees
    if g.n_edges == 0:
        raise ValueError(f"graph has no edges (empty graph) but d={d} needs neighbours to compare")
    iso = int(np.count_nonzero(deg == 0))
    if iso:
        warnings.warn(f"graph has {iso} isolated vertices (degree 0): tasks arriving there join the local "
                      f"queue without comparison", stacklevel=3)
    if not replace:
        low = np.flatnonzero((deg > 0) & (deg < d - 1))
        if low.size:
            v = int(low[0])
            raise ValueError(f"sampling without replacement needs every non-isolated vertex to have at least "
                             f"d-1={d - 1} neighbours; vertex {v} has {int(deg[v])} ({low.size} such vertices). "
                             f"Use replace=True or a smaller d")


def _lam_float(lam) -> float:
    """``lam`` in (0, 1), exactly checked, rounded once to float64 (refusing an underflow to 0)."""
    return real_float(_check_lam(lam), "lam")


def _check_initial(initial, Nv: int, max_level: int):
    """Initial queue lengths: a length-N integer array-like of non-negative values <= max_level,
    copied to int32 (the caller's array is never changed)."""
    if isinstance(initial, (str, bytes)) or np.isscalar(initial):
        raise TypeError(f"initial must be an integer array of N={Nv} queue lengths, got {type(initial).__name__}")
    try:
        arr = np.asarray(initial)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"initial must be an integer array of N={Nv} queue lengths: {exc}") from None
    if arr.dtype == object:                        # e.g. Python ints beyond int64, mixed objects
        flat = [integer(v, f"initial[{i}]", min_value=0, max_value=max_level) for i, v in enumerate(arr.ravel())]
        arr = np.asarray(flat, dtype=np.int64).reshape(arr.shape)
    if arr.dtype.kind == "b" or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"initial must be an integer array of N={Nv} queue lengths, got dtype {arr.dtype}")
    if arr.shape != (Nv,):
        raise ValueError(f"initial must be an integer array of N={Nv} non-negative queue lengths, got shape "
                         f"{arr.shape}")
    if arr.size and arr.min() < 0:
        i = int(np.argmin(arr))
        raise ValueError(f"initial must be non-negative queue lengths, got initial[{i}]={int(arr[i])}")
    if arr.size and int(arr.max()) > max_level:
        i = int(np.argmax(arr))
        raise BudgetError(f"initial[{i}]={int(arr[i])}: queue lengths above {max_level} do not fit the "
                          f"occupancy profile in the memory budget (max_bytes) or in int32; start lower")
    return arr.astype(np.int32, copy=True)


def simulate_supermarket(graph, *, d: int = 2, lam: float, t_end: float, seed=None, warmup=None,
                         record_every=None, replace: bool = False, initial=None, batches: int = 20,
                         method: str = "uniformized", N: int | None = None, k: int | None = None,
                         c=None, max_events=DEFAULT_MAX_EVENTS, max_bytes=None) -> SimulationResult:
    r"""Simulate the supermarket model JSQ(d) on a graph.

    Parameters
    ----------
    graph : Graph, str, networkx graph or scipy sparse matrix
        The graph (:func:`make_graph` output); a family name builds one with ``N``, ``k``, ``c`` and
        a child of ``seed``.
    d : int, ``1 <= d <= 10000``
        The task compares the queue at its arrival vertex ``v`` with ``d - 1`` neighbours of ``v``.
    lam : real in (0, 1)
        Poisson arrival rate at every vertex (service rate 1); converted exactly and rounded once to
        float64.
    t_end : float > 0
        Simulated time.
    seed : int, sequence of ints, SeedSequence, Generator or None
        Same seed, same output (numba's generator is seeded inside the kernel from the seed sequence;
        a SeedSequence is not changed, a Generator is advanced by one draw).
    warmup : float, optional
        Transient discarded from the stationary estimates; default ``t_end / 5``.
    record_every : float, optional
        Spacing of the recorded occupancy profile ``s_k(t)``; default ``t_end / 200``.
    replace : bool
        ``False`` (default): the ``d - 1`` neighbours are distinct (drawn without replacement; every
        non-isolated vertex needs at least ``d - 1`` neighbours). ``True``: drawn independently and
        uniformly from the neighbour list (repeats possible). For ``d = 2`` the two coincide. On the
        complete graph the neighbours of ``v`` are the other ``N - 1`` vertices.
    initial : array of int, optional
        Initial queue lengths (length ``N``, never modified); default: all queues empty.
    batches : int
        Number of batches for the batch-means confidence interval (default 20).
    N, k, c : optional
        Size, degree and Erdos-Renyi mean degree when ``graph`` is a family name (see
        :func:`make_graph`).
    method : {"uniformized", "event"}
        ``"uniformized"`` (default, fastest): potential events at the constant rate ``(1 + lam) N``
        (arrival at a uniform vertex, or a potential departure at a uniform vertex that is real iff
        its queue is non-empty); the number of potential events in each recording interval is
        Poisson, so no exponential clock is drawn per event, and time averages use the conditional
        expectation ``h/(n + 1)`` of each holding time given the ``n`` events of an interval of
        length ``h``. ``record_every`` is rounded so that it divides ``t_end`` and ``warmup`` is
        rounded up to the recording grid. ``"event"``: classical event-driven simulation
        (exponential clock per event, busy-server list); same law, used as a cross-check.
    max_events : float
        Budget: the expected number of (potential) events ``(1 + lam) N t_end`` plus the initial tasks
        may not exceed it (default ``1e9``, about a minute); checked before the run.
    max_bytes : float, optional
        Memory budget of the run (default 4 GiB): the queues, the recorded occupancy profile
        (recordings x levels) and the buffers. A queue that grows beyond the levels the budget allows
        stops the run with a :class:`~symloss.core.validation.BudgetError`.

    Returns
    -------
    SimulationResult

    Examples
    --------
    >>> r = simulate_supermarket("complete", N=1000, d=2, lam=0.7, t_end=20.0, seed=1)
    >>> 0.9 < r.mean_queue_length < 1.3          # mean field 1.1301 (N = 1000, short run)
    True

    Notes
    -----
    Ties among the shortest queues (including ``v`` itself) are broken uniformly at random
    (reservoir sampling). Isolated vertices are allowed with a warning: tasks arriving there stay.
    The stationary mean queue length is the time average of :math:`\sum_k s_k(t)` over
    ``[warmup, t_end]``; its 95 % CI uses batch means over ``batches`` equal windows, which assumes
    the windows are long compared with the relaxation time (``O(1)`` time units here for
    ``lam`` not close to 1; check by raising ``t_end``).
    """
    d = _check_d(d)
    if d > MAX_D_SIMULATION:
        raise ValueError(f"d must be an integer in [1, {MAX_D_SIMULATION}] for the simulator, got {d}")
    lam = _lam_float(lam)
    t_end = real_float(t_end, "t_end", lower=0, lower_open=True)
    warmup = t_end / 5 if warmup is None else real_float(warmup, "warmup", lower=0, upper=t_end, upper_open=True)
    rec = t_end / 200 if record_every is None else real_float(record_every, "record_every", lower=0,
                                                                lower_open=True, upper=t_end)
    batches = check_int(batches, "batches", min_value=2, max_value=10 ** 6)
    replace = boolean(replace, "replace")
    check_choice(method, "method", ("uniformized", "event"))
    max_events = real_float(max_events, "max_events", lower=0, lower_open=True)
    max_bytes = check_max_bytes(max_bytes)
    ss = _seed_seq(seed)
    seed_int = int(ss.generate_state(1, dtype=np.uint32)[0])
    if isinstance(graph, str):
        if N is None:
            raise TypeError(f"simulate_supermarket({graph!r}) needs N")
        Nc = check_int(N, "N", min_value=1)
        _check_run_budget(Nc, lam, t_end, rec, max_events, max_bytes, method)
        graph = make_graph(graph, Nc, k=k, c=c, seed=np.random.default_rng(_child(ss, 0)), max_bytes=max_bytes)
    else:
        if N is not None or k is not None or c is not None:
            raise TypeError("N, k and c are only used when graph is a family name")
        graph = _graph_from_user(graph)
    _validate_graph_for(graph, d, replace)
    Nv = graph.N
    n_rec = _check_run_budget(Nv, lam, t_end, rec, max_events, max_bytes, method)
    # levels the recorded profile may use: (recordings x levels) int64 + 3 float arrays of levels
    max_kcap = int(max(64, (max_bytes / 2 - 12.0 * Nv) / (8.0 * (n_rec + 4))))
    max_kcap = min(max_kcap, 2 ** 30)
    if initial is None:
        q = np.zeros(Nv, dtype=np.int32)
    else:
        q = _check_initial(initial, Nv, max_level=max_kcap // 2 - 1)
        check_budget(float((1.0 + lam) * Nv * t_end + np.sum(q, dtype=np.float64)), max_events, "max_events",
                     what=f"simulate_supermarket: the initial {int(np.sum(q, dtype=np.int64))} tasks plus the run",
                     unit="events")
    if method == "uniformized":
        from ._kernels import _uniformized_kernel
        n_slots = max(1, int(round(t_end / rec)))
        rec = t_end / n_slots
        warm_slots = int(math.ceil(warmup / rec - 1e-9))
        if n_slots - warm_slots < batches:
            raise ValueError(f"only {n_slots - warm_slots} recording intervals after the warmup, fewer than "
                             f"batches={batches}: lower record_every or batches")
        warmup = warm_slots * rec
        counts = np.random.default_rng(_child(ss, 1)).poisson((1.0 + lam) * Nv * rec, size=n_slots)
        t0 = time.perf_counter()
        rec_cnt, area, batch_area, n_arr, n_dep, n_dummy, kmax = _uniformized_kernel(
            indptr_of(graph)[0], indptr_of(graph)[1], indptr_of(graph)[2], bool(graph.complete), Nv, d, lam,
            bool(replace), q, counts.astype(np.int64), rec, warm_slots, batches, seed_int, max_kcap)
        secs = time.perf_counter() - t0
        rec_t = np.arange(n_slots + 1) * rec
        method_text = ("uniformised exact simulation (numba): potential events at rate (1+lam)N, Poisson "
                       "count per recording interval, conditional-expectation time averages")
    else:
        from ._kernels import _simulate_kernel
        indptr, indices, _ = indptr_of(graph)
        t0 = time.perf_counter()
        rec_t, rec_cnt, area, batch_area, n_arr, n_dep, kmax = _simulate_kernel(
            indptr, indices, bool(graph.complete), Nv, d, lam, bool(replace), q, t_end, warmup, rec,
            batches, seed_int, max_kcap)
        secs = time.perf_counter() - t0
        n_dummy = 0
        method_text = ("event-driven exact simulation (numba): exponential clock per event, busy-server "
                       "list for departures")
    if kmax < 0:
        raise BudgetError(f"simulate_supermarket: a queue grew beyond {max_kcap - 1} tasks, the most levels the "
                          f"recorded occupancy profile can hold in max_bytes={max_bytes:.3g} "
                          f"({n_rec} recordings); raise max_bytes or record_every (lam={lam} is close to 1?)")
    method_text += "; JSQ among v and d-1 neighbours, ties uniform; CI: batch means, Student t"
    K = int(kmax) + 1
    s = rec_cnt[:, :K + 1].astype(np.float64) / Nv
    span = t_end - warmup
    stat = area[:K + 1] / (Nv * span)
    stat[0] = 1.0
    bm = batch_area / (Nv * span / batches)
    mql = float(np.sum(area[1:]) / (Nv * span))
    if np.all(bm == 0.0):
        # no task present in any window after the warm-up: a zero-width t interval would exclude every
        # positive truth, and a queue length has no a-priori upper bound, so only the lower end is known
        ci = (0.0, math.inf)
        warnings.warn(f"simulate_supermarket: no task was present in any of the {batches} batch windows after the "
                      "warm-up (every batch mean is 0); the interval of mean_queue_length is the one-sided (0, inf): "
                      "raise t_end or N", ZeroObservationsWarning, stacklevel=2)
    else:
        hw = t_quantile(batches - 1) * float(np.std(bm, ddof=1)) / math.sqrt(batches)
        ci = (mql - hw, mql + hw)
    return SimulationResult(rec_t, s, stat, mql, ci, bm, Nv, d, lam, t_end, warmup,
                            bool(replace), graph.to_dict(), int(n_arr), int(n_dep), secs, final_queues=q,
                            method=method_text, dummy_events=int(n_dummy))


def indptr_of(graph: Graph):
    """(indptr, indices, kreg) for the kernels (dummies for the complete graph).

    Parameters
    ----------
    graph : Graph
        The graph.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, int)
        CSR arrays and the common degree (0 when irregular).
    """
    if graph.complete:
        return np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int32), 0
    deg = np.diff(graph.indptr)
    kreg = int(deg[0]) if graph.N > 0 and deg.min() == deg.max() else 0
    return graph.indptr, graph.indices, kreg


def _check_run_budget(Nv, lam, t_end, rec, max_events, max_bytes, method) -> int:
    """Refuse, before any allocation, a run whose events or memory exceed the budgets; returns the
    number of recordings."""
    events = (1.0 + lam) * Nv * t_end
    check_budget(events, max_events, "max_events", what=f"simulate_supermarket: N={Nv}, t_end={t_end:g}",
                 unit="events", hint="lower t_end or N, or raise max_events")
    n_rec = t_end / rec + 2.0
    per_vertex = 4.0 + (8.0 if method == "event" else 0.0)
    mem = per_vertex * Nv + 8.0 * 64 * (n_rec + 4) + 8.0 * n_rec + 512 * 8.0 * 3
    check_budget(mem, max_bytes, "max_bytes", what=f"simulate_supermarket: N={Nv} queues and {n_rec:.3g} recordings",
                 unit="bytes", hint="lower N, or raise record_every")
    return int(n_rec)
