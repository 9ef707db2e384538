r"""Exact finite-N solution: the stationary law of the count chain generated from a model's definition.

The numba Gauss-Seidel kernel (private ``_gs_kernel``) is imported on first use, not at import: it
loads numba and its machine code from numba's disk cache, which ``import symloss`` should not pay.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

from ..core.docstrings import fill_doc
from ..core.results import ResultMixin
from ..core.stats import truncated_poisson_log_weights, truncated_poisson_weights
from ..core.validation import check_choice, check_int
from .chain import (
    FiniteNChain,
    StateIndex,
    as_exact_rho,
    custom_in_space,
    default_start,
    enumerate_states,
    explore_states,
    finite_n_chain,
    n_states_estimate,
)
from .common import SAMPLINGS, _check_common, _check_model_rho, policy_model
from .states import tails_from_occupancy

__all__ = ["ExactFiniteNResult", "exact_finite_n"]

METHODS = ("auto", "lu", "gauss-seidel", "exact")


@dataclass
class ExactFiniteNResult(ResultMixin):
    r"""Stationary solution of the finite-N count chain (:func:`exact_finite_n`).

    ``blocking`` is :math:`B_N = \sum_n \pi(n) b(n)` (float64; ``blocking_exact`` holds the exact
    rational for ``method="exact"``); ``occupancy[k]`` is :math:`E[n_k]/N`, the fraction of servers
    holding ``k`` jobs (occupancy and tail models; for a custom model the mean state
    ``state_mean``); ``residual`` is :math:`\max |\pi Q|` of the computed distribution.
    ``states`` and ``pi`` (not in ``to_dict``) are the states (rows, in the order of ``symbols``) and
    their stationary probabilities.

    Parameters
    ----------
    policy, model : str
        The policy name (shipped policies) and the model's repr.
    N : int
        Number of servers.
    C, d : int or None
        Capacity and attempts / samples (``None`` when the model has none).
    rho : float
        Load per server.
    sampling : str
        The finite-N sampling convention.
    blocking : float
        :math:`B_N` (float64).
    blocking_exact : fractions.Fraction or None
        The exact rational :math:`B_N` (``method="exact"``).
    occupancy : numpy.ndarray
        :math:`E[n_k]/N`, ``k = 0..C`` (occupancy and tail models).
    state_mean : numpy.ndarray
        :math:`E[n]/N` in the model's variables.
    n_states : int
        Size of the chain.
    residual : float
        :math:`\max |\pi Q|` of the computed distribution.
    method : str
        The solver that ran.
    symbols : tuple of sympy.Symbol
        The count variables.
    chain_source : str
        ``"mean-field rates x N"`` or ``"finite_n_transitions"``.
    wall_time : float
        Seconds.
    states, pi : numpy.ndarray
        The states (rows) and their stationary probabilities (not in ``to_dict``).
    """

    policy: str
    N: int
    C: int | None
    rho: float
    d: int | None
    sampling: str
    blocking: float
    occupancy: np.ndarray
    n_states: int
    residual: float
    method: str = ("sparse LU (SuperLU, minimum degree on A+A^T) of the balance equations of the "
                   "occupancy-count CTMC")
    model: str = ""
    blocking_exact: Fraction | None = None
    state_mean: np.ndarray = field(default_factory=lambda: np.zeros(0))
    symbols: tuple = ()
    chain_source: str = ""
    wall_time: float = 0.0
    states: np.ndarray = field(default=None, repr=False)
    pi: np.ndarray = field(default=None, repr=False)

    def to_dict(self) -> dict:
        """Plain data (the exact blocking as ``"p/q"``; no ``states``/``pi``), for JSON.

        Returns
        -------
        dict
        """
        return {"policy": self.policy, "model": self.model, "N": self.N, "C": self.C, "rho": self.rho,
                "d": self.d, "sampling": self.sampling, "blocking": self.blocking,
                "blocking_exact": None if self.blocking_exact is None else _fraction_text(self.blocking_exact),
                "occupancy": self.occupancy.tolist(), "state_mean": self.state_mean.tolist(),
                "symbols": [str(s) for s in self.symbols], "n_states": self.n_states,
                "residual": self.residual, "method": self.method, "chain_source": self.chain_source,
                "wall_time": self.wall_time}


def _fraction_text(q: Fraction) -> str:
    """``"p/q"`` without Python's limit on the digits of int -> str (python-flint prints big integers)."""
    from flint import fmpz
    return f"{fmpz(q.numerator)}/{fmpz(q.denominator)}"


