r"""Certified comparisons where at least one model is **piecewise smooth** (JSQ, join-the-idle-queue,
threshold policies written with ``Heaviside``/``Min``/``Max``/``Piecewise``), on a load range
:math:`[\rho_{min}, \rho_{max}]` given by the caller, extended to the ends where an exact argument
applies.

Method
------
The range is tiled into cells with rational end points (step control on the relative width; a cell is
split where a switching condition of a piece changes sign, at the exact rational root when it has one,
e.g. JSQ's loads ``rho = k``). On each cell each model gets an enclosure of its blocking and of
:math:`dB/d\rho` valid for **every** load of the cell:

* a smooth model: the parametric Krawczyk tube of :func:`symloss.core.certify.enclose_interval`
  (re-checked by :func:`symloss.core.certify.verify_tube`), with the derivative of
  :func:`symloss.core.certify.box_derivative`;
* a piecewise-smooth model: one *piece* (a face, Filippov weights and branch signs, see
  :mod:`symloss.core.piecewise`), found at a load of the cell and rebuilt from its data. A piece
  **linear** in its unknowns is solved exactly with the load as a symbol (rational functions of
  :math:`\rho`); its sign conditions (branch signs, weights in ``[0, 1]``, the state in the state
  space, the load-only decisions) and the non-singularity of its matrix are proved on the open cell by
  exact real-root counting (Sturm), the blocking is an exact rational function ("exact" cell). A
  **non-linear** piece is proved by a parametric Krawczyk test on its square system with the load as
  an interval, the sign conditions checked strictly on box x cell; :math:`dB/d\rho` by implicit
  differentiation in ball arithmetic ("krawczyk" cell).

At every cell end point both models also carry a point certificate (the piecewise solver's
:func:`~symloss.core.piecewise.verify_piecewise_certificate`-checked certificate, a Krawczyk point box
for a smooth model, contained in both adjacent tubes). The sign of :math:`D = B_a - B_b` on a cell is
proved by disjoint enclosures; ``D = 0`` identically on a cell where both pieces are exact with equal
blockings (a tie, sign 0); a cell whose end values (on the cell's own branches) have opposite signs and
whose :math:`dD/d\rho` enclosure excludes 0 holds exactly one crossing, bracketed by bisection to width
:math:`10^{-dps}`.

What is proved and what is not
------------------------------
PROVED (re-checked by :func:`verify_piecewise_comparison` from the stored data and the models'
equations): for every load of :math:`[\rho_{min}, \rho_{max}]` each model has the certified fixed point
(a Filippov equilibrium for a piecewise model) whose blocking is compared, the sign of ``B_a - B_b``
there, and the crossings in the range; uniqueness of a smooth model's fixed point where its accelerator
proves it for every load (power-of-d, retrial-of-d; ``parts``, re-derived on the definition). NOT PROVED
and recorded in ``assumptions``: that the other fixed points are the only ones (for a piecewise model
uniqueness on the state space is EVIDENCE at best, see ``parts``), and anything outside the range (unless
the ends below apply): ``sign_at_zero``, ``sign_at_infinity`` and ``threshold`` of the result are
``None`` (so ``holds_everywhere`` is ``False``; the signs at ``rho_min`` / ``rho_max`` are those of the
first and last piece, also in ``certificate["summary"]``).

*Small-load end.* When the first cell of a piecewise model is an exact piece that holds on the whole
:math:`(0, \rho_j)` with blocking identically 0 (JSQ, join-the-idle-queue below ``rho = 1``) and the
other model is smooth, the sign on :math:`(0, \rho_j]` is PROVED by the smooth model's certified end
branch at ``rho -> 0`` with a blocking enclosed positive (:mod:`symloss.meanfield.compare_piecewise_zero`,
``certificate["zero_end"]``; ``rho_j`` is ``rho_min / 2^j``, the range then tiled down to it, and
``sign_at_zero`` is set). With both ends the result holds on :math:`(0, \infty)` (status
``"PROVED on (0, oo)"``; uniqueness of a piecewise model's fixed points stays an assumption).

*Large-load end.* When the last cell of a piecewise model is an exact piece that holds on the whole
:math:`(\rho_{max}, \infty)` (Sturm counts) with the least blocking the state space allows,
:math:`1 - n/\rho` (JSQ beyond ``rho = C``), and the other model is smooth, of tail kind, with a
blocking equal to :math:`1 - \sum_i u_i/\rho` at its fixed points (checked: the difference is a
multiple of the sum of its drift rows) and no fixed point at the all-ones state (a drift row there
without a zero at a load ``> 0``), the sign on :math:`[\rho_{max}, \infty)` is PROVED by this exact
structure (``certificate["infinity_end"]``; ``sign_at_infinity`` is then set, and ``threshold`` is the
last crossing when ``a`` blocks less after it).

Degenerate loads where a non-linear piece meets a switching surface (join-the-idle-queue at ``rho = 1``,
the regime changes of a threshold policy) are not certified by this path: give a range that avoids them
(the search then stops with an ``ArithmeticError`` naming the load), as is a piece that ends at an
irrational load (a regime change of a threshold policy at a root of a cubic: no rational cell end).

Layout: the two sides of a cell (a piecewise model's pieces, a smooth model's tubes) are in
:mod:`symloss.meanfield.compare_piecewise_sides`; this module holds the tiling, the ends, the summary and
the re-check.

Size: the search and its re-check are kept in one module so that the re-check decides each cell exactly
as the search did (the same cell test, the same summary); the enclosures they share live in the sides
module.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
import time
from fractions import Fraction

import sympy as sp

from ..core.definition import RHO
from ..core.piecewise import is_piecewise_model, piecewise_fixed_point
from ..core.precision import PrecisionError, flint_prec
from .comparison_types import CertificateMismatch, CertifiedComparison, Crossing, _need, _version
from .enclosures import _dec, parse_q, q_str
from .compare_piecewise_sides import (_PT_DPS, _CellFail, _irrational_end, _PwSide, _SmoothSide, model_assumptions,
                                      proved_uniqueness)
from .compare_piecewise_zero import ZERO_LEMMA, find_zero_end, verify_zero_end

__all__ = ["FORMAT_PIECEWISE", "piecewise_comparison", "verify_piecewise_comparison", "check_load_range"]

FORMAT_PIECEWISE = "symloss.comparison/piecewise/1"
_MAX_HALVINGS = 40
#: the least relative width of a cell (below: a load the tiling only approaches, refused)
_MIN_WIDTH = Fraction(1, 2 ** 200)

_ASSUME_RANGE_END = ("the comparison is certified on [rho_min, oo): the loads below rho_min are NOT CERTIFIED "
                     "(sign_at_zero is None)")
_ASSUME_RANGE = ("the comparison is certified on [rho_min, rho_max] only: the loads below rho_min and above "
                 "rho_max are NOT CERTIFIED (sign_at_zero, sign_at_infinity and threshold are None)")
_ASSUME_ZERO = ("the comparison is certified on (0, rho_max] only (the small-load end by its lemma): the loads "
                "above rho_max are NOT CERTIFIED (sign_at_infinity and threshold are None)")
_ASSUME_ALL = "the comparison is certified on (0, oo): the small-load and the large-load ends by their lemmas"


def check_load_range(rho_min, rho_max) -> tuple:
    """Validate the load range of a piecewise comparison: two exact positive rationals (int, Fraction,
    decimal string or float, a float taken at its binary value), ``rho_min < rho_max``.

    Parameters
    ----------
    rho_min, rho_max : int, Fraction, str or float
        The end points.

    Returns
    -------
    tuple of Fraction

    Raises
    ------
    TypeError, ValueError
        Naming the argument, its value and the valid range.

    Examples
    --------
    >>> check_load_range("1/2", 4)
    (Fraction(1, 2), Fraction(4, 1))
    """
    out = []
    for name, v in (("rho_min", rho_min), ("rho_max", rho_max)):
        if isinstance(v, numbers.Integral) and not isinstance(v, bool):
            v = int(v)                                  # numpy integers too
        if isinstance(v, bool) or not isinstance(v, (int, float, Fraction, str)):
            raise TypeError(f"{name} must be an int, Fraction, decimal string or float, got {type(v).__name__}")
        try:
            q = Fraction(v)
        except (ValueError, ZeroDivisionError, OverflowError):
            raise ValueError(f"{name} must be a finite rational load > 0, got {v!r}") from None
        if not 0 < q <= 10 ** 6:
            raise ValueError(f"{name} must be a load in (0, 1e6], got {v!r}")
        out.append(q)
    if not out[0] < out[1]:
        raise ValueError(f"rho_min must be < rho_max, got rho_min = {rho_min!r} and rho_max = {rho_max!r}")
    return tuple(out)


# ==================================================================================================
# the search
# ==================================================================================================

def _side(model, prec):
    return _PwSide(model, prec) if is_piecewise_model(model) else _SmoothSide(model, prec)


def _sgn(x) -> int | None:
    return 1 if x > 0 else -1 if x < 0 else (0 if (x == 0 and x.rad() == 0) else None)


def _cell_test(va, vb):
    """Sign of D on a cell from the two sides' values, or None."""
    if va[3][0] == "exact" and vb[3][0] == "exact" and sp.cancel(va[3][1] - vb[3][1]) == 0:
        return 0
    D = va[0] - vb[0]
    s = _sgn(D)
    return s if s in (1, -1) else None


