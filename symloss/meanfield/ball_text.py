"""Exact numbers and balls as the text stored in certificates (rationals ``"p/q"``, outward-rounded
decimal balls and bounds), for the certified comparisons; re-exported by
:mod:`symloss.meanfield.enclosures`.
"""
from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, fmpq

from ..core.series_result import big_int_str


def parse_q(s) -> Fraction:
    """A rational from ``"p/q"`` or ``"p"`` (as stored in certificates); rejects floats.

    Parameters
    ----------
    s : str, int or Fraction
        The stored rational.

    Returns
    -------
    fractions.Fraction
        The value (a Fraction is returned unchanged).

    Raises
    ------
    TypeError
        When ``s`` is not a string, an int or a Fraction (a ``bool`` is refused).
    ValueError
        When the string holds anything but digits, ``-`` and ``/`` (a float such as ``"0.5"`` is
        refused), or is empty.
    """
    if isinstance(s, Fraction):
        return s
    if isinstance(s, bool) or not isinstance(s, (str, int)):
        raise TypeError(f"expected a rational string 'p/q', got {s!r}")
    s = str(s).strip()
    if not s or any(ch not in "0123456789-/" for ch in s):
        raise ValueError(f"expected a rational string 'p/q', got {s!r}")
    # (beyond Python's 4300-digit limit on decimal integers: the limit states of power-of-3 tails at
    # C = 12 have denominators of ~10^5 digits)
    with big_int_str():
        return Fraction(s)


def q_str(x) -> str:
    """A rational as the text stored in certificates (``"p/q"``, or ``"p"`` for an integer).

    Parameters
    ----------
    x : rational
        The value (converted exactly to a Fraction).

    Returns
    -------
    str
    """
    x = Fraction(x)
    with big_int_str():                  # (any length: see parse_q)
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def q_arb(x) -> arb:
    """Exact ball of a rational.

    Parameters
    ----------
    x : rational
        The value, as in :func:`q_str`.

    Returns
    -------
    flint.arb
        An exact point ball where ``x`` is dyadic, otherwise a ball at the current flint precision
        containing ``x``.
    """
    x = Fraction(x)
    return arb(fmpq(x.numerator, x.denominator))


def ball_str(x: arb, digits: int = 20) -> str:
    """Outward-rounded decimal text of a ball (``arb`` parses it back to a ball containing ``x``).

    Parameters
    ----------
    x : flint.arb
        The ball.
    digits : int, optional
        Significant digits of the midpoint.

    Returns
    -------
    str
        The text ``"mid +/- rad"`` (python-flint's ``radius=True, more=True`` form).
    """
    return x.str(digits, radius=True, more=True)


def stored_sign(x: arb, digits: int = 12) -> tuple:
    """``(text, sign)``: the stored text of a ball and the sign *of the ball that text parses to* (+1, -1,
    or 0 when it contains zero). A certificate stores the text, and its re-check decides the sign from
    the parsed ball, whose radius the outward rounding of :func:`ball_str` can widen past zero: a sign
    decided on ``x`` itself could then not be re-checked.

    Parameters
    ----------
    x : arb
        The ball.
    digits : int, optional
        Significant digits of the text.

    Returns
    -------
    tuple of (str, int)

    Examples
    --------
    >>> from flint import arb
    >>> stored_sign(arb(0.5, 0.1))
    ('[0.500000000000 +/- 0.101]', 1)
    """
    text = ball_str(x, digits)
    b = parse_ball(text)
    return text, (1 if b > 0 else (-1 if b < 0 else 0))


def parse_ball(s) -> arb:
    """The ball stored as text (:func:`ball_str`); refuses a non-string or a non-finite ball.

    Parameters
    ----------
    s : str
        The stored ball.

    Returns
    -------
    flint.arb
    """
    if not isinstance(s, str):
        raise TypeError(f"expected a ball string, got {s!r}")
    b = arb(s)
    if not b.is_finite():
        raise ValueError(f"stored ball {s!r} is not finite")
    return b


def _arb_exact_to_fraction(x: arb) -> Fraction:
    m, e = x.mid().man_exp()
    m, e = int(m), int(e)
    return Fraction(m) * (Fraction(2) ** e)


def _ball_ends(x: arb):
    """The exact end points ``mid -+ rad`` of a ball as Fractions (independent of the precision)."""
    m = _arb_exact_to_fraction(arb(x.mid()))
    r = _arb_exact_to_fraction(arb(x.rad()))
    return m - r, m + r


def dec_down(x: arb, digits: int) -> str:
    """A decimal string ``<= every point of x`` with ``digits`` significant digits.

    Parameters
    ----------
    x : flint.arb
        The ball, bounded from below.
    digits : int
        Significant digits.

    Returns
    -------
    str
        The lower end point ``mid - rad`` rounded down to ``digits`` significant digits, in
        fixed-point notation.
    """
    return _dec(_ball_ends(x)[0], digits, down=True)


def dec_up(x: arb, digits: int) -> str:
    """A decimal string ``>= every point of x`` with ``digits`` significant digits (the upper
    counterpart of :func:`dec_down`).

    Parameters
    ----------
    x : flint.arb
        The ball, bounded from above.
    digits : int
        Significant digits of the bound.

    Returns
    -------
    str
        The upper end point ``mid + rad`` rounded up, in fixed-point notation.
    """
    return _dec(_ball_ends(x)[1], digits, down=False)


def _dec(f: Fraction, digits: int, down: bool) -> str:
    if f == 0:
        return "0"
    e = len(str(abs(f.numerator))) - len(str(f.denominator))
    if abs(f) < Fraction(10) ** e:
        e -= 1
    scale = Fraction(10) ** (digits - 1 - e)
    v = f * scale
    n = math.floor(v) if down else math.ceil(v)
    out = Fraction(n) / scale
    assert (out <= f) if down else (out >= f)
    # render without exponent surprises: integer mantissa and power of ten
    k = digits - 1 - e
    s = str(abs(n))
    if k > 0:
        s = s.rjust(k + 1, "0")
        s = s[:-k] + "." + s[-k:]
    else:
        s = s + "0" * (-k)
    return ("-" if n < 0 else "") + s


# ==================================================================================================
