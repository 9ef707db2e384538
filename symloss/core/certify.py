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
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np
from flint import arb, arb_mat

from .results import ResultMixin
from .precision import (
    DEFAULT_DPS,
    PrecisionError,
    arb_relative_accuracy_ok,
    arb_to_mpf,
    check_dps,
    dps_to_prec,
    flint_prec,
    rounded,
    to_arb,
    to_mpf,
)
from .validation import check_real

__all__ = ["FixedPointResult", "OdeResult", "Enclosure", "certified_fixed_point", "solve", "enclose",
           "float_fixed_point", "start_point", "integrate_ode", "integrate_ode_checks", "DefinitionMismatchWarning",
           "IntervalEnclosure", "enclose_interval", "point_box", "verify_box", "verify_tube", "box_derivative",
           "check_selection"]

_MAX_PREC = 1 << 16
_GENERIC_MAX_VARIABLES = 400


class DefinitionMismatchWarning(UserWarning):
    """An accelerator is registered for the model's class, but this definition differs from the
    equations it assumes (a subclass or an edit changed a rate): the generic certified solver is used."""


# ==================================================================================================
# results
# ==================================================================================================

@dataclass
class FixedPointResult(ResultMixin):
    """A certified mean-field fixed point.

    Attributes
    ----------
    model : str
        The model's name.
    rho : mpmath.mpf
        The load.
    x : list of mpmath.mpf
        The state in the order of ``model.variables`` (``dps`` digits).
    blocking : mpmath.mpf
        Stationary blocking probability, ``dps`` significant digits.
    blocking_bracket : tuple of mpmath.mpf
        Rigorous enclosure ``(lo, hi)`` of the blocking of the certified fixed point.
    residual : mpmath.mpf
        Max-norm of the symbolic drift at ``x`` (NaN when not evaluated).
    method : str
        The solver that ran.
    dps : int
        The digits asked for (``str()`` and ``to_dict()`` show that many).
    extra : dict
        Method-specific data: for the generic solver ``box`` (the certified box in ``y = log x`` as
        ``(lo, hi)`` strings), ``certificate`` (Krawczyk margin, delta, precision); for an
        accelerator its own certificate and the verification on the definition.

    Examples
    --------
    >>> from symloss import RetrialOfD
    >>> r = RetrialOfD(2, 2).fixed_point(1, dps=25)
    >>> r.to_dict()["blocking"]
    '0.06755895217845314521728442'
    """
    model: str
    rho: Any
    x: list
    blocking: Any
    blocking_bracket: tuple
    residual: Any
    method: str
    dps: int
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Plain data: every number with the ``dps`` digits asked for (the bracket with 3 more).

        Returns
        -------
        dict
        """
        n = self.dps
        out = {"model": self.model, "rho": mpmath.nstr(self.rho, n), "x": [mpmath.nstr(v, n) for v in self.x],
               "blocking": mpmath.nstr(self.blocking, n),
               "blocking_bracket": [mpmath.nstr(v, n + 3) for v in self.blocking_bracket],
               "residual": mpmath.nstr(self.residual, 5), "method": self.method, "dps": n}
        for k, v in self.extra.items():
            out[k] = mpmath.nstr(v, n) if isinstance(v, mpmath.mpf) else v
        return out

    def __repr__(self) -> str:
        return (f"FixedPointResult({self.model}, rho={mpmath.nstr(self.rho, 8)}, "
                f"blocking={mpmath.nstr(self.blocking, min(self.dps, 20))}, "
                f"residual={mpmath.nstr(self.residual, 3)}, method={self.method!r})")


@dataclass
class OdeResult(ResultMixin):
    """Trajectories of the mean-field ODE: ``t`` (n_t,), ``x`` (n_t, n_vars), ``blocking`` (n_t,).

    Attributes
    ----------
    t : numpy.ndarray
        Output times.
    x : numpy.ndarray
        The state at each time (rows).
    blocking : numpy.ndarray
        The blocking expression at each state.
    variables : tuple of sympy.Symbol
        The state variables (columns of ``x``).
    success : bool
        The integrator's flag.
    message : str
        The integrator's message.
    """
    t: np.ndarray
    x: np.ndarray
    blocking: np.ndarray
    variables: tuple
    success: bool
    message: str

    def to_dict(self) -> dict:
        """Plain data (lists of floats).

        Returns
        -------
        dict
        """
        return {"t": self.t.tolist(), "x": self.x.tolist(), "blocking": self.blocking.tolist(),
                "variables": [str(v) for v in self.variables], "success": self.success}


@dataclass
class Enclosure(ResultMixin):
    """Enclosures valid for every load in ``[rho_lo, rho_hi]`` (:func:`enclose`).

    ``box`` is the certified box of ``y = log x`` (arb balls), ``blocking`` and ``log_blocking``
    enclose the blocking of the unique fixed point in the box for every load of the interval,
    ``margin`` is ``max_i |K_i - m_i| / delta_i`` (< 1).

    Attributes
    ----------
    rho_lo, rho_hi : number
        The load interval.
    box : list of flint.arb
        The certified box of ``y = log x``.
    blocking, log_blocking : flint.arb
        Enclosures of the blocking and its logarithm over the interval.
    margin : float
        The Krawczyk contraction margin.
    prec : int
        Working precision in bits.
    """
    rho_lo: Any
    rho_hi: Any
    box: list
    blocking: arb
    log_blocking: arb
    margin: float
    prec: int

    def to_dict(self) -> dict:
        """Plain data (balls as ``[mid +/- rad]`` strings).

        Returns
        -------
        dict
        """
        return {"rho_lo": str(self.rho_lo), "rho_hi": str(self.rho_hi), "box": [b.str(radius=True) for b in self.box],
                "blocking": self.blocking.str(radius=True), "log_blocking": self.log_blocking.str(radius=True),
                "margin": self.margin, "prec": self.prec}


# ==================================================================================================
# float start
# ==================================================================================================

def default_initial_state(model, rho: float) -> np.ndarray:
    """A positive physical state: independent M/M/C/C stations (occupancy / tails) for the shipped
    state kinds, else 1/2 everywhere rescaled onto nonnegative invariants."""
    x0 = model.initial_state(rho)
    if x0 is not None:
        return np.asarray(x0, dtype=np.float64)
    n = len(model.variables)
    kind = getattr(model, "state_kind", "custom")
    C = getattr(model, "C", None)
    if kind in ("occupancy", "tail") and C is not None:
        from .stats import truncated_poisson_weights
        w = truncated_poisson_weights(int(C), max(rho, 1e-3))
        w = np.maximum(w, 1e-300)
        if kind == "occupancy" and n == C + 1:
            return w / w.sum()
        if kind == "tail" and n == C:
            return np.maximum(np.cumsum(w[::-1])[::-1][1:], 1e-300)
    x = np.full(n, 0.5)
    for c, v in model._invariants:
        c = np.array([float(ci) for ci in c])
        if np.all(c >= 0) and float(v) > 0:
            idx = c > 0
            x[idx] *= float(v) / float(c @ x)
    return x


def _norm(v):
    return float(np.max(np.abs(v))) if len(v) else 0.0


def _newton_float(comp, y, r, max_iter=40, sel=None):
    """Damped Newton in float64. Converged when the relative step is below 1e-12, or when the step no
    longer decreases while the residual is below 1e-9 (the noise floor of an ill-conditioned
    Jacobian, e.g. a nearly decoupled top of a birth-death chain: the ball Newton refines)."""
    n = comp.n
    prev = math.inf
    sel = comp.selection(y) if sel is None else sel
    for it in range(max_iter):
        g = comp.G(y, r, sel)
        if not np.all(np.isfinite(g)):
            return y, False, it
        J = comp.J(y, r, sel)[:, :n]
        try:
            with np.errstate(all="ignore"):
                step = np.linalg.solve(J, -g)
        except np.linalg.LinAlgError:
            return y, False, it
        if not np.all(np.isfinite(step)):
            return y, False, it
        rel = float(np.max(np.abs(step) / np.maximum(1.0, np.abs(y)))) if n else 0.0
        # damping: no step of more than 5 in log scale (a factor e^5)
        big = float(np.max(np.abs(step) / np.maximum(1.0, 1e-3 * np.abs(y)))) if n else 0.0
        if big > 5:
            step *= 5 / big
        y = y + step
        if rel <= 1e-12 or (rel >= 0.5 * prev and _norm(g) <= 1e-9):
            g = comp.G(y, r, sel)
            return y, bool(np.all(np.isfinite(g))), it + 1
        prev = rel
    return y, False, max_iter


def _ptc(comp, y, r, max_iter=2000):
    """Pseudo-transient continuation on the log-ODE (invariant rows algebraic)."""
    n = comp.n
    sel = comp.selection(y)
    D = comp.dynamic(sel)
    dt = 0.05
    g = comp.G(y, r, sel)
    if not np.all(np.isfinite(g)):
        raise PrecisionError("the float start is not finite at the initial state")
    ng = _norm(g)
    for _ in range(max_iter):
        new_sel = comp.selection(y)
        if new_sel != sel:
            sel, D = new_sel, comp.dynamic(new_sel)
            g = comp.G(y, r, sel)
            ng = _norm(g)
        J = comp.J(y, r, sel)[:, :n]
        with np.errstate(all="ignore"):
            A = np.diag(D / dt) - J
        try:
            with np.errstate(all="ignore"):
                step = np.linalg.solve(A, g)
        except np.linalg.LinAlgError:
            dt /= 4
            continue
        y_new = y + step
        g_new = comp.G(y_new, r, sel)
        if not (np.all(np.isfinite(step)) and np.all(np.isfinite(g_new))) or _norm(g_new) > 1e3 * max(ng, 1e-300):
            dt /= 4
            if dt < 1e-12:
                break
            continue
        ng_new = _norm(g_new)
        y, g = y_new, g_new
        dt = min(dt * min(10.0, max(0.5, ng / max(ng_new, 1e-300))), 1e15)
        ng = ng_new
        if (dt >= 1e3 and ng <= 1e-10) or (dt > 1e6 and np.all(np.abs(step) <= 1e-12 * np.maximum(1.0, np.abs(y)))):
            return y
    y2, ok, _ = _newton_float(comp, y, r)
    if ok:
        return y2
    raise PrecisionError("the float start (pseudo-transient continuation) did not converge")


def _scale(model) -> float:
    C = getattr(model, "C", None)
    return float(C) if C else 1.0


class _Stall(PrecisionError):
    """The float continuation stalled; carries the last point reached."""

    def __init__(self, msg, y, r):
        super().__init__(msg)
        self.y, self.r = y, r


def _load_log(rho) -> float:
    with mpmath.workdps(30):
        return float(mpmath.log(to_mpf(rho)))


def _start_at_reference_load(model, comp):
    """The float solution at the reference load 2 C (no tiny components there), cached."""
    r0 = math.log(_scale(model)) + math.log(2.0)
    cache = model.__dict__.setdefault("_float_start_cache", {})
    if r0 not in cache:
        y0 = np.log(np.maximum(default_initial_state(model, math.exp(r0)), 1e-300))
        cache[r0] = _ptc(comp, y0, r0)
    return cache[r0].copy(), r0


def float_fixed_point(model, rho) -> np.ndarray:
    """Float64 solution ``y = log x`` of the stationary system at load ``rho`` (see the module
    docstring, step 1); ``rho`` may be an mpf far outside the float range. Raises
    :class:`~symloss.core.precision.PrecisionError` where float64 cannot hold the state (doubly
    exponential tails with ``|log x|`` beyond ~1e12): :func:`start_point` then continues in ball
    arithmetic.

    Parameters
    ----------
    model : MeanFieldModel
        A model with smooth rates.
    rho : float or mpmath.mpf
        The load.

    Returns
    -------
    numpy.ndarray
        ``y = log x`` (not certified).

    Raises
    ------
    PrecisionError
        If float64 cannot hold the state or the continuation stalls.
    ValueError
        If the rates are not smooth (e.g. Heaviside indicators).

    Examples
    --------
    >>> import numpy as np
    >>> from symloss import RandomRouting
    >>> from symloss.core.certify import float_fixed_point
    >>> np.exp(float_fixed_point(RandomRouting(2), 1.0)).round(12).tolist()
    [0.4, 0.4, 0.2]
    """
    comp = model.compiled
    comp.require_smooth()
    y, r0 = _start_at_reference_load(model, comp)
    return _continue(comp, y, r0, _load_log(rho))


def start_point(model, rho):
    """A start for the ball Newton iteration: the float continuation where float64 suffices, else
    its last point continued in ball arithmetic (midpoints) to the target load.

    Parameters
    ----------
    model : MeanFieldModel
        A model with smooth rates.
    rho : float or mpmath.mpf
        The load.

    Returns
    -------
    numpy.ndarray or list of flint.arb
        ``y = log x``: floats, or ``arb`` midpoints beyond the float range.

    Examples
    --------
    >>> import numpy as np
    >>> from symloss import RandomRouting
    >>> from symloss.core.certify import start_point
    >>> np.exp(start_point(RandomRouting(2), 1.0)).round(12).tolist()
    [0.4, 0.4, 0.2]
    """
    comp = model.compiled
    comp.require_smooth()
    y, r0 = _start_at_reference_load(model, comp)
    r1 = _load_log(rho)
    try:
        return _continue(comp, y, r0, r1)
    except _Stall as st:
        return _continue_arb(comp, st.y, st.r, rho)


def _continue(comp, y, r0, r1):
    n = comp.n
    r = r0
    if r1 == r0:
        return y
    h = math.copysign(min(abs(r1 - r0), 0.5), r1 - r0)
    for _ in range(100000):
        if r == r1:
            return y
        s = h if abs(r1 - r) > abs(h) else r1 - r
        Jf = comp.J(y, r, comp.selection(y))
        try:
            with np.errstate(all="ignore"):
                t = np.linalg.solve(Jf[:, :n], -Jf[:, n])
        except np.linalg.LinAlgError:
            t = np.zeros(n)
        y_new, ok, it = _newton_float(comp, y + s * t, r + s)
        if ok:
            y, r = y_new, r + s
            if it <= 4:
                h *= 2
        else:
            h /= 2
            if abs(h) < 1e-10 * max(1.0, abs(r)) or abs(h) < 1e-6:
                raise _Stall(f"continuation in the load stalled at rho = {math.exp(r):.6g}", y, r)
    raise PrecisionError("continuation in the load did not finish")  # pragma: no cover


def _arb_prec_for(y) -> int:
    ymax = max((abs(float(v.mid())) if isinstance(v, arb) else abs(float(v)) for v in y), default=1.0)
    return 128 + 2 * int(math.log2(1.0 + ymax))


def _continue_arb(comp, y, r0: float, rho_target):
    """Predictor-corrector continuation in ball arithmetic (midpoints) from ``(y, r0)`` to the
    target load; the precision follows the size of ``y`` (fractional bits on top of ``log2 |y|``)."""
    n = comp.n
    y = [arb(float(v)) if not isinstance(v, arb) else v for v in y]
    r = arb(r0)
    h = None
    for _ in range(20000):
        prec = _arb_prec_for(y)
        with flint_prec(prec):
            r_t = to_arb(rho_target).log()
            rem = arb((r_t - r).mid())
            if abs(rem) <= arb(2) ** (-(prec - 20)) * (1 + abs(r)):
                return [arb(v.mid()) for v in y]
            if h is None:
                h = arb(0.25) if rem > 0 else arb(-0.25)
            step = rem if abs(rem) <= abs(h) else h
            yy = [float(v.mid()) if abs(v.mid()) < 700 else -700.0 for v in y]
            sel = comp.selection(yy)
            _g, J, dr = comp.GJ_arb(y, r, sel)
            try:
                t = J.mid().solve(arb_mat([[-d.mid()] for d in dr]))
                yp = [arb((y[i] + step * t[i, 0]).mid()) for i in range(n)]
            except (ZeroDivisionError, ValueError):
                yp = list(y)
            rn = arb((r + step).mid())
            ok = False
            for _it in range(25):
                G, J, _dr = comp.GJ_arb(yp, rn, sel)
                try:
                    d = J.mid().solve(arb_mat([[gi.mid()] for gi in G]))
                except (ZeroDivisionError, ValueError):
                    break
                yp = [arb((yp[i] - d[i, 0]).mid()) for i in range(n)]
                if all(abs(d[i, 0].mid()) <= arb(10) ** -20 * max(arb(1), abs(yp[i])) for i in range(n)):
                    ok = True
                    break
                if any(not d[i, 0].is_finite() or abs(d[i, 0].mid()) > 10 * (1 + abs(yp[i])) for i in range(n)):
                    break
            if ok:
                y, r = yp, rn
                if _it <= 4:
                    h = h * 2
            else:
                h = h / 2
                if abs(h) < arb(10) ** -8:
                    raise PrecisionError(f"continuation in ball arithmetic stalled at log rho = {float(r.mid()):.6g}")
    raise PrecisionError("continuation in ball arithmetic did not finish")  # pragma: no cover


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
        Y = _float_inverse(Jm)
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


# ==================================================================================================
# the generic certified solver
# ==================================================================================================

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
        A start ``y = log x`` for the ball Newton iteration (default :func:`start_point`).

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

    References
    ----------
    .. [1] R. Krawczyk, "Newton-Algorithmen zur Bestimmung von Nullstellen mit Fehlerschranken",
       Computing 4, 187-201 (1969).
    .. [2] S. M. Rump, "Verification methods: rigorous results using floating-point arithmetic",
       Acta Numerica 19, 287-449 (2010).

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
    while prec <= _MAX_PREC:
        with flint_prec(prec):
            r_ball = to_arb(rho).log()
            m, _ = _newton_arb(comp, y_f, r_ball, prec, sel)
            delta = 10.0 ** (-(dps + 3)) / sens
            rad = [arb(delta)] * n
            ok, margin, K, Y = _krawczyk(comp, m, rad, r_ball, sel)
            if ok:
                box = [arb(m[i], rad[i]) for i in range(n)]
                B = comp.blocking_arb(box, r_ball)
                if arb_relative_accuracy_ok(B, dps):
                    x_work = [arb_to_mpf(mi.exp()) for mi in m]
                    bracket = (arb_to_mpf(arb(B.lower())), arb_to_mpf(arb(B.upper())))
                    Bm = arb_to_mpf(B)
                    box_s = [(mpmath.nstr(arb_to_mpf(arb(b.lower())), 20), mpmath.nstr(arb_to_mpf(arb(b.upper())), 20))
                             for b in box]
                    break
                sens *= 10.0
        prec *= 2
    else:
        raise PrecisionError(f"{model!r}: fixed point at rho={rho} not certified to {dps} digits "
                             "(Krawczyk test failed up to the precision limit)")
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


# ==================================================================================================
# dispatch: accelerators first (verified), else generic
# ==================================================================================================

def _check_rho(rho):
    return check_real(rho, "rho", lower=0, lower_open=True)


def solve(model, rho, *, dps: int = DEFAULT_DPS, residual: bool = True) -> FixedPointResult:
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

    Returns
    -------
    FixedPointResult

    Raises
    ------
    TypeError, ValueError
        If ``rho`` or ``dps`` is not valid.
    PrecisionError
        If ``dps`` digits cannot be certified.

    Warns
    -----
    DefinitionMismatchWarning
        When an accelerator is registered for the class but does not apply to this definition, or
        its answer fails the verification on the definition's equations.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> from symloss.core.certify import solve
    >>> solve(RandomRouting(2), 1, dps=20).method.split(";")[0]
    'Erlang-B reduction p = E(C, a)'
    """
    _check_rho(rho)
    dps = check_dps(dps)
    from .registry import accelerator_for
    acc = accelerator_for(model)
    if acc is not None:
        ok, reason = acc.applies(model)
        if ok:
            res = acc.solve(model, rho, dps, residual=residual)
            vok, vreason = acc.verify(model, res, dps)
            if vok:
                res.extra.pop("_x_work", None)
                return res
            warnings.warn(f"{model!r}: the {acc.name} accelerator's answer does not satisfy the model's own "
                          f"stationary equations ({vreason}); using the generic certified solver",
                          DefinitionMismatchWarning, stacklevel=3)
        elif acc.warn_on_mismatch(model):
            warnings.warn(f"{model!r}: the definition differs from the equations the {acc.name} accelerator "
                          f"assumes ({reason}); using the generic certified solver", DefinitionMismatchWarning,
                          stacklevel=3)
    res = certified_fixed_point(model, rho, dps, residual=residual)
    res.extra.pop("_x_work", None)
    return res


