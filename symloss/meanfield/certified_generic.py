r"""The generic path of :func:`symloss.meanfield.certified.certified_comparison`: any two smooth
mean-field models (user definitions included), from their own stationary equations only.

Middle loads :math:`[\rho_{lo}, \rho_{hi}]`
--------------------------------------------
Cells of loads with dyadic end points (step control on the relative width: grown after a decided
cell, shrunk after an undecided one). On each cell, for each model, a certified tube around its fixed-point branch
(``symloss.meanfield.generic_search._split_tube``: the sloped parametric Krawczyk test of
:func:`symloss.core.certify.enclose_interval` with the load as an interval parameter, in
:math:`y = \log x`, evaluated on 8 or 32 sub-intervals of the cell, each with its own mean-value
residual and Jacobian hull: cells 4 to 16 times wider than one evaluation allows; where a component
of the tangent ``dy/d log rho`` exceeds 4, in the rescaled coordinates of
:mod:`~symloss.meanfield.generic_rescaled`, ``v = L y + b log rho`` with the rows of ``L`` the
log-ratios of the two largest terms of each row, so that the cell width no longer shrinks like
``d^-C``; the certificate stores ``L``, ``b`` and the row powers, the re-check rebuilds the rescaled
system from them), with an enclosure of
:math:`\log B` and, only when the cell's sign is not decided by it, of
:math:`d\log B/d\log\rho` (implicit differentiation in ball arithmetic, per sub-interval); at every cell end point a
Krawczyk point box (:func:`symloss.core.certify.point_box`) contained in the tubes of both adjacent
cells, which chains the tubes into one continuous branch per model. The sign of
:math:`D = \log B_a - \log B_b` on a cell is proved by disjoint enclosures, or by the mean-value
form from either end point; a cell with opposite end-point signs and a derivative enclosure of
:math:`D` that excludes 0 holds exactly one crossing, which is then bracketed by point boxes to
width :math:`10^{-\mathrm{dps}}`.

End pieces (compactification)
-----------------------------
With :math:`t = \rho` at the small-load end and :math:`t = 1/\rho` at the large-load end, the
numerators of the square stationary system, multiplied by the power of ``t`` that clears
:math:`\rho`, are polynomials :math:`F(x, t)`. When the limit state :math:`x_0` is rational,
:math:`F(x_0, 0) = 0` and :math:`F_x(x_0, 0)` is non-singular (checked exactly), the branch is
analytic at :math:`t = 0`: its Taylor polynomial :math:`S(t)` of order ``K`` is computed exactly
(rational chord iteration), and the remainder :math:`x = S(t) + t^{K+1} w` is certified by a Krawczyk
test on :math:`H(w, t) = F(S(t) + t^{K+1}w, t)/t^{K+1}` over :math:`t \in [0, t_{hi}]`
(:math:`H(0, t)` is the exact polynomial :math:`F(S(t), t)/t^{K+1}`, and
:math:`\partial_w H \in F_x(S(t) + t^{K+1}W, t)`). The blockings are then exact-coefficient Taylor
models (:class:`~symloss.meanfield.taylor.ExactTM`) and the first non-zero coefficient of
:math:`B_a - B_b` gives its sign on :math:`(0, t_{hi}]`. A point box at the junction load contained
both in the end tube and in the middle branch's point box there links the end branch to the middle
one (each box holds exactly one zero, so the three branches meet in one solution); containment in
the end tube's slice is decided in exact rational arithmetic (the slice is an exact box).

Valuations. A component whose limit is 0 may vanish to a high order (``u_k ~ rho^(2^k - 1)`` for the
hybrid of ``docs/models.md`` with ``d = 2``, ``rho^((3^k - 1)/2)`` for power-of-3), so that both blockings
vanish to an order beyond any series budget (``rho^124`` and ``rho^363`` at ``C = 5``). The search
guesses the valuations ``e_k`` from the float branch (in every row the two largest terms balance,
:mod:`symloss.meanfield.generic_ends`) and the end piece is built on the rescaled
system: :math:`x_k = t^{e_k} v_k`, each row divided by its least power of ``t`` (no term cancels: the
monomial map is injective), the exact limit :math:`v_0` by propagation in exact rationals
(in :mod:`symloss.meanfield.generic_ends`), all components of :math:`v_0` non-zero and the
rescaled Jacobian non-singular at :math:`(v_0, 0)` (checked exactly). The series, the remainder test and
the junction are those above, for ``v``; each blocking is :math:`t^{m_B}` times an exact Taylor model
(``scale`` :math:`m_B`), and the sign at the end is that of :math:`(B_a - B_b)/t^{\min m_B}`. The
certificate stores ``valuations``, the exact :math:`v_0` (``x0``) and the scales; the re-check
rebuilds the rescaled system from the model's equations and the stored valuations (no search). Without
a zero component, or when the rescaled point is not regular, the unscaled system is used.

The order ``K`` follows the pair: ``K_end, 2 K_end, ...`` until the exact Taylor polynomials of the
two blockings differ (two more terms are then taken), up to the budget ``K_end_max``
(:class:`SeriesBudgetError` names it; e.g. the blockings of ``hybrid(3, 2, 2)`` of ``docs/models.md``
and of ``PowerOfD(3, 3)`` start at orders 28 and 39). The Krawczyk test of the remainder uses one box
``W`` for all of ``[0, t_hi]`` but may test it on 1, 4 or 16 equal sub-intervals, each with its own
preconditioner; the sign of the leading term is likewise enclosed on up to 64 sub-intervals (the
counts are stored and re-checked). Junction loads are tried from the middle of the load axis
outwards (``rho = 1, 1/2, ...`` and ``2, 4, ...``): an end piece that holds further in replaces cells.

Touching blockings
------------------
Where the tiling stalls (a cell narrower than ``2^-22`` of its load undecided) and
:math:`|\log B_a - \log B_b| < 2^{-20}` there, the smallest interval after which the tiling resumes is
stored as an ``"evidence"`` cell with the reason and no sign: the comparison returns with
``status = "EVIDENCE"``, the interval in ``evidence`` (with the certified signs on either side), an
``EVIDENCE`` piece and, when it is the last one, an ``EVIDENCE`` threshold; every other piece is PROVED
and re-checked, the evidence cell is reported as such by the re-check. (Multiplicities are not
certified.) Elsewhere an undecided cell raises ``ArithmeticError`` with the value of ``D`` there.

Uniqueness
----------
The comparison is of the fixed-point branches enclosed (continuous on :math:`(0, \infty)`). For a
model whose state space has at most ``symloss.core.certify.UNIQUENESS_MAX_DIM`` free
coordinates, the number of fixed points on the state space is decided at every dyadic load of the
tiling by exclusion in interval arithmetic (:func:`symloss.core.certify.fixed_point_uniqueness`;
the records are stored and re-checked by :func:`verify_generic`): a model with more than one fixed
point at one of these loads is refused (:class:`~symloss.core.certify.NonUniqueFixedPointError`, a
``ValueError``). Between these loads, and for larger state spaces, uniqueness remains an assumption,
recorded in the certificate (the fast path proves uniqueness for the shipped policies).

Size: the search of the generic path and its re-check (:func:`verify_generic`) are kept in one module
so that both read the same tiling, summary and EVIDENCE rule (a tangency stays EVIDENCE in both); the
cells and the ends are in ``generic_search`` and ``generic_ends``.
"""
from __future__ import annotations

