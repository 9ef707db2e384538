r"""Summaries of the asymptotics that need no joint law: the blocking (:func:`blocking_asymptotic`), the
limit law of the imbalance, the tail rate of the less occupied queue and its law over the whole range
from the exact diagonal identity (:func:`marginal_min_tail`). Re-exported by
:mod:`symloss.twoqueue.asymptotic`.
"""
from __future__ import annotations

import functools

import mpmath
import numpy as np
import sympy

from ..core.docstrings import fill_doc
from ..core.validation import check_choice
from . import derivation as dv
from ._docfragments import TWOQUEUE_DOCS
from ._public import public_home
from .corner import _corner_cached
from .outer_law import _outer_parts
from .regimes import REGIMES

__all__ = ["blocking_key", "blocking_asymptotic", "log_blocking_asymptotic", "imbalance_limit", "tail_rate",
           "local_decay",
           "min_law_from_diagonal", "diagonal_composite", "marginal_min_tail"]


@public_home("symloss.twoqueue.asymptotic")
@fill_doc(TWOQUEUE_DOCS)
def blocking_asymptotic(N: int, rho: float, regime: str, order: int = 1) -> float:
    r"""The blocking :math:`E(2N, \rho)` from :func:`~symloss.twoqueue.derivation.blocking_expansion`
    (lambdified): ``a > 1/2`` Laplace, ``a ~ 1/2`` Halfin-Whitt (Jagerman's term and, for ``order=1``,
    the next), ``a < 1/2`` Watson; ``order=0`` leading term only.

    Parameters
    ----------
    {{N_rho_regime_order}}

    Returns
    -------
    float
        (Underflows to 0 below 1e-308; see :func:`log_blocking_asymptotic`.)

    Raises
    ------
    ValueError
        If ``regime`` or ``order`` is not one of the choices.

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import blocking_asymptotic
    >>> blocking_asymptotic(300, 1000.0, "1/4<a<1/2", 0), blocking_asymptotic(300, 1000.0, "1/4<a<1/2")
    (0.4, 0.4015)
    """
    check_choice(regime, "regime", REGIMES)
    check_choice(order, "order", (0, 1))
    with mpmath.workdps(30):
        return float(_blocking_value(N, rho, regime, order))


def blocking_key(regime: str) -> str:
    """The regime of :func:`~symloss.twoqueue.derivation.blocking_expansion` for a regime of ``REGIMES``
    (the three corner regimes share one expansion).

    Parameters
    ----------
    regime : str
        One of :data:`~symloss.twoqueue.asymptotic.REGIMES` (not validated).

    Returns
    -------
    str
        ``"a>1/2"``, ``"a~1/2"`` or ``"a<1/2"``.

    Examples
    --------
    >>> from symloss.twoqueue.summaries import blocking_key
    >>> blocking_key("a~1/4"), blocking_key("a~1/2")
    ('a<1/2', 'a~1/2')
    """
    return "a~1/2" if regime == "a~1/2" else ("a>1/2" if regime == "a>1/2" else "a<1/2")


def _blocking_value(N, rho, regime, order):
    """The lambdified blocking expansion at ``(N, rho)`` (an ``mpf`` at the caller's working precision)."""
    key = blocking_key(regime)
    f = _blocking_func(key, order)
    if key == "a~1/2":
        return f(mpmath.mpf(2 * N - rho) / mpmath.sqrt(rho), mpmath.mpf(rho))
    return f(mpmath.mpf(N) / rho, mpmath.mpf(rho))


@functools.lru_cache(maxsize=16)
def _blocking_func(key, order):
    e = dv.blocking_expansion(key, order)
    if key == "a~1/2":
        return sympy.lambdify((dv.beta, dv.rsym), e, "mpmath")
    return sympy.lambdify((dv.a, dv.rsym), e, "mpmath")


@public_home("symloss.twoqueue.asymptotic")
def log_blocking_asymptotic(N: int, rho: float, regime: str, order: int = 1) -> float:
    r"""Natural logarithm of :func:`blocking_asymptotic` (no underflow).

    Parameters
    ----------
    N, rho, regime, order : int, float, str, {0, 1}
        As in :func:`blocking_asymptotic` (the regime is not validated here).

    Returns
    -------
    float
        :math:`\log E(2N, \rho)`, taken of the expansion at 30 digits (finite where the float underflows).

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import log_blocking_asymptotic
    >>> round(log_blocking_asymptotic(300, 1000.0, "1/4<a<1/2"), 10)      # log 0.4015
    -0.9125477456
    """
    with mpmath.workdps(30):
        return float(mpmath.log(_blocking_value(N, rho, regime, order)))