_GS_MAX_STATES = 200_000   # Gauss-Seidel beyond the LU limit, up to here (N = 100 at C = 3: 176,851 states, ~1 min)
_EXACT_MAX_STATES = 1_500  # exact rationals (dense fraction-free / Dixon solve in python-flint)


def _gauss_seidel_stationary(AT_indptr, AT_indices, AT_data, out_rate, order, pi, tol, max_sweeps):
    """Symmetric Gauss-Seidel for pi Q = 0 (numba kernel :func:`._gs_kernel.gauss_seidel_sweeps`)."""
    from ._gs_kernel import gauss_seidel_sweeps  # on first use: numba (see the module docstring)
    return gauss_seidel_sweeps(AT_indptr, AT_indices, AT_data, out_rate, order, pi, tol, max_sweeps)


def _n_states(N: int, C: int) -> int:
    return math.comb(N + C, C)


def _max_states(C: int) -> int:
    """Default state limit of the sparse LU (a few seconds on one core); ``C`` = free dimensions."""
    return {1: 1_000_000, 2: 200_000, 3: 30_000}.get(C, 8_000)


def _free_dims(chain: FiniteNChain) -> int:
    if chain.state_kind in ("occupancy", "tail"):
        return int(chain.C)
    return max(1, chain.n - len(chain.model._invariants))


def _jobs(chain: FiniteNChain, S: np.ndarray) -> np.ndarray | None:
    """Total number of jobs per state (occupancy / tail models), else None."""
    if chain.state_kind == "occupancy":
        return S @ np.arange(chain.C + 1)
    if chain.state_kind == "tail":
        return S.sum(axis=1)
    return None


def _occupancy(chain: FiniteNChain, mean_counts: np.ndarray) -> np.ndarray:
    N = chain.N
    if chain.state_kind == "occupancy":
        return mean_counts / N
    if chain.state_kind == "tail":
        u = np.concatenate([[N], mean_counts, [0.0]]) / N
        return u[:-1] - u[1:]
    return mean_counts / N


def _product_form_ref(chain: FiniteNChain, index: StateIndex, rho: float) -> int | None:
    """Index of the product-form mode (independent M/M/C/C servers): a likely state, so that no
    ratio pi(n)/pi(ref) overflows."""
    if chain.state_kind not in ("occupancy", "tail"):
        return None
    C, N = chain.C, chain.N
    p = truncated_poisson_weights(C, rho)
    guess = np.floor(N * p / p.sum()).astype(np.int64)
    guess[int(np.argmax(p))] += N - guess.sum()
    if chain.state_kind == "tail":
        guess = tails_from_occupancy(guess)
    i = int(index.lookup(guess[None, :])[0])
    return i if i >= 0 else None


