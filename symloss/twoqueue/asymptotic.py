r"""Asymptotic approximations of the shortest-queue Erlang loss model, rho -> infinity, N = a rho.

Every formula evaluated here is lambdified from the SymPy expressions that
:mod:`symloss.twoqueue.derivation` derives
from the model's rules (nothing is retyped). Summary (``K = m + n``, ``d = |m - n|``, ``j = 2N - K``):

* the level law :math:`\pi_K` is the exact truncated Poisson law in every regime (aggregation lemma);
  only the conditional law :math:`c_K(d) = P(d \mid K)` is approximated, and
  :math:`p(m, n) = \pi_K c_K(d)/(1 + [d > 0])`;
* ``a > 1/2`` (outer): :math:`c_K = g(\cdot; K/\rho) + \rho^{-1} h(\cdot; K/\rho)`
  (:func:`~symloss.twoqueue.derivation.outer_solution`; ``order=0`` drops ``h``);
* ``a < 1/2`` (the three regimes ``1/4<a<1/2``, ``a~1/4``, ``a<1/4``): the corner law in closed form
  :math:`c^{(0)}_j` (:func:`~symloss.twoqueue.derivation.corner_law`, coefficients by
  :mod:`symloss.twoqueue.series`) plus its O(1/rho) correction :math:`c^{(1)}_j` (the
  order-:math:`\varepsilon` corner equations of :func:`~symloss.twoqueue.derivation.corner_equations`,
  solved by block level reduction and matched to the outer
  expansion at ``j = J``), composite with the outer law;
* ``a ~ 1/2`` (``2N = rho + beta sqrt(rho)``): the corner law at the local value
  :math:`a_j = K/(2\rho)` (``order=0``: at ``a = 1/2``), composite with the outer law;
* blocking: :func:`~symloss.twoqueue.derivation.blocking_expansion` (Laplace / Watson / Halfin-Whitt),
  lambdified;
* the law of the less occupied queue over its whole range, every regime: the exact identity
  :math:`P(\min = m) = p(m,m) + 2\sum_{n>m} p(n,n) n!/(m!\rho^{n-m})` on a composite (corner + outer)
  diagonal (:func:`marginal_min_tail`); uniformly O(1/rho), the exchange of the two rays at ``m = rho/4``
  (the ``a ~ 1/4`` layer) included.

The approximate law is kept in band form (:class:`AsymptoticLaw`: per level the entries of
:math:`c_K` above 1e-300, only for levels with :math:`\pi_K > 10^{-300}`), so a whole distribution at
``rho = 10^4`` costs a few hundredths of a second; the dense joint array is built only on request.

The pieces live in modules by subsystem and are re-exported here: the outer law
(``symloss.twoqueue.outer_law``), the corner (``symloss.twoqueue.corner``), the summaries that need no joint
law (``symloss.twoqueue.summaries``); the band-form law is built here.

References: H. Yao, C. Knessl, "On the Shortest Queue Version of the Erlang Loss Model", Studies in
Applied Mathematics 120(2), 129-212 (2008); the derivations and error tables are in :doc:`/twoqueue`.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..core.docstrings import fill_doc
from ..core.validation import check_choice, check_int, check_real
from . import regimes as _regimes
from ._docfragments import TWOQUEUE_DOCS
from ._numba import kernels as numba_kernels
from .corner import (
    _corner_cached,
    _corner_with_derivative,
    _first_order_J,
    corner_conditionals,
    corner_first_order,
    default_J,
)
from .definition import RULES
from .distribution import _conditioning
from .outer_law import _outer_log_band, _outer_parts, outer_conditional
from .summaries import (
    blocking_asymptotic,
    diagonal_composite,
    imbalance_limit,
    local_decay,
    log_blocking_asymptotic,
    marginal_min_tail,
    min_law_from_diagonal,
    tail_rate,
)

__all__ = ["AsymptoticLaw", "asymptotic_law", "outer_conditional", "corner_conditionals",
           "corner_first_order", "blocking_asymptotic", "log_blocking_asymptotic", "imbalance_limit", "tail_rate",
           "local_decay",
           "min_law_from_diagonal", "diagonal_composite", "marginal_min_tail", "approximate_joint",
           "REGIMES", "default_J"]

#: the five asymptotic regimes of Yao and Knessl (2008), in ``a = N/rho`` (see :func:`symloss.jsq_regime`)
REGIMES = _regimes.REGIMES
_TINY = 1e-300


# --------------------------------------------------------------------------------------------------
# the approximate law in band form
# --------------------------------------------------------------------------------------------------

@fill_doc(TWOQUEUE_DOCS)
@dataclass
class AsymptoticLaw:
    r"""Approximate stationary law of :class:`~.jsq.TwoQueueJSQ` in band form.

    ``level[K]`` is the exact :math:`\pi_K` (evaluated in float64 from log-gamma, relative accuracy
    ~1e-11); the conditional law :math:`c_K(d)` is stored flat: entries ``off[K]:off[K+1]`` of ``cvals``
    are :math:`c_K(d)` on ``d = K mod 2, K mod 2 + 2, ...`` (entries below 1e-300 and levels with
    :math:`\pi_K < 10^{-300}` omitted). ``regime`` and ``order`` (0: leading, 1: with the O(1/rho)
    corrections) say which formulas were used. The summaries mirror
    :class:`~symloss.twoqueue.jsq.TwoQueueDistribution`.

    Parameters
    ----------
    {{N_rho_regime_order}}
    level : numpy.ndarray
        :math:`\pi_K`, ``K = 0..2N``.
    off, cvals : numpy.ndarray
        The band storage of :math:`c_K(d)` (see above).
    seconds : float
        Time to build the law.
    method : str
        ``"asymptotic"``.

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import asymptotic_law
    >>> law = asymptotic_law(60, 100.0, "a>1/2", order=0)
    >>> round(law.blocking(), 10), round(law.mean_imbalance(), 6)    # E(120, 100) exactly; E|m - n|
    (0.0056900546, 1.000469)
    """
    N: int
    rho: float
    regime: str
    order: int
    level: np.ndarray
    off: np.ndarray
    cvals: np.ndarray
    seconds: float = 0.0
    method: str = "asymptotic"
    _dense: object = field(default=None, repr=False)
    _flatcache: object = field(default=None, repr=False)

    @property
    def bands(self) -> list:
        """Per level the array :math:`c_K(d)` (a view of ``cvals``)."""
        return [self.cvals[self.off[K]:self.off[K + 1]] for K in range(2 * self.N + 1)]

    @property
    def conditional_levels(self) -> list:
        """Alias of :attr:`bands` (the name used by :class:`~symloss.twoqueue.jsq.TwoQueueDistribution`)."""
        return self.bands

    def _flat(self):
        if self._flatcache is None:
            counts = np.diff(self.off)
            Ks = np.repeat(np.arange(2 * self.N + 1), counts)
            t = np.arange(len(self.cvals)) - np.repeat(self.off[:-1], counts)
            dd = Ks % 2 + 2 * t
            self._flatcache = (Ks, dd, self.level[Ks] * self.cvals)
        return self._flatcache

    def blocking(self) -> float:
        r""":math:`p(N, N) = \pi_{2N}` (the level law is exact).

        Returns
        -------
        float
            The blocking probability :math:`E(2N, \rho)`, in float64 from log-gamma.
        """
        return float(self.level[2 * self.N])

    def total(self) -> np.ndarray:
        r"""Law of ``m + n`` (the exact truncated Poisson law).

        Returns
        -------
        numpy.ndarray
            :math:`\pi_K`, ``K = 0..2N`` (a copy of ``level``).
        """
        return self.level.copy()

    def _marginals(self):
        if getattr(self, "_marg", None) is None:
            n1 = self.N + 1
            mn, mx, im = np.zeros(n1), np.zeros(n1), np.zeros(n1)
            numba_kernels().band_marginals(self.level, self.off, self.cvals, mn, mx, im)
            self._marg = (mn, mx, im)
        return self._marg

    def marginal_min(self) -> np.ndarray:
        r"""Law of :math:`\min(m, n)`, the less occupied queue (the one an arrival joins).

        Returns
        -------
        numpy.ndarray
            ``N + 1`` probabilities, ``k = 0..N``; :func:`marginal_min_tail` gives it from the diagonal identity.
        """
        return self._marginals()[0].copy()

    def marginal_max(self) -> np.ndarray:
        r"""Law of :math:`\max(m, n)`, the more occupied queue.

        Returns
        -------
        numpy.ndarray
            ``N + 1`` probabilities, ``k = 0..N``.
        """
        return self._marginals()[1].copy()

    def marginal(self) -> np.ndarray:
        """Law of one queue (the two are exchangeable).

        Returns
        -------
        numpy.ndarray
            ``N + 1`` probabilities: the mean of the laws of the minimum and of the maximum.
        """
        mn, mx, _ = self._marginals()
        return 0.5 * (mn + mx)

    def imbalance(self) -> np.ndarray:
        r"""Law of :math:`|m - n|`.

        Returns
        -------
        numpy.ndarray
            ``N + 1`` probabilities; the large-load limit is :func:`imbalance_limit`.
        """
        return self._marginals()[2].copy()

    def mean_imbalance(self) -> float:
        """:math:`E|m - n|`.

        Returns
        -------
        float
            The mean of :meth:`imbalance`.
        """
        im = self._marginals()[2]
        return float((np.arange(len(im)) * im).sum())

    def value(self, m, n):
        """Approximate :math:`p(m, n)`.

        Parameters
        ----------
        m, n : int or array_like of int
            States (0 outside ``[0, N]^2``).

        Returns
        -------
        numpy.ndarray
            Of the broadcast shape of ``m`` and ``n``.
        """
        m = np.asarray(m, dtype=np.int64)
        n = np.asarray(n, dtype=np.int64)
        K = m + n
        dd = np.abs(m - n)
        t = (dd - K % 2) // 2
        ok = (K >= 0) & (K <= 2 * self.N) & (m >= 0) & (n >= 0) & (m <= self.N) & (n <= self.N)
        Kc = np.where(ok, K, 0)
        ok &= t < (self.off[Kc + 1] - self.off[Kc])
        idx = np.where(ok, self.off[Kc] + t, 0)
        v = np.where(ok, self.level[Kc] * self.cvals[idx] if len(self.cvals) else 0.0, 0.0)
        return v * np.where(dd > 0, 0.5, 1.0)

    def conditional(self, n=None, *, total=None, of: str = "queue"):
        r"""As :meth:`TwoQueueDistribution.conditional <symloss.twoqueue.jsq.TwoQueueDistribution.conditional>`:
        ``n=j`` (one queue given the other) or ``total=K`` (given ``m + n``; ``of="min"`` for the less
        occupied queue).

        Parameters
        ----------
        n, total, of : int, int, {"queue", "min"}
            As in :meth:`~symloss.twoqueue.jsq.TwoQueueDistribution.conditional` (all optional).

        Returns
        -------
        numpy.ndarray
            ``N + 1`` probabilities.

        Raises
        ------
        {{raises_conditioning}}
        ZeroDivisionError
            If the conditioning event underflows.
        """
        N = self.N
        n, Kt = _conditioning(N, n, total, of)
        if n is not None:
            col = self.value(np.arange(N + 1), np.full(N + 1, n))
            s = col.sum()
            if s == 0:
                raise ZeroDivisionError(f"P(n = {n}) underflows in the asymptotic law")
            return col / s
        c = self.cvals[self.off[Kt]:self.off[Kt + 1]]
        out = np.zeros(N + 1)
        if len(c) == 0 or self.level[Kt] == 0:
            raise ZeroDivisionError(f"P(m + n = {Kt}) underflows in the asymptotic law")
        dd = Kt % 2 + 2 * np.arange(len(c))
        lo, hi = (Kt - dd) // 2, (Kt + dd) // 2
        if of == "min":
            out[lo] = c
            return out
        w = np.where(dd > 0, 0.5, 1.0) * c
        np.add.at(out, lo, w)
        np.add.at(out, hi[dd > 0], w[dd > 0])
        return out

    @property
    def p(self) -> np.ndarray:
        """The dense joint law ``p[m, n]`` (built on first access: 8 (N+1)^2 bytes)."""
        if self._dense is None:
            N = self.N
            P = np.zeros((N + 1, N + 1))
            K, dd, q = self._flat()
            v = q * np.where(dd > 0, 0.5, 1.0)
            P[(K - dd) // 2, (K + dd) // 2] = v
            P[(K + dd) // 2, (K - dd) // 2] = v
            self._dense = P
        return self._dense

    def joint(self) -> np.ndarray:
        """The dense joint law (:attr:`p`).

        Returns
        -------
        numpy.ndarray
            ``p[m, n]``, shape ``(N + 1, N + 1)``, built from the bands on first access.
        """
        return self.p

    def to_dict(self) -> dict:
        """Plain data: the blocking and the laws of the imbalance and of the less occupied queue.

        Returns
        -------
        dict
            ``N``, ``rho``, ``regime``, ``order``, ``method``, ``blocking``, ``seconds``, and the laws
            ``imbalance`` and ``marginal_min`` as lists.
        """
        return {"N": self.N, "rho": self.rho, "regime": self.regime, "order": self.order,
                "method": "asymptotic", "blocking": self.blocking(), "seconds": self.seconds,
                "imbalance": self.imbalance().tolist(), "marginal_min": self.marginal_min().tolist()}


def _levels_fast(N: int, rho: float):
    r""":math:`\pi_K` and :math:`\log\pi_K` from log-gamma (vectorised; relative accuracy ~1e-11)."""
    K = np.arange(2 * N + 1)
    from scipy.special import gammaln  # SciPy's special functions: not needed by the import
    lw = K * math.log(rho) - gammaln(K + 1.0)
    top = lw.max()
    lz = top + math.log(np.exp(lw - top).sum())
    lp = lw - lz
    with np.errstate(under="ignore"):
        return np.exp(lp), lp


def _widths(N, rho, Ks):
    """Number of stored d entries of the outer law per level (theta^d above ~1e-305, margin 40)."""
    dmax = np.minimum(Ks, 2 * N - Ks)
    rK = Ks / rho
    with np.errstate(divide="ignore"):
        lt = -np.log(1.0 + 2.0 * rK)
        cap = np.where(lt < -1e-12, 705.0 / np.maximum(-lt, 1e-12) + 40, np.inf)
    width = np.minimum(dmax, cap).astype(np.int64)
    return (width - Ks % 2) // 2 + 1


@fill_doc(TWOQUEUE_DOCS)
def asymptotic_law(N: int, rho: float, regime: str, *, order: int = 1, J: int | None = None,
                   rules=RULES) -> AsymptoticLaw:
    """The approximate joint law in band form (see the module docstring for the formulas).

    Parameters
    ----------
    {{N_rho_regime_order}}
    J : int, optional
        Corner levels of the inner problem (default :func:`default_J`).
    {{rules_param}}

    Returns
    -------
    AsymptoticLaw
        The level law (exact) and the conditional laws ``c_K(d)`` of the ``regime``'s formulas, in band form.

    Raises
    ------
    TypeError
        If ``N`` is not an integer or ``rho`` not a real number.
    ValueError
        If an argument is out of range.

    See Also
    --------
    symloss.TwoQueueJSQ.asymptotic

    {{references_yao_knessl}}

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import asymptotic_law
    >>> law = asymptotic_law(60, 100.0, "a>1/2")
    >>> law.regime, round(law.blocking(), 10)
    ('a>1/2', 0.0056900546)
    """
    t0 = time.perf_counter()
    N = check_int(N, "N", min_value=1)
    rho = float(check_real(rho, "rho", lower=0, lower_open=True))
    check_choice(regime, "regime", REGIMES)
    check_choice(order, "order", (0, 1))
    level, _ = _levels_fast(N, rho)
    a = N / rho
    L = 2 * N + 1
    live = np.nonzero(level > _TINY)[0]
    counts = np.zeros(L, dtype=np.int64)
    counts[live] = _widths(N, rho, live)
    off = np.zeros(L + 1, dtype=np.int64)
    off[1:] = np.cumsum(counts)
    c = _outer_log_band(live, counts[live], rho, order, rules)
    for K in (0, 2 * N):                          # one-state levels: c = (1)
        if counts[K]:
            c[off[K]] = 1.0
    if regime != "a>1/2":
        if J is None:
            J = default_J(min(a, 0.5), N)
        J = min(int(J), N)
        if regime == "a~1/2":
            if order == 0:
                c0 = _corner_cached(0.5, J, rules)
                inner = {jj: (c0[jj], 0.5) for jj in range(J + 1)}
            else:
                # the corner law at the local value a_j = K/(2 rho) (Taylor to second order about 1/2:
                # a_j - 1/2 = O(rho^-1/2)) and its own O(1/rho) correction at a = 1/2
                c0, dc, ddc = _corner_with_derivative(0.5, J, rules)
                J1 = min(J, 150)
                c1h = corner_first_order(0.5, J1, rules)
                inner = {}
                for jj in range(J + 1):
                    aj = (2 * N - jj) / (2.0 * rho)
                    dlt = aj - 0.5
                    inner[jj] = (c0[jj] + dlt * dc[jj] + 0.5 * dlt * dlt * ddc[jj], aj)
            for jj in range(J + 1):
                K = 2 * N - jj
                if counts[K] == 0:
                    continue
                cin, aj = inner[jj]
                n_ = min(counts[K], len(cin))
                dsj = K % 2 + 2 * np.arange(n_)
                g_lim, h_lim, gr_lim = _outer_parts(2 * aj, dsj, rules)
                sl = slice(off[K], off[K] + n_)
                c[sl] = c[sl] + (cin[:n_] - g_lim)
                if order and jj <= J1:
                    g1, h1, gr1 = _outer_parts(1.0, dsj, rules)
                    c[sl] = c[sl] + (c1h[jj][:n_] - (h1 - jj * gr1)) / rho
        else:
            c0 = _corner_cached(float(a), J, rules)
            J1 = _first_order_J(a, J) if order else 0
            c1 = corner_first_order(float(a), J1, rules) if order else None
            for jj in range(J + 1):
                K = 2 * N - jj
                if counts[K] == 0:
                    continue
                n_ = min(counts[K], len(c0[jj]))
                dsj = K % 2 + 2 * np.arange(n_)
                g_lim, h_lim, gr_lim = _outer_parts(2 * a, dsj, rules)
                sl = slice(off[K], off[K] + n_)
                c[sl] = c[sl] + (c0[jj][:n_] - g_lim)
                if order and jj <= J1:
                    c[sl] = c[sl] + (c1[jj][:n_] - (h_lim - jj * gr_lim)) / rho
    # clip, renormalise per level, drop the trailing entries below 1e-300
    last = np.zeros(L, dtype=np.int64)
    total = numba_kernels().normalise_trim(c, off, _TINY, last)
    off2 = np.zeros(L + 1, dtype=np.int64)
    off2[1:] = np.cumsum(last)
    c = c[:total]
    return AsymptoticLaw(N=N, rho=rho, regime=regime, order=order, level=level, off=off2,
                         cvals=c.copy(), seconds=time.perf_counter() - t0)


@fill_doc(TWOQUEUE_DOCS)
def approximate_joint(N: int, rho: float, regime: str, *, J: int | None = None, order: int = 1):
    """Dense approximate joint law ``p(m, n)``, the level law and the conditional vectors (compatibility
    wrapper around :func:`asymptotic_law`).

    Parameters
    ----------
    {{N_rho}}
    regime : str
        One of :data:`REGIMES`.
    J : int, optional
        Corner levels (default :func:`default_J`).
    order : {0, 1}
        Leading order, or with the O(1/rho) corrections.

    Returns
    -------
    tuple
        ``(p, level, bands)``: the dense law :attr:`AsymptoticLaw.p`, the level law ``level`` and
        :attr:`AsymptoticLaw.bands`.

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import approximate_joint
    >>> p, level, bands = approximate_joint(60, 100.0, "a>1/2")
    >>> p.shape, round(float(p.sum()), 10)
    ((61, 61), 1.0)
    """
    law = asymptotic_law(N, rho, regime, order=order, J=J)
    return law.p, law.level, law.bands
