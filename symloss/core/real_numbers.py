r"""Real scalars of the input layer: exact conversion of every accepted real type (:func:`exact_real`,
:func:`parse_decimal`), exact range checks (:func:`real`), one rounding to float64 (:func:`real_float`),
integers, booleans and choices. See :mod:`symloss.core.validation` (which re-exports every name) for
the table of accepted types.
"""
from __future__ import annotations

import decimal
import math
import numbers
import re
from fractions import Fraction

import mpmath
import numpy as np
from mpmath.libmp import round_nearest, to_float

from ._docfragments import CORE_DOCS
from .docstrings import fill_doc

ACCEPTED_REALS = ("int, float, fractions.Fraction, decimal.Decimal, mpmath.mpf, a numpy integer or real "
                  "float scalar, a python-flint fmpz/fmpq/arb or a SymPy number")
MAX_DECIMAL_EXPONENT = 100_000
_MAX_DECIMAL_DIGITS = 100_000

try:  # python-flint is a hard dependency; the guard keeps this module importable without it
    from flint import arb as _arb, fmpq as _fmpq, fmpz as _fmpz
except ImportError:  # pragma: no cover
    _arb = _fmpq = _fmpz = ()

try:
    import sympy as _sp_mod  # noqa: F401  (imported lazily below; only the classes are needed)
    _HAVE_SYMPY = True
except ImportError:  # pragma: no cover
    _HAVE_SYMPY = False


# --------------------------------------------------------------------------------------------------
# scalars
# --------------------------------------------------------------------------------------------------

def _show(x) -> str:
    r = repr(x)
    return r if len(r) <= 80 else r[:77] + "..."


def _type_error(x, name, what):
    return TypeError(f"{name} must be {what}, got {type(x).__name__} {_show(x)}")


_DEC_RE = re.compile(r"^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$")
_FRAC_RE = re.compile(r"^\s*([+-]?\d+)\s*/\s*([+-]?\d+)\s*$")


def parse_decimal(text, name: str):
    """Read a decimal string (``"0.7"``, ``"-1.5e-3"``, ``"12"``) or a ratio ``"p/q"`` exactly.

    The exponent is checked before any big integer is built (``|exponent| <= MAX_DECIMAL_EXPONENT``);
    ``nan``, ``inf`` and other text are a ``ValueError``.

    Parameters
    ----------
    text : str
        The decimal or ratio text.
    name : str
        The argument's name, for the error messages.

    Returns
    -------
    int or fractions.Fraction

    Raises
    ------
    ValueError
        For text that is not a decimal or a ratio, or an exponent beyond ``MAX_DECIMAL_EXPONENT``.
    TypeError
        For bytes or a non-string.

    Examples
    --------
    >>> parse_decimal("-1.5e-3", "rho"), parse_decimal("2/4", "rho")
    (Fraction(-3, 2000), Fraction(1, 2))
    """
    if isinstance(text, bytes):
        raise _type_error(text, name, "a decimal string")
    s = str(text)
    m = _FRAC_RE.match(s)
    if m:
        p, q = m.group(1), m.group(2)
        if len(p) > _MAX_DECIMAL_DIGITS or len(q) > _MAX_DECIMAL_DIGITS:
            raise ValueError(f"{name}: {_show(text)} has more than {_MAX_DECIMAL_DIGITS} digits")
        q = int(q)
        if q == 0:
            raise ValueError(f"{name} must be a real number, got {_show(text)} (zero denominator)")
        v = Fraction(int(p), q)
        return int(v) if v.denominator == 1 else v
    m = _DEC_RE.match(s)
    if not m or not (m.group(2) or m.group(3)):
        raise ValueError(f"{name} must be a real number written as a decimal (such as 0.7, -1.5e-3, 12) "
                         f"or a ratio p/q, got {_show(text)}")
    sign, ip, fp, ex = m.group(1), m.group(2) or "", m.group(3) or "", m.group(4)
    if len(ip) + len(fp) > _MAX_DECIMAL_DIGITS:
        raise ValueError(f"{name}: {_show(text)} has more than {_MAX_DECIMAL_DIGITS} digits")
    if ex is not None and len(ex.lstrip("+-").lstrip("0")) > 7:
        raise ValueError(f"{name}: the exponent of {_show(text)} is outside [-{MAX_DECIMAL_EXPONENT}, "
                         f"{MAX_DECIMAL_EXPONENT}]")
    e = int(ex) if ex is not None else 0
    if abs(e) > MAX_DECIMAL_EXPONENT:
        raise ValueError(f"{name}: the exponent {e} of {_show(text)} is outside [-{MAX_DECIMAL_EXPONENT}, "
                         f"{MAX_DECIMAL_EXPONENT}]")
    digits = int((ip + fp) or "0")
    e -= len(fp)
    v = Fraction(digits * 10 ** e) if e >= 0 else Fraction(digits, 10 ** -e)
    if sign == "-":
        v = -v
    return int(v) if v.denominator == 1 else v


