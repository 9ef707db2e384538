r"""The one input layer: every public function converts its numeric arguments here.

Accepted real scalars, each converted **exactly** (no rounding happens in this module unless a
function asks for a float, see below):

=================================================  ==================================================
input                                              exact value kept as
=================================================  ==================================================
``int``, numpy integers, flint ``fmpz``,            ``int``
SymPy ``Integer``
``float``, ``numpy.float16/32/64``                  ``float`` (the binary value)
``numpy.longdouble``                                ``float`` when it is a float64 value, else the
                                                    exact ``Fraction``
``fractions.Fraction``, flint ``fmpq``,             ``Fraction``
SymPy ``Rational``, ``decimal.Decimal``,
decimal strings (only where a function says so)
``mpmath.mpf``, SymPy ``Float``, exact flint        ``mpmath.mpf`` (every bit of the mantissa)
``arb`` (radius 0)
flint ``arb`` with a radius                         the ball itself, only where a function accepts
                                                    balls (otherwise ``ValueError``)
0-d numpy arrays of a real dtype                    as their scalar
=================================================  ==================================================

Rejected with a ``TypeError`` that names the argument: ``bool`` (also ``numpy.bool_``), complex
numbers of every kind, ``str``/``bytes`` where not documented, ``None``, containers, and every other
object. NaN and infinities are a ``ValueError``. Decimal strings are read with their exponent
checked first (``|exponent| <= 100000``), so ``"1e99999999"`` is refused at once instead of
building a hundred-million-digit integer.

Float paths (:func:`real_float`, :func:`as_float_array`) take the exact value and round it **once to
the nearest float64** (ties to even); a non-zero value that would round to 0 or to infinity is a
``ValueError`` naming the argument, never a silent 0 or ``inf``.

Sizes and budgets (:func:`check_budget`, :class:`Deadline`) are checked *before* work starts: the
error (:class:`BudgetError`, a ``ValueError``) names the argument, the estimate and the limit.

The historical helpers :func:`check_int`, :func:`check_real`, :func:`real_to_float`,
:func:`check_probability`, :func:`check_choice` and :func:`as_float_array` keep their signatures and
delegate to this layer.

The layer lives in modules of their own, all re-exported here: :mod:`~symloss.core.real_numbers`
(scalars), :mod:`~symloss.core.real_arrays` (arrays) and :mod:`~symloss.core.budgets` (sizes, budgets,
deadlines); this module keeps the historical names.
"""
from __future__ import annotations

from .budgets import (  # noqa: F401 - re-exported
    DEFAULT_MAX_BYTES,
    BudgetError,
    Deadline,
    TimeLimitExceeded,
    check_budget,
    check_max_bytes,
    check_max_seconds,
    check_output_path,
)
from .real_arrays import (  # noqa: F401 - re-exported
    _array_type_error,
    _check_array_range,
    _from_sequence,
    _object_array,
    real_array,
)
from .real_numbers import (  # noqa: F401 - re-exported
    _DEC_RE,
    _FRAC_RE,
    _HAVE_SYMPY,
    _MAX_DECIMAL_DIGITS,
    _PLAIN,
    ACCEPTED_REALS,
    MAX_DECIMAL_EXPONENT,
    _arb,
    _check_range,
    _cmp,
    _fmpq,
    _fmpz,
    _fmt_bound,
    _from_arb,
    _from_decimal,
    _from_numpy,
    _from_sympy,
    _int_range_text,
    _interval_text,
    _mpf_check,
    _mpf_from_man_exp,
    _show,
    _sign,
    _to_float_exact,
    _type_error,
    boolean,
    choice,
    exact_real,
    integer,
    parse_decimal,
    real,
    real_float,
)

__all__ = [  # the historical check_int, check_real, ... as_float_array keep their signatures
    "ACCEPTED_REALS", "DEFAULT_MAX_BYTES", "MAX_DECIMAL_EXPONENT", "BudgetError", "Deadline", "TimeLimitExceeded",
    "as_float_array", "boolean", "check_budget", "check_choice", "check_int", "check_max_bytes",
    "check_max_seconds",
    "check_probability", "check_real", "choice", "exact_real", "integer", "parse_decimal", "real",
    "real_array", "real_float", "real_to_float",
]

