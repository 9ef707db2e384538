r"""Finite-N load balancing in loss systems: simulation, exact small-N solution, refined mean field.

Model (seed 000, ``shared/MATH.md`` section 2). ``N`` servers of capacity ``C``; Poisson arrivals of
total rate :math:`N\lambda`; exponential services of rate :math:`\mu = 1`; load :math:`\rho = \lambda`.
An arriving job is routed by one of four policies and is lost when the policy finds no room:

``"random"``
    one uniformly chosen server; lost if it is full.
``"retrial"`` (retrial-of-``d``)
    up to ``d`` attempts, each at a uniformly chosen server; the job joins the first non-full server
    it finds and is lost when all ``d`` attempts find full servers.
``"power"`` (power-of-``d``, JSQ(d))
    ``d`` uniformly chosen servers are sampled; the job joins the least occupied one (ties: the first
    sampled); lost when all ``d`` are full.
``"jsq"``
    the job joins a uniformly chosen server among the least occupied ones; lost only when all ``N``
    servers are full.

**Finite-N sampling convention** (``sampling=``), used identically by :func:`simulate` and
:func:`exact_finite_n`:

* ``"with_replacement"`` (default): every attempt / sample is uniform over all ``N`` servers,
  independently of the others (a retrial may hit the same full server again; power-of-``d`` may sample
  one server twice). The occupancy-count chain is then exactly density dependent: with
  :math:`x_k = n_k/N` and :math:`f = x_C` the fraction of full servers, an arrival joins a level-``k``
  server with probability :math:`x_k (1 - f^d)/(1 - f)` (retrial) or
  :math:`u_k^d - u_{k+1}^d`, :math:`u_k = \sum_{j \ge k} x_j` (power), and is lost with probability
  :math:`f^d` under both. These are the mean-field rates of ``MATH.md``, so the refined mean field
  (:func:`refined_mean_field`) applies to this convention.
* ``"without_replacement"``: the ``d`` attempts (retrial) or samples (power) are distinct servers
  (retrial picks each new attempt uniformly among the servers not tried yet); requires ``d <= N``.
  Loss probability :math:`\prod_{i<d} (n_C - i)/(N - i)`.

The state of the occupancy-count chain is :math:`(n_0, \dots, n_C)`, :math:`n_k` = number of servers
holding ``k`` jobs (the system is exchangeable, so this is a Markov chain).

Blocking estimator. By PASTA the stationary blocking probability is :math:`B_N = E_\pi[b(n)]` with
:math:`b(n)` the conditional loss probability of an arrival in state ``n``. The simulator averages
:math:`b(n)` over the arrival epochs (the Rao-Blackwellised form of the loss indicator: the same mean,
never a larger variance, and informative even when no job is lost). The raw fraction of lost arrivals
is reported too (``lost_fraction``).

References
----------
D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in loss systems: mean-field analysis, Erlang
bounds, and power-of-d comparison", arXiv:2611.06267 (2026) (seed 000).
N. Gast, B. Van Houdt, "A refined mean field approximation", Proc. ACM Meas. Anal. Comput. Syst. 1(2),
article 33 (2017).
D. Blackman, S. Vigna, "Scrambled linear pseudorandom number generators" (2018) (xoshiro256**).
D. Lemire, "Fast random integer generation in an interval", ACM TOMACS 29(1) (2019).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..core.random import seed_sequence, spawn
from ..core.results import ResultMixin
from ..core.stats import t_interval, truncated_poisson_weights
from ..core.validation import check_int
from .common import N_BATCHES, _check_common, conditional_blocking

# --------------------------------------------------------------------------------------------------
# simulation
# --------------------------------------------------------------------------------------------------

@dataclass
class SimulationResult(ResultMixin):
    """Result of :func:`simulate`.

    Attributes
    ----------
    blocking : float
        Point estimate of the stationary blocking probability (mean over arrivals of the conditional
        loss probability, pooled over replications / batches).
    ci : tuple of float
        95 % confidence interval ``(low, high)``; Student-t over independent replications when
        ``replications >= 2`` (``ci_method == "replications"``), otherwise over ``20`` batch means of
        the single run (``ci_method == "batch means"``).
    lost_fraction, lost_ci : float, tuple
        The raw fraction of lost arrivals and its interval (same method).
    occupancy : numpy.ndarray
        Time-average fraction of servers holding ``k = 0..C`` jobs.
    occupancy_ci : numpy.ndarray
        Shape ``(C+1, 2)``: 95 % intervals of ``occupancy``.
    estimates : numpy.ndarray
        The per-replication (or per-batch) blocking estimates behind ``ci``.
    events, warmup, replications : int
        Measured events and warm-up events per replication, number of replications.
    wall_time : float
        Seconds spent in the simulation kernel (compilation excluded).
    compile_time : float
        Seconds spent loading / compiling the kernel during this call (0 once compiled).
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

    @property
    def total_events(self) -> int:
        """All events simulated, warm-up included."""
        return (self.events + self.warmup) * self.replications

    @property
    def events_per_second(self) -> float:
        return self.total_events / self.wall_time if self.wall_time > 0 else float("inf")

    def covers(self, value) -> bool:
        """True when ``value`` lies in the confidence interval."""
        return self.ci[0] <= float(value) <= self.ci[1]

    def to_dict(self) -> dict:
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
            "seed_entropy": str(self.seed_entropy), "method": self.method,
        }

    def __repr__(self) -> str:
        d = "" if self.d is None else f", d={self.d}"
        return (f"SimulationResult({self.policy}{d}, N={self.N}, C={self.C}, rho={self.rho:g}: "
                f"blocking={self.blocking:.6g}, 95% CI=({self.ci[0]:.6g}, {self.ci[1]:.6g}) "
                f"[{self.ci_method}], {self.total_events:,} events in {self.wall_time:.3g} s)")