def _from_decimal(x: decimal.Decimal, name):
    if not x.is_finite():
        raise ValueError(f"{name} must be a finite real number, got {_show(x)}")
    t = x.as_tuple()
    if abs(t.exponent) > MAX_DECIMAL_EXPONENT or len(t.digits) > _MAX_DECIMAL_DIGITS:
        raise ValueError(f"{name}: the exponent of {_show(x)} is outside [-{MAX_DECIMAL_EXPONENT}, "
                         f"{MAX_DECIMAL_EXPONENT}]")
    v = Fraction(x)
    return int(v) if v.denominator == 1 else v


def _mpf_check(x, name):
    if not mpmath.isfinite(x):
        raise ValueError(f"{name} must be a finite real number, got {_show(x)}")
    return x


def _mpf_from_man_exp(man: int, exp: int):
    return mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(int(man), int(exp)))


def _from_arb(x, name, allow_ball):
    if not x.is_finite():
        raise ValueError(f"{name} must be a finite real number, got the ball {x}")
    if x.is_exact():
        man, exp = x.mid().man_exp()
        return _mpf_from_man_exp(int(man), int(exp))
    if allow_ball:
        return x
    raise ValueError(f"{name} must be a point value; got the ball {x.str(10)} of radius {x.rad().str(3)} "
                     f"(pass its midpoint, {name}.mid(), or use the ball variant of this function)")


def _from_sympy(x, name):
    import sympy as sp
    if isinstance(x, sp.Integer):
        return int(x)
    if isinstance(x, sp.Rational):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, sp.Float):
        s, man, exp, _bc = x._mpf_
        if x._mpf_ in (mpmath.libmp.fnan, mpmath.libmp.finf, mpmath.libmp.fninf):
            raise ValueError(f"{name} must be a finite real number, got {_show(x)}")
        return _mpf_from_man_exp(-man if s else man, exp)
    if x in (sp.nan, sp.oo, -sp.oo, sp.zoo):
        raise ValueError(f"{name} must be a finite real number, got {_show(x)}")
    if x.is_number and x.is_real is False:
        raise _type_error(x, name, "a real number (not complex)")
    raise _type_error(x, name, "a real number: an explicit SymPy number (Integer, Rational, Float), not an "
                               "expression; evaluate it first, e.g. sympy.Rational(...) or expr.evalf(50)")


def _from_numpy(x, name):
    if isinstance(x, np.bool_):
        raise _type_error(x, name, "a real number (not a boolean)")
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        if not np.isfinite(x):
            raise ValueError(f"{name} must be a finite real number, got {_show(x)}")
        if x.dtype.itemsize <= 8:
            return float(x)                     # float16/32/64 -> float64 is exact
        f = float(x)                            # longdouble: keep exact when it is not a float64 value
        if math.isfinite(f) and np.longdouble(f) == x:
            return f
        n, d = x.as_integer_ratio()
        return Fraction(n, d)
    if isinstance(x, np.complexfloating):
        raise _type_error(x, name, "a real number (not complex)")
    raise _type_error(x, name, f"a real number ({ACCEPTED_REALS})")


_PLAIN = {int: None, float: None, Fraction: None}


