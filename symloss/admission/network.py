r"""Admission control with lookahead in the overloaded two-class loss network.

Model (Xie, Gurvich and Küçükyavuz, *Operations Research* 73(4),
2025; R. L. Bray, "An :math:`\Omega(\log N/N)` lookahead is sufficient to bound costs in the
overloaded loss network", arXiv:2601.14538, 2026): ``N`` unit-capacity servers, two Poisson classes
H and L of rates :math:`N\lambda_H`, :math:`N\lambda_L`, rewards :math:`r_H > r_L > 0` per accepted
job, exponential service of rate :math:`\mu`, overload :math:`\lambda_H < \mu < \lambda_H+\lambda_L`.

The four benchmarks (rewards are long-run averages per unit time)

* :math:`R_{fluid}` - the fluid LP, :meth:`OverloadedLossNetwork.fluid_reward`;
* :math:`R_{on}` - the optimal online policy of the average-reward MDP on the busy-server count,
  :meth:`OverloadedLossNetwork.online_optimal` (a trunk reservation, *verified* by a
  policy-improvement step on the exact bias);
* :math:`R_{off}` - the offline optimum on the uniformised sample path,
  :meth:`OverloadedLossNetwork.offline_optimal` (backward DP over events, state ``n``);
* :math:`R_W` - a ``W``-lookahead policy on the same path: :class:`SSS`, :class:`PFI`, and the
  rolling window dynamic program :class:`WindowDP` (a lower bound on the best ``W``-lookahead reward).

The decomposition :math:`R_{fluid}-R_{on} = C_{vol} + C_{long} + C_{short}` is estimated on common
random numbers by :meth:`OverloadedLossNetwork.decomposition`.

Sample paths are *uniformised* (not job durations: see below): events at rate
:math:`N(\lambda_H+\lambda_L+\mu)` are H arrivals, L arrivals, or potential departures with a uniform
mark ``U``; a potential departure happens iff :math:`UN < n` (``n`` busy servers). The job-duration
variant, where the controller would see each job's own service time, is only a contrast
(:meth:`OverloadedLossNetwork.offline_interval_lp`): it beats the fluid bound by :math:`\Theta(N)`.

This module is the class (validation, instance caches, the rule check of the fast paths); the solvers
are beside it: ``symloss.admission.fluid`` (fluid LP, SymPy closed forms), ``symloss.admission.online``
(trunk reservations and the online MDP), ``symloss.admission.paths`` (sample paths, offline optimum,
policy runs, decomposition), ``symloss.admission.jobs`` (the job-duration contrast) and
``symloss.admission.values`` (parameter values).

Size: the model class of the network and the entry points of its four benchmarks; the solvers are in the
room's other modules.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..core.identity import ClearsCachesOnAssignment
from ..core.model import ModelDefinitionError  # noqa: F401 (re-exported: the error of the fast paths)
from ..core.precision import DEFAULT_DPS, PrecisionError, check_dps
from ..core.registry import declare_family, dispatch, register_fast_path
from ..core.validation import check_int, check_max_bytes, check_real, choice, real_float
from . import definition as _definition, fluid as _fluid, jobs as _jobs, online as _online, paths as _paths
from .fast_path import ONLINE_MDP, refuse
from .jobs import MAX_LP_NONZEROS  # noqa: F401 (re-exported)
from .paths import D, H, L  # noqa: F401 (re-exported: the event kinds of a uniformised path)
from .results import (
    Decomposition,
    IntervalLPResult,
    JobSample,
    OfflineResult,
    OnlineOptimum,
    PolicyResult,
    SamplePath,
    TrunkReservationReward,
)
from .study import DecompositionStudy, fit_log_n, run_study
from .values import PARAM_RANGE, exact_fraction, is_rational, mpf_of, network_param  # noqa: F401

__all__ = ["OverloadedLossNetwork"]

DEFAULT_MAX_WORK = 2e10         # offline DP state updates / lookahead scans per call (~10-60 s)
DEFAULT_MAX_EVENTS = 1e8        # events of one sample path (~40 bytes each while it is drawn)


class OverloadedLossNetwork(ClearsCachesOnAssignment):
    r"""The overloaded two-class loss network of Bray (2026) and Xie, Gurvich and Küçükyavuz (2025).

    Parameters
    ----------
    N : int
        Number of unit-capacity servers, ``1 <= N <= 10**7``.
    lam_H, lam_L : real
        Per-server arrival rates of the H and L classes (total rates ``N lam_H``, ``N lam_L``).
    r_H, r_L : real
        Rewards per accepted job, ``r_H > r_L > 0``.
    mu : real, default 1
        Service rate (the default is the integer 1, so that rational input stays exact).
        Overload requires ``lam_H < mu < lam_H + lam_L``. Exact types (``int``, ``Fraction``) are
        kept, so :meth:`fluid_reward` is an exact rational for rational input.

    Examples
    --------
    >>> from fractions import Fraction
    >>> net = OverloadedLossNetwork(100, Fraction(1, 2), 1, 2, 1)
    >>> net.fluid_reward()
    Fraction(150, 1)
    >>> net.online_optimal().threshold
    4
    """

    #: the transition rules (the one definition, :mod:`symloss.admission.definition`); a subclass may
    #: replace them: trunk_reservation and fluid_reward follow, the fast paths refuse
    rules = _definition.RULES

    def _rules_shipped(self) -> bool:
        """The hand-written fast paths bind to this class's rules (the registry's one binding,
        ``symloss.admission.fast_path.ONLINE_MDP``)."""
        return ONLINE_MDP.applies(self)[0]

    def _require_shipped(self, what: str) -> None:
        if not self._rules_shipped():
            refuse(self, what)

    #: instance caches, dropped when an attribute is assigned (a changed network is a new definition)
    _CACHE_ATTRIBUTES = frozenset({"_online_cache", "_bias_cache"})

    def __init__(self, N, lam_H, lam_L, r_H, r_L, mu=1):
        self.N = check_int(N, "N", min_value=1, max_value=10**7)
        self.lam_H = network_param(lam_H, "lam_H")
        self.lam_L = network_param(lam_L, "lam_L")
        self.r_H = network_param(r_H, "r_H")
        self.r_L = network_param(r_L, "r_L")
        self.mu = network_param(mu, "mu")
        fH, fL, fm, frH, frL = (exact_fraction(x) for x in (self.lam_H, self.lam_L, self.mu, self.r_H, self.r_L))
        if not fH < fm:
            raise ValueError(f"overload needs lam_H < mu (the H class alone must fit); got lam_H={lam_H!r}, "
                             f"mu={mu!r}")
        if not fm < fH + fL:
            raise ValueError(f"overload needs mu < lam_H + lam_L; got lam_H + lam_L = {float(fH + fL)!r}, "
                             f"mu={mu!r}")
        if not frH > frL:
            raise ValueError(f"r_H must exceed r_L (the H class pays the premium); got r_H={r_H!r}, r_L={r_L!r}")

    # -------------------------------------------------------------------------------- basics
    def __repr__(self) -> str:
        return (f"OverloadedLossNetwork(N={self.N}, lam_H={self.lam_H}, lam_L={self.lam_L}, "
                f"r_H={self.r_H}, r_L={self.r_L}, mu={self.mu})")

    @property
    def params(self) -> dict:
        return {"N": self.N, "lam_H": self.lam_H, "lam_L": self.lam_L, "r_H": self.r_H,
                "r_L": self.r_L, "mu": self.mu}

    def _floats(self):
        return (float(self.lam_H), float(self.lam_L), float(self.mu), float(self.r_H), float(self.r_L))

    def fluid_reward(self):
        r"""The fluid LP value

        .. math:: R_{fluid} = \max\{r_H x_H + r_L x_L : x_H + x_L \le N\mu,\ 0\le x_c\le N\lambda_c\}
                  = N\,(r_H\lambda_H + r_L(\mu-\lambda_H)),

        attained at :math:`x_H = N\lambda_H`, :math:`x_L = N(\mu-\lambda_H)`; the dual solution
        :math:`y = r_L` (capacity), :math:`z_H = r_H - r_L`, :math:`z_L = 0` has the same value
        (the claim ``seed001.fluid_lp`` certifies it).

        Returns a ``Fraction`` when every parameter is an ``int`` or ``Fraction`` (also ``fmpq``,
        ``Decimal``), else the float nearest to the exact value (computed in rational arithmetic from
        the exact inputs and rounded once).
        """
        value = _fluid.fluid_exact(self)
        if all(is_rational(v) for v in (self.lam_H, self.lam_L, self.mu, self.r_H, self.r_L)):
            return value
        return float(value)

    def _fluid_exact(self):
        """:meth:`fluid_reward` as an exact ``Fraction`` of the exact inputs."""
        return _fluid.fluid_exact(self)

    def fluid_expr(self, evaluate: bool = False):
        """SymPy closed form of :meth:`fluid_reward` in the symbols ``N, lambda_H, mu, r_H, r_L``
        (all positive); ``evaluate=True`` substitutes this model's parameters (exactly).

        Parameters
        ----------
        evaluate : bool, optional
            Substitute this network's parameters (exact rationals stay exact).

        Returns
        -------
        sympy.Expr
            The fluid reward rate, symbolic, or with ``evaluate`` a number (exact for exact inputs).

        Raises
        ------
        ModelDefinitionError
            When the class's rules are not the shipped ones.
        """
        self._require_shipped("fluid_expr")
        return _fluid.fluid_expr(self, evaluate)

    def trunk_reservation_expr(self, evaluate: bool = False):
        r"""SymPy closed form of the trunk-reservation reward rate (the formula behind
        :meth:`trunk_reservation`).

        With :math:`m = N - K`, :math:`a = N(\lambda_H+\lambda_L)/\mu`, :math:`b = N\lambda_H/\mu`:

        .. math:: R(K) = \frac{r_H N\lambda_H \left(Z - w_N\right) + r_L N\lambda_L \sum_{n<m} a^n/n!}{Z},
                  \quad Z = \sum_{n=0}^{m-1}\frac{a^n}{n!} + \sum_{n=m}^{N}\frac{a^m b^{n-m}}{n!},
                  \quad w_N = \frac{a^m b^{N-m}}{N!}.

        Returns the expression in the symbols ``N, K, lambda_H, lambda_L, mu, r_H, r_L`` (unevaluated
        ``Sum``\ s); ``evaluate=True`` substitutes this model's parameters and a symbol-free ``K`` is
        still needed: use ``expr.subs(K, k).doit()`` for an exact rational at small ``N``.

        Parameters
        ----------
        evaluate : bool, optional
            Substitute this network's parameters (``K`` stays a symbol).

        Returns
        -------
        sympy.Expr
            The reward rate; a ``ModelDefinitionError`` is raised for an edited rule table.
        """
        self._require_shipped("trunk_reservation_expr")
        return _fluid.trunk_reservation_expr(self, evaluate)

    # -------------------------------------------------------------------------------- online MDP
    _mp = staticmethod(mpf_of)

    def _bias_difference_mp(self, K: int, n: int, g, dps: int):
        """Delta h(n) at high precision (:func:`symloss.admission.online.bias_difference_mp`)."""
        return _online.bias_difference_mp(self, K, n, g, dps)

    def trunk_reservation(self, K: int, dps: int = DEFAULT_DPS) -> TrunkReservationReward:
        r"""Exact stationary reward rate of trunk reservation with reserve ``K`` (``0 <= K <= N``).

        The busy count is a birth-death chain with birth rates :math:`N(\lambda_H+\lambda_L)` for
        :math:`n < N-K`, :math:`N\lambda_H` for :math:`N-K \le n < N`, death rates :math:`n\mu`,
        so :math:`\pi_n \propto a^n/n!` for :math:`n\le m=N-K` and :math:`\pi_n\propto a^m b^{n-m}/n!`
        above (:math:`a = N(\lambda_H+\lambda_L)/\mu`, :math:`b = N\lambda_H/\mu`), and

        .. math:: R(K) = r_H N\lambda_H (1-\pi_N) + r_L N\lambda_L P(n < N-K).

        The regret is computed as :math:`(r_H-r_L)N\lambda_H\pi_N + r_L\mu E[N-n]` (no
        cancellation) and compared with :math:`R_{fluid}-R(K)`. Sums are taken in mpmath at
        ``dps`` + guard digits and checked at a second precision (:class:`PrecisionError` otherwise).

        Parameters
        ----------
        K : int
            The reserve: L jobs are accepted while fewer than ``N - K`` servers are busy, ``0 <= K <= N``.
        dps : int, optional
            Significant digits.

        Returns
        -------
        TrunkReservationReward

        Raises
        ------
        PrecisionError
            When the two precisions do not agree.
        """
        K = check_int(K, "K", min_value=0, max_value=self.N)
        dps = check_dps(dps)
        return _online.trunk_reservation(self, K, dps)

    def online_optimal(self, dps: int = DEFAULT_DPS) -> OnlineOptimum:
        r"""The optimal online admission policy (average-reward MDP on the busy count ``n``).

        Algorithm

        1. Every trunk reservation ``K = 0..N`` is evaluated exactly from its birth-death chain in
           O(N) total (prefix/suffix log-sums of :math:`a^n/n!` and :math:`b^n/n!`); take the best.
        2. *Verification, not assumption*: for that policy the bias differences
           :math:`\Delta(n) = h(n+1)-h(n)` solve the Poisson equation
           :math:`g = r(n) + \beta_n\Delta(n) - n\mu\Delta(n-1)`; the policy is average-optimal among
           *all* stationary policies iff it is greedy w.r.t. its own bias (policy-improvement
           theorem for this unichain MDP): accept class c in state n iff :math:`r_c+\Delta(n)\ge0`.
           This is checked in every state and for both classes; a margin closer to 0 than
           ``1e-9 r_H`` is re-decided at ``dps`` digits. If the check fails the greedy policy is
           taken and the step repeated (policy iteration), so the returned policy is always one
           that passed.
        3. Reward and regret of the final threshold at ``dps`` digits (:meth:`trunk_reservation`).

        Cost O(N) floats + O(N) mpmath operations; about 0.1 s at ``N = 10^4``.

        Parameters
        ----------
        dps : int, optional
            Significant digits of the reward and regret.

        Returns
        -------
        OnlineOptimum
            Cached per ``dps`` on the instance (dropped when an attribute is assigned).

        Raises
        ------
        ModelDefinitionError
            When the class's rules are not the shipped ones.
        PrecisionError
            When policy iteration leaves the threshold family or does not settle.
        """
        self._require_shipped("online_optimal")
        dps = check_dps(dps)
        cache = self.__dict__.setdefault("_online_cache", {})
        if dps in cache:
            return cache[dps]
        (res, bias), _ = dispatch("admission", self, lambda net, dps: refuse(net, "online_optimal"), args=(dps,),
                                  rejected=_REJECTED, on_reject=PrecisionError)
        self.__dict__.setdefault("_online_cache", {})[dps] = res
        self.__dict__.setdefault("_bias_cache", {})[res.threshold] = bias
        return res

    def online_bias(self):
        """The bias ``h(n)``, ``n = 0..N`` (``h(0) = 0``) of the optimal online policy (float64)."""
        self._require_shipped("online_bias")
        opt = self.online_optimal()
        if opt.threshold not in self.__dict__.setdefault("_bias_cache", {}):
            g = float(opt.reward)
            self.__dict__.setdefault("_bias_cache", {})[opt.threshold] = (
                g, _online.bias_differences(self, opt.threshold, g))
        d = self.__dict__.setdefault("_bias_cache", {})[opt.threshold][1]
        return np.concatenate(([0.0], np.cumsum(d)))

    # -------------------------------------------------------------------------------- sample paths
    def sample_path(self, horizon, seed=None, *, max_events=DEFAULT_MAX_EVENTS, max_bytes=None) -> SamplePath:
        r"""Uniformised event sequence on ``[0, horizon]``.

        The number of events is Poisson(:math:`N(\lambda_H+\lambda_L+\mu)T`), their times are
        uniform order statistics (normalised exponential spacings), each is H / L / potential
        departure with probabilities proportional to :math:`\lambda_H, \lambda_L, \mu`, and each
        carries a uniform mark. ``seed``: int, sequence of ints, ``SeedSequence`` (not changed) or
        ``Generator`` (advanced); identical seeds give identical paths.

        Budgets, checked before anything is drawn: the expected number of events may not exceed
        ``max_events`` (default ``1e8``) and the path's memory while it is drawn (about 40 bytes per
        event) may not exceed ``max_bytes`` (default 4 GiB).

        Parameters
        ----------
        horizon : real > 0
            Length of the path.
        seed : None, int, sequence of int, SeedSequence or Generator, optional
            The randomness (see above).
        max_events : real > 0, optional
            Budget on the expected number of events.
        max_bytes : real, optional
            Budget on the memory of the path while it is drawn.

        Returns
        -------
        SamplePath

        Raises
        ------
        BudgetError
            Past a budget (nothing drawn).
        """
        self._require_shipped("sample_path")
        horizon = real_float(horizon, "horizon", lower=0, lower_open=True)
        max_events = real_float(max_events, "max_events", lower=0, lower_open=True)
        max_bytes = check_max_bytes(max_bytes)
        return _paths.sample_path(self, horizon, seed, max_events, max_bytes)

    def offline_optimal(self, path: SamplePath, n0: int | None = None, method: str = "shift", *,
                        max_work=DEFAULT_MAX_WORK) -> OfflineResult:
        r"""Exact offline optimum on a uniformised path.

        Backward dynamic program over the events, :math:`V_{M}\equiv 0` and

        .. math:: V_j(n) = \begin{cases} \max(V_{j+1}(n),\ r_c + V_{j+1}(n+1)) & \text{arrival of class } c,\ n<N\\
                   V_{j+1}(n - 1_{\{UN<n\}}) & \text{potential departure with mark } U \end{cases}

        (:math:`V_j(N) = V_{j+1}(N)` for arrivals), returning :math:`V_0(n_0)`. O(N x events), numba;
        ``n0`` defaults to ``N - K*`` (the online threshold's boundary). The ``cost_rate`` is
        :math:`(X - V_0)/T` with the path's fluid control variate ``X``
        (:meth:`SamplePath.control_variate`), whose mean is exactly :math:`C_{vol}` at horizon T.

        Implementation. By backward induction :math:`V_j(n) - V_j(n+1) \le r_H` for all ``j, n``
        (an arrival gives :math:`V'(n)-V'(n+1) \le \max(V(n)-V(n+1), r_c)`, a departure maps the
        difference to another difference or to 0), so the offline optimum accepts every H job that
        finds an idle server and an H step is a shift of the array, done in O(1) by moving an offset;
        L steps are one vectorised max pass, departures move the shorter part of the array.
        ``method="plain"`` runs the textbook recursion (max at every arrival, full copies) instead;
        both give the same value (tested), the default is about twice as fast.

        Budget: the ``N x events`` state updates may not exceed ``max_work`` (default ``2e10``, about
        10-60 s); checked before the run.

        Parameters
        ----------
        path : SamplePath
            A path of :meth:`sample_path` of this network.
        n0 : int, optional
            Busy servers at time 0 (default ``N - K*``).
        method : {"shift", "plain"}, optional
            The dynamic programme (same value).
        max_work : real > 0, optional
            Budget on the state updates.

        Returns
        -------
        OfflineResult

        Raises
        ------
        BudgetError
            Past the budget (checked before the run).
        """
        self._require_shipped("offline_optimal")
        path = _paths.check_path(self, path)
        n0 = _paths.start_state(self, n0)
        choice(method, "method", ("shift", "plain"))
        max_work = real_float(max_work, "max_work", lower=0, lower_open=True)
        return _paths.offline_optimal(self, path, n0, method, max_work)

    def evaluate(self, policy, path: SamplePath, n0: int | None = None, *,
                 max_work=DEFAULT_MAX_WORK) -> PolicyResult:
        """Run a policy (:class:`SSS`, :class:`PFI`, :class:`WindowDP`, :class:`TrunkReservation`,
        or ``"online"`` for the optimal online trunk reservation) on a uniformised path.

        Budget: the lookahead work (events scanned by SSS and PFI, cells of the window DP) may not
        exceed ``max_work`` (default ``2e10``): the expected work of SSS and WindowDP is checked
        before the run, and the kernel counts the actual work (PFI's first-passage scans have no
        a-priori bound) and stops with a :class:`~symloss.core.validation.BudgetError` past it.

        Parameters
        ----------
        policy : SSS, PFI, WindowDP, TrunkReservation or "online"
            The policy run on the path.
        path : SamplePath
            A path of :meth:`sample_path` of this network.
        n0 : int, optional
            Busy servers at time 0 (default ``N - K*``).
        max_work : real > 0, optional
            Budget on the lookahead work.

        Returns
        -------
        PolicyResult

        Raises
        ------
        BudgetError
            Past the budget.
        """
        self._require_shipped("evaluate")
        path = _paths.check_path(self, path)
        max_work = real_float(max_work, "max_work", lower=0, lower_open=True)
        n0 = _paths.start_state(self, n0)
        return _paths.evaluate(self, policy, path, n0, max_work)

    # -------------------------------------------------------------------------------- job-duration contrast
    def sample_jobs(self, horizon, seed=None) -> JobSample:
        """Jobs of the job-duration variant on ``[0, horizon]``: Poisson arrivals of both classes,
        each with its own exponential(mu) service duration.

        Parameters
        ----------
        horizon : real > 0
            Length of the arrival window.
        seed : None, int, sequence of int, SeedSequence or Generator, optional
            The randomness (as in :meth:`sample_path`).

        Returns
        -------
        JobSample

        Raises
        ------
        BudgetError
            Beyond 2e5 jobs (the limit of the interval LP).
        """
        self._require_shipped("sample_jobs")
        horizon = real_float(horizon, "horizon", lower=0, lower_open=True)
        return _jobs.sample_jobs(self, horizon, seed)

    def offline_interval_lp(self, jobs: JobSample) -> IntervalLPResult:
        r"""Offline optimum when each job's own service duration is known (the *wrong* benchmark).

        Max-weight interval scheduling with at most ``N`` jobs in service:
        :math:`\max \sum_j r_{c_j} x_j` s.t. for every arrival epoch :math:`s_i`,
        :math:`\sum_{j: a_j \le s_i < a_j+d_j} x_j \le N`, :math:`0\le x\le 1`. The constraint matrix
        has consecutive ones in each column (an interval matrix), hence is totally unimodular and
        the LP optimum is integral (``max_fractionality`` reports the distance of the HiGHS solution
        from {0, 1}). The controller keeps short L jobs, so the reward rate beats the fluid bound
        by :math:`\Theta(N)` (about 1.6-1.8 per server against 1.5 at the parameters of Bray (2026)). A
        greedy feasible schedule (accept whenever a server is free) is reported as a lower bound.

        Parameters
        ----------
        jobs : JobSample
            Jobs of :meth:`sample_jobs` of this network.

        Returns
        -------
        IntervalLPResult

        Raises
        ------
        BudgetError
            When the constraint matrix would pass ``MAX_LP_NONZEROS`` nonzeros.
        """
        self._require_shipped("offline_interval_lp")
        if not isinstance(jobs, JobSample):
            raise TypeError(f"jobs must be a JobSample from sample_jobs(), got {type(jobs).__name__}")
        if jobs.N != self.N:
            raise ValueError(f"jobs were drawn for N={jobs.N}, this network has N={self.N}")
        return _jobs.offline_interval_lp(self, jobs)

    # -------------------------------------------------------------------------------- the study
    def window(self, c) -> float:
        r""":math:`W = c \ln N / N`.

        Parameters
        ----------
        c : real >= 0
            The window constant.

        Returns
        -------
        float
            ``c`` itself when ``N = 1``.
        """
        c = check_real(c, "c", lower=0)
        return float(c) * math.log(self.N) / self.N if self.N > 1 else float(c)

    def decomposition(self, horizon, replications: int = 8, c: Sequence[float] = (1, 2, 4, 8),
                      seed=0, n0: int | None = None, progress=None, *, max_work=2e11) -> Decomposition:
        r"""Estimate :math:`C_{vol}, C_{long}, C_{short}` per unit time on common random numbers.

        For each of ``replications`` independent uniformised paths of length ``horizon`` (seeds
        spawned from ``numpy.random.SeedSequence(seed)``), with ``X`` the path's fluid control
        variate (:math:`E X = T R_{fluid}`):

        * :math:`C_{vol} \approx (X - V_{off})/T`,
        * :math:`C_{long}(c) \approx (V_{off} - V_{W})/T` and :math:`C_{short}(c) \approx (V_W - V_{on})/T`
          with :math:`W = c\ln N/N`, :math:`V_{on}` the optimal trunk reservation run on the same path
          and :math:`V_W` the best (smallest mean cost over the replications) of three
          ``W``-lookahead policies: :class:`WindowDP` with the online bias as terminal value,
          :class:`WindowDP` with zero terminal value, and :class:`SSS`,

        each with a 95 % Student-t interval over replications. Each of the three is only a lower
        bound on the best ``W``-lookahead reward, so ``C_long`` is an upper bound on the true
        long-run cost and ``C_short`` a lower bound on the true short-run cost (up to the small
        optimism of picking the best of three means). ``lookahead[c]`` keeps all three cost
        estimates and ``best[c]`` the one used. All policies start from ``n0`` (default ``N - K*``);
        end effects are O(1/T).

        Budget: the expected work of all replications (offline DP ``N x events``, the window DPs
        ``L arrivals x window x min(N, window)``, the scans) may not exceed ``max_work`` (default
        ``2e11``, a few minutes); checked before the first path is drawn. Each path also obeys the
        budgets of :meth:`sample_path`.

        Parameters
        ----------
        horizon : real > 0
            Length of each path.
        replications : int, optional
            Number of independent paths (>= 2).
        c : sequence of real, optional
            Window constants ``c`` of ``W = c ln N / N``.
        seed : optional
            Root seed (paths use seeds spawned from it).
        n0 : int, optional
            Busy servers at time 0 (default ``N - K*``).
        progress : callable, optional
            Called as ``progress(i, replications)`` after each path.
        max_work : real > 0, optional
            Budget on the total work.

        Returns
        -------
        Decomposition
        """
        self._require_shipped("decomposition")
        horizon = real_float(horizon, "horizon", lower=0, lower_open=True)
        replications = check_int(replications, "replications", min_value=2)
        if isinstance(c, (str, bytes)) or not hasattr(c, "__iter__"):
            raise TypeError(f"c must be a sequence of window constants (c in W = c ln N / N), got "
                            f"{type(c).__name__} {c!r}")
        cs = [real_float(x, f"c[{i}]", lower=0) for i, x in enumerate(c)]
        if not cs:
            raise ValueError("c must contain at least one window constant")
        max_work = real_float(max_work, "max_work", lower=0, lower_open=True)
        return _paths.decomposition(self, horizon, replications, cs, seed, n0, progress, max_work)

    @classmethod
    def decomposition_study(cls, Ns, lam_H, lam_L, r_H, r_L, mu=1, horizon=30.0, replications=10,
                            c=(1, 2, 4, 8), seed=0, progress=None) -> DecompositionStudy:
        r"""Run :meth:`decomposition` for each ``N`` in ``Ns`` (seeds ``[seed, index]``) and fit
        :math:`C_{vol}`, :math:`C_{long}(c)`, :math:`C_{short}(c)`, the SSS and PFI costs and the
        simulated online regret against :math:`\ln N` (:func:`fit_log_n`).

        Parameters
        ----------
        Ns : iterable of int
            The system sizes.
        lam_H, lam_L, r_H, r_L, mu : real
            The network (as in :class:`OverloadedLossNetwork`).
        horizon : real, optional
            Length of each path.
        replications : int, optional
            Paths per ``N``.
        c : sequence of real, optional
            Window constants.
        seed : int, optional
            Root seed.
        progress : callable, optional
            Progress callback.

        Returns
        -------
        DecompositionStudy
        """
        return run_study(cls, Ns, lam_H, lam_L, r_H, r_L, mu, horizon, replications, c, seed, progress)

    fit_log_n = staticmethod(fit_log_n)


_REJECTED = "{subject!r}: the {name} fast path's answer fails its check on the chains generated from the rules ({reason})"

# the admission family in the one fast-path registry: the hand-written solvers answer for the shipped rule table
declare_family("admission", OverloadedLossNetwork)
register_fast_path("admission", OverloadedLossNetwork, ONLINE_MDP)
