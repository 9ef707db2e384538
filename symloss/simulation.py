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

import functools
import itertools
import math
import numbers
import time
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla
from scipy import stats

from ._validation import check_choice, check_int, check_real

__all__ = ["simulate", "SimulationResult", "exact_finite_n", "ExactFiniteNResult",
           "refined_mean_field", "RefinedMeanFieldResult", "finite_n_threshold",
           "FiniteNThresholdResult", "conditional_blocking"]

POLICIES = ("random", "retrial", "power", "jsq")
SAMPLINGS = ("with_replacement", "without_replacement")
N_BATCHES = 20


# --------------------------------------------------------------------------------------------------
# validation shared by the public functions
# --------------------------------------------------------------------------------------------------

def _to_float(x) -> float:
    if isinstance(x, (numbers.Real, Fraction)):
        return float(x)
    return float(mpmath.mpf(x))


def _check_common(policy, N, C, rho, d, sampling, *, max_N=None):
    check_choice(policy, "policy", POLICIES)
    check_choice(sampling, "sampling", SAMPLINGS)
    N = check_int(N, "N", min_value=1, max_value=max_N)
    C = check_int(C, "C", min_value=1)
    check_real(rho, "rho", lower=0, lower_open=True)
    rho_f = _to_float(rho)
    if not math.isfinite(rho_f) or rho_f <= 0:
        raise ValueError(f"rho must be a finite real number in (0, inf), got {rho!r}")
    if policy in ("retrial", "power"):
        if d is None:
            raise ValueError(f"d is required for policy {policy!r} (number of attempts / samples, "
                             f"an integer >= 1)")
        d = check_int(d, "d", min_value=1)
        if sampling == "without_replacement" and d > N:
            raise ValueError(f"d must be an integer in [1, N] = [1, {N}] when sampling "
                             f"'without_replacement', got d = {d}")
    else:
        if d is not None:
            raise ValueError(f"d must be None for policy {policy!r}, got {d!r}")
        d = 1
    return policy, N, C, rho_f, d, sampling


def conditional_blocking(policy: str, N: int, d: int, nfull, sampling: str = "with_replacement"):
    r"""Probability that an arrival is lost when ``nfull`` of the ``N`` servers are full.

    .. math::

        b(n) = (n_C/N)^d \ \text{(with replacement)}, \qquad
        b(n) = \prod_{i=0}^{d-1} \frac{n_C - i}{N - i} \ \text{(without replacement)},

    ``n_C/N`` for ``"random"`` and :math:`1\{n_C = N\}` for ``"jsq"``. Vectorised over ``nfull``.
    """
    m = np.asarray(nfull, dtype=np.float64)
    if policy == "random":
        return m / N
    if policy == "jsq":
        return (m == N).astype(np.float64)
    if sampling == "with_replacement":
        return (m / N) ** d
    out = np.ones_like(m)
    for i in range(d):
        out = out * np.clip(m - i, 0, None) / (N - i)
    return out


# --------------------------------------------------------------------------------------------------
# simulation
# --------------------------------------------------------------------------------------------------

@dataclass
class SimulationResult:
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
    from . import _simkernel
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


def _seed_sequence(seed):
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, list, tuple)):
        raise TypeError(f"seed must be None, a non-negative integer or a numpy.random.SeedSequence, "
                        f"got {seed!r}")
    if isinstance(seed, numbers.Integral) and seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    return np.random.SeedSequence(seed)


def _initial_occupancy(rng, N, C, rho):
    """Independent truncated-Poisson(rho) occupancies: the stationary law of random routing, a
    starting point close to stationarity for every policy."""
    k = np.arange(C + 1)
    logw = k * math.log(rho) - np.array([math.lgamma(i + 1) for i in k])
    w = np.exp(logw - logw.max())
    w /= w.sum()
    return rng.choice(C + 1, size=N, p=w).astype(np.int32)


def _t_interval(values, center):
    values = np.asarray(values, dtype=np.float64)
    m = values.size
    if m < 2:
        return (float("nan"), float("nan")), float("nan")
    se = float(values.std(ddof=1) / math.sqrt(m))
    h = float(stats.t.ppf(0.975, m - 1)) * se
    return (center - h, center + h), se


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
    ss = _seed_sequence(seed)

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
    for r, child in enumerate(ss.spawn(replications)):
        init_ss, kern_ss = child.spawn(2)
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
    ci, se = _t_interval(est, blocking)
    lost_ci, _ = _t_interval(est_lost, lost)
    occ_ci = np.array([_t_interval(est_occ[:, k], occupancy[k])[0] for k in range(C + 1)])
    return SimulationResult(
        policy=policy, N=N, C=C, rho=rho_f, d=d if policy in ("retrial", "power") else None,
        sampling=sampling, blocking=blocking, ci=ci, std_error=se, ci_method=method,
        lost_fraction=lost, lost_ci=lost_ci, occupancy=occupancy, occupancy_ci=occ_ci,
        estimates=np.asarray(est), events=events, warmup=warmup, replications=replications,
        arrivals=total_arr, simulated_time=float(rep_time.sum()), wall_time=wall,
        compile_time=compile_time, seed_entropy=ss.entropy)


# --------------------------------------------------------------------------------------------------
# exact finite-N solution (occupancy-count CTMC)
# --------------------------------------------------------------------------------------------------

