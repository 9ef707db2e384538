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
"""
from __future__ import annotations

import decimal
import math
import numbers
import os
import re
import time
from fractions import Fraction

import mpmath
import numpy as np
from mpmath.libmp import round_nearest, to_float

__all__ = [  # the historical check_int, check_real, ... as_float_array keep their signatures
    "ACCEPTED_REALS", "DEFAULT_MAX_BYTES", "MAX_DECIMAL_EXPONENT", "BudgetError", "Deadline", "TimeLimitExceeded",
    "as_float_array", "boolean", "check_budget", "check_choice", "check_int", "check_max_bytes",
    "check_max_seconds",
    "check_probability", "check_real", "choice", "exact_real", "integer", "parse_decimal", "real",
    "real_array", "real_float", "real_to_float",
]

ACCEPTED_REALS = ("int, float, fractions.Fraction, decimal.Decimal, mpmath.mpf, a numpy integer or real "
                  "float scalar, a python-flint fmpz/fmpq/arb or a SymPy number")
MAX_DECIMAL_EXPONENT = 100_000
DEFAULT_MAX_BYTES = 4 * 2 ** 30        # memory budget of the simulators and graph builders (4 GiB)
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


class BudgetError(ValueError):
    """A computation's estimated size (states, memory, events, terms) or time exceeds its budget.

    Raised *before* the work starts; the message gives the estimate, the limit and the argument
    that controls it. A subclass of ``ValueError`` (the input is too large for the budget)."""


class TimeLimitExceeded(TimeoutError):
    """A computation ran past the ``max_seconds`` its caller gave (raised at a checkpoint)."""


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

    Returns an ``int`` or a ``Fraction``. The exponent is checked before any big integer is built
    (``|exponent| <= MAX_DECIMAL_EXPONENT``); ``nan``, ``inf`` and other text are a ``ValueError``.
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


def exact_real(x, name: str, *, allow_str: bool = False, allow_ball: bool = False):
    """``x`` as an exact ``int``, ``float``, ``Fraction`` or ``mpf`` (see the module table).

    ``allow_str``: also read decimal strings (:func:`parse_decimal`). ``allow_ball``: return a flint
    ``arb`` with a non-zero radius as the ball (otherwise a ``ValueError``). Raises ``TypeError``
    for every other type and ``ValueError`` for NaN and infinities; the messages name ``name``.
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


def real(x, name: str, *, lower=None, upper=None, lower_open: bool = False, upper_open: bool = False,
         allow_str: bool = False, allow_ball: bool = False):
    """:func:`exact_real` plus an exact range check; returns the exact value."""
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


def real_float(x, name: str, *, lower=None, upper=None, lower_open: bool = False, upper_open: bool = False,
               allow_str: bool = False) -> float:
    """The exact value of ``x`` (range-checked exactly), rounded once to the nearest float64."""
    if type(x) is float:               # fast path: the common case costs two comparisons
        if x - x != 0.0:
            raise ValueError(f"{name} must be a finite real number, got {x!r}")
        if lower is not None or upper is not None:
            _check_range(x, x, name, lower, upper, lower_open, upper_open)
        return x
    v = real(x, name, lower=lower, upper=upper, lower_open=lower_open, upper_open=upper_open,
             allow_str=allow_str)
    return _to_float_exact(v, name, x)


def integer(x, name: str, *, min_value: int | None = None, max_value: int | None = None) -> int:
    """An integer argument: ``int`` from any accepted real type whose value is an integer
    (``3``, ``3.0``, ``numpy.int64(3)``, ``Fraction(6, 2)``, ``fmpz(3)``, ``mpf(3)``); ``2.5``,
    booleans and strings are refused."""
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


