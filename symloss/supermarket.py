r"""Supermarket model on graphs (seed 002): mean field, pair approximation, graphs and simulation.

Model. Single-server FIFO queues with infinite buffers sit on the ``N`` vertices of a graph. Tasks
arrive at every vertex ``v`` as a Poisson process of rate ``lam < 1``; a task arriving at ``v`` joins
the shortest queue among ``v`` and ``d - 1`` neighbours of ``v`` drawn uniformly at random (ties
broken uniformly at random), and service times are unit-rate exponential.

Mean field (complete graph, ``N -> inf``; Mitzenmacher 1996, Vvedenskaya-Dobrushin-Karpelevich
1996): the tail fractions ``s_k`` (fraction of servers with at least ``k`` tasks, ``s_0 = 1``) obey

.. math::  \dot s_k = \lambda (s_{k-1}^d - s_k^d) - (s_k - s_{k+1}), \qquad k \ge 1,

with the fixed point :math:`s_k = \lambda^{(d^k - 1)/(d - 1)}` (``s_k = lam^k`` for ``d = 1``).
The seed (Budhiraja, Mukherjee, Wu, "Supermarket model on graphs", Ann. Appl. Probab. 2019) proves
the same limit when the minimum degree tends to infinity (max/min degree ratio -> 1 in each
component), and for Erdos-Renyi graphs with mean degree ``c(N) -> inf`` (annealed) or
``c(N)/ln N -> inf`` (quenched). For fixed degree the limit differs; :func:`pair_approximation`
(N. Gast, "The power of two choices on graphs: the pair-approximation is accurate", 2015) refines it.

Public names: :class:`Supermarket`, :func:`make_graph`, :func:`simulate_supermarket`,
:func:`ode_distance`, :func:`pair_approximation` and their result dataclasses.
"""
from __future__ import annotations

import math
import numbers
import time
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, Sequence

import mpmath
import numpy as np
import sympy as sp

from ._precision import (DEFAULT_DPS, PrecisionError, agree_at_two_precisions, check_dps, rounded,
                         working)
from ._validation import check_choice, check_int, check_real

__all__ = [
    "Supermarket", "SupermarketFixedPoint", "OdeSolution", "Graph", "SimulationResult",
    "DistanceResult", "PairApproximationResult",
    "make_graph", "simulate_supermarket", "ode_distance", "pair_approximation",
    "GRAPH_FAMILIES",
]

GRAPH_FAMILIES = ("complete", "random_regular", "erdos_renyi", "ring", "torus")


# --------------------------------------------------------------------------------------------------
# argument helpers
# --------------------------------------------------------------------------------------------------

