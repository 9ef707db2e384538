r"""Piecewise-smooth mean-field models (JSQ, join-the-idle-queue, threshold policies): the pieces of a
definition and the certified fixed point on a face of the state space.

A rate written with ``Heaviside``, ``Min``, ``Max``, ``Abs``, ``sign`` or ``Piecewise`` (conditions
``<``, ``<=``, ``>``, ``>=`` combined with ``And``/``Or``/``Not``, and a default branch ``(e, True)``)
is smooth away from its **switching surfaces** :math:`s(x) = 0` (the argument of a ``Heaviside`` or
``sign``, the differences of the arguments of a ``Min``/``Max``, the argument of ``Abs``, the
``lhs - rhs`` of every condition). :func:`check_piecewise_smooth` checks that a rate is of that kind
(it names the transition otherwise) and :func:`switching_functions` lists the surfaces.

**What is certified.** The fluid limit of such a model is a Filippov system: on a surface the drift
is a convex combination of its limits from both sides. A *piecewise fixed point* is

* a **face** :math:`F`: some coordinates fixed at exact rational values (a bound ``0`` or ``1`` of
  the fractions, or the value where a surface :math:`x_j = c` lies);
* for each surface through the point (identically zero on the face), a weight
  :math:`\theta \in [0, 1]`: the drift there is :math:`\theta f^+ + (1 - \theta) f^-` (Filippov's
  convexification surface by surface, Utkin's equivalent control), ``theta`` fixed at ``0`` or ``1``
  or a free unknown;
* for every other surface, its strict sign (so the branch of every ``Heaviside``/``Min``/``Max``/
  ``Piecewise`` is decided);

such that the drift of that **piece** (a smooth expression) vanishes. Then :math:`0 \in F(x^*)`
(Filippov's set-valued drift): :math:`x^*` is an equilibrium of the fluid limit. Rows that vanish
identically on the face are proved exactly (SymPy); the remaining rows and the unknowns (the free
coordinates and the free weights) form a square system whose zero is proved by the Krawczyk test of
:mod:`symloss.core.krawczyk` (in python-flint ``arb``); on the Krawczyk box the sign of every other
surface is checked strictly, the free weights lie in ``[0, 1]`` and the state in the state space.
When the piece's system is linear in its unknowns the zero is also solved exactly (rationals), so a
blocking that is exactly ``0`` (JSQ below ``rho = C``) is returned exactly.

*Search* (not part of the proof): a projected explicit Euler integration of the discontinuous drift
(:func:`sliding_ode`) gives a float state; faces are read off the coordinates close to a bound or a
surface value; for each face the free weights are chosen so the system is square; Newton solves the
piece's system in floats; the Krawczyk test decides. Pieces that worked are cached per definition and
tried first at the next load. **Uniqueness** on the whole state space is not proved: with
``uniqueness=True`` the result carries EVIDENCE (the projected ODE from the extreme states reaches the
same point), else NOT CHECKED. :func:`verify_piecewise_certificate` re-checks a stored certificate
from its data only (no search).

References
----------
A. F. Filippov, *Differential Equations with Discontinuous Righthand Sides*, Kluwer 1988.
V. I. Utkin, *Sliding Modes in Control and Optimization*, Springer 1992.
R. Krawczyk, "Newton-Algorithmen zur Bestimmung von Nullstellen mit Fehlerschranken", Computing 4 (1969).
A. L. Stolyar, "Pull-based load distribution in large-scale heterogeneous service systems", Queueing
Systems 80 (2015) (join-the-idle-queue fluid limit).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp
from flint import arb, arb_mat, fmpq

from .certified_results import DefinitionMismatchWarning, FixedPointResult, OdeResult
from .definition import RHO, ModelDefinitionError
from .float_start import default_initial_state
from .krawczyk import _krawczyk, _newton_arb
from .precision import (
    DEFAULT_DPS,
    PrecisionError,
    arb_relative_accuracy_ok,
    arb_to_mpf,
    check_dps,
    dps_to_prec,
    flint_prec,
    rounded,
    to_arb,
)
from .printers import arb_lambdify, numpy_lambdify
from .registry import dispatch
from .validation import exact_real

__all__ = ["NONSMOOTH_FUNCTIONS", "is_nonsmooth", "check_piecewise_smooth", "switching_functions",
           "piecewise_fixed_point", "verify_piecewise_certificate", "sliding_ode", "PieceSystem",
           "is_piecewise_model", "verify_point", "solve"]

#: the SymPy heads of a piecewise-smooth rate
NONSMOOTH_FUNCTIONS = (sp.Heaviside, sp.Min, sp.Max, sp.Abs, sp.sign, sp.Piecewise)
_REFUSED = (sp.floor, sp.ceiling, sp.frac, sp.DiracDelta, sp.Mod)
_ORDER_RELATIONS = (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)
_MAX_PREC = 1 << 14
#: the most face / weight combinations the search tries before giving up
SEARCH_BUDGET = 400


# ==================================================================================================
# the pieces of a definition
# ==================================================================================================

def is_nonsmooth(expr) -> bool:
    """Whether ``expr`` contains a ``Heaviside``, ``Min``, ``Max``, ``Abs``, ``sign`` or ``Piecewise``.

    Parameters
    ----------
    expr : sympy.Expr
        An expression.

    Returns
    -------
    bool

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> is_nonsmooth(sp.Heaviside(x - 1, 1)), is_nonsmooth(x ** 2)
    (True, False)
    """
    return isinstance(expr, sp.Basic) and expr.has(*NONSMOOTH_FUNCTIONS)


def _relationals(cond):
    return [a for a in sp.preorder_traversal(cond) if isinstance(a, sp.core.relational.Relational)]


def _atom_switches(atom) -> list:
    """The switching functions of one non-smooth atom (expressions whose sign decides its branch)."""
    if isinstance(atom, (sp.Heaviside, sp.sign, sp.Abs)):
        return [atom.args[0]]
    if isinstance(atom, (sp.Min, sp.Max)):
        a = atom.args
        return [a[j] - a[i] for i in range(len(a)) for j in range(i + 1, len(a))]
    if isinstance(atom, sp.Piecewise):
        return [r.lhs - r.rhs for _e, c in atom.args for r in _relationals(c)]
    return []


def check_piecewise_smooth(expr, variables, where: str) -> None:
    """Raise unless ``expr`` is piecewise smooth in the state: its non-smooth functions are
    ``Heaviside``/``Min``/``Max``/``Abs``/``sign``/``Piecewise`` whose switching functions are smooth,
    every ``Piecewise`` has a default branch ``(e, True)`` and its conditions are order relations
    (``<``, ``<=``, ``>``, ``>=``, combined with ``And``/``Or``/``Not``).

    Parameters
    ----------
    expr : sympy.Expr
        A rate or blocking expression.
    variables : sequence of sympy.Symbol
        The state variables.
    where : str
        What ``expr`` is, for the message (``"transitions[3]"``).

    Returns
    -------
    None

    Raises
    ------
    ModelDefinitionError
        Naming ``where``, the offending sub-expression and what is accepted.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> check_piecewise_smooth(sp.Piecewise((1, x < 1), (0, True)), [x], "transitions[0]")
    >>> check_piecewise_smooth(sp.Piecewise((1, x < 1)), [x], "transitions[0]")
    Traceback (most recent call last):
    ...
    symloss.core.definition.ModelDefinitionError: transitions[0]: Piecewise((1, x < 1)) has no default branch (e, True); a rate must be defined on the whole state space (add (value, True) as the last branch)
    """
    if not isinstance(expr, sp.Basic):
        return
    for f in _REFUSED:
        for a in expr.atoms(f):
            raise ModelDefinitionError(
                f"{where}: {a} is not piecewise smooth in a way the solvers handle ({f.__name__}); write the "
                f"switch with Heaviside, Min, Max, Abs or Piecewise with order conditions (<, <=, >, >=)")
    V = set(variables)
    for atom in expr.atoms(*NONSMOOTH_FUNCTIONS):
        if isinstance(atom, sp.Piecewise):
            if atom.args[-1][1] is not sp.true:
                raise ModelDefinitionError(
                    f"{where}: {atom} has no default branch (e, True); a rate must be defined on the whole "
                    f"state space (add (value, True) as the last branch)")
            for _e, c in atom.args:
                if c is sp.true or c is sp.false:
                    continue
                for node in sp.preorder_traversal(c):
                    if isinstance(node, (sp.Eq, sp.Ne)):
                        raise ModelDefinitionError(
                            f"{where}: the condition {c} of {atom} uses {type(node).__name__} (a piece of "
                            f"measure zero); use order relations <, <=, >, >= only")
                    if isinstance(node, sp.core.relational.Relational) and not isinstance(node, _ORDER_RELATIONS):
                        raise ModelDefinitionError(f"{where}: the condition {c} of {atom} is not an order relation")
        if isinstance(atom, sp.Heaviside) and len(atom.args) > 1:
            h0 = atom.args[1]
            if not (h0.is_number and 0 <= h0 <= 1):
                raise ModelDefinitionError(f"{where}: {atom}: the value at 0 must be a number in [0, 1], got {h0}")
        for s in _atom_switches(atom):
            if is_nonsmooth(s) and (s.free_symbols & V):
                raise ModelDefinitionError(
                    f"{where}: the switching function {s} of {atom} is itself non-smooth in the state; nested "
                    f"switches are not supported (write the piece conditions explicitly with Piecewise)")


def _orient(s):
    """``(key expression, +1/-1)``: a canonical orientation of the surface ``s = 0``."""
    s = sp.expand(s)
    t = sp.expand(-s)
    return (s, 1) if sp.default_sort_key(s) <= sp.default_sort_key(t) else (t, -1)


def switching_functions(exprs, variables) -> tuple:
    """The switching surfaces of piecewise-smooth expressions: the canonical (oriented, expanded)
    functions ``s`` whose sign decides a branch, that depend on the state.

    Parameters
    ----------
    exprs : sequence of sympy.Expr
        Rates, drift rows, a blocking.
    variables : sequence of sympy.Symbol
        The state variables.

    Returns
    -------
    tuple of sympy.Expr
        Sorted, without repetitions (``s`` and ``-s`` are one surface).

    Examples
    --------
    >>> import sympy as sp
    >>> u1, u2 = sp.symbols("u1 u2")
    >>> switching_functions([sp.Heaviside(u1 - 1, 1) * (1 - sp.Heaviside(u2 - 1, 1))], [u1, u2])
    (1 - u1, 1 - u2)
    """
    V = set(variables)
    out = set()
    for e in exprs:
        if not isinstance(e, sp.Basic):
            continue
        for atom in e.atoms(*NONSMOOTH_FUNCTIONS):
            for s in _atom_switches(atom):
                if sp.sympify(s).free_symbols & V:
                    out.add(_orient(s)[0])
    return tuple(sorted(out, key=sp.default_sort_key))


# ==================================================================================================
# the reduction of a definition to one piece
# ==================================================================================================

class _Mismatch(Exception):
    """A stored piece does not decide a branch (re-check) or the float point sits on a surface."""


class _Split(Exception):
    def __init__(self, key):
        super().__init__(str(key))
        self.key = key


def _point_theta(atom, key):
    """The weight of the side ``key > 0`` that gives ``atom`` its own value on the surface."""
    if isinstance(atom, (sp.Heaviside, sp.sign)):
        o = _orient(atom.args[0])[1]
        h0 = atom.args[1] if isinstance(atom, sp.Heaviside) and len(atom.args) > 1 else sp.Rational(1, 2)
        return sp.sympify(h0) if o == 1 else 1 - sp.sympify(h0)
    if isinstance(atom, sp.Piecewise):
        for _e, c in atom.args:
            for r in _relationals(c):
                k, o = _orient(r.lhs - r.rhs)
                if k == key:
                    t = bool(r.func(sp.Integer(0), 0))
                    side = (-1 if t else 1) if isinstance(r, (sp.StrictLessThan, sp.LessThan)) else (1 if t else -1)
                    return sp.Integer(1 if side * o > 0 else 0)
    return sp.Integer(1)


class _Reducer:
    """Replaces every non-smooth atom by its branch on a face.

    ``face`` maps variables to exact values; ``point`` (search) maps every variable to a float (the
    signs of the surfaces not through the point are read there and recorded in ``signs``), else the
    signs are looked up in ``signs`` (re-check). ``theta`` maps the key (``str``) of each surface
    through the point to a fixed exact value or a free symbol; unknown surfaces get ``theta_default``
    (a callable of the key expression) in search mode."""

    def __init__(self, face, rho, *, point=None, signs=None, theta=None, theta_default=None):
        self.face = dict(face)
        self.rho = rho                       # exact Fraction
        self.point = point
        self.signs = {} if signs is None else dict(signs)
        self.theta = {} if theta is None else dict(theta)
        self.theta_default = theta_default
        self.forced: dict = {}
        self.through: dict = {}              # key str -> key expression of the surfaces through the point
        self.used_signs: dict = {}
        self.rho_decisions: dict = {}
        self.touched: dict = {}              # surface key str -> rows whose reduction uses its weight
        self.row = None
        self.rho_sub = {RHO: sp.Rational(rho.numerator, rho.denominator)}

    # -- signs ------------------------------------------------------------------------------------
    def _face(self, s):
        return sp.expand(sp.sympify(s).xreplace(self.face))

    def sign(self, s):
        """+1 / -1 / 0 of a switching function on the face (0: through the point, handled by callers)."""
        sf = self._face(s)
        if sf.is_number:
            return int(sp.sign(sf))
        if not (sf.free_symbols - {RHO}):         # a function of the load only: decided exactly
            v = int(sp.sign(sf.xreplace(self.rho_sub)))
            self.rho_decisions[str(sf)] = (sf, v)
            return v
        key = str(sf)
        if key in self.signs:
            sg = self.signs[key]
        elif self.point is not None:
            v = float(sf.xreplace(self.point).xreplace({RHO: float(self.rho)}))
            if not math.isfinite(v) or v == 0.0:
                raise _Mismatch(f"the float point lies on the surface {sf} = 0")
            sg = 1 if v > 0 else -1
        else:
            raise _Mismatch(f"the certificate does not decide the sign of {sf}")
        self.used_signs[key] = (sf, sg)
        return sg

    def surface(self, s):
        """``(key, orientation)`` of a surface through the point, or None."""
        sf = self._face(s)
        if not (sf == 0 and sp.sympify(s).free_symbols - {RHO}):
            return None
        key, o = _orient(s)
        self.through[str(key)] = key
        return key, o

    def theta_of(self, key, atom=None):
        k = str(key)
        self.touched.setdefault(k, set()).add(self.row)
        if k not in self.theta:
            if self.theta_default is None:
                raise _Mismatch(f"the certificate has no weight for the surface {key} = 0")
            self.theta[k] = _point_theta(atom, key)
        return self.theta[k]

    # -- reduction --------------------------------------------------------------------------------
    def reduce(self, e):
        if not isinstance(e, sp.Basic):
            return e
        if not e.has(*NONSMOOTH_FUNCTIONS):
            return e.xreplace(self.face)
        if isinstance(e, NONSMOOTH_FUNCTIONS):
            return self._atom(e)
        return e.func(*[self.reduce(a) for a in e.args])

    def _split(self, key, atom):
        th = self.theta_of(key, atom)
        k = str(key)
        vals = []
        for side in (1, -1):
            if (side == 1 and th == 0) or (side == -1 and th == 1):
                vals.append(sp.Integer(0))
                continue
            self.forced[k] = side
            try:
                vals.append(self._atom(atom))
            finally:
                del self.forced[k]
        return th * vals[0] + (1 - th) * vals[1]

    def _side(self, s):
        """The sign of ``s`` on a forced side of a surface through the point, or None."""
        ko = self.surface(s)
        if ko is None:
            return None
        key, o = ko
        k = str(key)
        if k in self.forced:
            return self.forced[k] * o
        raise _Split(key)

    def _atom(self, atom):
        try:
            return self._atom_inner(atom)
        except _Split as sp_:
            return self._split(sp_.key, atom)

    def _atom_inner(self, atom):
        if isinstance(atom, (sp.Heaviside, sp.sign)):
            s = atom.args[0]
            side = self._side(s)
            sg = side if side is not None else self.sign(s)
            if sg == 0:                      # a function of the load only, exactly 0: the value at 0
                return atom.args[1] if isinstance(atom, sp.Heaviside) and len(atom.args) > 1 else (
                    sp.Rational(1, 2) if isinstance(atom, sp.Heaviside) else sp.Integer(0))
            if isinstance(atom, sp.Heaviside):
                return sp.Integer(1 if sg > 0 else 0)
            return sp.Integer(sg)
        if isinstance(atom, sp.Abs):
            a = self.reduce(atom.args[0])
            sf = self._face(atom.args[0])
            if sf == 0:
                return sp.Integer(0)
            return a if self.sign(atom.args[0]) >= 0 else -a
        if isinstance(atom, (sp.Min, sp.Max)):
            args = list(atom.args)
            want = 1 if isinstance(atom, sp.Min) else -1     # Min: the others minus it are > 0
            order = list(range(len(args)))
            if self.point is not None:
                vals = []
                for a in args:
                    af = self._face(a)
                    try:
                        vals.append(float(af.xreplace(self.point).xreplace({RHO: float(self.rho)})))
                    except TypeError:
                        vals.append(math.nan)
                order.sort(key=lambda i: want * vals[i] if math.isfinite(vals[i]) else math.inf)
            for i in order:
                ok = True
                for j in range(len(args)):
                    if j == i:
                        continue
                    d = args[j] - args[i]
                    if self._face(d) == 0:
                        continue
                    key = str(self._face(d))
                    if self.point is None and key not in self.signs and (self._face(d).free_symbols - {RHO}):
                        ok = False
                        break
                    if self.sign(d) * want <= 0 and self.sign(d) != 0:
                        ok = False
                        break
                if ok:
                    return self.reduce(args[i])
            raise _Mismatch(f"no argument of {atom} is certainly the {'least' if want > 0 else 'largest'}")
        if isinstance(atom, sp.Piecewise):
            for e, c in atom.args:
                if c is sp.true:
                    return self.reduce(e)
                rep = {}
                for r in _relationals(c):
                    s = r.lhs - r.rhs
                    side = self._side(s)
                    sg = side if side is not None else self.sign(s)
                    if sg == 0:
                        truth = bool(r.func(sp.Integer(0), 0))
                    else:
                        truth = (sg < 0) if isinstance(r, (sp.StrictLessThan, sp.LessThan)) else (sg > 0)
                    rep[r] = sp.true if truth else sp.false
                if c.xreplace(rep) is sp.true:
                    return self.reduce(e)
            raise _Mismatch(f"no branch of {atom} holds")      # pragma: no cover - the default branch holds
        raise _Mismatch(f"cannot reduce {atom}")               # pragma: no cover


# ==================================================================================================
# the square system of one piece
# ==================================================================================================

def _q(v) -> sp.Rational:
    v = Fraction(v)
    return sp.Rational(v.numerator, v.denominator)


def _qstr(v) -> str:
    v = sp.Rational(v)
    return f"{v.p}/{v.q}"


def _parse_q(s: str) -> sp.Rational:
    p, q = s.split("/")
    return sp.Rational(int(p), int(q))


@dataclass
class PieceSystem:
    """One piece of a piecewise-smooth definition on a face: the smooth square system whose zero is
    a Filippov equilibrium (see the module docstring).

    Attributes
    ----------
    face : dict
        ``{variable: exact value}`` of the fixed coordinates.
    theta : dict
        ``{surface key: exact value or free symbol}`` of the surfaces through the point.
    signs : dict
        ``{switching function on the face (str): +1 or -1}``: the branch decisions.
    unknowns : list
        The free coordinates and the free weights (SymPy symbols).
    rows : list
        The equations (SymPy, in the unknowns and ``rho``).
    vanishing : list of int
        The drift rows identically zero on the piece (proved by SymPy).
    dropped : list of int
        Drift rows left out because an invariant implies them.
    blocking : sympy.Expr
        The blocking on the piece.
    sign_exprs : dict
        ``{key: (expression, sign)}`` of the branch decisions.
    """
    face: dict
    theta: dict
    signs: dict
    unknowns: list
    rows: list
    vanishing: list
    dropped: list
    blocking: object
    sign_exprs: dict
    free_vars: list = field(default_factory=list)
    free_theta: list = field(default_factory=list)
    rho_decisions: dict = field(default_factory=dict)
    _compiled: dict = field(default_factory=dict, repr=False)

    @property
    def square(self) -> bool:
        """Whether there are as many equations as unknowns."""
        return len(self.rows) == len(self.unknowns)

    def compiled(self):
        """Float and ball evaluators of the rows, their Jacobian and the blocking (lambdified once).

        Returns
        -------
        dict
            ``G_np``, ``J_np`` (numpy), ``G_arb``, ``J_arb``, ``Jr_arb``, ``B_arb``, ``S_arb`` (the
            branch-decision functions; python-flint ``arb``) and ``linear`` (bool).
        """
        if not self._compiled:
            args = list(self.unknowns) + [RHO]
            J = [[sp.diff(r, z) for z in self.unknowns] for r in self.rows]
            Jr = [sp.diff(r, RHO) for r in self.rows]
            sig = [e for e, _s in self.sign_exprs.values()]
            self._compiled.update(
                G_np=numpy_lambdify(args, self.rows), J_np=numpy_lambdify(args, J),
                G_arb=arb_lambdify(args, self.rows), J_arb=arb_lambdify(args, J), Jr_arb=arb_lambdify(args, Jr),
                B_arb=arb_lambdify(args, self.blocking), S_arb=arb_lambdify(args, sig),
                linear=all(sp.Poly(r, *self.unknowns).total_degree() <= 1 for r in self.rows)
                if self.unknowns else True)
        return self._compiled


def _theta_symbol(i: int):
    return sp.Symbol(f"theta_{i}", real=True)


def _build_piece(model, rho, face, theta_spec, *, point=None, signs=None):
    """The :class:`PieceSystem` of ``model`` on ``face`` with the weights ``theta_spec``
    (``{key str: 'free' | exact}``; unknown surfaces at their point value in search mode)."""
    V = list(model.variables)
    free_keys = sorted(k for k, v in theta_spec.items() if v == "free")
    theta = {}
    for k, v in theta_spec.items():
        theta[k] = _theta_symbol(free_keys.index(k)) if v == "free" else sp.sympify(v)

    def default(key):
        return sp.Integer(1)          # the + side (Heaviside(s, 1) convention for s = key)
    red = _Reducer(face, rho, point=point, signs=signs, theta=theta, theta_default=default if point is not None else None)
    drift = []
    for i, e in enumerate(model._drift):
        red.row = i
        drift.append(red.reduce(e))
    red.row = "blocking"
    blocking = red.reduce(model._blocking)
    drift = [sp.expand(e) for e in drift]
    free = [v for v in V if v not in face]
    ftheta = [theta[k] for k in free_keys]
    unknowns = free + ftheta
    vanishing = [i for i, e in enumerate(drift) if e == 0]
    rows_idx = [i for i, e in enumerate(drift) if e != 0]
    inv_rows = []
    for cc, val in model._invariants:
        e = sp.expand(sp.Add(*[c * v for c, v in zip(cc, V) if c != 0]).xreplace(face) - val)
        if e.is_number:
            if e != 0:
                raise _Mismatch(f"the face {face} violates the invariant {cc} . x = {val}")
            continue
        inv_rows.append(e)
    dropped = []
    for cc, _val in model._invariants:
        cand = [i for i in rows_idx if cc[i] != 0 and i not in dropped]
        if cand:
            dropped.append(cand[-1])          # refined by _choose_dropped with the float point
    rows = [drift[i] for i in rows_idx if i not in dropped] + inv_rows
    unused = set(str(t) for t in ftheta) - set(str(s) for r in rows for s in r.free_symbols)
    if unused:
        raise _Mismatch(f"the free weights {sorted(unused)} appear in no equation")
    spec_signs = {k: sg for k, (e, sg) in red.used_signs.items()}
    theta_out = {k: ("free" if theta_spec.get(k) == "free" else _qstr(v)) for k, v in red.theta.items()}
    return PieceSystem(dict(face), theta_out, spec_signs, unknowns, rows, vanishing,
                       dropped, blocking, dict(red.used_signs), free, ftheta, dict(red.rho_decisions)), \
        red, drift, rows_idx, inv_rows


# ==================================================================================================
# float search
# ==================================================================================================

def _float_newton(piece, z0, rho_f, *, iters: int = 60):
    c = piece.compiled()
    z = np.array(z0, dtype=float)
    if len(z) == 0:
        return z, True
    for _ in range(iters):
        g = np.asarray(c["G_np"](*z, rho_f), dtype=float).ravel()
        if not np.all(np.isfinite(g)):
            return z, False
        J = np.asarray(c["J_np"](*z, rho_f), dtype=float).reshape(len(z), len(z))
        try:
            step = np.linalg.solve(J, g)
        except np.linalg.LinAlgError:
            return z, False
        if not np.all(np.isfinite(step)):
            return z, False
        z = z - step
        if np.max(np.abs(step)) < 1e-14 * (1 + np.max(np.abs(z))):
            break
    g = np.asarray(c["G_np"](*z, rho_f), dtype=float).ravel()
    return z, bool(np.all(np.isfinite(g)) and np.max(np.abs(g)) < 1e-9)


#: the width of the regularised switches of the float search (not part of any proof)
REGULARISATION = 1e-5

_SIG = sp.Function("_sig")


def _regularise(e, eps):
    """``e`` with every jump replaced by a steep sigmoid of width ``eps`` (Heaviside, sign, the
    conditions of a Piecewise); Min/Max/Abs are continuous and kept."""
    if not isinstance(e, sp.Basic) or not e.has(sp.Heaviside, sp.sign, sp.Piecewise):
        return e

    def cond(c):
        if c is sp.true:
            return sp.Integer(1)
        if c is sp.false:
            return sp.Integer(0)
        if isinstance(c, sp.And):
            return sp.Mul(*[cond(a) for a in c.args])
        if isinstance(c, sp.Or):
            return 1 - sp.Mul(*[1 - cond(a) for a in c.args])
        if isinstance(c, sp.Not):
            return 1 - cond(c.args[0])
        s = _regularise(c.lhs - c.rhs, eps)
        return _SIG(-s / eps) if isinstance(c, (sp.StrictLessThan, sp.LessThan)) else _SIG(s / eps)
    if isinstance(e, sp.Heaviside):
        return _SIG(_regularise(e.args[0], eps) / eps)
    if isinstance(e, sp.sign):
        return 2 * _SIG(_regularise(e.args[0], eps) / eps) - 1
    if isinstance(e, sp.Piecewise):
        out = _regularise(e.args[-1][0], eps)
        for ex, c in reversed(e.args[:-1]):
            w = cond(c)
            out = w * _regularise(ex, eps) + (1 - w) * out
        return out
    return e.func(*[_regularise(a, eps) for a in e.args])


_REG_CACHE: dict = {}


def _regularised_drift(model, eps=REGULARISATION):
    key = (model._definition_key(), eps)
    f = _REG_CACHE.get(key)
    if f is None:
        from scipy.special import expit
        rows = [_regularise(e, eps) for e in model._drift]
        f = sp.lambdify(list(model.variables) + [RHO], rows,
                        modules=[{"_sig": expit, "Heaviside": lambda x, h0=0.5: np.heaviside(x, h0)}, "numpy"])
        if len(_REG_CACHE) > 256:
            _REG_CACHE.clear()
        _REG_CACHE[key] = f
    return f


def _integrate(model, rho_f, x0, t):
    from scipy.integrate import solve_ivp
    f = _regularised_drift(model)
    t = np.asarray(t, dtype=float)
    sol = solve_ivp(lambda _t, y: np.asarray(f(*y, rho_f), dtype=float).ravel(), (0.0, float(t[-1])),
                    np.asarray(x0, dtype=float), method="LSODA", t_eval=t, rtol=1e-9, atol=1e-12)
    if not sol.success:
        raise RuntimeError(f"integration of the regularised drift failed: {sol.message}")
    return sol.y.T


def sliding_ode(model, rho, x0, t):
    """Trajectories of a piecewise-smooth model's mean-field ODE (numerical): the definition's drift
    with every jump replaced by a sigmoid of width ``REGULARISATION`` (the Sotomayor-Teixeira
    regularisation, whose solutions tend to Filippov's sliding solutions as the width tends to 0),
    integrated by scipy's LSODA. ``Min``/``Max``/``Abs`` are continuous and kept as they are.

    Parameters
    ----------
    model : MeanFieldModel
        A model with piecewise-smooth rates.
    rho : float
        The load, ``> 0``.
    x0 : array_like
        The initial state (in the order of ``model.variables``), in ``[0, 1]``.
    t : array_like
        Increasing output times, ``>= 0``.

    Returns
    -------
    OdeResult
        The states at ``t`` (within about ``10 * REGULARISATION`` of the Filippov trajectory) and the
        blocking of each.

    Raises
    ------
    ValueError
        If ``rho``, ``x0`` or ``t`` is out of range.
    RuntimeError
        If the integration fails.

    References
    ----------
    .. [1] J. Sotomayor, M. A. Teixeira, "Regularization of discontinuous vector fields", Proceedings
       of the International Conference on Differential Equations, Lisboa (1996).

    Examples
    --------
    >>> from symloss import JSQ
    >>> r = sliding_ode(JSQ(2), 1.5, [0, 0], [0, 30])
    >>> [round(float(v), 3) for v in r.x[-1]]
    [1.0, 0.5]
    """
    rho_f = float(rho)
    if not (math.isfinite(rho_f) and rho_f > 0):
        raise ValueError(f"rho must be a finite number > 0, got {rho!r}")
    x = np.asarray(x0, dtype=float).ravel()
    n = len(model.variables)
    if x.shape != (n,) or np.any(~np.isfinite(x)) or np.any(x < 0) or np.any(x > 1):
        raise ValueError(f"x0 must be {n} numbers in [0, 1], got {x0!r}")
    t = np.asarray(t, dtype=float).ravel()
    if t.size == 0 or np.any(t < 0) or np.any(np.diff(t) <= 0):
        raise ValueError(f"t must be increasing times >= 0, got {t!r}")
    X = _integrate(model, rho_f, x, t) if t[-1] > 0 else np.array([x] * len(t))
    if t[0] == 0:
        X[0] = x
    Bf = numpy_lambdify(list(model.variables) + [RHO], model._blocking)
    B = np.array([float(Bf(*row, rho_f)) for row in X])
    return OdeResult(t, X, B, tuple(model.variables), True,
                     f"regularised drift (switch width {REGULARISATION:g}), LSODA")


def _settle(model, rho_f, x0, t_max=2e3):
    """Integrate the regularised drift to ``t_max``; returns the final state (clipped to [0, 1])."""
    X = _integrate(model, rho_f, x0, [t_max / 4, t_max])
    return np.clip(X[-1], 0.0, 1.0), 10 * REGULARISATION


def _candidate_values(model, rho):
    """Per variable, the exact values a face may fix it at: 0, 1 and the surfaces ``x_j = c``."""
    V = list(model.variables)
    vals = {v: {sp.Integer(0), sp.Integer(1)} for v in V}
    sub = {RHO: _q(rho)}
    for s in switching_functions(list(model._drift) + [model._blocking], V):
        s = sp.expand(s.xreplace(sub))
        fs = s.free_symbols & set(V)
        if len(fs) != 1:
            continue
        v = next(iter(fs))
        try:
            p = sp.Poly(s, v)
        except sp.PolynomialError:
            continue
        if p.degree() == 1 and all(c.is_Rational for c in p.all_coeffs()):
            c = -p.all_coeffs()[1] / p.all_coeffs()[0]
            if 0 <= c <= 1:
                vals[v].add(c)
    return vals


def _faces(model, rho, xh, tol=2e-2):
    """Candidate faces near the float state ``xh``, most constrained first."""
    V = list(model.variables)
    vals = _candidate_values(model, rho)
    near = []
    for j, v in enumerate(V):
        best = min(vals[v], key=lambda c: abs(float(c) - xh[j]))
        d = abs(float(best) - xh[j])
        if d < tol:
            near.append((d, v, best))
    near.sort(key=lambda t: t[0])
    seen = []
    for k in range(len(near), -1, -1):
        base = near[:k]
        opts = [base] + ([[t for t in base if t is not drop] for drop in base] if k else [])
        for o in opts:
            face = {v: c for _d, v, c in o}
            key = tuple(sorted((str(v), str(c)) for v, c in face.items()))
            if key not in seen:
                seen.append(key)
                yield face


# ==================================================================================================
# certification
# ==================================================================================================

class _BallSystem:
    """The ``comp`` protocol of :mod:`symloss.core.krawczyk` (``n``, ``G_arb``, ``GJ_arb``) for a piece
    (variables in linear scale; ``r`` is the load ball itself)."""

    def __init__(self, piece):
        self.piece = piece
        self.c = piece.compiled()
        self.n = len(piece.unknowns)

    def G_arb(self, y, r, sel=None):
        return list(self.c["G_arb"](*(list(y) + [r])))

    def GJ_arb(self, y, r, sel=None):
        z = list(y) + [r]
        J = self.c["J_arb"](*z)
        return (list(self.c["G_arb"](*z)), arb_mat([list(row) for row in J]), list(self.c["Jr_arb"](*z)))


def _rho_fraction(rho) -> Fraction:
    v = exact_real(rho, "rho")
    if isinstance(v, mpmath.mpf):
        man, exp = v.man_exp
        v = Fraction(int(man)) * (Fraction(2) ** int(exp))
    v = Fraction(v)
    if not v > 0:
        raise ValueError(f"rho must be > 0, got {rho!r}")
    return v


def _exact_solution(piece, rho):
    """The exact rational zero of a piece system linear in its unknowns, or None."""
    if not piece.compiled()["linear"]:
        return None
    rows = [r.xreplace({RHO: _q(rho)}) for r in piece.rows]
    if not piece.unknowns:
        return {} if all(sp.expand(r) == 0 for r in rows) else None
    try:
        A, b = sp.linear_eq_to_matrix(rows, piece.unknowns)
        if A.det() == 0:
            return None
        sol = A.LUsolve(b)
    except (ValueError, ZeroDivisionError, sp.PolynomialError):
        return None
    return {z: (s if s.is_Rational else None) for z, s in zip(piece.unknowns, sol)}


def _check_box(model, piece, box, R, exact=None, rho=None) -> tuple:
    """The sign conditions of the piece: strict signs of the branch decisions, weights in [0, 1], the
    state in the state space. Returns ``(ok, reason)``. On the ball ``box`` (at the load ``R``), or,
    with the exact rational zero ``exact`` of a linear piece and the exact load ``rho``, at that point
    in exact rationals (no ball can be too wide: a point ``1e-50`` from a switching surface is decided)."""
    if exact is not None:
        if rho is None:
            raise ValueError("_check_box: an exact zero needs the exact load")
        sub = dict(piece.face)
        sub.update(exact)
        sub[RHO] = _q(rho)
        vals = []
        for e, _sg in piece.sign_exprs.values():
            q = sp.expand(sp.sympify(e).xreplace(sub))
            vals.append(q if q.is_Rational else None)
        box = [exact[z] for z in piece.unknowns]
        face = {v: piece.face[v] for v in piece.face}
        where = "at the exact zero"
    else:
        vals = piece.compiled()["S_arb"](*(list(box) + [R]))
        face = {v: arb(fmpq(int(q.p), int(q.q))) for v, q in piece.face.items()}
        where = "on the box"
    for (e, sg), v in zip(piece.sign_exprs.values(), vals):
        if v is None or not ((v > 0) if sg > 0 else (v < 0)):
            return False, f"the sign of {e} is not certainly {'> 0' if sg > 0 else '< 0'} {where} ({v})"
    nfv = len(piece.free_vars)
    for th, X in zip(piece.free_theta, box[nfv:]):
        if not (X >= 0 and X <= 1):
            return False, f"the weight {th} is not certainly in [0, 1] {where} ({X})"
    state = dict(face)
    state.update(zip(piece.free_vars, box[:nfv]))
    xs = [state[v] for v in model.variables]
    for v, X in zip(model.variables, xs):
        if not (X >= 0 and X <= 1):
            return False, f"{v} is not certainly in [0, 1] {where} ({X})"
    if getattr(model, "state_kind", "custom") == "tail":
        for k in range(len(xs) - 1):
            if not (xs[k] - xs[k + 1] >= 0):
                return False, (f"the tails are not certainly ordered at {model.variables[k]} {where} "
                               f"({xs[k]} < {xs[k + 1]})")
    return True, (f"the branch decisions hold strictly {where}, the weights lie in [0, 1], the state in the "
                  "state space")


def _krawczyk_piece(piece, z0, R, prec):
    comp = _BallSystem(piece)
    n = comp.n
    if n == 0:
        return [], 0.0
    m, _ = _newton_arb(comp, [float(v) for v in z0], R, prec, None)
    rad = [arb(2) ** (-(prec - 30)) * (1 + abs(m[i])) for i in range(n)]
    Y = None
    for _ in range(10):
        ok, margin, K, Y = _krawczyk(comp, m, rad, R, None, Y)
        if ok:
            return [arb(m[i], rad[i]) for i in range(n)], margin
        if K is None:
            break
        rad = [max(rad[i] * 2, (abs(K[i] - m[i]).upper() if K[i].is_finite() else rad[i] * 8) * arb(1.5))
               for i in range(n)]
    raise PrecisionError("the Krawczyk test failed on the piece's system")


def _certify_piece(model, piece, z0, rho, dps, R_ball=None):
    """Krawczyk + sign conditions at increasing precision (for every load of ``R_ball`` when given);
    returns a dict or raises."""
    prec = dps_to_prec(dps) + 64
    exact = _exact_solution(piece, rho) if R_ball is None else None
    if R_ball is not None:
        for e, v in piece.rho_decisions.values():
            val = arb_lambdify([RHO], e)(R_ball)
            if not ((val > 0) if v > 0 else (val < 0) if v < 0 else val == 0):
                raise _Mismatch(f"the load ball {R_ball} does not decide the sign of {e}")
    while True:
        with flint_prec(prec):
            R = R_ball if R_ball is not None else arb(fmpq(rho.numerator, rho.denominator))
            box, margin = _krawczyk_piece(piece, z0, R, prec)
            c = piece.compiled()
            if exact is None or not all(v is not None for v in exact.values()):
                exact = None
            # an exact rational zero of a linear piece with a non-singular matrix is its only zero: it is
            # the certified point (the Krawczyk box of a nearby float start need not hold it to the last bit)
            ok, why = _check_box(model, piece, box, R, exact, rho if R_ball is None else None)
            if not ok:
                raise _Mismatch(why)
            if exact is not None:
                Bq = sp.expand(piece.blocking.xreplace({RHO: _q(rho)}).xreplace(exact))
                if not Bq.is_Rational:
                    Bq = None
            else:
                Bq = None
            if Bq is not None:
                B = arb(fmpq(int(Bq.p), int(Bq.q)))
            else:
                B = c["B_arb"](*(list(box) + [R]))
            if Bq is not None or arb_relative_accuracy_ok(B, dps):
                xs = []
                for v in model.variables:
                    if v in piece.face:
                        xs.append(arb(fmpq(int(piece.face[v].p), int(piece.face[v].q))))
                    elif exact is not None:
                        q = exact[v]
                        xs.append(arb(fmpq(int(q.p), int(q.q))))
                    else:
                        xs.append(box[piece.free_vars.index(v)])
                return {"box": box, "margin": margin, "B": B, "Bq": Bq, "x": xs, "prec": prec, "exact": exact,
                        "theta": box[len(piece.free_vars):]}
        prec *= 2
        if prec > _MAX_PREC:
            raise PrecisionError(f"{model!r}: the blocking on the piece is not known to {dps} digits at "
                                 f"{_MAX_PREC} bits (a blocking that is exactly 0 needs a piece linear in its "
                                 f"unknowns)")


_PIECES: dict = {}


def _piece_cache(model) -> list:
    key = model._definition_key()
    if len(_PIECES) > 256:
        _PIECES.clear()
    return _PIECES.setdefault(key, [])


def _theta_candidates(piece_red, rows_idx, drift_rows):
    """Surfaces through the point whose weight appears only in the non-vanishing rows."""
    return sorted(piece_red.through)


def _try_face(model, rho, face, xh, dps, budget, R_ball=None):
    """Search the weights on ``face``; returns (piece, cert) or None."""
    V = list(model.variables)
    point = {v: sp.Float(float(xh[j])) for j, v in enumerate(V)}
    rho_f = float(rho)
    try:
        piece, red, drift, rows_idx, _inv = _build_piece(model, rho, face, {}, point=point)
    except _Mismatch:
        return None
    need = len(piece.rows) - len(piece.unknowns)
    if need < 0:
        return None
    # the weights that may be freed: those used only by rows that are already equations (freeing another
    # one turns a row that vanishes on the face into a new equation)
    eq_rows = set(rows_idx) | {"blocking"}
    through = [k for k in sorted(red.through) if red.touched.get(k, set()) <= eq_rows]
    for size in range(need, min(need + 1, len(through)) + 1):
        for sub in itertools.combinations(through, size):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            spec = {k: "free" for k in sub}
            try:
                pc, red2, *_ = _build_piece(model, rho, face, spec, point=point)
            except _Mismatch:
                continue
            if not pc.square:
                continue
            z0 = [float(xh[V.index(v)]) for v in pc.free_vars] + [0.5] * len(pc.free_theta)
            z, ok = _float_newton(pc, z0, rho_f)
            if not ok:
                continue
            # the branch decisions again at the Newton point (they may differ from the ODE's)
            pt = dict(point)
            for v, val in zip(pc.free_vars, z):
                pt[v] = sp.Float(float(val))
            try:
                pc2, *_ = _build_piece(model, rho, face, spec, point=pt)
            except _Mismatch:
                continue
            if pc2.signs != pc.signs:
                if not pc2.square:
                    continue
                z, ok = _float_newton(pc2, z, rho_f)
                if not ok:
                    continue
                pc = pc2
            try:
                cert = _certify_piece(model, pc, z, rho, dps, R_ball)
            except (_Mismatch, PrecisionError, ZeroDivisionError, ValueError):
                continue
            return pc, cert
    return None


def _same_rho_decisions(pc, rho) -> bool:
    sub = {RHO: _q(rho)}
    return all(int(sp.sign(e.xreplace(sub))) == v for e, v in pc.rho_decisions.values())


def _from_cache(model, rho, dps, R_ball=None):
    rho_f = float(rho)
    for spec in list(_piece_cache(model)):
        face, theta_spec, signs, z_prev, pc = spec
        if not _same_rho_decisions(pc, rho):
            try:
                pc, *_ = _build_piece(model, rho, face, theta_spec, signs=signs)
            except _Mismatch:
                continue
        if not pc.square:
            continue
        z, ok = _float_newton(pc, z_prev, rho_f)
        if not ok:
            continue
        try:
            return pc, _certify_piece(model, pc, z, rho, dps, R_ball)
        except (_Mismatch, PrecisionError, ZeroDivisionError, ValueError):
            continue
    return None


def _search(model, rho, dps, x_start=None, R_ball=None):
    rho_f = float(rho)
    if x_start is None:
        x0 = np.clip(default_initial_state(model, rho_f), 0.0, 1.0)
        xh, _h = _settle(model, rho_f, x0)
    else:
        xh = np.asarray(x_start, dtype=float)
    budget = [SEARCH_BUDGET]
    for face in _faces(model, rho, xh):
        out = _try_face(model, rho, face, xh, dps, budget, R_ball)
        if out is not None:
            return out, xh
        if budget[0] < 0:
            break
    return None, xh


def _certificate(model, rho, piece, cert) -> dict:
    with flint_prec(cert["prec"]):
        box = [[_exact_mid(X), _exact_rad(X)] for X in cert["box"]]
    return {"kind": "piecewise-krawczyk", "fingerprint": model.fingerprint(), "rho": f"{rho.numerator}/{rho.denominator}",
            "face": {str(v): _qstr(c) for v, c in piece.face.items()},
            "theta": dict(piece.theta), "signs": dict(piece.signs),
            "unknowns": [str(z) for z in piece.unknowns], "vanishing_rows": list(piece.vanishing),
            "dropped_rows": list(piece.dropped), "box": box, "prec": cert["prec"],
            "exact": None if cert["exact"] is None else {str(z): _qstr(v) for z, v in cert["exact"].items()}}


def _exact_mid(X) -> str:
    man, exp = X.mid().man_exp()
    return f"{int(man)}*2^{int(exp)}"


def _exact_rad(X) -> str:
    r = arb(X.rad())
    man, exp = r.mid().man_exp()
    return f"{int(man)}*2^{int(exp)}"


def _parse_dyadic(s: str) -> arb:
    m, e = s.split("*2^")
    return arb(int(m)) * arb(2) ** int(e)


def piecewise_fixed_point(model, rho, dps: int = DEFAULT_DPS, *, uniqueness: bool = False) -> FixedPointResult:
    """The certified fixed point of a piecewise-smooth model (a Filippov equilibrium, possibly on a
    face of the state space; see the module docstring).

    Parameters
    ----------
    model : MeanFieldModel
        A model whose rates contain ``Heaviside``/``Min``/``Max``/``Abs``/``sign``/``Piecewise``.
    rho : int, float, Fraction or mpmath.mpf
        The load, ``> 0`` (exact: a float is its binary value).
    dps : int
        Significant digits, ``5 <= dps <= 100000``.
    uniqueness : bool
        Also integrate the projected ODE from the extreme states (EVIDENCE of uniqueness).

    Returns
    -------
    FixedPointResult
        ``extra["certificate"]`` (re-checked by :func:`verify_piecewise_certificate`) and
        ``extra["parts"]``: ``{"zero": "PROVED", "active_piece": "PROVED", "uniqueness": ...}``.

    Raises
    ------
    TypeError, ValueError
        If ``rho``, ``dps`` or ``uniqueness`` is not valid.
    PrecisionError
        If no piece could be certified (the message says what was tried).

    Examples
    --------
    >>> import mpmath
    >>> from symloss import JSQ
    >>> r = piecewise_fixed_point(JSQ(3), 2.5, 20)
    >>> [mpmath.nstr(v, 5) for v in r.x], r.extra["parts"]["zero"]
    (['1.0', '1.0', '0.5'], 'PROVED')
    """
    rho = _rho_fraction(rho)
    dps = check_dps(dps)
    if not isinstance(uniqueness, bool):
        raise TypeError(f"uniqueness must be True or False, got {uniqueness!r}")
    out = _from_cache(model, rho, dps)
    xh = None
    if out is None:
        out, xh = _search(model, rho, dps)
        if out is None:
            raise PrecisionError(
                f"{model!r} at rho = {rho}: no piece of the definition has a certified fixed point near the float "
                f"state {np.round(xh, 6).tolist()} (faces at 0, 1 and the surfaces x_j = c, weights of the "
                f"surfaces through the point, {SEARCH_BUDGET} attempts)")
        pc, cert = out
        z = [float(arb_to_mpf(X)) for X in cert["box"]]
        _piece_cache(model).insert(0, (pc.face, dict(pc.theta), pc.signs, z, pc))
    pc, cert = out
    return _result(model, rho, dps, pc, cert, uniqueness)


def _result(model, rho, dps, pc, cert, uniqueness):
    with flint_prec(cert["prec"]):
        xs = [arb_to_mpf(X) for X in cert["x"]]
        B = cert["B"]
        bracket = (arb_to_mpf(arb(B.lower())), arb_to_mpf(arb(B.upper())))
        Bm = arb_to_mpf(B)
    with mpmath.workdps(dps + 10):
        rm = mpmath.mpf(rho.numerator) / rho.denominator
    certificate = _certificate(model, rho, pc, cert)
    parts = {"zero": "PROVED", "active_piece": "PROVED", "uniqueness": "NOT CHECKED"}
    uniq = ("NOT CHECKED (piecewise-smooth model: uniqueness on the whole state space is not proved; "
            "fixed_point(rho, uniqueness=True) gives EVIDENCE from the projected ODE)")
    if uniqueness:
        parts["uniqueness"], uniq = _uniqueness_evidence(model, rho, xs)
    face_txt = ", ".join(f"{v} = {c}" for v, c in pc.face.items()) or "none"
    free_th = [k for k, v in pc.theta.items() if v == "free"]
    method = (f"piecewise-smooth certified solver: face ({face_txt}); {len(free_th)} sliding weight(s) on "
              f"{', '.join(f'{k} = 0' for k in free_th) or 'no surface'}; Krawczyk on the piece's "
              f"{len(pc.unknowns)}x{len(pc.unknowns)} system, branch signs certified on the box"
              + ("; solved exactly (linear piece)" if cert["exact"] is not None else ""))
    extra = {"certificate": certificate, "parts": parts, "margin": cert["margin"],
             "face": {str(v): str(c) for v, c in pc.face.items()},
             "theta": [arb_to_mpf(t) for t in cert["theta"]]}
    return FixedPointResult(model.name, rounded(rm, dps), [rounded(v, dps) for v in xs], rounded(Bm, dps), bracket,
                            mpmath.mpf(0) if cert["exact"] is not None else
                            max((abs(arb_to_mpf(X.rad())) for X in cert["box"]), default=mpmath.mpf(0)),
                            method, dps, extra, uniq, 1 if parts["uniqueness"] == "PROVED" else None)


def _uniqueness_evidence(model, rho, xs):
    rho_f = float(rho)
    n = len(model.variables)
    starts = [np.zeros(n), np.ones(n)]
    if getattr(model, "state_kind", "custom") == "occupancy":
        starts = [np.eye(n)[0], np.eye(n)[-1]]
    x = np.array([float(v) for v in xs])
    far = []
    for s in starts:
        end, h = _settle(model, rho_f, s)
        if np.max(np.abs(end - x)) > max(1e-3, 100 * h):
            far.append((s.tolist(), np.round(end, 6).tolist()))
    if far:
        return "NOT UNIQUE (numerical)", (f"EVIDENCE AGAINST uniqueness: the projected ODE from {far[0][0]} settles "
                                          f"near {far[0][1]}, not at the certified point")
    return "EVIDENCE", (f"EVIDENCE: the projected ODE from the extreme states {[s.tolist() for s in starts]} settles at "
                        f"the certified point (numerical integration; uniqueness on the whole state space is not proved)")


def verify_piecewise_certificate(model, cert) -> tuple:
    """Re-check a certificate of :func:`piecewise_fixed_point` from its data only (no search): the
    fingerprint, the piece rebuilt from the stored face, weights and branch signs, the vanishing
    rows (exact), the Krawczyk test on the stored box, the strict signs, weights and state-space
    conditions on that box, and the stored exact solution when there is one.

    Parameters
    ----------
    model : MeanFieldModel
        The model the certificate claims to be for.
    cert : dict
        ``result.extra["certificate"]``.

    Returns
    -------
    tuple of (bool, str)
        Whether it holds, and why (the first failing check).

    Examples
    --------
    >>> from symloss import JSQ
    >>> r = piecewise_fixed_point(JSQ(2), 1.5, 20)
    >>> verify_piecewise_certificate(JSQ(2), r.extra["certificate"])[0]
    True
    """
    if not isinstance(cert, dict) or cert.get("kind") != "piecewise-krawczyk":
        return False, "not a piecewise-krawczyk certificate"
    if cert.get("fingerprint") != model.fingerprint():
        return False, "the certificate was made for another definition (fingerprint differs)"
    try:
        p, q = cert["rho"].split("/")
        rho = Fraction(int(p), int(q))
        Vn = {str(v): v for v in model.variables}
        face = {Vn[k]: _parse_q(v) for k, v in cert["face"].items()}
        pc, *_ = _build_piece(model, rho, face, dict(cert["theta"]), signs=dict(cert["signs"]))
    except (_Mismatch, KeyError, ValueError) as exc:
        return False, f"the stored piece does not rebuild: {exc}"
    if [str(z) for z in pc.unknowns] != list(cert["unknowns"]):
        return False, "the unknowns of the rebuilt piece differ from the stored ones"
    if pc.vanishing != list(cert["vanishing_rows"]) or pc.dropped != list(cert["dropped_rows"]):
        return False, "the rows that vanish on the face (or that an invariant implies) differ"
    if set(pc.signs) != set(cert["signs"]):
        return False, "the stored branch signs are not the ones the piece uses"
    if not pc.square:
        return False, "the piece's system is not square"
    prec = int(cert["prec"])
    with flint_prec(prec):
        R = arb(fmpq(rho.numerator, rho.denominator))
        box = [arb(_parse_dyadic(c), _parse_dyadic(r)) for c, r in cert["box"]]
        if len(box) != len(pc.unknowns):
            return False, "the box has the wrong dimension"
        if box:
            comp = _BallSystem(pc)
            m = [arb(X.mid()) for X in box]
            rad = [arb(X.rad()) for X in box]
            ok, _margin, _K, _Y = _krawczyk(comp, m, rad, R, None)
            if not ok:
                return False, "the Krawczyk test fails on the stored box"
        ex = None
        if cert.get("exact") is not None:
            ex = {z: _parse_q(cert["exact"][str(z)]) for z in pc.unknowns}
            sub = dict(ex)
            sub[RHO] = _q(rho)
            if any(sp.expand(r.xreplace(sub)) != 0 for r in pc.rows):
                return False, "the stored exact solution does not solve the piece's system"
            # the search's own test (_exact_solution): a linear piece with a non-singular matrix, whose
            # exact zero is then its only zero (whether or not the float-started box holds it to the bit)
            exact_again = _exact_solution(pc, rho)
            if exact_again is None or any(exact_again.get(z) != ex[z] for z in pc.unknowns):
                return False, "the stored exact solution is not the unique zero of the piece's linear system"
        ok, why = _check_box(model, pc, box, R, ex, rho)
        if not ok:
            return False, why
    return True, ("the piece rebuilds from the stored face, weights and signs; Krawczyk holds on the stored box; the "
                  "branch signs, weights and state-space conditions hold on it")


# ==================================================================================================
# model.fixed_point for a piecewise-smooth definition: accelerator (verified) or this solver
# ==================================================================================================

def is_piecewise_model(model) -> bool:
    """Whether the model's drift or blocking has a state-dependent switch (a piecewise-smooth model).

    Parameters
    ----------
    model : MeanFieldModel
        The model.

    Returns
    -------
    bool

    Examples
    --------
    >>> from symloss import JSQ, PowerOfD
    >>> is_piecewise_model(JSQ(2)), is_piecewise_model(PowerOfD(2, 2))
    (True, False)
    """
    V = list(model.variables)
    return bool(switching_functions(list(model._drift) + [model._blocking], V))


def verify_point(model, rho, x, dps: int) -> tuple:
    """Check a claimed fixed point (e.g. a closed form) on the definition's own piecewise equations:
    certify the piece's fixed point near ``x`` and compare.

    Parameters
    ----------
    model : MeanFieldModel
        A piecewise-smooth model.
    rho : int, float, Fraction or mpmath.mpf
        The exact load.
    x : sequence
        The claimed state (mpf or numbers), in the order of ``model.variables``.
    dps : int
        Digits the claim is made to.

    Returns
    -------
    tuple
        ``(ok, reason, result)``; ``result`` is the certified :class:`FixedPointResult` (or None).

    Examples
    --------
    >>> from symloss import JSQ
    >>> verify_point(JSQ(2), 1.5, [1, 0.5], 20)[0]
    True
    """
    ball = None
    if isinstance(rho, arb) and not rho.is_exact():
        ball = rho
        man, exp = rho.mid().man_exp()
        rq = Fraction(int(man)) * Fraction(2) ** int(exp)
    else:
        try:
            rq = _rho_fraction(rho)
        except (TypeError, ValueError) as exc:
            return False, f"the load is not valid ({exc})", None
    xf = [float(v) for v in x]
    out = _from_cache(model, rq, dps, ball)
    if out is None:
        out, _xh = _search(model, rq, dps, x_start=xf, R_ball=ball)
        if out is None:
            return False, "no piece of the definition has a certified fixed point at the claimed state", None
        pc, cert = out
        _piece_cache(model).insert(0, (pc.face, dict(pc.theta), pc.signs,
                                       [float(arb_to_mpf(X)) for X in cert["box"]], pc))
    pc, cert = out
    res = _result(model, rq, dps, pc, cert, False)
    tol = mpmath.mpf(10) ** (-dps)
    with mpmath.workdps(dps + 10):
        for v, X, got in zip(model.variables, cert["x"], x):
            g = mpmath.mpf(got) if not isinstance(got, mpmath.mpf) else got
            if X.rad() == 0 and cert["exact"] is not None:
                if arb_to_mpf(X) != g and abs(arb_to_mpf(X) - g) > tol * max(1, abs(g)):
                    return False, f"{v}: the certified value {arb_to_mpf(X)} differs from the claimed {g}", res
            elif not (X.contains(to_arb(g)) or abs(arb_to_mpf(X) - g) <= tol * max(1, abs(g))):
                return False, f"{v}: the claimed {g} is not in the certified ball {X}", res
    return True, ("the claimed state is the certified piecewise fixed point of the definition's own equations "
                  "(" + res.method + ")"), res


def solve(model, rho, *, dps: int = DEFAULT_DPS, uniqueness: bool = False):
    """``model.fixed_point`` / ``model.blocking`` for a piecewise-smooth definition: the accelerator
    registered for the model's class when it binds and its answer verifies, else
    :func:`piecewise_fixed_point`.

    Parameters
    ----------
    model : MeanFieldModel
        A piecewise-smooth model.
    rho : int, float, Fraction or mpmath.mpf
        The load, ``> 0``.
    dps : int
        Significant digits.
    uniqueness : bool
        Attach EVIDENCE of uniqueness (the regularised ODE from the extreme states).

    Returns
    -------
    FixedPointResult

    Raises
    ------
    TypeError, ValueError
        If an argument is not valid.
    PrecisionError
        If no piece could be certified.

    Examples
    --------
    >>> from symloss import JSQ
    >>> import mpmath
    >>> mpmath.nstr(solve(JSQ(2), 3, dps=15).blocking, 15)
    '0.333333333333333'
    """
    dps = check_dps(dps)
    if not isinstance(uniqueness, bool):
        raise TypeError(f"uniqueness must be True or False, got {uniqueness!r}")
    if not (isinstance(rho, arb) and not rho.is_exact()):
        _rho_fraction(rho)                 # bad input is refused here, before any fast path or search runs
    res, fp = dispatch("meanfield", model, lambda m, r, d: piecewise_fixed_point(m, r, d, uniqueness=uniqueness),
                       args=(rho, dps), verify_args=(dps,), warning=DefinitionMismatchWarning, stacklevel=4)
    res.extra.pop("_x_work", None)
    if fp is not None:
        if uniqueness:
            status, text = _uniqueness_evidence(model, _rho_fraction(rho), res.x)
            res.uniqueness = text
            res.extra.setdefault("parts", {})["uniqueness"] = status
        elif res.uniqueness == "NOT CHECKED" or not res.uniqueness:
            res.uniqueness = ("NOT CHECKED (piecewise-smooth model: fixed_point(rho, uniqueness=True) gives EVIDENCE "
                              "from the regularised ODE)")
    return res
