"""Numba kernels of the mean-field accelerators (module level, so numba's disk cache is reused)."""
from __future__ import annotations

import math

from numba import njit


@njit(cache=True)
def power_shoot_float(C, d, t, rho):
    """G(t) = log(u_0^d) of the power-of-d stationary recursion from u_C = e^t, downwards, in float64
    log space: log u_{k-1}^d = logaddexp(d log u_k, log(k/rho) + log(u_k - u_{k+1}))."""
    lu_next = -math.inf
    lu = t
    lw = d * t
    for k in range(C, 0, -1):
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
