r"""Two M/M/N/N queues under join-the-shortest-queue: the shortest-queue Erlang loss model.

Model (H. Yao and C. Knessl, *On the Shortest Queue Version of the Erlang Loss Model*, Studies in
Applied Mathematics 120(2), 129-212, 2008; the derivations are in :doc:`/twoqueue`). Two loss stations
with ``N`` servers each; one Poisson stream of rate :math:`\lambda`; an arrival joins the station with
fewer busy servers (ties: probability 1/2 each) and is lost only when all ``2N`` servers are busy;
every busy server completes at rate :math:`\mu`. Time is measured in units of :math:`1/\mu`, so the
only parameters are ``N`` and :math:`\rho = \lambda/\mu`; the asymptotic parameter is
:math:`a = N/\rho`.

**One definition.** The rates are written once, as the rule table
:data:`~symloss.twoqueue.definition.RULES` (:mod:`symloss.twoqueue.definition`);
:meth:`TwoQueueJSQ.transitions` evaluates it (a subclass may replace ``rules``
or override ``transitions`` to define another model). Every solver is generated from that definition
or checked against it:

* ``"mp"``, ``"exact"``, ``"symbolic"``: level reduction on the level kernels *generated* by calling
  ``transitions`` on every state (:func:`~symloss.twoqueue.kernels.level_kernels`), lumped to the classes
  ``(K, d) = (m + n, |m - n|)`` when the definition is symmetric, on the full states otherwise;
* ``"float"``: the numba stencil of the Yao-Knessl model (fast path) is used only when the model's
  rule table equals the table the stencil declares (``STENCIL_RULES`` of the private
  ``symloss.twoqueue._kernels``), and its answer is then verified on the full chain's balance equations
  evaluated from the model's own rules (:func:`~symloss.twoqueue.definition.balance_residual`) before
  it is returned; any other definition gets the generic Gauss-Seidel on its generated kernels
  (adjacent, aggregated definitions) or the generic sparse LU (small ``N``), or a
  :class:`~symloss.twoqueue.kernels.StructureError` naming the structure that fails.

The state is ``(m, n)``, ``0 <= m, n <= N``. Two exact structural facts of the Yao-Knessl model drive the
fast solvers (both are *checked* on the generated kernels, never assumed):

* symmetry, :math:`p(m, n) = p(n, m)`: the chain lumps to the unordered pair, written
  :math:`(K, d)` with total :math:`K = m + n` and imbalance :math:`d = |m - n|`
  (``d = K mod 2, K mod 2 + 2, ..., min(K, 2N - K)``);
* aggregation: :math:`K` is itself an M/M/2N/2N birth-death chain (from every state the arrival rate
  is :math:`\rho` unless ``K = 2N`` and the departure rate is ``K``), so
  :math:`\pi_K = P(K) = (\rho^K/K!) / \sum_{j \le 2N} \rho^j/j!` and the blocking is
  :math:`p(N, N) = E(2N, \rho)`.

Writing :math:`q(K, d) = \pi_K c_K(d)`, the balance equations become, with the exact ratios
:math:`\rho\pi_{K-1} = K\pi_K` and :math:`(K+1)\pi_{K+1} = \rho\pi_K`,

.. math::

    (\rho + K)\, c_K = K\, A_K c_{K-1} + \rho\, B_K c_{K+1}, \qquad 0 < K < 2N,

where :math:`A_K` (an arrival: :math:`d \to d - 1`, :math:`0 \to 1`) and :math:`B_K` (a departure:
:math:`d \to d - 1` with probability :math:`(K + 1 + d)/(2K + 2)`, :math:`d \to d + 1` otherwise) are
column-stochastic. Every conditional vector :math:`c_K` is a probability vector.

Solvers (``stationary_distribution(method=...)``):

* ``"float"`` (N <= 10000): Gauss-Seidel sweeps up and down the levels on the conditional vectors,
  with the level masses :math:`\pi_K` fixed exactly (iterative aggregation-disaggregation with the
  exact aggregate). Every update is a positive combination, so there is no cancellation and tiny
  probabilities keep their relative accuracy; one sweep costs O(nonzero states) (numba; entries of
  :math:`c_K` below 1e-300 are set to 0 and skipped). Converges to ~1e-14 in 50-300 sweeps.
* ``"mp"``, ``"exact"``, ``"symbolic"``: direct level reduction (:mod:`symloss.twoqueue.solvers`) on the generated
  kernels. ``"mp"`` runs it with python-flint ``arb_mat`` midpoints at ``dps + 15`` and ``dps + 30``
  digits and requires every entry to agree to ``dps + 2`` digits (the diagonal of each reduced matrix
  is formed from exact column sums, GTH-style, which removes an ``e^rho`` error amplification);
  ``"exact"`` runs it in ``fmpq`` rationals, ``"symbolic"`` over :math:`\mathbb{Q}(\rho)`.
"""
from __future__ import annotations

import math
import numbers
import time
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from ..core.precision import (
    DEFAULT_DPS,
    PrecisionError,
    arb_to_mpf,
    check_dps,
    dps_to_prec,
    flint_prec,
    to_arb,
    to_mpf,
)
from ..core.identity import ClearsCachesOnAssignment
from ..core.results import ResultMixin
from ..core.validation import check_choice, check_int, check_real
from .definition import RULES, balance_equations as _balance_equations, balance_residual, rules_equal, transitions
from .kernels import LevelKernels, StructureError, level_kernels
from .levels import level_law_float

__all__ = ["TwoQueueJSQ", "TwoQueueDistribution", "jsq_regime", "METHOD_LIMITS", "transitions",
           "StructureError"]

#: largest ``N`` accepted by each method of :meth:`TwoQueueJSQ.stationary_distribution`
METHOD_LIMITS = {"float": 10000, "mp": 200, "exact": 30, "symbolic": 8}
_METHOD_ADVICE = {
    "symbolic": "use method='exact' (rational rho, N <= 30) or 'mp'",
    "exact": "use method='mp' (N <= 200) or 'float' (N <= 10000)",
    "mp": "use method='float' (N <= 10000)",
    "float": ("N > 10000 is beyond the measured range (N = 10000 takes about 80 s, docs/twoqueue.md; "
              "the joint law alone needs 8 (N+1)^2 bytes, 0.8 GB at N = 10000)"),
}
#: largest N for the float solver of a definition other than the stencil's (generated CSR kernels)
GENERIC_FLOAT_LIMIT = 1000
#: largest N for the sparse-LU fallback (definitions that are not level-adjacent or not aggregated)
SPARSE_LU_LIMIT = 300
#: a float answer is returned only if its residual on the definition's balance equations is below this
FLOAT_RESIDUAL_LIMIT = 1e-9


def _dmax(N: int, K: int) -> int:
    return min(K, 2 * N - K)


def _level_size(N: int, K: int) -> int:
    return (_dmax(N, K) - K % 2) // 2 + 1


# --------------------------------------------------------------------------------------------------
# Regimes
# --------------------------------------------------------------------------------------------------