@fill_doc(CORE_DOCS)
def exact_real(x, name: str, *, allow_str: bool = False, allow_ball: bool = False):
    """``x`` as an exact ``int``, ``float``, ``Fraction`` or ``mpf`` (see the module table).

    Parameters
    ----------
    x : object
        A real scalar (Python, numpy, flint, Decimal, SymPy, mpmath).
    {{param_name}}
    allow_str : bool, optional
        Also read decimal strings (:func:`parse_decimal`).
    allow_ball : bool, optional
        Return a flint ``arb`` with a non-zero radius as the ball (otherwise a ``ValueError``).

    Returns
    -------
    int, float, fractions.Fraction, mpmath.mpf or flint.arb
        The same number, exactly: a canonical type by the module table (a decimal string as a
        ``Fraction``; a ball only with ``allow_ball``).

    Raises
    ------
    TypeError
        For a type outside the module table.
    ValueError
        For NaN, an infinity, or a ball without ``allow_ball``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> exact_real(Fraction(1, 3), "rho"), exact_real("0.5", "rho", allow_str=True)
    (Fraction(1, 3), Fraction(1, 2))
    """
    t = type(x)
    if t is int:
        return x
    if t is float:
        if x - x != 0.0:       # nan or inf
            raise ValueError(f"{name} must be a finite real number, got {x!r}")
        return x
    if t is Fraction:
        return x
    if t is mpmath.mpf:
        return _mpf_check(x, name)
    if isinstance(x, (bool, np.bool_)):
        raise _type_error(x, name, "a real number (not a boolean)")
    if isinstance(x, str):
        if allow_str:
            return parse_decimal(x, name)
        raise _type_error(x, name, f"a real number ({ACCEPTED_REALS}); strings are not read here")
    if isinstance(x, np.generic):
        return _from_numpy(x, name)
    if isinstance(x, np.ndarray):
        if x.ndim == 0 and x.dtype.kind in "iuf":
            return _from_numpy(x[()], name)
        raise _type_error(x, name, "a real number (a scalar, not an array)" if x.ndim else
                          f"a real number ({ACCEPTED_REALS})")
    if _fmpz and isinstance(x, _fmpz):
        return int(x)
    if _fmpq and isinstance(x, _fmpq):
        return Fraction(int(x.p), int(x.q))
    if _arb and isinstance(x, _arb):
        return _from_arb(x, name, allow_ball)
    if isinstance(x, decimal.Decimal):
        return _from_decimal(x, name)
    if isinstance(x, (complex, mpmath.mpc)):
        raise _type_error(x, name, "a real number (not complex)")
    if _HAVE_SYMPY and type(x).__module__.startswith("sympy"):
        import sympy as sp
        if isinstance(x, sp.Basic):
            return _from_sympy(x, name)
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, Fraction):            # a Fraction subclass
        return Fraction(x.numerator, x.denominator)
    if isinstance(x, float):               # a float subclass
        return exact_real(float(x), name)
    raise _type_error(x, name, f"a real number ({ACCEPTED_REALS})")


# --- exact comparisons --------------------------------------------------------------------------

def _sign(v) -> int:
    if isinstance(v, mpmath.mpf):
        return (v > 0) - (v < 0)
    if _arb and isinstance(v, _arb):
        m = v.mid()
        return (m > 0) - (m < 0)
    return (v > 0) - (v < 0)


def _cmp(v, b) -> int:
    """Exact sign of ``v - b`` for canonical values and bounds (int, float, Fraction, mpf, arb mid)."""
    if _arb and isinstance(v, _arb):          # balls: compare the midpoint
        man, exp = v.mid().man_exp()
        v = _mpf_from_man_exp(int(man), int(exp))
    if isinstance(v, mpmath.mpf) or isinstance(b, mpmath.mpf):
        if isinstance(v, Fraction) or isinstance(b, Fraction):
            fv = v if isinstance(v, Fraction) else b
            mv = b if isinstance(v, Fraction) else v
            # compare mpf m with p/q exactly: sign(m*q - p) computed exactly in mpmath (exact ops)
            with mpmath.workprec(max(64, mpmath.mp.prec)):
                prod = mpmath.fmul(mv, fv.denominator, exact=True)
                diff = mpmath.fsub(prod, fv.numerator, exact=True)
            s = (diff > 0) - (diff < 0)
            return s if isinstance(v, mpmath.mpf) else -s
        return (v > b) - (v < b)               # mpf vs int/float/mpf: exact in mpmath
    return (v > b) - (v < b)                    # int, float, Fraction: exact in Python


