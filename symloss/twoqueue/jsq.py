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

The solvers live in their own modules, as functions of the model, behind the thin
:class:`TwoQueueJSQ` (its methods validate the arguments and delegate):
``symloss.twoqueue.float_solve`` (``"float"``, the generator, the residual),
``symloss.twoqueue.exact_solve`` (``"mp"``, ``"exact"``, ``"symbolic"``),
``symloss.twoqueue.asymptotic_model`` (:meth:`TwoQueueJSQ.asymptotic`,
:meth:`TwoQueueJSQ.asymptotic_expr`); :class:`TwoQueueDistribution` (``distribution``) and
:func:`jsq_regime` (``regimes``) are re-exported here.
"""
from __future__ import annotations

import time

from ..core.docstrings import fill_doc
from ..core.identity import ClearsCachesOnAssignment
from ..core.precision import DEFAULT_DPS, check_dps, to_mpf
from ..core.registry import declare_family, register_fast_path
from ..core.validation import check_choice, check_int, check_real
from . import asymptotic_model, exact_solve, float_solve
from ._docfragments import TWOQUEUE_DOCS
from .definition import RULES, balance_equations as _balance_equations, transitions
from .distribution import TwoQueueDistribution
from .exact_solve import residual_kernels as _residual_kernels, to_fmpq as _to_fmpq  # noqa: F401  (old names)
from .float_solve import FLOAT_RESIDUAL_LIMIT, GENERIC_FLOAT_LIMIT, SPARSE_LU_LIMIT  # noqa: F401  (old names)
from .kernels import LevelKernels, StructureError, level_kernels
from .regimes import REGIMES, jsq_regime

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

# --------------------------------------------------------------------------------------------------
# The model class
# --------------------------------------------------------------------------------------------------

@fill_doc(TWOQUEUE_DOCS)
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

    {{references_yao_knessl}}

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
        return float_solve.stencil_applies(self)

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
        return float_solve.generator(self)

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
        return float_solve.generic_solve(self)

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
            The largest relative residual; a few units of rounding for a correct answer.

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
        return float_solve.chain_residual(self, p)

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
        return float_solve.level_probabilities(self)

    # ---- asymptotics ---------------------------------------------------------------------------
    ASYMPTOTIC_QUANTITIES = asymptotic_model.ASYMPTOTIC_QUANTITIES

    def _check_derivable(self):
        """The asymptotics are derived from the rule table (:func:`.asymptotic_model.check_derivable`)."""
        asymptotic_model.check_derivable(self)

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
        Yao and Knessl (2008), cited in full in the References of :class:`TwoQueueJSQ`.

        Examples
        --------
        >>> from symloss import TwoQueueJSQ
        >>> m = TwoQueueJSQ(300, 1000)                         # a = 0.3
        >>> round(float(m.asymptotic("blocking", order=0)), 3)  # 1 - 2a
        0.4
        """
        check_choice(quantity, "quantity", self.ASYMPTOTIC_QUANTITIES)
        reg = self.regime if regime is None else check_choice(regime, "regime", REGIMES)
        order = check_choice(order, "order", (0, 1))
        if J is not None:
            J = check_int(J, "J", min_value=2)
        return asymptotic_model.asymptotic(self, quantity, reg, order, n=n, total=total, of=of, J=J)

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
        check_choice(quantity, "quantity", asymptotic_model.EXPR_QUANTITIES)
        reg = self.regime if regime is None else check_choice(regime, "regime", REGIMES)
        order = check_choice(order, "order", (0, 1))
        return asymptotic_model.asymptotic_expr(self, quantity, reg, order)

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
            res = float_solve.solve_float(self, tol, maxiter)
        elif method == "mp":
            res = exact_solve.solve_mp(self, dps)
        elif method == "exact":
            res = exact_solve.solve_exact(self)
        else:
            res = exact_solve.solve_symbolic(self)
        res.seconds = time.perf_counter() - t0
        return res

    def _solve_symbolic_field(self, full: bool = False):
        """Level reduction over the field Q(rho) (:func:`.exact_solve.solve_symbolic_field`)."""
        return exact_solve.solve_symbolic_field(self, full)


# the two-queue family in the one fast-path registry: the numba stencil answers for the Yao-Knessl rule table
declare_family("twoqueue", TwoQueueJSQ)
register_fast_path("twoqueue", TwoQueueJSQ, float_solve.STENCIL)
