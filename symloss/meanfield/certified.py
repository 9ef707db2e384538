r"""Certified comparisons of two mean-field models for **every** load :math:`\rho \in (0, \infty)`.

:func:`certified_comparison` proves the sign of :math:`B_a(\rho) - B_b(\rho)` on the whole half-line,
or finds and isolates every crossing, each as an interval of loads of width at most
:math:`10^{-\mathrm{dps}}` that provably holds exactly one crossing. It returns the sign pattern, the
crossings, their count, the threshold (the load above which ``a`` blocks strictly less than ``b``
at every larger load, if that is the behaviour at large load), and a **certificate**: plain JSON
data that :func:`verify_comparison` re-checks cell by cell from the stored numbers and the models'
own equations, without repeating the search.

Two paths:

* **fast path** (retrial-of-:math:`\tilde d` against power-of-:math:`d`, any ``C``; models whose
  definitions are identical to those templates, checked): the one-dimensional reduction of
  :mod:`symloss.meanfield.enclosures`: the comparison function :math:`\Psi(a)` of the retrial
  per-server load ``a`` has the sign of :math:`B_{ret} - B_{pod}` at :math:`\rho(a)`; a branch and
  bound over dyadic cells of ``a`` proves its sign cell by cell (mixed-monotone bounds, Taylor
  models), isolates each zero with a Taylor model of :math:`\Psi'` that excludes 0, and the two end
  pieces (elementary inequalities at small load, an exact-coefficient Taylor model in :math:`1/a` at
  large load) cover :math:`(0, \rho(a_{lo})]` and :math:`[\rho(a_{hi}), \infty)`;
* **generic path** (:mod:`symloss.meanfield.certified_generic`, any two smooth models): parametric
  Krawczyk enclosures of each model's own stationary equations over intervals of loads, with
  derivative enclosures.

Every certificate records the symloss version and each model's ``fingerprint()``; the re-check
refuses a certificate made from another definition.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from flint import arb, arb_series

from ..core.precision import check_dps, flint_prec
from ..core.results import ResultMixin
from .enclosures import (
    BindingError,
    _erlang_coeffs,
    _psi_formula,
    ball_str,
    dec_down,
    dec_up,
    erlang_increasing_lemma,
    large_end_tm,
    parse_ball,
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

__all__ = [
    "FORMAT_FAST",
    "CertificateMismatch",
    "CertifiedComparison",
    "Crossing",
    "certified_comparison",
    "certified_threshold",
    "verify_comparison",
]

FORMAT_FAST = "symloss.comparison/retrial-power/1"
_DEFAULT_PREC = 160
_DEFAULT_K = 8
_DEFAULT_K_END = 8
_MAX_DEPTH = 48


class CertificateMismatch(ValueError):
    """A certificate does not verify: a stored number, a cell, a count or a model differs."""


# ==================================================================================================
# results
# ==================================================================================================

@dataclass
class Crossing:
    """One crossing: ``rho`` in ``[rho_lo, rho_hi]`` (decimal strings, rigorous outward bounds,
    width <= 10^-dps), exactly one crossing there; ``sign_after`` is the sign of ``B_a - B_b`` just
    above it."""
    rho_lo: str
    rho_hi: str
    sign_after: int

    def to_dict(self) -> dict:
        return {"rho": [self.rho_lo, self.rho_hi], "sign_after": self.sign_after}


@dataclass
class CertifiedComparison(ResultMixin):
    r"""Result of :func:`certified_comparison` (signs are those of :math:`B_a - B_b`).

    Attributes
    ----------
    models : (str, str)
    pieces : list of dict - ``{"rho": [lo, hi], "sign": s}`` from 0 to infinity (``lo``/``hi`` are
        the crossing bounds, ``"0"`` and ``"oo"`` at the ends)
    crossings : list of :class:`Crossing`
    count : int - number of crossings on :math:`(0, \infty)` (all of them, certified)
    sign_at_zero, sign_at_infinity : int
    threshold : dict or None - when ``a`` blocks less than ``b`` at large load: the load above which
        it does at every larger load, ``{"value": "0"}`` if at every load, else the last crossing
        ``{"rho": [lo, hi]}``; ``None`` when ``a`` blocks more at large load
    method : str
    certificate : dict - JSON data for :func:`verify_comparison`
    seconds : float
    """
    models: tuple
    pieces: list
    crossings: list
    count: int
    sign_at_zero: int
    sign_at_infinity: int
    threshold: Any
    method: str
    certificate: dict = field(repr=False, default_factory=dict)
    seconds: float = 0.0

    #: the quantities of its paper-mode LaTeX (:meth:`~symloss.core.results.ResultMixin.to_latex`)
    latex_quantities = {"count": (r"\text{crossings}", "integer"),
                        "sign_at_zero": (r"\operatorname{sign}(B_a-B_b) \text{ as } \rho\to 0", "integer"),
                        "sign_at_infinity": (r"\operatorname{sign}(B_a-B_b) \text{ as } \rho\to\infty", "integer"),
                        "threshold": (r"\rho^*", "threshold")}

    def holds_everywhere(self, sign: int) -> bool:
        """True when ``B_a - B_b`` has the given sign at every load."""
        return self.count == 0 and self.sign_at_zero == sign

    def to_dict(self) -> dict:
        return {"models": list(self.models), "pieces": self.pieces, "crossings": [c.to_dict() for c in self.crossings],
                "count": self.count, "sign_at_zero": self.sign_at_zero, "sign_at_infinity": self.sign_at_infinity,
                "threshold": self.threshold, "method": self.method, "seconds": round(self.seconds, 4)}


def _version() -> str:
    from .. import __version__
    return __version__


def _parameters(model) -> dict:
    """Every public scalar attribute of the model (its constructor parameters: ``C``, ``d``, and those of a
    subclass such as a rate factor), as exact text: the binding of a certificate covers them all, beside
    the fingerprint of the derived definition."""
    import numbers
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
#: informational). Written into the certificate as ``unchecked_fields``; :func:`verify_comparison` checks
#: every other field and rejects any field it does not know.
UNCHECKED_FAST = ("symloss_version", "provenance")     # provenance: optional, added by the files the CLI writes
_KEYS_FAST = {"format", "symloss_version", "models", "a_is", "binding", "lemmas", "dps", "prec", "K", "small_end",
              "large_end", "cells", "summary_psi", "unchecked_fields"}
_KEYS_MODEL = {"repr", "class", "C", "d", "parameters", "fingerprint"}
_KEYS_SMALL = {"a_lo", "rho_lo", "exponent_retrial", "exponent_power", "constant", "ret_remainder",
               "power_remainder", "bound", "sign"}
_KEYS_LARGE = {"a_hi", "K", "coefficients", "m", "R", "scaled", "sign"}
_KEYS_CELL = {"mixed": {"a", "test", "sign", "bound"}, "taylor": {"a", "test", "sign", "c0", "dev"},
              "crossing": {"a", "test", "sign", "ends", "deriv", "refined"}}
_KEYS_DERIV = {"c0", "dev", "sign"}
_KEYS_REFINED = {"a", "prec", "psi", "rho"}


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
    import math
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
    sign = _sgn(sr)
    return {"a_hi": q_str(a_hi), "K": K, "coefficients": [q_str(Fraction(int(c.p), int(c.q))) for c in tm.c],
            "m": m, "R": ball_str(tm.R, 12), "scaled": ball_str(sr, 12), "sign": sign}


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


def _lemmas(C, d, dt) -> dict:
    g = retrial_g_lemma(C, dt)
    e = erlang_increasing_lemma(C)
    if not (g["holds"] and e["holds"]):
        raise ArithmeticError("a monotonicity lemma of the reduction does not hold")
    return {"g_increasing": g["facts"], "erlang_increasing": True,
            "statement": "g(a) = a/sigma(E(C,a)) increases from 0 to oo (numerator of g' has non-negative "
                         "coefficients); E(C,a) increases in a; W_1(s, rho) increases in s and decreases in rho "
                         "(telescoped recursion, positive terms)"}


def certified_comparison(model_a, model_b, *, dps: int = 30, prec: int | None = None, K: int | None = None,
                         K_end: int | None = None, K_end_max: int | None = None,
                         method: str = "auto") -> CertifiedComparison:
    r"""Certified sign of :math:`B_a(\rho) - B_b(\rho)` for every load :math:`\rho > 0`: every
    crossing isolated (exactly one in each interval, width :math:`\le 10^{-dps}`), their number, the
    sign on each piece, the threshold, and a certificate for :func:`verify_comparison`.

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        Two models of the same capacity. Retrial-of-d against power-of-d (definitions identical to
        the shipped templates, in either order) uses the one-dimensional fast path; any other pair
        the generic path.
    dps : int
        Width of each crossing interval: at most ``10^-dps`` (default 30).
    prec : int, optional
        Working precision in bits of the cell tests (default 160 on the fast path, 128 on the generic
        one).
    K, K_end : int, optional
        Fast path: orders of the Taylor models in the middle cells and at the large-load end (default
        8). Generic path: ``K`` does not apply (refused), ``K_end`` is the first number of exact series
        terms of the end pieces (default 12).
    K_end_max : int, optional
        Generic path: the most exact series terms an end piece may take when the two blockings agree
        to high order at rho -> 0 or oo (default 48, at most 64; the budget's error names it). Refused
        on the fast path.
    method : {"auto", "fast", "generic"}
        ``"auto"``: the fast path when it applies, else the generic one; ``"generic"`` forces the
        generic path (small models only: it is much slower); ``"fast"`` raises ``ValueError`` when
        the pair is not retrial-of-d / power-of-d.

    Returns
    -------
    CertifiedComparison

    Raises
    ------
    ValueError
        When ``dps``, ``prec``, ``K``, ``K_end`` or ``method`` is out of range, or ``method="fast"``
        for a pair that is not retrial-of-d / power-of-d.
    TypeError
        When ``model_a`` or ``model_b`` is not a :class:`~symloss.core.model.MeanFieldModel`.
    ArithmeticError
        When a piece cannot be certified (e.g. a tangency of the two blockings): nothing is returned
        unchecked.

    References
    ----------
    .. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
       Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026).

    Examples
    --------
    >>> from symloss import RetrialOfD, PowerOfD
    >>> from symloss.meanfield.certified import certified_comparison
    >>> res = certified_comparison(RetrialOfD(3, 3), PowerOfD(3, 2), dps=20)
    >>> res.count, res.sign_at_zero, res.sign_at_infinity
    (1, 1, -1)
    >>> res.crossings[0].rho_lo[:12]
    '0.9496356040'
    """
    t0 = time.perf_counter()
    dps = check_dps(dps)
    given = {"prec": prec, "K": K, "K_end": K_end, "K_end_max": K_end_max}
    for name, v, lo in (("prec", prec, 64), ("K", K, 2), ("K_end", K_end, 2), ("K_end_max", K_end_max, 2)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < lo):
            raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    if method not in ("auto", "fast", "generic"):
        raise ValueError(f"method must be 'auto', 'fast' or 'generic', got {method!r}")
    from ..core.model import MeanFieldModel
    for name, m in (("model_a", model_a), ("model_b", model_b)):
        if not isinstance(m, MeanFieldModel):
            raise TypeError(f"{name} must be a MeanFieldModel, got {type(m).__name__}")
    if _same_definition(model_a, model_b):
        raise ValueError(f"{model_a!r} and {model_b!r} coincide (identical stationary equations and blocking): "
                         "there is nothing to compare")
    fast = None if method == "generic" else _fast_models(model_a, model_b)
    if fast is None:
        if method == "fast":
            raise ValueError(f"{model_a!r} and {model_b!r} are not a retrial-of-d / power-of-d pair (fast path)")
        from .certified_generic import generic_comparison
        if K is not None:
            raise ValueError(f"K={K!r} applies to the retrial-of-d / power-of-d fast path only; {model_a!r} and "
                             f"{model_b!r} take the generic path (use K_end / K_end_max for its end pieces)")
        kw = {k: v for k, v in given.items() if v is not None and k != "K"}
        try:
            return generic_comparison(model_a, model_b, dps=dps, t0=t0, **kw)
        except ArithmeticError as exc:
            _raise_if_coincide(model_a, model_b, exc)
            raise
    if K_end_max is not None:
        raise ValueError(f"K_end_max={K_end_max!r} applies to the generic path only (its end series); the "
                         f"retrial-of-d / power-of-d fast path has closed-form end pieces")
    prec = _DEFAULT_PREC if prec is None else prec
    K = _DEFAULT_K if K is None else K
    K_end = _DEFAULT_K_END if K_end is None else K_end
    ret, pod, orient, rb, pb = fast
    C, dt, d = rb["C"], rb["d"], pb["d"]
    if C == 1 and d == dt:
        raise ValueError(f"{model_a!r} and {model_b!r} coincide: at C = 1 retrial-of-{d} and power-of-{d} solve the "
                         f"same equation rho (1 - u^{d}) = u (there is nothing to compare)")
    lemmas = _lemmas(C, d, dt)
    search = _Search(C, d, dt, dps, prec, K, K_end)
    try:
        found = search.run()
    except ArithmeticError as exc:
        _raise_if_coincide(model_a, model_b, exc)
        raise
    summary = _summary(found["small_end"], found["large_end"], found["cells"], dps)
    data = {"format": FORMAT_FAST, "symloss_version": _version(),
            "models": {"retrial": _model_record(ret), "power": _model_record(pod)},
            "a_is": "retrial" if orient == 1 else "power",
            "binding": {"retrial": rb["identity"], "power": pb["identity"], "telescoped": pb["telescoped"]},
            "lemmas": lemmas, "dps": dps, "prec": prec, "K": K,
            "small_end": found["small_end"], "large_end": found["large_end"], "cells": found["cells"],
            "summary_psi": summary, "unchecked_fields": list(UNCHECKED_FAST)}
    return _result(model_a, model_b, data, orient, time.perf_counter() - t0)


def _same_definition(a, b) -> bool:
    """Exactly the same system: equal sparse drifts (same variables), invariants and blocking."""
    import sympy as sp
    if tuple(a.variables) != tuple(b.variables):
        return False
    pa, pb = a._drift_poly, b._drift_poly
    if pa is None or pb is None or pa != pb:
        return False
    inv_a = [(list(c), v) for c, v in a._invariants]
    inv_b = [(list(c), v) for c, v in b._invariants]
    return inv_a == inv_b and sp.expand(a._blocking - b._blocking) == 0


def _raise_if_coincide(a, b, exc) -> None:
    """After a failed search: a ValueError when the two blockings agree to 25 digits at three loads
    (the models coincide in different coordinates; evidence, said so), else nothing."""
    from .compare import _equal_at_sample_loads
    try:
        same = _equal_at_sample_loads(a, b, 0.01, 100)
    except (ArithmeticError, ValueError):
        return
    if same:
        raise ValueError(f"{a!r} and {b!r} appear to coincide: their blockings agree to 25 digits at the loads "
                         f"0.1, 1 and 10 (sampled; the certified search failed with: {exc})") from exc


def _result(model_a, model_b, data, orient, seconds) -> CertifiedComparison:
    o = _orient(data["summary_psi"], orient)
    crossings = [Crossing(c["rho"][0], c["rho"][1], c["sign_after"]) for c in o["crossings"]]
    method = ("one-dimensional reduction (retrial per-server load a): mixed-monotone bounds and Taylor models of "
              "Psi(a) = W_1(E^(dt/d), rho(a)) - 1 on dyadic cells, Taylor models of Psi' on crossing cells, "
              "elementary bounds at small load, exact Taylor model in 1/a at large load")
    return CertifiedComparison((repr(model_a), repr(model_b)), o["pieces"], crossings, o["count"], o["sign_at_0"],
                               o["sign_at_oo"], o["threshold"], method, data, seconds)


def certified_threshold(C: int, d: int, dt: int, *, dps: int = 30) -> CertifiedComparison:
    r""":func:`certified_comparison` of ``RetrialOfD(C, dt)`` against ``PowerOfD(C, d)`` (power-of-1
    is random routing in tail variables).

    Parameters
    ----------
    C : int in [1, 1000]
        Capacity of each server (the same for both models).
    d : int in [1, 64]
        Number of servers sampled by power-of-d.
    dt : int in [1, 64]
        Number of attempts of retrial-of-d.
    dps : int, optional
        Width of each crossing interval: at most ``10^-dps`` (default 30).

    Returns
    -------
    CertifiedComparison
        The certified sign pattern of :math:`B_{retrial}(\rho) - B_{power}(\rho)` on
        :math:`(0, \infty)`, its crossings and threshold, and the certificate for
        :func:`verify_comparison`.

    Raises
    ------
    ValueError
        When ``C``, ``d``, ``dt`` or ``dps`` is out of range.
    TypeError
        When ``C``, ``d`` or ``dt`` is not an integer.
    ArithmeticError
        When a piece cannot be certified (see :func:`certified_comparison`).

    References
    ----------
    .. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
       Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026).

    Examples
    --------
    >>> from symloss.meanfield.certified import certified_threshold
    >>> res = certified_threshold(3, 2, 3, dps=20)
    >>> res.count, res.sign_at_zero, res.sign_at_infinity
    (1, 1, -1)
    >>> res.threshold["rho"][0][:12]
    '0.9496356040'
    """
    from ..core.validation import check_int
    from .models import PowerOfD, RetrialOfD
    C = check_int(C, "C", min_value=1, max_value=1000)
    d = check_int(d, "d", min_value=1, max_value=64)
    dt = check_int(dt, "dt", min_value=1, max_value=64)
    return certified_comparison(RetrialOfD(C, dt), PowerOfD(C, d), dps=dps)


# ==================================================================================================
# re-check (no search)
# ==================================================================================================

def _need(cond: bool, msg: str):
    if not cond:
        raise CertificateMismatch(msg)


def _contains(stored: str, fresh: arb, what: str) -> arb:
    b = parse_ball(stored)
    _need(b.contains(fresh), f"stored {what} {stored} does not enclose the recomputed {ball_str(fresh)}")
    return b


def _le_stored(fresh: arb, stored: str, what: str) -> Fraction:
    v = Fraction(stored)
    _need(fresh <= q_arb(v), f"recomputed {what} exceeds the stored bound {stored}")
    return v


def _keys(d, expected: set, where: str) -> None:
    """Reject a record whose fields are not exactly ``expected`` (a field the re-check does not know is
    a field nobody checked)."""
    _need(isinstance(d, dict), f"{where} must be an object")
    extra, missing = set(d) - expected, expected - set(d)
    _need(not extra, f"{where}: unknown field(s) {sorted(extra)} (not checked by the re-check)")
    _need(not missing, f"{where}: missing field(s) {sorted(missing)}")


def _check_models(data: dict, ret, pod):
    _keys(data["models"], {"retrial", "power"}, "models")
    for key, m in (("retrial", ret), ("power", pod)):
        rec = data["models"][key]
        _keys(rec, _KEYS_MODEL, f"models.{key}")
        _need(rec.get("fingerprint") == m.fingerprint(),
              f"the certificate was made from another {key} definition (fingerprint {str(rec.get('fingerprint', '?'))[:12]}"
              f"... vs {m.fingerprint()[:12]}...)")
        _need((rec.get("C"), rec.get("d")) == (int(m.C), int(m.d)), f"{key} parameters differ")
        _need(rec.get("parameters") == _parameters(m),
              f"{key} parameters differ: stored {rec.get('parameters')!r}, the model has {_parameters(m)!r}")
        _need(rec.get("repr") == repr(m), f"{key} model differs: stored {rec.get('repr')!r}, got {m!r}")
        _need(rec.get("class") == type(m).__name__,
              f"{key} model class differs: stored {rec.get('class')!r}, got {type(m).__name__!r}")


def verify_comparison(certificate: dict, model_a, model_b) -> CertifiedComparison:
    """Re-check a certificate of :func:`certified_comparison` for ``(model_a, model_b)``: the
    models' fingerprints and bindings, the lemmas, both end pieces, every cell (its stored bounds
    recomputed from the models' equations and checked to enclose the recomputed values, its sign
    re-derived from the stored numbers), the tiling of the load axis, every crossing bracket and
    the summary. Raises :class:`CertificateMismatch` on any difference; returns the verified result.

    No search is redone: the check costs a fraction of :func:`certified_comparison`.

    Parameters
    ----------
    certificate : dict
        The ``certificate`` of a :class:`CertifiedComparison` (JSON data, e.g. read back from a file).
    model_a, model_b : MeanFieldModel
        The models the certificate claims to compare, in the same order.

    Returns
    -------
    CertifiedComparison
        The result rebuilt from the verified certificate.

    Raises
    ------
    CertificateMismatch
        (a :class:`ValueError`) When the certificate is not a dict, has an unknown format, is
        malformed, was made from other model definitions, or any stored number, cell, crossing or
        summary fails its re-check.

    References
    ----------
    .. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
       Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026).

    Examples
    --------
    >>> from symloss import RetrialOfD, PowerOfD
    >>> from symloss.meanfield.certified import certified_comparison, verify_comparison
    >>> a, b = RetrialOfD(3, 3), PowerOfD(3, 2)
    >>> res = certified_comparison(a, b, dps=20)
    >>> verify_comparison(res.certificate, a, b).count
    1
    >>> verify_comparison({"format": "nonsense"}, a, b)
    Traceback (most recent call last):
        ...
    symloss.meanfield.certified.CertificateMismatch: unknown certificate format 'nonsense'
    """
    t0 = time.perf_counter()
    if not isinstance(certificate, dict):
        raise CertificateMismatch("certificate must be a dict")
    fmt = certificate.get("format")
    if fmt != FORMAT_FAST:
        from .certified_generic import FORMAT_GENERIC, verify_generic
        if fmt == FORMAT_GENERIC:
            return verify_generic(certificate, model_a, model_b, t0=t0)
        raise CertificateMismatch(f"unknown certificate format {fmt!r}")
    try:
        return _verify_fast(certificate, model_a, model_b, t0)
    except CertificateMismatch:
        raise
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, ArithmeticError) as exc:
        raise CertificateMismatch(f"malformed certificate ({type(exc).__name__}: {exc})") from None


def _verify_fast(data, model_a, model_b, t0):
    fast = _fast_models(model_a, model_b)
    _need(fast is not None, "the models are not a retrial-of-d / power-of-d pair")
    ret, pod, orient, rb, pb = fast
    _keys(data, _KEYS_FAST | ({"provenance"} if "provenance" in data else set()), "certificate")
    _need(data["unchecked_fields"] == list(UNCHECKED_FAST),
          f"unchecked_fields must be exactly {list(UNCHECKED_FAST)} (every other field is re-checked), "
          f"got {data['unchecked_fields']!r}")
    _need(isinstance(data["symloss_version"], str), "symloss_version must be a string")
    _need(data.get("a_is") == ("retrial" if orient == 1 else "power"), "model order differs")
    _check_models(data, ret, pod)
    C, dt, d = rb["C"], rb["d"], pb["d"]
    _need(data["binding"] == {"retrial": rb["identity"], "power": pb["identity"], "telescoped": pb["telescoped"]},
          "binding records differ")
    _need(data["lemmas"] == _lemmas(C, d, dt), "lemma records differ from the recomputed ones")
    dps, prec, K = int(data["dps"]), int(data["prec"]), int(data["K"])
    _need(5 <= dps <= 100000 and 64 <= prec <= 1 << 16 and 2 <= K <= 64, "parameters out of range")
    small, large, cells = data["small_end"], data["large_end"], data["cells"]
    _keys(small, _KEYS_SMALL, "small_end")
    _keys(large, _KEYS_LARGE, "large_end")
    _need(isinstance(cells, list), "cells must be a list")
    with flint_prec(prec):
        # small end: recomputed from a_lo, must be identical, sign non-zero
        a_lo = parse_q(small["a_lo"])
        _need(a_lo > 0, "a_lo must be positive")
        fresh = small_end_bound(C, d, dt, a_lo)
        _need(fresh["sign"] != 0 and fresh["sign"] == small["sign"], "small-load end piece does not certify its sign")
        for key in ("exponent_retrial", "exponent_power"):
            _need(fresh[key] == small[key], f"small-load {key} differs")
        for key in ("rho_lo", "constant", "power_remainder"):
            _contains(small[key], parse_ball(fresh[key]), f"small-load {key}")
        _need(isinstance(small["ret_remainder"], list) and len(small["ret_remainder"]) == len(fresh["ret_remainder"]),
              "small-load ret_remainder has the wrong length")
        for j, (st, fr) in enumerate(zip(small["ret_remainder"], fresh["ret_remainder"])):
            _contains(st, parse_ball(fr), f"small-load ret_remainder[{j}]")
        _contains(small["bound"], parse_ball(fresh["bound"]), "small-load bound")
        b = parse_ball(small["bound"])
        _need((b > 0 and small["sign"] == 1) or (b < 0 and small["sign"] == -1), "small-load bound does not give its sign")
        # large end
        a_hi = parse_q(large["a_hi"])
        Ke = int(large["K"])
        _need(a_hi > a_lo and 2 <= Ke <= 64, "large-load parameters out of range")
        tm = large_end_tm(C, d, dt, a_hi, Ke)
        coeffs = [q_str(Fraction(int(c.p), int(c.q))) for c in tm.c]
        _need(coeffs == large["coefficients"], "stored exact coefficients of the large-load Taylor model differ")
        m, _cm = tm.leading()
        _need(m == int(large["m"]), "leading order differs")
        _contains(large["R"], tm.R, "large-load remainder")
        sr = tm.scaled_range(m)
        _contains(large["scaled"], sr, "large-load scaled range")
        sb = parse_ball(large["scaled"])
        _need((sb > 0 and large["sign"] == 1) or (sb < 0 and large["sign"] == -1), "large-load sign not certified")
        # cells: tiling and each test
        prev = a_lo
        for i, cell in enumerate(cells):
            x0, x1 = parse_q(cell["a"][0]), parse_q(cell["a"][1])
            _need(x0 == prev and x1 > x0, f"cell {i} does not continue the tiling at a = {q_str(prev)}")
            prev = x1
            _verify_cell(C, d, dt, K, cell, dps, i)
        _need(prev == a_hi, "the cells do not reach the large-load end piece")
    summary = _summary(small, large, cells, dps)
    _need(summary == data["summary_psi"], "stored summary differs from the one recomputed from the cells")
    return _result(model_a, model_b, data, orient, time.perf_counter() - t0)


def _verify_cell(C, d, dt, K, cell, dps, i):
    x0, x1 = parse_q(cell["a"][0]), parse_q(cell["a"][1])
    A0, A1 = q_arb(x0), q_arb(x1)
    test, s = cell["test"], cell["sign"]
    _need(test in _KEYS_CELL, f"cell {i}: unknown test {test!r}")
    _keys(cell, _KEYS_CELL[test], f"cell {i}")
    if test == "crossing":
        _keys(cell["deriv"], _KEYS_DERIV, f"cell {i} deriv")
        _keys(cell["refined"], _KEYS_REFINED, f"cell {i} refined")
    _need(s in (1, -1), f"cell {i}: sign must be +-1")
    if test == "mixed":
        L, U = psi_mixed(C, d, dt, A0, A1)
        fresh = L if s == 1 else U
        b = _contains(cell["bound"], fresh, f"cell {i} mixed bound")
        _need((b > 0) if s == 1 else (b < 0), f"cell {i}: the mixed bound does not give the stored sign")
    elif test == "taylor":
        tm = psi_tm(C, d, dt, x0, x1, K)
        c0 = _contains(cell["c0"], tm.c[0], f"cell {i} Taylor constant")
        dev = _le_stored(tm.deviation(), cell["dev"], f"cell {i} deviation")
        _need((c0 > q_arb(dev)) if s == 1 else (c0 < -q_arb(dev)), f"cell {i}: Taylor bound does not give the sign")
    elif test == "crossing":
        p0, p1 = psi_point(C, d, dt, A0), psi_point(C, d, dt, A1)
        e0 = _contains(cell["ends"][0], p0, f"cell {i} left value")
        e1 = _contains(cell["ends"][1], p1, f"cell {i} right value")
        _need(_sgn(e0) == -s and _sgn(e1) == s, f"cell {i}: no certified sign change")
        dual = psi_tm(C, d, dt, x0, x1, K, dual=True)
        D = dual.d
        dc0 = _contains(cell["deriv"]["c0"], D.c[0], f"cell {i} derivative constant")
        ddev = _le_stored(D.deviation(), cell["deriv"]["dev"], f"cell {i} derivative deviation")
        ds = cell["deriv"]["sign"]
        _need((dc0 > q_arb(ddev)) if ds == 1 else (dc0 < -q_arb(ddev)) if ds == -1 else False,
              f"cell {i}: the derivative is not certified to keep one sign")
        _need(ds == s, f"cell {i}: derivative sign inconsistent with the sign change")
        ref = cell["refined"]
        b0, b1 = parse_q(ref["a"][0]), parse_q(ref["a"][1])
        _need(x0 <= b0 < b1 <= x1, f"cell {i}: refined bracket outside the cell")
        with flint_prec(int(ref["prec"])):
            v0, v1 = psi_point(C, d, dt, q_arb(b0)), psi_point(C, d, dt, q_arb(b1))
            w0 = _contains(ref["psi"][0], v0, f"cell {i} refined left value")
            w1 = _contains(ref["psi"][1], v1, f"cell {i} refined right value")
            _need(_sgn(w0) == -s and _sgn(w1) == s, f"cell {i}: refined bracket has no certified sign change")
            r0, r1 = rho_of_a(C, dt, q_arb(b0)), rho_of_a(C, dt, q_arb(b1))
            rl, rh = Fraction(ref["rho"][0]), Fraction(ref["rho"][1])
            _need(q_arb(rl) <= r0 and r1 <= q_arb(rh), f"cell {i}: stored load bounds do not enclose rho(a)")
            _need(rh - rl <= Fraction(1, 10 ** dps), f"cell {i}: crossing interval wider than 1e-{dps}")
    else:
        raise CertificateMismatch(f"cell {i}: unknown test {test!r}")


# ==================================================================================================
# threshold reports (the command line's --certified, the notebook, the docs table)
# ==================================================================================================

def claim_id(C: int, d: int, dt: int):
    """The ``symloss verify`` claim that carries the same certificate, when ``(C, d, dt)`` is in the
    registry's range (``C <= 20``, ``1 <= d < dt <= 6``), else ``None``."""
    if 1 <= C <= 20 and 1 <= d < dt <= 6:
        return f"seed000.eventually.C{C}_d{d}_dt{dt}"
    return None