def boolean(x, name: str) -> bool:
    """``True``/``False`` (also ``numpy.bool_``); everything else is a ``TypeError``."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    raise TypeError(f"{name} must be True or False, got {type(x).__name__} {_show(x)}")


def choice(x, name: str, choices):
    """One of ``choices`` (compared by equality); strings only when the choices are strings."""
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


# --------------------------------------------------------------------------------------------------
# arrays
# --------------------------------------------------------------------------------------------------

def real_array(x, name: str, *, lower=None, lower_open: bool = False, upper=None, upper_open: bool = False,
               allow_empty: bool = True) -> np.ndarray:
    """A float64 array of the values of ``x`` (a real scalar, a numpy array of an integer or real
    float dtype, or a (nested) list/tuple of accepted real scalars), every element checked.

    Integer and ``longdouble`` elements are rounded to the nearest float64 (stated, never silent
    for the other types: Fractions, mpf and big ints go through :func:`real_float` one by one).
    Complex, boolean, string and object data are refused with a ``TypeError``; the first bad
    element is named with its index. A float64 array is returned without copying: do not write
    into the result.
    """
    if isinstance(x, np.ndarray):
        kind = x.dtype.kind
        if kind == "f" or kind in "iu":
            arr = x if x.dtype == np.float64 else x.astype(np.float64)
        elif kind == "O":
            arr = _object_array(x, name)
        else:
            raise _array_type_error(x, name)
    elif isinstance(x, (list, tuple)):
        arr = _from_sequence(x, name)
    elif isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be real numbers, got a string {_show(x)}")
    else:
        arr = np.asarray(real_float(x, name), dtype=np.float64)
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty")
    _check_array_range(arr, name, lower, lower_open, upper, upper_open)
    return arr


def _array_type_error(x, name):
    kind = x.dtype.kind
    what = {"b": "booleans", "c": "complex numbers", "U": "strings", "S": "bytes", "M": "datetimes",
            "m": "timedeltas", "V": "structured data"}.get(kind, f"dtype {x.dtype}")
    return TypeError(f"{name} must be real numbers (an integer or float array), got an array of {what}")


def _from_sequence(x, name):
    try:
        obj = np.array(x, dtype=object)
    except ValueError as exc:   # ragged nesting
        raise TypeError(f"{name} must be real numbers (a rectangular array-like): {exc}") from None
    if obj.dtype != object:  # pragma: no cover - np.array(dtype=object) always gives object
        obj = obj.astype(object)
    flat = obj.ravel()
    types = set(map(type, flat))
    if types <= {float, int} and int in types:
        try:
            return obj.astype(np.float64)
        except OverflowError:
            return _object_array(obj, name)
    if types <= {float}:
        return obj.astype(np.float64)
    return _object_array(obj, name)


def _object_array(obj, name):
    flat = obj.ravel()
    out = np.empty(flat.size, dtype=np.float64)
    for i, v in enumerate(flat):
        where = f"{name}[{i if obj.ndim <= 1 else np.unravel_index(i, obj.shape)}]"
        if isinstance(v, (list, tuple, np.ndarray)):
            raise TypeError(f"{where} must be a real number, got {type(v).__name__} (ragged nesting?)")
        out[i] = real_float(v, where)
    return out.reshape(obj.shape)


def _check_array_range(arr, name, lower, lower_open, upper, upper_open):
    if arr.ndim == 0:
        v = float(arr)
        if not math.isfinite(v):
            raise ValueError(f"{name} must be a finite real number, got {v!r}")
        if lower is not None or upper is not None:
            _check_range(v, v, name, lower, upper, lower_open, upper_open)
        return
    if arr.size == 0:
        return
    bad = ~np.isfinite(arr)
    if lower is not None:
        bad |= (arr <= lower) if lower_open else (arr < lower)
    if upper is not None:
        bad |= (arr >= upper) if upper_open else (arr > upper)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        rng = _interval_text(lower, upper, lower_open, upper_open)
        where = idx[0] if len(idx) == 1 else idx
        raise ValueError(f"{name} must be finite real numbers{rng}; got {arr[idx]!r} at index {where}")


# --------------------------------------------------------------------------------------------------
# budgets
# --------------------------------------------------------------------------------------------------

def check_output_path(path, name: str = "path") -> str:
    """``path`` as a string, after checking that a file can be written there (before any work):
    ``TypeError`` unless a ``str``/``os.PathLike``; ``ValueError`` for an empty name;
    ``IsADirectoryError`` when it is a directory; ``FileNotFoundError`` when its directory does not
    exist; ``PermissionError`` when the file exists and is not writable, or the directory does not
    allow creating it. The one check of every output file (API and CLI: the CLI turns these into
    its one-line errors naming the option)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {type(path).__name__}")
    path = os.fspath(path)
    if not path:
        raise ValueError(f"{name}: empty file name")
    full = os.path.abspath(os.path.expanduser(path))
    if os.path.isdir(full):
        raise IsADirectoryError(f"{name}={path!r} is a directory, not a file")
    parent = os.path.dirname(full)
    if not os.path.isdir(parent):
        raise FileNotFoundError(f"{name}={path!r}: the directory {parent!r} does not exist (cannot write {path!r})")
    if os.path.exists(full):
        if not os.access(full, os.W_OK):
            raise PermissionError(f"{name}={path!r} is not writable")
    elif not os.access(parent, os.W_OK | os.X_OK):
        raise PermissionError(f"{name}={path!r}: the directory {parent!r} is not writable (cannot write {path!r})")
    return path


