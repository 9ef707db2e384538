r"""The generic path of :func:`symloss.meanfield.certified.certified_comparison`: any two smooth
mean-field models (user definitions included), from their own stationary equations only.

Middle loads :math:`[\rho_{lo}, \rho_{hi}]`
--------------------------------------------
Cells of loads with dyadic end points (step control on the relative width: grown after a decided
cell, shrunk after an undecided one). On each cell, for each model, a certified tube around its fixed-point branch
(:func:`symloss.core.certify.enclose_interval`: parametric Krawczyk test with the load as an
interval parameter, in :math:`y = \log x`), with enclosures of :math:`\log B` and of
:math:`d\log B/d\log\rho` (implicit differentiation in ball arithmetic); at every cell end point a
Krawczyk point box (:func:`symloss.core.certify.point_box`) contained in the tubes of both adjacent
cells, which chains the tubes into one continuous branch per model. The sign of
:math:`D = \log B_a - \log B_b` on a cell is proved by disjoint enclosures, or by the mean-value
form from either end point; a cell with opposite end-point signs and a derivative enclosure of
:math:`D` that excludes 0 holds exactly one crossing, which is then bracketed by point boxes to
width :math:`10^{-\mathrm{dps}}`.

End pieces (compactification)
-----------------------------
With :math:`t = \rho` at the small-load end and :math:`t = 1/\rho` at the large-load end, the
numerators of the square stationary system, multiplied by the power of ``t`` that clears
:math:`\rho`, are polynomials :math:`F(x, t)`. When the limit state :math:`x_0` is rational,
:math:`F(x_0, 0) = 0` and :math:`F_x(x_0, 0)` is non-singular (checked exactly), the branch is
analytic at :math:`t = 0`: its Taylor polynomial :math:`S(t)` of order ``K`` is computed exactly
(rational chord iteration), and the remainder :math:`x = S(t) + t^{K+1} w` is certified by a Krawczyk
test on :math:`H(w, t) = F(S(t) + t^{K+1}w, t)/t^{K+1}` over :math:`t \in [0, t_{hi}]`
(:math:`H(0, t)` is the exact polynomial :math:`F(S(t), t)/t^{K+1}`, and
:math:`\partial_w H \in F_x(S(t) + t^{K+1}W, t)`). The blockings are then exact-coefficient Taylor
models (:class:`~symloss.meanfield.taylor.ExactTM`) and the first non-zero coefficient of
:math:`B_a - B_b` gives its sign on :math:`(0, t_{hi}]`. A point box at the junction load contained
both in the end tube and in the middle branch's point box there links the end branch to the middle
one (each box holds exactly one zero, so the three branches meet in one solution); containment in
the end tube's slice is decided in exact rational arithmetic (the slice is an exact box).

The order ``K`` follows the pair: ``K_end, 2 K_end, ...`` until the exact Taylor polynomials of the
two blockings differ (two more terms are then taken), up to the budget ``K_end_max``
(:class:`SeriesBudgetError` names it; e.g. the blockings of ``hybrid(3, 2, 2)`` of ``docs/models.md``
and of ``PowerOfD(3, 3)`` start at orders 28 and 39). The Krawczyk test of the remainder uses one box
``W`` for all of ``[0, t_hi]`` but may test it on 1, 4 or 16 equal sub-intervals, each with its own
preconditioner; the sign of the leading term is likewise enclosed on up to 64 sub-intervals (the
counts are stored and re-checked). Junction loads are tried from the middle of the load axis
outwards (``rho = 1, 1/2, ...`` and ``2, 4, ...``): an end piece that holds further in replaces cells.

Uniqueness
----------
The comparison is of the fixed-point branches enclosed (continuous on :math:`(0, \infty)`). For a
model whose state space has at most :data:`~symloss.core.certify.UNIQUENESS_MAX_DIM` free
coordinates, the number of fixed points on the state space is decided at every dyadic load of the
tiling by exclusion in interval arithmetic (:func:`symloss.core.certify.fixed_point_uniqueness`;
the records are stored and re-checked by :func:`verify_generic`): a model with more than one fixed
point at one of these loads is refused (:class:`~symloss.core.certify.NonUniqueFixedPointError`, a
``ValueError``). Between these loads, and for larger state spaces, uniqueness remains an assumption,
recorded in the certificate (the fast path proves uniqueness for the shipped policies).
"""
from __future__ import annotations

import bisect
import math
import time
from fractions import Fraction

import mpmath

import numpy as np
import sympy as sp
from flint import arb, arb_mat, arb_poly, fmpq, fmpq_mat, fmpq_poly

from ..core.certify import (
    UNIQUENESS_MAX_DIM,
    NonUniqueFixedPointError,
    StateSpace,
    _continue,
    _float_inverse,
    fixed_point_uniqueness,
    verify_uniqueness,
    box_derivative,
    check_selection,
    enclose_interval,
    parse_exact,
    point_box,
    start_point,
    verify_box,
    verify_tube,
)
from ..core.model import RHO
from ..core.precision import PrecisionError, flint_prec
from .enclosures import _dec, ball_str, parse_ball, parse_q, q_arb, q_str
from .taylor import ExactTM

__all__ = ["FORMAT_GENERIC", "SeriesBudgetError", "end_branch", "generic_comparison", "verify_generic"]

FORMAT_GENERIC = "symloss.comparison/generic/1"
_PREC = 128
_MAX_DEPTH = 22
#: Default budget of exact series terms at each end (``K_end_max``), and the largest one a certificate
#: may use (the re-check refuses larger orders).
_K_END_MAX = 48
_K_END_CAP = 64


#: Numbers of equal sub-intervals of ``[0, t_hi]`` tried for the remainder test and the end sign (each
#: with its own preconditioner / its own range evaluation).
_PIECES = (1, 4, 16)


def _pieces(v) -> int:
    _need(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 256, f"bad number of pieces {v!r}")
    return v


