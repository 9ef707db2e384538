r"""Comparisons between any two mean-field models: crossing loads, thresholds and dominance.

For two models ``a`` and ``b`` (any :class:`~symloss.MeanFieldModel`, shipped or user-defined) let
:math:`D(\rho) = \log B_a(\rho) - \log B_b(\rho)`.

* :func:`crossing_loads` finds every load in a range where :math:`D = 0`;
* :func:`threshold_load` is the load above which ``a`` blocks strictly less than ``b`` at every
  larger load (0 when that holds for every load);
* :func:`dominance` reports whether one model blocks no more than the other over a range.

The ``(C, d, dt)`` forms of :func:`crossing_loads` and :func:`threshold_load` stay as shorthands for
``model_a = RetrialOfD(C, dt)`` and ``model_b = PowerOfD(C, d)`` (random routing for ``d = 1``), the
question of the paper (Cuesta, Jonckheere, Prabhu, Brun, arXiv:2611.06267, 2026): from which load
does retrial-of-:math:`\tilde d` beat power-of-``d``?

Guarantees. The scan is a float64 log-grid with slope-based refinement (a stated heuristic, see
:func:`crossing_loads`); every crossing it finds is then refined and *certified* by sign changes of
ball-bracketed blockings of both models (each computed by its verified accelerator or by the generic
Krawczyk solver). With ``method="eliminant"`` every crossing is a real root of the resultant of the
two eliminants, isolated exactly, so none is missed in the range. Proofs over *all* loads are the
business of ``symloss verify``.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp
from flint import arb, arb_poly, fmpq_poly, fmpz

from ..core.model import BSYM, RHO, MeanFieldModel
from ..core.precision import DEFAULT_DPS, PrecisionError, check_dps, flint_prec, rounded, to_mpf
from ..core.results import ResultMixin
from ..core.validation import BudgetError, check_int, check_real, exact_real
from .elimination import (RealRoot, common_factor_mod, isolate_real_roots, linear_subresultant, poly_in_b,
                          sturm_count)
from .models import PowerOfD, RandomRouting, RetrialOfD

__all__ = ["crossing_loads", "threshold_load", "dominance", "CrossingResult", "DominanceResult"]


@dataclass
class CrossingResult(ResultMixin):
    """Crossings of two models' blockings (:func:`crossing_loads`).

    Attributes
    ----------
    C, d, dt : int or None
        Set for the retrial-vs-power shorthand ``crossing_loads(C, d, dt)``, else ``None``.
    crossings : list of mpmath.mpf
        The loads where the blockings are equal, increasing, each to the ``dps`` digits asked for.
    rho_min, rho_max : float or mpmath.mpf
        The range searched.
    evaluations : int
        Float evaluations of the scan (or isolated roots, with the eliminant method).
    guarantee : str
        What is certified (the method and its guarantee).
    models : tuple of str
        Both models (``a`` first).
    roots : list of dict
        With the eliminant method: one record per real root of the resultant in the range, increasing:
        ``kind`` ("crossing": sign change, "touch": equal blockings without a sign change, "not a
        crossing", or "undecided"), ``certified``, ``exact`` (the root as a ``Fraction`` when it is
        rational, else ``None``), ``factor`` (integer coefficients, constant term first, of the
        irreducible factor of the resultant that vanishes there), ``multiplicity`` (its exponent in
        the resultant), ``order`` (the certified order of the zero of ``B_a - B_b``, or ``None`` where
        it is not provable), ``sign_change``, ``signs`` (certified signs of ``B_a - B_b`` just below
        and above), ``interval`` (closed, exact ``Fraction`` ends: it contains the root, the returned
        ``value`` and its printed ``text``, and no other root; the intervals are pairwise disjoint),
        ``value`` (mpf), ``text``, ``digits`` (``dps``, more only where ``dps`` digits do not
        separate two roots), ``listed`` (the value is in ``crossings``) and ``reason``.
    certified : bool
        Every root in the range was decided with a certificate (eliminant method only).
    """
    C: Any
    d: Any
    dt: Any
    crossings: list
    rho_min: Any
    rho_max: Any
    evaluations: int
    guarantee: str
    models: tuple = ()
    roots: list = field(default_factory=list)
    certified: bool = False

    def to_dict(self):
        """Plain data (loads as 20-digit strings, exact rationals as ``"p/q"``), for JSON.

        Returns
        -------
        dict
        """
        def plain(r):
            out = {k: v for k, v in r.items() if k != "value"}
            out["value"] = None if r.get("value") is None else mpmath.nstr(r["value"], r["digits"])
            out["exact"] = None if r.get("exact") is None else str(r["exact"])
            if r.get("interval") is not None:
                out["interval"] = [str(x) for x in r["interval"]]
            if r.get("signs") is not None:
                out["signs"] = list(r["signs"])
            return out
        return {"C": self.C, "d": self.d, "dt": self.dt, "models": list(self.models),
                "crossings": [mpmath.nstr(c, 20) for c in self.crossings],
                "rho_min": str(self.rho_min), "rho_max": str(self.rho_max), "evaluations": self.evaluations,
                "guarantee": self.guarantee, "certified": self.certified, "roots": [plain(r) for r in self.roots]}


@dataclass
class DominanceResult(ResultMixin):
    """Whether ``model_a`` blocks no more than ``model_b`` on ``[rho_min, rho_max]``
    (:func:`dominance`).

    Attributes
    ----------
    models : tuple of str
        Both models (``a`` first).
    holds : bool
        ``a`` blocks strictly less than ``b`` at every certified sample and there is no crossing.
    crossings : list of mpmath.mpf
        The crossings in the range.
    signs : list of int
        The certified sign of ``log B_a - log B_b`` on each piece between consecutive crossings.
    rho_min, rho_max : float or mpmath.mpf
        The range.
    guarantee : str
        A scan with certified samples: EVIDENCE over the range, not a proof for every load (see
        ``symloss verify`` for proofs).
    samples : list of dict
        The load, the log ratio and its certified sign at each sample.
    """
    models: tuple
    holds: bool
    crossings: list
    signs: list
    rho_min: Any
    rho_max: Any
    guarantee: str
    samples: list = field(default_factory=list)

    def to_dict(self):
        """Plain data (loads as 20-digit strings), for JSON.

        Returns
        -------
        dict
        """
        return {"models": list(self.models), "holds": self.holds,
                "crossings": [mpmath.nstr(c, 20) for c in self.crossings], "signs": self.signs,
                "rho_min": str(self.rho_min), "rho_max": str(self.rho_max), "guarantee": self.guarantee,
                "samples": self.samples}


# --------------------------------------------------------------------------------------------------
# arguments
# --------------------------------------------------------------------------------------------------

def _is_int_like(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _shorthand(C, d, dt):
    C = check_int(C, "C", min_value=1, max_value=1000)
    d = check_int(d, "d", min_value=1, max_value=64)
    dt = check_int(dt, "dt", min_value=1, max_value=64)
    b = PowerOfD(C, d) if d > 1 else RandomRouting(C)
    return RetrialOfD(C, dt), b, (C, d, dt)


def _keyword_shorthand(model_a, model_b, C, d, fname):
    """``f(C=.., d=.., dt=..)``: the keyword spelling of the ``(C, d, dt)`` shorthand."""
    if C is None and d is None:
        if model_a is None:
            raise TypeError(f"{fname}() needs two models, or the integers C, d, dt")
        return model_a, model_b
    if model_a is not None or model_b is not None:
        raise TypeError(f"{fname}(): give either two models or C, d, dt, not both")
    if C is None or d is None:
        raise TypeError(f"{fname}(C=.., d=.., dt=..) needs all three of C, d and dt")
    return C, d


def _models(a, b, dt, fname):
    if _is_int_like(a):
        if b is None or dt is None:
            raise TypeError(f"{fname}(C, d, dt) needs three integers, or two models")
        return _shorthand(a, b, dt)
    if not isinstance(a, MeanFieldModel):
        raise TypeError(f"model_a must be a MeanFieldModel (or the integers C, d, dt), got {type(a).__name__}")
    if not isinstance(b, MeanFieldModel):
        raise TypeError(f"model_b must be a MeanFieldModel, got {type(b).__name__}")
    if dt is not None:
        raise TypeError(f"{fname}(model_a, model_b) takes no third positional argument")
    return a, b, (None, None, None)


def _identical_models(a, b) -> bool:
    """Same stationary system and blocking (same variables): the two models coincide."""
    if list(a.variables) != list(b.variables):
        return False
    fa, fb = list(a.drift()), list(b.drift())
    if any(sp.expand(x - y) != 0 for x, y in zip(fa, fb)):
        return False
    if [(list(c), v) for c, v in a._invariants] != [(list(c), v) for c, v in b._invariants]:
        return False
    return sp.expand(a._blocking - b._blocking) == 0


# --------------------------------------------------------------------------------------------------
# evaluations
# --------------------------------------------------------------------------------------------------

def _equal_at_sample_loads(a, b, rho_min, rho_max) -> bool:
    """Two models written in different coordinates can still coincide (retrial-of-d and power-of-d
    at C = 1): true when log B_a - log B_b is below 10^-25 at three loads of the range."""
    with mpmath.workdps(40):
        lo, hi = to_mpf(rho_min), to_mpf(rho_max)
        pts = [lo * (hi / lo) ** (mpmath.mpf(k) / 4) for k in (1, 2, 3)]
        for r in pts:
            v = _logdiff_models(a, b, r, 30)[0]
            if abs(v) > mpmath.mpf(10) ** -25:
                return False
    return True


def _logdiff_models(a, b, rho, dps):
    """log B_a - log B_b with certified brackets: returns (value, lo, hi)."""
    from ..core.certify import solve
    ra = solve(a, rho, dps=dps, residual=False)      # certified and verified; no mpmath drift residual
    rb = solve(b, rho, dps=dps, residual=False)
    with mpmath.workdps(dps + 10):
        v = mpmath.log(ra.blocking) - mpmath.log(rb.blocking)
        lo = mpmath.log(ra.blocking_bracket[0]) - mpmath.log(rb.blocking_bracket[1])
        hi = mpmath.log(ra.blocking_bracket[1]) - mpmath.log(rb.blocking_bracket[0])
    return v, lo, hi


def _logdiff(C, d, dt, rho, dps):
    """Shorthand kept for the callers of the (C, d, dt) form."""
    a, b, _ = _shorthand(C, d, dt)
    return _logdiff_models(a, b, rho, dps)


def _float_logdiff(a, b, rho: float) -> float:
    from .accelerators import float_log_blocking
    try:
        return float_log_blocking(a, rho) - float_log_blocking(b, rho)
    except (PrecisionError, ValueError, ArithmeticError, OverflowError):
        return float(_logdiff_models(a, b, mpmath.mpf(rho), 15)[0])


def _sign(t):
    return 1 if t[1] > 0 else (-1 if t[2] < 0 else 0)


def _refine_crossing(a, b, lo, hi, dps):
    """Regula falsi / bisection on [lo, hi] with certified signs until the bracket is below
    10^-(dps+2) relative; returns the midpoint rounded to ``dps`` digits."""
    w = dps + 10
    with mpmath.workdps(w):
        lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
        fa = _logdiff_models(a, b, lo, w)
        fb = _logdiff_models(a, b, hi, w)
        sa, sb = _sign(fa), _sign(fb)
        if sa != 0 and sa == sb:
            return None      # the float scan saw a sign change that the certified values do not have
        if sa == 0 or sb == 0:
            raise PrecisionError(f"crossing near rho in [{mpmath.nstr(lo, 8)}, {mpmath.nstr(hi, 8)}] not certified")
        va, vb = fa[0], fb[0]
        for _ in range(400):
            if (hi - lo) < mpmath.mpf(10) ** (-(dps + 2)) * lo:
                break
            m = hi - vb * (hi - lo) / (vb - va) if vb != va else (lo + hi) / 2
            if not (lo < m < hi) or (m - lo) < (hi - lo) / 100 or (hi - m) < (hi - lo) / 100:
                m = (lo + hi) / 2
            fm = _logdiff_models(a, b, m, w)
            sm = _sign(fm)
            if sm == 0:
                raise PrecisionError("sign of log B_a - log B_b undecided near a crossing")
            if sm == sa:
                lo, va = m, fm[0]
            else:
                hi, vb = m, fm[0]
        return rounded((lo + hi) / 2, dps)


# --------------------------------------------------------------------------------------------------
# elimination: the resultant's real roots isolated exactly, each decided (crossing, touch or not)
# --------------------------------------------------------------------------------------------------

class _Undecided(Exception):
    """A root of the resultant whose status could not be certified (the message says why)."""


def _frac_of_mpf(v) -> Fraction:
    """The exact value of a finite mpf."""
    sign, man, exp, _bc = v._mpf_
    if not man:
        if not mpmath.isfinite(v):
            raise ValueError(f"not a finite number: {v}")
        return Fraction(0)
    return Fraction(-man if sign else man) * Fraction(2) ** exp


def _exact_bound(x, name: str) -> Fraction:
    """An end of the range as an exact rational: a float is read as the decimal it prints as
    (``0.01`` is 1/100, what was written); every other accepted type exactly."""
    if isinstance(x, float):
        return Fraction(repr(float(x)))
    v = exact_real(x, name, allow_str=True)
    if isinstance(v, mpmath.mpf):
        return _frac_of_mpf(v)
    if isinstance(v, float):
        return Fraction(repr(v))
    return Fraction(v)


def _log2_floor(x: Fraction) -> int:
    """floor(log2 x) for a rational x > 0."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    while Fraction(2) ** e > x:
        e -= 1
    while Fraction(2) ** (e + 1) <= x:
        e += 1
    return e


