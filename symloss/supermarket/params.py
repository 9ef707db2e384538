"""Arguments of the supermarket mean field: the checked ``d`` and ``lam``, and ``lam`` as an mpf, as an
exact SymPy number and through ``-log(lam)`` at any closeness to 1 (shared by :mod:`symloss.supermarket.meanfield`,
:mod:`symloss.supermarket.drift`, :mod:`symloss.supermarket.ode` and :mod:`symloss.supermarket.simulate`)."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from ..core.validation import check_int, real

__all__: list = []

MAX_LEVELS = 100_000        # fixed_point / drift / equations: at most this many levels s_1..s_K


def _check_lam(lam, name: str = "lam"):
    """``lam`` in (0, 1), exactly (int, float, Fraction, mpf; decimal strings such as ``"0.7"`` or
    ``"7/10"`` and numpy/flint/SymPy/Decimal numbers are converted exactly)."""
    try:
        v = real(lam, name, allow_str=True, lower=0, lower_open=True)
    except ValueError as exc:
        if isinstance(lam, str):
            raise ValueError(f"{name} must be a real number in (0, 1) such as 0.7 or 7/10, got {lam!r}") from exc
        raise
    if v >= 1:
        shown = str(v) if isinstance(v, Fraction) else repr(lam)
        raise ValueError(f"{name} must be in (0, 1): {name}={shown} >= 1 means the arrival rate per "
                         f"server is at least the service rate 1, so the system is unstable "
                         f"(queues grow without bound and there is no stationary regime)")
    return v


def _check_d(d) -> int:
    return check_int(d, "d", min_value=1)


def _lam_mpf(lam):
    """``lam`` as an mpf at the current working precision (exact for Fraction / int / str)."""
    if isinstance(lam, Fraction):
        return mpmath.mpf(lam.numerator) / lam.denominator
    if isinstance(lam, sp.Basic):
        return mpmath.mpf(sp.N(lam, mpmath.mp.dps + 5))
    return mpmath.mpf(lam)


def _one_minus_bits(lam) -> int:
    """Bits needed to resolve ``1 - lam`` (so that log(lam) keeps ~60 significant bits)."""
    if isinstance(lam, mpmath.mpf):
        with mpmath.workprec(max(64, lam.context.prec if hasattr(lam, "context") else 64) + 64):
            gap = mpmath.fsub(1, lam, exact=True)
        return max(0, -int(mpmath.floor(mpmath.log(gap, 2)))) if gap > 0 else 0
    g = 1 - Fraction(lam)
    return max(0, g.denominator.bit_length() - g.numerator.bit_length() + 1)


def _log_inv_lam(lam):
    """``-log(lam) > 0`` as an mpf with ~20 correct digits, however close ``lam`` is to 1 or 0."""
    bits = _one_minus_bits(lam)
    with mpmath.workprec(96 + bits):
        if isinstance(lam, mpmath.mpf):
            gap = mpmath.fsub(1, lam, exact=True)
        else:
            g = 1 - Fraction(lam)
            gap = mpmath.mpf(g.numerator) / g.denominator
        L = -mpmath.log1p(-gap) if gap < 0.5 else -mpmath.log(_lam_mpf(lam))
    return +L


def _lam_sympy(lam):
    """Exact SymPy number for ``lam`` (floats convert exactly via their binary value)."""
    if isinstance(lam, Fraction):
        return sp.Rational(lam.numerator, lam.denominator)
    if isinstance(lam, (int, np.integer)):
        return sp.Integer(int(lam))
    if isinstance(lam, float):
        m, e = lam.as_integer_ratio()
        return sp.Rational(m, e)
    if isinstance(lam, str):
        return sp.Rational(lam)
    if isinstance(lam, mpmath.mpf):
        man, exp = lam.man_exp
        return sp.Integer(man) * sp.Integer(2) ** exp
    return sp.nsimplify(lam)
