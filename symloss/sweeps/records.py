"""Canonical parameter keys and JSON conversion of results for the sweep store.
"""
from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping

# ------------------------------------------------------------------------------------------------
# canonical parameters and JSON results
# ------------------------------------------------------------------------------------------------

def _plain(v):
    """A JSON value for a parameter: numpy scalars become Python numbers, tuples lists."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"parameter values must be finite, got {v!r}")
        return float(v)
    if type(v).__module__ == "numpy":
        return _plain(v.tolist())
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    raise TypeError(f"parameter values must be JSON numbers, strings, booleans, None or lists of them "
                    f"(numpy scalars are converted), got {type(v).__name__} {v!r}")


def canonical_params(params: Mapping) -> str:
    """Canonical JSON text of a point: sorted keys, compact separators; the point's key in the store."""
    if not isinstance(params, Mapping):
        raise TypeError(f"a grid point must be a mapping, got {type(params).__name__} {params!r}")
    plain = {}
    for k, v in params.items():
        if not isinstance(k, str):
            raise TypeError(f"parameter names must be strings, got {k!r}")
        try:
            plain[k] = _plain(v)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"parameter {k!r}: {exc}") from None
    return json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def to_jsonable(value, *, dps: int | None = None):
    """Convert a function's result to plain JSON data.

    ``mpmath.mpf`` becomes a decimal string (``dps`` significant digits when the point has a ``dps``
    parameter, otherwise enough digits to round-trip its binary value), ``Fraction`` / ``fmpq`` a
    ``"p/q"`` string, ``arb`` and ``Decimal`` their text, ``complex`` / ``mpc`` ``{"re", "im"}``, numpy
    scalars and arrays Python numbers and lists, SymPy objects their ``str``; dataclasses go through ``to_dict()`` when they have one (else
    ``dataclasses.asdict``). Anything else raises ``TypeError`` (the point is then recorded as failed).
    Non-finite floats are kept (Python's JSON writes them as ``NaN`` / ``Infinity``).
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


