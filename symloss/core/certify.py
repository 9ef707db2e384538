r"""The generic certified fixed point of a mean-field model, computed from its definition only.

Pipeline (:func:`certified_fixed_point`), on the compiled stationary system :math:`G(y, r) = 0` of
:mod:`symloss.core.codegen` (log variables :math:`y = \log x`, :math:`r = \log\rho`):

1. **Float start.** Pseudo-transient continuation (backward-Euler steps of the log-ODE
   :math:`\dot y_i = f_i(x)/x_i`, invariant rows algebraic, the step growing by the
   switched-evolution-relaxation rule until it is Newton's method) at a moderate load
   :math:`\rho_0` from the model's initial state, then continuation in :math:`r` to the target
   load (tangent predictor :math:`J_y\,\dot y = -\partial_r G`, Newton corrector, adaptive step).
   Every float evaluation is a sum of ``exp`` of linear forms, so it never underflows.
2. **Newton in ball arithmetic** (python-flint ``arb``, midpoint iteration), the working precision
   doubling up to :math:`\text{dps} \cdot \log_2 10 + 64 + \log_2(1 + \max|y|)` bits.
3. **Krawczyk test.** With :math:`m` the Newton point, :math:`X = m + [-\delta, \delta]^n`,
   :math:`Y \approx J_y(m)^{-1}` and :math:`R` the ball of :math:`r`,

   .. math:: K(X) = m - Y G(m, R) + (I - Y J_y(X, R))(X - m).

   If :math:`K(X) \subset \operatorname{int} X` then, for every load in the ball, ``G`` has exactly
   one zero in ``X`` (Krawczyk 1969; Moore 1977; Rump 1983). ``delta`` is chosen so that the
   blocking, evaluated in ball arithmetic over ``X``, is known to ``dps`` digits; the result carries
   the box, the contraction margin and the blocking enclosure.

:func:`enclose` runs the same test with :math:`R` the whole interval of loads ``[log rho_lo, log
rho_hi]`` (the box is built from the tangent :math:`dy/dr`, with epsilon inflation), giving
enclosures valid for every load of the interval.

:func:`solve` is what ``model.fixed_point()``/``model.blocking()`` call: it uses an accelerator
registered for the model's class (:mod:`symloss.core.registry`) when its assumptions hold for this
definition, verifies its answer on the definition's own equations, and otherwise (with a
:class:`DefinitionMismatchWarning` when an accelerator exists but does not apply) computes the answer
with the generic solver.

The pieces live in modules of their own, all re-exported here: :mod:`~symloss.core.certified_results`
(result types), :mod:`~symloss.core.float_start` (step 1), :mod:`~symloss.core.krawczyk` (steps 2-3 and
:func:`certified_fixed_point`), :mod:`~symloss.core.boxes` (interval enclosures, point boxes, tubes),
:mod:`~symloss.core.statespace` and :mod:`~symloss.core.uniqueness` (the state space, uniqueness),
:mod:`~symloss.core.ode` (the mean-field ODE); this module keeps :func:`solve`, :func:`enclose` and the
uniqueness check attached to a solve.

References
----------
R. Krawczyk, "Newton-Algorithmen zur Bestimmung von Nullstellen mit Fehlerschranken", Computing 4
(1969). R. E. Moore, "A test for existence of solutions to nonlinear systems", SIAM J. Numer. Anal.
14 (1977). S. M. Rump, "Verification methods", Acta Numerica 19 (2010). C. T. Kelley, D. E. Keyes,
"Convergence analysis of pseudo-transient continuation", SIAM J. Numer. Anal. 35 (1998).
"""
from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
from flint import arb, arb_mat

