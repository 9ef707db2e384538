"""Pair approximation (Gast 2015) of the supermarket model on k-regular graphs, d = 2.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.precision import PrecisionError
from ..core.results import ResultMixin
from ..core.validation import BudgetError, Deadline, TimeLimitExceeded, check_int, real_float
from .meanfield import Supermarket
from .simulate import _lam_float

MAX_PAIR_STATES = 100_000       # (K + 1)^2 states of the pair chain (sparse LU ~ K^3: ~20 s at the limit)

# --------------------------------------------------------------------------------------------------
# pair approximation (Gast 2015), d = 2 on k-regular graphs
# --------------------------------------------------------------------------------------------------

@dataclass
class PairApproximationResult(ResultMixin):
    r"""Stationary point of the pair approximation.

    ``x[i, j]`` = probability that a vertex has ``i`` tasks and a given neighbour ``j``;
    ``s[k]`` = marginal tail :math:`P(Q \ge k)`; ``mean_queue_length`` = :math:`\sum_{k\ge1} s_k`.
    ``residual`` = max-norm of the pair-ODE drift at ``x``; ``tail_mass`` = :math:`P(Q = K)` at the
    truncation level ``K``.

    Parameters
    ----------
    k : int
        Degree of the graph.
    lam : float
        Arrival rate per vertex.
    mean_queue_length : float
        :math:`\sum_{k\ge1} s_k`.
    s : numpy.ndarray
        The marginal tail, ``s[k]`` for ``k = 0..K``.
    x : numpy.ndarray
        The pair law, shape ``(K + 1, K + 1)``.
    K : int
        The truncation level.
    residual, tail_mass : float
        As above: the drift's max-norm at ``x`` and :math:`P(Q = K)`.
    method : str, optional
        The approximation and the solver.
    """
    k: int
    lam: float
    mean_queue_length: float
    s: np.ndarray
    x: np.ndarray
    K: int
    residual: float
    tail_mass: float
    method: str = "pair approximation (Gast 2015), stationary point by ODE relaxation + Newton (hybr)"

    @property
    def sojourn_time(self) -> float:
        return self.mean_queue_length / self.lam

    def to_dict(self) -> dict:
        return {"k": self.k, "lam": self.lam, "mean_queue_length": self.mean_queue_length,
                "s": self.s.tolist(), "K": self.K, "residual": self.residual, "tail_mass": self.tail_mass,
                "method": self.method}


def _pair_drift(x: np.ndarray, k: int, lam: float) -> np.ndarray:
    """Drift of the pair approximation (see :func:`pair_approximation`) for the (K+1)x(K+1) matrix x."""
    K1 = x.shape[0]
    idx = np.arange(K1)
    G = np.where(idx[:, None] < idx[None, :], 1.0, np.where(idx[:, None] == idx[None, :], 0.5, 0.0))
    p = x.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        h = np.where(p > 0, (x * G).sum(axis=1) / np.where(p > 0, p, 1.0), 0.0)
    A = (2.0 * lam / k) * G + (2.0 * lam * (k - 1) / k) * h[:, None]
    A[-1, :] = 0.0                         # truncation: no arrival beyond level K
    fu = x * A                             # (i, j) -> (i + 1, j)
    fv = x * A.T                           # (i, j) -> (i, j + 1)
    dx = -fu - fv
    dx[1:, :] += fu[:-1, :]
    dx[:, 1:] += fv[:, :-1]
    dx[1:, :] -= x[1:, :]                  # departures at the first vertex
    dx[:-1, :] += x[1:, :]
    dx[:, 1:] -= x[:, 1:]                  # departures at the neighbour
    dx[:, :-1] += x[:, 1:]
    return dx


def pair_approximation(k: int, lam: float, *, tol: float = 1e-12, max_states: int = MAX_PAIR_STATES,
                       max_seconds=120.0) -> PairApproximationResult:
    r"""Stationary mean queue length of the pair approximation for JSQ(2) on ``k``-regular graphs.

    Model (d = 2): a task arriving at ``u`` picks one neighbour ``w`` uniformly among the ``k``
    and joins the shorter of the two queues (ties: either with probability 1/2).

    Pair approximation (N. Gast, "The power of two choices on graphs: the pair-approximation is
    accurate", ACM SIGMETRICS PER 43(2), 2015): the state is :math:`x_{ij}`, the fraction of
    ordered edges ``(u, v)`` with ``Q_u = i``, ``Q_v = j``, and the queue of any other neighbour
    ``w`` of ``u`` is taken with law :math:`x_{il}/p_i` given :math:`Q_u = i` (independent of
    ``Q_v``; exact on trees, so the approximation targets random regular graphs). With
    :math:`g(i,j) = 1_{i<j} + \tfrac12 1_{i=j}` and :math:`h(i) = \sum_l x_{il} g(i,l)/p_i`, the
    vertex ``u`` of the pair ``(u, v)`` gains a task at rate

    .. math:: a(i, j) = \frac{2\lambda}{k} g(i, j) + \frac{2\lambda (k-1)}{k} h(i),

    (arrivals at ``u`` or at ``v`` that compare ``u`` with ``v``, and arrivals at ``u`` or at one of
    its other ``k - 1`` neighbours that compare ``u`` with that neighbour), ``v`` gains at rate
    :math:`a(j, i)`, and each busy queue loses a task at rate 1. For ``k = 1`` (a perfect matching)
    this is the exact two-queue JSQ chain; as ``k -> inf`` it tends to the mean field
    :math:`\dot s_k = \lambda(s_{k-1}^2 - s_k^2) - (s_k - s_{k+1})`.

    The stationary point is found by relaxing the ODE from the mean-field product state and
    polishing with Newton's method (normalisation replacing one equation); the truncation ``K``
    is doubled until :math:`P(Q = K) <` ``tol``. Derived here from the model description; the
    ring (``k = 2``) value at ``lam = 0.7`` is about 1.255.

    Budgets: the chain has :math:`(K+1)^2` states; a truncation needing more than ``max_states``
    (default ``1e5``, about 20 s) is refused with a :class:`~symloss.core.validation.BudgetError` before the
    linear solve (heavy tails: ``lam`` close to 1, especially for small ``k``); after each truncation
    the geometric decay of the marginal predicts the ``K`` that ``tol`` needs, and a prediction beyond
    the budget is refused at once. ``max_seconds`` (default 120; ``None``: no limit) bounds the
    wall-clock time: checked between the linear solves, a solve predicted (``~K^3`` from the previous
    one) to end past it is not begun, and the linear convergence of the self-consistent iteration
    predicts its remaining steps, so a run that cannot finish in time stops early with
    :class:`~symloss.core.validation.TimeLimitExceeded` (and one that cannot finish in 5000 steps
    with :class:`~symloss.PrecisionError`).

    Parameters
    ----------
    k : int >= 1
        Degree of the regular graph.
    lam : float in (0, 1)
        Arrival rate per vertex (service rate 1).
    tol : float in (0, 1e-3]
        Largest mass allowed at the truncation level ``K``.
    max_states : int >= 16, optional
        Largest number :math:`(K+1)^2` of pair states (default ``1e5``); a truncation needing more
        is refused with a :class:`~symloss.core.validation.BudgetError` before the linear solve.
    max_seconds : float or None, optional
        Wall-clock limit in seconds (default 120; ``None``: no limit); a run predicted to end past
        it stops early with :class:`~symloss.core.validation.TimeLimitExceeded`.

    Returns
    -------
    PairApproximationResult
        The stationary pair law, its tails and mean queue length.

    Examples
    --------
    >>> round(pair_approximation(3, 0.7).mean_queue_length, 4)
    1.2022
    """
    k = check_int(k, "k", min_value=1)
    lam = _lam_float(lam)
    tol = real_float(tol, "tol", lower=0, upper=1e-3, lower_open=True)
    max_states = check_int(max_states, "max_states", min_value=16)
    deadline = Deadline(max_seconds, "pair_approximation")
    mf = Supermarket(2, lam)
    K = max(2 * mf.K + 4, 12)
    h = None
    import time
    last = None                      # (K, seconds) of the previous truncation's solves
    for _ in range(12):
        if (K + 1) ** 2 > max_states:
            raise BudgetError(f"pair_approximation(k={k}, lam={lam}): the truncation K={K} has {(K + 1) ** 2} "
                              f"states, more than max_states={max_states} (the queue tail is too heavy for "
                              f"tol={tol:g}); raise tol or max_states")
        if last is not None and deadline.limit is not None:
            # sparse LU on the (K+1)^2 grid: time ~ K^3 (nested-dissection fill-in)
            predicted = last[1] * ((K + 1) / (last[0] + 1)) ** 3
            if deadline.elapsed + predicted > deadline.limit:
                raise TimeLimitExceeded(f"pair_approximation: the solve at K={K} is estimated to take "
                                        f"{predicted:.3g} s, beyond max_seconds={deadline.limit:g} "
                                        f"({deadline.elapsed:.2f} s used)")
        t0 = time.perf_counter()
        x, h, iters = _pair_stationary(k, lam, K, h, deadline=deadline)
        last = (K, time.perf_counter() - t0)
        p = x.sum(axis=1)
        if p[-1] < tol:
            break
        # the marginal decays geometrically: predict the truncation tol needs and refuse it at once
        # when it is beyond the budget (the next solves would only confirm the refusal, slowly)
        i0, i1 = max(1, K // 3), max(2, (2 * K) // 3)
        if p[i1] > 0 and p[i0] > p[i1]:
            rate = (p[i1] / p[i0]) ** (1.0 / (i1 - i0))
            K_need = int(i1 + np.log(tol / p[i1]) / np.log(rate)) + 2 if rate < 1 else None
            if K_need is not None and (K_need + 1) ** 2 > max_states:
                raise BudgetError(f"pair_approximation(k={k}, lam={lam}): P(Q = k) decays like {rate:.6g}^k, so "
                                  f"tol={tol:g} needs about K={K_need} levels, {(K_need + 1) ** 2:.3g} states, "
                                  f"more than max_states={max_states}; raise tol or max_states")
        K = int(1.5 * K) + 4
    else:
        raise PrecisionError(f"pair_approximation: P(Q = K) = {p[-1]:.3g} stays above tol={tol:g} at K={K}")
    res = float(np.max(np.abs(_pair_drift(x, k, lam))))
    if res > 1e-9:
        raise PrecisionError(f"pair_approximation: drift residual {res:.3g} at the computed point is too large")
    tail = np.cumsum(p[::-1])[::-1]
    return PairApproximationResult(k, lam, float(np.sum(tail[1:])), tail, x, K, res, float(p[-1]),
                                   method=f"pair approximation (Gast 2015), stationary point by "
                                          f"self-consistent linear CTMC solves ({iters} iterations), K={K}")


def _pair_h(x: np.ndarray) -> np.ndarray:
    K1 = x.shape[0]
    idx = np.arange(K1)
    G = np.where(idx[:, None] < idx[None, :], 1.0, np.where(idx[:, None] == idx[None, :], 0.5, 0.0))
    p = x.sum(axis=1)
    return np.where(p > 0, (x * G).sum(axis=1) / np.where(p > 0, p, 1.0), 0.0)


def _pair_stationary(k: int, lam: float, K: int, h0, max_iter: int = 5000, deadline=None, iter_offset: int = 0):
    """Self-consistent solve: for a given conditional comparison term ``h`` the pair process is a
    linear CTMC on ``{0..K}^2``; solve its stationary law (sparse LU), recompute ``h``, repeat
    (with Anderson-free plain iteration, which contracts here) until ``h`` moves by < 1e-15."""
    import scipy.sparse as sps
    import scipy.sparse.linalg as spla
    K1 = K + 1
    idx = np.arange(K1)
    G = np.where(idx[:, None] < idx[None, :], 1.0, np.where(idx[:, None] == idx[None, :], 0.5, 0.0))
    if h0 is None:
        s = np.array([lam ** (2 ** i - 1) for i in range(K1)] + [0.0])
        h = s[1:] + 0.5 * (s[:-1] - s[1:])
    else:
        h = np.zeros(K1)
        h[: len(h0)] = h0[:K1]
        h[len(h0):] = h0[-1] if len(h0) else 0.0
    I, J = np.meshgrid(idx, idx, indexing="ij")
    st = (I * K1 + J).ravel()
    n = K1 * K1
    x = None
    deltas: list = []
    for it in range(1, max_iter + 1):
        A = (2.0 * lam / k) * G + (2.0 * lam * (k - 1) / k) * h[:, None]
        A[-1, :] = 0.0
        rows, cols, vals = [], [], []
        up_u = (I < K).ravel()
        rows.append(st[up_u]); cols.append(st[up_u] + K1); vals.append(A.ravel()[up_u])
        up_v = (J < K).ravel()
        rows.append(st[up_v]); cols.append(st[up_v] + 1); vals.append(A.T.ravel()[up_v])
        dn_u = (I > 0).ravel()
        rows.append(st[dn_u]); cols.append(st[dn_u] - K1); vals.append(np.ones(dn_u.sum()))
        dn_v = (J > 0).ravel()
        rows.append(st[dn_v]); cols.append(st[dn_v] - 1); vals.append(np.ones(dn_v.sum()))
        r_ = np.concatenate(rows); c_ = np.concatenate(cols); v_ = np.concatenate(vals)
        out = np.bincount(r_, weights=v_, minlength=n)
        # transposed generator Q^T (balance equations pi Q = 0), row 0 replaced by normalisation
        tr = np.concatenate([c_, np.arange(n)])
        tc = np.concatenate([r_, np.arange(n)])
        tv = np.concatenate([v_, -out])
        keep = tr != 0
        tr = np.concatenate([tr[keep], np.zeros(n, dtype=tr.dtype)])
        tc = np.concatenate([tc[keep], np.arange(n)])
        tv = np.concatenate([tv[keep], np.ones(n)])
        M = sps.csc_matrix((tv, (tr, tc)), shape=(n, n))
        rhs = np.zeros(n)
        rhs[0] = 1.0
        if deadline is not None:
            deadline.check(f"K={K}, iteration {it}")
        pi = spla.spsolve(M, rhs)
        x = np.clip(pi.reshape(K1, K1), 0.0, None)
        x = 0.5 * (x + x.T)
        x /= x.sum()
        h_new = _pair_h(x)
        delta = float(np.max(np.abs(h_new - h)))
        h = h_new
        if delta < 1e-15:
            break
        deltas.append(delta)
        if len(deltas) >= 50 and deltas[-17] > deltas[-9] > delta > 1e-11:
            # settled linear convergence (two successive windows contract at the same rate, above the
            # rounding-noise floor, after 50 steps): predict the remaining iterations and refuse early
            # when they cannot finish within max_iter or within the time budget
            rate = (delta / deltas[-9]) ** (1.0 / 8)
            rate0 = (deltas[-9] / deltas[-17]) ** (1.0 / 8)
            if not abs(np.log(rate) - np.log(rate0)) < 0.05 * abs(np.log(rate)):
                continue
            remaining = np.log(1e-15 / delta) / np.log(rate)
            if it + remaining > max_iter:
                raise PrecisionError(f"pair_approximation: the self-consistent iteration at K={K} contracts "
                                     f"by {rate:.6f} per step and would need about {it + remaining:.3g} "
                                     f"iterations, more than {max_iter}")
            if deadline is not None and deadline.limit is not None:
                per = deadline.elapsed / max(1, it + iter_offset)
                if deadline.elapsed + remaining * per > deadline.limit:
                    raise TimeLimitExceeded(
                        f"pair_approximation: about {remaining:.3g} more iterations at K={K} (~{remaining * per:.3g} "
                        f"s), beyond max_seconds={deadline.limit:g} ({deadline.elapsed:.2f} s used)")
    else:
        raise PrecisionError(f"pair_approximation: self-consistent iteration did not converge at K={K}")
    return x, h, it