def _dyadic_below(x: Fraction, bits: int) -> Fraction:
    e = x.numerator.bit_length() - x.denominator.bit_length()
    scale = Fraction(2) ** (bits - e)
    return Fraction(math.floor(x * scale)) / scale


class _Search:
    def __init__(self, a, b, dps, prec):
        self.sides = {"a": _side(a, prec), "b": _side(b, prec)}
        self.dps, self.prec = dps, prec

    def try_cell(self, r0, r1):
        try:
            return self._try_cell(r0, r1)
        except (CertificateMismatch, PrecisionError, ZeroDivisionError) as exc:
            raise _CellFail(str(exc)) from None

    def _try_cell(self, r0, r1):
        recs, vals = {}, {}
        for k, s in self.sides.items():
            recs[k], vals[k] = s.cell(r0, r1)
        with flint_prec(self.prec):
            for k, sd in self.sides.items():      # a smooth model's point boxes at the ends nest with its tube
                if sd.kind == "smooth":
                    vals[k][5](r0, sd.point(r0)[0]), vals[k][5](r1, sd.point(r1)[0])
        s = _cell_test(vals["a"], vals["b"])
        cell = {"rho": [q_str(r0), q_str(r1)], "a": recs["a"], "b": recs["b"],
                "closed": {k: vals[k][4] for k in ("a", "b")}}
        if s is not None:
            return dict(cell, test="interval" if s else "tie", sign=s)
        with flint_prec(self.prec):
            ea = [vals["a"][2](r) for r in (r0, r1)]
            eb = [vals["b"][2](r) for r in (r0, r1)]
            s0, s1 = _sgn(ea[0][1] - eb[0][1]), _sgn(ea[1][1] - eb[1][1])
            dD = vals["a"][1] - vals["b"][1]
        if s0 in (1, -1) and s1 == -s0 and _sgn(dD) in (1, -1):
            cell = dict(cell, test="crossing", sign=s1, edges={"a": [e[0] for e in ea], "b": [e[0] for e in eb]})
            cell["refined"] = self.refine(vals, r0, r1, s1)
            return cell
        return None

    def refine(self, vals, lo, hi, s1):
        target = Fraction(1, 10 ** self.dps)
        rec = {}
        while hi - lo > target / 2:
            mid = _dyadic_below((lo + hi) / 2, 8 + self.dps * 4) if hi - lo > target else (lo + hi) / 2
            if not lo < mid < hi:
                mid = (lo + hi) / 2
            with flint_prec(self.prec):
                pa, pb = vals["a"][2](mid), vals["b"][2](mid)
                s = _sgn(pa[1] - pb[1])
            if s not in (1, -1):
                raise ArithmeticError(f"the sign of B_a - B_b at rho = {float(mid)} is not decided at {self.prec} bits")
            if s == s1:
                hi, rec["hi"] = mid, {"rho": q_str(mid), "a": pa[0], "b": pb[0]}
            else:
                lo, rec["lo"] = mid, {"rho": q_str(mid), "a": pa[0], "b": pb[0]}
        return {"lo": rec.get("lo"), "hi": rec.get("hi"),
                "rho": [_dec(lo, self.dps + 3 + len(str(int(hi))), down=True),
                        _dec(hi, self.dps + 3 + len(str(int(hi))), down=False)]}

    def tile(self, rho_lo, rho_hi):
        cells = []
        x0, w = rho_lo, Fraction(1, 8)
        halvings = 0
        while x0 < rho_hi:
            if w < _MIN_WIDTH:
                raise ArithmeticError(
                    f"piecewise comparison: the cells near rho = {float(x0)} shrink below relative width 2^-200 "
                    "(a breakpoint of a piece at an irrational load, or a tangency of the two blockings, "
                    "approached geometrically); such a load is not certified by this path: choose a range "
                    "that avoids it")
            lw = w.numerator.bit_length() - w.denominator.bit_length()
            if w < Fraction(2) ** lw:
                lw -= 1                                          # floor(log2 w), exactly
            x1 = min(_dyadic_below(x0 * (1 + w), 8 + max(0, -lw)), rho_hi)
            if not x0 < x1:
                x1 = rho_hi
            try:
                cell = self.try_cell(x0, x1)
                why = "the enclosures of B_a and B_b overlap"
            except _CellFail as exc:
                cell, why = None, str(exc)
                if exc.irrational is not None and x1 - x0 < x0 / 2 ** 20:
                    _irrational_end(exc.irrational, x0, x1)
                inside = [q for q in exc.roots if x0 < q < x1]
                if inside:                        # a breakpoint of a piece, exactly: end the cell there
                    x1b = inside[0]
                    try:
                        cell = self.try_cell(x0, x1b)
                        x1 = x1b
                    except _CellFail as exc2:
                        cell, why = None, str(exc2)
            if cell is None:
                halvings += 1
                if halvings > _MAX_HALVINGS:
                    raise ArithmeticError(f"piecewise comparison: the cell rho in [{float(x0)}, {float(x1)}] is "
                                          f"undecided ({why}); a degenerate load of a piece or a tangency of "
                                          "the two blockings is not certified by this path")
                w /= 2
                continue
            halvings = 0
            cells.append(cell)
            x0 = x1
            w = min(w * Fraction(3, 2), Fraction(1, 2))
        return cells


