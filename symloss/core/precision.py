"""Precision policy: one place that decides how ``dps=`` is honoured.

Every arbitrary-precision function in symloss

* takes ``dps`` (decimal digits, default ``DEFAULT_DPS`` = 30), validated by :func:`check_dps`;
* computes inside :func:`working` (``mpmath.workdps`` with guard digits), so the global
  ``mpmath.mp`` precision is never changed after the call returns;
* returns :func:`rounded` values: ``mpmath.mpf`` rounded to ``dps`` significant digits;
* where it claims ``dps`` correct digits from a non-rigorous algorithm, checks the claim at a second
  precision with :func:`agree_at_two_precisions` and raises :class:`PrecisionError` otherwise.

Rigorous code paths use python-flint ``arb`` balls instead (:func:`arb_to_mpf`, :func:`to_arb`).
"""
from __future__ import annotations

import contextlib
import math
import numbers
from fractions import Fraction
from typing import Callable, Iterator

import mpmath
from flint import arb, ctx as flint_ctx, fmpq, fmpz

__all__ = [
    "DEFAULT_DPS",
    "GUARD_DPS",
    "PrecisionError",
    "check_dps",
    "working",
    "rounded",
    "dps_to_prec",
    "agree_at_two_precisions",
    "to_arb",
    "to_mpf",
    "mpf_to_str",
    "arb_to_mpf",
    "arb_relative_accuracy_ok",
    "flint_prec",
    "MAX_PREC",
    "raise_precision",
]

DEFAULT_DPS = 30
GUARD_DPS = 15
MIN_DPS = 5
MAX_DPS = 100_000
#: The one cap of every precision-raising loop (bits of working precision): beyond it a result is
#: reported as not certifiable (:func:`raise_precision`).
MAX_PREC = 1 << 20


class PrecisionError(ArithmeticError):
    """Raised when a result cannot be certified to the requested number of digits."""


def check_dps(dps, name: str = "dps") -> int:
    """Validate a requested number of decimal digits and return it as ``int``.

    Parameters
    ----------
    dps : int
        The requested number of significant decimal digits; an integer (not a ``bool``) in
        ``[MIN_DPS, MAX_DPS]`` = ``[5, 100000]``.
    name : str, optional
        The argument name used in the error message.

    Returns
    -------
    int
        ``dps`` as a plain ``int``.

    Raises
    ------
    TypeError
        When ``dps`` is not an integer (a ``bool`` is refused).
    ValueError
        When ``dps`` lies outside ``[MIN_DPS, MAX_DPS]``.
    """
    if isinstance(dps, bool) or not isinstance(dps, numbers.Integral):
        raise TypeError(f"{name} must be an integer in [{MIN_DPS}, {MAX_DPS}], got {dps!r}")
    dps = int(dps)
    if not MIN_DPS <= dps <= MAX_DPS:
        raise ValueError(f"{name} must be an integer in [{MIN_DPS}, {MAX_DPS}], got {dps}")
    return dps


def dps_to_prec(dps: int) -> int:
    """Binary precision (bits) carrying ``dps`` decimal digits.

    Parameters
    ----------
    dps : int
        Number of decimal digits.

    Returns
    -------
    int
        ``ceil(dps * log2(10)) + 4`` bits (four guard bits).
    """
    return int(math.ceil(dps * 3.321928094887362)) + 4


@contextlib.contextmanager
def working(dps: int, guard: int = GUARD_DPS) -> Iterator[int]:
    """Context: mpmath works at ``dps + guard`` digits; yields the working dps.

    The previous global precision is restored on exit, also when an exception escapes.

    Parameters
    ----------
    dps : int
        The number of digits the caller will return.
    guard : int, optional
        Guard digits added inside the context (default ``GUARD_DPS``).

    Yields
    ------
    int
        The working precision ``dps + guard`` in decimal digits.
    """
    w = dps + guard
    with mpmath.workdps(w):
        yield w