def check_max_seconds(x, name: str = "max_seconds"):
    """``None`` (no time limit) or a positive finite number of seconds, as float."""
    if x is None:
        return None
    return real_float(x, name, lower=0, lower_open=True)


def check_max_bytes(x, name: str = "max_bytes") -> float:
    """``None`` (the default budget ``DEFAULT_MAX_BYTES`` = 4 GiB) or a positive number of bytes."""
    if x is None:
        return float(DEFAULT_MAX_BYTES)
    return real_float(x, name, lower=0, lower_open=True)


def check_budget(estimate, limit, name: str, *, what: str, unit: str = "", hint: str = "") -> None:
    """Raise :class:`BudgetError` when ``estimate > limit`` (checked before any work).

    ``name`` is the argument that sets ``limit`` (e.g. ``"max_events"``); ``what`` says what is
    estimated, ``hint`` how to reduce it."""
    if limit is not None and estimate > limit:
        u = f" {unit}" if unit else ""
        h = f"; {hint}" if hint else ""
        raise BudgetError(f"{what}: about {estimate:.3g}{u}, more than the limit {name}={limit:.3g}{u}{h}")


class Deadline:
    """A wall-clock budget for loops: ``Deadline(max_seconds, what).check()`` raises
    :class:`TimeLimitExceeded` once ``max_seconds`` have passed (``None``: never)."""

    __slots__ = ("limit", "t0", "what")

    def __init__(self, max_seconds, what: str = "computation", name: str = "max_seconds"):
        self.limit = check_max_seconds(max_seconds, name)
        self.what = what
        self.t0 = time.perf_counter()

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def check(self, detail: str = "") -> None:
        if self.limit is not None and time.perf_counter() - self.t0 > self.limit:
            d = f" ({detail})" if detail else ""
            raise TimeLimitExceeded(f"{self.what} exceeded max_seconds={self.limit:g} after "
                                    f"{self.elapsed:.2f} s{d}")


# --------------------------------------------------------------------------------------------------
# historical names (kept with their signatures; they delegate to the layer above)
# --------------------------------------------------------------------------------------------------

def check_int(x, name: str, *, min_value: int | None = None, max_value: int | None = None) -> int:
    """Return ``x`` as ``int`` after checking its type and range (see :func:`integer`)."""
    return integer(x, name, min_value=min_value, max_value=max_value)


def check_real(x, name: str, *, lower=None, upper=None, lower_open: bool = False,
               upper_open: bool = False):
    """Check that ``x`` is a finite real number in the given interval and return its exact value
    (:func:`real`): ``int``, ``float``, ``Fraction`` or ``mpf`` — no precision is lost; numpy,
    flint, Decimal and SymPy numbers come back as one of these. A flint ball with a radius is
    returned as the ball (its midpoint is range-checked)."""
    return real(x, name, lower=lower, upper=upper, lower_open=lower_open, upper_open=upper_open,
                allow_ball=True)


def real_to_float(x) -> float:
    """The nearest float64 to any accepted real scalar (exact conversion first, one rounding)."""
    return real_float(x, "x") if not (_arb and isinstance(x, _arb)) else \
        _to_float_exact(exact_real(x, "x", allow_ball=True), "x", x)


def check_probability(x, name: str):
    """A number in the open interval (0, 1); returns its exact value."""
    return check_real(x, name, lower=0, upper=1, lower_open=True, upper_open=True)


def check_choice(x, name: str, choices):
    """One of ``choices`` (see :func:`choice`)."""
    return choice(x, name, choices)


def as_float_array(x, name: str, *, lower=None, lower_open=False, upper=None, upper_open=False):
    """Convert to a float64 array and check every element; the error names the first bad index
    (see :func:`real_array`)."""
    return real_array(x, name, lower=lower, lower_open=lower_open, upper=upper, upper_open=upper_open)
