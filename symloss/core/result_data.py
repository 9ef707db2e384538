"""Plain data and one-line text of result values: what ``to_dict()``, ``str()`` and ``to_frame()`` of a result
are built from (:func:`to_jsonable`, :func:`flatten`, :func:`format_value`).

Split out of :mod:`symloss.core.results` (which re-exports every name).
"""
from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from typing import Any

_MAX_LIST = 8        # lists longer than this are summarised in str() / tables
_MAX_FRAME_LIST = 64  # lists up to this length become columns name[i] of to_frame()


def to_jsonable(value, *, dps: int | None = None):
    """Convert a result to plain JSON data.

    ``mpmath.mpf`` becomes a decimal string (``dps`` significant digits when given, otherwise enough
    digits to round-trip its binary value), ``Fraction`` / ``fmpq`` a ``"p/q"`` string, ``arb`` and
    ``Decimal`` their text, ``complex`` / ``mpc`` ``{"re", "im"}``, numpy scalars and arrays Python
    numbers and lists, SymPy objects their ``str``; objects with ``to_dict()`` (dataclasses) go through it
    (else ``dataclasses.asdict``). Anything else raises ``TypeError``. Non-finite floats are kept.

    Parameters
    ----------
    value : object
        A result.
    dps : int, optional
        Significant digits of ``mpf`` values (default: enough to round-trip the binary value).

    Returns
    -------
    object
        JSON data (None, bool, int, float, str, list, dict).

    Raises
    ------
    TypeError
        For a value with no JSON form.

    Examples
    --------
    >>> import mpmath
    >>> to_jsonable({"x": mpmath.mpf(1) / 3, "n": [1, 2]}, dps=10)
    {'x': '0.3333333333', 'n': [1, 2]}
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, complex):
        return {"re": value.real, "im": value.imag}
    mod = type(value).__module__ or ""
    name = type(value).__name__
    if mod.startswith("numpy"):
        if hasattr(value, "dtype") and value.dtype == object:
            return [to_jsonable(v, dps=dps) for v in value.tolist()]
        return value.tolist()
    if mod.startswith("mpmath"):
        import mpmath
        if isinstance(value, mpmath.mpf):
            return _mpf_text(value, dps)
        if hasattr(value, "_mpf_"):  # a constant such as mpmath.pi, at the current precision
            return _mpf_text(mpmath.mpf(value), dps)
        if isinstance(value, mpmath.mpc):
            return {"re": _mpf_text(value.real, dps), "im": _mpf_text(value.imag, dps)}
        if isinstance(value, mpmath.matrix):
            return [[to_jsonable(value[i, j], dps=dps) for j in range(value.cols)] for i in range(value.rows)]
        return str(value)  # interval types and the like
    if name == "Fraction" and mod == "fractions":
        return f"{value.numerator}/{value.denominator}"
    if name == "Decimal" and mod == "decimal":
        return str(value)
    if mod.startswith("flint"):
        if name == "fmpz":
            return int(value)
        if name == "fmpq":
            return f"{int(value.p)}/{int(value.q)}"
        return str(value)
    if mod.startswith("sympy"):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v, dps=dps) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v, dps=dps) for v in value]
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_jsonable(to_dict(), dps=dps)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_jsonable({f.name: getattr(value, f.name) for f in dataclasses.fields(value)}, dps=dps)
    raise TypeError(f"result of type {mod}.{name} is not JSON-serialisable: return numbers, strings, "
                    f"lists, dicts, mpf, numpy values or an object with to_dict()")


def _mpf_text(x, dps: int | None) -> str:
    import mpmath
    from mpmath import libmp
    if not mpmath.isfinite(x):
        return str(x)
    if dps is None:
        bc = x._mpf_[3]
        dps = max(1, libmp.prec_to_dps(max(bc, 1)) + 3)  # enough to round-trip bc bits
    return libmp.to_str(x._mpf_, int(dps))


def _plain(value, dps: int | None = None):
    """JSON-like plain data of a value (mpf -> its digits, numpy -> Python, Fraction -> p/q)."""
    try:
        return to_jsonable(value, dps=dps)
    except TypeError:
        return str(value)


def _result_dict(obj) -> dict:
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        d = to_dict()
    elif dataclasses.is_dataclass(obj):
        d = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.repr}
    else:  # pragma: no cover - the mixin is for dataclasses
        d = dict(vars(obj))
    return {str(k): _plain(v) for k, v in d.items()}


def flatten(d: Mapping, prefix: str = "") -> dict:
    """Nested dicts as one level with dotted keys.

    Parameters
    ----------
    d : mapping
    prefix : str
        Prepended to every key.

    Returns
    -------
    dict

    Examples
    --------
    >>> flatten({"a": {"b": 1}, "c": 2})
    {'a.b': 1, 'c': 2}
    """
    out: dict = {}
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, Mapping) and v:
            out.update(flatten(v, name + "."))
        else:
            out[name] = v
    return out


def _is_scalar(v) -> bool:
    return v is None or isinstance(v, (bool, int, float, str))


def _shape(v) -> tuple:
    if isinstance(v, list) and v and isinstance(v[0], list):
        return (len(v),) + _shape(v[0])
    return (len(v),) if isinstance(v, list) else ()


def format_value(v) -> str:
    """Text for one value: numbers and number strings in full, long lists summarised.

    Parameters
    ----------
    v : object
        A JSON-like value.

    Returns
    -------
    str

    Examples
    --------
    >>> format_value(list(range(20)))
    '[20 values: 0, 1, ..., 19]'
    """
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else str(v)
    if isinstance(v, list):
        if all(_is_scalar(x) for x in v):
            if len(v) <= _MAX_LIST:
                return "[" + ", ".join(format_value(x) for x in v) + "]"
            return (f"[{len(v)} values: {format_value(v[0])}, {format_value(v[1])}, ..., "
                    f"{format_value(v[-1])}]")
        return f"<array of shape {' x '.join(map(str, _shape(v)))}>"
    if isinstance(v, Mapping):
        return json.dumps(v, sort_keys=True, default=str)
    return str(v)


def _items(obj) -> list[tuple[str, Any]]:
    return list(flatten(_result_dict(obj)).items())


def _lookup(source, key: str):
    if isinstance(source, Mapping):
        if key in source:
            return source[key]
        cur = source
        for part in key.split("."):
            if not isinstance(cur, Mapping) or part not in cur:
                return None
            cur = cur[part]
        return cur
    if "." not in key and hasattr(source, key) and not callable(getattr(source, key)):
        return getattr(source, key)
    return _lookup(_result_dict_raw(source), key)
def _result_dict_raw(obj) -> dict:
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        return dict(to_dict())
    if dataclasses.is_dataclass(obj):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.repr}
    return dict(vars(obj))