def rounded(x, dps: int):
    """Round an mpmath number (or anything mpmath converts) to ``dps`` significant digits.

    Parameters
    ----------
    x : mpmath.mpf, mpmath.mpc or number
        The value to round; a complex value (anything with an ``imag`` part other than the real
        scalar types) is rounded as an ``mpc``.
    dps : int
        Number of significant decimal digits to keep.

    Returns
    -------
    mpmath.mpf or mpmath.mpc
        ``x`` rounded to nearest at ``dps`` digits.
    """
    with mpmath.workdps(dps):
        if isinstance(x, (mpmath.mpc,)) or (hasattr(x, "imag") and not isinstance(x, (int, float, Fraction, mpmath.mpf))):
            return +mpmath.mpmathify(x)
        return +mpmath.mpf(x) if not isinstance(x, mpmath.mpf) else +x


def agree_at_two_precisions(compute: Callable[[int], object], dps: int, *, guard: int = GUARD_DPS,
                            what: str = "result"):
    """Evaluate ``compute(work_dps)`` at ``dps + guard`` and ``dps + 2*guard`` digits.

    The two values must agree to ``dps + 2`` significant digits (a zero must be zero at both).

    Parameters
    ----------
    compute : callable
        ``compute(work_dps)`` evaluates the result at ``work_dps`` decimal digits; it may return an
        mpf or a list/tuple of mpf (compared elementwise).
    dps : int
        The number of digits claimed for the result.
    guard : int, optional
        Guard digits: the evaluations run at ``dps + guard`` and ``dps + 2*guard`` digits.
    what : str, optional
        What is computed, for the error message.

    Returns
    -------
    mpmath.mpf or list or tuple
        The higher-precision value rounded to ``dps`` digits (a sequence of the same type as
        ``compute`` returned, rounded elementwise).

    Raises
    ------
    PrecisionError
        When the two evaluations disagree (or one is zero and the other is not).
    """
    lo = compute(dps + guard)
    hi = compute(dps + 2 * guard)
    tol = mpmath.mpf(10) ** (-(dps + 2))
    with mpmath.workdps(dps + 2 * guard):
        pairs = list(zip(lo, hi)) if isinstance(hi, (list, tuple)) else [(lo, hi)]
        for u, v in pairs:
            if v == 0 and u == 0:
                continue
            if v == 0 or abs(u - v) > tol * abs(v):
                raise PrecisionError(
                    f"{what}: values at {dps + guard} and {dps + 2 * guard} digits disagree "
                    f"({mpmath.nstr(u, 8)} vs {mpmath.nstr(v, 8)}); cannot certify {dps} digits")
    if isinstance(hi, (list, tuple)):
        return type(hi)(rounded(v, dps) for v in hi)
    return rounded(hi, dps)