def build_generator(chain: FiniteNChain, rho: float, *, max_states: int, initial=None):
    """States, rates and the sparse generator of the chain at load ``rho`` (floats), after the checks
    of :meth:`FiniteNChain.check_rates`. Returns ``(S, index, rows, cols, vals, R)``."""
    if chain.state_kind in ("occupancy", "tail"):
        S = enumerate_states(chain)
        index = StateIndex(S, chain.N)

        def in_space(T):
            return index.lookup(T) >= 0
    else:
        start = default_start(chain, rho) if initial is None else np.asarray(initial, dtype=np.int64)
        if start.shape != (chain.n,):
            raise ValueError(f"initial must be a count state of length {chain.n} (symbols {chain.symbols}), "
                             f"got {initial!r}")
        S = explore_states(chain, start, rho, max_states)
        index = StateIndex(S, chain.N)
        space = custom_in_space(chain)

        def in_space(T):
            return space(T)
    R = chain.rate_matrix(S, rho)
    R = chain.check_rates(S, R, rho, in_space)
    rows, cols, vals = [], [], []
    for j in range(R.shape[1]):
        pos = np.nonzero(R[:, j] > 0)[0]
        if pos.size == 0:
            continue
        tgt = index.lookup(S[pos] + chain.jumps[j])
        if np.any(tgt < 0):    # pragma: no cover - excluded by check_rates
            i = pos[int(np.argmax(tgt < 0))]
            raise ValueError(f"{chain.transition_text(j)} leaves the explored states from {chain.state_text(S[i])}")
        rows.append(pos)
        cols.append(tgt)
        vals.append(R[pos, j])
    if rows:
        rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    else:
        rows = cols = np.zeros(0, np.int64)
        vals = np.zeros(0)
    return S, index, rows, cols, vals, R


def _parse_call(model, N, args, kw):
    """Both call forms -> (model, N, rho, rho_given, policy name or None, sampling)."""
    rho, C, d, sampling = kw["rho"], kw["C"], kw["d"], kw["sampling"]
    if isinstance(model, str):
        pos = list(args)
        if len(pos) > 3:
            raise TypeError(f"exact_finite_n(policy, N, C, rho, d) takes at most 5 positional arguments, got {2 + len(pos)}")
        names = ["C", "rho", "d"]
        given = dict(C=C, rho=rho, d=d)
        for name, v in zip(names, pos):
            if given[name] is not None:
                raise TypeError(f"exact_finite_n() got multiple values for argument {name!r}")
            given[name] = v
        if given["C"] is None or given["rho"] is None:
            raise TypeError("exact_finite_n(policy, N, C, rho, d=None): C and rho are required with a policy name")
        rho_given = _decimal(given["rho"], kw)
        policy, N, C, rho_f, d, sampling = _check_common(model, N, given["C"], rho_given, given["d"], sampling)
        _early_size_check(N, C, kw)
        return policy_model(policy, C, d), N, rho_f, rho_given, sampling
    if C is not None or d is not None:
        raise TypeError("C and d are given by the model; pass them only with a policy name "
                        "(exact_finite_n(policy, N, C, rho, d))")
    if len(args) > 1:
        raise TypeError(f"exact_finite_n(model, N, rho) takes 3 positional arguments, got {2 + len(args)}")
    if args:
        if rho is not None:
            raise TypeError("exact_finite_n() got multiple values for argument 'rho'")
        rho = args[0]
    if rho is None:
        raise TypeError("exact_finite_n(model, N, rho): rho is required")
    rho = _decimal(rho, kw)
    model, N, rho_f, sampling = _check_model_rho(model, N, rho, sampling)
    if getattr(model, "state_kind", "custom") in ("occupancy", "tail"):
        _early_size_check(N, model.C, kw)
    return model, N, rho_f, rho, sampling


def _decimal(rho, kw):
    """A decimal string is an exact rational for ``method="exact"``."""
    if isinstance(rho, str) and kw.get("method") == "exact":
        try:
            return Fraction(rho.strip())
        except ValueError:
            raise ValueError(f"rho must be a rational number for method='exact', got {rho!r}") from None
    return rho


def _early_size_check(N, C, kw):
    """Refuse an occupancy / tail chain that is too large before any model or state is built."""
    method, max_states = kw.get("method", "auto"), kw.get("max_states")
    if max_states is not None:
        max_states = check_int(max_states, "max_states", min_value=1)
    if method == "exact":
        hard = _EXACT_MAX_STATES if max_states is None else max_states
    else:
        limit = _max_states(C) if max_states is None else max_states
        hard = limit if method == "lu" else max(limit, _GS_MAX_STATES)
    est = n_states_estimate("occupancy", N, C)
    if est > 1.01 * hard:
        raise ValueError(f"the count chain has C(N+C, C) ~ {est:.4g} states for N = {N}, C = {C}; "
                         f"exact_finite_n(method={method!r}) handles at most {hard} states; use simulate() or "
                         "refined_mean_field() instead")


