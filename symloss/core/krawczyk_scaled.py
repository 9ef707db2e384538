r"""The Krawczyk test in scaled coordinates, with a float64 preconditioner (issue 23, item 2: user
models at large ``C``).

In log variables the stationary system of a doubly exponential tail is badly scaled, not ill
posed: :math:`y_k = \log u_k \approx d^k \log\rho`, so the Jacobian :math:`J = \partial G / \partial y`
has a condition number near :math:`|y| \sim 10^{30}` (power-of-2, ``C = 100``), and an inverse good
enough for the Krawczyk test of :mod:`symloss.core.krawczyk` needs ~250 bits and a dense ball matrix
product (most of the time of a call at ``C = 100``). Scaled by powers of two, columns by the size of
the variables and rows by their largest entry,

.. math:: J' = D_r\, J\, D_c, \qquad D_c = \operatorname{diag}(2^{\lceil \log_2 (1 + |y_j|) \rceil}),
          \quad (D_r)_{kk} = 2^{-\operatorname{round} \log_2 \max_j |J_{kj}| (D_c)_{jj}},

the same matrix has a condition number of about ``130`` (power-of-2 and -3 at ``C = 60, 100``,
measured), so its float64 inverse :math:`Y'` is a good preconditioner. The test is the standard
Krawczyk test of the system :math:`H(z) = D_r\, G(m + D_c z) = 0` (the same zeros as ``G``: the
scalings are invertible and exact) on the box :math:`Z = [-\delta, \delta]^n`, i.e. on the box
:math:`X = m + D_c Z` of radii :math:`\delta (D_c)_{jj}` in ``y`` (relative to the variables' sizes):

.. math:: K(Z) = -Y' H(0) + (I - Y' H'(Z))\, Z \subset \operatorname{int} Z
          \iff |Y' H(0)|_i + \big(|I - Y' H'(Z)|\, \delta \mathbf 1\big)_i < \delta \quad \forall i,

which proves one zero of ``G`` in ``X`` and none other there (Krawczyk 1969, Rump 1983).
:math:`H(0)` and :math:`H'(Z) = D_r J(X) D_c` are python-flint balls (``G`` at the working precision,
``J(X)`` at the bits of the variables' size plus 64); the magnitudes on the left are then bounded in
float64 with a priori rounding-error bounds (Higham, *Accuracy and Stability of Numerical
Algorithms*, 2nd ed., eq. 3.13: :math:`|fl(AB) - AB| \le \gamma_n |A||B|`, any order of summation,
with or without fused multiply-add; plus an underflow term), every computed magnitude inflated by
:math:`1 + 2\gamma_{n+2}` so that it bounds the exact one (Rump, "Fast interval matrix
multiplication", *Numer. Algorithms* 61, 2012, uses the same bounds in rounding to nearest).

The Newton point is refined by chord steps :math:`y \leftarrow y - D_c Y' D_r G(y)` (one ``G`` and a
float matrix-vector product each: the step needs only a few correct bits of its own size, the
iteration contracts by :math:`|I - Y' J'| \approx 10^{-13}` per step; the steps must shrink by
``2^-2`` at least). The start must be accurate in ``y`` to a small *absolute* error (the shooting
start's outer root to ``2^-16``): a float step's relative error times the step's size in ``y`` enters
the exponents of the terms, ``e^{d y_{k-1} - y_k}``.

:func:`scaled_certificate` returns ``None`` whenever a condition of this path fails (a non-finite
float, a scaled condition number above ``1e8``, chord steps that do not contract, the test not
passing at two radii): the caller then runs the unscaled test.
"""
from __future__ import annotations

import math

import numpy as np
from flint import arb

from . import shooting_start as _ss
from .precision import flint_prec, to_arb

__all__ = ["coarse_start", "contraction_bound", "scaled_certificate"]

#: largest 1-norm condition number of the scaled float Jacobian for which its float inverse is used
_COND_MAX = 1e8
#: chord steps before the path gives up
_MAX_CHORD = 40
#: an additive bound on underflow in one float dot product of length ``n`` (per term: below 2^-1074)
_ETA = 2.0 ** -1000