import math
import time
from fractions import Fraction

import mpmath
from flint import arb

from ..core.certify import (
    UNIQUENESS_MAX_DIM,
    NonUniqueFixedPointError,
    StateSpace,
    check_selection,
    fixed_point_uniqueness,
    parse_exact,
    verify_box,
    verify_uniqueness,
)
from ..core.precision import PrecisionError, flint_prec
from .comparison_types import CertificateMismatch, CertifiedComparison, Crossing, _need, _version
from .enclosures import ball_str, parse_ball, parse_q, q_arb, q_str
from .generic_ends import (
    _K_END_CAP,
    _PREC,
    SeriesBudgetError,
    _end_slice,
    _EndModel,
    _in_end_slice,
    _ipow,
    _pieces,
    _scaled_range,
    _blocking_difference_tm,
    end_branch,
)
from .generic_search import _Generic, _parse_box, _point_record, _verify_split_tube

__all__ = ["FORMAT_GENERIC", "SeriesBudgetError", "end_branch", "generic_comparison", "verify_generic"]

FORMAT_GENERIC = "symloss.comparison/generic/1"
_MAX_DEPTH = 22
#: The largest number of state variables per model the generic path accepts. The middle cells are
#: rescaled (:mod:`~symloss.meanfield.generic_rescaled`), so their width no longer shrinks like d^-C;
#: the exact end series at rho -> 0 grow with the valuations (up to (3^C - 1) / 2 for power-of-3: the
#: rescaled limit state's rationals have ~10^5 digits at C = 12). Measured: hybrid(12, 2, 2) against
#: PowerOfD(12, 3) 42 s, against RetrialOfD(12, 4) (13 variables: the orbit) 36 s, hybrid(13, 2, 2)
#: against PowerOfD(13, 3) 172 s; at C = 20 the exact limit state would have ~10^9 digits.
_MAX_VARIABLES = 13
#: Default budget of exact series terms at each end (``K_end_max``; the largest one a certificate may
#: use is ``generic_ends._K_END_CAP``).
_K_END_MAX = 48