@fill_doc
def exact_finite_n(model, N, *args, rho=None, C=None, d=None, sampling="with_replacement", method="auto",
                   max_states=None, initial=None) -> ExactFiniteNResult:
    r"""Exact stationary blocking of the ``N``-server system of any model (small chains).

    Two call forms: ``exact_finite_n(model, N, rho)`` for any :class:`~symloss.MeanFieldModel`, and the
    shorthand ``exact_finite_n(policy, N, C, rho, d=None)`` with a policy name ``"random"``,
    ``"retrial"``, ``"power"``, ``"jsq"`` (the shipped :class:`~symloss.RandomRouting`,
    :class:`~symloss.RetrialOfD`, :class:`~symloss.PowerOfD`, :class:`~symloss.JSQ`).

    The count chain is generated from the model's definition (:mod:`symloss.finite_n.chain`): a
    transition ``(jump, rate)`` moves the counts :math:`n = N x` by ``jump`` at rate
    :math:`N \beta(n/N)`, or at the model's finite-N rate (:meth:`~symloss.MeanFieldModel.finite_n_transitions`,
    e.g. sampling without replacement). Its states are enumerated (compositions for
    ``state_kind="occupancy"``, monotone tails for ``"tail"``, breadth-first search from
    ``initial`` for ``"custom"``), every rate is checked at every state (negative or undefined
    rates and transitions that leave the state space raise, naming the state and the transition),
    and the balance equations :math:`\pi Q = 0` are solved with one unknown fixed at a likely
    state:

    * ``"lu"``: sparse LU (SuperLU, minimum degree on :math:`A + A^T`);
    * ``"gauss-seidel"``: symmetric Gauss-Seidel (numba), states ordered by the number of jobs,
      started from the product form, until every probability changes by less than ``1e-13``
      relative in a sweep pair;
    * ``"exact"``: exact rationals (python-flint ``fmpq_mat``; ``rho`` an exact rational: int,
      ``Fraction``, SymPy ``Rational`` or a decimal string); ``blocking_exact`` is the rational
      :math:`B_N`;
    * ``"auto"``: LU up to the state limit, Gauss-Seidel beyond (up to 200 000 states).

    :math:`B_N = \sum_n \pi(n) b(n)` with ``b`` the definition's conditional loss probability
    (PASTA). The answer is returned only when :math:`\max|\pi Q|` is at the rounding level.

    Parameters
    ----------
    model : MeanFieldModel or {"random", "retrial", "power", "jsq"}
        The model, or a shipped policy by name (then ``C``, ``rho`` and, for retrial / power, ``d``).
    N : int
        Servers, ``>= 1``.
    *args
        The remaining positional arguments of the two call forms: ``rho`` after a model;
        ``C, rho[, d]`` after a policy name.
    rho : float (or exact rational for ``method="exact"``)
        Load per server, ``> 0``.
    C, d : int
        Only with a policy name: capacity and attempts / samples (retrial / power).
    sampling : {"with_replacement", "without_replacement"}
        Passed to the model's ``finite_n_transitions`` (the shipped models give the
        without-replacement rates).
    method : {"auto", "lu", "gauss-seidel", "exact"}
        The solver (see above).
    max_states : int, optional
        State limit of the direct solve (default by the number of free dimensions ``C``: 1 000 000
        for ``C = 1``, 200 000 for ``C = 2``, 30 000 for ``C = 3``, 8 000 beyond; for
        ``method="exact"`` 1 500). ``"auto"`` switches to Gauss-Seidel past it, up to 200 000
        states; larger chains raise before any work (use :func:`symloss.simulate`).
    initial : sequence of int, optional
        Start of the state search of a custom model (default: ``N`` times ``initial_state(rho)`` or
        the mean-field fixed point, rounded onto the invariants).

    Returns
    -------
    ExactFiniteNResult
        :math:`B_N`, the mean occupancy, the stationary distribution and the residual.

    Raises
    ------
    TypeError
        If the call form is wrong (missing ``rho``, ``C`` with a model, a float ``rho`` with
        ``method="exact"``).
    ValueError
        If an argument is out of range or the chain is too large (before any work), or the loss
        probability is not in ``[0, 1]`` at a state.
    FiniteNModelError
        If a rate is negative or undefined at a state, or a transition leaves the state space.
    ArithmeticError
        If the solve does not reach a residual at the rounding level.

    See Also
    --------
    symloss.simulate, symloss.refined_mean_field, symloss.finite_n_chain, symloss.blocking_rational_function

    {{references_retrial}}

    Examples
    --------
    For ``C = 1`` random routing is an Engset system whose blocking is exactly
    :math:`\rho/(1+\rho)` for every ``N``:

    >>> round(exact_finite_n("random", 10, 1, 1.0).blocking, 12)
    0.5
    >>> from fractions import Fraction
    >>> from symloss import RandomRouting
    >>> exact_finite_n(RandomRouting(2), 4, Fraction(1), method="exact").blocking_exact   # E(2, 1)
    Fraction(1, 5)
    """
    check_choice(method, "method", METHODS)
    check_choice(sampling, "sampling", SAMPLINGS)
    model, N, rho_f, rho_given, sampling = _parse_call(model, N, args, {"rho": rho, "C": C, "d": d,
                                                                         "sampling": sampling, "method": method,
                                                                         "max_states": max_states})
    rho_q = None
    if method == "exact":
        rho_q, rho_frac = as_exact_rho(rho_given)
        rho_f = float(rho_frac)
    t0 = time.perf_counter()
    chain = finite_n_chain(model, N, sampling)
    free = _free_dims(chain)
    if method == "exact":
        limit = _EXACT_MAX_STATES if max_states is None else check_int(max_states, "max_states", min_value=1)
        hard = limit
    else:
        limit = _max_states(free) if max_states is None else check_int(max_states, "max_states", min_value=1)
        hard = limit if method == "lu" else max(limit, _GS_MAX_STATES)
    if chain.state_kind in ("occupancy", "tail"):
        est = n_states_estimate(chain.state_kind, N, chain.C)
        if est > 1.01 * hard:
            raise ValueError(f"the count chain of {model!r} has C(N+C, C) ~ {est:.4g} states for N = {N}, "
                             f"C = {chain.C}; exact_finite_n(method={method!r}) handles at most {hard} states "
                             + ("(sparse LU up to the limit, Gauss-Seidel beyond); " if method == "auto" else "")
                             + "use simulate() or refined_mean_field() instead")
        M = _n_states(N, chain.C)
        if M > hard:
            raise ValueError(f"the count chain of {model!r} has {M} states for N = {N}, C = {chain.C}; "
                             f"exact_finite_n(method={method!r}) handles at most {hard} states; use simulate()")
    S, index, rows, cols, vals, R = build_generator(chain, rho_f, max_states=hard, initial=initial)
    M = S.shape[0]
    out = np.bincount(rows, weights=vals, minlength=M)
    idx = np.arange(M)
    if method == "exact":
        pi, b_exact, solver = _solve_exact(chain, S, index, rows, cols, R, rho_q)
    else:
        use_gs = method == "gauss-seidel" or (method == "auto" and M > limit)
        if M == 1:
            pi, solver = np.ones(1), "single state"
        elif use_gs:
            pi, solver = _solve_gs(chain, S, rows, cols, vals, out, rho_f, limit if method == "auto" else None)
        else:
            pi, solver = _solve_lu(chain, S, index, rows, cols, vals, out, rho_f)
        b_exact = None
    Q = sps.csr_matrix((np.concatenate([vals, -out]), (np.concatenate([rows, idx]), np.concatenate([cols, idx]))),
                       shape=(M, M))
    residual = float(np.max(np.abs(Q.T @ pi))) if M > 1 else 0.0
    scale = float(out.max()) if M > 1 else 1.0
    if residual > 1e-9 * max(scale, 1.0):
        raise ArithmeticError(f"exact_finite_n: the stationary solve of {model!r} (N = {N}, rho = {rho_f:g}) left a "
                              f"residual max|pi Q| = {residual:.3g} (rates up to {scale:.3g}); the chain may not "
                              "be irreducible")
    bvals = chain.blocking_values(S, rho_f)
    if not np.all(np.isfinite(bvals)) or np.any(bvals < -1e-15) or np.any(bvals > 1 + 1e-12):
        i = int(np.argmax(~np.isfinite(bvals) | (bvals < -1e-15) | (bvals > 1 + 1e-12)))
        raise ValueError(f"{model!r}: the loss probability b(n) = {chain.blocking} is {bvals[i]} at the state "
                         f"{chain.state_text(S[i])}, not a probability")
    blocking = float(b_exact) if b_exact is not None else float(pi @ bvals)
    mean = pi @ S
    return ExactFiniteNResult(
        policy=getattr(model, "name", type(model).__name__), N=N, C=getattr(model, "C", None), rho=rho_f,
        d=getattr(model, "d", None) if getattr(model, "name", "") in ("retrial", "power") else None,
        sampling=sampling, blocking=blocking, occupancy=_occupancy(chain, mean), n_states=M, residual=residual,
        method=solver, model=repr(model), blocking_exact=b_exact, state_mean=mean / N, symbols=chain.symbols,
        chain_source=chain.source, wall_time=time.perf_counter() - t0, states=S, pi=pi)


