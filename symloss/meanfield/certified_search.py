r"""The fast path of :func:`symloss.meanfield.certified.certified_comparison` (retrial-of-:math:`\tilde d`
against power-of-:math:`d`): the branch and bound over dyadic cells of the retrial per-server load
``a`` (``_Search``), the end-piece records, the sign summary, the lemmas, the binding of the two
models and the result built from a certificate's data. The re-check is
:mod:`symloss.meanfield.certified_recheck`.
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction

from flint import arb, arb_series

from ..core.precision import flint_prec
from .ball_text import stored_sign
from .comparison_types import CertificateMismatch, CertifiedComparison, Crossing
from .lemmas import retrial_g_facts_v1
from .enclosures import (
    BindingError,
    _erlang_coeffs,
    _psi_formula,
    ball_str,
    dec_down,
    dec_up,
    erlang_increasing_lemma,
    large_end_tm,
    parse_q,
    power_binding,
    psi_mixed,
    psi_point,
    psi_tm,
    q_arb,
    q_str,
    retrial_binding,
    retrial_g_lemma,
    rho_of_a,
    small_end_bound,
)
from .taylor import series_coeffs

FORMAT_FAST = "symloss.comparison/retrial-power/1"
_DEFAULT_PREC = 160
_DEFAULT_K = 8
_DEFAULT_K_END = 8
_MAX_DEPTH = 48



def _parameters(model) -> dict:
    """Every public scalar attribute of the model (its constructor parameters: ``C``, ``d``, and those of a
    subclass such as a rate factor), as exact text: the binding of a certificate covers them all, beside
    the fingerprint of the derived definition."""
    out = {}
    for k, v in sorted(vars(model).items()):
        if k.startswith("_") or not isinstance(v, (numbers.Number, str, bool)):
            continue
        out[k] = repr(v)
    return out


def _model_record(model) -> dict:
    return {"repr": repr(model), "class": type(model).__name__, "C": int(model.C), "d": int(model.d),
            "parameters": _parameters(model), "fingerprint": model.fingerprint()}


#: Fields of a fast-path certificate that no re-check can verify (the version of symloss that wrote it;


# ==================================================================================================
# the fast path: search
# ==================================================================================================

def _sgn(x: arb) -> int:
    return 1 if x > 0 else (-1 if x < 0 else 0)


def _psi_series_point(C, d, dt, a: arb, n: int = 2) -> list:
    """Taylor coefficients of Psi at the point ``a`` (value and derivative for ``n = 2``)."""
    x = arb_series([a, arb(1)], prec=n)
    p = arb_series(_erlang_coeffs(C, a, n), prec=n)
    out = _psi_formula(C, d, dt, p, 1 / x, lambda s, q: s ** arb(q))
    return series_coeffs(out, n)


class _Search:
    """Branch and bound for one (C, d, dt) in the Psi orientation (sign of B_ret - B_pod)."""

    def __init__(self, C, d, dt, dps, prec, K, K_end):
        self.C, self.d, self.dt = C, d, dt
        self.dps, self.prec, self.K, self.K_end = dps, prec, K, K_end
        self._pts: dict = {}

    def point(self, a: Fraction) -> arb:
        if a not in self._pts:
            self._pts[a] = psi_point(self.C, self.d, self.dt, q_arb(a))
        return self._pts[a]

    # -- cell tests --------------------------------------------------------------------------------
    def test_cell(self, a0: Fraction, a1: Fraction):
        C, d, dt = self.C, self.d, self.dt
        A0, A1 = q_arb(a0), q_arb(a1)
        L, U = psi_mixed(C, d, dt, A0, A1)
        if L > 0:
            return {"a": [q_str(a0), q_str(a1)], "test": "mixed", "sign": 1, "bound": ball_str(L)}
        if U < 0:
            return {"a": [q_str(a0), q_str(a1)], "test": "mixed", "sign": -1, "bound": ball_str(U)}
        try:
            tm = psi_tm(C, d, dt, a0, a1, self.K)
        except (ValueError, ZeroDivisionError):
            return None
        c0, dev = tm.c[0], tm.deviation()
        s = 1 if c0 > dev else (-1 if c0 < -dev else 0)
        if s:
            return {"a": [q_str(a0), q_str(a1)], "test": "taylor", "sign": s, "c0": ball_str(c0),
                    "dev": dec_up(dev, 6)}
        p0, p1 = self.point(a0), self.point(a1)
        s0, s1 = _sgn(p0), _sgn(p1)
        if s0 and s1 and s0 != s1:
            try:
                dual = psi_tm(C, d, dt, a0, a1, self.K, dual=True)
            except (ValueError, ZeroDivisionError):
                return None
            D = dual.d
            dc0, ddev = D.c[0], D.deviation()
            ds = 1 if dc0 > ddev else (-1 if dc0 < -ddev else 0)
            if ds:
                return {"a": [q_str(a0), q_str(a1)], "test": "crossing", "sign": s1,
                        "ends": [ball_str(p0), ball_str(p1)], "deriv": {"c0": ball_str(dc0), "dev": dec_up(ddev, 6),
                                                                        "sign": ds}}
        return None

    # -- crossing refinement -------------------------------------------------------------------
    def refine(self, a0: Fraction, a1: Fraction, s0: int, s1: int) -> dict:
        """Bracket of the (unique) zero in [a0, a1] whose image in rho has width <= 10^-dps."""
        C, d, dt = self.C, self.d, self.dt
        target = Fraction(1, 10 ** self.dps)
        prec = max(self.prec, int(3.33 * self.dps) + 96)
        lo, hi = a0, a1
        for _attempt in range(6):
            with flint_prec(prec):
                x = (lo + hi) / 2
                for _ in range(60):
                    val, der = _psi_series_point(C, d, dt, q_arb(x), 2)
                    if not (val.is_finite() and der.is_finite()) or der == 0:
                        break
                    step = _arb_exact_to_fraction_mid(val / der)
                    bits = 2 * int(prec)
                    xn = _round_dyadic(x - step, bits)
                    if not (lo < xn < hi):
                        xn = (lo + hi) / 2
                    if abs(xn - x) <= target * Fraction(1, 10 ** 6) * x:
                        x = xn
                        break
                    x = xn
                # bracket around x
                rho_p = rho_of_a(C, dt, q_arb(x))
                deriv_rho = _rho_derivative(C, dt, q_arb(x))
                dl = target / 4 / max(_arb_exact_to_fraction_mid(deriv_rho), Fraction(1, 10 ** 6))
                del rho_p
                for _k in range(40):
                    b0, b1 = _round_dyadic(x - dl, 2 * prec, down=True), _round_dyadic(x + dl, 2 * prec, down=False)
                    b0, b1 = max(b0, lo), min(b1, hi)
                    v0 = psi_point(C, d, dt, q_arb(b0))
                    v1 = psi_point(C, d, dt, q_arb(b1))
                    g0, g1 = _sgn(v0), _sgn(v1)
                    r0, r1 = rho_of_a(C, dt, q_arb(b0)), rho_of_a(C, dt, q_arb(b1))
                    rl, rh = dec_down(r0, self.dps + 8), dec_up(r1, self.dps + 8)
                    wide = Fraction(rh) - Fraction(rl) > target
                    if g0 == s0 and g1 == s1 and not wide:
                        return {"a": [q_str(b0), q_str(b1)], "psi": [ball_str(v0, 12), ball_str(v1, 12)],
                                "rho": [rl, rh], "prec": prec}
                    if wide:
                        dl /= 2
                    elif g0 == 0 or g1 == 0:
                        break          # more precision needed
                    else:
                        # the bracket missed the zero: shrink the search interval and restart
                        if g0 == s0:
                            lo = max(lo, b0)
                        if g1 == s1:
                            hi = min(hi, b1)
                        if g0 == s1:
                            hi = min(hi, b0)
                        if g1 == s0:
                            lo = max(lo, b1)
                        break
            prec *= 2
        raise ArithmeticError(f"crossing in a in [{float(a0)}, {float(a1)}] not refined to 1e-{self.dps}")

    # -- the whole search ------------------------------------------------------------------------
    def run(self) -> dict:
        C, d, dt = self.C, self.d, self.dt
        with flint_prec(self.prec):
            small = None
            top = max(0, Fraction(C).numerator.bit_length())
            for j in range(top, -61, -1):
                a_lo = Fraction(2) ** j
                sb = small_end_bound(C, d, dt, a_lo)
                if sb["sign"]:
                    small = sb
                    break
            if small is None:
                raise ArithmeticError("no small-load end piece could be certified down to a = 2^-60")
            a_lo = parse_q(small["a_lo"])
            large = None
            j0 = max(a_lo.numerator.bit_length() - a_lo.denominator.bit_length() + 2,
                     (C + 1).bit_length())
            for j in range(j0, 41):
                a_hi = Fraction(2) ** j
                try:
                    le = _large_end_record(C, d, dt, a_hi, self.K_end)
                except (ValueError, ZeroDivisionError):
                    continue
                if le is None:
                    break
                if le["sign"]:
                    large = le
                    break
            if large is None:
                raise ArithmeticError("no large-load end piece could be certified up to a = 2^40 "
                                      "(the blockings may agree to every computed order)")
            a_hi = parse_q(large["a_hi"])
            # octave cells
            edges = [a_lo]
            while edges[-1] < a_hi:
                edges.append(min(edges[-1] * 2, a_hi))
            stack = [(edges[i], edges[i + 1], 0) for i in range(len(edges) - 1)][::-1]
            cells = []
            while stack:
                x0, x1, depth = stack.pop()
                cell = self.test_cell(x0, x1)
                if cell is None:
                    if depth >= _MAX_DEPTH:
                        raise ArithmeticError(f"cell a in [{float(x0)}, {float(x1)}] undecided at depth {depth} "
                                              "(a tangency or a crossing at a dyadic point?)")
                    m = (x0 + x1) / 2
                    stack.append((m, x1, depth + 1))
                    stack.append((x0, m, depth + 1))
                    continue
                cells.append(cell)
            for cell in cells:
                if cell["test"] == "crossing":
                    a0, a1 = parse_q(cell["a"][0]), parse_q(cell["a"][1])
                    s1 = cell["sign"]
                    cell["refined"] = self.refine(a0, a1, -s1, s1)
        return {"small_end": small, "large_end": large, "cells": cells}


def _arb_exact_to_fraction_mid(x: arb) -> Fraction:
    m, e = x.mid().man_exp()
    return Fraction(int(m)) * Fraction(2) ** int(e)


def _round_dyadic(x: Fraction, bits: int, down: bool | None = None) -> Fraction:
    """``x`` rounded to a dyadic rational with about ``bits`` significant bits."""
    if x == 0:
        return x
    e = (abs(x.numerator).bit_length() - x.denominator.bit_length()) - bits
    scale = Fraction(2) ** (-e)
    v = x * scale
    n = round(v) if down is None else (math.floor(v) if down else math.ceil(v))
    return Fraction(n) / scale


def _rho_derivative(C, dt, a: arb) -> arb:
    x = arb_series([a, arb(1)], prec=2)
    p = arb_series(_erlang_coeffs(C, a, 2), prec=2)
    sig = x * 0 + 1
    pj = x * 0 + 1
    for _ in range(1, dt):
        pj = pj * p
        sig = sig + pj
    return series_coeffs(x / sig, 2)[1]


def _large_end_record(C, d, dt, a_hi: Fraction, K: int):
    tm = large_end_tm(C, d, dt, a_hi, K)
    m, _cm = tm.leading()
    if m is None:
        return None
    sr = tm.scaled_range(m)
    scaled, sign = stored_sign(sr, 12)        # decided on the stored ball, as the re-check does
    return {"a_hi": q_str(a_hi), "K": K, "coefficients": [q_str(Fraction(int(c.p), int(c.q))) for c in tm.c],
            "m": m, "R": ball_str(tm.R, 12), "scaled": scaled, "sign": sign}


def _summary(small: dict, large: dict, cells: list, dps: int) -> dict:
    """Sign pattern, crossings and threshold (Psi orientation) from verified pieces."""
    sign = small["sign"]
    crossings = []
    for cell in cells:
        if cell["test"] == "crossing":
            crossings.append({"rho": list(cell["refined"]["rho"]), "sign_after": cell["sign"]})
            sign = cell["sign"]
        elif cell["sign"] != sign:
            raise CertificateMismatch("adjacent pieces of opposite signs without a crossing between them")
    if large["sign"] != sign:
        raise CertificateMismatch("the large-load sign differs from the last cell's")
    pieces = []
    lo = "0"
    s = small["sign"]
    for c in crossings:
        pieces.append({"rho": [lo, c["rho"][0]], "sign": s})
        lo, s = c["rho"][1], c["sign_after"]
    pieces.append({"rho": [lo, "oo"], "sign": s})
    return {"count": len(crossings), "crossings": crossings, "pieces": pieces, "sign_at_0": small["sign"],
            "sign_at_oo": large["sign"]}


def _orient(summary: dict, orient: int) -> dict:
    """Signs of B_a - B_b from those of B_ret - B_pod (orient = +1 if a is the retrial model)."""
    out = {"count": summary["count"], "sign_at_0": orient * summary["sign_at_0"],
           "sign_at_oo": orient * summary["sign_at_oo"],
           "crossings": [{"rho": c["rho"], "sign_after": orient * c["sign_after"]} for c in summary["crossings"]],
           "pieces": [{"rho": p["rho"], "sign": orient * p["sign"]} for p in summary["pieces"]]}
    if out["sign_at_oo"] == -1:
        out["threshold"] = ({"value": "0"} if not out["crossings"] else
                            {"rho": list(out["crossings"][-1]["rho"])})
    else:
        out["threshold"] = None
    return out


def _fast_models(model_a, model_b):
    """``(retrial, power, orient)`` when the pair is retrial/power (either order), else None."""
    for ret, pod, orient in ((model_a, model_b, 1), (model_b, model_a, -1)):
        try:
            rb = retrial_binding(ret)
            pb = power_binding(pod)
        except BindingError:
            continue
        if rb["C"] != pb["C"]:
            raise ValueError(f"the two models have different capacities C ({rb['C']} and {pb['C']})")
        return ret, pod, orient, rb, pb
    return None


def _lemmas(C, d, dt, *, v1: bool = False) -> dict:
    """The lemma records of a comparison certificate (``v1``: as written before 2026-12-02, the
    integers ``A(0)``, ``B(0)`` instead of their signs; accepted by the re-check)."""
    g = retrial_g_lemma(C, dt)
    e = erlang_increasing_lemma(C)
    if not (g["holds"] and e["holds"]):
        raise ArithmeticError("a monotonicity lemma of the reduction does not hold")
    return {"g_increasing": retrial_g_facts_v1(C, dt) if v1 else g["facts"], "erlang_increasing": True,
            "statement": "g(a) = a/sigma(E(C,a)) increases from 0 to oo (numerator of g' has non-negative "
                         "coefficients); E(C,a) increases in a; W_1(s, rho) increases in s and decreases in rho "
                         "(telescoped recursion, positive terms)"}


def _result(model_a, model_b, data, orient, seconds) -> CertifiedComparison:
    o = _orient(data["summary_psi"], orient)
    crossings = [Crossing(c["rho"][0], c["rho"][1], c["sign_after"]) for c in o["crossings"]]
    method = ("one-dimensional reduction (retrial per-server load a): mixed-monotone bounds and Taylor models of "
              "Psi(a) = W_1(E^(dt/d), rho(a)) - 1 on dyadic cells, Taylor models of Psi' on crossing cells, "
              "elementary bounds at small load, exact Taylor model in 1/a at large load")
    return CertifiedComparison((repr(model_a), repr(model_b)), o["pieces"], crossings, o["count"], o["sign_at_0"],
                               o["sign_at_oo"], o["threshold"], method, data, seconds)
