r"""Refined mean field of any model: the :math:`1/N` and :math:`1/N^2` terms of the stationary blocking
(Gast & Van Houdt 2017; Gast, Bortolussi & Tribastone 2019), generated from the model's definition.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from math import factorial

import mpmath
import numpy as np
import sympy as sp

from ..core.model import RHO
from ..core.precision import GUARD_DPS, PrecisionError, agree_at_two_precisions, check_dps
from ..core.results import ResultMixin
from ..core.validation import check_choice, check_int, check_real
from .common import POLICIES, SAMPLINGS, _to_float

__all__ = ["RefinedMeanFieldResult", "refined_mean_field"]


_METHOD = ("refined mean field (Gast & Van Houdt 2017; Gast, Bortolussi & Tribastone 2019), moment "
           "equations of the generator expanded in 1/N, float64")


@dataclass
class RefinedMeanFieldResult(ResultMixin):
    r"""The expansion :math:`B_N = B + V/N + W/N^2 + o(N^{-2})` of the stationary blocking
    (:func:`refined_mean_field`).

    Attributes
    ----------
    blocking_mf : float
        Mean-field blocking :math:`B = h(x^*)` (``blocking_mf_mp``: at ``dps`` digits).
    V : float
        First-order coefficient (``V_mp``: at ``dps`` digits, checked at two working precisions).
    W : float or None
        Second-order coefficient (``None`` when ``order=1`` or where it is not defined; see
        ``note``).
    x_star : numpy.ndarray
        Fixed point (order of ``variables``; ``x_star_mp`` at ``dps`` digits).
    x_correction, x_correction2 : numpy.ndarray
        :math:`a_1, a_2` in :math:`E[X_N] = x^* + a_1/N + a_2/N^2 + o(N^{-2})`.
    covariance, covariance2 : numpy.ndarray
        :math:`\Sigma_1, \Sigma_2` in :math:`E[(X_N - x^*)(X_N - x^*)^T] = \Sigma_1/N + \Sigma_2/N^2 + \dots`
        (:math:`\Sigma_1` solves the Lyapunov equation).
    N : int or None
        When given, ``blocking_refined = B + V/N`` and ``blocking_refined2 = B + V/N + W/N^2``.
    model : str
        The model's repr.
    C, d : int or None
        Capacity and parameter of the model.
    rho : float
        Load per server.
    variables : tuple of sympy.Symbol
        The state variables.
    conserved : int
        Number of linear invariants removed.
    order : int
        ``1`` or ``2``.
    dps : int or None
        Digits of the multi-precision values (``None``: float64 only).
    V_mp, blocking_mf_mp : mpmath.mpf or None
        ``V`` and ``B`` at ``dps`` digits.
    x_star_mp : list of mpmath.mpf
        The fixed point at ``dps`` digits.
    method, note : str
        How the expansion was computed; why ``W`` is missing, if it is.
    """

    model: str
    C: int | None
    d: int | None
    rho: float
    variables: tuple
    blocking_mf: float
    V: float
    x_star: np.ndarray
    x_correction: np.ndarray
    covariance: np.ndarray
    conserved: int
    N: int | None = None
    method: str = _METHOD
    W: float | None = None
    x_correction2: np.ndarray | None = None
    covariance2: np.ndarray | None = None
    order: int = 1
    dps: int | None = None
    V_mp: object = None
    blocking_mf_mp: object = None
    x_star_mp: list = field(default_factory=list)
    note: str = ""

    def at(self, N, order: int = 1) -> float:
        """Refined approximation for ``N`` servers.

        Parameters
        ----------
        N : int
            Number of servers, ``>= 1``.
        order : {0, 1, 2}
            ``0``: the mean field :math:`B`; ``1``: :math:`B + V/N`; ``2``: :math:`B + V/N + W/N^2`.

        Returns
        -------
        float

        Raises
        ------
        ValueError
            If ``order=2`` and there is no second-order term.

        Examples
        --------
        >>> from symloss import PowerOfD, refined_mean_field
        >>> r = refined_mean_field(PowerOfD(2, 2), rho=1.0, dps=None)
        >>> round(r.at(10, order=2), 6)
        0.073657
        """
        N = check_int(N, "N", min_value=1)
        order = check_int(order, "order", min_value=0, max_value=2)
        if order == 0:
            return self.blocking_mf
        if order == 2:
            if self.W is None:
                raise ValueError(f"no second-order term: {self.note or 'computed with order=1'}")
            return self.blocking_mf + self.V / N + self.W / N ** 2
        return self.blocking_mf + self.V / N

    @property
    def blocking_refined(self):
        """:math:`B + V/N` at the ``N`` given to :func:`refined_mean_field` (``None`` without one)."""
        return None if self.N is None else self.at(self.N)

    @property
    def blocking_refined2(self):
        """:math:`B + V/N + W/N^2` at the ``N`` given (``None`` without ``N`` or ``W``)."""
        return None if (self.N is None or self.W is None) else self.at(self.N, 2)

    def to_dict(self) -> dict:
        """Plain data (the multi-precision values as ``dps``-digit strings), for JSON.

        Returns
        -------
        dict
        """
        n = self.dps or 17

        def mp(v):
            return None if v is None else mpmath.nstr(v, n)
        return {"model": self.model, "C": self.C, "d": self.d, "rho": self.rho,
                "variables": [str(v) for v in self.variables], "blocking_mf": self.blocking_mf,
                "V": self.V, "W": self.W, "order": self.order, "x_star": self.x_star.tolist(),
                "x_correction": self.x_correction.tolist(), "covariance": self.covariance.tolist(),
                "x_correction2": None if self.x_correction2 is None else self.x_correction2.tolist(),
                "covariance2": None if self.covariance2 is None else self.covariance2.tolist(),
                "conserved": self.conserved, "N": self.N, "blocking_refined": self.blocking_refined,
                "blocking_refined2": self.blocking_refined2, "dps": self.dps, "V_mp": mp(self.V_mp),
                "blocking_mf_mp": mp(self.blocking_mf_mp), "x_star_mp": [mp(v) for v in self.x_star_mp],
                "method": self.method, "note": self.note}


def _model_from_policy(policy, C, d):
    from .. import meanfield
    check_choice(policy, "policy", POLICIES)
    C = check_int(C, "C", min_value=1)
    if policy == "random":
        if d is not None:
            raise ValueError(f"d must be None for policy 'random', got {d!r}")
        return meanfield.RandomRouting(C)
    if policy == "jsq":
        if d is not None:
            raise ValueError(f"d must be None for policy 'jsq', got {d!r}")
        return meanfield.JSQ(C)
    if d is None:
        raise ValueError(f"d is required for policy {policy!r}")
    d = check_int(d, "d", min_value=1)
    return meanfield.RetrialOfD(C, d) if policy == "retrial" else meanfield.PowerOfD(C, d)


# --------------------------------------------------------------------------------------------------
# derivative tables, generated once per definition
# --------------------------------------------------------------------------------------------------

_NONSMOOTH = (sp.Heaviside, sp.Max, sp.Min, sp.Abs, sp.Piecewise, sp.sign, sp.floor, sp.ceiling)
_REFINED_CACHE: dict = {}
MAX_ORDER = 4          # derivatives of the rates needed by the second-order term


class _Tables:
    """Sparse derivative tables of the rates and of the blocking (see :func:`_tables`)."""


def _multiplicity(ms) -> int:
    out = factorial(len(ms))
    for _, grp in itertools.groupby(sorted(ms)):
        out //= factorial(len(list(grp)))
    return out


def _derivatives(expr, xs, idx):
    """``[(multiset, derivative)]`` of ``expr`` up to order :data:`MAX_ORDER` with respect to the
    variables it depends on (non-zero ones; order 0 first), each derivative obtained from its
    parent by one differentiation (polynomials through ``sympy.Poly``)."""
    dep = sorted(idx[v] for v in expr.free_symbols if v in idx)
    gens = [xs[i] for i in dep]
    try:
        top = sp.Poly(expr, *gens) if gens else None
    except (sp.PolynomialError, sp.GeneratorsNeeded):
        top = None
    out = [((), expr)]
    level = {(): top if top is not None else expr}
    for _p in range(MAX_ORDER):
        nxt = {}
        for ms, e in level.items():
            start = dep.index(ms[-1]) if ms else 0
            for i in dep[start:]:
                d = e.diff(xs[i]) if isinstance(e, sp.Poly) else sp.diff(e, xs[i])
                if (d.is_zero if isinstance(d, sp.Poly) else d == 0):
                    continue
                nxt[ms + (i,)] = d
        for ms, d in nxt.items():
            out.append((ms, d.as_expr() if isinstance(d, sp.Poly) else d))
        level = nxt
    return out


def _tables(model):
    key = model._definition_key() if hasattr(model, "_definition_key") else None
    if key is not None and key in _REFINED_CACHE:
        return _REFINED_CACHE[key]
    if key is None and "_refined_tables" in getattr(model, "__dict__", {}):
        return model.__dict__["_refined_tables"]
    xs = list(model.variables)
    rho = getattr(model, "rho", RHO)
    if hasattr(model, "_checked_transitions"):
        trs = model._checked_transitions
        h = model._blocking
    else:
        trs = [(j if isinstance(j, sp.MatrixBase) else sp.Matrix(j), sp.sympify(r)) for j, r in model.transitions()]
        h = sp.sympify(model.blocking_expr())
    for e in [r for _, r in trs] + [h]:
        if e.has(*_NONSMOOTH):
            raise ValueError(f"the refined mean field needs twice differentiable rates and blocking; model "
                             f"{model!r} is not smooth ({e})")
    n = len(xs)
    jumps = np.array([[float(v) for v in jump] for jump, _ in trs]).reshape(len(trs), n)
    # rational basis of the directions the chain moves in (span of the jumps) and a left inverse
    Jm = sp.Matrix([[sp.Integer(int(v)) for v in jump] for jump, _ in trs])
    cons = Jm.nullspace()                                   # conserved forms c: J c = 0
    if cons:
        P = sp.Matrix.hstack(*sp.Matrix.hstack(*cons).T.nullspace())
    else:
        P = sp.eye(n)
    Lq = (P.T * P).inv() * P.T
    T = _Tables()
    T.n, T.m, T.jumps, T.xs, T.rho = n, len(trs), jumps, xs, rho
    T.conserved = len(cons)
    T.P_q, T.L_q = P, Lq
    T.P = np.array(P.tolist(), dtype=float)
    T.P_arb = lambda: _arb_matrix(P)
    T.L_arb = lambda: _arb_matrix(Lq)
    T.L = np.array(Lq.tolist(), dtype=float)
    idx = {v: i for i, v in enumerate(xs)}
    exprs, meta = [], []          # meta: (order, transition or -1 for h, multiset)
    for t, (_, rate) in enumerate(trs):
        for ms, e in _derivatives(rate, xs, idx):
            exprs.append(e)
            meta.append((len(ms), t, ms))
    for ms, e in _derivatives(h, xs, idx):
        exprs.append(e)
        meta.append((len(ms), -1, ms))
    from ..core.codegen import numpy_lambdify
    T.f_np = numpy_lambdify(xs + [rho], exprs)
    low = [k for k, (p, _t, _ms) in enumerate(meta) if p <= 2]
    T.low = np.array(low)
    from ..core.codegen import arb_lambdify
    T.f_arb = arb_lambdify(xs + [rho], [exprs[k] for k in low])
    T.meta = meta
    T.groups = {}
    for which in ("rate", "h"):
        for p in range(MAX_ORDER + 1):
            sel = [k for k, (pp, t, _ms) in enumerate(meta) if pp == p and ((t >= 0) == (which == "rate"))]
            ms = np.array([meta[k][2] for k in sel], dtype=np.int64).reshape(len(sel), p)
            tl = np.array([meta[k][1] for k in sel], dtype=np.int64)
            mult = np.array([_multiplicity(meta[k][2]) for k in sel], dtype=float)
            T.groups[(which, p)] = (np.array(sel, dtype=np.int64), tl, ms, mult)
    if key is not None:
        _REFINED_CACHE[key] = T
    else:
        model.__dict__["_refined_tables"] = T
    return T


# --------------------------------------------------------------------------------------------------
# tensor algebra on the sparse tables
# --------------------------------------------------------------------------------------------------

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
    from scipy.linalg import solve_continuous_lyapunov
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
        D = 3.0 * _sym(np.einsum("ij,kl->ijkl", S1, S1))
        Y = np.moveaxis(pt.F(2, D), 0, 2)                  # (a, b, c): c the drift index
        Tq = np.einsum("ak,bck->abc", S1, pt.Qd(1, np.eye(n)))   # W_ak dQ_bc/dx_k
        rhs3 = 1.5 * _sym(Y) + 3.0 * _sym(np.einsum("a,bc->abc", a1, Q)) + 3.0 * _sym(Tq) + pt.R()
        c2 = _expand(_kron_sum_solve(Ar, -_reduce(rhs3, L), 3), P)
        c2 = _sym(c2)
        U = 0.5 * pt.F(2, c2) + pt.F(3, D) / 6.0
        rhs2 = U + U.T + pt.Qd(1, a1) + 0.5 * pt.Qd(2, S1)
        S2 = P @ solve_continuous_lyapunov(Ar, -(L @ rhs2 @ L.T)) @ P.T
        S2 = 0.5 * (S2 + S2.T)
        a2 = P @ np.linalg.solve(Ar, -L @ (0.5 * pt.F(2, S2) + pt.F(3, c2) / 6.0 + pt.F(4, D) / 24.0))
        W = pt.H(1, a2) + 0.5 * pt.H(2, S2) + pt.H(3, c2) / 6.0 + pt.H(4, D) / 24.0
        if not math.isfinite(W):
            raise ArithmeticError("non-finite second-order term")
        out.update(W=float(W), a2=a2, S2=S2)
    except (ArithmeticError, np.linalg.LinAlgError) as exc:
        out["note"] = f"second-order term not computed: {exc}"
    return out


def _arb_matrix(M):
    from flint import arb, arb_mat, fmpq
    return arb_mat([[arb(fmpq(int(v.p), int(v.q))) for v in row] for row in M.tolist()])


def _mp_real(x):
    from fractions import Fraction
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def _first_order_arb(T, x_mp, rho_mp, prec):
    """V at ``prec`` bits: the derivative tables evaluated in python-flint ``arb`` at the fixed point,
    the Lyapunov equation by mixed-precision iterative refinement (residual in ball arithmetic,
    corrections by the float64 Bartels-Stewart solver), ``a_1`` by ``arb_mat.solve``. Returns the
    midpoint as an mpf."""
    from flint import arb, arb_mat
    from scipy.linalg import solve_continuous_lyapunov

    from ..core.precision import arb_to_mpf, flint_prec, to_arb
    with flint_prec(prec):
        vals_low = T.f_arb(*[to_arb(v) for v in x_mp], to_arb(rho_mp))
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
        Ar = L * Am * P
        Qr = L * Qm * L.transpose()
        r = Ar.nrows()
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
        F2W = [arb(0)] * n
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
        return arb_to_mpf(V)


# --------------------------------------------------------------------------------------------------
# the public function
# --------------------------------------------------------------------------------------------------

def _check_density_dependent(model, sampling, N):
    """The expansion is that of a density-dependent chain (rates ``N beta(n/N)``, loss probability
    ``h(n/N)``): refuse models whose finite-N rates differ (sampling without replacement)."""
    if not hasattr(model, "finite_n_transitions"):
        return
    probe = N if N is not None else 1000
    d = getattr(model, "d", None)
    if sampling == "without_replacement" and isinstance(d, int) and probe < d:
        probe = max(d, 1000)
    if model.finite_n_transitions(probe, sampling) is not None or \
            model.finite_n_blocking_expr(probe, sampling) is not None:
        raise ValueError(f"refined_mean_field: the finite-N chain of {model!r} with sampling={sampling!r} is not the "
                         "mean-field rates times N (finite_n_transitions gives other rates), so the density-dependent "
                         "expansion does not describe it; use sampling='with_replacement'")


RHO_MAX = 1e12      # measured: V, W agree at two precisions up to 1e12; from ~1e15 they do not


def refined_mean_field(policy, *, rho, C=None, d=None, N=None, dps: int | None = 30, order: int = 2,
                       sampling: str = "with_replacement") -> RefinedMeanFieldResult:
    r"""Refined mean field of any model: the :math:`1/N` and :math:`1/N^2` terms of the blocking.

    For a density-dependent population process (state :math:`x = n/N`, jumps :math:`x \to x + \ell/N`
    at rate :math:`N \beta_\ell(x)`, drift :math:`f = \sum_\ell \ell \beta_\ell`) with an exponentially
    stable fixed point :math:`x^*` and smooth rates and blocking ``h``,

    .. math::

        E[h(X_N)] = h(x^*) + \frac{V}{N} + \frac{W}{N^2} + o(N^{-2})

    (Gast & Van Houdt 2017, Theorem 3.1; Gast, Bortolussi & Tribastone 2019 for the second order).
    With :math:`Z = X_N - x^*`, the moments :math:`E[Z] = a_1/N + a_2/N^2`,
    :math:`E[Z^{\otimes 2}] = \Sigma_1/N + \Sigma_2/N^2`, :math:`E[Z^{\otimes 3}] = c/N^2`,
    :math:`E[Z^{\otimes 4}] = D/N^2` solve the stationarity equations :math:`E[L_N Z^{\otimes k}] = 0`
    of the generator expanded in :math:`1/N` (``A = Df(x^*)``, :math:`Q = \sum \ell\ell^T\beta_\ell`,
    :math:`R = \sum \ell^{\otimes 3}\beta_\ell`, :math:`\oplus^k A` = ``A`` acting on each index):

    .. math::

        A\Sigma_1 + \Sigma_1 A^T + Q = 0, \qquad A a_1 + \tfrac12 D^2f{:}\Sigma_1 = 0,
        \qquad D = 3\,\mathrm{sym}(\Sigma_1 \otimes \Sigma_1),

        (\oplus^3 A)\, c + \tfrac32 \mathrm{sym}(D^2 f{:}D) + 3\,\mathrm{sym}(a_1 \otimes Q)
            + 3\,\mathrm{sym}(\Sigma_1 \cdot DQ) + R = 0,

        A\Sigma_2 + \Sigma_2 A^T + U + U^T + DQ{\cdot}a_1 + \tfrac12 D^2Q{:}\Sigma_1 = 0, \quad
        U = \tfrac12 D^2f{:}c + \tfrac16 D^3f{:}D,

        A a_2 + \tfrac12 D^2f{:}\Sigma_2 + \tfrac16 D^3f{:}c + \tfrac1{24} D^4f{:}D = 0,

    and :math:`V = Dh\,a_1 + \tfrac12 D^2h{:}\Sigma_1`,
    :math:`W = Dh\,a_2 + \tfrac12 D^2h{:}\Sigma_2 + \tfrac16 D^3h{:}c + \tfrac1{24}D^4h{:}D`. Linear
    invariants are removed exactly: with ``P`` a rational basis of the span of the jumps and ``L``
    its left inverse, every equation is solved in the reduced coordinates (``L A P``; the
    Kronecker-sum system by diagonalisation, residual checked). All derivatives are generated from
    the definition (SymPy, only with respect to the variables each rate depends on).

    Precision: everything in float64; in addition, with ``dps``, the fixed point (certified, from
    ``model.fixed_point``) and ``V`` at ``dps`` digits (``V_mp``: mpmath, Lyapunov equation by
    mixed-precision iterative refinement, the value checked at two working precisions).

    The finite-N chain must be the mean-field rates times ``N`` (the shipped policies with
    ``sampling="with_replacement"``); then :math:`B_N = E[h(X_N)]` and the expansion approximates
    :func:`exact_finite_n` / :func:`simulate`. JSQ (non-smooth drift) is refused. The expansion is
    not uniform in the load: where ``B`` is tiny compared with ``V/N`` it is no approximation.

    Parameters
    ----------
    policy : MeanFieldModel or str
        A model (any object with ``variables``, ``transitions()``, ``blocking_expr()``,
        ``fixed_point(rho, dps=)``), or "random", "retrial", "power" with ``C``, ``d``.
    rho : float
        Load per server, ``0 < rho <= 1e12`` (``RHO_MAX``; beyond it a ``ValueError``).
    C, d : int
        Only with a policy name.
    N : int, optional
        If given, ``blocking_refined`` and ``blocking_refined2`` are filled in.
    dps : int or None
        Digits of the fixed point and of ``V_mp``; ``None``: float64 only (fastest).
    order : {1, 2}
        ``2`` also computes ``W``.
    sampling : str
        Checked: the expansion needs the density-dependent chain.

    Returns
    -------
    RefinedMeanFieldResult
        ``B``, ``V``, ``W`` and the moments behind them.

    Raises
    ------
    TypeError
        If an integer argument is not an integer.
    ValueError
        If an argument is out of range, ``C``/``d`` are given with a model, the finite-N chain is
        not density dependent (sampling without replacement), or the drift is not smooth (JSQ).

    See Also
    --------
    symloss.exact_finite_n, symloss.simulate

    References
    ----------
    .. [1] N. Gast, B. Van Houdt, "A refined mean field approximation", Proceedings of the ACM on
       Measurement and Analysis of Computing Systems 1(2), article 33 (2017).
    .. [2] N. Gast, L. Bortolussi, M. Tribastone, "Size expansions of mean field approximation:
       transient and steady-state analysis", Performance Evaluation 129 (2019).

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> r = refined_mean_field(PowerOfD(2, 2), rho=1.0, dps=20)
    >>> round(r.V, 6), round(r.W, 4)
    (0.222508, -0.1629)
    >>> import mpmath; mpmath.nstr(r.V_mp, 20)
    '0.22250844019909291641'
    """
    if isinstance(policy, str):
        model = _model_from_policy(policy, C, d)
    else:
        model = policy
        if C is not None or d is not None:
            raise ValueError("C and d are given by the model object; pass them only with a policy name")
    check_real(rho, "rho", lower=0, lower_open=True)
    if rho > RHO_MAX:
        raise ValueError(f"rho must be in (0, {RHO_MAX:.0e}] for refined_mean_field, got rho={float(rho):.3g}: beyond "
                         f"it the float64 expansion (rates of size rho against O(1) differences) loses the digits "
                         f"of V and W; the blocking there is 1 - O(1/rho) (use the mean-field blocking)")
    check_choice(sampling, "sampling", SAMPLINGS)
    order = check_int(order, "order", min_value=1, max_value=2)
    if dps is not None:
        dps = check_dps(dps)
    if N is not None:
        N = check_int(N, "N", min_value=1)
    _check_density_dependent(model, sampling, N)
    T = _tables(model)
    r = _to_float(rho)
    fp_dps = 15 if dps is None else dps + 2 * GUARD_DPS
    fp = model.fixed_point(rho, dps=fp_dps)
    x = np.array([float(v) for v in fp.x])
    res = _expansion_float(T, x, r, order)
    V_mp = B_mp = None
    x_mp = []
    if dps is not None:
        x_mp = list(fp.x)

        from ..core.precision import dps_to_prec

        def compute(work):
            with mpmath.workdps(work):
                return _first_order_arb(T, [mpmath.mpf(v) for v in fp.x], _mp_real(rho), dps_to_prec(work))
        V_mp = agree_at_two_precisions(compute, dps, what="refined_mean_field V")
        with mpmath.workdps(dps):
            B_mp = +mpmath.mpf(fp.blocking)
            x_mp = [+mpmath.mpf(v) for v in fp.x]
    d_attr = getattr(model, "d", None)
    method = RefinedMeanFieldResult.method
    if dps is not None:
        method += f"; fixed point (certified) and V at {dps} digits (mpmath)"
    return RefinedMeanFieldResult(
        model=getattr(model, "name", type(model).__name__), C=getattr(model, "C", None), d=d_attr, rho=r,
        variables=tuple(model.variables), blocking_mf=float(fp.blocking), V=res["V"], x_star=x,
        x_correction=res["a1"], covariance=res["S1"], conserved=T.conserved, N=N, method=method,
        W=res["W"], x_correction2=res["a2"], covariance2=res["S2"], order=order, dps=dps, V_mp=V_mp,
        blocking_mf_mp=B_mp, x_star_mp=x_mp, note=res["note"])