from ._docfragments import CORE_DOCS
from .boxes import (  # noqa: F401
    box_derivative,
    check_selection,
    enclose_interval,
    grad_log_blocking_arb,
    point_box,
    verify_box,
    verify_tube,
)
from .certified_results import (  # noqa: F401
    DefinitionMismatchWarning,
    Enclosure,
    FixedPointResult,
    IntervalEnclosure,
    OdeResult,
    _load_ball,
    outward_decimal_strings,
    parse_exact,
)
from .docstrings import fill_doc
from .float_start import (  # noqa: F401
    _check_rho,
    _continue,
    _load_log,
    _newton_float,
    default_initial_state,
    float_fixed_point,
    start_point,
)
from .krawczyk import _MAX_PREC, _float_inverse, _krawczyk, _newton_arb, certified_fixed_point  # noqa: F401
from .ode import integrate_ode, integrate_ode_checks  # noqa: F401
from .precision import (
    DEFAULT_DPS,
    PrecisionError,
    arb_to_mpf,
    check_dps,
    flint_prec,
    to_arb,
    to_mpf,
)
from .registry import dispatch
from .statespace import (  # noqa: F401
    _UNIQ_PREC,
    UNIQUENESS_EVIDENCE_MAX_DIM,
    UNIQUENESS_MAX_DIM,
    NonUniqueFixedPointError,
    NonUniqueFixedPointWarning,
    StateSpace,
)
from .uniqueness import _region_record, _Uniqueness, fixed_point_uniqueness, verify_uniqueness  # noqa: F401
from .validation import check_real

__all__ = ["FixedPointResult", "OdeResult", "Enclosure", "certified_fixed_point", "solve", "enclose",
           "float_fixed_point", "start_point", "integrate_ode", "integrate_ode_checks", "DefinitionMismatchWarning",
           "StateSpace", "fixed_point_uniqueness", "verify_uniqueness", "ode_limit", "NonUniqueFixedPointError",
           "NonUniqueFixedPointWarning", "UNIQUENESS_MAX_DIM", "UNIQUENESS_EVIDENCE_MAX_DIM",
           "IntervalEnclosure", "enclose_interval", "point_box", "verify_box", "verify_tube", "box_derivative",
           "check_selection"]

#: the docstring examples of the names that moved to other modules still run with this module's (doctest)
__test__ = {name: globals()[name] for name in (
    "FixedPointResult", "outward_decimal_strings", "float_fixed_point", "start_point", "certified_fixed_point",
    "box_derivative", "check_selection", "enclose_interval", "point_box", "verify_box", "verify_tube",
    "StateSpace", "fixed_point_uniqueness", "verify_uniqueness", "integrate_ode", "integrate_ode_checks")}


# ==================================================================================================
# dispatch: accelerators first (verified), else generic
# ==================================================================================================


@fill_doc(CORE_DOCS)
def solve(model, rho, *, dps: int = DEFAULT_DPS, residual: bool = True,
          uniqueness: bool = False) -> FixedPointResult:
    """``model.fixed_point`` / ``model.blocking``: accelerator (verified) or generic solver.

    Parameters
    ----------
    model : MeanFieldModel
        The model.
    rho : float, int, Fraction or mpmath.mpf
        The load, ``> 0``.
    dps : int
        Significant digits, ``5 <= dps <= 100000``.
    residual : bool
        Compute the drift residual of the returned state.
    uniqueness : bool
        Decide whether the fixed point is the only one on the state space (see Notes; costs 10 ms to
        1 s per load for 2 or 3 free coordinates). Default ``False``: the result's ``uniqueness``
        says it was not checked and how to check it (``blocking`` and the load scans never pay it).

    Returns
    -------
    FixedPointResult
        The certified state and blocking, with the method (accelerator or generic) that gave them.

    {{raises_solve}}

    Warns
    -----
    DefinitionMismatchWarning
        When an accelerator is registered for the class but does not apply to this definition, or
        its answer fails the verification on the definition's equations.
    NonUniqueFixedPointWarning
        When the model has several fixed points on its state space at this load (the result's
        ``uniqueness`` names them, which one it is, and which one the ODE from the default start
        reaches).

    Notes
    -----
    The result's ``uniqueness`` and ``n_found``: for the generic solver on a state space of at most
    ``UNIQUENESS_MAX_DIM`` free coordinates, decided by :func:`fixed_point_uniqueness` (cached
    per definition and load); up to ``UNIQUENESS_EVIDENCE_MAX_DIM``, multi-start evidence in
    ``fixed_point()``; an accelerator states it through an optional ``uniqueness(model, rho)``
    method returning ``(status, text)``, else the result says it is not checked.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> from symloss.core.certify import solve
    >>> solve(RandomRouting(2), 1, dps=20).method.split(";")[0]
    'Erlang-B reduction p = E(C, a)'
    """
    _check_rho(rho)
    dps = check_dps(dps)
    if not isinstance(uniqueness, bool):
        raise TypeError(f"uniqueness must be True or False, got {uniqueness!r}")
    res, acc = dispatch("meanfield", model, _generic_solve, args=(rho, dps), kwargs={"residual": residual},
                        verify_args=(dps,), verify_kwargs={}, warning=DefinitionMismatchWarning, stacklevel=4,
                        rejected=_REJECTED, mismatch=_MISMATCH)
    _attach_uniqueness(model, rho, res, acc=acc, search=residual, check=uniqueness)
    res.extra.pop("_x_work", None)
    return res


