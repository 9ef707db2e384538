r"""The end pieces of the generic certified comparison (:mod:`symloss.meanfield.certified_generic`):
the polynomial systems of the two models at :math:`t = \rho \to 0` and :math:`t = 1/\rho \to 0`
(``_PolySystem``), the exact Taylor polynomial of a branch and the Krawczyk test of its remainder
(``_EndModel``, :func:`end_branch`, re-exported from ``certified_generic``), and the exact slices
of the end tubes. At :math:`\rho \to 0` the state is first rescaled by its valuations,
:math:`x_k = t^{e_k} v_k` (each equation divided by its least power of ``t``), so that the series
counts only the terms beyond the leading powers (a power-of-3 tail at C = 5 vanishes like
:math:`\rho^{121}`).

Size: the polynomial system, its rescaling by valuations, the exact series and the remainder test are
one construction that the search and the re-check both rebuild from the model's equations; split, the
re-check would have to repeat the rescaling in a second place.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp
from flint import arb, arb_mat, arb_poly, fmpq, fmpq_mat, fmpq_poly

from ..core.certify import (
    _float_inverse,
)
from ..core.model import RHO
from .comparison_types import _need
from .enclosures import ball_str, parse_ball, q_arb, q_str
from .taylor import ExactTM

_PREC = 128
#: The largest number of exact series terms a certificate may use at an end (the re-check refuses larger orders).
_K_END_CAP = 64


#: Numbers of equal sub-intervals of ``[0, t_hi]`` tried for the remainder test and the end sign (each
#: with its own preconditioner / its own range evaluation).
_PIECES = (1, 4, 16)


def _pieces(v) -> int:
    _need(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 256, f"bad number of pieces {v!r}")
    return v


class SeriesBudgetError(ArithmeticError):
    """The exact series of the two blockings at one end agree to the order the budget allows."""


def _exact_str(x: arb) -> str:
    man, exp = x.mid().man_exp()
    return f"{int(man)}*2^{int(exp)}"


# ==================================================================================================
# polynomial systems at an end point
# ==================================================================================================

def _at_t0(terms, x):
    """The exact value at ``t = 0`` of a row of :class:`_PolySystem` (terms ``(c, exponents, te)``)
    at the rational point ``x``: the sum of the terms with ``te == 0``."""
    v = fmpq(0)
    for c, ex, te in terms:
        if te == 0:
            p = c
            for xi, a in zip(x, ex):
                if a:
                    p *= xi ** a
            v += p
    return v


class _PolySystem:
    """Numerators of the model's square stationary system in ``(x, t)``; ``end`` is ``"zero"``
    (``t = rho``) or ``"infinity"`` (``t = 1/rho``, rows multiplied by ``t^deg_rho``)."""

    def __init__(self, model, end: str):
        V = list(model.variables)
        self.n = len(V)
        T = sp.Symbol("_t")
        rows = []
        for e in model.stationary_system():
            num, _den = sp.fraction(sp.together(sp.expand(e)))
            P = sp.Poly(sp.expand(num), *V, RHO)
            if end == "infinity":
                deg = P.degree(RHO)
                num = sp.expand(sp.expand(P.as_expr().subs(RHO, 1 / T)) * T ** deg)
            else:
                num = P.as_expr().subs(RHO, T)
            Q = sp.Poly(num, *V, T)
            rows.append([(fmpq(int(sp.Rational(c).p), int(sp.Rational(c).q)), tuple(int(x) for x in mono[:-1]),
                          int(mono[-1])) for mono, c in Q.terms()])
        self.rows = rows
        B = sp.Poly(sp.expand(model._blocking), *V)
        if B.free_symbols - set(V):
            raise ValueError("the generic end pieces need a blocking polynomial in the state")
        self.blocking = [(fmpq(int(sp.Rational(c).p), int(sp.Rational(c).q)), tuple(int(x) for x in mono))
                         for mono, c in B.terms()]
        self.e = [0] * self.n                  # valuations of the rescaling x_k = t^e_k v_k (none here)
        self.row_shift = [0] * self.n          # the power of t each row was divided by
        self.blocking_te = [0] * len(self.blocking)   # t-exponent of each blocking term after the rescaling
        self.blocking_scale = 0                # B(t^e v) = t^blocking_scale * sum c t^te v^ex
        self._build_jac()

    def rescaled(self, e) -> "_PolySystem":
        r"""The system of :math:`v` with :math:`x_k = t^{e_k} v_k` (integers :math:`e_k`), each row
        divided by its least power of ``t`` (the map of monomials is injective, so no term cancels:
        the least power is that of a term). The blocking becomes
        :math:`t^{m_B} \sum_j c_j t^{\tau_j} v^{\alpha_j}` with :math:`m_B` the least power."""
        e = [int(v) for v in e]
        if len(e) != self.n:
            raise ValueError(f"valuations must have {self.n} entries, got {len(e)}")
        out = object.__new__(_PolySystem)
        out.n = self.n
        out.e = e
        out.rows, out.row_shift = [], []
        for terms in self.rows:
            sh = [te + sum(a * v for a, v in zip(ex, e)) for _c, ex, te in terms]
            m = min(sh)
            out.rows.append([(c, ex, s_ - m) for (c, ex, _te), s_ in zip(terms, sh)])
            out.row_shift.append(m)
        out.blocking = list(self.blocking)
        bt = [sum(a * v for a, v in zip(ex, e)) for _c, ex in self.blocking]
        out.blocking_scale = min(bt) if bt else 0
        out.blocking_te = [b - out.blocking_scale for b in bt]
        out._build_jac()
        return out

    def _build_jac(self):
        # Jacobian rows: d/dx_j
        self.jac = []
        for terms in self.rows:
            J = [[] for _ in range(self.n)]
            for c, ex, te in terms:
                for j, a in enumerate(ex):
                    if a:
                        ex2 = list(ex)
                        ex2[j] -= 1
                        J[j].append((c * a, tuple(ex2), te))
            self.jac.append(J)

    # exact evaluation at a rational point, t = 0
    def value0(self, x):
        return [_at_t0(terms, x) for terms in self.rows]

    def jac0(self, x):
        M = fmpq_mat(self.n, self.n)
        for i in range(self.n):
            for j in range(self.n):
                M[i, j] = _at_t0(self.jac[i][j], x)
        return M

    # power series evaluation: x as fmpq_poly, truncated at order N (N=None: exact)
    def series_values(self, xs, N=None):
        cache = {}

        def powr(j, a):
            key = (j, a)
            if key not in cache:
                p = fmpq_poly([1])
                for _ in range(a):
                    p = _trunc(p * xs[j], N)
                cache[key] = p
            return cache[key]
        out = []
        for terms in self.rows:
            v = fmpq_poly([])
            for c, ex, te in terms:
                p = fmpq_poly([0] * te + [c])
                for j, a in enumerate(ex):
                    if a:
                        p = _trunc(p * powr(j, a), N)
                v += p
            out.append(_trunc(v, N))
        return out

    def jac_arb(self, X, T):
        """Interval Jacobian ``F_x(X, T)`` (arb_mat) for balls ``X`` (list), ``T``."""
        n = self.n
        M = arb_mat(n, n)
        for i in range(n):
            for j in range(n):
                v = arb(0)
                for c, ex, te in self.jac[i][j]:
                    p = arb(c) * _ipow(T, te)
                    for xk, a in zip(X, ex):
                        if a:
                            p *= _ipow(xk, a)
                    v += p
                M[i, j] = v
        return M


def _ipow(x: arb, a: int) -> arb:
    """``x ** a`` for an integer ``a >= 0`` and any ball ``x``. (python-flint's ``arb ** int`` is the
    real power ``exp(a log x)``: NaN for a ball that contains 0 in its interior, e.g. the remainder box
    of a state component whose series vanishes to the order taken, such as ``u_3 ~ rho^13`` of
    ``PowerOfD(3, 3)`` at small load.)"""
    if a == 0:
        return arb(1)
    if a == 1:
        return x
    if x >= 0:
        return x ** a
    if x <= 0:
        return (-x) ** a if a % 2 == 0 else -((-x) ** a)
    ax = abs(x)                                 # [0, |x|]: the power of a non-negative ball is finite
    ev = ax ** a if a % 2 == 0 else x * ax ** (a - 1)
    if not ev.is_finite():
        ev = x
        for _ in range(a - 1):
            ev = ev * x
    return ev


def _trunc(p, N):
    if N is None:
        return p
    cs = p.coeffs()[:N + 1]
    return fmpq_poly(cs)


def _rationalize(v: float, maxden: int = 1000) -> Fraction:
    return Fraction(v).limit_denominator(maxden)


class _EndModel:
    """Exact series and certified remainder of one model's branch at one end, in the rescaled
    coordinates :math:`x_k = t^{e_k} v_k` when valuations ``e`` are given (module docstring)."""

    def __init__(self, model, end, x_guess, *, e=None, x0_exact=None, ps=None):
        self.model = model
        self.end = end
        base = _PolySystem(model, end) if ps is None else ps
        self.ps = base.rescaled(e) if e is not None and any(int(v) for v in e) else base
        if x0_exact is not None:
            x0 = [fmpq(Fraction(v).numerator, Fraction(v).denominator) for v in x0_exact]
        else:
            x0 = [_rationalize(float(v)) for v in x_guess]
            x0 = [fmpq(f.numerator, f.denominator) for f in x0]
        where = "0" if end == "zero" else "oo"
        if len(x0) != self.ps.n or any(v != 0 for v in self.ps.value0(x0)):
            raise ValueError(f"{model!r}: the limit state at rho -> {where} is not rational "
                             f"(or not the guess {[str(v) for v in x0][:6]})")
        if any(self.ps.e) and any(v == 0 for v in x0):
            raise ValueError(f"{model!r}: a rescaled limit state at rho -> {where} has a zero component "
                             f"(valuations {self.ps.e} are not those of the branch)")
        J0 = self.ps.jac0(x0)
        if J0.det() == 0:
            raise ValueError(f"{model!r}: the end point at rho -> {where} is not a regular point of the "
                             + ("stationary equations" if not any(self.ps.e) else
                                f"stationary equations rescaled by the valuations {self.ps.e}"))
        self.x0 = x0
        self.J0 = J0
        self.J0inv = J0.inv()

    @property
    def valuations(self) -> list:
        return list(self.ps.e)

    @property
    def scale(self) -> int:
        """The blocking is ``t^scale`` times the (rescaled) blocking series."""
        return self.ps.blocking_scale

    def series(self, K):
        n = self.ps.n
        xs = [fmpq_poly([v]) for v in self.x0]
        for _ in range(K + 2):
            F = self.ps.series_values(xs, K)
            if all(f.is_zero() for f in F):
                break
            for i in range(n):
                corr = fmpq_poly([])
                for j in range(n):
                    if self.J0inv[i, j] != 0:
                        corr += F[j] * self.J0inv[i, j]
                xs[i] = _trunc(xs[i] - corr, K)
        F = self.ps.series_values(xs, K)
        if not all(f.is_zero() for f in F):
            raise ArithmeticError("the exact series did not converge")
        return xs

    def remainder(self, xs, K, t_hi: Fraction, W=None, pieces: int = 1):
        """Krawczyk box ``W`` for ``x = S(t) + t^(K+1) w`` on ``t in [0, t_hi]`` (or check a given
        ``W``), one box for the whole interval, tested on ``pieces`` equal sub-intervals of
        ``[0, t_hi]``, each with its own preconditioner (the inverse of ``F_x`` at ``t = 0`` on the
        first, at the middle of the sub-interval on the others): the Krawczyk image of ``W`` lies in
        its interior for every ``t`` of every sub-interval, so for every ``t`` in ``[0, t_hi]`` ``W``
        holds exactly one zero of ``H(., t)``. Returns ``(W, margin)`` or raises ``ValueError``."""
        n = self.ps.n
        Fex = self.ps.series_values(xs, None)
        tails = []
        for f in Fex:
            cs = f.coeffs()
            if any(c != 0 for c in cs[:K + 1]):
                raise ArithmeticError("F(S(t), t) is not divisible by t^(K+1)")
            tails.append(arb_poly([arb(c) for c in cs[K + 1:]]) if len(cs) > K + 1 else None)
        polys = [arb_poly([arb(c) for c in s.coeffs()]) if s.coeffs() else None for s in xs]
        I = arb_mat([[arb(1) if i == j else arb(0) for j in range(n)] for i in range(n)])
        segs = []
        for j in range(pieces):
            lo, hi = t_hi * j / pieces, t_hi * (j + 1) / pieces
            T = q_arb(lo).union(q_arb(hi))
            R = [p_(T) if p_ is not None else arb(0) for p_ in tails]
            ST = [p_(T) if p_ is not None else arb(0) for p_ in polys]
            if j == 0:
                Jm = arb_mat([[arb(float(self._j0(i, k))) for k in range(n)] for i in range(n)])
            else:
                tm = q_arb((lo + hi) / 2)
                Jm = self.ps.jac_arb([arb((p_(tm) if p_ is not None else arb(0)).mid()) for p_ in polys], tm)
                Jm = arb_mat([[arb(float(Jm[i, k].mid())) for k in range(n)] for i in range(n)])
            Y = _float_inverse(Jm)
            if Y is None:
                raise ValueError("singular end-point Jacobian")
            segs.append((T, ST, T ** (K + 1), Y, Y * arb_mat([[r] for r in R])))
        given = W is not None
        if W is None:
            # a floor relative to each component's scale (a rescaled state may be far below 2^-100)
            floor = [arb(2) ** -100 * (arb(abs(self.x0[i])) if self.x0[i] != 0 else arb(1)) for i in range(n)]
            W = [arb(0, (2 * max(abs(sg[4][i, 0]).upper() for sg in segs) + floor[i]).upper())
                 for i in range(n)]
        for _ in range(1 if given else 12):
            dev = [arb(0)] * n                         # the largest |K_i| over the sub-intervals
            for T, ST, eps, Y, YR in segs:
                X = [ST[i] + eps * W[i] for i in range(n)]
                Hw = self.ps.jac_arb(X, T)
                K_ = -YR + (I - Y * Hw) * arb_mat([[w] for w in W])
                for i in range(n):
                    a_ = abs(K_[i, 0])
                    dev[i] = a_ if not a_.is_finite() or not dev[i].is_finite() else arb(max(dev[i].upper(), a_.upper()))
            ok = all(dev[i].is_finite() and dev[i] < W[i].rad() for i in range(n))
            if ok:
                margin = max(float((dev[i].upper() / W[i].rad()).mid()) for i in range(n))
                return W, margin
            if given or not all(d.is_finite() for d in dev):
                break
            # epsilon inflation component by component: a component that already contracts keeps its
            # radius (doubling every component keeps a coupled component's ratio K_i / W_i fixed:
            # RandomRouting(2) never contracted at either end)
            W = [arb(0, max(W[i].rad() * (1 if dev[i] < W[i].rad() else 2),
                            (dev[i].upper() * arb(1.5)).upper()).upper()) for i in range(n)]
        raise ValueError("no Krawczyk box for the remainder of the end series")

    def _j0(self, i, j):
        v = self.J0[i, j]
        return Fraction(int(v.p), int(v.q))

    def blocking_tm(self, xs, W, K, t_hi):
        """Taylor model of the (rescaled) blocking ``B(t^e v) / t^scale`` on ``[0, t_hi]``."""
        h = q_arb(t_hi)
        comps = [ExactTM(list(xs[j].coeffs()), W[j], h, K) for j in range(self.ps.n)]
        out = ExactTM([0], arb(0), h, K)
        for (c, ex), te in zip(self.ps.blocking, self.ps.blocking_te):
            term = out.const(c)
            for j, a in enumerate(ex):
                for _ in range(a):
                    term = term * comps[j]
            out = out + term.shift(te)
        return out, comps

    def blocking_series(self, xs, K):
        """Exact Taylor polynomial (order ``K``) of the (rescaled) blocking along the series ``xs``."""
        out = fmpq_poly([])
        for (c, ex), te in zip(self.ps.blocking, self.ps.blocking_te):
            if te > K:
                continue
            term = fmpq_poly([0] * te + [c])
            for j, a in enumerate(ex):
                for _ in range(a):
                    term = _trunc(term * xs[j], K)
            out += term
        return _trunc(out, K)


def _shifted_poly(p, s: int, K: int):
    """``t^s p(t)`` truncated at order ``K``."""
    if s > K or p.is_zero():
        return fmpq_poly([])
    return _trunc(fmpq_poly([0] * s + list(p.coeffs())), K)


def _blocking_difference_series(ems, xs, K):
    """The exact Taylor polynomial (order ``K``) of ``(B_a - B_b) / t^scale`` with ``scale`` the
    smaller of the two blockings' scales (``ems``, ``xs``: dicts keyed ``"a"``, ``"b"``);
    returns ``(poly, scale)``."""
    mn = min(ems["a"].scale, ems["b"].scale)
    pa = _shifted_poly(ems["a"].blocking_series(xs["a"], K), ems["a"].scale - mn, K)
    pb = _shifted_poly(ems["b"].blocking_series(xs["b"], K), ems["b"].scale - mn, K)
    return pa - pb, mn


def _blocking_difference_tm(Ba, sa: int, Bb, sb: int):
    """Taylor model of ``(t^sa Ba - t^sb Bb) / t^min(sa, sb)``; returns ``(ExactTM, min(sa, sb))``."""
    mn = min(sa, sb)
    return Ba.shift(sa - mn) - Bb.shift(sb - mn), mn


# ==================================================================================================
# valuations of a branch at an end (issue 23): x_k = t^e_k v_k with v regular at t = 0
# ==================================================================================================

def _valuations(ps, x0, y, log_t: float):
    """A guess of the valuations ``e_k`` (``x_k ~ t^e_k``) of the components whose limit is 0, from
    the float log-state ``y`` at one small ``t`` (``log_t``): in every row the two largest terms
    balance (``te_p + ex_p . e = te_q + ex_q . e``); the least-squares solution of these equations,
    rounded. A guess only: the rescaled system is checked exactly (:class:`_EndModel`). ``None``
    when there is no zero component or the guess is not a clean integer vector."""
    U = [k for k, v in enumerate(x0) if v == 0]
    y = np.asarray([float(v.mid()) if isinstance(v, arb) else float(v) for v in y], dtype=float)
    if not U or not np.all(np.isfinite(y)):
        return None
    A, b = [], []
    for terms in ps.rows:
        if len(terms) < 2:
            continue
        L = [np.log(abs(float(c))) + te * log_t + float(np.dot(ex, y)) for c, ex, te in terms]
        order = np.argsort(L)[::-1]
        p, q = terms[order[0]], terms[order[1]]
        row = [p[1][k] - q[1][k] for k in U]
        if not any(row):
            continue
        A.append(row)
        b.append(q[2] - p[2])
    if len(A) < len(U):
        return None
    A, b = np.asarray(A, dtype=float), np.asarray(b, dtype=float)
    sol, *_ = np.linalg.lstsq(A, b, rcond=None)
    if not np.all(np.isfinite(sol)) or np.max(np.abs(sol - np.round(sol))) > 0.25 or np.min(sol) < 0.5:
        return None
    e = [0] * ps.n
    for k, v in zip(U, np.round(sol)):
        e[k] = int(v)
    return e


def _iroot(n: int, a: int):
    """The exact integer ``a``-th root of ``n >= 0`` or ``None``."""
    if n < 0:
        return None
    if n < 2:
        return n
    r = 1 << ((n.bit_length() + a - 1) // a)
    while True:
        s = ((a - 1) * r + n // r ** (a - 1)) // a
        if s >= r:
            break
        r = s
    for c in (r - 1, r, r + 1):
        if c >= 0 and c ** a == n:
            return c
    return None


def _qroot(q: Fraction, a: int):
    """A rational ``a``-th root of ``q`` (the positive one when there are two) or ``None``."""
    if a == 1:
        return q
    if q < 0:
        if a % 2 == 0:
            return None
        r = _qroot(-q, a)
        return None if r is None else -r
    p_, s_ = _iroot(q.numerator, a), _iroot(q.denominator, a)
    return None if p_ is None or s_ is None else Fraction(p_, s_)


def _solve_t0(ps, seed):
    """The exact solution of the rescaled system at ``t = 0`` (all components non-zero) by
    propagation: a row in which one unknown is left and whose terms have two distinct degrees in it,
    ``c_hi v^hi + c_lo v^lo = 0``, gives ``v^(hi - lo) = -c_lo / c_hi`` (a rational root, or ``None``).
    Components with valuation 0 start from ``seed`` (their rationalized limits). ``None`` when the
    propagation stops; the result is checked exactly by :class:`_EndModel`."""
    n = ps.n
    known = {k: _rationalize(float(seed[k])) for k in range(n) if ps.e[k] == 0}
    rows0 = [[(Fraction(int(c.p), int(c.q)), ex) for c, ex, te in terms if te == 0] for terms in ps.rows]
    progress = True
    while len(known) < n and progress:
        progress = False
        for terms in rows0:
            unk = {j for _c, ex in terms for j, a in enumerate(ex) if a and j not in known}
            if len(unk) != 1:
                continue
            j = unk.pop()
            byd = {}
            for c, ex in terms:
                v = c
                for k, a in enumerate(ex):
                    if a and k != j:
                        v *= known[k] ** a
                byd[ex[j]] = byd.get(ex[j], Fraction(0)) + v
            byd = {d_: v for d_, v in byd.items() if v != 0}
            if len(byd) != 2:
                continue
            lo, hi = sorted(byd)
            r = _qroot(-byd[lo] / byd[hi], hi - lo)
            if r is None or r == 0:
                return None
            known[j] = r
            progress = True
    if len(known) < n:
        return None
    return [known[k] for k in range(n)]


def _end_model(model, end: str, y, rho: Fraction):
    """The end model of the search at ``end`` from the branch's float log-state ``y`` at the load
    ``rho``: the limit state (float Newton at ``t = 0``), then the valuations of its zero components
    (:func:`_valuations`) with the exact rescaled limit (:func:`_solve_t0`); the unscaled system when
    the rescaling does not give a regular point."""
    ps = _PolySystem(model, end)
    x_guess = _limit_guess(model, end, y, ps=ps)
    t = float(rho) if end == "zero" else 1 / float(rho)
    e = _valuations(ps, x_guess, y, float(np.log(t)))
    if e is not None and any(e):
        try:
            v0 = _solve_t0(ps.rescaled(e), x_guess)
            if v0 is not None:
                return _EndModel(model, end, None, e=e, x0_exact=v0, ps=ps)
        except (ValueError, ArithmeticError, ZeroDivisionError):
            pass
    return _EndModel(model, end, x_guess, ps=ps)


def end_branch(model, end: str, x_guess, K: int, t_hi: Fraction, *, _em=None, _xs=None):
    """Exact series (order ``K``) and certified remainder box of ``model``'s branch at ``end``.

    Parameters
    ----------
    model : MeanFieldModel
        A smooth model with Laurent-polynomial rates and a polynomial blocking.
    end : {"zero", "infinity"}
        The end of the load axis (``t = rho`` or ``t = 1/rho``).
    x_guess : sequence of float
        The limit state at ``t = 0`` (rounded to a rational with denominator <= 1000, checked exactly).
    K : int
        Order of the exact series.
    t_hi : Fraction
        The remainder is certified for ``t in [0, t_hi]``.
    _em : optional
        Internal: the end model of an earlier call at the same end (reused instead of rebuilt;
        ``x_guess`` is then ignored).
    _xs : list, optional
        Internal: exact series of the branch from an earlier call (reused when their degree does
        not exceed ``K``).

    Returns
    -------
    dict
        The data a certificate stores (``x0``: the limit of the rescaled state ``v``, ``valuations``:
        the ``e_k`` of ``x_k = t^e_k v_k``, ``scale``: the power of ``t`` factored out of the
        blocking, ``series``, ``W``, ``margin``) and, under keys starting
        with ``_``, the Taylor model of the blocking and the internal objects.

    Raises
    ------
    ValueError
        When the limit state is not rational or not regular, no Krawczyk box is found, or the
        series given as ``_xs`` exceed the order ``K``.
    """
    em = _EndModel(model, end, x_guess) if _em is None else _em
    if _xs is not None and any(x.degree() > K for x in _xs):
        raise ValueError(f"the given series exceed the order K = {K}")
    xs = em.series(K) if _xs is None else _xs
    err = None
    for pieces in _PIECES:
        try:
            W, margin = em.remainder(xs, K, t_hi, pieces=pieces)
            W_txt = [ball_str(w, 12) for w in W]
            W = [parse_ball(w) for w in W_txt]       # the box as stored and re-checked
            margin = em.remainder(xs, K, t_hi, W=W, pieces=pieces)[1]
            break
        except ValueError as exc:
            err = exc
    else:
        raise err
    B, _comps = em.blocking_tm(xs, W, K, t_hi)
    return {"x0": [q_str(Fraction(int(v.p), int(v.q))) for v in em.x0], "valuations": em.valuations,
            "scale": em.scale,
            "series": [[q_str(Fraction(int(c.p), int(c.q))) for c in s.coeffs()] for s in xs],
            "W": W_txt, "pieces": pieces, "margin": margin, "_B": B, "_em": em, "_xs": xs, "_W": W}



def _arb_bounds(x: arb):
    """Exact rational end points ``(mid - rad, mid + rad)`` of a ball."""
    m = _arf_fraction(x)
    r = _arf_fraction(arb(x.rad()))
    return m - r, m + r


def _arf_fraction(x: arb) -> Fraction:
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man) * Fraction(2) ** exp


def _in_end_slice(xs, W, K, t_hi: Fraction, xb, e=None) -> bool:
    """Whether the balls ``xb`` lie inside the exact end-tube slice ``S(t_hi) + t_hi^(K+1) W`` (an
    exact rational box: ``S`` has rational coefficients, ``t_hi`` is rational and the balls ``W``
    have dyadic mid-points and radii), decided in exact arithmetic. (Containment in a ball
    *enclosure* of the slice, as before, is not a proof that the box lies in the slice.)"""
    tk = t_hi ** (K + 1)
    e = [0] * len(xs) if e is None else e
    for s, w, b, ek in zip(xs, W, xb, e):
        if not b.is_finite():
            return False
        c = sum((Fraction(int(q.p), int(q.q)) * t_hi ** i for i, q in enumerate(s.coeffs())), Fraction(0))
        wl, wh = _arb_bounds(w)
        bl, bh = _arb_bounds(b)
        te = t_hi ** ek                         # x_k = t^e_k v_k: the slice of v scaled back
        if not (te * (c + tk * wl) <= bl and bh <= te * (c + tk * wh)):
            return False
    return True


def _scaled_range(D: ExactTM, m: int, t_hi: Fraction, pieces: int) -> arb:
    """Ball enclosing ``D(t) / t^m`` for ``t`` in ``(0, t_hi]``: the hull of its enclosures on
    ``pieces`` equal sub-intervals (``D.scaled_range(m)`` on one; several reduce the overestimation
    of the polynomial's range over a wide interval)."""
    if pieces == 1:
        return D.scaled_range(m)
    if any(c != 0 for c in D.c[:m]):
        raise ValueError(f"coefficients below order {m} do not all vanish")
    poly = arb_poly([arb(c) for c in D.c[m:]]) if D.c[m:] else None
    out = None
    for j in range(pieces):
        T = q_arb(t_hi * j / pieces).union(q_arb(t_hi * (j + 1) / pieces))
        v = (poly(T) if poly is not None else arb(0)) + T ** (D.K + 1 - m) * D.R
        out = v if out is None else out.union(v)
    return out


def _end_slice(xs, W, K, t_hi, e=None):
    """Ball enclosure of the end-tube slice at ``t_hi`` in the model's coordinates."""
    t = q_arb(t_hi)
    e = [0] * len(xs) if e is None else e
    return [(arb_poly([arb(c) for c in s.coeffs()])(t) + t ** (K + 1) * W[j] if s.coeffs() else t ** (K + 1) * W[j])
            * t ** e[j] for j, s in enumerate(xs)]


def _limit_guess(model, end, y, ps=None):
    """The limit state at ``end`` from the branch at the junction: float Newton on F(x, 0) = 0."""
    ps = _PolySystem(model, end) if ps is None else ps
    x = np.exp(np.asarray([float(v.mid()) if isinstance(v, arb) else float(v) for v in y]))
    for _ in range(60):
        F = np.array([sum(float(c) * np.prod([x[k] ** a for k, a in enumerate(ex)]) for c, ex, te in row if te == 0)
                      for row in ps.rows])
        J = np.array([[sum(float(c) * np.prod([x[k] ** a for k, a in enumerate(ex)]) for c, ex, te in ps.jac[i][j] if te == 0)
                       for j in range(ps.n)] for i in range(ps.n)])
        try:
            step = np.linalg.solve(J, F)
        except np.linalg.LinAlgError:
            break
        x = x - step
        if np.max(np.abs(step)) < 1e-14:
            break
    return [float(v) if abs(v) > 1e-12 else 0.0 for v in x]


