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

This module holds :class:`Supermarket` (the definition, :meth:`Supermarket.drift`, and its closed
forms); beside it are ``symloss.supermarket.drift`` (the definition's drift lambdified and cached on the
instance state, its identity with the shipped drift, the fallback solve and the SymPy proof),
``symloss.supermarket.ode`` (the transient ODE), ``symloss.supermarket.results``
(:class:`SupermarketFixedPoint`, :class:`OdeSolution`) and ``symloss.supermarket.params`` (argument
helpers); their names used here are re-exported.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp

from ..core.certify import DefinitionMismatchWarning
from ..core.precision import (
    DEFAULT_DPS,
    PrecisionError,
    agree_at_two_precisions,
    check_dps,
    rounded,
    working,
)
from ..core.registry import declare_family, dispatch, register_fast_path
from ..core.validation import (
    BudgetError,
    Deadline,
    check_int,
    integer,
    real,
    real_float,
)
from . import drift as _drift, ode as _ode
from .closed_form import CLOSED_FORM
from .drift import MAX_FALLBACK_LEVELS  # noqa: F401 (re-exported)
from .ode import MAX_ODE_LEVELS, MAX_ODE_MP_LEVELS, MAX_ODE_STEPS  # noqa: F401 (re-exported)
from .params import (  # noqa: F401 (re-exported: simulate and distance import them from here)
    MAX_LEVELS,
    _check_d,
    _check_lam,
    _lam_mpf,
    _lam_sympy,
    _log_inv_lam,
    _one_minus_bits,
)
from .results import OdeSolution, SupermarketFixedPoint

__all__ = ["Supermarket", "SupermarketFixedPoint", "OdeSolution", "GRAPH_FAMILIES"]

