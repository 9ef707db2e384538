r"""The small-load end of a certified piecewise comparison (:mod:`symloss.meanfield.compare_piecewise`):
the sign of :math:`B_a - B_b` on :math:`(0, \rho_j]`, proved where one model is piecewise smooth with a
blocking that vanishes exactly at small loads (JSQ, join-the-idle-queue: every arrival finds an idle
server) and the other is smooth.

Lemma. Let the first cell of the piecewise model ``p`` be an *exact* piece (linear, solved with the load
as a symbol) whose blocking is the zero rational function and whose conditions hold on the whole
open interval :math:`(0, \rho_j)` (Sturm counts, as in :mod:`symloss.meanfield.compare_piecewise_sides`),
and let the smooth model ``s`` have the certified end branch of :func:`symloss.meanfield.generic_ends.end_branch`
on :math:`t = \rho \in [0, \rho_j]` (the exact series of its state rescaled by its valuations,
:math:`x_k = t^{e_k} v_k`, and a Krawczyk remainder box: for every such load the slice holds exactly one
zero of the stationary equations) with a blocking :math:`t^{m_B} T(t)` whose Taylor model ``T``, divided
by the power of its leading term, is enclosed **positive** on :math:`(0, \rho_j]`. If the smooth model's
point certificate at :math:`\rho_j` (the one the first tube contains) lies in the end slice there (decided
in exact rational arithmetic), the end branch is the tube's branch, and for every load in
:math:`(0, \rho_j]` the piecewise model blocks 0 < :math:`B_s`: the sign of :math:`B_a - B_b` is ``-1``
when ``a`` is the piecewise model, ``+1`` otherwise.

The join load is the first of :math:`\rho_{min}, \rho_{min}/2, \ldots, \rho_{min}/2^8` at which the
lemma applies (the first piece may begin below :math:`\rho_{min}`, and the remainder of the series
needs a small enough load); the comparison then tiles :math:`[\rho_j, \rho_{min}]` too. The re-check
(:func:`verify_zero_end`) rebuilds the piece, the series and the remainder test from the models'
equations and the stored data (no search).
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from ..core.precision import flint_prec
from .ball_text import stored_sign
from .comparison_types import CertificateMismatch, _need
from .compare_piecewise_sides import _CellFail
from .enclosures import parse_ball, parse_q, q_str
from .generic_ends import _EndModel, _end_model, _in_end_slice, _pieces, _scaled_range, end_branch

__all__ = ["find_zero_end", "verify_zero_end", "ZERO_LEMMA"]

#: the join loads tried: rho_min / 2^j for j = 0 .. _JOIN_HALVINGS
_JOIN_HALVINGS = 8
#: the series orders tried (raised to the blocking's leading order + 2)
_K_TRY = (8, 16, 32)
#: sub-intervals of (0, rho_j] for the enclosure of the scaled blocking
_PIECES_TRY = (1, 4, 16, 64)

ZERO_LEMMA = ("PROVED by the end piece at rho -> 0: below rho_join the piecewise model's exact piece holds (Sturm "
              "counts on (0, rho_join)) with blocking identically 0, and the smooth model's end branch (exact "
              "series in its valuations, Krawczyk remainder box, joined to its point certificate at rho_join) "
              "has a blocking enclosed positive there")


def _candidate(sides, cell, models):
    """``(p, q, exact piece)`` when side ``p`` of ``cell`` is an exact piece with blocking 0 and side
    ``q`` is smooth with Laurent-polynomial rates (the generic end machinery applies), else None."""
    from .certified_generic import _check_generic_model
    for p, q in (("a", "b"), ("b", "a")):
        if sides[p].kind != "piecewise" or sides[q].kind != "smooth" or cell[p]["kind"] != "exact":
            continue
        _pc, ex = sides[p].piece(cell[p]["spec"], parse_q(cell[p]["rho_build"]))
        if ex is None or sp.cancel(ex.B) != 0:
            continue
        try:
            _check_generic_model(models[q])
        except (ValueError, TypeError, ArithmeticError):
            continue
        return p, q, ex
    return None


def _plausible(sides, models, r_min: Fraction) -> bool:
    """A cheap test before any tiling (a search order, not a proof): one side piecewise with blocking
    exactly 0 at ``r_min`` (its certified point), the other smooth with Laurent-polynomial rates."""
    from ..core.piecewise import piecewise_fixed_point
    from .certified_generic import _check_generic_model
    for p, q in (("a", "b"), ("b", "a")):
        if sides[p].kind != "piecewise" or sides[q].kind != "smooth":
            continue
        try:
            _check_generic_model(models[q])
            r = piecewise_fixed_point(models[p], r_min, 15)
        except (ValueError, TypeError, ArithmeticError):
            continue
        if r.blocking == 0 and tuple(r.blocking_bracket) == (0, 0):
            return True
    return False


def _end_at(side, model, r_j: Fraction, prec: int):
    """The end record of the smooth model at the join load ``r_j`` (or None): series order, remainder
    box, positive scaled blocking, and the point certificate at ``r_j`` inside the end slice."""
    rec_pt, _B = side.point(r_j)
    box = side._box(rec_pt)
    try:
        em = _end_model(model, "zero", [float(b.mid()) for b in box], r_j)
    except (ValueError, ArithmeticError, ZeroDivisionError, TypeError):
        return None
    for K in _K_TRY:
        try:
            xs = em.series(K)
            bs = em.blocking_series(xs, K)
            lead = next((i for i, c in enumerate(bs.coeffs()) if c != 0), None)
            if lead is None:
                continue
            K_use = max(K, lead + 2)
            br = end_branch(model, "zero", None, K_use, r_j, _em=em)
        except (ValueError, ArithmeticError, ZeroDivisionError, TypeError):
            continue
        m_, _c = br["_B"].leading()
        if m_ is None:
            continue
        for pieces in _PIECES_TRY:
            scaled, sign = stored_sign(_scaled_range(br["_B"], m_, r_j, pieces), 12)
            if sign:
                break
        if sign != 1:
            continue
        with flint_prec(prec):
            if not _in_end_slice(br["_xs"], br["_W"], K_use, r_j, [b.exp() for b in box], br["valuations"]):
                continue
        model_rec = {k: v for k, v in br.items() if not k.startswith("_")}
        return {"K": K_use, "model": model_rec, "B": {"m": m_, "scaled": scaled, "pieces": pieces}}
    return None


def find_zero_end(search, cells, models, r_lo: Fraction, prec: int):
    """The small-load end (module docstring) for the cells of a comparison starting at ``r_lo``:
    ``(record, extra cells)`` (the cells that tile ``[rho_join, r_lo]``, to prepend), or ``(None, [])``
    when the lemma does not apply at any join load tried (``r_lo / 2^j``, ``j <= 8``; the tiling is
    extended downwards one halving at a time, so the first cell may be a piece that only begins
    below ``r_lo``, e.g. JSQ's face of no full level below ``rho = 1``).

    Parameters
    ----------
    search : symloss.meanfield.compare_piecewise._Search
        The comparison's search (its two sides and its tiling).
    cells : list of dict
        The cells of the range, starting at ``r_lo``.
    models : dict
        ``{"a": model_a, "b": model_b}``.
    r_lo : Fraction
        The caller's ``rho_min``.
    prec : int
        Working precision in bits.

    Returns
    -------
    tuple
        ``(record or None, list of cells)``.
    """
    if not cells or not _plausible(search.sides, models, r_lo / 2 ** _JOIN_HALVINGS):
        return None, []
    extra: list = []
    for j in range(_JOIN_HALVINGS + 1):
        r_j = r_lo / 2 ** j
        if j:
            try:
                extra = search.tile(r_j, r_lo / 2 ** (j - 1)) + extra
            except ArithmeticError:
                return None, []
        cand = _candidate(search.sides, (extra or cells)[0], models)
        if cand is None:
            continue
        p, q, ex = cand
        try:
            ex.check(Fraction(0), r_j)
        except _CellFail:
            continue
        rec = _end_at(search.sides[q], models[q], r_j, prec)
        if rec is None:
            continue
        rec.update({"piecewise": p, "smooth": q, "sign": -1 if p == "a" else 1, "rho_join": q_str(r_j)})
        return rec, extra
    return None, []


def verify_zero_end(rec, sides, cells, models, points, prec: int) -> None:
    """Re-check a small-load end record from its data and the models' equations (no search): the first
    cell's exact piece with blocking 0 holding on ``(0, rho_join)``, the smooth model's exact series,
    remainder box and positive scaled blocking, and its point certificate at ``rho_join`` inside the
    end slice.

    Parameters
    ----------
    rec : dict
        ``certificate["zero_end"]``.
    sides : dict
        The two sides of the comparison (rebuilt by the re-check).
    cells : list of dict
        The stored cells (the first starts at ``rho_join``).
    models : dict
        ``{"a": model_a, "b": model_b}``.
    points : dict
        The stored point certificates, by load.
    prec : int
        Working precision in bits.

    Raises
    ------
    CertificateMismatch
        When any part fails its re-check.
    """
    _need(isinstance(rec, dict) and set(rec) == {"piecewise", "smooth", "sign", "rho_join", "K", "model", "B"},
          "small-load end: unknown or missing fields")
    p, q = rec["piecewise"], rec["smooth"]
    _need((p, q) in (("a", "b"), ("b", "a")) and rec["sign"] == (-1 if p == "a" else 1),
          "small-load end: sides or sign differ")
    r_j = parse_q(rec["rho_join"])
    _need(cells and parse_q(cells[0]["rho"][0]) == r_j, "small-load end: the cells do not start at rho_join")
    cand = _candidate(sides, cells[0], models)
    _need(cand is not None and cand[:2] == (p, q), "small-load end: the first cell is not an exact piece with "
                                                   "blocking 0 against a smooth model")
    try:
        cand[2].check(Fraction(0), r_j)
    except _CellFail as exc:
        raise CertificateMismatch(f"small-load end: the first piece does not hold on (0, rho_join): {exc}") from None
    K = int(rec["K"])
    _need(2 <= K <= 256, "small-load end: series order out of range")
    mr = rec["model"]
    x0 = [parse_q(v) for v in mr["x0"]]
    e = mr["valuations"]
    _need(isinstance(e, list) and len(e) == len(x0) and all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in e), "small-load end: valuations")
    em = _EndModel(models[q], "zero", None, e=e, x0_exact=x0)
    _need([q_str(Fraction(int(v.p), int(v.q))) for v in em.x0] == mr["x0"], "small-load end: limit state differs")
    _need(em.scale == mr["scale"], "small-load end: blocking scale differs")
    xs = em.series(K)
    _need([[q_str(Fraction(int(c.p), int(c.q))) for c in s.coeffs()] for s in xs] == mr["series"],
          "small-load end: the stored exact series differs from the recomputed one")
    W = [parse_ball(w) for w in mr["W"]]
    with flint_prec(prec):
        em.remainder(xs, K, r_j, W=W, pieces=_pieces(mr.get("pieces", 1)))
        B, _c = em.blocking_tm(xs, W, K, r_j)
        m_, _cm = B.leading()
        _need(m_ is not None and m_ == int(rec["B"]["m"]), "small-load end: leading order differs")
        sr = _scaled_range(B, m_, r_j, _pieces(rec["B"]["pieces"]))
        sb = parse_ball(rec["B"]["scaled"])
        _need(sb.contains(sr) and sb > 0, "small-load end: the scaled blocking is not enclosed positive")
    # the point certificate itself is re-checked with every other cell end by the caller's summary
    # (``compare_piecewise._finish``): rho_join starts the tiling, so both models have one there
    box = sides[q]._box(points[q_str(r_j)][q])
    with flint_prec(prec):
        _need(_in_end_slice(xs, W, K, r_j, [b.exp() for b in box], e),
              "small-load end: the point certificate at rho_join is not inside the end slice")
