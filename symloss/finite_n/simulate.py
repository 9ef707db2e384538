r"""Finite-N simulation of any model: a count-level kernel generated from the definition, and the
hand-written server-level kernels of the shipped policies as a fast path checked against it.

Any :class:`~symloss.MeanFieldModel`: the count chain of :mod:`symloss.finite_n.chain` is simulated by
a numba kernel generated from its rates (:mod:`symloss.finite_n.generated`); the blocking estimate is
the time average of the definition's conditional loss probability ``b(n)`` (PASTA), with the expected
holding time ``1/R`` as the time step (conditional Monte Carlo; ``symloss.finite_n.sim_count``).
For the shipped policies the server-level kernel (``symloss.finite_n.sim_server``) is used instead
when, and only when, the model's finite-N transitions and loss probability are *identical* (SymPy) to
the count chain that kernel realises; an edited definition (a subclass with another rate) falls back
to the generated kernel with a :class:`~symloss.DefinitionMismatchWarning`.

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

from ..core.docstrings import fill_doc
from ..core.random import seed_sequence
from ..core.validation import check_choice, check_int
from . import sim_count, sim_result, sim_server
from ._doctests import doctest_table
from .common import SAMPLINGS, _check_common, _check_model_rho, policy_model

# the simulator's parts, re-exported here (their old home): the result and intervals, the server-level
# fast path, the count-level kernel run
from .sim_count import _initial_counts, _occupancy_from_counts, _simulate_count  # noqa: F401
from .sim_result import (  # noqa: F401
    _MAX_TOTAL_EVENTS,
    MAX_DEFAULT_WARMUP,
    SimulationResult,
    _check_total,
    _default_warmup,
    _intervals,
)
from .sim_server import (  # noqa: F401
    _FAST_CACHE,
    _heaviside_np,
    _initial_occupancy,
    _kernel,
    _mismatch_warning,
    _same,
    _server_template,
    _simulate_server,
    _state_from_occupancy,
    server_level_policy,
)

__all__ = ["KERNELS", "MAX_DEFAULT_WARMUP", "SimulationResult", "server_level_policy", "simulate"]

KERNELS = ("auto", "server", "count")

#: the doctests of the simulator's parts run under this module's name too
__test__ = doctest_table(sim_result, sim_server, sim_count)


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


@fill_doc
def simulate(model=None, *, N, rho=None, events, C=None, d=None, warmup=None, replications=1, seed=None,
             sampling="with_replacement", kernel="auto", initial=None, policy=None,
             progress=None) -> SimulationResult:
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
    progress : callable, optional
        Called as ``progress(done, total)`` with the events simulated so far and the events of the
        whole call, warm-up included (``total`` is exact once the last replication has started: a
        default warm-up depends on each replication's initial state). The count-level kernel then
        runs in pieces (each warm-up in four, the measured events one batch at a time), with results
        bit-identical to a run without ``progress``; the server-level kernel runs in ranges of 2^21
        events (resumable: every piece of its state is carried between calls, so again bit-identical).

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

    {{references_retrial}}

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
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable progress(done, total) or None, got {progress!r}")
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
        return _simulate_server(model, fast, N, rho_f, events, warmup, replications, ss, sampling, progress)
    return _simulate_count(model, N, rho_f, events, warmup, replications, ss, sampling, initial, progress)


