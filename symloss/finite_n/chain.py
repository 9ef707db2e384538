r"""The finite-N count chain of a model, generated from its definition.

For a :class:`~symloss.MeanFieldModel` with state variables :math:`x = (x_1, \dots, x_n)` (fractions
of the ``N`` servers) the ``N``-server system is the continuous-time Markov chain of the *counts*
:math:`n = N x` (integers). Its transitions are generated here from the definition and nowhere else:

* if the model gives finite-N rates (:meth:`~symloss.MeanFieldModel.finite_n_transitions` returns a
  list, e.g. sampling without replacement), the chain jumps ``n -> n + jump`` at the given total rate
  (a SymPy expression in :meth:`~symloss.MeanFieldModel.count_symbols` and :math:`\rho`);
* otherwise it jumps ``n -> n + jump`` at rate :math:`N\,\beta_\ell(n/N)`, the mean-field rate of the
  transition times ``N`` (a density-dependent population process in Kurtz's sense).

An arrival is lost in state ``n`` with probability ``b(n)``:
:meth:`~symloss.MeanFieldModel.finite_n_blocking_expr` when given, else ``blocking_expr()`` at
``n / N``. The stationary blocking is :math:`B_N = E_\pi[b(n)]` (PASTA).

State space (checked before any solve): ``state_kind="occupancy"``: the compositions
:math:`n_0 + \dots + n_C = N`; ``"tail"``: the monotone tails :math:`N \ge U_1 \ge \dots \ge U_C \ge 0`;
``"custom"``: the integer points with :math:`0 \le n_i \le N` that satisfy the model's invariants and
are reachable from an initial state (breadth-first search). A rate that is negative or undefined
(NaN, infinite) at a state, or a transition of positive rate that leaves the state space, raises
:class:`FiniteNModelError` naming the state and the transition.

Size: the chain is generated in one pass (state enumeration, rates from the definition, generator
assembly and its checks); the parts share the enumeration's data.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np
import sympy as sp

from ..core.codegen import numpy_lambdify
from ..core.docstrings import fill_doc
from ..core.identity import freeze
from ..core.model import RHO, MeanFieldModel, ModelDefinitionError, _nonzeros, exact_expr, unknown_symbols_message
from ..core.registry import declare_family
from ..core.validation import integer
from ..meanfield.models import JSQ
from . import exact_code, states
from ._docfragments import FINITE_N_DOCS
from ._doctests import doctest_table

# the exact printers and the state spaces, re-exported here (their old home)
from .exact_code import _FmpqPrinter, _heaviside_exact, as_exact_rho, exact_lambdify  # noqa: F401
from .states import (  # noqa: F401
    StateIndex,
    _compositions,
    custom_in_space,
    default_start,
    enumerate_states,
    explore_states,
    n_states_estimate,
    tails_from_occupancy,
)

__all__ = ["NSYM", "FiniteNChain", "FiniteNModelError", "count_symbols", "enumerate_states", "finite_n_chain"]

# the finite-N family of the one fast-path registry: its subjects are ``(model, N, sampling)``, the model's
# finite-N chain at N servers (the server-level kernel of ``symloss.finite_n.sim_server`` registers there)
declare_family("finite_n", MeanFieldModel)

#: the number of servers as a symbol (the mean-field rates times N are generated once for every N)
NSYM = sp.Symbol("N_servers", positive=True, integer=True)

SAMPLINGS = ("with_replacement", "without_replacement")
#: the doctests of the moved parts run under this module's name too
__test__ = doctest_table(states, exact_code)

_ZERO_TOL = 1e-30   # |rate| below this (relative, at 50 digits) at a suspicious state counts as an exact 0


class FiniteNModelError(ModelDefinitionError):
    """The finite-N chain of a model is ill defined: a rate negative or undefined at a reachable
    state, or a transition of positive rate that leaves the state space (the message names the
    state and the transition)."""


# --------------------------------------------------------------------------------------------------
# the chain
# --------------------------------------------------------------------------------------------------

@dataclass
class FiniteNChain:
    r"""The finite-N count chain of a model (see the module docstring).

    Parameters
    ----------
    model : MeanFieldModel
        The definition the chain is generated from.
    N : int
        Number of servers.
    sampling : str
        The finite-N convention (``"with_replacement"`` or ``"without_replacement"``).
    symbols : tuple of sympy.Symbol
        The count variables (``model.count_symbols()``).
    jumps : numpy.ndarray
        ``(m, n)`` integer jumps of the counts.
    rates : list of sympy.Expr
        Total rates in the counts, :math:`\rho` and :data:`NSYM` (parameters substituted).
    blocking : sympy.Expr
        The conditional loss probability ``b(n)``.
    source : str
        ``"mean-field rates x N"`` or ``"finite_n_transitions"``.

    See Also
    --------
    finite_n_chain, symloss.exact_finite_n, symloss.simulate

    Examples
    --------
    >>> from symloss import RetrialOfD, finite_n_chain
    >>> chain = finite_n_chain(RetrialOfD(2, 2), 3)
    >>> chain.source, chain.n, chain.blocking
    ('mean-field rates x N', 3, n2**2/N_servers**2)
    """

    model: MeanFieldModel
    N: int
    sampling: str
    symbols: tuple
    jumps: np.ndarray
    rates: list
    blocking: sp.Expr
    source: str
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        """Number of count variables."""
        return len(self.symbols)

    @property
    def args(self) -> list:
        """Arguments of the rate and blocking expressions: the counts, ``rho`` and :data:`NSYM`."""
        return list(self.symbols) + [RHO, NSYM]

    @property
    def state_kind(self) -> str:
        """The model's state kind (``"occupancy"``, ``"tail"`` or ``"custom"``)."""
        return getattr(self.model, "state_kind", "custom")

    @property
    def C(self):
        """The model's capacity (``None`` for a custom model without one)."""
        return getattr(self.model, "C", None)

    def transition_text(self, j: int) -> str:
        """Transition ``j`` in words (for error messages).

        Parameters
        ----------
        j : int
            Index of the transition.

        Returns
        -------
        str
        """
        jump = {str(s): int(v) for s, v in zip(self.symbols, self.jumps[j]) if v != 0}
        return f"transition {j} (jump {jump}, rate {self.rates[j]})"

    def state_text(self, state) -> str:
        """A count state in words, e.g. ``{n0: 1, n1: 2}``.

        Parameters
        ----------
        state : array_like of int
            The counts.

        Returns
        -------
        str
        """
        return "{" + ", ".join(f"{s}: {int(v)}" for s, v in zip(self.symbols, state)) + "}"

    # vectorised evaluators ---------------------------------------------------------------------------
    def _np_rates(self):
        if "np" not in self._cache:
            self._cache["np"] = [numpy_lambdify(self.args, r) for r in self.rates]
            self._cache["np_b"] = numpy_lambdify(self.args, self.blocking)
        return self._cache["np"], self._cache["np_b"]

    def _mp_rates(self):
        if "mp" not in self._cache:
            self._cache["mp"] = [sp.lambdify(self.args, r, modules="mpmath") for r in self.rates]
        return self._cache["mp"]

    def rate_matrix(self, S: np.ndarray, rho: float) -> np.ndarray:
        """Float64 rates of every transition at the states ``S``.

        Parameters
        ----------
        S : numpy.ndarray
            ``(M, n)`` integer states (rows).
        rho : float
            Load per server.

        Returns
        -------
        numpy.ndarray
            ``(M, m)``: the rate of transition ``j`` at state ``i`` (not checked: see
            :meth:`check_rates`).

        Examples
        --------
        >>> from symloss import RetrialOfD, finite_n_chain
        >>> from symloss.finite_n.chain import enumerate_states
        >>> chain = finite_n_chain(RetrialOfD(2, 2), 3)
        >>> chain.rate_matrix(enumerate_states(chain)[:2], 1.0).tolist()
        [[0.0, 0.0, 0.0, 6.0], [0.0, 1.6666666666666667, 1.0, 4.0]]
        """
        fns, _ = self._np_rates()
        cols = [S[:, i].astype(np.float64) for i in range(self.n)]
        out = np.empty((S.shape[0], len(fns)))
        for j, f in enumerate(fns):
            out[:, j] = self._values(f, cols, S.shape[0], rho)
        return out

    def blocking_values(self, S: np.ndarray, rho: float) -> np.ndarray:
        """The conditional loss probability ``b(n)`` at the states ``S``.

        Parameters
        ----------
        S : numpy.ndarray
            ``(M, n)`` integer states (rows), as for :meth:`rate_matrix`.
        rho : float
            Load per server.

        Returns
        -------
        numpy.ndarray
            ``(M,)`` float64.
        """
        _, fb = self._np_rates()
        cols = [S[:, i].astype(np.float64) for i in range(self.n)]
        return self._values(fb, cols, S.shape[0], rho).copy()

    def _values(self, f, cols, M: int, rho: float) -> np.ndarray:
        """A lambdified rate or loss probability ``f`` at the states whose count columns are ``cols``
        (float64, ``(M,)``; a constant is broadcast; NaN/inf are left for :meth:`check_rates`)."""
        with np.errstate(all="ignore"):
            return np.broadcast_to(np.asarray(f(*cols, rho, float(self.N)), dtype=np.float64), (M,))

    def _exact_fns(self):
        if "ex" not in self._cache:
            self._cache["ex"] = [exact_lambdify(self.args, r) for r in self.rates]
            self._cache["ex_b"] = exact_lambdify(self.args, self.blocking)
        return self._cache["ex"], self._cache["ex_b"]

    @fill_doc(FINITE_N_DOCS)
    def exact_rate(self, j: int, state, rho) -> object:
        """Rate ``j`` at one state in exact rationals.

        Parameters
        ----------
        j : int
            Index of the transition.
        {{exact_state_rho}}

        Returns
        -------
        flint.fmpq
            The total rate of transition ``j`` out of ``state``.

        Raises
        ------
        ModelDefinitionError
            If the rate is not rational (floats, ``exp``, non-integer powers).
        """
        from flint import fmpq
        return self._exact_fns()[0][j](*[fmpq(int(v)) for v in state], rho, fmpq(self.N))

    @fill_doc(FINITE_N_DOCS)
    def exact_blocking(self, state, rho):
        """The conditional loss probability at one state in exact rationals.

        Parameters
        ----------
        {{exact_state_rho}}

        Returns
        -------
        flint.fmpq
            The probability ``b(n)`` that an arrival in ``state`` is lost.

        Examples
        --------
        >>> from flint import fmpq
        >>> from symloss import RetrialOfD, finite_n_chain
        >>> finite_n_chain(RetrialOfD(2, 2), 3).exact_blocking([0, 1, 2], fmpq(1))    # (2/3)^2
        4/9
        """
        from flint import fmpq
        return self._exact_fns()[1](*[fmpq(int(v)) for v in state], rho, fmpq(self.N))

    def _mp_rate(self, j: int, state, rho: float):
        with mpmath.workdps(50):
            return self._mp_rates()[j](*[mpmath.mpf(int(v)) for v in state], mpmath.mpf(rho), mpmath.mpf(self.N))

    # checks -----------------------------------------------------------------------------------------------
    def check_rates(self, S: np.ndarray, R: np.ndarray, rho: float, in_space) -> np.ndarray:
        """Check the rates ``R`` at the states ``S``: NaN/inf or negative rates and positive-rate
        transitions out of the state space raise :class:`FiniteNModelError`; values that are float
        noise around an exact zero (re-evaluated at 50 digits) are set to 0.

        Parameters
        ----------
        S : numpy.ndarray
            ``(M, n)`` integer states.
        R : numpy.ndarray
            ``(M, m)`` rates from :meth:`rate_matrix` (modified in place).
        rho : float
            Load per server.
        in_space : callable
            ``T -> bool array``: membership of the target states ``T`` in the state space.

        Returns
        -------
        numpy.ndarray
            The cleaned ``R``.

        Raises
        ------
        FiniteNModelError
            Naming the state and the transition, for an undefined or negative rate or a transition
            of positive rate that leaves the state space.
        """
        bad = ~np.isfinite(R)
        if bad.any():
            i, j = map(int, np.argwhere(bad)[0])
            raise FiniteNModelError(
                f"{self._who()}: the rate of {self.transition_text(j)} is undefined ({R[i, j]}) at the "
                f"state {self.state_text(S[i])} (N = {self.N}, rho = {rho:g})")
        suspicious = R < 0
        for j in range(R.shape[1]):
            pos = R[:, j] > 0
            if pos.any():
                T = S[pos] + self.jumps[j]
                out = ~in_space(T)
                if out.any():
                    idx = np.nonzero(pos)[0][out]
                    suspicious[idx, j] = True
        for i, j in np.argwhere(suspicious):
            v = self._mp_rate(int(j), S[i], rho)
            scale = 1.0 + float(np.max(np.abs(R[i])))
            if abs(v) <= _ZERO_TOL * scale:
                R[i, j] = 0.0
                continue
            if v < 0:
                raise FiniteNModelError(
                    f"{self._who()}: the rate of {self.transition_text(int(j))} is negative "
                    f"({mpmath.nstr(v, 6)}) at the state {self.state_text(S[i])} (N = {self.N}, rho = {rho:g})")
            raise FiniteNModelError(
                f"{self._who()}: {self.transition_text(int(j))} leaves the state space from the state "
                f"{self.state_text(S[i])} (to {self.state_text(S[i] + self.jumps[j])}) at rate "
                f"{mpmath.nstr(v, 6)} (N = {self.N}, rho = {rho:g}); {self.space_text()}")
        return R

    def space_text(self) -> str:
        """The state space in words (for error messages).

        Returns
        -------
        str
        """
        kind = self.state_kind
        if kind == "occupancy":
            return f"the state space is the compositions n_0 + ... + n_C = N (C = {self.C})"
        if kind == "tail":
            return f"the state space is the monotone tails N >= U_1 >= ... >= U_C >= 0 (C = {self.C})"
        return "the state space is 0 <= n_i <= N with the model's invariants"

    def _who(self) -> str:
        return f"{self.model!r} at N = {self.N}"


