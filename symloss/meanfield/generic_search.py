r"""The search of the generic certified comparison (:mod:`symloss.meanfield.certified_generic`):
``_Generic`` holds the two models, their float guesses, the certified point boxes and tubes of the
middle cells, the crossing refinement and the end pieces (:mod:`symloss.meanfield.generic_ends`).
"""
from __future__ import annotations

import bisect
import math
from fractions import Fraction

import numpy as np
from flint import arb

from ..core.certify import (
    _continue,
    enclose_interval,
    parse_exact,
    point_box,
    start_point,
)
from ..core.precision import flint_prec
from .ball_text import stored_sign
from .enclosures import _dec, ball_str, parse_ball, q_arb, q_str
from .generic_ends import (
    _K_END_CAP,
    _PIECES,
    _PREC,
    SeriesBudgetError,
    _EndModel,
    _exact_str,
    _in_end_slice,
    _limit_guess,
    _scaled_range,
    _trunc,
    end_branch,
)


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
            scaled, sign = stored_sign(sr, 12)       # decided on the stored ball, as the re-check does
            if sign:
                break
        if not sign:
            raise ArithmeticError("end piece: the sign of the leading term is not certified on the whole end interval")
        rec["D"] = {"coefficients": [q_str(Fraction(int(c.p), int(c.q))) for c in D.c], "m": m_,
                    "scaled": scaled, "sign": sign, "pieces": pieces}
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



def _tube_record(e) -> dict:
    return {"center": [_exact_str(c) for c in e.center], "slope": [_exact_str(c) for c in e.slope],
            "delta": [_exact_str(c) for c in e.delta], "sel": list(e.sel), "LB": ball_str(e.log_blocking),
            "dLB": ball_str(e.dlog_blocking)}


def _point_record(pt, prec: int = _PREC) -> dict:
    digits = int(prec / 3.32) + 6
    return {k: {"center": [_exact_str(arb(b.mid())) for b in pt[k]["box"]],
                "delta": [_exact_str(arb(b.rad())) for b in pt[k]["box"]], "sel": pt[k]["sel"],
                "LB": ball_str(pt[k]["LB"], digits)} for k in ("a", "b")}


def _canon_box(box):
    """The box as a certificate stores it (exact midpoint, exact radius)."""
    return [arb(b.mid(), arb(b.rad())) for b in box]


def _parse_box(rec):
    return [arb(parse_exact(c), parse_exact(d)) for c, d in zip(rec["center"], rec["delta"])]