# the split of this module (issue 22): the end pieces are in .generic_ends, the search in .generic_search;
# these names stay importable from here
_REEXPORTED = (_end_slice, _ipow, _Generic)

_ASSUMPTION = ("each model's stationary fixed point is unique: the comparison is of the fixed-point branches "
               "enclosed here (continuous on (0, oo)); not certified by the generic path")



# ==================================================================================================
# the search
# ==================================================================================================

def _model_record(m) -> dict:
    return {"repr": repr(m), "class": type(m).__name__, "variables": [str(v) for v in m.variables],
            "fingerprint": m.fingerprint()}


def _uniqueness_at_loads(model, loads, records: dict, label: str) -> None:
    """Decide the number of fixed points of ``model`` at each load (exact Fractions) not yet in
    ``records`` (``q_str(rho) -> record``); raise :class:`NonUniqueFixedPointError` naming the model,
    the load and the fixed points when there are several."""
    for rho in loads:
        key = q_str(rho)
        if key in records:
            continue
        rec = fixed_point_uniqueness(model, rho)
        if rec["status"] == "NOT UNIQUE":
            pts = "; ".join("x = [" + ", ".join(mpmath.nstr(mpmath.mpf(v), 10) for v in r["x"]) + "]"
                            for r in rec["regions"])
            raise NonUniqueFixedPointError(
                f"model {label} ({model!r}) has {'at least ' if not rec['complete'] else ''}{rec['n_found']} fixed "
                f"points on its state space ({rec['state_space']}) at rho = {key} ({pts}; each certified by a "
                "Krawczyk test): its blocking is not a function of the load, a certified comparison of the "
                "two models is not defined")
        records[key] = rec


def _uniqueness_assumption(models, uniq) -> list:
    out = []
    for key, m in models.items():
        rec = uniq.get(key)
        if rec is None:
            out.append(f"model {key}: the fixed point is assumed unique at every load (state space of dimension "
                       f"{StateSpace(m).dim} > {UNIQUENESS_MAX_DIM}: not checked)")
            continue
        proved = sorted((r for r, v in rec.items() if v["status"] == "PROVED"), key=parse_q)
        open_ = sorted((r for r, v in rec.items() if v["status"] != "PROVED"), key=parse_q)
        txt = (f"model {key}: exactly one fixed point on the state space PROVED at the {len(proved)} loads "
               f"{', '.join(proved)} (exclusion in interval arithmetic, records in 'uniqueness'); assumed unique "
               "between them and beyond them")
        if open_:
            txt += f"; undecided at {', '.join(open_)}"
        out.append(txt)
    return out


def _check_generic_model(m):
    comp = m.compiled
    comp.require_smooth()
    if comp.mode != "terms":
        raise ValueError(f"{m!r}: the generic certified comparison needs Laurent-polynomial rates (terms form)")