@public_home("symloss.twoqueue.asymptotic")
def imbalance_limit(a: float, imax: int) -> np.ndarray:
    r"""Limit law of :math:`|m-n|` (closed form of :func:`.derivation.imbalance_limit_law`):
    :math:`P(0) = (1-\hat a)/(1+\hat a)`, :math:`P(i) = 2\hat a^i/(1+\hat a)^{i+1}`,
    :math:`\hat a = \min(a, 1/2)`.

    Parameters
    ----------
    a : float
        ``N / rho``.
    imax : int
        Largest imbalance.

    Returns
    -------
    numpy.ndarray
        ``P(|m - n| = i)``, ``i = 0..imax``.

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import imbalance_limit
    >>> imbalance_limit(0.3, 3).round(6).tolist()
    [0.538462, 0.35503, 0.08193, 0.018907]
    """
    f = _imb_limit_func()
    i = np.arange(imax + 1)
    ah = min(a, 0.5)
    return np.array([float(f(int(k), ah)) for k in i])


@functools.lru_cache(maxsize=2)
def _imb_limit_func():
    e = dv.imbalance_limit_law()
    return sympy.lambdify((dv.d, dv.a), e, "math")


@public_home("symloss.twoqueue.asymptotic")
def tail_rate(a: float) -> float:
    r"""Geometric decay rate of :math:`P(N - \min(m,n) = k)` in ``k`` in the corner law (a < 1/2):
    the inverse of the smallest pole of its generating function, :math:`\max(a, 4a^2)`
    (:func:`~symloss.twoqueue.derivation.tail_poles`).

    Parameters
    ----------
    a : float
        ``N / rho``, ``< 1/2``.

    Returns
    -------
    float
        The rate, in ``(0, 1)``: ``4a^2`` for ``1/4 < a < 1/2``, ``a`` below ``1/4``.

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import tail_rate
    >>> round(tail_rate(0.3), 12), round(tail_rate(0.2), 12)          # 4a^2, a
    (0.36, 0.2)
    """
    poles = dv.tail_poles()
    vals = [float(p.subs(dv.a, a)) for p in poles]
    return 1.0 / min(v for v in vals if v > 1)


@public_home("symloss.twoqueue.asymptotic")
def local_decay(m: np.ndarray, rho: float) -> np.ndarray:
    r"""Leading-order ray ratio :math:`P(\min = m-1)/P(\min = m) \approx \max(x, 4x^2)` with the
    finite-``rho`` forms ``max(m/rho, 2m(2m-1)/rho^2)``.

    Parameters
    ----------
    m : array_like
        Values of the minimum.
    rho : float
        The load.

    Returns
    -------
    numpy.ndarray
        The ratio at each ``m``, of the shape of ``m``.

    Examples
    --------
    >>> import numpy as np
    >>> from symloss.twoqueue.asymptotic import local_decay
    >>> local_decay(np.array([10, 50]), 100.0).tolist()
    [0.1, 0.99]
    """
    m = np.asarray(m, dtype=float)
    return np.maximum(m / rho, 2 * m * (2 * m - 1) / rho ** 2)


@public_home("symloss.twoqueue.asymptotic")
@fill_doc(TWOQUEUE_DOCS)
def min_law_from_diagonal(diag: np.ndarray, rho: float) -> np.ndarray:
    r"""Exact identity: the law of :math:`\min(m, n)` from the diagonal :math:`p(n, n)` alone,

    .. math:: P(\min = m) = p(m, m) + 2\sum_{n > m} p(n, n)\,\frac{n!}{m!\,\rho^{\,n-m}},

    the unrolled cut equation :math:`\rho\,[P(\min=m-1) - p(m-1,m-1)] = m\,[P(\min=m) + p(m,m)]`
    (arrivals raise the minimum only off the diagonal; departures lower it at rate ``m``, ``2m`` on
    the diagonal). Computed by the backward recursion :math:`S_{m-1} = (m/\rho)(p(m,m) + S_m)`,
    :math:`S_N = 0`, :math:`P(\min = m) = p(m,m) + 2 S_m` (positive terms only).

    Parameters
    ----------
    diag : numpy.ndarray
        :math:`p(n, n)`, ``n = 0..N``.
    rho : float
        The load.

    {{returns_min_law}}

    Examples
    --------
    >>> from symloss import TwoQueueJSQ
    >>> from symloss.twoqueue.asymptotic import min_law_from_diagonal
    >>> res = TwoQueueJSQ(3, 4).stationary_distribution()
    >>> import numpy as np
    >>> bool(np.allclose(min_law_from_diagonal(np.diag(res.p), 4.0), res.marginal_min(), rtol=1e-12))
    True
    """
    N = len(diag) - 1
    out = np.zeros(N + 1)
    S = 0.0
    out[N] = diag[N]
    for m in range(N, 0, -1):
        S = (m / rho) * (diag[m] + S)
        out[m - 1] = diag[m - 1] + 2.0 * S
    return out