def _piece_changes(S, cells) -> None:
    """Where a piecewise model's piece changes between two cells, the two cells' branches must meet
    (overlapping blockings at the common load); disjoint values are two distinct equilibria at one
    load (e.g. a threshold policy whose two regimes are both consistent there): refused."""
    for left, right in zip(cells, cells[1:]):
        r = parse_q(left["rho"][1])
        for k, side in S.sides.items():
            if side.kind != "piecewise" or (left[k]["spec"], left[k]["rho_build"]) == (right[k]["spec"],
                                                                                      right[k]["rho_build"]):
                continue
            with flint_prec(S.prec):
                vl = side.check_cell(left[k], parse_q(left["rho"][0]), r)[2](r)[1]
                vr = side.check_cell(right[k], r, parse_q(right["rho"][1]))[2](r)[1]
                if not vl.overlaps(vr):
                    raise ValueError(
                        f"model {k} ({side.model!r}) has two distinct certified equilibria at rho = {r} "
                        f"(blocking {vl.str(8)} on the piece {left[k]['spec']} and {vr.str(8)} on the piece "
                        f"{right[k]['spec']}): its blocking is not a function of the load, a comparison is not "
                        "defined")


_END_LEMMA = ("PROVED by exact structure: beyond rho_max the piecewise model's exact piece holds (Sturm counts on "
              "(rho_max, oo)) with the least blocking possible, 1 - n/rho; the other model's blocking equals "
              "1 - (sum of its n tail fractions)/rho at a fixed point, and the all-ones state is not one of its "
              "fixed points at any load")


