"""Exact and dyadic arithmetic for the eliminant path of :func:`~symloss.meanfield.compare.crossing_loads`:
rational/dyadic conversions and hulls, evaluation of an eliminant on balls, the common-root data of two
eliminants, the sign change of a gcd, certified signs of ``B_a - B_b`` at sample loads and the rounding
of the records; re-exported by :mod:`symloss.meanfield.compare` (which keeps the root decisions, so
that a test replacing ``compare._blocking_ball`` reaches them)."""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from flint import arb, arb_poly, fmpq_poly, fmpz

from ..core.certify import solve
from ..core.precision import PrecisionError, flint_prec, rounded
from ..core.validation import exact_real
from .elimination import RealRoot, common_factor_mod, sturm_count

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
