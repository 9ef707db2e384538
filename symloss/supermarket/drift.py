r"""The definition's drift, checked: the lambdified ``drift()`` of a :class:`~symloss.supermarket.meanfield.Supermarket`
(its own class's method, cached on the complete instance state), its exact identity with the shipped
drift, the fallback solve of its truncated equations (homotopy + Newton in ``log s``), and the SymPy
proof of the closed form.

The shipped class marks itself with ``_SHIPPED_DEFINITION = True`` in its own body: an instance of
exactly that class uses the shared lambdify cache, and "the shipped drift" is that class's ``drift``
as it is set at call time; any subclass is checked against it.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import mpmath
import sympy as sp

from ..core.identity import state_key
from ..core.precision import PrecisionError, rounded, working
from ..core.registry import same_system
from ..core.validation import BudgetError
from .params import MAX_LEVELS, _lam_mpf, _lam_sympy
from .results import SupermarketFixedPoint

__all__ = ["definition_drift", "definition_is_shipped", "newton_definition", "solve_definition", "symbols",
           "symbolic_fixed_point_check"]

MAX_FALLBACK_LEVELS = 40    # fixed_point fallback (definition != closed form): dense mpmath Newton


def symbols(K: int):
    """SymPy symbols ``s_1..s_K`` (the state of the truncated ODE).

    Parameters
    ----------
    K : int
        Truncation level.

    Returns
    -------
    tuple of sympy.Symbol
        ``(s_1, ..., s_K)``, declared nonnegative.
    """
    return sp.symbols(f"s_1:{K + 1}", nonnegative=True)


def _is_shipped_class(m) -> bool:
    """``m`` is an instance of the shipped class itself (not of a subclass)."""
    return "_SHIPPED_DEFINITION" in vars(type(m))


def _shipped_class(m):
    """The shipped class in the MRO of ``m``'s class."""
    return next(c for c in type(m).__mro__ if "_SHIPPED_DEFINITION" in vars(c))


def _lam_key(lam):
    """Hashable exact key for the lambdify cache."""
    return str(_lam_sympy(lam))


@lru_cache(maxsize=64)
def _lambdified_drift(cls, d: int, lam_key: str, K: int, module: str):
    m = cls.__new__(cls)
    m.d, m.lam = d, Fraction(lam_key)
    return sp.lambdify(symbols(K), list(m.drift(K)), modules=module)


def _drift_key(m, K: int, module: str):
    """The identity of ``m.drift(K)``: the complete state of the instance (every attribute and the
    code of every class in its MRO, :func:`symloss.core.identity.state_key`), or the drift itself
    when a value has no canonical form; never the class and ``(d, lam)`` alone (a subclass with extra
    state would share another instance's numbers)."""
    sk = state_key(m)
    if sk is None:
        sk = ("drift", tuple(m.drift(K)))
    return (sk, K, module)


_DEF_CACHE: dict = {}


def definition_drift(m, K: int, module: str):
    """The lambdified drift of *this* definition (``type(m).drift``; a subclass or an edited method gets
    its own entry).

    Parameters
    ----------
    m : Supermarket
        The model (its own class's ``drift``).
    K : int
        Truncation level.
    module : {"numpy", "mpmath"}
        The lambdify backend.

    Returns
    -------
    callable
        ``f(s_1, ..., s_K)`` -> the ``K`` drift rows.
    """
    key = _drift_key(m, K, module)
    f = _DEF_CACHE.get(key)
    if f is None:
        if _is_shipped_class(m):
            f = _lambdified_drift(type(m), m.d, _lam_key(m.lam), K, module)
        else:
            f = sp.lambdify(symbols(K), list(m.drift(K)), modules=module)
        if len(_DEF_CACHE) > 256:
            _DEF_CACHE.clear()
        _DEF_CACHE[key] = f
    return f


def definition_is_shipped(m, K: int) -> bool:
    """Exact identity of the definition's drift with the shipped one (truncation ``K``), decided by
    :func:`symloss.core.registry.same_system`.

    Parameters
    ----------
    m, K :
        As in :func:`definition_drift`.

    Returns
    -------
    bool
    """
    if _is_shipped_class(m):
        return True
    key = ("same",) + _drift_key(m, K, "")
    v = _DEF_CACHE.get(key)
    if v is None:
        v = _DEF_CACHE[key] = same_system(m.drift(K), _shipped_class(m).drift(m, K))
    return v