def _infinity_end(sides, cells, models, r_hi):
    """The large-load end by exact structure (None when it does not apply): the last cell of a
    piecewise side ``p`` is an exact piece that holds on ``(r_hi, oo)`` with blocking ``1 - n/rho``,
    the other side ``s`` is smooth, of tail kind with ``n`` variables, its blocking minus
    ``1 - sum(u)/rho`` is ``-(1/rho)`` times the sum of its drift rows (or 0), and some drift row of
    ``s`` at ``u = (1, ..., 1)`` has no zero at a load ``> 0``. Then ``B_p < B_s`` for every load
    ``>= r_hi`` (``u <= 1`` on the state space, equality only at the all-ones state)."""
    if not cells:
        return None
    for p, q in (("a", "b"), ("b", "a")):
        sp_, so = sides[p], sides[q]
        rec = cells[-1][p]
        if sp_.kind != "piecewise" or so.kind != "smooth" or rec["kind"] != "exact":
            continue
        m = models[q]
        V = list(m.variables)
        n = len(V)
        if getattr(m, "state_kind", None) != "tail" or m._invariants:
            continue
        pc, ex = sp_.piece(rec["spec"], parse_q(rec["rho_build"]))
        if ex is None or sp.cancel(ex.B - (1 - sp.Integer(n) / RHO)) != 0:
            continue
        try:
            ex.check(r_hi, None)
        except _CellFail:
            continue
        flow = sp.expand(m._blocking - 1 + sp.Add(*V) / RHO)
        if flow != 0 and sp.expand(flow * RHO + sp.Add(*m._drift)) != 0:
            continue
        row = None
        for i, e in enumerate(m._drift):
            f = sp.cancel(sp.sympify(e).xreplace({v: 1 for v in V}))
            if f.free_symbols - {RHO}:
                continue
            P, Q = sp.fraction(f)
            if P == 0:
                continue
            Pp = sp.Poly(P, RHO)
            if Pp.degree() == 0 or Pp.sqf_part().count_roots(0, None) - int(Pp.eval(0) == 0) == 0:
                row = i
                break
        if row is None:
            continue
        return {"piecewise": p, "n": n, "row_at_ones": row, "sign": -1 if p == "a" else 1}
    return None


def _parts(model_a, model_b, evidence, end=None, zero=None) -> dict:
    parts = {"range": "PROVED", "below_rho_min": ZERO_LEMMA if zero is not None else "NOT CERTIFIED",
             "above_rho_max": _END_LEMMA if end is not None else "NOT CERTIFIED"}
    for k, m in (("a", model_a), ("b", model_b)):
        parts[f"uniqueness_{k}"] = evidence.get(k, "NOT CHECKED")
    return parts


def _assumptions(models, end=None, zero=None, proved=()) -> list:
    """The assumptions of the result: the range's, then each model's (``proved``: the keys of the smooth
    models whose uniqueness is PROVED for every load, which assume nothing)."""
    return [{(False, False): _ASSUME_RANGE, (True, False): _ASSUME_RANGE_END, (False, True): _ASSUME_ZERO,
             (True, True): _ASSUME_ALL}[(end is not None, zero is not None)]] + model_assumptions(models, proved)


