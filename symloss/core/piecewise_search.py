"""The float search of a piecewise-smooth fixed point (not part of any proof): Newton on a piece, the
regularised drift and its integration, the candidate faces near a float state, and the search over
faces and weights (with the cache of the pieces that worked), each try decided by
:func:`~symloss.core.piecewise_certify._certify_piece`. The method is described in :mod:`symloss.core.piecewise`.
"""
from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

from .definition import RHO
from .float_start import default_initial_state
from .piecewise_certify import _certify_piece
from .piecewise_pieces import _build_piece, _Mismatch, _q, switching_functions
from .precision import PrecisionError

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
# the search over faces and weights
# ==================================================================================================

_PIECES: dict = {}


def _piece_cache(model) -> list:
    key = model._definition_key()
    if len(_PIECES) > 256:
        _PIECES.clear()
    return _PIECES.setdefault(key, [])


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