def jsq_regime(a, rho=None, *, width: float = 1.0) -> str:
    r"""The asymptotic regime of the shortest-queue Erlang loss model for ``a = N/rho``.

    The five regimes of Yao and Knessl (2008): ``"a>1/2"``, ``"a~1/2"``, ``"1/4<a<1/2"``,
    ``"a~1/4"``, ``"a<1/4"``.

    Parameters
    ----------
    a : real, > 0
        ``N / rho``.
    rho : real, optional
        The load. Without it only the three open regimes are returned (a = 1/2 and a = 1/4 exactly
        give the transition names). With it, ``a`` is in the transition layer around 1/2 when
        :math:`|2N - \rho| \le w\sqrt{\rho}` (the Halfin-Whitt scale, :math:`\beta = (2N-\rho)/\sqrt\rho`)
        and around 1/4 when :math:`|4N - \rho| \le w\sqrt{\rho}`.
    width : float
        ``w`` above (default 1; an O(1) choice, the layers have no sharp edge).

    Returns
    -------
    str
        One of :data:`~symloss.twoqueue.asymptotic.REGIMES`.

    Raises
    ------
    TypeError
        If ``a``, ``rho`` or ``width`` is not a real number.
    ValueError
        If one of them is not positive and finite.

    See Also
    --------
    TwoQueueJSQ.asymptotic

    References
    ----------
    .. [1] H. Yao, C. Knessl, "On the Shortest Queue Version of the Erlang Loss Model", Studies in
       Applied Mathematics 120(2), 129-212 (2008).

    Examples
    --------
    >>> from symloss import jsq_regime
    >>> jsq_regime(1.0), jsq_regime(0.3), jsq_regime(0.1)
    ('a>1/2', '1/4<a<1/2', 'a<1/4')
    >>> jsq_regime(0.5), jsq_regime(0.51, rho=400)
    ('a~1/2', 'a~1/2')
    """
    a = check_real(a, "a", lower=0, lower_open=True)
    width = float(check_real(width, "width", lower=0, lower_open=True))
    af = float(a)
    if rho is not None:
        rho = float(check_real(rho, "rho", lower=0, lower_open=True))
        s = math.sqrt(rho)
        if abs(2 * af * rho - rho) <= width * s:
            return "a~1/2"
        if abs(4 * af * rho - rho) <= width * s:
            return "a~1/4"
    if af > 0.5:
        return "a>1/2"
    if af == 0.5:
        return "a~1/2"
    if af > 0.25:
        return "1/4<a<1/2"
    if af == 0.25:
        return "a~1/4"
    return "a<1/4"


# --------------------------------------------------------------------------------------------------
# Result object
# --------------------------------------------------------------------------------------------------

def _zero_like(x):
    if isinstance(x, float):
        return 0.0
    return x * 0