def generic_comparison(model_a, model_b, *, dps: int = 30, prec: int = _PREC, K_end: int = 12,
                       K_end_max: int = _K_END_MAX, rho_range=(Fraction(1, 8), None), t0=None):
    """The generic path (module docstring).

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        Smooth models with Laurent-polynomial rates (terms form) and polynomial blockings.
    dps : int
        Width of each crossing interval: at most ``10^-dps``.
    prec : int
        Working precision in bits of the cell tests.
    K_end : int
        Smallest order of the exact series at each end.
    K_end_max : int
        Series budget at each end: the order is raised (``K_end, 2 K_end, ...``) until the two
        blockings' exact series differ, up to ``K_end_max`` terms (at most 64).
    rho_range : (Fraction, Fraction or None)
        First junction loads of the end pieces (moved outwards when an end piece fails).
    t0 : float, optional
        ``time.perf_counter()`` at the start of the whole computation (the caller's, when it did
        work first); the result's ``seconds`` is measured from it. Default: now.

    Returns
    -------
    CertifiedComparison

    Raises
    ------
    ValueError
        When ``K_end`` or ``K_end_max`` is out of range, a model is not smooth or has several fixed
        points at a load of the tiling.
    SeriesBudgetError
        (an ``ArithmeticError``) When the two blockings agree to order ``K_end_max`` at an end.
    ArithmeticError
        When an end piece or a cell cannot be certified.
    """
    t0 = time.perf_counter() if t0 is None else t0
    for name, v in (("K_end", K_end), ("K_end_max", K_end_max)):
        if isinstance(v, bool) or not isinstance(v, int) or not 2 <= v <= _K_END_CAP:
            raise ValueError(f"{name} must be an integer in [2, {_K_END_CAP}], got {v!r}")
    if K_end_max < K_end:
        raise ValueError(f"K_end_max must be >= K_end = {K_end}, got {K_end_max!r}")
    for m in (model_a, model_b):
        _check_generic_model(m)
    for name, m in (("model_a", model_a), ("model_b", model_b)):
        if len(m.variables) > _MAX_VARIABLES:
            raise ValueError(f"{name} = {m!r} has {len(m.variables)} state variables; the generic certified "
                             f"comparison handles 1 to {_MAX_VARIABLES} per model")
    g = _Generic(model_a, model_b, dps, prec)
    C = max(int(getattr(model_a, "C", 1) or 1), int(getattr(model_b, "C", 1) or 1))
    default_range = Fraction(rho_range[0]) == Fraction(1, 8) and rho_range[1] is None
    rho_lo = Fraction(rho_range[0])
    rho_hi = Fraction(rho_range[1]) if rho_range[1] is not None else Fraction(2) ** ((4 * C).bit_length())
    # uniqueness at the dyadic loads of the tiling, before the search (a model with several fixed
    # points is refused here, not by a misleading failure of the search)
    uniq = {key: {} for key, m in g.models.items() if StateSpace(m).dim <= UNIQUENESS_MAX_DIM}

    def dyadic(lo, hi):
        out = [lo]
        while out[-1] < hi:
            out.append(min(out[-1] * 2, hi))
        return out
    for key in uniq:
        _uniqueness_at_loads(g.models[key], dyadic(rho_lo, rho_hi), uniq[key], key)

    def end_piece(end, candidates):
        errs = []
        for rho_j in candidates:
            try:
                return g.end(end, rho_j, K_end, K_end_max, rho_guess=rho_lo if end == "zero" else rho_hi), rho_j
            except SeriesBudgetError:
                raise                                   # moving the junction does not change the series
            except (ValueError, ArithmeticError, PrecisionError) as exc:
                errs.append((str(exc), rho_j))
        msgs = list(dict.fromkeys(e for e, _r in errs))
        where = "0" if end == "zero" else "oo"
        loads = ", ".join(q_str(r) for _e, r in errs)
        raise ArithmeticError(f"generic end piece at rho -> {where} not certified at any of the junction loads "
                              f"{loads} (with K_end = {K_end} exact series terms beyond the blockings' leading power; "
                              f"a larger K_end, at most {_K_END_CAP}, certifies a longer end piece): " + "; ".join(msgs))
    # junction loads: from the middle of the load axis outwards (an end piece that holds further in
    # saves the cells between; one that fails costs one remainder test)
    inner = max(Fraction(1), rho_lo) if default_range else rho_lo
    zero_c = [inner / 2 ** k for k in range(64) if inner / 2 ** k >= rho_lo / 2 ** 7]
    zero, rho_j0 = end_piece("zero", zero_c)
    start_hi = max(2 * rho_j0, Fraction(2)) if default_range else rho_hi
    inf_c = [start_hi * 2 ** k for k in range(0, 64) if start_hi * 2 ** k <= rho_hi * 2 ** 7]
    inf, rho_j1 = end_piece("infinity", inf_c)
    rho_lo, rho_hi = rho_j0, rho_j1
    edges = dyadic(rho_lo, rho_hi)
    for key in uniq:
        _uniqueness_at_loads(g.models[key], edges, uniq[key], key)
    cells = _tile(g, rho_lo, rho_hi)
    pts = {}
    for c in cells:
        for r in c["rho"]:
            if r not in pts:
                pts[r] = _point_record(g.point(parse_q(r)), prec)
        if c["test"] == "crossing":
            c["refined"] = g.refine(parse_q(c["rho"][0]), parse_q(c["rho"][1]), c["sign"])
    data = {"format": FORMAT_GENERIC, "symloss_version": _version(),
            "models": {"a": _model_record(model_a), "b": _model_record(model_b)}, "dps": dps, "prec": prec,
            "assumptions": _uniqueness_assumption(g.models, uniq),
            "uniqueness": {key: {r: {k: v for k, v in rec.items()} for r, rec in uniq[key].items()} for key in uniq},
            "zero_end": zero[0], "infinity_end": inf[0], "points": pts, "cells": cells}
    data["summary"] = _summary(data)
    method = ("generic: parametric Krawczyk tubes with derivative enclosures on dyadic load cells, point boxes "
              "chaining the tubes, exact series with Krawczyk remainders at both compactified ends")
    return _result(model_a, model_b, data["summary"], method, data, time.perf_counter() - t0)