#: the texts of the two warnings of :func:`solve` (:func:`symloss.core.registry.dispatch`)
_REJECTED = ("{subject!r}: the {name} accelerator's answer does not satisfy the model's own stationary equations "
             "({reason}); using the generic certified solver")
_MISMATCH = ("{subject!r}: the definition differs from the equations the {name} accelerator assumes ({reason}); "
             "using the generic certified solver")


def _generic_solve(model, rho, dps, *, residual=True):
    """The generic solver of :func:`solve` (``registry.dispatch``'s fallback)."""
    return certified_fixed_point(model, rho, dps, residual=residual)


# ==================================================================================================
# enclosures over an interval of loads
# ==================================================================================================

@fill_doc(CORE_DOCS)
def enclose(model, rho_lo, rho_hi, *, prec: int = 128, y_mid=None) -> Enclosure:
    """Box and blocking enclosures valid for every load in ``[rho_lo, rho_hi]`` (parametric
    Krawczyk; raises :class:`~symloss.core.precision.PrecisionError` when the test fails, e.g. on
    a too wide interval: bisect it).

    Parameters
    ----------
    model : MeanFieldModel
        A model with smooth rates.
    rho_lo, rho_hi : number
        The interval of loads, ``0 < rho_lo <= rho_hi``.
    prec : int
        Working precision in bits.
    y_mid : sequence, optional
        A float start ``y = log x`` at the middle of the interval.

    Returns
    -------
    Enclosure
        The certified box of ``y = log x`` and the balls of the blocking over the whole interval
        (Krawczyk margin ``< 1``).

    Raises
    ------
    ValueError
        If ``rho_lo > rho_hi`` or the rates are not smooth.
    PrecisionError
        If the test fails on this interval.

    {{references_krawczyk_rump}}

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> from symloss.core.certify import enclose
    >>> e = enclose(RandomRouting(2), 1, 1.01, prec=64)
    >>> e.margin < 1
    True
    """
    check_real(rho_lo, "rho_lo", lower=0, lower_open=True)
    check_real(rho_hi, "rho_hi", lower=0, lower_open=True)
    comp = model.compiled
    comp.require_smooth()
    n = comp.n
    with flint_prec(prec):
        lo, hi = to_arb(rho_lo), to_arb(rho_hi)
        if not lo <= hi:
            raise ValueError(f"rho_lo must be <= rho_hi, got {rho_lo} and {rho_hi}")
        rl, rh = lo.log(), hi.log()
        R = arb.union(rl, rh)
        r_mid = arb(R.mid())
        if y_mid is None:
            y_mid = float_fixed_point(model, arb_to_mpf(r_mid.exp()))
        sel = comp.selection(y_mid)
        m, _ = _newton_arb(comp, y_mid, r_mid, prec, sel)
        _g, Jm, dr = comp.GJ_arb(m, r_mid, sel)
        try:
            t = Jm.mid().solve(arb_mat([[d.mid()] for d in dr]))
        except (ZeroDivisionError, ValueError):
            raise PrecisionError("singular Jacobian at the middle of the load interval") from None
        w = R.rad()
        rad = [abs(t[i, 0].mid()) * w * 2 + arb(2) ** (-(prec - 30)) * (1 + abs(m[i])) for i in range(n)]
        Y = None
        for _ in range(8):
            ok, margin, K, Y = _krawczyk(comp, m, rad, R, sel, Y)
            if ok:
                box = [arb(m[i], rad[i]) for i in range(n)]
                B = comp.blocking_arb(box, R)
                LB = comp.log_blocking_arb(box, R)
                return Enclosure(rho_lo, rho_hi, box, B, LB, margin, prec)
            if K is None:
                break
            # epsilon inflation: the new radius covers K with a margin
            rad = [max(rad[i] * 2, (abs(K[i] - m[i]).upper() if K[i].is_finite() else rad[i] * 8) * arb(1.5))
                   for i in range(n)]
            if any(not r.is_finite() or r > 50 for r in rad):
                break
    raise PrecisionError(f"{model!r}: no Krawczyk enclosure on [{rho_lo}, {rho_hi}]; bisect the interval")