class SeriesBudgetError(ArithmeticError):
    """The exact series of the two blockings at one end agree to the order the budget allows."""
_ASSUMPTION = ("each model's stationary fixed point is unique: the comparison is of the fixed-point branches "
               "enclosed here (continuous on (0, oo)); not certified by the generic path")


def _exact_str(x: arb) -> str:
    man, exp = x.mid().man_exp()
    return f"{int(man)}*2^{int(exp)}"


def _mismatch(msg):
    from .certified import CertificateMismatch
    return CertificateMismatch(msg)


def _need(cond, msg):
    if not cond:
        raise _mismatch(msg)


# ==================================================================================================
# polynomial systems at an end point
# ==================================================================================================

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
        # Jacobian rows: d/dx_j
        self.jac = []
        for terms in rows:
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
        out = []
        for terms in self.rows:
            v = fmpq(0)
            for c, ex, te in terms:
                if te == 0:
                    p = c
                    for xi, a in zip(x, ex):
                        if a:
                            p *= xi ** a
                    v += p
            out.append(v)
        return out

    def jac0(self, x):
        M = fmpq_mat(self.n, self.n)
        for i in range(self.n):
            for j in range(self.n):
                v = fmpq(0)
                for c, ex, te in self.jac[i][j]:
                    if te == 0:
                        p = c
                        for xi, a in zip(x, ex):
                            if a:
                                p *= xi ** a
                        v += p
                M[i, j] = v
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
    """Exact series and certified remainder of one model's branch at one end."""

    def __init__(self, model, end, x_guess):
        self.model = model
        self.end = end
        self.ps = _PolySystem(model, end)
        x0 = [_rationalize(float(v)) for v in x_guess]
        x0 = [fmpq(f.numerator, f.denominator) for f in x0]
        if any(v != 0 for v in self.ps.value0(x0)):
            raise ValueError(f"{model!r}: the limit state at rho -> {'0' if end == 'zero' else 'oo'} is not rational "
                             f"(or not the guess {[str(v) for v in x0]})")
        J0 = self.ps.jac0(x0)
        if J0.det() == 0:
            raise ValueError(f"{model!r}: the end point is not a regular point of the stationary equations")
        self.x0 = x0
        self.J0 = J0
        self.J0inv = J0.inv()

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
            W = [arb(0, (2 * max(abs(sg[4][i, 0]).upper() for sg in segs) + arb(2) ** -100).upper())
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
        h = q_arb(t_hi)
        comps = [ExactTM(list(xs[j].coeffs()), W[j], h, K) for j in range(self.ps.n)]
        out = ExactTM([0], arb(0), h, K)
        for c, ex in self.ps.blocking:
            term = out.const(c)
            for j, a in enumerate(ex):
                for _ in range(a):
                    term = term * comps[j]
            out = out + term
        return out, comps


    def blocking_series(self, xs, K):
        """Exact Taylor polynomial (order ``K``) of the blocking along the series ``xs``."""
        out = fmpq_poly([])
        for c, ex in self.ps.blocking:
            term = fmpq_poly([c])
            for j, a in enumerate(ex):
                for _ in range(a):
                    term = _trunc(term * xs[j], K)
            out += term
        return _trunc(out, K)


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

    Returns
    -------
    dict
        The data a certificate stores (``x0``, ``series``, ``W``, ``margin``) and, under keys starting
        with ``_``, the Taylor model of the blocking and the internal objects.

    Raises
    ------
    ValueError
        When the limit state is not rational or not regular, or no Krawczyk box is found.
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
    return {"x0": [q_str(Fraction(int(v.p), int(v.q))) for v in em.x0],
            "series": [[q_str(Fraction(int(c.p), int(c.q))) for c in s.coeffs()] for s in xs],
            "W": W_txt, "pieces": pieces, "margin": margin, "_B": B, "_em": em, "_xs": xs, "_W": W}


# ==================================================================================================
# the search
# ==================================================================================================

def _model_record(m) -> dict:
    return {"repr": repr(m), "class": type(m).__name__, "variables": [str(v) for v in m.variables],
            "fingerprint": m.fingerprint()}


def _uniqueness_at_loads(model, loads, records: dict, label: str) -> None:
    """Decide the number of fixed points of ``model`` at each load (exact Fractions) not yet in
    ``records`` (``q_str(rho) -> record``); raise :class:`NonUniqueFixedPointError` naming the model,
    the load and the fixed points when there are several."""
    for rho in loads:
        key = q_str(rho)
        if key in records:
            continue
        rec = fixed_point_uniqueness(model, rho)
        if rec["status"] == "NOT UNIQUE":
            pts = "; ".join("x = [" + ", ".join(mpmath.nstr(mpmath.mpf(v), 10) for v in r["x"]) + "]"
                            for r in rec["regions"])
            raise NonUniqueFixedPointError(
                f"model {label} ({model!r}) has {'at least ' if not rec['complete'] else ''}{rec['n_found']} fixed "
                f"points on its state space ({rec['state_space']}) at rho = {key} ({pts}; each certified by a "
                "Krawczyk test): its blocking is not a function of the load, a certified comparison of the "
                "two models is not defined")
        records[key] = rec


def _uniqueness_assumption(models, uniq) -> list:
    out = []
    for key, m in models.items():
        rec = uniq.get(key)
        if rec is None:
            out.append(f"model {key}: the fixed point is assumed unique at every load (state space of dimension "
                       f"{StateSpace(m).dim} > {UNIQUENESS_MAX_DIM}: not checked)")
            continue
        proved = sorted((r for r, v in rec.items() if v["status"] == "PROVED"), key=parse_q)
        open_ = sorted((r for r, v in rec.items() if v["status"] != "PROVED"), key=parse_q)
        txt = (f"model {key}: exactly one fixed point on the state space PROVED at the {len(proved)} loads "
               f"{', '.join(proved)} (exclusion in interval arithmetic, records in 'uniqueness'); assumed unique "
               "between them and beyond them")
        if open_:
            txt += f"; undecided at {', '.join(open_)}"
        out.append(txt)
    return out


def _check_generic_model(m):
    comp = m.compiled
    comp.require_smooth()
    if comp.mode != "terms":
        raise ValueError(f"{m!r}: the generic certified comparison needs Laurent-polynomial rates (terms form)")


class _Generic:
    def __init__(self, a, b, dps, prec):
        self.models = {"a": a, "b": b}
        self.dps, self.prec = dps, prec
        self.points: dict = {}
        self._guess: dict = {}
        self._end_pre: dict = {}
        self._float_guesses: dict = {}                 # key -> (sorted log loads, float starts)

    def guess(self, key, rho: Fraction):
        """A start (``y = log x``) for the ball Newton iterations at ``rho``: float continuation from
        the nearest load already visited (within a factor 2), else :func:`start_point` (a start
        only: every box is certified by its own Krawczyk test)."""
        k = (key, rho)
        if k not in self._guess:
            y = None
            lr = math.log(rho)
            logs, ys = self._float_guesses.setdefault(key, ([], []))
            i = bisect.bisect_left(logs, lr)
            near = [j for j in (i - 1, i) if 0 <= j < len(logs) and abs(logs[j] - lr) <= math.log(2)]
            if near:
                j = min(near, key=lambda j: abs(logs[j] - lr))
                try:
                    y = _continue(self.models[key].compiled, ys[j], logs[j], lr)
                    if not np.all(np.isfinite(y)):
                        y = None
                except (ArithmeticError, ValueError, np.linalg.LinAlgError):
                    y = None
            if y is None:
                y = start_point(self.models[key], rho)
            self._guess[k] = y
            if isinstance(y, np.ndarray):
                i = bisect.bisect_left(logs, lr)
                logs.insert(i, lr)
                ys.insert(i, y)
        return self._guess[k]

    def point(self, rho: Fraction, prec=None, delta=None):
        prec = prec or self.prec
        k = (rho, prec, delta)
        if k not in self.points:
            out = {}
            for key, m in self.models.items():
                box, sel, _mg = point_box(m, rho, prec=prec, y_start=self.guess(key, rho), delta=delta)
                with flint_prec(prec):
                    box = _canon_box(box)
                    LB = m.compiled.log_blocking_arb(box, q_arb(rho).log())
                out[key] = {"box": box, "sel": sel, "LB": LB}
            with flint_prec(prec):
                out["D"] = out["a"]["LB"] - out["b"]["LB"]
            self.points[k] = out
        return self.points[k]

    @staticmethod
    def _inside(box, tube_slice):
        return all(s.contains(b) for b, s in zip(box, tube_slice))

    def test_cell(self, r0: Fraction, r1: Fraction):
        prec = self.prec
        tubes = {}
        rm = (r0 + r1) / 2
        for key, m in self.models.items():
            y0, y1 = self.guess(key, r0), self.guess(key, r1)
            if isinstance(y0, np.ndarray) and isinstance(y1, np.ndarray) and (key, rm) not in self._guess:
                # a start only (the tube is certified by its own Krawczyk test): the chord between
                # the end points' starts, in log-load
                s_ = (math.log(rm) - math.log(r0)) / (math.log(r1) - math.log(r0))
                y_mid = (1 - s_) * y0 + s_ * y1
            else:
                y_mid = self.guess(key, rm)
            tubes[key] = enclose_interval(m, r0, r1, prec=prec, y_mid=y_mid)
        p0, p1 = self.point(r0), self.point(r1)
        with flint_prec(prec):
            for key in ("a", "b"):
                e = tubes[key]
                if not (self._inside(p0[key]["box"], e.slice(r0)) and self._inside(p1[key]["box"], e.slice(r1))):
                    return None
            # decide from the numbers as stored (outward-rounded text, parsed back), exactly as
            # :func:`verify_generic` re-derives the sign: a margin lost in the rounding of the
            # stored text makes the cell undecided here, not a certificate its re-check refuses
            trec = {k: _tube_record(t) for k, t in tubes.items()}
            base = {"rho": [q_str(r0), q_str(r1)], "tubes": trec}
            LBd = parse_ball(trec["a"]["LB"]) - parse_ball(trec["b"]["LB"])
            dD = parse_ball(trec["a"]["dLB"]) - parse_ball(trec["b"]["dLB"])
            D0, D1 = (self._stored_D(p) for p in (p0, p1))
            L = q_arb(r1).log() - q_arb(r0).log()
            if LBd > 0 or LBd < 0:
                return dict(base, test="interval", sign=1 if LBd > 0 else -1, D=ball_str(LBd))
            from_left = D0 + dD * arb(0).union(L)
            from_right = D1 - dD * arb(0).union(L)
            for name, v in (("left", from_left), ("right", from_right)):
                if v > 0 or v < 0:
                    return dict(base, test="mean", sign=1 if v > 0 else -1, side=name, dD=ball_str(dD),
                                Dend=ball_str(D0 if name == "left" else D1))
            s0 = 1 if D0 > 0 else (-1 if D0 < 0 else 0)
            s1 = 1 if D1 > 0 else (-1 if D1 < 0 else 0)
            if s0 and s1 and s0 != s1 and (dD > 0 or dD < 0):
                return dict(base, test="crossing", sign=s1, dD=ball_str(dD), ends=[ball_str(D0), ball_str(D1)])
        return None

    def _stored_D(self, pt):
        """``log B_a - log B_b`` from a point's stored record (as :func:`verify_generic` reads it)."""
        rec = _point_record(pt, self.prec)
        return parse_ball(rec["a"]["LB"]) - parse_ball(rec["b"]["LB"])

    def refine(self, r0: Fraction, r1: Fraction, s1: int):
        """Bisection with point boxes to a bracket of width <= 10^-dps."""
        target = Fraction(1, 10 ** self.dps)
        prec = max(self.prec, int(3.33 * self.dps) + 80)
        lo, hi = r0, r1
        while hi - lo > target / 2:
            mid = (lo + hi) / 2
            e = (hi - lo).numerator.bit_length() - (hi - lo).denominator.bit_length()
            mid = Fraction(round(mid * Fraction(2) ** (-e + 8)), 1) / Fraction(2) ** (-e + 8)
            if not lo < mid < hi:
                mid = (lo + hi) / 2
            for p in (prec, 2 * prec, 4 * prec):
                pt = self.point(mid, prec=p, delta=2.0 ** (-(p // 2)))
                s = 1 if pt["D"] > 0 else (-1 if pt["D"] < 0 else 0)
                if s:
                    break
            else:
                raise ArithmeticError(f"sign of log B_a - log B_b undecided at rho = {float(mid)}")
            if s == s1:
                hi = mid
            else:
                lo = mid
        out = {}
        for key, rho in (("lo", lo), ("hi", hi)):
            for p in (prec, 2 * prec, 4 * prec):
                pt = self.point(rho, prec=p, delta=2.0 ** (-(p // 2))) if rho not in (r0, r1) else self.point(rho)
                s = 1 if pt["D"] > 0 else (-1 if pt["D"] < 0 else 0)
                if s:
                    break
            pp = p if rho not in (r0, r1) else self.prec
            out[key] = {"rho": q_str(rho), "points": _point_record(pt, pp), "D": ball_str(pt["D"], int(pp / 3.32) + 6),
                        "prec": pp}
        return {"lo": out["lo"], "hi": out["hi"], "rho": [_dec(lo, self.dps + 8, down=True), _dec(hi, self.dps + 8, down=False)]}

    def end_order(self, end: str, rho_j: Fraction, K: int, K_max: int):
        """The order of the exact series at ``end``: the smallest of ``K, 2K, 4K, ..., K_max`` at
        which the exact Taylor polynomials of the two blockings differ, plus two terms (capped at
        ``K_max``); returns ``(order, {key: (_EndModel, series)})``. Raises :class:`SeriesBudgetError`
        when they agree to order ``K_max``."""
        ems = {}
        for key, m in self.models.items():
            ems[key] = _EndModel(m, end, _limit_guess(m, end, self.guess(key, rho_j)))
        k = min(K, K_max)
        while True:
            xs = {key: em.series(k) for key, em in ems.items()}
            diff = ems["a"].blocking_series(xs["a"], k) - ems["b"].blocking_series(xs["b"], k)
            if not diff.is_zero():
                lead = next(i for i, c in enumerate(diff.coeffs()) if c != 0)
                use = min(max(K, lead + 2), K_max)
                if use > k:                              # the series to order ``use`` (not a truncation)
                    xs = {key: em.series(use) for key, em in ems.items()}
                else:                                    # the Taylor polynomial of order ``use``
                    xs = {key: [_trunc(x, use) for x in v] for key, v in xs.items()}
                return use, {key: (ems[key], xs[key]) for key in ems}
            if k >= K_max:
                where = "0" if end == "zero" else "oo"
                raise SeriesBudgetError(
                    f"the exact Taylor series of the two blockings at rho -> {where} agree to order {K_max} "
                    f"(series budget K_end_max = {K_max} of symloss.meanfield.certified_generic.generic_comparison; "
                    f"pass a larger K_end_max, at most {_K_END_CAP}, to certify the sign of B_a - B_b at this end)")
            k = min(2 * k, K_max)

    def end(self, end: str, rho_j: Fraction, K: int, K_max: int | None = None, rho_guess: Fraction | None = None):
        """End piece at ``end`` joining at the load ``rho_j`` (series order chosen by
        :meth:`end_order`, the limit state found from the branch at ``rho_guess``, default
        ``rho_j``; both computed once per end)."""
        t_hi = rho_j if end == "zero" else 1 / rho_j
        if end not in self._end_pre:
            self._end_pre[end] = self.end_order(end, rho_j if rho_guess is None else rho_guess, K,
                                                K if K_max is None else K_max)
        K, pre = self._end_pre[end]
        rec = {"end": end, "rho_join": q_str(rho_j), "t_hi": q_str(t_hi), "K": K, "models": {}}
        tms = {}
        for key, m in self.models.items():
            em, xs = pre[key]
            br = end_branch(m, end, None, K, t_hi, _em=em, _xs=xs)
            tms[key] = br
            rec["models"][key] = {k: v for k, v in br.items() if not k.startswith("_")}
        D = tms["a"]["_B"] - tms["b"]["_B"]
        m_, _c = D.leading()
        if m_ is None:                                   # not reached: end_order found a difference
            raise ArithmeticError(f"the blockings agree to order {K} at rho -> {end}")
        for pieces in _PIECES + (64,):
            sr = _scaled_range(D, m_, t_hi, pieces)
            sign = 1 if sr > 0 else (-1 if sr < 0 else 0)
            if sign:
                break
        if not sign:
            raise ArithmeticError("end piece: the sign of the leading term is not certified on the whole end interval")
        rec["D"] = {"coefficients": [q_str(Fraction(int(c.p), int(c.q))) for c in D.c], "m": m_,
                    "scaled": ball_str(sr, 12), "sign": sign, "pieces": pieces}
        # link: a point box at the junction inside the end tube (x-space)
        link = {}
        for key, m in self.models.items():
            br = tms[key]
            W_st = [parse_ball(w) for w in rec["models"][key]["W"]]      # the stored boxes (as re-checked)
            ok = False
            for p in (self.prec, 2 * self.prec, 4 * self.prec):
                dl = 2.0 ** (-(p // 2))
                box, sel, _mg = point_box(m, rho_j, prec=p, y_start=self.guess(key, rho_j), delta=dl)
                mid_box = self.point(rho_j)[key]["box"]          # the middle branch's box at the junction
                with flint_prec(p):
                    box = _canon_box(box)
                    xb = [b.exp() for b in box]
                    if _in_end_slice(br["_xs"], W_st, K, t_hi, xb) and all(
                            mb.contains(b) for mb, b in zip(mid_box, box)):
                        ok = True
                        link[key] = {"center": [_exact_str(b) for b in box], "delta": [_exact_str(arb(b.rad())) for b in box],
                                     "sel": sel, "prec": p}
                        break
            if not ok:
                raise ArithmeticError(f"end piece at {end}: the junction point box is not inside the end tube")
        rec["link"] = link
        return rec, sign


def _arb_bounds(x: arb):
    """Exact rational end points ``(mid - rad, mid + rad)`` of a ball."""
    m = _arf_fraction(x)
    r = _arf_fraction(arb(x.rad()))
    return m - r, m + r


def _arf_fraction(x: arb) -> Fraction:
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man) * Fraction(2) ** exp


def _in_end_slice(xs, W, K, t_hi: Fraction, xb) -> bool:
    """Whether the balls ``xb`` lie inside the exact end-tube slice ``S(t_hi) + t_hi^(K+1) W`` (an
    exact rational box: ``S`` has rational coefficients, ``t_hi`` is rational and the balls ``W``
    have dyadic mid-points and radii), decided in exact arithmetic. (Containment in a ball
    *enclosure* of the slice, as before, is not a proof that the box lies in the slice.)"""
    tk = t_hi ** (K + 1)
    for s, w, b in zip(xs, W, xb):
        if not b.is_finite():
            return False
        c = sum((Fraction(int(q.p), int(q.q)) * t_hi ** i for i, q in enumerate(s.coeffs())), Fraction(0))
        wl, wh = _arb_bounds(w)
        bl, bh = _arb_bounds(b)
        if not (c + tk * wl <= bl and bh <= c + tk * wh):
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


def _end_slice(xs, W, K, t_hi):
    t = q_arb(t_hi)
    return [arb_poly([arb(c) for c in s.coeffs()])(t) + t ** (K + 1) * W[j] if s.coeffs() else t ** (K + 1) * W[j]
            for j, s in enumerate(xs)]


def _limit_guess(model, end, y):
    """The limit state at ``end`` from the branch at the junction: float Newton on F(x, 0) = 0."""
    ps = _PolySystem(model, end)
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


def _tube_record(e) -> dict:
    return {"center": [_exact_str(c) for c in e.center], "slope": [_exact_str(c) for c in e.slope],
            "delta": [_exact_str(c) for c in e.delta], "sel": list(e.sel), "LB": ball_str(e.log_blocking),
            "dLB": ball_str(e.dlog_blocking)}


def _point_record(pt, prec: int = _PREC) -> dict:
    digits = int(prec / 3.32) + 6
    return {k: {"center": [_exact_str(arb(b.mid())) for b in pt[k]["box"]],
                "delta": [_exact_str(arb(b.rad())) for b in pt[k]["box"]], "sel": pt[k]["sel"],
                "LB": ball_str(pt[k]["LB"], digits)} for k in ("a", "b")}


def generic_comparison(model_a, model_b, *, dps: int = 30, prec: int = _PREC, K_end: int = 12,
                       K_end_max: int = _K_END_MAX, rho_range=(Fraction(1, 8), None), t0=None):
    """The generic path (module docstring).

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        Smooth models with Laurent-polynomial rates (terms form) and polynomial blockings.
    dps : int
        Width of each crossing interval: at most ``10^-dps``.
    prec : int
        Working precision in bits of the cell tests.
    K_end : int
        Smallest order of the exact series at each end.
    K_end_max : int
        Series budget at each end: the order is raised (``K_end, 2 K_end, ...``) until the two
        blockings' exact series differ, up to ``K_end_max`` terms (at most 64).
    rho_range : (Fraction, Fraction or None)
        First junction loads of the end pieces (moved outwards when an end piece fails).

    Returns
    -------
    CertifiedComparison

    Raises
    ------
    ValueError
        When ``K_end`` or ``K_end_max`` is out of range, a model is not smooth or has several fixed
        points at a load of the tiling.
    SeriesBudgetError
        (an ``ArithmeticError``) When the two blockings agree to order ``K_end_max`` at an end.
    ArithmeticError
        When an end piece or a cell cannot be certified.
    """
    from .certified import CertifiedComparison, Crossing, _version
    t0 = time.perf_counter() if t0 is None else t0
    for name, v in (("K_end", K_end), ("K_end_max", K_end_max)):
        if isinstance(v, bool) or not isinstance(v, int) or not 2 <= v <= _K_END_CAP:
            raise ValueError(f"{name} must be an integer in [2, {_K_END_CAP}], got {v!r}")
    if K_end_max < K_end:
        raise ValueError(f"K_end_max must be >= K_end = {K_end}, got {K_end_max!r}")
    for m in (model_a, model_b):
        _check_generic_model(m)
    if len(model_a.variables) > 12 or len(model_b.variables) > 12:
        raise ValueError("the generic certified comparison handles at most 12 state variables per model")
    g = _Generic(model_a, model_b, dps, prec)
    C = max(int(getattr(model_a, "C", 1) or 1), int(getattr(model_b, "C", 1) or 1))
    default_range = Fraction(rho_range[0]) == Fraction(1, 8) and rho_range[1] is None
    rho_lo = Fraction(rho_range[0])
    rho_hi = Fraction(rho_range[1]) if rho_range[1] is not None else Fraction(2) ** ((4 * C).bit_length())
    # uniqueness at the dyadic loads of the tiling, before the search (a model with several fixed
    # points is refused here, not by a misleading failure of the search)
    uniq = {key: {} for key, m in g.models.items() if StateSpace(m).dim <= UNIQUENESS_MAX_DIM}

    def dyadic(lo, hi):
        out = [lo]
        while out[-1] < hi:
            out.append(min(out[-1] * 2, hi))
        return out
    for key in uniq:
        _uniqueness_at_loads(g.models[key], dyadic(rho_lo, rho_hi), uniq[key], key)
    def end_piece(end, candidates):
        errs = []
        for rho_j in candidates:
            try:
                return g.end(end, rho_j, K_end, K_end_max, rho_guess=rho_lo if end == "zero" else rho_hi), rho_j
            except SeriesBudgetError:
                raise                                   # moving the junction does not change the series
            except (ValueError, ArithmeticError, PrecisionError) as exc:
                errs.append((str(exc), rho_j))
        msgs = list(dict.fromkeys(e for e, _r in errs))
        where = "0" if end == "zero" else "oo"
        loads = ", ".join(q_str(r) for _e, r in errs)
        raise ArithmeticError(f"generic end piece at rho -> {where} not certified at any of the junction loads "
                              f"{loads}: " + "; ".join(msgs))
    # junction loads: from the middle of the load axis outwards (an end piece that holds further in
    # saves the cells between; one that fails costs one remainder test)
    inner = max(Fraction(1), rho_lo) if default_range else rho_lo
    zero_c = [inner / 2 ** k for k in range(64) if inner / 2 ** k >= rho_lo / 2 ** 7]
    zero, rho_j0 = end_piece("zero", zero_c)
    start_hi = max(2 * rho_j0, Fraction(2)) if default_range else rho_hi
    inf_c = [start_hi * 2 ** k for k in range(0, 64) if start_hi * 2 ** k <= rho_hi * 2 ** 7]
    inf, rho_j1 = end_piece("infinity", inf_c)
    rho_lo, rho_hi = rho_j0, rho_j1
    edges = dyadic(rho_lo, rho_hi)
    for key in uniq:
        _uniqueness_at_loads(g.models[key], edges, uniq[key], key)
    cells = _tile(g, rho_lo, rho_hi)
    pts = {}
    for c in cells:
        for r in c["rho"]:
            if r not in pts:
                pts[r] = _point_record(g.point(parse_q(r)), prec)
        if c["test"] == "crossing":
            c["refined"] = g.refine(parse_q(c["rho"][0]), parse_q(c["rho"][1]), c["sign"])
    data = {"format": FORMAT_GENERIC, "symloss_version": _version(),
            "models": {"a": _model_record(model_a), "b": _model_record(model_b)}, "dps": dps, "prec": prec,
            "assumptions": _uniqueness_assumption(g.models, uniq),
            "uniqueness": {key: {r: {k: v for k, v in rec.items()} for r, rec in uniq[key].items()} for key in uniq},
            "zero_end": zero[0], "infinity_end": inf[0], "points": pts, "cells": cells}
    data["summary"] = _summary(data)
    s = data["summary"]
    crossings = [Crossing(c["rho"][0], c["rho"][1], c["sign_after"]) for c in s["crossings"]]
    method = ("generic: parametric Krawczyk tubes with derivative enclosures on dyadic load cells, point boxes "
              "chaining the tubes, exact series with Krawczyk remainders at both compactified ends")
    return CertifiedComparison((repr(model_a), repr(model_b)), s["pieces"], crossings, s["count"], s["sign_at_0"],
                               s["sign_at_oo"], s["threshold"], method, data, time.perf_counter() - t0)


def _dyadic_below(x: Fraction, bits: int) -> Fraction:
    """``x`` rounded down to a dyadic rational with ``bits`` bits below the leading one."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    scale = Fraction(2) ** (bits - e)
    return Fraction(math.floor(x * scale)) / scale


def _why(g, rho: Fraction) -> str:
    """The reason a cell at ``rho`` stays undecided, for the error message: the certified value of
    ``D = log B_a - log B_b`` there (a value near 0 next to undecidable cells: the two blockings touch
    or nearly touch, a tangential crossing that this path does not certify)."""
    try:
        D = g.point(rho)["D"]
    except (PrecisionError, ValueError, ArithmeticError, ZeroDivisionError):
        return ""
    txt = f" (D = log B_a - log B_b = {ball_str(D, 8)} at rho = {float(rho)}"
    if abs(D) < arb(2) ** -20:
        txt += ("; the blockings touch or nearly touch here: a tangential crossing (or two crossings "
                "closer than the cells can separate) is not certified by the generic path, the sign "
                "of B_a - B_b near this load is EVIDENCE only")
    return txt + ")"


def _tile(g, rho_lo: Fraction, rho_hi: Fraction) -> list:
    """Cells tiling ``[rho_lo, rho_hi]``, each decided by :meth:`_Generic.test_cell`: step control
    on the relative width (grown by 5/4 after a decided cell, times 3/5 after an undecided one), end
    points dyadic rationals; raises ``ArithmeticError`` when a cell narrower than
    ``2^-_MAX_DEPTH`` of its load stays undecided."""
    cells = []
    x0 = rho_lo
    w = Fraction(1, 8)
    while x0 < rho_hi:
        x1 = min(_dyadic_below(x0 * (1 + w), 8 + max(0, -math.floor(math.log2(w)))), rho_hi)
        if x1 * 4 >= rho_hi * 3 and x1 < rho_hi:      # no sliver at the end
            x1 = rho_hi if rho_hi <= x0 * (1 + 2 * w) else x1
        if not x0 < x1:
            x1 = rho_hi
        try:
            cell = g.test_cell(x0, x1)
        except (PrecisionError, ValueError, ZeroDivisionError):
            cell = None
        if cell is None:
            if w < Fraction(1, 2 ** _MAX_DEPTH):
                raise ArithmeticError(f"generic cell rho in [{float(x0)}, {float(x1)}] undecided" + _why(g, x0))
            w *= Fraction(3, 5)
            continue
        cells.append(cell)
        x0 = x1
        w = min(w * Fraction(5, 4), Fraction(1))
    return cells


def _summary(data) -> dict:
    sign = data["zero_end"]["D"]["sign"]
    s0 = sign
    crossings = []
    for c in data["cells"]:
        if c["test"] == "crossing":
            crossings.append({"rho": list(c["refined"]["rho"]), "sign_after": c["sign"]})
            sign = c["sign"]
        elif c["sign"] != sign:
            raise _mismatch("adjacent pieces of opposite signs without a crossing between them")
    if data["infinity_end"]["D"]["sign"] != sign:
        raise _mismatch("the large-load sign differs from the last cell's")
    pieces = []
    lo, s = "0", s0
    for c in crossings:
        pieces.append({"rho": [lo, c["rho"][0]], "sign": s})
        lo, s = c["rho"][1], c["sign_after"]
    pieces.append({"rho": [lo, "oo"], "sign": s})
    thr = None
    if sign == -1:
        thr = {"value": "0"} if not crossings else {"rho": list(crossings[-1]["rho"])}
    return {"count": len(crossings), "crossings": crossings, "pieces": pieces, "sign_at_0": s0, "sign_at_oo": sign,
            "threshold": thr}


# ==================================================================================================
# re-check
# ==================================================================================================

def _canon_box(box):
    """The box as a certificate stores it (exact midpoint, exact radius)."""
    return [arb(b.mid(), arb(b.rad())) for b in box]


def _parse_box(rec):
    return [arb(parse_exact(c), parse_exact(d)) for c, d in zip(rec["center"], rec["delta"])]


def verify_generic(data, model_a, model_b, *, t0=None):
    """Re-check a certificate of :func:`generic_comparison` (called by
    :func:`symloss.meanfield.certified.verify_comparison` for the generic format): the models'
    fingerprints, the uniqueness records, both end pieces (exact series recomputed, remainder boxes
    re-tested, the sign of the leading term re-enclosed, the junction boxes re-certified and their
    containment decided exactly), every cell and crossing bracket, the tiling and the summary.

    Parameters
    ----------
    data : dict
        The certificate (JSON data).
    model_a, model_b : MeanFieldModel
        The models it claims to compare, in the same order.
    t0 : float, optional
        Start time (``time.perf_counter``) for the reported duration.

    Returns
    -------
    CertifiedComparison
        The result rebuilt from the verified certificate.

    Raises
    ------
    CertificateMismatch
        (a ``ValueError``) When any stored number, record or field fails its re-check.
    """
    from .certified import CertifiedComparison, Crossing
    t0 = time.perf_counter() if t0 is None else t0
    try:
        return _verify_generic(data, model_a, model_b, t0, CertifiedComparison, Crossing)
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, ArithmeticError, PrecisionError) as exc:
        from .certified import CertificateMismatch
        if isinstance(exc, CertificateMismatch):
            raise
        raise _mismatch(f"generic certificate rejected ({type(exc).__name__}: {exc})") from None


def _verify_generic(data, model_a, model_b, t0, CertifiedComparison, Crossing):
    models = {"a": model_a, "b": model_b}
    for key, m in models.items():
        rec = data["models"][key]
        _need(rec["fingerprint"] == m.fingerprint(),
              f"the certificate was made from another definition of model {key} ({rec['repr']})")
        _check_generic_model(m)
    dps, prec = int(data["dps"]), int(data["prec"])
    _need(5 <= dps <= 10000 and 64 <= prec <= 1 << 14, "parameters out of range")
    for key, recs in data.get("uniqueness", {}).items():
        m = models[key]
        for rho_s, rec in recs.items():
            _need(rec["rho"] == [str(parse_q(rho_s))] * 2, f"uniqueness record of model {key} at {rho_s}: load differs")
            status = verify_uniqueness(m, rec)
            _need(status != "NOT UNIQUE", f"model {key} has several fixed points at rho = {rho_s}")
    _need(data.get("assumptions") == _uniqueness_assumption(models, data.get("uniqueness", {})),
          "the stored uniqueness assumptions differ from the re-checked records")
    pts = data["points"]

    def check_point(rho_s, prec_p=None):
        rec = pts[rho_s] if prec_p is None else prec_p
        out = {}
        for key, m in models.items():
            r = rec[key]
            box = _parse_box(r)
            p = prec if prec_p is None else int(prec_p["prec"])
            verify_box(m, box, check_selection(m, r["sel"]), parse_q(rho_s), prec=p)
            with flint_prec(p):
                LB = m.compiled.log_blocking_arb(box, q_arb(parse_q(rho_s)).log())
            out[key] = (box, parse_ball(r["LB"]))
            _need(out[key][1].contains(LB), f"stored log-blocking at rho = {rho_s} does not enclose the recomputed one")
        with flint_prec(prec if prec_p is None else int(prec_p["prec"])):
            return out, out["a"][1] - out["b"][1]

    checked = {}
    # ends
    for name, end in (("zero_end", "zero"), ("infinity_end", "infinity")):
        rec = data[name]
        _need(rec["end"] == end, "end piece label differs")
        K = int(rec["K"])
        t_hi = parse_q(rec["t_hi"])
        rho_j = parse_q(rec["rho_join"])
        _need(t_hi == (rho_j if end == "zero" else 1 / rho_j) and 2 <= K <= _K_END_CAP,
              "end piece parameters differ")
        Bs = {}
        for key, m in models.items():
            mr = rec["models"][key]
            x0 = [parse_q(v) for v in mr["x0"]]
            em = _EndModel(m, end, [float(v) for v in x0])
            _need([q_str(Fraction(int(v.p), int(v.q))) for v in em.x0] == mr["x0"], "limit state differs")
            xs = em.series(K)
            _need([[q_str(Fraction(int(c.p), int(c.q))) for c in s.coeffs()] for s in xs] == mr["series"],
                  f"stored exact series of model {key} at {end} differs from the recomputed one")
            W = [parse_ball(w) for w in mr["W"]]
            with flint_prec(prec):
                em.remainder(xs, K, t_hi, W=W, pieces=_pieces(mr.get("pieces", 1)))
                B, _c = em.blocking_tm(xs, W, K, t_hi)
            Bs[key] = (B, xs, W)
            # link
            lk = rec["link"][key]
            box = _parse_box(lk)
            verify_box(m, box, check_selection(m, lk["sel"]), rho_j, prec=int(lk["prec"]))
            with flint_prec(int(lk["prec"])):
                _need(_in_end_slice(xs, W, K, t_hi, [b.exp() for b in box]),
                      "junction point box is not inside the end tube")
            # the junction box lies in the middle branch's point box at the junction load (same branch)
            mid = _parse_box(pts[rec["rho_join"]][key])
            _need(all(mb.contains(b) for mb, b in zip(mid, box)),
                  "junction point box is not inside the middle branch's box at the junction load")
        with flint_prec(prec):
            D = Bs["a"][0] - Bs["b"][0]
            _need([q_str(Fraction(int(c.p), int(c.q))) for c in D.c] == rec["D"]["coefficients"],
                  "stored coefficients of the blocking difference differ")
            m_, _cm = D.leading()
            _need(m_ == int(rec["D"]["m"]), "leading order differs")
            sr = _scaled_range(D, m_, t_hi, _pieces(rec["D"].get("pieces", 1)))
            sb = parse_ball(rec["D"]["scaled"])
            _need(sb.contains(sr), "stored scaled range does not enclose the recomputed one")
            s = rec["D"]["sign"]
            _need((sb > 0 and s == 1) or (sb < 0 and s == -1), "end sign not certified")
    # tiling
    prev = parse_q(data["zero_end"]["rho_join"])
    for i, c in enumerate(data["cells"]):
        r0, r1 = parse_q(c["rho"][0]), parse_q(c["rho"][1])
        _need(r0 == prev and r1 > r0, f"cell {i} does not continue the tiling")
        prev = r1
        for r in c["rho"]:
            if r not in checked:
                checked[r] = check_point(r)
        (P0, D0), (P1, D1) = checked[c["rho"][0]], checked[c["rho"][1]]
        tubes = {}
        with flint_prec(prec):
            R = q_arb(r0).log().union(q_arb(r1).log())
            for key, m in models.items():
                tr = c["tubes"][key]
                cen = [parse_exact(v) for v in tr["center"]]
                slo = [parse_exact(v) for v in tr["slope"]]
                dl = [parse_exact(v) for v in tr["delta"]]
                sel = check_selection(m, tr["sel"])
                verify_tube(m, cen, slo, dl, sel, r0, r1, prec=prec)
                rm = arb(R.mid())
                W = R - rm
                hull = [cen[j] + slo[j] * W + arb(0, dl[j]) for j in range(len(cen))]
                for rr, P in ((r0, P0), (r1, P1)):
                    lr = q_arb(rr).log()
                    slc = [cen[j] + slo[j] * (lr - rm) + arb(0, dl[j]) for j in range(len(cen))]
                    _need(all(s_.contains(b) for s_, b in zip(slc, P[key][0])), f"cell {i}: point box not inside the tube")
                LB = m.compiled.log_blocking_arb(hull, R)
                _V, dLB = box_derivative(m, hull, sel, R)
                _need(parse_ball(tr["LB"]).contains(LB) and parse_ball(tr["dLB"]).contains(dLB),
                      f"cell {i}: stored tube enclosures do not enclose the recomputed ones")
                tubes[key] = (parse_ball(tr["LB"]), parse_ball(tr["dLB"]))
            test, s = c["test"], c["sign"]
            _need(s in (1, -1), f"cell {i}: bad sign")
            L = q_arb(r1).log() - q_arb(r0).log()
            dD = tubes["a"][1] - tubes["b"][1]
            if test == "interval":
                v = tubes["a"][0] - tubes["b"][0]
            elif test == "mean":
                v = D0 + dD * arb(0).union(L) if c["side"] == "left" else D1 - dD * arb(0).union(L)
            elif test == "crossing":
                _need((D0 < 0 if s == 1 else D0 > 0) and (D1 > 0 if s == 1 else D1 < 0), f"cell {i}: no sign change")
                _need(dD > 0 or dD < 0, f"cell {i}: derivative not of one sign")
                ref = c["refined"]
                lo, hi = parse_q(ref["lo"]["rho"]), parse_q(ref["hi"]["rho"])
                _need(r0 <= lo < hi <= r1, f"cell {i}: refined bracket outside the cell")
                for key2, want in (("lo", -s), ("hi", s)):
                    pr = ref[key2]
                    rs = pr["rho"]
                    rec_p = dict(pr["points"], prec=pr["prec"])
                    _out, Dv = check_point(rs, rec_p)
                    _need((Dv > 0 if want == 1 else Dv < 0), f"cell {i}: refined end point sign not certified")
                rl, rh = Fraction(ref["rho"][0]), Fraction(ref["rho"][1])
                _need(rl <= lo and hi <= rh and rh - rl <= Fraction(1, 10 ** dps), f"cell {i}: crossing interval too wide")
                continue
            else:
                raise _mismatch(f"cell {i}: unknown test {test!r}")
            _need((v > 0) if s == 1 else (v < 0), f"cell {i}: the stored enclosures do not give the stored sign")
    _need(prev == parse_q(data["infinity_end"]["rho_join"]), "the cells do not reach the large-load end piece")
    summary = _summary(data)
    _need(summary == data["summary"], "stored summary differs from the recomputed one")
    crossings = [Crossing(c["rho"][0], c["rho"][1], c["sign_after"]) for c in summary["crossings"]]
    return CertifiedComparison((repr(model_a), repr(model_b)), summary["pieces"], crossings, summary["count"],
                               summary["sign_at_0"], summary["sign_at_oo"], summary["threshold"], "generic (re-checked)",
                               data, time.perf_counter() - t0)