def _subs_parameters(model, expr, where="finite-N rate"):
    """``expr`` with floats taken exactly and the model's parameter values substituted (exactly)."""
    expr = exact_expr(expr, where)
    subs = model._parameter_subs()
    return expr.subs(subs) if subs else expr


@fill_doc(FINITE_N_DOCS)
def count_symbols(model) -> tuple:
    """The SymPy symbols of a model's finite-N count state, one per state variable (``N`` times it):
    the symbols ``finite_n_transitions`` and ``finite_n_blocking_expr`` must be written in.

    They carry the assumptions ``nonnegative=True, integer=True``; a symbol of the same name without
    them is a different SymPy symbol (the error then names both sets of assumptions). Use the
    symbols returned here, or ``symloss.RHO`` for the load.

    Parameters
    ----------
    model : MeanFieldModel
        The model whose count state is named.

    Returns
    -------
    tuple of sympy.Symbol
        One symbol per state variable, in the order of the model's state.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`~symloss.MeanFieldModel`.

    References
    ----------
    {{ref_kurtz}}
       (the count chain whose scaled state the mean-field model describes).

    Examples
    --------
    >>> from symloss import PowerOfD, count_symbols
    >>> count_symbols(PowerOfD(2, 2))        # U_k: servers with at least k jobs
    (U1, U2)
    >>> count_symbols(PowerOfD(2, 2))[0].assumptions0["integer"]
    True
    """
    if not isinstance(model, MeanFieldModel):
        raise TypeError(f"model must be a MeanFieldModel (see symloss.define_model), got {type(model).__name__}")
    return tuple(model.count_symbols())


