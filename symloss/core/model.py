r"""Models are data: the one definition of a mean-field model and everything derived from it.

A mean-field model of ``N`` exchangeable servers (a density-dependent population process in Kurtz's
sense) is given by

* its **state variables** :math:`x = (x_1, \dots, x_n)` (fractions: occupancy ``x_k`` = fraction of
  servers holding ``k`` jobs, or tails ``u_k`` = fraction holding at least ``k``), SymPy symbols;
* its **parameters**: the load :math:`\rho` (:data:`RHO`) and any others, bound to exact values;
* its **transitions**: a list of ``(jump, rate)``; from state ``x`` the ``N``-server system jumps to
  ``x + jump/N`` at rate ``N * rate(x)`` (``jump`` a SymPy column of integers, ``rate`` a SymPy
  expression in the state and :math:`\rho`);
* its **blocking** (or any performance) expression :math:`B(x)`;
* its **linear invariants** (``sum(x) = 1`` for an occupancy state);
* optionally **finite-N rates** (:meth:`MeanFieldModel.finite_n_transitions`), for models whose
  finite-N routing differs from the mean-field rates (sampling without replacement).

Everything else is *derived* here from that definition and nowhere else: the drift
:math:`f(x) = \sum_\ell \ell\,\beta_\ell(x)`, the stationary equations, the square stationary system
the solvers solve, its Jacobian, the polynomial system, the LaTeX of the equations, a fingerprint
(hash) of the stationary equations that certificates record, and the compiled evaluators of
:mod:`symloss.core.codegen` (numpy, python-flint ``arb``, mpmath) that the certified solver of
:mod:`symloss.core.certify` runs.

Define a model by subclassing :class:`MeanFieldModel` (override :meth:`~MeanFieldModel.transitions`
and :meth:`~MeanFieldModel.blocking_expr`, set ``self.variables``) or with :func:`define_model`.
The shipped policies (:class:`~symloss.RetrialOfD`, :class:`~symloss.PowerOfD`,
:class:`~symloss.RandomRouting`, :class:`~symloss.JSQ`) are such subclasses; a subclass that
overrides ``transitions()`` defines a new model, and every solver follows it.

Layout: the class is thin. Its methods validate and delegate: the checked definition and the drift
to :mod:`~symloss.core.derivation`, the invariant rows to :mod:`~symloss.core.pivoting`, the identity
(``DefinitionKey``, the per-definition cache) to :mod:`~symloss.core.definition_key`, the numerics
to :mod:`~symloss.core.certify`, :mod:`~symloss.core.series`, :mod:`~symloss.core.elimination` and
:mod:`~symloss.core.convergence`. The module is still over 700 lines (about 1000) for two reasons:
the numpydoc docstrings of the public methods (Parameters, Returns, Raises, Examples; about 600
lines) belong on the class, where the API reference and the numpydoc test look them up; and
:func:`define_model` with ``DefinedModel`` (a subclass of :class:`MeanFieldModel`, about 160
lines) cannot move to another module that this one re-exports from without an import cycle.

Size: one class, :class:`MeanFieldModel`, whose methods are the views of one definition (transitions,
drift, Jacobian, fingerprint, the solvers' entry points, LaTeX); the derivations themselves live in
:mod:`symloss.core.derivation`, :mod:`symloss.core.codegen` and :mod:`symloss.core.certify`. Splitting
the class would scatter one public API over several modules.
"""
from __future__ import annotations

import hashlib
import numbers
import types
from fractions import Fraction
from typing import Callable, Sequence

import sympy as sp

from . import (
    certify as _certify,
    codegen as _codegen,
    convergence as _convergence,
    definition as _definition,
    derivation as _derivation,
    piecewise as _piecewise,
    pivoting as _pivoting,
)
from ._docfragments import CORE_DOCS
from .definition import (  # noqa: F401
    ModelDefinitionError,
    _assumptions,
    _nonzeros,
    _sparse_nullspace,
    exact_expr,
    exact_value,
    laurent_dict,
    poly_to_expr,
    unknown_symbols_message,
)
from .definition_key import (  # noqa: F401 - re-exported
    _STATE_MEMO,
    CACHE_ATTRIBUTES,
    DefinitionKey,
    _derived,
)
from .docstrings import fill_doc
from .elimination import generic_eliminant
from .identity import ClearsCachesOnAssignment, freeze as _freeze, state_key
from .latex import model_repr_latex
from .registry import declare_family
from .series import blocking_series

__all__ = ["MeanFieldModel", "define_model", "RHO", "BSYM", "ModelDefinitionError"]

#: the load per server, :math:`\rho = \lambda/\mu` (service rate ``mu = 1``)
RHO = _definition.RHO
#: the blocking probability, as an unknown of the polynomial system
BSYM = _definition.BSYM

_STATE_KINDS = ("occupancy", "tail", "custom")


_FINGERPRINTS: dict = {}


