"""The proof of one piece of a piecewise-smooth definition: the ball system of a piece for the
Krawczyk test, the exact zero of a linear piece, the strict sign, weight and state-space checks
(:func:`_check_box`), :func:`_certify_piece`, the certificate writer and its dyadic numbers (both ways).
The method is described in :mod:`symloss.core.piecewise`, which re-exports every name.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp
from flint import arb, arb_mat, fmpq
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from .definition import RHO
from .krawczyk import _krawczyk, _newton_arb
from .piecewise_pieces import _Mismatch, _q, _qstr
from .precision import PrecisionError, arb_relative_accuracy_ok, dps_to_prec, flint_prec
from .printers import arb_lambdify
from .validation import exact_real

_MAX_PREC = 1 << 14


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
    fast = _rational_linear_system(rows, piece.unknowns)
    if fast is not None:
        # rational coefficients: the same unique zero (or the same singular matrix) as the generic
        # solve below, by exact elimination over QQ (SymPy's DomainMatrix, no generic Matrix)
        A, b = fast
        if len(rows) != len(piece.unknowns):
            return None
        if A.det() == 0:
            return None
        sol = A.lu_solve(b).to_Matrix()
        return {z: sp.Rational(s) for z, s in zip(piece.unknowns, sol)}
    return _generic_linear_solution(rows, piece.unknowns)


def _generic_linear_solution(rows, unknowns):
    """The unique zero of linear ``rows`` by SymPy's generic matrices (``None`` entries where it is not
    rational), or None when the matrix is singular or not square."""
    try:
        A, b = sp.linear_eq_to_matrix(rows, unknowns)
        if A.det() == 0:
            return None
        sol = A.LUsolve(b)
    except (ValueError, ZeroDivisionError, sp.PolynomialError):
        return None
    return {z: (s if s.is_Rational else None) for z, s in zip(unknowns, sol)}


def _rational_linear_system(rows, unknowns):
    """``(A, b)`` over QQ (SymPy ``DomainMatrix``) with ``A z = b`` the rows ``= 0``, when every term of
    every row is a rational number or a rational multiple of one unknown; else None."""
    index = {z: j for j, z in enumerate(unknowns)}
    n = len(unknowns)
    A = [[QQ(0)] * n for _ in rows]
    b = [[QQ(0)] for _ in rows]
    for i, r in enumerate(rows):
        for term in sp.Add.make_args(r):
            c, rest = term.as_coeff_Mul()
            if not c.is_Rational:
                return None
            c = QQ(int(c.p), int(c.q))
            if rest is sp.S.One:
                b[i][0] -= c
            elif rest in index:
                A[i][index[rest]] += c
            else:
                return None
    return DomainMatrix(A, (len(rows), n), QQ), DomainMatrix(b, (len(rows), 1), QQ)


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


#: how often :func:`_certify_piece` doubles the precision for a sign condition that a ball leaves
#: undecided (each doubling halves the bits of the box radius)
_MAX_STRADDLE_RAISES = 4


def _only_undecided(model, piece, box, R) -> bool:
    """Whether every sign condition of :func:`_check_box` that fails on ``box`` is undecided (its ball
    contains the bound) rather than certainly violated."""
    vals = piece.compiled()["S_arb"](*(list(box) + [R]))
    for (_e, sg), v in zip(piece.sign_exprs.values(), vals):
        if (v < 0) if sg > 0 else (v > 0):
            return False
    nfv = len(piece.free_vars)
    for X in box[nfv:]:
        if X < 0 or X > 1:
            return False
    state = {v: arb(fmpq(int(q.p), int(q.q))) for v, q in piece.face.items()}
    state.update(zip(piece.free_vars, box[:nfv]))
    xs = [state[v] for v in model.variables]
    if any(X < 0 or X > 1 for X in xs):
        return False
    if getattr(model, "state_kind", "custom") == "tail":
        if any(xs[k] - xs[k + 1] < 0 for k in range(len(xs) - 1)):
            return False
    return True


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
    raised = 0
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
                # a ball that straddles a bound (a weight (1 - u_2)/rho ~ 1e-50 of JIQ at C = 100, rho =
                # 130) is decided at a higher precision; a condition that is certainly violated is not
                if exact is None and raised < _MAX_STRADDLE_RAISES and _only_undecided(model, piece, box, R):
                    raised += 1
                    prec *= 2
                    if prec <= _MAX_PREC:
                        continue
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


# ==================================================================================================
# the certificate of a piece
# ==================================================================================================

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