@fill_doc(FINITE_N_DOCS)
def finite_n_chain(model: MeanFieldModel, N: int, sampling: str = "with_replacement") -> FiniteNChain:
    """Generate the finite-N count chain of ``model`` with ``N`` servers from its definition (see the
    module docstring). Cached per definition, ``N`` and ``sampling``.

    Parameters
    ----------
    model : MeanFieldModel
        Any model definition (shipped or user-defined).
    N : int
        Number of servers, ``>= 1``.
    sampling : {"with_replacement", "without_replacement"}
        Passed to :meth:`~symloss.MeanFieldModel.finite_n_transitions`; models without finite-N
        rates use the mean-field rates times ``N`` for both.

    Returns
    -------
    FiniteNChain
        Jumps, total rates and the conditional loss probability, in the count symbols.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`~symloss.MeanFieldModel`.
    ModelDefinitionError
        If the definition or its finite-N rates are inconsistent (a jump that is not an integer
        column, a rate in unknown symbols, a blocking that is not a function of the state).

    See Also
    --------
    symloss.exact_finite_n, symloss.simulate, symloss.refined_mean_field

    References
    ----------
    {{ref_kurtz}}
       (the chain generated from the mean-field rates is a density-dependent population process: its
       scaled state tends to the mean-field ODE as ``N`` grows).

    Examples
    --------
    >>> from symloss import PowerOfD, finite_n_chain
    >>> chain = finite_n_chain(PowerOfD(2, 2), 3, "without_replacement")
    >>> chain.source, chain.rates[1]
    ('finite_n_transitions', U1 - U2)
    """
    if not isinstance(model, MeanFieldModel):
        raise TypeError(f"model must be a MeanFieldModel (see symloss.define_model), got {type(model).__name__}")
    N = integer(N, "N", min_value=1)              # once, at the boundary: 0, -1, 2.5, True, "5" refused
    if sampling not in ("with_replacement", "without_replacement"):
        raise ValueError(f"sampling must be 'with_replacement' or 'without_replacement', got {sampling!r}")
    cls = type(model)
    quick = (model._definition_key(), cls.finite_n_transitions, cls.finite_n_blocking_expr, N, sampling)
    local = model.__dict__.setdefault("_finite_n_chains", {})
    hit = local.get(quick[3:])
    if hit is not None and hit[0][0] is quick[0] and hit[0][1] is quick[1] and hit[0][2] is quick[2]:
        return hit[1]
    full = finite_n_key(model, N, sampling)
    chain = _CHAIN_CACHE.get(full)
    if chain is None:
        chain = _build_chain(model, N, sampling)
        if len(_CHAIN_CACHE) > 256:
            _CHAIN_CACHE.clear()
        _CHAIN_CACHE[full] = chain
    local[quick[3:]] = (quick, chain)
    return chain