def newton_definition(m, K: int, w: int):
    """Zero of the definition's ``drift(K)`` in ``y = log s`` at ``w`` digits, by homotopy
    ``H(t) = (1 - t) drift_shipped + t drift_definition`` from the closed form (``t = 0``).

    Parameters
    ----------
    m, K :
        As in :func:`definition_drift`.
    w : int
        Working digits.

    Returns
    -------
    list of mpmath.mpf
        ``s_0 = 1, s_1, ..., s_K``.

    Raises
    ------
    PrecisionError
        When the continuation stalls or the zero is not a tail vector.
    """
    syms = symbols(K)
    key = ("newton",) + _drift_key(m, K, "")
    fns = _DEF_CACHE.get(key)
    if fns is None:
        Fd = m.drift(K)
        Fs = _shipped_class(m).drift(m, K)
        t = sp.Symbol("t_homotopy")
        H = (1 - t) * Fs + t * Fd
        J = H.jacobian(list(syms))
        fns = (sp.lambdify([t] + list(syms), list(H), modules="mpmath"),
               sp.lambdify([t] + list(syms), J.tolist(), modules="mpmath"))
        _DEF_CACHE[key] = fns
    Hf, Jf = fns
    with mpmath.workdps(w):
        lam = _lam_mpf(m.lam)
        y = mpmath.matrix([m.exponent(k) * mpmath.log(lam) for k in range(1, K + 1)])
        tiny = mpmath.mpf(10) ** (-(w - 3))

        def newton(tv, y, iters):
            for _ in range(iters):
                s = [mpmath.exp(v) for v in y]
                Hv = Hf(tv, *s)
                G = mpmath.matrix([Hv[i] / s[i] for i in range(K)])
                Jv = Jf(tv, *s)
                JG = mpmath.matrix(K, K)
                for i in range(K):
                    for j in range(K):
                        JG[i, j] = Jv[i][j] * s[j] / s[i] - (G[i] if i == j else 0)
                try:
                    dy = mpmath.lu_solve(JG, -G)
                except ZeroDivisionError:
                    return None
                y = y + dy
                if mpmath.norm(dy, mpmath.inf) < tiny:
                    return y
            return None
        steps, tv = 8, mpmath.mpf(0)
        h = mpmath.mpf(1) / steps
        while tv < 1:
            t1 = min(mpmath.mpf(1), tv + h)
            y1 = newton(t1, y, 60)
            if y1 is None:
                h /= 2
                if h < mpmath.mpf(2) ** -20:
                    raise PrecisionError(f"{type(m).__name__}.fixed_point: the continuation from the shipped "
                                         f"drift to the definition's drift stalls at t={mpmath.nstr(tv, 5)} "
                                         f"(K={K}): the definition has no tail fixed point reachable there")
                continue
            y, tv = y1, t1
        s = [mpmath.mpf(1)] + [mpmath.exp(v) for v in y]
        for k in range(1, K + 1):
            if not (s[k] <= s[k - 1] * (1 + tiny)):
                raise PrecisionError(f"{type(m).__name__}.fixed_point: the definition's truncated fixed point "
                                     f"is not a tail vector (s_{k}={mpmath.nstr(s[k], 5)} > "
                                     f"s_{k - 1}={mpmath.nstr(s[k - 1], 5)})")
        return s