def _log2_ceil(x: float) -> int:
    return int(math.ceil(math.log2(x))) if x > 1.0 else 0


def _scalings(comp, y, r_ball, sel, pattern, cols):
    """``(rows, Jf)``: the row exponents of :math:`D_r` and the float scaled Jacobian at ``y`` (``None``
    when not finite); ``cols`` are the column exponents of :math:`D_c`."""
    n = comp.n
    _G, J, _dr = comp.GJ_arb(y, r_ball, sel)
    Jf = np.zeros((n, n))
    for k, j in pattern:
        Jf[k, j] = math.ldexp(float(J[k, j].mid()), cols[j])
    if not np.all(np.isfinite(Jf)):
        return None
    big = np.max(np.abs(Jf), axis=1)
    if not np.all(big > 0):
        return None
    rows = [-int(round(math.log2(b))) for b in big]
    Jf = Jf * np.ldexp(1.0, rows)[:, None]
    return rows, Jf


def _float_preconditioner(Jf):
    try:
        Yf = np.linalg.inv(Jf)
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(Yf)):
        return None
    cond = float(np.max(np.sum(np.abs(Jf), axis=0)) * np.max(np.sum(np.abs(Yf), axis=0)))
    return Yf if cond <= _COND_MAX else None


def _chord(comp, m, r_ball, sel, Yf, rows, cols, b):
    """Chord steps until the scaled step is below ``2^-(b + 20)`` (the box's radius ``2^-b`` in ``z``
    over a million); ``None`` when they stop contracting."""
    n = comp.n
    y = list(m)
    prev = math.inf
    pow2 = _Pow2()
    for _ in range(_MAX_CHORD):
        G = comp.G_arb(y, r_ball, sel)
        mids = [g.mid() for g in G]
        # a common power of two keeps the float copy in range whatever its size (dps beyond 300)
        top = max((abs(v) for v in mids), default=arb(0))
        if not top.is_finite():
            return None
        if top == 0:
            return y
        mant, ex = top.mid().man_exp()
        e = -(int(ex) + int(mant).bit_length())      # top * 2^e in [1/2, 1)
        p2e = pow2[e]
        g = np.array([math.ldexp(float(v * p2e), rows[k]) for k, v in enumerate(mids)])
        step = Yf @ g                                 # the step in z, times 2^e
        if not np.all(np.isfinite(step)):
            return None
        y = [arb((y[j] - arb(float(step[j])) * pow2[cols[j] - e]).mid()) for j in range(n)]
        size = float(np.max(np.abs(step)))
        lsz = (math.log2(size) - e) if size > 0 else -math.inf
        if lsz <= -(b + 20):
            return y
        # the steps shrink by ~2^-50 in the linear regime; a step of a few bits only where the
        # quadratic term of a coarse start takes over for a step or two
        if lsz > prev - 2:
            return None
        prev = lsz
    return None


class _Pow2(dict):
    """``2^e`` as an exact ``arb``, computed once per exponent."""

    def __missing__(self, e):
        v = self[e] = arb(2) ** e
        return v


def _upper_float(x: arb) -> float:
    """A float64 upper bound of the non-negative ball ``x`` (``inf`` when not finite)."""
    u = float(x.upper())
    return u * (1.0 + 2.0 ** -50) + 2.0 ** -1070 if math.isfinite(u) else math.inf