def _dyadic_exponent(x: Fraction) -> int:
    d = x.denominator
    k = d.bit_length() - 1
    if d != 1 << k:
        raise ValueError(f"{x} is not a dyadic rational")
    return k


def _dyadic_mpf(x: Fraction):
    """A dyadic rational as an exact mpf (every bit kept)."""
    k = _dyadic_exponent(x)
    with mpmath.workprec(max(53, abs(x.numerator).bit_length() + 8)):
        return mpmath.ldexp(mpmath.mpf(x.numerator), -k)


def _arb_dyadic(x: Fraction) -> arb:
    """A dyadic rational as an exact arb point."""
    return arb((fmpz(x.numerator), -_dyadic_exponent(x)))


def _ball(lo: Fraction, hi: Fraction) -> arb:
    """An arb ball containing the interval [lo, hi] (dyadic ends)."""
    mid, rad = (lo + hi) / 2, (hi - lo) / 2
    return _arb_dyadic(mid) if rad == 0 else arb(_arb_dyadic(mid), _arb_dyadic(rad))


def _arb_ends(x: arb) -> tuple:
    """Exact rational ends ``(mid - rad, mid + rad)`` of a finite ball."""
    if not x.is_finite():
        raise _Undecided("a blocking enclosure is not finite")
    m, e = x.mid().man_exp()
    rm, re_ = x.rad().man_exp()
    mid = Fraction(int(m)) * Fraction(2) ** int(e)
    rad = Fraction(int(rm)) * Fraction(2) ** int(re_)
    return mid - rad, mid + rad


