r"""Solvers built on generated level kernels (:mod:`symloss.twoqueue.kernels`): level reduction in exact, ball and
field arithmetic, and a float Gauss-Seidel for any adjacent, aggregated definition.

Level reduction (the stochastic complement from the top), for the level vectors :math:`q_K` of
stationary probabilities (one entry per state or class of level ``K``):

.. math::

    q_{K+1} = R_{K+1} q_K, \qquad R_K = Z_K^{-1} U_K, \qquad
    Z_K = \mathrm{diag}(\mathrm{out}_K) - I_K - D_K R_{K+1},

from ``R_{2N+1} = 0``; then :math:`q_0 = (1)`, :math:`q_K = R_K q_{K-1}` and normalisation. The diagonal
of :math:`Z_K` is formed from the exact column sums (GTH): every column of :math:`Z_K` sums to the
down-rate of its state, so :math:`(Z_K)_{ii} = \mathrm{down}_i + \sum_{t \ne i} (I_K + D_K R_{K+1})_{ti}`
with no subtraction (in ball arithmetic this removes an error amplification of about
:math:`e^\rho`). The level masses are not assumed: the recursion is valid for every level-adjacent
definition.
"""
from __future__ import annotations

import numpy as np
from flint import arb, arb_mat, fmpq, fmpq_mat

from ._numba import kernels as numba_kernels
from .kernels import LevelKernels, StructureError

__all__ = ["reduce_levels", "assemble_joint", "float_generic"]


def _num(kind, pair, rho):
    """``c1 * rho + c0`` as an ``fmpq`` or ``arb``."""
    c1, c0 = pair
    if kind == "fmpq":
        return fmpq(c1.numerator, c1.denominator) * rho + fmpq(c0.numerator, c0.denominator)
    return (arb(c1.numerator) / c1.denominator) * rho + arb(c0.numerator) / c0.denominator


def reduce_levels(kern: LevelKernels, rho, kind: str):
    """Level vectors ``q_K`` (unnormalised, ``q_0 = 1``) of the generated chain by level reduction.

    ``kind``: ``"fmpq"`` (exact, ``rho`` an ``fmpq``), ``"arb"`` (python-flint ``arb_mat`` midpoint
    solves at the current flint precision, ``rho`` an ``arb``) or ``"field"`` (elements of an exact
    field such as SymPy's ``QQ(rho)``; ``rho`` the generator). Requires an adjacent definition.

    Parameters
    ----------
    kern : LevelKernels
        Generated kernels (``adjacent`` and ``irreducible``).
    rho : flint.fmpq, flint.arb or field element
        The load, in the number type of ``kind``.
    kind : {"fmpq", "arb", "field"}
        The arithmetic.

    Returns
    -------
    list of list
        ``q_K`` for ``K = 0..2N``.

    Raises
    ------
    StructureError
        If the kernels are not adjacent and irreducible.

    Examples
    --------
    >>> from flint import fmpq
    >>> from symloss import TwoQueueJSQ
    >>> from symloss.twoqueue.solvers import reduce_levels
    >>> reduce_levels(TwoQueueJSQ(2, 1).kernels(), fmpq(1), "fmpq")
    [[1], [1], [4/9, 1/18], [1/6], [1/24]]
    """
    kern.require("adjacent", "irreducible", solver="level reduction")
    N = kern.N
    L = 2 * N + 1
    sizes = kern.sizes
    if kind in ("fmpq", "arb"):
        Mat = arb_mat if kind == "arb" else fmpq_mat

        def val(pair):
            return _num(kind, pair, rho)
        R = [None] * (L + 1)
        for K in range(L - 1, 0, -1):
            nK = sizes[K]
            M = Mat(nK, nK)
            if K < L - 1:
                Dm = Mat(nK, sizes[K + 1])
                for (i, j), pr in kern.D[K].items():
                    Dm[i, j] = val(pr)
                M = Dm * R[K + 1]
            for (i, j), pr in kern.I[K].items():
                M[i, j] = M[i, j] + val(pr)
            Z = Mat(nK, nK)
            for i in range(nK):
                for t in range(nK):
                    if t != i:
                        Z[t, i] = -M[t, i]
            for i in range(nK):
                s = val(kern.down[K][i])
                for t in range(nK):
                    if t != i:
                        s = s + M[t, i]
                Z[i, i] = s
            Um = Mat(nK, sizes[K - 1])
            for (i, j), pr in kern.U[K].items():
                Um[i, j] = val(pr)
            if kind == "arb":
                R[K] = Z.solve(Um, algorithm="approx").mid()
            else:
                R[K] = Z.solve(Um)
        q = [Mat([[1]])]
        for K in range(1, L):
            x = R[K] * q[-1]
            q.append(x.mid() if kind == "arb" else x)
        return [[q[K][i, 0] for i in range(sizes[K])] for K in range(L)]
    if kind != "field":
        raise ValueError(f"kind must be 'fmpq', 'arb' or 'field', got {kind!r}")
    fld = getattr(rho, "field", None)
    zero = fld.zero if fld is not None else rho * 0
    one = fld.one if fld is not None else zero + 1

    def fval(pair):
        c1, c0 = pair
        return rho * c1.numerator / c1.denominator + one * c0.numerator / c0.denominator
    R = [None] * (L + 1)
    for K in range(L - 1, 0, -1):
        nK = sizes[K]
        M = [[zero] * nK for _ in range(nK)]
        if K < L - 1:
            Rp = R[K + 1]
            for (i, j), pr in kern.D[K].items():
                w = fval(pr)
                row = Rp[j]
                Mi = M[i]
                for t in range(len(row)):
                    if row[t] != 0:
                        Mi[t] = Mi[t] + w * row[t]
        for (i, j), pr in kern.I[K].items():
            M[i][j] = M[i][j] + fval(pr)
        Z = [[(zero - M[t][i]) if t != i else zero for i in range(nK)] for t in range(nK)]
        for i in range(nK):
            s = fval(kern.down[K][i])
            for t in range(nK):
                if t != i:
                    s = s + M[t][i]
            Z[i][i] = s
        W = _gauss_inverse(Z, zero, one)
        Um = [[zero] * sizes[K - 1] for _ in range(nK)]
        for (i, j), pr in kern.U[K].items():
            Um[i][j] = fval(pr)
        R[K] = [[_dot([W[i][t] for t in range(nK)], [Um[t][e] for t in range(nK)], zero)
                 for e in range(sizes[K - 1])] for i in range(nK)]
    q = [[one]]
    for K in range(1, L):
        RK = R[K]
        prev = q[-1]
        q.append([_dot(RK[i], prev, zero) for i in range(sizes[K])])
    return q