@dataclass
class ExactFiniteNResult:
    r"""Stationary solution of the occupancy-count CTMC (:func:`exact_finite_n`).

    ``blocking`` is :math:`\sum_n \pi(n) b(n)`; ``occupancy[k]`` is :math:`E[n_k]/N`;
    ``residual`` is :math:`\max |\pi Q|` of the computed distribution.
    """

    policy: str
    N: int
    C: int
    rho: float
    d: int | None
    sampling: str
    blocking: float
    occupancy: np.ndarray
    n_states: int
    residual: float
    method: str = ("sparse LU (SuperLU, minimum degree on A+A^T) of the balance equations of the "
                   "occupancy-count CTMC")

    def to_dict(self) -> dict:
        return {"policy": self.policy, "N": self.N, "C": self.C, "rho": self.rho, "d": self.d,
                "sampling": self.sampling, "blocking": self.blocking,
                "occupancy": self.occupancy.tolist(), "n_states": self.n_states,
                "residual": self.residual, "method": self.method}


_GS_MAX_STATES = 200_000   # Gauss-Seidel beyond the LU limit, up to here (N = 100 at C = 3: 176,851 states, ~1 min)


def _gauss_seidel_stationary(AT_indptr, AT_indices, AT_data, out_rate, order, pi, tol, max_sweeps):
    """Symmetric Gauss-Seidel for pi Q = 0: pi_j <- sum_{i != j} pi_i q_ij / q_j, sweeping the states
    in ``order`` forwards then backwards, renormalised after each pair of sweeps. Returns the number
    of sweeps and the last relative change (numba-compiled on first use)."""
    from numba import njit

    @njit(cache=True)
    def run(indptr, indices, data, out, order, pi, tol, max_sweeps):
        M = pi.size
        change = 1.0
        for sweep in range(max_sweeps):
            change = 0.0
            for direction in range(2):
                for t in range(M):
                    j = order[t] if direction == 0 else order[M - 1 - t]
                    acc = 0.0
                    for p in range(indptr[j], indptr[j + 1]):
                        acc += pi[indices[p]] * data[p]
                    new = acc / out[j]
                    if pi[j] > 0:
                        c = abs(new - pi[j]) / pi[j]
                        if c > change:
                            change = c
                    elif new > 0:
                        change = 1.0
                    pi[j] = new
            total = pi.sum()
            for j in range(M):
                pi[j] /= total
            if change < tol:
                return sweep + 1, change
        return max_sweeps, change
    return run(AT_indptr, AT_indices, AT_data, out_rate, order, pi, tol, max_sweeps)


def _n_states(N: int, C: int) -> int:
    return math.comb(N + C, C)


def _enumerate_states(N: int, C: int) -> np.ndarray:
    """All (n_0, ..., n_C) with sum N (stars and bars), one per row."""
    M = _n_states(N, C)
    bars = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(N + C), C)),
                       dtype=np.int64, count=M * C).reshape(M, C)
    ext = np.concatenate([np.full((M, 1), -1, np.int64), bars, np.full((M, 1), N + C, np.int64)],
                         axis=1)
    return np.diff(ext, axis=1) - 1


def _routing_probabilities(policy, N, d, sampling, S):
    """q[:, k] = probability that an arrival in state S joins a level-k server (k < C)."""
    M, C1 = S.shape
    C = C1 - 1
    q = np.zeros((M, C))
    Sf = S.astype(np.float64)
    if policy == "random":
        q[:] = Sf[:, :C] / N
    elif policy == "jsq":
        nonempty = S[:, :C] > 0
        has = nonempty.any(axis=1)
        first = np.argmax(nonempty, axis=1)
        q[np.nonzero(has)[0], first[has]] = 1.0
    elif policy == "power":
        T = np.cumsum(Sf[:, ::-1], axis=1)[:, ::-1]          # T[:, k] = servers with >= k jobs
        if sampling == "with_replacement":
            P = (T / N) ** d
        else:
            P = np.ones_like(T)
            for i in range(d):
                P = P * np.clip(T - i, 0, None) / (N - i)
        q[:] = P[:, :C] - P[:, 1:]
    else:  # retrial
        nC = Sf[:, C]
        if sampling == "with_replacement":
            f = nC / N
            geo = np.zeros(M)
            term = np.ones(M)
            for _ in range(d):
                geo += term / N
                term = term * f
        else:
            geo = np.zeros(M)
            allfull = np.ones(M)   # P(first j attempts all hit full servers)
            for j in range(d):
                geo += allfull / (N - j)
                allfull = allfull * np.clip(nC - j, 0, None) / (N - j)
        q[:] = Sf[:, :C] * geo[:, None]
    return q


def _max_states(C: int) -> int:
    """Default state limit of :func:`exact_finite_n` (a few seconds on one core)."""
    return {1: 1_000_000, 2: 200_000, 3: 30_000}.get(C, 8_000)


