r"""The online MDP of the admission network: every trunk reservation evaluated exactly from its
birth-death chain, the optimal one verified by a policy-improvement step on its bias (the solvers
behind :meth:`~symloss.admission.network.OverloadedLossNetwork.trunk_reservation`,
``online_optimal`` and ``online_bias``; the class validates its arguments, keeps the instance caches
and delegates here).

:func:`trunk_reservation` is generated from the network's rules; :func:`online_optimal` and the
float64 log-space helpers are written for the shipped rules (the class refuses an edited table).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from ..core.precision import PrecisionError, agree_at_two_precisions, working
from . import definition as _definition
from .fluid import fluid_exact
from .results import OnlineOptimum, TrunkReservationReward
from .values import mpf_of

__all__ = ["trunk_reservation", "online_optimal", "bias_differences", "bias_difference_mp"]


def log_weights(net):
    """LA(n) = n ln a - ln n!, LB(n) = n ln b - ln n!  (a = N(lH+lL)/mu, b = N lH/mu), and ln a - ln b."""
    from scipy.special import gammaln
    lH, lL, mu, _, _ = net._floats()
    N = net.N
    n = np.arange(N + 1, dtype=float)
    lg = gammaln(n + 1)
    la, lb = math.log(N * (lH + lL) / mu), math.log(N * lH / mu)
    return n * la - lg, n * lb - lg, la - lb


def threshold_rewards(net):
    """Reward rate of every trunk reservation K = 0..N (float64, log space), indexed by K."""
    lH, lL, mu, rH, rL = net._floats()
    N = net.N
    LA, LB, dab = log_weights(net)
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


def bias_differences(net, K: int, g: float):
    r"""Delta h(n) = h(n+1) - h(n), n = 0..N-1, of trunk reservation K with gain g (float64).

    From detailed balance, :math:`\pi_n\beta_n\Delta(n) = \sum_{k\le n}\pi_k(g-r(k))
    = -\sum_{k>n}\pi_k(g-r(k))`; the first form is used where every term has one sign
    (``n < N-K``), the second above.

    Parameters
    ----------
    net : OverloadedLossNetwork
        The network (its parameters, as checked by the class).
    K : int
        The reserve, ``0 <= K <= N``.
    g : float
        The gain (reward rate) of the policy.

    Returns
    -------
    numpy.ndarray
        ``N`` bias differences.
    """
    lH, lL, mu, rH, rL = net._floats()
    N = net.N
    LA, LB, _ = log_weights(net)
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


def bias_difference_mp(net, K: int, n: int, g, dps: int):
    """Delta h(n) at high precision (used to decide a near-tie of the improvement test).

    Parameters
    ----------
    net : OverloadedLossNetwork
        The network (its parameters, as checked by the class).
    K : int
        The reserve.
    n : int
        The state, ``0 <= n < N``.
    g : mpmath.mpf
        The gain of the policy.
    dps : int
        Working digits.

    Returns
    -------
    mpmath.mpf
    """
    with working(dps):
        lH, lL, mu, rH, rL = (mpf_of(x) for x in (net.lam_H, net.lam_L, net.mu, net.r_H, net.r_L))
        N = net.N
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


def head_cut(net, m: int, wdps: int) -> int:
    """First index kept in the high-precision sums of :func:`trunk_reservation`."""
    if m <= 1:
        return 0
    LA, _, _ = log_weights(net)
    cut = LA[m] - (wdps + 10) * math.log(10) - 2 * math.log(net.N + 1) - 1.0
    idx = np.nonzero(LA[:m + 1] >= cut)[0]
    return max(0, int(idx[0]) - 1) if idx.size else 0


def trunk_reservation(net, K: int, dps: int) -> TrunkReservationReward:
    """The exact stationary reward rate of trunk reservation ``K`` (see
    ``OverloadedLossNetwork.trunk_reservation``), from the birth-death chain of the network's rules.

    Parameters
    ----------
    net : OverloadedLossNetwork
        The network (its parameters, as checked by the class).
    K : int
        The reserve, checked ``0 <= K <= N``.
    dps : int
        Checked significant digits.

    Returns
    -------
    TrunkReservationReward
    """
    N, m = net.N, net.N - K

    shipped = net._rules_shipped()
    fH, fL, fD = _definition.rates(tuple(type(net).rules))

    def compute(wdps):
        with mpmath.workdps(wdps):
            lH, lL, mu, rH, rL = (mpf_of(x) for x in (net.lam_H, net.lam_L, net.mu, net.r_H, net.r_L))
            prm = (N, lH, lL, mu)
            # birth-death chain generated from the rules: birth(n) = offered H (n < N) + offered L
            # (n < N - K), death(n) = departure rate; w_n = w_{n-1} birth(n-1) / death(n).
            # For the shipped rules w_n = a^n/n! increases on n <= m (a > N >= n), so the head
            # n < n_start can be dropped once w_n/w_m < 10^-(wdps+10)/(N+1)^2: its share of every
            # sum below (weights up to N) is then < 10^-(wdps+10). An edited definition sums it all.
            n_start = head_cut(net, m, wdps) if shipped else 0
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
        direct = mpf_of(fluid_exact(net)) - reward      # fluid - reward, from the agreed reward
    with mpmath.workdps(dps):
        resid = +(direct - regret)
    return TrunkReservationReward(K=K, reward=reward, regret=regret, lost_H_rate=lost, mean_idle=Eidle,
                                  p_full=pN, identity_residual=resid, dps=dps)


def online_optimal(net, dps: int):
    """The optimal online trunk reservation and its bias (see ``OverloadedLossNetwork.online_optimal``).

    Parameters
    ----------
    net : OverloadedLossNetwork
        The network (its parameters, as checked by the class).
    dps : int
        Checked significant digits.

    Returns
    -------
    (OnlineOptimum, (float, numpy.ndarray))
        The result, and the gain and bias differences of its threshold (for the instance cache).
    """
    lH, lL, mu, rH, rL = net._floats()
    N = net.N
    R = threshold_rewards(net)
    K = int(np.argmax(R))
    tol = 1e-9 * rH
    iterations = 0
    while True:
        iterations += 1
        g = float(R[K])
        d = bias_differences(net, K, g)
        m = N - K
        accL = rL + d >= 0
        accH = rH + d >= 0
        # decide near-ties at high precision
        near = np.nonzero((np.abs(rL + d) < tol) | (np.abs(rH + d) < tol))[0]
        if near.size:
            gm = net.trunk_reservation(K, dps=dps).reward
            for n in near:
                dm = bias_difference_mp(net, K, int(n), gm, dps)
                accL[n] = bool(mpf_of(net.r_L) + dm >= 0)
                accH[n] = bool(mpf_of(net.r_H) + dm >= 0)
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
    tr = net.trunk_reservation(K, dps=dps)
    fluid = net.fluid_reward()
    res = OnlineOptimum(threshold=K, reward=tr.reward, regret=tr.regret, fluid=fluid,
                        lost_H_rate=tr.lost_H_rate, mean_idle=tr.mean_idle, min_margin=min_margin,
                        bias_concave=concave, improvement_iterations=iterations, dps=dps,
                        method="exact rewards of all trunk reservations (birth-death chains), "
                               "optimality verified by a policy-improvement step on the bias")
    return res, (g, d)
