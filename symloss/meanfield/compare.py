r"""Comparisons between any two mean-field models: crossing loads, thresholds and dominance.

For two models ``a`` and ``b`` (any :class:`~symloss.MeanFieldModel`, shipped or user-defined) let
:math:`D(\rho) = \log B_a(\rho) - \log B_b(\rho)`.

* :func:`crossing_loads` finds every load in a range where :math:`D = 0`;
* :func:`threshold_load` is the load above which ``a`` blocks strictly less than ``b`` at every
  larger load (0 when that holds for every load);
* :func:`dominance` reports whether one model blocks no more than the other over a range.

The ``(C, d, dt)`` forms of :func:`crossing_loads` and :func:`threshold_load` stay as shorthands for
``model_a = RetrialOfD(C, dt)`` and ``model_b = PowerOfD(C, d)`` (random routing for ``d = 1``), the
question of the paper (Cuesta, Jonckheere, Prabhu, Brun, arXiv:2611.06267, 2026): from which load
does retrial-of-:math:`\tilde d` beat power-of-``d``?

Guarantees. The scan is a float64 log-grid with slope-based refinement (a stated heuristic, see
:func:`crossing_loads`); every crossing it finds is then refined and *certified* by sign changes of
ball-bracketed blockings of both models (each computed by its verified accelerator or by the generic
Krawczyk solver). With ``method="eliminant"`` every crossing is a real root of the resultant of the
two eliminants, isolated exactly, so none is missed in the range. Proofs over *all* loads are the
business of ``symloss verify``.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp

from ..core.model import BSYM, RHO, MeanFieldModel
from ..core.precision import DEFAULT_DPS, PrecisionError, check_dps, rounded, to_mpf
from ..core.results import ResultMixin
from ..core.validation import BudgetError, check_int, check_real
from .models import PowerOfD, RandomRouting, RetrialOfD

__all__ = ["crossing_loads", "threshold_load", "dominance", "CrossingResult", "DominanceResult"]


@dataclass
class CrossingResult(ResultMixin):
    """Crossings of two models' blockings (:func:`crossing_loads`).

    Attributes
    ----------
    C, d, dt : int or None
        Set for the retrial-vs-power shorthand ``crossing_loads(C, d, dt)``, else ``None``.
    crossings : list of mpmath.mpf
        The loads where the blockings are equal, increasing, each to the ``dps`` digits asked for.
    rho_min, rho_max : float or mpmath.mpf
        The range searched.
    evaluations : int
        Float evaluations of the scan (or isolated roots, with the eliminant method).
    guarantee : str
        What is certified (the method and its guarantee).
    models : tuple of str
        Both models (``a`` first).
    """
    C: Any
    d: Any
    dt: Any
    crossings: list
    rho_min: Any
    rho_max: Any
    evaluations: int
    guarantee: str
    models: tuple = ()

    def to_dict(self):
        """Plain data (loads as 20-digit strings), for JSON.

        Returns
        -------
        dict
        """
        return {"C": self.C, "d": self.d, "dt": self.dt, "models": list(self.models),
                "crossings": [mpmath.nstr(c, 20) for c in self.crossings],
                "rho_min": str(self.rho_min), "rho_max": str(self.rho_max), "evaluations": self.evaluations,
                "guarantee": self.guarantee}


@dataclass
class DominanceResult(ResultMixin):
    """Whether ``model_a`` blocks no more than ``model_b`` on ``[rho_min, rho_max]``
    (:func:`dominance`).

    Attributes
    ----------
    models : tuple of str
        Both models (``a`` first).
    holds : bool
        ``a`` blocks strictly less than ``b`` at every certified sample and there is no crossing.
    crossings : list of mpmath.mpf
        The crossings in the range.
    signs : list of int
        The certified sign of ``log B_a - log B_b`` on each piece between consecutive crossings.
    rho_min, rho_max : float or mpmath.mpf
        The range.
    guarantee : str
        A scan with certified samples: EVIDENCE over the range, not a proof for every load (see
        ``symloss verify`` for proofs).
    samples : list of dict
        The load, the log ratio and its certified sign at each sample.
    """
    models: tuple
    holds: bool
    crossings: list
    signs: list
    rho_min: Any
    rho_max: Any
    guarantee: str
    samples: list = field(default_factory=list)

    def to_dict(self):
        """Plain data (loads as 20-digit strings), for JSON.

        Returns
        -------
        dict
        """
        return {"models": list(self.models), "holds": self.holds,
                "crossings": [mpmath.nstr(c, 20) for c in self.crossings], "signs": self.signs,
                "rho_min": str(self.rho_min), "rho_max": str(self.rho_max), "guarantee": self.guarantee,
                "samples": self.samples}


# --------------------------------------------------------------------------------------------------
# arguments
# --------------------------------------------------------------------------------------------------

def _is_int_like(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _shorthand(C, d, dt):
    C = check_int(C, "C", min_value=1, max_value=1000)
    d = check_int(d, "d", min_value=1, max_value=64)
    dt = check_int(dt, "dt", min_value=1, max_value=64)
    b = PowerOfD(C, d) if d > 1 else RandomRouting(C)
    return RetrialOfD(C, dt), b, (C, d, dt)


def _keyword_shorthand(model_a, model_b, C, d, fname):
    """``f(C=.., d=.., dt=..)``: the keyword spelling of the ``(C, d, dt)`` shorthand."""
    if C is None and d is None:
        if model_a is None:
            raise TypeError(f"{fname}() needs two models, or the integers C, d, dt")
        return model_a, model_b
    if model_a is not None or model_b is not None:
        raise TypeError(f"{fname}(): give either two models or C, d, dt, not both")
    if C is None or d is None:
        raise TypeError(f"{fname}(C=.., d=.., dt=..) needs all three of C, d and dt")
    return C, d


def _models(a, b, dt, fname):
    if _is_int_like(a):
        if b is None or dt is None:
            raise TypeError(f"{fname}(C, d, dt) needs three integers, or two models")
        return _shorthand(a, b, dt)
    if not isinstance(a, MeanFieldModel):
        raise TypeError(f"model_a must be a MeanFieldModel (or the integers C, d, dt), got {type(a).__name__}")
    if not isinstance(b, MeanFieldModel):
        raise TypeError(f"model_b must be a MeanFieldModel, got {type(b).__name__}")
    if dt is not None:
        raise TypeError(f"{fname}(model_a, model_b) takes no third positional argument")
    return a, b, (None, None, None)


def _identical_models(a, b) -> bool:
    """Same stationary system and blocking (same variables): the two models coincide."""
    if list(a.variables) != list(b.variables):
        return False
    fa, fb = list(a.drift()), list(b.drift())
    if any(sp.expand(x - y) != 0 for x, y in zip(fa, fb)):
        return False
    if [(list(c), v) for c, v in a._invariants] != [(list(c), v) for c, v in b._invariants]:
        return False
    return sp.expand(a._blocking - b._blocking) == 0


# --------------------------------------------------------------------------------------------------
# evaluations
# --------------------------------------------------------------------------------------------------

def _equal_at_sample_loads(a, b, rho_min, rho_max) -> bool:
    """Two models written in different coordinates can still coincide (retrial-of-d and power-of-d
    at C = 1): true when log B_a - log B_b is below 10^-25 at three loads of the range."""
    with mpmath.workdps(40):
        lo, hi = to_mpf(rho_min), to_mpf(rho_max)
        pts = [lo * (hi / lo) ** (mpmath.mpf(k) / 4) for k in (1, 2, 3)]
        for r in pts:
            v = _logdiff_models(a, b, r, 30)[0]
            if abs(v) > mpmath.mpf(10) ** -25:
                return False
    return True


def _logdiff_models(a, b, rho, dps):
    """log B_a - log B_b with certified brackets: returns (value, lo, hi)."""
    from ..core.certify import solve
    ra = solve(a, rho, dps=dps, residual=False)      # certified and verified; no mpmath drift residual
    rb = solve(b, rho, dps=dps, residual=False)
    with mpmath.workdps(dps + 10):
        v = mpmath.log(ra.blocking) - mpmath.log(rb.blocking)
        lo = mpmath.log(ra.blocking_bracket[0]) - mpmath.log(rb.blocking_bracket[1])
        hi = mpmath.log(ra.blocking_bracket[1]) - mpmath.log(rb.blocking_bracket[0])
    return v, lo, hi


def _logdiff(C, d, dt, rho, dps):
    """Shorthand kept for the callers of the (C, d, dt) form."""
    a, b, _ = _shorthand(C, d, dt)
    return _logdiff_models(a, b, rho, dps)


def _float_logdiff(a, b, rho: float) -> float:
    from .accelerators import float_log_blocking
    try:
        return float_log_blocking(a, rho) - float_log_blocking(b, rho)
    except (PrecisionError, ValueError, ArithmeticError, OverflowError):
        return float(_logdiff_models(a, b, mpmath.mpf(rho), 15)[0])


def _sign(t):
    return 1 if t[1] > 0 else (-1 if t[2] < 0 else 0)


def _refine_crossing(a, b, lo, hi, dps):
    """Regula falsi / bisection on [lo, hi] with certified signs until the bracket is below
    10^-(dps+2) relative; returns the midpoint rounded to ``dps`` digits."""
    w = dps + 10
    with mpmath.workdps(w):
        lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
        fa = _logdiff_models(a, b, lo, w)
        fb = _logdiff_models(a, b, hi, w)
        sa, sb = _sign(fa), _sign(fb)
        if sa != 0 and sa == sb:
            return None      # the float scan saw a sign change that the certified values do not have
        if sa == 0 or sb == 0:
            raise PrecisionError(f"crossing near rho in [{mpmath.nstr(lo, 8)}, {mpmath.nstr(hi, 8)}] not certified")
        va, vb = fa[0], fb[0]
        for _ in range(400):
            if (hi - lo) < mpmath.mpf(10) ** (-(dps + 2)) * lo:
                break
            m = hi - vb * (hi - lo) / (vb - va) if vb != va else (lo + hi) / 2
            if not (lo < m < hi) or (m - lo) < (hi - lo) / 100 or (hi - m) < (hi - lo) / 100:
                m = (lo + hi) / 2
            fm = _logdiff_models(a, b, m, w)
            sm = _sign(fm)
            if sm == 0:
                raise PrecisionError("sign of log B_a - log B_b undecided near a crossing")
            if sm == sa:
                lo, va = m, fm[0]
            else:
                hi, vb = m, fm[0]
        return rounded((lo + hi) / 2, dps)


def _bisect_poly(f, a, b, rtol):
    """Bisection on an isolating interval [a, b] with f(a) f(b) <= 0 (at the working precision)."""
    fa = f(a)
    if fa == 0:
        return a
    for _ in range(100000):
        if b - a <= rtol * abs(b):
            break
        m = (a + b) / 2
        fm = f(m)
        if fm == 0:
            return m
        if (fm < 0) == (fa < 0):
            a, fa = m, fm
        else:
            b = m
    return (a + b) / 2


def _crossings_by_elimination(a, b, rho_min, rho_max, dps):
    """Every crossing in [rho_min, rho_max] is a real root of R(rho) = Res_B(P_a(rho, B), P_b(rho, B));
    its real roots in the range are isolated exactly (SymPy ``Poly.intervals``), refined, and each is
    kept iff the certified blockings agree there. Returns (crossings, data) or None."""
    try:
        P1 = a.eliminant()
        P2 = b.eliminant()
    except BudgetError:
        raise
    except (PrecisionError, AssertionError, NotImplementedError, ValueError):
        return None
    R = sp.Poly(sp.resultant(P1.as_expr(), P2.as_expr(), BSYM), RHO)
    if R.is_zero:
        return None
    R = sp.Poly(sp.sqf_part(R.as_expr()), RHO)
    lo_q, hi_q = Fraction(str(rho_min)), Fraction(str(rho_max))
    ivs = R.intervals(inf=sp.Rational(lo_q.numerator, lo_q.denominator),
                      sup=sp.Rational(hi_q.numerator, hi_q.denominator))
    f = sp.lambdify(RHO, R.as_expr(), "mpmath")
    out = []
    w = dps + 15
    for (lo, hi), _mult in ivs:
        with mpmath.workdps(w):
            a_m, b_m = mpmath.mpf(lo.p) / lo.q, mpmath.mpf(hi.p) / hi.q
            root = a_m if lo == hi else _bisect_poly(f, a_m, b_m, mpmath.mpf(10) ** (-(dps + 8)))
        v = _logdiff_models(a, b, root, dps + 5)[0]
        if abs(v) < mpmath.mpf(10) ** (-(dps - 5)):
            out.append(rounded(root, dps))
    return out, {"resultant_degree": R.degree(), "isolated_roots": len(ivs)}


def _scan(a, b, rho_min, rho_max):
    """Adaptive float log-grid scan of D; returns (sign-change cells in log rho, evaluations, D)."""
    n_eval = 0
    lo_l, hi_l = math.log(float(rho_min)), math.log(float(rho_max))
    n0 = max(16, int(64 * (hi_l - lo_l) / math.log(10)))
    grid = [lo_l + (hi_l - lo_l) * i / n0 for i in range(n0 + 1)]
    vals = {}

    def D(l):
        nonlocal n_eval
        if l not in vals:
            n_eval += 1
            vals[l] = _float_logdiff(a, b, math.exp(l))
        return vals[l]
    for l in grid:
        D(l)
    cells = list(zip(grid[:-1], grid[1:]))
    sign_cells = []
    # the refinement test runs on asinh(D): the same signs, equal to D near 0 (where crossings are),
    # ~ log(2|D|) far from 0. Power-of-d's log-blocking reaches -1e302 at light loads, and a Lipschitz
    # test on D itself refined such cells 20 000 times (C = 1000) to no purpose.
    S = lambda l: math.asinh(D(l))  # noqa: E731
    while cells:
        x0, x1 = cells.pop()
        D0, D1 = D(x0), D(x1)
        if D0 == 0 or D1 == 0 or (D0 < 0) != (D1 < 0):
            sign_cells.append((x0, x1))
            continue
        D0, D1 = S(x0), S(x1)
        slope = abs(D1 - D0) / (x1 - x0)
        i_prev, i_next = x0 - (x1 - x0), x1 + (x1 - x0)
        neigh = [abs(S(i_next) - D1) / (x1 - x0) if i_next <= hi_l else 0.0,
                 abs(D0 - S(i_prev)) / (x1 - x0) if i_prev >= lo_l else 0.0]
        L = 4 * max([slope] + neigh)
        if min(abs(D0), abs(D1)) <= 2 * L * (x1 - x0) and x1 - x0 > 1e-8:
            m = (x0 + x1) / 2
            cells += [(x0, m), (m, x1)]
    return sorted(sign_cells), n_eval, D


def crossing_loads(model_a=None, model_b=None, dt=None, *, C=None, d=None, rho_min=0.01, rho_max=None,
                   dps: int = DEFAULT_DPS, method: str = "auto") -> CrossingResult:
    r"""Every load in ``[rho_min, rho_max]`` where the two models' blockings are equal.

    Call as ``crossing_loads(model_a, model_b)`` with any two :class:`~symloss.MeanFieldModel`, or
    with the shorthand ``crossing_loads(C, d, dt)`` (or ``C=.., d=.., dt=..``) for
    ``RetrialOfD(C, dt)`` against ``PowerOfD(C, d)``.

    Algorithm: :math:`D(\rho) = \log B_a - \log B_b` is sampled on a grid uniform in
    :math:`\log\rho` (64 cells per decade at least; float64 evaluations from the accelerators or the
    generic float continuation) and refined adaptively: a cell :math:`[\rho_1, \rho_2]` without a
    sign change is split while :math:`\min(|D(\rho_1)|, |D(\rho_2)|) \le 2 L (\log\rho_2 - \log\rho_1)`,
    where ``L`` bounds :math:`|dD/d\log\rho|` on the cell, estimated from the finite differences of
    the neighbouring cells times a safety factor 4. Guarantee (stated, not proved): no sign change
    of ``D`` is missed in a cell whose slope is within the factor 4 of its neighbours' and which is
    wider than :math:`10^{-8}` in :math:`\log\rho`; each crossing is then refined by bisection with
    certified signs (ball brackets of both blockings) to ``dps`` digits. ``rho_max`` defaults to
    ``50 C`` (``C`` of the first model that has one, else 50).

    With ``method="eliminant"`` (``"auto"`` uses it for the shorthand with ``C <= 2`` and
    ``d, dt <= 3``) the guarantee is a certificate: every crossing is a real root of the resultant in
    ``B`` of the two eliminants, those roots are isolated exactly in the range, and each is kept iff
    the certified blockings agree there.

    Two identical models (same stationary system and blocking) are refused with a ``ValueError``.
    The shorthand also reads as keywords: ``crossing_loads(C=3, d=2, dt=3)``.

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        The two models (any definitions); or the integers ``C`` and ``d`` of the shorthand.
    dt : int, optional
        Third integer of the positional shorthand ``(C, d, dt)``.
    C, d : int, optional
        Keyword spelling of the shorthand (with ``dt``): ``RetrialOfD(C, dt)`` against
        ``PowerOfD(C, d)`` (``RandomRouting(C)`` for ``d = 1``), ``1 <= C <= 1000``,
        ``1 <= d, dt <= 64``.
    rho_min : float
        Lower end of the range, ``> 0``.
    rho_max : float, optional
        Upper end, ``> rho_min``; default ``50 C``.
    dps : int
        Significant digits of each crossing, ``5 <= dps <= 100000``.
    method : {"auto", "eliminant", "adaptive"}
        ``"eliminant"``: exact root isolation of the resultant (small models only);
        ``"adaptive"``: the scan; ``"auto"``: the eliminant for the shorthand with ``C <= 2`` and
        ``d, dt <= 3``, else the scan.

    Returns
    -------
    CrossingResult
        The crossings (increasing) and the guarantee that holds for them.

    Raises
    ------
    TypeError
        If the models are neither two :class:`~symloss.MeanFieldModel` nor three integers, or both
        forms are given.
    ValueError
        If an argument is out of range, the two models coincide, or ``method="eliminant"`` is not
        tractable.
    PrecisionError
        If the sign of ``log B_a - log B_b`` cannot be certified near a crossing.

    See Also
    --------
    threshold_load, dominance

    References
    ----------
    .. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
       Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026).

    Examples
    --------
    Retrial-of-3 and power-of-2 at capacity 3 cross once, at the threshold load of [1]_:

    >>> import mpmath
    >>> from symloss import crossing_loads
    >>> res = crossing_loads(3, 2, 3, rho_max=20, dps=15)
    >>> [mpmath.nstr(c, 15) for c in res.crossings]
    ['0.949635604002727']

    Two models given as definitions:

    >>> from symloss import RetrialOfD, PowerOfD
    >>> crossing_loads(RetrialOfD(2, 3), PowerOfD(2, 2), rho_max=20, dps=15).crossings
    []
    """
    model_a, model_b = _keyword_shorthand(model_a, model_b, C, d, "crossing_loads")
    a, b, (C, d, dtt) = _models(model_a, model_b, dt, "crossing_loads")
    check_real(rho_min, "rho_min", lower=0, lower_open=True)
    dps = check_dps(dps)
    if rho_max is None:
        rho_max = 50 * (getattr(a, "C", None) or getattr(b, "C", None) or 1)
    check_real(rho_max, "rho_max", lower=float(to_mpf(rho_min)), lower_open=True)
    if method not in ("auto", "eliminant", "adaptive"):
        raise ValueError(f"method must be 'auto', 'eliminant' or 'adaptive', got {method!r}")
    if _identical_models(a, b):
        raise ValueError(f"the two models have the same stationary equations and blocking ({a!r}, {b!r}): "
                         "their blockings are equal at every load, so there are no isolated crossings")
    if _equal_at_sample_loads(a, b, rho_min, rho_max):
        raise ValueError(f"{a!r} and {b!r} have equal blockings (to 25 digits) at three loads spread over "
                         f"[{rho_min}, {rho_max}]: they coincide (e.g. both are random routing for C = 1), so "
                         "there are no isolated crossings")
    names = (repr(a), repr(b))
    short = C is not None
    if method == "eliminant" or (method == "auto" and short and C <= 2 and max(d, dtt) <= 3):
        try:
            res = _crossings_by_elimination(a, b, rho_min, rho_max, dps)
        except BudgetError as exc:
            if method == "eliminant":
                raise BudgetError(f"method='eliminant': {exc}; or use method='adaptive'") from None
            res = None
        if res is not None:
            roots, info = res
            return CrossingResult(C, d, dtt, roots, rho_min, rho_max, info["isolated_roots"],
                                  "certified: every crossing is a real root of Res_B(P_a, P_b), degree "
                                  f"{info['resultant_degree']}, whose roots in the range were isolated exactly; "
                                  "each root checked against the certified blockings", names)
        if method == "eliminant":
            raise ValueError(f"elimination is not tractable for {names[0]} vs {names[1]}; use method='adaptive'")
    cells, n_eval, _D = _scan(a, b, rho_min, rho_max)
    roots = [c for c in (_refine_crossing(a, b, mpmath.exp(x0), mpmath.exp(x1), dps) for x0, x1 in cells)
             if c is not None]
    return CrossingResult(C, d, dtt, roots, rho_min, rho_max, n_eval,
                          "adaptive log-grid with slope-based refinement (see docstring); each crossing "
                          "certified by sign changes of ball-bracketed blockings", names)


def _leading_term(model):
    from .series import blocking_expansion
    return blocking_expansion(model, 0, 1).terms[0]


def threshold_load(model_a=None, model_b=None, dt=None, *, C=None, d=None, dps: int = DEFAULT_DPS, rho_max=None):
    r"""The load above which ``model_a`` blocks strictly less than ``model_b`` at every larger load
    (in the mean field); exactly 0 where that holds for every load.

    ``threshold_load(RetrialOfD(C, dt), PowerOfD(C, d))`` equals the shorthand
    ``threshold_load(C, d, dt)`` (retrial-of-``dt`` against power-of-``d``, ``dt > d``).

    Computed as the largest crossing of :func:`crossing_loads` on ``[10^-2, rho_max]``
    (``rho_max = 50 C`` by default). The sign at ``rho_max`` must be "a lower" (for the shorthand,
    both blockings are ``1 - C/rho + C/(d rho^2) + O(rho^-3)``, so retrial-of-dt is lower at large
    load), else a ``ValueError`` asks for a larger ``rho_max``. Without a crossing in range, 0 is
    returned when the sign at ``10^-2`` agrees with the exact small-load leading terms of both
    blockings (:func:`symloss.blocking_expansion`); otherwise ``[10^-6, 10^-2]`` is searched. Not
    excluded: a pair of crossings below ``10^-2`` between which the sign returns (use
    ``symloss verify`` for the certified cases).

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        The two models; or the integers ``C`` and ``d`` of the shorthand.
    dt : int, optional
        Third integer of the positional shorthand ``(C, d, dt)``, ``dt > d``.
    C, d : int, optional
        Keyword spelling of the shorthand (with ``dt``).
    dps : int
        Significant digits of the threshold, ``5 <= dps <= 100000``.
    rho_max : float, optional
        Largest load searched; default ``50 C``.

    Returns
    -------
    mpmath.mpf
        The threshold load, to ``dps`` digits (exactly 0 when ``a`` is lower at every load).

    Raises
    ------
    TypeError
        If the models are neither two :class:`~symloss.MeanFieldModel` nor three integers.
    ValueError
        If ``dt <= d`` in the shorthand, ``a`` is not lower at ``rho_max``, or the sign as
        ``rho -> 0`` is not settled.
    PrecisionError
        If a sign cannot be certified near a crossing.

    See Also
    --------
    crossing_loads, dominance, symloss.finite_n_threshold

    References
    ----------
    .. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
       Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026).

    Examples
    --------
    >>> from symloss import threshold_load
    >>> threshold_load(2, 2, 3, dps=10)
    mpf('0.0')
    >>> import mpmath
    >>> mpmath.nstr(threshold_load(3, 2, 3, dps=15), 15)
    '0.949635604002727'
    """
    model_a, model_b = _keyword_shorthand(model_a, model_b, C, d, "threshold_load")
    if _is_int_like(model_a):
        check_int(model_a, "C", min_value=1, max_value=1000)
        d0 = check_int(model_b, "d", min_value=1, max_value=64)
        dt0 = check_int(dt, "dt", min_value=1, max_value=64)
        if dt0 <= d0:
            raise ValueError(f"dt must be > d (got d={d0}, dt={dt0}): for dt <= d power-of-d blocks no more "
                             "than retrial-of-dt at every load")
    a, b, _ = _models(model_a, model_b, dt, "threshold_load")
    dps = check_dps(dps)
    if rho_max is None:
        rho_max = 50 * (getattr(a, "C", None) or getattr(b, "C", None) or 1)
    res = crossing_loads(a, b, rho_min=0.01, rho_max=rho_max, dps=dps)
    top = _logdiff_models(a, b, rho_max, 15)
    if not top[2] < 0:
        raise ValueError(f"{a!r} does not block less than {b!r} at rho_max={rho_max}; increase rho_max")
    if res.crossings:
        return res.crossings[-1]
    low = _logdiff_models(a, b, 0.01, 15)
    try:
        (c_a, e_a), (c_b, e_b) = _leading_term(a), _leading_term(b)
        a_lower_at_0 = e_a > e_b or (e_a == e_b and c_a < c_b)
        lead = f"{c_a} rho^{e_a} vs {c_b} rho^{e_b}"
    except (ValueError, TypeError, NotImplementedError, PrecisionError) as exc:
        a_lower_at_0, lead = None, f"no expansion at 0 ({exc})"
    if low[2] < 0 and a_lower_at_0:
        return mpmath.mpf(0)
    sub = crossing_loads(a, b, rho_min=1e-6, rho_max=0.01, dps=dps, method="adaptive")
    if sub.crossings:
        return sub.crossings[-1]
    if low[2] < 0 and a_lower_at_0 is None:
        raise ValueError(f"no crossing in [1e-6, {rho_max}] and {a!r} is lower there, but the sign as rho -> 0 "
                         f"is not settled ({lead})")
    raise ValueError(f"the sign below rho = 0.01 is not settled (leading terms {lead})")


def dominance(model_a, model_b, *, rho_min=0.01, rho_max=None, dps: int = 20) -> DominanceResult:
    """Does ``model_a`` block no more than ``model_b`` on ``[rho_min, rho_max]``?

    The crossings are found and certified as in :func:`crossing_loads`; the sign of
    ``log B_a - log B_b`` is certified (ball brackets) at one load inside each piece between
    consecutive crossings and at both ends. ``holds`` is True when every certified sign is <= 0
    (``a`` lower) and there is no crossing in the open range. This is EVIDENCE over the range (the
    scan's guarantee is stated, not proved); proofs for every load are the claims of
    ``symloss verify``.

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        The two models.
    rho_min : float
        Lower end of the range, ``> 0``.
    rho_max : float, optional
        Upper end, ``> rho_min``; default ``50 C``.
    dps : int
        Digits of the crossings and of the certified samples, ``5 <= dps <= 100000``.

    Returns
    -------
    DominanceResult
        ``holds``, the crossings and the certified sign on each piece.

    Raises
    ------
    TypeError
        If a model is not a :class:`~symloss.MeanFieldModel`.
    ValueError
        If the range is invalid or the two models coincide.
    PrecisionError
        If a sign cannot be certified.

    See Also
    --------
    crossing_loads, threshold_load

    References
    ----------
    .. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
       Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026).

    Examples
    --------
    >>> from symloss import RetrialOfD, PowerOfD, dominance
    >>> res = dominance(RetrialOfD(2, 3), PowerOfD(2, 2), rho_min=0.5, rho_max=10, dps=15)
    >>> res.holds, res.signs
    (True, [-1])
    """
    res = crossing_loads(model_a, model_b, rho_min=rho_min, rho_max=rho_max, dps=dps)
    a, b, _ = _models(model_a, model_b, None, "dominance")
    pts = [to_mpf(res.rho_min)] + list(res.crossings) + [to_mpf(res.rho_max)]
    signs, samples = [], []
    with mpmath.workdps(dps + 10):
        for lo, hi in zip(pts[:-1], pts[1:]):
            m = mpmath.sqrt(lo * hi)
            t = _logdiff_models(a, b, m, dps)
            s = _sign(t)
            signs.append(s)
            samples.append({"rho": mpmath.nstr(m, 12), "log_ratio": mpmath.nstr(t[0], 8), "sign": s})
    holds = not res.crossings and all(s < 0 for s in signs)
    return DominanceResult(res.models, holds, res.crossings, signs, res.rho_min, res.rho_max,
                           "EVIDENCE over the range: " + res.guarantee + "; the sign is certified at one load "
                           "in each piece", samples)
