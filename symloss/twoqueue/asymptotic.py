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

References: H. Yao, C. Knessl, "On the Shortest Queue Version of the Erlang Loss Model", Studies in
Applied Mathematics 120(2), 129-212 (2008); the derivations and error tables are in :doc:`/twoqueue`.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
import sympy

from ..core.validation import check_choice, check_int
from . import derivation as dv
from .definition import RULES
from .series import corner_conditional_laws

__all__ = ["AsymptoticLaw", "asymptotic_law", "outer_conditional", "corner_conditionals",
           "corner_first_order", "blocking_asymptotic", "log_blocking_asymptotic", "imbalance_limit", "tail_rate",
           "local_decay",
           "min_law_from_diagonal", "diagonal_composite", "marginal_min_tail", "approximate_joint",
           "REGIMES", "default_J"]

#: the five asymptotic regimes of Yao and Knessl (2008), in ``a = N/rho`` (see :func:`symloss.jsq_regime`)
REGIMES = ("a>1/2", "a~1/2", "1/4<a<1/2", "a~1/4", "a<1/4")
_TINY = 1e-300


# --------------------------------------------------------------------------------------------------
# lambdified pieces
# --------------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=8)
def _outer_funcs(rules=RULES):
    sol = dv.outer_solution(rules)
    rr, dd = dv.r, dv.d
    g1 = sol.g
    f = {
        "g0": sympy.lambdify(rr, sol.g0, "numpy"),
        "g": sympy.lambdify((rr, dd), g1, "numpy"),
        "h0": sympy.lambdify(rr, sol.h0, "numpy"),
        "h": sympy.lambdify((rr, dd), sol.h, "numpy"),
        "gr0": sympy.lambdify(rr, sympy.diff(sol.g0, rr), "numpy"),
        "gr": sympy.lambdify((rr, dd), sympy.diff(g1, rr), "numpy"),
        # the pieces: g(d) = A theta^(d-1), h(d) = (B0 + B1 d + B2 d^2) theta^(d-1), as functions of r
        "pieces": sympy.lambdify(rr, [sol.theta, sol.amplitude, *sol.hpoly, sol.g0, sol.h0], "numpy"),
    }
    return f


def _outer_log_band(Kl, counts, rho, order, rules=RULES):
    r"""Outer law on the bands of the levels ``Kl`` (``counts[i]`` entries ``d = K mod 2, K mod 2 + 2,
    ...`` each), flattened level after level. ``order=0``: :math:`g`; ``order=1``:
    :math:`g\,\exp(h/(\rho g))`, which equals :math:`g + h/\rho` to O(rho^-2) and keeps the tails in
    ``d`` positive (the relative size of ``h/(rho g)`` grows like d^2/rho; linearised it turns negative
    for d > sqrt(rho)). On levels with ``K^2 < rho`` (``K/rho -> 0``, where the outer expansion is not
    uniform; their mass is below e^{-rho/2}) the leading order is used."""
    f = _outer_funcs(rules)["pieces"]
    rK = Kl / rho
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        th, A, B0, B1, B2, g0, h0 = (np.broadcast_to(np.asarray(x, dtype=float), rK.shape) for x in f(rK))
        lA, lth, lg0 = np.log(A), np.log(th), np.log(g0)
        use = (Kl * Kl >= rho) if order else np.zeros(len(Kl), dtype=bool)
        cB0 = np.where(use, B0 / (A * rho), 0.0)
        cB1 = np.where(use, B1 / (A * rho), 0.0)
        cB2 = np.where(use, B2 / (A * rho), 0.0)
        c0 = np.where(use, h0 / (g0 * rho), 0.0)
        from ._kernels import outer_band_values
        out = np.empty(int(counts.sum()))
        outer_band_values(counts.astype(np.int64), (Kl % 2).astype(np.int64), np.ascontiguousarray(lA),
                          np.ascontiguousarray(lth), cB0, cB1, cB2, np.ascontiguousarray(lg0 + c0), out)
        return out


def _outer_parts(r, ds, rules=RULES):
    """(g, h, g_r) of the outer solution at ratio(s) ``r`` on the imbalances ``ds`` (arrays broadcast)."""
    f = _outer_funcs(rules)
    r = np.asarray(r, dtype=float)
    ds = np.asarray(ds)
    d1 = np.maximum(ds, 1)
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        g = np.where(ds == 0, f["g0"](r), f["g"](r, d1))
        h = np.where(ds == 0, f["h0"](r), f["h"](r, d1))
        gr = np.where(ds == 0, f["gr0"](r), f["gr"](r, d1))
    return g, h, gr


