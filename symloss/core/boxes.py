r"""Enclosures over load intervals with derivative enclosures (:func:`enclose_interval`), point boxes
(:func:`point_box`), the re-check of stored boxes and tubes (:func:`verify_box`, :func:`verify_tube`), the
row selection they use (:func:`check_selection`) and the one way a box is stored as exact strings and read
back (:func:`box_to_strings`, :func:`box_from_strings`). Re-exported by :mod:`symloss.core.certify`.
"""
from __future__ import annotations

import math

from flint import arb, arb_mat

from ._docfragments import CORE_DOCS
from .certified_results import IntervalEnclosure, _load_ball, parse_exact
from .docstrings import fill_doc
from .float_start import start_point
from .krawczyk import _float_inverse, _krawczyk, _newton_arb
from .precision import (
    PrecisionError,
    arb_to_mpf,
    flint_prec,
    to_arb,
)

__all__ = ["box_from_strings", "box_to_strings", "check_selection", "exact_dyadic", "point_box", "verify_box", "grad_log_blocking_arb", "box_derivative", "verify_tube",
           "enclose_interval"]


def exact_dyadic(x: arb) -> str:
    """The midpoint of ``x`` as an exact dyadic string ``"m*2^e"`` (read back by
    :func:`~symloss.core.certified_results.parse_exact`).

    Parameters
    ----------
    x : arb
        A ball (its midpoint is written; a radius is written by passing ``arb(x.rad())``).

    Returns
    -------
    str
    """
    man, exp = arb(x).mid().man_exp()
    return f"{int(man)}*2^{int(exp)}"


def box_to_strings(box) -> dict:
    """A Krawczyk box as JSON data: ``{"center": [...], "delta": [...]}``, the midpoints and radii of
    its balls as exact dyadic strings (:func:`exact_dyadic`); :func:`box_from_strings` reads it back.

    Parameters
    ----------
    box : sequence of arb
        The box.

    Returns
    -------
    dict
    """
    return {"center": [exact_dyadic(b.mid()) for b in box], "delta": [exact_dyadic(b.rad()) for b in box]}


def box_from_strings(center, delta, prec: int) -> list:
    """The box stored by :func:`box_to_strings`, rebuilt exactly: the balls are made at a precision
    that holds every stored centre (which may carry more bits than ``prec``), so nothing is rounded.

    Parameters
    ----------
    center, delta : sequence of str
        The exact dyadic strings of the centres and radii.
    prec : int
        The working precision of the check (bits); the balls are built at ``max(prec, bits needed)``.

    Returns
    -------
    list of arb

    Raises
    ------
    ValueError
        If the two lists differ in length or a string is not an exact number.
    """
    if len(center) != len(delta):
        raise ValueError(f"a stored box needs one radius per centre, got {len(center)} and {len(delta)}")
    bits = max((int(c.split("*2^")[0]).bit_length() for c in center), default=0) + 16
    with flint_prec(max(int(prec), bits)):
        return [arb(parse_exact(c), parse_exact(dl)) for c, dl in zip(center, delta)]


def check_selection(model, sel) -> list:
    """Validate a row selection of the compiled system: ``n`` distinct rows, all drift rows but one
    per invariant, the invariants' coefficients on the omitted rows forming a non-singular matrix
    (so that every omitted drift row is a combination of the selected ones: the selected square
    system has the same positive zeros as the stationary equations). Returns ``sel`` as a list.

    Parameters
    ----------
    model : MeanFieldModel
        The model whose compiled system (``n`` drift rows, ``m`` invariant rows) is selected from.
    sel : sequence of int
        Row indices in ``[0, n + m)``.

    Returns
    -------
    list of int
        ``sel`` as a list.

    Raises
    ------
    ValueError
        If the rows are not ``n`` distinct rows, miss an invariant row, omit other than one drift
        row per invariant, or omit rows the invariants do not imply.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> m = RandomRouting(2)
    >>> from symloss.core.certify import check_selection
    >>> check_selection(m, [3, 1, 2])
    [3, 1, 2]
    >>> check_selection(m, [0, 0])
    Traceback (most recent call last):
        ...
    ValueError: selection [0, 0] is not 3 distinct rows of the compiled system
    """
    comp = model.compiled
    n, m = comp.n, comp.m
    sel = [int(i) for i in sel]
    if len(sel) != n or len(set(sel)) != n or any(not 0 <= i < n + m for i in sel):
        raise ValueError(f"selection {sel} is not {n} distinct rows of the compiled system")
    if sorted(i for i in sel if i >= n) != list(range(n, n + m)):
        raise ValueError(f"selection {sel} must contain every invariant row")
    omitted = sorted(set(range(n)) - set(sel))
    if len(omitted) != m:
        raise ValueError(f"selection {sel} must omit exactly one drift row per invariant")
    if m:
        import sympy as sp
        M = sp.Matrix([[model._invariants[k][0][j] for j in omitted] for k in range(m)])
        if M.det() == 0:
            raise ValueError(f"selection {sel}: the omitted drift rows are not implied by the invariants")
    return sel


