"""The result of :func:`symloss.simulate` and what every simulator shares: the confidence intervals
over independent units (replications or batch means) and the checks of the run length.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.registry import warn_outside_package
from ..core.results import ResultMixin
from ..core.stats import ZeroObservationsWarning, proportion_interval

__all__ = ["MAX_DEFAULT_WARMUP", "SimulationResult"]


@dataclass
class SimulationResult(ResultMixin):
    """Result of :func:`simulate`.

    Parameters
    ----------
    blocking : float
        Point estimate of the stationary blocking probability (mean over arrivals of the conditional
        loss probability, pooled over replications / batches).
    ci : tuple of float
        95 % confidence interval ``(low, high)``; Student-t over independent replications when
        ``replications >= 2`` (``ci_method == "replications"``), otherwise over ``20`` batch means of
        the single run (``ci_method == "batch means"``). When the estimate is exactly 0 in every
        replication / batch (nothing observed, e.g. no arrival saw a full server at light load), the
        interval is the one-sided exact bound ``(0, 1 - 0.025^(1/n))`` with ``n`` the number of
        replications / batches (``ci_one_sided``; a :class:`~symloss.core.stats.ZeroObservationsWarning`
        is emitted): see :func:`symloss.core.stats.proportion_interval` for why ``n`` counts these
        independent units and not arrivals. Symmetrically ``(0.025^(1/n), 1)`` when it is 1 in every unit.
    lost_fraction, lost_ci : float, tuple
        The raw fraction of lost arrivals and its interval (same method); NaN for the count-level
        kernel (it does not simulate lost arrivals, which do not change the counts).
    occupancy : numpy.ndarray
        Time-average fraction of servers holding ``k = 0..C`` jobs (occupancy and tail models; for a
        custom model the time-average state ``state_mean``).
    occupancy_ci : numpy.ndarray
        Shape ``(C+1, 2)``: 95 % intervals of ``occupancy`` (the same one-sided bound for a level never
        (or always) occupied in every unit, without a warning).
    ci_one_sided : str or None
        ``None`` for Student-t intervals; ``"none observed"`` / ``"all observed"`` when ``ci`` (or
        ``lost_ci``) is the one-sided bound.
    estimates : numpy.ndarray
        The per-replication (or per-batch) blocking estimates behind ``ci``.
    events, warmup, replications : int
        Measured events and warm-up events per replication, number of replications. Server-level
        kernel: arrivals (lost or not) and departures; count-level kernel: transitions of the counts.
    kernel : {"server", "count"}
        Which simulator ran (``method`` describes it).
    state_mean : numpy.ndarray
        Time-average ``n / N`` in the model's variables.
    wall_time : float
        Seconds spent in the simulation kernel (compilation excluded).
    compile_time : float
        Seconds spent loading / compiling the kernel during this call (0 once compiled).
    policy, model : str
        The policy name and the model's repr.
    N, C : int
        Servers and capacity.
    rho : float
        Load per server.
    d : int or None
        Attempts / samples.
    sampling : str
        The finite-N sampling convention.
    std_error : float
        Standard error of ``blocking`` (NaN when ``ci`` is a one-sided bound).
    ci_method : str
        ``"replications"`` or ``"batch means"``.
    arrivals : int
        Arrival epochs measured (server level).
    simulated_time : float
        Simulated time measured.
    seed_entropy : int or sequence of int
        The entropy of the seed sequence (rerun with ``seed=seed_entropy`` to reproduce).
    method : str
        The simulator.
    symbols : tuple of sympy.Symbol
        The count variables (count level).
    """

    policy: str
    N: int
    C: int
    rho: float
    d: int | None
    sampling: str
    blocking: float
    ci: tuple
    std_error: float
    ci_method: str
    lost_fraction: float
    lost_ci: tuple
    occupancy: np.ndarray
    occupancy_ci: np.ndarray
    estimates: np.ndarray
    events: int
    warmup: int
    replications: int
    arrivals: int
    simulated_time: float
    wall_time: float
    compile_time: float
    seed_entropy: object
    method: str = "numba event-driven simulation of the N-server system (xoshiro256**)"
    model: str = ""
    kernel: str = "server"
    state_mean: np.ndarray = field(default_factory=lambda: np.zeros(0))
    symbols: tuple = ()
    ci_one_sided: str | None = None

    @property
    def total_events(self) -> int:
        """All events simulated, warm-up included."""
        return (self.events + self.warmup) * self.replications

    @property
    def events_per_second(self) -> float:
        """Simulated events per second of kernel time."""
        return self.total_events / self.wall_time if self.wall_time > 0 else float("inf")

    def covers(self, value) -> bool:
        """Whether ``value`` lies in the confidence interval.

        Parameters
        ----------
        value : float
            A reference value (e.g. the exact finite-N blocking).

        Returns
        -------
        bool
        """
        return self.ci[0] <= float(value) <= self.ci[1]

    def to_dict(self) -> dict:
        """Plain data, for JSON.

        Returns
        -------
        dict
        """
        return {
            "policy": self.policy, "N": self.N, "C": self.C, "rho": self.rho, "d": self.d,
            "sampling": self.sampling, "blocking": self.blocking, "ci": list(self.ci),
            "std_error": self.std_error, "ci_method": self.ci_method,
            "lost_fraction": self.lost_fraction, "lost_ci": list(self.lost_ci),
            "occupancy": self.occupancy.tolist(), "occupancy_ci": self.occupancy_ci.tolist(),
            "estimates": self.estimates.tolist(), "events": self.events, "warmup": self.warmup,
            "replications": self.replications, "arrivals": self.arrivals,
            "simulated_time": self.simulated_time, "wall_time": self.wall_time,
            "compile_time": self.compile_time, "events_per_second": self.events_per_second,
            "seed_entropy": str(self.seed_entropy), "method": self.method, "model": self.model,
            "kernel": self.kernel, "state_mean": self.state_mean.tolist(),
            "symbols": [str(v) for v in self.symbols], "ci_one_sided": self.ci_one_sided,
        }

    def __repr__(self) -> str:
        d = "" if self.d is None else f", d={self.d}"
        kind = self.ci_method if self.ci_one_sided is None else \
            f"{self.ci_method}; {self.ci_one_sided} in every unit: one-sided exact bound"
        return (f"SimulationResult({self.policy}{d}, N={self.N}, C={self.C}, rho={self.rho:g}: "
                f"blocking={self.blocking:.6g}, 95% CI=({self.ci[0]:.6g}, {self.ci[1]:.6g}) "
                f"[{kind}], {self.total_events:,} events in {self.wall_time:.3g} s)")


_MAX_TOTAL_EVENTS = 10 ** 13


MAX_DEFAULT_WARMUP = 2 * 10 ** 8     # events (~10 s of the kernels); beyond it warmup= must be given


def _default_warmup(w: int, events: int) -> int:
    """The default warm-up (about ten time units), refused with its size when it dwarfs the request."""
    if w > MAX_DEFAULT_WARMUP and w > 10 * events:
        raise ValueError(f"warmup: the default warm-up (about ten time units of the chain) is {w:.3g} events "
                         f"at this N and rho, more than MAX_DEFAULT_WARMUP={MAX_DEFAULT_WARMUP:.0e} and 10x the "
                         f"{events} requested events; pass warmup= explicitly (0 if the initial state is "
                         f"already stationary) or use a smaller N * rho")
    return w


def _check_total(events, warmup, replications):
    total = (events + warmup) * replications
    if total > _MAX_TOTAL_EVENTS:
        raise ValueError(f"events + warmup = {events + warmup} per replication x {replications} replications = "
                         f"{total:.3g} events exceeds the limit {_MAX_TOTAL_EVENTS:.0e} (days of CPU time); "
                         "reduce events, warmup or replications")


def _intervals(rep_sum, rep_arr, rep_lost, rep_time, rep_area, batches, replications, N, blocking, lost,
               occupancy, norm_area, *, lost_observed=True):
    """Intervals of the blocking, the lost fraction and the occupancy over the independent units
    (replications, or batch means of one run). Each is a probability estimated in ``[0, 1]`` per
    unit, so :func:`~symloss.core.stats.proportion_interval` applies: Student t, or the exact one-sided
    Clopper-Pearson bound over the ``n`` units when the estimate is 0 (or 1) in every unit (a
    :class:`~symloss.core.stats.ZeroObservationsWarning` for the blocking and the lost fraction)."""
    if replications >= 2:
        method = "replications"
        with np.errstate(invalid="ignore", divide="ignore"):
            est = rep_sum / rep_arr
            est_lost = rep_lost / rep_arr
            est_occ = norm_area(rep_area, rep_time)
    else:
        method = "batch means"
        b_sum, b_arr, b_lost, b_time, b_area = batches[0]
        with np.errstate(invalid="ignore", divide="ignore"):
            est = b_sum / b_arr
            est_lost = b_lost / b_arr
            est_occ = norm_area(b_area, b_time)
    ci, se, kind = proportion_interval(est, blocking)
    lost_ci, _, lost_kind = proportion_interval(est_lost, lost)
    occ_ci = np.array([proportion_interval(est_occ[:, k], occupancy[k])[0] for k in range(occupancy.size)])
    units = int(np.count_nonzero(np.isfinite(est)))
    what = method if method == "replications" else "batches"
    lost_kind = lost_kind if lost_observed else None
    for name, k, interval in (("blocking", kind, ci), ("lost fraction", lost_kind, lost_ci)):
        if k is not None:       # one warning: the blocking's, else the lost fraction's; at the caller's line
            warn_outside_package(f"{name}: {'no loss' if k == 'none observed' else 'only losses'} observed in any of the "
                  f"{units} {what} (estimate {'0' if k == 'none observed' else '1'} in each); the 95% "
                  f"interval is the one-sided exact (Clopper-Pearson) bound ({interval[0]:.4g}, "
                  f"{interval[1]:.4g}) over these {units} independent units, not a Student-t interval; "
                  "run longer (or at a higher load) for a two-sided interval",
                  ZeroObservationsWarning, 3)
            break
    one_sided = kind if kind is not None else lost_kind
    return method, est, ci, se, lost_ci, occ_ci, one_sided