def outer_conditional(rho: float, K: int, ds: np.ndarray, order: int = 1, rules=RULES) -> np.ndarray:
    r""":math:`c_K(d)` of the outer law (``order`` 0 or 1) on the given ``d`` values, renormalised on them.

    Parameters
    ----------
    rho : float
        The load.
    K : int
        The level ``m + n``.
    ds : numpy.ndarray
        Imbalances ``d`` (of the parity of ``K``).
    order : {0, 1}
        Leading order, or with the O(1/rho) term ``h``.
    rules : sequence of Rule
        The rule table (default the Yao-Knessl model's).

    Returns
    -------
    numpy.ndarray
        :math:`c_K(d)` on ``ds``.

    References
    ----------
    .. [1] H. Yao, C. Knessl, "On the Shortest Queue Version of the Erlang Loss Model", Studies in
       Applied Mathematics 120(2), 129-212 (2008).

    Examples
    --------
    >>> import numpy as np
    >>> from symloss.twoqueue.asymptotic import outer_conditional
    >>> outer_conditional(100.0, 150, np.array([0, 2, 4])).round(6).tolist()
    [0.753437, 0.232908, 0.013655]
    """
    g, h, _ = _outer_parts(K / rho, ds, rules)
    c = g + (h / rho if order else 0.0)
    c = np.maximum(c, 0.0)
    s = c.sum()
    return c / s if s > 0 else c


@functools.lru_cache(maxsize=8)
def _corner_eq_funcs(rules=RULES):
    ce = dv.corner_equations(rules)
    out = {}
    for name, (o0, o1, terms) in ce.types.items():
        fo0 = sympy.lambdify((dv.j, dv.a), o0, "numpy")
        fo1 = sympy.lambdify((dv.j, dv.a), o1, "numpy")
        ts = []
        for dj, dp, c0, c1 in terms:
            ts.append((dj, sympy.lambdify(dv.d, dp, "numpy"), sympy.lambdify((dv.j, dv.d, dv.a), c0, "numpy"),
                       sympy.lambdify((dv.j, dv.d, dv.a), c1, "numpy")))
        out[name] = (fo0, fo1, tuple(ts))
    return out


def _type_of(dval):
    return "d=0" if dval == 0 else ("d=1" if dval == 1 else "d>=2")