def _dyadic_hull(lo: Fraction, hi: Fraction, bits: int) -> tuple:
    """The smallest interval with ends in 2^-K Z containing [lo, hi], K = bits - floor(log2 hi)."""
    K = bits - _log2_floor(hi)
    s = Fraction(2) ** K
    return Fraction(math.floor(lo * s)) / s, Fraction(math.ceil(hi * s)) / s


def _dyadic_in(x: Fraction, y: Fraction) -> Fraction:
    """The dyadic rational with the smallest denominator in the middle half of (x, y), x < y."""
    a, b = x + (y - x) / 4, y - (y - x) / 4
    k = 0
    while True:
        s = 1 << k
        n = math.floor(a * s) + 1
        if Fraction(n, s) < b:
            return Fraction(n, s)
        k += 1


def _eval_b(P, R: arb, Bv: arb, derivative: bool = False) -> arb:
    """``P(R, Bv)`` (or ``dP/dB``) in ball arithmetic, ``P`` as coefficients in ``B`` (fmpq_poly in rho)."""
    cs = [arb_poly(c)(R) for c in P]
    if derivative:
        cs = [c * j for j, c in enumerate(cs)][1:]
    acc = arb(0)
    for c in reversed(cs):
        acc = acc * Bv + c
    return acc


def _blocking_ball(model, lo: Fraction, hi: Fraction, prec: int) -> arb:
    """Enclosure of the model's blocking for every load of [lo, hi] (parametric Krawczyk)."""
    try:
        return model.enclose(_dyadic_mpf(lo), _dyadic_mpf(hi), prec=prec).blocking
    except (PrecisionError, ValueError, ArithmeticError, ZeroDivisionError) as exc:
        raise _Undecided(f"no certified enclosure of the blocking of {model!r} on [{lo}, {hi}] ({exc})") from None


#: Irreducible factors of the resultant up to this degree may use the exact gcd over Q[rho]/(q)
#: (Euclid in K[B]; its coefficients grow fast: degree 41 did not end in minutes).
_MAX_EXACT_GCD_DEGREE = 12


def _common_root_data(Pa, Pb, H, factor) -> dict:
    """What :func:`_decide_root` needs about the common roots in ``B`` at the roots of ``factor``:
    the degree-1 subresultant ``H`` when it and both leading coefficients are non-zero modulo the
    factor (then the common root is unique and exists), else the exact gcd over the factor."""
    q = fmpq_poly(list(factor))
    lc_ok = not (Pa[-1] % q).is_zero() and not (Pb[-1] % q).is_zero()
    if H is not None and lc_ok and not (H[1] % q).is_zero():
        return {"gcd": H, "degree": 1, "lc_nonzero": True, "source": "degree-1 subresultant"}
    if len(factor) - 1 <= _MAX_EXACT_GCD_DEGREE:
        out = common_factor_mod(Pa, Pb, factor)
        out["source"] = "exact gcd over Q[rho]/(q)"
        return out
    raise _Undecided(f"the degree-1 subresultant (or a leading coefficient) vanishes on an irreducible factor of "
                     f"degree {len(factor) - 1} > {_MAX_EXACT_GCD_DEGREE}, so the common roots are not determined")


