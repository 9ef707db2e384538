r"""The pieces of a piecewise-smooth definition: the switching surfaces (:func:`switching_functions`),
the reducer that replaces every non-smooth atom by its branch on a face, and :class:`PieceSystem`, the
smooth square system of one piece (:func:`_build_piece`), with the exact rational helpers. The method
is described in :mod:`symloss.core.piecewise`, which re-exports every name.

Size: about 620 lines. The reducer, the piece system and the evaluators of a piece (:class:`_CompiledPiece`,
made lazily, with the memoised Jacobian and linearity test) are kept together because the evaluators
are the cost of a new piece; their code generation is :mod:`symloss.core.piece_lambdify`.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from .definition import RHO
from .piece_lambdify import _lambdify, _printed  # noqa: F401 - re-exported (tests)

#: the SymPy heads of a piecewise-smooth rate
NONSMOOTH_FUNCTIONS = (sp.Heaviside, sp.Min, sp.Max, sp.Abs, sp.sign, sp.Piecewise)


# ==================================================================================================
# the switching surfaces of a definition
# ==================================================================================================

@functools.lru_cache(maxsize=1 << 16)
def _relationals(cond) -> tuple:
    """The relationals of a condition, in preorder (memoised: a pure function of the condition)."""
    return tuple(a for a in sp.preorder_traversal(cond) if isinstance(a, sp.core.relational.Relational))


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


# Pure-function memos of the SymPy work that the reducer repeats for every atom of every row of every
# piece it builds (the profile of a user JSQ at C = 100: two thirds of a call printed the same surface
# keys again). Each maps an expression (compared structurally, as SymPy does) to a value that depends on
# that expression only, so a memo hit returns exactly what the computation would: no result depends on
# what was computed before.
_MEMO_SIZE = 1 << 16


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _depends_on_state(s) -> bool:                  # Whether ``s`` has a free symbol other than the load.
    return bool(sp.sympify(s).free_symbols - {RHO})


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _is_smooth(e) -> bool:
    """Whether ``e`` has no non-smooth atom (``not e.has(*NONSMOOTH_FUNCTIONS)``; memoised)."""
    return not e.has(*NONSMOOTH_FUNCTIONS)


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _on_face(e, face_items: frozenset):
    """``e.xreplace(face)`` (memoised per expression and face)."""
    return e.xreplace(dict(face_items))


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _rel_diff(r):                                   # ``r.lhs - r.rhs`` of a relational
    return r.lhs - r.rhs


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _symbol_names(e) -> frozenset:                  # The ``str`` of the free symbols of ``e``.
    return frozenset(str(s) for s in e.free_symbols)


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _key_str(e) -> str:
    """``str(e)``: the name of a surface (memoised; the printer is the cost)."""
    return str(e)


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _restrict(s, face_items: frozenset):
    """``expand(s)`` with the face's coordinates substituted (memoised per expression and face)."""
    return sp.expand(sp.sympify(s).xreplace(dict(face_items)))


def _orient(s):
    """``(key expression, +1/-1)``: a canonical orientation of the surface ``s = 0``."""
    return _orient_cached(sp.sympify(s))


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _orient_cached(s):
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


class _OnSurface(_Mismatch):
    """The float point lies exactly on a surface that does not vanish on the face (``key``: the
    surface on the face, as the branch signs name it): floats do not decide its sign."""

    def __init__(self, key, msg):
        super().__init__(msg)
        self.key = key


