r"""The mean-field ODE of a model (:func:`integrate_ode`, its argument checks, the first exit from the state
space). Re-exported by :mod:`symloss.core.certify` (which also holds :func:`~symloss.core.certify.ode_limit`).
"""
from __future__ import annotations

import math

import numpy as np

from .certified_results import OdeResult
from .float_start import _check_rho
from .precision import (
    to_mpf,
)
from .statespace import StateSpace

__all__ = ["integrate_ode_checks", "integrate_ode"]

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
        Initial state in the state space (``StateSpace``: entries in ``[0, 1]``, the declared
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
        space (``StateSpace``) by more than ``tol = 1e3 (atol + rtol)`` (``1e-7`` at least:
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