# ==================================================================================================
# enclosures over an interval of loads
# ==================================================================================================

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

    Raises
    ------
    ValueError
        If ``rho_lo > rho_hi`` or the rates are not smooth.
    PrecisionError
        If the test fails on this interval.

    References
    ----------
    .. [1] R. Krawczyk, "Newton-Algorithmen zur Bestimmung von Nullstellen mit Fehlerschranken",
       Computing 4, 187-201 (1969).
    .. [2] S. M. Rump, "Verification methods: rigorous results using floating-point arithmetic",
       Acta Numerica 19, 287-449 (2010).

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
# ODE
# ==================================================================================================

def integrate_ode_checks(model, rho, x0, t):
    """Checked ``(rho as float, x0 array, t array)`` for the ODE integrators.

    Parameters
    ----------
    model : MeanFieldModel
        The model.
    rho : number
        The load, ``> 0`` and finite as a float.
    x0 : array_like
        Initial state with entries in ``[0, 1]``.
    t : array_like
        Increasing times, ``>= 0``.

    Returns
    -------
    tuple
        ``(rho, x0, t)`` as a float and two float arrays.

    Raises
    ------
    ValueError
        If an argument is out of range.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> from symloss.core.certify import integrate_ode_checks
    >>> integrate_ode_checks(RandomRouting(2), 1, [1, 0, 0], [0, 1])
    (1.0, array([1., 0., 0.]), array([0., 1.]))
    """
    rho = float(to_mpf(_check_rho(rho)))
    if not math.isfinite(rho) or rho <= 0:
        raise ValueError(f"rho must be a finite real number in (0, inf) for the ODE, got {rho!r}")
    n = len(model.variables)
    x0 = np.asarray(x0, dtype=float)
    if x0.shape != (n,):
        raise ValueError(f"x0 must have length {n} (the variables {model.variables})")
    if np.any(~np.isfinite(x0)) or np.any(x0 < -1e-12) or np.any(x0 > 1 + 1e-12):
        raise ValueError("x0 must have entries in [0, 1]")
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size < 1 or np.any(np.diff(t) <= 0) or t[0] < 0 or not np.all(np.isfinite(t)):
        raise ValueError("t must be a 1-d increasing array of finite times >= 0")
    return rho, x0, t


