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
from fractions import Fraction

from flint import arb, arb_mat, fmpq

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
           "StateSpace", "fixed_point_uniqueness", "verify_uniqueness", "ode_limit", "NonUniqueFixedPointError",
           "NonUniqueFixedPointWarning", "UNIQUENESS_MAX_DIM", "UNIQUENESS_EVIDENCE_MAX_DIM",
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

def outward_decimal_strings(lo, hi, digits: int) -> list:
    """``[lo, hi]`` as decimal strings of ``digits`` significant digits rounded *outward* (``lo`` down,
    ``hi`` up), so the printed interval contains the exact one (round-to-nearest of both ends can
    print a point or an interval that misses a bound).

    Parameters
    ----------
    lo, hi : mpmath.mpf
        The interval ends, ``lo <= hi``.
    digits : int
        Significant digits, ``>= 1``.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import mpmath
    >>> outward_decimal_strings(mpmath.mpf(1) / 3, mpmath.mpf(1) / 3, 5)
    ['0.33333', '0.33334']
    """
    import decimal

    def one(x, rounding):
        if not mpmath.isfinite(x):
            return mpmath.nstr(x, digits)
        sign, man, exp, _bc = mpmath.mpf(x)._mpf_
        num, den = (man << exp, 1) if exp >= 0 else (man, 1 << -exp)
        with decimal.localcontext() as ctx:
            ctx.prec, ctx.rounding = max(1, int(digits)), rounding
            v = (decimal.Decimal(-num if sign else num) / decimal.Decimal(den)).normalize()
            return format(v, "f") if abs(v.adjusted()) < 12 else str(v)
    return [one(lo, decimal.ROUND_FLOOR), one(hi, decimal.ROUND_CEILING)]


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
        accelerator its own certificate and the verification on the definition;
        ``uniqueness_record`` (the record behind the two fields below, see
        :func:`fixed_point_uniqueness`).
    uniqueness : str
        Whether this is the only fixed point on the state space (:class:`StateSpace`):
        ``"PROVED ..."`` (exclusion in interval arithmetic, re-checkable), ``"NOT UNIQUE: k fixed
        points ..."`` (each certified; which one this result is and which one the ODE from the
        default start reaches), ``"UNDECIDED ..."``, ``"EVIDENCE ..."`` (multi-start, not a proof)
        or ``"NOT CHECKED ..."`` with the reason.
    n_found : int or None
        The number of fixed points found on the state space (``None`` when not searched).

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
    uniqueness: str = "NOT CHECKED"
    n_found: Any = None

    def to_dict(self) -> dict:
        """Plain data: every number with the ``dps`` digits asked for (the bracket with 3 more, its
        ends rounded outward, so the printed bracket still contains the blocking).

        Returns
        -------
        dict
        """
        n = self.dps
        out = {"model": self.model, "rho": mpmath.nstr(self.rho, n), "x": [mpmath.nstr(v, n) for v in self.x],
               "blocking": mpmath.nstr(self.blocking, n),
               "blocking_bracket": outward_decimal_strings(*self.blocking_bracket, n + 3),
               "residual": mpmath.nstr(self.residual, 5), "method": self.method, "dps": n,
               "uniqueness": self.uniqueness, "n_found": self.n_found}
        for k, v in self.extra.items():
            out[k] = mpmath.nstr(v, n) if isinstance(v, mpmath.mpf) else v
        return out

    def __repr__(self) -> str:
        return (f"FixedPointResult({self.model}, rho={mpmath.nstr(self.rho, 8)}, "
                f"blocking={mpmath.nstr(self.blocking, min(self.dps, 20))}, "
                f"residual={mpmath.nstr(self.residual, 3)}, method={self.method!r}, "
                f"uniqueness={self.uniqueness.split(':')[0].split(' (')[0]!r}, n_found={self.n_found})")


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
        The integrator's flag; ``False`` also when the trajectory leaves the state space.
    message : str
        The integrator's message, or where the trajectory left the state space.
    left_state_space : dict or None
        ``None`` when every integrator step stayed in the state space (:class:`StateSpace`, within
        the tolerance ``tol``); else the first step outside it: ``t``, ``coordinate`` (a variable
        name or ``None`` for an invariant), ``value``, ``constraint``, ``tol``.
    """
    t: np.ndarray
    x: np.ndarray
    blocking: np.ndarray
    variables: tuple
    success: bool
    message: str
    left_state_space: Any = None

    def to_dict(self) -> dict:
        """Plain data (lists of floats).

        Returns
        -------
        dict
        """
        return {"t": self.t.tolist(), "x": self.x.tolist(), "blocking": self.blocking.tolist(),
                "variables": [str(v) for v in self.variables], "success": self.success, "message": self.message,
                "left_state_space": self.left_state_space}


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


def _rates_not_finite(model, rho: float, x) -> str | None:
    """The first transition rate that is not a finite real number at ``(x, rho)``, described, or None."""
    from .codegen import numpy_lambdify
    from .model import RHO
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
    y, r0 = _start_at_reference_load(model, comp, rho)
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
    y, r0 = _start_at_reference_load(model, comp, rho)
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

    Raises
    ------
    TypeError, ValueError
        If ``rho``, ``dps`` or ``uniqueness`` is not valid.
    PrecisionError
        If ``dps`` digits cannot be certified.

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
    :data:`UNIQUENESS_MAX_DIM` free coordinates, decided by :func:`fixed_point_uniqueness` (cached
    per definition and load); up to :data:`UNIQUENESS_EVIDENCE_MAX_DIM`, multi-start evidence in
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
    from .registry import accelerator_for
    acc = accelerator_for(model)
    if acc is not None:
        ok, reason = acc.applies(model)
        if ok:
            res = acc.solve(model, rho, dps, residual=residual)
            vok, vreason = acc.verify(model, res, dps)
            if vok:
                _attach_uniqueness(model, rho, res, acc=acc, search=residual, check=uniqueness)
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
    _attach_uniqueness(model, rho, res, acc=None, search=residual, check=uniqueness)
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
        Initial state in the state space (:class:`StateSpace`: entries in ``[0, 1]``, the declared
        invariants, the order of tails for ``state_kind="tail"``), up to ``1e-9``.
    t : array_like
        Increasing times, ``>= 0``.

    Returns
    -------
    tuple
        ``(rho, x0, t)`` as a float and two float arrays.

    Raises
    ------
    ValueError
        If an argument is out of range (for ``x0``: naming the violated constraint).

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
        raise ValueError(f"x0 must have entries in [0, 1], got x0 = {x0.tolist()}")
    try:
        S = StateSpace(model)
    except ValueError:
        S = None
    bad = S.violation(x0, _X0_TOL) if S is not None else None
    if bad is not None:
        raise ValueError(f"x0 = {x0.tolist()} is not in the state space ({S.describe()}): {bad[1]}")
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
        ``success=False`` and ``left_state_space`` set when an integrator step leaves the state
        space (:class:`StateSpace`) by more than ``tol = 1e3 (atol + rtol)`` (``1e-7`` at least:
        the tolerances bound the local error only).

    Raises
    ------
    ValueError
        If an argument is out of range (``x0`` outside the state space included).
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
    sol = solve_ivp(rhs, (0.0 if t[0] > 0 else t[0], t[-1]), x0, method=method, rtol=rtol,
                    atol=atol, dense_output=True, **kw)
    if not sol.success:
        raise RuntimeError(f"ODE integration failed: {sol.message}")
    X = np.asarray(sol.sol(t)).reshape(n, len(t)).T
    Bf = model._np_blocking
    B = np.array([float(Bf(*row)) for row in X])
    left = _first_exit(model, np.concatenate([sol.t, t]), np.vstack([sol.y.T, X]),
                       max(_X0_TOL, 1e3 * (float(atol) + float(rtol))), sol.sol)
    if left is not None:
        msg = (f"the trajectory leaves the state space at t = {left['t']:.6g}: {left['constraint']} "
               f"(tolerance {left['tol']:.1e})")
        return OdeResult(t, X, B, tuple(model.variables), False, msg, left)
    return OdeResult(t, X, B, tuple(model.variables), bool(sol.success), sol.message)


_X0_TOL = 1e-9


def _first_exit(model, times, X, tol, dense=None):
    """The first (in time) state of the rows ``X`` at ``times`` outside the state space by more than
    ``tol``, as a dict, or ``None``; with the integrator's ``dense`` output the exit time is located
    by bisection between the last step inside and the first step outside."""
    try:
        S = StateSpace(model)
    except ValueError:
        return None
    order = np.argsort(times, kind="stable")
    times, X = times[order], X[order]
    bad = np.zeros(len(times), dtype=bool)
    bad |= ~np.all(np.isfinite(X), axis=1)
    bad |= np.any(X < -tol, axis=1) | np.any(X > 1 + tol, axis=1)
    for c, v in S.invariants:
        cf = np.array([float(ci) for ci in c])
        bad |= np.abs(X @ cf - float(v)) > tol * (1 + np.sum(np.abs(cf)))
    if S.tail and S.n > 1:
        bad |= np.any(X[:, 1:] > X[:, :-1] + tol, axis=1)
    if not np.any(bad):
        return None
    i = int(np.argmax(bad))
    t_out, x_out = float(times[i]), X[i]
    if dense is not None and i > 0:
        a, b = float(times[i - 1]), t_out
        for _ in range(60):
            mid = 0.5 * (a + b)
            if not a < mid < b:
                break
            xm = np.asarray(dense(mid), dtype=float).ravel()
            if S.violation(xm, tol) is None:
                a = mid
            else:
                b, x_out = mid, xm
        t_out = b
    j, text = S.violation(x_out, tol)
    i_x = x_out
    return {"t": float(t_out), "coordinate": None if j is None else str(S.variables[j]),
            "value": None if j is None else float(i_x[j]), "constraint": text, "tol": float(tol)}


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


# ==================================================================================================
# the state space; uniqueness of the fixed point on it
# ==================================================================================================

#: the largest dimension of the state space (variables minus invariants) on which uniqueness is
#: decided by exclusion in interval arithmetic
UNIQUENESS_MAX_DIM = 3
#: the largest dimension on which other fixed points are searched by multi-start (evidence)
UNIQUENESS_EVIDENCE_MAX_DIM = 12
_UNIQ_MAX_BOXES = 6000
_UNIQ_MIN_WIDTH = 2.0 ** -30
_UNIQ_PREC = 128


class NonUniqueFixedPointError(ValueError):
    """The model has more than one fixed point on its state space (at a load, or somewhere in a load
    range): a result that presumes a unique fixed point (a certified comparison) is refused."""


class NonUniqueFixedPointWarning(UserWarning):
    """The certified fixed point is one of several fixed points on the state space."""


class StateSpace:
    r"""The state space of a model: :math:`x \in [0, 1]^n` (fractions of servers), the declared
    linear invariants :math:`c_k \cdot x = v_k`, and for ``state_kind="tail"`` the order
    :math:`u_1 \ge u_2 \ge \dots \ge u_C`. In *free coordinates* ``z`` (the variables not eliminated
    by an invariant; one variable per invariant, the one its square system replaces, is eliminated):
    :math:`x_E = b + A z` exactly.

    Parameters
    ----------
    model : MeanFieldModel
        The model.

    Raises
    ------
    ValueError
        If the invariants cannot be solved for the variables their rows replace.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> from symloss.core.certify import StateSpace
    >>> S = StateSpace(RandomRouting(2))
    >>> S.dim, S.describe()
    (2, 'x0, x1, x2 in [0, 1], x0 + x1 + x2 = 1')
    """

    def __init__(self, model):
        import sympy as sp
        V = list(model.variables)
        n = len(V)
        inv = model._invariants
        replaced = model._replaced_rows if inv else {}
        self.n = n
        self.variables = tuple(V)
        self.E = sorted(replaced)
        self.F = [i for i in range(n) if i not in replaced]
        self.dim = len(self.F)
        self.tail = getattr(model, "state_kind", "custom") == "tail"
        self.invariants = [([Fraction(int(sp.Rational(c).p), int(sp.Rational(c).q)) for c in cc],
                            Fraction(int(sp.Rational(v).p), int(sp.Rational(v).q))) for cc, v in inv]
        self.b, self.A = [], []
        if self.E:
            M = sp.Matrix([[inv[k][0][j] for j in self.E] for k in range(len(inv))])
            if M.det() == 0:
                raise ValueError("the invariants cannot be solved for the variables their rows replace")
            Minv = M.inv()
            vv = sp.Matrix([inv[k][1] for k in range(len(inv))])
            CF = sp.Matrix([[inv[k][0][i] for i in self.F] for k in range(len(inv))])
            bb, AA = Minv * vv, -Minv * CF
            self.b = [Fraction(int(sp.Rational(bb[j]).p), int(sp.Rational(bb[j]).q)) for j in range(len(self.E))]
            self.A = [[Fraction(int(sp.Rational(AA[j, i]).p), int(sp.Rational(AA[j, i]).q)) for i in range(self.dim)]
                      for j in range(len(self.E))]
        self._b_arb = [arb(fmpq(q.numerator, q.denominator)) for q in self.b]
        self._A_arb = [[arb(fmpq(q.numerator, q.denominator)) for q in row] for row in self.A]

    def describe(self) -> str:
        """A one-line description of the set.

        Returns
        -------
        str
        """
        parts = [", ".join(map(str, self.variables)) + " in [0, 1]"]
        for c, v in self.invariants:
            lhs = " + ".join((str(v_) if ci == 1 else f"{ci}*{v_}") for ci, v_ in zip(c, self.variables) if ci != 0)
            parts.append(f"{lhs} = {v}")
        if self.tail:
            parts.append(" >= ".join(map(str, self.variables)))
        return ", ".join(parts)

    # float ---------------------------------------------------------------------------------------
    def violation(self, x, tol: float = 0.0):
        """The first constraint ``x`` violates by more than ``tol``, as ``(index, text)``, or ``None``.

        Parameters
        ----------
        x : array_like
            A state (floats, order of the variables).
        tol : float
            Tolerance.

        Returns
        -------
        tuple or None
            ``(coordinate index or None, description)``.
        """
        x = np.asarray(x, dtype=float)
        if not np.all(np.isfinite(x)):
            i = int(np.argmax(~np.isfinite(x)))
            return i, f"{self.variables[i]} = {x[i]!r} is not finite"
        i = int(np.argmin(x))
        if x[i] < -tol:
            return i, f"{self.variables[i]} = {x[i]:.6g} < 0"
        i = int(np.argmax(x))
        if x[i] > 1 + tol:
            return i, f"{self.variables[i]} = {x[i]:.6g} > 1"
        for c, v in self.invariants:
            val = float(sum(float(ci) * x[j] for j, ci in enumerate(c) if ci != 0))
            if abs(val - float(v)) > tol * (1 + sum(abs(float(ci)) for ci in c)):
                lhs = " + ".join((str(v_) if ci == 1 else f"{ci}*{v_}") for ci, v_ in zip(c, self.variables) if ci != 0)
                return None, f"invariant {lhs} = {v} violated ({val:.12g})"
        if self.tail:
            for k in range(self.n - 1):
                if x[k + 1] > x[k] + tol:
                    return k + 1, (f"order {self.variables[k]} >= {self.variables[k + 1]} violated "
                                   f"({x[k]:.6g} < {x[k + 1]:.6g})")
        return None

    # balls ---------------------------------------------------------------------------------------
    def full(self, z):
        """The state (balls) of the free coordinates ``z`` (balls).

        Parameters
        ----------
        z : sequence of flint.arb
            Free coordinates.

        Returns
        -------
        list of flint.arb
        """
        x = [None] * self.n
        for k, i in enumerate(self.F):
            x[i] = z[k]
        for j, e in enumerate(self.E):
            acc = self._b_arb[j]
            for k in range(self.dim):
                a = self._A_arb[j][k]
                if a != 0:
                    acc = acc + a * z[k]
            x[e] = acc
        return x

    def dxdz(self):
        """``d x / d z``.

        Returns
        -------
        list of list of flint.arb
            One row per variable, one column per free coordinate.
        """
        out = [None] * self.n
        for k, i in enumerate(self.F):
            out[i] = [arb(1) if kk == k else arb(0) for kk in range(self.dim)]
        for j, e in enumerate(self.E):
            out[e] = list(self._A_arb[j])
        return out

    def outside(self, x) -> bool:
        """Whether the box ``x`` certainly misses the state space.

        Parameters
        ----------
        x : sequence of flint.arb
            A box (one ball per variable).

        Returns
        -------
        bool
        """
        for v in x:
            if v < 0 or v > 1:
                return True
        if self.tail:
            for k in range(self.n - 1):
                if x[k] < x[k + 1]:
                    return True
        return False

    def inside(self, x) -> bool:
        """Whether every point of the box ``x`` (positive) that satisfies the invariants certainly
        lies in the state space (upper bounds tightened by the invariants with non-negative
        coefficients).

        Parameters
        ----------
        x : sequence of flint.arb
            A box (one ball per variable).

        Returns
        -------
        bool
        """
        x = list(x)
        for c, v in self.invariants:
            if all(ci >= 0 for ci in c):
                lows = [arb(max(xj.lower(), arb(0))) if ci != 0 else arb(0) for ci, xj in zip(c, x)]
                for i, ci in enumerate(c):
                    if ci > 0:
                        rest = sum((arb(fmpq(cj.numerator, cj.denominator)) * lows[j] for j, cj in enumerate(c)
                                    if j != i and cj != 0), arb(0))
                        ub = (arb(fmpq(v.numerator, v.denominator)) - rest) / arb(fmpq(ci.numerator, ci.denominator))
                        if ub < x[i].upper():
                            x[i] = arb.union(arb(x[i].lower()), arb(ub.upper()))
        if not all(v >= 0 and v <= 1 for v in x):
            return False
        if self.tail:
            return all(x[k] >= x[k + 1] for k in range(self.n - 1))
        return True


class _DriftBalls:
    """Ball evaluation of the model's drift (all ``n`` rows) and of its Jacobian in ``x``."""

    def __init__(self, model):
        self.n = n = len(model.variables)
        poly = model._drift_poly
        self.poly = None
        if poly is not None:
            self.poly = [[(arb(fmpq(c.numerator, c.denominator)), tuple((int(j), int(e)) for j, e in key))
                          for key, c in row.items()] for row in poly]
        else:
            from .codegen import arb_lambdify
            from .model import RHO
            args = list(model.variables) + [RHO]
            self._f = arb_lambdify(args, list(model._drift))
            self._J = arb_lambdify(args, model.jacobian())

    @staticmethod
    def _pow(v, e):
        return v if e == 1 else v ** e

    def values(self, x, rho):
        if self.poly is None:
            return list(self._f(*x, rho))
        z = list(x) + [rho]
        out = []
        for row in self.poly:
            acc = arb(0)
            for c, key in row:
                t = c
                for j, e in key:
                    t = t * self._pow(z[j], e)
                acc += t
            out.append(acc)
        return out

    def jacobian(self, x, rho):
        n = self.n
        if self.poly is None:
            M = self._J(*x, rho)
            return [[arb(M[i][j]) if not isinstance(M[i][j], arb) else M[i][j] for j in range(n)] for i in range(n)]
        z = list(x) + [rho]
        out = [[arb(0)] * n for _ in range(n)]
        for i, row in enumerate(self.poly):
            r_ = out[i]
            for c, key in row:
                for a, (j, e) in enumerate(key):
                    if j >= n:
                        continue
                    t = c * e
                    for b_, (jj, ee) in enumerate(key):
                        if b_ != a:
                            t = t * self._pow(z[jj], ee)
                        elif e != 1:
                            t = t * self._pow(z[jj], e - 1)
                    r_[j] = r_[j] + t
        return out