@fill_doc(CORE_DOCS)
class MeanFieldModel(ClearsCachesOnAssignment):
    r"""Base class of a mean-field model defined by its transitions (see the module docstring).

    Subclasses set ``self.variables`` (a tuple of SymPy symbols) in ``__init__`` and override
    :meth:`transitions` and :meth:`blocking_expr`; optionally :meth:`invariants`,
    :meth:`finite_n_transitions`, :meth:`finite_n_blocking_expr`, :meth:`initial_state` and
    ``state_kind`` (``"occupancy"``, ``"tail"`` or ``"custom"``) with ``C`` (the capacity, used by
    finite-N state enumeration).

    Numerics (:meth:`fixed_point`, :meth:`blocking`, :meth:`enclose`) use a registered accelerator
    for the model's class when one exists and its assumptions hold for this definition (checked,
    see :mod:`symloss.meanfield.accelerators`), otherwise the generic certified solver
    (:func:`symloss.core.certify.certified_fixed_point`), which needs only the definition.

    See Also
    --------
    define_model, symloss.RetrialOfD, symloss.PowerOfD

    {{references_kurtz}}

    Examples
    --------
    Random routing to M/M/1/1 stations, by subclassing (blocking ``E(1, rho) = rho/(1 + rho)``):

    >>> import sympy as sp, mpmath
    >>> from symloss import MeanFieldModel, RHO
    >>> class Loss1(MeanFieldModel):
    ...     def __init__(self):
    ...         self.variables = sp.symbols("x0 x1", nonnegative=True)
    ...     def transitions(self):
    ...         x0, x1 = self.variables
    ...         return [(sp.Matrix([-1, 1]), RHO * x0), (sp.Matrix([1, -1]), x1)]
    ...     def blocking_expr(self):
    ...         return self.variables[1]
    ...     def invariants(self):
    ...         return [sp.Eq(sum(self.variables), 1)]
    >>> mpmath.nstr(Loss1().blocking(1, dps=20), 20)
    '0.5'
    """

    name = "model"
    state_kind = "custom"
    variables: tuple = ()
    #: values of parameters other than rho, substituted into the rates (exact numbers)
    parameter_values: dict = {}
    #: whether the routing samples servers (then a finite-N chain "without replacement" needs finite-N
    #: rates of its own: without them ``sampling="without_replacement"`` is refused, never mislabelled)
    samples_servers = True

    # ---- the one definition (override) -------------------------------------------------------------
    def transitions(self) -> list:
        """List of ``(jump, rate)``: from ``x`` the system jumps to ``x + jump/N`` at rate
        ``N * rate(x)`` (``jump``: SymPy column of integers; ``rate``: SymPy expression in the state
        variables and :data:`RHO`).

        Returns
        -------
        list of (sympy.Matrix, sympy.Expr)

        Raises
        ------
        NotImplementedError
            In the base class: a model must define it.
        """
        raise NotImplementedError(f"{type(self).__name__} must define transitions()")

    def blocking_expr(self) -> sp.Expr:
        """The stationary blocking probability as a function of the state.

        Returns
        -------
        sympy.Expr
            In the state variables (and :data:`RHO`).

        Raises
        ------
        NotImplementedError
            In the base class: a model must define it.
        """
        raise NotImplementedError(f"{type(self).__name__} must define blocking_expr()")

    def invariants(self) -> list:
        """Linear invariants of the dynamics with their values, as ``sympy.Eq(linear form, value)``
        (e.g. ``Eq(x0 + ... + xC, 1)`` for an occupancy state). Default: none.

        Returns
        -------
        list of sympy.Eq
        """
        return []

    def finite_n_transitions(self, N: int, sampling: str = "with_replacement"):
        """Finite-N transitions in the count variables (``None``: the mean-field rates, i.e. the
        count chain jumps by ``jump`` at rate ``N * rate(n / N)``). Models whose finite-N routing
        differs (sampling without replacement) return ``(jump, rate)`` with ``rate`` a SymPy
        expression in :meth:`count_symbols` and :data:`RHO` (total rate, not per server).

        {{parameters_N_sampling}}

        Returns
        -------
        list of (sympy.Matrix, sympy.Expr) or None
            The ``(jump, rate)`` pairs, or ``None`` (the default): ``N`` times the mean-field rates.
        """
        return None

    def finite_n_blocking_expr(self, N: int, sampling: str = "with_replacement"):
        """Probability that an arrival is lost in count state ``n`` (``None``: ``blocking_expr`` at
        ``n / N``).

        {{parameters_N_sampling}}

        Returns
        -------
        sympy.Expr or None
            In :meth:`count_symbols` and :data:`RHO`.
        """
        return None

    def initial_state(self, rho: float):
        """A physical state (floats, order of ``variables``) from which the mean-field ODE reaches
        the fixed point; used to start the float solve. Default: by ``state_kind`` (independent
        M/M/C/C stations for occupancy and tail states), else 1/2 scaled onto the invariants.

        Parameters
        ----------
        rho : float
            The load.

        Returns
        -------
        sequence of float or None
            ``None``: the default start.
        """
        return None

    # ---- identity -----------------------------------------------------------------------------------
    _CACHE_ATTRIBUTES = CACHE_ATTRIBUTES

    def _definition_key(self) -> DefinitionKey:
        """The model's identity (``DefinitionKey``): its canonical checked definition, with the
        parameter values substituted. Derived once per instance state (an assignment to any
        attribute derives it again; so does replacing ``transitions``, ``blocking_expr`` or
        ``invariants`` on the class) and shared between instances of equal state through a memo.
        Every cache is keyed on it.

        Returns
        -------
        DefinitionKey

        Raises
        ------
        ModelDefinitionError
            If the definition is inconsistent.
        """
        cls = type(self)
        memo = self.__dict__.get("_identity")
        if (memo is not None and memo[0] is cls and memo[1] is cls.transitions and memo[2] is cls.blocking_expr
                and memo[3] is cls.invariants and memo[4] is cls.parameter_values):
            return memo[5]
        quick = (cls, cls.transitions, cls.blocking_expr, cls.invariants, cls.parameter_values)
        skey = state_key(self, CACHE_ATTRIBUTES)
        key = _STATE_MEMO.get(skey) if skey is not None else None
        if key is None:
            key = self._derive_definition()
            if skey is not None:
                if len(_STATE_MEMO) > 4096:
                    _STATE_MEMO.clear()
                _STATE_MEMO[skey] = key
        self.__dict__["_identity"] = quick + (key,)
        return key

    def _derive_definition(self) -> DefinitionKey:
        trs = self._check_transitions()
        blocking = self._check_blocking()
        invariants = self._check_invariants(trs)
        return DefinitionKey(self.variables, getattr(self, "state_kind", "custom"), _freeze(getattr(self, "C", None)),
                             trs, blocking, invariants)

    @property
    def _checked_transitions(self) -> list:
        """The checked transitions ``[(jump, rate)]`` (parameter values substituted)."""
        return self._definition_key().transitions

    @property
    def _blocking(self) -> sp.Expr:
        """The checked blocking expression (parameter values substituted)."""
        return self._definition_key().blocking

    @property
    def _invariants(self) -> list:
        """``[(coefficient list, value)]`` of the declared invariants, checked against every jump."""
        return self._definition_key().invariants

    @property
    def rho(self):
        """The load symbol :data:`RHO`."""
        return RHO

    @property
    def parameters(self) -> tuple:
        """The free parameter(s) of the stationary equations: ``(rho,)``."""
        return (RHO,)

    def count_symbols(self) -> tuple:
        """Symbols of the finite-N count state (``N`` times each variable), e.g. ``n0..nC``.

        Returns
        -------
        tuple of sympy.Symbol
        """
        return tuple(sp.Symbol(f"n_{v}", nonnegative=True, integer=True) for v in self.variables)

    # ---- the checked definition (what the identity is made of) ----------------------------------------
    def _parameter_subs(self) -> dict:
        return _derivation.parameter_subs(self)

    def _check_transitions(self) -> list:
        return _derivation.check_transitions(self)

    def _check_blocking(self) -> sp.Expr:
        return _derivation.check_blocking(self)

    def _check_invariants(self, transitions) -> list:
        return _derivation.check_invariants(self, transitions)

    # ---- derived: symbolic ----------------------------------------------------------------------------
    def drift(self) -> sp.Matrix:
        r"""Mean-field drift :math:`f(x) = \sum_\ell \ell\,\beta_\ell(x)`.

        Returns
        -------
        sympy.Matrix
            A column, one row per state variable (expanded).

        Raises
        ------
        ModelDefinitionError
            If the definition is inconsistent (checked on first use).

        Examples
        --------
        >>> from symloss import RandomRouting
        >>> RandomRouting(2).drift().T
        Matrix([[-rho*x0 + x1, rho*x0 - rho*x1 - x1 + 2*x2, rho*x1 - 2*x2]])
        """
        return self._drift

    @_derived
    def _drift_poly(self):
        """See :func:`symloss.core.derivation.drift_poly`."""
        return _derivation.drift_poly(self)

    @_derived
    def _poly_residual(self):
        """See :func:`symloss.core.derivation.poly_residual`."""
        return _derivation.poly_residual(self)

    @_derived
    def _drift(self):
        return _derivation.drift_matrix(self)

    def jacobian(self) -> sp.Matrix:
        """The Jacobian of the drift in the state variables.

        Returns
        -------
        sympy.Matrix
            ``n x n``.

        Examples
        --------
        >>> from symloss import RandomRouting
        >>> RandomRouting(2).jacobian()
        Matrix([
        [-rho,        1,  0],
        [ rho, -rho - 1,  2],
        [   0,      rho, -2]])
        """
        return self._drift.jacobian(sp.Matrix(self.variables))

    def conserved_forms(self) -> list:
        """Every linear form ``c . x`` conserved by all jumps (a basis, rational coefficients).

        Returns
        -------
        list of list of sympy.Rational
            The coefficient vectors.

        Examples
        --------
        >>> from symloss import RandomRouting
        >>> RandomRouting(2).conserved_forms()          # x0 + x1 + x2
        [[1, 1, 1]]
        """
        n = len(self.variables)
        jumps = {tuple((i, int(v)) for i, v in _nonzeros(jump)) for jump, _rate in self._checked_transitions}
        return [[sp.Rational(c.numerator, c.denominator) for c in vec] for vec in _sparse_nullspace(jumps, n)]

    def stationary_equations(self) -> list:
        """``drift = 0`` plus the invariants.

        Returns
        -------
        list of sympy.Eq
            ``Eq(drift_i, 0)`` for each variable, then ``Eq(c . x, value)`` for each invariant.

        Examples
        --------
        >>> from symloss import RandomRouting
        >>> RandomRouting(1).stationary_equations()
        [Eq(-rho*x0 + x1, 0), Eq(rho*x0 - x1, 0), Eq(x0 + x1, 1)]
        """
        eqs = [sp.Eq(e, 0) for e in self._drift]
        V = self.variables
        return eqs + [sp.Eq(sp.Add(*[ci * v for ci, v in zip(c, V) if ci != 0]), val) for c, val in self._invariants]

    @_derived
    def _replaced_rows(self):
        """See :func:`symloss.core.pivoting.replaced_rows`."""
        return _pivoting.replaced_rows(self)

    @_derived
    def _square_system(self):
        """The square system the solvers solve: ``(rows, replaced)``. ``rows[i]`` is drift component
        ``i`` (``= 0``) except for one row per invariant, replaced by ``c . x - value``; ``replaced``
        maps a replaced row index to its invariant index."""
        replaced = self._replaced_rows
        rows = list(self._drift)
        for j, k in replaced.items():
            c, val = self._invariants[k]
            rows[j] = sp.Add(*[ci * v for ci, v in zip(c, self.variables) if ci != 0], -val)
        return rows, replaced

    def stationary_system(self) -> list:
        """The square system (expressions ``= 0``) solved by the certified solver: the drift with one
        component per invariant replaced by the invariant.

        Returns
        -------
        list of sympy.Expr
            One expression per variable, in the order of ``variables``.

        Raises
        ------
        ModelDefinitionError
            If the jumps conserve a linear form whose value is not declared in :meth:`invariants`.

        Examples
        --------
        >>> from symloss import RandomRouting
        >>> RandomRouting(2).stationary_system()
        [-rho*x0 + x1, rho*x0 - rho*x1 - x1 + 2*x2, x0 + x1 + x2 - 1]
        """
        return list(self._square_system[0])

    def polynomial_system(self) -> list:
        """Polynomials (in ``variables``, ``rho`` and the blocking symbol ``B``) whose common zeros
        with all variables in [0, 1] are the fixed points: stationary equations, invariants and
        ``B - blocking``.

        Returns
        -------
        list of sympy.Expr
            The numerators of the stationary equations, then ``B - blocking``, expanded (the ones
            that expand to 0 left out).

        Examples
        --------
        >>> from symloss import RandomRouting
        >>> RandomRouting(1).polynomial_system()
        [-rho*x0 + x1, rho*x0 - x1, x0 + x1 - 1, B - x1]
        """
        polys = [sp.numer(sp.together(e.lhs - e.rhs)) for e in self.stationary_equations()]
        polys.append(BSYM - self.blocking_expr())
        return [sp.expand(p) for p in polys if sp.expand(p) != 0]

    def fingerprint(self) -> str:
        """SHA-256 of the stationary system, the invariants and the blocking expression (in
        SymPy's canonical printed form): certificates record it, and a re-check refuses a certificate
        made from another definition.

        Returns
        -------
        str
            64 hexadecimal digits.

        Examples
        --------
        >>> from symloss import RandomRouting, RetrialOfD
        >>> RandomRouting(2).fingerprint() == RetrialOfD(2, 1).fingerprint()    # same equations
        False
        >>> len(RandomRouting(2).fingerprint())
        64
        """
        key = (self._definition_key(), type(self).__name__)
        fp = _FINGERPRINTS.get(key)
        if fp is None:
            fp = _FINGERPRINTS[key] = hashlib.sha256(self._fingerprint_hasher(key[1])).hexdigest()
        return fp

    def _fingerprint_hasher(self, class_name: str) -> bytes:
        return (class_name + "\n" + self._fingerprint_text).encode()

    @_derived
    def _fingerprint_text(self):
        """The canonical printed definition the fingerprint hashes (after the class name): the
        variables, the drift rows as exact sparse polynomials (or SymPy's ``srepr``), the invariants
        and the blocking, with the parameter values substituted."""
        parts = [",".join(map(str, self.variables))]
        poly = self._drift_poly
        if poly is not None:
            parts += [repr(sorted((k, (c.numerator, c.denominator)) for k, c in row.items())) for row in poly]
        else:
            parts += [sp.srepr(sp.expand(e)) for e in self._drift]
        parts += [f"{c}={v}" for c, v in self._invariants]
        parts.append(sp.srepr(sp.expand(self._blocking)))
        return "\n".join(parts)

    def latex(self, *, environment: str = "align*") -> str:
        r"""The stationary equations and the blocking as a complete LaTeX math environment.

        Parameters
        ----------
        environment : str
            The ``amsmath`` environment (one ``&`` per line: ``align*``, ``align``, ...).

        Returns
        -------
        str

        Examples
        --------
        >>> from symloss import RandomRouting
        >>> print(RandomRouting(1).latex())
        \begin{align*}
        - \rho x_{0} + x_{1} &= 0 \\
        \rho x_{0} - x_{1} &= 0 \\
        x_{0} + x_{1} &= 1 \\
        B &= x_{1}
        \end{align*}
        """
        lines = [sp.latex(sp.Eq(e, 0)).replace("=", "&=", 1) for e in self._drift]
        V = self.variables
        lines += [sp.latex(sp.Eq(sp.Add(*[c * v for c, v in zip(cc, V) if c != 0]), val)).replace("=", "&=", 1)
                  for cc, val in self._invariants]
        lines.append("B &= " + sp.latex(self._blocking))
        return f"\\begin{{{environment}}}\n" + " \\\\\n".join(lines) + f"\n\\end{{{environment}}}"

    # ---- derived: compiled evaluators -----------------------------------------------------------------
    @_derived
    def compiled(self):
        """The compiled stationary system (:class:`symloss.core.codegen.CompiledModel`)."""
        return _codegen.compile_model(self)

    @_derived
    def _mp_drift(self):
        return sp.lambdify(list(self.variables) + [RHO], list(self._drift), modules="mpmath")

    @_derived
    def _np_drift(self):
        return _codegen.numpy_lambdify(list(self.variables) + [RHO], list(self._drift))

    @_derived
    def _np_jac(self):
        return _codegen.numpy_lambdify(list(self.variables) + [RHO], self.jacobian())

    @_derived
    def _np_blocking(self):
        return _codegen.numpy_lambdify(list(self.variables), self._blocking)

    def drift_residual(self, x, rho):
        """Max-norm of the drift at ``x`` (mpmath, current precision).

        Parameters
        ----------
        {{x_rho_state}}

        Returns
        -------
        mpmath.mpf
            The largest absolute component of the drift, ``0`` at a fixed point.

        Examples
        --------
        >>> import mpmath
        >>> from symloss import RandomRouting
        >>> x = [mpmath.mpf(2) / 5, mpmath.mpf(2) / 5, mpmath.mpf(1) / 5]     # the fixed point at rho = 1
        >>> RandomRouting(2).drift_residual(x, 1) < 1e-15
        True
        """
        return _derivation.drift_residual(self, x, rho)

    # ---- numerics (implemented in symloss.core.certify and the accelerators) --------------------------
    def fixed_point(self, rho, *, dps: int = 30, uniqueness: bool = False):
        """The certified mean-field fixed point at load ``rho`` (:class:`~symloss.FixedPointResult`).

        Uses the accelerator registered for this model's class when its assumptions hold for this
        definition (and verifies its answer on the definition's equations), else the generic
        certified solver; see :func:`symloss.core.certify.solve`.

        Parameters
        ----------
        rho : float, int, Fraction or mpmath.mpf
            The load, ``> 0`` (exact types keep their value).
        dps : int
            Significant digits of the state and the blocking, ``5 <= dps <= 100000``.
        uniqueness : bool
            Also decide whether this is the only fixed point on the state space (interval
            exclusion plus Krawczyk for up to 3 free coordinates, multi-start evidence up to 12;
            10 ms to 1 s per load). The result's ``uniqueness`` says PROVED, NOT UNIQUE (how many,
            which one this is, which one the ODE from the default start reaches), UNDECIDED,
            EVIDENCE or NOT CHECKED; by default it says it was not checked.

        Returns
        -------
        FixedPointResult
            The state, the blocking, a rigorous bracket of it, the residual, the method and the
            uniqueness statement.

        {{raises_solve}}

        Warns
        -----
        DefinitionMismatchWarning
            When the class has an accelerator that does not apply to this (edited) definition.
        NonUniqueFixedPointWarning
            With ``uniqueness=True``, when the fixed point is one of several.

        Examples
        --------
        >>> from symloss import RetrialOfD
        >>> import mpmath
        >>> r = RetrialOfD(2, 2).fixed_point(1, dps=20)
        >>> mpmath.nstr(r.blocking, 20), r.dps
        ('0.067558952178453145217', 20)
        """
        if self._is_piecewise:
            return _piecewise.solve(self, rho, dps=dps, uniqueness=uniqueness)
        return _certify.solve(self, rho, dps=dps, residual=True, uniqueness=uniqueness)

    @_derived
    def _is_piecewise(self):
        """Whether the drift or the blocking switches with the state (see :mod:`symloss.core.piecewise`)."""
        return _piecewise.is_piecewise_model(self)

    def switching_functions(self) -> tuple:
        """The switching surfaces ``s(x) = 0`` of a piecewise-smooth definition (the arguments of its
        ``Heaviside``/``sign``/``Abs``, the differences of the arguments of its ``Min``/``Max``, the
        ``lhs - rhs`` of its ``Piecewise`` conditions), empty for a smooth model.

        Returns
        -------
        tuple of sympy.Expr
            Canonical (expanded, oriented) surfaces, sorted.

        Examples
        --------
        >>> from symloss import JSQ
        >>> JSQ(2).switching_functions()
        (1 - u1, 1 - u2)
        """
        return _piecewise.switching_functions(list(self._drift) + [self._blocking], self.variables)

    def certify_global_convergence(self, rho=None, *, rho_lo=None, rho_hi=None):
        """Certified global convergence of the mean-field ODE to its fixed point: for every load
        (default), at the load ``rho``, or for every load in ``[rho_lo, rho_hi]`` (``rho_hi=None``:
        unbounded). Cooperativity on the ordered tail set, its forward invariance and a contraction
        of the l1 distance of tails are proved as polynomial sign conditions on the definition's own
        drift (exact rational arithmetic, valid for every load of the range, not a grid); see
        :func:`symloss.core.convergence.certify_global_convergence`.

        Parameters
        ----------
        rho : number, optional
            One load, ``> 0``.
        rho_lo, rho_hi : number, optional
            A load interval (instead of ``rho``).

        Returns
        -------
        GlobalConvergenceResult
            PROVED, FAILED (the condition and an exact witness) or UNDECIDED (the condition that
            could not be certified), with a certificate that
            :func:`~symloss.core.convergence.verify_global_convergence` re-checks.

        Raises
        ------
        TypeError, ValueError
            If the loads are not valid.

        Examples
        --------
        >>> from symloss import PowerOfD
        >>> PowerOfD(2, 2).certify_global_convergence().status
        'PROVED'
        """
        return _convergence.certify_global_convergence(self, rho, rho_lo=rho_lo, rho_hi=rho_hi)

    def blocking(self, rho, *, dps: int = 30):
        """Stationary mean-field blocking probability to ``dps`` significant digits, certified
        (it raises :class:`~symloss.core.precision.PrecisionError` when it cannot certify ``dps`` digits).

        Parameters
        ----------
        rho : float, int, Fraction or mpmath.mpf
            The load, ``> 0``.
        dps : int
            Significant digits, ``5 <= dps <= 100000``.

        Returns
        -------
        mpmath.mpf
            The blocking, correct to ``dps`` significant digits.

        Raises
        ------
        TypeError, ValueError
            If ``rho`` or ``dps`` is not valid.
        PrecisionError
            If ``dps`` digits cannot be certified.

        Examples
        --------
        >>> import mpmath
        >>> from symloss import PowerOfD
        >>> mpmath.nstr(PowerOfD(2, 2).blocking(1, dps=30), 30)
        '0.0530346718715954397391817613697'
        """
        if self._is_piecewise:
            return _piecewise.solve(self, rho, dps=dps).blocking
        return _certify.solve(self, rho, dps=dps, residual=False).blocking

    def enclose(self, rho_lo, rho_hi, *, prec: int = 128):
        """A box enclosing the fixed point, and an enclosure of the blocking, valid for *every* load
        in ``[rho_lo, rho_hi]`` (parametric Krawczyk test; :func:`symloss.core.certify.enclose`).

        Parameters
        ----------
        rho_lo, rho_hi : number
            The load interval, ``0 < rho_lo <= rho_hi``.
        prec : int
            Working precision in bits.

        Returns
        -------
        Enclosure
            ``box`` (balls of ``y = log x``), ``blocking`` and ``log_blocking`` balls.

        Raises
        ------
        PrecisionError
            If the test fails on this interval (bisect it).

        Examples
        --------
        >>> from symloss import RandomRouting
        >>> e = RandomRouting(2).enclose(1, 1.01, prec=64)      # E(2, rho) for every rho in [1, 1.01]
        >>> bool(e.blocking.lower() < 0.2 and e.blocking.upper() > 0.2034)
        True
        """
        return _certify.enclose(self, rho_lo, rho_hi, prec=prec)

    def enclose_interval(self, rho_lo, rho_hi, **kw):
        """A Krawczyk tube that follows the tangent of the fixed point over ``[rho_lo, rho_hi]``
        (radius second order in the width; :func:`symloss.core.certify.enclose_interval`).

        Parameters
        ----------
        rho_lo, rho_hi : number or str
            End points of the load interval, ``0 < rho_lo < rho_hi`` (taken exactly).
        **kw
            Passed to :func:`symloss.core.certify.enclose_interval` (``prec``, ``y_mid``, ``sel``,
            ``max_inflations``).

        {{returns_raises_interval_enclosure}}
        """
        return _certify.enclose_interval(self, rho_lo, rho_hi, **kw)

    def ode(self, rho, x0, t, *, method: str = "LSODA", rtol: float = 1e-10, atol: float = 1e-13):
        """Integrate the mean-field ODE from ``x0`` and return the values at the times ``t``
        (:class:`~symloss.OdeResult`; scipy ``solve_ivp`` with the exact lambdified Jacobian; for a
        piecewise-smooth definition, :func:`symloss.core.piecewise.sliding_ode`: the regularised
        switches, which approximate the Filippov sliding solution).

        Parameters
        ----------
        rho : float
            The load, ``> 0``.
        x0 : array_like
            Initial state (order of ``variables``).
        t : array_like
            Increasing output times, ``>= 0``.
        method : str
            A ``scipy.integrate.solve_ivp`` method.
        rtol, atol : float
            Tolerances.

        Returns
        -------
        OdeResult

        Raises
        ------
        ValueError
            If an argument is out of range.
        RuntimeError
            If the integration fails.

        Examples
        --------
        >>> from symloss import RandomRouting
        >>> r = RandomRouting(2).ode(1, [1, 0, 0], [0, 50])
        >>> round(float(r.blocking[-1]), 8)              # E(2, 1) = 1/5
        0.2
        """
        if self._is_piecewise:
            return _piecewise.sliding_ode(self, rho, x0, t)
        return _certify.integrate_ode(self, rho, x0, t, method=method, rtol=rtol, atol=atol)

    def series(self, at=0, n: int = 3):
        """Asymptotic expansion of the blocking at ``rho -> 0`` or ``rho -> oo``
        (:func:`symloss.blocking_series`).

        Parameters
        ----------
        at : 0 or sympy.oo
            The expansion point (``"oo"`` is accepted).
        n : int
            Number of non-zero terms.

        Returns
        -------
        sympy.Expr
            With the ``O`` term.

        Examples
        --------
        >>> from symloss import RandomRouting
        >>> RandomRouting(2).series(0, 2)
        rho**2/2 - rho**3/2 + O(rho**4)
        """
        return blocking_series(self, at=at, n=n)

    def eliminant(self, *, max_degree: int | None = None):
        r"""Polynomial :math:`P(\rho, B)` vanishing at the stationary blocking, by eliminating the
        state variables from :meth:`polynomial_system` (Groebner basis, lex order; small models
        only), reduced to the factor that vanishes at the certified blocking.

        Parameters
        ----------
        max_degree : int
            Refuse, before the Groebner basis is started, when the work index (Bezout number of the
            polynomial system in the state variables times ``4^(n - 2)``) exceeds it (default
            ``MAX_GENERIC_WORK`` (:mod:`symloss.core.elimination`), 100).

        Returns
        -------
        sympy.Poly
            In :data:`RHO` and :data:`BSYM`.

        Raises
        ------
        ValueError
            If the model is too large for the generic elimination (more than 6 state variables, or
            a work index above ``max_degree``: :class:`~symloss.core.validation.BudgetError`).

        Examples
        --------
        >>> from symloss import RandomRouting
        >>> RandomRouting(2).eliminant()
        Poly(rho**2*B - rho**2 + 2*rho*B + 2*B, rho, B, domain='ZZ')
        """
        return generic_eliminant(self, max_degree=max_degree)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name})"

    def _repr_latex_(self) -> str:
        """The stationary equations and the blocking, for Jupyter (long systems shortened)."""
        return model_repr_latex(self)