def _solve_lu(chain, S, index, rows, cols, vals, out, rho):
    M = S.shape[0]
    A = sps.csc_matrix((np.concatenate([vals, -out]), (np.concatenate([cols, np.arange(M)]),
                                                       np.concatenate([rows, np.arange(M)]))), shape=(M, M))
    ref = _product_form_ref(chain, index, rho)
    if ref is None:
        ref = 0
    keep = np.ones(M, bool)
    keep[ref] = False
    Ak = A[keep][:, keep].tocsc()
    try:
        lu = spla.splu(Ak, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.1, options=dict(SymmetricMode=True))
    except RuntimeError as exc:
        raise ArithmeticError(f"exact_finite_n: the balance equations are singular ({exc}); the chain of "
                              f"{chain.model!r} is not irreducible from the fixed state") from None
    pi = np.empty(M)
    pi[ref] = 1.0
    pi[keep] = lu.solve(-A[keep][:, [ref]].toarray().ravel())
    if not np.all(np.isfinite(pi)) or np.min(pi) < -1e-10 * np.max(pi):
        raise ArithmeticError("exact_finite_n: the sparse solve returned a distribution with negative or "
                              f"non-finite mass (min {np.min(pi):.3g})")
    pi = np.clip(pi, 0, None)
    pi /= pi.sum()
    return pi, ("sparse LU (SuperLU, minimum degree on A+A^T) of the balance equations of the count chain "
                "generated from the definition")


