r"""Mean-field models of load balancing between N loss stations of capacity C (seed 000).

Each policy is defined **once**, by its density-dependent transitions (jump vector, rate per server
as a SymPy expression of the occupancy state and the load ``rho``; service rate ``mu = 1``). The
drift, the stationary equations, the Jacobian, the polynomial system and the mpmath / numpy
evaluators are all generated from that one definition.

* :class:`RandomRouting` (``d = 1``): each server is an M/M/C/C station with load ``rho``.
* :class:`RetrialOfD`: a job tries up to ``d`` uniformly chosen servers; with ``p = x_C`` the
  fraction of full servers, a non-full server receives Poisson input of rate
  :math:`\Lambda = \rho (1 - p^d)/(1 - p) = \rho (1 + p + \dots + p^{d-1})`, so

  .. math:: p = E\left(C, \rho \frac{1 - p^d}{1 - p}\right), \qquad B_{ret}(d) = p^d.

* :class:`PowerOfD` (JSQ(d), ``d`` samples with replacement): tails ``u_k``,

  .. math:: \dot u_k = \rho (u_{k-1}^d - u_k^d) - k (u_k - u_{k+1}), \qquad B_{pod}(d) = u_C^d.

* :class:`JSQ` (join the shortest queue): fluid blocking :math:`\max(0, 1 - C/\rho)`.

Numerics: the fixed point is reduced to one scalar equation (Erlang-B for retrial, shooting on
``s = u_C`` for power-of-d), solved by safeguarded Newton in python-flint ``arb`` arithmetic, and
**certified**: ball evaluation shows a sign change of the scalar equation at
:math:`s (1 \pm 10^{-dps-2})`, so a fixed point lies in that bracket and the blocking (monotone in the
unknown) is known to ``dps`` digits also far below the float range. The residual of the symbolic
drift at the returned point is reported.

Source: seeds/000_23f33c6a2eab69fc.txt; MATH.md section 2.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from flint import arb

from ..core.precision import (
    DEFAULT_DPS,
    PrecisionError,
    arb_relative_accuracy_ok,
    arb_to_mpf,
    check_dps,
    dps_to_prec,
    flint_prec,
    rounded,
    to_arb,
)
from ..core.results import ResultMixin
from ..core.validation import check_int, check_real

__all__ = ["RandomRouting", "RetrialOfD", "PowerOfD", "JSQ", "FixedPointResult", "OdeResult"]

RHO = sp.Symbol("rho", positive=True)
BSYM = sp.Symbol("B", positive=True)
_MAX_PREC = 1 << 16


def _check_rho(rho):
    return check_real(rho, "rho", lower=0, lower_open=True)


@dataclass
class FixedPointResult(ResultMixin):
    """A certified mean-field fixed point.

    Attributes
    ----------
    model : str
    rho : mpf
    x : list of mpf - the occupancy vector in the order of ``model.variables``
    blocking : mpf - stationary blocking probability, ``dps`` significant digits
    blocking_bracket : (mpf, mpf) - rigorous enclosure of the blocking of the fixed point in the bracket
    residual : mpf - max-norm of the symbolic drift at ``x`` (evaluated at the working precision)
    method : str
    dps : int
    """
    model: str
    rho: Any
    x: list
    blocking: Any
    blocking_bracket: tuple
    residual: Any
    method: str
    dps: int
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        n = self.dps
        return {"model": self.model, "rho": mpmath.nstr(self.rho, n), "x": [mpmath.nstr(v, n) for v in self.x],
                "blocking": mpmath.nstr(self.blocking, n),
                "blocking_bracket": [mpmath.nstr(v, n + 3) for v in self.blocking_bracket],
                "residual": mpmath.nstr(self.residual, 5), "method": self.method, "dps": n,
                **{k: (mpmath.nstr(v, n) if isinstance(v, mpmath.mpf) else v) for k, v in self.extra.items()}}

    def __repr__(self) -> str:
        return (f"FixedPointResult({self.model}, rho={mpmath.nstr(self.rho, 8)}, "
                f"blocking={mpmath.nstr(self.blocking, min(self.dps, 20))}, "
                f"residual={mpmath.nstr(self.residual, 3)}, method={self.method!r})")


@dataclass
class OdeResult(ResultMixin):
    """Trajectories of the mean-field ODE: ``t`` (n_t,), ``x`` (n_t, n_vars), ``blocking`` (n_t,)."""
    t: np.ndarray
    x: np.ndarray
    blocking: np.ndarray
    variables: tuple
    success: bool
    message: str

    def to_dict(self) -> dict:
        return {"t": self.t.tolist(), "x": self.x.tolist(), "blocking": self.blocking.tolist(),
                "variables": [str(v) for v in self.variables], "success": self.success}


_SHARED: dict = {}


class _shared_property:
    """Like ``functools.cached_property``, but the value is shared by every instance with the same
    ``(class, C, d)``: symbolic derivations and lambdified evaluators are built once per model."""

    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        key = (type(obj).__name__, obj.C, obj.d, self.name)
        if key not in _SHARED:
            _SHARED[key] = self.fn(obj)
        return _SHARED[key]


class _MeanFieldModel:
    """Common machinery: everything is derived from :meth:`transitions`.

    Symbolic objects and lambdified evaluators are built once per ``(policy, C, d)`` and shared by
    all instances (a model is immutable)."""

    name = "model"

    def __init__(self, C, d=1):
        self.C = check_int(C, "C", min_value=1, max_value=100_000)
        self.d = check_int(d, "d", min_value=1, max_value=64)
        self.rho = RHO

    # ---- the one definition ----------------------------------------------------------------------
    def transitions(self) -> list:
        """List of ``(jump, rate)``: from state ``x`` the system jumps to ``x + jump/N`` at rate
        ``N * rate(x)`` (density-dependent population process, service rate 1)."""
        raise NotImplementedError

    def blocking_expr(self) -> sp.Expr:
        raise NotImplementedError

    # ---- derived symbolic objects ------------------------------------------------------------------
    def drift(self) -> sp.Matrix:
        """Mean-field drift :math:`f(x) = \\sum_\\ell \\ell \\beta_\\ell(x)` (SymPy column Matrix)."""
        return self._drift

    @_shared_property
    def _drift(self):
        n = len(self.variables)
        f = sp.zeros(n, 1)
        for jump, rate in self.transitions():
            f += jump * rate
        return f.applyfunc(sp.expand)

    def jacobian(self) -> sp.Matrix:
        return self._drift.jacobian(sp.Matrix(self.variables))

    def stationary_equations(self) -> list:
        """``drift = 0`` (plus the normalisation where the state is a distribution)."""
        eqs = [sp.Eq(e, 0) for e in self._drift]
        return eqs + self._constraints()

    def _constraints(self) -> list:
        return []

    def polynomial_system(self) -> list:
        """Polynomials (in ``variables``, ``rho`` and the blocking symbol ``B``) whose common zeros
        with all variables in [0, 1] are the fixed points: stationary equations, constraints and
        ``B - blocking``."""
        polys = [sp.numer(sp.together(e.lhs - e.rhs)) for e in self.stationary_equations()]
        polys.append(BSYM - self.blocking_expr())
        return [sp.expand(p) for p in polys if sp.expand(p) != 0]

    @_shared_property
    def _mp_drift(self):
        return sp.lambdify(list(self.variables) + [RHO], list(self._drift), modules="mpmath")

    @_shared_property
    def _np_drift(self):
        return sp.lambdify(list(self.variables) + [RHO], list(self._drift), modules="numpy")

    @_shared_property
    def _np_jac(self):
        return sp.lambdify(list(self.variables) + [RHO], self.jacobian(), modules="numpy")

    @_shared_property
    def _np_blocking(self):
        return sp.lambdify(list(self.variables), self.blocking_expr(), modules="numpy")

    def drift_residual(self, x, rho):
        """Max-norm of the drift at ``x`` (mpmath, current precision)."""
        vals = self._mp_drift(*x, rho)
        return max(abs(v) for v in vals)

    # ---- numerics --------------------------------------------------------------------------------
    def fixed_point(self, rho, *, dps: int = DEFAULT_DPS) -> FixedPointResult:
        """The certified mean-field fixed point at load ``rho`` (see the module docstring)."""
        _check_rho(rho)
        dps = check_dps(dps)
        return self._fixed_point(rho, dps)

    def blocking(self, rho, *, dps: int = DEFAULT_DPS):
        """Stationary mean-field blocking probability to ``dps`` significant digits (mpf).

        Same certified computation as :meth:`fixed_point`, without the drift-residual evaluation."""
        _check_rho(rho)
        dps = check_dps(dps)
        return self._fixed_point(rho, dps, residual=False).blocking

    def ode(self, rho, x0, t, *, method: str = "LSODA", rtol: float = 1e-10, atol: float = 1e-13):
        """Integrate the mean-field ODE from ``x0`` and return the values at the times ``t``.

        Uses scipy's ``solve_ivp`` with a stiff-capable method and the exact (lambdified)
        Jacobian. ``x0`` is in the order of :attr:`variables`.
        """
        from scipy.integrate import solve_ivp
        rho = float(_check_rho(rho))
        x0 = self._check_state(x0)
        t = np.asarray(t, dtype=float)
        if t.ndim != 1 or t.size < 1 or np.any(np.diff(t) <= 0) or t[0] < 0 or not np.all(np.isfinite(t)):
            raise ValueError("t must be a 1-d increasing array of finite times >= 0")
        f, J = self._np_drift, self._np_jac

        def rhs(_t, y):
            return np.asarray(f(*y, rho), dtype=float)

        def jac(_t, y):
            return np.asarray(J(*y, rho), dtype=float)
        kw = {"jac": jac} if method in ("LSODA", "Radau", "BDF") else {}
        sol = solve_ivp(rhs, (0.0 if t[0] > 0 else t[0], t[-1]), x0, method=method, t_eval=t, rtol=rtol,
                        atol=atol, **kw)
        if not sol.success:
            raise RuntimeError(f"ODE integration failed: {sol.message}")
        X = sol.y.T
        B = np.array([float(self._np_blocking(*row)) for row in X])
        return OdeResult(sol.t, X, B, self.variables, bool(sol.success), sol.message)

    def _check_state(self, x0):
        x0 = np.asarray(x0, dtype=float)
        if x0.shape != (len(self.variables),):
            raise ValueError(f"x0 must have length {len(self.variables)} (the variables {self.variables})")
        if np.any(~np.isfinite(x0)) or np.any(x0 < -1e-12) or np.any(x0 > 1 + 1e-12):
            raise ValueError("x0 must have entries in [0, 1]")
        return x0

    def series(self, at=0, n: int = 3):
        """Asymptotic expansion of the blocking in ``rho`` (``at=0``) or in ``1/rho`` (``at=sympy.oo``):
        a SymPy expression with ``n`` non-zero terms plus the ``O`` term of the first omitted one,
        derived from this model's stationary equations (see :mod:`symloss.meanfield_series`)."""
        from .series import blocking_series
        return blocking_series(self, at=at, n=n)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(C={self.C}, d={self.d})" if self.d != 1 else f"{type(self).__name__}(C={self.C})"


