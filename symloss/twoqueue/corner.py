r"""The corner of the asymptotics (``a <= 1/2``, deficit ``j = 2N - K``): the corner law :math:`c^{(0)}_j` from
its closed form (:mod:`symloss.twoqueue.series`, cached), its O(1/rho) correction :math:`c^{(1)}_j` (the
order-:math:`\varepsilon` corner equations of :func:`~symloss.twoqueue.derivation.corner_equations`,
block level reduction matched to the outer law) and the independent reference solution
:func:`corner_conditionals`. Re-exported by :mod:`symloss.twoqueue.asymptotic`.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import sympy

from ..core.docstrings import fill_doc
from . import derivation as dv
from ._docfragments import TWOQUEUE_DOCS
from ._public import public_home
from .definition import RULES
from .outer_law import _outer_parts
from .series import corner_conditional_laws

__all__ = ["corner_conditionals", "corner_first_order", "default_J"]


@functools.lru_cache(maxsize=8)
def _corner_eq_funcs(rules=RULES):
    ce = dv.corner_equations(rules)
    out = {}
    for name, (o0, o1, terms) in ce.types.items():
        fo0 = sympy.lambdify((dv.j, dv.a), o0, "numpy")
        fo1 = sympy.lambdify((dv.j, dv.a), o1, "numpy")
        ts = []
        for dj, dp, c0, c1 in terms:
            ts.append((dj, sympy.lambdify(dv.d, dp, "numpy"), sympy.lambdify((dv.j, dv.d, dv.a), c0, "numpy"),
                       sympy.lambdify((dv.j, dv.d, dv.a), c1, "numpy")))
        out[name] = (fo0, fo1, tuple(ts))
    return out


def _type_of(dval):
    return "d=0" if dval == 0 else ("d=1" if dval == 1 else "d>=2")


def _corner_operator(a, J, order, rules=RULES):
    """Per level j = 1..J-1: (diag out, [(dj, rows, cols, vals)]) of the order-``order`` corner operator,
    acting on vectors indexed by t (d = j mod 2 + 2t, d <= j)."""
    funcs = _corner_eq_funcs(rules)
    levels = {}
    for jj in range(0, J + 1):
        ds = np.arange(jj % 2, jj + 1, 2)
        outv = np.zeros(len(ds))
        mats = {}
        for t, dval in enumerate(ds):
            fo0, fo1, ts = funcs[_type_of(int(dval))]
            outv[t] = float((fo0, fo1)[order](jj, a))
            for dj, fdp, c0, c1 in ts:
                dp = int(fdp(int(dval)))
                jt = jj + dj
                if jt < 0 or dp > jt or dp < 0:
                    continue
                coef = float((c0, c1)[order](jj, int(dval), a))
                if coef != 0.0:
                    mats.setdefault(dj, []).append((t, (dp - jt % 2) // 2, coef))
        levels[jj] = (outv, mats)
    return levels


def _apply(levels, jj, vecs, order_levels=None):
    """(L c)_j = out*c_j - sum coef * c_{j+dj} for a list of level vectors."""
    outv, mats = levels[jj]
    res = outv * vecs[jj]
    for dj, ents in mats.items():
        src = vecs[jj + dj] if 0 <= jj + dj < len(vecs) else None
        if src is None:
            continue
        for t, i, coef in ents:
            res[t] -= coef * src[i]
    return res


def _block_solve(levels, J, rhs, x0, terminal):
    """Solve out*x_j - sum coef x_{j+dj} = rhs_j for j = 1..J-1, x_0 = x0, x_J = terminal."""
    U, v = {}, {}
    sizes = [jj // 2 + 1 for jj in range(J + 1)]
    U[J] = np.zeros((sizes[J], sizes[J - 1]))
    v[J] = np.asarray(terminal, dtype=float)
    for jj in range(J - 1, 0, -1):
        outv, mats = levels[jj]
        n = sizes[jj]
        Zm = np.diag(outv).astype(float)
        Bm = np.zeros((n, sizes[jj - 1]))
        Am = np.zeros((n, sizes[jj + 1]))
        for dj, ents in mats.items():
            for t, i, coef in ents:
                if dj == 1:
                    Am[t, i] += coef
                elif dj == -1:
                    Bm[t, i] += coef
                else:
                    Zm[t, i] -= coef
        Zm = Zm - Am @ U[jj + 1]
        U[jj] = np.linalg.solve(Zm, Bm)
        v[jj] = np.linalg.solve(Zm, Am @ v[jj + 1] + rhs[jj])
    x = [np.asarray(x0, dtype=float)]
    for jj in range(1, J + 1):
        x.append(U[jj] @ x[-1] + v[jj])
    return x


@public_home("symloss.twoqueue.asymptotic")
def corner_conditionals(a, J: int, terminal: np.ndarray | None = None) -> list[np.ndarray]:
    r"""Reference numerical solution (level reduction, no closed form) of the corner problem

    .. math:: (1 + 2a) c_j = B c_{j-1} + 2a A c_{j+1}, \qquad c_0 = (1),

    ``j = 0..J``; the top closed by ``c_J = B c_{J-1}`` (``terminal=None``) or the given ``c_J``. ``a`` may
    be a function ``j -> a_j``. Kept as the independent check of the closed form
    (:func:`~symloss.twoqueue.series.corner_conditional_laws`), which is what the asymptotics use.

    Parameters
    ----------
    a : float or callable
        ``N / rho``, or ``j -> a_j``.
    J : int
        Largest level.
    terminal : numpy.ndarray, optional
        ``c_J`` (default: the top closed by ``c_J = B c_{J-1}``).

    Returns
    -------
    list of numpy.ndarray
        ``c_j`` for ``j = 0..J``, each a probability vector on ``d = j mod 2, ..., j``.

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import corner_conditionals
    >>> [c.round(6).tolist() for c in corner_conditionals(0.3, 3)]
    [[1.0], [1.0], [0.615385, 0.384615], [0.807692, 0.192308]]
    """
    af = a if callable(a) else (lambda jj, _a=a: _a)
    U, w = {}, {}
    if terminal is None:
        U[J] = _B(J)
        w[J] = np.zeros(J // 2 + 1)
    else:
        U[J] = np.zeros((J // 2 + 1, (J - 1) // 2 + 1))
        w[J] = np.asarray(terminal, float)
    for jj in range(J - 1, 0, -1):
        A = _A(jj)
        aj = af(jj)
        Zm = (1 + 2 * aj) * np.eye(jj // 2 + 1) - 2 * aj * A @ U[jj + 1]
        U[jj] = np.linalg.solve(Zm, _B(jj))
        w[jj] = np.linalg.solve(Zm, 2 * aj * A @ w[jj + 1])
    c = [np.array([1.0])]
    for jj in range(1, J + 1):
        x = U[jj] @ c[-1] + w[jj]
        x = np.maximum(x, 0.0)
        c.append(x / x.sum())
    return c


def _B(jj):
    n_to, n_from = jj // 2 + 1, (jj - 1) // 2 + 1
    M = np.zeros((n_to, n_from))
    p0 = (jj - 1) % 2
    for t in range(n_from):
        e = p0 + 2 * t
        if e == 0:
            M[0, t] = 1.0
            continue
        M[(e - 1 - jj % 2) // 2, t] += 0.5
        if e + 1 <= jj:
            M[(e + 1 - jj % 2) // 2, t] += 0.5
    return M


def _A(jj):
    n_to, n_from = jj // 2 + 1, (jj + 1) // 2 + 1
    M = np.zeros((n_to, n_from))
    p0 = (jj + 1) % 2
    for t in range(n_from):
        e = p0 + 2 * t
        dd = e - 1 if e >= 1 else 1
        if dd <= jj:
            M[(dd - jj % 2) // 2, t] += 1.0
    return M


@functools.lru_cache(maxsize=64)
def _corner_cached(a: float, J: int, rules=RULES):
    return tuple(corner_conditional_laws(a, J, rules=rules))


@functools.lru_cache(maxsize=64)
@public_home("symloss.twoqueue.asymptotic")
@fill_doc(TWOQUEUE_DOCS)
def corner_first_order(a: float, J: int, rules=RULES):
    r"""The O(1/rho) correction :math:`c^{(1)}_j`, ``j = 0..J``, of the corner law: the solution of
    :math:`L_0 c^{(1)} = -L_1 c^{(0)}` (orders 0 and 1 of :func:`.derivation.corner_equations`) with
    :math:`c^{(1)}_0 = 0` and, at ``j = J``, the outer expansion
    :math:`c^{(1)}_J = h(\cdot; 2a) - J\,\partial_r g(\cdot; 2a)` (matching). Numerical (block level
    reduction); each :math:`c^{(1)}_j` sums to zero.

    Parameters
    ----------
    a : float
        ``N / rho`` (``< 1/2``).
    J : int
        Largest corner level.
    {{rules_param}}

    Returns
    -------
    tuple of numpy.ndarray
        :math:`c^{(1)}_j`, ``j = 0..J``.

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import corner_first_order
    >>> c1 = corner_first_order(0.3, 10)
    >>> c1[2].round(6).tolist(), abs(float(c1[5].sum())) < 1e-12      # every level sums to zero
    ([0.414878, -0.414878], True)
    """
    c0 = list(_corner_cached(a, J, rules))
    L0 = _corner_operator(a, J, 0, rules)
    L1 = _corner_operator(a, J, 1, rules)
    rhs = {jj: -_apply(L1, jj, c0) for jj in range(1, J)}
    dsJ = np.arange(J % 2, J + 1, 2)
    g, h, gr = _outer_parts(2 * a, dsJ, rules)
    term = h - J * gr
    term = term - term.sum() * (g / g.sum())      # exact zero sum (the truncated tail is negligible)
    x = _block_solve(L0, J, rhs, np.zeros(1), term)
    return tuple(x)


@public_home("symloss.twoqueue.asymptotic")
def default_J(a: float, N: int) -> int:
    """Number of corner levels solved in the inner problem: enough for the neglected mass (2a)^J and
    the inner-outer difference to be below ~1e-16.

    Parameters
    ----------
    a : float
        ``N / rho``.
    N : int
        Servers per station (an upper bound).

    Returns
    -------
    int
        At most ``min(N, 400)``.

    Examples
    --------
    >>> from symloss.twoqueue.asymptotic import default_J
    >>> default_J(0.3, 1000), default_J(0.1, 1000), default_J(0.3, 50)
    (150, 60, 50)
    """
    if a >= 0.3:
        J = 150
    else:
        J = max(60, math.ceil(40 / max(-math.log10(2 * a), 1e-3)))
    return int(min(N, J, 400))


def _first_order_J(a: float, J: int) -> int:
    if a >= 0.3:
        return min(J, 150)
    return min(J, max(40, math.ceil(13 / max(-math.log10(2 * a), 1e-3))))


@functools.lru_cache(maxsize=16)
def _corner_with_derivative(a: float, J: int, rules=RULES):
    r"""The corner law at ``a`` and its first two ``a``-derivatives: complex step on the closed form
    (exact to rounding) for the first, central differences of complex steps (step 1e-4, error ~1e-8)
    for the second."""
    hstep = 1e-30

    def deriv(av):
        cz = corner_conditional_laws(complex(av, hstep), J, rules=rules)
        return [np.real(x) for x in cz], [np.imag(x) / hstep for x in cz]
    c0, d1 = deriv(a)
    _, dp = deriv(a + 1e-4)
    _, dm = deriv(a - 1e-4)
    d2 = [(u - v) / 2e-4 for u, v in zip(dp, dm)]
    return tuple(c0), tuple(d1), tuple(d2)


@functools.lru_cache(maxsize=256)
def _corner_level(a: float, jj: int, rules=RULES):
    return corner_conditional_laws(a, jj, rules=rules)[jj]
