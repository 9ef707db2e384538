"""Simulation of the supermarket model on a graph (numba kernels in ``symloss.supermarket._kernels``).
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

import numpy as np

from ..core.random import child, seed_sequence
from ..core.results import ResultMixin
from ..core.stats import t_quantile
from ..core.validation import check_choice, check_int, check_real
from .graphs import Graph, _graph_from_user, make_graph
from .meanfield import _check_d, _check_lam

# --------------------------------------------------------------------------------------------------
# simulation
# --------------------------------------------------------------------------------------------------


@dataclass
class SimulationResult(ResultMixin):
    r"""Output of :func:`simulate_supermarket`.

    Attributes
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
        :math:`\bar x \pm t_{0.975, B-1}\, s_B/\sqrt{B}` over the window averages.
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
        return self.events / self.seconds if self.seconds > 0 else float("nan")

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


def simulate_supermarket(graph, *, d: int = 2, lam: float, t_end: float, seed=None, warmup=None,
                         record_every=None, replace: bool = False, initial=None, batches: int = 20,
                         method: str = "uniformized", N: int | None = None, k: int | None = None,
                         c=None) -> SimulationResult:
    r"""Simulate the supermarket model JSQ(d) on a graph.

    Parameters
    ----------
    graph : Graph, str, networkx graph or scipy sparse matrix
        The graph (:func:`make_graph` output); a family name builds one with ``N``, ``k``, ``c`` and
        a child of ``seed``.
    d : int >= 1
        The task compares the queue at its arrival vertex ``v`` with ``d - 1`` neighbours of ``v``.
    lam : float in (0, 1)
        Poisson arrival rate at every vertex (service rate 1).
    t_end : float > 0
        Simulated time.
    seed : int, SeedSequence or None
        Same seed, same output (numba's generator is seeded inside the kernel from the seed sequence).
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
        Initial queue lengths (length ``N``); default: all queues empty.
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
    lam = float(_check_lam(lam))
    check_real(t_end, "t_end", lower=0, lower_open=True)
    t_end = float(t_end)
    warmup = t_end / 5 if warmup is None else float(check_real(warmup, "warmup", lower=0, upper=t_end,
                                                                 upper_open=True))
    rec = t_end / 200 if record_every is None else float(check_real(record_every, "record_every", lower=0,
                                                                      lower_open=True, upper=t_end))
    batches = check_int(batches, "batches", min_value=2, max_value=10 ** 6)
    if not isinstance(replace, (bool, np.bool_)):
        raise TypeError(f"replace must be True or False, got {replace!r}")
    seed_int, ss = _seed_int(seed)
    if isinstance(graph, str):
        graph = make_graph(graph, N, k=k, c=c, seed=np.random.default_rng(_child(ss, 0)))
    else:
        if N is not None or k is not None or c is not None:
            raise TypeError("N, k and c are only used when graph is a family name")
        graph = _graph_from_user(graph)
    _validate_graph_for(graph, d, bool(replace))
    Nv = graph.N
    if initial is None:
        q = np.zeros(Nv, dtype=np.int32)
    else:
        q = np.asarray(initial)
        if q.shape != (Nv,) or not np.issubdtype(q.dtype, np.integer) or (q < 0).any():
            raise ValueError(f"initial must be an integer array of N={Nv} non-negative queue lengths")
        q = q.astype(np.int32, copy=True)
    check_choice(method, "method", ("uniformized", "event"))
    if graph.complete:
        indptr = np.zeros(1, dtype=np.int64)
        indices = np.zeros(1, dtype=np.int32)
        kreg = 0
    else:
        indptr, indices = graph.indptr, graph.indices
        deg = np.diff(indptr)
        kreg = int(deg[0]) if Nv > 0 and deg.min() == deg.max() else 0
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
            indptr, indices, kreg, bool(graph.complete), Nv, d, lam, bool(replace), q,
            counts.astype(np.int64), rec, warm_slots, batches, seed_int)
        secs = time.perf_counter() - t0
        rec_t = np.arange(n_slots + 1) * rec
        method_text = ("uniformised exact simulation (numba): potential events at rate (1+lam)N, Poisson "
                       "count per recording interval, conditional-expectation time averages")
    else:
        from ._kernels import _simulate_kernel
        t0 = time.perf_counter()
        rec_t, rec_cnt, area, batch_area, n_arr, n_dep, kmax = _simulate_kernel(
            indptr, indices, bool(graph.complete), Nv, d, lam, bool(replace), q, t_end, warmup, rec,
            batches, seed_int)
        secs = time.perf_counter() - t0
        n_dummy = 0
        method_text = ("event-driven exact simulation (numba): exponential clock per event, busy-server "
                       "list for departures")
    method_text += "; JSQ among v and d-1 neighbours, ties uniform; CI: batch means, Student t"
    K = int(kmax) + 1
    s = rec_cnt[:, :K + 1].astype(np.float64) / Nv
    span = t_end - warmup
    stat = area[:K + 1] / (Nv * span)
    stat[0] = 1.0
    bm = batch_area / (Nv * span / batches)
    mql = float(np.sum(area[1:]) / (Nv * span))
    hw = t_quantile(batches - 1) * float(np.std(bm, ddof=1)) / math.sqrt(batches)
    return SimulationResult(rec_t, s, stat, mql, (mql - hw, mql + hw), bm, Nv, d, lam, t_end, warmup,
                            bool(replace), graph.to_dict(), int(n_arr), int(n_dep), secs, final_queues=q,
                            method=method_text, dummy_events=int(n_dummy))


