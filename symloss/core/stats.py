"""Small statistics shared by the simulators and studies: Student-t intervals, exact one-sided bounds for
proportions that were never (or always) observed, and truncated-Poisson (Erlang) weights."""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ._docfragments import CORE_DOCS
from .docstrings import fill_doc

__all__ = ["t_quantile", "t_interval", "t_half_width", "proportion_interval", "clopper_pearson_zero",
           "ZeroObservationsWarning", "truncated_poisson_log_weights", "truncated_poisson_weights"]


class ZeroObservationsWarning(UserWarning):
    """An estimate of a probability was zero (or one) in every independent unit (replication or batch):
    its interval is a one-sided exact bound, not a Student-t interval."""


@lru_cache(maxsize=256)
def t_quantile(df: int, level: float = 0.95) -> float:
    """The ``(1 + level)/2`` quantile of Student's t with ``df`` degrees of freedom."""
    from scipy.stats import t as student_t
    return float(student_t.ppf(0.5 + level / 2, int(df)))


def t_half_width(values, level: float = 0.95) -> float:
    """Half-width of the Student-t interval of the mean of ``values`` (``inf`` below two values).

    Parameters
    ----------
    values : array_like
        Independent replications or batch means.
    level : float, optional
        Confidence level.

    Returns
    -------
    float

    Examples
    --------
    >>> round(t_half_width([1.0, 2.0, 3.0]), 6)
    2.484138
    """
    v = np.asarray(values, dtype=np.float64)
    if v.size < 2:
        return math.inf
    return t_quantile(v.size - 1, level) * float(v.std(ddof=1)) / math.sqrt(v.size)


def t_interval(values, center, level: float = 0.95):
    """``((center - h, center + h), se)``: the Student-t interval around ``center`` from the spread of
    ``values`` (independent replications or batch means); NaNs below two values.

    Parameters
    ----------
    values : array_like
        Independent replications or batch means.
    center : float
        The point estimate the interval is centred on.
    level : float, optional
        Confidence level.

    Returns
    -------
    tuple
        ``((lo, hi), se)``, ``se`` the standard error of the mean.

    Examples
    --------
    >>> (lo, hi), se = t_interval([1.0, 2.0, 3.0], 2.0)
    >>> round(hi - 2.0, 6), round(se, 6)
    (2.484138, 0.57735)
    """
    v = np.asarray(values, dtype=np.float64)
    if v.size < 2:
        return (float("nan"), float("nan")), float("nan")
    se = float(v.std(ddof=1) / math.sqrt(v.size))
    h = t_quantile(v.size - 1, level) * se
    return (center - h, center + h), se


def clopper_pearson_zero(n: int, level: float = 0.95) -> float:
    r"""Upper end :math:`1 - (\alpha/2)^{1/n}` of the two-sided Clopper-Pearson interval of a probability
    when ``0`` of ``n`` independent trials succeeded (``alpha = 1 - level``).

    Parameters
    ----------
    n : int
        Number of independent trials, ``>= 1``.
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    float
        ``u`` with :math:`(1 - u)^n = \alpha/2`: every probability above ``u`` gives ``n`` failures with
        probability below ``alpha/2``.

    Raises
    ------
    ValueError
        If ``n < 1`` or ``level`` is not in (0, 1).

    Examples
    --------
    >>> round(clopper_pearson_zero(20), 4)
    0.1684
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be an integer >= 1 (number of independent trials), got {n!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return float(-math.expm1(math.log((1 - level) / 2) / int(n)))


def proportion_interval(values, center, level: float = 0.95):
    r"""Interval of a probability estimated from independent units (replications or batch means), each
    estimate in ``[0, 1]``.

    The Student-t interval :func:`t_interval` around ``center``, except when every (finite) unit
    estimate is exactly ``0`` (nothing observed: e.g. no arrival saw a full server) or exactly ``1``:
    the t interval would then have zero width and exclude every positive truth. In those cases the
    interval is the exact one-sided bound over the ``n`` *units*,
    ``[0, 1 - (alpha/2)^(1/n)]`` (``[(alpha/2)^(1/n), 1]`` when all are ``1``).

    Why ``n`` counts units, not arrivals: the loss indicators (or conditional loss probabilities) of
    successive arrivals are positively correlated (losses come in congestion episodes), so the rule
    of three ``3/arrivals`` would claim far more information than the run holds. The units are the
    independent pieces the t interval already uses. For a unit estimate :math:`X_i \in [0, 1]` with
    mean :math:`B`, Markov's inequality gives :math:`P(X_i > 0) \ge E[X_i] = B`, so
    :math:`P(	ext{all } X_i = 0) \le (1 - B)^n`: the Clopper-Pearson bound with ``n`` units is valid
    for any such estimator (exact for independent units; as approximate as the batch-means
    independence otherwise), only conservative.

    Parameters
    ----------
    values : array_like
        The unit estimates (NaN units, e.g. a batch without arrivals, are ignored for the bound).
    center : float
        The pooled point estimate.
    level : float
        Confidence level (default 0.95).

    Returns
    -------
    tuple
        ``((low, high), se, kind)`` with ``kind`` ``None`` (Student t), ``"none observed"`` or
        ``"all observed"``; ``se`` is NaN for the one-sided bounds.

    Examples
    --------
    >>> (lo, hi), se, kind = proportion_interval([0.0] * 20, 0.0)
    >>> lo, round(hi, 4), kind
    (0.0, 0.1684, 'none observed')
    """
    v = np.asarray(values, dtype=np.float64)
    finite = v[np.isfinite(v)]
    if finite.size and np.all(finite == 0.0):
        return (0.0, clopper_pearson_zero(int(finite.size), level)), float("nan"), "none observed"
    if finite.size and np.all(finite == 1.0):
        return (1.0 - clopper_pearson_zero(int(finite.size), level), 1.0), float("nan"), "all observed"
    ci, se = t_interval(v, center, level)
    return ci, se, None


@fill_doc(CORE_DOCS)
def truncated_poisson_log_weights(n_max: int, rho: float) -> np.ndarray:
    """``log P(X = k)``, ``k = 0..n_max``, for X ~ Poisson(rho) conditioned on ``X <= n_max`` (the
    M/M/n/n occupancy law), normalised in log space (no overflow for large ``n_max`` or ``rho``).

    {{parameters_truncated_poisson}}

    Returns
    -------
    numpy.ndarray
        ``n_max + 1`` log-weights.

    Examples
    --------
    >>> import numpy as np
    >>> np.exp(truncated_poisson_log_weights(1, 1.0)).round(6).tolist()
    [0.5, 0.5]
    """
    k = np.arange(n_max + 1, dtype=np.float64)
    logw = k * math.log(rho) - np.array([math.lgamma(i + 1.0) for i in range(n_max + 1)])
    top = logw.max()
    return logw - (top + math.log(np.exp(logw - top).sum()))


@fill_doc(CORE_DOCS)
def truncated_poisson_weights(n_max: int, rho: float) -> np.ndarray:
    """``P(X = k)`` of :func:`truncated_poisson_log_weights`.

    {{parameters_truncated_poisson}}

    Returns
    -------
    numpy.ndarray
        ``n_max + 1`` probabilities summing to 1 (the last is Erlang-B's ``E(n_max, rho)``).

    Examples
    --------
    >>> truncated_poisson_weights(2, 1.0).round(6).tolist()
    [0.4, 0.4, 0.2]
    """
    w = np.exp(truncated_poisson_log_weights(n_max, rho))
    return w / w.sum()