def _check_lam(lam, name: str = "lam"):
    if isinstance(lam, str):   # exact decimal or p/q
        try:
            lam = Fraction(lam.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{name} must be a real number in (0, 1) such as 0.7 or 7/10, got {lam!r}") from None
    check_real(lam, name, lower=0, lower_open=True)
    if (mpmath.mpf(lam) if not isinstance(lam, Fraction) else lam) >= 1:
        shown = str(lam) if isinstance(lam, Fraction) else repr(lam)
        raise ValueError(f"{name} must be in (0, 1): {name}={shown} >= 1 means the arrival rate per "
                         f"server is at least the service rate 1, so the system is unstable "
                         f"(queues grow without bound and there is no stationary regime)")
    return lam


def _check_d(d) -> int:
    return check_int(d, "d", min_value=1)


def _lam_mpf(lam):
    """``lam`` as an mpf at the current working precision (exact for Fraction / int / str)."""
    if isinstance(lam, Fraction):
        return mpmath.mpf(lam.numerator) / lam.denominator
    if isinstance(lam, sp.Basic):
        return mpmath.mpf(sp.N(lam, mpmath.mp.dps + 5))
    return mpmath.mpf(lam)


def _lam_sympy(lam):
    """Exact SymPy number for ``lam`` (floats convert exactly via their binary value)."""
    if isinstance(lam, Fraction):
        return sp.Rational(lam.numerator, lam.denominator)
    if isinstance(lam, (int, np.integer)):
        return sp.Integer(int(lam))
    if isinstance(lam, float):
        m, e = lam.as_integer_ratio()
        return sp.Rational(m, e)
    if isinstance(lam, str):
        return sp.Rational(lam)
    if isinstance(lam, mpmath.mpf):
        man, exp = lam.man_exp
        return sp.Integer(man) * sp.Integer(2) ** exp
    return sp.nsimplify(lam)


# --------------------------------------------------------------------------------------------------
# mean field
# --------------------------------------------------------------------------------------------------

@dataclass
class SupermarketFixedPoint:
    """Fixed point of the mean-field ODE.

    Attributes
    ----------
    s : tuple of mpf
        ``s_0 = 1, s_1, ..., s_K`` rounded to ``dps`` digits.
    K : int
        Last level kept; ``sum_{k > K} s_k <= tail_bound``.
    tail_bound : mpf
        Rigorous bound on the neglected tail ``sum_{k>K} s_k``.
    residual : mpf
        ``max_k |drift_k(s)|`` of the truncated ODE at ``s`` (evaluated at working precision).
    mean_queue_length : mpf
        ``sum_{k>=1} s_k`` (tail included up to ``tail_bound``).
    symbolic_check : bool
        True when SymPy confirmed that the closed form solves the stationary equations for
        symbolic ``k`` and ``d`` (see :meth:`Supermarket.symbolic_check`).
    """
    d: int
    lam: Any
    s: tuple
    K: int
    tail_bound: Any
    residual: Any
    mean_queue_length: Any
    symbolic_check: bool
    dps: int
    method: str = "closed form s_k = lam^((d^k-1)/(d-1)), checked symbolically"

    def to_dict(self) -> dict:
        return {"d": self.d, "lam": str(self.lam), "s": [str(x) for x in self.s], "K": self.K,
                "tail_bound": mpmath.nstr(self.tail_bound, 5), "residual": mpmath.nstr(self.residual, 5),
                "mean_queue_length": str(self.mean_queue_length), "symbolic_check": self.symbolic_check,
                "dps": self.dps, "method": self.method}


@dataclass
class OdeSolution:
    """Solution of the truncated mean-field ODE.

    ``s[i, k]`` is ``s_k(t[i])`` for ``k = 0..K`` (column 0 is ``s_0 = 1``). ``tail_max`` is the
    largest value of ``s_K`` seen: the truncation sets ``s_{K+1} = 0``, so a small ``tail_max``
    (below ``tail_tol``) means the neglected levels carry negligible mass.
    """
    t: np.ndarray
    s: np.ndarray
    K: int
    tail_max: float
    tail_tol: float
    method: str
    dps: int | None = None
    s_mp: list | None = None   # list of lists of mpf when dps was given

    @property
    def mean_queue_length(self) -> np.ndarray:
        """``sum_{k>=1} s_k(t)`` for every ``t``."""
        return self.s[:, 1:].sum(axis=1)

    def to_dict(self) -> dict:
        return {"t": self.t.tolist(), "s": self.s.tolist(), "K": self.K, "tail_max": self.tail_max,
                "tail_tol": self.tail_tol, "method": self.method, "dps": self.dps}


class Supermarket:
    r"""Mean-field supermarket model JSQ(d) with arrival rate ``lam`` per server.

    Parameters
    ----------
    d : int >= 1
        Number of queues compared (the arrival vertex and ``d - 1`` sampled others).
    lam : real in (0, 1)
        Arrival rate per server (service rate 1). ``Fraction``, ``str`` or ``mpf`` keep it exact.
    tail_tol : float, optional
        Tail tolerance (default ``1e-15``): the truncation level :attr:`K` is the least ``K`` with
        :math:`\sum_{k > K} s_k^* \le` ``tail_tol`` at the fixed point. Methods called with
        ``dps=`` tighten it to ``10^-(dps + 5)``.

    Notes
    -----
    The model is defined once, symbolically (:meth:`drift`); the float and mpmath evaluators are
    generated from it with ``sympy.lambdify``. The tail bound uses
    :math:`s_{k+1}/s_k = \lambda^{d^k}` (decreasing in ``k``), so
    :math:`\sum_{k>K} s_k \le s_{K+1}/(1 - \lambda^{d^{K+1}})`.

    Examples
    --------
    >>> from symloss import Supermarket
    >>> m = Supermarket(2, 0.7)
    >>> float(m.mean_queue_length())          # doctest: +ELLIPSIS
    1.13011...
    """

    def __init__(self, d, lam, *, tail_tol: float = 1e-15):
        self.d = _check_d(d)
        self.lam = _check_lam(lam)
        check_real(tail_tol, "tail_tol", lower=0, upper=0.5, lower_open=True)
        self.tail_tol = float(tail_tol)
        self.K = self.truncation_level(self.tail_tol)

    def __repr__(self) -> str:
        return f"Supermarket(d={self.d}, lam={self.lam!r}, K={self.K}, tail_tol={self.tail_tol:g})"

    # --- closed form ---------------------------------------------------------------------------
    def exponent(self, k: int) -> int:
        """Integer exponent ``e_k = (d^k - 1)/(d - 1) = 1 + d + ... + d^(k-1)`` (``k`` for d = 1)."""
        return k if self.d == 1 else (self.d ** k - 1) // (self.d - 1)

    def tail_bound(self, K: int):
        """Rigorous upper bound on ``sum_{k > K} s_k^*`` (mpf at the current precision)."""
        lam = _lam_mpf(self.lam)
        s_next = lam ** self.exponent(K + 1)
        ratio = lam ** (self.d ** (K + 1)) if self.d > 1 else lam
        return s_next / (1 - ratio)

    def truncation_level(self, tol) -> int:
        """Least ``K >= 1`` with :meth:`tail_bound` ``(K) <= tol``."""
        with mpmath.workdps(30):
            tol = mpmath.mpf(tol)
            lo_lam = mpmath.log(_lam_mpf(self.lam))
            K = 1
            while True:
                # compare in logs: s_{K+1} = exp(e_{K+1} log lam)
                e = self.exponent(K + 1)
                log_s = e * lo_lam
                if log_s < mpmath.log(tol) - 5:   # cheap and safe: ratio term below is >= 1 - lam
                    if self.tail_bound(K) <= tol:
                        return K
                elif self.tail_bound(K) <= tol:
                    return K
                K += 1
                if K > 10 ** 7:  # pragma: no cover - cannot happen for lam < 1
                    raise RuntimeError("truncation level search did not terminate")

    # --- symbolic definition -------------------------------------------------------------------
    @staticmethod
    def symbols(K: int):
        """SymPy symbols ``s_1..s_K`` (the state of the truncated ODE)."""
        return sp.symbols(f"s_1:{K + 1}", nonnegative=True)

    def drift(self, K: int | None = None, *, symbolic_parameters: bool = False) -> sp.Matrix:
        r"""Right-hand side of the ODE truncated at ``K`` (``s_0 = 1``, ``s_{K+1} = 0``) as a SymPy
        column vector in the symbols :meth:`symbols` ``(K)``.

        ``symbolic_parameters=True`` keeps ``lam`` and ``d`` as symbols.
        """
        K = self.K if K is None else check_int(K, "K", min_value=1)
        s = (sp.Integer(1),) + tuple(self.symbols(K)) + (sp.Integer(0),)
        if symbolic_parameters:
            lam = sp.Symbol("lambda", positive=True)
            d = sp.Symbol("d", positive=True, integer=True)
        else:
            lam, d = _lam_sympy(self.lam), sp.Integer(self.d)
        return sp.Matrix([lam * (s[k - 1] ** d - s[k] ** d) - (s[k] - s[k + 1]) for k in range(1, K + 1)])

    def equations(self, K: int | None = None) -> list:
        """The truncated ODE as a list of ``sympy.Eq(Derivative(s_k(t), t), rhs)``."""
        K = self.K if K is None else K
        t = sp.Symbol("t", nonnegative=True)
        funcs = [sp.Function(f"s_{k}")(t) for k in range(1, K + 1)]
        rhs = self.drift(K).subs(dict(zip(self.symbols(K), funcs)))
        return [sp.Eq(sp.Derivative(f, t), r) for f, r in zip(funcs, rhs)]

    def _numeric_drift(self, K: int, module: str):
        return _lambdified_drift(self.d, _lam_key(self.lam), K, module)

    @staticmethod
    def symbolic_check() -> dict:
        r"""Prove with SymPy that :math:`s_k = \lambda^{e_k}`, :math:`e_k = (d^k-1)/(d-1)`, solves the
        stationary equations for symbolic ``k >= 1``, ``d >= 2`` and ``lam > 0``.

        Since :math:`\lambda s_{k-1}^d = \lambda^{1 + d e_{k-1}}`, it suffices that
        :math:`1 + d e_{k-1} - e_k = 0` identically; then
        :math:`\lambda(s_{k-1}^d - s_k^d) - (s_k - s_{k+1}) = (s_k - s_{k+1}) - (s_k - s_{k+1}) = 0`,
        and :math:`e_0 = 0` gives :math:`s_0 = 1`. Returns the identities checked and their
        simplified values (all ``0``); ``"proved"`` is True when every one simplified to 0.
        (For ``d = 1`` the exponent is ``e_k = k`` and the same identity reads ``1 + (k-1) - k = 0``.)
        """
        return _symbolic_fixed_point_check()

    # --- fixed point ---------------------------------------------------------------------------
    def fixed_point(self, dps: int = DEFAULT_DPS) -> SupermarketFixedPoint:
        r"""Fixed point :math:`s_k = \lambda^{(d^k-1)/(d-1)}` to ``dps`` digits, with its symbolic check,
        the residual of the truncated drift and a rigorous bound on the neglected tail."""
        dps = check_dps(dps)
        proof = self.symbolic_check()
        tol = min(mpmath.mpf(self.tail_tol), mpmath.mpf(10) ** (-(dps + 5)))
        K = max(self.K, self.truncation_level(tol))
        with working(dps):
            lam = _lam_mpf(self.lam)
            s = [lam ** self.exponent(k) for k in range(K + 1)]
            ext = s + [mpmath.mpf(0)]
            res = max(abs(lam * (ext[k - 1] ** self.d - ext[k] ** self.d) - (ext[k] - ext[k + 1]))
                      for k in range(1, K + 1))
            tb = self.tail_bound(K)
            mql = mpmath.fsum(s[1:])
        return SupermarketFixedPoint(self.d, self.lam, tuple(rounded(x, dps) for x in s), K,
                                     rounded(tb, 5), rounded(res, 5), rounded(mql, dps),
                                     bool(proof["proved"]), dps)

    def mean_queue_length(self, dps: int = DEFAULT_DPS):
        r"""Stationary mean number of tasks per server :math:`E[Q] = \sum_{k\ge1} s_k`, to ``dps`` digits.

        The series is summed until the rigorous tail bound is below :math:`10^{-(dps+5)} E[Q]`;
        the value is confirmed at two working precisions.
        """
        dps = check_dps(dps)

        def compute(w):
            with mpmath.workdps(w):
                lam = _lam_mpf(self.lam)
                if self.d == 1:          # M/M/1: sum_k lam^k = lam/(1 - lam)
                    return lam / (1 - lam)
                total = mpmath.mpf(0)
                k = 1
                while True:
                    total += lam ** self.exponent(k)
                    if self.tail_bound(k) <= mpmath.mpf(10) ** (-w) * total:
                        return total
                    k += 1
        return agree_at_two_precisions(compute, dps, what="mean queue length")

    def sojourn_time(self, dps: int = DEFAULT_DPS):
        r"""Stationary mean sojourn (response) time :math:`E[T] = E[Q]/\lambda` (Little's law)."""
        dps = check_dps(dps)

        def compute(w):
            with mpmath.workdps(w):
                return self.mean_queue_length(w) / _lam_mpf(self.lam)
        return agree_at_two_precisions(compute, dps, what="sojourn time")

    def delay_probability(self, dps: int = DEFAULT_DPS):
        r"""Stationary probability that an arriving task has to wait: in the mean field it joins a
        busy queue iff all ``d`` sampled queues are busy, :math:`s_1^d = \lambda^d`."""
        dps = check_dps(dps)
        with working(dps):
            return rounded(_lam_mpf(self.lam) ** self.d, dps)

    # --- transient -----------------------------------------------------------------------------
    def ode(self, s0=None, t=10.0, *, dps: int | None = None, rtol: float = 1e-10,
            atol: float = 1e-13) -> OdeSolution:
        r"""Solve the truncated mean-field ODE from ``s0``.

        Parameters
        ----------
        s0 : sequence, optional
            Initial tail fractions ``(s_0 = 1, s_1, s_2, ...)``, non-increasing in [0, 1]. Default:
            the empty system ``(1, 0, 0, ...)``.
        t : float or sequence of float
            Output times (``0 <= t``, increasing); a scalar ``T`` means 201 equally spaced times
            on ``[0, T]``.
        dps : int, optional
            ``None``: float64 with SciPy ``solve_ivp`` (DOP853, ``rtol``/``atol``). An integer:
            mpmath's Taylor-series integrator ``odefun`` at ``dps`` digits, confirmed at a second
            precision (values in :attr:`OdeSolution.s_mp`).

        The truncation level starts at ``max(K + 1, len(s0) + 1)`` and is doubled until the largest
        value of ``s_K`` over the time range is below the tail tolerance (``tail_tol``, or
        ``10^-(dps+5)`` with ``dps``).
        """
        s0v = _check_s0(s0)
        tt = _check_times(t)
        tol = self.tail_tol if dps is None else min(self.tail_tol, 10.0 ** (-(check_dps(dps) + 5)))
        K = max(self.K + 1, len(s0v) + 1, self.truncation_level(tol) + 1 if dps is not None else 0)
        for _ in range(8):
            if dps is None:
                sol = self._ode_float(s0v, tt, K, rtol, atol)
                if sol.tail_max <= tol:
                    sol.tail_tol = tol
                    return sol
            else:
                sol = self._ode_mp(s0v, tt, K, dps)
                if sol.tail_max <= tol:
                    sol.tail_tol = tol
                    return sol
            K *= 2
        raise PrecisionError(f"ODE truncation: s_K(t) stays above the tail tolerance {tol:g} even at "
                             f"K={K}; the initial state has too heavy a tail for t <= {tt[-1]}")

    def _ode_float(self, s0v, tt, K, rtol, atol) -> OdeSolution:
        from scipy.integrate import solve_ivp
        f = self._numeric_drift(K, "numpy")
        y0 = np.zeros(K)
        y0[: len(s0v) - 1] = np.asarray([float(x) for x in s0v[1:]], dtype=float)

        def rhs(_t, y):
            return np.asarray(f(*y), dtype=float).ravel()
        if tt[-1] == 0:
            Y = y0[None, :]
        else:
            r = solve_ivp(rhs, (0.0, float(tt[-1])), y0, method="DOP853", t_eval=tt, rtol=rtol, atol=atol)
            if not r.success:  # pragma: no cover
                raise RuntimeError(f"solve_ivp failed: {r.message}")
            Y = r.y.T
        S = np.hstack([np.ones((len(tt), 1)), np.clip(Y, 0.0, 1.0)])
        return OdeSolution(np.asarray(tt, float), S, K, float(np.max(np.abs(S[:, -1]))), self.tail_tol,
                           f"scipy solve_ivp DOP853 rtol={rtol:g} atol={atol:g}, truncated at K={K}")

    def _ode_mp(self, s0v, tt, K, dps) -> OdeSolution:
        f = self._numeric_drift(K, "mpmath")

        def compute(w):
            with mpmath.workdps(w):
                y0 = [mpmath.mpf(0)] * K
                for i, x in enumerate(s0v[1:]):
                    y0[i] = mpmath.mpf(x) if not isinstance(x, Fraction) else mpmath.mpf(x.numerator) / x.denominator
                F = mpmath.odefun(lambda _t, y: list(f(*y)), 0, y0)
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
        return OdeSolution(np.asarray(tt, float), S, K, float(np.max(np.abs(S[:, -1]))), self.tail_tol,
                           f"mpmath odefun (Taylor series) at {dps} digits, two precisions, K={K}",
                           dps=dps, s_mp=s_mp)


def _lam_key(lam):
    """Hashable exact key for the lambdify cache."""
    return str(_lam_sympy(lam))


@lru_cache(maxsize=64)
def _lambdified_drift(d: int, lam_key: str, K: int, module: str):
    m = Supermarket.__new__(Supermarket)
    m.d, m.lam = d, Fraction(lam_key)
    return sp.lambdify(Supermarket.symbols(K), list(m.drift(K)), modules=module)


@lru_cache(maxsize=1)
def _symbolic_fixed_point_check() -> dict:
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


def _check_s0(s0):
    if s0 is None:
        return [1.0]
    if isinstance(s0, (str, bytes)):
        raise TypeError("s0 must be a sequence of tail fractions (s_0 = 1, s_1, ...), got a string")
    vals = list(s0)
    if len(vals) == 0:
        raise ValueError("s0 must contain at least s_0 = 1")
    for i, x in enumerate(vals):
        check_real(x, f"s0[{i}]", lower=0, upper=1)
    if vals[0] != 1:
        raise ValueError(f"s0[0] must be 1 (the fraction of servers with at least 0 tasks), got {vals[0]!r}")
    for i in range(1, len(vals)):
        if vals[i] > vals[i - 1]:
            raise ValueError(f"s0 must be non-increasing (tail fractions), but s0[{i}]={vals[i]!r} > "
                             f"s0[{i - 1}]={vals[i - 1]!r}")
    return vals


def _check_times(t):
    if isinstance(t, numbers.Real) and not isinstance(t, bool):
        check_real(t, "t", lower=0)
        return np.linspace(0.0, float(t), 201)
    arr = np.asarray(t, dtype=float).ravel()
    if arr.size == 0:
        raise ValueError("t must contain at least one time")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"t must be finite times >= 0, got {t!r}")
    if np.any(np.diff(arr) < 0):
        raise ValueError("t must be non-decreasing")
    return arr