def _solve_gs(chain, S, rows, cols, vals, out, rho, limit):
    M = S.shape[0]
    AT = sps.csr_matrix((vals, (cols, rows)), shape=(M, M))
    jobs = _jobs(chain, S)
    order = (np.argsort(jobs, kind="stable") if jobs is not None else np.arange(M)).astype(np.int64)
    if chain.state_kind == "occupancy":
        logpi = S @ truncated_poisson_log_weights(chain.C, rho)
    elif chain.state_kind == "tail":
        occ = np.concatenate([chain.N - S[:, :1], S[:, :-1] - S[:, 1:], S[:, -1:]], axis=1)
        logpi = occ @ truncated_poisson_log_weights(chain.C, rho)
    else:
        logpi = np.zeros(M)
    pi = np.exp(logpi - logpi.max())
    pi /= pi.sum()
    if np.any(out <= 0):
        i = int(np.argmax(out <= 0))
        raise ArithmeticError(f"exact_finite_n: the state {chain.state_text(S[i])} is absorbing (no transition "
                              "out): the chain has no unique stationary law")
    sweeps, change = _gauss_seidel_stationary(AT.indptr.astype(np.int64), AT.indices.astype(np.int64), AT.data,
                                              out, order, pi, 1e-13, 20000)
    if change >= 1e-13:
        raise ArithmeticError(f"exact_finite_n: Gauss-Seidel did not converge in {sweeps} sweeps "
                              f"(relative change {change:.2e})")
    where = f"; used beyond {limit} states" if limit is not None else ""
    return pi, (f"symmetric Gauss-Seidel on the balance equations ({sweeps} sweeps, relative change < 1e-13), "
                f"states ordered by total jobs{where}")