def _decide_root(a, b, Pa, Pb, G, root):
    """Is the root of the resultant in ``root`` a crossing (``B_a = B_b`` there)?

    Returns ``("crossing", order)`` or ``("excluded", reason)``; raises :class:`_Undecided`.

    ``G`` (:func:`_common_root_data`) is either the degree-1 subresultant ``h1 B + h0`` with ``h1``
    and both leading coefficients in ``B`` non-zero at the root (then the common root of ``P_a`` and
    ``P_b`` there exists and is unique: ``-h0/h1``), or the exact monic gcd of ``P_a`` and ``P_b``
    over the root's irreducible factor (whose roots are the common roots).

    Crossing: with ``E_a``, ``E_b`` enclosures of the two blockings over a small interval ``I``
    around the root and ``E`` a widening of their hull, ``dP_a/dB`` and ``dP_b/dB`` have no zero on
    ``I x E`` (each eliminant has at most one root in ``E``, which is then the model's blocking), and
    ``G`` changes sign over ``E`` (a common root in ``E``): so both blockings equal that common root.
    ``order`` is the multiplicity of the factor in the resultant when that is provably the order of
    the zero of ``B_a - B_b`` (a unique common root, simple in both eliminants, both leading
    coefficients non-zero: then only the physical pair of branches meets, and the resultant is a
    product over pairs of branches), else ``None``. Excluded: no common root (exact gcd 1), disjoint
    enclosures ``E_a``, ``E_b``, or the unique common root outside ``E``.
    """
    if G["degree"] == 0:
        return "excluded", "P_a and P_b have no common root in B at this load (exact gcd over its factor is 1)"
    g = G["gcd"]
    for bits, prec in ((40, 128), (80, 192), (160, 320), (320, 640)):
        x0 = root.lo if root.exact is not None else (root.lo + root.hi) / 2
        if root.exact is None:
            root.refine(x0 * Fraction(1, 2 ** bits))
        lo_c, hi_c = _dyadic_hull(root.lo, root.hi, bits + 8)
        Ea = _blocking_ball(a, lo_c, hi_c, prec)
        Eb = _blocking_ball(b, lo_c, hi_c, prec)
        with flint_prec(prec):
            if Ea < Eb or Eb < Ea:
                return "excluded", (f"the certified blocking enclosures on [{lo_c}, {hi_c}] are disjoint "
                                    f"({Ea.str(5)} vs {Eb.str(5)})")
            (al, ah), (bl, bh) = _arb_ends(Ea), _arb_ends(Eb)
            El, Eh = min(al, bl), max(ah, bh)
            R = _ball(lo_c, hi_c)
            for mult in (2, 2 ** 8, 2 ** 20):
                w = (Eh - El) * mult + Fraction(1, 2 ** (prec - 16))
                L, H = El - w, Eh + w
                EB = _ball(L, H)
                if _eval_b(Pa, R, EB, True).contains(0) or _eval_b(Pb, R, EB, True).contains(0):
                    break
                sign = _gcd_sign_change(g, root, L, H, bits, prec)
                if sign is True:
                    order = root.multiplicity if (G["degree"] == 1 and G["lc_nonzero"]) else None
                    return "crossing", order
                if sign is False and G["degree"] == 1:
                    return "excluded", ("the only common root in B of P_a and P_b at this load lies outside the "
                                        "certified enclosures of the blockings")
    raise _Undecided("the blockings' enclosures overlap near this root of the resultant but equality could not be "
                     "certified (a multiple root in B, or the enclosures are too wide)")


def _gcd_sign_change(g, root, L: Fraction, H: Fraction, bits: int, prec: int):
    """Signs of the gcd ``g(rho*, L)`` and ``g(rho*, H)`` at the root ``rho*`` (ball arithmetic on
    ever smaller exact isolating intervals: the coefficients of ``g`` are large and cancel, so the
    interval is refined, by exact bisection, until the signs are certain). True: opposite signs;
    False: the same sign; None: undecided."""
    for extra in range(0, 1601, 80):
        b2 = bits + extra
        if root.exact is None:
            root.refine(root.lo * Fraction(1, 2 ** b2))
        lo, hi = _dyadic_hull(root.lo, root.hi, b2 + 8)
        with flint_prec(max(prec, b2 + 96)):
            R = _ball(lo, hi)
            gl, gh = _eval_b(g, R, _arb_dyadic(L)), _eval_b(g, R, _arb_dyadic(H))
            if (gl < 0 and gh > 0) or (gl > 0 and gh < 0):
                return True
            if (gl < 0 and gh < 0) or (gl > 0 and gh > 0):
                return False
    return None


def _sample_sign(a, b, Pa, Pb, s: Fraction) -> int:
    """Certified sign of ``B_a - B_b`` at the dyadic load ``s`` (ball blockings at raising precision);
    also checks that both eliminants vanish on the certified blockings there."""
    from ..core.certify import solve
    rho = _dyadic_mpf(s)
    need = (abs(s.numerator).bit_length() + s.denominator.bit_length()) // 3 + 10
    for dps in (20, 40, 80, 160, 320):
        dps = max(dps, need)
        try:
            ra = solve(a, rho, dps=dps, residual=False)
            rb = solve(b, rho, dps=dps, residual=False)
        except PrecisionError:
            continue
        (la, ha), (lb, hb) = ra.blocking_bracket, rb.blocking_bracket
        prec = int(3.33 * dps) + 64
        with flint_prec(prec):
            R = _arb_dyadic(s)
            for P, lo_, hi_, m in ((Pa, la, ha, a), (Pb, lb, hb, b)):
                if not _eval_b(P, R, _ball(_frac_of_mpf(lo_), _frac_of_mpf(hi_))).contains(0):
                    raise _Undecided(f"the eliminant of {m!r} does not vanish at its certified blocking at rho = {s}")
        if la > hb:
            return 1
        if ha < lb:
            return -1
    raise _Undecided(f"the sign of B_a - B_b at rho = {s} could not be certified at 320 digits")


def _fraction_to_mpf(x: Fraction, dps: int):
    with mpmath.workdps(dps):
        return mpmath.mpf(x.numerator) / x.denominator


def _round_values(records, window, dps) -> None:
    """Give every listed root a value: rounded from its isolating interval to ``digits >= dps``
    significant digits, with a reported closed interval that contains the exact root, the returned
    mpf and its printed decimal, is disjoint from every other root's interval and contains no other
    root of the resultant (re-checked exactly); ``digits`` is raised where ``dps`` digits cannot
    separate two roots."""
    listed = [r for r in records if r["listed"]]
    for rec in listed:
        rec["digits"] = dps
    for _ in range(200):
        bad = set()
        for rec in listed:
            root, n = rec["_root"], rec["digits"]
            if root.exact is None:
                root.refine(root.lo * Fraction(1, 10 ** (n + 3)))
            mid = root.exact if root.exact is not None else (root.lo + root.hi) / 2
            v = rounded(_fraction_to_mpf(mid, n + 20), n)
            text = mpmath.nstr(v, n, strip_zeros=False)
            pts = (root.lo, root.hi, _frac_of_mpf(v), Fraction(text))
            rec["value"], rec["text"], rec["_J"] = v, text, (min(pts), max(pts))
        for i, rec in enumerate(listed):
            lo, hi = rec["_J"]
            root = rec["_root"]
            others = [o for o in window if o is not root] + [o["_J"] for o in listed if o is not rec]
            for o in others:
                olo, ohi = (o.lo, o.hi) if isinstance(o, RealRoot) else o
                if not (ohi < lo or hi < olo):
                    bad.add(i)
            if root.exact is None and (lo == hi or sturm_count(root.factor, lo, hi) != 1):
                bad.add(i)
        if not bad:
            for rec in listed:
                rec["interval"] = rec.pop("_J")
            return
        for i in bad:
            listed[i]["digits"] += 1
    raise PrecisionError("could not round the crossings inside disjoint isolating intervals")


