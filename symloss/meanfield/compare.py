"""Comparisons between mean-field models: crossing loads and thresholds (seed 000).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy as sp

from ..core.precision import DEFAULT_DPS, PrecisionError, check_dps, rounded
from ..core.results import ResultMixin
from ..core.validation import check_int, check_real
from .models import BSYM, RHO, PowerOfD, RandomRouting, RetrialOfD, _check_rho

__all__ = ["crossing_loads", "threshold_load", "CrossingResult"]


# ==================================================================================================
# comparisons: crossings and thresholds
# ==================================================================================================

@dataclass
class CrossingResult(ResultMixin):
    C: int
    d: int
    dt: int
    crossings: list
    rho_min: Any
    rho_max: Any
    evaluations: int
    guarantee: str

    def to_dict(self):
        return {"C": self.C, "d": self.d, "dt": self.dt, "crossings": [mpmath.nstr(c, 20) for c in self.crossings],
                "rho_min": str(self.rho_min), "rho_max": str(self.rho_max), "evaluations": self.evaluations,
                "guarantee": self.guarantee}


def _logdiff(C, d, dt, rho, dps):
    """log B_ret(dt) - log B_pod(d) with certified brackets: returns (value, lo, hi)."""
    _check_rho(rho)
    r = RetrialOfD(C, dt)._fixed_point(rho, dps, residual=False)
    p = PowerOfD(C, d)._fixed_point(rho, dps, residual=False)
    with mpmath.workdps(dps + 10):
        v = mpmath.log(r.blocking) - mpmath.log(p.blocking)
        lo = mpmath.log(r.blocking_bracket[0]) - mpmath.log(p.blocking_bracket[1])
        hi = mpmath.log(r.blocking_bracket[1]) - mpmath.log(p.blocking_bracket[0])
    return v, lo, hi


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


def _crossings_by_elimination(C, d, dt, rho_min, rho_max, dps):
    """All crossings in [rho_min, rho_max] from the eliminants: every crossing load is a real root of
    R(rho) = Res_B(P_ret(rho, B), P_pod(rho, B)). Its real roots in the range are isolated exactly
    (SymPy ``Poly.intervals``: rational isolating intervals), refined in mpmath, and each candidate is
    kept iff the certified blockings agree there (|log B_ret - log B_pod| < 10^-(dps-5)); the other
    roots belong to non-physical branches. Returns (crossings, data) or None when not tractable."""
    from fractions import Fraction
    try:
        P1 = RetrialOfD(C, dt).eliminant()
        P2 = PowerOfD(C, d).eliminant() if d > 1 else RandomRouting(C).eliminant()
    except (PrecisionError, AssertionError, NotImplementedError):
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
    for (a, b), _mult in ivs:
        with mpmath.workdps(w):
            a_m, b_m = mpmath.mpf(a.p) / a.q, mpmath.mpf(b.p) / b.q
            # the isolating interval holds exactly one root: bracketed solver, residual checked below
            root = a_m if a == b else _bisect_poly(f, a_m, b_m, mpmath.mpf(10) ** (-(dps + 8)))
        v = _logdiff(C, d, dt, root, dps + 5)[0]
        if abs(v) < mpmath.mpf(10) ** (-(dps - 5)):
            out.append(rounded(root, dps))
    return out, {"resultant_degree": R.degree(), "isolated_roots": len(ivs)}


def crossing_loads(C, d, dt, *, rho_min=0.01, rho_max=None, dps: int = DEFAULT_DPS,
                   method: str = "auto") -> CrossingResult:
    r"""Every load in ``[rho_min, rho_max]`` where :math:`B_{ret}(\tilde d) = B_{pod}(d)`.

    Algorithm: :math:`D(\rho) = \log B_{ret}(\tilde d) - \log B_{pod}(d)` is sampled on a grid
    uniform in :math:`\log\rho` (64 cells per decade at least; float64 evaluations of the same scalar reductions) and refined adaptively: a cell
    :math:`[\rho_1, \rho_2]` without a sign change is split while
    :math:`\min(|D(\rho_1)|, |D(\rho_2)|) \le 2 L (\log\rho_2 - \log\rho_1)`, where ``L`` bounds
    :math:`|dD/d\log\rho|` on the cell estimated from the finite differences of the neighbouring
    cells times a safety factor 4. Guarantee (stated, not proved): no sign change of ``D`` is missed
    in a cell whose slope is within the factor 4 of its neighbours' and which is wider than
    :math:`10^{-8}` in :math:`\log\rho`; each crossing is then refined by bisection with certified
    signs (ball brackets of both blockings) to ``dps`` digits. ``rho_max`` defaults to ``50 C``.

    With ``method="eliminant"`` (default ``"auto"`` uses it for ``C <= 2`` and ``d, dt <= 3``) the
    guarantee is a certificate instead: every crossing is a real root of the resultant in ``B`` of the
    two eliminants, those roots are isolated exactly in the range, and each is kept iff the certified
    blockings agree there.
    """
    C = check_int(C, "C", min_value=1, max_value=1000)
    d = check_int(d, "d", min_value=1, max_value=64)
    dt = check_int(dt, "dt", min_value=1, max_value=64)
    _check_rho(rho_min)
    dps = check_dps(dps)
    rho_max = 50 * C if rho_max is None else rho_max
    check_real(rho_max, "rho_max", lower=float(rho_min), lower_open=True)
    if method not in ("auto", "eliminant", "adaptive"):
        raise ValueError(f"method must be 'auto', 'eliminant' or 'adaptive', got {method!r}")
    if method == "eliminant" or (method == "auto" and C <= 2 and max(d, dt) <= 3):
        res = _crossings_by_elimination(C, d, dt, rho_min, rho_max, dps)
        if res is not None:
            roots, info = res
            return CrossingResult(C, d, dt, roots, rho_min, rho_max, info["isolated_roots"],
                                  "certified: every crossing is a real root of Res_B(P_ret, P_pod), "
                                  f"degree {info['resultant_degree']}, whose roots in the range were "
                                  "isolated exactly; each root checked against the certified blockings")
        if method == "eliminant":
            raise ValueError(f"elimination is not tractable for C={C}, d={d}, dt={dt}; use method='adaptive'")
    n_eval = 0
    lo_l, hi_l = math.log(float(rho_min)), math.log(float(rho_max))
    n0 = max(16, int(64 * (hi_l - lo_l) / math.log(10)))
    grid = [lo_l + (hi_l - lo_l) * i / n0 for i in range(n0 + 1)]
    vals = {}

    ret, pod = RetrialOfD(C, dt), PowerOfD(C, d)

    def D(l):
        nonlocal n_eval
        if l not in vals:
            n_eval += 1
            vals[l] = _float_logdiff(ret, pod, math.exp(l))
        return vals[l]
    for l in grid:
        D(l)
    cells = list(zip(grid[:-1], grid[1:]))
    sign_cells = []
    while cells:
        a, b = cells.pop()
        Da, Db = D(a), D(b)
        if Da == 0 or Db == 0 or (Da < 0) != (Db < 0):
            sign_cells.append((a, b))
            continue
        slope = abs(Db - Da) / (b - a)
        i_prev, i_next = a - (b - a), b + (b - a)
        neigh = [abs(D(i_next) - Db) / (b - a) if i_next <= hi_l else 0.0,
                 abs(Da - D(i_prev)) / (b - a) if i_prev >= lo_l else 0.0]
        L = 4 * max([slope] + neigh)
        if min(abs(Da), abs(Db)) <= 2 * L * (b - a) and b - a > 1e-8:
            m = (a + b) / 2
            cells += [(a, m), (m, b)]
    roots = []
    for a, b in sorted(sign_cells):
        roots.append(_refine_crossing(C, d, dt, mpmath.exp(a), mpmath.exp(b), dps))
    return CrossingResult(C, d, dt, roots, rho_min, rho_max, n_eval,
                          "adaptive log-grid with slope-based refinement (see docstring); each crossing "
                          "certified by sign changes of ball-bracketed blockings")


def _float_logdiff(ret: "RetrialOfD", pod: "PowerOfD", rho: float) -> float:
    """log B_ret - log B_pod in float64 (the scan of :func:`crossing_loads`; crossings are then
    refined and certified in ball arithmetic). Falls back to the certified solvers at 15 digits
    where a float start fails."""
    from ..erlang.erlang_b import _log_erlang_b_scalar
    t = pod._float_start(rho)
    a = ret._float_start(rho) if ret.d > 1 else rho
    if t is None or not math.isfinite(a):
        return float(_logdiff(ret.C, pod.d, ret.d, mpmath.mpf(rho), 15)[0])
    return ret.d * _log_erlang_b_scalar(ret.C, a) - pod.d * t


def _refine_crossing(C, d, dt, a, b, dps):
    """Bisection/secant on [a, b] with certified signs until the bracket is below 10^-(dps+1) relative."""
    w = dps + 10
    with mpmath.workdps(w):
        a, b = mpmath.mpf(a), mpmath.mpf(b)
        fa = _logdiff(C, d, dt, a, w)
        fb = _logdiff(C, d, dt, b, w)
        sa = 1 if fa[1] > 0 else (-1 if fa[2] < 0 else 0)
        sb = 1 if fb[1] > 0 else (-1 if fb[2] < 0 else 0)
        if sa == 0 or sb == 0 or sa == sb:
            raise PrecisionError(f"crossing near rho in [{mpmath.nstr(a, 8)}, {mpmath.nstr(b, 8)}] not certified")
        va, vb = fa[0], fb[0]
        for _ in range(400):
            if (b - a) < mpmath.mpf(10) ** (-(dps + 2)) * a:
                break
            # Illinois-style regula falsi in rho, guarded by bisection
            m = b - vb * (b - a) / (vb - va) if vb != va else (a + b) / 2
            if not (a < m < b) or (m - a) < (b - a) / 100 or (b - m) < (b - a) / 100:
                m = (a + b) / 2
            fm = _logdiff(C, d, dt, m, w)
            sm = 1 if fm[1] > 0 else (-1 if fm[2] < 0 else 0)
            if sm == 0:
                raise PrecisionError("sign of B_ret - B_pod undecided near a crossing")
            if sm == sa:
                a, va = m, fm[0]
            else:
                b, vb = m, fm[0]
        return rounded((a + b) / 2, dps)


def threshold_load(C, d, dt, *, dps: int = DEFAULT_DPS, rho_max=None):
    r"""The load above which retrial-of-``dt`` blocks strictly less than power-of-``d`` at every
    larger load (in the mean field); exactly 0 where that holds for every load.

    Computed as the largest crossing of :func:`crossing_loads` on ``[rho_min, rho_max]`` with
    ``rho_min = 10^-2`` and ``rho_max = 50 C`` (default). The sign at ``rho_max`` must be
    "retrial lower" (for ``dt > d`` both blockings are ``1 - C/rho + C/(d rho^2) + O(rho^-3)``, so
    retrial-of-dt is lower at large load), else a ``ValueError`` asks for a larger ``rho_max``.
    Without a crossing in range, 0 is returned when the sign at ``10^-2`` agrees with the exact
    small-load leading terms (:math:`B_{ret}(\tilde d) \sim (\rho^C/C!)^{\tilde d}` against
    :math:`B_{pod}(d) \sim c\,\rho^{d(d^C-1)/(d-1)}`, from :mod:`symloss.meanfield_series`);
    otherwise ``[10^-6, 10^-2]`` is searched. Not excluded: a pair of crossings below ``10^-2``
    between which the sign returns (use ``symloss verify`` for the certified cases).

    Examples
    --------
    >>> from symloss import threshold_load
    >>> threshold_load(2, 2, 3, dps=10)
    mpf('0.0')
    """
    C = check_int(C, "C", min_value=1, max_value=1000)
    d = check_int(d, "d", min_value=1, max_value=64)
    dt = check_int(dt, "dt", min_value=1, max_value=64)
    dps = check_dps(dps)
    if dt <= d:
        raise ValueError(f"dt must be > d (got d={d}, dt={dt}): for dt <= d power-of-d blocks no more "
                         "than retrial-of-dt at every load")
    rho_max = 50 * C if rho_max is None else rho_max
    res = crossing_loads(C, d, dt, rho_min=0.01, rho_max=rho_max, dps=dps)
    top = _logdiff(C, d, dt, rho_max, 15)
    if not top[2] < 0:
        raise ValueError(f"retrial-of-{dt} does not block less than power-of-{d} at rho_max={rho_max}; "
                         "increase rho_max")
    if res.crossings:
        return res.crossings[-1]
    # no crossing in [0.01, rho_max]: compare the sign at 0.01 with the exact small-load leading terms
    # B ~ c rho^e of both policies (symloss.meanfield_series)
    from .series import blocking_expansion
    low = _logdiff(C, d, dt, 0.01, 15)
    lead_ret = blocking_expansion(RetrialOfD(C, dt), 0, 1).terms[0]
    lead_pod = blocking_expansion(PowerOfD(C, d) if d > 1 else RandomRouting(C), 0, 1).terms[0]
    (c_r, e_r), (c_p, e_p) = lead_ret, lead_pod
    ret_lower_at_0 = e_r > e_p or (e_r == e_p and c_r < c_p)
    if low[2] < 0 and ret_lower_at_0:
        return mpmath.mpf(0)
    sub = crossing_loads(C, d, dt, rho_min=1e-6, rho_max=0.01, dps=dps, method="adaptive")
    if sub.crossings:
        return sub.crossings[-1]
    raise ValueError(f"the sign below rho = 0.01 is not settled (leading terms {lead_ret} vs {lead_pod})")