@dataclass
class TwoQueueDistribution(ResultMixin):
    r"""Stationary distribution of :class:`TwoQueueJSQ` computed by one method.

    Attributes
    ----------
    N, rho, method, dps : int, real, str, int or None
        The model and how it was solved (``dps`` only for ``"mp"``).
    p : numpy.ndarray or list of list
        The joint distribution, ``p[m][n]`` = P(first queue has m busy servers, second has n).
        ``numpy.ndarray`` (float), nested lists of ``mpmath.mpf`` (mp), ``flint.fmpq`` (exact) or
        SymPy expressions in :math:`\rho` (symbolic).
    level : sequence
        :math:`\pi_K = P(m + n = K)`, ``K = 0..2N`` (exact truncated Poisson).
    conditional_levels : list
        ``c_K(d) = P(|m-n| = d | m+n = K)`` for ``d = K mod 2, K mod 2 + 2, ...`` (list of vectors).
    residual : float
        Max relative residual of the balance equations (float and mp; 0 for exact/symbolic).
    error : float
        Estimated relative error of the conditional probabilities: float, from the iteration's
        contraction rate; mp, the largest relative difference between the two working precisions;
        0 for exact/symbolic.
    iterations, seconds : int, float
        Work done.
    log_p : numpy.ndarray or None
        ``log p`` where ``p`` underflows float64 (float method).

    Examples
    --------
    >>> from symloss import TwoQueueJSQ
    >>> res = TwoQueueJSQ(2, 1).stationary_distribution("exact")
    >>> res.total()                              # truncated Poisson: the M/M/4/4 law
    [24/65, 24/65, 12/65, 4/65, 1/65]
    >>> res.marginal_min(), res.mean_imbalance()
    ([148/195, 44/195, 1/65], 92/195)
    """
    N: int
    rho: Any
    method: str
    p: Any
    level: Any
    conditional_levels: Any
    residual: float = 0.0
    error: float = 0.0
    iterations: int = 0
    seconds: float = 0.0
    dps: int | None = None
    log_p: Any = field(default=None, repr=False)

    # -- helpers ---------------------------------------------------------------------------------
    @property
    def _is_float(self) -> bool:
        return self.method in ("float", "asymptotic")

    def _zero(self):
        return 0.0 if self._is_float else _zero_like(self.p[0][0])

    def _vec(self, values):
        if self._is_float:
            return np.asarray(values, dtype=float)
        return list(values)

    def _ctx(self):
        """mpmath working precision for summaries of an ``"mp"`` result (no-op otherwise)."""
        import contextlib
        if self.method == "mp":
            return mpmath.workdps((self.dps or DEFAULT_DPS) + 10)
        return contextlib.nullcontext()

    # -- public summaries ------------------------------------------------------------------------
    def blocking(self):
        r"""Blocking probability :math:`p(N, N)` (equals :math:`E(2N, \rho)` exactly).

        Returns
        -------
        float, mpmath.mpf, flint.fmpq or sympy.Expr
            In the number type of the method.
        """
        return self.p[self.N][self.N]

    def total(self):
        r"""Distribution of :math:`K = m + n`, ``K = 0..2N`` (truncated Poisson).

        Returns
        -------
        numpy.ndarray or list
            ``2N + 1`` probabilities (a list in the number type of the exact methods).
        """
        return self._vec(self.level)

    def marginal(self):
        r"""Distribution of the number of busy servers in one queue, :math:`P(m = k)`, ``k = 0..N``.

        Returns
        -------
        numpy.ndarray or list
            ``N + 1`` probabilities.
        """
        with self._ctx():
            if self._is_float:
                return self.p.sum(axis=1)
            return [_sum(row, self._zero()) for row in self.p]

    def marginal_min(self):
        r"""Distribution of the less occupied queue, :math:`P(\min(m, n) = k)`, ``k = 0..N``.

        Returns
        -------
        numpy.ndarray or list
            ``N + 1`` probabilities.
        """
        with self._ctx():
            N = self.N
            if self._is_float:
                out = np.zeros(N + 1)
                for k in range(N + 1):
                    out[k] = self.p[k, k] + 2.0 * self.p[k, k + 1:].sum()
                return out
            return [self.p[k][k] + 2 * _sum(self.p[k][k + 1:], self._zero()) for k in range(N + 1)]

    def marginal_max(self):
        r"""Distribution of the more occupied queue, :math:`P(\max(m, n) = k)`, ``k = 0..N``.

        Returns
        -------
        numpy.ndarray or list
            ``N + 1`` probabilities.
        """
        with self._ctx():
            N = self.N
            if self._is_float:
                return np.array([self.p[k, k] + 2.0 * self.p[k, :k].sum() for k in range(N + 1)])
            return [self.p[k][k] + 2 * _sum(self.p[k][:k], self._zero()) for k in range(N + 1)]

    def imbalance(self):
        r"""Distribution of :math:`|m - n|`: index ``i`` holds :math:`P(|m - n| = i)`, ``i = 0..N``.

        Returns
        -------
        numpy.ndarray or list
            ``N + 1`` probabilities.
        """
        with self._ctx():
            N = self.N
            if self._is_float:
                return np.array([np.trace(self.p, offset=0)] +
                                [2.0 * np.trace(self.p, offset=i) for i in range(1, N + 1)])
            out = []
            for i in range(N + 1):
                s = _sum((self.p[m][m + i] for m in range(N + 1 - i)), self._zero())
                out.append(s if i == 0 else 2 * s)
            return out

    def conditional(self, n=None, *, total=None, of: str = "queue"):
        r"""Conditional distributions.

        ``conditional(n=j)``: :math:`P(m = k \mid n = j)`, ``k = 0..N`` (one queue given the other).
        ``conditional(total=K)``: :math:`P(m = k \mid m + n = K)`, ``k = 0..N`` (one queue given the
        total). With ``of="min"`` (only with ``total``): :math:`P(\min(m,n) = k \mid m + n = K)`.

        Parameters
        ----------
        n : int, optional
            The other queue's occupancy, ``0 <= n <= N``.
        total : int, optional
            The total ``m + n``, ``0 <= total <= 2N``.
        of : {"queue", "min"}
            The conditioned quantity (``"min"`` only with ``total``).

        Returns
        -------
        numpy.ndarray or list
            ``N + 1`` probabilities.

        Raises
        ------
        ValueError
            If not exactly one of ``n``, ``total`` is given, or an argument is out of range.
        ZeroDivisionError
            If the conditioning event underflows (use ``method="mp"``).

        Examples
        --------
        >>> from symloss import TwoQueueJSQ
        >>> res = TwoQueueJSQ(2, 1).stationary_distribution("exact")
        >>> res.conditional(total=2, of="min")       # P(min = k | m + n = 2)
        [1/9, 8/9, 0]
        """
        with self._ctx():
            return self._conditional(n, total=total, of=of)

    def _conditional(self, n=None, *, total=None, of: str = "queue"):
        """Implementation of :meth:`conditional`."""
        N = self.N
        check_choice(of, "of", ("queue", "min"))
        if (n is None) == (total is None):
            raise ValueError("conditional: give exactly one of n (the other queue's occupancy) or total")
        if n is not None:
            n = check_int(n, "n", min_value=0, max_value=N)
            if of != "queue":
                raise ValueError("conditional: of='min' is only defined with total=")
            col = [self.p[k][n] for k in range(N + 1)]
            s = _sum(col, self._zero())
            if s == 0:
                raise ZeroDivisionError(f"P(n = {n}) is zero at this precision (underflow); use method='mp'")
            return self._vec([v / s for v in col])
        K = check_int(total, "total", min_value=0, max_value=2 * N)
        col = [self.p[k][K - k] if 0 <= K - k <= N else self._zero() for k in range(N + 1)]
        s = _sum(col, self._zero())
        if s == 0:
            raise ZeroDivisionError(f"P(m + n = {K}) underflows; use method='mp'")
        if of == "queue":
            return self._vec([v / s for v in col])
        out = [self._zero()] * (N + 1)
        for k in range(N + 1):
            if 0 <= K - k <= N and k <= K - k:
                out[k] = col[k] / s if k == K - k else 2 * col[k] / s
        return self._vec(out)

    def mean_imbalance(self):
        r""":math:`E|m - n|`.

        Returns
        -------
        float, mpmath.mpf, flint.fmpq or sympy.Expr
        """
        with self._ctx():
            im = self.imbalance()
            return _sum((i * v for i, v in enumerate(im)), self._zero())

    def to_latex(self, digits: int | None = None, columns=None, *, max_terms: int = 200) -> str:
        r"""The law for a paper: an ``aligned`` block (for a display math environment) of
        :math:`B = p(N,N)`, :math:`P(m = n)`, :math:`E|m - n|` and / or the entries :math:`p(m, n)`,
        ``m <= n`` (followed by ``\quad p(n,m) = p(m,n)``).

        Symbolic results print rational functions of :math:`\rho`, exact results fractions; numerical
        results print the digits their method supports (``mp``: ``dps``; float: those of the error
        estimate, at most 15), or ``digits`` when that is fewer.

        Parameters
        ----------
        digits : int, optional
            Significant digits of numerical results, ``1 <= digits <= 100000`` (never more than the
            method supports).
        columns : sequence of str, optional
            Among ``"blocking"``, ``"balanced"``, ``"mean_imbalance"``, ``"law"``; default
            ``("blocking", "law")`` for ``N <= 3``, else the three summaries.
        max_terms : int
            At most this many entries :math:`p(m, n)` are printed (``>= 1``).

        Returns
        -------
        str
            Math-mode LaTeX: an ``aligned`` block.

        Raises
        ------
        ValueError
            For a bad ``digits``, ``max_terms`` or a name of ``columns`` that is not a quantity.
        """
        import sympy

        from ..core.latex import number_latex
        from ..core.results import _check_digits, round_significant
        quantities = ("blocking", "balanced", "mean_imbalance", "law")
        digits = _check_digits(digits)
        max_terms = check_int(max_terms, "max_terms", min_value=1)
        if self.method in ("exact", "symbolic"):
            supported = None
        elif self.method == "mp":
            supported = int(self.dps or DEFAULT_DPS)
        else:   # float: the digits of the error estimate (relative), at most 15
            err = max(float(self.error or 0.0), float(self.residual or 0.0), 2.0 ** -52)
            supported = max(1, min(15, int(math.floor(-math.log10(err)))))
        n_digits = supported if digits is None or supported is None else min(digits, supported)

        def value(v) -> str:
            if self.method == "symbolic":
                return sympy.latex(sympy.factor(v))
            if self.method == "exact":
                return sympy.latex(sympy.Rational(int(v.p), int(v.q)))
            return "0" if v == 0 else number_latex(round_significant(v, n_digits))

        if columns is None:
            columns = ("blocking", "law") if self.N <= 3 else ("blocking", "balanced", "mean_imbalance")
        cols = [columns] if isinstance(columns, str) else list(columns)
        for c in cols:
            if c not in quantities:
                raise ValueError(f"TwoQueueDistribution.to_latex: columns has {c!r}, which is not a quantity; "
                                 f"valid: {', '.join(quantities)}")
        lines = []
        with self._ctx():
            for c in cols:
                if c == "blocking":
                    lines.append(f"B = p({self.N},{self.N}) &= {value(self.blocking())}")
                elif c == "balanced":
                    lines.append(f"P(m = n) &= {value(self.imbalance()[0])}")
                elif c == "mean_imbalance":
                    lines.append(rf"E\lvert m - n\rvert &= {value(self.mean_imbalance())}")
                else:
                    k = 0
                    for m in range(self.N + 1):
                        for n in range(m, self.N + 1):
                            if k < max_terms:
                                lines.append(f"p({m},{n}) &= {value(self.p[m][n])}")
                            k += 1
        note = r"\quad p(n,m) = p(m,n)" if "law" in cols else ""
        return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}" + note

    def _repr_latex_(self):
        return "$$" + self.to_latex() + "$$"

    def to_dict(self) -> dict:
        """Plain data: floats (or strings for exact/symbolic) for the summaries and the joint law.

        Returns
        -------
        dict
        """
        def conv(v):
            if self.method in ("exact", "symbolic"):
                return str(v)
            return float(v)
        return {
            "N": self.N, "rho": str(self.rho), "method": self.method, "dps": self.dps,
            "blocking": conv(self.blocking()), "residual": float(self.residual), "error": float(self.error),
            "iterations": self.iterations, "seconds": self.seconds,
            "imbalance": [conv(v) for v in self.imbalance()],
            "p": [[conv(v) for v in row] for row in self.p],
        }


def _sum(it, zero):
    s = zero
    for v in it:
        s = s + v
    return s


# --------------------------------------------------------------------------------------------------
# The model class
# --------------------------------------------------------------------------------------------------