def _interval_text(lo, hi, lo_open, hi_open):
    if lo is None and hi is None:
        return ""
    left = "(" if (lo_open or lo is None) else "["
    right = ")" if (hi_open or hi is None) else "]"
    return f" in {left}{'-inf' if lo is None else _fmt_bound(lo)}, {'inf' if hi is None else _fmt_bound(hi)}{right}"


def _fmt_bound(b):
    if isinstance(b, float) and b.is_integer() and abs(b) < 1e16:
        return str(int(b))
    if isinstance(b, Fraction):
        return str(b)
    return str(b)


def _check_range(v, x, name, lower, upper, lower_open, upper_open, what="a real number"):
    if lower is not None:
        c = _cmp(v, lower)
        if c < 0 or (lower_open and c == 0):
            raise ValueError(f"{name} must be {what}{_interval_text(lower, upper, lower_open, upper_open)}, "
                             f"got {_show(x)}")
    if upper is not None:
        c = _cmp(v, upper)
        if c > 0 or (upper_open and c == 0):
            raise ValueError(f"{name} must be {what}{_interval_text(lower, upper, lower_open, upper_open)}, "
                             f"got {_show(x)}")


@fill_doc(CORE_DOCS)
def real(x, name: str, *, lower=None, upper=None, lower_open: bool = False, upper_open: bool = False,
         allow_str: bool = False, allow_ball: bool = False):
    """:func:`exact_real` plus an exact range check; returns the exact value.

    {{parameters_scalar_name}}
    lower, upper : number, optional
        Bounds of the valid range (compared exactly).
    lower_open, upper_open : bool, optional
        Exclude the bound itself.
    allow_str, allow_ball : bool, optional
        As in :func:`exact_real`.

    Returns
    -------
    int, float, fractions.Fraction, mpmath.mpf or flint.arb
        The exact value of ``x``, as :func:`exact_real` returns it.

    Raises
    ------
    TypeError, ValueError
        As :func:`exact_real`, and ``ValueError`` outside the range.

    Examples
    --------
    >>> real(2, "C", lower=1)
    2
    """
    v = exact_real(x, name, allow_str=allow_str, allow_ball=allow_ball)
    if lower is not None or upper is not None:
        _check_range(v, x, name, lower, upper, lower_open, upper_open)
    return v


def _to_float_exact(v, name, x):
    """Round an exact canonical value to the nearest float64 (ties to even), refusing overflow and
    the underflow of a non-zero value."""
    t = type(v)
    if t is float:
        return v
    try:
        if t is int or t is Fraction:
            f = float(v)               # correctly rounded (int / int true division in CPython)
        elif isinstance(v, mpmath.mpf):
            f = to_float(v._mpf_, rnd=round_nearest)
        elif _arb and isinstance(v, _arb):
            man, exp = v.mid().man_exp()
            f = to_float(mpmath.libmp.from_man_exp(int(man), int(exp)), rnd=round_nearest)
        else:  # pragma: no cover - canonical values only
            f = float(v)
    except OverflowError:
        f = math.inf
    if math.isinf(f):
        raise ValueError(f"{name}={_show(x)} is beyond the float64 range (|x| < 1.8e308) used by this "
                         f"function")
    if f == 0.0 and _sign(v) != 0:
        raise ValueError(f"{name}={_show(x)} is non-zero but below the smallest float64 (4.9e-324) used by "
                         f"this function")
    return f


@fill_doc(CORE_DOCS)
def real_float(x, name: str, *, lower=None, upper=None, lower_open: bool = False, upper_open: bool = False,
               allow_str: bool = False) -> float:
    """The exact value of ``x`` (range-checked exactly), rounded once to the nearest float64.

    {{parameters_scalar_name}}
    lower, upper, lower_open, upper_open : optional
        The valid range, as in :func:`real`.
    allow_str : bool, optional
        Also read decimal strings.

    Returns
    -------
    float
        The nearest float64 to the exact value of ``x`` (one rounding, ties to even).

    Raises
    ------
    TypeError, ValueError
        As :func:`real`, and ``ValueError`` when a non-zero value rounds to 0 or overflows.

    Examples
    --------
    >>> real_float("0.1", "rho", allow_str=True, lower=0, lower_open=True)
    0.1
    """
    if type(x) is float:               # fast path: the common case costs two comparisons
        if x - x != 0.0:
            raise ValueError(f"{name} must be a finite real number, got {x!r}")
        if lower is not None or upper is not None:
            _check_range(x, x, name, lower, upper, lower_open, upper_open)
        return x
    v = real(x, name, lower=lower, upper=upper, lower_open=lower_open, upper_open=upper_open,
             allow_str=allow_str)
    return _to_float_exact(v, name, x)