# ==================================================================================================
# functional constructor
# ==================================================================================================

class DefinedModel(MeanFieldModel):
    """A model built by :func:`define_model` (its definition is data held by the instance)."""

    def __init__(self, name, variables, transitions, blocking, invariants=(), parameters=None,
                 finite_n=None, finite_n_blocking=None, state_kind="custom", C=None, initial_state=None):
        self.name = name
        self.variables = tuple(variables)
        self._transitions = tuple((sp.ImmutableMatrix(j), r) for j, r in transitions)
        self._blocking_def = blocking
        self._invariants_def = tuple(invariants)
        self.parameter_values = types.MappingProxyType(dict(parameters or {}))
        self._finite_n = finite_n
        self._finite_n_blocking = finite_n_blocking
        self.state_kind = state_kind
        self.C = C
        self._initial_state = initial_state

    def transitions(self):
        return list(self._transitions)

    def blocking_expr(self):
        return self._blocking_def

    def invariants(self):
        return list(self._invariants_def)

    def finite_n_transitions(self, N, sampling="with_replacement"):
        return None if self._finite_n is None else self._finite_n(N, sampling)

    def finite_n_blocking_expr(self, N, sampling="with_replacement"):
        return None if self._finite_n_blocking is None else self._finite_n_blocking(N, sampling)

    def initial_state(self, rho):
        return None if self._initial_state is None else self._initial_state(rho)

    def __repr__(self):
        return f"define_model({self.name!r}, variables={self.variables})"