_KERNEL_READY = False


def _kernel():
    """Import (and, the first time in a process, compile or load from cache) the numba kernel.
    Returns (run_kernel, seconds spent)."""
    global _KERNEL_READY
    from . import _kernels as _simkernel
    if _KERNEL_READY:
        return _simkernel, 0.0
    t0 = time.perf_counter()
    occ = np.zeros(4, np.int32)
    st = np.random.SeedSequence(0).generate_state(4, np.uint64)
    bt = np.zeros(5)
    z = np.zeros(1)
    zi = np.zeros(1, np.int64)
    _simkernel.run_kernel(1, 4, 2, 2, 1.0, False, 10, 0, occ, st, bt, z.copy(), zi.copy(), zi.copy(),
                          z.copy(), np.zeros((1, 3)))
    _KERNEL_READY = True
    return _simkernel, time.perf_counter() - t0


def _initial_occupancy(rng, N, C, rho):
    """Independent truncated-Poisson(rho) occupancies: the stationary law of random routing, a
    starting point close to stationarity for every policy."""
    return rng.choice(C + 1, size=N, p=truncated_poisson_weights(C, rho)).astype(np.int32)


def simulate(policy, *, N, C, rho, d=None, events, warmup=None, replications=1, seed=None,
             sampling="with_replacement") -> SimulationResult:
    r"""Simulate the ``N``-server loss system under a routing policy and estimate its blocking.

    Parameters
    ----------
    policy : {"random", "retrial", "power", "jsq"}
        Routing policy (see the module docstring for the exact finite-N definitions).
    N : int
        Number of servers, ``N * C < 2**31``.
    C : int
        Capacity of each server (``>= 1``).
    rho : float
        Load per server :math:`\rho = \lambda/\mu` (``mu = 1``); total arrival rate ``N * rho``.
    d : int, optional
        Attempts (retrial) or samples (power); required for those two, ``None`` for the others.
    events : int
        Measured events (arrivals, lost or not, and departures) per replication.
    warmup : int, optional
        Events discarded at the start of each replication. Default:
        ``max(events // 10, 10 * N * (rho + min(rho, C)))``, i.e. at least about ten mean service
        times (the initial state is drawn from the random-routing product form).
    replications : int
        Independent replications (seeds from ``SeedSequence(seed).spawn(replications)``).
    seed : int, SeedSequence or None
        Identical seed, identical output. ``None`` draws fresh entropy (kept in ``seed_entropy``).
    sampling : {"with_replacement", "without_replacement"}
        Finite-N convention for retrial / power (see the module docstring).

    Returns
    -------
    SimulationResult

    Notes
    -----
    The jump chain is simulated exactly: an event is an arrival with probability
    :math:`N\rho/(N\rho + J)` (``J`` busy jobs), otherwise the departure of a uniformly chosen busy
    job. Time averages (occupancy distribution) weight each state by its expected holding time
    :math:`1/(N\rho + J)` (conditional Monte Carlo: unbiased, no exponential draws). The blocking
    estimate averages the conditional loss probability :math:`b(n)` over arrival epochs (PASTA).

    Confidence intervals: with ``replications >= 2``, a Student-t interval over the replication
    estimates (independent, so exact up to normality); with one replication, batch means over 20
    consecutive batches of ``events/20`` events (valid when a batch is much longer than the
    correlation time, about ``N * (rho + busy)`` events per mean service time).

    Examples
    --------
    >>> r = simulate("retrial", N=100, C=2, rho=1.0, d=2, events=200_000, seed=1)
    >>> 0.05 < r.blocking < 0.1
    True
    """
    policy, N, C, rho_f, d, sampling = _check_common(policy, N, C, rho, d, sampling)
    if N * C >= 2 ** 31:
        raise ValueError(f"N * C must be < 2**31, got N = {N}, C = {C}")
    events = check_int(events, "events", min_value=1)
    replications = check_int(replications, "replications", min_value=1)
    if warmup is None:
        warmup = max(events // 10, int(math.ceil(10 * N * (rho_f + min(rho_f, C)))))
    warmup = check_int(warmup, "warmup", min_value=0)
    ss = seed_sequence(seed)

    mod, compile_time = _kernel()
    nb = N_BATCHES if events >= N_BATCHES else 1
    code = mod.POLICY_CODES[policy]
    without = sampling == "without_replacement" and policy in ("retrial", "power")
    btable = conditional_blocking(policy, N, d, np.arange(N + 1), sampling if without else
                                  "with_replacement")
    lam = N * rho_f
    rep_sum = np.zeros(replications)
    rep_arr = np.zeros(replications, np.int64)
    rep_lost = np.zeros(replications, np.int64)
    rep_time = np.zeros(replications)
    rep_area = np.zeros((replications, C + 1))
    batches = []
    wall = 0.0
    for r, rep_ss in enumerate(spawn(ss, replications)):
        init_ss, kern_ss = spawn(rep_ss, 2)
        occ = _initial_occupancy(np.random.default_rng(init_ss), N, C, rho_f)
        st = kern_ss.generate_state(4, np.uint64)
        if not st.any():  # pragma: no cover - probability 2**-256
            st[0] = 1
        b_sum = np.zeros(nb)
        b_arr = np.zeros(nb, np.int64)
        b_lost = np.zeros(nb, np.int64)
        b_time = np.zeros(nb)
        b_area = np.zeros((nb, C + 1))
        t0 = time.perf_counter()
        mod.run_kernel(code, N, C, d, lam, without, events, warmup, occ, st, btable,
                       b_sum, b_arr, b_lost, b_time, b_area)
        wall += time.perf_counter() - t0
        rep_sum[r] = b_sum.sum()
        rep_arr[r] = b_arr.sum()
        rep_lost[r] = b_lost.sum()
        rep_time[r] = b_time.sum()
        rep_area[r] = b_area.sum(axis=0)
        batches.append((b_sum, b_arr, b_lost, b_time, b_area))

    total_arr = int(rep_arr.sum())
    blocking = float(rep_sum.sum() / total_arr) if total_arr else float("nan")
    lost = float(rep_lost.sum() / total_arr) if total_arr else float("nan")
    occupancy = rep_area.sum(axis=0) / (N * rep_time.sum())
    if replications >= 2:
        method = "replications"
        with np.errstate(invalid="ignore", divide="ignore"):
            est = rep_sum / rep_arr
            est_lost = rep_lost / rep_arr
            est_occ = rep_area / (N * rep_time[:, None])
    else:
        method = "batch means"
        b_sum, b_arr, b_lost, b_time, b_area = batches[0]
        with np.errstate(invalid="ignore", divide="ignore"):
            est = b_sum / b_arr
            est_lost = b_lost / b_arr
            est_occ = b_area / (N * b_time[:, None])
    ci, se = t_interval(est, blocking)
    lost_ci, _ = t_interval(est_lost, lost)
    occ_ci = np.array([t_interval(est_occ[:, k], occupancy[k])[0] for k in range(C + 1)])
    return SimulationResult(
        policy=policy, N=N, C=C, rho=rho_f, d=d if policy in ("retrial", "power") else None,
        sampling=sampling, blocking=blocking, ci=ci, std_error=se, ci_method=method,
        lost_fraction=lost, lost_ci=lost_ci, occupancy=occupancy, occupancy_ci=occ_ci,
        estimates=np.asarray(est), events=events, warmup=warmup, replications=replications,
        arrivals=total_arr, simulated_time=float(rep_time.sum()), wall_time=wall,
        compile_time=compile_time, seed_entropy=ss.entropy)