# ==================================================================================================
# uniqueness attached to a solve: exclusion (small state spaces), multi-start evidence, the ODE
# ==================================================================================================

def _x_floats(res) -> list:
    xs = res.extra.get("_x_work") or res.x
    return [to_arb(mpmath.mpf(v)) for v in xs]


def _region_index(regions, res):
    """Index of the region holding the result's state, or None."""
    x = _x_floats(res)
    for k, reg in enumerate(regions):
        X = reg["X"] if "X" in reg else None
        if X is None:
            with flint_prec(_UNIQ_PREC):
                X = [arb(parse_exact(c), parse_exact(d)).exp() for c, d in zip(reg["center"], reg["delta"])]
        if all(Xi.contains(v) or Xi.overlaps(v) for Xi, v in zip(X, x)):
            return k
    return None


def ode_limit(model, rho, *, t_max: float = 1e4):
    """Where the mean-field ODE from the default start (:meth:`MeanFieldModel.initial_state`, else the
    state-kind default: independent M/M/C/C stations, or 1/2 scaled onto the invariants) settles:
    numerical integration (EVIDENCE, not a proof).

    Parameters
    ----------
    model : MeanFieldModel
        The model.
    rho : number
        The load (finite as a float).
    t_max : float
        The last time integrated to (default 1e4).

    Returns
    -------
    tuple
        ``(x0, x_end, settled)``: the start, the state at the last time, and whether the drift there is
        below 1e-8 (max-norm).

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> from symloss.core.certify import ode_limit
    >>> x0, x, settled = ode_limit(RandomRouting(2), 1)
    >>> [round(v, 8) for v in x], settled
    ([0.4, 0.4, 0.2], True)
    """
    rho_f = float(to_mpf(rho))
    x0 = default_initial_state(model, rho_f)
    S = StateSpace(model)
    if S.violation(x0, 1e-9) is not None:
        x0 = np.clip(x0, 0.0, 1.0)
    times = [0.0] + [float(t) for t in (1.0, 10.0, 100.0, 1e3, 1e4, 1e5) if t <= t_max]
    r = integrate_ode(model, rho_f, x0, times, rtol=1e-10, atol=1e-13)
    x = r.x[-1]
    f = np.asarray(model._np_drift(*x, rho_f), dtype=float).ravel()
    return [float(v) for v in x0], [float(v) for v in x], bool(np.max(np.abs(f)) < 1e-8)


def _ode_reaches(model, rho, regions) -> str:
    try:
        x0, x, settled = ode_limit(model, rho)
    except (RuntimeError, ValueError, FloatingPointError) as exc:
        return f"the ODE from the default start could not be integrated ({exc})"
    start = "[" + ", ".join(f"{v:.6g}" for v in x0) + "]"
    if not settled:
        return f"the ODE from the default start {start} has not settled by t = 1e4 (numerical)"
    best, dist = None, math.inf
    for k, reg in enumerate(regions):
        xr = [float(v) for v in reg["x"]]
        dd = max(abs(a - b) for a, b in zip(xr, x))
        if dd < dist:
            best, dist = k, dd
    if best is None or dist > 1e-5:
        return f"the ODE from the default start {start} settles at a state none of them holds (numerical)"
    return f"the ODE from the default start {start} reaches #{best} (numerical integration to t = 1e4: EVIDENCE)"


def _fmt_x(x) -> str:
    return "[" + ", ".join(mpmath.nstr(mpmath.mpf(v), 8) for v in x) + "]"