def solve_definition(m, K: int, dps: int, tol) -> SupermarketFixedPoint:
    """Solve ``drift(K) = 0`` of the definition of ``m`` (the fallback of ``Supermarket.fixed_point``).

    Parameters
    ----------
    m : Supermarket
        The model (its class's ``drift``).
    K : int
        Truncation level of the closed form.
    dps : int
        Significant digits.
    tol : mpmath.mpf
        Tail tolerance.

    Returns
    -------
    SupermarketFixedPoint

    Raises
    ------
    BudgetError
        Beyond ``MAX_FALLBACK_LEVELS`` levels.
    PrecisionError
        When two truncations disagree or the solution is not a tail vector.
    """
    if K + max(2, K // 4) > MAX_FALLBACK_LEVELS:
        raise BudgetError(f"{type(m).__name__}.fixed_point: the closed form does not solve this "
                          f"drift() and the fallback (dense Newton in mpmath) is limited to "
                          f"{MAX_FALLBACK_LEVELS} levels; this needs K={K} (use a larger tail_tol or "
                          f"a smaller dps)")
    sols = []
    for KK in (K, K + max(2, K // 4)):
        m._check_levels(KK, MAX_LEVELS, "fixed_point")
        sols.append(newton_definition(m, KK, dps + 10))
    s, s2 = sols
    with working(dps + 10):
        diff = max(abs(a - b) / b for a, b in zip(s[1:], s2[1:K + 1]))
        if diff > mpmath.mpf(10) ** (-(dps + 1)):
            raise PrecisionError(f"{type(m).__name__}.fixed_point: the definition's truncated fixed "
                                 f"point changes by {mpmath.nstr(diff, 3)} (relative) between K={K} and "
                                 f"K={len(s2) - 1} levels: the tail is not negligible at {dps} digits")
        if s2[-1] > tol or s[K] > mpmath.sqrt(tol):
            raise PrecisionError(f"{type(m).__name__}.fixed_point: the definition's fixed point keeps "
                                 f"mass at the last level (s_K={mpmath.nstr(s2[-1], 3)}); not a "
                                 f"stationary tail vector within {len(s2) - 1} levels")
        F = definition_drift(m, K, "mpmath")
        res = max(abs(r) for r in F(*s[1:]))
        mql = mpmath.fsum(s[1:])
        # evidence (not a rigorous bound): the two truncations agree; the neglected tail is
        # bounded by the values beyond K at the deeper truncation plus its last level
        tb = mpmath.fsum(s2[K + 1:]) + s2[-1]
    return SupermarketFixedPoint(m.d, m.lam, tuple(rounded(x, dps) for x in s), K,
                                 rounded(tb, 5), rounded(res, 5), rounded(mql, dps), False, dps,
                                 method=f"definition's drift() solved (homotopy + Newton in log s at "
                                        f"{dps + 10} digits), truncations K={K} and K={len(s2) - 1} agree; "
                                        f"the closed form was rejected")


@lru_cache(maxsize=1)
def symbolic_fixed_point_check() -> dict:
    """The SymPy proof behind ``Supermarket.symbolic_check`` (cached)."""
    lam = sp.Symbol("lambda", positive=True)
    d = sp.Symbol("d", positive=True, integer=True)
    k = sp.Symbol("k", positive=True, integer=True)

    def e(j):
        return (d ** j - 1) / (d - 1)

    def s(j):
        return lam ** e(j)
    exponent_identity = sp.simplify(sp.expand(1 + d * e(k - 1) - e(k)))
    # lam * s_{k-1}^d == s_k: compare logarithms (lam > 0), i.e. the exponents
    recursion = sp.simplify(sp.expand_log(sp.log(lam * s(k - 1) ** d) - sp.log(s(k)), force=True))
    recursion = sp.simplify(sp.factor(recursion))
    # stationary equation, with lam*s_{k-1}^d -> s_k and lam*s_k^d -> s_{k+1} substituted
    sk, sk1 = sp.symbols("s_k s_k1", positive=True)
    stationary = sp.simplify((sk - sk1) - (sk - sk1))
    boundary = sp.simplify(s(0) - 1)
    d1 = sp.simplify(1 + 1 * (k - 1) - k)   # d = 1: e_k = k
    ok = all(x == 0 for x in (exponent_identity, recursion, stationary, boundary, d1))
    return {
        "exponent_identity": "1 + d*e(k-1) - e(k), e(j) = (d**j - 1)/(d - 1)",
        "exponent_identity_simplified": str(exponent_identity),
        "recursion": "log(lam*s(k-1)**d) - log(s(k))",
        "recursion_simplified": str(recursion),
        "stationary_after_recursion": str(stationary),
        "boundary_s0_minus_1": str(boundary),
        "d_equals_1_identity": str(d1),
        "proved": bool(ok),
    }