def point_box(model, rho, *, prec: int = 128, y_start=None, sel=None, delta=None):
    """A Krawczyk-certified box (balls of ``y = log x``) holding exactly one zero of the model's
    square stationary system at the load ``rho`` (exact: int, Fraction or decimal string). Returns
    ``(box, sel, margin)``; raises :class:`~symloss.PrecisionError` when the test fails.

    Parameters
    ----------
    model : MeanFieldModel
        The model.
    rho : int, Fraction or str
        The load (exact).
    prec : int, optional
        Working precision in bits (default 128).
    y_start : sequence, optional
        Starting point in ``y = log x`` (default: the model's float fixed point).
    sel : sequence of int, optional
        Row selection (default: chosen from the starting point; see :func:`check_selection`).
    delta : float, optional
        Relative radius of the box around the Newton point (default ``2**(-prec // 2)``).

    Returns
    -------
    tuple
        ``(box, sel, margin)``: a list of :class:`flint.arb`, the selection, the contraction
        margin (float, ``> 0``).

    Raises
    ------
    PrecisionError
        When the Krawczyk test fails.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> m = RandomRouting(2)
    >>> from symloss.core.certify import point_box
    >>> box, sel, margin = point_box(m, 1)
    >>> len(box), sel, margin > 0
    (3, [3, 1, 2], True)
    """
    comp = model.compiled
    comp.require_smooth()
    n = comp.n
    if y_start is None:
        y_start = start_point(model, rho)
    y_fl = [float(v.mid()) if isinstance(v, arb) else float(v) for v in y_start]
    if sel is None:
        sel = comp.selection([max(v, -700.0) for v in y_fl])
    sel = check_selection(model, sel)
    ymax = max((abs(v) for v in y_fl), default=1.0)
    p = prec + int(math.log2(1.0 + ymax)) + 2 * int(math.log2(n + 2))
    for _ in range(6):
        with flint_prec(p):
            r = _load_ball(rho)
            m, _ = _newton_arb(comp, y_start, r, p, sel)
            d = delta if delta is not None else 2.0 ** (-(prec // 2))
            rad = [arb(d) * (1 + abs(m[i])) for i in range(n)]
            ok, margin, K, _Y = _krawczyk(comp, m, rad, r, sel)
            if ok:
                return [arb(m[i], rad[i]) for i in range(n)], sel, margin
        p *= 2
    raise PrecisionError(f"{model!r}: no Krawczyk box at rho = {rho}")


def verify_box(model, box, sel, rho_lo, rho_hi=None, *, prec: int = 128) -> float:
    """Re-check a stored box: the Krawczyk operator of the model's compiled square system (rows
    ``sel``) maps ``box`` into its interior for every load of ``[rho_lo, rho_hi]`` (or at the point
    ``rho_lo``). Returns the contraction margin; raises ``ValueError`` when the test fails.

    Parameters
    ----------
    model : MeanFieldModel
        The model whose equations the box is checked against.
    box : sequence of flint.arb
        The stored box (balls of ``y = log x``).
    sel : sequence of int
        Row selection (see :func:`check_selection`).
    rho_lo, rho_hi : int, Fraction or str
        The load interval (exact); ``rho_hi=None`` checks the point ``rho_lo``.
    prec : int, optional
        Working precision in bits (default 128).

    Returns
    -------
    float
        The contraction margin: the largest ``|K_i - m_i| / r_i`` over the components, ``K`` the
        Krawczyk image of the box ``m_i +/- r_i`` (below 1, as the test passed).

    Raises
    ------
    ValueError
        When the Krawczyk test fails or the box or selection does not fit the model.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> m = RandomRouting(2)
    >>> from symloss.core.certify import point_box, verify_box
    >>> box, sel, _ = point_box(m, 1)
    >>> verify_box(m, box, sel, 1) > 0
    True
    """
    comp = model.compiled
    comp.require_smooth()
    n = comp.n
    if len(box) != n:
        raise ValueError(f"box has {len(box)} components, the model has {n} variables")
    sel = check_selection(model, sel)
    with flint_prec(prec):
        m = [arb(b.mid()) for b in box]
        rad = [arb(b.rad()) for b in box]
        if any(not (r_ > 0) for r_ in rad):
            raise ValueError("a box component has zero radius")
        R = _load_ball(rho_lo, rho_hi)
        ok, margin, _K, _Y = _krawczyk(comp, m, rad, R, sel)
    if not ok:
        raise ValueError("the Krawczyk operator does not map the stored box into its interior")
    return margin


def grad_log_blocking_arb(comp, y, r):
    """Balls of ``d log B / d y_j`` and ``d log B / d r`` (term-form blocking).

    Parameters
    ----------
    comp : CompiledModel
        The compiled model (terms form).
    y : sequence of flint.arb
        The log state.
    r : flint.arb
        The log load.

    Returns
    -------
    list of flint.arb
        ``d log B / d y_j`` for each ``j``, then ``d log B / d r``.

    Raises
    ------
    ValueError
        If the model is not in terms form.
    """
    if comp.mode != "terms":
        raise ValueError("derivative enclosures need a Laurent-polynomial (terms-form) model")
    tab = comp.btable
    # the generated evaluator of the blocking's row (the same balls as the term-by-term sums)
    fn, positions = tab.log_terms_jacobian([0])
    vals, entries, dr = fn(list(y) + [r], tab.coef_arb)
    grad = [arb(0)] * comp.n + [dr[0]]
    for (_k, j), v in zip(positions, entries):
        grad[j] = v
    return [g / vals[0] for g in grad]


def box_derivative(model, box, sel, R: arb):
    r"""Enclosure of :math:`dy/dr` (``r = log rho``) and of :math:`d\log B/dr` for every load of the
    ball ``R`` on the branch in ``box``: the solutions ``v`` of :math:`J_y v = -\partial_r G` for
    every Jacobian in the box lie in ``V`` with :math:`V \supseteq Z(-\partial_r G) + (I - Z J_y) V`
    (``Z`` a float inverse of the midpoint Jacobian; requires :math:`\|I - Z J_y\|_\infty < 1`).
    Returns ``(V, dlogB)``; raises ``ValueError`` when the contraction fails.

    Parameters
    ----------
    model : MeanFieldModel
        The model.
    box : sequence of flint.arb
        A box holding the branch for every load of ``R`` (e.g. ``IntervalEnclosure.box``).
    sel : sequence of int
        Row selection (see :func:`check_selection`).
    R : flint.arb
        Ball of ``r = log rho``.

    Returns
    -------
    tuple
        ``(V, dlogB)``: a list of :class:`flint.arb` enclosing :math:`dy/dr`, and a ball
        enclosing :math:`d\log B/dr`.

    Raises
    ------
    ValueError
        When the contraction fails.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> m = RandomRouting(2)
    >>> from symloss.core.certify import box_derivative, enclose_interval, _load_ball
    >>> e = enclose_interval(m, "0.99", "1.01")
    >>> V, dlogB = box_derivative(m, e.box, e.sel, _load_ball("0.99", "1.01"))
    >>> len(V), dlogB.overlaps(e.dlog_blocking)
    (3, True)
    """
    comp = model.compiled
    n = comp.n
    _G, J, dr = comp.GJ_arb(box, R, sel)
    Z = _float_inverse(arb_mat([[arb(J[i, j].mid()) for j in range(n)] for i in range(n)]))
    if Z is None:
        raise ValueError("singular Jacobian on the box")
    I = arb_mat([[arb(1) if i == j else arb(0) for j in range(n)] for i in range(n)])
    E = I - Z * J
    b = Z * arb_mat([[-x] for x in dr])
    q = max(sum(float(abs(E[i, j]).upper()) for j in range(n)) for i in range(n))
    if not q < 1:
        raise ValueError(f"no contraction for the derivative (||I - Z J|| = {q:.3g})")
    beta = max(float(abs(b[i, 0]).upper()) for i in range(n)) / (1 - q) * (1 + 1e-9) + 1e-300
    V = [arb(0, beta)] * n
    for _ in range(4):
        Vm = arb_mat([[v] for v in V])
        new = b + E * Vm
        Vn = []
        for i in range(n):
            lo = max(new[i, 0].lower(), V[i].lower())
            hi = min(new[i, 0].upper(), V[i].upper())
            Vn.append(arb.union(arb(lo), arb(hi)))
        V = Vn
    g = grad_log_blocking_arb(comp, box, R)
    dlog = g[n]
    for j in range(n):
        dlog += g[j] * V[j]
    return V, dlog


def _tube_krawczyk(comp, c, t, delta, R, sel, Y=None):
    """Krawczyk test of the tube ``c + t (r - r_m) + [-delta, delta]`` over the ball ``R`` of
    ``r = log rho``. In ``z = y - c - t (r - r_m)`` the system is ``G~(z, r) = G(c + t (r - r_m) + z, r)``;
    ``G~(0, r)`` is enclosed by the mean-value form around ``r_m`` (its ``r``-derivative
    ``G_y t + G_r`` vanishes at the centre up to rounding), and
    ``K(Z) = -Y G~(0, R) + (I - Y G_y(hull, R)) Z``. Returns ``(ok, margin, K, Y, hull)``."""
    n = comp.n
    rm = arb(R.mid())
    W = R - rm                                     # [-w, w]
    Gc = comp.G_arb(c, rm, sel)
    seg = [c[i] + t[i] * W for i in range(n)]
    _g, Js, drs = comp.GJ_arb(seg, R, sel)
    tv = arb_mat([[ti] for ti in t])
    Sr = Js * tv
    G0 = [Gc[i] + (Sr[i, 0] + drs[i]) * W for i in range(n)]
    hull = [seg[i] + arb(0, delta[i]) for i in range(n)]
    _g2, Jh, _dr2 = comp.GJ_arb(hull, R, sel)
    if Y is None:
        _gm, Jm, _ = comp.GJ_arb(c, rm, sel)
        Y = _float_inverse(Jm)
        if Y is None:
            return False, math.inf, None, None, hull
    I = arb_mat([[arb(1) if i == j else arb(0) for j in range(n)] for i in range(n)])
    Z = arb_mat([[arb(0, delta[i])] for i in range(n)])
    K = -(Y * arb_mat([[g] for g in G0])) + (I - Y * Jh) * Z
    ok = True
    margin = 0.0
    for i in range(n):
        dev = abs(K[i, 0])
        if not (dev < delta[i]):
            ok = False
            margin = math.inf
        elif ok:
            margin = max(margin, float((dev.upper() / delta[i]).mid()))
    return ok, margin, [K[i, 0] for i in range(n)], Y, hull


def verify_tube(model, center, slope, delta, sel, rho_lo, rho_hi, *, prec: int = 128) -> float:
    """Re-check a stored tube (``IntervalEnclosure``): the Krawczyk test of
    ``_tube_krawczyk`` with the stored centre, slope and radii, recomputed from the model's
    compiled equations. Returns the margin; raises ``ValueError`` when it fails.

    Parameters
    ----------
    model : MeanFieldModel
        The model whose equations the tube is checked against.
    center, slope, delta : sequence
        The stored tube (``center``, ``slope`` and ``delta`` of an ``IntervalEnclosure``; exact balls).
    sel : sequence of int
        Row selection (see :func:`check_selection`).
    rho_lo, rho_hi : int, Fraction or str
        The load interval (exact).
    prec : int, optional
        Working precision in bits (default 128).

    Returns
    -------
    float
        The contraction margin: the largest ``|K_i| / delta_i`` over the components, ``K`` the
        Krawczyk image of the tube's cross-section of radii ``delta`` (below 1, as the test passed).

    Raises
    ------
    ValueError
        When the test fails, a radius is not positive or the tube does not fit the model.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> m = RandomRouting(2)
    >>> from symloss.core.certify import enclose_interval, verify_tube
    >>> e = enclose_interval(m, "0.99", "1.01")
    >>> verify_tube(m, e.center, e.slope, e.delta, e.sel, "0.99", "1.01") > 0
    True
    """
    comp = model.compiled
    comp.require_smooth()
    n = comp.n
    if not (len(center) == len(slope) == len(delta) == n):
        raise ValueError(f"the tube must have {n} components")
    sel = check_selection(model, sel)
    with flint_prec(prec):
        if any(not (d_ > 0) for d_ in delta):
            raise ValueError("a tube radius is not positive")
        R = _load_ball(rho_lo, rho_hi)
        ok, margin, _K, _Y, _h = _tube_krawczyk(comp, list(center), list(slope), list(delta), R, sel)
    if not ok:
        raise ValueError("the Krawczyk operator does not map the stored tube into its interior")
    return margin


@fill_doc(CORE_DOCS)
def enclose_interval(model, rho_lo, rho_hi, *, prec: int = 128, y_mid=None, sel=None,
                     max_inflations: int = 10) -> IntervalEnclosure:
    r"""A certified tube around the fixed-point branch, and enclosures of the log-blocking and of
    :math:`d\log B/d\log\rho`, valid for every load of ``[rho_lo, rho_hi]`` (exact end points):
    the parametric Krawczyk test with the load as an interval parameter, on the model's compiled
    stationary system, in the *sloped* form of ``_tube_krawczyk`` (the tube follows the tangent,
    so its radius is second order in the width of the interval, where the box of ``enclose``,
    kept unchanged, is first order), with epsilon inflation (factor 1.5 around the Krawczyk image).

    Raises :class:`~symloss.PrecisionError` when no tube is found (bisect the interval).

    Parameters
    ----------
    model : MeanFieldModel
        The model (smooth compiled system).
    rho_lo, rho_hi : int, Fraction or str
        End points of the load interval, ``rho_lo < rho_hi`` (exact).
    prec : int, optional
        Working precision in bits (default 128).
    y_mid : sequence, optional
        Starting point in ``y = log x`` at the middle load (default: the model's start point).
    sel : sequence of int, optional
        Row selection (default: chosen from the starting point; see :func:`check_selection`).
    max_inflations : int, optional
        Number of epsilon inflations tried (default 10).

    {{returns_raises_interval_enclosure}}

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> m = RandomRouting(2)
    >>> from symloss.core.certify import enclose_interval
    >>> e = enclose_interval(m, "0.99", "1.01")
    >>> import math
    >>> B = float(m.fixed_point(1, dps=20).blocking)
    >>> e.log_blocking.contains(math.log(B)), len(e.slice(1))
    (True, 3)
    """
    comp = model.compiled
    comp.require_smooth()
    n = comp.n
    lo_a, hi_a = to_arb(rho_lo), to_arb(rho_hi)
    if not lo_a < hi_a:
        raise ValueError(f"rho_lo must be < rho_hi, got {rho_lo} and {rho_hi}")
    with flint_prec(prec):
        R = _load_ball(rho_lo, rho_hi)
        r_mid = arb(R.mid())
        if y_mid is None:
            y_mid = start_point(model, arb_to_mpf(r_mid.exp()))
        y_fl = [float(v.mid()) if isinstance(v, arb) else float(v) for v in y_mid]
        if sel is None:
            sel = comp.selection([max(v, -700.0) for v in y_fl])
        sel = check_selection(model, sel)
        c, _ = _newton_arb(comp, y_mid, r_mid, prec, sel)
        c = [arb(ci.mid()) for ci in c]
        _g, Jm, dr = comp.GJ_arb(c, r_mid, sel)
        try:
            tt = Jm.mid().solve(arb_mat([[-d.mid()] for d in dr]))
        except (ZeroDivisionError, ValueError):
            raise PrecisionError("singular Jacobian at the middle of the load interval") from None
        t = [arb(tt[i, 0].mid()) for i in range(n)]
        w = R.rad()
        delta = [arb((w * w * (1 + abs(t[i])) + arb(2) ** (-(prec - 40)) * (1 + abs(c[i]))).upper())
                 for i in range(n)]
        Y = None
        for _ in range(max_inflations):
            ok, margin, K, Y, hull = _tube_krawczyk(comp, c, t, delta, R, sel, Y)
            if ok:
                try:
                    V, dlog = box_derivative(model, hull, sel, R)
                except ValueError as exc:
                    raise PrecisionError(f"{model!r}: derivative enclosure failed on [{rho_lo}, {rho_hi}] "
                                         f"({exc}); bisect") from None
                LB = comp.log_blocking_arb(hull, R)
                return IntervalEnclosure(rho_lo, rho_hi, c, t, delta, sel, hull, LB, dlog, V, margin, prec)
            if K is None:
                break
            delta = [arb(max(delta[i] * 2, (abs(K[i]).upper() if K[i].is_finite() else delta[i] * 8) * arb(1.5)).upper())
                     for i in range(n)]
            if any(not d_.is_finite() or d_ > 50 for d_ in delta):
                break
    raise PrecisionError(f"{model!r}: no Krawczyk tube on [{rho_lo}, {rho_hi}]; bisect the interval")