def piecewise_comparison(model_a, model_b, *, rho_min, rho_max, dps: int = 30, prec: int | None = None,
                         uniqueness_evidence: bool = True, t0=None) -> CertifiedComparison:
    r"""Certified sign of :math:`B_a - B_b` on :math:`[\rho_{min}, \rho_{max}]` when at least one
    model is piecewise smooth (module docstring): the crossings in the range isolated to width
    ``10^-dps``, the sign on each piece, and a certificate for :func:`verify_piecewise_comparison`.

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        At least one piecewise smooth (:func:`symloss.core.piecewise.is_piecewise_model`).
    rho_min, rho_max : int, Fraction, str or float
        The load range, ``0 < rho_min < rho_max <= 1e6`` (exact rationals).
    dps : int
        Width of each crossing interval: at most ``10^-dps``.
    prec : int, optional
        Working precision in bits (default ``max(128, 3.4 dps + 64)``).
    uniqueness_evidence : bool
        Attach the piecewise solver's EVIDENCE of uniqueness at the two range ends to ``parts``.
    t0 : float, optional
        Start time (``time.perf_counter``) for the reported duration.

    Returns
    -------
    CertifiedComparison
        Pieces and crossings in the range (the first piece from ``"0"`` when the small-load end is
        proved, the last piece to ``"oo"`` when the large-load end is); ``certificate["parts"]`` says
        what is PROVED, what is EVIDENCE and what is NOT CERTIFIED; ``sign_at_zero`` is ``None`` unless
        the small-load end is proved, ``sign_at_infinity`` and ``threshold`` unless the large-load end
        is.

    Raises
    ------
    ValueError, TypeError
        For a bad range or precision, or when neither model is piecewise smooth.
    ArithmeticError
        When a cell cannot be certified (a degenerate load, a tangency).

    Examples
    --------
    >>> from symloss import JSQ, PowerOfD
    >>> r = piecewise_comparison(JSQ(2), PowerOfD(2, 2), rho_min=1, rho_max=3, dps=10)
    >>> r.count, r.pieces[0]["sign"]
    (0, -1)
    """
    t0 = time.perf_counter() if t0 is None else t0
    r_lo, r_hi = check_load_range(rho_min, rho_max)
    if isinstance(dps, bool) or not isinstance(dps, int) or not 5 <= dps <= 60:
        raise ValueError(f"dps must be an integer in [5, 60] on the piecewise path, got {dps!r}")
    prec = max(128, int(3.4 * dps) + 64) if prec is None else prec
    if isinstance(prec, bool) or not isinstance(prec, int) or not 64 <= prec <= 4096:
        raise ValueError(f"prec must be an integer in [64, 4096], got {prec!r}")
    if not isinstance(uniqueness_evidence, bool):
        raise TypeError(f"uniqueness_evidence must be True or False, got {uniqueness_evidence!r}")
    models = {"a": model_a, "b": model_b}
    if not any(is_piecewise_model(m) for m in models.values()):
        raise ValueError("piecewise_comparison needs at least one piecewise-smooth model (use certified_comparison)")
    S = _Search(model_a, model_b, dps, prec)
    cells = S.tile(r_lo, r_hi)
    zero, extra = find_zero_end(S, cells, models, r_lo, prec)
    cells = extra + cells
    _piece_changes(S, cells)
    points = {}
    for r, need in _point_needs(cells, {k: S.sides[k].kind for k in ("a", "b")}, q_str(r_lo)).items():
        points[r] = {k: (S.sides[k].point(parse_q(r))[0] if need[k] else None) for k in ("a", "b")}
    evidence = {k: u for k, m in models.items() if not is_piecewise_model(m) and (u := proved_uniqueness(m))}
    proved = tuple(evidence)
    if uniqueness_evidence:
        for k, m in models.items():
            if is_piecewise_model(m):
                st = {piecewise_fixed_point(m, r, _PT_DPS, uniqueness=True).extra["parts"]["uniqueness"]
                      for r in (r_lo, r_hi)}
                evidence[k] = ("EVIDENCE (regularised ODE from the extreme states at rho_min and rho_max)"
                               if st == {"EVIDENCE"} else "NOT UNIQUE (numerical)" if "NOT UNIQUE (numerical)" in st
                               else "NOT CHECKED")
    end = _infinity_end(S.sides, cells, models, r_hi)
    data = {"format": FORMAT_PIECEWISE, "symloss_version": _version(),
            "models": {k: {"repr": repr(m), "fingerprint": m.fingerprint(), "piecewise": is_piecewise_model(m)}
                       for k, m in models.items()},
            "range": [q_str(r_lo), q_str(r_hi)], "dps": dps, "prec": prec,
            "assumptions": _assumptions(models, end, zero, proved),
            "parts": _parts(model_a, model_b, evidence, end, zero),
            "cells": cells, "points": points, "infinity_end": end, "zero_end": zero}
    return _finish(data, model_a, model_b, S.sides, t0, "")


