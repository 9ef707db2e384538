r"""Uniqueness of the fixed point on the state space: exclusion of every other zero by interval arithmetic
(:func:`fixed_point_uniqueness`) and the re-check of its record (:func:`verify_uniqueness`). Re-exported by
:mod:`symloss.core.certify`.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
from flint import arb, arb_mat, fmpq

from .boxes import check_selection
from .certified_results import _exact_str, _load_ball, parse_exact
from .codegen import arb_lambdify
from .definition import RHO
from .float_start import _newton_float
from .krawczyk import _krawczyk, _newton_arb
from .precision import (
    PrecisionError,
    arb_to_mpf,
    flint_prec,
)
from .statespace import _UNIQ_MAX_BOXES, _UNIQ_MIN_WIDTH, _UNIQ_PREC, UNIQUENESS_MAX_DIM, StateSpace

__all__ = ["fixed_point_uniqueness", "verify_uniqueness"]

class _DriftBalls:
    """Ball evaluation of the model's drift (all ``n`` rows) and of its Jacobian in ``x``."""

    def __init__(self, model):
        self.n = n = len(model.variables)
        poly = model._drift_poly
        self.poly = None
        if poly is not None:
            self.poly = [[(arb(fmpq(c.numerator, c.denominator)), tuple((int(j), int(e)) for j, e in key))
                          for key, c in row.items()] for row in poly]
        else:
            args = list(model.variables) + [RHO]
            self._f = arb_lambdify(args, list(model._drift))
            self._J = arb_lambdify(args, model.jacobian())

    @staticmethod
    def _pow(v, e):
        return v if e == 1 else v ** e

    def values(self, x, rho):
        if self.poly is None:
            return list(self._f(*x, rho))
        z = list(x) + [rho]
        out = []
        for row in self.poly:
            acc = arb(0)
            for c, key in row:
                t = c
                for j, e in key:
                    t = t * self._pow(z[j], e)
                acc += t
            out.append(acc)
        return out

    def jacobian(self, x, rho):
        n = self.n
        if self.poly is None:
            M = self._J(*x, rho)
            return [[arb(M[i][j]) if not isinstance(M[i][j], arb) else M[i][j] for j in range(n)] for i in range(n)]
        z = list(x) + [rho]
        out = [[arb(0)] * n for _ in range(n)]
        for i, row in enumerate(self.poly):
            r_ = out[i]
            for c, key in row:
                for a, (j, e) in enumerate(key):
                    if j >= n:
                        continue
                    t = c * e
                    for b_, (jj, ee) in enumerate(key):
                        if b_ != a:
                            t = t * self._pow(z[jj], ee)
                        elif e != 1:
                            t = t * self._pow(z[jj], e - 1)
                    r_[j] = r_[j] + t
        return out


def _box_arb(lo, hi):
    return [arb.union(arb(a), arb(b)) for a, b in zip(lo, hi)]