def exact_finite_n(policy, N, C, rho, d=None, *, sampling="with_replacement",
                   max_states=None) -> ExactFiniteNResult:
    r"""Exact stationary blocking of the ``N``-server system (small ``N``, ``C``).

    The occupancy counts :math:`n = (n_0, \dots, n_C)`, :math:`\sum_k n_k = N`, form a CTMC with

    * arrival to a level-``k`` server (:math:`n_k \to n_k - 1, n_{k+1} \to n_{k+1} + 1`) at rate
      :math:`N \rho\, q_k(n)`, the routing probability of the policy and sampling convention
      (module docstring);
    * departure from a level-``k`` server at rate :math:`k n_k` (``mu = 1``).

    Its :math:`\binom{N+C}{C}` balance equations (one replaced by the normalisation) are solved by a
    sparse LU factorisation; :math:`B_N = \sum_n \pi(n) b(n)` (PASTA).

    Parameters
    ----------
    policy : {"random", "retrial", "power", "jsq"}
    N, C : int
        Servers and capacity. The number of states :math:`M = \binom{N+C}{C}` is limited by default
        to 200 000 for ``C = 2`` (``N <= 630``), 30 000 for ``C = 3`` (``N <= 54``) and 8 000 for
        ``C >= 4`` (``N <= 11`` for ``C = 5``): the sparse LU fill grows like :math:`M^{4/3}` for
        ``C = 3`` and faster for larger ``C`` (measured: ``N = 50, C = 3``, 23 426 states, 3 s;
        ``N = 68, C = 3``, 57 155 states, 17 s; ``N = 15, C = 5``, 15 504 states, 16 s).
    rho : float
        Load per server.
    d : int, optional
        Attempts / samples for "retrial" / "power".
    sampling : {"with_replacement", "without_replacement"}
    max_states : int, optional
        Override the state limit.

    Returns
    -------
    ExactFiniteNResult

    Examples
    --------
    For ``C = 1`` random routing is an Engset system whose blocking is exactly
    :math:`\rho/(1+\rho)` for every ``N``:

    >>> round(exact_finite_n("random", 10, 1, 1.0).blocking, 12)
    0.5
    """
    policy, N, C, rho_f, d, sampling = _check_common(policy, N, C, rho, d, sampling)
    M = _n_states(N, C)
    limit = _max_states(C) if max_states is None else check_int(max_states, "max_states", min_value=1)
    iterative_limit = max(limit, _GS_MAX_STATES)
    if M > iterative_limit:
        raise ValueError(f"the occupancy-count chain has C(N+C, C) = {M} states for N = {N}, "
                         f"C = {C}; exact_finite_n handles at most {iterative_limit} states "
                         f"(sparse LU up to {limit}, Gauss-Seidel beyond); use simulate() or "
                         f"refined_mean_field() instead")
    S = _enumerate_states(N, C)
    base = N + 1
    weights = base ** np.arange(C + 1, dtype=np.int64)
    weights[0] = 0                       # n_0 is implied by the others
    keys = S @ weights
    order = np.argsort(keys)
    sorted_keys = keys[order]

    def index_of(T):
        return order[np.searchsorted(sorted_keys, T @ weights)]

    q = _routing_probabilities(policy, N, d, sampling, S)
    rows, cols, vals = [], [], []
    idx = np.arange(M)
    for k in range(C):                   # arrivals k -> k+1
        rate = N * rho_f * q[:, k]
        m = rate > 0
        T = S[m].copy()
        T[:, k] -= 1
        T[:, k + 1] += 1
        rows.append(idx[m]); cols.append(index_of(T)); vals.append(rate[m])
    for k in range(1, C + 1):            # departures k -> k-1
        rate = k * S[:, k].astype(np.float64)
        m = rate > 0
        T = S[m].copy()
        T[:, k] -= 1
        T[:, k - 1] += 1
        rows.append(idx[m]); cols.append(index_of(T)); vals.append(rate[m])
    rows = np.concatenate(rows); cols = np.concatenate(cols); vals = np.concatenate(vals)
    out = np.bincount(rows, weights=vals, minlength=M)
    Q = sps.csr_matrix((np.concatenate([vals, -out]), (np.concatenate([rows, idx]),
                                                      np.concatenate([cols, idx]))), shape=(M, M))
    # pi Q = 0  <=>  Q^T pi^T = 0. Fix pi(state 0) = 1, drop its balance equation (the system stays
    # sparse: no dense normalisation row), solve for the rest, then normalise.
    # The fixed state is a likely one (the product-form mode), so that no ratio pi(n)/pi(ref)
    # overflows.
    A = Q.T.tocsc()
    method = ExactFiniteNResult.method
    if M == 1:
        pi = np.ones(1)
    elif M > limit:
        # too large for the direct solve (LU fill-in): symmetric Gauss-Seidel, states ordered by the
        # total number of jobs, started from the product-form (independent servers) guess, until
        # the relative change of every probability is below 1e-13; the residual is reported.
        AT = sps.csr_matrix((vals, (cols, rows)), shape=(M, M))
        level = S @ np.arange(C + 1)
        order_gs = np.argsort(level, kind="stable").astype(np.int64)
        kk = np.arange(C + 1)
        logp = kk * math.log(rho_f) - np.array([math.lgamma(i + 1) for i in kk])
        logp -= np.log(np.exp(logp - logp.max()).sum()) + logp.max()
        logpi = S @ logp
        pi = np.exp(logpi - logpi.max())
        pi /= pi.sum()
        sweeps, change = _gauss_seidel_stationary(AT.indptr.astype(np.int64), AT.indices.astype(np.int64),
                                                  AT.data, out, order_gs, pi, 1e-13, 20000)
        if change >= 1e-13:
            raise ArithmeticError(f"exact_finite_n: Gauss-Seidel did not converge in {sweeps} sweeps "
                                  f"(relative change {change:.2e})")
        method = (f"symmetric Gauss-Seidel on the balance equations ({sweeps} sweeps, relative change "
                  f"< 1e-13), states ordered by total jobs; used beyond {limit} states")
    else:
        kk = np.arange(C + 1)
        logp = kk * math.log(rho_f) - np.array([math.lgamma(i + 1) for i in kk])
        p = np.exp(logp - logp.max())
        guess = np.floor(N * p / p.sum()).astype(np.int64)
        guess[int(np.argmax(p))] += N - guess.sum()
        ref = int(index_of(guess[None, :])[0])
        keep = np.ones(M, bool)
        keep[ref] = False
        lu = spla.splu(A[keep][:, keep].tocsc(), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.1,
                       options=dict(SymmetricMode=True))
        pi = np.empty(M)
        pi[ref] = 1.0
        pi[keep] = lu.solve(-A[keep][:, [ref]].toarray().ravel())
    if np.min(pi) < -1e-10 * np.max(pi):
        raise ArithmeticError("exact_finite_n: the sparse solve returned a distribution with "
                              f"negative mass {np.min(pi):.3g}")
    pi = np.clip(pi, 0, None)
    pi /= pi.sum()
    residual = float(np.max(np.abs(Q.T @ pi)))
    b = conditional_blocking(policy, N, d, S[:, C], sampling if policy in ("retrial", "power")
                             else "with_replacement")
    blocking = float(pi @ b)
    occupancy = (pi @ S) / N
    return ExactFiniteNResult(policy=policy, N=N, C=C, rho=rho_f,
                              d=d if policy in ("retrial", "power") else None, sampling=sampling,
                              blocking=blocking, occupancy=occupancy, n_states=M, residual=residual,
                              method=method)


