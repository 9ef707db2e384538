r"""The search of the generic certified comparison (:mod:`symloss.meanfield.certified_generic`):
``_Generic`` holds the two models, their float guesses, the certified point boxes and tubes of the
middle cells, the crossing refinement and the end pieces (:mod:`symloss.meanfield.generic_ends`).
A cell's tube whose tangent has a component above ``_RESCALE_SLOPE`` is built in the rescaled
coordinates of :mod:`symloss.meanfield.generic_rescaled` (stored as ``rescale`` in the tube record).
"""
from __future__ import annotations

import bisect
import math
from fractions import Fraction

import numpy as np
from flint import arb, arb_mat

from ..core.certify import (
    _continue,
    box_derivative,
    check_selection,
    parse_exact,
    point_box,
    start_point,
)
from ..core.krawczyk import _float_inverse, _newton_arb
from ..core.precision import PrecisionError, flint_prec
from .ball_text import stored_sign
from .enclosures import _dec, ball_str, parse_ball, q_arb, q_str
from .generic_ends import (
    _K_END_CAP,
    _PIECES,
    _PREC,
    SeriesBudgetError,
    _end_model,
    _exact_str,
    _in_end_slice,
    _scaled_range,
    _trunc,
    _blocking_difference_series,
    _blocking_difference_tm,
    end_branch,
)
from .generic_rescaled import RescaledModel, choose_rescaling, parse_rescaling


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
            tubes[key] = _split_tube(m, r0, r1, prec=prec, y_mid=y_mid)
        p0, p1 = self.point(r0), self.point(r1)
        with flint_prec(prec):
            for key in ("a", "b"):
                e = tubes[key]
                if not (e.contains(r0, p0[key]["box"]) and e.contains(r1, p1[key]["box"])):
                    return None
            # decide from the numbers as stored (outward-rounded text, parsed back), exactly as
            # :func:`verify_generic` re-derives the sign: a margin lost in the rounding of the
            # stored text makes the cell undecided here, not a certificate its re-check refuses
            trec = {k: _tube_record(t, False) for k, t in tubes.items()}
            base = {"rho": [q_str(r0), q_str(r1)], "tubes": trec}
            LBd = parse_ball(trec["a"]["LB"]) - parse_ball(trec["b"]["LB"])
            if LBd > 0 or LBd < 0:                     # no derivative needed
                return dict(base, test="interval", sign=1 if LBd > 0 else -1, D=ball_str(LBd))
            try:
                trec = {k: _tube_record(t, True) for k, t in tubes.items()}
            except ValueError:
                return None
            base = {"rho": [q_str(r0), q_str(r1)], "tubes": trec}
            dD = parse_ball(trec["a"]["dLB"]) - parse_ball(trec["b"]["dLB"])
            D0, D1 = (self._stored_D(p) for p in (p0, p1))
            L = q_arb(r1).log() - q_arb(r0).log()
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
        which the exact Taylor polynomials of the two blockings differ (beyond their common leading
        power of ``t``: the states are rescaled by their valuations, :func:`_end_model`), plus two
        terms (capped at ``K_max``); returns ``(order, {key: (_EndModel, series)})``. Raises
        :class:`SeriesBudgetError` when they agree to order ``K_max``."""
        ems = {}
        for key, m in self.models.items():
            ems[key] = _end_model(m, end, self.guess(key, rho_j), rho_j)
        k = min(K, K_max)
        while True:
            xs = {key: em.series(k) for key, em in ems.items()}
            diff, mn = _blocking_difference_series(ems, xs, k)
            if not diff.is_zero():
                lead = next(i for i, c in enumerate(diff.coeffs()) if c != 0)
                use = min(max(K, lead + 2), K_max)
                if use > k:                              # the series to order ``use`` (not a truncation)
                    xs = {key: em.series(use) for key, em in ems.items()}
                else:                                    # the Taylor polynomial of order ``use``
                    xs = {key: [_trunc(x, use) for x in v] for key, v in xs.items()}
                return use, {key: (ems[key], xs[key]) for key in ems}
            if k >= K_max:
                where, var = ("0", "rho") if end == "zero" else ("oo", "1/rho")
                beyond = (f"; counted beyond the blockings' common leading power ({var})^{mn}, the states rescaled "
                          f"by their valuations a: {ems['a'].valuations}, b: {ems['b'].valuations}") if mn else ""
                raise SeriesBudgetError(
                    f"the exact Taylor series of the two blockings at rho -> {where} agree to order {K_max} "
                    f"(series budget K_end_max = {K_max} of symloss.meanfield.certified_generic.generic_comparison"
                    f"{beyond}; pass a larger K_end_max, at most {_K_END_CAP}, to certify the sign of B_a - B_b "
                    "at this end)")
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
        D, scale = _blocking_difference_tm(tms["a"]["_B"], tms["a"]["scale"], tms["b"]["_B"], tms["b"]["scale"])
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
        rec["D"] = {"coefficients": [q_str(Fraction(int(c.p), int(c.q))) for c in D.c], "scale": scale, "m": m_,
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
                    if _in_end_slice(br["_xs"], W_st, K, t_hi, xb, br["valuations"]) and all(
                            mb.contains(b) for mb, b in zip(mid_box, box)):
                        ok = True
                        link[key] = {"center": [_exact_str(b) for b in box], "delta": [_exact_str(arb(b.rad())) for b in box],
                                     "sel": sel, "prec": p}
                        break
            if not ok:
                raise ArithmeticError(f"end piece at {end}: the junction point box is not inside the end tube")
        rec["link"] = link
        return rec, sign



#: Numbers of equal sub-balls of the log-load interval on which a cell's tube test evaluates the
#: residual and the Jacobian (tried in this order); the count is stored and re-checked.
_SPLITS = (8, 32)
#: A cell's tube is built in rescaled coordinates (:mod:`~symloss.meanfield.generic_rescaled`) when a
#: component of ``dy/d log rho`` at its middle is at least this large in absolute value.
_RESCALE_SLOPE = 4.0


def _sub_balls(R: arb, s: int) -> list:
    lo, hi = arb(R.lower()), arb(R.upper())
    pts = [lo + (hi - lo) * arb(j) / s for j in range(s + 1)]
    return [pts[j].union(pts[j + 1]) for j in range(s)]


def _split_tube_test(comp, c, t, delta, R: arb, sel, s: int, Y=None, parts=None):
    r"""Krawczyk test of the tube ``c + t (r - r_m) + [-delta, delta]`` over the ball ``R`` of
    ``r = log rho`` on ``s`` equal sub-balls ``R_j`` (the sloped test of
    :func:`symloss.core.boxes.enclose_interval`, evaluated piece by piece): on ``R_j`` with centre
    ``r_j``, the residual of the tube's centre line is enclosed by the mean-value form around ``r_j``,
    :math:`G(c + t(r_j - r_m), r_j) + (G_y t + G_r)(\mathrm{seg}_j, R_j)(R_j - r_j)`, and the Jacobian
    on the hull of the tube over ``R_j``; ``K_j = -Y G0_j + (I - Y J_j) Z``. Every ``|K_j|`` below
    ``delta``: for every load of every ``R_j`` the tube's cross-section holds exactly one zero. One
    preconditioner ``Y`` for all pieces. Returns ``(ok, dev, Y, [(R_j, hull_j)])``.

    ``parts``: a dict kept by the caller across calls with the same ``c``, ``t``, ``R``, ``sel``, ``s``
    and precision (the epsilon inflation of ``delta``): the sub-balls, their centre-line residuals
    ``G0_j`` and segments, which do not depend on ``delta``, are computed once (the same balls)."""
    n = comp.n
    rm = arb(R.mid())
    if Y is None:
        _gm, Jm, _ = comp.GJ_arb(c, rm, sel)
        Y = _float_inverse(Jm)
        if Y is None:
            return False, None, None, []
    tv = arb_mat([[ti] for ti in t])
    I = arb_mat([[arb(1) if i == j else arb(0) for j in range(n)] for i in range(n)])
    Z = arb_mat([[arb(0, delta[i])] for i in range(n)])
    dev = [arb(0)] * n
    hulls = []
    pieces = None if parts is None else parts.get("pieces")
    if pieces is None:
        pieces = []
        for Rj in _sub_balls(R, s):
            rj = arb(Rj.mid())
            Wj = Rj - rj
            Gj = comp.G_arb([c[i] + t[i] * (rj - rm) for i in range(n)], rj, sel)
            segj = [c[i] + t[i] * (Rj - rm) for i in range(n)]
            _g, Jsj, drj = comp.GJ_arb(segj, Rj, sel)
            Srj = Jsj * tv
            pieces.append((Rj, segj, arb_mat([[Gj[i] + (Srj[i, 0] + drj[i]) * Wj] for i in range(n)])))
        if parts is not None:
            parts["pieces"] = pieces
    for Rj, segj, G0j in pieces:
        hull = [segj[i] + arb(0, delta[i]) for i in range(n)]
        hulls.append((Rj, hull))
        _g2, Jh, _dr2 = comp.GJ_arb(hull, Rj, sel)
        K = -(Y * G0j) + (I - Y * Jh) * Z
        for i in range(n):
            a = abs(K[i, 0])
            dev[i] = a if not a.is_finite() or not dev[i].is_finite() else arb(max(dev[i].upper(), a.upper()))
    ok = all(dev[i].is_finite() and dev[i] < delta[i] for i in range(n))
    return ok, dev, Y, hulls


class _Tube:
    """A certified tube of one cell (``_split_tube_test``) with its enclosures of ``log B`` and,
    computed on demand (:meth:`derivative`), of ``d log B / d log rho``."""

    def __init__(self, model, c, t, delta, sel, s, hulls, R, prec, rescale=None):
        self.model, self.center, self.slope, self.delta, self.sel, self.splits = model, c, t, delta, sel, s
        self.hulls, self.R, self.prec = hulls, R, prec
        # ``rescale``: a :class:`~symloss.meanfield.generic_rescaled.RescaledModel` when the tube is in
        # ``w = y - e log rho`` (``model`` is then that rescaled view), else ``None``
        self.rescale = rescale
        comp = model.compiled
        LB = None
        for Rj, h in hulls:
            v = comp.log_blocking_arb(h, Rj)
            LB = v if LB is None else LB.union(v)
        self.log_blocking = LB
        self._dlb = None

    def derivative(self):
        """``d log B / d log rho`` on the tube (the union over its sub-balls of
        :func:`symloss.core.certify.box_derivative`); raises ``ValueError`` when a contraction fails."""
        if self._dlb is None:
            with flint_prec(self.prec):
                out = None
                for Rj, h in self.hulls:
                    _V, d = box_derivative(self.model, h, self.sel, Rj)
                    out = d if out is None else out.union(d)
            self._dlb = out
        return self._dlb

    def slice(self, rho: Fraction) -> list:
        rm = arb(self.R.mid())
        lr = q_arb(rho).log()
        return [self.center[j] + self.slope[j] * (lr - rm) + arb(0, self.delta[j]) for j in range(len(self.center))]

    def contains(self, rho: Fraction, box) -> bool:
        """The point box ``box`` (in ``y = log x``) at the load ``rho`` lies in the tube's slice there
        (for a rescaled tube: its image ``v = L y + b log rho``, enclosed in ball arithmetic)."""
        if self.rescale is not None:
            box = self.rescale.to_v(box, q_arb(rho).log())
        return all(s.contains(b) for b, s in zip(box, self.slice(rho)))


def _split_tube(model, r0: Fraction, r1: Fraction, *, prec: int, y_mid, max_inflations: int = 10, splits=_SPLITS,
                rescaled: bool = True):
    """A certified tube over ``[r0, r1]`` (Newton centre and tangent at the middle of the log-load
    interval, radii grown by epsilon inflation), tested by ``_split_tube_test`` with the first
    number of sub-balls in ``splits`` that passes. When a component of the tangent exceeds
    ``_RESCALE_SLOPE`` in absolute value (and ``rescaled``), the tube is built in the rescaled
    coordinates of :mod:`~symloss.meanfield.generic_rescaled`. Raises ``PrecisionError`` when no
    test passes."""
    comp = model.compiled
    n = comp.n
    with flint_prec(prec):
        R = q_arb(r0).log().union(q_arb(r1).log())
        r_mid = arb(R.mid())
        y_fl = [float(v.mid()) if isinstance(v, arb) else float(v) for v in y_mid]
        sel = check_selection(model, comp.selection([max(v, -700.0) for v in y_fl]))
        c, _ = _newton_arb(comp, y_mid, r_mid, prec, sel)
        c = [arb(ci.mid()) for ci in c]
        _g, Jm, dr = comp.GJ_arb(c, r_mid, sel)
        try:
            tt = Jm.mid().solve(arb_mat([[-d.mid()] for d in dr]))
        except (ZeroDivisionError, ValueError):
            raise PrecisionError("singular Jacobian at the middle of the load interval") from None
        t = [arb(tt[i, 0].mid()) for i in range(n)]
        rescale, tcomp = None, comp
        if rescaled and max(abs(float(v)) for v in t) >= _RESCALE_SLOPE:
            # the tube in w = y - e r (module generic_rescaled): e the rounded tangent
            L, b, mrow = choose_rescaling(comp, [float(v) for v in c], float(r_mid), [float(v) for v in t], sel)
            rescale = RescaledModel(model, L, b, mrow)
            tcomp = rescale.compiled
            c = [arb(v.mid()) for v in rescale.to_v(c, r_mid)]
            t = [arb(v.mid()) for v in rescale.to_v(t, arb(1))]
        comp = tcomp
        w = R.rad()
        delta0 = [arb((w * w * (1 + abs(t[i])) + arb(2) ** (-(prec - 40)) * (1 + abs(c[i]))).upper())
                  for i in range(n)]
        for k, s in enumerate(splits):
            delta, Y, parts = list(delta0), None, {}
            # the coarse test gets a few inflations only (a tube it cannot find is left to the finer one)
            for _ in range(max_inflations if k == len(splits) - 1 else max(1, max_inflations // 2)):
                ok, dev, Y, hulls = _split_tube_test(comp, c, t, delta, R, sel, s, Y, parts)
                if ok:
                    return _Tube(rescale or model, c, t, delta, sel, s, hulls, R, prec, rescale)
                if dev is None:
                    break
                delta = [arb(max(delta[i] * 2, (dev[i].upper() if dev[i].is_finite() else delta[i] * 8) * arb(1.5)).upper())
                         for i in range(n)]
                if any(not d_.is_finite() or d_ > 50 for d_ in delta):
                    break
    raise PrecisionError(f"{model!r}: no Krawczyk tube on [{r0}, {r1}] with {' or '.join(map(str, _SPLITS))} "
                         "sub-intervals; bisect the interval")


def _verify_split_tube(model, center, slope, delta, sel, r0: Fraction, r1: Fraction, s: int, *, prec: int,
                       rescale=None):
    """Re-check a stored tube: ``_split_tube_test`` with the stored data, recomputed from the
    model's compiled equations (for a stored ``rescale`` record ``{"e", "m"}``: the rescaled system
    rebuilt from them, :mod:`~symloss.meanfield.generic_rescaled`); returns the :class:`_Tube` (its
    enclosures recomputed) or raises ``ValueError``."""
    resc = None
    if rescale is not None:
        L, b, mrow = parse_rescaling(rescale, model.compiled)
        resc = RescaledModel(model, L, b, mrow)
    comp = (resc or model).compiled
    n = comp.n
    if not (len(center) == len(slope) == len(delta) == n):
        raise ValueError(f"the tube must have {n} components")
    if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= 256:
        raise ValueError(f"bad number of sub-intervals {s!r}")
    with flint_prec(prec):
        if any(not (d_ > 0) for d_ in delta):
            raise ValueError("a tube radius is not positive")
        R = q_arb(r0).log().union(q_arb(r1).log())
        ok, _dev, _Y, hulls = _split_tube_test(comp, list(center), list(slope), list(delta), R, sel, s)
        if not ok:
            raise ValueError("the Krawczyk operator does not map the stored tube into its interior")
        return _Tube(resc or model, list(center), list(slope), list(delta), sel, s, hulls, R, prec, resc)




def _tube_record(e, with_derivative: bool) -> dict:
    out = {"center": [_exact_str(c) for c in e.center], "slope": [_exact_str(c) for c in e.slope],
           "delta": [_exact_str(c) for c in e.delta], "sel": list(e.sel), "splits": e.splits,
           "LB": ball_str(e.log_blocking)}
    if e.rescale is not None:
        out["rescale"] = e.rescale.record()
    if with_derivative:
        out["dLB"] = ball_str(e.derivative())
    return out


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


