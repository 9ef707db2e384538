r"""The job-duration contrast of the admission network: jobs with their own service durations, and the
offline interval LP that knows them (the solvers behind
:meth:`~symloss.admission.network.OverloadedLossNetwork.sample_jobs` and ``offline_interval_lp``; the
class validates its arguments and delegates here). Written for the shipped rules. SciPy's LP solver is
imported inside :func:`offline_interval_lp` (``scipy.optimize`` is slow to import).
"""
from __future__ import annotations

import heapq

import numpy as np

from ..core.docstrings import fill_doc
from ..core.validation import BudgetError, check_budget
from ._docfragments import ADMISSION_DOCS
from .paths import rng_of, seed_label
from .results import IntervalLPResult, JobSample

__all__ = ["sample_jobs", "offline_interval_lp", "MAX_LP_NONZEROS"]

MAX_LP_NONZEROS = 2 * 10 ** 7   # interval LP: constraint nonzeros (memory and HiGHS time)


@fill_doc(ADMISSION_DOCS)
def sample_jobs(net, horizon: float, seed) -> JobSample:
    """Jobs of the job-duration variant on ``[0, horizon]`` (see ``OverloadedLossNetwork.sample_jobs``).

    Parameters
    ----------
    {{net_param}}
    horizon : float
        The checked horizon.
    {{seed_param}}

    Returns
    -------
    JobSample
        The jobs arriving in ``[0, horizon]``, sorted by arrival, with their durations and classes.
    """
    lH, lL, mu, _, _ = net._floats()
    N = net.N
    mean = N * (lH + lL) * horizon
    if mean > 200_000:
        raise BudgetError(f"sample_jobs: horizon={horizon:g} gives about {mean:.3g} jobs; the interval LP is "
                          f"limited to 2e5 jobs")
    rng = rng_of(seed)
    M = int(rng.poisson(mean))
    if M > 200_000:
        raise BudgetError(f"sample_jobs: horizon={horizon:g} gave {M} jobs; the interval LP is limited to 2e5 "
                          f"jobs")
    arr = np.sort(rng.random(M)) * horizon
    cls = (rng.random(M) >= lH / (lH + lL)).astype(np.int8)
    dur = rng.standard_exponential(M) / mu
    return JobSample(N=N, horizon=horizon, seed=seed_label(seed), arrivals=arr, durations=dur, classes=cls)


@fill_doc(ADMISSION_DOCS)
def offline_interval_lp(net, jobs: JobSample) -> IntervalLPResult:
    """The offline interval LP (see ``OverloadedLossNetwork.offline_interval_lp``).

    Parameters
    ----------
    {{net_param}}
    jobs : JobSample
        Checked jobs of this network.

    Returns
    -------
    IntervalLPResult
        The optimal schedule's reward, its integrality and the greedy schedule's reward.
    """
    from scipy.optimize import linprog
    from scipy.sparse import csc_matrix
    _, _, _, rH, rL = net._floats()
    a, d, c = jobs.arrivals, jobs.durations, jobs.classes
    M = a.size
    if M == 0:
        return IntervalLPResult(0.0, 0.0, float(net.fluid_reward()), -float(net.fluid_reward()) / net.N,
                                0, 0, 0, 0.0, 0.0, "empty")
    ends = np.searchsorted(a, a + d, side="left")  # job j is active at epochs j .. ends[j]-1
    lens = ends - np.arange(M)
    nnz = int(lens.sum())
    check_budget(nnz, MAX_LP_NONZEROS, "MAX_LP_NONZEROS",
                 what=f"offline_interval_lp: {M} jobs, each active at ~{nnz / M:.3g} arrival epochs",
                 unit="constraint nonzeros", hint="a shorter horizon (or a smaller N, fewer overlaps)")
    rows = np.concatenate([np.arange(j, ends[j]) for j in range(M)])
    cols = np.repeat(np.arange(M), lens)
    A = csc_matrix((np.ones(rows.size), (rows, cols)), shape=(M, M))
    w = np.where(c == 0, rH, rL)
    res = linprog(-w, A_ub=A, b_ub=np.full(M, float(net.N)), bounds=(0, 1), method="highs")
    if res.status != 0:
        raise RuntimeError(f"HiGHS failed: {res.message}")
    x = res.x
    frac = float(np.max(np.minimum(np.abs(x), np.abs(1 - x))))
    xi = np.round(x)
    val = float(w @ xi)
    # greedy feasible schedule (FCFS loss system, accept everything that fits)
    busy: list = []
    g = 0.0
    for j in range(M):
        while busy and busy[0] <= a[j]:
            heapq.heappop(busy)
        if len(busy) < net.N:
            heapq.heappush(busy, a[j] + d[j])
            g += w[j]
    T = jobs.horizon
    fluid = float(net.fluid_reward())
    return IntervalLPResult(value=val, reward_rate=val / T, fluid=fluid,
                            gain_per_server=(val / T - fluid) / net.N, n_jobs=int(M),
                            accepted_H=int(xi[c == 0].sum()), accepted_L=int(xi[c == 1].sum()),
                            max_fractionality=frac, greedy_value=g, status=res.message)