def integrate_ode(model, rho, x0, t, *, method: str = "LSODA", rtol: float = 1e-10, atol: float = 1e-13):
    """Integrate the mean-field ODE of ``model`` (scipy ``solve_ivp``, exact lambdified Jacobian).

    Parameters
    ----------
    model : MeanFieldModel
        The model.
    rho : number
        The load.
    x0 : array_like
        Initial state.
    t : array_like
        Increasing output times.
    method : str
        A ``solve_ivp`` method (``"RK45"`` is used for non-smooth rates).
    rtol, atol : float
        Tolerances.

    Returns
    -------
    OdeResult

    Raises
    ------
    ValueError
        If an argument is out of range.
    RuntimeError
        If the integration fails.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> from symloss.core.certify import integrate_ode
    >>> integrate_ode(RandomRouting(2), 1, [1, 0, 0], [0, 50]).x[-1].round(8).tolist()
    [0.4, 0.4, 0.2]
    """
    from scipy.integrate import solve_ivp
    rho, x0, t = integrate_ode_checks(model, rho, x0, t)
    n = len(model.variables)
    f, J = model._np_drift, model._np_jac
    smooth = model.compiled.smooth

    def rhs(_t, y):
        return np.asarray(f(*y, rho), dtype=float).ravel()

    def jac(_t, y):
        return np.asarray(J(*y, rho), dtype=float).reshape(n, n)
    if not smooth and method in ("LSODA", "Radau", "BDF"):
        method = "RK45"
    kw = {"jac": jac} if method in ("LSODA", "Radau", "BDF") else {}
    sol = solve_ivp(rhs, (0.0 if t[0] > 0 else t[0], t[-1]), x0, method=method, t_eval=t, rtol=rtol,
                    atol=atol, **kw)
    if not sol.success:
        raise RuntimeError(f"ODE integration failed: {sol.message}")
    X = sol.y.T
    Bf = model._np_blocking
    B = np.array([float(Bf(*row)) for row in X])
    return OdeResult(sol.t, X, B, tuple(model.variables), bool(sol.success), sol.message)