# --------------------------------------------------------------------------------------------------
# refined mean field (Gast & Van Houdt 2017)
# --------------------------------------------------------------------------------------------------

@dataclass
class RefinedMeanFieldResult:
    r"""The 1/N expansion :math:`B_N = B + V/N + O(1/N^2)` of the stationary blocking
    (:func:`refined_mean_field`).

    Attributes
    ----------
    blocking_mf : float
        Mean-field blocking :math:`B = h(x^*)`.
    V : float
        First-order coefficient.
    x_star : numpy.ndarray
        Fixed point (order of ``variables``).
    x_correction : numpy.ndarray
        :math:`c` in :math:`E[X_N] = x^* + c/N + O(1/N^2)`.
    covariance : numpy.ndarray
        :math:`W`, the limit of :math:`N\,\mathrm{Cov}(X_N)` (Lyapunov solution).
    N : int or None
        When given, ``blocking_refined = B + V/N``.
    """

    model: str
    C: int
    d: int | None
    rho: float
    variables: tuple
    blocking_mf: float
    V: float
    x_star: np.ndarray
    x_correction: np.ndarray
    covariance: np.ndarray
    conserved: int
    N: int | None = None
    method: str = ("refined mean field (Gast & Van Houdt 2017): linear-noise Lyapunov equation and "
                   "second-order drift expansion, float64")

    def at(self, N) -> float:
        """Refined approximation :math:`B + V/N` for ``N`` servers."""
        N = check_int(N, "N", min_value=1)
        return self.blocking_mf + self.V / N

    @property
    def blocking_refined(self):
        return None if self.N is None else self.at(self.N)

    def to_dict(self) -> dict:
        return {"model": self.model, "C": self.C, "d": self.d, "rho": self.rho,
                "variables": [str(v) for v in self.variables], "blocking_mf": self.blocking_mf,
                "V": self.V, "x_star": self.x_star.tolist(),
                "x_correction": self.x_correction.tolist(), "covariance": self.covariance.tolist(),
                "conserved": self.conserved, "N": self.N, "blocking_refined": self.blocking_refined,
                "method": self.method}


_REFINED_CACHE: dict = {}


def _model_from_policy(policy, C, d):
    from . import meanfield
    check_choice(policy, "policy", POLICIES)
    C = check_int(C, "C", min_value=1)
    if policy == "random":
        if d is not None:
            raise ValueError(f"d must be None for policy 'random', got {d!r}")
        return meanfield.RandomRouting(C)
    if policy == "jsq":
        if d is not None:
            raise ValueError(f"d must be None for policy 'jsq', got {d!r}")
        return meanfield.JSQ(C)
    if d is None:
        raise ValueError(f"d is required for policy {policy!r}")
    d = check_int(d, "d", min_value=1)
    return meanfield.RetrialOfD(C, d) if policy == "retrial" else meanfield.PowerOfD(C, d)


