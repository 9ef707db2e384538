r"""Real arrays of the input layer (:func:`real_array`): a float64 array of accepted real scalars, every
element checked, the first bad one named by its index.

Split out of :mod:`symloss.core.validation` (which re-exports every name).
"""
from __future__ import annotations

import math

import numpy as np

from ._docfragments import CORE_DOCS
from .docstrings import fill_doc
from .real_numbers import _check_range, _interval_text, _show, real_float

# --------------------------------------------------------------------------------------------------
# arrays
# --------------------------------------------------------------------------------------------------

@fill_doc(CORE_DOCS)
def real_array(x, name: str, *, lower=None, lower_open: bool = False, upper=None, upper_open: bool = False,
               allow_empty: bool = True) -> np.ndarray:
    """A float64 array of the values of ``x`` (a real scalar, a numpy array of an integer or real
    float dtype, or a (nested) list/tuple of accepted real scalars), every element checked.

    Integer and ``longdouble`` elements are rounded to the nearest float64 (stated, never silent
    for the other types: Fractions, mpf and big ints go through ``real_float`` one by one).
    Complex, boolean, string and object data are refused with a ``TypeError``; the first bad
    element is named with its index. A float64 array is returned without copying: do not write
    into the result.

    Parameters
    ----------
    x : object
        The values.
    {{param_name}}
    lower, upper, lower_open, upper_open : optional
        The valid range, as in ``real``.
    allow_empty : bool, optional
        Accept an empty array.

    Returns
    -------
    numpy.ndarray
        float64, of the shape of ``x`` (0-d for a scalar; ``x`` itself when it is a float64 array).

    Raises
    ------
    TypeError
        For complex, boolean, string or object data (the first bad element named).
    ValueError
        For an element out of range, NaN, or an empty array without ``allow_empty``.

    Examples
    --------
    >>> real_array([1, 2.5], "rho", lower=0).tolist()
    [1.0, 2.5]
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