def _solve_exact(chain, S, index, rows, cols, R, rho_q):
    """pi Q = 0 in exact rationals: every rate re-evaluated exactly (checked >= 0), one unknown fixed,
    the dense system solved by python-flint (Dixon p-adic lifting), the solution checked exactly."""
    from flint import fmpq, fmpq_mat
    M = S.shape[0]
    Q = {}
    out = [fmpq(0)] * M
    for j in range(R.shape[1]):
        for i in np.nonzero(R[:, j] > 0)[0]:
            v = chain.exact_rate(j, S[i], rho_q)
            if v < 0:
                raise ValueError(f"{chain.transition_text(j)}: exact rate {v} < 0 at {chain.state_text(S[i])}")
            if v == 0:
                continue
            t = int(index.lookup((S[i] + chain.jumps[j])[None, :])[0])
            Q[(int(i), t)] = Q.get((int(i), t), fmpq(0)) + v
            out[int(i)] += v
    if M == 1:
        pi = [fmpq(1)]
    else:
        ref = _product_form_ref(chain, index, float(rho_q.p) / float(rho_q.q))
        ref = 0 if ref is None else ref
        others = [i for i in range(M) if i != ref]
        pos = {s: k for k, s in enumerate(others)}
        A = fmpq_mat(M - 1, M - 1)
        b = fmpq_mat(M - 1, 1)
        for (i, t), v in Q.items():        # balance of state t: sum_i pi_i q_it - pi_t out_t = 0
            if t == ref:
                continue
            if i == ref:
                b[pos[t], 0] -= v
            else:
                A[pos[t], pos[i]] += v
        for s in others:
            A[pos[s], pos[s]] -= out[s]
        try:
            x = A.solve(b, algorithm="dixon")
        except ZeroDivisionError:
            raise ArithmeticError(f"exact_finite_n: the balance equations of {chain.model!r} are singular "
                                  "(the chain is not irreducible)") from None
        pi = [fmpq(0)] * M
        pi[ref] = fmpq(1)
        for s in others:
            pi[s] = x[pos[s], 0]
    Z = sum(pi, fmpq(0))
    pi = [p / Z for p in pi]
    bal = [-pi[i] * out[i] for i in range(M)]
    for (i, t), v in Q.items():
        bal[t] += pi[i] * v
    if any(v != 0 for v in bal) or any(p < 0 for p in pi):
        raise ArithmeticError("exact_finite_n: the exact solution does not satisfy pi Q = 0")  # pragma: no cover
    B = sum((pi[i] * chain.exact_blocking(S[i], rho_q) for i in range(M)), fmpq(0))
    pif = np.array([float(p.p) / float(p.q) if abs(int(p.q)) < 2 ** 1000 else float(Fraction(int(p.p), int(p.q)))
                    for p in pi])
    return (pif / pif.sum(), Fraction(int(B.p), int(B.q)),
            "exact rationals (python-flint fmpq_mat, Dixon p-adic solve; pi Q = 0 checked exactly)")
