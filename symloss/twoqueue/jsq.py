r"""Two M/M/N/N queues under join-the-shortest-queue: the shortest-queue Erlang loss model (seed 003).

Model (H. Yao and C. Knessl, *On the shortest queue version of the Erlang loss model*, Stud. Appl.
Math. 120(2), 2008; ``seeds/003_a109011c4ed63a69.txt``; ``../shared/MATH.md`` §3). Two loss stations
with ``N`` servers each; one Poisson stream of rate :math:`\lambda`; an arrival joins the station with
fewer busy servers (ties: probability 1/2 each) and is lost only when all ``2N`` servers are busy;
every busy server completes at rate :math:`\mu`. Time is measured in units of :math:`1/\mu`, so the
only parameters are ``N`` and :math:`\rho = \lambda/\mu`; the asymptotic parameter is
:math:`a = N/\rho`.

The state is ``(m, n)``, ``0 <= m, n <= N``. Two exact structural facts drive every solver here:

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

* ``"float"``: Gauss-Seidel sweeps up and down the levels on the conditional vectors, with the level
  masses :math:`\pi_K` fixed exactly (iterative aggregation-disaggregation with the exact
  aggregate). Every update is a positive combination, so there is no cancellation and tiny
  probabilities keep their relative accuracy; one sweep costs O(states) (numba). Converges to
  ~1e-14 in 50-300 sweeps; the residual of the balance equations is reported.
* ``"mp"``, ``"exact"``, ``"symbolic"``: direct level reduction (the stochastic complement from the
  top): :math:`U_{2N} = 1`, :math:`U_K = K\,((\rho+K)I - \rho B_K U_{K+1})^{-1} A_K`,
  :math:`c_0 = 1`, :math:`c_K = U_K c_{K-1}`. ``"mp"`` runs it with python-flint ``arb_mat``
  midpoints at ``dps + 15`` and ``dps + 30`` digits and requires every entry to agree to ``dps + 2``
  digits (the diagonal of each reduced matrix is formed from exact column sums, GTH-style, which
  removes an ``e^rho`` error amplification); ``"exact"`` runs it in ``fmpq`` rationals,
  ``"symbolic"`` over :math:`\mathbb{Q}(\rho)`.
"""
from __future__ import annotations

import math
import numbers
import time
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
from ..core.results import ResultMixin
from ..core.validation import check_choice, check_int, check_real
from .levels import level_law_float

__all__ = ["TwoQueueJSQ", "TwoQueueDistribution", "jsq_regime", "METHOD_LIMITS"]

#: largest ``N`` accepted by each method of :meth:`TwoQueueJSQ.stationary_distribution`
METHOD_LIMITS = {"float": 2000, "mp": 200, "exact": 30, "symbolic": 8}
_METHOD_ADVICE = {
    "symbolic": "use method='exact' (rational rho, N <= 30) or 'mp'",
    "exact": "use method='mp' (N <= 200) or 'float' (N <= 2000)",
    "mp": "use method='float' (N <= 2000)",
    "float": "N > 2000 is outside the tested range of this package",
}


# --------------------------------------------------------------------------------------------------
# The model, written once: transition rules of the (m, n) chain
# --------------------------------------------------------------------------------------------------

def transitions(N: int, m: int, n: int):
    """Transitions out of state ``(m, n)``: a list of ``(m2, n2, rho_coeff, const)``, the rate being
    ``rho_coeff * rho + const``. This is the single definition of the model used by the balance
    equations, the generator and the lumpability checks."""
    out = []
    if m < n:
        out.append((m + 1, n, Fraction(1), 0))
    elif n < m:
        out.append((m, n + 1, Fraction(1), 0))
    elif m < N:  # tie, not full
        out.append((m + 1, n, Fraction(1, 2), 0))
        out.append((m, n + 1, Fraction(1, 2), 0))
    if m > 0:
        out.append((m - 1, n, Fraction(0), m))
    if n > 0:
        out.append((m, n - 1, Fraction(0), n))
    return out


def _dmax(N: int, K: int) -> int:
    return min(K, 2 * N - K)


def _level_size(N: int, K: int) -> int:
    return (_dmax(N, K) - K % 2) // 2 + 1


