"""The pair of models of a comparison (:mod:`symloss.meanfield.compare`): the ``(C, d, dt)`` shorthand,
the identity of two definitions, the certified and float log-differences of the blockings and the
refinement of a crossing by root finding; re-exported by :mod:`symloss.meanfield.compare`."""
from __future__ import annotations

import numbers

import mpmath
import sympy as sp

from ..core.certify import solve
from ..core.model import MeanFieldModel
from ..core.precision import PrecisionError, rounded, to_mpf
from ..core.validation import check_int
from .accelerators import float_log_blocking
from .models import PowerOfD, RandomRouting, RetrialOfD

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
