r"""Newton in ball arithmetic and the Krawczyk test (steps 2 and 3 of :mod:`symloss.core.certify`), and
:func:`certified_fixed_point`, the generic certified solver that runs the whole pipeline. Re-exported by
:mod:`symloss.core.certify`.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from flint import arb, arb_mat
from flint import ctx as flint_ctx
from mpmath.libmp import from_man_exp as _from_man_exp
from mpmath.libmp import to_str as _to_str

from ._docfragments import CORE_DOCS
from .certified_results import FixedPointResult
from .docstrings import fill_doc
from .float_start import _arb_prec_for, start_point
from .krawczyk_scaled import _log2_ceil, coarse_start, scaled_certificate
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

def _newton_arb(comp, y0, r_ball, prec, sel, *, with_jacobian: bool = False):
    """Midpoint Newton iteration in ball arithmetic, the precision doubling up to ``prec`` (from
    float starts, or from ``arb`` midpoints of the ball continuation). Each step solves with the
    midpoint Jacobian approximately (python-flint ``algorithm="approx"``: a floating-point LU at the
    working precision, no error bounds): the iterate is only a candidate, the Krawczyk test proves.
    ``with_jacobian`` also returns the ball Jacobian of the last step (at the iterate before it)."""
    n = comp.n
    y = [v if isinstance(v, arb) else arb(float(v)) for v in y0]
    # the first step at 128 bits from a float start, at the precision of an arb start's own size
    # (its midpoints carry ~96 fractional bits: the step doubles them) from an arb start
    cur = 64 if not isinstance(y0[0], arb) else max(32, min(_arb_prec_for(y0), prec) // 2)
    last_step = None
    for _ in range(200):
        cur = min(2 * cur, prec)
        with flint_prec(cur):
            G, J, _dr = comp.GJ_arb(y, r_ball, sel)
            g = arb_mat([[gi.mid()] for gi in G])
            try:
                step = J.mid().solve(g, algorithm="approx")
            except (ZeroDivisionError, ValueError):
                raise PrecisionError("singular Jacobian in the ball Newton iteration") from None
            step = [step[i, 0].mid() for i in range(n)]
            if not all(s.is_finite() for s in step):
                raise PrecisionError("singular Jacobian in the ball Newton iteration")
            y = [arb((y[i] - step[i]).mid()) for i in range(n)]
            tol = arb(2) ** (-(cur - 24))
            small = all(abs(step[i]) <= tol * max(arb(1), abs(y[i])) for i in range(n))
            last_step = max(float(abs(step[i]).mid()) for i in range(n)) if n else 0.0
        if cur == prec and small:
            return (y, last_step, J) if with_jacobian else (y, last_step)
    raise PrecisionError("the ball Newton iteration did not converge")


def _chord_arb(comp, y0, r_ball, prec, sel, Y, max_steps: int = 12):
    """Chord (simplified Newton) steps ``y <- y - Y G(y)`` at ``prec`` bits with a fixed approximate
    inverse ``Y`` of the Jacobian (midpoints only: a candidate, the Krawczyk test proves). Returns the
    iterate once the step is below ``2^-(prec - 24)`` relative (the tolerance of :func:`_newton_arb`),
    ``None`` when the steps stop shrinking (``Y`` too poor for this point) or do not finish in
    ``max_steps``."""
    n = comp.n
    y = [arb(v.mid()) for v in y0]
    tol = arb(2) ** (-(prec - 24))
    prev = None
    for _ in range(max_steps):
        G = comp.G_arb(y, r_ball, sel)
        g = arb_mat([[gi.mid()] for gi in G])
        step = Y * g
        step = [step[i, 0].mid() for i in range(n)]
        if not all(s.is_finite() for s in step):
            return None
        y = [arb((y[i] - step[i]).mid()) for i in range(n)]
        if all(abs(step[i]) <= tol * max(arb(1), abs(y[i])) for i in range(n)):
            return y
        size = max(float(abs(s).mid()) for s in step) if n else 0.0
        if prev is not None and not size <= 2.0 ** -16 * prev:
            return None
        prev = size
    return None


def _mat_floats(J: arb_mat) -> np.ndarray:
    """The midpoints of ``J`` as a float64 array (``inf`` where an entry is beyond the float range)."""
    n, k = J.nrows(), J.ncols()
    # (float of a ball is float of its midpoint: no midpoint copy of J; fromiter: no list of floats)
    return np.fromiter(map(float, J.entries()), dtype=np.float64, count=n * k).reshape(n, k)


def _float_inverse(J: arb_mat):
    M = _mat_floats(J)
    if not np.all(np.isfinite(M)):
        return None
    try:
        Y = np.linalg.inv(M)
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(Y)):
        return None
    return arb_mat(Y.tolist())


#: largest condition number of J(m) for which a float64 inverse is a good enough preconditioner (its
#: error, cond * 2^-52 relative, enters I - Y J(X)); beyond it Y is the midpoint of the arb inverse
_FLOAT_COND_MAX = 1e8
#: entries below this size relative to the largest are set to 0 in the float copy used for the
#: condition number only (products of tiny entries reach subnormal numbers, which make LAPACK very
#: slow; they do not change the estimate)
_TINY = 1e-100


def _cond1(M: np.ndarray) -> float:
    """The 1-norm condition number of the float matrix ``M`` (``inf`` when singular or not finite)."""
    if not np.all(np.isfinite(M)):
        return math.inf
    M = np.where(np.abs(M) < _TINY * (float(np.max(np.abs(M))) if M.size else 0.0), 0.0, M)
    with np.errstate(all="ignore"):
        try:
            Mi = np.linalg.inv(M)
        except np.linalg.LinAlgError:
            return math.inf
        c = float(np.max(np.sum(np.abs(M), axis=0)) * np.max(np.sum(np.abs(Mi), axis=0))) if M.size else 1.0
    return c if math.isfinite(c) else math.inf


def _identity(n: int) -> arb_mat:
    I = arb_mat(n, n)
    for i in range(n):
        I[i, i] = 1
    return I


def _approx_inverse(J: arb_mat):
    """``(Y, Yf)``: the midpoint of an approximate inverse of the midpoint of ``J`` at the working
    precision (python-flint ``algorithm="approx"``: any matrix is a valid Krawczyk preconditioner,
    the test ``K(X)`` inside ``X`` is what proves) and its float copy; ``(None, None)`` when singular."""
    n = J.nrows()
    try:
        Y = J.mid().solve(_identity(n), nonstop=True, algorithm="approx").mid()
    except (ZeroDivisionError, ValueError):
        return None, None
    Yf = _mat_floats(Y)
    if np.any(np.isnan(Yf)):
        return None, None
    return Y, Yf


#: up to this size the float condition number decides the float branch with LAPACK (beyond it the
#: arb approximate inverse is computed anyway and gives the estimate: a multithreaded LAPACK call on a
#: loaded machine costs more than the whole test)
_FLOAT_INV_MAX_N = 40


def _pattern_floats(J: arb_mat, pattern) -> np.ndarray:
    """:func:`_mat_floats` of a matrix whose entries outside ``pattern`` (positions ``(i, j)``) are
    exact zeros (the ball Jacobian of the terms form: :meth:`~symloss.core.codegen.CompiledModel.jacobian_pattern`),
    reading only those entries."""
    M = np.zeros((J.nrows(), J.ncols()), dtype=np.float64)
    for i, j in pattern:
        M[i, j] = float(J[i, j])
    return M


def _default_preconditioner(Jm: arb_mat, with_cond: bool = False, pattern=None):
    """``(Y, ynorm)``: a float-accurate inverse of ``J(m)`` when it is well conditioned (``ynorm = 1``),
    else the arb approximate inverse and its infinity norm; ``(None, inf)`` when ``J(m)`` is singular.
    ``with_cond`` appends an estimate of the condition number of ``J(m)``; ``pattern`` (the positions of
    the entries of ``J(m)`` that can be non-zero) makes its float copy cheaper."""
    M = _mat_floats(Jm) if pattern is None else _pattern_floats(Jm, pattern)
    n = M.shape[0]
    if n <= _FLOAT_INV_MAX_N and _cond1(M) <= _FLOAT_COND_MAX:
        Y = _float_inverse(Jm)
        if Y is not None:
            return (Y, 1.0, _FLOAT_COND_MAX) if with_cond else (Y, 1.0)
    Y, Yf = _approx_inverse(Jm)
    if Y is None:
        return (None, math.inf, math.inf) if with_cond else (None, math.inf)
    finite = bool(np.all(np.isfinite(Yf)) and np.all(np.isfinite(M)))
    with np.errstate(all="ignore"):
        ynorm = float(np.max(np.sum(np.abs(Yf), axis=1))) if (finite and n) else _inf_norm(Y)
        jnorm = float(np.max(np.sum(np.abs(M), axis=1))) if M.size else 0.0
        c1 = (float(np.max(np.sum(np.abs(Yf), axis=0)) * np.max(np.sum(np.abs(M), axis=0)))
              if (finite and n) else math.inf)
    if n > _FLOAT_INV_MAX_N and c1 <= _FLOAT_COND_MAX:
        ynorm = 1.0                            # well conditioned: the role of the float inverse
    return (Y, ynorm, ynorm * jnorm if ynorm > 1.0 else _FLOAT_COND_MAX) if with_cond else (Y, ynorm)


def _need_bits(cond: float, ymax: float, n: int):
    """Bits at which J (entries known to ~2^-(p - log2 |y|) relative) and its approximate inverse Y
    give |I - Y J| ~ 2^-32: ``log2 cond + log2 |y| + 32 + 2 log2 n`` (infinite for an infinite cond)."""
    if not math.isfinite(cond):
        return 1 << 30
    return int(math.log2(max(2.0, cond))) + int(math.log2(1.0 + ymax)) + 32 + 2 * int(math.log2(n + 2))


def _krawczyk(comp, m, rad, r_ball, sel, Y=None, mat_prec=None, ynorm=1.0):
    """The Krawczyk test on the box ``m + [-rad, rad]``. Returns ``(ok, margin, K, Y)``.

    ``mat_prec`` (bits, below the working precision): ``J(X)`` and ``I - Y J(X)`` are enclosed at that
    lower precision (a wider enclosure, still rigorous; the caller makes it exceed ``log2 cond J`` by a
    margin), ``G(m)`` and ``m - Y G(m)`` at the working precision; ``ynorm`` is the infinity norm of
    ``Y`` there."""
    n = comp.n
    X = [arb(m[i], rad[i]) for i in range(n)]
    low = mat_prec is not None and Y is not None and mat_prec < flint_ctx.prec
    if low:
        with flint_prec(mat_prec):
            # entries of J(X) below ``floor`` become [0 +/- floor] (a superset): they add at most
            # |Y| floor n <= 2^-40 to the rows of |I - Y J(X)|
            floor = arb(2) ** -(40 + 2 * int(math.log2(n + 2)) + max(0, int(math.log2(1.0 + ynorm))))
            _g, JX, drX = comp.GJ_arb(X, r_ball, sel, floor=floor)
            M = _identity(n) - Y * JX
    else:
        _g, JX, drX = comp.GJ_arb(X, r_ball, sel)
    if r_ball.rad() > 0:
        # centred form in the load: G(m, R) in G(m, r_c) + dG/dr(X, R) (R - r_c) (mean value theorem on
        # {m} x R, inside X x R); evaluating G at the ball R term by term would add the widths of terms
        # that cancel (the balances of each row)
        r_c = arb(r_ball.mid())
        Gc = comp.G_arb(m, r_c, sel)
        w = arb(0, r_ball.rad())
        Gm = [Gc[i] + drX[i] * w for i in range(n)]
    else:
        Gm = comp.G_arb(m, r_ball, sel)
    if Y is None:
        _gm, Jm, _ = comp.GJ_arb(m, arb(r_ball.mid()), sel)
        Y, _yn = _default_preconditioner(Jm)
        if Y is None:
            return False, math.inf, None, None
    if not low:
        M = _identity(n) - Y * JX
    D = arb_mat([[arb(0, rad[i])] for i in range(n)])
    K = arb_mat([[m[i]] for i in range(n)]) - Y * arb_mat([[g] for g in Gm]) + M * D
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


def _inf_norm(Y: arb_mat) -> float:
    """The infinity norm of ``Y`` (float; from the float copy of its midpoints when that is finite)."""
    n = Y.nrows()
    Yf = _mat_floats(Y)
    if np.all(np.isfinite(Yf)):
        return float(np.max(np.sum(np.abs(Yf), axis=1))) if n else 0.0
    return max(float(sum((abs(Y[i, j]) for j in range(n)), arb(0)).mid()) for i in range(n))


def _str20(a: arb) -> str:
    """``mpmath.nstr(arb_to_mpf(a), 20)`` (the same string: mpmath's ``to_str`` of the exact midpoint)
    without building the ``mpf`` (the box of a 100-variable model prints 200 of them)."""
    man, exp = a.mid().man_exp()
    return _to_str(_from_man_exp(int(man), int(exp)), 20)


def _drift_residual(model, x, rho, dps: int):
    """The max-norm of the definition's drift at ``(x, rho)``, what ``model.drift_residual`` gives
    (mpmath at ``dps`` digits), from the compiled term table in ball arithmetic at the same precision
    when the drift is a Laurent polynomial: row ``i`` of the table is drift row ``i`` divided by
    ``x_i``, evaluated by products of powers of the exact points ``x`` (no logarithms), then times
    ``x_i``. The midpoint of the largest row ball (a ball containing the exact residual, of
    relative radius ~10^-dps of the terms)."""
    comp = model.compiled
    if comp.mode != "terms" or model._drift_poly is None or any(v == 0 for v in x):
        with mpmath.workdps(dps):
            return model.drift_residual(x, to_mpf(rho))
    with flint_prec(dps_to_prec(dps)):
        xs = [to_arb(v) for v in x]
        vals, _mags = comp.table.residual_from_x(xs, to_arb(rho))
        worst = max((abs(xs[i] * vals[i]) for i in range(comp.n)), key=lambda b: b.mid(), default=arb(0))
        with mpmath.workdps(dps):
            return arb_to_mpf(arb(worst.mid()))


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
    # above _SCALED_MIN_N variables the scaled test runs first: its chord steps start from a banded
    # model's coarse shooting start where there is one (krawczyk_scaled.coarse_start)
    coarse = None
    if y_start is None and n >= _SCALED_MIN_N and _use_scaled(n, 0.0):
        coarse = coarse_start(model, rho)
    y_f = coarse if coarse is not None else (start_point(model, rho) if y_start is None else y_start)
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
    pattern = comp.jacobian_pattern(sel)
    # the first attempt at the bits a preconditioner needs when the state is doubly exponential: there
    # the condition number of J (log variables) is ~|y| (log2 cond = log2 |y| + 3..8 for power-of-d at
    # C = 20..100), and a Y from fewer bits is refused (a second Newton and inverse). A guess from the
    # start only: a wrong one costs time, the test decides
    first = _need_bits(2.0 ** min(1000.0, math.log2(1.0 + ymax) + 16), ymax, n)

    def attempt(prec):
        with flint_prec(prec):
            r_ball = to_arb(rho).log()
            # a failed attempt leaves its Newton point: the next one starts there (fewer steps)
            m, _, J_last = _newton_arb(comp, state.get("m", y_f), r_ball, prec, sel, with_jacobian=True)
            state["m"] = m
            # any Y is a valid preconditioner: the float inverse of the Jacobian of Newton's last step
            # where it is well conditioned, else its approximate arb inverse (computed once, passed to
            # the test). The entries of J are known to ~2^-(p - log2 |y|) relative at p bits, so Y is
            # good to |I - Y J| ~ cond 2^-(p - log2 |y|): ``need`` bits leave 32 to spare. An attempt
            # that asks for more precision keeps its Y when it was computed with at least ``need``
            # bits, and the matrix part of the test then runs at ``need`` bits.
            if "Y" in state:
                Y, ynorm, need = state.pop("Y")
            else:
                # (no hint from an earlier load: the certificate depends only on the arguments)
                Y, ynorm, cond = _default_preconditioner(J_last, with_cond=True, pattern=pattern)
                need = _need_bits(cond, ymax, n)
                if Y is None:
                    return False, None, None
                if prec < need <= _MAX_PREC:
                    # Y is too poor at these bits (|Y| ~ d^C with |y| ~ d^C: C = 100, d = 3). Newton
                    # to ``need`` bits from m and Y of that Jacobian (a matrix at need bits, not at the
                    # doubled precision of a new attempt); the chord steps below take m on to the box's
                    # precision
                    with flint_prec(need):
                        m, _, J_need = _newton_arb(comp, m, to_arb(rho).log(), need, sel, with_jacobian=True)
                        state["m"] = m
                        Y, ynorm, cond = _default_preconditioner(J_need, with_cond=True, pattern=pattern)
                    if Y is None:
                        return False, None, None
                    prec, need = need, max(need, _need_bits(cond, ymax, n))
            # the quadratic term Y (J(X) - J(m)) (X - m) of the Krawczyk operator: a box of radius
            # delta contracts only when delta |Y| is small (|Y| ~ d^C for doubly exponential tails)
            delta = 10.0 ** (-(dps + 3)) / (state["sens"] * max(1.0, ynorm))
            target = state["base"] + 2 * int(math.log2(max(1.0, ynorm)))
            if prec < target:
                # the box needs ``target`` bits. When Y is good enough (``need`` bits at most this
                # attempt's), the Newton point is refined at ``target`` bits by chord steps with Y
                # (one G and one matrix-vector product each: no new Jacobian, no solve) and the test
                # runs there; else (or when the chord steps do not converge) the next attempt runs
                # at ``target`` bits, keeping Y when it is good enough
                m2 = None
                if need <= prec and target <= _MAX_PREC:
                    with flint_prec(target):
                        m2 = _chord_arb(comp, m, to_arb(rho).log(), target, sel, Y)
                if m2 is None:
                    if need <= prec:
                        state["Y"] = (Y, ynorm, need)
                    return False, None, target
                prec, m = target, m2
                state["m"] = m
        return _test(prec, m, Y, ynorm, need if (ynorm > 1.0 and need < prec) else None, delta)

    def _test(prec, m, Y, ynorm, mat_prec, delta):
        with flint_prec(prec):
            r_ball = to_arb(rho).log()
            rad = [arb(delta)] * n
            ok, margin, _K, _Y = _krawczyk(comp, m, rad, r_ball, sel, Y, mat_prec, ynorm)
            if ok:
                box = [arb(m[i], rad[i]) for i in range(n)]
                B = comp.blocking_arb(box, r_ball)
                if arb_relative_accuracy_ok(B, dps):
                    x_work = [arb_to_mpf(mi.exp()) for mi in m]
                    bracket = (arb_to_mpf(arb(B.lower())), arb_to_mpf(arb(B.upper())))
                    Bm = arb_to_mpf(B)
                    box_s = [(_str20(b.lower()), _str20(b.upper())) for b in box]
                    return True, (prec, delta, margin, x_work, bracket, Bm, box_s), None
                state["sens"] *= 10.0
        return False, None, None

    scaled = _scaled(comp, y_f, rho, dps, sel, pattern, grad, ymax) if _use_scaled(n, ymax) else None
    if scaled is not None:
        return _result(model, rho, dps, residual, *scaled)
    if coarse is not None:
        return certified_fixed_point(model, rho, dps, residual=residual, y_start=start_point(model, rho))
    try:
        prec_used, delta, margin, x_work, bracket, Bm, box_s = raise_precision(
            # (the model's repr -- SymPy printing, ~1 ms -- only in the error raised below)
            attempt, min(max(prec, first), _MAX_PREC), what="the fixed point", max_prec=_MAX_PREC)
        prec = prec_used
    except PrecisionError:
        raise PrecisionError(f"{model!r}: fixed point at rho={rho} not certified to {dps} digits "
                             "(Krawczyk test failed up to the precision limit)") from None
    return _result(model, rho, dps, residual, x_work, bracket, Bm, box_s,
                   {"kind": "krawczyk", "variables": "log", "delta": f"{delta:.3e}", "margin": margin,
                    "prec": prec})


def _result(model, rho, dps, residual, x_work, bracket, Bm, box_s, cert):
    with mpmath.workdps(dps + 15):
        rm = to_mpf(rho)
        res = _drift_residual(model, x_work, rho, dps + 15) if residual else mpmath.nan
        x = [rounded(v, dps) for v in x_work]
        Bv = rounded(Bm, dps)
    return FixedPointResult(
        model.name, rm, x, Bv, bracket, res,
        "generic: float continuation, Newton in arb, Krawczyk test on the model's stationary equations "
        "in y = log x", dps,
        {"box": box_s, "certificate": {**cert, "fingerprint": model.fingerprint()}, "_x_work": x_work})


#: the scaled test (:mod:`symloss.core.krawczyk_scaled`) runs first above this many variables or
#: this size of the log state (a doubly exponential tail); the unscaled test where it does not apply
_SCALED_MIN_N = 41
_SCALED_MIN_Y = 2.0 ** 16


def _use_scaled(n: int, ymax: float) -> bool:
    return n >= _SCALED_MIN_N or ymax >= _SCALED_MIN_Y


def _scaled(comp, y_f, rho, dps, sel, pattern, grad, ymax):
    """The certificate of :func:`~symloss.core.krawczyk_scaled.scaled_certificate` as the fields of
    :func:`_result`, or ``None`` (not applicable, or the blocking not determined to ``dps`` digits on
    its box)."""
    n = comp.n
    lg = _log2_ceil(1.0 + ymax) + 2 * _log2_ceil(n + 2.0)

    def r_ball():
        return to_arb(rho).log()

    if not np.all(np.isfinite(grad)):
        return None
    got = scaled_certificate(comp, y_f, r_ball, dps, sel, pattern, grad, ymax, lambda b: b + lg + 40)
    if got is None:
        return None
    m, b, margin, box, prec, cols = got
    with flint_prec(prec):
        B = comp.blocking_arb(box, r_ball())
        if not arb_relative_accuracy_ok(B, dps):
            return None
        x_work = [arb_to_mpf(mi.exp()) for mi in m]
        bracket = (arb_to_mpf(arb(B.lower())), arb_to_mpf(arb(B.upper())))
        box_s = [(_str20(v.lower()), _str20(v.upper())) for v in box]
        Bm = arb_to_mpf(B)
    return x_work, bracket, Bm, box_s, {
        "kind": "krawczyk", "variables": "log", "delta": f"2^-{b}", "margin": margin, "prec": prec,
        "scaling": "box radii delta * 2^ceil(log2(1 + |y_j|)); float64 inverse of the row- and "
                   "column-scaled Jacobian as preconditioner, magnitudes bounded with a priori rounding errors"}