def _crossings_by_elimination(a, b, rho_min, rho_max, dps):
    """Every crossing in [rho_min, rho_max] is a real root of R(rho) = Res_B(P_a(rho, B), P_b(rho, B)).
    All real roots of R near the range are isolated exactly (disjoint closed rational intervals,
    rational roots exactly, :func:`~symloss.meanfield.elimination.isolate_real_roots`); each one in
    the range is decided (:func:`_decide_root`): a crossing or a touch (sign of ``B_a - B_b``
    certified at dyadic loads on both sides, inside the gaps to the neighbouring roots of ``R``,
    and, where provable, the order of the zero), or not a crossing. Returns (records, info) or None."""
    try:
        P1 = a.eliminant()
        P2 = b.eliminant()
    except BudgetError:
        raise
    except (PrecisionError, AssertionError, NotImplementedError, ValueError):
        return None
    R = sp.Poly(sp.resultant(P1.as_expr(), P2.as_expr(), BSYM), RHO)
    if R.is_zero:
        return None
    lo_q, hi_q = _exact_bound(rho_min, "rho_min"), _exact_bound(rho_max, "rho_max")
    w_lo, w_hi = lo_q / 2, hi_q * 2
    window = isolate_real_roots(R, w_lo, w_hi)
    for r in window:          # irrational roots: refine until the interval is inside or outside the range
        while r.exact is None and not (r.hi < lo_q or r.lo > hi_q or (lo_q <= r.lo and r.hi <= hi_q)):
            r.refine((r.hi - r.lo) / 2)
    Pa, Pb = poly_in_b(P1), poly_in_b(P2)
    H = linear_subresultant(P1, P2)
    gcds: dict = {}
    records = []
    for i, root in enumerate(window):
        if not (lo_q <= root.lo and root.hi <= hi_q):
            continue
        rec = {"exact": root.exact, "factor": list(root.factor), "multiplicity": root.multiplicity,
               "order": None, "sign_change": None, "signs": None, "kind": "undecided", "certified": False,
               "reason": "", "listed": False, "_root": root}
        try:
            if root.factor not in gcds:
                gcds[root.factor] = _common_root_data(Pa, Pb, H, root.factor)
            rec["common_root"] = gcds[root.factor]["source"]
            status, info = _decide_root(a, b, Pa, Pb, gcds[root.factor], root)
            if status == "excluded":
                rec.update(kind="not a crossing", certified=True, reason=info, interval=(root.lo, root.hi))
                records.append(rec)
                continue
            order = info
            left = window[i - 1].hi if i > 0 else w_lo
            right = window[i + 1].lo if i + 1 < len(window) else w_hi
            try:
                sl = _sample_sign(a, b, Pa, Pb, _dyadic_in(max(left, root.lo * 3 / 4), root.lo))
                sr = _sample_sign(a, b, Pa, Pb, _dyadic_in(root.hi, min(right, root.hi * 5 / 4)))
            except _Undecided as exc:
                if order is None:
                    raise
                sl = sr = None
                rec["reason"] = f"sign change from the certified order only ({exc})"
            if sl is not None:
                change = sl != sr
                if order is not None and (order % 2 == 1) != change:
                    raise _Undecided(f"the certified order {order} and the certified signs {sl}, {sr} on both "
                                     "sides disagree")
            else:
                change = order % 2 == 1
            rec.update(kind="crossing" if change else "touch", sign_change=change, order=order,
                       signs=None if sl is None else (sl, sr), certified=True, listed=True)
        except (_Undecided, ArithmeticError) as exc:
            rec.update(kind="undecided", certified=False, order=None, sign_change=None, signs=None, listed=False,
                       reason=str(exc))
            mid = root.exact if root.exact is not None else (root.lo + root.hi) / 2
            try:
                with mpmath.workdps(dps + 20):
                    v = _logdiff_models(a, b, _fraction_to_mpf(mid, dps + 20), dps + 5)[0]
                rec["listed"] = bool(abs(v) < mpmath.mpf(10) ** (-(dps - 5)))
            except PrecisionError as exc2:
                rec["reason"] += f"; no numerical check either ({exc2})"
        records.append(rec)
    _round_values(records, window, dps)
    for rec in records:
        root = rec.pop("_root")
        rec.setdefault("interval", (root.lo, root.hi))
        rec.setdefault("value", None)
        rec.setdefault("digits", None)
        rec.setdefault("text", None)
    return records, {"resultant_degree": R.degree(), "isolated_roots": len(records), "window_roots": len(window)}


def _scan(a, b, rho_min, rho_max):
    """Adaptive float log-grid scan of D; returns (sign-change cells in log rho, evaluations, D)."""
    n_eval = 0
    lo_l, hi_l = math.log(float(rho_min)), math.log(float(rho_max))
    n0 = max(16, int(64 * (hi_l - lo_l) / math.log(10)))
    grid = [lo_l + (hi_l - lo_l) * i / n0 for i in range(n0 + 1)]
    vals = {}

    def D(l):
        nonlocal n_eval
        if l not in vals:
            n_eval += 1
            vals[l] = _float_logdiff(a, b, math.exp(l))
        return vals[l]
    for l in grid:
        D(l)
    cells = list(zip(grid[:-1], grid[1:]))
    sign_cells = []
    # the refinement test runs on asinh(D): the same signs, equal to D near 0 (where crossings are),
    # ~ log(2|D|) far from 0. Power-of-d's log-blocking reaches -1e302 at light loads, and a Lipschitz
    # test on D itself refined such cells 20 000 times (C = 1000) to no purpose.
    S = lambda l: math.asinh(D(l))  # noqa: E731
    while cells:
        x0, x1 = cells.pop()
        D0, D1 = D(x0), D(x1)
        if D0 == 0 or D1 == 0 or (D0 < 0) != (D1 < 0):
            sign_cells.append((x0, x1))
            continue
        D0, D1 = S(x0), S(x1)
        slope = abs(D1 - D0) / (x1 - x0)
        i_prev, i_next = x0 - (x1 - x0), x1 + (x1 - x0)
        neigh = [abs(S(i_next) - D1) / (x1 - x0) if i_next <= hi_l else 0.0,
                 abs(D0 - S(i_prev)) / (x1 - x0) if i_prev >= lo_l else 0.0]
        L = 4 * max([slope] + neigh)
        if min(abs(D0), abs(D1)) <= 2 * L * (x1 - x0) and x1 - x0 > 1e-8:
            m = (x0 + x1) / 2
            cells += [(x0, m), (m, x1)]
    return sorted(sign_cells), n_eval, D