def contraction_bound(Yf, S, R, h0):
    """Upper bounds of ``|Y' H(0)|_i + (|I - Y' H'| 1)_i`` for every ``H'`` in the interval matrix
    ``[S - R, S + R]`` and every ``|H(0)| <= h0`` (float64 arrays; module docstring), computed in
    float64 with a priori bounds on its rounding errors.

    Parameters
    ----------
    Yf : numpy.ndarray
        The preconditioner (``n x n``, any finite floats: used exactly as given).
    S, R : numpy.ndarray
        Midpoints and radii (``R >= 0``) of the scaled Jacobian's entries.
    h0 : numpy.ndarray
        Bounds of the absolute values of the scaled residual.

    Returns
    -------
    numpy.ndarray
        Length ``n``; the test passes where every entry is below 1 (``inf`` or NaN where a float
        overflowed: the test fails).
    """
    n = Yf.shape[0]
    gam = (n + 2) * 2.0 ** -52
    gam = gam / (1.0 - gam)
    infl = 1.0 + 2.0 * gam
    aY = np.abs(Yf)
    with np.errstate(all="ignore"):
        E = np.eye(n) - Yf @ S                           # I - Y' S, rounded
        # |I - Y' H'| <= |I - Y' S| + |Y'| R, and |fl(Y' S) - Y' S| <= gamma |Y'| |S| (Higham 3.13);
        # each computed magnitude inflated by (1 + 2 gamma) bounds the exact one; _ETA the underflow
        A = (np.abs(E) + gam * (np.eye(n) + (aY @ np.abs(S)) * infl) + (aY @ R) * infl) * infl + n * _ETA
        row = np.sum(A, axis=1) * infl + n * _ETA        # (|I - Y' H'| 1)_i
        q = (aY @ h0) * infl + n * _ETA                  # |Y' H(0)|_i
        return (q + row) * infl


def _test(comp, m, r_ball, sel, pattern, Yf, rows, cols, b, mat_prec):
    """The Krawczyk test on ``X = m + D_c [-2^-b, 2^-b]^n``: ``(ok, margin)``."""
    n = comp.n
    pow2 = _Pow2()
    X = [arb(m[j], pow2[cols[j] - b]) for j in range(n)]
    with flint_prec(mat_prec):
        _g, JX, drX = comp.GJ_arb(X, r_ball, sel)
        S = np.zeros((n, n))
        R = np.zeros((n, n))
        pow2 = _Pow2()
        for k, j in pattern:
            v = JX[k, j] * pow2[rows[k] + cols[j]]           # exact: a power of two
            c = float(v.mid())                                # |c - mid| <= 2^-52 |c| + 2^-1074
            S[k, j] = c
            R[k, j] = _upper_float(v.rad()) + abs(c) * 2.0 ** -51 + 2.0 ** -1070
    if r_ball.rad() > 0:
        Gc = comp.G_arb(m, arb(r_ball.mid()), sel)
        w = arb(0, r_ball.rad())
        Gm = [Gc[k] + drX[k] * w for k in range(n)]
    else:
        Gm = comp.G_arb(m, r_ball, sel)
    # |H(0)| / delta, H(0) = D_r G(m): exact scalings by powers of two in arb, then an upper bound
    h0 = np.array([_upper_float(abs(Gm[k]) * pow2[rows[k] + b]) for k in range(n)])
    if not (np.all(np.isfinite(S)) and np.all(np.isfinite(R)) and np.all(np.isfinite(h0))):
        return False, math.inf
    lhs = contraction_bound(Yf, S, R, h0)
    if not np.all(np.isfinite(lhs)):
        return False, math.inf
    worst = float(np.max(lhs)) if n else 0.0
    return worst < 1.0, worst