# --------------------------------------------------------------------------------------------------
# graphs
# --------------------------------------------------------------------------------------------------

@dataclass(eq=False)
class Graph:
    """An undirected simple graph in CSR form, as the simulator needs it.

    ``indptr`` (int64, length ``N + 1``) and ``indices`` (int32) list the neighbours of each vertex
    (rows sorted). The complete graph is special-cased: ``complete=True`` and no edge arrays
    (``N^2`` edges are never materialised; the simulator draws neighbours from the other ``N - 1``
    vertices directly).
    """
    N: int
    indptr: np.ndarray | None
    indices: np.ndarray | None
    family: str
    params: dict = field(default_factory=dict)
    complete: bool = False

    @property
    def degrees(self) -> np.ndarray:
        if self.complete:
            return np.full(self.N, self.N - 1, dtype=np.int64)
        return np.diff(self.indptr)

    @property
    def min_degree(self) -> int:
        return int(self.degrees.min()) if self.N else 0

    @property
    def max_degree(self) -> int:
        return int(self.degrees.max()) if self.N else 0

    @property
    def mean_degree(self) -> float:
        return float(self.degrees.mean()) if self.N else 0.0

    @property
    def n_edges(self) -> int:
        if self.complete:
            return self.N * (self.N - 1) // 2
        return int(self.indptr[-1]) // 2

    @property
    def nbytes(self) -> int:
        return 0 if self.complete else int(self.indptr.nbytes + self.indices.nbytes)

    def neighbors(self, v: int) -> np.ndarray:
        v = check_int(v, "v", min_value=0, max_value=self.N - 1)
        if self.complete:
            return np.concatenate([np.arange(v), np.arange(v + 1, self.N)])
        return self.indices[self.indptr[v]:self.indptr[v + 1]]

    def to_networkx(self):
        """The graph as a ``networkx.Graph`` (for small graphs: this builds Python objects)."""
        import networkx as nx
        if self.complete:
            return nx.complete_graph(self.N)
        g = nx.Graph()
        g.add_nodes_from(range(self.N))
        src = np.repeat(np.arange(self.N), np.diff(self.indptr))
        mask = src < self.indices
        g.add_edges_from(zip(src[mask].tolist(), self.indices[mask].tolist()))
        return g

    def to_scipy(self):
        """The adjacency matrix as ``scipy.sparse.csr_matrix`` (not for the complete graph at large N)."""
        import scipy.sparse as sps
        if self.complete:
            a = np.ones((self.N, self.N), dtype=np.int8) - np.eye(self.N, dtype=np.int8)
            return sps.csr_matrix(a)
        return sps.csr_matrix((np.ones(len(self.indices), dtype=np.int8), self.indices, self.indptr),
                              shape=(self.N, self.N))

    def to_dict(self) -> dict:
        return {"N": self.N, "family": self.family, "params": dict(self.params), "complete": self.complete,
                "n_edges": self.n_edges, "min_degree": self.min_degree, "max_degree": self.max_degree,
                "mean_degree": self.mean_degree}

    def __repr__(self) -> str:
        return (f"Graph({self.family}, N={self.N}, edges={self.n_edges}, degree {self.min_degree}"
                f"..{self.max_degree}, params={self.params})")