def crossing_loads(model_a=None, model_b=None, dt=None, *, C=None, d=None, rho_min=0.01, rho_max=None,
                   dps: int = DEFAULT_DPS, method: str = "auto") -> CrossingResult:
    r"""Every load in ``[rho_min, rho_max]`` where the two models' blockings are equal.

    Call as ``crossing_loads(model_a, model_b)`` with any two :class:`~symloss.MeanFieldModel`, or
    with the shorthand ``crossing_loads(C, d, dt)`` (or ``C=.., d=.., dt=..``) for
    ``RetrialOfD(C, dt)`` against ``PowerOfD(C, d)``.

    Algorithm: :math:`D(\rho) = \log B_a - \log B_b` is sampled on a grid uniform in
    :math:`\log\rho` (64 cells per decade at least; float64 evaluations from the accelerators or the
    generic float continuation) and refined adaptively: a cell :math:`[\rho_1, \rho_2]` without a
    sign change is split while :math:`\min(|D(\rho_1)|, |D(\rho_2)|) \le 2 L (\log\rho_2 - \log\rho_1)`,
    where ``L`` bounds :math:`|dD/d\log\rho|` on the cell, estimated from the finite differences of
    the neighbouring cells times a safety factor 4. Guarantee (stated, not proved): no sign change
    of ``D`` is missed in a cell whose slope is within the factor 4 of its neighbours' and which is
    wider than :math:`10^{-8}` in :math:`\log\rho`; each crossing is then refined by bisection with
    certified signs (ball brackets of both blockings) to ``dps`` digits. ``rho_max`` defaults to
    ``50 C`` (``C`` of the first model that has one, else 50).

    With ``method="eliminant"`` (``"auto"`` uses it for the shorthand with ``C <= 2`` and
    ``d, dt <= 3``) the guarantee is a certificate. Every crossing is a real root of
    :math:`R(\rho) = \operatorname{Res}_B(P_a, P_b)`, the resultant in ``B`` of the two eliminants.
    ``R`` is factored over the integers; the real roots of each irreducible factor are isolated
    exactly (a linear factor gives its rational root exactly; otherwise exact Sturm counts and
    bisection), and the closed rational intervals are refined until no two of them meet. Each root in
    the range is then decided: it is a crossing when both blockings equal the common root in ``B`` of
    ``P_a`` and ``P_b`` there (the degree-1 subresultant, or the exact gcd over the root's factor, has
    a sign change over the hull of Krawczyk enclosures of both blockings, on which neither eliminant's
    ``B``-derivative vanishes), and it is not a crossing when the enclosures are disjoint (or there is
    no common root). A crossing carries its certified signs of ``B_a - B_b`` at dyadic loads just
    below and above (inside the gaps to the neighbouring roots of ``R``): "crossing" (sign change) or
    "touch" (no sign change, e.g. a tangential root), and, where provable, the order of the zero (the
    multiplicity of its factor in ``R``), which must agree in parity with the signs. The values are
    rounded from the isolating intervals: each returned value (and its printed ``text``) lies in the
    root's reported interval, which contains no other root and is disjoint from the others; where
    ``dps`` digits do not separate two roots, those two get the fewest more digits that do. The label
    starts with "certified" only when every root in the range was decided so; otherwise it starts with
    "EVIDENCE" and names the undecided roots (listed when the blockings agree to ``dps - 5`` digits
    there). The per-root records are in ``.roots``. Float ends of the range are read as the decimals
    they print as (``0.01`` is 1/100); other types exactly.

    Two identical models (same stationary system and blocking) are refused with a ``ValueError``.
    The shorthand also reads as keywords: ``crossing_loads(C=3, d=2, dt=3)``.

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        The two models (any definitions); or the integers ``C`` and ``d`` of the shorthand.
    dt : int, optional
        Third integer of the positional shorthand ``(C, d, dt)``.
    C, d : int, optional
        Keyword spelling of the shorthand (with ``dt``): ``RetrialOfD(C, dt)`` against
        ``PowerOfD(C, d)`` (``RandomRouting(C)`` for ``d = 1``), ``1 <= C <= 1000``,
        ``1 <= d, dt <= 64``.
    rho_min : float
        Lower end of the range, ``> 0``.
    rho_max : float, optional
        Upper end, ``> rho_min``; default ``50 C``.
    dps : int
        Significant digits of each crossing, ``5 <= dps <= 100000``.
    method : {"auto", "eliminant", "adaptive"}
        ``"eliminant"``: exact root isolation of the resultant (small models only);
        ``"adaptive"``: the scan; ``"auto"``: the eliminant for the shorthand with ``C <= 2`` and
        ``d, dt <= 3``, else the scan.

    Returns
    -------
    CrossingResult
        The crossings (increasing; touches included) and the guarantee that holds for them; with the
        eliminant method also ``roots`` (one record per root of the resultant in the range) and
        ``certified``.

    Raises
    ------
    TypeError
        If the models are neither two :class:`~symloss.MeanFieldModel` nor three integers, or both
        forms are given.
    ValueError
        If an argument is out of range, the two models coincide, or ``method="eliminant"`` is not
        tractable.
    PrecisionError
        If the sign of ``log B_a - log B_b`` cannot be certified near a crossing.

    See Also
    --------
    threshold_load, dominance

    References
    ----------
    .. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
       Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026).

    Examples
    --------
    Retrial-of-3 and power-of-2 at capacity 3 cross once, at the threshold load of [1]_:

    >>> import mpmath
    >>> from symloss import crossing_loads
    >>> res = crossing_loads(3, 2, 3, rho_max=20, dps=15)
    >>> [mpmath.nstr(c, 15) for c in res.crossings]
    ['0.949635604002727']

    Two models given as definitions:

    >>> from symloss import RetrialOfD, PowerOfD
    >>> crossing_loads(RetrialOfD(2, 3), PowerOfD(2, 2), rho_max=20, dps=15).crossings
    []

    Two user models (M/M/1/1 with arrival rates ``rho`` and ``rho (1 + (rho - 1)(rho - 1001/1000))``,
    blockings ``h/(1 + h)``) cross exactly at 1 and 1001/1000:

    >>> import sympy as sp
    >>> from symloss import RHO, define_model
    >>> u = sp.Symbol("u", nonnegative=True)
    >>> def mm11(g):
    ...     return define_model(f"g={g}", [u], [({u: 1}, RHO * g * (1 - u)), ({u: -1}, u)], blocking=u)
    >>> res = crossing_loads(mm11(1 + (RHO - 1) * (RHO - sp.Rational(1001, 1000))), mm11(sp.Integer(1)),
    ...                      rho_min=0.5, rho_max=2, dps=15, method="eliminant")
    >>> [(r["exact"], r["kind"], r["text"]) for r in res.roots], res.certified
    ([(Fraction(1, 1), 'crossing', '1.00000000000000'), (Fraction(1001, 1000), 'crossing', '1.00100000000000')], True)
    """
    model_a, model_b = _keyword_shorthand(model_a, model_b, C, d, "crossing_loads")
    a, b, (C, d, dtt) = _models(model_a, model_b, dt, "crossing_loads")
    check_real(rho_min, "rho_min", lower=0, lower_open=True)
    dps = check_dps(dps)
    if rho_max is None:
        rho_max = 50 * (getattr(a, "C", None) or getattr(b, "C", None) or 1)
    check_real(rho_max, "rho_max", lower=float(to_mpf(rho_min)), lower_open=True)
    if method not in ("auto", "eliminant", "adaptive"):
        raise ValueError(f"method must be 'auto', 'eliminant' or 'adaptive', got {method!r}")
    if _identical_models(a, b):
        raise ValueError(f"the two models have the same stationary equations and blocking ({a!r}, {b!r}): "
                         "their blockings are equal at every load, so there are no isolated crossings")
    if _equal_at_sample_loads(a, b, rho_min, rho_max):
        raise ValueError(f"{a!r} and {b!r} have equal blockings (to 25 digits) at three loads spread over "
                         f"[{rho_min}, {rho_max}]: they coincide (e.g. both are random routing for C = 1), so "
                         "there are no isolated crossings")
    names = (repr(a), repr(b))
    short = C is not None
    if method == "eliminant" or (method == "auto" and short and C <= 2 and max(d, dtt) <= 3):
        try:
            res = _crossings_by_elimination(a, b, rho_min, rho_max, dps)
        except BudgetError as exc:
            if method == "eliminant":
                raise BudgetError(f"method='eliminant': {exc}; or use method='adaptive'") from None
            res = None
        if res is not None:
            records, info = res
            return CrossingResult(C, d, dtt, [r["value"] for r in records if r["listed"]], rho_min, rho_max,
                                  info["isolated_roots"], _elimination_guarantee(records, info), names,
                                  roots=records, certified=all(r["certified"] for r in records))
        if method == "eliminant":
            raise ValueError(f"elimination is not tractable for {names[0]} vs {names[1]}; use method='adaptive'")
    cells, n_eval, _D = _scan(a, b, rho_min, rho_max)
    roots = [c for c in (_refine_crossing(a, b, mpmath.exp(x0), mpmath.exp(x1), dps) for x0, x1 in cells)
             if c is not None]
    return CrossingResult(C, d, dtt, roots, rho_min, rho_max, n_eval,
                          "adaptive log-grid with slope-based refinement (see docstring); each crossing "
                          "certified by sign changes of ball-bracketed blockings", names)


