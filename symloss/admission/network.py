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
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Sequence

import mpmath
import numpy as np

from ..core.precision import (
    DEFAULT_DPS,
    PrecisionError,
    agree_at_two_precisions,
    check_dps,
    working,
)
from ..core.identity import ClearsCachesOnAssignment
from ..core.random import seed_sequence, spawn
from ..core.validation import (
    BudgetError,
    check_budget,
    check_int,
    check_max_bytes,
    check_real,
    choice,
    real_float,
)
from . import definition as _definition
from .policies import PFI, SSS, TrunkReservation, WindowDP
from .results import (
    Decomposition,
    Estimate,
    IntervalLPResult,
    JobSample,
    OfflineResult,
    OnlineOptimum,
    PolicyResult,
    SamplePath,
    TrunkReservationReward,
)
from .study import DecompositionStudy, fit_log_n, run_study

__all__ = ["OverloadedLossNetwork"]

H, L, D = 0, 1, 2  # event kinds of a uniformised path
PARAM_RANGE = (1e-100, 1e100)   # rates and rewards: float rewards, logs and event rates stay finite
DEFAULT_MAX_WORK = 2e10         # offline DP state updates / lookahead scans per call (~10-60 s)
DEFAULT_MAX_EVENTS = 1e8        # events of one sample path (~40 bytes each while it is drawn)
MAX_LP_NONZEROS = 2 * 10 ** 7   # interval LP: constraint nonzeros (memory and HiGHS time)


# ------------------------------------------------------------------------------------------------
# the model
# ------------------------------------------------------------------------------------------------

def _kernels() -> dict:
    """The numba kernels (imported, and compiled or loaded from cache, on first use)."""
    from ._kernels import kernels
    return kernels()


def _is_rational(x) -> bool:
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


def _exact_fraction(x) -> Fraction:
    """An exact canonical value (int, float, Fraction, mpf inside PARAM_RANGE) as a Fraction."""
    if isinstance(x, mpmath.mpf):
        sign, man, exp, _ = x._mpf_
        f = Fraction(man) * Fraction(2) ** exp
        return -f if sign else f
    return Fraction(x)


def _param(x, name: str):
    v = check_real(x, name, lower=0, lower_open=True)
    if _arb_ball(v):
        raise ValueError(f"{name} must be a point value, got the ball {v}")
    f = real_float(v, name)
    lo, hi = PARAM_RANGE
    if not lo <= f <= hi:
        shown = f"{f:.6g}" if 0 < f < float("inf") else repr(x)    # not a 300-digit Fraction repr
        raise ValueError(f"{name} must be a real number in [{lo:g}, {hi:g}] (so that rewards, logs and event "
                         f"rates stay inside the float range), got {shown}")
    return v