@fill_doc(CORE_DOCS)
def integer(x, name: str, *, min_value: int | None = None, max_value: int | None = None) -> int:
    """An integer argument: ``int`` from any accepted real type whose value is an integer
    (``3``, ``3.0``, ``numpy.int64(3)``, ``Fraction(6, 2)``, ``fmpz(3)``, ``mpf(3)``); ``2.5``,
    booleans and strings are refused.

    {{parameters_value_name}}
    min_value, max_value : int, optional
        The valid range (inclusive).

    Returns
    -------
    int
        The value of ``x`` as a Python ``int``, exactly (no rounding).

    Raises
    ------
    TypeError
        For a bool, a string or another type.
    ValueError
        For a non-integral value or one outside ``[min_value, max_value]``.

    Examples
    --------
    >>> integer(3.0, "C", min_value=1)
    3
    """
    rng = _int_range_text(min_value, max_value)
    if type(x) is int:
        v = x
    else:
        if isinstance(x, (bool, np.bool_)):
            raise TypeError(f"{name} must be an integer{rng}, got {type(x).__name__} {x!r}")
        try:
            e = exact_real(x, name)
        except TypeError:
            raise TypeError(f"{name} must be an integer{rng}, got {type(x).__name__} {_show(x)}") from None
        except ValueError:
            raise ValueError(f"{name} must be a finite integer{rng}, got {_show(x)}") from None
        if type(e) is int:
            v = e
        elif type(e) is float:
            if not e.is_integer():
                raise TypeError(f"{name} must be an integer{rng}, got {_show(x)} (not an integer)")
            v = int(e)
        elif type(e) is Fraction:
            if e.denominator != 1:
                raise TypeError(f"{name} must be an integer{rng}, got {_show(x)} (not an integer)")
            v = e.numerator
        else:  # mpf
            if not mpmath.isint(e):
                raise TypeError(f"{name} must be an integer{rng}, got {_show(x)} (not an integer)")
            s, man, exp, _ = e._mpf_
            v = (-1) ** s * (man << exp) if exp >= 0 else (-1) ** s * (man >> -exp)
    if (min_value is not None and v < min_value) or (max_value is not None and v > max_value):
        raise ValueError(f"{name} must be an integer{rng}, got {v}")
    return v


def _int_range_text(lo, hi):
    if lo is not None and hi is not None:
        return f" in [{lo}, {hi}]"
    if lo is not None:
        return f" >= {lo}"
    if hi is not None:
        return f" <= {hi}"
    return ""


@fill_doc(CORE_DOCS)
def boolean(x, name: str) -> bool:
    """``True``/``False`` (also ``numpy.bool_``); everything else is a ``TypeError``.

    {{parameters_value_name}}

    Returns
    -------
    bool
        ``x`` as a Python ``bool``.

    Raises
    ------
    TypeError
        For anything but a bool.

    Examples
    --------
    >>> boolean(True, "certified")
    True
    """
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    raise TypeError(f"{name} must be True or False, got {type(x).__name__} {_show(x)}")


@fill_doc(CORE_DOCS)
def choice(x, name: str, choices):
    """One of ``choices`` (compared by equality); strings only when the choices are strings.

    {{parameters_value_name}}
    choices : iterable
        The valid values.

    Returns
    -------
    object
        ``x``.

    Raises
    ------
    TypeError
        For a non-string when the choices are strings.
    ValueError
        When ``x`` is not one of ``choices``.

    Examples
    --------
    >>> choice("jsq", "policy", ("jsq", "power"))
    'jsq'
    """
    choices = tuple(choices)
    if all(isinstance(c, str) for c in choices) and not isinstance(x, str):
        raise TypeError(f"{name} must be one of {sorted(map(str, choices))}, got {type(x).__name__} {_show(x)}")
    try:
        ok = x in choices
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {sorted(map(str, choices))}, got {_show(x)}")
    return x