def _elimination_guarantee(records, info) -> str:
    """The label of an elimination result: "certified: ..." only when every root of the resultant in
    the range was decided with its certificate, else "EVIDENCE: ..." with the reasons."""
    n_c = sum(r["kind"] == "crossing" for r in records)
    n_t = sum(r["kind"] == "touch" for r in records)
    n_x = sum(r["kind"] == "not a crossing" for r in records)
    head = (f"every crossing is a real root of R = Res_B(P_a, P_b) (degree {info['resultant_degree']}); its "
            f"{len(records)} real root(s) in the range were isolated exactly in disjoint closed rational "
            "intervals (rational roots exactly) and each decided: ")
    tally = f"{n_c} crossing(s) (sign change), {n_t} touch(es) (no sign change), {n_x} not a crossing"
    if all(r["certified"] for r in records):
        return ("certified: " + head + tally + " -- equality from the common root in B of P_a and P_b (degree-1 "
                "subresultant, or exact gcd over the root's irreducible factor) and Krawczyk enclosures of both "
                "blockings (or excluded by disjoint enclosures), signs certified at dyadic loads on both sides, "
                "orders from the multiplicity in R where provable; each value lies in its own reported interval "
                "(see .roots)")
    why = "; ".join(f"root in [{r['interval'][0]}, {r['interval'][1]}]: {r['reason']}"
                    for r in records if not r["certified"])
    return "EVIDENCE: " + head + tally + f", {sum(not r['certified'] for r in records)} undecided ({why})"


def _leading_term(model):
    from .series import blocking_expansion
    return blocking_expansion(model, 0, 1).terms[0]


