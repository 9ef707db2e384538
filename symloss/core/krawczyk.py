r"""Newton in ball arithmetic and the Krawczyk test (steps 2 and 3 of :mod:`symloss.core.certify`), and
:func:`certified_fixed_point`, the generic certified solver that runs the whole pipeline. Re-exported by
:mod:`symloss.core.certify`.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from flint import arb, arb_mat

from ._docfragments import CORE_DOCS
from .certified_results import FixedPointResult
from .docstrings import fill_doc
from .float_start import _arb_prec_for, start_point
from .precision import (
    DEFAULT_DPS,
    PrecisionError,
    arb_relative_accuracy_ok,
    arb_to_mpf,
    dps_to_prec,
    flint_prec,
    raise_precision,
    rounded,
    to_arb,
    to_mpf,
)

__all__ = ["certified_fixed_point"]

_MAX_PREC = 1 << 16
_GENERIC_MAX_VARIABLES = 400


# ==================================================================================================
# ball arithmetic: Newton and Krawczyk
# ==================================================================================================

def _newton_arb(comp, y0, r_ball, prec, sel):
    """Midpoint Newton iteration in ball arithmetic, the precision doubling up to ``prec`` (from
    float starts, or from ``arb`` midpoints of the ball continuation)."""
    n = comp.n
    y = [v if isinstance(v, arb) else arb(float(v)) for v in y0]
    cur = 64 if not isinstance(y0[0], arb) else min(_arb_prec_for(y0), prec)
    last_step = None
    for _ in range(200):
        cur = min(2 * cur, prec)
        with flint_prec(cur):
            G, J, _dr = comp.GJ_arb(y, r_ball, sel)
            g = arb_mat([[gi.mid()] for gi in G])
            try:
                step = J.mid().solve(g)
            except (ZeroDivisionError, ValueError):
                raise PrecisionError("singular Jacobian in the ball Newton iteration") from None
            step = [step[i, 0].mid() for i in range(n)]
            y = [arb((y[i] - step[i]).mid()) for i in range(n)]
            small = all(abs(step[i]) <= arb(2) ** (-(cur - 24)) * max(arb(1), abs(y[i])) for i in range(n))
            last_step = max(float(abs(step[i]).mid()) for i in range(n)) if n else 0.0
        if cur == prec and small:
            return y, last_step
    raise PrecisionError("the ball Newton iteration did not converge")


def _float_inverse(J: arb_mat):
    n = J.nrows()
    M = np.array([[float(J[i, j].mid()) for j in range(n)] for i in range(n)])
    try:
        Y = np.linalg.inv(M)
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(Y)):
        return None
    return arb_mat([[arb(float(v)) for v in row] for row in Y])


#: largest condition number of J(m) for which a float64 inverse is a good enough preconditioner (its
#: error, cond * 2^-52 relative, enters I - Y J(X)); beyond it Y is the midpoint of the arb inverse
_FLOAT_COND_MAX = 1e8


def _float_conditioned(J: arb_mat) -> bool:
    n = J.nrows()
    M = np.array([[float(J[i, j].mid()) for j in range(n)] for i in range(n)])
    if not np.all(np.isfinite(M)):
        return False
    with np.errstate(all="ignore"):
        c = np.linalg.cond(M, 1)
    return bool(np.isfinite(c) and c <= _FLOAT_COND_MAX)


def _krawczyk(comp, m, rad, r_ball, sel, Y=None):
    """The Krawczyk test on the box ``m + [-rad, rad]``. Returns ``(ok, margin, K, Y)``."""
    n = comp.n
    X = [arb(m[i], rad[i]) for i in range(n)]
    if r_ball.rad() > 0:
        # centred form in the load: G(m, R) in G(m, r_c) + dG/dr(m, R) (R - r_c); evaluating G at the
        # ball R term by term would add the widths of terms that cancel (the balances of each row)
        r_c = arb(r_ball.mid())
        Gc = comp.G_arb(m, r_c, sel)
        _gR, _JR, drR = comp.GJ_arb(m, r_ball, sel)
        w = arb(0, r_ball.rad())
        Gm = [Gc[i] + drR[i] * w for i in range(n)]
    else:
        Gm = comp.G_arb(m, r_ball, sel)
    _g, JX, _dr = comp.GJ_arb(X, r_ball, sel)
    if Y is None:
        _gm, Jm, _ = comp.GJ_arb(m, arb(r_ball.mid()), sel)
        Y = _float_inverse(Jm) if _float_conditioned(Jm) else None
        if Y is None:
            try:
                Y = arb_mat([[Jm[i, j].mid() for j in range(n)] for i in range(n)]).inv()
                Y = arb_mat([[Y[i, j].mid() for j in range(n)] for i in range(n)])
            except (ZeroDivisionError, ValueError):
                return False, math.inf, None, None
    I = arb_mat([[arb(1) if i == j else arb(0) for j in range(n)] for i in range(n)])
    D = arb_mat([[arb(0, rad[i])] for i in range(n)])
    K = arb_mat([[m[i]] for i in range(n)]) - Y * arb_mat([[g] for g in Gm]) + (I - Y * JX) * D
    margin = 0.0
    ok = True
    for i in range(n):
        dev = abs(K[i, 0] - m[i])
        if not (dev < rad[i]):
            ok = False
            margin = math.inf
        elif ok:
            margin = max(margin, float((dev.upper() / rad[i]).mid()))
    return ok, margin, [K[i, 0] for i in range(n)], Y


def _arb_preconditioner(J: arb_mat):
    n = J.nrows()
    try:
        Y = arb_mat([[J[i, j].mid() for j in range(n)] for i in range(n)]).inv()
    except (ZeroDivisionError, ValueError):
        return None
    return arb_mat([[Y[i, j].mid() for j in range(n)] for i in range(n)])


def _inf_norm(Y: arb_mat) -> float:
    n = Y.nrows()
    return max(float(sum((abs(Y[i, j]) for j in range(n)), arb(0)).mid()) for i in range(n))


# ==================================================================================================
# the generic certified solver
# ==================================================================================================

@fill_doc(CORE_DOCS)
def certified_fixed_point(model, rho, dps: int = DEFAULT_DPS, *, residual: bool = True,
                          y_start=None) -> FixedPointResult:
    """The certified fixed point of ``model`` at load ``rho`` from its definition only (module
    docstring), whatever accelerators exist.

    Parameters
    ----------
    model : MeanFieldModel
        A model with smooth rates and at most 400 state variables.
    rho : float, int, Fraction or mpmath.mpf
        The load.
    dps : int
        Significant digits of the blocking.
    residual : bool
        Compute the drift residual of the returned state.
    y_start : sequence, optional
        A start ``y = log x`` for the ball Newton iteration (default ``start_point``).

    Returns
    -------
    FixedPointResult
        With the Krawczyk box and margin in ``extra``.

    Raises
    ------
    ValueError
        If the model has more than 400 variables or non-smooth rates.
    PrecisionError
        If ``dps`` digits cannot be certified.

    {{references_krawczyk_rump}}

    Examples
    --------
    >>> import mpmath
    >>> from symloss import PowerOfD
    >>> from symloss.core.certify import certified_fixed_point
    >>> r = certified_fixed_point(PowerOfD(2, 2), 1, 20)        # no shooting: the generic solver
    >>> mpmath.nstr(r.blocking, 20), r.method.split(":")[0]
    ('0.053034671871595439739', 'generic')
    """
    comp = model.compiled
    comp.require_smooth()
    n = comp.n
    if n > _GENERIC_MAX_VARIABLES:
        raise ValueError(f"the generic certified solver handles at most {_GENERIC_MAX_VARIABLES} state variables, "
                         f"this model has {n}")
    y_f = start_point(model, rho) if y_start is None else y_start
    if not isinstance(y_f[0], arb):
        y_f = np.asarray(y_f, dtype=float)
    ymax = max(abs(float(v.mid())) if isinstance(v, arb) else abs(float(v)) for v in y_f) if n else 0.0
    prec = dps_to_prec(dps) + 64 + int(math.log2(1.0 + ymax)) + 2 * int(math.log2(n + 2))
    with mpmath.workdps(30):
        r_f = float(mpmath.log(to_mpf(rho)))
    y_fl = np.array([float(v.mid()) if isinstance(v, arb) else float(v) for v in y_f])
    with np.errstate(all="ignore"):
        grad = comp.grad_log_blocking(y_fl, r_f)
    sens = 1.0 + float(np.sum(np.abs(grad))) if np.all(np.isfinite(grad)) else 1.0 + n * (1 + ymax)
    sel = comp.selection(np.maximum(y_fl, -700.0))
    state = {"sens": sens, "base": prec}

    def attempt(prec):
        with flint_prec(prec):
            r_ball = to_arb(rho).log()
            m, _ = _newton_arb(comp, y_f, r_ball, prec, sel)
            _gm, Jm, _ = comp.GJ_arb(m, r_ball, sel)
            Y = None if _float_conditioned(Jm) else _arb_preconditioner(Jm)
            # the quadratic term Y (J(X) - J(m)) (X - m) of the Krawczyk operator: a box of radius
            # delta contracts only when delta |Y| is small (|Y| ~ d^C for doubly exponential tails)
            ynorm = _inf_norm(Y) if Y is not None else 1.0
            delta = 10.0 ** (-(dps + 3)) / (state["sens"] * max(1.0, ynorm))
            if prec < state["base"] + 2 * int(math.log2(max(1.0, ynorm))):
                return False, None, state["base"] + 2 * int(math.log2(max(1.0, ynorm)))
            rad = [arb(delta)] * n
            ok, margin, _K, _Y = _krawczyk(comp, m, rad, r_ball, sel, Y)
            if ok:
                box = [arb(m[i], rad[i]) for i in range(n)]
                B = comp.blocking_arb(box, r_ball)
                if arb_relative_accuracy_ok(B, dps):
                    x_work = [arb_to_mpf(mi.exp()) for mi in m]
                    bracket = (arb_to_mpf(arb(B.lower())), arb_to_mpf(arb(B.upper())))
                    Bm = arb_to_mpf(B)
                    box_s = [(mpmath.nstr(arb_to_mpf(arb(b.lower())), 20), mpmath.nstr(arb_to_mpf(arb(b.upper())), 20))
                             for b in box]
                    return True, (prec, delta, margin, x_work, bracket, Bm, box_s), None
                state["sens"] *= 10.0
        return False, None, None

    try:
        prec, delta, margin, x_work, bracket, Bm, box_s = raise_precision(
            attempt, prec, what=f"{model!r}: fixed point at rho={rho}", max_prec=_MAX_PREC)
    except PrecisionError:
        raise PrecisionError(f"{model!r}: fixed point at rho={rho} not certified to {dps} digits "
                             "(Krawczyk test failed up to the precision limit)") from None
    with mpmath.workdps(dps + 15):
        rm = to_mpf(rho)
        res = model.drift_residual(x_work, rm) if residual else mpmath.nan
        x = [rounded(v, dps) for v in x_work]
        Bv = rounded(Bm, dps)
    return FixedPointResult(
        model.name, rm, x, Bv, bracket, res,
        "generic: float continuation, Newton in arb, Krawczyk test on the model's stationary equations "
        "in y = log x", dps,
        {"box": box_s, "certificate": {"kind": "krawczyk", "variables": "log", "delta": f"{delta:.3e}",
                                        "margin": margin, "prec": prec, "fingerprint": model.fingerprint()},
         "_x_work": x_work})