def _arrival_targets(N: int, K: int) -> list[int]:
    """A_K: for each state index of level K-1, the index of the level-K state it moves to."""
    out = []
    for e in range((K - 1) % 2, _dmax(N, K - 1) + 1, 2):
        d = e - 1 if e >= 1 else 1
        out.append((d - K % 2) // 2)
    return out


def _departure_kernel(N: int, K: int):
    """B_K as ``(i_from_level_K+1, i_to_level_K, numerator, denominator)`` entries (probabilities)."""
    ents = []
    p0 = (K + 1) % 2
    dK = _dmax(N, K)
    for e in range(p0, _dmax(N, K + 1) + 1, 2):
        j = (e - p0) // 2
        if e == 0:
            ents.append((j, 0, 1, 1))  # e = 0 -> d = 1 (K is odd, index 0)
            continue
        down = e - 1
        ents.append((j, (down - K % 2) // 2, K + 1 + e, 2 * (K + 1)))
        up = e + 1
        if K + 1 - e > 0 and up <= dK:
            ents.append((j, (up - K % 2) // 2, K + 1 - e, 2 * (K + 1)))
    return ents


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

    Examples
    --------
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
    N, rho, method, dps :
        The model and how it was solved (``dps`` only for ``"mp"``).
    p :
        The joint distribution, ``p[m][n]`` = P(first queue has m busy servers, second has n).
        ``numpy.ndarray`` (float), nested lists of ``mpmath.mpf`` (mp), ``flint.fmpq`` (exact) or
        SymPy expressions in :math:`\rho` (symbolic).
    level :
        :math:`\pi_K = P(m + n = K)`, ``K = 0..2N`` (exact truncated Poisson).
    conditional_levels :
        ``c_K(d) = P(|m-n| = d | m+n = K)`` for ``d = K mod 2, K mod 2 + 2, ...`` (list of vectors).
    residual :
        Max relative residual of the balance equations (float and mp; 0 for exact/symbolic).
    error :
        Estimated relative error of the conditional probabilities: float, from the iteration's
        contraction rate; mp, the largest relative difference between the two working precisions;
        0 for exact/symbolic.
    iterations, seconds :
        Work done.
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
        r"""Blocking probability :math:`p(N, N)` (equals :math:`E(2N, \rho)` exactly)."""
        return self.p[self.N][self.N]

    def total(self):
        r"""Distribution of :math:`K = m + n`, ``K = 0..2N`` (truncated Poisson)."""
        return self._vec(self.level)

    def marginal(self):
        r"""Distribution of the number of busy servers in one queue, :math:`P(m = k)`, ``k = 0..N``."""
        with self._ctx():
            if self._is_float:
                return self.p.sum(axis=1)
            return [_sum(row, self._zero()) for row in self.p]

    def marginal_min(self):
        r"""Distribution of the less occupied queue, :math:`P(\min(m, n) = k)`, ``k = 0..N``."""
        with self._ctx():
            N = self.N
            if self._is_float:
                out = np.zeros(N + 1)
                for k in range(N + 1):
                    out[k] = self.p[k, k] + 2.0 * self.p[k, k + 1:].sum()
                return out
            return [self.p[k][k] + 2 * _sum(self.p[k][k + 1:], self._zero()) for k in range(N + 1)]

    def marginal_max(self):
        r"""Distribution of the more occupied queue, :math:`P(\max(m, n) = k)`, ``k = 0..N``."""
        with self._ctx():
            N = self.N
            if self._is_float:
                return np.array([self.p[k, k] + 2.0 * self.p[k, :k].sum() for k in range(N + 1)])
            return [self.p[k][k] + 2 * _sum(self.p[k][:k], self._zero()) for k in range(N + 1)]

    def imbalance(self):
        r"""Distribution of :math:`|m - n|`: index ``i`` holds :math:`P(|m - n| = i)`, ``i = 0..N``."""
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
        r""":math:`E|m - n|`."""
        with self._ctx():
            im = self.imbalance()
            return _sum((i * v for i, v in enumerate(im)), self._zero())

    def to_latex(self, *, max_terms: int = 200) -> str:
        r"""LaTeX for the joint distribution: a ``cases``-style list of :math:`p(m, n)`, ``m <= n``.

        Symbolic results print rational functions of :math:`\rho`, exact results fractions;
        numerical results print 15 significant digits.
        """
        import sympy
        lines = []
        for m in range(self.N + 1):
            for n in range(m, self.N + 1):
                v = self.p[m][n]
                if self.method == "symbolic":
                    s = sympy.latex(sympy.factor(v))
                elif self.method == "exact":
                    s = sympy.latex(sympy.Rational(int(v.p), int(v.q)))
                else:
                    s = mpmath.nstr(mpmath.mpf(v), 15)
                lines.append(f"p({m},{n}) &= {s}")
                if len(lines) >= max_terms:
                    break
        note = r"\quad p(n,m) = p(m,n)"
        return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}" + note

    def _repr_latex_(self):  # pragma: no cover - notebook display
        if self.method in ("symbolic", "exact") and self.N <= 3:
            return "$" + self.to_latex() + "$"
        return None

    def to_dict(self) -> dict:
        """Plain data: floats (or strings for exact/symbolic) for the summaries and the joint law."""
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

class TwoQueueJSQ:
    r"""Two M/M/N/N queues fed by one Poisson stream under join-the-shortest-queue (seed 003).

    Parameters
    ----------
    N : int >= 1
        Servers per queue (``2N`` in all).
    rho : real > 0
        Offered load :math:`\lambda/\mu`. Keep it exact (``int``, ``fractions.Fraction``,
        ``flint.fmpq``) for ``method="exact"``; ``mpmath.mpf`` keeps its digits for ``"mp"``.

    Notes
    -----
    State ``(m, n)``; arrival rate :math:`\rho` to the queue with fewer busy servers (``rho/2`` to each
    on a tie, lost at ``(N, N)``), departure rates ``m`` and ``n``. ``a = N/rho`` selects the
    asymptotic regime (:func:`jsq_regime`). See the module docstring for the algorithms and
    ``docs/twoqueue.md`` for the asymptotics.

    References
    ----------
    H. Yao, C. Knessl, "On the shortest queue version of the Erlang loss model", Studies in Applied
    Mathematics 120(2), 2008.

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
    >>> round(float(model.asymptotic("blocking")), 3)        # 1 - 2a
    0.4
    """

    def __init__(self, N, rho):
        self.N = check_int(N, "N", min_value=1)
        try:
            from flint import fmpq, fmpz
            if isinstance(rho, fmpq):
                rho = Fraction(int(rho.p), int(rho.q))
            elif isinstance(rho, fmpz):
                rho = int(rho)
        except ImportError:  # pragma: no cover
            pass
        self.rho = check_real(rho, "rho", lower=0, lower_open=True)
        self.a = float(self.N / to_mpf(self.rho))

    def __repr__(self) -> str:
        return f"TwoQueueJSQ(N={self.N}, rho={self.rho!r})"

    @property
    def regime(self) -> str:
        """:func:`jsq_regime` of ``a = N/rho`` (with the layer widths at this ``rho``)."""
        return jsq_regime(self.a, float(self.rho))

    @property
    def n_states(self) -> int:
        return (self.N + 1) ** 2

    # ---- model definition ----------------------------------------------------------------------
    def balance_equations(self, rho=None):
        r"""The global balance equations as a list of ``sympy.Eq`` (one per state, outflow = inflow),
        in the unknowns ``p_{m,n}`` (SymPy symbols ``p_m_n``) and the positive symbol :math:`\rho`
        (or the given value ``rho``). Together with :math:`\sum p = 1` they determine ``p``."""
        import sympy
        r = sympy.Symbol("rho", positive=True) if rho is None else sympy.nsimplify(rho)
        N = self.N
        P = {(m, n): sympy.Symbol(f"p_{m}_{n}") for m in range(N + 1) for n in range(N + 1)}
        inflow = {s: 0 for s in P}
        outrate = {s: 0 for s in P}
        for (m, n) in P:
            for (m2, n2, c, k) in transitions(N, m, n):
                rate = sympy.Rational(c.numerator, c.denominator) * r + k
                outrate[(m, n)] += rate
                inflow[(m2, n2)] += rate * P[(m, n)]
        return [sympy.Eq(sympy.expand(outrate[s]) * P[s], sympy.expand(inflow[s])) for s in P]

    def generator(self):
        """The generator of the (m, n) chain as a ``scipy.sparse.csr_matrix`` (float), state
        ``(m, n)`` at index ``m*(N+1) + n``. Used by the generic baseline solver."""
        import scipy.sparse as sp
        N = self.N
        rho = float(self.rho)
        rows, cols, vals = [], [], []
        for m in range(N + 1):
            for n in range(N + 1):
                i = m * (N + 1) + n
                tot = 0.0
                for (m2, n2, c, k) in transitions(N, m, n):
                    r = float(c) * rho + k
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
        no symmetry, no level structure. Returns ``p`` as an ``(N+1, N+1)`` array."""
        import scipy.sparse as sp
        import scipy.sparse.linalg as spla
        Q = self.generator().T.tocsr().tolil()
        S = Q.shape[0]
        Q[S - 1, :] = np.ones(S)
        b = np.zeros(S)
        b[-1] = 1.0
        x = spla.spsolve(sp.csc_matrix(Q), b)
        return x.reshape(self.N + 1, self.N + 1)

    def level_probabilities(self, method: str = "float", dps: int = DEFAULT_DPS):
        r""":math:`\pi_K = P(m+n = K) = (\rho^K/K!)/\sum_{j\le 2N}\rho^j/j!`, ``K = 0..2N`` (the
        M/M/2N/2N law, by the aggregation lemma)."""
        if method == "float":
            return level_law_float(self.N, self.rho)
        raise ValueError("level_probabilities: only method='float' here; exact levels come with the solve")

    # ---- asymptotics ---------------------------------------------------------------------------
    ASYMPTOTIC_QUANTITIES = ("distribution", "joint", "marginal", "marginal_min", "marginal_max",
                             "conditional", "imbalance", "imbalance_limit", "blocking", "tail_rate",
                             "marginal_min_tail")

    def asymptotic(self, quantity: str = "distribution", *, regime: str | None = None, n=None,
                   total=None, of: str = "queue", J: int | None = None):
        r"""Asymptotic approximation (rho -> infinity, N = a rho) of a quantity, per regime.

        Parameters
        ----------
        quantity : str
            ``"distribution"`` (a :class:`TwoQueueDistribution` with ``method="asymptotic"`` whose
            summaries are all available), ``"joint"`` (array ``p[m, n]``), ``"marginal"``,
            ``"marginal_min"``, ``"marginal_max"``, ``"conditional"`` (with ``n=`` or ``total=``,
            as :meth:`TwoQueueDistribution.conditional`), ``"imbalance"``, ``"imbalance_limit"``
            (the closed-form limit law of ``|m - n|``), ``"blocking"`` (leading-order Erlang
            asymptotics), ``"tail_rate"`` (decay rate max(a, 4a^2) of the less occupied queue's
            deficit law near the corner, ``a < 1/2`` only), ``"marginal_min_tail"`` (any ``a``:
            the law of the less occupied queue over the whole range ``0..N``, from the exact
            identity P(min = m) = p(m,m) + 2 sum_{n>m} p(n,n) n!/(m! rho^(n-m)) applied to a
            composite (corner + outer) diagonal; uniformly O(1/rho), including across the exchange
            of the two rays at ``m = rho/4``).
        regime : str, optional
            One of the names returned by :func:`jsq_regime`; default ``jsq_regime(a, rho)``.
        J : int, optional
            Number of corner levels solved in the inner problem (default chosen from ``rho``).

        Notes
        -----
        The level law :math:`P(m+n=K)` is the exact truncated Poisson law; the conditional law of
        ``|m - n|`` given ``K`` is approximated: closed form
        :math:`c_K(0) = 1-\theta_K`, :math:`c_K(d) = (1-\theta_K^2)\theta_K^{d-1}`,
        :math:`\theta_K = \rho/(\rho+2K)` for ``a > 1/2``; the longer-queue corner law for ``a < 1/2``;
        a corner layer matched to the outer law for ``a ~ 1/2``. Relative errors are O(1/rho) in all
        five regimes where the mass lies (``docs/twoqueue.md``, error tables). Tails far from the mass
        are not approximated uniformly (only the decay rate ``tail_rate``).
        """
        from . import asymptotic as asy
        check_choice(quantity, "quantity", self.ASYMPTOTIC_QUANTITIES)
        regimes = ("a>1/2", "a~1/2", "1/4<a<1/2", "a~1/4", "a<1/4")
        reg = self.regime if regime is None else check_choice(regime, "regime", regimes)
        N, rho = self.N, float(self.rho)
        if quantity == "blocking":
            return asy.blocking_asymptotic(N, rho, reg)
        if quantity == "imbalance_limit":
            return asy.imbalance_limit(N / rho, N)
        if quantity == "tail_rate":
            if N / rho >= 0.5:
                raise ValueError(f"tail_rate is defined for a = N/rho < 1/2, got a = {N / rho}")
            return asy.tail_rate(N / rho)
        if J is not None:
            J = check_int(J, "J", min_value=2)
        t0 = time.perf_counter()
        if quantity == "marginal_min_tail":
            level, _ = self.level_probabilities("float")
            return asy.marginal_min_tail(N, rho, level, J)
        P, level, conds = asy.approximate_joint(N, rho, reg, J=J)
        dist = TwoQueueDistribution(N=N, rho=self.rho, method="asymptotic", p=P, level=level,
                                    conditional_levels=conds, seconds=time.perf_counter() - t0)
        dist.regime = reg
        if quantity == "distribution":
            return dist
        if quantity == "joint":
            return P
        if quantity == "conditional":
            return dist.conditional(n, total=total, of=of)
        return getattr(dist, quantity)()

    # ---- solvers -------------------------------------------------------------------------------
    def stationary_distribution(self, method: str = "float", dps: int = DEFAULT_DPS, *,
                                tol: float = 1e-14, maxiter: int = 20000) -> TwoQueueDistribution:
        r"""The exact stationary distribution.

        Parameters
        ----------
        method : {"float", "mp", "exact", "symbolic"}
            ``"float"`` (N <= 2000): Gauss-Seidel / exact aggregation, O(states) per sweep.
            ``"mp"`` (N <= 200): level reduction in arbitrary precision, checked entrywise at
            two working precisions (``PrecisionError`` otherwise), ``mpf`` rounded to ``dps``
            digits. ``"exact"`` (N <= 30, rational rho): level reduction in ``fmpq``.
            ``"symbolic"`` (N <= 8): rational functions of
            :math:`\rho` (SymPy), whatever value ``rho`` has.
        dps : int
            Digits for ``"mp"``.
        tol, maxiter :
            Stopping rule of the float iteration (max relative change per sweep).

        Returns
        -------
        TwoQueueDistribution
        """
        check_choice(method, "method", tuple(METHOD_LIMITS))
        lim = METHOD_LIMITS[method]
        if self.N > lim:
            raise ValueError(f"method={method!r} supports N <= {lim}, got N={self.N}; "
                             f"{_METHOD_ADVICE[method]}")
        t0 = time.perf_counter()
        if method == "float":
            tol = float(check_real(tol, "tol", lower=1e-16, upper=1e-3))
            maxiter = check_int(maxiter, "maxiter", min_value=1)
            res = self._solve_float(tol, maxiter)
        elif method == "mp":
            dps = check_dps(dps)
            res = self._solve_mp(dps)
        elif method == "exact":
            res = self._solve_exact()
        else:
            res = self._solve_symbolic()
        res.seconds = time.perf_counter() - t0
        return res

    # float ---------------------------------------------------------------------------------------
    def _solve_float(self, tol, maxiter) -> TwoQueueDistribution:
        from ._kernels import gs_solve, layout, residual
        N = self.N
        rho = float(self.rho)
        off = layout(N)
        c = np.zeros(int(off[-1]))
        # start: c_K(d) proportional to 3^(-d) (the a >= 1/2 imbalance limit)
        for K in range(2 * N + 1):
            d = np.arange(K % 2, _dmax(N, K) + 1, 2, dtype=float)
            w = 3.0 ** (-d)
            c[off[K]:off[K + 1]] = w / w.sum()
        its, diff, rate = gs_solve(c, off, N, rho, tol, maxiter)
        if diff > tol:
            raise PrecisionError(f"float solver: no convergence to tol={tol} in {maxiter} sweeps "
                                 f"(last change {diff:.2e}); use method='mp' (N <= 200)")
        err = 0.0 if diff == 0 else (diff * rate / (1.0 - rate) if rate < 1 else diff * its)
        res = residual(c, off, N, rho)
        level, logl = self.level_probabilities("float")
        P = np.zeros((N + 1, N + 1))
        LP = np.full((N + 1, N + 1), -np.inf)
        with np.errstate(divide="ignore"):
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
        conds = [c[off[K]:off[K + 1]].copy() for K in range(2 * N + 1)]
        return TwoQueueDistribution(N=N, rho=self.rho, method="float", p=P, level=level,
                                    conditional_levels=conds, residual=float(res), error=float(max(err, 0.0)),
                                    iterations=int(its), log_p=LP)

    # generic level reduction ---------------------------------------------------------------------
    def _reduce_generic(self, rho, zero, one):
        """Level reduction over any exact field (fmpq, sympy FracField elements). Returns c_K lists."""
        N = self.N
        U = {2 * N: [[one]]}
        for K in range(2 * N - 1, 0, -1):
            nK = _level_size(N, K)
            Up = U[K + 1]
            M = [[zero] * nK for _ in range(nK)]
            for (j, i, num, den) in _departure_kernel(N, K):
                w = Fraction(num, den)
                row = Up[j]
                Mi = M[i]
                for t in range(nK):
                    if row[t] != 0:
                        Mi[t] = Mi[t] + row[t] * w.numerator / w.denominator
            Z = [[(rho + K if i == t else zero) - rho * M[i][t] for t in range(nK)] for i in range(nK)]
            W = _gauss_inverse(Z, zero, one)          # Z^{-1}
            tg = _arrival_targets(N, K)
            U[K] = [[K * W[i][tg[e]] for e in range(len(tg))] for i in range(nK)]
        c = [[one]]
        for K in range(1, 2 * N + 1):
            UK = U[K]
            prev = c[-1]
            c.append([_sum((UK[i][e] * prev[e] for e in range(len(prev))), zero) for i in range(len(UK))])
        return c

    def _assemble(self, c, level, zero, half):
        N = self.N
        P = [[zero] * (N + 1) for _ in range(N + 1)]
        for K in range(2 * N + 1):
            for j, d in enumerate(range(K % 2, _dmax(N, K) + 1, 2)):
                m, n = (K - d) // 2, (K + d) // 2
                v = level[K] * c[K][j]
                if d > 0:
                    v = v * half
                P[m][n] = v
                P[n][m] = v
        return P

    def _solve_exact(self) -> TwoQueueDistribution:
        from flint import fmpq
        rho = _to_fmpq(self.rho)
        N = self.N
        c, level = self._reduce_matrix(rho, "fmpq")
        P = self._assemble(c, level, fmpq(0), fmpq(1, 2))
        return TwoQueueDistribution(N=N, rho=self.rho, method="exact", p=P, level=level,
                                    conditional_levels=c)

    def _solve_symbolic_field(self, full: bool = False):
        """Level reduction over the field Q(rho) (SymPy ``FracField`` elements)."""
        from sympy.polys.domains import QQ
        from sympy.polys.fields import field
        N = self.N
        F, r = field("rho", QQ)
        c = self._reduce_generic(r, F(0), F(1))
        w = [F(1)]
        for K in range(1, 2 * N + 1):
            w.append(w[-1] * r / K)
        tot = _sum(w, F(0))
        level = [x / tot for x in w]
        Pf = self._assemble(c, level, F(0), F(1) / 2)
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
        return TwoQueueDistribution(N=N, rho=rs, method="symbolic", p=P, level=[conv(x) for x in level],
                                    conditional_levels=[[conv(x) for x in v] for v in c])

    def _solve_mp(self, dps) -> TwoQueueDistribution:
        N = self.N
        rho_m = to_mpf(self.rho)

        def compute(work_dps):
            with flint_prec(dps_to_prec(work_dps)):
                c, level = self._reduce_matrix(to_arb(self.rho), "arb")
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
        sizes = [_level_size(N, K) for K in range(2 * N + 1)]
        c, pos = [], 0
        for n in sizes:
            c.append(hi[pos:pos + n])
            pos += n
        level = hi[pos:]
        with mpmath.workdps(dps + 30):
            Pm = self._assemble(c, level, mpmath.mpf(0), mpmath.mpf(1) / 2)
            res = _residual_generic(N, rho_m, c)
        with mpmath.workdps(dps):   # rounding to dps digits
            P = [[+x for x in row] for row in Pm]
            cm = [[+x for x in v] for v in c]
            lm = [+x for x in level]
        return TwoQueueDistribution(N=N, rho=self.rho, method="mp", p=P, level=lm, conditional_levels=cm,
                                    residual=float(res), error=float(worst), dps=dps)

    def _reduce_matrix(self, rho, kind):
        """Level reduction with python-flint matrices: ``kind="arb"`` (midpoint LU, approximate) or
        ``"fmpq"`` (exact). Returns the conditional vectors c_K and the level masses pi_K."""
        from flint import arb, arb_mat, fmpq, fmpq_mat
        N = self.N
        if kind == "arb":
            Mat, one, num_of = arb_mat, arb(1), (lambda p, q: arb(p) / q)
        else:
            Mat, one, num_of = fmpq_mat, fmpq(1), (lambda p, q: fmpq(p, q))
        U = {2 * N: Mat([[1]])}
        for K in range(2 * N - 1, 0, -1):
            nK = _level_size(N, K)
            nK1 = _level_size(N, K + 1)
            B = Mat(nK, nK1)
            for (j, i, num, den) in _departure_kernel(N, K):
                B[i, j] = num_of(num, den)
            M = B * U[K + 1]
            Z = M * (-rho)
            if kind == "arb":
                # GTH-style diagonal: the columns of Z sum to K exactly, so set
                # Z_ii = K + rho * sum_{t != i} M_ti (no cancellation; without this the column-sum
                # error is amplified by rho/K per level, about e^rho overall)
                for i in range(nK):
                    M[i, i] = 0
                colsum = Mat([[1] * nK]) * M
                for i in range(nK):
                    Z[i, i] = K + rho * colsum[0, i]
            else:
                for i in range(nK):
                    Z[i, i] = Z[i, i] + rho + K
            tg = _arrival_targets(N, K)
            R = Mat(nK, len(tg))
            for e, i in enumerate(tg):
                R[i, e] = K
            if kind == "arb":
                U[K] = Z.solve(R, algorithm="approx").mid()
            else:
                U[K] = Z.solve(R)
        cvec = [Mat([[1]])]
        for K in range(1, 2 * N + 1):
            x = U[K] * cvec[-1]
            cvec.append(x.mid() if kind == "arb" else x)
        c = [[cvec[K][i, 0] for i in range(cvec[K].nrows())] for K in range(2 * N + 1)]
        if kind == "arb":  # each c_K is a probability vector (exact identity); remove rounding drift
            for K in range(2 * N + 1):
                t = c[K][0]
                for x in c[K][1:]:
                    t = t + x
                c[K] = [(x / t).mid() for x in c[K]]
        w = [one]
        for K in range(1, 2 * N + 1):
            w.append(w[-1] * rho / K)
        tot = w[0]
        for x in w[1:]:
            tot = tot + x
        level = [x / tot for x in w]
        return c, level


def _gauss_inverse(Z, zero, one):
    """Inverse of a small dense matrix over an exact field (Gauss-Jordan, first nonzero pivot)."""
    n = len(Z)
    A = [list(row) + [one if i == j else zero for j in range(n)] for i, row in enumerate(Z)]
    for col in range(n):
        piv = next(r for r in range(col, n) if A[r][col] != 0)
        if piv != col:
            A[col], A[piv] = A[piv], A[col]
        inv = one / A[col][col]
        A[col] = [x * inv for x in A[col]]
        for r in range(n):
            if r != col and A[r][col] != 0:
                f = A[r][col]
                Ar, Ac = A[r], A[col]
                A[r] = [Ar[t] - f * Ac[t] for t in range(2 * n)]
    return [row[n:] for row in A]


def _to_fmpq(x):
    from flint import fmpq, fmpz
    if isinstance(x, fmpq):
        return x
    if isinstance(x, (int, fmpz)) and not isinstance(x, bool):
        return fmpq(int(x))
    if isinstance(x, Fraction):
        return fmpq(x.numerator, x.denominator)
    if isinstance(x, numbers.Integral):
        return fmpq(int(x))
    if isinstance(x, (float, mpmath.mpf)) and float(x).is_integer():
        return fmpq(int(x))
    raise TypeError(f"method='exact' needs a rational rho (int, fractions.Fraction or flint.fmpq), got "
                    f"{type(x).__name__} {x!r}; write e.g. Fraction(3, 2), or use method='mp'")


def _residual_generic(N, rho, c):
    """Max relative residual of (rho+K) c_K = K A c_{K-1} + rho B c_{K+1} (any number type)."""
    worst = 0
    for K in range(0, 2 * N + 1):
        lhs = [(rho * (K < 2 * N) + K) * x for x in c[K]]
        rhs = [0 * x for x in c[K]]
        if K > 0:
            for e, i in enumerate(_arrival_targets(N, K)):
                rhs[i] += K * c[K - 1][e]
        if K < 2 * N:
            for (j, i, num, den) in _departure_kernel(N, K):
                rhs[i] += rho * c[K + 1][j] * num / den
        for u, v in zip(lhs, rhs):
            if u != 0:
                worst = max(worst, abs(u - v) / abs(u))
    return worst