def _refined_evaluators(model):
    """Lambdified Jacobian, second derivatives of the drift, transition covariance and the
    derivatives of the blocking, built once per model (key: class, C, d, variables)."""
    import sympy as sp
    key = (type(model).__module__, type(model).__qualname__, getattr(model, "C", None),
           getattr(model, "d", None), tuple(str(v) for v in model.variables))
    if key in _REFINED_CACHE:
        return _REFINED_CACHE[key]
    xs = list(model.variables)
    rho = model.rho
    f = sp.Matrix(model.drift())
    n = len(xs)
    exprs = [f] + [f.jacobian(xs)]
    for e in list(f) + [model.blocking_expr()]:
        if e.has(sp.Heaviside, sp.Max, sp.Min, sp.Abs, sp.Piecewise, sp.sign):
            raise ValueError(f"the refined mean field needs a twice differentiable drift and "
                             f"blocking; model {model!r} is not smooth ({e})")
    hess = [sp.hessian(fi, xs) for fi in f]
    trans = model.transitions()
    jumps = np.array([[float(v) for v in jump] for jump, _ in trans])     # (m, n)
    rates = [rate for _, rate in trans]
    h = model.blocking_expr()
    gh = sp.Matrix([h]).jacobian(xs)
    hh = sp.hessian(h, xs)
    args = xs + [rho]
    ev = {
        "f": sp.lambdify(args, f, "numpy"),
        "A": sp.lambdify(args, exprs[1], "numpy"),
        "B": sp.lambdify(args, hess, "numpy"),
        "rates": sp.lambdify(args, rates, "numpy"),
        "h": sp.lambdify(args, h, "numpy"),
        "gh": sp.lambdify(args, gh, "numpy"),
        "hh": sp.lambdify(args, hh, "numpy"),
        "jumps": jumps,
        "n": n,
    }
    _REFINED_CACHE[key] = ev
    return ev


def refined_mean_field(policy, *, rho, C=None, d=None, N=None, dps: int = 30) -> RefinedMeanFieldResult:
    r"""First-order 1/N correction of the mean-field blocking (refined mean field).

    For a density-dependent population process (state :math:`x = n/N`, jumps :math:`x \to x + \ell/N`
    at rate :math:`N \beta_\ell(x)`, drift :math:`f = \sum_\ell \ell \beta_\ell`) with an exponentially
    stable fixed point :math:`x^*`, Gast & Van Houdt (2017, Theorem 3.1) show that for smooth ``h``

    .. math::

        E[h(X_N)] = h(x^*) + \frac{V}{N} + O(N^{-2}), \qquad
        V = \sum_i \partial_i h\, c_i + \tfrac12 \sum_{j,k} \partial^2_{jk} h\, W_{jk},

    where :math:`A = Df(x^*)`, :math:`Q = \sum_\ell \ell \ell^T \beta_\ell(x^*)`, ``W`` solves the
    Lyapunov equation :math:`A W + W A^T + Q = 0` and
    :math:`c = -A^{-1} \tfrac12 \sum_{j,k} \partial^2_{jk} f\, W_{jk}`. Linear invariants
    (e.g. :math:`\sum_k x_k = 1`) are removed first: with ``P`` an orthonormal basis of the space
    orthogonal to every vector annihilating all jumps, ``A``, ``Q`` are replaced by
    :math:`P^T A P`, :math:`P^T Q P`.

    Here ``h`` is the model's ``blocking_expr()``. For "retrial" and "power" with sampling **with
    replacement** the finite-N chain has exactly the mean-field rates, so :math:`B_N = E[h(X_N)]`
    and ``B + V/N`` approximates the finite-N blocking of :func:`simulate` / :func:`exact_finite_n`
    (``sampling="with_replacement"``) with an :math:`O(N^{-2})` error. JSQ has a discontinuous
    drift: not covered (ValueError).

    Parameters
    ----------
    policy : str or model
        "random", "retrial", "power" (with ``C``, ``d``), or any object with the mean-field model
        interface of :mod:`symloss.meanfield` (``variables``, ``rho``, ``drift()``,
        ``transitions()``, ``blocking_expr()``, ``fixed_point(rho, dps=)``).
    rho : float
        Load.
    C, d : int
        Capacity and attempts / samples (only with a policy name).
    N : int, optional
        If given, ``blocking_refined = B + V/N`` is filled in.
    dps : int
        Digits of the fixed point (the expansion itself is computed in float64).

    Returns
    -------
    RefinedMeanFieldResult

    References
    ----------
    N. Gast, B. Van Houdt, "A refined mean field approximation", Proc. ACM Meas. Anal. Comput. Syst.
    1(2), 33 (2017).
    """
    from scipy.linalg import null_space, solve_continuous_lyapunov
    if isinstance(policy, str):
        model = _model_from_policy(policy, C, d)
    else:
        model = policy
        if C is not None or d is not None:
            raise ValueError("C and d are given by the model object; pass them only with a policy name")
    check_real(rho, "rho", lower=0, lower_open=True)
    if N is not None:
        N = check_int(N, "N", min_value=1)
    ev = _refined_evaluators(model)
    fp = model.fixed_point(rho, dps=dps)
    x = np.array([float(v) for v in fp.x])
    r = _to_float(rho)
    args = list(x) + [r]
    n = ev["n"]
    A = np.array(ev["A"](*args), dtype=float).reshape(n, n)
    Bt = np.array(ev["B"](*args), dtype=float).reshape(n, n, n)       # B[i, j, k] = d2 f_i / dx_j dx_k
    rates = np.array(ev["rates"](*args), dtype=float).ravel()
    L = ev["jumps"]
    Qm = (L.T * rates) @ L
    drift = np.array(ev["f"](*args), dtype=float).ravel()
    if np.max(np.abs(drift)) > 1e-8 * max(1.0, np.max(np.abs(L.T @ np.abs(rates)))):
        raise ArithmeticError(f"refined_mean_field: the drift at the fixed point is not zero "
                              f"(max {np.max(np.abs(drift)):.3g})")
    # linear invariants: c with c . jump = 0 for every jump
    Cons = null_space(L) if L.shape[0] else np.eye(n)
    P = null_space(Cons.T) if Cons.shape[1] else np.eye(n)
    Ar = P.T @ A @ P
    eig = np.linalg.eigvals(Ar)
    if not np.all(eig.real < 0):
        raise ArithmeticError(f"refined_mean_field: the fixed point is not exponentially stable "
                              f"(Jacobian eigenvalues {eig})")
    Wr = solve_continuous_lyapunov(Ar, -(P.T @ Qm @ P))
    W = P @ Wr @ P.T
    W = 0.5 * (W + W.T)
    BW = np.einsum("ijk,jk->i", Bt, W)
    c = -P @ np.linalg.solve(Ar, P.T @ (0.5 * BW))
    gh = np.array(ev["gh"](*args), dtype=float).ravel()
    hh = np.array(ev["hh"](*args), dtype=float).reshape(n, n)
    V = float(gh @ c + 0.5 * np.sum(hh * W))
    Bmf = float(fp.blocking)
    d_attr = getattr(model, "d", None)
    return RefinedMeanFieldResult(model=getattr(model, "name", type(model).__name__),
                                  C=getattr(model, "C", None),
                                  d=d_attr if getattr(model, "name", "") in ("retrial", "power") else d_attr,
                                  rho=r, variables=tuple(model.variables), blocking_mf=Bmf, V=V,
                                  x_star=x, x_correction=c, covariance=W, conserved=Cons.shape[1], N=N)


