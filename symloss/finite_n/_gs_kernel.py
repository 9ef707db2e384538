"""Numba kernel of the iterative stationary solver of :func:`symloss.exact_finite_n`."""
from __future__ import annotations

from numba import njit


@njit(cache=True)
def gauss_seidel_sweeps(indptr, indices, data, out, order, pi, tol, max_sweeps):
    """Symmetric Gauss-Seidel for pi Q = 0: pi_j <- sum_{i != j} pi_i q_ij / q_j, sweeping the states
    in ``order`` forwards then backwards, renormalised after each pair of sweeps. Returns the number
    of sweeps and the last relative change."""
    M = pi.size
    change = 1.0
    for sweep in range(max_sweeps):
        change = 0.0
        for direction in range(2):
            for t in range(M):
                j = order[t] if direction == 0 else order[M - 1 - t]
                acc = 0.0
                for p in range(indptr[j], indptr[j + 1]):
                    acc += pi[indices[p]] * data[p]
                new = acc / out[j]
                if pi[j] > 0:
                    c = abs(new - pi[j]) / pi[j]
                    if c > change:
                        change = c
                elif new > 0:
                    change = 1.0
                pi[j] = new
        total = pi.sum()
        for j in range(M):
            pi[j] /= total
        if change < tol:
            return sweep + 1, change
    return max_sweeps, change
