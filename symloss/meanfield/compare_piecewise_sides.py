r"""The two sides of a piecewise comparison (:mod:`symloss.meanfield.compare_piecewise`): on a load
cell, the enclosure of a model's blocking and of its derivative for every load of the cell, and the
point certificates at the cell ends. ``_PwSide`` for a piecewise-smooth model (an exact piece solved with
the load as a symbol, its sign conditions proved by Sturm counts, or a parametric Krawczyk box on a
non-linear piece), ``_SmoothSide`` for a smooth model (the Krawczyk tubes of
:func:`symloss.core.certify.enclose_interval`). Split out of ``compare_piecewise`` (which imports
these names); the method is described there.
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp
from flint import arb, arb_mat, fmpq

from ..core.boxes import box_derivative, box_from_strings, enclose_interval, exact_dyadic, point_box, verify_box, verify_tube
from ..core.certified_results import parse_exact
from ..core.definition import RHO
from ..core.krawczyk import _krawczyk, _newton_arb
from ..core.piecewise import is_piecewise_model, piecewise_fixed_point, verify_piecewise_certificate
from ..core.piecewise_certify import _BallSystem, _check_box
from ..core.piecewise_pieces import _build_piece, _Mismatch, _parse_q
from ..core.precision import PrecisionError, flint_prec
from ..core.printers import arb_lambdify
from ..core.registry import accelerator_for
from .comparison_types import CertificateMismatch, _need
from .enclosures import parse_q, q_str

#: digits of the point certificates at the cell ends
_PT_DPS = 20


def proved_uniqueness(model):
    """The text of a proof that the smooth ``model`` has exactly one fixed point at every load, or
    ``None``: its registered accelerator binds to its definition (``applies``) and has a uniqueness
    argument that holds for every load at once (``uniqueness_every_load``; power-of-d's telescoped
    shooting map, retrial-of-d's Erlang-B bijection), re-derived here on the definition.

    Parameters
    ----------
    model : MeanFieldModel
        A smooth model.

    Returns
    -------
    str or None
        ``"PROVED (for every load: ...)"`` or ``None``.
    """
    acc = accelerator_for(model)
    if acc is None or not getattr(acc, "uniqueness_every_load", False) or not acc.applies(model)[0]:
        return None
    out = acc.uniqueness(model, Fraction(1))        # the argument does not depend on the load asked
    if out is None or out[0] != "PROVED":
        return None
    return f"PROVED (for every load, by the {acc.name} accelerator's argument on this definition: {out[1]})"


def model_assumptions(models, proved=()) -> list:
    """What a piecewise comparison assumes of each model whose key is not in ``proved``: that its
    certified fixed point is the only one.

    Parameters
    ----------
    models : dict
        ``{"a": model_a, "b": model_b}``.
    proved : sequence of str
        The keys of the models whose uniqueness is PROVED (:func:`proved_uniqueness`).

    Returns
    -------
    list of str
        One assumption per other model, in the order of ``models``.
    """
    out = []
    for k, m in models.items():
        if k in proved:
            continue
        if is_piecewise_model(m):
            out.append(f"model {k} ({m!r}, piecewise smooth): the certified Filippov equilibrium of each cell and "
                       "point is assumed to be the only one (uniqueness on the state space is not proved; "
                       "'parts' gives the EVIDENCE status)")
        else:
            out.append(f"model {k} ({m!r}): the fixed point in the certified tubes is assumed to be the only one "
                       "on the state space (not certified by this path)")
    return out


class _CellFail(Exception):
    """A cell that is not certified; ``roots``: rational loads inside it where a piece ends (cell ends
    to try), ``irrational``: the polynomial (``sympy.Poly`` in the load) of a piece's end at an
    irrational load inside it."""

    def __init__(self, msg, roots=(), irrational=None):
        super().__init__(msg)
        self.roots = list(roots)
        self.irrational = irrational


# ==================================================================================================
# small exact helpers
# ==================================================================================================

def _ball(x) -> list:
    return [exact_dyadic(arb(x.mid())), exact_dyadic(arb(x.rad()))]


def _unball(b) -> arb:
    return arb(parse_exact(b[0]), parse_exact(b[1]))


def _qa(q: Fraction) -> arb:
    return arb(fmpq(q.numerator, q.denominator))


def _interval(r0: Fraction, r1: Fraction) -> arb:
    return arb.union(_qa(r0), _qa(r1))


def _rat(e) -> Fraction:
    e = sp.nsimplify(e) if not e.is_Rational else e
    return Fraction(int(e.p), int(e.q))


# ==================================================================================================
# a piecewise-smooth side
# ==================================================================================================

def _spec(cert) -> dict:
    return {"face": dict(cert["face"]), "theta": dict(cert["theta"]), "signs": dict(cert["signs"])}


def _rebuild(model, spec, rho_build: Fraction, point: bool = False):
    """The piece of ``spec`` rebuilt from the definition (re-check mode: every branch sign given); a
    piece degenerate at this load (rows that vanish at this load only) is accepted for a point
    (``point=True``: its certificate is re-checked by ``verify_piecewise_certificate``), never for a cell."""
    Vn = {str(v): v for v in model.variables}
    try:
        face = {Vn[k]: _parse_q(v) for k, v in spec["face"].items()}
        pc, *_ = _build_piece(model, rho_build, face, dict(spec["theta"]), signs=dict(spec["signs"]))
    except (_Mismatch, KeyError, ValueError) as exc:
        raise _CellFail(f"the piece does not rebuild ({exc})") from None
    if not pc.square or (pc.load_vanishing and not point) or set(pc.signs) != set(spec["signs"]):
        raise _CellFail("the piece is not square, is degenerate at this load, or uses other branch signs")
    return pc


def _conditions(model, pc, sub) -> list:
    """``(expression, strict)`` whose sign must be positive (strict) or non-negative: the conditions of
    :func:`symloss.core.piecewise_certify._check_box` and the load-only decisions, with ``sub``
    (face and solution) substituted."""
    out = []
    for e, sg in pc.sign_exprs.values():
        out.append((sg * sp.sympify(e), True))
    for th in pc.free_theta:
        out += [(th, False), (1 - th, False)]
    xs = [sp.sympify(v) for v in model.variables]
    for x in xs:
        out += [(x, False), (1 - x, False)]
    if getattr(model, "state_kind", "custom") == "tail":
        out += [(xs[k] - xs[k + 1], False) for k in range(len(xs) - 1)]
    for e, v in pc.rho_decisions.values():
        out.append((v * sp.sympify(e), True) if v != 0 else (e, None))
    return [(sp.cancel(sp.sympify(e).xreplace(sub)), s) for e, s in out]


def _irrational_end(P, x0: Fraction, x1: Fraction) -> None:
    """Raise the error of a piece that ends at an irrational root of ``P`` (a ``sympy.Poly`` in the
    load) inside ``(x0, x1)``: rational cells only approach it (the tiling would halve forever)."""
    lo, hi = sp.Rational(x0.numerator, x0.denominator), sp.Rational(x1.numerator, x1.denominator)
    roots = [iv for iv, _k in P.intervals(eps=(hi - lo) / 8) if lo < iv[1] and iv[0] < hi]
    if not roots:
        return
    r = float((roots[0][0] + roots[0][1]) / 2)
    raise ArithmeticError(f"piecewise comparison: a piece ends at the irrational load rho = {r!r} (a root of "
                          f"{P.as_expr()}, rho the load); rational cells cannot end there, so this load is not "
                          "certified by this path: choose a range that avoids it")


def _roots_inside(P, r0, r1) -> list:
    return sorted(Fraction(int(r.p), int(r.q)) for r in sp.Poly(P, RHO).ground_roots()
                  if r.is_Rational and r0 < Fraction(int(r.p), int(r.q)) < r1)


def _exact_param(pc):
    """The exact zero of a linear piece with the load as a symbol and its determinant, or None."""
    if not pc.compiled()["linear"]:
        return None
    if not pc.unknowns:
        return ({}, sp.Integer(1)) if all(sp.cancel(r) == 0 for r in pc.rows) else None
    A, b = sp.linear_eq_to_matrix(pc.rows, pc.unknowns)
    det = sp.cancel(A.det())
    if det == 0:
        return None
    sol = [sp.cancel(v) for v in A.LUsolve(b)]
    sub = dict(zip(pc.unknowns, sol))
    if any(sp.cancel(r.xreplace(sub)) != 0 for r in pc.rows):
        return None
    return sub, det


class _ExactPiece:
    """A linear piece solved exactly with the load as a symbol: the solution, the determinant, the
    blocking and its derivative (rational functions of ``rho``) and the conditions as polynomials."""

    def __init__(self, model, pc):
        ex = _exact_param(pc)
        if ex is None:
            raise _CellFail("the piece is not linear with a non-singular matrix")
        self.sol, det = ex
        sub = dict(pc.face)
        sub.update(self.sol)
        self.B = sp.cancel(pc.blocking.xreplace(sub))
        if self.B.free_symbols - {RHO}:
            raise _CellFail("the blocking of the exact piece is not a function of the load")
        self.dB = sp.cancel(sp.diff(self.B, RHO))
        self.conds = []
        for f, strict in _conditions(model, pc, sub) + [(det * det, True), (sp.fraction(self.B)[1] ** 2, True)]:
            if f.free_symbols - {RHO}:
                raise _CellFail(f"a condition of the exact piece ({f}) depends on more than the load")
            P, Q = sp.fraction(sp.cancel(f))
            self.conds.append((f, strict, sp.Poly(P, RHO), sp.Poly(Q, RHO)))
        self.Bf, self.dBf = arb_lambdify([RHO], self.B), arb_lambdify([RHO], self.dB)

    def check(self, r0: Fraction, r1: Fraction) -> list:
        """Prove every condition on the open cell ``(r0, r1)`` (raise :class:`_CellFail` with the
        rational roots inside otherwise); returns ``[closed at r0, closed at r1]``: whether the
        conditions also hold at the end point (exact evaluation)."""
        a = sp.Rational(r0.numerator, r0.denominator)
        b = None if r1 is None else sp.Rational(r1.numerator, r1.denominator)       # None: (r0, oo)
        closed = [True, True]
        for f, strict, P, Q in self.conds:
            if strict is None:
                if not P.is_zero:
                    raise _CellFail(f"the load-only decision {f} of the exact piece is not identically 0")
                continue
            if P.is_zero:
                if strict:
                    raise _CellFail(f"a strict condition of the exact piece is identically 0 ({f})")
                continue
            if Q.degree() > 0 and Q.sqf_part().count_roots(a, b) > 0:
                raise _CellFail(f"a denominator of the exact piece ({Q.as_expr()}) vanishes on the cell",
                                _roots_inside(Q.as_expr(), r0, r1) if r1 is not None else [])
            if P.degree() > 0:
                Ps = P.sqf_part()
                inner = Ps.count_roots(a, b) - int(Ps.eval(a) == 0) - int(b is not None and Ps.eval(b) == 0)
                if inner > 0:
                    rat = _roots_inside(P.as_expr(), r0, r1) if r1 is not None else []
                    irr = Ps if r1 is not None and not rat else None    # the piece ends at an irrational load
                    raise _CellFail(f"a condition of the exact piece ({f}) changes sign on "
                                    f"({float(r0)}, {r1 and float(r1)})", rat, irr)
            if not f.xreplace({RHO: (a + b) / 2 if b is not None else a + 1}) > 0:
                raise _CellFail(f"a condition of the exact piece ({f}) fails on ({float(r0)}, {r1 and float(r1)})")
            for i, e in enumerate((a, b)):
                if e is None:
                    continue
                v = P.eval(e) * Q.eval(e)
                if not (v > 0 or (v == 0 and not strict)):
                    closed[i] = False
        return closed


def _grad_B(pc):
    c = pc.compiled()
    if "dB_arb" not in c:
        args = list(pc.unknowns) + [RHO]
        c["dB_arb"] = arb_lambdify(args, [sp.diff(pc.blocking, z) for z in pc.unknowns] + [sp.diff(pc.blocking, RHO)])
    return c["dB_arb"]


def _kraw_values(model, pc, box, R):
    """Re-check a Krawczyk box of a piece over the load ball ``R`` and enclose B and dB/drho."""
    comp = _BallSystem(pc)
    for e, v in pc.rho_decisions.values():
        val = arb_lambdify([RHO], e)(R)
        if not ((val > 0) if v > 0 else (val < 0) if v < 0 else val == 0):
            raise _CellFail(f"the load-only decision {e} is not of one sign on the cell")
    if box:
        ok, _mg, _K, _Y = _krawczyk(comp, [arb(b.mid()) for b in box], [arb(b.rad()) for b in box], R, None)
        if not ok:
            raise _CellFail("the Krawczyk test fails on the piece's box")
    ok, why = _check_box(model, pc, box, R)
    if not ok:
        raise _CellFail(why)
    c = pc.compiled()
    B = c["B_arb"](*(list(box) + [R]))
    g = _grad_B(pc)(*(list(box) + [R]))
    dB = g[-1]
    if box:
        _G, J, Jr = comp.GJ_arb(box, R)
        n = len(box)
        try:
            # preconditioned by a float inverse of the midpoint Jacobian (the solve of the near-identity
            # system is tight; any Z gives a rigorous enclosure of dz/drho = -J^-1 Jr over the box)
            Z = arb_mat([[arb(J[i, j].mid()) for j in range(n)] for i in range(n)]).solve(
                arb_mat([[arb(1) if i == j else arb(0) for j in range(n)] for i in range(n)]), algorithm="approx")
            Z = arb_mat([[arb(Z[i, j].mid()) for j in range(n)] for i in range(n)])
            V = (Z * J).solve(Z * arb_mat([[-x] for x in Jr]))
        except (ZeroDivisionError, ValueError):
            raise _CellFail("the piece's Jacobian is not certainly invertible on the box") from None
        for j in range(n):
            dB += g[j] * V[j, 0]
    if R.rad() > 0 and box:
        # mean-value form about the middle load: z(r_m) lies in the Krawczyk image of the box there
        Rm = arb(R.mid())
        _ok, _mg, K, _Y = _krawczyk(comp, [arb(b.mid()) for b in box], [arb(b.rad()) for b in box], Rm, None)
        if K is not None and all(k.is_finite() for k in K):
            Bmv = c["B_arb"](*(list(K) + [Rm])) + dB * (R - Rm)
            lo, hi = max(B.lower(), Bmv.lower()), min(B.upper(), Bmv.upper())
            if lo <= hi:
                B = arb.union(arb(lo), arb(hi))
    return B, dB


def _kraw_box(pc, z0, R, prec):
    comp = _BallSystem(pc)
    n = comp.n
    if n == 0:
        return []
    Rm = arb(R.mid())
    m, _ = _newton_arb(comp, [float(v) for v in z0], Rm, prec, None)
    _G, J, Jr = comp.GJ_arb(m, Rm)
    try:
        t = J.mid().solve(arb_mat([[d.mid()] for d in Jr]))
        rad = [abs(t[i, 0].mid()) * R.rad() * 2 + arb(2) ** (-(prec - 30)) * (1 + abs(m[i])) for i in range(n)]
    except (ZeroDivisionError, ValueError):
        raise _CellFail("singular piece Jacobian") from None
    Y = None
    for _ in range(10):
        ok, _mg, K, Y = _krawczyk(comp, m, rad, R, None, Y)
        if ok:
            return [arb(m[i], arb(arb(rad[i]).upper())) for i in range(n)]
        if K is None:
            break
        rad = [max(rad[i] * 2, (abs(K[i] - m[i]).upper() if K[i].is_finite() else rad[i] * 8) * arb(1.5))
               for i in range(n)]
    raise _CellFail("the parametric Krawczyk test fails on the piece's system")


class _PwSide:
    """A piecewise-smooth model: cells (exact or Krawczyk pieces), points and edge values. Pieces are
    rebuilt once per (spec, build load) and kept (the search and the re-check share the code)."""

    kind = "piecewise"

    def __init__(self, model, prec):
        self.model, self.prec = model, prec
        self.last = None                      # (spec, build load, float start result) of the last cell
        self.points: dict = {}
        self._solved: dict = {}
        self._pieces: dict = {}

    def piece(self, spec, rb: Fraction):
        """``(piece, exact piece or None)`` of ``spec`` rebuilt at the load ``rb``."""
        key = (repr(sorted((k, sorted(v.items())) for k, v in spec.items())), rb)
        if key not in self._pieces:
            pc = _rebuild(self.model, spec, rb)
            ex = None
            if pc.compiled()["linear"]:
                try:
                    ex = _ExactPiece(self.model, pc)
                except _CellFail:
                    ex = None
            self._pieces[key] = (pc, ex)
        return self._pieces[key]

    def solved(self, r: Fraction):
        if r not in self._solved:
            self._solved[r] = piecewise_fixed_point(self.model, r, _PT_DPS)
        return self._solved[r]

    def point(self, r: Fraction):
        if r not in self.points:
            rec = {"certificate": self.solved(r).extra["certificate"]}
            self.points[r] = (rec, self.check_point(rec, r))
        return self.points[r]

    def check_point(self, rec, r):
        cert = rec["certificate"]
        _need(isinstance(cert, dict) and cert.get("rho") == f"{r.numerator}/{r.denominator}",
              f"the point certificate at rho = {r} is for another load")
        ok, why = verify_piecewise_certificate(self.model, cert)
        _need(ok, f"the piecewise point certificate at rho = {r} fails: {why}")
        pc = _rebuild(self.model, _spec(cert), r, point=True)
        with flint_prec(int(cert["prec"])):
            if cert.get("exact") is not None:
                sub = {z: _parse_q(cert["exact"][str(z)]) for z in pc.unknowns}
                sub[RHO] = sp.Rational(r.numerator, r.denominator)
                return _qa(_rat(sp.expand(pc.blocking.xreplace(sub))))
            box = box_from_strings([c for c, _ in cert["box"]], [d for _, d in cert["box"]], int(cert["prec"]))
            return pc.compiled()["B_arb"](*(box + [_qa(r)]))

    def _candidates(self, r0, r1):
        if self.last is not None:
            yield self.last
        mid = (r0 + r1) / 2
        res = self.solved(mid)
        yield _spec(res.extra["certificate"]), mid, res

    def cell(self, r0: Fraction, r1: Fraction):
        fails = []
        for spec, rb, res in self._candidates(r0, r1):
            try:
                pc, ex = self.piece(spec, rb)
                if ex is not None:
                    rec = {"kind": "exact", "spec": spec, "rho_build": q_str(rb),
                           "solution": {str(z): str(v) for z, v in ex.sol.items()}, "blocking": str(ex.B)}
                else:
                    z0 = self._start(pc, res)
                    with flint_prec(self.prec):
                        box = _kraw_box(pc, z0, _interval(r0, r1), self.prec)
                    rec = {"kind": "krawczyk", "spec": spec, "rho_build": q_str(rb), "prec": self.prec,
                           "box": [_ball(b) for b in box]}
                vals = self.check_cell(rec, r0, r1)
                self.last = (spec, rb, res)
                return rec, vals
            except _CellFail as exc:
                fails.append(exc)
            except (PrecisionError, ArithmeticError, ValueError) as exc:
                fails.append(_CellFail(str(exc)))
        roots = sorted({q for f in fails for q in f.roots})
        raise _CellFail("; ".join(dict.fromkeys(str(f) for f in fails)), roots,
                        next((f.irrational for f in fails if f.irrational is not None), None))

    def _start(self, pc, res):
        """A float start for Newton: the certified point of ``res`` (its piece may differ)."""
        vals = {str(v): float(x) for v, x in zip(self.model.variables, res.x)}
        th = [float(t) for t in res.extra.get("theta", [])]
        z0 = [vals[str(z)] for z in pc.free_vars]
        return z0 + (th + [0.5] * len(pc.free_theta))[:len(pc.free_theta)]

    def check_cell(self, rec, r0, r1):
        """``(B, dB/drho, edge, (kind, exact blocking), closed ends)`` of a stored cell, recomputed;
        ``edge(r)`` gives B on the cell's own branch at a load of the cell."""
        rb = parse_q(rec["rho_build"])
        _need(rb > 0, "bad build load")
        pc, ex = self.piece(rec["spec"], rb)
        with flint_prec(self.prec):
            if rec["kind"] == "exact":
                _need(ex is not None, "the stored exact piece is not linear with a non-singular matrix")
                closed = ex.check(r0, r1)
                loc = {str(z): z for z in pc.unknowns}
                loc["rho"] = RHO
                _need(set(rec["solution"]) == {str(z) for z in pc.unknowns} and all(
                    sp.cancel(sp.parse_expr(rec["solution"][str(z)], local_dict=loc) - ex.sol[z]) == 0
                    for z in pc.unknowns), "the stored exact solution differs from the piece's")
                _need(sp.cancel(sp.parse_expr(rec["blocking"], local_dict={"rho": RHO}) - ex.B) == 0,
                      "the stored exact blocking differs from the piece's")
                R = _interval(r0, r1)
                return (ex.Bf(R), ex.dBf(R), (lambda r, _st=None: (None, ex.Bf(_qa(r)))), ("exact", ex.B),
                        closed)
            _need(rec["kind"] == "krawczyk", "unknown piece kind")
            box = box_from_strings([c for c, _ in rec["box"]], [d for _, d in rec["box"]], int(rec["prec"]))
            with flint_prec(int(rec["prec"])):
                B, dB = _kraw_values(self.model, pc, box, _interval(r0, r1))

            def edge(r, stored=None, _pc=pc, _box=box):
                return self._edge(_pc, _box, r, stored)
            return B, dB, edge, ("krawczyk", None), [True, True]

    def _edge(self, pc, cell_box, r, stored):
        """B at the load ``r`` on the cell's branch: from a point box nested in the cell's box (stored
        as its balls), or, ``"cell"``, from the cell's box itself at that load."""
        with flint_prec(self.prec):
            R = _qa(r)
            if stored is None:
                stored = "cell"
                try:
                    box = _kraw_box(pc, [float(b.mid()) for b in cell_box], R, self.prec)
                    if all(c.contains(b) for c, b in zip(cell_box, box)):
                        stored = [_ball(b) for b in box]
                except _CellFail:
                    pass
            if stored == "cell":
                B, _dB = _kraw_values(self.model, pc, list(cell_box), R)
                return stored, B
            box = box_from_strings([c for c, _ in stored], [d for _, d in stored], self.prec)
            _need(all(c.contains(b) for c, b in zip(cell_box, box)), "an edge box is not inside its cell's box")
            B, _dB = _kraw_values(self.model, pc, box, R)
            return stored, B


# ==================================================================================================
# a smooth side
# ==================================================================================================

class _SmoothSide:
    kind = "smooth"

    def __init__(self, model, prec):
        self.model, self.prec = model, prec
        self.points: dict = {}
        m = model.compiled
        m.require_smooth()

    def point(self, r: Fraction):
        if r not in self.points:
            box, sel, _mg = point_box(self.model, r, prec=self.prec)
            rec = {"center": [exact_dyadic(arb(b.mid())) for b in box],
                   "delta": [exact_dyadic(arb(b.rad())) for b in box], "sel": list(sel)}
            self.points[r] = (rec, self.check_point(rec, r))
        return self.points[r]

    def _box(self, rec):
        return box_from_strings(rec["center"], rec["delta"], self.prec)

    def check_point(self, rec, r):
        box = self._box(rec)
        try:
            verify_box(self.model, box, rec["sel"], r, prec=self.prec)
        except ValueError as exc:
            raise CertificateMismatch(f"smooth point box at rho = {r}: {exc}") from None
        with flint_prec(self.prec):
            return self.model.compiled.log_blocking_arb(box, _qa(r).log()).exp()

    def cell(self, r0, r1):
        try:
            e = enclose_interval(self.model, r0, r1, prec=self.prec)
        except (PrecisionError, ArithmeticError, ValueError) as exc:
            raise _CellFail(f"smooth tube: {exc}") from None
        rec = {"center": [exact_dyadic(arb(c.mid())) for c in e.center],
               "slope": [exact_dyadic(arb(c.mid())) for c in e.slope],
               "delta": [exact_dyadic(arb(arb(c).upper())) for c in e.delta], "sel": list(e.sel)}
        try:
            return rec, self.check_cell(rec, r0, r1)
        except (CertificateMismatch, ValueError) as exc:
            raise _CellFail(str(exc)) from None

    def check_cell(self, rec, r0, r1):
        m = self.model
        cen = [parse_exact(v) for v in rec["center"]]
        slo = [parse_exact(v) for v in rec["slope"]]
        dl = [parse_exact(v) for v in rec["delta"]]
        sel = list(rec["sel"])
        try:
            verify_tube(m, cen, slo, dl, sel, r0, r1, prec=self.prec)
        except ValueError as exc:
            raise CertificateMismatch(f"smooth tube on [{r0}, {r1}]: {exc}") from None
        with flint_prec(self.prec):
            R = _qa(r0).log().union(_qa(r1).log())
            rm = arb(R.mid())
            hull = [cen[j] + slo[j] * (R - rm) + arb(0, dl[j]) for j in range(len(cen))]
            B = m.compiled.log_blocking_arb(hull, R).exp()
            _V, dLB = box_derivative(m, hull, sel, R)
            dB = B * dLB / R.exp()

        def slice_at(r):
            lr = _qa(r).log()
            return lr, [cen[j] + slo[j] * (lr - rm) + arb(0, dl[j]) for j in range(len(cen))]

        def nested(slc, pb):
            return (all(s_.contains(b_) for s_, b_ in zip(slc, pb)), all(b_.contains(s_) for s_, b_ in zip(slc, pb)))

        def edge(r, stored=None):
            """B at the load ``r`` of the cell on the tube's own branch: from a point box nested with the
            tube's slice there (stored as its record), or, ``"slice"``, from the slice itself."""
            _need(r0 <= r <= r1, "an edge load outside its cell")
            with flint_prec(self.prec):
                lr, slc = slice_at(r)
                if stored is None:
                    stored = "slice"
                    try:
                        rec_p = self.point(r)[0]
                        if any(nested(slc, self._box(rec_p))):
                            stored = rec_p
                    except (PrecisionError, ValueError, ArithmeticError):
                        pass
                if stored == "slice":
                    return stored, m.compiled.log_blocking_arb(slc, lr).exp()
                Bp = self.check_point(stored, r)
                inner, outer = nested(slc, self._box(stored))
                _need(inner or outer, f"the point box at rho = {r} and the tube of its cell do not nest")
                return stored, (Bp if inner else m.compiled.log_blocking_arb(slc, lr).exp())

        def chain(r, rec_p):
            """The point box at ``r`` and the tube's slice there hold the same zero (one inside the other)."""
            with flint_prec(self.prec):
                _lr, slc = slice_at(r)
                pb = self._box(rec_p)
                _need(any(nested(slc, pb)),
                      f"the point box at rho = {r} and the tube of its cell do not nest")
        return B, dB, edge, ("smooth", None), [True, True], chain
