"""The float64 Erlang-B kernel's plumbing (numba kernels of ``symloss.erlang._kernels``, imported
and compiled or loaded from numba's cache on first use: that import stays lazy so that importing
symloss does not load numba), for :func:`~symloss.erlang.erlang_b.log_erlang_b` /
:func:`~symloss.erlang.erlang_b.erlang_b_float` and the mean-field accelerators' float starts.
"""
from __future__ import annotations

import numpy as np

from ..core.precision import PrecisionError
from ..core.validation import real_array, real_float

C_MAX_FLOAT = 1e300  # the float kernel's range of C (|log E| < 1.5e303 stays representable)

_KERNELS = None
_LOG_EB = None


def _kernels():
    global _KERNELS, _LOG_EB
    if _KERNELS is None:
        from . import _kernels as k
        _KERNELS = (k.log_eb, k.log_eb_array)
        _LOG_EB = k.log_eb
    return _KERNELS


def _log_erlang_b_scalar(C: float, a: float) -> float:
    """Unchecked scalar float kernel (internal fast path for solvers that validated their input:
    ``0 <= C <= 1e300``, ``0 < a < inf``)."""
    return _kernels()[0](float(C), float(a))


def _not_converged(C, a) -> PrecisionError:
    return PrecisionError(f"log_erlang_b: the float kernel did not converge at C={C!r}, a={a!r} "
                          f"(please report this input); erlang_b(C, a) gives the certified value")


def _scalar_C_a(C, a):
    """Exact conversion of scalar C, a, checked, then rounded once to float64."""
    Cf = real_float(C, "C", lower=0)
    if Cf > C_MAX_FLOAT:
        raise ValueError(f"C must be a real number in [0, {C_MAX_FLOAT:g}] for the float kernel, got {C!r}; "
                         f"erlang_b(C, a) computes larger sizes exactly")
    af = real_float(a, "a", lower=0, lower_open=True)
    return Cf, af


def _is_array_like(x) -> bool:
    return isinstance(x, (np.ndarray, list, tuple))


def _log_eb_any(C, a):
    """log E for validated input of any accepted shape; returns (value, is_scalar)."""
    if not _is_array_like(C) and not _is_array_like(a):
        Cf, af = _scalar_C_a(C, a)
        v = _kernels()[0](Cf, af)
        if v != v:
            raise _not_converged(Cf, af)
        return v, True
    Cf = real_array(C, "C", lower=0, upper=C_MAX_FLOAT)
    af = real_array(a, "a", lower=0, lower_open=True)
    try:
        Cb, ab = np.broadcast_arrays(Cf, af)
    except ValueError as exc:
        raise ValueError(f"C and a cannot be broadcast together: shapes {Cf.shape} and {af.shape}") from exc
    out = np.empty(Cb.size, dtype=np.float64)
    if Cb.size:
        _kernels()[1](np.ascontiguousarray(Cb).ravel(), np.ascontiguousarray(ab).ravel(), out)
        if np.isnan(out).any():
            i = int(np.flatnonzero(np.isnan(out))[0])
            raise _not_converged(float(np.ravel(Cb)[i]), float(np.ravel(ab)[i]))
    return out.reshape(Cb.shape), False