@fill_doc(FINITE_N_DOCS)
def finite_n_key(model, N: int, sampling: str):
    """The identity of the finite-N chain of ``model`` with ``N`` servers: the mean-field definition
    (:class:`~symloss.core.model.DefinitionKey`) with the finite-N transitions and blocking this model
    gives for ``(N, sampling)`` (frozen by value), so two models share a chain exactly when both
    definitions agree.

    Parameters
    ----------
    {{model_N_sampling}}

    Returns
    -------
    tuple
        Hashable.

    Raises
    ------
    ModelDefinitionError
        If the finite-N transitions have no canonical form.
    """
    trs = model.finite_n_transitions(N, sampling)
    b = model.finite_n_blocking_expr(N, sampling)
    try:
        fz = freeze(None if trs is None else [(sp.ImmutableMatrix(j) if not isinstance(j, sp.MatrixBase) else j,
                                                  sp.sympify(r)) for j, r in trs])
    except (TypeError, ValueError, sp.SympifyError):
        fz = ("unfrozen", id(model))          # malformed: _build_chain names the problem
    try:
        fb = freeze(None if b is None else sp.sympify(b))
    except (TypeError, sp.SympifyError):
        fb = ("unfrozen", id(model))
    return (model._definition_key(), N, sampling, fz, fb)


