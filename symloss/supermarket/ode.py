"""The transient mean field of the supermarket model: the truncated ODE integrated from an initial
state in float64 (SciPy) or at ``dps`` digits (mpmath), with the truncation level doubled until the
last level carries no mass (the solvers behind ``Supermarket.ode``, which validates its arguments and
delegates here). SciPy's integrator is imported inside :func:`ode_float` (as before the split).
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np

from ..core.precision import PrecisionError, rounded
from ..core.validation import BudgetError, check_real, real_array, real_float
from .params import _lam_mpf
from .results import OdeSolution

__all__ = ["solve_ode", "ode_float", "ode_mp", "MAX_ODE_LEVELS", "MAX_ODE_MP_LEVELS", "MAX_ODE_STEPS"]

MAX_ODE_LEVELS = 2_000      # ode(): float path (the lambdified drift of K levels)
MAX_ODE_MP_LEVELS = 300     # ode(dps=...): mpmath Taylor integrator
MAX_ODE_STEPS = 10 ** 6     # ode(): explicit steps, estimated as 2 (d + 1) t_end


def solve_ode(m, s0v, tt, dps, rtol, atol, max_steps, deadline) -> OdeSolution:
    """The truncated ODE of ``m`` from ``s0v`` (see ``Supermarket.ode``).

    Parameters
    ----------
    m : Supermarket
        The model.
    s0v : list
        Checked initial tail fractions (``check_s0``).
    tt : numpy.ndarray
        Checked output times (``check_times``).
    dps : int or None
        Checked digits (``None``: float64).
    rtol, atol : float
        Tolerances of the float integrator.
    max_steps : int
        Checked step budget.
    deadline : Deadline
        Wall-clock budget.

    Returns
    -------
    OdeSolution

    Raises
    ------
    BudgetError
        Past the step budget or the level limit.
    PrecisionError
        When the tail keeps mass at every truncation tried.
    """
    steps = 2.0 * (m.d + 1) * float(tt[-1])
    if steps > max_steps:
        raise BudgetError(f"Supermarket.ode: t_end={float(tt[-1]):g} needs about {steps:.3g} explicit steps, "
                          f"more than max_steps={max_steps}; the ODE reaches its fixed point long before "
                          f"(use fixed_point()), or raise max_steps")
    if dps is None:
        tol = mpmath.mpf(m.tail_tol)
    else:
        tol = min(mpmath.mpf(m.tail_tol), mpmath.mpf(10) ** (-(dps + 5)))
    K = max(m.K + 1, len(s0v) + 1, m.truncation_level(tol) + 1 if dps is not None else 0)
    limit = MAX_ODE_LEVELS if dps is None else MAX_ODE_MP_LEVELS
    for _ in range(8):
        m._check_levels(K, limit, "ode" if dps is None else "ode(dps=...)")
        if dps is None:
            sol = m._ode_float(s0v, tt, K, rtol, atol, deadline)
        else:
            sol = m._ode_mp(s0v, tt, K, dps, deadline)
        if sol.tail_max_exact <= tol:
            sol.tail_tol = float(tol) if float(tol) > 0 else 0.0
            return sol
        K *= 2
    raise PrecisionError(f"ODE truncation: s_K(t) stays above the tail tolerance {mpmath.nstr(tol, 3)} "
                         f"even at K={K}; the initial state has too heavy a tail for t <= {tt[-1]}")



def ode_float(m, s0v, tt, K, rtol, atol, deadline=None) -> OdeSolution:
    """The truncated ODE in float64 (SciPy ``solve_ivp``, DOP853) on the lambdified drift of ``m``.

    Parameters
    ----------
    m : Supermarket
        The model.
    s0v : list
        Checked initial tail fractions.
    tt : numpy.ndarray
        Checked output times.
    K : int
        Truncation level.
    rtol, atol : float
        Tolerances of the integrator.
    deadline : Deadline, optional
        Wall-clock budget.

    Returns
    -------
    OdeSolution
    """
    from scipy.integrate import solve_ivp
    f = m._numeric_drift(K, "numpy")
    y0 = np.zeros(K)
    y0[: len(s0v) - 1] = np.asarray([real_float(x, "s0") for x in s0v[1:]], dtype=float)

    def rhs(_t, y):
        if deadline is not None:
            deadline.check(f"at t={_t:.6g}")
        return np.asarray(f(*y), dtype=float).ravel()
    if tt[-1] == 0:
        Y = y0[None, :]
    else:
        r = solve_ivp(rhs, (0.0, float(tt[-1])), y0, method="DOP853", t_eval=tt, rtol=rtol, atol=atol)
        if not r.success:  # pragma: no cover
            raise PrecisionError(f"solve_ivp failed: {r.message}")
        Y = r.y.T
    S = np.hstack([np.ones((len(tt), 1)), np.clip(Y, 0.0, 1.0)])
    sol = OdeSolution(np.asarray(tt, float), S, K, float(np.max(np.abs(S[:, -1]))), m.tail_tol,
                      f"scipy solve_ivp DOP853 rtol={rtol:g} atol={atol:g}, truncated at K={K}")
    sol.tail_max_exact = sol.tail_max
    return sol


def ode_mp(m, s0v, tt, K, dps, deadline=None) -> OdeSolution:
    """The truncated ODE at ``dps`` digits (mpmath ``odefun``), confirmed at a second precision.

    Parameters
    ----------
    m, s0v, tt, K :
        As in :func:`ode_float`.
    dps : int
        Significant digits.
    deadline : Deadline, optional
        Wall-clock budget.

    Returns
    -------
    OdeSolution
    """
    f = m._numeric_drift(K, "mpmath")

    def rhs(_t, y):
        if deadline is not None:
            deadline.check(f"mpmath odefun at t={mpmath.nstr(_t, 6)}")
        return list(f(*y))

    def compute(w):
        with mpmath.workdps(w):
            y0 = [mpmath.mpf(0)] * K
            for i, x in enumerate(s0v[1:]):
                y0[i] = _lam_mpf(x) if isinstance(x, Fraction) else mpmath.mpf(x)
            F = mpmath.odefun(rhs, 0, y0)
            out = []
            for ti in tt:
                out.extend(F(mpmath.mpf(ti)))
            return out
    # the components are probabilities in [0, 1]: agreement is checked in absolute terms
    lo, hi = compute(dps + 15), compute(dps + 30)
    with mpmath.workdps(dps + 30):
        err = max(abs(a - b) for a, b in zip(lo, hi))
        if err > mpmath.mpf(10) ** (-(dps + 2)):
            raise PrecisionError(f"mean-field ODE solution: values at {dps + 15} and {dps + 30} digits "
                                 f"differ by {mpmath.nstr(err, 3)}; cannot certify {dps} digits")
    vals = [rounded(v, dps) for v in hi]
    rows = [list(vals[i * K:(i + 1) * K]) for i in range(len(tt))]
    S = np.array([[1.0] + [float(v) for v in row] for row in rows])
    s_mp = [[mpmath.mpf(1)] + row for row in rows]
    sol = OdeSolution(np.asarray(tt, float), S, K, float(np.max(np.abs(S[:, -1]))), m.tail_tol,
                      f"mpmath odefun (Taylor series) at {dps} digits, two precisions, K={K}",
                      dps=dps, s_mp=s_mp)
    sol.tail_max_exact = max(abs(row[-1]) for row in s_mp)     # mpf: no underflow below 1e-308
    return sol


def check_s0(s0):
    if s0 is None:
        return [1.0]
    if isinstance(s0, (str, bytes)):
        raise TypeError("s0 must be a sequence of tail fractions (s_0 = 1, s_1, ...), got a string")
    if isinstance(s0, np.ndarray):
        if s0.dtype.kind not in "iuf":
            raise TypeError(f"s0 must be real tail fractions, got an array of dtype {s0.dtype}")
        vals = list(s0.ravel())
    else:
        try:
            vals = list(s0)
        except TypeError:
            raise TypeError(f"s0 must be a sequence of tail fractions (s_0 = 1, s_1, ...), got "
                            f"{type(s0).__name__}") from None
    if len(vals) == 0:
        raise ValueError("s0 must contain at least s_0 = 1")
    if len(vals) > MAX_ODE_LEVELS:
        raise BudgetError(f"s0 has {len(vals)} levels, more than the ODE limit {MAX_ODE_LEVELS}")
    vals = [check_real(x, f"s0[{i}]", lower=0, upper=1) for i, x in enumerate(vals)]
    if vals[0] != 1:
        raise ValueError(f"s0[0] must be 1 (the fraction of servers with at least 0 tasks), got {vals[0]!r}")
    for i in range(1, len(vals)):
        if vals[i] > vals[i - 1]:
            raise ValueError(f"s0 must be non-increasing (tail fractions), but s0[{i}]={vals[i]!r} > "
                             f"s0[{i - 1}]={vals[i - 1]!r}")
    return vals


def check_times(t):
    if not isinstance(t, (np.ndarray, list, tuple)):
        T = real_float(t, "t", lower=0)
        return np.linspace(0.0, T, 201)
    arr = real_array(t, "t", lower=0).ravel()
    if arr.size == 0:
        raise ValueError("t must contain at least one time")
    if arr.size > 10 ** 6:
        raise BudgetError(f"t has {arr.size} output times, more than the limit 1e6")
    if np.any(np.diff(arr) < 0):
        raise ValueError("t must be non-decreasing")
    return arr
