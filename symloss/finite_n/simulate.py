r"""Finite-N simulation of any model: a count-level kernel generated from the definition, and the
hand-written server-level kernels of the shipped policies as a fast path checked against it.

Any :class:`~symloss.MeanFieldModel`: the count chain of :mod:`symloss.finite_n.chain` is simulated by
a numba kernel generated from its rates (:mod:`symloss.finite_n.generated`); the blocking estimate is
the time average of the definition's conditional loss probability ``b(n)`` (PASTA), with the expected
holding time ``1/R`` as the time step (conditional Monte Carlo). For the shipped policies the
server-level kernel below is used instead when, and only when, the model's finite-N transitions and
loss probability are *identical* (SymPy) to the count chain that kernel realises; an edited definition
(a subclass with another rate) falls back to the generated kernel with a
:class:`~symloss.DefinitionMismatchWarning`.

The shipped policies, as the server-level kernel realises them:

Model (Cuesta, Jonckheere, Prabhu and Brun 2026). ``N`` servers of capacity ``C``; Poisson arrivals of
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
  :math:`f^d` under both. These are the mean-field rates of the paper, so the refined mean field
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
D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis, Erlang
Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026).
N. Gast, B. Van Houdt, "A refined mean field approximation", Proc. ACM Meas. Anal. Comput. Syst. 1(2),
article 33 (2017).
D. Blackman, S. Vigna, "Scrambled linear pseudorandom number generators" (2018) (xoshiro256**).
D. Lemire, "Fast random integer generation in an interval", ACM TOMACS 29(1) (2019).
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from ..core.model import RHO
from ..core.random import seed_sequence, spawn
from ..core.results import ResultMixin
from ..core.stats import ZeroObservationsWarning, proportion_interval, truncated_poisson_weights
from ..core.validation import check_choice, check_int
from .chain import NSYM, FiniteNModelError, default_start, finite_n_chain, finite_n_key
from .common import N_BATCHES, SAMPLINGS, _check_common, _check_model_rho, policy_model

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


_KERNEL_READY = False
_MAX_TOTAL_EVENTS = 10 ** 13
KERNELS = ("auto", "server", "count")


def _kernel():
    """Import (and, the first time in a process, compile or load from cache) the server-level numba
    kernel. Returns (module, seconds spent)."""
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


# --------------------------------------------------------------------------------------------------
# the server-level fast path: which count chain each hand-written branch realises
# --------------------------------------------------------------------------------------------------

def _server_template(policy, C, d, N, sampling, U):
    """The count chain (``{jump: rate}``, loss probability) that the server-level kernel realises for
    ``policy`` (hand-written specification of the kernel's branches, compared with the definition by
    :func:`server_level_policy`). ``U``: the count symbols (occupancy ``n_0..n_C`` or tails
    ``U_1..U_C``)."""
    without = sampling == "without_replacement" and policy != "jsq"
    Nn = sp.Integer(N) if without else NSYM
    out = {}

    def add(jump, rate):
        out[jump] = out.get(jump, sp.Integer(0)) + rate
    if policy in ("random", "retrial"):           # occupancy counts, arrival k -> k+1
        nC = U[C]
        if not without:
            geo = sum(((nC / NSYM) ** j for j in range(d)), sp.Integer(0)) / NSYM
            block = (nC / NSYM) ** d
        else:
            geo, allfull = sp.Integer(0), sp.Integer(1)
            for j in range(d):
                geo += allfull / (Nn - j)
                allfull = allfull * (nC - j) / (Nn - j)
            block = allfull
        for k in range(C):
            jump = tuple(-1 if i == k else (1 if i == k + 1 else 0) for i in range(C + 1))
            add(jump, Nn * RHO * U[k] * geo)
        for k in range(1, C + 1):
            jump = tuple(-1 if i == k else (1 if i == k - 1 else 0) for i in range(C + 1))
            add(jump, k * U[k])
        return out, block
    T = (Nn,) + tuple(U) + (sp.Integer(0),)        # tails U_0 = N, U_1..U_C, U_{C+1} = 0
    if policy == "power":
        def P(k):
            if not without:
                return (T[k] / NSYM) ** d
            p = sp.Integer(1)
            for i in range(d):
                p *= (T[k] - i) / (Nn - i)
            return p
        for k in range(1, C + 1):
            add(tuple(1 if i == k - 1 else 0 for i in range(C)), Nn * RHO * (P(k - 1) - P(k)))
        block = P(C)
    else:  # jsq: the lowest level that is not full
        H = sp.Heaviside
        for k in range(1, C + 1):
            lower = sp.Integer(1) if k == 1 else H(T[k - 1] / NSYM - 1, 1)
            add(tuple(1 if i == k - 1 else 0 for i in range(C)), NSYM * RHO * lower * (1 - H(T[k] / NSYM - 1, 1)))
        block = H(T[C] - NSYM, 1)
    for k in range(1, C + 1):
        add(tuple(-1 if i == k - 1 else 0 for i in range(C)), k * (T[k] - T[k + 1]))
    return out, block


def _same(a, b) -> bool:
    diff = sp.expand(a - b)
    if diff == 0:
        return True
    try:
        return sp.cancel(sp.together(diff)) == 0
    except (sp.PolynomialError, TypeError):  # pragma: no cover - non-rational leftovers
        return False


_FAST_CACHE: dict = {}


def server_level_policy(model, N: int, sampling: str):
    """``(policy, d)`` when the server-level kernel simulates exactly ``model``'s finite-N chain
    (identical transitions and loss probability, checked in SymPy), else ``None`` (with a
    :class:`~symloss.DefinitionMismatchWarning` for a shipped class whose definition was edited).

    Parameters
    ----------
    model : MeanFieldModel
        The model.
    N : int
        Number of servers.
    sampling : {"with_replacement", "without_replacement"}
        The finite-N convention.

    Returns
    -------
    tuple of (str, int) or None

    Warns
    -----
    DefinitionMismatchWarning
        For a shipped class whose finite-N definition differs from the kernel's chain.

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.finite_n.simulate import server_level_policy
    >>> server_level_policy(PowerOfD(2, 2), 10, "with_replacement")
    ('power', 2)
    """
    from ..meanfield.models import JSQ, PowerOfD, RandomRouting, RetrialOfD
    if isinstance(model, RandomRouting):
        policy = "random"
    elif isinstance(model, RetrialOfD):
        policy = "retrial"
    elif isinstance(model, PowerOfD):
        policy = "power"
    elif isinstance(model, JSQ):
        policy = "jsq"
    else:
        return None
    ck = finite_n_key(model, N, sampling)          # the definition and its finite-N rates at this N
    if ck in _FAST_CACHE:
        out = _FAST_CACHE[ck]
        if out is None:
            _mismatch_warning(model, policy)
        return out
    chain = finite_n_chain(model, N, sampling)
    C, d = model.C, model.d
    template, block = _server_template(policy, C, d, N, sampling, chain.symbols)
    mine = {}
    for jump, rate in zip(chain.jumps, chain.rates):
        t = tuple(int(v) for v in jump)
        mine[t] = mine.get(t, sp.Integer(0)) + rate
    ok = (set(mine) == set(template) and all(_same(mine[j], template[j]) for j in template)
          and _same(chain.blocking, block))
    out = (policy, d) if ok else None
    if not ok:
        _mismatch_warning(model, policy)
    if len(_FAST_CACHE) > 256:
        _FAST_CACHE.clear()
    _FAST_CACHE[ck] = out
    return out


def _mismatch_warning(model, policy):
    from ..core.certify import DefinitionMismatchWarning
    warnings.warn(f"{model!r}: the finite-N definition differs from the {policy!r} chain the server-level "
                  "kernel simulates; using the count-level kernel generated from the definition",
                  DefinitionMismatchWarning, stacklevel=4)


# --------------------------------------------------------------------------------------------------
# the public function
# --------------------------------------------------------------------------------------------------

def _parse_call(model, N, C, rho, d, sampling):
    if isinstance(model, str):
        if rho is None or C is None:
            raise TypeError("simulate(policy, N=, C=, rho=, d=None, events=): C and rho are required with a "
                            "policy name")
        policy, N, C, rho_f, d, sampling = _check_common(model, N, C, rho, d, sampling)
        return policy_model(policy, C, d), N, rho_f, sampling
    if C is not None or d is not None:
        raise TypeError("C and d are given by the model; pass them only with a policy name "
                        "(simulate(policy, N=, C=, rho=, d=))")
    if rho is None:
        raise TypeError("simulate(model, N=, rho=, events=): rho is required")
    model, N, rho_f, sampling = _check_model_rho(model, N, rho, sampling)
    return model, N, rho_f, sampling


def simulate(model=None, *, N, rho=None, events, C=None, d=None, warmup=None, replications=1, seed=None,
             sampling="with_replacement", kernel="auto", initial=None, policy=None) -> SimulationResult:
    r"""Simulate the ``N``-server system of any model and estimate its blocking.

    Call forms: ``simulate(model, N=..., rho=..., events=...)`` for any
    :class:`~symloss.MeanFieldModel`, and the shorthand ``simulate(policy, N=..., C=..., rho=...,
    d=None, events=...)`` with a policy name (see the module docstring).

    Parameters
    ----------
    model : MeanFieldModel or {"random", "retrial", "power", "jsq"}
        The model (or a shipped policy by name; then ``C`` and, for retrial / power, ``d``).
    N : int
        Number of servers (server-level kernel: ``N * C < 2**31``).
    rho : float
        Load per server :math:`\rho = \lambda/\mu` (``mu = 1``); total arrival rate ``N * rho``.
    events : int
        Measured events per replication (server-level: arrivals, lost or not, and departures;
        count-level: transitions of the counts).
    C, d : int, optional
        Only with a policy name.
    policy : {"random", "retrial", "power", "jsq"}, optional
        The policy name as a keyword (``simulate(policy="power", N=..., C=..., d=..., ...)``), instead
        of ``model``.
    warmup : int, optional
        Events discarded at the start of each replication. Default: server level
        ``max(events // 10, 10 * N * (rho + min(rho, C)))``; count level
        ``max(events // 10, 10 * R0)`` with ``R0`` the total rate at the initial state (about ten
        time units; the initial state is drawn from the random-routing product form for occupancy
        and tail models). A default above ``MAX_DEFAULT_WARMUP`` (2e8 events) and above ten times
        ``events`` is refused with its size (pass ``warmup`` explicitly).
    replications : int
        Independent replications (seeds from ``SeedSequence(seed).spawn(replications)``).
    seed : int, SeedSequence or None
        Identical seed, identical output. ``None`` draws fresh entropy (kept in ``seed_entropy``).
    sampling : {"with_replacement", "without_replacement"}
        Finite-N convention (the model's ``finite_n_transitions``).
    kernel : {"auto", "server", "count"}
        ``"auto"``: the server-level kernel when it realises exactly this definition's chain
        (:func:`server_level_policy`), else the generated count-level kernel; ``"server"`` raises if
        the fast path does not apply; ``"count"`` always runs the generated kernel.
    initial : sequence of int, optional
        Initial counts of a custom model's count-level run (default: ``N`` times its initial state).

    Returns
    -------
    SimulationResult
        The estimate, its 95 % interval, occupancy and the seed to reproduce it.

    Raises
    ------
    TypeError
        If the call form is wrong (no model, both ``model`` and ``policy``, ``C`` with a model) or an
        integer argument is not an integer.
    ValueError
        If an argument is out of range, or ``kernel="server"`` and the server-level kernel does not
        simulate this definition.
    FiniteNModelError
        If a rate is negative or undefined at a visited state, or a transition leaves the state
        space.

    Warns
    -----
    DefinitionMismatchWarning
        When a shipped policy's definition was edited and the generated kernel runs instead.
    ZeroObservationsWarning
        When the blocking (or the lost fraction) is 0 in every replication / batch: its interval is
        then the one-sided exact bound described in the Notes.

    See Also
    --------
    symloss.exact_finite_n, symloss.refined_mean_field

    Notes
    -----
    Server level: the jump chain of the ``N`` servers is simulated exactly: an event is an arrival
    with probability :math:`N\rho/(N\rho + J)` (``J`` busy jobs), otherwise the departure of a
    uniformly chosen busy job; the blocking estimate averages the conditional loss probability
    :math:`b(n)` over arrival epochs (PASTA). Count level: every transition rate is evaluated at
    the current counts, one is drawn with probability proportional to its rate, and :math:`b(n)`
    and the counts are integrated over time with the expected holding time :math:`1/R` as the time
    step. Time averages weight each state by its expected holding time (conditional Monte Carlo).

    Confidence intervals: with ``replications >= 2``, a Student-t interval over the replication
    estimates; with one replication, batch means over 20 consecutive batches of ``events/20``
    events (valid when a batch is much longer than the correlation time). When the blocking
    estimate is 0 in every replication / batch (no arrival met a blocking state), the interval is
    the one-sided exact bound :math:`[0, 1 - 0.025^{1/n}]` with ``n`` the number of replications /
    batches (:func:`symloss.core.stats.proportion_interval`: the units are independent, the arrivals
    are not), and a :class:`~symloss.core.stats.ZeroObservationsWarning` is emitted.

    References
    ----------
    .. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
       Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026).

    Examples
    --------
    >>> r = simulate("retrial", N=100, C=2, rho=1.0, d=2, events=200_000, seed=1)
    >>> 0.05 < r.blocking < 0.1
    True
    >>> from symloss import PowerOfD
    >>> r = simulate(PowerOfD(2, 2), N=100, rho=1.0, events=200_000, seed=1, kernel="count")
    >>> r.kernel, 0.04 < r.blocking < 0.07
    ('count', True)
    """
    if policy is not None:       # the keyword spelling of the shorthand: simulate(policy="power", ...)
        if model is not None:
            raise TypeError("simulate(): give the model (or policy name) once, not both model and policy")
        model = policy
    if model is None:
        raise TypeError("simulate() needs a model or a policy name")
    check_choice(kernel, "kernel", KERNELS)
    check_choice(sampling, "sampling", SAMPLINGS)
    model, N, rho_f, sampling = _parse_call(model, N, C, rho, d, sampling)
    events = check_int(events, "events", min_value=1)
    replications = check_int(replications, "replications", min_value=1)
    if warmup is not None:
        warmup = check_int(warmup, "warmup", min_value=0)
    ss = seed_sequence(seed)
    fast = None if kernel == "count" else server_level_policy(model, N, sampling)
    if kernel == "server" and fast is None:
        raise ValueError(f"kernel='server': the server-level kernel does not simulate {model!r} "
                         "(not a shipped policy, or its definition was edited); use kernel='auto' or 'count'")
    if fast is not None:
        return _simulate_server(model, fast, N, rho_f, events, warmup, replications, ss, sampling)
    return _simulate_count(model, N, rho_f, events, warmup, replications, ss, sampling, initial)


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
        if k is not None:       # one warning: the blocking's, else the lost fraction's
            warnings.warn(f"{name}: {'no loss' if k == 'none observed' else 'only losses'} observed in any of the "
                          f"{units} {what} (estimate {'0' if k == 'none observed' else '1'} in each); the 95% "
                          f"interval is the one-sided exact (Clopper-Pearson) bound ({interval[0]:.4g}, "
                          f"{interval[1]:.4g}) over these {units} independent units, not a Student-t interval; "
                          "run longer (or at a higher load) for a two-sided interval",
                          ZeroObservationsWarning, stacklevel=4)
            break
    one_sided = kind if kind is not None else lost_kind
    return method, est, ci, se, lost_ci, occ_ci, one_sided


def _simulate_server(model, fast, N, rho_f, events, warmup, replications, ss, sampling):
    policy, d = fast
    C = model.C
    if N * C >= 2 ** 31:
        raise ValueError(f"N * C must be < 2**31, got N = {N}, C = {C}")
    if warmup is None:
        warmup = _default_warmup(max(events // 10, int(math.ceil(10 * N * (rho_f + min(rho_f, C))))), events)
    _check_total(events, warmup, replications)
    mod, compile_time = _kernel()
    nb = N_BATCHES if events >= N_BATCHES else 1
    code = mod.POLICY_CODES[policy]
    without = sampling == "without_replacement" and policy in ("retrial", "power")
    # loss probability when m servers are full, from the definition (checked to depend on that count only)
    chain = finite_n_chain(model, N, sampling)
    fb = sp.lambdify([chain.symbols[-1], RHO, NSYM], chain.blocking, modules=[{"Heaviside": _heaviside_np}, "numpy"])
    with np.errstate(all="ignore"):
        btable = np.broadcast_to(np.asarray(fb(np.arange(N + 1, dtype=np.float64), rho_f, float(N)), dtype=np.float64),
                                 (N + 1,)).copy()
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
    method, est, ci, se, lost_ci, occ_ci, one_sided = _intervals(
        rep_sum, rep_arr, rep_lost, rep_time, rep_area, batches, replications, N, blocking, lost, occupancy,
        lambda area, t: area / (N * t[:, None]))
    state_mean = _state_from_occupancy(model, occupancy)
    return SimulationResult(
        policy=policy, N=N, C=C, rho=rho_f, d=d if policy in ("retrial", "power") else None,
        sampling=sampling, blocking=blocking, ci=ci, std_error=se, ci_method=method,
        lost_fraction=lost, lost_ci=lost_ci, occupancy=occupancy, occupancy_ci=occ_ci,
        estimates=np.asarray(est), events=events, warmup=warmup, replications=replications,
        arrivals=total_arr, simulated_time=float(rep_time.sum()), wall_time=wall,
        compile_time=compile_time, seed_entropy=ss.entropy,
        method=("numba event-driven simulation of the N-server system (xoshiro256**), server-level kernel "
                f"{policy!r}: the definition's finite-N chain was checked identical to the one it realises"),
        model=repr(model), kernel="server", state_mean=state_mean, symbols=chain.symbols, ci_one_sided=one_sided)


def _heaviside_np(x, h0=0.5):
    return np.heaviside(x, h0)


def _state_from_occupancy(model, occupancy):
    if getattr(model, "state_kind", "") == "tail":
        return np.cumsum(occupancy[::-1])[::-1][1:]
    return occupancy.copy()


def _initial_counts(chain, rng, rho):
    kind, N = chain.state_kind, chain.N
    if kind in ("occupancy", "tail"):
        occ = rng.multinomial(N, truncated_poisson_weights(chain.C, rho)).astype(np.int64)
        if kind == "occupancy":
            return occ
        return np.cumsum(occ[::-1])[::-1][1:].copy()
    return default_start(chain, rho)


def _occupancy_from_counts(chain, mean_counts):
    N = chain.N
    if chain.state_kind == "occupancy":
        return mean_counts / N
    if chain.state_kind == "tail":
        u = np.concatenate([[float(N)], mean_counts, [0.0]]) / N
        return u[:-1] - u[1:]
    return mean_counts / N


def _simulate_count(model, N, rho_f, events, warmup, replications, ss, sampling, initial):
    from .generated import ERR_ABSORBING, ERR_LEAVES, ERR_NEGATIVE, ERR_UNDEFINED, count_kernel
    chain = finite_n_chain(model, N, sampling)
    if chain.state_kind == "occupancy":
        bad = np.nonzero(chain.jumps.sum(axis=1) != 0)[0]
        if bad.size:
            raise FiniteNModelError(f"{model!r}: {chain.transition_text(int(bad[0]))} changes the number of "
                                    f"servers n_0 + ... + n_C, so it leaves the state space ({chain.space_text()})")
    if initial is not None:
        initial = np.asarray(initial, dtype=np.int64)
        if initial.shape != (chain.n,):
            raise ValueError(f"initial must be a count state of length {chain.n} (symbols {chain.symbols}), "
                             f"got {initial!r}")
    mod, compile_time = count_kernel(chain)
    nb = N_BATCHES if events >= N_BATCHES else 1
    n = chain.n
    rep_sum = np.zeros(replications)
    rep_time = np.zeros(replications)
    rep_ev = np.zeros(replications, np.int64)
    rep_area = np.zeros((replications, n))
    batches = []
    wall = 0.0
    warm_used = None
    for r, rep_ss in enumerate(spawn(ss, replications)):
        init_ss, kern_ss = spawn(rep_ss, 2)
        s = (initial.copy() if initial is not None else _initial_counts(chain, np.random.default_rng(init_ss), rho_f))
        rates0 = np.zeros(len(chain.rates))
        mod.rates_at(s, rho_f, float(N), rates0)
        if warmup is None:
            R0 = float(np.sum(np.clip(rates0, 0, None)))
            w = _default_warmup(max(events // 10, int(math.ceil(10 * R0)) if math.isfinite(R0) else events), events)
        else:
            w = warmup
        if warm_used is None:
            warm_used = w
            _check_total(events, w, replications)
        st = kern_ss.generate_state(4, np.uint64)
        if not st.any():  # pragma: no cover
            st[0] = 1
        b_time = np.zeros(nb)
        b_bsum = np.zeros(nb)
        b_area = np.zeros((nb, n))
        b_ev = np.zeros(nb, np.int64)
        err = np.zeros(3, np.int64)
        t0 = time.perf_counter()
        mod.run(s, rho_f, float(N), N, events, w, st, b_time, b_bsum, b_area, b_ev, err)
        wall += time.perf_counter() - t0
        if err[0]:
            j = int(err[1])
            where = f"at the state {chain.state_text(s)} (N = {N}, rho = {rho_f:g}, event {int(err[2])})"
            what = chain.transition_text(j) if j >= 0 else "the loss probability b(n)"
            if err[0] == ERR_NEGATIVE:
                raise FiniteNModelError(f"{model!r}: the rate of {what} is negative {where}")
            if err[0] == ERR_UNDEFINED:
                raise FiniteNModelError(f"{model!r}: {what} is undefined (NaN or infinite) {where}")
            if err[0] == ERR_LEAVES:
                raise FiniteNModelError(f"{model!r}: {what} leaves the state space {where}; {chain.space_text()}")
            if err[0] == ERR_ABSORBING:
                raise FiniteNModelError(f"{model!r}: every rate is zero {where} (an absorbing state)")
        rep_sum[r] = b_bsum.sum()
        rep_time[r] = b_time.sum()
        rep_ev[r] = b_ev.sum()
        rep_area[r] = b_area.sum(axis=0)
        batches.append((b_bsum, b_time, np.zeros(nb), b_time, b_area))
    T = rep_time.sum()
    blocking = float(rep_sum.sum() / T) if T > 0 else float("nan")
    mean_counts = rep_area.sum(axis=0) / T
    occupancy = _occupancy_from_counts(chain, mean_counts)

    def norm(area, t):
        return np.array([_occupancy_from_counts(chain, area[i] / t[i]) for i in range(area.shape[0])])
    method, est, ci, se, _lost_ci, occ_ci, one_sided = _intervals(
        rep_sum, rep_time, np.zeros(replications), rep_time, rep_area, batches, replications, N, blocking,
        float("nan"), occupancy, norm, lost_observed=False)
    return SimulationResult(
        policy=getattr(model, "name", type(model).__name__), N=N, C=getattr(model, "C", None), rho=rho_f,
        d=getattr(model, "d", None) if getattr(model, "name", "") in ("retrial", "power") else None,
        sampling=sampling, blocking=blocking, ci=ci, std_error=se, ci_method=method,
        lost_fraction=float("nan"), lost_ci=(float("nan"), float("nan")), occupancy=occupancy,
        occupancy_ci=occ_ci, estimates=np.asarray(est), events=events, warmup=warm_used,
        replications=replications, arrivals=0, simulated_time=float(T), wall_time=wall,
        compile_time=compile_time, seed_entropy=ss.entropy,
        method=("count-level simulation of the finite-N chain, numba kernel generated from the definition "
                f"({chain.source}); blocking = time average of b(n), expected holding times (xoshiro256**)"),
        model=repr(model), kernel="count", state_mean=mean_counts / N, symbols=chain.symbols,
        ci_one_sided=one_sided)