def raise_precision(attempt: Callable[[int], tuple], prec: int, *, what: str, max_prec: int | None = None,
                    before: Callable[[int], None] | None = None, stall_after: int = 2):
    """The one precision-raising loop: run ``attempt(prec)`` at rising precision until it succeeds.

    Every "raise the precision until the ball is tight" loop in symloss is this function, so they
    share one cap (:data:`MAX_PREC`), one stall rule and one error.

    Parameters
    ----------
    attempt : callable
        ``attempt(prec) -> (done, value, need)``. ``done`` (bool): ``value`` is the answer.
        Otherwise ``need`` is ``None`` or a precision (bits) the attempt found it needs (the next
        attempt runs at ``max(2 * prec, need)``), and ``value`` is ``None`` or a float, the relative
        width the attempt reached (used by the stall rule).
    prec : int
        Starting precision in bits (at least 2).
    what : str
        What is computed, for the error message.
    max_prec : int, optional
        A lower cap than :data:`MAX_PREC` (a solver whose attempts cost more than ``prec**2``);
        must not exceed :data:`MAX_PREC`.
    before : callable, optional
        ``before(prec)`` runs before each attempt (a deadline check that may raise).
    stall_after : int, optional
        Give up when the reported width has failed to shrink by a factor of four this many times
        in a row (the algorithm has stopped gaining accuracy).

    Returns
    -------
    object
        The ``value`` of the first successful attempt.

    Raises
    ------
    PrecisionError
        When the cap is passed or the attempts stall.
    ValueError
        For a starting precision below 2 or a cap above :data:`MAX_PREC`.

    Examples
    --------
    >>> from flint import arb
    >>> def attempt(prec):
    ...     with flint_prec(prec):
    ...         x = arb(2).sqrt()
    ...         return (x.rad() < arb(10) ** -40, x, None)
    >>> x = raise_precision(attempt, 53, what="sqrt(2)")
    >>> bool(x.rad() < arb(10) ** -40)
    True
    """
    cap = MAX_PREC if max_prec is None else int(max_prec)
    if cap > MAX_PREC:
        raise ValueError(f"max_prec must be at most MAX_PREC = {MAX_PREC}, got {max_prec}")
    prec = int(prec)
    if prec < 2:
        raise ValueError(f"prec must be an integer >= 2, got {prec}")
    widths: list = []
    stalls = 0
    while prec <= cap:
        if before is not None:
            before(prec)
        done, value, need = attempt(prec)
        if done:
            return value
        if isinstance(value, float) and math.isfinite(value):
            if widths and not value < 0.25 * widths[-1]:
                stalls += 1
                if stalls >= stall_after:
                    widths.append(value)
                    raise PrecisionError(
                        f"{what} not certified: the relative width stopped shrinking as the precision rose "
                        f"({', '.join(f'{w:.3g}' for w in widths[-4:])} up to {prec} bits)")
            else:
                stalls = 0
            widths.append(value)
        prec = max(2 * prec, int(need)) if need is not None else 2 * prec
    raise PrecisionError(f"{what} not certified below {cap} bits of working precision")


# --- python-flint bridge --------------------------------------------------------------------------

@contextlib.contextmanager
def flint_prec(prec: int) -> Iterator[None]:
    """Context: python-flint arithmetic at ``prec`` bits; restores the previous setting.

    Parameters
    ----------
    prec : int
        Working precision of python-flint (``flint.ctx.prec``) in bits inside the context; the
        previous value is restored on exit, also when an exception escapes.

    Yields
    ------
    None
    """
    old = flint_ctx.prec
    flint_ctx.prec = int(prec)
    try:
        yield
    finally:
        flint_ctx.prec = old


def mpf_to_str(x) -> str:
    """Decimal string of an mpf with every digit its mantissa carries (not the ambient ``mp.dps``).

    Parameters
    ----------
    x : mpmath.mpf or number
        The value; a non-mpf is converted with ``mpmath.mpf`` at the current precision.

    Returns
    -------
    str
        ``x`` printed with ``max(15, bits * log10(2) + 1)`` significant digits, trailing zeros
        stripped.
    """
    x = mpmath.mpf(x) if not isinstance(x, mpmath.mpf) else x
    bc = x._mpf_[3]
    return mpmath.nstr(x, max(15, int(bc * 0.3010299956639812) + 1), strip_zeros=True)


def to_mpf(x):
    """Convert an accepted real scalar to mpf at the current mpmath precision (one rounding, to nearest).

    Parameters
    ----------
    x : number or str
        A real scalar of a type :mod:`symloss.core.validation` accepts: int, float, Fraction, mpf,
        Decimal, numpy and flint numbers, SymPy numbers, decimal strings. An ``arb`` ball gives its
        exact midpoint (:func:`arb_to_mpf`).

    Returns
    -------
    mpmath.mpf
        The value rounded to the current ``mpmath.mp`` precision.

    Raises
    ------
    TypeError, ValueError
        When ``x`` is not an accepted real scalar (raised by
        :func:`symloss.core.validation.exact_real`).
    """
    from .validation import exact_real
    if isinstance(x, arb):
        return arb_to_mpf(x)
    v = exact_real(x, "x", allow_str=True)
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / v.denominator
    return +mpmath.mpf(v) if not isinstance(v, mpmath.mpf) else +v