def _dot(u, v, zero):
    s = zero
    for a, b in zip(u, v):
        if a != 0 and b != 0:
            s = s + a * b
    return s


def _gauss_inverse(Z, zero, one):
    """Inverse of a small dense matrix over an exact field (Gauss-Jordan, first nonzero pivot)."""
    n = len(Z)
    A = [list(row) + [one if i == j else zero for j in range(n)] for i, row in enumerate(Z)]
    for col in range(n):
        piv = next(r for r in range(col, n) if A[r][col] != 0)
        if piv != col:
            A[col], A[piv] = A[piv], A[col]
        inv = one / A[col][col]
        A[col] = [x * inv for x in A[col]]
        for r in range(n):
            if r != col and A[r][col] != 0:
                f = A[r][col]
                Ar, Ac = A[r], A[col]
                A[r] = [Ar[t] - f * Ac[t] for t in range(2 * n)]
    return [row[n:] for row in A]


def assemble_joint(kern: LevelKernels, q, zero, half):
    """``p[m][n]`` (nested lists) from the level vectors ``q`` (normalised): a class ``d > 0`` of a
    lumped kernel holds two states of equal probability.

    Parameters
    ----------
    kern : LevelKernels
        The kernels the vectors belong to.
    q : list of list
        Normalised level vectors.
    zero, half : number
        0 and 1/2 in the number type of ``q``.

    Returns
    -------
    list of list
        ``p[m][n]``, ``0 <= m, n <= N``.

    Examples
    --------
    >>> from flint import fmpq
    >>> from symloss import TwoQueueJSQ
    >>> from symloss.twoqueue.solvers import assemble_joint, reduce_levels
    >>> kern = TwoQueueJSQ(2, 1).kernels()
    >>> q = reduce_levels(kern, fmpq(1), "fmpq")
    >>> total = sum(sum(v) for v in q)
    >>> p = assemble_joint(kern, [[x / total for x in v] for v in q], fmpq(0), fmpq(1, 2))
    >>> p[2][2], p[0][1]                 # E(4, 1) = 1/65
    (1/65, 12/65)
    """
    N = kern.N
    P = [[zero] * (N + 1) for _ in range(N + 1)]
    for K, reps in enumerate(kern.states):
        for t, (i, j) in enumerate(reps):
            v = q[K][t]
            if kern.lumped and i != j:
                v = v * half
                P[j][i] = v
            P[i][j] = v
    return P


