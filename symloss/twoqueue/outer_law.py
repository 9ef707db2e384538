r"""The outer law of the asymptotics (``a > 1/2``, and the outer part of every composite), lambdified from
:func:`~symloss.twoqueue.derivation.outer_solution`: :math:`c_K = g(\cdot; K/\rho) + \rho^{-1} h(\cdot; K/\rho)`.
Re-exported by :mod:`symloss.twoqueue.asymptotic`.
"""
from __future__ import annotations

import functools

import numpy as np
import sympy

from ..core.docstrings import fill_doc
from . import derivation as dv
from ._docfragments import TWOQUEUE_DOCS
from ._numba import kernels as numba_kernels
from ._public import public_home
from .definition import RULES

__all__ = ["outer_conditional"]


@functools.lru_cache(maxsize=8)
def _outer_funcs(rules=RULES):
    sol = dv.outer_solution(rules)
    rr, dd = dv.r, dv.d
    g1 = sol.g
    f = {
        "g0": sympy.lambdify(rr, sol.g0, "numpy"),
        "g": sympy.lambdify((rr, dd), g1, "numpy"),
        "h0": sympy.lambdify(rr, sol.h0, "numpy"),
        "h": sympy.lambdify((rr, dd), sol.h, "numpy"),
        "gr0": sympy.lambdify(rr, sympy.diff(sol.g0, rr), "numpy"),
        "gr": sympy.lambdify((rr, dd), sympy.diff(g1, rr), "numpy"),
        # the pieces: g(d) = A theta^(d-1), h(d) = (B0 + B1 d + B2 d^2) theta^(d-1), as functions of r
        "pieces": sympy.lambdify(rr, [sol.theta, sol.amplitude, *sol.hpoly, sol.g0, sol.h0], "numpy"),
    }
    return f


def _outer_log_band(Kl, counts, rho, order, rules=RULES):
    r"""Outer law on the bands of the levels ``Kl`` (``counts[i]`` entries ``d = K mod 2, K mod 2 + 2,
    ...`` each), flattened level after level. ``order=0``: :math:`g`; ``order=1``:
    :math:`g\,\exp(h/(\rho g))`, which equals :math:`g + h/\rho` to O(rho^-2) and keeps the tails in
    ``d`` positive (the relative size of ``h/(rho g)`` grows like d^2/rho; linearised it turns negative
    for d > sqrt(rho)). On levels with ``K^2 < rho`` (``K/rho -> 0``, where the outer expansion is not
    uniform; their mass is below e^{-rho/2}) the leading order is used."""
    f = _outer_funcs(rules)["pieces"]
    rK = Kl / rho
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        th, A, B0, B1, B2, g0, h0 = (np.broadcast_to(np.asarray(x, dtype=float), rK.shape) for x in f(rK))
        lA, lth, lg0 = np.log(A), np.log(th), np.log(g0)
        use = (Kl * Kl >= rho) if order else np.zeros(len(Kl), dtype=bool)
        cB0 = np.where(use, B0 / (A * rho), 0.0)
        cB1 = np.where(use, B1 / (A * rho), 0.0)
        cB2 = np.where(use, B2 / (A * rho), 0.0)
        c0 = np.where(use, h0 / (g0 * rho), 0.0)
        out = np.empty(int(counts.sum()))
        numba_kernels().outer_band_values(counts.astype(np.int64), (Kl % 2).astype(np.int64), np.ascontiguousarray(lA),
                          np.ascontiguousarray(lth), cB0, cB1, cB2, np.ascontiguousarray(lg0 + c0), out)
        return out


def _outer_parts(r, ds, rules=RULES):
    """(g, h, g_r) of the outer solution at ratio(s) ``r`` on the imbalances ``ds`` (arrays broadcast)."""
    f = _outer_funcs(rules)
    r = np.asarray(r, dtype=float)
    ds = np.asarray(ds)
    d1 = np.maximum(ds, 1)
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        g = np.where(ds == 0, f["g0"](r), f["g"](r, d1))
        h = np.where(ds == 0, f["h0"](r), f["h"](r, d1))
        gr = np.where(ds == 0, f["gr0"](r), f["gr"](r, d1))
    return g, h, gr


@public_home("symloss.twoqueue.asymptotic")
@fill_doc(TWOQUEUE_DOCS)
def outer_conditional(rho: float, K: int, ds: np.ndarray, order: int = 1, rules=RULES) -> np.ndarray:
    r""":math:`c_K(d)` of the outer law (``order`` 0 or 1) on the given ``d`` values, renormalised on them
    (Yao and Knessl 2008, see the references of ``asymptotic_law``).

    Parameters
    ----------
    rho : float
        The load.
    K : int
        The level ``m + n``.
    ds : numpy.ndarray
        Imbalances ``d`` (of the parity of ``K``).
    order : {0, 1}
        Leading order, or with the O(1/rho) term ``h``.
    {{rules_param}}

    Returns
    -------
    numpy.ndarray
        :math:`c_K(d)` on ``ds``.

    Examples
    --------
    >>> import numpy as np
    >>> from symloss.twoqueue.asymptotic import outer_conditional
    >>> outer_conditional(100.0, 150, np.array([0, 2, 4])).round(6).tolist()
    [0.753437, 0.232908, 0.013655]
    """
    g, h, _ = _outer_parts(K / rho, ds, rules)
    c = g + (h / rho if order else 0.0)
    c = np.maximum(c, 0.0)
    s = c.sum()
    return c / s if s > 0 else c