def _corner_operator(a, J, order, rules=RULES):
    """Per level j = 1..J-1: (diag out, [(dj, rows, cols, vals)]) of the order-``order`` corner operator,
    acting on vectors indexed by t (d = j mod 2 + 2t, d <= j)."""
    funcs = _corner_eq_funcs(rules)
    levels = {}
    for jj in range(0, J + 1):
        ds = np.arange(jj % 2, jj + 1, 2)
        outv = np.zeros(len(ds))
        mats = {}
        for t, dval in enumerate(ds):
            fo0, fo1, ts = funcs[_type_of(int(dval))]
            outv[t] = float((fo0, fo1)[order](jj, a))
            for dj, fdp, c0, c1 in ts:
                dp = int(fdp(int(dval)))
                jt = jj + dj
                if jt < 0 or dp > jt or dp < 0:
                    continue
                coef = float((c0, c1)[order](jj, int(dval), a))
                if coef != 0.0:
                    mats.setdefault(dj, []).append((t, (dp - jt % 2) // 2, coef))
        levels[jj] = (outv, mats)
    return levels


def _apply(levels, jj, vecs, order_levels=None):
    """(L c)_j = out*c_j - sum coef * c_{j+dj} for a list of level vectors."""
    outv, mats = levels[jj]
    res = outv * vecs[jj]
    for dj, ents in mats.items():
        src = vecs[jj + dj] if 0 <= jj + dj < len(vecs) else None
        if src is None:
            continue
        for t, i, coef in ents:
            res[t] -= coef * src[i]
    return res


def _block_solve(levels, J, rhs, x0, terminal):
    """Solve out*x_j - sum coef x_{j+dj} = rhs_j for j = 1..J-1, x_0 = x0, x_J = terminal."""
    U, v = {}, {}
    sizes = [jj // 2 + 1 for jj in range(J + 1)]
    U[J] = np.zeros((sizes[J], sizes[J - 1]))
    v[J] = np.asarray(terminal, dtype=float)
    for jj in range(J - 1, 0, -1):
        outv, mats = levels[jj]
        n = sizes[jj]
        Zm = np.diag(outv).astype(float)
        Bm = np.zeros((n, sizes[jj - 1]))
        Am = np.zeros((n, sizes[jj + 1]))
        for dj, ents in mats.items():
            for t, i, coef in ents:
                if dj == 1:
                    Am[t, i] += coef
                elif dj == -1:
                    Bm[t, i] += coef
                else:
                    Zm[t, i] -= coef
        Zm = Zm - Am @ U[jj + 1]
        U[jj] = np.linalg.solve(Zm, Bm)
        v[jj] = np.linalg.solve(Zm, Am @ v[jj + 1] + rhs[jj])
    x = [np.asarray(x0, dtype=float)]
    for jj in range(1, J + 1):
        x.append(U[jj] @ x[-1] + v[jj])
    return x


def corner_conditionals(a, J: int, terminal: np.ndarray | None = None) -> list[np.ndarray]:
    r"""Reference numerical solution (level reduction, no closed form) of the corner problem

    .. math:: (1 + 2a) c_j = B c_{j-1} + 2a A c_{j+1}, \qquad c_0 = (1),

    ``j = 0..J``; the top closed by ``c_J = B c_{J-1}`` (``terminal=None``) or the given ``c_J``. ``a`` may
    be a function ``j -> a_j``. Kept as the independent check of the closed form
    (:func:`~symloss.twoqueue.series.corner_conditional_laws`), which is what the asymptotics use.

    Parameters
    ----------
    a : float or callable
        ``N / rho``, or ``j -> a_j``.
    J : int
        Largest level.
    terminal : numpy.ndarray, optional
        ``c_J`` (default: the top closed by ``c_J = B c_{J-1}``).

    Returns
    -------
    list of numpy.ndarray
        ``c_j`` for ``j = 0..J``, each a probability vector on ``d = j mod 2, ..., j``.

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import corner_conditionals
    >>> [c.round(6).tolist() for c in corner_conditionals(0.3, 3)]
    [[1.0], [1.0], [0.615385, 0.384615], [0.807692, 0.192308]]
    """
    af = a if callable(a) else (lambda jj, _a=a: _a)
    U, w = {}, {}
    if terminal is None:
        U[J] = _B(J)
        w[J] = np.zeros(J // 2 + 1)
    else:
        U[J] = np.zeros((J // 2 + 1, (J - 1) // 2 + 1))
        w[J] = np.asarray(terminal, float)
    for jj in range(J - 1, 0, -1):
        A = _A(jj)
        aj = af(jj)
        Zm = (1 + 2 * aj) * np.eye(jj // 2 + 1) - 2 * aj * A @ U[jj + 1]
        U[jj] = np.linalg.solve(Zm, _B(jj))
        w[jj] = np.linalg.solve(Zm, 2 * aj * A @ w[jj + 1])
    c = [np.array([1.0])]
    for jj in range(1, J + 1):
        x = U[jj] @ c[-1] + w[jj]
        x = np.maximum(x, 0.0)
        c.append(x / x.sum())
    return c


def _B(jj):
    n_to, n_from = jj // 2 + 1, (jj - 1) // 2 + 1
    M = np.zeros((n_to, n_from))
    p0 = (jj - 1) % 2
    for t in range(n_from):
        e = p0 + 2 * t
        if e == 0:
            M[0, t] = 1.0
            continue
        M[(e - 1 - jj % 2) // 2, t] += 0.5
        if e + 1 <= jj:
            M[(e + 1 - jj % 2) // 2, t] += 0.5
    return M


def _A(jj):
    n_to, n_from = jj // 2 + 1, (jj + 1) // 2 + 1
    M = np.zeros((n_to, n_from))
    p0 = (jj + 1) % 2
    for t in range(n_from):
        e = p0 + 2 * t
        dd = e - 1 if e >= 1 else 1
        if dd <= jj:
            M[(dd - jj % 2) // 2, t] += 1.0
    return M


@functools.lru_cache(maxsize=64)
def _corner_cached(a: float, J: int, rules=RULES):
    return tuple(corner_conditional_laws(a, J, rules=rules))


@functools.lru_cache(maxsize=64)
def corner_first_order(a: float, J: int, rules=RULES):
    r"""The O(1/rho) correction :math:`c^{(1)}_j`, ``j = 0..J``, of the corner law: the solution of
    :math:`L_0 c^{(1)} = -L_1 c^{(0)}` (orders 0 and 1 of :func:`.derivation.corner_equations`) with
    :math:`c^{(1)}_0 = 0` and, at ``j = J``, the outer expansion
    :math:`c^{(1)}_J = h(\cdot; 2a) - J\,\partial_r g(\cdot; 2a)` (matching). Numerical (block level
    reduction); each :math:`c^{(1)}_j` sums to zero.

    Parameters
    ----------
    a : float
        ``N / rho`` (``< 1/2``).
    J : int
        Largest corner level.
    rules : sequence of Rule
        The rule table (default the Yao-Knessl model's).

    Returns
    -------
    tuple of numpy.ndarray
        :math:`c^{(1)}_j`, ``j = 0..J``.

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import corner_first_order
    >>> c1 = corner_first_order(0.3, 10)
    >>> c1[2].round(6).tolist(), abs(float(c1[5].sum())) < 1e-12      # every level sums to zero
    ([0.414878, -0.414878], True)
    """
    c0 = list(_corner_cached(a, J, rules))
    L0 = _corner_operator(a, J, 0, rules)
    L1 = _corner_operator(a, J, 1, rules)
    rhs = {jj: -_apply(L1, jj, c0) for jj in range(1, J)}
    dsJ = np.arange(J % 2, J + 1, 2)
    g, h, gr = _outer_parts(2 * a, dsJ, rules)
    term = h - J * gr
    term = term - term.sum() * (g / g.sum())      # exact zero sum (the truncated tail is negligible)
    x = _block_solve(L0, J, rhs, np.zeros(1), term)
    return tuple(x)


def default_J(a: float, N: int) -> int:
    """Number of corner levels solved in the inner problem: enough for the neglected mass (2a)^J and
    the inner-outer difference to be below ~1e-16.

    Parameters
    ----------
    a : float
        ``N / rho``.
    N : int
        Servers per station (an upper bound).

    Returns
    -------
    int
        At most ``min(N, 400)``.

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import default_J
    >>> default_J(0.3, 1000), default_J(0.1, 1000), default_J(0.3, 50)
    (150, 60, 50)
    """
    if a >= 0.3:
        J = 150
    else:
        J = max(60, math.ceil(40 / max(-math.log10(2 * a), 1e-3)))
    return int(min(N, J, 400))


def _first_order_J(a: float, J: int) -> int:
    if a >= 0.3:
        return min(J, 150)
    return min(J, max(40, math.ceil(13 / max(-math.log10(2 * a), 1e-3))))


# --------------------------------------------------------------------------------------------------
# the approximate law in band form
# --------------------------------------------------------------------------------------------------

@dataclass
class AsymptoticLaw:
    r"""Approximate stationary law of :class:`~.jsq.TwoQueueJSQ` in band form.

    ``level[K]`` is the exact :math:`\pi_K` (evaluated in float64 from log-gamma, relative accuracy
    ~1e-11); the conditional law :math:`c_K(d)` is stored flat: entries ``off[K]:off[K+1]`` of ``cvals``
    are :math:`c_K(d)` on ``d = K mod 2, K mod 2 + 2, ...`` (entries below 1e-300 and levels with
    :math:`\pi_K < 10^{-300}` omitted). ``regime`` and ``order`` (0: leading, 1: with the O(1/rho)
    corrections) say which formulas were used. The summaries mirror
    :class:`~symloss.twoqueue.jsq.TwoQueueDistribution`.

    Attributes
    ----------
    N : int
        Servers per station.
    rho : float
        The load.
    regime : str
        One of :data:`REGIMES`.
    order : int
        0 or 1.
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
        """
        return float(self.level[2 * self.N])

    def total(self) -> np.ndarray:
        """Law of ``m + n`` (the exact truncated Poisson law).

        Returns
        -------
        numpy.ndarray
        """
        return self.level.copy()

    def _marginals(self):
        if getattr(self, "_marg", None) is None:
            from ._kernels import band_marginals
            n1 = self.N + 1
            mn, mx, im = np.zeros(n1), np.zeros(n1), np.zeros(n1)
            band_marginals(self.level, self.off, self.cvals, mn, mx, im)
            self._marg = (mn, mx, im)
        return self._marg

    def marginal_min(self) -> np.ndarray:
        r"""Law of :math:`\min(m, n)`.

        Returns
        -------
        numpy.ndarray
        """
        return self._marginals()[0].copy()

    def marginal_max(self) -> np.ndarray:
        r"""Law of :math:`\max(m, n)`.

        Returns
        -------
        numpy.ndarray
        """
        return self._marginals()[1].copy()

    def marginal(self) -> np.ndarray:
        """Law of one queue (the two are exchangeable).

        Returns
        -------
        numpy.ndarray
        """
        mn, mx, _ = self._marginals()
        return 0.5 * (mn + mx)

    def imbalance(self) -> np.ndarray:
        r"""Law of :math:`|m - n|`.

        Returns
        -------
        numpy.ndarray
        """
        return self._marginals()[2].copy()

    def mean_imbalance(self) -> float:
        """:math:`E|m - n|`.

        Returns
        -------
        float
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
        n : int, optional
            The other queue's occupancy.
        total : int, optional
            The total ``m + n``.
        of : {"queue", "min"}
            The conditioned quantity (``"min"`` only with ``total``).

        Returns
        -------
        numpy.ndarray
            ``N + 1`` probabilities.

        Raises
        ------
        ValueError
            If not exactly one of ``n``, ``total`` is given, or an argument is out of range.
        ZeroDivisionError
            If the conditioning event underflows.
        """
        N = self.N
        check_choice(of, "of", ("queue", "min"))
        if (n is None) == (total is None):
            raise ValueError("conditional: give exactly one of n (the other queue's occupancy) or total")
        if n is not None:
            n = check_int(n, "n", min_value=0, max_value=N)
            if of != "queue":
                raise ValueError("conditional: of='min' is only defined with total=")
            col = self.value(np.arange(N + 1), np.full(N + 1, n))
            s = col.sum()
            if s == 0:
                raise ZeroDivisionError(f"P(n = {n}) underflows in the asymptotic law")
            return col / s
        Kt = check_int(total, "total", min_value=0, max_value=2 * N)
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
        """
        return self.p

    def to_dict(self) -> dict:
        """Plain data: the blocking and the laws of the imbalance and of the less occupied queue.

        Returns
        -------
        dict
        """
        return {"N": self.N, "rho": self.rho, "regime": self.regime, "order": self.order,
                "method": "asymptotic", "blocking": self.blocking(), "seconds": self.seconds,
                "imbalance": self.imbalance().tolist(), "marginal_min": self.marginal_min().tolist()}


def _levels_fast(N: int, rho: float):
    r""":math:`\pi_K` and :math:`\log\pi_K` from log-gamma (vectorised; relative accuracy ~1e-11)."""
    from scipy.special import gammaln
    K = np.arange(2 * N + 1)
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


def asymptotic_law(N: int, rho: float, regime: str, *, order: int = 1, J: int | None = None,
                   rules=RULES) -> AsymptoticLaw:
    """The approximate joint law in band form (see the module docstring for the formulas).

    Parameters
    ----------
    N : int
        Servers per station, ``>= 1``.
    rho : float
        The load, ``> 0``.
    regime : str
        One of :data:`REGIMES` (the formulas used).
    order : {0, 1}
        Leading order, or with the O(1/rho) corrections.
    J : int, optional
        Corner levels of the inner problem (default :func:`default_J`).
    rules : sequence of Rule
        The rule table (default the Yao-Knessl model's).

    Returns
    -------
    AsymptoticLaw

    Raises
    ------
    TypeError
        If ``N`` is not an integer or ``rho`` not a real number.
    ValueError
        If an argument is out of range.

    See Also
    --------
    symloss.TwoQueueJSQ.asymptotic

    References
    ----------
    .. [1] H. Yao, C. Knessl, "On the Shortest Queue Version of the Erlang Loss Model", Studies in
       Applied Mathematics 120(2), 129-212 (2008).

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import asymptotic_law
    >>> law = asymptotic_law(60, 100.0, "a>1/2")
    >>> law.regime, round(law.blocking(), 10)
    ('a>1/2', 0.0056900546)
    """
    import time
    t0 = time.perf_counter()
    from ..core.validation import check_real
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
    from ._kernels import normalise_trim
    last = np.zeros(L, dtype=np.int64)
    total = normalise_trim(c, off, _TINY, last)
    off2 = np.zeros(L + 1, dtype=np.int64)
    off2[1:] = np.cumsum(last)
    c = c[:total]
    return AsymptoticLaw(N=N, rho=rho, regime=regime, order=order, level=level, off=off2,
                         cvals=c.copy(), seconds=time.perf_counter() - t0)


@functools.lru_cache(maxsize=16)
def _corner_with_derivative(a: float, J: int, rules=RULES):
    r"""The corner law at ``a`` and its first two ``a``-derivatives: complex step on the closed form
    (exact to rounding) for the first, central differences of complex steps (step 1e-4, error ~1e-8)
    for the second."""
    hstep = 1e-30

    def deriv(av):
        cz = corner_conditional_laws(complex(av, hstep), J, rules=rules)
        return [np.real(x) for x in cz], [np.imag(x) / hstep for x in cz]
    c0, d1 = deriv(a)
    _, dp = deriv(a + 1e-4)
    _, dm = deriv(a - 1e-4)
    d2 = [(u - v) / 2e-4 for u, v in zip(dp, dm)]
    return tuple(c0), tuple(d1), tuple(d2)


@functools.lru_cache(maxsize=256)
def _corner_level(a: float, jj: int, rules=RULES):
    return corner_conditional_laws(a, jj, rules=rules)[jj]


# --------------------------------------------------------------------------------------------------
# blocking, imbalance, tails
# --------------------------------------------------------------------------------------------------

def blocking_asymptotic(N: int, rho: float, regime: str, order: int = 1) -> float:
    r"""The blocking :math:`E(2N, \rho)` from :func:`~symloss.twoqueue.derivation.blocking_expansion`
    (lambdified): ``a > 1/2`` Laplace, ``a ~ 1/2`` Halfin-Whitt (Jagerman's term and, for ``order=1``,
    the next), ``a < 1/2`` Watson; ``order=0`` leading term only.

    Parameters
    ----------
    N : int
        Servers per station.
    rho : float
        The load.
    regime : str
        One of :data:`REGIMES`.
    order : {0, 1}
        Leading term, or with the next.

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
    import mpmath
    check_choice(regime, "regime", REGIMES)
    check_choice(order, "order", (0, 1))
    key = "a~1/2" if regime == "a~1/2" else ("a>1/2" if regime == "a>1/2" else "a<1/2")
    f = _blocking_func(key, order)
    with mpmath.workdps(30):
        if key == "a~1/2":
            return float(f(mpmath.mpf(2 * N - rho) / mpmath.sqrt(rho), mpmath.mpf(rho)))
        return float(f(mpmath.mpf(N) / rho, mpmath.mpf(rho)))


@functools.lru_cache(maxsize=16)
def _blocking_func(key, order):
    e = dv.blocking_expansion(key, order)
    if key == "a~1/2":
        return sympy.lambdify((dv.beta, dv.rsym), e, "mpmath")
    return sympy.lambdify((dv.a, dv.rsym), e, "mpmath")


def log_blocking_asymptotic(N: int, rho: float, regime: str, order: int = 1) -> float:
    """Natural logarithm of :func:`blocking_asymptotic` (no underflow).

    Parameters
    ----------
    N : int
        Servers per station.
    rho : float
        The load.
    regime : str
        One of :data:`REGIMES`.
    order : {0, 1}
        Leading term, or with the next.

    Returns
    -------
    float

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import log_blocking_asymptotic
    >>> round(log_blocking_asymptotic(300, 1000.0, "1/4<a<1/2"), 10)      # log 0.4015
    -0.9125477456
    """
    import mpmath
    key = "a~1/2" if regime == "a~1/2" else ("a>1/2" if regime == "a>1/2" else "a<1/2")
    f = _blocking_func(key, order)
    with mpmath.workdps(30):
        if key == "a~1/2":
            v = f(mpmath.mpf(2 * N - rho) / mpmath.sqrt(rho), mpmath.mpf(rho))
        else:
            v = f(mpmath.mpf(N) / rho, mpmath.mpf(rho))
        return float(mpmath.log(v))


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

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import tail_rate
    >>> round(tail_rate(0.3), 12), round(tail_rate(0.2), 12)          # 4a^2, a
    (0.36, 0.2)
    """
    poles = dv.tail_poles()
    vals = [float(p.subs(dv.a, a)) for p in poles]
    return 1.0 / min(v for v in vals if v > 1)


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

    Examples
    --------
    >>> import numpy as np
    >>> from symloss.twoqueue.asymptotic import local_decay
    >>> local_decay(np.array([10, 50]), 100.0).tolist()
    [0.1, 0.99]
    """
    m = np.asarray(m, dtype=float)
    return np.maximum(m / rho, 2 * m * (2 * m - 1) / rho ** 2)


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

    Returns
    -------
    numpy.ndarray
        :math:`P(\min = m)`, ``m = 0..N``.

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


def diagonal_composite(N: int, rho: float, level: np.ndarray, J: int | None = None) -> np.ndarray:
    r"""Composite approximation of the diagonal :math:`p(n, n) = \pi_{2n} c_{2n}(0)`, any ``a``.

    Outer (valid away from the corner): :math:`c_K(0) = g(0; K/\rho)` (:func:`outer_conditional`,
    order 0). Inner (corner, deficit ``j = 2N - K``): the corner problem with ``2a`` (for ``a >= 1/2``
    a boundary-value problem), closed at ``j = J`` by the outer law at ``r = 2a`` (so it matches).
    Composite: :math:`c_K(0) = g(0; K/\rho) + (c^{in}_j(0) - g(0; 2a))` for ``j <= J``. Error O(1/rho)
    uniformly along the diagonal.

    Parameters
    ----------
    N : int
        Servers per station.
    rho : float
        The load.
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


def marginal_min_tail(N: int, rho: float, level: np.ndarray, J: int | None = None) -> np.ndarray:
    r"""Law of the less occupied queue, uniformly over ``min = 0..N`` (every regime):
    :func:`min_law_from_diagonal` applied to :func:`diagonal_composite`.

    The sum over the diagonal produces both rays by itself: the *imbalanced* one (local decay
    ``x = m/rho``: the less occupied queue takes every arrival) and the *balanced* one (``4x^2``: the
    total as an Erlang queue), and their exchange at ``m = rho/4`` (the origin of the a ~ 1/4 regime) is a
    Laplace-type sum over ``n`` near ``rho/4`` of width O(sqrt(rho)), resolved without a separate layer
    analysis.

    Parameters
    ----------
    N : int
        Servers per station.
    rho : float
        The load.
    level : numpy.ndarray
        :math:`\pi_K`, ``K = 0..2N``.
    J : int, optional
        Corner levels.

    Returns
    -------
    numpy.ndarray
        :math:`P(\min = m)`, ``m = 0..N``.

    References
    ----------
    .. [1] H. Yao, C. Knessl, "On the Shortest Queue Version of the Erlang Loss Model", Studies in
       Applied Mathematics 120(2), 129-212 (2008).

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import marginal_min_tail
    >>> from symloss.twoqueue.levels import level_law_float
    >>> pi, _ = level_law_float(30, 100.0)
    >>> round(float(marginal_min_tail(30, 100.0, pi).sum()), 4)      # O(1/rho) from 1
    0.9942
    """
    return min_law_from_diagonal(diagonal_composite(N, rho, level, J), rho)


def approximate_joint(N: int, rho: float, regime: str, *, J: int | None = None, order: int = 1):
    """Dense approximate joint law ``p(m, n)``, the level law and the conditional vectors (compatibility
    wrapper around :func:`asymptotic_law`).

    Parameters
    ----------
    N : int
        Servers per station.
    rho : float
        The load.
    regime : str
        One of :data:`REGIMES`.
    J : int, optional
        Corner levels.
    order : {0, 1}
        Leading order, or with the O(1/rho) corrections.

    Returns
    -------
    tuple
        ``(p, level, bands)``.

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import approximate_joint
    >>> p, level, bands = approximate_joint(60, 100.0, "a>1/2")
    >>> p.shape, round(float(p.sum()), 10)
    ((61, 61), 1.0)
    """
    law = asymptotic_law(N, rho, regime, order=order, J=J)
    return law.p, law.level, law.bands