def float_generic(kern: LevelKernels, rho: float, tol: float, maxiter: int):
    """Float Gauss-Seidel with exact level masses on a generated kernel (``adjacent``, ``aggregated``,
    ``irreducible``).

    Parameters
    ----------
    kern : LevelKernels
        Generated kernels (``adjacent``, ``aggregated``, ``irreducible``).
    rho : float
        The load.
    tol : float
        Largest relative change per sweep at convergence.
    maxiter : int
        Largest number of sweeps.

    Returns
    -------
    tuple
        ``(c, off, level, log_level, sweeps, change, rate)``: the conditional vectors (flat, level
        ``K`` at ``c[off[K]:off[K+1]]``), the level law computed from the birth-death totals, its
        logarithm, the sweeps done, the last change and the contraction rate.

    Raises
    ------
    StructureError
        If the kernels lack a structure, or a birth-death rate is not positive.

    Examples
    --------
    >>> from symloss import TwoQueueJSQ
    >>> from symloss.twoqueue.solvers import float_generic
    >>> c, off, level, *_ = float_generic(TwoQueueJSQ(2, 1).kernels(), 1.0, 1e-14, 1000)
    >>> [round(float(v), 12) for v in c[off[2]:off[3]]]     # P(d = 0 | K = 2), P(d = 2 | K = 2)
    [0.888888888889, 0.111111111111]
    """
    kern.require("adjacent", "aggregated", "irreducible", solver="the float level solver")
    N = kern.N
    L = 2 * N + 1
    sizes = kern.sizes
    off = np.zeros(L + 1, dtype=np.int64)
    off[1:] = np.cumsum(sizes)
    lam = np.array([float(c1) * rho + float(c0) for c1, c0 in kern.up_total])
    mu = np.array([float(c1) * rho + float(c0) for c1, c0 in kern.down_total])
    # log pi_K from the birth-death recursion pi_K mu_K = pi_{K-1} lam_{K-1}
    logw = np.zeros(L)
    for K in range(1, L):
        if lam[K - 1] <= 0 or mu[K] <= 0:
            raise StructureError(f"level {K}: birth-death rates lambda={lam[K - 1]}, mu={mu[K]} are not positive")
        logw[K] = logw[K - 1] + np.log(lam[K - 1]) - np.log(mu[K])
    top = logw.max()
    lz = top + np.log(np.exp(logw - top).sum())
    loglevel = logw - lz
    level = np.exp(loglevel)
    # CSR: sources of every state, weights carrying the level-mass ratios
    ptr = np.zeros(int(off[-1]) + 1, dtype=np.int64)
    src, w, outr = [], [], np.zeros(int(off[-1]))
    for K in range(L):
        rows = {}
        if K > 0:   # from level K-1: pi_{K-1}/pi_K = mu_K / lam_{K-1}
            f = mu[K] / lam[K - 1]
            for (i, j), pr in kern.U[K].items():
                rows.setdefault(i, []).append((off[K - 1] + j, f * (float(pr[0]) * rho + float(pr[1]))))
        if K < L - 1:   # from level K+1: pi_{K+1}/pi_K = lam_K / mu_{K+1}
            f = lam[K] / mu[K + 1]
            for (i, j), pr in kern.D[K].items():
                rows.setdefault(i, []).append((off[K + 1] + j, f * (float(pr[0]) * rho + float(pr[1]))))
        for (i, j), pr in kern.I[K].items():
            rows.setdefault(i, []).append((off[K] + j, float(pr[0]) * rho + float(pr[1])))
        for i in range(sizes[K]):
            s = int(off[K] + i)
            lst = rows.get(i, [])
            src.extend(x for x, _ in lst)
            w.extend(y for _, y in lst)
            ptr[s + 1] = ptr[s] + len(lst)
            c1, c0 = kern.out[K][i]
            outr[s] = float(c1) * rho + float(c0)
    c = np.zeros(int(off[-1]))
    for K in range(L):
        c[off[K]:off[K + 1]] = 1.0 / sizes[K]
    its, diff, rate = numba_kernels().gs_generic(c, off, ptr, np.asarray(src, dtype=np.int64),
                                                 np.asarray(w, dtype=float), outr, tol, maxiter)
    return c, off, level, loglevel, its, diff, rate