def threshold_report(C: int, d: int, dt: int, *, dps: int = 30) -> dict:
    """Certified threshold of retrial-of-dt against power-of-d as a JSON-ready dict: ``threshold``
    (``{"value": "0"}`` or ``{"rho": [lo, hi]}`` of width <= 10^-dps, ``None`` if retrial-of-dt is not
    lower at large load), ``crossings`` (their number on ``(0, oo)``) and their intervals, the sign
    pattern, the claim id of ``symloss verify`` with the same certificate, and the certificate."""
    t0 = time.perf_counter()
    res = certified_threshold(C, d, dt, dps=dps)
    return {"C": C, "d": d, "dt": dt, "dps": dps, "threshold": res.threshold, "crossings": res.count,
            "crossing_intervals": [c.to_dict() for c in res.crossings], "pieces": res.pieces,
            "claim": claim_id(C, d, dt), "seconds": round(time.perf_counter() - t0, 3),
            "certificate": res.certificate}


def format_threshold(report: dict, digits: int | None = None) -> str:
    """One line: the threshold interval (or 0), the crossing count and the certificate pointer."""
    thr = report["threshold"]
    if thr is None:
        t = "none (retrial-of-dt is not lower at large load)"
    elif thr == {"value": "0"}:
        t = "0 (retrial-of-dt lower at every load)"
    else:
        lo, hi = thr["rho"]
        if digits is not None:
            lo, hi = _trim(lo, digits, down=True), _trim(hi, digits, down=False)
        t = f"[{lo}, {hi}]"
    ptr = (f"symloss verify --claim {report['claim']}" if report.get("claim") else "--certificate PATH to write it")
    return f"{t}  crossings: {report['crossings']}  certificate: {ptr}"


def _trim(s: str, digits: int, down: bool) -> str:
    """A decimal string rounded outward to ``digits`` significant digits."""
    from .enclosures import _dec
    return _dec(Fraction(s), digits, down=down)
