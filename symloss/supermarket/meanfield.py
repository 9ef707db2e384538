r"""Supermarket model on graphs (Budhiraja, Mukherjee and Wu 2019): mean field, pair approximation, graphs and simulation.

Model. Single-server FIFO queues with infinite buffers sit on the ``N`` vertices of a graph. Tasks
arrive at every vertex ``v`` as a Poisson process of rate ``lam < 1``; a task arriving at ``v`` joins
the shortest queue among ``v`` and ``d - 1`` neighbours of ``v`` drawn uniformly at random (ties
broken uniformly at random), and service times are unit-rate exponential.

Mean field (complete graph, ``N -> inf``; Mitzenmacher 1996, Vvedenskaya-Dobrushin-Karpelevich
1996): the tail fractions ``s_k`` (fraction of servers with at least ``k`` tasks, ``s_0 = 1``) obey

.. math::  \dot s_k = \lambda (s_{k-1}^d - s_k^d) - (s_k - s_{k+1}), \qquad k \ge 1,

with the fixed point :math:`s_k = \lambda^{(d^k - 1)/(d - 1)}` (``s_k = lam^k`` for ``d = 1``).
Budhiraja, Mukherjee and Wu ("Supermarket model on graphs", Ann. Appl. Probab. 2019) prove
the same limit when the minimum degree tends to infinity (max/min degree ratio -> 1 in each
component), and for Erdos-Renyi graphs with mean degree ``c(N) -> inf`` (annealed) or
``c(N)/ln N -> inf`` (quenched). For fixed degree the limit differs; :func:`pair_approximation`
(N. Gast, "The power of two choices on graphs: the pair-approximation is accurate", 2015) refines it.

Public names: :class:`Supermarket`, :func:`make_graph`, :func:`simulate_supermarket`,
:func:`ode_distance`, :func:`pair_approximation` and their result dataclasses.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ..core.precision import (
    DEFAULT_DPS,
    PrecisionError,
    agree_at_two_precisions,
    check_dps,
    rounded,
    working,
)
from ..core.certify import DefinitionMismatchWarning
from ..core.identity import state_key
from ..core.results import ResultMixin
from ..core.validation import (
    BudgetError,
    Deadline,
    check_int,
    check_real,
    integer,
    real,
    real_array,
    real_float,
)

__all__ = ["Supermarket", "SupermarketFixedPoint", "OdeSolution", "GRAPH_FAMILIES"]

GRAPH_FAMILIES = ("complete", "random_regular", "erdos_renyi", "ring", "torus")
MAX_LEVELS = 100_000        # fixed_point / drift / equations: at most this many levels s_1..s_K
MAX_FALLBACK_LEVELS = 40    # fixed_point fallback (definition != closed form): dense mpmath Newton
MAX_ODE_LEVELS = 2_000      # ode(): float path (the lambdified drift of K levels)
MAX_ODE_MP_LEVELS = 300     # ode(dps=...): mpmath Taylor integrator
MAX_ODE_STEPS = 10 ** 6     # ode(): explicit steps, estimated as 2 (d + 1) t_end


# --------------------------------------------------------------------------------------------------
# argument helpers
# --------------------------------------------------------------------------------------------------

def _check_lam(lam, name: str = "lam"):
    """``lam`` in (0, 1), exactly (int, float, Fraction, mpf; decimal strings such as ``"0.7"`` or
    ``"7/10"`` and numpy/flint/SymPy/Decimal numbers are converted exactly)."""
    try:
        v = real(lam, name, allow_str=True, lower=0, lower_open=True)
    except ValueError as exc:
        if isinstance(lam, str):
            raise ValueError(f"{name} must be a real number in (0, 1) such as 0.7 or 7/10, got {lam!r}") from exc
        raise
    if v >= 1:
        shown = str(v) if isinstance(v, Fraction) else repr(lam)
        raise ValueError(f"{name} must be in (0, 1): {name}={shown} >= 1 means the arrival rate per "
                         f"server is at least the service rate 1, so the system is unstable "
                         f"(queues grow without bound and there is no stationary regime)")
    return v


def _check_d(d) -> int:
    return check_int(d, "d", min_value=1)


def _lam_mpf(lam):
    """``lam`` as an mpf at the current working precision (exact for Fraction / int / str)."""
    if isinstance(lam, Fraction):
        return mpmath.mpf(lam.numerator) / lam.denominator
    if isinstance(lam, sp.Basic):
        return mpmath.mpf(sp.N(lam, mpmath.mp.dps + 5))
    return mpmath.mpf(lam)


def _one_minus_bits(lam) -> int:
    """Bits needed to resolve ``1 - lam`` (so that log(lam) keeps ~60 significant bits)."""
    if isinstance(lam, mpmath.mpf):
        with mpmath.workprec(max(64, lam.context.prec if hasattr(lam, "context") else 64) + 64):
            gap = mpmath.fsub(1, lam, exact=True)
        return max(0, -int(mpmath.floor(mpmath.log(gap, 2)))) if gap > 0 else 0
    g = 1 - Fraction(lam)
    return max(0, g.denominator.bit_length() - g.numerator.bit_length() + 1)


def _log_inv_lam(lam):
    """``-log(lam) > 0`` as an mpf with ~20 correct digits, however close ``lam`` is to 1 or 0."""
    bits = _one_minus_bits(lam)
    with mpmath.workprec(96 + bits):
        if isinstance(lam, mpmath.mpf):
            gap = mpmath.fsub(1, lam, exact=True)
        else:
            g = 1 - Fraction(lam)
            gap = mpmath.mpf(g.numerator) / g.denominator
        L = -mpmath.log1p(-gap) if gap < 0.5 else -mpmath.log(_lam_mpf(lam))
    return +L


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
class SupermarketFixedPoint(ResultMixin):
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
class OdeSolution(ResultMixin):
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
    tail_max_exact: Any = field(default=None, repr=False)   # mpf with dps (no float underflow)

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
        Tail tolerance (default ``1e-15``): the truncation level ``K`` is the least ``K`` with
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
        self.tail_tol = real_float(tail_tol, "tail_tol", lower=0, upper=0.5, lower_open=True)
        self.K = self.truncation_level(self.tail_tol)

    def __repr__(self) -> str:
        return f"Supermarket(d={self.d}, lam={self.lam!r}, K={self.K}, tail_tol={self.tail_tol:g})"

    # --- closed form ---------------------------------------------------------------------------
    def exponent(self, k: int) -> int:
        """Integer exponent ``e_k = (d^k - 1)/(d - 1) = 1 + d + ... + d^(k-1)`` (``k`` for d = 1)."""
        return k if self.d == 1 else (self.d ** k - 1) // (self.d - 1)

    def tail_bound(self, K: int):
        """Rigorous upper bound on ``sum_{k > K} s_k^*`` (mpf at the current precision)."""
        K = integer(K, "K", min_value=0)
        with mpmath.workprec(max(mpmath.mp.prec, 64 + _one_minus_bits(self.lam))):
            lam = _lam_mpf(self.lam)
            L = _log_inv_lam(self.lam)
            s_next = mpmath.exp(-L * self.exponent(K + 1))
            ratio = mpmath.exp(-L * (self.d ** (K + 1))) if self.d > 1 else lam
            out = s_next / (1 - ratio) if ratio < 1 else mpmath.inf
        return +out

    def _log_tail_bound(self, K: int, prec: int = 96):
        """log of :meth:`tail_bound` (no underflow for deep levels) at ``prec`` bits."""
        with mpmath.workprec(prec):
            L = _log_inv_lam(self.lam)
            lr = -L * (self.d ** (K + 1) if self.d > 1 else 1)      # log ratio < 0
            return -L * self.exponent(K + 1) - mpmath.log(-mpmath.expm1(lr))

    def truncation_level(self, tol) -> int:
        """Least ``K >= 1`` with :meth:`tail_bound` ``(K) <= tol``.

        Closed form for ``d = 1`` (``K ~ log(1/(tol (1 - lam)))/log(1/lam)``, evaluated with enough
        bits to fix every digit of ``K`` and then adjusted by at most a few exact comparisons), a
        short scan for ``d >= 2`` (the bound falls doubly exponentially), so this is instant for
        every ``lam`` in (0, 1) and every ``tol > 0``; ``K`` itself may be huge (``d = 1``, ``lam``
        near 1), which only the methods that store ``K`` levels refuse."""
        tol = real(tol, "tol", lower=0, lower_open=True)
        with mpmath.workprec(96):
            ltol = mpmath.log(_lam_mpf(tol) if not isinstance(tol, Fraction) else
                              mpmath.mpf(tol.numerator) / tol.denominator)
        if self.d == 1:
            with mpmath.workprec(96):
                L = _log_inv_lam(self.lam)
                K0 = (-ltol - mpmath.log(-mpmath.expm1(-L))) / L
            prec = 96 + max(0, int(mpmath.log(abs(K0) + 2, 2)))
            with mpmath.workprec(prec):
                L = _log_inv_lam(self.lam)
                K0 = (-ltol - mpmath.log(-mpmath.expm1(-L))) / L
                K = max(1, int(mpmath.ceil(K0)) - 1)
            for _ in range(64):
                if K > 1 and self._log_tail_bound(K - 1, prec) <= ltol:
                    K -= 1
                elif self._log_tail_bound(K, prec) > ltol:
                    K += 1
                else:
                    return K
            raise PrecisionError("truncation_level did not settle")  # pragma: no cover
        K = 1
        while self._log_tail_bound(K) > ltol:
            K += 1
        return K

    def _lam_precision(self):
        """Context: the current precision plus the bits that resolve ``1 - lam`` and ``lam`` itself
        (so that powers ``lam^e`` with huge ``e`` keep their relative accuracy)."""
        # resolve 1 - lam (near 1) and absorb the amplification of lam's rounding by exponents up
        # to ~ log(1/tol)/(1 - lam): twice the bits of 1/(1 - lam), plus a margin
        return mpmath.workprec(mpmath.mp.prec + 2 * _one_minus_bits(self.lam) + 48)

    def _check_levels(self, K: int, limit: int, what: str) -> None:
        if K > limit:
            raise BudgetError(f"Supermarket(d={self.d}, lam={self.lam!r}).{what}: needs K={K} levels for the "
                              f"tail tolerance, more than the limit {limit} (the tail of s_k = lam^k decays "
                              f"slowly for d = 1 and lam near 1); use mean_queue_length() (closed form), or "
                              f"a larger tail_tol")

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
        self._check_levels(K, MAX_LEVELS, "drift")
        s = (sp.Integer(1),) + tuple(self.symbols(K)) + (sp.Integer(0),)
        if symbolic_parameters:
            lam = sp.Symbol("lambda", positive=True)
            d = sp.Symbol("d", positive=True, integer=True)
        else:
            lam, d = _lam_sympy(self.lam), sp.Integer(self.d)
        return sp.Matrix([lam * (s[k - 1] ** d - s[k] ** d) - (s[k] - s[k + 1]) for k in range(1, K + 1)])

    def equations(self, K: int | None = None) -> list:
        """The truncated ODE as a list of ``sympy.Eq(Derivative(s_k(t), t), rhs)``."""
        K = self.K if K is None else check_int(K, "K", min_value=1)
        self._check_levels(K, MAX_LEVELS, "equations")
        t = sp.Symbol("t", nonnegative=True)
        funcs = [sp.Function(f"s_{k}")(t) for k in range(1, K + 1)]
        rhs = self.drift(K).subs(dict(zip(self.symbols(K), funcs)))
        return [sp.Eq(sp.Derivative(f, t), r) for f, r in zip(funcs, rhs)]

    def _numeric_drift(self, K: int, module: str):
        """The lambdified drift of this instance's definition (its own ``drift()``, keyed on its state)."""
        return _definition_drift(self, K, module)

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
        r"""Fixed point of the definition :meth:`drift` to ``dps`` digits, with the residual of the
        truncated drift and a bound on the neglected tail.

        Fast path: the closed form :math:`s_k = \lambda^{(d^k-1)/(d-1)}` (proved by
        :meth:`symbolic_check` for the shipped equations). It is returned only after it has been
        verified on the definition's own equations: the lambdified :meth:`drift` ``(K)`` (mpmath, at
        the working precision) must vanish at it to :math:`10^{-(dps+2)} s_k` in every row
        :math:`k < K`, and row ``K`` (where the truncation sets :math:`s_{K+1} = 0`) to the closed-form
        tail :math:`s_{K+1}`. If a subclass edited :meth:`drift` so that the closed form fails, a
        :class:`~symloss.core.certify.DefinitionMismatchWarning` is issued and the definition's
        truncated equations are solved instead (homotopy from the shipped drift to the definition,
        Newton in log variables ``y_k = log s_k`` at ``dps + 10`` digits, checked at two truncation
        levels); if that fails, or the solution is not a tail vector (``1 >= s_1 >= s_2 >= ... > 0``
        with a small last level), :class:`~symloss.core.precision.PrecisionError` is raised.
        """
        dps = check_dps(dps)
        proof = self.symbolic_check()
        tol = min(mpmath.mpf(self.tail_tol), mpmath.mpf(10) ** (-(dps + 5)))
        K = max(self.K, self.truncation_level(tol))
        self._check_levels(K, MAX_LEVELS, "fixed_point")
        with working(dps), self._lam_precision():
            lam = _lam_mpf(self.lam)
            s = [lam ** self.exponent(k) for k in range(K + 2)]
            s_next = s[K + 1]
            s = s[:K + 1]
            F = _definition_drift(self, K, "mpmath")
            rows = list(F(*s[1:]))
            eps = mpmath.mpf(10) ** (-(dps + 2))
            ok = all(abs(rows[k - 1]) <= eps * s[k] for k in range(1, K)) and \
                abs(rows[K - 1]) <= s_next * (1 + eps) + eps * s[K]
            if ok:
                res = max(abs(r) for r in rows)
                tb = self.tail_bound(K)
                mql = mpmath.fsum(s[1:])
        if ok:
            same = _definition_is_shipped(self, min(K, 6))
            return SupermarketFixedPoint(self.d, self.lam, tuple(rounded(x, dps) for x in s), K,
                                         rounded(tb, 5), rounded(res, 5), rounded(mql, dps),
                                         bool(proof["proved"]) and same, dps)
        warnings.warn(f"{type(self).__name__}.drift() differs from the equations of the closed form "
                      f"s_k = lam^((d^k-1)/(d-1)) (residual {mpmath.nstr(max(abs(r) for r in rows), 3)} at "
                      f"K={K}); solving the definition's own truncated equations instead",
                      DefinitionMismatchWarning, stacklevel=2)
        return self._solve_definition(K, dps, tol)

    def _solve_definition(self, K: int, dps: int, tol) -> SupermarketFixedPoint:
        """Solve ``drift(K) = 0`` of this definition (fallback of :meth:`fixed_point`)."""
        if K + max(2, K // 4) > MAX_FALLBACK_LEVELS:
            raise BudgetError(f"{type(self).__name__}.fixed_point: the closed form does not solve this "
                              f"drift() and the fallback (dense Newton in mpmath) is limited to "
                              f"{MAX_FALLBACK_LEVELS} levels; this needs K={K} (use a larger tail_tol or "
                              f"a smaller dps)")
        sols = []
        for KK in (K, K + max(2, K // 4)):
            self._check_levels(KK, MAX_LEVELS, "fixed_point")
            sols.append(_newton_definition(self, KK, dps + 10))
        s, s2 = sols
        with working(dps + 10):
            diff = max(abs(a - b) / b for a, b in zip(s[1:], s2[1:K + 1]))
            if diff > mpmath.mpf(10) ** (-(dps + 1)):
                raise PrecisionError(f"{type(self).__name__}.fixed_point: the definition's truncated fixed "
                                     f"point changes by {mpmath.nstr(diff, 3)} (relative) between K={K} and "
                                     f"K={len(s2) - 1} levels: the tail is not negligible at {dps} digits")
            if s2[-1] > tol or s[K] > mpmath.sqrt(tol):
                raise PrecisionError(f"{type(self).__name__}.fixed_point: the definition's fixed point keeps "
                                     f"mass at the last level (s_K={mpmath.nstr(s2[-1], 3)}); not a "
                                     f"stationary tail vector within {len(s2) - 1} levels")
            F = _definition_drift(self, K, "mpmath")
            res = max(abs(r) for r in F(*s[1:]))
            mql = mpmath.fsum(s[1:])
            # evidence (not a rigorous bound): the two truncations agree; the neglected tail is
            # bounded by the values beyond K at the deeper truncation plus its last level
            tb = mpmath.fsum(s2[K + 1:]) + s2[-1]
        return SupermarketFixedPoint(self.d, self.lam, tuple(rounded(x, dps) for x in s), K,
                                     rounded(tb, 5), rounded(res, 5), rounded(mql, dps), False, dps,
                                     method=f"definition's drift() solved (homotopy + Newton in log s at "
                                            f"{dps + 10} digits), truncations K={K} and K={len(s2) - 1} agree; "
                                            f"the closed form was rejected")

    def _closed_form_applies(self) -> bool:
        """The closed-form shortcuts hold: this class's drift() is the shipped one (exact identity)."""
        return type(self) is Supermarket or _definition_is_shipped(self, min(self.K, 6))

    def mean_queue_length(self, dps: int = DEFAULT_DPS):
        r"""Stationary mean number of tasks per server :math:`E[Q] = \sum_{k\ge1} s_k`, to ``dps`` digits.

        The series is summed until the rigorous tail bound is below :math:`10^{-(dps+5)} E[Q]`;
        the value is confirmed at two working precisions.
        """
        dps = check_dps(dps)
        if not self._closed_form_applies():
            return self.fixed_point(dps).mean_queue_length       # an edited drift(): its own fixed point

        def compute(w):
            with mpmath.workdps(w), self._lam_precision():
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
                mql = self.mean_queue_length(w)
                with self._lam_precision():
                    return mql / _lam_mpf(self.lam)
        return agree_at_two_precisions(compute, dps, what="sojourn time")

    def delay_probability(self, dps: int = DEFAULT_DPS):
        r"""Stationary probability that an arriving task has to wait: in the mean field it joins a
        busy queue iff all ``d`` sampled queues are busy, :math:`s_1^d = \lambda^d`."""
        dps = check_dps(dps)
        if not self._closed_form_applies():                     # an edited drift(): its own s_1
            s1 = self.fixed_point(dps).s[1]
            with working(dps):
                return rounded(s1 ** self.d, dps)
        with working(dps), self._lam_precision():
            return rounded(_lam_mpf(self.lam) ** self.d, dps)

    # --- transient -----------------------------------------------------------------------------
    def ode(self, s0=None, t=10.0, *, dps: int | None = None, rtol: float = 1e-10,
            atol: float = 1e-13, max_steps: int = MAX_ODE_STEPS, max_seconds=None) -> OdeSolution:
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
            precision (values in the ``s_mp`` field of the returned ``OdeSolution``).
        max_steps : int
            Budget of the explicit integrator, estimated up front as ``2 (d + 1) t_end`` steps
            (default ``10**6``): a longer horizon is refused at once (the solution is at the fixed
            point long before: use :meth:`fixed_point`).
        max_seconds : float, optional
            Wall-clock budget (:class:`~symloss.core.validation.TimeLimitExceeded`), checked at every
            evaluation of the right-hand side.

        The truncation level starts at ``max(K + 1, len(s0) + 1)`` and is doubled until the largest
        value of ``s_K`` over the time range is below the tail tolerance (``tail_tol``, or
        ``10^-(dps+5)`` with ``dps``); at most ``2000`` levels (``300`` with ``dps``).
        """
        s0v = _check_s0(s0)
        tt = _check_times(t)
        if dps is not None:
            dps = check_dps(dps)
        max_steps = integer(max_steps, "max_steps", min_value=1)
        deadline = Deadline(max_seconds, "Supermarket.ode")
        steps = 2.0 * (self.d + 1) * float(tt[-1])
        if steps > max_steps:
            raise BudgetError(f"Supermarket.ode: t_end={float(tt[-1]):g} needs about {steps:.3g} explicit steps, "
                              f"more than max_steps={max_steps}; the ODE reaches its fixed point long before "
                              f"(use fixed_point()), or raise max_steps")
        if dps is None:
            tol = mpmath.mpf(self.tail_tol)
        else:
            tol = min(mpmath.mpf(self.tail_tol), mpmath.mpf(10) ** (-(dps + 5)))
        K = max(self.K + 1, len(s0v) + 1, self.truncation_level(tol) + 1 if dps is not None else 0)
        limit = MAX_ODE_LEVELS if dps is None else MAX_ODE_MP_LEVELS
        for _ in range(8):
            self._check_levels(K, limit, "ode" if dps is None else "ode(dps=...)")
            if dps is None:
                sol = self._ode_float(s0v, tt, K, rtol, atol, deadline)
            else:
                sol = self._ode_mp(s0v, tt, K, dps, deadline)
            if sol.tail_max_exact <= tol:
                sol.tail_tol = float(tol) if float(tol) > 0 else 0.0
                return sol
            K *= 2
        raise PrecisionError(f"ODE truncation: s_K(t) stays above the tail tolerance {mpmath.nstr(tol, 3)} "
                             f"even at K={K}; the initial state has too heavy a tail for t <= {tt[-1]}")

    def _ode_float(self, s0v, tt, K, rtol, atol, deadline=None) -> OdeSolution:
        from scipy.integrate import solve_ivp
        f = self._numeric_drift(K, "numpy")
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
        sol = OdeSolution(np.asarray(tt, float), S, K, float(np.max(np.abs(S[:, -1]))), self.tail_tol,
                          f"scipy solve_ivp DOP853 rtol={rtol:g} atol={atol:g}, truncated at K={K}")
        sol.tail_max_exact = sol.tail_max
        return sol

    def _ode_mp(self, s0v, tt, K, dps, deadline=None) -> OdeSolution:
        f = self._numeric_drift(K, "mpmath")

        def rhs(_t, y):
            if deadline is not None:
                deadline.check(f"mpmath odefun at t={mpmath.nstr(_t, 6)}")
            return list(f(*y))

        def compute(w):
            with mpmath.workdps(w):
                y0 = [mpmath.mpf(0)] * K
                for i, x in enumerate(s0v[1:]):
                    y0[i] = mpmath.mpf(x) if not isinstance(x, Fraction) else mpmath.mpf(x.numerator) / x.denominator
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
        sol = OdeSolution(np.asarray(tt, float), S, K, float(np.max(np.abs(S[:, -1]))), self.tail_tol,
                          f"mpmath odefun (Taylor series) at {dps} digits, two precisions, K={K}",
                          dps=dps, s_mp=s_mp)
        sol.tail_max_exact = max(abs(row[-1]) for row in s_mp)     # mpf: no underflow below 1e-308
        return sol


def _lam_key(lam):
    """Hashable exact key for the lambdify cache."""
    return str(_lam_sympy(lam))


@lru_cache(maxsize=64)
def _lambdified_drift(d: int, lam_key: str, K: int, module: str):
    m = Supermarket.__new__(Supermarket)
    m.d, m.lam = d, Fraction(lam_key)
    return sp.lambdify(Supermarket.symbols(K), list(m.drift(K)), modules=module)


def _drift_key(m: "Supermarket", K: int, module: str):
    """The identity of ``m.drift(K)``: the complete state of the instance (every attribute and the
    code of every class in its MRO, :func:`symloss.core.identity.state_key`), or the drift itself
    when a value has no canonical form; never the class and ``(d, lam)`` alone (a subclass with extra
    state would share another instance's numbers)."""
    sk = state_key(m)
    if sk is None:
        sk = ("drift", tuple(m.drift(K)))
    return (sk, K, module)


_DEF_CACHE: dict = {}


def _definition_drift(m: "Supermarket", K: int, module: str):
    """The lambdified drift of *this* definition (``type(m).drift``; a subclass or an edited method gets
    its own entry)."""
    key = _drift_key(m, K, module)
    f = _DEF_CACHE.get(key)
    if f is None:
        if type(m) is Supermarket:
            f = _lambdified_drift(m.d, _lam_key(m.lam), K, module)
        else:
            f = sp.lambdify(Supermarket.symbols(K), list(m.drift(K)), modules=module)
        if len(_DEF_CACHE) > 256:
            _DEF_CACHE.clear()
        _DEF_CACHE[key] = f
    return f


def _definition_is_shipped(m: "Supermarket", K: int) -> bool:
    """Exact SymPy identity of the definition's drift with the shipped one (truncation ``K``)."""
    if type(m) is Supermarket:
        return True
    key = ("same",) + _drift_key(m, K, "")
    v = _DEF_CACHE.get(key)
    if v is None:
        diff = (m.drift(K) - Supermarket.drift(m, K)).applyfunc(sp.expand)
        v = _DEF_CACHE[key] = all(e == 0 for e in diff)
    return v


def _newton_definition(m: "Supermarket", K: int, w: int):
    """Zero of the definition's ``drift(K)`` in ``y = log s`` at ``w`` digits, by homotopy
    ``H(t) = (1 - t) drift_shipped + t drift_definition`` from the closed form (``t = 0``)."""
    syms = Supermarket.symbols(K)
    key = ("newton",) + _drift_key(m, K, "")
    fns = _DEF_CACHE.get(key)
    if fns is None:
        Fd = m.drift(K)
        Fs = Supermarket.drift(m, K)
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


def _check_times(t):
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
