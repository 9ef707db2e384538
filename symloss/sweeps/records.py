"""Canonical parameter keys and JSON conversion of results for the sweep store.
"""
from __future__ import annotations

import json
import math
from collections.abc import Mapping

from ..core.results import _mpf_text, to_jsonable  # noqa: F401 - re-exported (sweeps.to_jsonable)

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
    """Canonical JSON text of a point: sorted keys, compact separators; the point's key in the store.

    Parameters
    ----------
    params : mapping
        Parameter name -> JSON value (numpy scalars are converted; NaN and infinities are rejected).

    Returns
    -------
    str

    Examples
    --------
    >>> canonical_params({"rho": 1.5, "C": 2})
    '{"C":2,"rho":1.5}'
    """
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
