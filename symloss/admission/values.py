"""Parameter values of the admission network: the accepted range, exact rationals of the inputs and
their mpmath values (shared by :mod:`.network` and its solvers)."""
from __future__ import annotations

from fractions import Fraction

import mpmath

from ..core.validation import check_real, real_float

__all__ = ["PARAM_RANGE", "exact_fraction", "is_rational", "mpf_of", "network_param"]

PARAM_RANGE = (1e-100, 1e100)   # rates and rewards: float rewards, logs and event rates stay finite


def is_rational(x) -> bool:
    """True for an exact rational input (``int`` or ``Fraction``, not ``bool``).

    Parameters
    ----------
    x : object
        A rate or a reward of the network, as the caller gave it.

    Returns
    -------
    bool
        Whether ``x`` is an ``int`` (not a ``bool``) or a ``Fraction``.
    """
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


def exact_fraction(x) -> Fraction:
    """An exact canonical value (int, float, Fraction, mpf inside PARAM_RANGE) as a Fraction.

    Parameters
    ----------
    x : int, float, Fraction or mpmath.mpf
        A checked parameter value.

    Returns
    -------
    Fraction
        Its exact value (a float or mpf as its binary value).

    Examples
    --------
    >>> exact_fraction(0.5), exact_fraction(mpmath.mpf(3) / 4)
    (Fraction(1, 2), Fraction(3, 4))
    """
    if isinstance(x, mpmath.mpf):
        sign, man, exp, _ = x._mpf_
        f = Fraction(man) * Fraction(2) ** exp
        return -f if sign else f
    return Fraction(x)


def mpf_of(x):
    """``x`` as an mpmath number at the current working precision (a ``Fraction`` divided exactly).

    Parameters
    ----------
    x : int, float, Fraction or mpmath.mpf
        A parameter value.

    Returns
    -------
    mpmath.mpf
    """
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def _arb_ball(v) -> bool:
    return type(v).__name__ == "arb"


def network_param(x, name: str):
    """A rate or reward of the network: a real number in ``PARAM_RANGE``, a point value (not a ball).

    Parameters
    ----------
    x : real
        The value given.
    name : str
        The argument name, for the error message.

    Returns
    -------
    real
        ``x`` as checked (exact types kept).

    Raises
    ------
    ValueError, TypeError
        Outside the range, not real, or an ``arb`` ball.
    """
    v = check_real(x, name, lower=0, lower_open=True)
    if _arb_ball(v):
        raise ValueError(f"{name} must be a point value, got the ball {v}")
    f = real_float(v, name)
    lo, hi = PARAM_RANGE
    if not lo <= f <= hi:
        shown = f"{f:.6g}" if 0 < f < float("inf") else repr(x)    # not a 300-digit Fraction repr
        raise ValueError(f"{name} must be a real number in [{lo:g}, {hi:g}] (so that rewards, logs and event "
                         f"rates stay inside the float range), got {shown}")
    return v