def _box_arb(lo, hi):
    return [arb.union(arb(a), arb(b)) for a, b in zip(lo, hi)]


class _Uniqueness:
    """Exclusion over the state space (free coordinates) with Krawczyk regions in ``y = log x``."""

    def __init__(self, model, R: arb, prec: int = _UNIQ_PREC, max_boxes: int = _UNIQ_MAX_BOXES):
        self.model = model
        self.comp = model.compiled
        self.S = StateSpace(model)
        self.D = _DriftBalls(model)
        self.R = R
        self.prec = prec
        self.max_boxes = max_boxes
        self.regions = []          # dicts: m, rad (y), sel, X (x balls), margin
        self.tree = []
        self.undecided = []
        self.boxes = 0
        self.newton_tries = 0
        with flint_prec(prec):
            self.rho = R.exp()
            self.r_mid = float(R.mid())
            self.dxdz = self.S.dxdz()

    # the verdict on one box ---------------------------------------------------------------------
    def classify(self, lo, hi):
        S = self.S
        z = _box_arb(lo, hi)
        x = S.full(z)
        if S.outside(x):
            return "O"
        for k, reg in enumerate(self.regions):
            if all(X.contains(v) for X, v in zip(reg["X"], x)):
                return f"A{k}"
        f = self.D.values(x, self.rho)
        for i, v in enumerate(f):
            if v > 0 or v < 0:
                return f"E{i}"
        # mean-value form around the centre
        c = [arb((a + b) / 2) for a, b in zip(lo, hi)]
        xc = S.full(c)
        fc = self.D.values(xc, self.rho)
        J = self.D.jacobian(x, self.rho)
        dz = [zi - ci for zi, ci in zip(z, c)]
        n, d = S.n, S.dim
        for i in range(n):
            acc = fc[i]
            for k in range(d):
                g = arb(0)
                for j in range(n):
                    a = self.dxdz[j][k]
                    if a != 0:
                        g += J[i][j] * a
                acc += g * dz[k]
            if acc > 0 or acc < 0:
                return f"M{i}"
        return None

    # Krawczyk regions ---------------------------------------------------------------------------
    def try_newton(self, lo, hi):
        """Float Newton (log variables) from the centre of the box; a new certified region or None."""
        self.newton_tries += 1
        c = np.array([(a + b) / 2 for a, b in zip(lo, hi)])
        xc = np.array([float(v.mid()) for v in self.S.full([arb(v) for v in c])])
        xc = np.clip(xc, 1e-9, 1.0)
        y0 = np.log(xc)
        try:
            y, ok, _ = _newton_float(self.comp, y0, self.r_mid)
        except (FloatingPointError, ValueError, ZeroDivisionError):
            return None
        if not ok or not np.all(np.isfinite(y)) or np.max(y) > 1e-6:
            return None
        if self.S.violation(np.exp(y), 1e-7) is not None:
            return None
        for reg in self.regions:
            if all(X.contains(arb(float(v))) for X, v in zip(reg["X"], np.exp(y))):
                return None
        reg = self.region(y)
        if reg is None:
            return None
        self.regions.append(reg)
        return reg

    def region(self, y):
        comp, R, prec = self.comp, self.R, self.prec
        n = comp.n
        sel = check_selection(self.model, comp.selection(np.maximum(y, -700.0)))
        with flint_prec(prec):
            try:
                m, _ = _newton_arb(comp, list(y), arb(R.mid()), prec, sel)
            except PrecisionError:
                return None
            t = [arb(0)] * n
            w = R.rad()
            if w > 0:
                _g, Jm, dr = comp.GJ_arb(m, arb(R.mid()), sel)
                try:
                    tt = Jm.mid().solve(arb_mat([[d.mid()] for d in dr]))
                    t = [abs(arb(tt[i, 0].mid())) for i in range(n)]
                except (ZeroDivisionError, ValueError):
                    return None
            for rel in (1e-3, 1e-6, 1e-10, 2.0 ** (-(prec // 2))):
                rad = [arb(rel) * (1 + abs(m[i])) + 2 * t[i] * w for i in range(n)]
                Y = None
                for _ in range(6):
                    ok, margin, K, Y = _krawczyk(comp, m, rad, R, sel, Y)
                    if ok or K is None:
                        break
                    rad = [max(rad[i] * 2, (abs(K[i] - m[i]).upper() if K[i].is_finite() else rad[i] * 8) * arb(1.5))
                           for i in range(n)]
                    if any(not r_.is_finite() or r_ > 5 for r_ in rad):
                        break
                if not ok:
                    continue
                X = [arb(m[i], rad[i]).exp() for i in range(n)]
                if not self.S.inside(X):
                    continue
                if any(all(a.overlaps(b) for a, b in zip(X, reg["X"])) for reg in self.regions):
                    continue
                return {"m": [arb(v.mid()) for v in m], "rad": [arb(r_.upper()) for r_ in rad], "sel": list(sel),
                        "X": X, "margin": margin}
        return None

    def _touches_region(self, lo, hi):
        """The box overlaps a known region (Newton from it would most likely find that zero again)."""
        if not self.regions:
            return False
        x = self.S.full(_box_arb(lo, hi))
        return any(all(X.overlaps(v) for X, v in zip(reg["X"], x)) for reg in self.regions)

    # the search ---------------------------------------------------------------------------------
    def visit(self, lo, hi, depth):
        self.boxes += 1
        with flint_prec(self.prec):
            v = self.classify(lo, hi)
            width = max(b - a for a, b in zip(lo, hi))
            if v is None and depth % max(1, len(lo)) == 0 and width <= 0.5 and self.newton_tries < 100 \
                    and not self._touches_region(lo, hi):
                if self.try_newton(lo, hi) is not None:
                    v = self.classify(lo, hi)
        if v is not None:
            self.tree.append(v)
            return
        if width <= _UNIQ_MIN_WIDTH or self.boxes >= self.max_boxes:
            self.tree.append("U")
            self.undecided.append((list(lo), list(hi)))
            return
        k = max(range(len(lo)), key=lambda i: hi[i] - lo[i])
        mid = (lo[k] + hi[k]) / 2
        self.tree.append("S")
        hi1 = list(hi)
        hi1[k] = mid
        lo2 = list(lo)
        lo2[k] = mid
        self.visit(list(lo), hi1, depth + 1)
        self.visit(lo2, list(hi), depth + 1)

    def run(self):
        d = self.S.dim
        if d == 0:
            raise ValueError("the state space is a point")
        self.visit([0.0] * d, [1.0] * d, 0)
        return self


def _region_record(reg) -> dict:
    return {"center": [_exact_str(v) for v in reg["m"]], "delta": [_exact_str(v) for v in reg["rad"]],
            "sel": list(reg["sel"]), "x": [mpmath.nstr(arb_to_mpf(arb(v.mid()).exp()), 17) for v in reg["m"]]}


def _uniqueness_record(u: _Uniqueness, rho_lo, rho_hi) -> dict:
    k = len(u.regions)
    if not u.undecided:
        status = "PROVED" if k == 1 else ("NOT UNIQUE" if k >= 2 else "UNDECIDED")
    else:
        status = "NOT UNIQUE" if k >= 2 else "UNDECIDED"
    return {"status": status, "n_found": k, "complete": not u.undecided, "rho": [str(rho_lo), str(rho_hi)],
            "state_space": u.S.describe(), "dim": u.S.dim, "boxes": u.boxes, "undecided": len(u.undecided),
            "undecided_near": [[(a + b) / 2 for a, b in zip(lo, hi)] for lo, hi in u.undecided[:3]],
            "prec": u.prec, "regions": [_region_record(r) for r in u.regions], "tree": "".join(
                t if len(t) == 1 else f"{t[0]}{t[1:]}," for t in u.tree)}


def _parse_tree(s: str) -> list:
    out, i = [], 0
    while i < len(s):
        ch = s[i]
        if ch in "SOU":
            out.append(ch)
            i += 1
        elif ch in "EMA":
            j = s.index(",", i)
            out.append(ch + s[i + 1:j])
            i = j + 1
        else:
            raise ValueError(f"bad token {ch!r} in the exclusion tree")
    return out


def fixed_point_uniqueness(model, rho_lo, rho_hi=None, *, prec: int = _UNIQ_PREC,
                           max_boxes: int = _UNIQ_MAX_BOXES) -> dict:
    r"""Count the fixed points of ``model`` on its state space (:class:`StateSpace`) at the load
    ``rho_lo``, or for every load of ``[rho_lo, rho_hi]``, by exclusion in interval arithmetic.

    The free coordinates :math:`[0, 1]^d` are bisected; a box is discarded when its image certainly
    misses the state space, or when a component of the drift, enclosed over the box (directly or by
    the mean-value form) for every load of the interval, excludes 0; float Newton from a box that
    is not discarded finds a zero, around which a Krawczyk test in ``y = log x`` (parametric in the
    load) proves a region holding exactly one zero for every load; boxes inside such a region are
    accounted for. The regions are pairwise disjoint and lie in the state space, so when every leaf
    is decided the number of fixed points on the state space is the number of regions, for every
    load of the interval. The record holds the tree of verdicts and the regions, which
    :func:`verify_uniqueness` re-checks without searching.

    Parameters
    ----------
    model : MeanFieldModel
        A model with smooth rates and at most :data:`UNIQUENESS_MAX_DIM` free coordinates.
    rho_lo, rho_hi : int, Fraction, float or str
        The load, or the end points of a load interval (exact).
    prec : int, optional
        Working precision in bits (default 128).
    max_boxes : int, optional
        Budget of boxes (default 6000); leaves left open make the status ``UNDECIDED``.

    Returns
    -------
    dict
        ``status`` (``"PROVED"``: exactly one fixed point; ``"NOT UNIQUE"``: at least ``n_found``
        distinct certified fixed points, exactly that many when ``complete``; ``"UNDECIDED"``),
        ``n_found``, ``regions`` (centre and radius in ``y = log x``, the state ``x``), the tree,
        the state space, the number of boxes.

    Raises
    ------
    ValueError
        If the state space has more than :data:`UNIQUENESS_MAX_DIM` free coordinates, or none.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> from symloss.core.certify import fixed_point_uniqueness
    >>> u = fixed_point_uniqueness(RandomRouting(2), 1)
    >>> u["status"], u["n_found"], round(float(u["regions"][0]["x"][2]), 12)     # E(2, 1) = 1/5
    ('PROVED', 1, 0.2)
    """
    comp = model.compiled
    comp.require_smooth()
    S = StateSpace(model)
    if S.dim > UNIQUENESS_MAX_DIM:
        raise ValueError(f"uniqueness by exclusion handles at most {UNIQUENESS_MAX_DIM} free coordinates, "
                         f"this state space has {S.dim}")
    with flint_prec(prec):
        R = _load_ball(rho_lo, rho_hi)
    u = _Uniqueness(model, R, prec, max_boxes).run()
    lo_s = _exact_load_str(rho_lo)
    return _uniqueness_record(u, lo_s, lo_s if rho_hi is None else _exact_load_str(rho_hi))


def _exact_load_str(rho) -> str:
    """The load as an exact rational string (floats and mpf exactly, decimal strings as written)."""
    if isinstance(rho, str):
        return str(Fraction(rho))
    if isinstance(rho, mpmath.mpf):
        man, exp = rho.man, rho.exp
        return str(Fraction(int(man)) * Fraction(2) ** int(exp))
    try:
        return str(Fraction(rho))
    except (TypeError, ValueError):
        return str(Fraction(str(rho)))


def verify_uniqueness(model, record: dict) -> str:
    """Re-check a record of :func:`fixed_point_uniqueness` without searching: the tree of verdicts is
    walked (its boxes tile the free coordinates by construction), every discarded box is re-checked,
    every region's Krawczyk test and its position in the state space are recomputed, the regions are
    checked pairwise disjoint and every accounted box inside its region.

    Parameters
    ----------
    model : MeanFieldModel
        The model.
    record : dict
        The output of :func:`fixed_point_uniqueness`.

    Returns
    -------
    str
        The status the record supports (``"PROVED"`` / ``"NOT UNIQUE"`` / ``"UNDECIDED"``).

    Raises
    ------
    ValueError
        If a verdict, a region or the stated status does not check.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> from symloss.core.certify import fixed_point_uniqueness, verify_uniqueness
    >>> verify_uniqueness(RandomRouting(2), fixed_point_uniqueness(RandomRouting(2), 1))
    'PROVED'
    """
    prec = int(record["prec"])
    lo_s, hi_s = record["rho"]
    with flint_prec(prec):
        R = _load_ball(Fraction(lo_s), None if hi_s == lo_s else Fraction(hi_s))
    u = _Uniqueness(model, R, prec)
    comp = model.compiled
    with flint_prec(prec):
        for k, rr in enumerate(record["regions"]):
            m = [parse_exact(s) for s in rr["center"]]
            rad = [parse_exact(s) for s in rr["delta"]]
            sel = check_selection(model, rr["sel"])
            ok, margin, _K, _Y = _krawczyk(comp, m, rad, R, sel)
            if not ok:
                raise ValueError(f"region {k}: the Krawczyk test fails")
            X = [arb(m[i], rad[i]).exp() for i in range(len(m))]
            if not u.S.inside(X):
                raise ValueError(f"region {k} is not inside the state space")
            for reg in u.regions:
                if all(a.overlaps(b) for a, b in zip(X, reg["X"])):
                    raise ValueError(f"region {k} overlaps another region")
            u.regions.append({"m": m, "rad": rad, "sel": sel, "X": X, "margin": margin})
    tokens = _parse_tree(record["tree"])
    pos = 0
    undecided = 0
    d = u.S.dim
    stack = [([0.0] * d, [1.0] * d)]
    with flint_prec(prec):
        while stack:
            lo, hi = stack.pop()
            if pos >= len(tokens):
                raise ValueError("the exclusion tree ends early")
            t = tokens[pos]
            pos += 1
            if t == "S":
                k = max(range(d), key=lambda i: hi[i] - lo[i])
                mid = (lo[k] + hi[k]) / 2
                hi1, lo2 = list(hi), list(lo)
                hi1[k] = mid
                lo2[k] = mid
                stack.append((lo2, list(hi)))
                stack.append((list(lo), hi1))
                continue
            if t == "U":
                undecided += 1
                continue
            z = _box_arb(lo, hi)
            x = u.S.full(z)
            if t == "O":
                if not u.S.outside(x):
                    raise ValueError(f"box {lo}, {hi} is not outside the state space")
            elif t[0] == "A":
                reg = u.regions[int(t[1:])]
                if not all(X.contains(v) for X, v in zip(reg["X"], x)):
                    raise ValueError(f"box {lo}, {hi} is not inside region {t[1:]}")
            else:
                v = u.classify(lo, hi)
                if v is None or v[0] not in "EM":
                    raise ValueError(f"box {lo}, {hi}: the drift does not exclude 0")
    if pos != len(tokens):
        raise ValueError("the exclusion tree has extra tokens")
    k = len(u.regions)
    status = ("PROVED" if k == 1 else "NOT UNIQUE" if k >= 2 else "UNDECIDED") if not undecided else \
        ("NOT UNIQUE" if k >= 2 else "UNDECIDED")
    if status != record["status"] or k != record["n_found"]:
        raise ValueError(f"the record states {record['status']} with {record['n_found']} fixed points, "
                         f"the re-check supports {status} with {k}")
    return status


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