class TwoQueueJSQ(ClearsCachesOnAssignment):
    r"""Two M/M/N/N queues fed by one Poisson stream under join-the-shortest-queue (the model of
    Yao and Knessl 2008).

    Parameters
    ----------
    N : int >= 1
        Servers per queue (``2N`` in all).
    rho : real > 0
        Offered load :math:`\lambda/\mu`. Keep it exact (``int``, ``fractions.Fraction``,
        ``flint.fmpq``) for ``method="exact"``; ``mpmath.mpf`` keeps its digits for ``"mp"``.

    Raises
    ------
    TypeError
        If ``N`` is not an integer or ``rho`` not a real number.
    ValueError
        If ``N < 1`` or ``rho`` is not positive and finite.

    See Also
    --------
    jsq_regime, symloss.JSQ

    Notes
    -----
    State ``(m, n)``; arrival rate :math:`\rho` to the queue with fewer busy servers (``rho/2`` to each
    on a tie, lost at ``(N, N)``), departure rates ``m`` and ``n``. ``a = N/rho`` selects the
    asymptotic regime (:func:`jsq_regime`). See the module docstring for the algorithms and
    :doc:`/twoqueue` for the asymptotics.

    References
    ----------
    .. [1] H. Yao, C. Knessl, "On the Shortest Queue Version of the Erlang Loss Model", Studies in
       Applied Mathematics 120(2), 129-212 (2008).

    Examples
    --------
    >>> from fractions import Fraction
    >>> res = TwoQueueJSQ(2, 1).stationary_distribution("exact")
    >>> res.blocking()          # E(4, 1)
    1/65
    >>> res.imbalance()[0]      # P(m = n)
    107/195
    >>> model = TwoQueueJSQ(300, 1000)                       # a = 0.3
    >>> model.regime
    '1/4<a<1/2'
    >>> round(float(model.asymptotic("blocking", order=0)), 3)       # 1 - 2a
    0.4
    >>> print(model.asymptotic_expr("blocking"))                     # with the O(1/rho) term
    -2*a - 2*a/(rho*(2*a - 1)) + 1
    """

    #: instance caches (kernels, solutions), dropped when an attribute is assigned
    _CACHE_ATTRIBUTES = frozenset({"_cache"})

    def __init__(self, N, rho):
        self.N = check_int(N, "N", min_value=1)
        self.rho = check_real(rho, "rho", lower=0, lower_open=True)      # the input layer (exact; flint too)
        self.a = float(self.N / to_mpf(self.rho))

    def __repr__(self) -> str:
        return f"TwoQueueJSQ(N={self.N}, rho={self.rho!r})"

    @property
    def regime(self) -> str:
        """:func:`jsq_regime` of ``a = N/rho`` (with the layer widths at this ``rho``)."""
        return jsq_regime(self.a, float(self.rho))

    @property
    def n_states(self) -> int:
        """Number of states ``(N + 1)^2`` of the ``(m, n)`` chain."""
        return (self.N + 1) ** 2

    # ---- model definition ----------------------------------------------------------------------
    #: the rule table of the model (:mod:`symloss.twoqueue.definition`); a subclass may replace it
    rules = RULES

    def transitions(self, m: int, n: int):
        """Transitions out of state ``(m, n)`` of this model, generated from :attr:`rules`. Every
        solver of this class is built from this method (or verified against it); a subclass that
        overrides it defines a new model.

        Parameters
        ----------
        m, n : int
            The state, ``0 <= m, n <= N``.

        Returns
        -------
        list of tuple
            ``(m2, n2, rho_coeff, const)``: the target state and the rate ``rho_coeff * rho + const``
            (the contract of :func:`symloss.twoqueue.definition.transitions`).

        Examples
        --------
        >>> from symloss import TwoQueueJSQ
        >>> TwoQueueJSQ(2, 1).transitions(0, 0)      # a tie: rho/2 to each queue
        [(1, 0, Fraction(1, 2), 0), (0, 1, Fraction(1, 2), 0)]
        """
        return transitions(self.N, m, n, self.rules)

    def _rule_based(self) -> bool:
        """True when :meth:`transitions` is the evaluator of :attr:`rules` (not overridden)."""
        return type(self).transitions is TwoQueueJSQ.transitions

    def _stencil_applies(self) -> bool:
        """The numba stencil (Yao-Knessl model) may be used: the definition is the rule table the stencil
        declares (content, not identity: an edited table fails this)."""
        from ._kernels import STENCIL_RULES
        return self._rule_based() and rules_equal(self.rules, STENCIL_RULES)

    def kernels(self, *, lump: bool | None = None) -> LevelKernels:
        """The level kernels generated from :meth:`transitions` on every state (cached), with the
        structure checks (symmetric, adjacent, aggregated, irreducible); see
        :mod:`symloss.twoqueue.kernels`.

        Parameters
        ----------
        lump : bool, optional
            Lump to the classes ``(K, |m - n|)`` (default: when the definition is symmetric).

        Returns
        -------
        LevelKernels

        Examples
        --------
        >>> from symloss import TwoQueueJSQ
        >>> TwoQueueJSQ(2, 1).kernels().sizes        # classes per level K = 0..4
        [1, 1, 2, 1, 1]
        """
        key = ("kernels", lump)
        cache = self.__dict__.setdefault("_cache", {})
        if key not in cache:
            cache[key] = level_kernels(self.N, self.transitions, lump=lump)
        return cache[key]

    def balance_equations(self, rho=None):
        r"""The global balance equations as a list of ``sympy.Eq`` (one per state, outflow = inflow),
        in the unknowns ``p_{m,n}`` (SymPy symbols ``p_m_n``) and the positive symbol :math:`\rho`
        (or the given value ``rho``), generated from :meth:`transitions`. Together with
        :math:`\sum p = 1` they determine ``p``.

        Parameters
        ----------
        rho : real, optional
            A value substituted for :math:`\rho`.

        Returns
        -------
        list of sympy.Eq

        Examples
        --------
        >>> from symloss import TwoQueueJSQ
        >>> TwoQueueJSQ(2, 1).balance_equations()[0]
        Eq(p_0_0*rho, p_0_1 + p_1_0)
        """
        return _balance_equations(self.N, self.transitions, rho)

    def generator(self):
        """The generator of the (m, n) chain as a ``scipy.sparse.csr_matrix`` (float), state
        ``(m, n)`` at index ``m*(N+1) + n``, generated from :meth:`transitions`. Used by the generic
        baseline solver.

        Returns
        -------
        scipy.sparse.csr_matrix
            ``(N + 1)^2`` square, rows summing to 0.

        Examples
        --------
        >>> from symloss import TwoQueueJSQ
        >>> TwoQueueJSQ(2, 1).generator().shape
        (9, 9)
        """
        import scipy.sparse as sp
        N = self.N
        rho = float(self.rho)
        rows, cols, vals = [], [], []
        for m in range(N + 1):
            for n in range(N + 1):
                i = m * (N + 1) + n
                tot = 0.0
                for (m2, n2, c, k) in self.transitions(m, n):
                    r = float(c) * rho + float(k)
                    rows.append(i)
                    cols.append(m2 * (N + 1) + n2)
                    vals.append(r)
                    tot += r
                rows.append(i)
                cols.append(i)
                vals.append(-tot)
        S = (N + 1) ** 2
        return sp.csr_matrix((vals, (rows, cols)), shape=(S, S))

    def generic_solve(self):
        """Baseline: stationary law of the unstructured generator by one sparse LU (SciPy SuperLU),
        no symmetry, no level structure (not verified: use :meth:`stationary_distribution`).

        Returns
        -------
        numpy.ndarray
            ``p`` as an ``(N+1, N+1)`` array.

        Examples
        --------
        >>> from symloss import TwoQueueJSQ
        >>> round(float(TwoQueueJSQ(2, 1).generic_solve()[2, 2]), 12)   # E(4, 1) = 1/65
        0.015384615385
        """
        import scipy.sparse as sp
        import scipy.sparse.linalg as spla
        Q = self.generator().T.tocsr().tolil()
        S = Q.shape[0]
        Q[S - 1, :] = np.ones(S)
        b = np.zeros(S)
        b[-1] = 1.0
        x = spla.spsolve(sp.csc_matrix(Q), b)
        return x.reshape(self.N + 1, self.N + 1)

    def residual(self, p) -> float:
        """Max relative residual of the full chain's balance equations at a float answer ``p``
        (states with ``p >= 1e-200``), evaluated from this model's definition (vectorised from
        :attr:`rules`, or through :meth:`generator` when :meth:`transitions` is overridden).

        Parameters
        ----------
        p : array_like
            ``(N + 1, N + 1)`` probabilities.

        Returns
        -------
        float

        Raises
        ------
        ValueError
            If ``p`` has the wrong shape.

        Examples
        --------
        >>> from symloss import TwoQueueJSQ
        >>> m = TwoQueueJSQ(2, 1)
        >>> m.residual(m.generic_solve()) < 1e-12
        True
        """
        p = np.asarray(p, dtype=float)
        if p.shape != (self.N + 1, self.N + 1):
            raise ValueError(f"p must have shape {(self.N + 1, self.N + 1)}, got {p.shape}")
        if self._rule_based():
            return balance_residual(p, float(self.rho), self.rules)
        Q = self.generator()
        x = p.ravel()
        out = -Q.diagonal() * x
        inflow = Q.T.dot(x) + out
        mask = (x >= 1e-200) & (out > 0)
        return float(np.max(np.abs(inflow[mask] - out[mask]) / out[mask])) if mask.any() else 0.0

    def level_probabilities(self, method: str = "float", dps: int = DEFAULT_DPS):
        r""":math:`\pi_K = P(m+n = K) = (\rho^K/K!)/\sum_{j\le 2N}\rho^j/j!`, ``K = 0..2N`` (the
        M/M/2N/2N law, by the aggregation lemma), as ``(pi, log pi)`` float arrays. Only for a
        definition whose level totals are those of the Yao-Knessl model (checked); others get their
        level law from :meth:`stationary_distribution`.

        Parameters
        ----------
        method : {"float"}
            Only float arrays here (exact levels come with the exact solves).
        dps : int
            Unused (kept for the signature of the solvers).

        Returns
        -------
        tuple of numpy.ndarray
            ``(pi, log pi)``, ``2N + 1`` entries each.

        Raises
        ------
        ValueError
            If ``method`` is not ``"float"``.
        StructureError
            If the definition's level totals are not ``(rho, K)``.

        Examples
        --------
        >>> from symloss import TwoQueueJSQ
        >>> pi, log_pi = TwoQueueJSQ(2, 1).level_probabilities()
        >>> round(float(pi[-1]), 12)                  # E(4, 1) = 1/65
        0.015384615385
        """
        if method != "float":
            raise ValueError("level_probabilities: only method='float' here; exact levels come with the solve")
        if not self._stencil_applies():
            k = self.kernels()
            k.require("aggregated", solver="level_probabilities")
            want_up = [(Fraction(1), Fraction(0))] * (2 * self.N) + [(Fraction(0), Fraction(0))]
            want_dn = [(Fraction(0), Fraction(K)) for K in range(2 * self.N + 1)]
            if k.up_total != want_up or k.down_total != want_dn:
                raise StructureError("level_probabilities: this definition's level totals are not "
                                     "(rho, K); its level law is not truncated Poisson")
        return level_law_float(self.N, self.rho)

    # ---- asymptotics ---------------------------------------------------------------------------
    ASYMPTOTIC_QUANTITIES = ("distribution", "joint", "total", "marginal", "marginal_min", "marginal_max",
                             "conditional", "imbalance", "imbalance_limit", "blocking", "log_blocking",
                             "tail_rate", "marginal_min_tail")

    def _check_derivable(self):
        """The asymptotics are derived from the rule table: refuse an overridden ``transitions`` and
        definitions whose level law is not the truncated Poisson law of the Yao-Knessl model."""
        from .definition import rho as rho_sym
        from .derivation import DerivationError, level_rates
        if not self._rule_based():
            raise DerivationError("asymptotic: the derivations start from a rule table (TwoQueueJSQ.rules); "
                                  "this model overrides transitions()")
        lam, mu = level_rates(tuple(self.rules))
        import sympy

        from .derivation import K as K_sym
        if sympy.simplify(lam - rho_sym) != 0 or sympy.simplify(mu - K_sym) != 0:
            raise DerivationError(f"asymptotic: implemented for the level rates (rho, K) of the Yao-Knessl model; "
                                  f"this definition has ({lam}, {mu})")

    def asymptotic(self, quantity: str = "distribution", *, regime: str | None = None, order: int = 1,
                   n=None, total=None, of: str = "queue", J: int | None = None):
        r"""Asymptotic approximation (rho -> infinity, N = a rho) of a quantity, per regime.

        Every formula is lambdified from the SymPy expressions derived from this model's rules
        (:mod:`symloss.twoqueue.derivation`; :meth:`asymptotic_expr` returns them).

        Parameters
        ----------
        quantity : str
            ``"distribution"`` (an :class:`~symloss.twoqueue.asymptotic.AsymptoticLaw`, band form, with the summaries of
            :class:`TwoQueueDistribution` and ``.p`` the dense joint on request), ``"joint"`` (dense
            array ``p[m, n]``), ``"total"``, ``"marginal"``, ``"marginal_min"``, ``"marginal_max"``,
            ``"conditional"`` (with ``n=`` or ``total=``), ``"imbalance"``, ``"imbalance_limit"``
            (the closed-form limit law of ``|m - n|``), ``"blocking"`` (float; underflows to 0 below
            1e-308 for ``a > 1/2``), ``"log_blocking"``, ``"tail_rate"`` (decay rate max(a, 4a^2) of
            the less occupied queue's deficit law in the corner, ``a < 1/2`` only),
            ``"marginal_min_tail"`` (any ``a``: the law of the less occupied queue over the whole range
            ``0..N`` from the exact diagonal identity on a composite diagonal).
        regime : str, optional
            One of :data:`~symloss.twoqueue.asymptotic.REGIMES`; default ``jsq_regime(a, rho)``.
        order : {0, 1}
            0: leading order; 1 (default): with the O(1/rho) corrections (outer ``h``, corner
            :math:`c^{(1)}`, blocking's next term; at ``a ~ 1/2`` the corner law at the local
            :math:`a_j` and Jagerman's next term). Errors fall like rho^-1 / rho^-2 (rho^-1/2 / rho^-1 at
            ``a ~ 1/2``) for order 0 / 1 (:doc:`/twoqueue`).
        n, total, of
            For ``quantity="conditional"``: as in :meth:`TwoQueueDistribution.conditional`.
        J : int, optional
            Number of corner levels of the inner problem (default
            :func:`~symloss.twoqueue.asymptotic.default_J`).

        Returns
        -------
        AsymptoticLaw, numpy.ndarray or float
            The law (``"distribution"``), an array (the distributions) or a number.

        Raises
        ------
        ValueError
            If an argument is out of range (``tail_rate`` needs ``a < 1/2``).
        DerivationError
            The model's definition is not one the derivations apply to (e.g. an edited, asymmetric rule
            table, or an overridden ``transitions``).

        References
        ----------
        .. [1] H. Yao, C. Knessl, "On the Shortest Queue Version of the Erlang Loss Model", Studies in
           Applied Mathematics 120(2), 129-212 (2008).

        Examples
        --------
        >>> from symloss import TwoQueueJSQ
        >>> m = TwoQueueJSQ(300, 1000)                         # a = 0.3
        >>> round(float(m.asymptotic("blocking", order=0)), 3)  # 1 - 2a
        0.4
        """
        from . import asymptotic as asy
        check_choice(quantity, "quantity", self.ASYMPTOTIC_QUANTITIES)
        reg = self.regime if regime is None else check_choice(regime, "regime", asy.REGIMES)
        order = check_choice(order, "order", (0, 1))
        if J is not None:
            J = check_int(J, "J", min_value=2)
        self._check_derivable()
        rules = tuple(self.rules)
        N, rho = self.N, float(self.rho)
        if quantity == "blocking":
            return asy.blocking_asymptotic(N, rho, reg, order)
        if quantity == "log_blocking":
            return asy.log_blocking_asymptotic(N, rho, reg, order)
        if quantity == "imbalance_limit":
            return asy.imbalance_limit(N / rho, N)
        if quantity == "tail_rate":
            if N / rho >= 0.5:
                raise ValueError(f"tail_rate is defined for a = N/rho < 1/2, got a = {N / rho}")
            return asy.tail_rate(N / rho)
        if quantity == "marginal_min_tail":
            level, _ = self.level_probabilities("float")
            return asy.marginal_min_tail(N, rho, level, J)
        cache = self.__dict__.setdefault("_cache", {})
        key = ("asymptotic", reg, order, J)
        if key not in cache:
            cache[key] = asy.asymptotic_law(N, rho, reg, order=order, J=J, rules=rules)
        law = cache[key]
        if quantity == "distribution":
            return law
        if quantity == "joint":
            return law.p
        if quantity == "conditional":
            return law.conditional(n, total=total, of=of)
        return getattr(law, quantity)()

    def asymptotic_expr(self, quantity: str, regime: str | None = None, *, order: int = 1):
        r"""The SymPy expression behind :meth:`asymptotic` (``sympy.latex(...)`` gives the LaTeX).

        Quantities: ``"blocking"`` (in ``a``, ``rho``; ``beta``, ``rho`` at ``a ~ 1/2``),
        ``"conditional"`` (:math:`c_K(d)`: outer law in ``r = K/rho``, ``varepsilon = 1/rho`` for
        ``a > 1/2``; for the corner regimes the generating function of the corner law, see
        ``"corner_generating_function"``), ``"corner_generating_function"``
        (:math:`G(X, Z)/p_{00}` in closed form), ``"level"`` (:math:`\pi_K`), ``"joint"``
        (:math:`\pi_K c_K(d)/(1 + [d>0])`, ``a > 1/2``), ``"imbalance"`` (``a > 1/2``: with the O(1/rho)
        term), ``"imbalance_limit"``, ``"tail_rate"`` (poles of the generating function of
        ``N - min``), ``"equations"`` (the generated lumped balance equations, a dict of ``sympy.Eq``).

        Parameters
        ----------
        quantity : str
            One of the quantities above.
        regime : str, optional
            One of :data:`~symloss.twoqueue.asymptotic.REGIMES`; default this model's regime.
        order : {0, 1}
            Leading order, or with the O(1/rho) corrections.

        Returns
        -------
        sympy.Expr or dict
            The expression (a dict of ``sympy.Eq`` for ``"equations"``).

        Raises
        ------
        ValueError
            If an argument is out of range (``"joint"`` in a corner regime).
        DerivationError
            If the derivations do not apply to the definition.

        Examples
        --------
        >>> from symloss import TwoQueueJSQ
        >>> print(TwoQueueJSQ(300, 1000).asymptotic_expr("blocking"))
        -2*a - 2*a/(rho*(2*a - 1)) + 1
        """
        import sympy

        from . import asymptotic as asy, derivation as dv
        quantities = ("blocking", "conditional", "corner_generating_function", "level", "joint", "imbalance",
                      "imbalance_limit", "tail_rate", "equations")
        check_choice(quantity, "quantity", quantities)
        reg = self.regime if regime is None else check_choice(regime, "regime", asy.REGIMES)
        order = check_choice(order, "order", (0, 1))
        self._check_derivable()
        rules = tuple(self.rules)
        corner = reg in ("1/4<a<1/2", "a~1/4", "a<1/4")
        if quantity == "blocking":
            key = "a~1/2" if reg == "a~1/2" else ("a>1/2" if reg == "a>1/2" else "a<1/2")
            return dv.blocking_expansion(key, order)
        if quantity == "equations":
            out = {}
            for name, cf in dv.lumped_equations(rules).items():
                lhs = cf.out * sympy.Function("c")(dv.K, cf.dval if cf.dval is not None else dv.d)
                rhs = sum(c * sympy.Function("c")(dv.K + dK, dp) for dK, dp, c in cf.terms)
                out[name] = sympy.Eq(lhs, rhs)
            return out
        if quantity == "level":
            k = sympy.Symbol("k", integer=True, nonnegative=True)
            return (dv.rsym ** dv.K / sympy.factorial(dv.K)) / sympy.Sum(dv.rsym ** k / sympy.factorial(k),
                                                                         (k, 0, 2 * self.N))
        if quantity == "corner_generating_function" or (quantity == "conditional" and corner):
            return dv.corner_law(rules).gf
        if quantity == "conditional":
            sol = dv.outer_solution(rules)
            return sol.conditional(order)
        if quantity == "joint":
            if corner:
                raise ValueError("joint: for the corner regimes the law is the generating function "
                                 "'corner_generating_function' times the level law")
            sol = dv.outer_solution(rules)
            c = sol.conditional(order).subs({dv.r: dv.K / dv.rsym, dv.eps: 1 / dv.rsym})
            w = sympy.Piecewise((1, sympy.Eq(dv.d, 0)), (sympy.Rational(1, 2), True))
            return self.asymptotic_expr("level", reg) * c * w
        if quantity == "imbalance":
            if reg == "a>1/2":
                return dv.imbalance_expansion(rules) if order else dv.imbalance_limit_law(rules).subs(
                    dv.a, sympy.Rational(1, 2))
            return dv.imbalance_limit_law(rules)
        if quantity == "imbalance_limit":
            e = dv.imbalance_limit_law(rules)
            return e.subs(dv.a, sympy.Rational(1, 2)) if reg == "a>1/2" else e
        return dv.tail_poles(rules)

    # ---- solvers -------------------------------------------------------------------------------
    def stationary_distribution(self, method: str = "float", dps: int = DEFAULT_DPS, *,
                                tol: float = 1e-14, maxiter: int = 20000) -> TwoQueueDistribution:
        r"""The exact stationary distribution.

        Parameters
        ----------
        method : {"float", "mp", "exact", "symbolic"}
            ``"float"`` (N <= 10000): Gauss-Seidel / exact aggregation, O(nonzero states) per sweep,
            answer verified on the definition's balance equations. ``"mp"`` (N <= 200): level
            reduction in arbitrary precision, checked entrywise at two working precisions
            (``PrecisionError`` otherwise), ``mpf`` rounded to ``dps`` digits. ``"exact"`` (N <= 30,
            rational rho): level reduction in ``fmpq``. ``"symbolic"`` (N <= 8): rational functions
            of :math:`\rho` (SymPy), whatever value ``rho`` has. All are generated from
            :meth:`transitions` (module docstring).
        dps : int
            Digits for ``"mp"``.
        tol, maxiter : float, int
            Stopping rule of the float iteration (max relative change per sweep,
            ``1e-16 <= tol <= 1e-3``).

        Returns
        -------
        TwoQueueDistribution

        Raises
        ------
        ValueError
            If ``N`` exceeds the method's limit (:data:`METHOD_LIMITS`) or an argument is out of range.
        TypeError
            If ``method="exact"`` and ``rho`` is not rational.
        StructureError
            The definition lacks a structure the requested method needs (e.g. a transition that changes
            ``m + n`` by 2 for the level reductions), and no fallback applies.
        PrecisionError
            The requested accuracy is not reached (two-precision check of ``"mp"``; float iteration
            not converged or residual on the definition above 1e-9).

        Examples
        --------
        >>> import mpmath
        >>> from symloss import TwoQueueJSQ
        >>> res = TwoQueueJSQ(5, 8).stationary_distribution("mp", dps=30)
        >>> mpmath.nstr(res.blocking(), 30)             # E(10, 8)
        '0.121661064252951510035338614271'
        >>> round(float(TwoQueueJSQ(5, 8).stationary_distribution().blocking()), 12)
        0.121661064253
        """
        check_choice(method, "method", tuple(METHOD_LIMITS))
        lim = METHOD_LIMITS[method]
        if self.N > lim:
            raise ValueError(f"method={method!r} supports N <= {lim}, got N={self.N}; "
                             f"{_METHOD_ADVICE[method]}")
        if method == "float":
            tol = float(check_real(tol, "tol", lower=1e-16, upper=1e-3))
            maxiter = check_int(maxiter, "maxiter", min_value=1)
        elif method == "mp":
            dps = check_dps(dps)
        elif method == "exact":
            _to_fmpq(self.rho)          # TypeError before work for a non-rational rho
        t0 = time.perf_counter()
        if method == "float":
            if self._stencil_applies():
                res = self._solve_float(tol, maxiter)
            else:
                res = self._solve_float_generic(tol, maxiter)
        elif method == "mp":
            res = self._solve_mp(dps)
        elif method == "exact":
            res = self._solve_exact()
        else:
            res = self._solve_symbolic()
        res.seconds = time.perf_counter() - t0
        return res

    # float: fast path (stencil of the Yao-Knessl model) ------------------------------------------------
    def _solve_float(self, tol, maxiter) -> TwoQueueDistribution:
        from ._kernels import gs_solve, layout, residual
        N = self.N
        rho = float(self.rho)
        off = layout(N)
        c = np.zeros(int(off[-1]))
        # start: the outer law c_K(d) ~ theta_K^d, theta_K = rho/(rho + 2K) (closed form (2) of
        # docs/twoqueue.md); it also sets the band of entries above the float range
        with np.errstate(under="ignore"):
            for K in range(2 * N + 1):
                d = np.arange(K % 2, _dmax(N, K) + 1, 2, dtype=float)
                th = rho / (rho + 2.0 * K) if K > 0 else 0.5
                lw = d * math.log(th)
                w = np.exp(lw - lw.max())
                c[off[K]:off[K + 1]] = w / w.sum()
        its, diff, rate = gs_solve(c, off, N, rho, tol, maxiter)
        if diff > tol:
            raise PrecisionError(f"float solver: no convergence to tol={tol} in {maxiter} sweeps "
                                 f"(last change {diff:.2e}); use method='mp' (N <= 200)")
        err = 0.0 if diff == 0 else (diff * rate / (1.0 - rate) if rate < 1 else diff * its)
        res = residual(c, off, N, rho)
        level, logl = level_law_float(N, rho)
        P, LP = self._assemble_float(c, off, level, logl)
        self._verify_float(P, "the numba stencil of the Yao-Knessl model")
        conds = [c[off[K]:off[K + 1]].copy() for K in range(2 * N + 1)]
        return TwoQueueDistribution(N=N, rho=self.rho, method="float", p=P, level=level,
                                    conditional_levels=conds, residual=float(res), error=float(max(err, 0.0)),
                                    iterations=int(its), log_p=LP)

    def _assemble_float(self, c, off, level, logl):
        """Joint law from lumped conditional vectors (symmetric definitions)."""
        N = self.N
        P = np.zeros((N + 1, N + 1))
        LP = np.full((N + 1, N + 1), -np.inf)
        with np.errstate(divide="ignore", under="ignore"):
            for K in range(2 * N + 1):
                ds = np.arange(K % 2, _dmax(N, K) + 1, 2)
                cK = c[off[K]:off[K + 1]]
                half = np.where(ds > 0, 0.5, 1.0)
                lv = logl[K] + np.log(cK) + np.log(half)
                # a product of two accurate floats where pi_K is a normal number (exp of a float
                # log would lose |log p| * eps); the log form only where pi_K itself underflows
                v = level[K] * cK * half if level[K] > 1e-290 else np.exp(lv)
                ms = (K - ds) // 2
                ns = (K + ds) // 2
                LP[ms, ns] = lv
                LP[ns, ms] = lv
                P[ms, ns] = v
                P[ns, ms] = v
        return P, LP

    def _verify_float(self, P, how: str) -> float:
        """Residual of the answer on the model's own balance equations; raise if it is not tiny."""
        r = self.residual(P)
        if not r <= FLOAT_RESIDUAL_LIMIT:
            raise PrecisionError(f"float solver ({how}): the answer's residual on the model's balance "
                                 f"equations is {r:.2e} > {FLOAT_RESIDUAL_LIMIT:.0e}; not returned")
        return r

    # float: any other definition ----------------------------------------------------------------
    def _solve_float_generic(self, tol, maxiter) -> TwoQueueDistribution:
        from .solvers import float_generic
        N = self.N
        rho = float(self.rho)
        if N > GENERIC_FLOAT_LIMIT:
            raise StructureError(f"method='float' for a definition other than the Yao-Knessl stencil "
                                 f"supports N <= {GENERIC_FLOAT_LIMIT}, got N={N}")
        if self._rule_based() and N > SPARSE_LU_LIMIT:
            far = [r.jump for r in self.rules if abs(r.jump[0] + r.jump[1]) > 1]
            if far:   # decided from the rule table alone, before generating (N+1)^2 states
                raise StructureError(f"method='float' for N > {SPARSE_LU_LIMIT} needs a level-adjacent "
                                     f"definition; the rules with jumps {far} change m+n by more than 1")
        kern = self.kernels()
        if not (kern.adjacent and kern.aggregated and kern.irreducible):
            if N > SPARSE_LU_LIMIT:
                kern.require("adjacent", "aggregated", "irreducible", solver="method='float'")
            if not kern.irreducible:
                kern.require("irreducible", solver="method='float'")
            warnings.warn("TwoQueueJSQ: the definition is not level-adjacent and aggregated "
                          f"({'; '.join(kern.problems)}); method='float' uses the generic sparse LU",
                          RuntimeWarning, stacklevel=3)
            P = self.generic_solve()
            if (P < -1e-12).any():
                raise PrecisionError("generic sparse LU returned negative probabilities")
            P = np.maximum(P, 0.0)
            P /= P.sum()
            r = self.residual(P)
            level = np.bincount(np.add.outer(np.arange(N + 1), np.arange(N + 1)).ravel(),
                                weights=P.ravel(), minlength=2 * N + 1)
            return TwoQueueDistribution(N=N, rho=self.rho, method="float", p=P, level=level,
                                        conditional_levels=None, residual=r, error=float("nan"),
                                        iterations=1, log_p=None)
        c, off, level, logl, its, diff, rate = float_generic(kern, rho, tol, maxiter)
        if diff > tol:
            raise PrecisionError(f"float solver (generated kernels): no convergence to tol={tol} in "
                                 f"{maxiter} sweeps (last change {diff:.2e})")
        err = 0.0 if diff == 0 else (diff * rate / (1.0 - rate) if rate < 1 else diff * its)
        P = np.zeros((N + 1, N + 1))
        LP = np.full((N + 1, N + 1), -np.inf)
        with np.errstate(divide="ignore", under="ignore"):
            for K, reps in enumerate(kern.states):
                cK = c[off[K]:off[K + 1]]
                for t, (i, j) in enumerate(reps):
                    half = 0.5 if (kern.lumped and i != j) else 1.0
                    lv = logl[K] + math.log(cK[t] * half) if cK[t] > 0 else -np.inf
                    v = level[K] * cK[t] * half if level[K] > 1e-290 else math.exp(lv)
                    P[i, j] = v
                    LP[i, j] = lv
                    if kern.lumped:
                        P[j, i] = v
                        LP[j, i] = lv
        r = self._verify_float(P, "generated kernels")
        conds = [c[off[K]:off[K + 1]].copy() for K in range(2 * N + 1)] if kern.lumped else None
        return TwoQueueDistribution(N=N, rho=self.rho, method="float", p=P, level=level,
                                    conditional_levels=conds, residual=float(r), error=float(max(err, 0.0)),
                                    iterations=int(its), log_p=LP)

    # level reduction on generated kernels ------------------------------------------------------
    def _conditionals(self, kern, q, zero):
        """Normalised level vectors: ``(conditional c_K, level pi_K)``."""
        from .solvers import _dot  # noqa: F401  (kept for symmetry with the reduction)
        sums = []
        for v in q:
            s = zero
            for x in v:
                s = s + x
            sums.append(s)
        tot = zero
        for s in sums:
            tot = tot + s
        level = [s / tot for s in sums]
        c = [[x / s for x in v] for v, s in zip(q, sums)]
        return c, level

    def _solve_exact(self) -> TwoQueueDistribution:
        from flint import fmpq

        from .solvers import assemble_joint, reduce_levels
        rho = _to_fmpq(self.rho)
        kern = self.kernels()
        q = reduce_levels(kern, rho, "fmpq")
        c, level = self._conditionals(kern, q, fmpq(0))
        qn = [[x * lv for x in v] for v, lv in zip(c, level)]
        P = assemble_joint(kern, qn, fmpq(0), fmpq(1, 2))
        return TwoQueueDistribution(N=self.N, rho=self.rho, method="exact", p=P, level=level,
                                    conditional_levels=c if kern.lumped else None)

    def _solve_symbolic_field(self, full: bool = False):
        """Level reduction over the field Q(rho) (SymPy ``FracField`` elements), on the kernels
        generated from :meth:`transitions`."""
        from sympy.polys.domains import QQ
        from sympy.polys.fields import field

        from .solvers import assemble_joint, reduce_levels
        F, r = field("rho", QQ)
        kern = self.kernels()
        q = reduce_levels(kern, r, "field")
        c, level = self._conditionals(kern, q, F(0))
        qn = [[x * lv for x in v] for v, lv in zip(c, level)]
        Pf = assemble_joint(kern, qn, F(0), F(1) / 2)
        return (Pf, level, c) if full else Pf

    def _solve_symbolic(self) -> TwoQueueDistribution:
        import sympy
        N = self.N
        Pf, level, c = self._solve_symbolic_field(full=True)
        rs = sympy.Symbol("rho", positive=True)

        def conv(x):
            e = x.as_expr()
            return e.subs(sympy.Symbol("rho"), rs)
        P = [[conv(x) for x in row] for row in Pf]
        conds = [[conv(x) for x in v] for v in c] if self.kernels().lumped else None
        return TwoQueueDistribution(N=N, rho=rs, method="symbolic", p=P, level=[conv(x) for x in level],
                                    conditional_levels=conds)

    def _solve_mp(self, dps) -> TwoQueueDistribution:
        from .solvers import assemble_joint, reduce_levels
        kern = self.kernels()
        kern.require("adjacent", "irreducible", solver="method='mp'")
        sizes = kern.sizes

        def compute(work_dps):
            with flint_prec(dps_to_prec(work_dps)):
                q = reduce_levels(kern, to_arb(self.rho), "arb")
                sums = []
                for v in q:
                    s = v[0]
                    for x in v[1:]:
                        s = s + x
                    sums.append(s)
                tot = sums[0]
                for s in sums[1:]:
                    tot = tot + s
                c = [[(x / s).mid() for x in v] for v, s in zip(q, sums)]
                level = [(s / tot).mid() for s in sums]
                return [arb_to_mpf(x) for v in c for x in v] + [arb_to_mpf(x) for x in level]
        lo = compute(dps + 15)
        hi = compute(dps + 30)
        worst = mpmath.mpf(0)
        with mpmath.workdps(dps + 30):
            for u, v in zip(lo, hi):
                if v != 0:
                    worst = max(worst, abs(u - v) / abs(v))
                elif u != 0:
                    worst = mpmath.inf
        if not worst <= mpmath.mpf(10) ** (-(dps + 2)):
            raise PrecisionError(f"mp solver: values at {dps + 15} and {dps + 30} digits differ by "
                                 f"{mpmath.nstr(worst, 3)} (relative); cannot certify {dps} digits")
        c, pos = [], 0
        for nsz in sizes:
            c.append(hi[pos:pos + nsz])
            pos += nsz
        level = hi[pos:]
        with mpmath.workdps(dps + 30):
            qn = [[x * lv for x in v] for v, lv in zip(c, level)]
            Pm = assemble_joint(kern, qn, mpmath.mpf(0), mpmath.mpf(1) / 2)
            res = _residual_kernels(kern, to_mpf(self.rho), qn)
        with mpmath.workdps(dps):   # rounding to dps digits
            P = [[+x for x in row] for row in Pm]
            cm = [[+x for x in v] for v in c]
            lm = [+x for x in level]
        return TwoQueueDistribution(N=self.N, rho=self.rho, method="mp", p=P, level=lm,
                                    conditional_levels=cm if kern.lumped else None,
                                    residual=float(res), error=float(worst), dps=dps)