# --------------------------------------------------------------------------------------------------
# finite-N threshold: the load above which retrial-of-dt blocks less than power-of-d
# --------------------------------------------------------------------------------------------------

@dataclass
class FiniteNThresholdResult:
    r"""Result of :func:`finite_n_threshold`.

    ``threshold`` is the largest load at which
    :math:`D_N(\rho) = \log B_N^{ret}(\tilde d) - \log B_N^{pod}(d)` changes sign (retrial-of-``dt``
    blocks less above it); 0 when no crossing was found in the search range and retrial is better
    at its lower end. ``ci`` is exact-to-tolerance for ``method == "exact"`` and a 95 % Fieller
    interval from a weighted regression of simulated :math:`D_N` on :math:`\log\rho` for
    ``method == "simulation"``. ``mean_field`` is :func:`symloss.threshold_load`, ``refined`` the
    crossing of the refined mean-field blockings :math:`B + V/N`.
    """

    C: int
    d: int
    dt: int
    N: int
    threshold: float
    ci: tuple
    method: str
    sampling: str
    mean_field: float | None
    refined: float | None
    loads: np.ndarray = field(default_factory=lambda: np.zeros(0))
    log_ratio: np.ndarray = field(default_factory=lambda: np.zeros(0))
    log_ratio_se: np.ndarray = field(default_factory=lambda: np.zeros(0))
    events: int = 0
    wall_time: float = 0.0

    def to_dict(self) -> dict:
        return {"C": self.C, "d": self.d, "dt": self.dt, "N": self.N, "threshold": self.threshold,
                "ci": list(self.ci), "method": self.method, "sampling": self.sampling,
                "mean_field": self.mean_field, "refined": self.refined,
                "loads": self.loads.tolist(), "log_ratio": self.log_ratio.tolist(),
                "log_ratio_se": self.log_ratio_se.tolist(), "events": self.events,
                "wall_time": self.wall_time}


@functools.lru_cache(maxsize=64)
def _mf_threshold(C, d, dt):
    try:
        from .meanfield import threshold_load
        return float(threshold_load(C, d, dt, dps=15))
    except (ValueError, ArithmeticError, ImportError):
        return None


def _refined_threshold(C, d, dt, N, lo, hi):
    def D(lr):
        r = math.exp(lr)
        a = refined_mean_field("retrial", rho=r, C=C, d=dt, dps=15).at(N)
        b = refined_mean_field("power", rho=r, C=C, d=d, dps=15).at(N)
        return math.log(a) - math.log(b) if a > 0 and b > 0 else float("nan")
    thr, low = _last_crossing(D, math.log(lo), math.log(hi), 24)
    return (0.0 if low < 0 else None) if thr is None else thr


def _last_crossing(D, llo, lhi, n):
    """Largest root of D on [llo, lhi] in log-load (grid of n cells, then Brent); returns
    (load, value at the lower end)."""
    from scipy.optimize import brentq
    grid = np.linspace(llo, lhi, n + 1)
    vals = [D(g) for g in grid]
    for i in range(n - 1, -1, -1):
        a, b = vals[i], vals[i + 1]
        if math.isfinite(a) and math.isfinite(b) and a > 0 >= b:
            return math.exp(brentq(D, grid[i], grid[i + 1], xtol=1e-12, rtol=1e-12)), vals[0]
    return None, vals[0]


