"""Argument checking shared by the public functions: clear errors before any work starts."""
from __future__ import annotations

import math
import numbers
from fractions import Fraction

import mpmath
import numpy as np

__all__ = ["check_int", "check_real", "real_to_float", "check_probability", "check_choice", "as_float_array"]


def _is_real_scalar(x) -> bool:
    if isinstance(x, bool):
        return False
    if isinstance(x, (numbers.Real, mpmath.mpf, Fraction)):
        return True
    try:
        from flint import arb, fmpq, fmpz
        return isinstance(x, (arb, fmpq, fmpz))
    except ImportError:  # pragma: no cover
        return False


def check_int(x, name: str, *, min_value: int | None = None, max_value: int | None = None) -> int:
    """Return ``x`` as ``int`` after checking its type and range."""
    rng = _range_text(min_value, max_value, integer=True)
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        if isinstance(x, (float, mpmath.mpf)) and math.isfinite(float(x)) and float(x).is_integer():
            x = int(x)
        else:
            raise TypeError(f"{name} must be an integer{rng}, got {x!r}")
    x = int(x)
    if (min_value is not None and x < min_value) or (max_value is not None and x > max_value):
        raise ValueError(f"{name} must be an integer{rng}, got {x}")
    return x


def check_real(x, name: str, *, lower=None, upper=None, lower_open: bool = False,
               upper_open: bool = False):
    """Check that ``x`` is a finite real number in the given interval; returns ``x`` unchanged
    (exact types such as ``Fraction`` or ``mpf`` are kept so that no precision is lost)."""
    rng = _interval_text(lower, upper, lower_open, upper_open)
    if not _is_real_scalar(x):
        raise TypeError(f"{name} must be a real number{rng}, got {type(x).__name__} {x!r}")
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ValueError(f"{name} must be a finite real number{rng}, got {x!r}")
        v = x
    elif isinstance(x, (numbers.Integral, Fraction)):
        v = x
    else:
        try:
            from flint import arb
            if isinstance(x, arb):
                if not x.is_finite():
                    raise ValueError(f"{name} must be a finite real number{rng}, got {x!r}")
                x_mid = x.mid()
                v = mpmath.mpf(x_mid.man_exp()[0]) * mpmath.mpf(2) ** int(x_mid.man_exp()[1])
            else:
                v = x
        except ImportError:  # pragma: no cover
            v = x
        if not isinstance(v, mpmath.mpf):
            v = float(v)
            if not math.isfinite(v):
                raise ValueError(f"{name} must be a finite real number{rng}, got {x!r}")
    if lower is not None and (v < lower or (lower_open and v == lower)):
        raise ValueError(f"{name} must be a real number{rng}, got {x!r}")
    if upper is not None and (v > upper or (upper_open and v == upper)):
        raise ValueError(f"{name} must be a real number{rng}, got {x!r}")
    return x


def real_to_float(x) -> float:
    """float(x) for any accepted real scalar (int, float, Fraction, mpf, flint numbers)."""
    if isinstance(x, (numbers.Real, Fraction)):
        return float(x)
    if isinstance(x, mpmath.mpf):
        return float(x)
    return float(mpmath.mpf(str(x).split(" +/-")[0].strip("[]")))


def check_probability(x, name: str):
    """A number in the open interval (0, 1)."""
    return check_real(x, name, lower=0, upper=1, lower_open=True, upper_open=True)


def check_choice(x, name: str, choices):
    if x not in choices:
        raise ValueError(f"{name} must be one of {sorted(map(str, choices))}, got {x!r}")
    return x


def as_float_array(x, name: str, *, lower=None, lower_open=False, upper=None, upper_open=False):
    """Convert to a float64 array and check every element; the error names the first bad index."""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be real numbers, got a string")
    if isinstance(x, bool) or np.asarray(x).dtype == bool:
        raise TypeError(f"{name} must be real numbers, got booleans")
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be real numbers (array-like), got {x!r}") from exc
    rng = _interval_text(lower, upper, lower_open, upper_open)
    bad = ~np.isfinite(arr)
    if lower is not None:
        bad |= (arr <= lower) if lower_open else (arr < lower)
    if upper is not None:
        bad |= (arr >= upper) if upper_open else (arr > upper)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        where = f" at index {idx[0] if len(idx) == 1 else idx}" if arr.ndim else ""
        raise ValueError(f"{name} must be finite real numbers{rng}; got {arr[idx] if arr.ndim else arr!r}{where}")
    return arr


def _range_text(lo, hi, integer=False):
    if lo is not None and hi is not None:
        return f" in [{lo}, {hi}]"
    if lo is not None:
        return f" >= {lo}"
    if hi is not None:
        return f" <= {hi}"
    return ""


def _interval_text(lo, hi, lo_open, hi_open):
    if lo is None and hi is None:
        return ""
    left = "(" if (lo_open or lo is None) else "["
    right = ")" if (hi_open or hi is None) else "]"
    return f" in {left}{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}{right}"