# ==================================================================================================
# random routing and retrial-of-d (state: x_k = fraction of servers with k jobs)
# ==================================================================================================

class RetrialOfD(_MeanFieldModel):
    r"""Retrial-of-d: up to ``d`` uniformly chosen servers are tried in turn.

    .. math:: p = E\left(C, \rho \frac{1-p^d}{1-p}\right), \qquad B_{ret}(d) = p^d

    Examples
    --------
    >>> import mpmath
    >>> from symloss import RetrialOfD
    >>> mpmath.nstr(RetrialOfD(2, 2).blocking(1, dps=20), 20)     # (2^(1/3) - 1)^2
    '0.067558952178453145217'
    """
    name = "retrial"

    def __init__(self, C, d):
        super().__init__(C, d)
        self.variables = tuple(sp.Symbol(f"x{k}", nonnegative=True) for k in range(self.C + 1))

    def arrival_rate_expr(self):
        p = self.variables[-1]
        return RHO * sum(p ** j for j in range(self.d))   # rho (1 - p^d)/(1 - p)

    def transitions(self):
        n = self.C + 1
        lam = self.arrival_rate_expr()
        out = []
        for k in range(self.C):
            jump = sp.zeros(n, 1)
            jump[k], jump[k + 1] = -1, 1
            out.append((jump, lam * self.variables[k]))
        for k in range(1, self.C + 1):
            jump = sp.zeros(n, 1)
            jump[k], jump[k - 1] = -1, 1
            out.append((jump, k * self.variables[k]))
        return out

    def blocking_expr(self):
        return self.variables[-1] ** self.d

    def _constraints(self):
        return [sp.Eq(sum(self.variables), 1)]

    # -- numerics: one scalar equation in the per-server load a -----------------------------------
    def _h(self, a: arb, rho: arb):
        """h(a) = a (1 - E) - rho (1 - E^d) and h'(a), in arb."""
        C, d = self.C, self.d
        E = (a ** C) * (-a).exp() / a.gamma_upper(arb(C + 1))
        dE = E * (arb(C) / a - 1 + E)
        h = a * (1 - E) - rho * (1 - E ** d)
        dh = (1 - E) - a * dE + rho * d * E ** (d - 1) * dE
        return h, dh, E

    def _fixed_point(self, rho, dps, residual=True):
        C, d = self.C, self.d
        prec = dps_to_prec(dps) + 40 + int(math.log2(C + 2)) * 2
        while prec <= _MAX_PREC:
            with flint_prec(prec):
                r = to_arb(rho)
                if d == 1:
                    a_lo = a_hi = a = r
                    certified = True
                else:
                    a, certified, a_lo, a_hi = self._solve_a(r, prec, dps)
                if certified:
                    E_lo = (a_lo ** C) * (-a_lo).exp() / a_lo.gamma_upper(arb(C + 1))
                    E_hi = (a_hi ** C) * (-a_hi).exp() / a_hi.gamma_upper(arb(C + 1))
                    B_ball = (E_lo ** d).union(E_hi ** d)
                    if arb_relative_accuracy_ok(B_ball, dps):
                        bracket = (arb_to_mpf(arb(B_ball.lower())), arb_to_mpf(arb(B_ball.upper())))
                        E = arb_to_mpf((a ** C) * (-a).exp() / a.gamma_upper(arb(C + 1)))
                        am = arb_to_mpf(a)
                        break
            prec *= 2
        else:
            raise PrecisionError(f"retrial-of-{d} fixed point at rho={rho} not certified to {dps} digits")
        with mpmath.workdps(dps + 15):
            x = [mpmath.mpf(0)] * (C + 1)
            x[C] = E
            for k in range(C, 0, -1):
                x[k - 1] = x[k] * k / am
            rm = _rho_mpf(rho)
            res = self.drift_residual(x, rm) if residual else mpmath.nan
            B = rounded(arb_to_mpf(B_ball), dps)
        return FixedPointResult(self.name, rm, [rounded(v, dps) for v in x], B, bracket, res,
                                "Erlang-B reduction p = E(C, a); safeguarded Newton on a in arb; "
                                "ball-certified sign change", dps, {"a": rounded(am, dps)})

    def _float_start(self, rho: float) -> float:
        """Float solution of g(a) = a (1 - E) / (1 - E^d) = rho on [rho, d rho] (log-space Erlang-B):
        the contraction a <- rho (1 + p + ... + p^{d-1}), p = E(C, a), while p is small, else Brent."""
        from scipy.optimize import brentq

        from ..erlang.erlang_b import _log_erlang_b_scalar as leb
        C, d = self.C, self.d
        a = rho
        for _ in range(60):
            p = math.exp(leb(C, a))
            if p > 1e-2:
                break
            a_new = rho * (-math.expm1(d * math.log(p))) / (-math.expm1(math.log(p))) if p > 0 else rho
            if abs(a_new - a) <= 1e-16 * a:
                return a_new
            a = a_new
        def h(a):
            le = leb(C, a)
            # a (1 - E) - rho (1 - E^d), scaled by 1/a
            return (-math.expm1(le)) - rho / a * (-math.expm1(d * le))
        lo, hi = rho, rho * d
        hl, hh = h(lo), h(hi)
        if not (hl <= 0 <= hh):
            return rho * (1 + 0.5 * (d - 1) * math.exp(leb(C, rho)))
        if hl == 0:
            return lo
        return brentq(h, lo, hi, xtol=1e-300, rtol=1e-15, maxiter=200)

    def _solve_a(self, r: arb, prec: int, dps: int):
        d = self.d
        lo, hi = r, r * d           # a = rho (1 + p + ... + p^{d-1}) lies in [rho, d rho]
        rf = float(r.mid())
        a = arb(self._float_start(rf)) if math.isfinite(rf) and 1e-300 < rf < 1e300 else (lo + hi) / 2
        if not (lo.mid() <= a.mid() <= hi.mid()):
            a = (lo + hi) / 2
        a = arb(a.mid())
        tol = arb(2) ** (-(prec - 20))
        for _ in range(400):
            h, dh, _E = self._h(a, r)
            hm = h.mid()
            if hm > 0:
                hi = arb(a.mid())
            else:
                lo = arb(a.mid())
            step = arb(hm) / arb(dh.mid()) if dh.mid() != 0 else arb(0)
            if abs(step).mid() <= (tol * a).mid():   # converged (test before the bracket guard)
                a = arb((a - step).mid())
                break
            a_new = arb((a - step).mid())
            if not (lo.mid() < a_new.mid() < hi.mid()):
                a_new = arb(((lo + hi) / 2).mid())
            a = a_new
        # B = E(C, a)^d has relative condition d |C - a + a E| <= d (C + a) in a
        delta = arb(10) ** (-(dps + 3)) / (d * (self.C + a + 1))
        a_lo, a_hi = arb((a * (1 - delta)).mid()), arb((a * (1 + delta)).mid())
        h_lo = self._h(a_lo, r)[0]
        h_hi = self._h(a_hi, r)[0]
        return a, bool(h_lo < 0 and h_hi > 0), a_lo, a_hi

    # -- eliminant ---------------------------------------------------------------------------------
    def eliminant(self) -> sp.Poly:
        r"""Polynomial :math:`P(\rho, B)` vanishing at the mean-field blocking (small ``C``, ``d``).

        From ``p = E(C, a)`` (a polynomial relation ``p S_C(a) = a^C/C!``), ``rho (1 - p^d) = a (1 - p)``
        and ``B = p^d``, the variables ``a`` and ``p`` are eliminated with resultants; the factor
        that vanishes on the physical branch is returned (checked numerically at a sample load).
        """
        a, p = sp.symbols("a p", positive=True)
        C, d = self.C, self.d
        S = sum(a ** k / sp.factorial(k) for k in range(C + 1))
        e1 = sp.expand((p * S - a ** C / sp.factorial(C)) * sp.factorial(C))
        e2 = sp.expand(sp.cancel(RHO * (1 - p ** d) / (1 - p)) - a)   # rho (1 + ... + p^{d-1}) = a
        r1 = sp.resultant(e1, e2, a)           # in (p, rho)
        r2 = sp.resultant(r1, BSYM - p ** d, p)  # in (rho, B)
        return _physical_factor(sp.Poly(r2, RHO, BSYM), self, "B")

    def cubic_in_a(self):
        """For the retrial model: the polynomial relation between rho and the per-server load a
        (eliminating p); for C = 2, d = 2 this is a^3 + 2(1-rho)a^2 + 2(1-rho)a - 2rho."""
        a, p = sp.symbols("a p", positive=True)
        C, d = self.C, self.d
        S = sum(a ** k / sp.factorial(k) for k in range(C + 1))
        # p = (a^C/C!)/S; rho (1 + p + ... + p^{d-1}) = a, multiply by S^{d-1}
        expr = sp.expand(sp.together(RHO * sum((a ** C / sp.factorial(C) / S) ** j for j in range(d)) - a))
        num = sp.Poly(sp.numer(sp.together(expr)), a)
        return -num if num.LC().could_extract_minus_sign() else num