def _finish(data, model_a, model_b, sides, t0, suffix):
    psigns = {}
    for r, rec in data["points"].items():
        q = parse_q(r)
        if rec["a"] is None or rec["b"] is None:
            continue                              # both cells there are closed for a piecewise side
        Ba = sides["a"].check_point(rec["a"], q) if suffix else sides["a"].point(q)[1]
        Bb = sides["b"].check_point(rec["b"], q) if suffix else sides["b"].point(q)[1]
        with flint_prec(int(data["prec"])):
            s = _sgn(Ba - Bb)
        if s is None:
            raise (CertificateMismatch if suffix else ArithmeticError)(
                f"the sign of B_a - B_b at the cell end rho = {r} is not decided")
        psigns[r] = s
    zero = data.get("zero_end")
    summary = _summary(data["cells"], psigns, data["range"], data["infinity_end"], zero)
    if suffix:
        _need(summary == data["summary"], "the stored summary differs from the recomputed one")
    else:
        data["summary"] = summary
    crossings = [Crossing(c["rho"][0], c["rho"][1], c["sign_after"]) for c in summary["crossings"]]
    end = data["infinity_end"]
    lo, hi = data["range"]
    below = (f"(0, {zero['rho_join']}] by the end piece at rho -> 0" if zero is not None else
             f"below {lo}: NOT CERTIFIED")
    where = (f"[{lo}, {hi}] only (outside: NOT CERTIFIED)" if end is None and zero is None else
             f"[{lo}, {hi}], {below}, above {hi}: NOT CERTIFIED" if end is None else
             f"[{lo}, {hi}], and (rho_max, oo) by exact structure ({below})")
    method = ("piecewise: exact pieces (load as a symbol, Sturm counts) or parametric Krawczyk pieces for the "
              "piecewise-smooth model(s), Krawczyk tubes for a smooth one, on load cells of " + where + suffix)
    # the signs as rho -> 0 and rho -> oo are not certified on a bounded range: None (holds_everywhere is
    # then False); the signs at rho_min / rho_max are in the pieces and in certificate["summary"]
    extra = {}
    if "status" in {f.name for f in dataclasses.fields(CertifiedComparison)}:
        left = "(0" if zero is not None else f"[{lo}"
        right = "oo)" if end is not None else f"{hi}]"
        extra = {"status": "PROVED on (0, oo)" if (zero is not None and end is not None) else
                 f"PROVED on {left}, {right} only",
                 "reason": (
            ", ".join(x for x in (f"loads below {lo}" if zero is None else "",
                                  f"loads above {hi}" if end is None else "") if x) +
            (": NOT CERTIFIED; " if (zero is None or end is None) else "") + "uniqueness of the fixed points: model a "
            f"{data['parts']['uniqueness_a']}, model b {data['parts']['uniqueness_b']} (assumed where not PROVED, "
            "see the certificate's assumptions)")}
    return CertifiedComparison((repr(model_a), repr(model_b)), summary["pieces"], crossings, summary["count"],
                               summary["sign_at_zero"], summary["sign_at_oo"], summary["threshold"], method, data,
                               time.perf_counter() - t0, **extra)


def _point_needs(cells, kinds, rho_min=None) -> dict:
    """The cell ends and, for each side, whether a point certificate is stored there: always for a
    smooth model (its point boxes chain the tubes), for a piecewise model where a cell is open; both
    at the ends of the tiling and at ``rho_min`` (the caller's range, a cell end)."""
    needs = {}
    for i, c in enumerate(cells):
        for j, r in enumerate(c["rho"]):
            d = needs.setdefault(r, {k: kinds[k] == "smooth" for k in ("a", "b")})
            for k in ("a", "b"):
                if not c["closed"][k][j]:
                    d[k] = True
    if cells:
        for r in (cells[0]["rho"][0], cells[-1]["rho"][1], rho_min):    # the range ends: always both
            if r is not None and r in needs:
                needs[r] = {"a": True, "b": True}
    return needs


