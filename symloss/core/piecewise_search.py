"""The float search of a piecewise-smooth fixed point (not part of any proof): Newton on a piece, the
regularised drift and its integration, the candidate faces near a float state, and the search over
faces and weights (with the cache of the pieces that worked), each try decided by
:func:`~symloss.core.piecewise_certify._certify_piece`. The method is described in :mod:`symloss.core.piecewise`.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from .definition import RHO
from .float_start import default_initial_state
from .piecewise_certify import _certify_piece
from .piecewise_pieces import _build_piece, _jacobian, _Mismatch, _OnSurface, _q, switching_functions
from .precision import PrecisionError
from .printers import numba_statements

#: the most face / weight combinations the search tries before giving up
SEARCH_BUDGET = 400


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

class _SIG(sp.Function):
    """The logistic sigmoid of the regularised switches (:func:`_sig_float` when evaluated), with
    its derivative ``sig (1 - sig)``, so that SymPy differentiates a regularised drift."""
    nargs = 1

    def fdiff(self, argindex=1):
        return self * (1 - self)

    def _sympystr(self, printer):
        return f"_sig({printer._print(self.args[0])})"

    def _pythoncode(self, printer):
        return f"_sig({printer._print(self.args[0])})"

    _numpycode = _pythoncode


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


def _sig_float(x: float) -> float:
    """The logistic sigmoid of a float, without overflow (the ``math`` module on scalars: the stiff
    integration calls the drift thousands of times, and numpy's scalar ufuncs were most of its cost)."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


#: the width of the switches as a symbol of the generated code (:func:`_regularised_code`)
EPS = sp.Symbol("EPS", positive=True)

_REG_CACHE: dict = {}


def _regularised_code(model):
    """Straight-line Python evaluators of the regularised drift and of its Jacobian (SymPy's
    derivative, common subexpressions eliminated, every nonzero entry of the Jacobian assigned once;
    the switch width ``EPS`` an argument), generated once per definition. The stiff integration calls
    the drift thousands of times: SymPy's lambdified rows (a call of the sigmoid through ``math`` per
    switch, no shared subexpressions) were most of a call of the piecewise solver at C = 5 to 100.
    Returns ``(drift, jacobian)``: ``drift(x, rho, eps)`` a list, ``jacobian(x, rho, eps)`` an
    ``n x n`` array, ``x`` any sequence of floats."""
    key = model._definition_key()
    hit = _REG_CACHE.get(key)
    if hit is not None:
        return hit
    V = list(model.variables)
    n = len(V)
    rows = [_regularise(e, EPS) for e in model._drift]
    names = {v: f"x{k}" for k, v in enumerate(V)}
    names.update({RHO: "rho", EPS: "eps"})
    head = [f"    x{k} = float(x[{k}])" for k in range(n)]
    f_src = (["def _drift(x, rho, eps):"] + head + [f"    F = [0.0] * {n}"]
             + numba_statements(rows, names, [f"F[{i}]" for i in range(n)], indent="    ")
             + ["    return F"])
    entries = [(i, j, d) for i, row in enumerate(_jacobian(tuple(V), tuple(rows))) for j, d in enumerate(row)
               if d != 0]
    j_src = (["def _jacobian(x, rho, eps):"] + head + [f"    J = _zeros(({n}, {n}))"]
             + numba_statements([d for *_ij, d in entries], names, [f"J[{i}, {j}]" for i, j, _d in entries],
                                indent="    ")
             + ["    return J"])
    ns = {"_sig": _sig_float, "math": math, "_zeros": np.zeros}
    # generated from the definition's expressions (numba_statements), not from user text
    exec(compile("\n".join(f_src), f"<regularised drift of {model.name}>", "exec"), ns)  # noqa: S102
    exec(compile("\n".join(j_src), f"<regularised Jacobian of {model.name}>", "exec"), ns)  # noqa: S102
    out = (ns["_drift"], ns["_jacobian"])
    if len(_REG_CACHE) > 256:
        _REG_CACHE.clear()
    _REG_CACHE[key] = out
    return out


#: LSODA's (rtol, atol): the settling's later windows and every other integration; the first window
#: of the settling (the transient from the default state: only the state it reaches is used)
_TOL = (1e-9, 1e-12)
_TRANSIENT_TOL = (1e-6, 1e-9)


def _lsoda(model, rho_f, x0, t0: float, t1: float, t_eval, work=None, tol=_TOL):
    """LSODA (the generated drift and Jacobian at width ``REGULARISATION``) from ``x0`` at ``t0`` to
    ``t1``, the states at ``t_eval`` (columns); ``work`` (a one-element list) counts the drift
    evaluations, :class:`_WorkExceeded` past ``_SETTLE_WORK``. Through ``scipy.integrate.ode``, which
    runs to each output time inside ODEPACK: ``solve_ivp`` takes one step per Python call, and its
    bookkeeping was about half the settling time of a user JSQ at C = 5."""
    from scipy.integrate import ode
    f, jac = _regularised_code(model)
    eps = REGULARISATION

    def fun(_t, y):
        if work is not None:
            work[0] += 1
            if work[0] > _SETTLE_WORK:
                raise _WorkExceeded
        return f(y, rho_f, eps)
    r = ode(fun, lambda _t, y: jac(y, rho_f, eps))
    # (no step limit per output time: the evaluation budget bounds the work)
    r.set_integrator("lsoda", rtol=tol[0], atol=tol[1], nsteps=10 ** 9)
    r.set_initial_value(np.asarray(x0, dtype=float), float(t0))
    out = []
    for t in t_eval:
        if float(t) == float(t0):                # the initial state (ODEPACK refuses an output at t0)
            out.append(np.asarray(x0, dtype=float).copy())
            continue
        y = r.integrate(float(t))
        if not r.successful():
            raise RuntimeError(f"integration of the regularised drift failed (LSODA status {r.get_return_code()})")
        out.append(np.array(y, dtype=float))
    return np.array(out).T if out else np.zeros((len(x0), 0))


def _integrate(model, rho_f, x0, t):
    t = np.asarray(t, dtype=float)
    return _lsoda(model, rho_f, x0, 0.0, float(t[-1]), t).T


#: the settled state: two states a doubling of the time apart that differ by less than this (max norm)
_SETTLED = 1e-11


#: the most drift evaluations of one settling (a search order only: the state reached is used)
_SETTLE_WORK = 40_000


class _WorkExceeded(Exception):
    """Raised inside the integration when the settling's evaluation budget is spent."""


def _settle(model, rho_f, x0, t_max=2e3):
    """Integrate the regularised drift on ``[0, 8]``, then on windows that double the time, until two
    successive states differ by less than ``_SETTLED`` or the time reaches ``t_max``; returns the final
    state (clipped to [0, 1]). Near a sliding surface the integrator chatters: the state of a user JSQ at
    C = 100 was settled to 1e-12 at t = 30, and the steps from there to t = 2000 were 90 % of a call.
    The integration stops after ``_SETTLE_WORK`` drift evaluations with the last state of a finished
    window (LSODA can stay in its non-stiff mode near a sliding surface: user JSQ at C = 20, rho =
    10.25 took 2.9 million steps on [8, 16] after a change of the rounding of the drift, having moved
    by 8e-6 on that window)."""
    x = np.asarray(x0, dtype=float)
    t = 0.0
    t_next = 8.0
    work = [0]
    while True:
        try:
            # the transient [0, 8] at looser tolerances: its path crosses the steep switches many
            # times (most of the drift evaluations of a call: user JSQ at C = 20, 2,300-3,900 of
            # 2,500-4,100), and only the state it reaches is used; the tight windows after it settle
            # to the same equilibrium (user JSQ at C = 20: 33 instead of 65 ms per call, the same values)
            X = _integrate_window(model, rho_f, x, t, t_next, work, _TRANSIENT_TOL if t == 0.0 else _TOL)
        except _WorkExceeded:
            break
        moved = float(np.max(np.abs(X - x))) if x.size else 0.0
        x, t = X, t_next
        if moved < _SETTLED or t >= t_max:
            break
        t_next = min(2 * t, t_max)
    return np.clip(x, 0.0, 1.0), 10 * REGULARISATION


def _integrate_window(model, rho_f, x, t0, t1, work=None, tol=_TOL):
    """The state at ``t1`` of the regularised drift integrated from ``x`` at ``t0`` (:func:`_lsoda`)."""
    return _lsoda(model, rho_f, x, t0, t1, [t1], work, tol)[:, -1]


#: the most faces the search visits at one float state
FACE_BUDGET = 1024

#: the distance cuts of the tiered faces of :func:`_faces` (a search order, not part of any proof)
_TIER_CUTS = (0.0, 1e-12, 1e-9, 1e-6, 1e-3)


def _surface_values(model, rho) -> set:
    """The pairs ``(v, c)`` such that ``v = c`` is a switching surface of the definition (at this
    load)."""
    sub = {RHO: _q(rho)}
    out = set()
    for s in switching_functions(list(model._drift) + [model._blocking], list(model.variables)):
        e = sp.expand(s.xreplace(sub))
        fs = e.free_symbols
        if len(fs) != 1:
            continue
        v = next(iter(fs))
        try:
            p = sp.Poly(e, v)
        except sp.PolynomialError:
            continue
        if p.degree() == 1 and all(c.is_Rational for c in p.all_coeffs()):
            out.add((v, -p.all_coeffs()[1] / p.all_coeffs()[0]))
    return out


def _faces(model, rho, xh, tol=2e-2):
    """Candidate faces near the float state ``xh``: every subset of the coordinates within ``tol`` of
    a bound or a surface value, fixed at that value; first all of them, then the tiers (the
    coordinates within each distance of ``_TIER_CUTS``, and of those only the ones at a surface
    value), then the nearest ``k`` (for ``k`` from all of them down to none) and each of those without
    one coordinate, then every other subset, most constrained first (at most ``FACE_BUDGET`` faces).

    The order does not decide *whether* a face is reached (every subset is, up to the budget): a
    coordinate a hair from ``0`` may be a small positive value while one further from ``1`` sits on a
    sliding surface that the regularised drift only approaches (JIQ: ``u_1 = 1`` with
    ``u_5 ~ 1e-8 > 0``), so no cut on the distances decides which coordinates a face fixes."""
    V = list(model.variables)
    surf = _surface_values(model, rho)
    vals = {v: {sp.Integer(0), sp.Integer(1)} | {c for w, c in surf if w == v and 0 <= c <= 1} for v in V}
    near = []
    for j, v in enumerate(V):
        best = min(vals[v], key=lambda c: (abs(float(c) - xh[j]), float(c)))
        d = abs(float(best) - xh[j])
        if d < tol:
            near.append((d, j, v, best))
    near.sort(key=lambda t: (t[0], t[1]))
    seen = set()

    def first_pass():
        for k in range(len(near), -1, -1):
            base = near[:k]
            yield base
            if k:
                for drop in base:
                    yield [t for t in base if t is not drop]

    def every_subset():
        for k in range(len(near), -1, -1):
            for sub in itertools.combinations(near, k):
                yield list(sub)

    # the coordinates at the value of a switching surface (not a plain bound 0 / 1 of the fractions)
    on_surface = [t for t in near if (t[2], t[3]) in surf]

    def tiers():
        """Faces by a distance cut, with and without the plain bounds: at large C the near
        coordinates are many (JIQ at C = 100: u_1 on its sliding surface, dozens of levels within
        1e-5 of 1 and dozens of tail levels below 1e-2) and the subsets by size reach the face
        {u_1 = 1} only after the budget; a cut on the distances reaches it at once."""
        for cut in _TIER_CUTS:
            yield [t for t in near if t[0] <= cut]
            yield [t for t in on_surface if t[0] <= cut]
    for o in itertools.chain(itertools.islice(first_pass(), 1), tiers(), first_pass(), every_subset()):
        key = frozenset(t[1] for t in o)
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > FACE_BUDGET:
            return
        yield {v: c for _d, _j, v, c in sorted(o, key=lambda t: t[1])}      # in the variables' order


# ==================================================================================================
# the search over faces and weights
# ==================================================================================================

#: the outcomes of :func:`_search` by (definition, load, digits, start, load ball): a memo, so that a
#: result is the same whatever was computed before (no piece found at one load is tried first at another,
#: which could return another equilibrium of a model that has several, or succeed where the search fails)
_MEMO: dict = {}


def _memo_key(model, rho, dps, x_start, R_ball):
    start = None if x_start is None else tuple(float(v) for v in x_start)
    ball = None if R_ball is None else (tuple(int(v) for v in R_ball.mid().man_exp()),
                                        tuple(int(v) for v in R_ball.rad().man_exp()))
    return (model._definition_key(), rho, dps, start, ball)


def _weight_specs(piece, red, rows_idx, ends):
    """The weights to try on a face. Without ``ends``: the free weights that make the system square
    (``need`` or ``need + 1`` of the surfaces through the point whose weight only rows that are already
    equations use; the others keep their point values). With ``ends``: each surface through the point
    with its weight fixed at the other end of ``[0, 1]`` than its point value, alone or with free
    weights (an equilibrium where a sliding region begins, e.g. JIQ at ``rho = 1``: weight 1 on the
    surface ``u_1 = 1``)."""
    if not ends:
        need = len(piece.rows) - len(piece.unknowns)
        eq_rows = set(rows_idx) | {"blocking"}
        through = [k for k in sorted(red.through) if red.touched.get(k, set()) <= eq_rows]
        if need >= 0:
            for size in range(need, min(need + 1, len(through)) + 1):
                for sub in itertools.combinations(through, size):
                    yield {k: "free" for k in sub}
        return
    every = sorted(red.through)
    for size in range(1, len(every) + 1):
        for fixed in itertools.combinations(every, size):
            for ends_ in itertools.product((0, 1), repeat=size):
                if any(sp.sympify(piece.theta.get(k, "1")) == e for k, e in zip(fixed, ends_)):
                    continue              # a point value: the weights without ``ends`` had it
                rest = [k for k in every if k not in fixed]
                for n_free in range(len(rest) + 1):
                    for sub in itertools.combinations(rest, n_free):
                        spec = {k: str(e) for k, e in zip(fixed, ends_)}
                        spec.update({k: "free" for k in sub})
                        yield spec


#: the most surfaces exactly through a float point whose two signs the search tries
_MAX_ON_SURFACE = 3


def _builds_at(model, rho, face, spec, point, forced=None):
    """The builds of ``spec`` on ``face`` with the branch signs read at the float ``point``; a surface
    on which the float point lies exactly although it does not vanish on the face (a coordinate within
    a float of a surface value, e.g. ``u3 = 1 - 1e-50``) gets each sign in turn (the exact check of
    the certificate then decides it)."""
    try:
        return [_build_piece(model, rho, face, spec, point=point, signs=forced)]
    except _OnSurface as exc:
        if len(forced or {}) >= _MAX_ON_SURFACE:
            return []
        out = []
        for sg in (1, -1):
            f = dict(forced or {})
            f[exc.key] = sg
            out += _builds_at(model, rho, face, spec, point, f)
        return out
    except _Mismatch:
        return []


def _try_face(model, rho, face, xh, dps, budget, R_ball=None, ends=False):
    """Search the weights on ``face`` (see :func:`_weight_specs`); returns (piece, cert) or None.
    ``budget`` (a one-element list) counts the weight choices tried."""
    V = list(model.variables)
    point = {v: sp.Float(float(xh[j])) for j, v in enumerate(V)}
    first = _builds_at(model, rho, face, {}, point)
    if not first:
        return None
    piece, red, _drift, rows_idx, _inv = first[0]
    for spec in _weight_specs(piece, red, rows_idx, ends):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        for pc, *_ in _builds_at(model, rho, face, spec, point):
            out = _newton_and_certify(model, rho, face, spec, point, pc, xh, dps, R_ball)
            if out is not None:
                return out
    return None


def _newton_and_certify(model, rho, face, spec, point, pc, xh, dps, R_ball):
    """Newton on the piece from the float state, the branch signs read again at the Newton point (a
    surface the Newton point lies on keeps the piece's sign), and the proof; returns (piece, cert) or
    None."""
    V = list(model.variables)
    rho_f = float(rho)
    if not pc.square:
        return None
    z0 = [float(xh[V.index(v)]) for v in pc.free_vars] + [0.5] * len(pc.free_theta)
    z, ok = _float_newton(pc, z0, rho_f)
    if not ok:
        return None
    # the branch decisions again at the Newton point (they may differ from the ODE's)
    pt = dict(point)
    for v, val in zip(pc.free_vars, z):
        pt[v] = sp.Float(float(val))
    kept: dict = {}
    while True:
        try:
            pc2, *_ = _build_piece(model, rho, face, spec, point=pt, signs=kept or None)
            break
        except _OnSurface as exc:
            if exc.key not in pc.signs or exc.key in kept:
                return None
            kept[exc.key] = pc.signs[exc.key]
        except _Mismatch:
            return None
    tries = [(pc, z)]
    if pc2.signs != pc.signs:
        # the Newton point is on the other side of a surface than the float state: try the piece of
        # that side first, then the state's own piece (a zero within a rounding of a surface, e.g.
        # JSQ(3) at rho = 3 - 1e-50, whose u3 = 1 - 1e-50 is the float 1 or the next float above)
        tries = []
        if pc2.square:
            z2, ok2 = _float_newton(pc2, z, rho_f)
            if ok2:
                tries.append((pc2, z2))
        tries.append((pc, z))
    for cand, zc in tries:
        try:
            return cand, _certify_piece(model, cand, zc, rho, dps, R_ball)
        except (_Mismatch, PrecisionError, ZeroDivisionError, ValueError):
            continue
    return None


def _search(model, rho, dps, x_start=None, R_ball=None, tally=None):
    """The search from the settled float state (or ``x_start``): every candidate face with the free
    weights that make it square, then every face with weights at the ends of ``[0, 1]`` (each phase
    at most ``SEARCH_BUDGET`` weight choices). Returns ``(piece, cert) or None`` and the float state;
    ``tally`` (a dict) receives the numbers of faces and of weight choices tried. A function of its
    arguments only (the memo ``_MEMO`` holds its own earlier outcomes for the same arguments)."""
    key = _memo_key(model, rho, dps, x_start, R_ball)
    if key in _MEMO:
        out, xh, counts = _MEMO[key]
        if tally is not None:
            tally.update(counts)
        return out, xh
    out, xh, counts = _search_fresh(model, rho, dps, x_start, R_ball)
    if len(_MEMO) > 256:
        _MEMO.clear()
    _MEMO[key] = (out, xh, counts)
    if tally is not None:
        tally.update(counts)
    return out, xh


def _search_fresh(model, rho, dps, x_start, R_ball):
    rho_f = float(rho)
    if x_start is None:
        x0 = np.clip(default_initial_state(model, rho_f), 0.0, 1.0)
        xh, _h = _settle(model, rho_f, x0)
    else:
        xh = np.asarray(x_start, dtype=float)
    # the faces in their order, generated as the search reaches them (the first usually answers: at
    # C = 100 building all 1024 cost ~40 ms a call) and kept for the second pass
    gen = _faces(model, rho, xh)
    faces: list = []

    def in_order():
        yield from list(faces)
        for face in gen:
            faces.append(face)
            yield face
    tried = 0
    for ends in (False, True):
        budget = [SEARCH_BUDGET]
        for face in in_order():
            out = _try_face(model, rho, face, xh, dps, budget, R_ball, ends)
            if out is not None:
                return out, xh, {}
            if budget[0] < 0:
                break
        tried += SEARCH_BUDGET - max(budget[0], 0)
    faces.extend(gen)
    return None, xh, {"faces": len(faces), "attempts": tried}
