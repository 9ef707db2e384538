r"""The generic path of :func:`symloss.meanfield.certified.certified_comparison`: any two smooth
mean-field models (user definitions included), from their own stationary equations only.

Middle loads :math:`[\rho_{lo}, \rho_{hi}]`
--------------------------------------------
Dyadic cells of loads. On each cell, for each model, a certified tube around its fixed-point branch
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
one (each box holds exactly one zero, so the three branches meet in one solution).

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

__all__ = ["FORMAT_GENERIC", "end_branch", "generic_comparison", "verify_generic"]

FORMAT_GENERIC = "symloss.comparison/generic/1"
_PREC = 128
_MAX_DEPTH = 22
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
                    p = arb(c) * T ** te
                    for xk, a in zip(X, ex):
                        if a:
                            p *= xk ** a
                    v += p
                M[i, j] = v
        return M


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

    def remainder(self, xs, K, t_hi: Fraction, W=None):
        """Krawczyk box ``W`` for ``x = S(t) + t^(K+1) w`` on ``t in [0, t_hi]`` (or check a given
        ``W``); returns ``(W, margin)`` or raises ``ValueError``."""
        n = self.ps.n
        T = arb(0).union(q_arb(t_hi))
        Fex = self.ps.series_values(xs, None)
        R = []
        for f in Fex:
            cs = f.coeffs()
            if any(c != 0 for c in cs[:K + 1]):
                raise ArithmeticError("F(S(t), t) is not divisible by t^(K+1)")
            R.append(arb_poly([arb(c) for c in cs[K + 1:]])(T) if len(cs) > K + 1 else arb(0))
        ST = [arb_poly([arb(c) for c in s.coeffs()])(T) if s.coeffs() else arb(0) for s in xs]
        eps = T ** (K + 1)
        Y = _float_inverse(arb_mat([[arb(float(self._j0(i, j))) for j in range(n)] for i in range(n)]))
        if Y is None:
            raise ValueError("singular end-point Jacobian")
        I = arb_mat([[arb(1) if i == j else arb(0) for j in range(n)] for i in range(n)])
        YR = Y * arb_mat([[r] for r in R])
        given = W is not None
        if W is None:
            W = [arb(0, (2 * abs(YR[i, 0]).upper() + arb(2) ** -100).upper()) for i in range(n)]
        for _ in range(1 if given else 12):
            X = [ST[i] + eps * W[i] for i in range(n)]
            Hw = self.ps.jac_arb(X, T)
            K_ = -YR + (I - Y * Hw) * arb_mat([[w] for w in W])
            ok = all(abs(K_[i, 0]) < W[i].rad() for i in range(n))
            if ok:
                margin = max(float((abs(K_[i, 0]).upper() / W[i].rad()).mid()) for i in range(n))
                return W, margin
            if given:
                break
            # epsilon inflation component by component: a component that already contracts keeps its
            # radius (doubling every component keeps a coupled component's ratio K_i / W_i fixed:
            # RandomRouting(2) never contracted at either end)
            W = [arb(0, max(W[i].rad() * (1 if abs(K_[i, 0]) < W[i].rad() else 2),
                            (abs(K_[i, 0]).upper() * arb(1.5)).upper()).upper()) for i in range(n)]
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


def end_branch(model, end: str, x_guess, K: int, t_hi: Fraction):
    """Exact series (order ``K``) and certified remainder box of ``model``'s branch at ``end``;
    returns a dict with the data a certificate stores (and the Taylor models)."""
    em = _EndModel(model, end, x_guess)
    xs = em.series(K)
    W, margin = em.remainder(xs, K, t_hi)
    B, _comps = em.blocking_tm(xs, W, K, t_hi)
    return {"x0": [q_str(Fraction(int(v.p), int(v.q))) for v in em.x0],
            "series": [[q_str(Fraction(int(c.p), int(c.q))) for c in s.coeffs()] for s in xs],
            "W": [ball_str(w, 12) for w in W], "margin": margin, "_B": B, "_em": em, "_xs": xs, "_W": W}


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

    def guess(self, key, rho: Fraction):
        k = (key, rho)
        if k not in self._guess:
            self._guess[k] = start_point(self.models[key], rho)
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
        for key, m in self.models.items():
            rm = (r0 + r1) / 2
            tubes[key] = enclose_interval(m, r0, r1, prec=prec, y_mid=self.guess(key, rm))
        p0, p1 = self.point(r0), self.point(r1)
        with flint_prec(prec):
            for key in ("a", "b"):
                e = tubes[key]
                if not (self._inside(p0[key]["box"], e.slice(r0)) and self._inside(p1[key]["box"], e.slice(r1))):
                    return None
            LBd = tubes["a"].log_blocking - tubes["b"].log_blocking
            dD = tubes["a"].dlog_blocking - tubes["b"].dlog_blocking
            L = q_arb(r1).log() - q_arb(r0).log()
            base = {"rho": [q_str(r0), q_str(r1)], "tubes": {k: _tube_record(t) for k, t in tubes.items()}}
            if LBd > 0 or LBd < 0:
                return dict(base, test="interval", sign=1 if LBd > 0 else -1, D=ball_str(LBd))
            from_left = p0["D"] + dD * arb(0).union(L)
            from_right = p1["D"] - dD * arb(0).union(L)
            for name, v in (("left", from_left), ("right", from_right)):
                if v > 0 or v < 0:
                    return dict(base, test="mean", sign=1 if v > 0 else -1, side=name, dD=ball_str(dD),
                                Dend=ball_str(p0["D"] if name == "left" else p1["D"]))
            s0 = 1 if p0["D"] > 0 else (-1 if p0["D"] < 0 else 0)
            s1 = 1 if p1["D"] > 0 else (-1 if p1["D"] < 0 else 0)
            if s0 and s1 and s0 != s1 and (dD > 0 or dD < 0):
                return dict(base, test="crossing", sign=s1, dD=ball_str(dD),
                            ends=[ball_str(p0["D"]), ball_str(p1["D"])])
        return None

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

    def end(self, end: str, rho_j: Fraction, K: int):
        """End piece at ``end`` joining at the load ``rho_j``."""
        t_hi = rho_j if end == "zero" else 1 / rho_j
        rec = {"end": end, "rho_join": q_str(rho_j), "t_hi": q_str(t_hi), "K": K, "models": {}}
        tms = {}
        for key, m in self.models.items():
            y = self.guess(key, rho_j)
            x_guess = _limit_guess(m, end, y)
            br = end_branch(m, end, x_guess, K, t_hi)
            tms[key] = br
            rec["models"][key] = {k: v for k, v in br.items() if not k.startswith("_")}
        D = tms["a"]["_B"] - tms["b"]["_B"]
        m_, _c = D.leading()
        if m_ is None:
            raise ArithmeticError(f"the blockings agree to order {K} at rho -> {end}")
        sr = D.scaled_range(m_)
        sign = 1 if sr > 0 else (-1 if sr < 0 else 0)
        if not sign:
            raise ArithmeticError("end piece: the sign of the leading term is not certified on the whole end interval")
        rec["D"] = {"coefficients": [q_str(Fraction(int(c.p), int(c.q))) for c in D.c], "m": m_,
                    "scaled": ball_str(sr, 12), "sign": sign}
        # link: a point box at the junction inside the end tube (x-space)
        link = {}
        for key, m in self.models.items():
            br = tms[key]
            Xe = _end_slice(br["_xs"], br["_W"], K, t_hi)
            ok = False
            for p in (self.prec, 2 * self.prec, 4 * self.prec):
                dl = 2.0 ** (-(p // 2))
                box, sel, _mg = point_box(m, rho_j, prec=p, y_start=self.guess(key, rho_j), delta=dl)
                mid_box = self.point(rho_j)[key]["box"]          # the middle branch's box at the junction
                with flint_prec(p):
                    box = _canon_box(box)
                    xb = [b.exp() for b in box]
                    if all(x.contains(v) for x, v in zip(Xe, xb)) and all(
                            mb.contains(b) for mb, b in zip(mid_box, box)):
                        ok = True
                        link[key] = {"center": [_exact_str(b) for b in box], "delta": [_exact_str(arb(b.rad())) for b in box],
                                     "sel": sel, "prec": p}
                        break
            if not ok:
                raise ArithmeticError(f"end piece at {end}: the junction point box is not inside the end tube")
        rec["link"] = link
        return rec, sign


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
                       rho_range=(Fraction(1, 8), None), t0=None):
    """The generic path (module docstring); returns a
    :class:`~symloss.meanfield.certified.CertifiedComparison`."""
    from .certified import CertifiedComparison, Crossing, _version
    t0 = time.perf_counter() if t0 is None else t0
    for m in (model_a, model_b):
        _check_generic_model(m)
    if len(model_a.variables) > 12 or len(model_b.variables) > 12:
        raise ValueError("the generic certified comparison handles at most 12 state variables per model")
    g = _Generic(model_a, model_b, dps, prec)
    C = max(int(getattr(model_a, "C", 1) or 1), int(getattr(model_b, "C", 1) or 1))
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
    zero = inf = None
    errs = []
    for _ in range(8):
        try:
            zero = g.end("zero", rho_lo, K_end)
            break
        except (ValueError, ArithmeticError, PrecisionError) as exc:
            errs.append(str(exc))
            rho_lo /= 2
    for _ in range(8):
        try:
            inf = g.end("infinity", rho_hi, K_end)
            break
        except (ValueError, ArithmeticError, PrecisionError) as exc:
            errs.append(str(exc))
            rho_hi *= 2
    if zero is None or inf is None:
        raise ArithmeticError("generic end piece not certified: " + "; ".join(errs[-2:]))
    edges = dyadic(rho_lo, rho_hi)
    for key in uniq:
        _uniqueness_at_loads(g.models[key], edges, uniq[key], key)
    stack = [(edges[i], edges[i + 1], 0) for i in range(len(edges) - 1)][::-1]
    cells = []
    while stack:
        x0, x1, depth = stack.pop()
        try:
            cell = g.test_cell(x0, x1)
        except (PrecisionError, ValueError, ZeroDivisionError):
            cell = None
        if cell is None:
            if depth >= _MAX_DEPTH:
                raise ArithmeticError(f"generic cell rho in [{float(x0)}, {float(x1)}] undecided")
            m = (x0 + x1) / 2
            stack.append((m, x1, depth + 1))
            stack.append((x0, m, depth + 1))
            continue
        cells.append(cell)
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
        _need(t_hi == (rho_j if end == "zero" else 1 / rho_j) and 2 <= K <= 64, "end piece parameters differ")
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
                em.remainder(xs, K, t_hi, W=W)
                B, _c = em.blocking_tm(xs, W, K, t_hi)
            Bs[key] = (B, xs, W)
            # link
            lk = rec["link"][key]
            box = _parse_box(lk)
            verify_box(m, box, check_selection(m, lk["sel"]), rho_j, prec=int(lk["prec"]))
            with flint_prec(int(lk["prec"])):
                Xe = _end_slice(xs, W, K, t_hi)
                _need(all(x.contains(b.exp()) for x, b in zip(Xe, box)), "junction point box is not inside the end tube")
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
            sr = D.scaled_range(m_)
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