def _mpf_to_arb(x) -> arb:
    """An mpf as an exact ``arb`` point (the sign and every mantissa bit kept)."""
    if not mpmath.isfinite(x):
        raise ValueError(f"cannot convert {x} to a real ball")
    sign, man, exp, _ = x._mpf_
    if man == 0:
        return arb(0)
    return arb((fmpz(-man if sign else man), int(exp)))   # (mantissa, exponent): exact at any precision


def to_arb(x) -> arb:
    """Exact conversion of a real number to an ``arb`` ball (exact point where representable).

    Every type of :mod:`symloss.core.validation` is accepted (``int``, ``float``, ``Fraction``,
    ``mpmath.mpf``, ``Decimal``, numpy and flint numbers, SymPy numbers, decimal strings); a ball is
    returned unchanged. Binary values (floats, mpf, ``numpy.longdouble``) convert exactly; a
    non-dyadic rational (a Fraction, a decimal string) gives a ball of the current flint precision
    enclosing the value.

    Parameters
    ----------
    x : number, str or flint.arb
        The real value to convert.

    Returns
    -------
    flint.arb
        An exact point ball where ``x`` is dyadic, otherwise a ball at the current flint precision
        containing ``x``.

    Raises
    ------
    TypeError, ValueError
        When ``x`` is not an accepted real scalar, or is not finite.

    Examples
    --------
    >>> import mpmath
    >>> to_arb(mpmath.mpf(-0.5))
    -0.500000000000000
    """
    if isinstance(x, arb):
        return x
    t = type(x)
    if t is int or t is fmpz:          # fast paths for the hot callers (coefficient balls, codegen)
        return arb(x)
    if t is float:
        return _mpf_to_arb(mpmath.mpf(x))
    if t is mpmath.mpf:
        return _mpf_to_arb(x)
    if t is fmpq:
        return arb(x)
    from .validation import exact_real
    v = exact_real(x, "x", allow_str=True)
    if type(v) is int:
        return arb(v)
    if type(v) is float:
        return _mpf_to_arb(mpmath.mpf(v))   # a float is an exact 53-bit mpf
    if isinstance(v, mpmath.mpf):
        return _mpf_to_arb(v)
    if isinstance(v, Fraction):
        d = v.denominator
        if d & (d - 1) == 0:        # dyadic (e.g. an exact numpy.longdouble): exact point
            return arb((fmpz(v.numerator), -(d.bit_length() - 1)))
        return arb(fmpq(v.numerator, d))
    raise TypeError(f"cannot convert {type(x).__name__} to a real ball")  # pragma: no cover


def arb_to_mpf(x: arb):
    """The exact midpoint of an ``arb`` ball as an ``mpmath.mpf`` (no rounding).

    Parameters
    ----------
    x : flint.arb
        The ball; its radius is ignored.

    Returns
    -------
    mpmath.mpf
        The midpoint, carrying every bit of its mantissa (independent of ``mp.prec``).
    """
    man, exp = x.mid().man_exp()
    # make_mpf does not round: the mpf carries every bit of the midpoint
    return mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(int(man), int(exp)))


def arb_relative_accuracy_ok(x: arb, dps: int) -> bool:
    """Whether the ball ``x`` determines ``dps`` significant digits.

    Parameters
    ----------
    x : flint.arb
        The ball to test.
    dps : int
        Number of decimal digits required.

    Returns
    -------
    bool
        True when ``x`` is finite and either exact, or excludes zero with a relative radius below
        ``10^-(dps+1)``.
    """
    if not x.is_finite():
        return False
    if x.is_exact():
        return True
    lo = x.abs_lower()
    if not lo > 0:
        return False
    return bool(x.rad() < lo * arb(10) ** (-(dps + 1)))
