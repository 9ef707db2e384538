r"""The float start of the generic certified solver (step 1 of :mod:`symloss.core.certify`): pseudo-transient
continuation at the reference load from the model's initial state, then continuation in ``r = log rho``
to the target load (continued in ball arithmetic where float64 cannot hold the state). Re-exported by
:mod:`symloss.core.certify`.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from flint import arb, arb_mat

from ._docfragments import CORE_DOCS
from .codegen import numpy_lambdify
from .definition import RHO
from .docstrings import fill_doc
from .precision import (
    PrecisionError,
    flint_prec,
    to_arb,
    to_mpf,
)
from .shooting_start import shooting_start
from .stats import truncated_poisson_weights
from .validation import check_real

__all__ = ["default_initial_state", "float_fixed_point", "start_point"]

# ==================================================================================================
# float start
# ==================================================================================================

def default_initial_state(model, rho: float) -> np.ndarray:
    """A positive physical state: independent M/M/C/C stations (occupancy / tails) for the shipped
    state kinds, else 1/2 everywhere rescaled onto nonnegative invariants.

    Parameters
    ----------
    model : MeanFieldModel
        The model (its ``initial_state(rho)`` is used when it gives one).
    rho : float
        The load.

    Returns
    -------
    numpy.ndarray
    """
    x0 = model.initial_state(rho)
    if x0 is not None:
        return np.asarray(x0, dtype=np.float64)
    n = len(model.variables)
    kind = getattr(model, "state_kind", "custom")
    C = getattr(model, "C", None)
    if kind in ("occupancy", "tail") and C is not None:
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


def _rates_not_finite(model, rho: float, x) -> str | None:
    """The first transition rate that is not a finite real number at ``(x, rho)``, described, or None."""
    args = list(model.variables) + [RHO]
    for i, (_jump, rate) in enumerate(model._checked_transitions):
        with np.errstate(all="ignore"):
            try:
                v = complex(numpy_lambdify(args, rate)(*[float(a) for a in x], rho))
            except (ValueError, TypeError, ZeroDivisionError, OverflowError):
                v = complex(math.nan)
        if not (math.isfinite(v.real) and abs(v.imag) <= 1e-300 and not np.isnan(v.real)):
            return f"transition {i}: rate {rate} is {v.real if v.imag == 0 else v} at rho = {rho:.6g}"
    return None


def _ptc_at(model, comp, r):
    """The float solution at ``r = log rho`` from the default initial state (cached per load)."""
    cache = model.__dict__.setdefault("_float_start_cache", {})
    if r not in cache:
        x0 = np.maximum(default_initial_state(model, math.exp(r)), 1e-300)
        bad = _rates_not_finite(model, math.exp(r), x0)
        if bad is not None:
            raise _OutsideDomain(bad)
        cache[r] = _ptc(comp, np.log(x0), r)
    return cache[r].copy()


class _OutsideDomain(PrecisionError):
    """A rate is not a finite real number at the load tried."""


def _smooth_start(model, rho):
    """``(compiled, y, r0)``: the compiled system of a model with smooth rates (raises otherwise) and
    its float solution at the reference load (:func:`_start_at_reference_load`)."""
    comp = model.compiled
    comp.require_smooth()
    y, r0 = _start_at_reference_load(model, comp, rho)
    return comp, y, r0


def _start_at_reference_load(model, comp, rho=None):
    """The float solution at the reference load ``2 C`` (``C`` the model's capacity, 1 without one;
    no tiny components there), cached, with its ``log rho``. When the rates are not finite real
    numbers at the reference load (a rate such as ``sqrt(rho - 3)``, defined only for some loads) or
    the float start fails there, and a target load ``rho`` is given, the start is made at the target
    load itself. Raises ``ValueError`` naming the rate when the rates are not defined at the target
    load either."""
    r0 = math.log(_scale(model)) + math.log(2.0)
    try:
        return _ptc_at(model, comp, r0), r0
    except PrecisionError as exc:
        first = exc
    r1 = None if rho is None else _load_log(rho)
    if r1 is None or r1 == r0 or not math.isfinite(r1):
        if isinstance(first, _OutsideDomain):
            raise ValueError(f"{model!r}: the rates are not defined at the reference load rho0 = {math.exp(r0):.6g} "
                             f"of the float start ({first})") from None
        raise first
    try:
        return _ptc_at(model, comp, r1), r1
    except _OutsideDomain as exc:
        raise ValueError(f"{model!r}: the rates are not defined at rho = {float(to_mpf(rho)):.6g} ({exc}); "
                         "the model is not defined at this load") from None
    except PrecisionError as exc:
        raise PrecisionError(f"{model!r}: the float start failed at the reference load rho0 = {math.exp(r0):.6g} "
                             f"({first}) and at the load rho = {float(to_mpf(rho)):.6g} itself ({exc})") from None


@fill_doc(CORE_DOCS)
def float_fixed_point(model, rho) -> np.ndarray:
    """Float64 solution ``y = log x`` of the stationary system at load ``rho`` (see the module
    docstring, step 1); ``rho`` may be an mpf far outside the float range. Raises
    :class:`~symloss.core.precision.PrecisionError` where float64 cannot hold the state (doubly
    exponential tails with ``|log x|`` beyond ~1e12): :func:`start_point` then continues in ball
    arithmetic.

    {{parameters_smooth_model_rho}}

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
    comp, y, r0 = _smooth_start(model, rho)
    return _continue(comp, y, r0, _load_log(rho))


@fill_doc(CORE_DOCS)
def start_point(model, rho):
    """A start for the ball Newton iteration. A banded tail model (drift row ``k`` in ``u_{k-1}, u_k,
    u_{k+1}`` and ``u_C`` only, read from the definition) starts from the shooting of
    :mod:`symloss.core.shooting_start` (any ``C``: the state may lie far below the float range);
    every other model, or a banded one whose shooting does not bracket, from the float continuation
    where float64 suffices, else its last point continued in ball arithmetic (midpoints) to the
    target load.

    {{parameters_smooth_model_rho}}

    Returns
    -------
    numpy.ndarray or list of flint.arb
        ``y = log x``: floats, or ``arb`` midpoints beyond the float range.

    Examples
    --------
    A banded model starts from the shooting, at the point the float continuation reaches:

    >>> import numpy as np
    >>> from symloss import PowerOfD
    >>> from symloss.core.certify import float_fixed_point, start_point
    >>> bool(np.allclose(start_point(PowerOfD(2, 3), 0.5), float_fixed_point(PowerOfD(2, 3), 0.5)))
    True
    """
    model.compiled.require_smooth()
    y = _banded_start(model, rho)
    if y is not None:
        return y
    comp, y, r0 = _smooth_start(model, rho)
    r1 = _load_log(rho)
    try:
        return _continue(comp, y, r0, r1)
    except _Stall as st:
        return _continue_arb(comp, st.y, st.r, rho)


#: a banded start whose components all lie below this size is handed on as float64 (as the
#: continuation's); larger ones stay ``arb`` midpoints (float64 would lose their fractional bits)
_FLOAT_START_MAX = 2.0 ** 30


def _banded_start(model, rho):
    """The banded shooting start (:func:`symloss.core.shooting_start.shooting_start`) where the
    definition's structure allows it, as float64 when it fits; ``None`` otherwise."""
    y = shooting_start(model, rho)
    if y is None:
        return None
    if all(abs(v.mid()) <= _FLOAT_START_MAX for v in y):
        return np.array([float(v.mid()) for v in y])
    return y


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


def _check_rho(rho):
    return check_real(rho, "rho", lower=0, lower_open=True)