# ==================================================================================================
# enclosures over load intervals with derivative enclosures; point boxes; re-check from stored boxes
# ==================================================================================================

@dataclass
class IntervalEnclosure(ResultMixin):
    r"""A certified *tube* around the fixed-point branch over ``[rho_lo, rho_hi]``
    (:func:`enclose_interval`): with :math:`r = \log\rho`, :math:`r_m` the middle of
    :math:`[\log\rho_{lo}, \log\rho_{hi}]`, for every load of the interval the model's square
    stationary system (rows ``sel``) has exactly one zero ``y = log x`` in

    .. math:: c + t\,(r - r_m) + [-\delta, \delta]^n,

    ``c`` the Newton point at :math:`r_m`, ``t`` the tangent :math:`dy/dr` there. ``box`` is the
    interval hull of the tube; ``log_blocking`` and ``dlog_blocking``
    (:math:`d\log B/d\log\rho`, by implicit differentiation in ball arithmetic,
    :func:`box_derivative`) enclose those quantities over the whole interval."""
    rho_lo: Any
    rho_hi: Any
    center: list
    slope: list
    delta: list
    sel: list
    box: list
    log_blocking: arb
    dlog_blocking: arb
    dy_dr: list
    margin: float
    prec: int

    def slice(self, rho) -> list:
        r"""The tube's box at one load of the interval.

        Parameters
        ----------
        rho : number or str
            A load of ``[rho_lo, rho_hi]`` (taken exactly).

        Returns
        -------
        list of flint.arb
            The box :math:`c + t\,(\log\rho - r_m) + [-\delta, \delta]` (one ball per variable,
            ``y = log x``) that contains the fixed point at this load.
        """
        r = to_arb(rho).log()
        rm = _load_ball(self.rho_lo, self.rho_hi)
        rm = arb(rm.mid())
        return [self.center[i] + self.slope[i] * (r - rm) + arb(0, self.delta[i]) for i in range(len(self.center))]

    def to_dict(self) -> dict:
        """Plain data (exact tube coefficients as ``"m*2^e"`` strings, balls as strings).

        Returns
        -------
        dict
            The load interval, the tube's centre, slope, radii and row selection, the
            log-blocking and its derivative, the Krawczyk margin and the precision.
        """
        return {"rho": [str(self.rho_lo), str(self.rho_hi)], "center": [_exact_str(c) for c in self.center],
                "slope": [_exact_str(c) for c in self.slope], "delta": [_exact_str(c) for c in self.delta],
                "sel": list(self.sel), "log_blocking": self.log_blocking.str(20, radius=True, more=True),
                "dlog_blocking": self.dlog_blocking.str(20, radius=True, more=True), "margin": self.margin,
                "prec": self.prec}


