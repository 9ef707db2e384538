r"""The moment equations of the refined mean field (:func:`symloss.refined_mean_field`): tensor algebra
on the derivative tables (:mod:`symloss.finite_n.refined_tables`), the float64 solution of the first
and second order, and the first-order term :math:`V` in ball arithmetic at any precision.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
from scipy.linalg import solve_continuous_lyapunov

from ..core.precision import PrecisionError, arb_to_mpf, flint_prec, to_arb

__all__: list = []


class _Point:
    """Values of the derivative tables at one point (float64 or mpmath)."""

    def __init__(self, T, vals):
        self.T = T
        self.vals = vals

    def group(self, which, p):
        sel, tl, ms, mult = self.T.groups[(which, p)]
        return tl, ms, self.vals[sel] * mult

    def F(self, p, X):
        """:math:`D^p f : X` (``X`` symmetric of order ``k >= p``): result of order ``k - p + 1``,
        the drift index first."""
        tl, ms, c = self.group("rate", p)
        if tl.size == 0:
            return np.zeros((self.T.n,) + X.shape[p:])
        sub = X[tuple(ms.T)] if p else np.broadcast_to(X, (tl.size,) + X.shape)
        w = (c.reshape((-1,) + (1,) * (sub.ndim - 1)) * sub)
        return np.tensordot(self.T.jumps[tl].T, w, axes=(1, 0))

    def Qd(self, p, X):
        """:math:`D^p Q : X` with :math:`Q = \\sum_\\ell \\ell \\ell^T \\beta_\\ell`; result
        ``(b, c, rest)``."""
        tl, ms, c = self.group("rate", p)
        L = self.T.jumps[tl]
        if tl.size == 0:
            return np.zeros((self.T.n, self.T.n) + X.shape[p:])
        sub = X[tuple(ms.T)] if p else np.broadcast_to(X, (tl.size,) + X.shape)
        w = c.reshape((-1,) + (1,) * (sub.ndim - 1)) * sub
        return np.einsum("tb,tc,t...->bc...", L, L, w)

    def R(self):
        tl, _ms, c = self.group("rate", 0)
        L = self.T.jumps[tl]
        return np.einsum("t,ta,tb,tc->abc", c, L, L, L)

    def H(self, p, X):
        """:math:`D^p h : X` (scalar for ``X`` of order ``p``)."""
        _tl, ms, c = self.group("h", p)
        if ms.shape[0] == 0:
            return 0.0
        return float(np.sum(c * X[tuple(ms.T)])) if p else float(c[0])

    def jacobian(self):
        n = self.T.n
        tl, ms, c = self.group("rate", 1)
        A = np.zeros((n, n))
        np.add.at(A.T, ms[:, 0], (self.T.jumps[tl] * c[:, None]))
        return A


def _sym(X):
    """Symmetrisation over all indices (average over permutations)."""
    k = X.ndim
    perms = list(itertools.permutations(range(k)))
    return sum(np.transpose(X, p) for p in perms) / len(perms)


def _kron_sum_solve(Ar, B, k):
    """Solve :math:`(A \\oplus \\dots \\oplus A) X = B` for a ``k``-tensor ``X`` (``A`` acting on every
    index) by diagonalising ``A``; the residual is checked."""
    lam, V = np.linalg.eig(Ar)
    if np.linalg.cond(V) > 1e10:
        raise ArithmeticError("ill-conditioned eigenvectors of the reduced Jacobian")
    Vi = np.linalg.inv(V)
    Y = B.astype(complex)
    for ax in range(k):
        Y = np.moveaxis(np.tensordot(Vi, Y, axes=(1, ax)), 0, ax)
    den = sum(np.meshgrid(*([lam] * k), indexing="ij"))
    Y = Y / den
    for ax in range(k):
        Y = np.moveaxis(np.tensordot(V, Y, axes=(1, ax)), 0, ax)
    X = Y.real
    res = sum(np.moveaxis(np.tensordot(Ar, X, axes=(1, ax)), 0, ax) for ax in range(k)) - B
    if np.max(np.abs(res)) > 1e-9 * max(1.0, np.max(np.abs(B))):
        raise ArithmeticError("the Kronecker-sum solve left a large residual")
    return X


def _reduce(X, L):
    for ax in range(X.ndim):
        X = np.moveaxis(np.tensordot(L, X, axes=(1, ax)), 0, ax)
    return X


def _expand(X, P):
    return _reduce(X, P)


def _expansion_float(T, x, r, order):
    """Float64 coefficients: returns dict with V, W (or None), moments and notes."""
    vals = np.asarray(T.f_np(*x, r), dtype=float).ravel()
    if not np.all(np.isfinite(vals)):
        raise ArithmeticError("refined_mean_field: a rate or a derivative is not finite at the fixed point")
    pt = _Point(T, vals)
    n, P, L = T.n, T.P, T.L
    A = pt.jacobian()
    tl, _ms, beta = pt.group("rate", 0)
    drift = T.jumps[tl].T @ beta
    if np.max(np.abs(drift)) > 1e-8 * max(1.0, float(np.abs(T.jumps[tl]).T @ np.abs(beta) @ np.ones(n))):
        raise ArithmeticError(f"refined_mean_field: the drift at the fixed point is not zero "
                              f"(max {np.max(np.abs(drift)):.3g})")
    Q = np.einsum("t,ta,tb->ab", beta, T.jumps[tl], T.jumps[tl])
    Ar = L @ A @ P
    eig = np.linalg.eigvals(Ar)
    if not np.all(eig.real < 0):
        raise ArithmeticError(f"refined_mean_field: the fixed point is not exponentially stable "
                              f"(Jacobian eigenvalues {eig})")
    Wr = solve_continuous_lyapunov(Ar, -(L @ Q @ L.T))
    S1 = P @ Wr @ P.T
    S1 = 0.5 * (S1 + S1.T)
    a1 = P @ np.linalg.solve(Ar, -L @ (0.5 * pt.F(2, S1)))
    V = pt.H(1, a1) + 0.5 * pt.H(2, S1)
    out = {"V": float(V), "a1": a1, "S1": S1, "B": pt.H(0, None), "W": None, "a2": None, "S2": None, "note": ""}
    if order < 2:
        return out
    try:
        W, a2, S2 = _second_order(T, pt, Ar, Q, a1, S1, _kron_sum_solve)
        out.update(W=W, a2=a2, S2=S2)
    except (ArithmeticError, np.linalg.LinAlgError) as exc:
        out["note"] = f"second-order term not computed: {exc}"
    return out


def _second_order(T, pt, Ar, Q, a1, S1, kron_solve):
    """The second-order term ``(W, a2, S2)`` at the point ``pt`` of the tables ``T``, from the reduced
    Jacobian ``Ar``, the jump covariance ``Q`` and the first-order moments ``a1``, ``S1``; the order-3
    system (a Kronecker sum of ``Ar``) is solved by ``kron_solve(Ar, B, 3)``
    (:func:`_kron_sum_solve`, diagonalising, or a dense solve). Raises ``ArithmeticError`` for a
    non-finite ``W``."""
    n, P, L = T.n, T.P, T.L
    D = 3.0 * _sym(np.einsum("ij,kl->ijkl", S1, S1))
    Y = np.moveaxis(pt.F(2, D), 0, 2)                  # (a, b, c): c the drift index
    Tq = np.einsum("ak,bck->abc", S1, pt.Qd(1, np.eye(n)))   # W_ak dQ_bc/dx_k
    rhs3 = 1.5 * _sym(Y) + 3.0 * _sym(np.einsum("a,bc->abc", a1, Q)) + 3.0 * _sym(Tq) + pt.R()
    c2 = _sym(_expand(kron_solve(Ar, -_reduce(rhs3, L), 3), P))
    U = 0.5 * pt.F(2, c2) + pt.F(3, D) / 6.0
    rhs2 = U + U.T + pt.Qd(1, a1) + 0.5 * pt.Qd(2, S1)
    S2 = P @ solve_continuous_lyapunov(Ar, -(L @ rhs2 @ L.T)) @ P.T
    S2 = 0.5 * (S2 + S2.T)
    a2 = P @ np.linalg.solve(Ar, -L @ (0.5 * pt.F(2, S2) + pt.F(3, c2) / 6.0 + pt.F(4, D) / 24.0))
    W = pt.H(1, a2) + 0.5 * pt.H(2, S2) + pt.H(3, c2) / 6.0 + pt.H(4, D) / 24.0
    if not math.isfinite(W):
        raise ArithmeticError("non-finite second-order term")
    return float(W), a2, S2


def _mp_real(x):
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


#: the largest reduced dimension ``r`` whose Lyapunov equation is solved as the ``r^2 x r^2`` ball system
#: (above it: mixed-precision iterative refinement with float64 corrections)
KRONECKER_MAX = 24


def _first_order_pieces(T, x_balls, rho_ball):
    """The ball pieces of the first-order equations at a point (balls of ``x`` and ``rho``, at the
    current flint precision): ``(grp, Ar, Qr, P, L)`` with ``grp(which, p)`` the derivative groups
    (transitions, multisets, values times multiplicities), ``Ar = L A P`` and ``Qr = L Q L^T`` the
    reduced Jacobian and noise matrix, ``P``/``L`` the exact basis of the jump span and its left inverse."""
    from flint import arb, arb_mat
    vals_low = T.f_arb(*x_balls, rho_ball)
    vals = {int(k): v for k, v in zip(T.low, vals_low)}
    n = T.n
    jumps = T.jumps

    def grp(which, p):
        sel, tl, ms, mult = T.groups[(which, p)]
        return tl, ms, [vals[int(k)] * int(mu) for k, mu in zip(sel, mult)]
    A = [[arb(0)] * n for _ in range(n)]
    tl, ms, c = grp("rate", 1)
    for t, (j,), cv in zip(tl, ms, c):
        for i in np.nonzero(jumps[t])[0]:
            A[i][int(j)] += int(jumps[t, i]) * cv
    Q = [[arb(0)] * n for _ in range(n)]
    tl0, _ms0, beta = grp("rate", 0)
    for t, b in zip(tl0, beta):
        nz = np.nonzero(jumps[t])[0]
        for i in nz:
            for j in nz:
                Q[i][j] += int(jumps[t, i]) * int(jumps[t, j]) * b
    P, L = T.P_arb(), T.L_arb()
    Am, Qm = arb_mat(A), arb_mat(Q)
    return grp, L * Am * P, L * Qm * L.transpose(), P, L


def _first_order_V(T, grp, S1, Ar, P, L):
    """``(V, a1)`` from the covariance ``S1`` (balls): ``A a1 = -D^2 f : S1 / 2`` solved in the reduced
    coordinates by ``arb_mat.solve`` (an enclosure), ``V = Dh a1 + D^2 h : S1 / 2``."""
    from flint import arb, arb_mat
    jumps = T.jumps
    F2W = [arb(0)] * T.n
    tl2, ms2, c2 = grp("rate", 2)
    for t, (j, k), cv in zip(tl2, ms2, c2):
        s = cv * S1[int(j), int(k)]
        for i in np.nonzero(jumps[t])[0]:
            F2W[i] += int(jumps[t, i]) * s
    rhs = L * arb_mat([[-v / 2] for v in F2W])
    a1 = P * Ar.solve(rhs)
    _tl, ms1h, c1h = grp("h", 1)
    _tl, ms2h, c2h = grp("h", 2)
    V = arb(0)
    for (j,), cv in zip(ms1h, c1h):
        V += cv * a1[int(j), 0]
    for (j, k), cv in zip(ms2h, c2h):
        V += cv * S1[int(j), int(k)] / 2
    return V, a1


def _lyapunov_enclosure(Ar, Qr):
    """An enclosure of the solution ``W`` of ``Ar W + W Ar^T + Qr = 0``: the Kronecker-sum system
    ``(I (x) Ar + Ar (x) I) vec W = -vec Qr`` solved by ``arb_mat.solve`` (rigorous; raises
    ``ZeroDivisionError`` when the system cannot be shown non-singular at this precision)."""
    from flint import arb_mat
    r = Ar.nrows()
    K = arb_mat(r * r, r * r)
    for i in range(r):
        for j in range(r):
            row = i * r + j                       # vec index of W[i, j]
            for k in range(r):
                K[row, k * r + j] += Ar[i, k]     # (Ar W)[i, j]
                K[row, i * r + k] += Ar[j, k]     # (W Ar^T)[i, j]
    rhs = arb_mat([[-Qr[i, j]] for i in range(r) for j in range(r)])
    w = K.solve(rhs)
    return arb_mat([[w[i * r + j, 0] for j in range(r)] for i in range(r)])


def _first_order_arb(T, x_mp, rho_mp, prec):
    """V at ``prec`` bits: the derivative tables evaluated in python-flint ``arb`` at the fixed point,
    the Lyapunov equation as the Kronecker-sum ball system when ``r <= KRONECKER_MAX`` (no float64
    step, so no underflow at tiny blockings), else by mixed-precision iterative refinement (residual in
    ball arithmetic, corrections by the float64 Bartels-Stewart solver; refused when the entries leave
    the float64 range), ``a_1`` by ``arb_mat.solve``. Returns the
    midpoint as an mpf (the certified enclosure is :func:`symloss.finite_n.refined_certified.certified_refined_V`)."""
    from flint import arb, arb_mat
    with flint_prec(prec):
        grp, Ar, Qr, P, L = _first_order_pieces(T, [to_arb(v) for v in x_mp], to_arb(rho_mp))
        r = Ar.nrows()
        W = None
        if r <= KRONECKER_MAX:
            try:
                W = _lyapunov_enclosure(Ar, Qr)
            except ZeroDivisionError:
                W = None
        if W is not None:
            S1 = P * W * P.transpose()
            V, _a1 = _first_order_V(T, grp, S1, Ar, P, L)
            # the ball solve keeps every digit it can prove; where the system is ill-conditioned its ball
            # is wide, and the refinement below gives the better midpoint
            if V.is_finite() and (V.rad() == 0 or (V.mid() != 0 and V.rad() < abs(V.mid()) * arb(2) ** (30 - prec))):
                return arb_to_mpf(V)
        entries = [Qr[i, j] for i in range(r) for j in range(r)] + [Ar[i, j] for i in range(r) for j in range(r)]
        if any(e != 0 and not (1e-290 < abs(float(e.mid())) < 1e290) for e in entries):
            raise PrecisionError("refined_mean_field: the Lyapunov equation's entries are outside the float64 "
                                 f"range and the system ({r * r} unknowns) is too large for the ball solve "
                                 f"(at most {KRONECKER_MAX ** 2})")
        Ar_f = np.array([[float(Ar[i, j].mid()) for j in range(r)] for i in range(r)])
        scale = max(abs(float(Qr[i, j].mid())) for i in range(r) for j in range(r))
        W = arb_mat(r, r)
        tol = 2.0 ** (-prec + 8) * scale
        for _ in range(80):
            E = Ar * W + W * Ar.transpose() + Qr
            Ef = np.array([[float(E[i, j].mid()) for j in range(r)] for i in range(r)])
            if np.max(np.abs(Ef)) <= tol:
                break
            W += arb_mat(solve_continuous_lyapunov(Ar_f, -Ef).tolist())
        else:
            raise PrecisionError("refined_mean_field: the Lyapunov equation did not converge at the requested "
                                 "precision")
        S1 = P * W * P.transpose()
        V, _a1 = _first_order_V(T, grp, S1, Ar, P, L)
        return arb_to_mpf(V)