#: the docstring examples of the names that moved to other modules still run with this module's (doctest)
__test__ = {name: globals()[name] for name in (
    "parse_decimal", "exact_real", "real", "real_float", "integer", "boolean", "choice", "real_array",
    "check_max_seconds", "check_max_bytes", "check_budget", "Deadline", "check_output_path")}

# --------------------------------------------------------------------------------------------------
# historical names (kept with their signatures; they delegate to the layer above)
# --------------------------------------------------------------------------------------------------

def check_int(x, name: str, *, min_value: int | None = None, max_value: int | None = None) -> int:
    """Return ``x`` as ``int`` after checking its type and range (see :func:`integer`).

    Parameters
    ----------
    x, name, min_value, max_value
        As in :func:`integer`, which this delegates to.

    Returns
    -------
    int
        What :func:`integer` returns (its errors too).

    Examples
    --------
    >>> check_int(4, "N", min_value=1)
    4
    """
    return integer(x, name, min_value=min_value, max_value=max_value)


def check_real(x, name: str, *, lower=None, upper=None, lower_open: bool = False,
               upper_open: bool = False):
    """Check that ``x`` is a finite real number in the given interval and return its exact value
    (:func:`real`): ``int``, ``float``, ``Fraction`` or ``mpf`` — no precision is lost; numpy,
    flint, Decimal and SymPy numbers come back as one of these. A flint ball with a radius is
    returned as the ball (its midpoint is range-checked).

    Parameters
    ----------
    x, name, lower, upper, lower_open, upper_open
        As in :func:`real` (called with ``allow_ball=True``).

    Returns
    -------
    int, float, fractions.Fraction, mpmath.mpf or flint.arb
        The exact value of ``x``, a ball with a radius as the ball (errors as :func:`real`).

    Examples
    --------
    >>> check_real(1.5, "rho", lower=0, lower_open=True)
    1.5
    """
    return real(x, name, lower=lower, upper=upper, lower_open=lower_open, upper_open=upper_open,
                allow_ball=True)


def real_to_float(x) -> float:
    """The nearest float64 to any accepted real scalar (exact conversion first, one rounding).

    Parameters
    ----------
    x : object
        A real scalar (a flint ball gives its midpoint).

    Returns
    -------
    float
        The rounded value (errors as :func:`real_float`, the argument named ``x``).

    Examples
    --------
    >>> from fractions import Fraction
    >>> real_to_float(Fraction(1, 4))
    0.25
    """
    return real_float(x, "x") if not (_arb and isinstance(x, _arb)) else \
        _to_float_exact(exact_real(x, "x", allow_ball=True), "x", x)


def check_probability(x, name: str):
    """A number in the open interval (0, 1); returns its exact value.

    Parameters
    ----------
    x, name
        As in :func:`check_real`, with the range ``(0, 1)``.

    Returns
    -------
    int, float, fractions.Fraction, mpmath.mpf or flint.arb
        The exact value of ``x``, strictly between 0 and 1.

    Examples
    --------
    >>> check_probability(0.25, "p")
    0.25
    """
    return check_real(x, name, lower=0, upper=1, lower_open=True, upper_open=True)


def check_choice(x, name: str, choices):
    """One of ``choices`` (see :func:`choice`).

    Parameters
    ----------
    x, name, choices
        As in :func:`choice`, which this delegates to.

    Returns
    -------
    object
        ``x`` (errors as :func:`choice`).

    Examples
    --------
    >>> check_choice(2, "d", (1, 2))
    2
    """
    return choice(x, name, choices)


def as_float_array(x, name: str, *, lower=None, lower_open=False, upper=None, upper_open=False):
    """Convert to a float64 array and check every element; the error names the first bad index
    (see :func:`real_array`).

    Parameters
    ----------
    x, name, lower, lower_open, upper, upper_open
        As in :func:`real_array`, which this delegates to.

    Returns
    -------
    numpy.ndarray
        What :func:`real_array` returns (its errors too).

    Examples
    --------
    >>> as_float_array((0.5, 1), "x", lower=0).tolist()
    [0.5, 1.0]
    """
    return real_array(x, name, lower=lower, lower_open=lower_open, upper=upper, upper_open=upper_open)
