"""The certified steps of :func:`~symloss.erlang.erlang_b.erlang_b_capacity`: the square-root staffing
start, the sign of :math:`E(C, a) - \varepsilon` decided on balls (ties in exact rationals) and the walk to
the smallest certified ``C``. scipy's root finder and normal law are imported on first use (scipy.stats
is slow to import).
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from flint import fmpq

from ..core.precision import PrecisionError, flint_prec, to_arb
from ..core.validation import exact_real
from .balls import _ball, _magnitude_bits, _refine


def _sqrt_staffing_guess(a: float, leps: float) -> int:
    from scipy.optimize import brentq
    from scipy.stats import norm
    ltarget = leps + 0.5 * math.log(a)

    def h(beta):
        return norm.logpdf(beta) - norm.logcdf(beta) - ltarget
    try:
        beta = brentq(h, -30.0, 60.0)
    except ValueError:
        beta = 0.0
    return max(1, int(math.ceil(a + beta * math.sqrt(a))))


def _fraction(v) -> Fraction | None:
    """An exact canonical value (int, float, Fraction, mpf) as a Fraction; None when it would be huge."""
    if isinstance(v, mpmath.mpf):
        sign, man, exp, _ = v._mpf_
        if abs(exp) > 4000:
            return None
        f = Fraction(man) * Fraction(2) ** exp
        return -f if sign else f
    f = Fraction(v)
    if f.denominator.bit_length() > 4000 or f.numerator.bit_length() > 4000:
        return None
    return f


def _exact_erlang_b(C, a):
    """E(C, a) as an exact flint ``fmpq`` for integer C and a rational/binary a when the recursion's
    numbers stay small (``C * bits(a) <= 2e6``); else None."""
    if not isinstance(C, int):
        return None
    v = _fraction(exact_real(a, "a"))
    if v is None or C * (v.numerator.bit_length() + v.denominator.bit_length() + 1) > 2_000_000:
        return None
    q = fmpq(v.numerator, v.denominator)
    e = fmpq(1)
    for n in range(1, C + 1):
        e = q * e / (n + q * e)
    return e


def _ball_cmp_eps(C, a, eps) -> int:
    """Sign of E(C, a) - eps, decided with balls; a tie (possible only for rational values) is
    settled in exact rational arithmetic when the balls have not decided after three doublings.
    Raises PrecisionError when neither decides."""
    def ev(prec):
        with flint_prec(prec):
            return _ball(C, a, prec) - to_arb(eps)

    def decided(d):
        return bool(d > 0) or bool(d < 0)
    prec = 64 + _magnitude_bits(C, a)
    for _ in range(4):
        d = ev(prec)
        if decided(d):
            return 1 if d > 0 else -1
        prec *= 2
    ex = _exact_erlang_b(C, a)
    ev_eps = _fraction(exact_real(eps, "eps")) if ex is not None else None
    if ex is not None and ev_eps is not None:
        diff = ex - fmpq(ev_eps.numerator, ev_eps.denominator)
        return (diff > 0) - (diff < 0)
    d = _refine(ev, decided, f"the sign of E({C}, {a}) - {eps}", prec)
    return 1 if d > 0 else -1


def _certify_capacity(a, eps, C: int) -> int:
    # walk until E(C) <= eps < E(C-1) holds certainly
    for _ in range(1000):
        if _ball_cmp_eps(C, a, eps) > 0:
            C += 1
            continue
        if C > 0 and _ball_cmp_eps(C - 1, a, eps) <= 0:
            C -= 1
            continue
        return C
    raise PrecisionError("capacity search did not settle")  # pragma: no cover

