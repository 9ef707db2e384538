"""The level law of the two-queue JSQ loss model: the total ``K = m + n`` is an M/M/2N/2N chain."""
from __future__ import annotations

import mpmath
import numpy as np

from ..core.precision import to_mpf

__all__ = ["level_law_float"]


def level_law_float(N: int, rho):
    r""":math:`\pi_K = (\rho^K/K!)/\sum_{j \le 2N} \rho^j/j!`, ``K = 0..2N``, as float64 arrays
    ``(pi, log pi)``.

    The log-weights come from the recursion :math:`w_K = w_{K-1}\rho/K` in 30-digit arithmetic and
    are then rounded, so every :math:`\pi_K` is correct to the last bit of its float (``lgamma``
    differences in float64 would lose :math:`|K \log\rho|\,\epsilon`, about 3e-12 at
    ``N = rho = 2000``); O(N) mpmath operations.

    Parameters
    ----------
    N : int
        Servers per station (``2N`` in all).
    rho : real
        The load, ``> 0`` (any real type; converted at 30 digits).

    Returns
    -------
    tuple of numpy.ndarray
        ``(pi, log pi)``, ``2N + 1`` entries each.

    Examples
    --------
    >>> from symloss.twoqueue.levels import level_law_float
    >>> pi, log_pi = level_law_float(2, 1.0)
    >>> [round(float(v) * 65, 10) for v in pi]      # (24, 24, 12, 4, 1)/65
    [24.0, 24.0, 12.0, 4.0, 1.0]
    """
    with mpmath.workdps(30):
        r = to_mpf(rho)
        logs = [mpmath.mpf(0)]
        lr = mpmath.log(r)
        for K in range(1, 2 * N + 1):
            logs.append(logs[-1] + lr - mpmath.log(K))
        top = max(logs)
        tot = mpmath.fsum(mpmath.exp(x - top) for x in logs)
        lz = top + mpmath.log(tot)
        lw = np.array([float(x - lz) for x in logs])
        pk = np.array([float(mpmath.exp(x - lz)) for x in logs])
    return pk, lw