class _Split(Exception):
    def __init__(self, key):
        super().__init__(_key_str(key))
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
        self._face_items = frozenset(self.face.items())
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
        return _restrict(s, self._face_items)

    def sign(self, s):
        """+1 / -1 / 0 of a switching function on the face (0: through the point, handled by callers)."""
        sf = self._face(s)
        if sf.is_number:
            return int(sp.sign(sf))
        if not _depends_on_state(sf):            # a function of the load only: decided exactly
            v = int(sp.sign(sf.xreplace(self.rho_sub)))
            self.rho_decisions[_key_str(sf)] = (sf, v)
            return v
        key = _key_str(sf)
        if key in self.signs:
            sg = self.signs[key]
        elif self.point is not None:
            v = float(sf.xreplace(self.point).xreplace({RHO: float(self.rho)}))
            if not math.isfinite(v):
                raise _Mismatch(f"the surface {sf} is not finite at the float point")
            if v == 0.0:
                raise _OnSurface(key, f"the float point lies on the surface {sf} = 0")
            sg = 1 if v > 0 else -1
        else:
            raise _Mismatch(f"the certificate does not decide the sign of {sf}")
        self.used_signs[key] = (sf, sg)
        return sg

    def surface(self, s):
        """``(key, orientation)`` of a surface through the point, or None."""
        sf = self._face(s)
        if not (sf == 0 and _depends_on_state(s)):
            return None
        key, o = _orient(s)
        self.through[_key_str(key)] = key
        return key, o

    def theta_of(self, key, atom=None):
        k = _key_str(key)
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
        if _is_smooth(e):
            return _on_face(e, self._face_items)
        if isinstance(e, NONSMOOTH_FUNCTIONS):
            return self._atom(e)
        return e.func(*[self.reduce(a) for a in e.args])

    def _split(self, key, atom):
        th = self.theta_of(key, atom)
        k = _key_str(key)
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
        k = _key_str(key)
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
                    key = _key_str(self._face(d))
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
                    s = _rel_diff(r)
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
    load_vanishing : list of int
        The rows of ``vanishing`` that are functions of the load only, zero at this exact load and
        not at others (a degenerate load).
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
    load_vanishing: list = field(default_factory=list)
    _compiled: dict = field(default_factory=dict, repr=False)

    @property
    def square(self) -> bool:
        """Whether there are as many equations as unknowns."""
        return len(self.rows) == len(self.unknowns)

    def compiled(self):
        """Float and ball evaluators of the rows, their Jacobian and the blocking (each lambdified
        when first asked for, see ``_CompiledPiece``).

        Returns
        -------
        dict
            ``G_np``, ``J_np`` (numpy), ``G_arb``, ``J_arb``, ``Jr_arb``, ``B_arb``, ``S_arb`` (the
            branch-decision functions; python-flint ``arb``) and ``linear`` (bool).
        """
        if not isinstance(self._compiled, _CompiledPiece):
            sig = tuple(sp.sympify(e) for e, _s in self.sign_exprs.values())
            lazy = _CompiledPiece(tuple(self.unknowns), tuple(self.rows), sp.sympify(self.blocking), sig)
            lazy.update(self._compiled)
            self._compiled = lazy
        return self._compiled


# The evaluators of a piece. Each is a pure function of the piece's expressions (the rows keep the load
# as the symbol ``RHO``, so the pieces of one face at different loads are the same system), memoised on
# them, and made only when first asked for: a piece whose float Newton fails needs no ball evaluator, a
# linear piece solved exactly needs neither the blocking's nor the branch decisions' ball evaluator.
# Lambdifying is the cost (SymPy's printing): :func:`~symloss.core.piece_lambdify._lambdify` prints each
# expression once per process and writes the same code as :func:`~symloss.core.printers.arb_lambdify` /
# ``numpy_lambdify`` (tests/core/test_piecewise_compile_speed.py compares the generated sources).


@functools.lru_cache(maxsize=256)
def _jacobian(unknowns: tuple, rows: tuple) -> list:
    """``[[sp.diff(r, z) for z in unknowns] for r in rows]`` (``diff`` only in the unknowns a row
    contains: the others give ``0``, as ``diff`` does)."""
    out = []
    for r in rows:
        fs = r.free_symbols
        out.append([_diff(r, z) if z in fs else sp.S.Zero for z in unknowns])
    return out


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _diff(e, z):
    """``sympy.diff(e, z)`` (memoised: the rows of the pieces of neighbouring faces repeat)."""
    return sp.diff(e, z)


#: each evaluator: (what it reads of (unknowns, rows, blocking, sig), how it is made from them)
_ENTRIES = {
    "G_np": ((1, 1, 0, 0), lambda U, R, B, S: _lambdify("np", U + (RHO,), list(R))),
    "J_np": ((1, 1, 0, 0), lambda U, R, B, S: _lambdify("np", U + (RHO,), _jacobian(U, R))),
    "G_arb": ((1, 1, 0, 0), lambda U, R, B, S: _lambdify("arb", U + (RHO,), list(R))),
    "J_arb": ((1, 1, 0, 0), lambda U, R, B, S: _lambdify("arb", U + (RHO,), _jacobian(U, R))),
    "Jr_arb": ((1, 1, 0, 0), lambda U, R, B, S: _lambdify("arb", U + (RHO,), [_diff(r, RHO) for r in R])),
    "B_arb": ((1, 0, 1, 0), lambda U, R, B, S: _lambdify("arb", U + (RHO,), B)),
    "S_arb": ((1, 0, 0, 1), lambda U, R, B, S: _lambdify("arb", U + (RHO,), list(S))),
    "linear": ((1, 1, 0, 0), lambda U, R, B, S: _is_linear(U, R)),
}
_ENTRY_READS = {k: v[0] for k, v in _ENTRIES.items()}


