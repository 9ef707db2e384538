"""Result types of the admission-control model (Bray 2026).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from ..core.precision import mpf_to_str
from ..core.results import ResultMixin
from ..core.stats import t_half_width
from ..core.validation import real_array

__all__ = ["Estimate", "TrunkReservationReward", "OnlineOptimum", "SamplePath", "JobSample", "OfflineResult",
           "PolicyResult", "IntervalLPResult", "Decomposition"]

# ------------------------------------------------------------------------------------------------
# small result types
# ------------------------------------------------------------------------------------------------

def _plain(x):
    if isinstance(x, Fraction):
        return f"{x.numerator}/{x.denominator}" if x.denominator != 1 else str(x.numerator)
    if isinstance(x, mpmath.mpf):
        return mpf_to_str(x)      # every carried digit, not the ambient mp.dps
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


class _FieldsDict:
    """``to_dict()`` of a result dataclass whose fields are plain data already: :func:`dataclasses.asdict`."""

    __slots__ = ()

    def to_dict(self) -> dict:
        return asdict(self)


class _PlainFieldsDict:
    """``to_dict()`` of a result dataclass: every field through :func:`_plain` (exact and mpmath values
    as text with every carried digit, numpy values as Python data)."""

    __slots__ = ()

    def to_dict(self) -> dict:
        return {k: _plain(v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class Estimate(ResultMixin):
    """A Monte Carlo mean with a two-sided 95 % Student-t confidence half-width.

    Parameters
    ----------
    value : float
        Mean of the ``n`` samples.
    half_width : float
        Half-width of the 95 % interval ``value +- half_width`` (``inf`` from one sample).
    n : int
        Number of samples, ``>= 1``.
    """
    value: float
    half_width: float
    n: int

    @classmethod
    def from_samples(cls, xs) -> "Estimate":
        """Mean and 95 % Student-t half-width of finite samples; one sample gives
        ``half_width = inf`` (no interval can be formed; never NaN).

        Parameters
        ----------
        xs : array_like of real
            The samples (finite).

        Returns
        -------
        Estimate
            The mean, the half-width and the number of samples.

        Raises
        ------
        TypeError
            If a sample is not a real number.
        ValueError
            If there is no sample, or a sample is not finite.
        """
        xs = real_array(xs, "samples").ravel()
        n = xs.size
        if n == 0:
            raise ValueError("no samples")
        m = float(xs.mean())
        if n == 1:
            return cls(m, math.inf, 1)
        hw = t_half_width(xs)
        return cls(m, hw, n)

    @property
    def interval(self) -> tuple[float, float]:
        return (self.value - self.half_width, self.value + self.half_width)

    def to_dict(self) -> dict:
        return {"value": self.value, "half_width": self.half_width, "n": self.n,
                "low": self.interval[0], "high": self.interval[1]}

    def __str__(self) -> str:
        return f"{self.value:.4f} ± {self.half_width:.4f}"


@dataclass(frozen=True)
class TrunkReservationReward(_PlainFieldsDict, ResultMixin):
    r"""Exact stationary performance of the trunk-reservation policy with reserve ``K``
    (accept H whenever a server is idle, accept L only while more than ``K`` servers are idle).

    ``reward`` is the reward rate, ``regret`` = fluid - reward computed through the identity
    :math:`(r_H-r_L)\,\text{lost}_H + r_L\mu\,E[\text{idle}]`; ``identity_residual`` is its difference
    from ``fluid - reward`` computed directly (both at ``dps`` digits, so it is ~ 10^-dps N).

    Parameters
    ----------
    K : int
        The reserve: L jobs are accepted only while more than ``K`` servers are idle.
    reward, regret : mpmath.mpf
        The reward rate and ``fluid - reward`` (through the identity above).
    lost_H_rate : mpmath.mpf
        Rate of H jobs lost (arriving when every server is busy).
    mean_idle : mpmath.mpf
        Mean number of idle servers.
    p_full : mpmath.mpf
        Stationary probability that every server is busy.
    identity_residual : mpmath.mpf
        ``(fluid - reward) - regret``, the check of the identity.
    dps : int
        Decimal digits the values are correct to (agreed at two working precisions).
    method : str, optional
        How the values were computed.
    """
    K: int
    reward: mpmath.mpf
    regret: mpmath.mpf
    lost_H_rate: mpmath.mpf
    mean_idle: mpmath.mpf
    p_full: mpmath.mpf
    identity_residual: mpmath.mpf
    dps: int
    method: str = "birth-death chain, stationary law summed at dps + guard digits, checked at two precisions"


@dataclass(frozen=True)
class OnlineOptimum(_PlainFieldsDict, ResultMixin):
    r"""The optimal online policy: trunk reservation with reserve ``threshold`` = :math:`K^*`.

    ``min_margin`` is the smallest slack of the optimality (policy-improvement) inequalities
    :math:`r_c + \Delta h(n) \gtrless 0` over all states and both classes (>= 0 certifies that no
    improvement exists; see :meth:`OverloadedLossNetwork.online_optimal`). ``bias_concave`` says
    whether :math:`\Delta h(n)` is non-increasing (then every greedy policy is a threshold).

    Parameters
    ----------
    threshold : int
        The optimal reserve :math:`K^*`.
    reward, regret : mpmath.mpf
        The optimal reward rate and ``fluid - reward``.
    fluid : fractions.Fraction or float
        The fluid reward rate, an upper bound (exact for exact parameters).
    lost_H_rate, mean_idle : mpmath.mpf
        As in :class:`TrunkReservationReward`, at the optimal reserve.
    min_margin : float
        The smallest slack of the optimality inequalities (``>= 0`` certifies the optimum).
    bias_concave : bool
        Whether :math:`\Delta h(n)` is non-increasing.
    improvement_iterations : int
        Policy-improvement steps until the threshold settled.
    dps : int
        Decimal digits of the exact rewards.
    method : str
        How the optimum was found and verified.
    """
    threshold: int
    reward: mpmath.mpf
    regret: mpmath.mpf
    fluid: Fraction | float
    lost_H_rate: mpmath.mpf
    mean_idle: mpmath.mpf
    min_margin: float
    bias_concave: bool
    improvement_iterations: int
    dps: int
    method: str


@dataclass(frozen=True)
class SamplePath(ResultMixin):
    r"""A uniformised event sequence on :math:`[0, \text{horizon}]`.

    ``kinds[i]`` is 0 (H arrival), 1 (L arrival) or 2 (potential departure); ``marks[i]`` is the
    uniform mark ``U`` of event ``i`` (a potential departure happens iff ``U N < n``; marks of
    arrivals are drawn too, and unused, so that a path is a function of the seed only).

    Parameters
    ----------
    N : int
        Number of servers.
    lam_H, lam_L, mu : float
        Arrival rates of the two classes and the service rate per server.
    horizon : float
        Length of the path.
    seed : object
        The seed the path was drawn from (as a label).
    times : numpy.ndarray
        Event times, increasing, in :math:`[0, \text{horizon}]`.
    kinds : numpy.ndarray
        Event kinds (0, 1 or 2, above), ``int8``.
    marks : numpy.ndarray
        The uniform mark of each event.
    """
    N: int
    lam_H: float
    lam_L: float
    mu: float
    horizon: float
    seed: Any
    times: np.ndarray = field(repr=False)
    kinds: np.ndarray = field(repr=False)
    marks: np.ndarray = field(repr=False)

    @property
    def n_events(self) -> int:
        return int(self.kinds.size)

    @property
    def counts(self) -> dict:
        c = np.bincount(self.kinds, minlength=3)
        return {"H": int(c[0]), "L": int(c[1]), "D": int(c[2])}

    def control_variate(self, r_H, r_L) -> float:
        r"""Pathwise fluid reward :math:`X = r_H A_H + r_L (D_{pot} - A_H)`, with
        :math:`E[X] = T\,R_{fluid}` exactly (:math:`A_H` H arrivals, :math:`D_{pot}` potential
        departures). For any policy, :math:`X - V = (r_H-r_L)\text{lost}_H + r_L\,\text{wasted}
        - r_L (n_T - n_0)` (wasted = potential departures that found the marked server idle).

        Parameters
        ----------
        r_H, r_L : real
            The rewards of the two classes.

        Returns
        -------
        float
        """
        c = self.counts
        return float(r_H) * c["H"] + float(r_L) * (c["D"] - c["H"])

    def to_dict(self) -> dict:
        return {"N": self.N, "lam_H": self.lam_H, "lam_L": self.lam_L, "mu": self.mu,
                "horizon": self.horizon, "seed": _plain(self.seed), "n_events": self.n_events,
                "counts": self.counts}


@dataclass(frozen=True)
class JobSample(ResultMixin):
    """Jobs of the job-duration variant: arrival times (sorted), own service durations, classes.

    Parameters
    ----------
    N : int
        Number of servers.
    horizon : float
        Length of the sampled interval.
    seed : object
        The seed the jobs were drawn from (as a label).
    arrivals : numpy.ndarray
        Arrival times, sorted.
    durations : numpy.ndarray
        Service duration of each job.
    classes : numpy.ndarray
        Class of each job: 0 = H, 1 = L.
    """
    N: int
    horizon: float
    seed: Any
    arrivals: np.ndarray = field(repr=False)
    durations: np.ndarray = field(repr=False)
    classes: np.ndarray = field(repr=False)   # 0 = H, 1 = L

    @property
    def n_jobs(self) -> int:
        return int(self.arrivals.size)

    def to_dict(self) -> dict:
        return {"N": self.N, "horizon": self.horizon, "seed": _plain(self.seed), "n_jobs": self.n_jobs}


@dataclass(frozen=True)
class OfflineResult(_FieldsDict, ResultMixin):
    r"""Exact offline optimum on one uniformised path: ``total_reward`` = :math:`V_0(n_0)`,
    ``reward_rate`` = total / horizon, ``cost_rate`` = (X - V)/T with X the path's fluid control
    variate (an unbiased estimate of :math:`C_{vol}` at this horizon).

    Parameters
    ----------
    total_reward : float
        :math:`V_0(n_0)`, the largest reward any admission decisions collect on the path.
    reward_rate, cost_rate : float
        ``total_reward / horizon`` and ``(X - V) / T``.
    horizon : float
        Length ``T`` of the path.
    n0 : int
        Busy servers at time 0.
    n_events : int
        Events of the path.
    method : str, optional
        The algorithm.
    """
    total_reward: float
    reward_rate: float
    cost_rate: float
    horizon: float
    n0: int
    n_events: int
    method: str = "backward dynamic program over the uniformised events, state n in 0..N (numba)"


@dataclass(frozen=True)
class PolicyResult(_FieldsDict, ResultMixin):
    """A policy run on a uniformised path: counts, reward and pathwise cost against the fluid.

    Parameters
    ----------
    policy : str
        The policy's name.
    accepted_H, accepted_L : int
        Jobs of each class accepted.
    lost_H : int
        H jobs lost (every server busy).
    rejected_L : int
        L jobs the policy turned away.
    wasted : int
        Potential departures that found the marked server idle.
    total_reward, reward_rate : float
        The reward collected, and per unit of time.
    cost_rate : float
        ``(X - V) / T``, the pathwise cost against the fluid.
    horizon : float
        Length ``T`` of the path.
    n0, n_end : int
        Busy servers at the start and at the end of the path.
    """
    policy: str
    accepted_H: int
    accepted_L: int
    lost_H: int
    rejected_L: int
    wasted: int
    total_reward: float
    reward_rate: float
    cost_rate: float
    horizon: float
    n0: int
    n_end: int


@dataclass(frozen=True)
class IntervalLPResult(_FieldsDict, ResultMixin):
    """Job-duration offline optimum (max-weight interval scheduling with at most N jobs in service).

    Parameters
    ----------
    value, reward_rate : float
        Reward of the optimal schedule (the LP solution rounded), and per unit of time.
    fluid : float
        The fluid reward rate.
    gain_per_server : float
        ``(reward_rate - fluid) / N``.
    n_jobs : int
        Jobs of the sample.
    accepted_H, accepted_L : int
        Jobs of each class the schedule serves.
    max_fractionality : float
        Largest distance of an LP variable to 0 or 1 (0 for an integral vertex, as total
        unimodularity gives).
    greedy_value : float
        Reward of the greedy schedule (accept every job that fits), a lower bound.
    status : str
        HiGHS's message (``"empty"`` for no jobs).
    method : str, optional
        The formulation and solver.
    """
    value: float
    reward_rate: float
    fluid: float
    gain_per_server: float
    n_jobs: int
    accepted_H: int
    accepted_L: int
    max_fractionality: float
    greedy_value: float
    status: str
    method: str = "LP over jobs, one capacity row per arrival epoch (interval matrix, TU), scipy HiGHS"


@dataclass
class Decomposition(ResultMixin):
    r"""Estimated decomposition :math:`R_{fluid}-R_{on} = C_{vol}+C_{long}+C_{short}` at one ``N``.

    ``C_long[c]`` and ``C_short[c]`` use the best lookahead policy ``best[c]`` at
    :math:`W = c\ln N/N`; ``lookahead[c]`` holds the cost rates (fluid minus reward) of all the
    lookahead policies tried, ``sss[c]`` that of SSS(W), ``pfi`` that of PFI, ``online_sim`` that
    of the online-optimal trunk reservation simulated on the same paths (to compare with the exact
    ``online_regret``).

    Parameters
    ----------
    N : int
        Number of servers.
    params : dict
        The network's parameters.
    horizon : float
        Length of each path.
    replications : int
        Paths simulated.
    fluid : fractions.Fraction or float
        The fluid reward rate :math:`R_{fluid}`.
    online_regret : float
        :math:`R_{fluid} - R_{on}`, exact.
    threshold : int
        The optimal online reserve :math:`K^*`.
    C_vol : Estimate
        The volatility cost.
    C_long, C_short : dict
        Window constant ``c`` -> :class:`Estimate`.
    sss : dict
        ``c`` -> cost rate :class:`Estimate` of SSS(W).
    pfi, online_sim : Estimate
        Cost rates of PFI and of the simulated online optimum.
    windows : dict
        ``c`` -> the window :math:`W = c\ln N/N`.
    seconds : float
        Wall time of the study.
    window_cost, lookahead, best : dict, optional
        ``c`` -> cost :class:`Estimate` of the best lookahead policy, ``c`` -> {policy name:
        :class:`Estimate`} of every one tried, and ``c`` -> the best one's name.
    """
    N: int
    params: dict
    horizon: float
    replications: int
    fluid: Fraction | float
    online_regret: float
    threshold: int
    C_vol: Estimate
    C_long: dict[float, Estimate]
    C_short: dict[float, Estimate]
    sss: dict[float, Estimate]
    pfi: Estimate
    online_sim: Estimate
    windows: dict[float, float]
    seconds: float
    window_cost: dict[float, Estimate] = field(default_factory=dict)
    lookahead: dict[float, dict[str, Estimate]] = field(default_factory=dict)
    best: dict[float, str] = field(default_factory=dict)

    def benchmarks(self) -> dict:
        r"""The four reward rates: ``R_fluid`` (exact), ``R_on`` (exact MDP), and the estimates
        ``R_off = R_fluid - C_vol`` and ``R_W[c] = R_fluid - (X - V_W)/T`` (with intervals)."""
        fl = float(self.fluid)
        return {"R_fluid": self.fluid, "R_on": fl - self.online_regret,
                "R_on_sim": Estimate(fl - self.online_sim.value, self.online_sim.half_width, self.online_sim.n),
                "R_off": Estimate(fl - self.C_vol.value, self.C_vol.half_width, self.C_vol.n),
                "R_W": {c: Estimate(fl - e.value, e.half_width, e.n) for c, e in self.window_cost.items()}}

    def rows(self) -> list[dict]:
        """One flat row per window constant ``c`` (for a table / pandas)."""
        out = []
        for c in self.C_long:
            extra = {f"cost[{nm}]": e.value for nm, e in self.lookahead.get(c, {}).items()}
            extra.update({f"cost[{nm}]_hw": e.half_width for nm, e in self.lookahead.get(c, {}).items()})
            out.append({"N": self.N, "c": c, "W": self.windows[c], "best": self.best.get(c),
                        "C_vol": self.C_vol.value, "C_vol_hw": self.C_vol.half_width,
                        "C_long": self.C_long[c].value, "C_long_hw": self.C_long[c].half_width,
                        "C_short": self.C_short[c].value, "C_short_hw": self.C_short[c].half_width,
                        "SSS_cost": self.sss[c].value, "SSS_cost_hw": self.sss[c].half_width,
                        "PFI_cost": self.pfi.value, "PFI_cost_hw": self.pfi.half_width,
                        "online_regret_exact": self.online_regret,
                        "online_regret_sim": self.online_sim.value,
                        "online_regret_sim_hw": self.online_sim.half_width, **extra})
        return out

    def _repr_html_(self) -> str:
        head = ("<tr><th>c</th><th>W</th><th>R_W policy</th><th>C_vol</th><th>C_long</th><th>C_short</th>"
                "<th>online regret (exact)</th></tr>")
        body = "".join(
            f"<tr><td>{c:g}</td><td>{self.windows[c]:.4g}</td><td>{self.best.get(c, '')}</td>"
            f"<td>{self.C_vol}</td><td>{self.C_long[c]}</td><td>{self.C_short[c]}</td>"
            f"<td>{self.online_regret:.4f}</td></tr>" for c in self.C_long)
        return (f"<p>N = {self.N}, {self.replications} paths of length {self.horizon:g}, K* = {self.threshold}, "
                f"95 % intervals</p><table>{head}{body}</table>")

    def to_dict(self) -> dict:
        return {"N": self.N, "params": _plain(self.params), "horizon": self.horizon,
                "replications": self.replications, "fluid": _plain(self.fluid),
                "online_regret": self.online_regret, "threshold": self.threshold,
                "C_vol": self.C_vol.to_dict(),
                "C_long": {str(c): e.to_dict() for c, e in self.C_long.items()},
                "C_short": {str(c): e.to_dict() for c, e in self.C_short.items()},
                "sss": {str(c): e.to_dict() for c, e in self.sss.items()},
                "pfi": self.pfi.to_dict(), "online_sim": self.online_sim.to_dict(),
                "windows": {str(c): w for c, w in self.windows.items()}, "seconds": self.seconds,
                "window_cost": {str(c): e.to_dict() for c, e in self.window_cost.items()},
                "lookahead": {str(c): {nm: e.to_dict() for nm, e in d.items()} for c, d in self.lookahead.items()},
                "best": {str(c): b for c, b in self.best.items()}}