def _rng(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed if not isinstance(seed, np.random.SeedSequence) else seed)


def _csr_from_edges(N: int, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric CSR (rows sorted) from an edge list with ``u != v`` and no duplicates."""
    from ._supermarket_kernels import _csr_build
    return _csr_build(N, np.ascontiguousarray(u, dtype=np.int64), np.ascontiguousarray(v, dtype=np.int64))


def _random_regular(N: int, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int]:
    """Configuration model (random perfect matching of the ``N k`` half-edges) followed by random
    switchings that remove self-loops and multi-edges.

    Every bad pair ``{u, v}`` is replaced, with a uniformly chosen good edge ``{a, b}``, by
    ``{u, a}, {v, b}`` (or ``{u, b}, {v, a}``) when neither new edge is a loop or already present.
    The expected number of bad pairs is about ``(k - 1)/2 + (k - 1)^2/4``, independent of ``N``, so
    this costs one sort; the result is a simple ``k``-regular graph whose law is asymptotically
    uniform (the switching step is the McKay-Wormald device, here without the exact acceptance
    correction, so it is uniform only up to ``O(k^2/N)`` in total variation). Returns
    ``(indptr, indices, n_switches)``.
    """
    M = N * k // 2
    stubs = np.repeat(np.arange(N, dtype=np.int32), k)
    rng.shuffle(stubs)
    u = stubs[0::2].astype(np.int64)
    v = stubs[1::2].astype(np.int64)
    del stubs
    lo = np.minimum(u, v)
    hi = np.maximum(u, v)
    u, v = lo, hi
    keys = u * N + v
    sk = np.sort(keys)
    dvals = np.unique(sk[1:][sk[1:] == sk[:-1]])
    bad = u == v
    for key in dvals:                      # few: O(k^2) in expectation
        where = np.flatnonzero(keys == key)
        bad[where[1:]] = True
    present = set()       # keys added by switchings
    removed = {}          # key -> number of copies removed
    sorted_keys = sk      # multiset of the original keys, sorted

    def count_original(key):
        i = np.searchsorted(sorted_keys, key, side="left")
        j = np.searchsorted(sorted_keys, key, side="right")
        return int(j - i)

    def exists(a, b):
        key = min(a, b) * N + max(a, b)
        return key in present or count_original(key) - removed.get(key, 0) > 0

    def remove(key):
        if key in present:
            present.discard(key)
        else:
            removed[key] = removed.get(key, 0) + 1

    bad_idx = list(np.flatnonzero(bad))
    n_sw = 0
    tries = 0
    while bad_idx:
        tries += 1
        if tries > 1000 * (len(bad_idx) + 10) + 10 ** 6:  # pragma: no cover - practically impossible
            raise RuntimeError("random_regular: switching did not remove all loops/multi-edges")
        e = bad_idx[-1]
        x, y = int(u[e]), int(v[e])
        f = int(rng.integers(M))
        if bad[f]:
            continue
        a, b = int(u[f]), int(v[f])
        if rng.random() < 0.5:
            a, b = b, a
        if x == a or y == b or x == b and y == a:
            continue
        if exists(x, a) or exists(y, b) or (min(x, a), max(x, a)) == (min(y, b), max(y, b)):
            continue
        remove(x * N + y if x < y else y * N + x)
        remove(min(a, b) * N + max(a, b))
        present.add(min(x, a) * N + max(x, a))
        present.add(min(y, b) * N + max(y, b))
        u[e], v[e] = min(x, a), max(x, a)
        u[f], v[f] = min(y, b), max(y, b)
        bad[e] = False
        bad_idx.pop()
        n_sw += 1
    del keys, sk, lo, hi, sorted_keys
    indptr, indices = _csr_from_edges(N, u, v)
    return indptr, indices, n_sw


def _erdos_renyi(N: int, p: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """G(N, p): the number of edges is Binomial(N(N-1)/2, p) and, given it, the edge set is a uniform
    subset (pairs drawn uniformly, duplicates and loops discarded, topped up, then a uniform subset
    of the exact size kept)."""
    total = N * (N - 1) // 2
    M = int(rng.binomial(total, p)) if total > 0 else 0
    if M == 0:
        return np.zeros(N + 1, dtype=np.int64), np.zeros(0, dtype=np.int32)
    if M > total // 2:  # dense: enumerate all pairs (only for small N)
        iu, ju = np.triu_indices(N, 1)
        keep = rng.random(len(iu)) < p
        return _csr_from_edges(N, iu[keep].astype(np.int64), ju[keep].astype(np.int64))
    keys = np.zeros(0, dtype=np.int64)
    while len(keys) < M:
        need = int((M - len(keys)) * 1.1) + 16
        a = rng.integers(0, N, size=need, dtype=np.int64)
        b = rng.integers(0, N, size=need, dtype=np.int64)
        m = a != b
        a, b = a[m], b[m]
        keys = np.unique(np.concatenate([keys, np.minimum(a, b) * N + np.maximum(a, b)]))
    if len(keys) > M:
        keys = rng.choice(keys, size=M, replace=False)
    return _csr_from_edges(N, keys // N, keys % N)


def _ring(N: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    offs = np.concatenate([np.arange(-(k // 2), 0), np.arange(1, k // 2 + 1)])
    idx = (np.arange(N, dtype=np.int64)[:, None] + offs[None, :]) % N
    idx.sort(axis=1)
    indptr = np.arange(0, N * k + 1, k, dtype=np.int64)
    return indptr, idx.ravel().astype(np.int32)


def _torus(L: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    N = L * L
    x, y = np.divmod(np.arange(N, dtype=np.int64), L)
    moves = [(1, 0), (-1, 0), (0, 1), (0, -1)]
    if k == 8:
        moves += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    cols = [((x + dx) % L) * L + (y + dy) % L for dx, dy in moves]
    idx = np.stack(cols, axis=1)
    idx.sort(axis=1)
    indptr = np.arange(0, N * k + 1, k, dtype=np.int64)
    return indptr, idx.ravel().astype(np.int32)


def _graph_from_user(g) -> Graph:
    """Convert a networkx graph or a scipy sparse matrix (adjacency pattern) to :class:`Graph`."""
    import scipy.sparse as sps
    if isinstance(g, Graph):
        return g
    if sps.issparse(g):
        a = sps.csr_matrix(g)
        if a.shape[0] != a.shape[1]:
            raise ValueError(f"graph: a sparse adjacency matrix must be square, got shape {a.shape}")
        N = a.shape[0]
        a.sum_duplicates()
        a.eliminate_zeros()
        a.sort_indices()
        family = "scipy"
    else:
        try:
            import networkx as nx
        except ImportError:  # pragma: no cover
            nx = None
        if nx is None or not isinstance(g, nx.Graph):
            raise TypeError("graph must be a family name, a symloss Graph, a networkx Graph or a scipy "
                            f"sparse adjacency matrix, got {type(g).__name__}")
        if g.is_directed():
            raise ValueError("graph: a directed networkx graph was given; the supermarket model needs an "
                             "undirected graph (use G.to_undirected())")
        N = g.number_of_nodes()
        if N == 0:
            raise ValueError("graph is empty (0 vertices)")
        a = nx.to_scipy_sparse_array(g, nodelist=list(g.nodes()), format="csr", weight=None)
        a = sps.csr_matrix(a)
        a.sort_indices()
        family = "networkx"
    if N == 0:
        raise ValueError("graph is empty (0 vertices)")
    from ._supermarket_kernels import _check_simple_symmetric
    indptr = a.indptr.astype(np.int64)
    indices = a.indices.astype(np.int32)
    loop, multi, sym = _check_simple_symmetric(indptr, indices, N)
    if not sym:
        raise ValueError("graph: the adjacency matrix is not symmetric; the supermarket model needs an "
                         "undirected graph")
    if loop:
        warnings.warn("graph has self-loops; they are removed (a vertex is not its own neighbour)",
                      stacklevel=3)
        src = np.repeat(np.arange(N), np.diff(indptr))
        keep = src != indices
        counts = np.bincount(src[keep], minlength=N)
        indices = indices[keep]
        indptr = np.zeros(N + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
    return Graph(N, indptr, np.ascontiguousarray(indices), family, {})


def make_graph(family, N: int | None = None, *, k: int | None = None, c=None, seed=None) -> Graph:
    r"""Build a graph for the supermarket model.

    Parameters
    ----------
    family : str or graph
        ``"complete"`` (no edges stored), ``"random_regular"`` (``k``), ``"erdos_renyi"``
        (``c``: mean degree, edge probability ``c/(N-1)``; ``c`` may be a number, ``"ln"`` for
        :math:`\ln N` or ``"ln2"`` for :math:`(\ln N)^2`), ``"ring"`` (ring lattice, each vertex
        joined to the ``k/2`` nearest on each side; ``k`` even, default 2), ``"torus"``
        (2-dimensional ``L x L`` torus, ``N = L^2``, ``k = 4`` nearest or ``k = 8`` with
        diagonals). A networkx graph or a scipy sparse adjacency matrix is converted (it must be
        undirected; self-loops are dropped with a warning).
    N : int
        Number of vertices (not used for a user graph).
    seed : int, SeedSequence or Generator, optional
        Randomness of the random families.

    Notes
    -----
    ``random_regular`` uses the configuration model with switchings (see ``_random_regular``):
    linear time and memory, ``N = 10^6, k = 10`` in a few seconds. ``erdos_renyi`` draws the edge
    count from the binomial law and a uniform edge set of that size.
    """
    if not isinstance(family, str):
        if N is not None or k is not None or c is not None:
            raise TypeError("make_graph(graph) converts a user graph; N, k and c are only for families")
        return _graph_from_user(family)
    check_choice(family, "family", GRAPH_FAMILIES)
    if N is None:
        raise TypeError(f"make_graph({family!r}) needs N")
    N = check_int(N, "N", min_value=1)
    rng = _rng(seed)
    if family == "complete":
        if k is not None or c is not None:
            raise TypeError("the complete graph takes no k or c")
        return Graph(N, None, None, "complete", {}, complete=True)
    if family == "random_regular":
        if k is None:
            raise TypeError("random_regular needs the degree k")
        k = check_int(k, "k", min_value=1, max_value=N - 1)
        if (N * k) % 2:
            raise ValueError(f"random_regular: N*k must be even, got N={N}, k={k}")
        indptr, indices, nsw = _random_regular(N, k, rng)
        return Graph(N, indptr, indices, "random_regular", {"k": k, "switchings": nsw})
    if family == "erdos_renyi":
        if c is None:
            raise TypeError("erdos_renyi needs the mean degree c (a number, 'ln' or 'ln2')")
        if isinstance(c, str):
            check_choice(c, "c", ("ln", "ln2"))
            cval = math.log(N) if c == "ln" else math.log(N) ** 2
        else:
            check_real(c, "c", lower=0, upper=max(N - 1, 0))
            cval = float(c)
        if N < 2:
            raise ValueError("erdos_renyi needs N >= 2")
        p = min(1.0, cval / (N - 1))
        indptr, indices = _erdos_renyi(N, p, rng)
        return Graph(N, indptr, indices, "erdos_renyi", {"c": c, "c_value": cval, "p": p})
    if family == "ring":
        k = 2 if k is None else check_int(k, "k", min_value=2)
        if k % 2 or k >= N:
            raise ValueError(f"ring: k must be even and < N, got k={k}, N={N}")
        indptr, indices = _ring(N, k)
        return Graph(N, indptr, indices, "ring", {"k": k})
    # torus
    k = 4 if k is None else check_int(k, "k")
    if k not in (4, 8):
        raise ValueError(f"torus: k must be 4 (nearest neighbours) or 8 (with diagonals), got {k}")
    L = math.isqrt(N)
    if L * L != N or L < 3:
        raise ValueError(f"torus: N must be a perfect square L*L with L >= 3, got N={N}")
    indptr, indices = _torus(L, k)
    return Graph(N, indptr, indices, "torus", {"k": k, "L": L})


# --------------------------------------------------------------------------------------------------
# simulation
# --------------------------------------------------------------------------------------------------


def _t975(df: int) -> float:
    """97.5 % quantile of Student's t with ``df`` degrees of freedom."""
    from scipy.stats import t as student_t
    return float(student_t.ppf(0.975, df))


@dataclass
class SimulationResult:
    r"""Output of :func:`simulate_supermarket`.

    Attributes
    ----------
    t : ndarray, shape (n,)
        Recording times ``0, record_every, 2 record_every, ...`` up to ``t_end``.
    s : ndarray, shape (n, K + 1)
        ``s[i, k]`` = fraction of vertices with at least ``k`` tasks at time ``t[i]`` (column 0 is 1).
    stationary_s : ndarray
        Time averages of :math:`s_k` over ``[warmup, t_end]``.
    mean_queue_length : float
        Time average over ``[warmup, t_end]`` of the mean number of tasks per vertex.
    ci : (float, float)
        95 % confidence interval for ``mean_queue_length`` by batch means: ``[warmup, t_end]`` is cut
        into ``batches`` equal time windows, and the interval is
        :math:`\bar x \pm t_{0.975, B-1}\, s_B/\sqrt{B}` over the window averages.
    """
    t: np.ndarray
    s: np.ndarray
    stationary_s: np.ndarray
    mean_queue_length: float
    ci: tuple
    batch_means: np.ndarray
    N: int
    d: int
    lam: float
    t_end: float
    warmup: float
    replace: bool
    graph: dict
    arrivals: int
    departures: int
    seconds: float
    final_queues: np.ndarray | None = None
    method: str = ""
    dummy_events: int = 0

    @property
    def events(self) -> int:
        return self.arrivals + self.departures

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else float("nan")

    @property
    def sojourn_time(self) -> float:
        """Mean sojourn time by Little's law, ``mean_queue_length / lam``."""
        return self.mean_queue_length / self.lam

    @property
    def half_width(self) -> float:
        return 0.5 * (self.ci[1] - self.ci[0])

    def to_dict(self) -> dict:
        return {"N": self.N, "d": self.d, "lam": self.lam, "t_end": self.t_end, "warmup": self.warmup,
                "replace": self.replace, "graph": self.graph, "mean_queue_length": self.mean_queue_length,
                "ci": list(self.ci), "batch_means": self.batch_means.tolist(),
                "stationary_s": self.stationary_s.tolist(), "t": self.t.tolist(), "s": self.s.tolist(),
                "arrivals": self.arrivals, "departures": self.departures, "seconds": self.seconds,
                "method": self.method}

    def __repr__(self) -> str:
        lo, hi = self.ci
        return (f"SimulationResult(N={self.N}, d={self.d}, lam={self.lam}, graph={self.graph.get('family')}, "
                f"mean_queue_length={self.mean_queue_length:.5f} [95% CI {lo:.5f}, {hi:.5f}], "
                f"events={self.events}, {self.events_per_second:.3g} events/s)")


def _seed_seq(seed) -> np.random.SeedSequence:
    """``None``, an int, a SeedSequence or a Generator (whose stream is advanced) as a SeedSequence."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(0, 2 ** 63)))
    if seed is not None and (isinstance(seed, (bool, str, bytes)) or not isinstance(seed, (numbers.Integral, Sequence))):
        raise TypeError(f"seed must be None, an int, a numpy SeedSequence or Generator, got {seed!r}")
    return np.random.SeedSequence(seed)


def _child(ss: np.random.SeedSequence, i: int) -> np.random.SeedSequence:
    """The ``i``-th child of ``ss``, computed without changing ``ss`` (unlike ``ss.spawn``), so the
    same SeedSequence object always gives the same streams."""
    return np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (1000 + i,),
                                  pool_size=ss.pool_size)


def _seed_int(seed) -> tuple[int, np.random.SeedSequence]:
    ss = _seed_seq(seed)
    return int(ss.generate_state(1, dtype=np.uint32)[0]), ss


def _validate_graph_for(g: Graph, d: int, replace: bool) -> None:
    if g.N == 0:
        raise ValueError("graph is empty (0 vertices)")
    if d == 1:
        return
    if g.complete:
        if not replace and d - 1 > g.N - 1:
            raise ValueError(f"d={d}: sampling d-1={d - 1} distinct neighbours without replacement needs "
                             f"N-1 >= d-1 on the complete graph, got N={g.N}")
        if g.N == 1:
            raise ValueError("graph has a single vertex and no edges (empty graph): cannot sample neighbours")
        return
    deg = g.degrees
    if g.n_edges == 0:
        raise ValueError(f"graph has no edges (empty graph) but d={d} needs neighbours to compare")
    iso = int(np.count_nonzero(deg == 0))
    if iso:
        warnings.warn(f"graph has {iso} isolated vertices (degree 0): tasks arriving there join the local "
                      f"queue without comparison", stacklevel=3)
    if not replace:
        low = np.flatnonzero((deg > 0) & (deg < d - 1))
        if low.size:
            v = int(low[0])
            raise ValueError(f"sampling without replacement needs every non-isolated vertex to have at least "
                             f"d-1={d - 1} neighbours; vertex {v} has {int(deg[v])} ({low.size} such vertices). "
                             f"Use replace=True or a smaller d")


def simulate_supermarket(graph, *, d: int = 2, lam: float, t_end: float, seed=None, warmup=None,
                         record_every=None, replace: bool = False, initial=None, batches: int = 20,
                         method: str = "uniformized", N: int | None = None, k: int | None = None,
                         c=None) -> SimulationResult:
    r"""Simulate the supermarket model JSQ(d) on a graph.

    Parameters
    ----------
    graph : Graph, str, networkx graph or scipy sparse matrix
        The graph (:func:`make_graph` output); a family name builds one with ``N``, ``k``, ``c`` and
        a child of ``seed``.
    d : int >= 1
        The task compares the queue at its arrival vertex ``v`` with ``d - 1`` neighbours of ``v``.
    lam : float in (0, 1)
        Poisson arrival rate at every vertex (service rate 1).
    t_end : float > 0
        Simulated time.
    seed : int, SeedSequence or None
        Same seed, same output (numba's generator is seeded inside the kernel from the seed sequence).
    warmup : float, optional
        Transient discarded from the stationary estimates; default ``t_end / 5``.
    record_every : float, optional
        Spacing of the recorded occupancy profile ``s_k(t)``; default ``t_end / 200``.
    replace : bool
        ``False`` (default): the ``d - 1`` neighbours are distinct (drawn without replacement; every
        non-isolated vertex needs at least ``d - 1`` neighbours). ``True``: drawn independently and
        uniformly from the neighbour list (repeats possible). For ``d = 2`` the two coincide. On the
        complete graph the neighbours of ``v`` are the other ``N - 1`` vertices.
    initial : array of int, optional
        Initial queue lengths (length ``N``); default: all queues empty.
    batches : int
        Number of batches for the batch-means confidence interval (default 20).
    method : {"uniformized", "event"}
        ``"uniformized"`` (default, fastest): potential events at the constant rate ``(1 + lam) N``
        (arrival at a uniform vertex, or a potential departure at a uniform vertex that is real iff
        its queue is non-empty); the number of potential events in each recording interval is
        Poisson, so no exponential clock is drawn per event, and time averages use the conditional
        expectation ``h/(n + 1)`` of each holding time given the ``n`` events of an interval of
        length ``h``. ``record_every`` is rounded so that it divides ``t_end`` and ``warmup`` is
        rounded up to the recording grid. ``"event"``: classical event-driven simulation
        (exponential clock per event, busy-server list); same law, used as a cross-check.

    Returns
    -------
    SimulationResult

    Notes
    -----
    Ties among the shortest queues (including ``v`` itself) are broken uniformly at random
    (reservoir sampling). Isolated vertices are allowed with a warning: tasks arriving there stay.
    The stationary mean queue length is the time average of :math:`\sum_k s_k(t)` over
    ``[warmup, t_end]``; its 95 % CI uses batch means over ``batches`` equal windows, which assumes
    the windows are long compared with the relaxation time (``O(1)`` time units here for
    ``lam`` not close to 1; check by raising ``t_end``).
    """
    d = _check_d(d)
    lam = float(_check_lam(lam))
    check_real(t_end, "t_end", lower=0, lower_open=True)
    t_end = float(t_end)
    warmup = t_end / 5 if warmup is None else float(check_real(warmup, "warmup", lower=0, upper=t_end,
                                                                 upper_open=True))
    rec = t_end / 200 if record_every is None else float(check_real(record_every, "record_every", lower=0,
                                                                      lower_open=True, upper=t_end))
    batches = check_int(batches, "batches", min_value=2, max_value=10 ** 6)
    if not isinstance(replace, (bool, np.bool_)):
        raise TypeError(f"replace must be True or False, got {replace!r}")
    seed_int, ss = _seed_int(seed)
    if isinstance(graph, str):
        graph = make_graph(graph, N, k=k, c=c, seed=np.random.default_rng(_child(ss, 0)))
    else:
        if N is not None or k is not None or c is not None:
            raise TypeError("N, k and c are only used when graph is a family name")
        graph = _graph_from_user(graph)
    _validate_graph_for(graph, d, bool(replace))
    Nv = graph.N
    if initial is None:
        q = np.zeros(Nv, dtype=np.int32)
    else:
        q = np.asarray(initial)
        if q.shape != (Nv,) or not np.issubdtype(q.dtype, np.integer) or (q < 0).any():
            raise ValueError(f"initial must be an integer array of N={Nv} non-negative queue lengths")
        q = q.astype(np.int32, copy=True)
    check_choice(method, "method", ("uniformized", "event"))
    if graph.complete:
        indptr = np.zeros(1, dtype=np.int64)
        indices = np.zeros(1, dtype=np.int32)
        kreg = 0
    else:
        indptr, indices = graph.indptr, graph.indices
        deg = np.diff(indptr)
        kreg = int(deg[0]) if Nv > 0 and deg.min() == deg.max() else 0
    if method == "uniformized":
        from ._supermarket_kernels import _uniformized_kernel
        n_slots = max(1, int(round(t_end / rec)))
        rec = t_end / n_slots
        warm_slots = int(math.ceil(warmup / rec - 1e-9))
        if n_slots - warm_slots < batches:
            raise ValueError(f"only {n_slots - warm_slots} recording intervals after the warmup, fewer than "
                             f"batches={batches}: lower record_every or batches")
        warmup = warm_slots * rec
        counts = np.random.default_rng(_child(ss, 1)).poisson((1.0 + lam) * Nv * rec, size=n_slots)
        t0 = time.perf_counter()
        rec_cnt, area, batch_area, n_arr, n_dep, n_dummy, kmax = _uniformized_kernel(
            indptr, indices, kreg, bool(graph.complete), Nv, d, lam, bool(replace), q,
            counts.astype(np.int64), rec, warm_slots, batches, seed_int)
        secs = time.perf_counter() - t0
        rec_t = np.arange(n_slots + 1) * rec
        method_text = ("uniformised exact simulation (numba): potential events at rate (1+lam)N, Poisson "
                       "count per recording interval, conditional-expectation time averages")
    else:
        from ._supermarket_kernels import _simulate_kernel
        t0 = time.perf_counter()
        rec_t, rec_cnt, area, batch_area, n_arr, n_dep, kmax = _simulate_kernel(
            indptr, indices, bool(graph.complete), Nv, d, lam, bool(replace), q, t_end, warmup, rec,
            batches, seed_int)
        secs = time.perf_counter() - t0
        n_dummy = 0
        method_text = ("event-driven exact simulation (numba): exponential clock per event, busy-server "
                       "list for departures")
    method_text += "; JSQ among v and d-1 neighbours, ties uniform; CI: batch means, Student t"
    K = int(kmax) + 1
    s = rec_cnt[:, :K + 1].astype(np.float64) / Nv
    span = t_end - warmup
    stat = area[:K + 1] / (Nv * span)
    stat[0] = 1.0
    bm = batch_area / (Nv * span / batches)
    mql = float(np.sum(area[1:]) / (Nv * span))
    hw = _t975(batches - 1) * float(np.std(bm, ddof=1)) / math.sqrt(batches)
    return SimulationResult(rec_t, s, stat, mql, (mql - hw, mql + hw), bm, Nv, d, lam, t_end, warmup,
                            bool(replace), graph.to_dict(), int(n_arr), int(n_dep), secs, final_queues=q,
                            method=method_text, dummy_events=int(n_dummy))


# --------------------------------------------------------------------------------------------------
# distance to the mean-field ODE
# --------------------------------------------------------------------------------------------------

@dataclass
class DistanceResult:
    r"""Distance between the occupancy process on a graph and the mean-field ODE.

    ``distances[r]`` is :math:`\sup_{t \in \text{grid}, t \le T} \max_{k \ge 1} |s^N_k(t) - s_k(t)|`
    for run ``r`` (both started empty); ``distance`` is their mean and ``ci`` a 95 % Student-t interval
    over the runs (NaN for a single run). ``mode`` is ``"quenched"`` (one graph for all runs) or
    ``"annealed"`` (a new graph for every run).
    """
    distance: float
    ci: tuple
    distances: np.ndarray
    N: int
    family: str
    mode: str
    d: int
    lam: float
    T: float
    record_every: float
    graphs: list
    method: str = "sup over the recording grid and k of |s^N_k(t) - s_k(t)|, mean over runs, Student-t CI"

    def to_dict(self) -> dict:
        return {"distance": self.distance, "ci": list(self.ci), "distances": self.distances.tolist(),
                "N": self.N, "family": self.family, "mode": self.mode, "d": self.d, "lam": self.lam,
                "T": self.T, "record_every": self.record_every, "graphs": self.graphs, "method": self.method}


def ode_distance(graph, *, d: int = 2, lam: float, T: float, runs: int = 4, mode: str = "quenched",
                 seed=None, N: int | None = None, k: int | None = None, c=None, record_every=None,
                 replace: bool = False) -> DistanceResult:
    r"""Sup-distance on ``[0, T]`` between the supermarket model on a graph and the mean-field ODE.

    Parameters
    ----------
    graph : str or graph
        A family name of :func:`make_graph` (with ``N``, ``k``, ``c``) or a ready graph (then only
        ``mode="quenched"`` makes sense).
    mode : {"quenched", "annealed"}
        Quenched: one graph drawn once (from ``seed``), ``runs`` independent simulations on it.
        Annealed: a fresh graph for every run (only differs for random families).
    T : float
        Time horizon; both processes start from the empty state.
    record_every : float, optional
        Grid spacing of the supremum (default ``T/100``); the supremum is taken on this grid.

    Notes
    -----
    The seed paper's theorem: for the complete graph the distance is :math:`O(1/\sqrt N)`; it tends
    to 0 whenever the minimum degree tends to infinity (with max/min degree ratio -> 1), and for
    Erdos-Renyi graphs with :math:`c(N) \to \infty` (annealed) or :math:`c(N)/\ln N \to \infty`
    (quenched). For fixed degree it does not tend to 0.
    """
    d = _check_d(d)
    lam = float(_check_lam(lam))
    check_real(T, "T", lower=0, lower_open=True)
    T = float(T)
    runs = check_int(runs, "runs", min_value=1)
    check_choice(mode, "mode", ("quenched", "annealed"))
    rec = T / 100 if record_every is None else float(check_real(record_every, "record_every", lower=0,
                                                                  lower_open=True, upper=T))
    root = _seed_seq(seed)
    children = [_child(root, 10 + i) for i in range(2 * runs + 1)]
    if isinstance(graph, str):
        family = graph
        if N is None:
            raise TypeError("ode_distance with a family name needs N")
        fixed = None if mode == "annealed" else make_graph(graph, N, k=k, c=c,
                                                          seed=np.random.default_rng(children[-1]))
    else:
        if mode == "annealed":
            raise ValueError("mode='annealed' needs a family name (a new graph per run); a ready graph "
                             "is necessarily quenched")
        if N is not None or k is not None or c is not None:
            raise TypeError("N, k and c are only used when graph is a family name")
        fixed = _graph_from_user(graph)
        family = fixed.family
    model = Supermarket(d, lam)
    sups, gdicts, Nv = [], [], None
    ode_cache: dict = {}
    seen_warnings: set = set()
    for r in range(runs):
        g = fixed if fixed is not None else make_graph(graph, N, k=k, c=c,
                                                       seed=np.random.default_rng(children[2 * r]))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = simulate_supermarket(g, d=d, lam=lam, t_end=T, record_every=rec, seed=children[2 * r + 1],
                                       warmup=0.0, replace=replace)
        for w in caught:
            msg = str(w.message)
            if msg not in seen_warnings:
                seen_warnings.add(msg)
                warnings.warn(f"ode_distance run {r}: {msg}", w.category, stacklevel=2)
        key = tuple(np.round(res.t, 12))
        if key not in ode_cache:
            ode_cache[key] = model.ode(None, res.t)
        sol = ode_cache[key]
        width = max(res.s.shape[1], sol.s.shape[1])
        a = np.zeros((len(res.t), width))
        b = np.zeros((len(res.t), width))
        a[:, :res.s.shape[1]] = res.s
        b[:, :sol.s.shape[1]] = sol.s
        sups.append(float(np.max(np.abs(a[:, 1:] - b[:, 1:]))))
        gdicts.append(res.graph)
        Nv = g.N
    arr = np.asarray(sups)
    mean = float(arr.mean())
    if runs > 1:
        hw = _t975(runs - 1) * float(arr.std(ddof=1)) / math.sqrt(runs)
        ci = (mean - hw, mean + hw)
    else:
        ci = (float("nan"), float("nan"))
    return DistanceResult(mean, ci, arr, int(Nv), family, mode, d, lam, T, rec, gdicts)


# --------------------------------------------------------------------------------------------------
# pair approximation (Gast 2015), d = 2 on k-regular graphs
# --------------------------------------------------------------------------------------------------

@dataclass
class PairApproximationResult:
    r"""Stationary point of the pair approximation.

    ``x[i, j]`` = probability that a vertex has ``i`` tasks and a given neighbour ``j``;
    ``s[k]`` = marginal tail :math:`P(Q \ge k)`; ``mean_queue_length`` = :math:`\sum_{k\ge1} s_k`.
    ``residual`` = max-norm of the pair-ODE drift at ``x``; ``tail_mass`` = :math:`P(Q = K)` at the
    truncation level ``K``.
    """
    k: int
    lam: float
    mean_queue_length: float
    s: np.ndarray
    x: np.ndarray
    K: int
    residual: float
    tail_mass: float
    method: str = "pair approximation (Gast 2015), stationary point by ODE relaxation + Newton (hybr)"

    @property
    def sojourn_time(self) -> float:
        return self.mean_queue_length / self.lam

    def to_dict(self) -> dict:
        return {"k": self.k, "lam": self.lam, "mean_queue_length": self.mean_queue_length,
                "s": self.s.tolist(), "K": self.K, "residual": self.residual, "tail_mass": self.tail_mass,
                "method": self.method}


def _pair_drift(x: np.ndarray, k: int, lam: float) -> np.ndarray:
    """Drift of the pair approximation (see :func:`pair_approximation`) for the (K+1)x(K+1) matrix x."""
    K1 = x.shape[0]
    idx = np.arange(K1)
    G = np.where(idx[:, None] < idx[None, :], 1.0, np.where(idx[:, None] == idx[None, :], 0.5, 0.0))
    p = x.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        h = np.where(p > 0, (x * G).sum(axis=1) / np.where(p > 0, p, 1.0), 0.0)
    A = (2.0 * lam / k) * G + (2.0 * lam * (k - 1) / k) * h[:, None]
    A[-1, :] = 0.0                         # truncation: no arrival beyond level K
    fu = x * A                             # (i, j) -> (i + 1, j)
    fv = x * A.T                           # (i, j) -> (i, j + 1)
    dx = -fu - fv
    dx[1:, :] += fu[:-1, :]
    dx[:, 1:] += fv[:, :-1]
    dx[1:, :] -= x[1:, :]                  # departures at the first vertex
    dx[:-1, :] += x[1:, :]
    dx[:, 1:] -= x[:, 1:]                  # departures at the neighbour
    dx[:, :-1] += x[:, 1:]
    return dx


def pair_approximation(k: int, lam: float, *, tol: float = 1e-12) -> PairApproximationResult:
    r"""Stationary mean queue length of the pair approximation for JSQ(2) on ``k``-regular graphs.

    Model (d = 2): a task arriving at ``u`` picks one neighbour ``w`` uniformly among the ``k``
    and joins the shorter of the two queues (ties: either with probability 1/2).

    Pair approximation (N. Gast, "The power of two choices on graphs: the pair-approximation is
    accurate", ACM SIGMETRICS PER 43(2), 2015): the state is :math:`x_{ij}`, the fraction of
    ordered edges ``(u, v)`` with ``Q_u = i``, ``Q_v = j``, and the queue of any other neighbour
    ``w`` of ``u`` is taken with law :math:`x_{il}/p_i` given :math:`Q_u = i` (independent of
    ``Q_v``; exact on trees, so the approximation targets random regular graphs). With
    :math:`g(i,j) = 1_{i<j} + \tfrac12 1_{i=j}` and :math:`h(i) = \sum_l x_{il} g(i,l)/p_i`, the
    vertex ``u`` of the pair ``(u, v)`` gains a task at rate

    .. math:: a(i, j) = \frac{2\lambda}{k} g(i, j) + \frac{2\lambda (k-1)}{k} h(i),

    (arrivals at ``u`` or at ``v`` that compare ``u`` with ``v``, and arrivals at ``u`` or at one of
    its other ``k - 1`` neighbours that compare ``u`` with that neighbour), ``v`` gains at rate
    :math:`a(j, i)`, and each busy queue loses a task at rate 1. For ``k = 1`` (a perfect matching)
    this is the exact two-queue JSQ chain; as ``k -> inf`` it tends to the mean field
    :math:`\dot s_k = \lambda(s_{k-1}^2 - s_k^2) - (s_k - s_{k+1})`.

    The stationary point is found by relaxing the ODE from the mean-field product state and
    polishing with Newton's method (normalisation replacing one equation); the truncation ``K``
    is doubled until :math:`P(Q = K) <` ``tol``. Derived here from the model description; the
    ring (``k = 2``) value at ``lam = 0.7`` is about 1.255 (``MATH.md`` §5).
    """
    k = check_int(k, "k", min_value=1)
    lam = float(_check_lam(lam))
    check_real(tol, "tol", lower=0, upper=1e-3, lower_open=True)
    mf = Supermarket(2, lam)
    K = max(2 * mf.K + 4, 12)
    h = None
    for _ in range(12):
        x, h, iters = _pair_stationary(k, lam, K, h)
        p = x.sum(axis=1)
        if p[-1] < tol:
            break
        K = int(1.5 * K) + 4
    else:
        raise PrecisionError(f"pair_approximation: P(Q = K) = {p[-1]:.3g} stays above tol={tol:g} at K={K}")
    res = float(np.max(np.abs(_pair_drift(x, k, lam))))
    if res > 1e-9:
        raise PrecisionError(f"pair_approximation: drift residual {res:.3g} at the computed point is too large")
    tail = np.cumsum(p[::-1])[::-1]
    return PairApproximationResult(k, lam, float(np.sum(tail[1:])), tail, x, K, res, float(p[-1]),
                                   method=f"pair approximation (Gast 2015), stationary point by "
                                          f"self-consistent linear CTMC solves ({iters} iterations), K={K}")


def _pair_h(x: np.ndarray) -> np.ndarray:
    K1 = x.shape[0]
    idx = np.arange(K1)
    G = np.where(idx[:, None] < idx[None, :], 1.0, np.where(idx[:, None] == idx[None, :], 0.5, 0.0))
    p = x.sum(axis=1)
    return np.where(p > 0, (x * G).sum(axis=1) / np.where(p > 0, p, 1.0), 0.0)


def _pair_stationary(k: int, lam: float, K: int, h0, max_iter: int = 5000):
    """Self-consistent solve: for a given conditional comparison term ``h`` the pair process is a
    linear CTMC on ``{0..K}^2``; solve its stationary law (sparse LU), recompute ``h``, repeat
    (with Anderson-free plain iteration, which contracts here) until ``h`` moves by < 1e-15."""
    import scipy.sparse as sps
    import scipy.sparse.linalg as spla
    K1 = K + 1
    idx = np.arange(K1)
    G = np.where(idx[:, None] < idx[None, :], 1.0, np.where(idx[:, None] == idx[None, :], 0.5, 0.0))
    if h0 is None:
        s = np.array([lam ** (2 ** i - 1) for i in range(K1)] + [0.0])
        h = s[1:] + 0.5 * (s[:-1] - s[1:])
    else:
        h = np.zeros(K1)
        h[: len(h0)] = h0[:K1]
        h[len(h0):] = h0[-1] if len(h0) else 0.0
    I, J = np.meshgrid(idx, idx, indexing="ij")
    st = (I * K1 + J).ravel()
    n = K1 * K1
    x = None
    for it in range(1, max_iter + 1):
        A = (2.0 * lam / k) * G + (2.0 * lam * (k - 1) / k) * h[:, None]
        A[-1, :] = 0.0
        rows, cols, vals = [], [], []
        up_u = (I < K).ravel()
        rows.append(st[up_u]); cols.append(st[up_u] + K1); vals.append(A.ravel()[up_u])
        up_v = (J < K).ravel()
        rows.append(st[up_v]); cols.append(st[up_v] + 1); vals.append(A.T.ravel()[up_v])
        dn_u = (I > 0).ravel()
        rows.append(st[dn_u]); cols.append(st[dn_u] - K1); vals.append(np.ones(dn_u.sum()))
        dn_v = (J > 0).ravel()
        rows.append(st[dn_v]); cols.append(st[dn_v] - 1); vals.append(np.ones(dn_v.sum()))
        r_ = np.concatenate(rows); c_ = np.concatenate(cols); v_ = np.concatenate(vals)
        out = np.bincount(r_, weights=v_, minlength=n)
        # transposed generator Q^T (balance equations pi Q = 0), row 0 replaced by normalisation
        tr = np.concatenate([c_, np.arange(n)])
        tc = np.concatenate([r_, np.arange(n)])
        tv = np.concatenate([v_, -out])
        keep = tr != 0
        tr = np.concatenate([tr[keep], np.zeros(n, dtype=tr.dtype)])
        tc = np.concatenate([tc[keep], np.arange(n)])
        tv = np.concatenate([tv[keep], np.ones(n)])
        M = sps.csc_matrix((tv, (tr, tc)), shape=(n, n))
        rhs = np.zeros(n)
        rhs[0] = 1.0
        pi = spla.spsolve(M, rhs)
        x = np.clip(pi.reshape(K1, K1), 0.0, None)
        x = 0.5 * (x + x.T)
        x /= x.sum()
        h_new = _pair_h(x)
        delta = float(np.max(np.abs(h_new - h)))
        h = h_new
        if delta < 1e-15:
            break
    else:
        raise PrecisionError(f"pair_approximation: self-consistent iteration did not converge at K={K}")
    return x, h, it