def scaled_certificate(comp, y_start, r_ball, dps, sel, pattern, grad, ymax, prec_of):
    """The scaled Krawczyk certificate of the fixed point near ``y_start`` (module docstring), or
    ``None`` when this path does not apply (the caller runs the unscaled test).

    Parameters
    ----------
    comp : CompiledModel
        The compiled definition (terms form).
    y_start : sequence of flint.arb or float
        A start ``y = log x`` (the shooting or the continuation's).
    r_ball : callable
        ``r_ball()`` is the ball of ``log rho`` at the current precision.
    dps : int
        Significant digits of the blocking.
    sel, pattern : list
        The selected rows and the Jacobian's non-zero positions.
    grad : numpy.ndarray
        ``d log B / d y`` at the start (float; the box's radius in ``z`` follows from it).
    ymax : float
        ``max |y_j|`` at the start.
    prec_of : callable
        ``prec_of(b)``: the working precision for a box of radius ``2^-b`` in ``z``.

    Returns
    -------
    tuple or None
        ``(m, b, margin, box, prec, cols)``: the midpoint (``arb``), the radius exponent, the test's
        margin (below 1), the box of balls in ``y`` and the precision it was proved at, the column
        exponents of :math:`D_c`.
    """
    n = comp.n
    if pattern is None or n == 0:
        return None
    y0 = [v if isinstance(v, arb) else arb(float(v)) for v in y_start]
    cols = [_log2_ceil(1.0 + abs(float(v.mid()))) for v in y0]
    # the radius in z: relative accuracy 10^-(dps + 3) of the blocking, through d log B / dz
    sens = 1.0 + float(np.sum(np.abs(grad) * np.ldexp(1.0, cols)))
    if not math.isfinite(sens):
        return None
    b = int(math.ceil(math.log2(sens) + (dps + 3) * math.log2(10.0)))
    mat_prec = 64 + _log2_ceil(1.0 + ymax) + 2 * _log2_ceil(n + 2.0)
    for _attempt in range(2):
        prec = prec_of(b)
        with flint_prec(prec):
            with flint_prec(mat_prec):
                got = _scalings(comp, y0, r_ball(), sel, pattern, cols)
            if got is None:
                return None
            rows, Jf = got
            Yf = _float_preconditioner(Jf)
            if Yf is None:
                return None
            m = _chord(comp, y0, r_ball(), sel, Yf, rows, cols, b)
            if m is None:
                return None
            ok, margin = _test(comp, m, r_ball(), sel, pattern, Yf, rows, cols, b, mat_prec)
            if ok:
                box = [arb(m[j], arb(2) ** (cols[j] - b)) for j in range(n)]
                return m, b, margin, box, prec, cols
        b += 8
        y0 = m
    return None


#: the Newton steps in ``t`` of :func:`coarse_start` stop below this size: an absolute error of
#: ``2^10`` in ``t = y_C`` along the shooting's own curve (rows 2..C solved) times the relative error
#: of a float chord step (~2^-45) stays far below 1 in the terms' exponents
_TOL_T = 2.0 ** 10


def coarse_start(model, rho):
    """A start for the chord steps of :func:`scaled_certificate` from the banded shooting of
    :mod:`symloss.core.shooting_start`: the float root of the outer equation, then Newton in ``t``
    with ball shots until a step is below ``2^10`` (not ``2^-64``, as the start of the ball Newton
    iteration needs), each shot's state also moved to first order along the shooting curve
    (``y - (F / F') dy/dt``, the derivatives the shot carries down the rows) and taken when its
    residual passes: usually one ball shot instead of four.

    Parameters
    ----------
    model : MeanFieldModel
        A model with smooth rates.
    rho : float, int, Fraction or mpmath.mpf
        The load.

    Returns
    -------
    list of flint.arb or None
        Midpoints of ``y = log u`` whose rows' residuals are below ``2^-40`` (a start, not a
        certificate); ``None`` when the model is not banded, float64 does not bracket the outer
        root, or the Newton steps leave a bracket ten times as wide (the caller takes
        :func:`~symloss.core.float_start.start_point`).
    """
    plan = _ss.banded_plan(model)
    if plan is None:
        return None
    with flint_prec(128):
        lr = float(to_arb(rho).log().mid())
    if not math.isfinite(lr):
        return None

    def rho_arb():
        return to_arb(rho).log()

    found = _ss._bracket_float(plan, lr, rho_arb, "float")
    if found is None:
        return None
    n, comp = plan["n"], model.compiled
    lo, hi = found[0]
    centre = (lo + hi) / 2
    t = arb(centre.mid())
    w = abs((hi - lo).mid()) * 5

    def passes(y):
        G = comp.G_arb(y, rho_arb())
        return all(g.is_finite() and abs(g.mid()) <= _ss._START_RESIDUAL for g in G)

    for _ in range(8):
        with flint_prec(_ss._prec_of(n, t)):
            try:
                F, dF, z, dz = _ss._shoot(plan, t, rho_arb(), with_dz=True)
            except _ss._NoRoot:
                return None
            if dF.mid() == 0:
                return None
            step = F / dF
            y = [arb(v.mid()) for v in z[:n]]
            if abs(step.mid()) <= _TOL_T:
                return y if passes(y) else None
            moved = [arb((z[j] - step * dz[j]).mid()) for j in range(n)]
            if passes(moved):
                return moved
            t = arb((t - step).mid())
            if not abs((t - centre).mid()) <= w:
                return None
    return None
