"""Distance between simulated occupancy and the mean-field ODE of the supermarket model.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ..core.results import ResultMixin
from ..core.stats import t_quantile
from ..core.validation import boolean, check_budget, check_choice, check_int, check_max_bytes, real_float
from .graphs import _graph_from_user, make_graph
from .meanfield import MAX_ODE_STEPS, Supermarket, _check_d
from .simulate import DEFAULT_MAX_EVENTS, _child, _lam_float, _seed_seq, simulate_supermarket

# --------------------------------------------------------------------------------------------------
# distance to the mean-field ODE
# --------------------------------------------------------------------------------------------------

@dataclass
class DistanceResult(ResultMixin):
    r"""Distance between the occupancy process on a graph and the mean-field ODE.

    ``distances[r]`` is :math:`\sup_{t \in \text{grid}, t \le T} \max_{k \ge 1} |s^N_k(t) - s_k(t)|`
    for run ``r`` (both started empty); ``distance`` is their mean and ``ci`` a 95 % Student-t interval
    over the runs, ``None`` for a single run (an interval needs at least two; nothing is reported as
    NaN). ``mode`` is ``"quenched"`` (one graph for all runs) or ``"annealed"`` (a new graph for every
    run).

    Parameters
    ----------
    distance : float
        The mean of ``distances``.
    ci : tuple of float or None
        The 95 % interval of ``distance`` (None for one run).
    distances : numpy.ndarray
        The distance of each run.
    N : int
        Number of vertices.
    family : str
        The graph family.
    mode : {"quenched", "annealed"}
        One graph for all runs, or a new one per run.
    d, lam : int, float
        The choice parameter and the arrival rate per vertex.
    T, record_every : float
        The horizon and the spacing of the comparison grid.
    graphs : list
        The description of each graph used (``Graph.to_dict()``).
    method : str, optional
        What the distance is.
    """
    distance: float
    ci: tuple | None
    distances: np.ndarray
    N: int
    family: str
    mode: str
    d: int
    lam: float
    T: float
    record_every: float
    graphs: list
    method: str = "sup over the recording grid and k of |s^N_k(t) - s_k(t)|, mean over runs, Student-t CI"

    def to_dict(self) -> dict:
        return {"distance": self.distance, "ci": None if self.ci is None else list(self.ci),
                "distances": self.distances.tolist(),
                "N": self.N, "family": self.family, "mode": self.mode, "d": self.d, "lam": self.lam,
                "T": self.T, "record_every": self.record_every, "graphs": self.graphs, "method": self.method}


def ode_distance(graph, *, d: int = 2, lam: float, T: float, runs: int = 4, mode: str = "quenched",
                 seed=None, N: int | None = None, k: int | None = None, c=None, record_every=None,
                 replace: bool = False, max_events=DEFAULT_MAX_EVENTS, max_bytes=None) -> DistanceResult:
    r"""Sup-distance on ``[0, T]`` between the supermarket model on a graph and the mean-field ODE.

    Parameters
    ----------
    graph : str or graph
        A family name of :func:`make_graph` (with ``N``, ``k``, ``c``) or a ready graph (then only
        ``mode="quenched"`` makes sense).
    d : int >= 1
        Queues compared per task (the arrival vertex and ``d - 1`` neighbours).
    lam : float in (0, 1)
        Arrival rate per vertex (service rate 1).
    T : float
        Time horizon; both processes start from the empty state.
    runs : int
        Independent simulations; the distance is their mean, with a Student-t interval.
    mode : {"quenched", "annealed"}
        Quenched: one graph drawn once (from ``seed``), ``runs`` independent simulations on it.
        Annealed: a fresh graph for every run (only differs for random families).
    seed : int, SeedSequence or None
        Randomness of the graphs and the simulations.
    N, k, c : optional
        Size, degree and Erdos-Renyi mean degree of a family built here (see :func:`make_graph`).
    record_every : float, optional
        Grid spacing of the supremum (default ``T/100``); the supremum is taken on this grid.
    replace : bool
        Neighbours sampled with replacement (see :func:`simulate_supermarket`).
    max_events, max_bytes : float, optional
        Budgets (see :func:`simulate_supermarket`); ``max_events`` bounds the events of all ``runs``
        together and is checked before the first run.

    Returns
    -------
    DistanceResult
        The mean distance, its interval and the distance of every run.

    Examples
    --------
    >>> r = ode_distance("complete", N=1000, d=2, lam=0.7, T=2.0, runs=2, seed=1)
    >>> 0 < r.distance < 0.2
    True

    Notes
    -----
    Budhiraja, Mukherjee and Wu (*Supermarket model on graphs*, 2019) prove: for the complete graph the distance is :math:`O(1/\sqrt N)`; it tends
    to 0 whenever the minimum degree tends to infinity (with max/min degree ratio -> 1), and for
    Erdos-Renyi graphs with :math:`c(N) \to \infty` (annealed) or :math:`c(N)/\ln N \to \infty`
    (quenched). For fixed degree it does not tend to 0.
    """
    d = _check_d(d)
    lam = _lam_float(lam)
    T = real_float(T, "T", lower=0, lower_open=True)
    runs = check_int(runs, "runs", min_value=1)
    check_choice(mode, "mode", ("quenched", "annealed"))
    rec = T / 100 if record_every is None else real_float(record_every, "record_every", lower=0,
                                                            lower_open=True, upper=T)
    replace = boolean(replace, "replace")
    max_events = real_float(max_events, "max_events", lower=0, lower_open=True)
    max_bytes = check_max_bytes(max_bytes)
    if isinstance(graph, str):
        if N is None:
            raise TypeError("ode_distance with a family name needs N")
        n_for_budget = check_int(N, "N", min_value=1)
    else:
        if mode == "annealed":
            raise ValueError("mode='annealed' needs a family name (a new graph per run); a ready graph "
                             "is necessarily quenched")
        if N is not None or k is not None or c is not None:
            raise TypeError("N, k and c are only used when graph is a family name")
        fixed = _graph_from_user(graph)
        family = fixed.family
        n_for_budget = fixed.N
    check_budget((1.0 + lam) * n_for_budget * T * runs, max_events, "max_events",
                 what=f"ode_distance: {runs} runs of N={n_for_budget}, T={T:g}", unit="events",
                 hint="lower T, N or runs, or raise max_events")
    steps = 2.0 * (d + 1) * T
    check_budget(steps, MAX_ODE_STEPS, "MAX_ODE_STEPS", what=f"ode_distance: the mean-field ODE up to T={T:g}",
                 unit="steps", hint="lower T (the distance is a transient quantity)")
    root = _seed_seq(seed)
    children = [_child(root, 10 + i) for i in range(2 * runs + 1)]
    if isinstance(graph, str):
        family = graph
        fixed = None if mode == "annealed" else make_graph(graph, N, k=k, c=c, max_bytes=max_bytes,
                                                          seed=np.random.default_rng(children[-1]))
    model = Supermarket(d, lam)
    sups, gdicts, Nv = [], [], None
    ode_cache: dict = {}
    seen_warnings: set = set()
    for r in range(runs):
        g = fixed if fixed is not None else make_graph(graph, N, k=k, c=c, max_bytes=max_bytes,
                                                       seed=np.random.default_rng(children[2 * r]))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = simulate_supermarket(g, d=d, lam=lam, t_end=T, record_every=rec, seed=children[2 * r + 1],
                                       warmup=0.0, replace=replace, max_events=max_events, max_bytes=max_bytes)
        for w in caught:
            msg = str(w.message)
            if msg not in seen_warnings:
                seen_warnings.add(msg)
                warnings.warn(f"ode_distance run {r}: {msg}", w.category, stacklevel=2)
        key = tuple(np.round(res.t, 12))
        if key not in ode_cache:
            ode_cache[key] = model.ode(None, res.t)
        sol = ode_cache[key]
        width = max(res.s.shape[1], sol.s.shape[1])
        a = np.zeros((len(res.t), width))
        b = np.zeros((len(res.t), width))
        a[:, :res.s.shape[1]] = res.s
        b[:, :sol.s.shape[1]] = sol.s
        sups.append(float(np.max(np.abs(a[:, 1:] - b[:, 1:]))))
        gdicts.append(res.graph)
        Nv = g.N
    arr = np.asarray(sups)
    mean = float(arr.mean())
    if runs > 1:
        hw = t_quantile(runs - 1) * float(arr.std(ddof=1)) / math.sqrt(runs)
        ci = (mean - hw, mean + hw)
    else:
        ci = None
    return DistanceResult(mean, ci, arr, int(Nv), family, mode, d, lam, T, rec, gdicts)