class RandomRouting(RetrialOfD):
    """Random routing (``d = 1``): every server is an M/M/C/C station with load ``rho``;
    blocking ``E(C, rho)``.

    Examples
    --------
    >>> import mpmath
    >>> from symloss import RandomRouting
    >>> mpmath.nstr(RandomRouting(2).blocking(1, dps=15), 15)
    '0.2'
    """
    name = "random"

    def __init__(self, C):
        super().__init__(C, 1)

    def __repr__(self):
        return f"RandomRouting(C={self.C})"


# ==================================================================================================
# power-of-d (state: u_k = fraction of servers with at least k jobs, k = 1..C)
# ==================================================================================================

class _TailStateModel(_MeanFieldModel):
    """State ``u_1..u_C``: the fraction of servers holding at least ``k`` jobs (``u_0 = 1``,
    ``u_{C+1} = 0``)."""

    def __init__(self, C, d=1):
        super().__init__(C, d)
        self.variables = tuple(sp.Symbol(f"u{k}", nonnegative=True) for k in range(1, self.C + 1))

    def _u(self, k):
        if k == 0:
            return sp.Integer(1)
        if k == self.C + 1:
            return sp.Integer(0)
        return self.variables[k - 1]


class PowerOfD(_TailStateModel):
    r"""Power-of-d (JSQ(d) among ``d`` servers sampled with replacement).

    .. math:: \rho (u_{k-1}^d - u_k^d) = k (u_k - u_{k+1}), \quad u_0 = 1,\ u_{C+1} = 0,
              \qquad B_{pod}(d) = u_C^d.

    Examples
    --------
    >>> import mpmath
    >>> from symloss import PowerOfD
    >>> mpmath.nstr(PowerOfD(2, 2).blocking(1, dps=20), 20)
    '0.053034671871595439739'
    """
    name = "power"

    def __init__(self, C, d):
        super().__init__(C, d)

    def transitions(self):
        n, d = self.C, self.d
        out = []
        for k in range(1, self.C + 1):
            up = sp.zeros(n, 1)
            up[k - 1] = 1
            out.append((up, RHO * (self._u(k - 1) ** d - self._u(k) ** d)))
            down = sp.zeros(n, 1)
            down[k - 1] = -1
            out.append((down, k * (self._u(k) - self._u(k + 1))))
        return out

    def blocking_expr(self):
        return self.variables[-1] ** self.d

    # -- shooting on t = log s, s = u_C ----------------------------------------------------------
    def _shoot(self, s: arb, rho: arb):
        """Returns (G, dG/dlog s, u list) with G = log(u_0^d) computed downwards from u_C = s."""
        C, d = self.C, self.d
        u_next, du_next = arb(0), arb(0)        # u_{C+1}
        u, du = s, s                            # u_C and du_C/dt (t = log s)
        w, dw = s ** d, d * s ** d
        us = [None] * (C + 1)
        us[C] = u
        for k in range(C, 0, -1):
            w_prev = w + k * (u - u_next) / rho
            dw_prev = dw + k * (du - du_next) / rho
            if k == 1:
                return w_prev.log(), dw_prev / w_prev, us
            u_prev = w_prev.root(d) if d > 1 else w_prev
            du_prev = u_prev * dw_prev / (d * w_prev)
            u_next, du_next = u, du
            u, du, w, dw = u_prev, du_prev, w_prev, dw_prev
            us[k - 1] = u
        raise AssertionError("unreachable")  # pragma: no cover

    def _fixed_point(self, rho, dps, residual=True):
        C, d = self.C, self.d
        rf = float(_rho_mpf(rho))
        t0 = self._float_start(rf) if math.isfinite(rf) and 1e-300 < rf < 1e300 else None
        # t = log u_C can be huge (doubly exponential decay): its digits come on top of dps
        extra = int(math.log2(1.0 + abs(t0))) if t0 is not None else 0
        prec = dps_to_prec(dps) + 40 + 2 * int(math.log2(C + 2)) + extra
        while prec <= _MAX_PREC:
            with flint_prec(prec):
                r = to_arb(rho)
                t, ok, t_lo, t_hi = self._solve_t(r, prec, dps, t0)
                if ok:
                    B_ball = (arb(t_lo) * d).exp().union((arb(t_hi) * d).exp())
                    if arb_relative_accuracy_ok(B_ball, dps):
                        _, _, us = self._shoot(arb(t).exp(), r)
                        x = [arb_to_mpf(us[k]) for k in range(1, C + 1)]
                        bracket = (arb_to_mpf(arb(B_ball.lower())), arb_to_mpf(arb(B_ball.upper())))
                        break
            prec *= 2
        else:
            raise PrecisionError(f"power-of-{d} fixed point at rho={rho} not certified to {dps} digits")
        with mpmath.workdps(dps + 15):
            rm = _rho_mpf(rho)
            res = self.drift_residual(x, rm) if residual else mpmath.nan
            B = rounded(arb_to_mpf(B_ball), dps)
        return FixedPointResult(self.name, rm, [rounded(v, dps) for v in x], B, bracket, res,
                                "shooting on log u_C; safeguarded Newton in arb; ball-certified sign change",
                                dps)

    def _float_G(self, t: float, rho: float) -> float:
        """G(t) = log(u_0^d) from u_C = e^t, in float64 and log space (no underflow)."""
        C, d = self.C, self.d
        lu_next = -math.inf          # log u_{C+1}
        lu = t
        lw = d * t
        for k in range(C, 0, -1):
            # log(u_k - u_{k+1}); equal in float only where the true gap is below float resolution
            diff = lu + math.log(max(-math.expm1(lu_next - lu), 1e-300)) if lu_next > -math.inf else lu
            term = math.log(k / rho) + diff
            lw_prev = max(lw, term) + math.log1p(math.exp(-abs(lw - term)))
            if k == 1:
                return lw_prev
            lu_next, lu, lw = lu, lw_prev / d, lw_prev
        raise AssertionError("unreachable")  # pragma: no cover

    def _float_start(self, rho: float):
        """Float root of G(t) = 0 (bracketed secant / bisection in t = log u_C); None if it fails."""
        try:
            hi, lo = 0.0, -1.0
            while self._float_G(lo, rho) >= 0:
                hi, lo = lo, 2 * lo
                if lo < -1e300:
                    return None
            from scipy.optimize import brentq
            return brentq(self._float_G, lo, hi, args=(rho,), xtol=1e-300, rtol=1e-15, maxiter=300)
        except (OverflowError, ValueError, ZeroDivisionError, RuntimeError):
            return None

    def _solve_t(self, r: arb, prec: int, dps: int, t0=None):
        if t0 is not None:
            res = self._newton_t(r, prec, dps, arb(t0))
            if res[1]:
                return res
        # fallback: bracket [t_lo, t_hi] with G(t_lo) < 0 < G(t_hi); G(0) > 0 (u_0^d >= 1 + C/rho at s = 1)
        t_hi = arb(0)
        t_lo = arb(-1)
        while self._shoot(t_lo.exp(), r)[0].mid() >= 0:
            t_hi = t_lo
            t_lo = t_lo * 2
            if t_lo.mid() < -(arb(max(self.d, 2)) ** (self.C + 64)).mid():
                raise PrecisionError("could not bracket the power-of-d fixed point")
        return self._newton_t(r, prec, dps, arb(((t_lo + t_hi) / 2).mid()), t_lo, t_hi)

    def _newton_t(self, r, prec, dps, t, t_lo=None, t_hi=None):
        """Newton on G(t) = 0 from t (guarded by [t_lo, t_hi] when given), then the certificate:
        G(t - delta) < 0 < G(t + delta) in ball arithmetic. The working precision of the Newton
        steps doubles from 128 bits up to ``prec`` (each step doubles the correct digits)."""
        if t_lo is None:
            t_lo, t_hi = arb(-math.inf), arb(math.inf)
        cur = 64 + int(math.log2(1.0 + abs(float(t.mid()))))
        for _ in range(2000):
            cur = min(2 * cur, prec)
            with flint_prec(cur):
                tol = arb(2) ** (-(cur - 20))
                G, dG, _ = self._shoot(t.exp(), r)
                Gm = G.mid()
                if Gm > 0:
                    t_hi = arb(t.mid())
                else:
                    t_lo = arb(t.mid())
                step = arb(Gm) / arb(dG.mid()) if dG.mid() != 0 else arb(0)
                small = abs(step).mid() <= (tol * (1 + abs(t))).mid()
                t_new = arb((t - step).mid())
                if not small and not (t_lo.mid() < t_new.mid() < t_hi.mid()):
                    if not (t_lo.is_finite() and t_hi.is_finite()):
                        return t, False, t, t
                    t_new = arb(((t_lo + t_hi) / 2).mid())
                done = cur == prec and small
            t = t_new
            if done:
                break
        delta = arb(10) ** (-(dps + 3)) / self.d
        a_lo, a_hi = arb((t - delta).mid()), arb((t + delta).mid())
        # ball arithmetic overestimates the propagated radius level by level (the dependency
        # problem), so the certificate may need more bits than the Newton steps: raise them here
        for cert_prec in (prec, 2 * prec, 4 * prec):
            with flint_prec(cert_prec):
                g_lo = self._shoot(a_lo.exp(), r)[0]
                g_hi = self._shoot(a_hi.exp(), r)[0]
            if g_lo < 0 and g_hi > 0:
                return t, True, a_lo, a_hi
            if g_lo > 0 or g_hi < 0:   # decided, but no sign change: not a root bracket
                break
        return t, False, a_lo, a_hi

    def quartic(self) -> sp.Poly:
        """Polynomial in ``s = u_C`` and ``rho`` from eliminating u_1..u_{C-1} downwards (when
        the stationary equations allow it by resultants); for C = 2, d = 2 at rho = 1 it is
        s^4 + 2 s^3 - 2 s^2 - 4 s + 1 up to a constant."""
        return self._poly_in_s()

    def _poly_in_s(self) -> sp.Poly:
        C, d = self.C, self.d
        s = sp.Symbol("s", positive=True)
        u = [sp.Integer(1)] + list(sp.symbols(f"v1:{C}", positive=True)) + [s, sp.Integer(0)]
        eqs = [sp.expand(RHO * (u[k - 1] ** d - u[k] ** d) - k * (u[k] - u[k + 1])) for k in range(1, C + 1)]
        # eliminate v_{C-1}, ..., v_1 with resultants (E_k involves u_{k-1}, u_k, u_{k+1})
        cur = eqs
        for j in range(C - 1, 0, -1):
            v = u[j]
            with_v = [e for e in cur if e.has(v)]
            without = [e for e in cur if not e.has(v)]
            base = min(with_v, key=lambda e: sp.Poly(e, v).degree())
            new = [sp.factor_terms(sp.resultant(base, e, v)) for e in with_v if e is not base]
            cur = without + [sp.numer(sp.together(n)) for n in new]
        assert len(cur) == 1, cur
        return sp.Poly(sp.expand(cur[0]), s, RHO)

    def eliminant(self) -> sp.Poly:
        r"""Polynomial :math:`P(\rho, B)` vanishing at the power-of-d blocking (small C, d):
        the polynomial in ``s = u_C`` combined with ``B = s^d`` by a resultant, reduced to its
        physical factor."""
        s = sp.Symbol("s", positive=True)
        P = self._poly_in_s()
        r = sp.resultant(P.as_expr(), BSYM - s ** self.d, s)
        return _physical_factor(sp.Poly(r, RHO, BSYM), self, "B")