@public_home("symloss.twoqueue.asymptotic")
@fill_doc(TWOQUEUE_DOCS)
def diagonal_composite(N: int, rho: float, level: np.ndarray, J: int | None = None) -> np.ndarray:
    r"""Composite approximation of the diagonal :math:`p(n, n) = \pi_{2n} c_{2n}(0)`, any ``a``.

    Outer (valid away from the corner): :math:`c_K(0) = g(0; K/\rho)` (``outer_conditional``,
    order 0). Inner (corner, deficit ``j = 2N - K``): the corner problem with ``2a`` (for ``a >= 1/2``
    a boundary-value problem), closed at ``j = J`` by the outer law at ``r = 2a`` (so it matches).
    Composite: :math:`c_K(0) = g(0; K/\rho) + (c^{in}_j(0) - g(0; 2a))` for ``j <= J``. Error O(1/rho)
    uniformly along the diagonal.

    Parameters
    ----------
    {{N_rho}}
    level : numpy.ndarray
        :math:`\pi_K`, ``K = 0..2N`` (e.g. :func:`~symloss.twoqueue.levels.level_law_float`).
    J : int, optional
        Corner levels (default ``min(N, 200)``).

    Returns
    -------
    numpy.ndarray
        :math:`p(n, n)`, ``n = 0..N``.

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import diagonal_composite
    >>> from symloss.twoqueue.levels import level_law_float
    >>> pi, _ = level_law_float(30, 100.0)
    >>> round(float(diagonal_composite(30, 100.0, pi)[-1]), 10)        # p(N, N) = E(60, 100)
    0.4134872856
    """
    a = N / rho
    J = min(N, 200) if J is None else min(J, N)
    inner = _corner_cached(float(a), J)      # closed form (analytic in a: for a >= 1/2 it is the bounded
    lim = float(_outer_parts(2 * a, np.array([0]))[0][0])   # solution matched to the outer law)
    out = np.zeros(N + 1)
    for nn in range(N + 1):
        K = 2 * nn
        jj = 2 * N - K
        c0 = float(_outer_parts(K / rho, np.array([0]))[0][0]) if K > 0 else 1.0
        if jj <= J:
            c0 += inner[jj][0] - lim
        out[nn] = level[K] * min(max(c0, 0.0), 1.0)
    return out


@public_home("symloss.twoqueue.asymptotic")
@fill_doc(TWOQUEUE_DOCS)
def marginal_min_tail(N: int, rho: float, level: np.ndarray, J: int | None = None) -> np.ndarray:
    r"""Law of the less occupied queue, uniformly over ``min = 0..N`` (every regime):
    :func:`min_law_from_diagonal` applied to :func:`diagonal_composite`.

    The sum over the diagonal produces both rays by itself: the *imbalanced* one (local decay
    ``x = m/rho``: the less occupied queue takes every arrival) and the *balanced* one (``4x^2``: the
    total as an Erlang queue), and their exchange at ``m = rho/4`` (the origin of the a ~ 1/4 regime) is a
    Laplace-type sum over ``n`` near ``rho/4`` of width O(sqrt(rho)), resolved without a separate layer
    analysis (Yao and Knessl 2008 derive the two rays and the a ~ 1/4 layer; see the references of
    ``asymptotic_law``).

    Parameters
    ----------
    N, rho, level, J : int, float, numpy.ndarray, int or None
        As in :func:`diagonal_composite`.

    {{returns_min_law}}

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import marginal_min_tail
    >>> from symloss.twoqueue.levels import level_law_float
    >>> pi, _ = level_law_float(30, 100.0)
    >>> round(float(marginal_min_tail(30, 100.0, pi).sum()), 4)      # O(1/rho) from 1
    0.9942
    """
    return min_law_from_diagonal(diagonal_composite(N, rho, level, J), rho)


