"""Small statistics shared by the simulators and studies: Student-t intervals and truncated-Poisson
(Erlang) weights."""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__ = ["t_quantile", "t_interval", "t_half_width", "truncated_poisson_log_weights",
           "truncated_poisson_weights"]


@lru_cache(maxsize=256)
def t_quantile(df: int, level: float = 0.95) -> float:
    """The ``(1 + level)/2`` quantile of Student's t with ``df`` degrees of freedom."""
    from scipy.stats import t as student_t
    return float(student_t.ppf(0.5 + level / 2, int(df)))


def t_half_width(values, level: float = 0.95) -> float:
    """Half-width of the Student-t interval of the mean of ``values`` (``inf`` below two values)."""
    v = np.asarray(values, dtype=np.float64)
    if v.size < 2:
        return math.inf
    return t_quantile(v.size - 1, level) * float(v.std(ddof=1)) / math.sqrt(v.size)


def t_interval(values, center, level: float = 0.95):
    """``((center - h, center + h), se)``: the Student-t interval around ``center`` from the spread of
    ``values`` (independent replications or batch means); NaNs below two values."""
    v = np.asarray(values, dtype=np.float64)
    if v.size < 2:
        return (float("nan"), float("nan")), float("nan")
    se = float(v.std(ddof=1) / math.sqrt(v.size))
    h = t_quantile(v.size - 1, level) * se
    return (center - h, center + h), se


def truncated_poisson_log_weights(n_max: int, rho: float) -> np.ndarray:
    r"""``log P(X = k)``, ``k = 0..n_max``, for X ~ Poisson(rho) conditioned on ``X <= n_max`` (the
    M/M/n/n occupancy law), normalised in log space (no overflow for large ``n_max`` or ``rho``)."""
    k = np.arange(n_max + 1, dtype=np.float64)
    logw = k * math.log(rho) - np.array([math.lgamma(i + 1.0) for i in range(n_max + 1)])
    top = logw.max()
    return logw - (top + math.log(np.exp(logw - top).sum()))


def truncated_poisson_weights(n_max: int, rho: float) -> np.ndarray:
    """``P(X = k)`` of :func:`truncated_poisson_log_weights`."""
    w = np.exp(truncated_poisson_log_weights(n_max, rho))
    return w / w.sum()