def threshold_load(model_a=None, model_b=None, dt=None, *, C=None, d=None, dps: int = DEFAULT_DPS, rho_max=None):
    r"""The load above which ``model_a`` blocks strictly less than ``model_b`` at every larger load
    (in the mean field); exactly 0 where that holds for every load.

    ``threshold_load(RetrialOfD(C, dt), PowerOfD(C, d))`` equals the shorthand
    ``threshold_load(C, d, dt)`` (retrial-of-``dt`` against power-of-``d``, ``dt > d``).

    Computed as the largest crossing of :func:`crossing_loads` on ``[10^-2, rho_max]``
    (``rho_max = 50 C`` by default). The sign at ``rho_max`` must be "a lower" (for the shorthand,
    both blockings are ``1 - C/rho + C/(d rho^2) + O(rho^-3)``, so retrial-of-dt is lower at large
    load), else a ``ValueError`` asks for a larger ``rho_max``. Without a crossing in range, 0 is
    returned when the sign at ``10^-2`` agrees with the exact small-load leading terms of both
    blockings (:func:`symloss.blocking_expansion`); otherwise ``[10^-6, 10^-2]`` is searched. Not
    excluded: a pair of crossings below ``10^-2`` between which the sign returns (use
    ``symloss verify`` for the certified cases).

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        The two models; or the integers ``C`` and ``d`` of the shorthand.
    dt : int, optional
        Third integer of the positional shorthand ``(C, d, dt)``, ``dt > d``.
    C, d : int, optional
        Keyword spelling of the shorthand (with ``dt``).
    dps : int
        Significant digits of the threshold, ``5 <= dps <= 100000``.
    rho_max : float, optional
        Largest load searched; default ``50 C``.

    Returns
    -------
    mpmath.mpf
        The threshold load, to ``dps`` digits (exactly 0 when ``a`` is lower at every load).

    Raises
    ------
    TypeError
        If the models are neither two :class:`~symloss.MeanFieldModel` nor three integers.
    ValueError
        If ``dt <= d`` in the shorthand, ``a`` is not lower at ``rho_max``, or the sign as
        ``rho -> 0`` is not settled.
    PrecisionError
        If a sign cannot be certified near a crossing.

    See Also
    --------
    crossing_loads, dominance, symloss.finite_n_threshold

    References
    ----------
    .. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
       Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026).

    Examples
    --------
    >>> from symloss import threshold_load
    >>> threshold_load(2, 2, 3, dps=10)
    mpf('0.0')
    >>> import mpmath
    >>> mpmath.nstr(threshold_load(3, 2, 3, dps=15), 15)
    '0.949635604002727'
    """
    model_a, model_b = _keyword_shorthand(model_a, model_b, C, d, "threshold_load")
    if _is_int_like(model_a):
        check_int(model_a, "C", min_value=1, max_value=1000)
        d0 = check_int(model_b, "d", min_value=1, max_value=64)
        dt0 = check_int(dt, "dt", min_value=1, max_value=64)
        if dt0 <= d0:
            raise ValueError(f"dt must be > d (got d={d0}, dt={dt0}): for dt <= d power-of-d blocks no more "
                             "than retrial-of-dt at every load")
    a, b, _ = _models(model_a, model_b, dt, "threshold_load")
    dps = check_dps(dps)
    if rho_max is None:
        rho_max = 50 * (getattr(a, "C", None) or getattr(b, "C", None) or 1)
    res = crossing_loads(a, b, rho_min=0.01, rho_max=rho_max, dps=dps)
    top = _logdiff_models(a, b, rho_max, 15)
    if not top[2] < 0:
        raise ValueError(f"{a!r} does not block less than {b!r} at rho_max={rho_max}; increase rho_max")
    if res.crossings:
        return res.crossings[-1]
    low = _logdiff_models(a, b, 0.01, 15)
    try:
        (c_a, e_a), (c_b, e_b) = _leading_term(a), _leading_term(b)
        a_lower_at_0 = e_a > e_b or (e_a == e_b and c_a < c_b)
        lead = f"{c_a} rho^{e_a} vs {c_b} rho^{e_b}"
    except (ValueError, TypeError, NotImplementedError, PrecisionError) as exc:
        a_lower_at_0, lead = None, f"no expansion at 0 ({exc})"
    if low[2] < 0 and a_lower_at_0:
        return mpmath.mpf(0)
    sub = crossing_loads(a, b, rho_min=1e-6, rho_max=0.01, dps=dps, method="adaptive")
    if sub.crossings:
        return sub.crossings[-1]
    if low[2] < 0 and a_lower_at_0 is None:
        raise ValueError(f"no crossing in [1e-6, {rho_max}] and {a!r} is lower there, but the sign as rho -> 0 "
                         f"is not settled ({lead})")
    raise ValueError(f"the sign below rho = 0.01 is not settled (leading terms {lead})")


def dominance(model_a, model_b, *, rho_min=0.01, rho_max=None, dps: int = 20) -> DominanceResult:
    """Does ``model_a`` block no more than ``model_b`` on ``[rho_min, rho_max]``?

    The crossings are found and certified as in :func:`crossing_loads`; the sign of
    ``log B_a - log B_b`` is certified (ball brackets) at one load inside each piece between
    consecutive crossings and at both ends. ``holds`` is True when every certified sign is <= 0
    (``a`` lower) and there is no crossing in the open range. This is EVIDENCE over the range (the
    scan's guarantee is stated, not proved); proofs for every load are the claims of
    ``symloss verify``.

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        The two models.
    rho_min : float
        Lower end of the range, ``> 0``.
    rho_max : float, optional
        Upper end, ``> rho_min``; default ``50 C``.
    dps : int
        Digits of the crossings and of the certified samples, ``5 <= dps <= 100000``.

    Returns
    -------
    DominanceResult
        ``holds``, the crossings and the certified sign on each piece.

    Raises
    ------
    TypeError
        If a model is not a :class:`~symloss.MeanFieldModel`.
    ValueError
        If the range is invalid or the two models coincide.
    PrecisionError
        If a sign cannot be certified.

    See Also
    --------
    crossing_loads, threshold_load

    References
    ----------
    .. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
       Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026).

    Examples
    --------
    >>> from symloss import RetrialOfD, PowerOfD, dominance
    >>> res = dominance(RetrialOfD(2, 3), PowerOfD(2, 2), rho_min=0.5, rho_max=10, dps=15)
    >>> res.holds, res.signs
    (True, [-1])
    """
    res = crossing_loads(model_a, model_b, rho_min=rho_min, rho_max=rho_max, dps=dps)
    a, b, _ = _models(model_a, model_b, None, "dominance")
    pts = [to_mpf(res.rho_min)] + list(res.crossings) + [to_mpf(res.rho_max)]
    signs, samples = [], []
    with mpmath.workdps(dps + 10):
        for lo, hi in zip(pts[:-1], pts[1:]):
            m = mpmath.sqrt(lo * hi)
            t = _logdiff_models(a, b, m, dps)
            s = _sign(t)
            signs.append(s)
            samples.append({"rho": mpmath.nstr(m, 12), "log_ratio": mpmath.nstr(t[0], 8), "sign": s})
    holds = not res.crossings and all(s < 0 for s in signs)
    return DominanceResult(res.models, holds, res.crossings, signs, res.rho_min, res.rho_max,
                           "EVIDENCE over the range: " + res.guarantee + "; the sign is certified at one load "
                           "in each piece", samples)