_CHAIN_CACHE: dict = {}


def _build_chain(model, N, sampling):
    if not isinstance(model, MeanFieldModel):
        raise TypeError(f"model must be a symloss.MeanFieldModel (or a policy name), got {type(model).__name__}")
    checked = model._checked_transitions          # validates the definition (errors name the transition)
    n = len(model.variables)
    counts = tuple(model.count_symbols())
    if len(counts) != n:
        raise ModelDefinitionError(f"{model!r}: count_symbols() has {len(counts)} symbols for {n} variables")
    to_counts = {v: c / NSYM for v, c in zip(model.variables, counts)}
    trs = model.finite_n_transitions(N, sampling)
    allowed = set(counts) | {RHO, NSYM}
    if trs is None and sampling == "without_replacement" and getattr(model, "samples_servers", True):
        raise FiniteNModelError(
            f"{model!r} defines no finite-N rates (finite_n_transitions returns None), so it has no "
            f"sampling='without_replacement' chain; its finite-N chain is the mean-field rates x N, which is "
            f"sampling='with_replacement' (use that, or define finite_n=... / finite_n_transitions; see "
            f"docs/models.md)")
    if trs is None:
        jumps = [[int(v) for v in jump] for jump, _ in checked]
        rates = [NSYM * rate.subs(to_counts) for _, rate in checked]
        source = "mean-field rates x N"
    else:
        if not isinstance(trs, (list, tuple)) or not trs:
            raise ModelDefinitionError(f"{model!r}.finite_n_transitions({N}, {sampling!r}) must return None or "
                                       f"a non-empty list of (jump, rate)")
        jumps, rates = [], []
        for i, item in enumerate(trs):
            try:
                jump, rate = item
            except (TypeError, ValueError):
                raise ModelDefinitionError(f"finite-N transition {i}: expected (jump, rate), got {item!r}") from None
            jump = jump if isinstance(jump, sp.MatrixBase) else sp.Matrix(list(jump))
            if jump.shape != (n, 1):
                raise ModelDefinitionError(f"finite-N transition {i}: the jump must be a column of length {n}, "
                                           f"got shape {jump.shape}")
            col = [0] * n
            for k, v in _nonzeros(jump):
                if not sp.sympify(v).is_Integer:
                    raise ModelDefinitionError(f"finite-N transition {i}: jump entries must be integers, got {list(jump)}")
                col[k] = int(v)
            if not any(col):
                raise ModelDefinitionError(f"finite-N transition {i}: the jump is zero")
            rate = _subs_parameters(model, sp.sympify(rate), f"finite-N transition {i}: rate")
            extra = rate.free_symbols - allowed
            if extra:
                raise ModelDefinitionError(f"finite-N transition {i}: rate {rate} "
                                           + unknown_symbols_message(extra, allowed))
            jumps.append(col)
            rates.append(rate)
        source = "finite_n_transitions"
    b = model.finite_n_blocking_expr(N, sampling)
    if b is None:
        B = model._blocking
        if not (B.free_symbols & set(model.variables)):
            b = _state_free_blocking(model, N, counts)
        else:
            b = B.subs(to_counts)
    else:
        b = _subs_parameters(model, sp.sympify(b), "finite_n_blocking_expr")
        extra = b.free_symbols - allowed
        if extra:
            raise ModelDefinitionError("finite_n_blocking_expr " + unknown_symbols_message(extra, allowed))
    return FiniteNChain(model=model, N=N, sampling=sampling, symbols=counts,
                        jumps=np.array(jumps, dtype=np.int64).reshape(len(jumps), n), rates=rates,
                        blocking=sp.sympify(b), source=source)


def _state_free_blocking(model, N, counts):
    """A blocking expression that is not a function of the state (the fluid JSQ blocking
    ``max(0, 1 - C/rho)``) has no finite-N meaning. For the shipped JSQ the finite-N loss event is
    known (all ``N`` servers full, ``U_C = N``); any other model must give
    ``finite_n_blocking_expr``."""
    if isinstance(model, JSQ):
        return sp.Heaviside(counts[-1] - NSYM, 1)
    raise ModelDefinitionError(
        f"{model!r}: blocking_expr() = {model._blocking} is not a function of the state, so it has no "
        "finite-N value; define finite_n_blocking_expr(N, sampling) (the probability that an arrival is "
        "lost in count state n)")