def _summary(cells, psigns, rng, end=None, zero=None) -> dict:
    """Pieces and crossings from the cells' signs and the end points' signs (sign 0: a tie)."""
    segs = []                                    # (lo, hi, sign) with crossings as lo == hi marks
    crossings = []
    for c in cells:
        lo, hi = c["rho"]
        s_lo, s_hi = psigns.get(lo, -c["sign"]), psigns.get(hi, c["sign"])
        if c["test"] == "crossing":
            if not (s_lo == -c["sign"] and s_hi == c["sign"]):
                raise CertificateMismatch(f"crossing cell {lo}..{hi}: the end signs do not change")
            crossings.append({"rho": list(c["refined"]["rho"]), "sign_after": c["sign"]})
            segs.append((lo, c["refined"]["rho"][0], -c["sign"]))
            segs.append((c["refined"]["rho"][1], hi, c["sign"]))
        else:
            segs.append((lo, hi, c["sign"]))
    pieces = []
    for lo, hi, s in segs:
        if pieces and pieces[-1]["sign"] == s and pieces[-1]["rho"][1] == lo:
            pieces[-1]["rho"][1] = hi
        else:
            if pieces and pieces[-1]["rho"][1] == lo and pieces[-1]["sign"] != s and s != 0 and \
                    pieces[-1]["sign"] != 0:
                # adjacent cells of opposite signs meet at a load whose own sign decides: a crossing there
                if psigns.get(lo) != 0:
                    raise CertificateMismatch(f"the sign of B_a - B_b jumps at rho = {lo} without a crossing")
                crossings.append({"rho": [lo, lo], "sign_after": s})
            pieces.append({"rho": [lo, hi], "sign": s})
    crossings.sort(key=lambda c: Fraction(c["rho"][0]))
    thr = None
    if end is not None:
        if pieces[-1]["sign"] != end["sign"] or psigns.get(rng[1], end["sign"]) != end["sign"]:
            raise CertificateMismatch("the large-load end's sign differs from the last piece's")
        pieces[-1]["rho"][1] = "oo"
        if end["sign"] == -1 and crossings and crossings[-1]["sign_after"] == -1:
            thr = {"rho": list(crossings[-1]["rho"])}
    if zero is not None:
        if pieces[0]["sign"] != zero["sign"] or psigns.get(cells[0]["rho"][0], zero["sign"]) != zero["sign"]:
            raise CertificateMismatch("the small-load end's sign differs from the first piece's")
        pieces[0]["rho"][0] = "0"
        if end is not None and not crossings and zero["sign"] == -1:
            thr = {"value": "0"}                 # a blocks less at every load
    return {"count": len(crossings), "crossings": crossings, "pieces": pieces, "range": list(rng),
            "sign_at_oo": None if end is None else end["sign"], "threshold": thr,
            "sign_at_zero": None if zero is None else zero["sign"],
            "sign_at_min": psigns[rng[0]] if psigns[rng[0]] != 0 else pieces[0]["sign"],
            "sign_at_max": psigns[rng[1]] if psigns[rng[1]] != 0 else pieces[-1]["sign"]}


# ==================================================================================================
# the re-check
# ==================================================================================================

def verify_piecewise_comparison(data, model_a, model_b, *, t0=None) -> CertifiedComparison:
    """Re-check a certificate of :func:`piecewise_comparison` from its data and the models' equations
    (no search): the fingerprints, every cell's pieces (exact algebra or the Krawczyk test on the stored
    box, the sign conditions), the smooth tubes, the point certificates at the cell ends, the signs of
    ``B_a - B_b``, every crossing bracket, the tiling, the parts and assumptions, and the summary.

    Parameters
    ----------
    data : dict
        The certificate.
    model_a, model_b : MeanFieldModel
        The models, in the same order.
    t0 : float, optional
        Start time for the reported duration.

    Returns
    -------
    CertifiedComparison

    Raises
    ------
    CertificateMismatch
        When anything fails its re-check.
    """
    t0 = time.perf_counter() if t0 is None else t0
    try:
        return _verify(data, model_a, model_b, t0)
    except CertificateMismatch:
        raise
    except _CellFail as exc:
        raise CertificateMismatch(f"piecewise certificate rejected: {exc}") from None
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, ArithmeticError, AttributeError,
            sp.SympifyError) as exc:
        raise CertificateMismatch(f"piecewise certificate rejected ({type(exc).__name__}: {exc})") from None


_KEYS = {"format", "symloss_version", "models", "range", "dps", "prec", "assumptions", "parts", "cells", "points",
         "infinity_end", "zero_end", "summary"}