# ==================================================================================================
# full JSQ
# ==================================================================================================

class JSQ(_TailStateModel):
    r"""Join the shortest queue among all servers: the fluid lower bound
    :math:`B = \max(0, 1 - C/\rho)` (servers are filled level by level).

    Examples
    --------
    >>> import mpmath
    >>> from symloss import JSQ
    >>> mpmath.nstr(JSQ(2).blocking(4, dps=15), 15)
    '0.5'
    """
    name = "jsq"

    def __init__(self, C):
        super().__init__(C, 1)

    def transitions(self):
        """Arrivals join the lowest level that is not full (fluid JSQ): the arrival flux to level
        k is rho while every lower level is full (u_{k-1} = 1) and level k is not (u_k < 1); in the
        interior of the fluid dynamics this is written with Heaviside indicators."""
        n = self.C
        out = []
        H = sp.Heaviside
        for k in range(1, self.C + 1):
            up = sp.zeros(n, 1)
            up[k - 1] = 1
            lower_full = sp.Integer(1) if k == 1 else H(self._u(k - 1) - 1, 1)
            out.append((up, RHO * lower_full * (1 - H(self._u(k) - 1, 1))))
            down = sp.zeros(n, 1)
            down[k - 1] = -1
            out.append((down, k * (self._u(k) - self._u(k + 1))))
        return out

    @_shared_property
    def _drift(self):
        n = len(self.variables)
        f = sp.zeros(n, 1)
        for jump, rate in self.transitions():
            f += jump * rate
        return f

    def blocking_expr(self):
        return sp.Max(0, 1 - self.C / RHO)

    def polynomial_system(self):
        return [sp.expand(RHO * BSYM - RHO + self.C)]   # on the branch rho >= C

    def eliminant(self):
        return sp.Poly(RHO * BSYM - RHO + self.C, RHO, BSYM)

    def _fixed_point(self, rho, dps, residual=True):
        with mpmath.workdps(dps + 15):
            rm = _rho_mpf(rho)
            x = [mpmath.mpf(1) if k <= rm else (rm - (k - 1) if k - 1 < rm else mpmath.mpf(0))
                 for k in range(1, self.C + 1)]
            B = max(mpmath.mpf(0), 1 - self.C / rm)
            return FixedPointResult("jsq", rm, [rounded(v, dps) for v in x], rounded(B, dps), (B, B),
                                    mpmath.mpf(0), "closed form (fluid JSQ)", dps)

    def ode(self, rho, x0, t, **kw):
        return super().ode(rho, x0, t, method=kw.pop("method", "RK45"), **kw)


# ==================================================================================================
# helpers
# ==================================================================================================

def _rho_mpf(rho):
    from ..core.precision import to_mpf
    return to_mpf(rho)


def _physical_factor(P: sp.Poly, model, what: str) -> sp.Poly:
    """The irreducible factor of ``P(rho, B)`` that vanishes at the certified blocking at a sample
    load (rho = 3/2, checked to 40 digits)."""
    facs = sp.factor_list(P.as_expr())[1]
    B = model.blocking(_frac(3, 2), dps=40)
    best, val = None, None
    with mpmath.workdps(60):
        for f, _m in facs:
            if not f.has(BSYM):
                continue
            v = abs(sp.lambdify((RHO, BSYM), f, "mpmath")(mpmath.mpf(1.5), B))
            scale = max(abs(c) for c in sp.Poly(f, RHO, BSYM).coeffs())
            v = v / mpmath.mpf(int(scale)) if scale != 0 else v
            if val is None or v < val:
                best, val = f, v
        if best is None or val > mpmath.mpf(10) ** -25:
            raise PrecisionError("no factor of the eliminant vanishes at the computed blocking")
    return sp.Poly(best, RHO, BSYM)


def _frac(p, q):
    from fractions import Fraction
    return Fraction(p, q)

