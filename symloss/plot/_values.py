"""Values for figures: numbers far below the float range as ``log10``, floats, and a model's legend
label (part of :mod:`symloss.plot._style`, which re-exports these names). ``mpmath`` is imported at
module level.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

__all__ = ["log10_values", "float_values", "policy_label"]


def _scalar(v):
    """A number from a value or a result object (``.blocking``, ``.value``, ``.distance``)."""
    for attr in ("blocking", "value", "distance", "mean_queue_length"):
        if hasattr(v, attr) and not isinstance(v, (int, float)):
            x = getattr(v, attr)
            return x() if callable(x) else x
    return v


def log10_values(values) -> np.ndarray:
    """``log10`` of each value as float64.

    Parameters
    ----------
    values : iterable
        Numbers, mpf, flint balls or result objects (``.blocking``, ``.value``, ...).

    Returns
    -------
    numpy.ndarray
        Computed in mpmath for mpf (so 1e-2332 gives -2332, not -inf); 0 gives ``-inf``, negative
        values ``nan``.
    """
    out = []
    for v in values:
        v = _scalar(v)
        if isinstance(v, mpmath.mpf) or type(v).__module__.startswith("flint"):
            v = mpmath.mpf(v) if isinstance(v, mpmath.mpf) else mpmath.mpf(str(v).split(" +/-")[0].strip("[]"))
            if v > 0:
                out.append(float(mpmath.log10(v)))
            elif v == 0:
                out.append(-math.inf)
            else:
                out.append(math.nan)
        else:
            x = float(v)
            out.append(math.log10(x) if x > 0 else (-math.inf if x == 0 else math.nan))
    return np.asarray(out, dtype=float)


def float_values(values) -> np.ndarray:
    """Each value (or result object) as float64.

    Parameters
    ----------
    values : iterable
        Numbers or result objects.

    Returns
    -------
    numpy.ndarray
    """
    return np.asarray([float(_scalar(v)) for v in values], dtype=float)


def policy_label(model) -> str:
    """A legend label for a policy.

    Parameters
    ----------
    model : model object or str
        E.g. ``symloss.RetrialOfD(2, 2)`` or ``"jsq"``.

    Returns
    -------
    str
        ``retrial-of-2``, ``power-of-3``, ``random routing``, ``JSQ``, else the model's ``name``
        (never a Python repr).

    Raises
    ------
    TypeError
        When ``model`` is neither a str nor an object with a non-empty str ``name``.

    Examples
    --------
    >>> import symloss
    >>> policy_label(symloss.PowerOfD(2, 3)), policy_label("jsq")
    ('power-of-3', 'JSQ')
    """
    if isinstance(model, str):
        name = model
    else:
        name = getattr(model, "name", None)
        if not isinstance(name, str) or not name:
            raise TypeError(f"a legend label needs a model with a 'name' (or a str label), got a "
                            f"{type(model).__name__}")
    d = getattr(model, "d", None)
    if name == "retrial":
        return f"retrial-of-{d}" if d is not None else "retrial-of-$d$"
    if name == "power":
        return f"power-of-{d}" if d is not None else "power-of-$d$"
    if name == "random":
        return "random routing"
    if name == "jsq":
        return "JSQ"
    return str(name)