GRAPH_FAMILIES = ("complete", "random_regular", "erdos_renyi", "ring", "torus")


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

    #: the shipped definition (see ``symloss.supermarket.drift``: only this class itself carries the mark)
    _SHIPPED_DEFINITION = True

    def __init__(self, d, lam, *, tail_tol: float = 1e-15):
        self.d = _check_d(d)
        self.lam = _check_lam(lam)
        self.tail_tol = real_float(tail_tol, "tail_tol", lower=0, upper=0.5, lower_open=True)
        self.K = self.truncation_level(self.tail_tol)

    def __repr__(self) -> str:
        return f"Supermarket(d={self.d}, lam={self.lam!r}, K={self.K}, tail_tol={self.tail_tol:g})"

    # --- closed form ---------------------------------------------------------------------------
    def exponent(self, k: int) -> int:
        """Integer exponent ``e_k = (d^k - 1)/(d - 1) = 1 + d + ... + d^(k-1)`` (``k`` for d = 1).

        Parameters
        ----------
        k : int
            The level, ``k >= 0``.

        Returns
        -------
        int
        """
        return k if self.d == 1 else (self.d ** k - 1) // (self.d - 1)

    def tail_bound(self, K: int):
        """Rigorous upper bound on ``sum_{k > K} s_k^*`` (mpf at the current precision).

        Parameters
        ----------
        K : int
            The last level kept, ``K >= 0``.

        Returns
        -------
        mpmath.mpf
        """
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
        near 1), which only the methods that store ``K`` levels refuse.

        Parameters
        ----------
        tol : real > 0
            The tail tolerance.

        Returns
        -------
        int
        """
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
    symbols = staticmethod(_drift.symbols)

    def drift(self, K: int | None = None, *, symbolic_parameters: bool = False) -> sp.Matrix:
        r"""Right-hand side of the ODE truncated at ``K`` (``s_0 = 1``, ``s_{K+1} = 0``) as a SymPy
        column vector in the symbols :meth:`symbols` ``(K)``.

        ``symbolic_parameters=True`` keeps ``lam`` and ``d`` as symbols.

        Parameters
        ----------
        K : int, optional
            Truncation level (default: the instance's ``K``), at most ``MAX_LEVELS``.
        symbolic_parameters : bool, optional
            Keep ``lam`` and ``d`` as the symbols ``lambda`` and ``d``.

        Returns
        -------
        sympy.Matrix
            ``K`` rows, ``lam (s_{k-1}^d - s_k^d) - (s_k - s_{k+1})``.
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
        """The truncated ODE as a list of ``sympy.Eq(Derivative(s_k(t), t), rhs)``.

        Parameters
        ----------
        K : int, optional
            Truncation level (default: the instance's ``K``).

        Returns
        -------
        list of sympy.Eq
        """
        K = self.K if K is None else check_int(K, "K", min_value=1)
        self._check_levels(K, MAX_LEVELS, "equations")
        t = sp.Symbol("t", nonnegative=True)
        funcs = [sp.Function(f"s_{k}")(t) for k in range(1, K + 1)]
        rhs = self.drift(K).subs(dict(zip(self.symbols(K), funcs)))
        return [sp.Eq(sp.Derivative(f, t), r) for f, r in zip(funcs, rhs)]

    def _numeric_drift(self, K: int, module: str):
        """The lambdified drift of this instance's definition (its own ``drift()``, keyed on its state)."""
        return _drift.definition_drift(self, K, module)

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
        return _drift.symbolic_fixed_point_check()

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

        Parameters
        ----------
        dps : int, optional
            Significant digits of every tail :math:`s_k` and of the mean queue length.

        Returns
        -------
        SupermarketFixedPoint

        Raises
        ------
        PrecisionError, BudgetError
            When the definition's own fixed point cannot be certified (fallback).
        """
        dps = check_dps(dps)
        proof = self.symbolic_check()
        tol = min(mpmath.mpf(self.tail_tol), mpmath.mpf(10) ** (-(dps + 5)))
        K = max(self.K, self.truncation_level(tol))
        self._check_levels(K, MAX_LEVELS, "fixed_point")
        ans, used = dispatch("supermarket", self, _fallback, args=(K, dps, tol), warning=DefinitionMismatchWarning,
                             mismatch=_MISMATCH, rejected=_REJECTED)
        if used is None:
            return ans
        return SupermarketFixedPoint(self.d, self.lam, tuple(rounded(x, dps) for x in ans["s"]), K,
                                     rounded(ans["tail_bound"], 5), rounded(ans["residual"], 5),
                                     rounded(ans["mean_queue_length"], dps), bool(proof["proved"]), dps)

    def _solve_definition(self, K: int, dps: int, tol) -> SupermarketFixedPoint:
        """Solve ``drift(K) = 0`` of this definition (fallback of :meth:`fixed_point`)."""
        return _drift.solve_definition(self, K, dps, tol)

    def _closed_form_applies(self) -> bool:
        """The closed-form shortcuts hold: this class's drift() is the shipped one (exact identity)."""
        return type(self) is Supermarket or CLOSED_FORM.applies(self)[0]

    def mean_queue_length(self, dps: int = DEFAULT_DPS):
        r"""Stationary mean number of tasks per server :math:`E[Q] = \sum_{k\ge1} s_k`, to ``dps`` digits.

        The series is summed until the rigorous tail bound is below :math:`10^{-(dps+5)} E[Q]`;
        the value is confirmed at two working precisions.

        Parameters
        ----------
        dps : int, optional
            Significant digits.

        Returns
        -------
        mpmath.mpf
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
        r"""Stationary mean sojourn (response) time :math:`E[T] = E[Q]/\lambda` (Little's law).

        Parameters
        ----------
        dps : int, optional
            Significant digits (both :math:`E[Q]` and the quotient are confirmed at two precisions).

        Returns
        -------
        mpmath.mpf
        """
        dps = check_dps(dps)

        def compute(w):
            with mpmath.workdps(w):
                mql = self.mean_queue_length(w)
                with self._lam_precision():
                    return mql / _lam_mpf(self.lam)
        return agree_at_two_precisions(compute, dps, what="sojourn time")

    def delay_probability(self, dps: int = DEFAULT_DPS):
        r"""Stationary probability that an arriving task has to wait: in the mean field it joins a
        busy queue iff all ``d`` sampled queues are busy, :math:`s_1^d = \lambda^d`.

        Parameters
        ----------
        dps : int, optional
            Significant digits of :math:`s_1^d`.

        Returns
        -------
        mpmath.mpf
        """
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
        s0v = _ode.check_s0(s0)
        tt = _ode.check_times(t)
        if dps is not None:
            dps = check_dps(dps)
        max_steps = integer(max_steps, "max_steps", min_value=1)
        deadline = Deadline(max_seconds, "Supermarket.ode")
        return _ode.solve_ode(self, s0v, tt, dps, rtol, atol, max_steps, deadline)

    def _ode_float(self, s0v, tt, K, rtol, atol, deadline=None) -> OdeSolution:
        return _ode.ode_float(self, s0v, tt, K, rtol, atol, deadline)

    def _ode_mp(self, s0v, tt, K, dps, deadline=None) -> OdeSolution:
        return _ode.ode_mp(self, s0v, tt, K, dps, deadline)


#: the texts of the two warnings of :meth:`Supermarket.fixed_point` (:func:`symloss.core.registry.dispatch`)
_MISMATCH = ("{subject.__class__.__name__}.drift() differs from the equations of the closed form "
             "s_k = lam^((d^k-1)/(d-1)) ({reason}); solving the definition's own truncated equations instead")
_REJECTED = ("{subject.__class__.__name__}.drift() is not solved by the closed form s_k = lam^((d^k-1)/(d-1)) "
             "({reason}); solving the definition's own truncated equations instead")


def _fallback(m, K, dps, tol):
    """The generic solver of :meth:`Supermarket.fixed_point`: the definition's truncated equations."""
    return m._solve_definition(K, dps, tol)


# the supermarket family in the one fast-path registry: the closed form answers for the shipped drift
declare_family("supermarket", Supermarket)
register_fast_path("supermarket", Supermarket, CLOSED_FORM)