class _Uniqueness:
    """Exclusion over the state space (free coordinates) with Krawczyk regions in ``y = log x``."""

    def __init__(self, model, R: arb, prec: int = _UNIQ_PREC, max_boxes: int = _UNIQ_MAX_BOXES):
        self.model = model
        self.comp = model.compiled
        self.S = StateSpace(model)
        self.D = _DriftBalls(model)
        self.R = R
        self.prec = prec
        self.max_boxes = max_boxes
        self.regions = []          # dicts: m, rad (y), sel, X (x balls), margin
        self.tree = []
        self.undecided = []
        self.boxes = 0
        self.newton_tries = 0
        with flint_prec(prec):
            self.rho = R.exp()
            self.r_mid = float(R.mid())
            self.dxdz = self.S.dxdz()

    # the verdict on one box ---------------------------------------------------------------------
    def classify(self, lo, hi):
        S = self.S
        z = _box_arb(lo, hi)
        x = S.full(z)
        if S.outside(x):
            return "O"
        for k, reg in enumerate(self.regions):
            if all(X.contains(v) for X, v in zip(reg["X"], x)):
                return f"A{k}"
        f = self.D.values(x, self.rho)
        for i, v in enumerate(f):
            if v > 0 or v < 0:
                return f"E{i}"
        # mean-value form around the centre
        c = [arb((a + b) / 2) for a, b in zip(lo, hi)]
        xc = S.full(c)
        fc = self.D.values(xc, self.rho)
        J = self.D.jacobian(x, self.rho)
        dz = [zi - ci for zi, ci in zip(z, c)]
        n, d = S.n, S.dim
        for i in range(n):
            acc = fc[i]
            for k in range(d):
                g = arb(0)
                for j in range(n):
                    a = self.dxdz[j][k]
                    if a != 0:
                        g += J[i][j] * a
                acc += g * dz[k]
            if acc > 0 or acc < 0:
                return f"M{i}"
        return None

    # Krawczyk regions ---------------------------------------------------------------------------
    def try_newton(self, lo, hi):
        """Float Newton (log variables) from the centre of the box; a new certified region or None."""
        self.newton_tries += 1
        c = np.array([(a + b) / 2 for a, b in zip(lo, hi)])
        xc = np.array([float(v.mid()) for v in self.S.full([arb(v) for v in c])])
        xc = np.clip(xc, 1e-9, 1.0)
        y0 = np.log(xc)
        try:
            y, ok, _ = _newton_float(self.comp, y0, self.r_mid)
        except (FloatingPointError, ValueError, ZeroDivisionError):
            return None
        if not ok or not np.all(np.isfinite(y)) or np.max(y) > 1e-6:
            return None
        if self.S.violation(np.exp(y), 1e-7) is not None:
            return None
        for reg in self.regions:
            if all(X.contains(arb(float(v))) for X, v in zip(reg["X"], np.exp(y))):
                return None
        reg = self.region(y)
        if reg is None:
            return None
        self.regions.append(reg)
        return reg

    def region(self, y):
        comp, R, prec = self.comp, self.R, self.prec
        n = comp.n
        sel = check_selection(self.model, comp.selection(np.maximum(y, -700.0)))
        with flint_prec(prec):
            try:
                m, _ = _newton_arb(comp, list(y), arb(R.mid()), prec, sel)
            except PrecisionError:
                return None
            t = [arb(0)] * n
            w = R.rad()
            if w > 0:
                _g, Jm, dr = comp.GJ_arb(m, arb(R.mid()), sel)
                try:
                    tt = Jm.mid().solve(arb_mat([[d.mid()] for d in dr]))
                    t = [abs(arb(tt[i, 0].mid())) for i in range(n)]
                except (ZeroDivisionError, ValueError):
                    return None
            for rel in (1e-3, 1e-6, 1e-10, 2.0 ** (-(prec // 2))):
                rad = [arb(rel) * (1 + abs(m[i])) + 2 * t[i] * w for i in range(n)]
                Y = None
                for _ in range(6):
                    ok, margin, K, Y = _krawczyk(comp, m, rad, R, sel, Y)
                    if ok or K is None:
                        break
                    rad = [max(rad[i] * 2, (abs(K[i] - m[i]).upper() if K[i].is_finite() else rad[i] * 8) * arb(1.5))
                           for i in range(n)]
                    if any(not r_.is_finite() or r_ > 5 for r_ in rad):
                        break
                if not ok:
                    continue
                X = [arb(m[i], rad[i]).exp() for i in range(n)]
                if not self.S.inside(X):
                    continue
                if any(all(a.overlaps(b) for a, b in zip(X, reg["X"])) for reg in self.regions):
                    continue
                return {"m": [arb(v.mid()) for v in m], "rad": [arb(r_.upper()) for r_ in rad], "sel": list(sel),
                        "X": X, "margin": margin}
        return None

    def _touches_region(self, lo, hi):
        """The box overlaps a known region (Newton from it would most likely find that zero again)."""
        if not self.regions:
            return False
        x = self.S.full(_box_arb(lo, hi))
        return any(all(X.overlaps(v) for X, v in zip(reg["X"], x)) for reg in self.regions)

    # the search ---------------------------------------------------------------------------------
    def visit(self, lo, hi, depth):
        self.boxes += 1
        with flint_prec(self.prec):
            v = self.classify(lo, hi)
            width = max(b - a for a, b in zip(lo, hi))
            if v is None and depth % max(1, len(lo)) == 0 and width <= 0.5 and self.newton_tries < 100 \
                    and not self._touches_region(lo, hi):
                if self.try_newton(lo, hi) is not None:
                    v = self.classify(lo, hi)
        if v is not None:
            self.tree.append(v)
            return
        if width <= _UNIQ_MIN_WIDTH or self.boxes >= self.max_boxes:
            self.tree.append("U")
            self.undecided.append((list(lo), list(hi)))
            return
        k = max(range(len(lo)), key=lambda i: hi[i] - lo[i])
        mid = (lo[k] + hi[k]) / 2
        self.tree.append("S")
        hi1 = list(hi)
        hi1[k] = mid
        lo2 = list(lo)
        lo2[k] = mid
        self.visit(list(lo), hi1, depth + 1)
        self.visit(lo2, list(hi), depth + 1)

    def run(self):
        d = self.S.dim
        if d == 0:
            raise ValueError("the state space is a point")
        self.visit([0.0] * d, [1.0] * d, 0)
        return self


def _region_record(reg) -> dict:
    return {"center": [_exact_str(v) for v in reg["m"]], "delta": [_exact_str(v) for v in reg["rad"]],
            "sel": list(reg["sel"]), "x": [mpmath.nstr(arb_to_mpf(arb(v.mid()).exp()), 17) for v in reg["m"]]}


def _uniqueness_record(u: _Uniqueness, rho_lo, rho_hi) -> dict:
    k = len(u.regions)
    if not u.undecided:
        status = "PROVED" if k == 1 else ("NOT UNIQUE" if k >= 2 else "UNDECIDED")
    else:
        status = "NOT UNIQUE" if k >= 2 else "UNDECIDED"
    return {"status": status, "n_found": k, "complete": not u.undecided, "rho": [str(rho_lo), str(rho_hi)],
            "state_space": u.S.describe(), "dim": u.S.dim, "boxes": u.boxes, "undecided": len(u.undecided),
            "undecided_near": [[(a + b) / 2 for a, b in zip(lo, hi)] for lo, hi in u.undecided[:3]],
            "prec": u.prec, "regions": [_region_record(r) for r in u.regions], "tree": "".join(
                t if len(t) == 1 else f"{t[0]}{t[1:]}," for t in u.tree)}


def _parse_tree(s: str) -> list:
    out, i = [], 0
    while i < len(s):
        ch = s[i]
        if ch in "SOU":
            out.append(ch)
            i += 1
        elif ch in "EMA":
            j = s.index(",", i)
            out.append(ch + s[i + 1:j])
            i = j + 1
        else:
            raise ValueError(f"bad token {ch!r} in the exclusion tree")
    return out


def fixed_point_uniqueness(model, rho_lo, rho_hi=None, *, prec: int = _UNIQ_PREC,
                           max_boxes: int = _UNIQ_MAX_BOXES) -> dict:
    r"""Count the fixed points of ``model`` on its state space (``StateSpace``) at the load
    ``rho_lo``, or for every load of ``[rho_lo, rho_hi]``, by exclusion in interval arithmetic.

    The free coordinates :math:`[0, 1]^d` are bisected; a box is discarded when its image certainly
    misses the state space, or when a component of the drift, enclosed over the box (directly or by
    the mean-value form) for every load of the interval, excludes 0; float Newton from a box that
    is not discarded finds a zero, around which a Krawczyk test in ``y = log x`` (parametric in the
    load) proves a region holding exactly one zero for every load; boxes inside such a region are
    accounted for. The regions are pairwise disjoint and lie in the state space, so when every leaf
    is decided the number of fixed points on the state space is the number of regions, for every
    load of the interval. The record holds the tree of verdicts and the regions, which
    :func:`verify_uniqueness` re-checks without searching.

    Parameters
    ----------
    model : MeanFieldModel
        A model with smooth rates and at most ``UNIQUENESS_MAX_DIM`` free coordinates.
    rho_lo, rho_hi : int, Fraction, float or str
        The load, or the end points of a load interval (exact).
    prec : int, optional
        Working precision in bits (default 128).
    max_boxes : int, optional
        Budget of boxes (default 6000); leaves left open make the status ``UNDECIDED``.

    Returns
    -------
    dict
        ``status`` (``"PROVED"``: exactly one fixed point; ``"NOT UNIQUE"``: at least ``n_found``
        distinct certified fixed points, exactly that many when ``complete``; ``"UNDECIDED"``),
        ``n_found``, ``regions`` (centre and radius in ``y = log x``, the state ``x``), the tree,
        the state space, the number of boxes.

    Raises
    ------
    ValueError
        If the state space has more than ``UNIQUENESS_MAX_DIM`` free coordinates, or none.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> from symloss.core.certify import fixed_point_uniqueness
    >>> u = fixed_point_uniqueness(RandomRouting(2), 1)
    >>> u["status"], u["n_found"], round(float(u["regions"][0]["x"][2]), 12)     # E(2, 1) = 1/5
    ('PROVED', 1, 0.2)
    """
    comp = model.compiled
    comp.require_smooth()
    S = StateSpace(model)
    if S.dim > UNIQUENESS_MAX_DIM:
        raise ValueError(f"uniqueness by exclusion handles at most {UNIQUENESS_MAX_DIM} free coordinates, "
                         f"this state space has {S.dim}")
    with flint_prec(prec):
        R = _load_ball(rho_lo, rho_hi)
    u = _Uniqueness(model, R, prec, max_boxes).run()
    lo_s = _exact_load_str(rho_lo)
    return _uniqueness_record(u, lo_s, lo_s if rho_hi is None else _exact_load_str(rho_hi))


def _exact_load_str(rho) -> str:
    """The load as an exact rational string (floats and mpf exactly, decimal strings as written)."""
    if isinstance(rho, str):
        return str(Fraction(rho))
    if isinstance(rho, mpmath.mpf):
        man, exp = rho.man, rho.exp
        return str(Fraction(int(man)) * Fraction(2) ** int(exp))
    try:
        return str(Fraction(rho))
    except (TypeError, ValueError):
        return str(Fraction(str(rho)))


def verify_uniqueness(model, record: dict) -> str:
    """Re-check a record of :func:`fixed_point_uniqueness` without searching: the tree of verdicts is
    walked (its boxes tile the free coordinates by construction), every discarded box is re-checked,
    every region's Krawczyk test and its position in the state space are recomputed, the regions are
    checked pairwise disjoint and every accounted box inside its region.

    Parameters
    ----------
    model : MeanFieldModel
        The model.
    record : dict
        The output of :func:`fixed_point_uniqueness`.

    Returns
    -------
    str
        The status the record supports (``"PROVED"`` / ``"NOT UNIQUE"`` / ``"UNDECIDED"``).

    Raises
    ------
    ValueError
        If a verdict, a region or the stated status does not check.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> from symloss.core.certify import fixed_point_uniqueness, verify_uniqueness
    >>> verify_uniqueness(RandomRouting(2), fixed_point_uniqueness(RandomRouting(2), 1))
    'PROVED'
    """
    prec = int(record["prec"])
    lo_s, hi_s = record["rho"]
    with flint_prec(prec):
        R = _load_ball(Fraction(lo_s), None if hi_s == lo_s else Fraction(hi_s))
    u = _Uniqueness(model, R, prec)
    comp = model.compiled
    with flint_prec(prec):
        for k, rr in enumerate(record["regions"]):
            m = [parse_exact(s) for s in rr["center"]]
            rad = [parse_exact(s) for s in rr["delta"]]
            sel = check_selection(model, rr["sel"])
            ok, margin, _K, _Y = _krawczyk(comp, m, rad, R, sel)
            if not ok:
                raise ValueError(f"region {k}: the Krawczyk test fails")
            X = [arb(m[i], rad[i]).exp() for i in range(len(m))]
            if not u.S.inside(X):
                raise ValueError(f"region {k} is not inside the state space")
            for reg in u.regions:
                if all(a.overlaps(b) for a, b in zip(X, reg["X"])):
                    raise ValueError(f"region {k} overlaps another region")
            u.regions.append({"m": m, "rad": rad, "sel": sel, "X": X, "margin": margin})
    tokens = _parse_tree(record["tree"])
    pos = 0
    undecided = 0
    d = u.S.dim
    stack = [([0.0] * d, [1.0] * d)]
    with flint_prec(prec):
        while stack:
            lo, hi = stack.pop()
            if pos >= len(tokens):
                raise ValueError("the exclusion tree ends early")
            t = tokens[pos]
            pos += 1
            if t == "S":
                k = max(range(d), key=lambda i: hi[i] - lo[i])
                mid = (lo[k] + hi[k]) / 2
                hi1, lo2 = list(hi), list(lo)
                hi1[k] = mid
                lo2[k] = mid
                stack.append((lo2, list(hi)))
                stack.append((list(lo), hi1))
                continue
            if t == "U":
                undecided += 1
                continue
            z = _box_arb(lo, hi)
            x = u.S.full(z)
            if t == "O":
                if not u.S.outside(x):
                    raise ValueError(f"box {lo}, {hi} is not outside the state space")
            elif t[0] == "A":
                reg = u.regions[int(t[1:])]
                if not all(X.contains(v) for X, v in zip(reg["X"], x)):
                    raise ValueError(f"box {lo}, {hi} is not inside region {t[1:]}")
            else:
                v = u.classify(lo, hi)
                if v is None or v[0] not in "EM":
                    raise ValueError(f"box {lo}, {hi}: the drift does not exclude 0")
    if pos != len(tokens):
        raise ValueError("the exclusion tree has extra tokens")
    k = len(u.regions)
    status = ("PROVED" if k == 1 else "NOT UNIQUE" if k >= 2 else "UNDECIDED") if not undecided else \
        ("NOT UNIQUE" if k >= 2 else "UNDECIDED")
    if status != record["status"] or k != record["n_found"]:
        raise ValueError(f"the record states {record['status']} with {record['n_found']} fixed points, "
                         f"the re-check supports {status} with {k}")
    return status