def _to_fmpq(x):
    """An exact rational load as ``fmpq`` through the input layer (integer-valued binary floats are
    accepted, other binary values are refused: their value is rarely the rational meant)."""
    from flint import fmpq

    from ..core.validation import exact_real
    msg = (f"method='exact' needs a rational rho (int, fractions.Fraction or flint.fmpq), got "
           f"{type(x).__name__} {x!r}; write e.g. Fraction(3, 2), or use method='mp'")
    if isinstance(x, fmpq):
        return x
    try:
        v = exact_real(x, "rho")
    except TypeError:
        raise TypeError(msg) from None
    if isinstance(v, bool):
        raise TypeError(msg)
    if isinstance(v, int):
        return fmpq(v)
    if isinstance(v, Fraction) and not isinstance(x, (float, mpmath.mpf)) and type(x).__module__ != "numpy":
        return fmpq(v.numerator, v.denominator)
    if isinstance(v, (float, mpmath.mpf, Fraction)) and v == int(v):
        return fmpq(int(v))
    raise TypeError(msg)


def _residual_kernels(kern: LevelKernels, rho, q):
    """Max relative residual of the generated level equations at the level vectors ``q``
    (any number type): ``out_i q_K(i) = (U_K q_{K-1} + D_K q_{K+1} + I_K q_K)(i)``."""
    worst = 0
    for K in range(2 * kern.N + 1):
        rhs = [0 * x for x in q[K]]
        for M, src in ((kern.U[K], K - 1), (kern.D[K], K + 1), (kern.I[K], K)):
            for (i, j), (c1, c0) in M.items():
                rate = rho * c1.numerator / c1.denominator + c0.numerator / c0.denominator
                rhs[i] += rate * q[src][j]
        for i, x in enumerate(q[K]):
            c1, c0 = kern.out[K][i]
            lhs = (rho * c1.numerator / c1.denominator + c0.numerator / c0.denominator) * x
            if lhs != 0:
                worst = max(worst, abs(lhs - rhs[i]) / abs(lhs))
    return worst