@functools.lru_cache(maxsize=1024)
def _compile_entry(key: str, unknowns: tuple, rows: tuple, blocking, sig: tuple):
    """One evaluator of :class:`_CompiledPiece` (memoised on the expressions it reads only: the others
    are passed as ``None``)."""
    return _ENTRIES[key][1](unknowns, rows, blocking, sig)


class _CompiledPiece(dict):
    """The evaluators of :meth:`PieceSystem.compiled`: a dict whose entries ``G_np``, ``J_np``,
    ``G_arb``, ``J_arb``, ``Jr_arb``, ``B_arb``, ``S_arb`` and ``linear`` are made on first access
    (other keys may be stored by callers, as a dict's)."""

    def __init__(self, unknowns: tuple, rows: tuple, blocking, sig: tuple):
        super().__init__()
        self._parts = (unknowns, rows, blocking, sig)

    def __missing__(self, key):
        if key not in _ENTRY_READS:
            raise KeyError(key)
        parts = [p if r else None for p, r in zip(self._parts, _ENTRY_READS[key])]
        v = _compile_entry(key, *parts)
        self[key] = v
        return v

    def __contains__(self, key):
        return key in _ENTRY_READS or dict.__contains__(self, key)

    def get(self, key, default=None):
        return self[key] if key in self else default


def _compile_piece(unknowns: tuple, rows: tuple, blocking, sig: tuple) -> dict:
    """All the evaluators of :meth:`PieceSystem.compiled` at once (a plain dict; the memoised entries)."""
    c = _CompiledPiece(tuple(unknowns), tuple(rows), blocking, tuple(sig))
    return {k: c[k] for k in _ENTRY_READS}


def _is_linear(unknowns: tuple, rows: tuple) -> bool:
    """Whether every row has total degree <= 1 in the unknowns, as ``sympy.Poly(row,
    *unknowns).total_degree() <= 1`` says: read off the terms of a row that is a sum of distinct
    monomials (rational coefficient times powers of symbols, as an expanded row is: no two terms can
    cancel, so the degree is the largest degree of a term), SymPy's ``Poly`` for any other row."""
    if not unknowns:
        return True
    U = set(unknowns)
    for r in rows:
        deg = _monomial_degree(r, U)
        if deg is None:
            deg = sp.Poly(r, *unknowns).total_degree()
        if deg > 1:
            return False
    return True


def _monomial_degree(r, U):
    """The largest total degree in ``U`` of the terms of ``r`` when ``r`` is a sum of distinct
    monomials (``c * s1**k1 * ...``: ``c`` rational, ``s`` symbols, ``k`` integers, ``>= 0`` for the
    symbols of ``U``), else None."""
    seen = set()
    top = 0
    for term in sp.Add.make_args(r):
        c, mono = term.as_coeff_Mul()
        if not c.is_Rational or mono in seen:
            return None
        seen.add(mono)
        deg = 0
        for f in sp.Mul.make_args(mono):
            if f.is_Symbol:
                deg += f in U
            elif f.is_Pow and f.base.is_Symbol and f.exp.is_Integer:
                if f.base in U:
                    if f.exp < 0:
                        return None
                    deg += int(f.exp)
            elif f is not sp.S.One:
                return None
        top = max(top, deg)
    return top


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
    # a row that is a function of the load only and exactly 0 at this load vanishes here (a degenerate
    # load: JIQ at rho = 1, where the face meets the switching surface with weight 1); the decision is
    # recorded so that the piece is rebuilt (and that row kept) at any other load
    rho_sub = {RHO: _q(rho)}
    at_load = []
    for i, e in enumerate(drift):
        if e != 0 and not (e.free_symbols - {RHO}) and sp.expand(e.xreplace(rho_sub)) == 0:
            at_load.append(i)
            red.rho_decisions[f"drift row {i}: {e}"] = (e, 0)
    vanishing = [i for i, e in enumerate(drift) if e == 0 or i in at_load]
    rows_idx = [i for i, e in enumerate(drift) if e != 0 and i not in at_load]
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
    unused = set(str(t) for t in ftheta) - set().union(*[_symbol_names(r) for r in rows]) if ftheta else set()
    if unused:
        raise _Mismatch(f"the free weights {sorted(unused)} appear in no equation")
    spec_signs = {k: sg for k, (e, sg) in red.used_signs.items()}
    theta_out = {k: ("free" if theta_spec.get(k) == "free" else _qstr(v)) for k, v in red.theta.items()}
    return PieceSystem(dict(face), theta_out, spec_signs, unknowns, rows, vanishing,
                       dropped, blocking, dict(red.used_signs), free, ftheta, dict(red.rho_decisions),
                       at_load), \
        red, drift, rows_idx, inv_rows
