"""Numba kernels of the mean-field accelerators (module level, so numba's disk cache is reused)."""
from __future__ import annotations

import math

from numba import njit


@njit(cache=True)
def _log_space_down(k0, d, lu, rho):
    """The power-of-d recursion in float64 log space from level ``k0`` (``log u_{k0} = lu``,
    ``u_{k0+1}`` taken as 0) down to ``log u_0^d``:
    log u_{k-1}^d = logaddexp(d log u_k, log(k/rho) + log(u_k - u_{k+1}))."""
    lu_next = -math.inf
    lw = d * lu
    for k in range(k0, 0, -1):
        if lu_next > -math.inf:
            g = -math.expm1(lu_next - lu)
            if g < 1e-300:
                g = 1e-300
            diff = lu + math.log(g)
        else:
            diff = lu
        term = math.log(k / rho) + diff
        if lw > term:
            lw_prev = lw + math.log1p(math.exp(term - lw))
        else:
            lw_prev = term + math.log1p(math.exp(lw - term))
        if k == 1:
            return lw_prev
        lu_next = lu
        lu = lw_prev / d
        lw = lw_prev
    return 0.0


@njit(cache=True)
def power_shoot_float(C, d, t, rho):
    """G(t) = log(u_0^d) of the power-of-d stationary recursion from u_C = e^t, downwards, in float64
    log space (:func:`_log_space_down`)."""
    return _log_space_down(C, d, t, rho)


@njit(cache=True)
def power_shoot_float_d(C, d, t, rho):
    """(G, dG/dt) of :func:`power_shoot_float`, the derivative carried along the recursion (log
    space: softmax weights of each log-add, and the derivative of log(u_k - u_{k+1}))."""
    lu_next = -math.inf
    dlu_next = 0.0
    lu = t
    dlu = 1.0
    lw = d * t
    dlw = float(d)
    for k in range(C, 0, -1):
        if lu_next > -math.inf:
            q = math.exp(lu_next - lu)
            g = -math.expm1(lu_next - lu)
            if g < 1e-300:
                g = 1e-300
            diff = lu + math.log(g)
            ddiff = (dlu - q * dlu_next) / g
        else:
            diff = lu
            ddiff = dlu
        term = math.log(k / rho) + diff
        if lw > term:
            e = math.exp(term - lw)
            lw_prev = lw + math.log1p(e)
            dlw_prev = (dlw + e * ddiff) / (1.0 + e)
        else:
            e = math.exp(lw - term)
            lw_prev = term + math.log1p(e)
            dlw_prev = (ddiff + e * dlw) / (1.0 + e)
        if k == 1:
            return lw_prev, dlw_prev
        lu_next = lu
        dlu_next = dlu
        lu = lw_prev / d
        dlu = dlw_prev / d
        lw = lw_prev
        dlw = dlw_prev
    return 0.0, 0.0


@njit(cache=True)
def power_shoot_float_v(C, d, v, rho):
    """G of :func:`power_shoot_float` at t = -exp(v), for |t| beyond the float range: while
    |log u_k| > 1e300 the recursion is carried in w_k = log(-log u_k) (there u_{k+1} << u_k and
    u_k^d << u_k, so log u_{k-1} = (log u_k + log(k/rho))/d to within a relative 1e-300), then in
    log space as usual."""
    lw_k = v                      # log(-log u_k)
    k = C
    while k >= 1 and lw_k > 690.0:
        # log u_{k-1} = (log u_k + L) / d with L = log(k / rho): -log u_{k-1} = (e^lw_k - L) / d
        L = math.log(k / rho)
        lw_k = lw_k + math.log1p(-L * math.exp(-lw_k)) - math.log(d)
        k -= 1
    if k == 0:
        return -math.inf if lw_k > 0 else 0.0
    # continue in log space from level k (u_{k+1} negligible against u_k)
    return _log_space_down(k, d, -math.exp(lw_k), rho)