def _dyadic_below(x: Fraction, bits: int) -> Fraction:
    """``x`` rounded down to a dyadic rational with ``bits`` bits below the leading one."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    scale = Fraction(2) ** (bits - e)
    return Fraction(math.floor(x * scale)) / scale


def _why(g, rho: Fraction) -> str:
    """The reason a cell at ``rho`` stays undecided, for the error message: the certified value of
    ``D = log B_a - log B_b`` there (a value near 0 next to undecidable cells: the two blockings touch
    or nearly touch, a tangential crossing that this path does not certify)."""
    try:
        D = g.point(rho)["D"]
    except (PrecisionError, ValueError, ArithmeticError, ZeroDivisionError):
        return ""
    txt = f" (D = log B_a - log B_b = {ball_str(D, 8)} at rho = {float(rho)}"
    if abs(D) < arb(2) ** -20:
        txt += ("; the blockings touch or nearly touch here: a tangential crossing (or two crossings "
                "closer than the cells can separate) is not certified by the generic path, the sign "
                "of B_a - B_b near this load is EVIDENCE only")
    return txt + ")"


def _tile(g, rho_lo: Fraction, rho_hi: Fraction) -> list:
    """Cells tiling ``[rho_lo, rho_hi]``, each decided by :meth:`_Generic.test_cell`: step control
    on the relative width (grown by 5/4 after a decided cell, times 3/5 after an undecided one), end
    points dyadic rationals. When a cell narrower than ``2^-_MAX_DEPTH`` of its load stays undecided
    where the two blockings (nearly) touch, the smallest interval after which the tiling resumes
    becomes an ``"evidence"`` cell (:func:`_evidence_cell`); elsewhere raises ``ArithmeticError``."""
    cells = []
    x0 = rho_lo
    w = Fraction(1, 8)
    while x0 < rho_hi:
        x1 = min(_dyadic_below(x0 * (1 + w), 8 + max(0, -math.floor(math.log2(w)))), rho_hi)
        if x1 * 4 >= rho_hi * 3 and x1 < rho_hi:      # no sliver at the end
            x1 = rho_hi if rho_hi <= x0 * (1 + 2 * w) else x1
        if not x0 < x1:
            x1 = rho_hi
        try:
            cell = g.test_cell(x0, x1)
        except (PrecisionError, ValueError, ZeroDivisionError):
            cell = None
        if cell is None:
            if w < Fraction(1, 2 ** _MAX_DEPTH):
                why = _why(g, x0)
                ev = _evidence_cell(g, x0, rho_hi, why) if "touch" in why else None
                if ev is None:
                    raise ArithmeticError(f"generic cell rho in [{float(x0)}, {float(x1)}] undecided" + why)
                cells.extend(ev)
                x0 = parse_q(ev[-1]["rho"][1])
                w = Fraction(1, 2 ** 12)
                continue
            w *= Fraction(3, 5)
            continue
        cells.append(cell)
        x0 = x1
        w = min(w * Fraction(5, 4), Fraction(1))
    return cells


def _evidence_cell(g, x0: Fraction, rho_hi: Fraction, why: str):
    """Where the tiling stalls at ``x0`` (the blockings touch or nearly touch there): the smallest
    ``x1 = x0 (1 + 2^-k)`` (``k = 24, 22, ..., 2``) from which a cell ``[x1, x1 (1 + 2^-j)]`` is
    decided; returns ``[evidence cell [x0, x1], that cell]`` or ``None``. The evidence cell carries
    the reason and no sign: ``B_a - B_b`` is not certified on it."""
    for k in range(24, 1, -2):
        x1 = min(_dyadic_below(x0 * (1 + Fraction(1, 2 ** k)), k + 8), rho_hi)
        if not x0 < x1:
            continue
        for j in (16, 12, 8):
            x2 = min(_dyadic_below(x1 * (1 + Fraction(1, 2 ** j)), j + 8), rho_hi)
            if not x1 < x2:
                x2 = rho_hi
            if x1 == rho_hi:
                break
            try:
                nxt = g.test_cell(x1, x2)
            except (PrecisionError, ValueError, ZeroDivisionError):
                nxt = None
            if nxt is not None and nxt["test"] != "crossing":
                reason = ("not certified: the two blockings touch or nearly touch here (a tangential crossing, "
                          "a touching point or several crossings closer than the cells of the generic path can "
                          "separate); the sign of B_a - B_b on this interval and the number of crossings in it are "
                          "EVIDENCE only: " + why.split("; the blockings touch")[0].lstrip(" ("))
                return [{"rho": [q_str(x0), q_str(x1)], "test": "evidence", "status": "EVIDENCE", "reason": reason},
                        nxt]
    return None


def _summary(data) -> dict:
    sign = data["zero_end"]["D"]["sign"]
    s0 = sign
    crossings, evidence = [], []
    for c in data["cells"]:
        if c["test"] == "evidence":
            evidence.append({"rho": list(c["rho"]), "status": "EVIDENCE", "reason": c["reason"],
                             "sign_before": sign, "sign_after": None})
            sign = None
            continue
        if evidence and evidence[-1]["sign_after"] is None:
            evidence[-1]["sign_after"] = c["sign"]
            sign = c["sign"]
        if c["test"] == "crossing":
            crossings.append({"rho": list(c["refined"]["rho"]), "sign_after": c["sign"]})
            sign = c["sign"]
        elif c["sign"] != sign:
            raise CertificateMismatch("adjacent pieces of opposite signs without a crossing between them")
    if sign is None:
        raise CertificateMismatch("an evidence interval ends the tiling")
    if data["infinity_end"]["D"]["sign"] != sign:
        raise CertificateMismatch("the large-load sign differs from the last cell's")
    pieces = []
    lo, s = "0", s0
    marks = sorted([(Fraction(c["rho"][0]), "c", c) for c in crossings]
                   + [(Fraction(e["rho"][0]), "e", e) for e in evidence], key=lambda t: t[0])
    for _x, kind, c in marks:
        pieces.append({"rho": [lo, c["rho"][0]], "sign": s})
        if kind == "e":
            pieces.append({"rho": list(c["rho"]), "sign": None, "status": "EVIDENCE"})
        lo, s = c["rho"][1], c["sign_after"]
    pieces.append({"rho": [lo, "oo"], "sign": s})
    thr = None
    if sign == -1:
        last = marks[-1] if marks else None
        if last is None:
            thr = {"value": "0"}
        elif last[1] == "c":
            thr = {"rho": list(last[2]["rho"])}
        else:
            thr = {"rho": list(last[2]["rho"]), "status": "EVIDENCE"}
    out = {"count": len(crossings), "crossings": crossings, "pieces": pieces, "sign_at_0": s0, "sign_at_oo": sign,
           "threshold": thr}
    if evidence:
        out["evidence"] = evidence
    return out


def _result(model_a, model_b, s, method, data, seconds):
    crossings = [Crossing(c["rho"][0], c["rho"][1], c["sign_after"]) for c in s["crossings"]]
    ev = s.get("evidence", [])
    status = "EVIDENCE" if ev else "PROVED"
    reason = "; ".join(f"rho in [{e['rho'][0]}, {e['rho'][1]}]: {e['reason']}" for e in ev)
    if ev:
        method += (f"; {len(ev)} load interval(s) not certified (EVIDENCE), the rest PROVED")
    return CertifiedComparison((repr(model_a), repr(model_b)), s["pieces"], crossings, s["count"], s["sign_at_0"],
                               s["sign_at_oo"], s["threshold"], method, data, seconds, status, reason, ev)


# ==================================================================================================
# re-check
# ==================================================================================================

def verify_generic(data, model_a, model_b, *, t0=None):
    """Re-check a certificate of :func:`generic_comparison` (called by
    :func:`symloss.meanfield.certified.verify_comparison` for the generic format): the models'
    fingerprints, the uniqueness records, both end pieces (exact series recomputed, remainder boxes
    re-tested, the sign of the leading term re-enclosed, the junction boxes re-certified and their
    containment decided exactly), every cell and crossing bracket, the tiling and the summary.

    Parameters
    ----------
    data : dict
        The certificate (JSON data).
    model_a, model_b : MeanFieldModel
        The models it claims to compare, in the same order.
    t0 : float, optional
        Start time (``time.perf_counter``) for the reported duration.

    Returns
    -------
    CertifiedComparison
        The comparison rebuilt from the re-checked cells and crossings of the generic certificate.

    Raises
    ------
    CertificateMismatch
        (a ``ValueError``) When any stored number, record or field fails its re-check.
    """
    t0 = time.perf_counter() if t0 is None else t0
    try:
        return _verify_generic(data, model_a, model_b, t0, CertifiedComparison, Crossing)
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, ArithmeticError, PrecisionError) as exc:
        if isinstance(exc, CertificateMismatch):
            raise
        raise CertificateMismatch(f"generic certificate rejected ({type(exc).__name__}: {exc})") from None


def _verify_generic(data, model_a, model_b, t0, CertifiedComparison, Crossing):
    models = {"a": model_a, "b": model_b}
    for key, m in models.items():
        rec = data["models"][key]
        _need(rec["fingerprint"] == m.fingerprint(),
              f"the certificate was made from another definition of model {key} ({rec['repr']})")
        _check_generic_model(m)
    dps, prec = int(data["dps"]), int(data["prec"])
    _need(5 <= dps <= 10000 and 64 <= prec <= 1 << 14, "parameters out of range")
    for key, recs in data.get("uniqueness", {}).items():
        m = models[key]
        for rho_s, rec in recs.items():
            _need(rec["rho"] == [str(parse_q(rho_s))] * 2, f"uniqueness record of model {key} at {rho_s}: load differs")
            status = verify_uniqueness(m, rec)
            _need(status != "NOT UNIQUE", f"model {key} has several fixed points at rho = {rho_s}")
    _need(data.get("assumptions") == _uniqueness_assumption(models, data.get("uniqueness", {})),
          "the stored uniqueness assumptions differ from the re-checked records")
    pts = data["points"]

    def check_point(rho_s, prec_p=None):
        rec = pts[rho_s] if prec_p is None else prec_p
        out = {}
        for key, m in models.items():
            r = rec[key]
            box = _parse_box(r)
            p = prec if prec_p is None else int(prec_p["prec"])
            verify_box(m, box, check_selection(m, r["sel"]), parse_q(rho_s), prec=p)
            with flint_prec(p):
                LB = m.compiled.log_blocking_arb(box, q_arb(parse_q(rho_s)).log())
            out[key] = (box, parse_ball(r["LB"]))
            _need(out[key][1].contains(LB), f"stored log-blocking at rho = {rho_s} does not enclose the recomputed one")
        with flint_prec(prec if prec_p is None else int(prec_p["prec"])):
            return out, out["a"][1] - out["b"][1]

    checked = {}
    # ends
    for name, end in (("zero_end", "zero"), ("infinity_end", "infinity")):
        rec = data[name]
        _need(rec["end"] == end, "end piece label differs")
        K = int(rec["K"])
        t_hi = parse_q(rec["t_hi"])
        rho_j = parse_q(rec["rho_join"])
        _need(t_hi == (rho_j if end == "zero" else 1 / rho_j) and 2 <= K <= _K_END_CAP,
              "end piece parameters differ")
        Bs = {}
        for key, m in models.items():
            mr = rec["models"][key]
            x0 = [parse_q(v) for v in mr["x0"]]
            e = mr.get("valuations", [0] * len(x0))
            _need(isinstance(e, list) and len(e) == len(x0) and all(
                isinstance(v, int) and not isinstance(v, bool) and 0 <= v for v in e),
                f"valuations of model {key} at {end}: not a list of {len(x0)} integers >= 0")
            # the stored exact limit of the rescaled state and the stored valuations: the rescaled
            # system (recomputed from the model's equations) vanishes there exactly, with a non-singular
            # Jacobian (checked by the constructor), so the branch x = t^e v(t) is analytic in v
            em = _EndModel(m, end, None, e=e, x0_exact=x0)
            _need([q_str(Fraction(int(v.p), int(v.q))) for v in em.x0] == mr["x0"], "limit state differs")
            _need(em.scale == mr.get("scale", 0), f"blocking scale of model {key} at {end} differs")
            xs = em.series(K)
            _need([[q_str(Fraction(int(c.p), int(c.q))) for c in s.coeffs()] for s in xs] == mr["series"],
                  f"stored exact series of model {key} at {end} differs from the recomputed one")
            W = [parse_ball(w) for w in mr["W"]]
            with flint_prec(prec):
                em.remainder(xs, K, t_hi, W=W, pieces=_pieces(mr.get("pieces", 1)))
                B, _c = em.blocking_tm(xs, W, K, t_hi)
            Bs[key] = (B, xs, W, em.scale)
            # link
            lk = rec["link"][key]
            box = _parse_box(lk)
            verify_box(m, box, check_selection(m, lk["sel"]), rho_j, prec=int(lk["prec"]))
            with flint_prec(int(lk["prec"])):
                _need(_in_end_slice(xs, W, K, t_hi, [b.exp() for b in box], e),
                      "junction point box is not inside the end tube")
            # the junction box lies in the middle branch's point box at the junction load (same branch)
            mid = _parse_box(pts[rec["rho_join"]][key])
            _need(all(mb.contains(b) for mb, b in zip(mid, box)),
                  "junction point box is not inside the middle branch's box at the junction load")
        with flint_prec(prec):
            D, scale = _blocking_difference_tm(Bs["a"][0], Bs["a"][3], Bs["b"][0], Bs["b"][3])
            _need(scale == rec["D"].get("scale", 0), "stored leading power of the blocking difference differs")
            _need([q_str(Fraction(int(c.p), int(c.q))) for c in D.c] == rec["D"]["coefficients"],
                  "stored coefficients of the blocking difference differ")
            m_, _cm = D.leading()
            _need(m_ == int(rec["D"]["m"]), "leading order differs")
            sr = _scaled_range(D, m_, t_hi, _pieces(rec["D"].get("pieces", 1)))
            sb = parse_ball(rec["D"]["scaled"])
            _need(sb.contains(sr), "stored scaled range does not enclose the recomputed one")
            s = rec["D"]["sign"]
            _need((sb > 0 and s == 1) or (sb < 0 and s == -1), "end sign not certified")
    # tiling
    prev = parse_q(data["zero_end"]["rho_join"])
    for i, c in enumerate(data["cells"]):
        r0, r1 = parse_q(c["rho"][0]), parse_q(c["rho"][1])
        _need(r0 == prev and r1 > r0, f"cell {i} does not continue the tiling")
        prev = r1
        for r in c["rho"]:
            if r not in checked:
                checked[r] = check_point(r)
        if c["test"] == "evidence":                 # not certified: reported as EVIDENCE, nothing to prove
            _need(c.get("status") == "EVIDENCE" and "sign" not in c and "EVIDENCE" in c.get("reason", ""),
                  f"cell {i}: an uncertified cell must be labelled EVIDENCE, without a sign")
            continue
        (P0, D0), (P1, D1) = checked[c["rho"][0]], checked[c["rho"][1]]
        tubes = {}
        with flint_prec(prec):
            for key, m in models.items():
                tr = c["tubes"][key]
                cen = [parse_exact(v) for v in tr["center"]]
                slo = [parse_exact(v) for v in tr["slope"]]
                dl = [parse_exact(v) for v in tr["delta"]]
                sel = check_selection(m, tr["sel"])
                tube = _verify_split_tube(m, cen, slo, dl, sel, r0, r1, tr["splits"], prec=prec,
                                          rescale=tr.get("rescale"))
                for rr, P in ((r0, P0), (r1, P1)):
                    _need(tube.contains(rr, P[key][0]), f"cell {i}: point box not inside the tube")
                _need(parse_ball(tr["LB"]).contains(tube.log_blocking),
                      f"cell {i}: stored log-blocking enclosure does not enclose the recomputed one")
                dLB = None
                if c["test"] != "interval":                 # the derivative is used by the other tests only
                    _need(parse_ball(tr["dLB"]).contains(tube.derivative()),
                          f"cell {i}: stored derivative enclosure does not enclose the recomputed one")
                    dLB = parse_ball(tr["dLB"])
                tubes[key] = (parse_ball(tr["LB"]), dLB)
            test, s = c["test"], c["sign"]
            _need(s in (1, -1), f"cell {i}: bad sign")
            L = q_arb(r1).log() - q_arb(r0).log()
            dD = tubes["a"][1] - tubes["b"][1] if test != "interval" else None
            if test == "interval":
                v = tubes["a"][0] - tubes["b"][0]
            elif test == "mean":
                v = D0 + dD * arb(0).union(L) if c["side"] == "left" else D1 - dD * arb(0).union(L)
            elif test == "crossing":
                _need((D0 < 0 if s == 1 else D0 > 0) and (D1 > 0 if s == 1 else D1 < 0), f"cell {i}: no sign change")
                _need(dD > 0 or dD < 0, f"cell {i}: derivative not of one sign")
                ref = c["refined"]
                lo, hi = parse_q(ref["lo"]["rho"]), parse_q(ref["hi"]["rho"])
                _need(r0 <= lo < hi <= r1, f"cell {i}: refined bracket outside the cell")
                for key2, want in (("lo", -s), ("hi", s)):
                    pr = ref[key2]
                    rs = pr["rho"]
                    rec_p = dict(pr["points"], prec=pr["prec"])
                    _out, Dv = check_point(rs, rec_p)
                    _need((Dv > 0 if want == 1 else Dv < 0), f"cell {i}: refined end point sign not certified")
                rl, rh = Fraction(ref["rho"][0]), Fraction(ref["rho"][1])
                _need(rl <= lo and hi <= rh and rh - rl <= Fraction(1, 10 ** dps), f"cell {i}: crossing interval too wide")
                continue
            else:
                raise CertificateMismatch(f"cell {i}: unknown test {test!r}")
            _need((v > 0) if s == 1 else (v < 0), f"cell {i}: the stored enclosures do not give the stored sign")
    _need(prev == parse_q(data["infinity_end"]["rho_join"]), "the cells do not reach the large-load end piece")
    summary = _summary(data)
    _need(summary == data["summary"], "stored summary differs from the recomputed one")
    return _result(model_a, model_b, summary, "generic (re-checked)", data, time.perf_counter() - t0)