def _multistart_starts(model, S: StateSpace, rho_f: float) -> list:
    n = S.n
    base = default_initial_state(model, rho_f)
    kind = getattr(model, "state_kind", "custom")
    verts = []
    if kind == "occupancy" and S.dim == n - 1:
        verts = [np.eye(n)[k] for k in range(n)]
    elif kind == "tail":
        verts = [np.array([1.0] * k + [0.0] * (n - k)) for k in range(n + 1)]
    elif not S.E and n <= 6:
        verts = [np.array([(c >> i) & 1 for i in range(n)], dtype=float) for c in range(1 << n)]
    starts = [base] + [0.8 * v + 0.2 * base for v in verts]
    return [np.clip(s, 1e-12, 1.0) for s in starts]


def _multistart(model, rho, res) -> tuple:
    """Float Newton (log variables) from the default start and the vertices of the state space moved
    a fifth of the way to it; distinct zeros in the state space are certified (Krawczyk regions)."""
    S = StateSpace(model)
    comp = model.compiled
    rho_f = float(to_mpf(rho))
    r = _load_log(rho)
    with flint_prec(_UNIQ_PREC):
        u = _Uniqueness(model, _load_ball(rho), _UNIQ_PREC)
    starts = _multistart_starts(model, S, rho_f)
    found = 0
    for x0 in starts:
        try:
            with np.errstate(all="ignore"):
                y, ok, _ = _newton_float(comp, np.log(x0), r)
        except (FloatingPointError, ValueError, ZeroDivisionError, np.linalg.LinAlgError):
            continue
        if not ok or not np.all(np.isfinite(y)) or np.max(y) > 1e-6 or S.violation(np.exp(y), 1e-7) is not None:
            continue
        found += 1
        if any(all(X.contains(arb(float(v))) for X, v in zip(reg["X"], np.exp(y))) for reg in u.regions):
            continue
        with flint_prec(_UNIQ_PREC):
            u.region(y) and u.regions.append(u.region(y))
    return u, len(starts), found


def _uniqueness_cache(model):
    return model.__dict__.setdefault("_uniqueness_cache", {})


_NOT_ASKED = ("NOT CHECKED (not asked: model.fixed_point(rho, uniqueness=True) or "
              "symloss.core.certify.fixed_point_uniqueness(model, rho) decides it; certified comparisons check it)")


def _attach_uniqueness(model, rho, res, *, acc=None, search: bool = True, check: bool = True) -> None:
    """Set ``res.uniqueness`` / ``res.n_found`` / ``res.extra["uniqueness"]`` (module section above);
    warn with :class:`NonUniqueFixedPointWarning` when the fixed point is one of several. With
    ``check=False`` the result only states that uniqueness was not checked (no work)."""
    key = (model.fingerprint(), type(rho).__name__, str(rho), bool(search), acc is None)
    cache = _uniqueness_cache(model)
    if not check:
        known = next((cache[k] for k in (key, key[:3] + (not key[3],) + key[4:]) if k in cache), None)
        if known is None:                     # nothing decided yet for this load: say so, do no work
            res.uniqueness, res.n_found = _NOT_ASKED, None
            return
        rec = known
    elif key in cache:
        rec = cache[key]
    else:
        rec = _uniqueness_summary(model, rho, res, acc, search)
        cache[key] = rec
    res.uniqueness = rec["text"]
    res.n_found = rec["n_found"]
    res.extra["uniqueness_record"] = {k: v for k, v in rec.items() if k not in ("text", "tree")}
    if rec["status"] == "NOT UNIQUE":
        k = _region_index(rec["regions"], res)
        this = f"this result is #{k}" if k is not None else "this result is none of them (?)"
        res.uniqueness = rec["text"].replace("{this}", this)
        warnings.warn(f"{model!r} at rho = {rho}: {res.uniqueness}", NonUniqueFixedPointWarning, stacklevel=4)
    else:
        res.uniqueness = rec["text"]


