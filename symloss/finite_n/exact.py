"""Exact finite-N solution: the occupancy-count CTMC of the N-server loss system.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

from ..core.results import ResultMixin
from ..core.stats import truncated_poisson_log_weights, truncated_poisson_weights
from ..core.validation import check_int
from .common import _check_common, conditional_blocking

# --------------------------------------------------------------------------------------------------
# exact finite-N solution (occupancy-count CTMC)
# --------------------------------------------------------------------------------------------------

@dataclass
class ExactFiniteNResult(ResultMixin):
    r"""Stationary solution of the occupancy-count CTMC (:func:`exact_finite_n`).

    ``blocking`` is :math:`\sum_n \pi(n) b(n)`; ``occupancy[k]`` is :math:`E[n_k]/N`;
    ``residual`` is :math:`\max |\pi Q|` of the computed distribution.
    """

    policy: str
    N: int
    C: int
    rho: float
    d: int | None
    sampling: str
    blocking: float
    occupancy: np.ndarray
    n_states: int
    residual: float
    method: str = ("sparse LU (SuperLU, minimum degree on A+A^T) of the balance equations of the "
                   "occupancy-count CTMC")

    def to_dict(self) -> dict:
        return {"policy": self.policy, "N": self.N, "C": self.C, "rho": self.rho, "d": self.d,
                "sampling": self.sampling, "blocking": self.blocking,
                "occupancy": self.occupancy.tolist(), "n_states": self.n_states,
                "residual": self.residual, "method": self.method}


_GS_MAX_STATES = 200_000   # Gauss-Seidel beyond the LU limit, up to here (N = 100 at C = 3: 176,851 states, ~1 min)


def _gauss_seidel_stationary(AT_indptr, AT_indices, AT_data, out_rate, order, pi, tol, max_sweeps):
    """Symmetric Gauss-Seidel for pi Q = 0 (numba kernel :func:`._gs_kernel.gauss_seidel_sweeps`)."""
    from ._gs_kernel import gauss_seidel_sweeps
    return gauss_seidel_sweeps(AT_indptr, AT_indices, AT_data, out_rate, order, pi, tol, max_sweeps)


def _n_states(N: int, C: int) -> int:
    return math.comb(N + C, C)


def _enumerate_states(N: int, C: int) -> np.ndarray:
    """All (n_0, ..., n_C) with sum N (stars and bars), one per row."""
    M = _n_states(N, C)
    bars = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(N + C), C)),
                       dtype=np.int64, count=M * C).reshape(M, C)
    ext = np.concatenate([np.full((M, 1), -1, np.int64), bars, np.full((M, 1), N + C, np.int64)],
                         axis=1)
    return np.diff(ext, axis=1) - 1


def _routing_probabilities(policy, N, d, sampling, S):
    """q[:, k] = probability that an arrival in state S joins a level-k server (k < C)."""
    M, C1 = S.shape
    C = C1 - 1
    q = np.zeros((M, C))
    Sf = S.astype(np.float64)
    if policy == "random":
        q[:] = Sf[:, :C] / N
    elif policy == "jsq":
        nonempty = S[:, :C] > 0
        has = nonempty.any(axis=1)
        first = np.argmax(nonempty, axis=1)
        q[np.nonzero(has)[0], first[has]] = 1.0
    elif policy == "power":
        T = np.cumsum(Sf[:, ::-1], axis=1)[:, ::-1]          # T[:, k] = servers with >= k jobs
        if sampling == "with_replacement":
            P = (T / N) ** d
        else:
            P = np.ones_like(T)
            for i in range(d):
                P = P * np.clip(T - i, 0, None) / (N - i)
        q[:] = P[:, :C] - P[:, 1:]
    else:  # retrial
        nC = Sf[:, C]
        if sampling == "with_replacement":
            f = nC / N
            geo = np.zeros(M)
            term = np.ones(M)
            for _ in range(d):
                geo += term / N
                term = term * f
        else:
            geo = np.zeros(M)
            allfull = np.ones(M)   # P(first j attempts all hit full servers)
            for j in range(d):
                geo += allfull / (N - j)
                allfull = allfull * np.clip(nC - j, 0, None) / (N - j)
        q[:] = Sf[:, :C] * geo[:, None]
    return q


def _max_states(C: int) -> int:
    """Default state limit of :func:`exact_finite_n` (a few seconds on one core)."""
    return {1: 1_000_000, 2: 200_000, 3: 30_000}.get(C, 8_000)


def exact_finite_n(policy, N, C, rho, d=None, *, sampling="with_replacement",
                   max_states=None) -> ExactFiniteNResult:
    r"""Exact stationary blocking of the ``N``-server system (small ``N``, ``C``).

    The occupancy counts :math:`n = (n_0, \dots, n_C)`, :math:`\sum_k n_k = N`, form a CTMC with

    * arrival to a level-``k`` server (:math:`n_k \to n_k - 1, n_{k+1} \to n_{k+1} + 1`) at rate
      :math:`N \rho\, q_k(n)`, the routing probability of the policy and sampling convention
      (module docstring);
    * departure from a level-``k`` server at rate :math:`k n_k` (``mu = 1``).

    Its :math:`\binom{N+C}{C}` balance equations (one replaced by the normalisation) are solved by a
    sparse LU factorisation; :math:`B_N = \sum_n \pi(n) b(n)` (PASTA).

    Parameters
    ----------
    policy : {"random", "retrial", "power", "jsq"}
    N, C : int
        Servers and capacity. The number of states :math:`M = \binom{N+C}{C}` is limited by default
        to 200 000 for ``C = 2`` (``N <= 630``), 30 000 for ``C = 3`` (``N <= 54``) and 8 000 for
        ``C >= 4`` (``N <= 11`` for ``C = 5``): the sparse LU fill grows like :math:`M^{4/3}` for
        ``C = 3`` and faster for larger ``C`` (measured: ``N = 50, C = 3``, 23 426 states, 3 s;
        ``N = 68, C = 3``, 57 155 states, 17 s; ``N = 15, C = 5``, 15 504 states, 16 s).
    rho : float
        Load per server.
    d : int, optional
        Attempts / samples for "retrial" / "power".
    sampling : {"with_replacement", "without_replacement"}
    max_states : int, optional
        Override the state limit.

    Returns
    -------
    ExactFiniteNResult

    Examples
    --------
    For ``C = 1`` random routing is an Engset system whose blocking is exactly
    :math:`\rho/(1+\rho)` for every ``N``:

    >>> round(exact_finite_n("random", 10, 1, 1.0).blocking, 12)
    0.5
    """
    policy, N, C, rho_f, d, sampling = _check_common(policy, N, C, rho, d, sampling)
    M = _n_states(N, C)
    limit = _max_states(C) if max_states is None else check_int(max_states, "max_states", min_value=1)
    iterative_limit = max(limit, _GS_MAX_STATES)
    if M > iterative_limit:
        raise ValueError(f"the occupancy-count chain has C(N+C, C) = {M} states for N = {N}, "
                         f"C = {C}; exact_finite_n handles at most {iterative_limit} states "
                         f"(sparse LU up to {limit}, Gauss-Seidel beyond); use simulate() or "
                         f"refined_mean_field() instead")
    S = _enumerate_states(N, C)
    base = N + 1
    weights = base ** np.arange(C + 1, dtype=np.int64)
    weights[0] = 0                       # n_0 is implied by the others
    keys = S @ weights
    order = np.argsort(keys)
    sorted_keys = keys[order]

    def index_of(T):
        return order[np.searchsorted(sorted_keys, T @ weights)]

    q = _routing_probabilities(policy, N, d, sampling, S)
    rows, cols, vals = [], [], []
    idx = np.arange(M)
    for k in range(C):                   # arrivals k -> k+1
        rate = N * rho_f * q[:, k]
        m = rate > 0
        T = S[m].copy()
        T[:, k] -= 1
        T[:, k + 1] += 1
        rows.append(idx[m]); cols.append(index_of(T)); vals.append(rate[m])
    for k in range(1, C + 1):            # departures k -> k-1
        rate = k * S[:, k].astype(np.float64)
        m = rate > 0
        T = S[m].copy()
        T[:, k] -= 1
        T[:, k - 1] += 1
        rows.append(idx[m]); cols.append(index_of(T)); vals.append(rate[m])
    rows = np.concatenate(rows); cols = np.concatenate(cols); vals = np.concatenate(vals)
    out = np.bincount(rows, weights=vals, minlength=M)
    Q = sps.csr_matrix((np.concatenate([vals, -out]), (np.concatenate([rows, idx]),
                                                      np.concatenate([cols, idx]))), shape=(M, M))
    # pi Q = 0  <=>  Q^T pi^T = 0. Fix pi(state 0) = 1, drop its balance equation (the system stays
    # sparse: no dense normalisation row), solve for the rest, then normalise.
    # The fixed state is a likely one (the product-form mode), so that no ratio pi(n)/pi(ref)
    # overflows.
    A = Q.T.tocsc()
    method = ExactFiniteNResult.method
    if M == 1:
        pi = np.ones(1)
    elif M > limit:
        # too large for the direct solve (LU fill-in): symmetric Gauss-Seidel, states ordered by the
        # total number of jobs, started from the product-form (independent servers) guess, until
        # the relative change of every probability is below 1e-13; the residual is reported.
        AT = sps.csr_matrix((vals, (cols, rows)), shape=(M, M))
        level = S @ np.arange(C + 1)
        order_gs = np.argsort(level, kind="stable").astype(np.int64)
        logpi = S @ truncated_poisson_log_weights(C, rho_f)
        pi = np.exp(logpi - logpi.max())
        pi /= pi.sum()
        sweeps, change = _gauss_seidel_stationary(AT.indptr.astype(np.int64), AT.indices.astype(np.int64),
                                                  AT.data, out, order_gs, pi, 1e-13, 20000)
        if change >= 1e-13:
            raise ArithmeticError(f"exact_finite_n: Gauss-Seidel did not converge in {sweeps} sweeps "
                                  f"(relative change {change:.2e})")
        method = (f"symmetric Gauss-Seidel on the balance equations ({sweeps} sweeps, relative change "
                  f"< 1e-13), states ordered by total jobs; used beyond {limit} states")
    else:
        p = truncated_poisson_weights(C, rho_f)
        guess = np.floor(N * p / p.sum()).astype(np.int64)
        guess[int(np.argmax(p))] += N - guess.sum()
        ref = int(index_of(guess[None, :])[0])
        keep = np.ones(M, bool)
        keep[ref] = False
        lu = spla.splu(A[keep][:, keep].tocsc(), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.1,
                       options=dict(SymmetricMode=True))
        pi = np.empty(M)
        pi[ref] = 1.0
        pi[keep] = lu.solve(-A[keep][:, [ref]].toarray().ravel())
    if np.min(pi) < -1e-10 * np.max(pi):
        raise ArithmeticError("exact_finite_n: the sparse solve returned a distribution with "
                              f"negative mass {np.min(pi):.3g}")
    pi = np.clip(pi, 0, None)
    pi /= pi.sum()
    residual = float(np.max(np.abs(Q.T @ pi)))
    b = conditional_blocking(policy, N, d, S[:, C], sampling if policy in ("retrial", "power")
                             else "with_replacement")
    blocking = float(pi @ b)
    occupancy = (pi @ S) / N
    return ExactFiniteNResult(policy=policy, N=N, C=C, rho=rho_f,
                              d=d if policy in ("retrial", "power") else None, sampling=sampling,
                              blocking=blocking, occupancy=occupancy, n_states=M, residual=residual,
                              method=method)