def finite_n_threshold(C, d, dt, N, *, method="auto", sampling="with_replacement", rho_min=None,
                       rho_max=None, events=None, replications=8, n_loads=7, log_width=0.3,
                       seed=None, mean_field=True):
    r"""Load above which retrial-of-``dt`` blocks less than power-of-``d`` with ``N`` servers.

    Parameters
    ----------
    C, d, dt : int
        Capacity and the two policy parameters, ``dt > d``.
    N : int
        Number of servers.
    method : {"auto", "exact", "simulation"}
        "exact": the occupancy-count chains are solved (:func:`exact_finite_n`) on a log-spaced grid
        of 24 cells in ``[rho_min, rho_max]`` and the last sign change of
        :math:`D_N(\rho) = \log B^{ret}_N(\tilde d) - \log B^{pod}_N(d)` is refined by Brent's method
        (interval width ``1e-12`` relative). "simulation": two grids of ``n_loads`` loads equally
        spaced in :math:`\log\rho`; at each load both policies are simulated (``replications``
        replications of ``events`` events) and
        :math:`\hat D = \log \hat B^{ret} - \log \hat B^{pod}` gets a delta-method standard
        error. Stage 1: ``center * exp(+-log_width)`` around the refined mean-field estimate, a
        weighted quadratic in :math:`\log\rho` locates the downward crossing. Stage 2: a window
        three times narrower around it, a weighted quadratic (straight line if ``n_loads < 5``)
        gives the root and its 95 % confidence set by test inversion (Fieller's construction:
        the loads where :math:`D = 0` is not rejected), re-centred once if the root leaves the
        window. "auto": exact when both chains are
        within the default state limit of :func:`exact_finite_n`.
    sampling : str
        Finite-N convention (see the module docstring).
    rho_min, rho_max : float
        Search range of the exact method (default ``0.02`` and ``4 C``).
    events, replications, n_loads, seed
        Simulation effort (default ``events = max(200 000, 400 N)`` per replication).
    mean_field : bool
        Also compute the mean-field threshold :func:`symloss.threshold_load` (certified, a few
        seconds; cached per ``(C, d, dt)``).

    Returns
    -------
    FiniteNThresholdResult
    """
    C = check_int(C, "C", min_value=1)
    d = check_int(d, "d", min_value=1)
    dt = check_int(dt, "dt", min_value=1)
    if dt <= d:
        raise ValueError(f"dt must be > d, got d = {d}, dt = {dt}")
    N = check_int(N, "N", min_value=1)
    check_choice(method, "method", ("auto", "exact", "simulation"))
    check_choice(sampling, "sampling", SAMPLINGS)
    if sampling == "without_replacement" and dt > N:
        raise ValueError(f"dt must be <= N = {N} when sampling without replacement, got {dt}")
    lo = 0.02 if rho_min is None else _to_float(check_real(rho_min, "rho_min", lower=0, lower_open=True))
    hi = 4.0 * C if rho_max is None else _to_float(check_real(rho_max, "rho_max", lower=lo, lower_open=True))
    replications = check_int(replications, "replications", min_value=2)
    n_loads = check_int(n_loads, "n_loads", min_value=3)
    log_width = _to_float(check_real(log_width, "log_width", lower=0, lower_open=True))
    if method == "auto":
        method = "exact" if _n_states(N, C) <= _max_states(C) else "simulation"
    t0 = time.perf_counter()
    mf = _mf_threshold(C, d, dt) if mean_field else None
    refined = None
    if sampling == "with_replacement":
        try:
            refined = _refined_threshold(C, d, dt, N, lo, hi)
        except (ValueError, ArithmeticError):
            refined = None

    if method == "exact":
        cache = {}

        def D(lr):
            if lr not in cache:
                r = math.exp(lr)
                a = exact_finite_n("retrial", N, C, r, dt, sampling=sampling).blocking
                b = exact_finite_n("power", N, C, r, d, sampling=sampling).blocking
                cache[lr] = math.log(a) - math.log(b) if a > 0 and b > 0 else float("nan")
            return cache[lr]
        thr, low_val = _last_crossing(D, math.log(lo), math.log(hi), 24)
        if thr is None:
            if not (low_val < 0):
                raise ValueError(f"no crossing of the finite-N blockings in [{lo}, {hi}] and "
                                 f"retrial-of-{dt} is not better at rho_min: no threshold in range")
            thr = 0.0
        ks = sorted(cache)
        return FiniteNThresholdResult(
            C=C, d=d, dt=dt, N=N, threshold=thr, ci=(thr, thr), method="exact", sampling=sampling,
            mean_field=mf, refined=refined, loads=np.exp(np.array(ks)),
            log_ratio=np.array([cache[k] for k in ks]), log_ratio_se=np.zeros(len(ks)),
            wall_time=time.perf_counter() - t0)

    # ---- simulation ----
    if events is None:
        events = max(200_000, 400 * N)
    events = check_int(events, "events", min_value=1000)
    if refined is None and mf is None:
        mf = _mf_threshold(C, d, dt)
    ss = _seed_sequence(seed)
    seeds = iter(ss.spawn(6 * n_loads))
    total_events = 0

    def sim_D(r):
        nonlocal total_events
        a = simulate("retrial", N=N, C=C, rho=float(r), d=dt, events=events,
                     replications=replications, seed=next(seeds), sampling=sampling)
        b = simulate("power", N=N, C=C, rho=float(r), d=d, events=events,
                     replications=replications, seed=next(seeds), sampling=sampling)
        total_events += a.total_events + b.total_events
        if not (a.blocking > 0 and b.blocking > 0):
            raise ValueError(f"simulated blocking is zero at rho = {r:.4g}: the threshold is "
                             f"below the simulation's reach (N = {N})")
        return (math.log(a.blocking) - math.log(b.blocking),
                math.hypot(a.std_error / a.blocking, b.std_error / b.blocking))

    if not (refined or mf):
        # no crossing in the (refined) mean field: check the sign on a grid of loads where the
        # simulated blockings are resolvable; threshold 0 if retrial is significantly better at all
        loads = C * np.exp(np.linspace(math.log(0.25), math.log(2.0), n_loads))
        res = [sim_D(r) for r in loads]
        y = np.array([v for v, _ in res])
        se = np.array([e for _, e in res])
        tq = float(stats.t.ppf(0.975, replications - 1))
        if np.all(y + tq * se < 0):
            return FiniteNThresholdResult(
                C=C, d=d, dt=dt, N=N, threshold=0.0, ci=(0.0, float(loads[0])),
                method="simulation (sign check: retrial better at every tested load)",
                sampling=sampling, mean_field=mf, refined=refined, loads=loads, log_ratio=y,
                log_ratio_se=se, events=total_events, wall_time=time.perf_counter() - t0)
        center = float(loads[int(np.argmin(np.abs(y)))])
    else:
        center = refined if refined else mf
    def run_grid(c, width):
        loads = c * np.exp(np.linspace(-width, width, n_loads))
        res = [sim_D(r) for r in loads]
        return (np.log(loads), np.array([v for v, _ in res]), np.array([e for _, e in res]))

    def wls(x, y, se, degree):
        w = 1.0 / se ** 2
        xm = float(np.sum(w * x) / np.sum(w))
        X = np.column_stack([(x - xm) ** p for p in range(degree + 1)])
        cov_unscaled = np.linalg.inv(X.T @ (X * w[:, None]))
        beta = cov_unscaled @ (X.T @ (w * y))
        chi2 = float(np.sum(w * (y - X @ beta) ** 2))
        dof = max(1, x.size - degree - 1)
        return xm, beta, cov_unscaled * max(1.0, chi2 / dof)   # inflate for lack of fit

    # stage 1 (locate): a quadratic through the wide grid; D is curved (it has a minimum above
    # the threshold and tends to 0 at high load), so a straight line over a wide window is biased.
    x1, y1, se1 = run_grid(center, log_width)
    xm, beta, _ = wls(x1, y1, se1, 2 if n_loads >= 4 else 1)
    roots = np.roots(beta[::-1]) if beta.size == 3 else np.array([-beta[0] / beta[1]])
    slope = lambda z: beta[1] + (2 * beta[2] * z if beta.size == 3 else 0.0)   # noqa: E731
    cands = [float(z.real) for z in np.atleast_1d(roots) if abs(z.imag) < 1e-12 and slope(z.real) < 0]
    if cands:
        z0 = min(cands, key=lambda z: abs(z + xm - math.log(center)))
        center = math.exp(min(max(xm + z0, x1[0] - log_width), x1[-1] + log_width))
    # stage 2 (estimate): a window three times narrower around that root; weighted polynomial
    # (quadratic when n_loads >= 5, else a straight line) in z = log rho - xm
    width2 = log_width / 3
    deg = 2 if n_loads >= 5 else 1
    for _attempt in range(2):
        x, y, se = run_grid(center, width2)
        xm, beta, cov = wls(x, y, se, deg)
        zc = math.log(center) - xm
        rts = np.atleast_1d(np.roots(beta[::-1]))
        slope2 = np.polyder(np.poly1d(beta[::-1]))
        real = [float(z.real) for z in rts if abs(z.imag) < 1e-12 and slope2(z.real) < 0]
        if not real:
            raise ValueError(f"no downward crossing of the simulated log-ratio near rho = "
                             f"{center:.4g} (N = {N}); increase events / replications")
        zr = min(real, key=lambda z: abs(z - zc))
        root = xm + zr
        if x[0] <= root <= x[-1] or _attempt == 1:
            break
        center = math.exp(root)
    # 95 % confidence set by test inversion (Fieller's construction, for any degree):
    # {z : p(z)^2 <= t^2 g(z)^T Cov g(z)}, g(z) = (1, z, z^2, ...); the connected piece holding
    # the root is reported (0 / inf when it reaches 1 e-fold from the root).
    tq = float(stats.t.ppf(0.975, max(1, n_loads - deg - 1)))
    zz = np.linspace(zr - 1.0, zr + 1.0, 8001)
    G = np.column_stack([zz ** q for q in range(deg + 1)])
    inside = (G @ beta) ** 2 <= tq ** 2 * np.einsum("ij,jk,ik->i", G, cov, G)
    k0 = 4000
    lo_i, hi_i = k0, k0
    while lo_i > 0 and inside[lo_i - 1]:
        lo_i -= 1
    while hi_i < zz.size - 1 and inside[hi_i + 1]:
        hi_i += 1
    ci = (0.0 if lo_i == 0 else math.exp(xm + zz[lo_i]),
          float("inf") if hi_i == zz.size - 1 else math.exp(xm + zz[hi_i]))
    return FiniteNThresholdResult(
        C=C, d=d, dt=dt, N=N, threshold=math.exp(root), ci=ci, method="simulation",
        sampling=sampling, mean_field=mf, refined=refined, loads=np.exp(x), log_ratio=y,
        log_ratio_se=se, events=total_events, wall_time=time.perf_counter() - t0)