def _verify(data, model_a, model_b, t0):
    _need(isinstance(data, dict) and data.get("format") == FORMAT_PIECEWISE, "not a piecewise comparison certificate")
    _need(set(data) in (_KEYS, _KEYS - {"zero_end"}), f"unknown or missing fields {sorted(set(data) ^ _KEYS)}")
    models = {"a": model_a, "b": model_b}
    for k, m in models.items():
        rec = data["models"][k]
        _need(rec["fingerprint"] == m.fingerprint(), f"the certificate was made from another definition of model {k}")
        _need(rec["piecewise"] == is_piecewise_model(m), f"model {k}: piecewise flag differs")
    _need(any(is_piecewise_model(m) for m in models.values()), "neither model is piecewise smooth")
    dps, prec = int(data["dps"]), int(data["prec"])
    _need(5 <= dps <= 60 and 64 <= prec <= 4096, "parameters out of range")
    r_lo, r_hi = parse_q(data["range"][0]), parse_q(data["range"][1])
    _need(0 < r_lo < r_hi, "bad range")
    sides = {"a": _side(model_a, prec), "b": _side(model_b, prec)}
    end = data["infinity_end"]
    if end is not None:
        _need(end == _infinity_end(sides, data["cells"], models, r_hi),
              "the large-load end does not follow from the last cell and the models' equations")
    zero = data.get("zero_end")
    parts = data["parts"]
    proved = []
    for k, m in models.items():
        u = parts[f"uniqueness_{k}"]
        if u.startswith("PROVED"):                # only the re-derived argument of a smooth model's accelerator
            _need(not is_piecewise_model(m) and u == proved_uniqueness(m),
                  f"model {k}: the stored uniqueness proof is not the one its definition gives")
            proved.append(k)
    _need(data["assumptions"] == _assumptions(models, end, zero, proved), "the stored assumptions differ")
    _need(parts.get("range") == "PROVED" and parts.get("below_rho_min") == (ZERO_LEMMA if zero is not None else
                                                                          "NOT CERTIFIED")
          and parts.get("above_rho_max") == (_END_LEMMA if end is not None else "NOT CERTIFIED") and set(parts) == {
              "range", "below_rho_min", "above_rho_max", "uniqueness_a", "uniqueness_b"}, "the stored parts differ")
    prev = r_lo if zero is None else parse_q(zero["rho_join"])
    _need(prev <= r_lo, "the small-load end joins above rho_min")
    for i, c in enumerate(data["cells"]):
        r0, r1 = parse_q(c["rho"][0]), parse_q(c["rho"][1])
        _need(r0 == prev and r1 > r0, f"cell {i} does not continue the tiling")
        prev = r1
        vals = {k: sides[k].check_cell(c[k], r0, r1) for k in ("a", "b")}
        _need(c["closed"] == {k: vals[k][4] for k in ("a", "b")}, f"cell {i}: the stored closed ends differ")
        with flint_prec(prec):
            for k in ("a", "b"):              # the point boxes of a smooth model lie in its tubes (one branch)
                if sides[k].kind == "smooth":
                    for r in (r0, r1):
                        vals[k][5](r, data["points"][q_str(r)][k])
            s = _cell_test(vals["a"], vals["b"])
            if c["test"] in ("interval", "tie"):
                _need(s == c["sign"] and (s == 0) == (c["test"] == "tie"),
                      f"cell {i}: the stored sign is not certified")
                continue
            _need(c["test"] == "crossing", f"cell {i}: unknown test")
            ea = [vals["a"][2](r, st) for r, st in zip((r0, r1), c["edges"]["a"])]
            eb = [vals["b"][2](r, st) for r, st in zip((r0, r1), c["edges"]["b"])]
            s0, s1 = _sgn(ea[0][1] - eb[0][1]), _sgn(ea[1][1] - eb[1][1])
            dD = vals["a"][1] - vals["b"][1]
            _need(s0 == -c["sign"] and s1 == c["sign"] and c["sign"] in (1, -1), f"cell {i}: no sign change")
            _need(_sgn(dD) in (1, -1), f"cell {i}: dD/drho is not of one sign")
            ref = c["refined"]
            lo, hi = r0, r1
            for key, want in (("lo", -c["sign"]), ("hi", c["sign"])):
                pr = ref[key]
                if pr is None:
                    continue
                q = parse_q(pr["rho"])
                _need(r0 < q < r1, f"cell {i}: refined point outside the cell")
                pa, pb = vals["a"][2](q, pr["a"]), vals["b"][2](q, pr["b"])
                _need(_sgn(pa[1] - pb[1]) == want, f"cell {i}: refined end point sign not certified")
                if key == "lo":
                    lo = q
                else:
                    hi = q
            rl, rh = Fraction(ref["rho"][0]), Fraction(ref["rho"][1])
            _need(rl <= lo < hi <= rh and rh - rl <= Fraction(1, 10 ** dps), f"cell {i}: crossing interval too wide")
    _need(prev == r_hi, "the cells do not reach rho_max")
    needs = _point_needs(data["cells"], {k: sides[k].kind for k in ("a", "b")}, data["range"][0])
    _need(data["range"][0] in needs, "rho_min is not a cell end")
    _need(set(data["points"]) == set(needs), "the point certificates are not those of the cell ends")
    for r, need in needs.items():
        for k in ("a", "b"):
            _need(set(data["points"][r]) == {"a", "b"} and (data["points"][r][k] is not None) == need[k],
                  f"the point certificate of model {k} at rho = {r} is missing or not expected")
    if zero is not None:
        verify_zero_end(zero, sides, data["cells"], models, data["points"], prec)
    return _finish(data, model_a, model_b, sides, t0, " (re-checked)")