def _arb_ball(v) -> bool:
    return type(v).__name__ == "arb"


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
        return _definition.is_shipped(tuple(type(self).rules))

    def _require_shipped(self, what: str) -> None:
        if not self._rules_shipped():
            from ..core.model import ModelDefinitionError
            raise ModelDefinitionError(
                f"{type(self).__name__}.{what}: this method is a fast path written for the shipped rules "
                f"(symloss.admission.definition.RULES) and the rules of this class differ from them; "
                f"trunk_reservation and fluid_reward are generated from the rules and follow the edit")

    #: instance caches, dropped when an attribute is assigned (a changed network is a new definition)
    _CACHE_ATTRIBUTES = frozenset({"_online_cache", "_bias_cache"})

    def __init__(self, N, lam_H, lam_L, r_H, r_L, mu=1):
        self.N = check_int(N, "N", min_value=1, max_value=10**7)
        self.lam_H = _param(lam_H, "lam_H")
        self.lam_L = _param(lam_L, "lam_L")
        self.r_H = _param(r_H, "r_H")
        self.r_L = _param(r_L, "r_L")
        self.mu = _param(mu, "mu")
        fH, fL, fm, frH, frL = (_exact_fraction(x) for x in (self.lam_H, self.lam_L, self.mu, self.r_H, self.r_L))
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
        value = self._fluid_exact()
        if all(_is_rational(v) for v in (self.lam_H, self.lam_L, self.mu, self.r_H, self.r_L)):
            return value
        return float(value)

    def _fluid_exact(self) -> Fraction:
        """:meth:`fluid_reward` as an exact ``Fraction`` of the exact inputs."""
        vals = (self.lam_H, self.mu, self.r_H, self.r_L)
        lH, mu, rH, rL = (_exact_fraction(v) for v in vals)
        if self._rules_shipped():
            value = self.N * (rH * lH + rL * (mu - lH))
        else:
            # generated from the rules: offered rates aH, aL at the full state, service capacity dep(N);
            # in overload (aH < dep(N) < aH + aL) the LP takes all H and fills the rest with L
            lL = _exact_fraction(self.lam_L)
            args = (self.N, self.N, lH, lL, mu)
            rules = tuple(type(self).rules)
            aH = _definition.exact_rate(rules, "H", *args)
            aL = _definition.exact_rate(rules, "L", *args)
            cap = _definition.exact_rate(rules, None, *args)
            if not (aH < cap < aH + aL):
                raise ValueError(f"the rules of {type(self).__name__} are not overloaded at these parameters: "
                                 f"offered H {aH}, offered L {aL}, capacity {cap} (need H < capacity < H + L)")
            value = rH * aH + rL * (cap - aH)
        return value

    def fluid_expr(self, evaluate: bool = False):
        """SymPy closed form of :meth:`fluid_reward` in the symbols ``N, lambda_H, mu, r_H, r_L``
        (all positive); ``evaluate=True`` substitutes this model's parameters (exactly)."""
        self._require_shipped("fluid_expr")
        import sympy as sp
        N, lH, mu, rH, rL = sp.symbols("N lambda_H mu r_H r_L", positive=True)
        expr = N * (rH * lH + rL * (mu - lH))
        if not evaluate:
            return expr
        def S(x):
            return sp.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else sp.nsimplify(x) \
                if isinstance(x, int) else sp.Float(x)
        return expr.subs({N: self.N, lH: S(self.lam_H), mu: S(self.mu), rH: S(self.r_H), rL: S(self.r_L)})

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
        """
        self._require_shipped("trunk_reservation_expr")
        import sympy as sp
        N, K = sp.symbols("N K", integer=True, nonnegative=True)
        n = sp.Symbol("n", integer=True, nonnegative=True)
        lH, lL, mu, rH, rL = sp.symbols("lambda_H lambda_L mu r_H r_L", positive=True)
        a, b = N * (lH + lL) / mu, N * lH / mu
        m = N - K
        below = sp.Sum(a ** n / sp.factorial(n), (n, 0, m - 1))
        Z = below + sp.Sum(a ** m * b ** (n - m) / sp.factorial(n), (n, m, N))
        wN = a ** m * b ** (N - m) / sp.factorial(N)
        expr = (rH * N * lH * (Z - wN) + rL * N * lL * below) / Z
        if not evaluate:
            return expr

        def S(x):
            return sp.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else \
                (sp.Integer(x) if isinstance(x, int) else sp.Float(x))
        return expr.subs({N: self.N, lH: S(self.lam_H), lL: S(self.lam_L), mu: S(self.mu), rH: S(self.r_H),
                          rL: S(self.r_L)})

    # -------------------------------------------------------------------------------- online MDP
    def _log_weights(self):
        """LA(n) = n ln a - ln n!, LB(n) = n ln b - ln n!  (a = N(lH+lL)/mu, b = N lH/mu)."""
        from scipy.special import gammaln
        lH, lL, mu, _, _ = self._floats()
        N = self.N
        n = np.arange(N + 1, dtype=float)
        lg = gammaln(n + 1)
        la, lb = math.log(N * (lH + lL) / mu), math.log(N * lH / mu)
        return n * la - lg, n * lb - lg, la - lb

    def _threshold_rewards(self):
        """Reward rate of every trunk reservation K = 0..N (float64, log space), indexed by K."""
        lH, lL, mu, rH, rL = self._floats()
        N = self.N
        LA, LB, dab = self._log_weights()
        # P[m] = log sum_{n<m} exp LA(n)   (m = 0..N ; P[0] = -inf)
        P = np.empty(N + 1)
        P[0] = -np.inf
        P[1:] = np.logaddexp.accumulate(LA[:N])
        # S[m] = log sum_{n=m}^{N} exp LB(n)
        S = np.logaddexp.accumulate(LB[::-1])[::-1]
        m = np.arange(N + 1, dtype=float)
        tail = m * dab + S
        logZ = np.logaddexp(P, tail)
        p_below = np.exp(P - logZ)
        p_full = np.exp(m * dab + LB[N] - logZ)
        R = rH * N * lH * (1.0 - p_full) + rL * N * lL * p_below
        return R[::-1].copy()  # index K = N - m

    def _bias_differences(self, K: int, g: float):
        r"""Delta h(n) = h(n+1) - h(n), n = 0..N-1, of trunk reservation K with gain g (float64).

        From detailed balance, :math:`\pi_n\beta_n\Delta(n) = \sum_{k\le n}\pi_k(g-r(k))
        = -\sum_{k>n}\pi_k(g-r(k))`; the first form is used where every term has one sign
        (``n < N-K``), the second above."""
        lH, lL, mu, rH, rL = self._floats()
        N = self.N
        LA, LB, _ = self._log_weights()
        m = N - K
        A, B = N * (lH + lL), N * lH
        Rall = rH * B + rL * N * lL
        d = np.empty(N)
        if m > 0:
            Pc = np.logaddexp.accumulate(LA[:m])            # log sum_{k<=n} w_k, n < m
            d[:m] = (g - Rall) / A * np.exp(Pc - LA[:m])
        if m < N:
            idx = np.arange(m, N)
            # T1(n) = log sum_{k=n+1}^{N-1} exp LB(k)
            rev = np.concatenate(([-np.inf], np.logaddexp.accumulate(LB[N - 1:m:-1]))) if N - 1 > m else \
                np.array([-np.inf])
            # rev[j] = log sum of the last j terms of LB[m+1..N-1]; T1(n) needs the last N-1-n terms
            T1 = rev[(N - 1 - idx)]
            num = (g - rH * B) * np.exp(T1 - LB[idx]) + g * np.exp(LB[N] - LB[idx])
            d[m:] = -num / B
        return d

    def _bias_difference_mp(self, K: int, n: int, g, dps: int):
        """Delta h(n) at high precision (used to decide a near-tie of the improvement test)."""
        with working(dps):
            lH, lL, mu, rH, rL = (self._mp(x) for x in (self.lam_H, self.lam_L, self.mu, self.r_H, self.r_L))
            N = self.N
            m = N - K
            A, B = N * (lH + lL), N * lH
            w = mpmath.mpf(1)
            s = mpmath.mpf(0)
            wn = None
            for k in range(N + 1):
                if k > 0:
                    w = w * ((A if k <= m else B) / mu) / k
                r = (rH * B if k < N else 0) + (rL * N * lL if k < m else 0)
                s += w * (g - r)
                if k == n:
                    wn = w
                    break
            beta = A if n < m else B
            return s / (wn * beta)

    def _head_cut(self, m: int, wdps: int) -> int:
        """First index kept in the high-precision sums (see :meth:`trunk_reservation`)."""
        if m <= 1:
            return 0
        LA, _, _ = self._log_weights()
        cut = LA[m] - (wdps + 10) * math.log(10) - 2 * math.log(self.N + 1) - 1.0
        idx = np.nonzero(LA[:m + 1] >= cut)[0]
        return max(0, int(idx[0]) - 1) if idx.size else 0

    @staticmethod
    def _mp(x):
        if isinstance(x, Fraction):
            return mpmath.mpf(x.numerator) / x.denominator
        return mpmath.mpf(x)

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
        """
        K = check_int(K, "K", min_value=0, max_value=self.N)
        dps = check_dps(dps)
        N, m = self.N, self.N - K

        shipped = self._rules_shipped()
        fH, fL, fD = _definition.rates(tuple(type(self).rules))

        def compute(wdps):
            with mpmath.workdps(wdps):
                lH, lL, mu, rH, rL = (self._mp(x) for x in (self.lam_H, self.lam_L, self.mu, self.r_H, self.r_L))
                prm = (N, lH, lL, mu)
                # birth-death chain generated from the rules: birth(n) = offered H (n < N) + offered L
                # (n < N - K), death(n) = departure rate; w_n = w_{n-1} birth(n-1) / death(n).
                # For the shipped rules w_n = a^n/n! increases on n <= m (a > N >= n), so the head
                # n < n_start can be dropped once w_n/w_m < 10^-(wdps+10)/(N+1)^2: its share of every
                # sum below (weights up to N) is then < 10^-(wdps+10). An edited definition sums it all.
                n_start = self._head_cut(m, wdps) if shipped else 0
                w = mpmath.mpf(1)
                Z = mpmath.mpf(0)
                below = mpmath.mpf(0)
                idle = mpmath.mpf(0)
                dep = mpmath.mpf(0)
                if shipped:
                    # the rules are exactly the shipped table (SymPy identity, checked above): its rates
                    # in closed form, birth N(lH + lL) or N lH, death k mu (2x faster than lambdified calls)
                    a, b = N * (lH + lL), N * lH
                    for k in range(n_start, N + 1):
                        if k > n_start:
                            w = w * (a if k <= m else b) / (k * mu)
                        Z += w
                        if k < m:
                            below += w
                        idle += (N - k) * w
                    dep = mu * (N * Z - idle)
                else:
                    for k in range(n_start, N + 1):
                        if k > n_start:
                            birth = fH(k - 1, *prm) + (fL(k - 1, *prm) if k - 1 < m else 0)
                            death = fD(k, *prm)
                            if not death > 0:
                                raise ValueError(f"the departure rate of the rules is {death} at n={k}: not a "
                                                 f"birth-death chain with a stationary law on 0..N")
                            w = w * birth / death
                        Z += w
                        if k < m:
                            below += w
                        idle += (N - k) * w
                        dep += fD(k, *prm) * w
                pN = w / Z
                pb = below / Z
                Eidle = idle / Z
                Edep = dep / Z
                aH, aL, cap = fH(N, *prm), fL(N, *prm), fD(N, *prm)
                reward = rH * aH * (1 - pN) + rL * aL * pb
                lost = aH * pN
                # fluid - reward by flow balance (admitted rate = mean departure rate), no cancellation
                regret = (rH - rL) * lost + rL * (cap - Edep)
                return [reward, regret, lost, Eidle, pN]

        vals = agree_at_two_precisions(compute, dps, what=f"trunk reservation K={K}")
        reward, regret, lost, Eidle, pN = vals
        with mpmath.workdps(dps + 10):
            direct = self._mp(self._fluid_exact()) - reward      # fluid - reward, from the agreed reward
        with mpmath.workdps(dps):
            resid = +(direct - regret)
        return TrunkReservationReward(K=K, reward=reward, regret=regret, lost_H_rate=lost, mean_idle=Eidle,
                                      p_full=pN, identity_residual=resid, dps=dps)

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
        """
        self._require_shipped("online_optimal")
        dps = check_dps(dps)
        key = dps
        if key in self.__dict__.setdefault("_online_cache", {}):
            return self.__dict__.setdefault("_online_cache", {})[key]
        lH, lL, mu, rH, rL = self._floats()
        N = self.N
        R = self._threshold_rewards()
        K = int(np.argmax(R))
        tol = 1e-9 * rH
        iterations = 0
        while True:
            iterations += 1
            g = float(R[K])
            d = self._bias_differences(K, g)
            m = N - K
            accL = rL + d >= 0
            accH = rH + d >= 0
            # decide near-ties at high precision
            near = np.nonzero((np.abs(rL + d) < tol) | (np.abs(rH + d) < tol))[0]
            if near.size:
                gm = self.trunk_reservation(K, dps=dps).reward
                for n in near:
                    dm = self._bias_difference_mp(K, int(n), gm, dps)
                    accL[n] = bool(self._mp(self.r_L) + dm >= 0)
                    accH[n] = bool(self._mp(self.r_H) + dm >= 0)
            cur = np.arange(N) < m
            if np.array_equal(accL, cur) and accH.all():
                break
            # policy improvement: the greedy policy must be a threshold with H always accepted
            if not accH.all():
                raise PrecisionError("policy improvement proposes rejecting H jobs; the threshold family "
                                     "is not closed here (not expected for r_H > r_L)")
            nz = np.nonzero(~accL)[0]
            m_new = int(nz[0]) if nz.size else N
            if accL[m_new:].any():
                raise PrecisionError("the greedy policy is not a trunk reservation")
            if iterations > 50:
                raise PrecisionError("policy iteration did not settle in 50 steps")
            K = N - m_new
        marg_L = np.where(np.arange(N) < N - K, rL + d, -(rL + d))
        min_margin = float(min(marg_L.min(), (rH + d).min()))
        concave = bool(np.all(np.diff(d) <= 1e-12 * (1 + np.abs(d[1:]))))
        tr = self.trunk_reservation(K, dps=dps)
        fluid = self.fluid_reward()
        res = OnlineOptimum(threshold=K, reward=tr.reward, regret=tr.regret, fluid=fluid,
                            lost_H_rate=tr.lost_H_rate, mean_idle=tr.mean_idle, min_margin=min_margin,
                            bias_concave=concave, improvement_iterations=iterations, dps=dps,
                            method="exact rewards of all trunk reservations (birth-death chains), "
                                   "optimality verified by a policy-improvement step on the bias")
        self.__dict__.setdefault("_online_cache", {})[key] = res
        self.__dict__.setdefault("_bias_cache", {})[K] = (g, d)
        return res

    def online_bias(self):
        """The bias ``h(n)``, ``n = 0..N`` (``h(0) = 0``) of the optimal online policy (float64)."""
        self._require_shipped("online_bias")
        opt = self.online_optimal()
        if opt.threshold not in self.__dict__.setdefault("_bias_cache", {}):
            g = float(opt.reward)
            self.__dict__.setdefault("_bias_cache", {})[opt.threshold] = (g, self._bias_differences(opt.threshold, g))
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
        """
        self._require_shipped("sample_path")
        horizon = real_float(horizon, "horizon", lower=0, lower_open=True)
        max_events = real_float(max_events, "max_events", lower=0, lower_open=True)
        max_bytes = check_max_bytes(max_bytes)
        lH, lL, mu, _, _ = self._floats()
        N = self.N
        rate = N * (lH + lL + mu)
        mean = rate * horizon
        check_budget(mean, max_events, "max_events", what=f"sample_path: N={N}, horizon={horizon:g}",
                     unit="events", hint="lower the horizon or raise max_events")
        check_budget(40.0 * (mean + 6 * math.sqrt(mean) + 1), max_bytes, "max_bytes",
                     what=f"sample_path: {mean:.3g} events", unit="bytes", hint="lower the horizon")
        rng = seed if isinstance(seed, np.random.Generator) else \
            np.random.default_rng(seed_sequence(seed, "seed", allow_generator=True))
        M = int(rng.poisson(mean))
        sp = rng.standard_exponential(M + 1)
        times = np.cumsum(sp)
        times = times[:M] * (horizon / times[M]) if M else np.empty(0)
        u = rng.random(M)
        pH, pL = lH / (lH + lL + mu), lL / (lH + lL + mu)
        kinds = np.full(M, D, dtype=np.int8)
        kinds[u < pH + pL] = L
        kinds[u < pH] = H
        marks = rng.random(M)
        return SamplePath(N=N, lam_H=lH, lam_L=lL, mu=mu, horizon=horizon,
                          seed=seed if not isinstance(seed, np.random.Generator) else "generator",
                          times=times, kinds=kinds, marks=marks)

    def _check_path(self, path) -> SamplePath:
        if not isinstance(path, SamplePath):
            raise TypeError(f"path must be a SamplePath from sample_path(), got {type(path).__name__}")
        lH, lL, mu, _, _ = self._floats()
        if path.N != self.N or not np.allclose([path.lam_H, path.lam_L, path.mu], [lH, lL, mu]):
            raise ValueError(f"path was drawn for N={path.N}, rates ({path.lam_H}, {path.lam_L}, {path.mu}); "
                             f"this network has N={self.N}, rates ({lH}, {lL}, {mu})")
        return path

    def _n0(self, n0):
        if n0 is None:
            return self.N - self.online_optimal().threshold
        return check_int(n0, "n0", min_value=0, max_value=self.N)

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
        """
        self._require_shipped("offline_optimal")
        path = self._check_path(path)
        n0 = self._n0(n0)
        _, _, _, rH, rL = self._floats()
        choice(method, "method", ("shift", "plain"))
        max_work = real_float(max_work, "max_work", lower=0, lower_open=True)
        check_budget(float(self.N + 1) * path.n_events, max_work, "max_work",
                     what=f"offline_optimal: N={self.N} x {path.n_events} events", unit="state updates",
                     hint="a shorter path, or raise max_work")
        kern = _kernels()["offline_dp" if method == "shift" else "offline_dp_plain"]
        V = float(kern(path.kinds, path.marks, self.N, rH, rL, n0))
        X = path.control_variate(rH, rL)
        T = path.horizon
        return OfflineResult(total_reward=V, reward_rate=V / T, cost_rate=(X - V) / T, horizon=T, n0=n0,
                             n_events=path.n_events,
                             method="backward dynamic program over the uniformised events, state n in 0..N "
                                    f"(numba, {method})")

    def evaluate(self, policy, path: SamplePath, n0: int | None = None, *,
                 max_work=DEFAULT_MAX_WORK) -> PolicyResult:
        """Run a policy (:class:`SSS`, :class:`PFI`, :class:`WindowDP`, :class:`TrunkReservation`,
        or ``"online"`` for the optimal online trunk reservation) on a uniformised path.

        Budget: the lookahead work (events scanned by SSS and PFI, cells of the window DP) may not
        exceed ``max_work`` (default ``2e10``): the expected work of SSS and WindowDP is checked
        before the run, and the kernel counts the actual work (PFI's first-passage scans have no
        a-priori bound) and stops with a :class:`~symloss.core.validation.BudgetError` past it."""
        self._require_shipped("evaluate")
        path = self._check_path(path)
        max_work = real_float(max_work, "max_work", lower=0, lower_open=True)
        n0 = self._n0(n0)
        _, _, _, rH, rL = self._floats()
        N = self.N
        dummy_h = np.zeros(1)
        if isinstance(policy, str):
            if policy != "online":
                raise ValueError(f"policy must be a policy object or 'online', got {policy!r}")
            policy = TrunkReservation(self.online_optimal().threshold)
        if isinstance(policy, TrunkReservation):
            if policy.K > N:
                raise ValueError(f"K must be in [0, {N}], got {policy.K}")
            args = (0, policy.K, 0.0, 0, dummy_h)
        elif isinstance(policy, SSS):
            args = (1, 0, policy.W, 0, dummy_h)
        elif isinstance(policy, PFI):
            level = policy.level if policy.level is not None else max(1, math.isqrt(N))
            if level > N:
                raise ValueError(f"PFI level must be in [1, N={N}] (the idle count never exceeds N), got {level}")
            args = (2, 0, 0.0, level, dummy_h)
        elif isinstance(policy, WindowDP):
            h = self.online_bias() if policy.terminal == "online" else np.zeros(N + 1)
            args = (3, 0, policy.W, 0, h)
        else:
            raise TypeError(f"policy must be SSS, PFI, WindowDP, TrunkReservation or 'online', "
                            f"got {type(policy).__name__}")
        mode, K, W, level, h = args
        if mode in (1, 3):
            nL = path.counts["L"]
            w = min(float(path.n_events), path.n_events / path.horizon * W + 1.0) if path.horizon > 0 else 0.0
            est = nL * (w if mode == 1 else w * min(N + 1.0, w + 1.0))
            check_budget(est, max_work, "max_work", what=f"evaluate({policy.name}): {nL} L arrivals x a window of "
                         f"~{w:.3g} events", unit="steps", hint="a shorter window or path, or raise max_work")
        accH, accL, lostH, rejL, wasted, n_end = _kernels()["simulate"](
            path.times, path.kinds, path.marks, N, n0, mode, K, W, level, h, rH, rL, float(max_work))
        if n_end < 0:
            raise BudgetError(f"evaluate({policy.name}): the lookahead work passed max_work={max_work:.3g} steps "
                              f"on this path of {path.n_events} events; a shorter path or lookahead, or raise "
                              f"max_work")
        V = rH * accH + rL * accL
        X = path.control_variate(rH, rL)
        T = path.horizon
        return PolicyResult(policy=policy.name, accepted_H=int(accH), accepted_L=int(accL), lost_H=int(lostH),
                            rejected_L=int(rejL), wasted=int(wasted), total_reward=float(V),
                            reward_rate=float(V) / T, cost_rate=(X - V) / T, horizon=T, n0=n0, n_end=int(n_end))

    # -------------------------------------------------------------------------------- job-duration contrast
    def sample_jobs(self, horizon, seed=None) -> JobSample:
        """Jobs of the job-duration variant on ``[0, horizon]``: Poisson arrivals of both classes,
        each with its own exponential(mu) service duration."""
        self._require_shipped("sample_jobs")
        horizon = real_float(horizon, "horizon", lower=0, lower_open=True)
        lH, lL, mu, _, _ = self._floats()
        N = self.N
        mean = N * (lH + lL) * horizon
        if mean > 200_000:
            raise BudgetError(f"sample_jobs: horizon={horizon:g} gives about {mean:.3g} jobs; the interval LP is "
                              f"limited to 2e5 jobs")
        rng = seed if isinstance(seed, np.random.Generator) else \
            np.random.default_rng(seed_sequence(seed, "seed", allow_generator=True))
        M = int(rng.poisson(mean))
        if M > 200_000:
            raise BudgetError(f"sample_jobs: horizon={horizon:g} gave {M} jobs; the interval LP is limited to 2e5 "
                              f"jobs")
        arr = np.sort(rng.random(M)) * horizon
        cls = (rng.random(M) >= lH / (lH + lL)).astype(np.int8)
        dur = rng.standard_exponential(M) / mu
        return JobSample(N=N, horizon=horizon, seed=seed if not isinstance(seed, np.random.Generator) else
                         "generator", arrivals=arr, durations=dur, classes=cls)

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
        """
        self._require_shipped("offline_interval_lp")
        if not isinstance(jobs, JobSample):
            raise TypeError(f"jobs must be a JobSample from sample_jobs(), got {type(jobs).__name__}")
        if jobs.N != self.N:
            raise ValueError(f"jobs were drawn for N={jobs.N}, this network has N={self.N}")
        from scipy.optimize import linprog
        from scipy.sparse import csc_matrix
        _, _, _, rH, rL = self._floats()
        a, d, c = jobs.arrivals, jobs.durations, jobs.classes
        M = a.size
        if M == 0:
            return IntervalLPResult(0.0, 0.0, float(self.fluid_reward()), -float(self.fluid_reward()) / self.N,
                                    0, 0, 0, 0.0, 0.0, "empty")
        ends = np.searchsorted(a, a + d, side="left")  # job j is active at epochs j .. ends[j]-1
        lens = ends - np.arange(M)
        nnz = int(lens.sum())
        check_budget(nnz, MAX_LP_NONZEROS, "MAX_LP_NONZEROS",
                     what=f"offline_interval_lp: {M} jobs, each active at ~{nnz / M:.3g} arrival epochs",
                     unit="constraint nonzeros", hint="a shorter horizon (or a smaller N, fewer overlaps)")
        rows = np.concatenate([np.arange(j, ends[j]) for j in range(M)])
        cols = np.repeat(np.arange(M), lens)
        A = csc_matrix((np.ones(rows.size), (rows, cols)), shape=(M, M))
        w = np.where(c == 0, rH, rL)
        res = linprog(-w, A_ub=A, b_ub=np.full(M, float(self.N)), bounds=(0, 1), method="highs")
        if res.status != 0:
            raise RuntimeError(f"HiGHS failed: {res.message}")
        x = res.x
        frac = float(np.max(np.minimum(np.abs(x), np.abs(1 - x))))
        xi = np.round(x)
        val = float(w @ xi)
        # greedy feasible schedule (FCFS loss system, accept everything that fits)
        import heapq
        busy: list = []
        g = 0.0
        for j in range(M):
            while busy and busy[0] <= a[j]:
                heapq.heappop(busy)
            if len(busy) < self.N:
                heapq.heappush(busy, a[j] + d[j])
                g += w[j]
        T = jobs.horizon
        fluid = float(self.fluid_reward())
        return IntervalLPResult(value=val, reward_rate=val / T, fluid=fluid,
                                gain_per_server=(val / T - fluid) / self.N, n_jobs=int(M),
                                accepted_H=int(xi[c == 0].sum()), accepted_L=int(xi[c == 1].sum()),
                                max_fractionality=frac, greedy_value=g, status=res.message)

    # -------------------------------------------------------------------------------- the study
    def window(self, c) -> float:
        r""":math:`W = c \ln N / N`."""
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
        """
        self._require_shipped("decomposition")
        import time
        t0 = time.perf_counter()
        horizon = real_float(horizon, "horizon", lower=0, lower_open=True)
        replications = check_int(replications, "replications", min_value=2)
        if isinstance(c, (str, bytes)) or not hasattr(c, "__iter__"):
            raise TypeError(f"c must be a sequence of window constants (c in W = c ln N / N), got "
                            f"{type(c).__name__} {c!r}")
        cs = [real_float(x, f"c[{i}]", lower=0) for i, x in enumerate(c)]
        if not cs:
            raise ValueError("c must contain at least one window constant")
        max_work = real_float(max_work, "max_work", lower=0, lower_open=True)
        lH, lL, mu, _, _ = self._floats()
        events = self.N * (lH + lL + mu) * horizon
        nL = self.N * lL * horizon
        work = events * (self.N + 1) + events * 3
        for x in cs:
            w = min(events, (lH + lL + mu) * self.N * self.window(x) + 1.0)
            work += nL * (w * min(self.N + 1.0, w + 1.0) * 2 + w)
        check_budget(work * replications, max_work, "max_work",
                     what=f"decomposition: {replications} paths of ~{events:.3g} events, N={self.N}",
                     unit="steps", hint="a shorter horizon, fewer replications or window constants, or raise "
                                        "max_work")
        opt = self.online_optimal()
        n0 = self._n0(n0)
        seqs = spawn(seed_sequence(seed), replications)
        vol, on, pfi = [], [], []
        names = ("WindowDP(online)", "WindowDP(zero)", "SSS")
        costs = {x: {nm: [] for nm in names} for x in cs}
        for i, ss in enumerate(seqs):
            path = self.sample_path(horizon, ss)
            off = self.offline_optimal(path, n0)
            onr = self.evaluate(TrunkReservation(opt.threshold), path, n0)
            vol.append(off.cost_rate)
            on.append(onr.cost_rate)
            pfi.append(self.evaluate(PFI(), path, n0).cost_rate)
            for x in cs:
                W = self.window(x)
                for nm, pol in zip(names, (WindowDP(W), WindowDP(W, terminal="zero"), SSS(W))):
                    costs[x][nm].append(self.evaluate(pol, path, n0).cost_rate)
            if progress:
                progress(i + 1, replications)
        E = Estimate.from_samples
        vol_a, on_a = np.array(vol), np.array(on)
        best, lng, sht, look = {}, {}, {}, {}
        for x in cs:
            look[x] = {nm: E(v) for nm, v in costs[x].items()}
            best[x] = min(names, key=lambda nm: look[x][nm].value)
            b = np.array(costs[x][best[x]])
            lng[x] = E(b - vol_a)      # (V_off - V_W) / T
            sht[x] = E(on_a - b)       # (V_W - V_on) / T
        return Decomposition(N=self.N, params=self.params, horizon=horizon, replications=replications,
                             fluid=self.fluid_reward(), online_regret=float(opt.regret), threshold=opt.threshold,
                             C_vol=E(vol), C_long=lng, C_short=sht, sss={x: look[x]["SSS"] for x in cs},
                             pfi=E(pfi), online_sim=E(on), windows={x: self.window(x) for x in cs},
                             seconds=time.perf_counter() - t0,
                             window_cost={x: look[x][best[x]] for x in cs}, lookahead=look, best=best)

    @classmethod
    def decomposition_study(cls, Ns, lam_H, lam_L, r_H, r_L, mu=1, horizon=30.0, replications=10,
                            c=(1, 2, 4, 8), seed=0, progress=None) -> DecompositionStudy:
        r"""Run :meth:`decomposition` for each ``N`` in ``Ns`` (seeds ``[seed, index]``) and fit
        :math:`C_{vol}`, :math:`C_{long}(c)`, :math:`C_{short}(c)`, the SSS and PFI costs and the
        simulated online regret against :math:`\ln N` (:func:`fit_log_n`)."""
        return run_study(cls, Ns, lam_H, lam_L, r_H, r_L, mu, horizon, replications, c, seed, progress)

    fit_log_n = staticmethod(fit_log_n)