def _exact_str(x: arb) -> str:
    """Exact text of an exact ball (its midpoint): ``"m*2^e"``."""
    man, exp = x.mid().man_exp()
    return f"{int(man)}*2^{int(exp)}"


def parse_exact(s: str) -> arb:
    """Inverse of :func:`_exact_str` (exact)."""
    if not isinstance(s, str) or "*2^" not in s:
        raise ValueError(f"expected an exact dyadic 'm*2^e', got {s!r}")
    m, e = s.split("*2^")
    m, e = int(m), int(e)
    from flint import ctx as _ctx
    with flint_prec(max(_ctx.prec, m.bit_length() + 8)):
        return arb(m) * arb(2) ** e


def _load_ball(rho_lo, rho_hi=None) -> arb:
    """The ball of ``log rho`` over ``[rho_lo, rho_hi]`` (exact rational end points)."""
    lo = to_arb(rho_lo).log()
    if rho_hi is None:
        return lo
    return arb.union(lo, to_arb(rho_hi).log())


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
        The contraction margin (``> 0``).

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
    """Balls of ``d log B / d y_j`` and ``d log B / d r`` (term-form blocking)."""
    if comp.mode != "terms":
        raise ValueError("derivative enclosures need a Laurent-polynomial (terms-form) model")
    z = list(y) + [r]
    tab = comp.btable
    mons = tab._monomials(z)
    B = arb(0)
    grad = [arb(0)] * (comp.n + 1)
    for t, mo in enumerate(mons):
        cm = tab.coef_arb[t] * mo
        B += cm
        for j, a in tab.terms_arb[t]:
            grad[j] += cm * a
    return [g / B for g in grad]


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
    """Re-check a stored tube (:class:`IntervalEnclosure`): the Krawczyk test of
    ``_tube_krawczyk`` with the stored centre, slope and radii, recomputed from the model's
    compiled equations. Returns the margin; raises ``ValueError`` when it fails.

    Parameters
    ----------
    model : MeanFieldModel
        The model whose equations the tube is checked against.
    center, slope, delta : sequence
        The stored tube (``center``, ``slope`` and ``delta`` of an :class:`IntervalEnclosure`; exact balls).
    sel : sequence of int
        Row selection (see :func:`check_selection`).
    rho_lo, rho_hi : int, Fraction or str
        The load interval (exact).
    prec : int, optional
        Working precision in bits (default 128).

    Returns
    -------
    float
        The contraction margin (``> 0``).

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


def enclose_interval(model, rho_lo, rho_hi, *, prec: int = 128, y_mid=None, sel=None,
                     max_inflations: int = 10) -> IntervalEnclosure:
    r"""A certified tube around the fixed-point branch, and enclosures of the log-blocking and of
    :math:`d\log B/d\log\rho`, valid for every load of ``[rho_lo, rho_hi]`` (exact end points):
    the parametric Krawczyk test with the load as an interval parameter, on the model's compiled
    stationary system, in the *sloped* form of ``_tube_krawczyk`` (the tube follows the tangent,
    so its radius is second order in the width of the interval, where the box of :func:`enclose`,
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

    Returns
    -------
    IntervalEnclosure
        The tube, its hull, and enclosures of the log-blocking and of :math:`d\log B/d\log\rho`.

    Raises
    ------
    ValueError
        If ``rho_lo >= rho_hi``.
    PrecisionError
        When no tube is found (bisect the interval).

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