@fill_doc
def define_model(name: str, variables: Sequence, transitions: Sequence, blocking, *,
                 invariants: Sequence = (), parameters: dict | None = None,
                 finite_n: Callable | None = None, finite_n_blocking: Callable | None = None,
                 state_kind: str = "custom", C: int | None = None,
                 initial_state: Callable | None = None) -> MeanFieldModel:
    r"""Define a mean-field model from data (the functional form of subclassing
    :class:`MeanFieldModel`).

    Parameters
    ----------
    name : str
        A short name (used in results and reprs).
    variables : sequence of sympy.Symbol
        The state (fractions of servers).
    transitions : sequence of (jump, rate)
        ``jump``: a sequence or column of integers (one per variable), or a dict ``{variable: +-1}``;
        ``rate``: a SymPy expression in the variables and :data:`RHO` (per-server rate).
    blocking : sympy.Expr
        The blocking probability as a function of the state.
    invariants : sequence of sympy.Eq
        Linear invariants with their values (``Eq(sum(x), 1)`` for occupancy states).
    parameters : dict, optional
        Values of other parameters appearing in the rates (exact numbers), e.g. ``{mu: 2}``.
    finite_n, finite_n_blocking : callable, optional
        ``(N, sampling) -> list of (jump, rate)`` / ``-> expression`` in the count symbols, when the
        finite-N chain is not the mean-field rates times ``N``.
    state_kind : {"custom", "occupancy", "tail"}
        ``"occupancy"`` (``x_k`` = fraction with ``k`` jobs, ``k = 0..C``) or ``"tail"``
        (``u_k`` = fraction with at least ``k`` jobs, ``k = 1..C``) enables fast finite-N state
        enumeration and the default initial state; then ``C`` is required.
    C : int, optional
        The capacity of a server (required for the occupancy and tail state kinds).
    initial_state : callable, optional
        ``rho -> state`` (floats in the order of ``variables``): a physical state from which the
        mean-field ODE reaches the fixed point, used to start the float solve.

    Returns
    -------
    MeanFieldModel
        A ``DefinedModel`` holding the definition, checked (its transitions, invariants and
        blocking are derived at once, so a bad definition fails here).

    Raises
    ------
    TypeError
        If ``name``, ``variables``, a transition or a parameter value has the wrong type.
    ValueError
        If the variables repeat, ``state_kind`` or ``C`` is invalid, or a jump names an unknown
        variable.
    ModelDefinitionError
        If the definition is inconsistent (checked before any solve: a jump that is not an integer
        column, a rate in unknown symbols, an invariant that a jump changes, ...).

    See Also
    --------
    MeanFieldModel : the base class; subclass it to write a definition as methods.

    {{references_kurtz}}

    Examples
    --------
    Random routing to M/M/2/2 stations (blocking ``E(2, rho)``) in three lines:

    >>> import sympy as sp, mpmath
    >>> from symloss import define_model, RHO
    >>> x0, x1, x2 = sp.symbols("x0:3", nonnegative=True)
    >>> m = define_model("random", [x0, x1, x2],
    ...     [({x0: -1, x1: 1}, RHO * x0), ({x1: -1, x2: 1}, RHO * x1),
    ...      ({x1: -1, x0: 1}, x1), ({x2: -1, x1: 1}, 2 * x2)],
    ...     blocking=x2, invariants=[sp.Eq(x0 + x1 + x2, 1)])
    >>> mpmath.nstr(m.blocking(1, dps=20), 20)   # E(2, 1) = 1/5
    '0.2'
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string, got {name!r}")
    variables = tuple(variables)
    if not variables or not all(isinstance(v, sp.Symbol) for v in variables):
        raise TypeError("variables must be a non-empty sequence of sympy Symbols")
    if len(set(variables)) != len(variables):
        raise ValueError(f"variables must be distinct, got {variables}")
    if state_kind not in _STATE_KINDS:
        raise ValueError(f"state_kind must be one of {_STATE_KINDS}, got {state_kind!r}")
    if state_kind != "custom":
        if C is None or isinstance(C, bool) or not isinstance(C, numbers.Integral) or C < 1:
            raise ValueError(f"C (the capacity) must be an integer >= 1 for state_kind={state_kind!r}, got {C!r}")
        expected = C + 1 if state_kind == "occupancy" else C
        if len(variables) != expected:
            raise ValueError(f"state_kind={state_kind!r} with C={C} needs {expected} variables, got {len(variables)}")
    n = len(variables)
    index = {v: i for i, v in enumerate(variables)}
    trs = []
    for i, item in enumerate(transitions):
        try:
            jump, rate = item
        except (TypeError, ValueError):
            raise TypeError(f"transitions[{i}] must be a pair (jump, rate), got {item!r}") from None
        if isinstance(jump, dict):
            col = sp.zeros(n, 1)
            for v, step in jump.items():
                if v not in index:
                    raise ValueError(f"transitions[{i}]: {v} is not a state variable")
                if isinstance(step, bool) or not (isinstance(step, numbers.Integral) or
                                                  (isinstance(step, sp.Basic) and step.is_Integer)):
                    raise ModelDefinitionError(f"transitions[{i}]: the jump of {v} must be an integer, got "
                                               f"{step!r} ({type(step).__name__}); a jump is a change of counts")
                col[index[v]] = sp.Integer(int(step))
            jump = col
        else:
            jump = sp.Matrix(list(jump))
        trs.append((jump, sp.sympify(rate)))
    for v in (parameters or {}).values():
        if not isinstance(v, (int, Fraction, sp.Rational)) or isinstance(v, bool):
            raise TypeError(f"parameter values must be exact (int, Fraction, sympy Rational), got {v!r}")
    model = DefinedModel(name, variables, trs, sp.sympify(blocking), invariants, parameters, finite_n,
                         finite_n_blocking, state_kind, C, initial_state)
    model._checked_transitions  # validate now: errors before any solve
    model._invariants
    model._blocking
    return model


# the mean-field family's fast paths (accelerators) are registered against this base type
declare_family("meanfield", MeanFieldModel)