def _uniqueness_summary(model, rho, res, acc, search) -> dict:
    hook = getattr(acc, "uniqueness", None) if acc is not None else None
    if hook is not None:
        out = hook(model, rho)
        if out is not None:
            status, text = out
            return {"status": status, "n_found": 1 if status == "PROVED" else None, "text": text, "regions": []}
    try:
        S = StateSpace(model)
        comp = model.compiled
        smooth = comp.smooth and not (comp.mode == "direct" and comp._direct is None)
    except (ValueError, ArithmeticError) as exc:
        return {"status": "NOT CHECKED", "n_found": None, "text": f"NOT CHECKED ({exc})", "regions": []}
    if not smooth:
        return {"status": "NOT CHECKED", "n_found": None, "regions": [],
                "text": "NOT CHECKED (non-smooth rates: no interval exclusion)"}
    if acc is not None:
        return {"status": "NOT CHECKED", "n_found": None, "regions": [],
                "text": f"NOT CHECKED (solved by the {acc.name} accelerator, whose uniqueness argument this call "
                        f"does not re-check; fixed_point_uniqueness(model, rho) decides it for a state space of "
                        f"dimension <= {UNIQUENESS_MAX_DIM}, here {S.dim})"}
    if S.dim <= UNIQUENESS_MAX_DIM and S.dim >= 1:
        try:
            rec = fixed_point_uniqueness(model, rho)
        except (ValueError, ArithmeticError) as exc:
            return {"status": "NOT CHECKED", "n_found": None, "text": f"NOT CHECKED ({exc})", "regions": []}
        k = rec["n_found"]
        pts = "; ".join(f"#{i} x = {_fmt_x(r['x'])}" for i, r in enumerate(rec["regions"]))
        where = f"on the state space ({rec['state_space']})"
        if rec["status"] == "PROVED":
            text = (f"PROVED {where}: exactly one fixed point (exclusion in interval arithmetic over "
                    f"{rec['boxes']} boxes and a Krawczyk region; verify_uniqueness re-checks it)")
        elif rec["status"] == "NOT UNIQUE":
            many = f"{k} fixed points found" + ("" if rec["complete"] else " (at least; the exclusion is incomplete)")
            text = f"NOT UNIQUE: {many} {where}, each certified: {pts}; {{this}}; " + _ode_reaches(model, rho, rec["regions"])
        else:
            near = "; ".join(_fmt_x(v) for v in rec["undecided_near"])
            text = (f"UNDECIDED {where}: {rec['undecided']} box(es) left open by the exclusion near {near} "
                    f"({k} fixed point(s) certified)")
        rec["text"] = text
        return rec
    why = f"dimension {S.dim} > {UNIQUENESS_MAX_DIM}" if S.dim > UNIQUENESS_MAX_DIM else "a point state space"
    if not search or S.dim > UNIQUENESS_EVIDENCE_MAX_DIM or S.dim < 1:
        if S.dim > UNIQUENESS_EVIDENCE_MAX_DIM:
            why = f"dimension {S.dim} > {UNIQUENESS_EVIDENCE_MAX_DIM}"
        return {"status": "NOT CHECKED", "n_found": None, "regions": [], "text": f"NOT CHECKED ({why})"}
    try:
        u, n_starts, n_conv = _multistart(model, rho, res)
    except (ValueError, ArithmeticError) as exc:
        return {"status": "NOT CHECKED", "n_found": None, "regions": [], "text": f"NOT CHECKED ({why}; {exc})"}
    regions = [_region_record(r) for r in u.regions]
    k = len(regions)
    if k >= 2:
        pts = "; ".join(f"#{i} x = {_fmt_x(r['x'])}" for i, r in enumerate(regions))
        text = (f"NOT UNIQUE: at least {k} fixed points found by multi-start ({n_starts} starts), each certified: "
                f"{pts}; {{this}}; uniqueness not checked ({why}); " + _ode_reaches(model, rho, regions))
        return {"status": "NOT UNIQUE", "n_found": k, "complete": False, "regions": regions, "text": text}
    text = (f"EVIDENCE: uniqueness not checked ({why}); multi-start Newton from {n_starts} starts (the default "
            f"start and the vertices of the state space) found no other fixed point ({n_conv} converged)")
    return {"status": "EVIDENCE", "n_found": k if k else None, "regions": regions, "text": text}
