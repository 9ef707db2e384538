r"""Accelerators for the shipped mean-field policies: fast scalar reductions, registered outside the
model classes (:mod:`symloss.core.registry`) and checked against each model's definition.

* **Retrial-of-d** (and random routing): with ``p = x_C`` the stationary occupancy of a non-full
  server is truncated Poisson with load :math:`a = \rho(1 + p + \dots + p^{d-1})`, so
  :math:`p = E(C, a)` and ``a`` solves the scalar equation
  :math:`h(a) = a (1 - E(C,a)) - \rho (1 - E(C,a)^d) = 0` (``h`` increases in ``a``); safeguarded
  Newton in ``arb`` on :math:`g(a) = h(a) / (1 - E) = a - \rho (1 + E + \dots + E^{d-1})` (same sign,
  no cancellation of ``1 - E``) and a ball sign change :math:`g(a(1 - \delta)) < 0 < g(a(1 + \delta))`
  certify ``a`` and the blocking :math:`E(C, a)^d`.
* **Power-of-d**: shooting on :math:`t = \log u_C`: the stationary equations give
  :math:`u_{k-1}^d = u_k^d + k (u_k - u_{k+1})/\rho` downwards from :math:`u_C = e^t`, and
  :math:`G(t) = \log u_0^d = 0` is solved by Newton in ``arb``, started from a float solve in log
  space; a ball sign change of ``G`` certifies it.
* **JSQ**: the closed form of the fluid limit, :math:`u_k = \min(1, \max(0, \rho - k + 1))`,
  :math:`B = \max(0, 1 - C/\rho)`.

**Exact loads.** The load reaches every solver exactly as the input layer hands it over (an ``int``,
a ``float`` as its binary value, a ``Fraction`` for every rational type, an ``mpf``); the solvers
convert it at each working precision (an exact ``arb`` point for a binary value, a ball enclosing a
rational; JSQ computes rationals in exact arithmetic), so nothing like :math:`1 - C/\rho` is
evaluated on a rounded load. ``blocking_bracket`` is the certified ball converted outward, and the
verification on the definition uses the same exact load.

**Binding.** An accelerator is used for a model only when ``applies(model)`` holds: the model's
drift, invariants and blocking are *identical* (exact SymPy expansion) to the template system the
reduction assumes, built from the model's own variables. Its certificate is then a certificate for
the definition's own equations. In addition every answer is verified numerically on the
definition's compiled stationary system (``verify``: the ball residual of every row at the returned
state, relative to the size of its terms, below :math:`10^{-(dps + 4)}`). A subclass or an edit that
changes a rate fails ``applies``; :func:`symloss.core.certify.solve` then warns
(:class:`~symloss.core.certify.DefinitionMismatchWarning`) and uses the generic certified solver.
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath
import sympy as sp
from flint import arb, fmpz_poly

from ..core.certify import FixedPointResult
from ..core.model import RHO
from ..core.precision import (
    PrecisionError,
    arb_relative_accuracy_ok,
    arb_to_mpf,
    dps_to_prec,
    flint_prec,
    rounded,
    to_arb,
    to_mpf,
)
from ..core.registry import register_accelerator
from ..core.validation import exact_real
from .models import JSQ, PowerOfD, RetrialOfD

__all__ = ["RETRIAL", "POWER", "JSQ_CLOSED_FORM", "RetrialAccelerator", "PowerAccelerator", "JSQAccelerator"]

_MAX_PREC = 1 << 16
_POLY_MAX_C = 256      # E(C, a) from the exact polynomial up to this C (python-flint's incomplete gamma beyond)


@functools.lru_cache(maxsize=64)
def _tail_poly(C: int):
    r""":math:`Q(a) = \sum_{k=0}^{C-1} \frac{C!}{k!} a^k` (``fmpz_poly``, exact), so that
    :math:`E(C, a) = a^C / (a^C + Q(a))`."""
    c = [0] * C
    v = 1
    for k in range(C - 1, -1, -1):
        v *= k + 1
        c[k] = v
    return fmpz_poly(c)


# ==================================================================================================
# common machinery
# ==================================================================================================

def _identical(a, b) -> bool:
    d = a - b          # both sides are expanded: like terms combine when the Add is built
    return d == 0 or sp.expand(d) == 0


class _Accelerator:
    """Common machinery of the accelerators: the binding to a definition (:meth:`applies`) and the
    verification of an answer on the definition's compiled equations (:meth:`verify`)."""
    name = "accelerator"

    def __init__(self):
        self._applies_cache: dict = {}

    # -- binding to the definition -------------------------------------------------------------------
    def template(self, model):
        """The system the reduction assumes, in the model's own variables.

        Parameters
        ----------
        model : MeanFieldModel
            A model of the class the accelerator is registered for.

        Returns
        -------
        tuple
            ``(drift, invariants, blocking)``: the drift rows (SymPy), the invariants as
            ``[(coefficients, value)]`` and the blocking expression.

        Raises
        ------
        ValueError
            If the model's state does not have the template's shape.
        """
        raise NotImplementedError

    def applies(self, model):
        """Whether this definition is the template system (exact identity of the drift, the
        invariants and the blocking; cached per definition).

        Parameters
        ----------
        model : MeanFieldModel
            The model.

        Returns
        -------
        tuple of (bool, str)
            The answer and the reason.

        Examples
        --------
        >>> from symloss import PowerOfD
        >>> from symloss.meanfield.accelerators import POWER
        >>> POWER.applies(PowerOfD(2, 2))
        (True, 'the definition is the template system of the reduction (exact polynomial identity)')
        """
        key = model._definition_key()
        if key in self._applies_cache:
            return self._applies_cache[key]
        out = self._check(model)
        self._applies_cache[key] = out
        return out

    def template_poly(self, model):
        """The template drift as sparse polynomials (same keys as ``model._drift_poly``).

        Parameters
        ----------
        model : MeanFieldModel
            The model.

        Returns
        -------
        list of dict or None
            One ``{monomial: Fraction}`` per row, or ``None`` (compare SymPy expressions instead).
        """
        return None

    def _check(self, model):
        poly = model._drift_poly
        tpoly = None
        if poly is not None:
            try:
                tpoly = self.template_poly(model)
            except (AttributeError, TypeError, ValueError):
                tpoly = None
        if tpoly is not None:
            if len(tpoly) != len(poly):
                return False, "the number of state variables differs"
            for i, (a, b) in enumerate(zip(poly, tpoly)):
                if a != b:
                    return False, f"drift component {i} ({model.variables[i]}) differs"
            _, invariants, blocking = self.template_invariants_blocking(model)
            inv = [(list(c), v) for c, v in model._invariants]
            if len(inv) != len(invariants) or any(list(c) != list(c2) or v != v2 for (c, v), (c2, v2) in
                                                  zip(inv, invariants)):
                return False, "the invariants differ"
            if not _identical(model._blocking, blocking):
                return False, "the blocking expression differs"
            return True, "the definition is the template system of the reduction (exact polynomial identity)"
        try:
            drift, invariants, blocking = self.template(model)
        except (AttributeError, TypeError, ValueError) as exc:
            return False, f"no template for this model ({exc})"
        f = list(model.drift())
        if len(f) != len(drift):
            return False, "the number of state variables differs"
        for i, (a, b) in enumerate(zip(f, drift)):
            if not _identical(a, b):
                return False, f"drift component {i} ({model.variables[i]}) differs"
        inv = [(list(c), v) for c, v in model._invariants]
        if len(inv) != len(invariants) or any(list(c) != list(c2) or v != v2 for (c, v), (c2, v2) in
                                              zip(inv, invariants)):
            return False, "the invariants differ"
        if not _identical(model._blocking, blocking):
            return False, "the blocking expression differs"
        return True, "the definition is the template system of the reduction (exact SymPy identity)"

    def warn_on_mismatch(self, model) -> bool:
        """Whether :func:`symloss.core.certify.solve` warns when this accelerator does not apply.

        Parameters
        ----------
        model : MeanFieldModel
            The model.

        Returns
        -------
        bool
        """
        return True

    # -- verification on the definition's compiled equations -----------------------------------------
    def verify(self, model, res, dps):
        """Ball residual of the definition's compiled stationary system at the returned state.

        Parameters
        ----------
        model : MeanFieldModel
            The model solved.
        res : FixedPointResult
            The accelerator's answer (with the working-precision state in ``extra["_x_work"]``).
        dps : int
            The digits asked for: every row's residual must be below :math:`10^{-(dps + 4)}` times
            the size of its terms.

        Returns
        -------
        tuple of (bool, str)
            Whether the answer passes, and why not.
        """
        x = res.extra.get("_x_work")
        if x is None:
            return False, "no working-precision state"
        poly = model._drift_poly
        if poly is None:
            comp = model.compiled
            if not comp.smooth or comp.mode != "terms":
                return True, "not a smooth Laurent system: identity with the template is the check"
        # the load as the user gave it (exact, see _WorkState), not the rounded ``res.rho``
        rho = getattr(x, "rho", None)
        rho = res.rho if rho is None else rho
        prec = dps_to_prec(dps + 8) + 32
        with flint_prec(prec):
            xs = [v if isinstance(v, arb) else to_arb(v) for v in x]
            if poly is not None:
                # straight from the definition's sparse drift (linear in its terms; compiling the
                # system first cost 15 s at C = 10^4): a generated straight-line function, or a loop
                # for very large drifts
                gen = model._poly_residual
                r = to_arb(rho)
                if gen is not None:
                    fn, coefs = gen
                    vals, mags = fn(list(xs) + [r], [arb(q) for q in coefs])
                else:
                    vals, mags = _poly_residual_arb(poly, xs, r)
                iv, im = _invariant_residual_arb(model._invariants, xs)
                vals, mags = vals + iv, mags + im
            else:
                vals, mags = comp.table.residual_from_x(xs, to_arb(rho))
            tol = arb(10) ** (-(dps + 4))
            worst = 0.0
            for i in range(len(vals)):
                if not abs(vals[i]) <= tol * mags[i]:
                    return False, (f"row {i} of the stationary system has relative residual "
                                   f"{mpmath.nstr(arb_to_mpf(abs(vals[i]) / mags[i]), 3)}")
                worst = max(worst, float((abs(vals[i]) / mags[i]).mid()))
        res.extra["verification"] = {"kind": "ball residual of the definition's stationary system",
                                     "max_relative_residual": f"{worst:.2e}", "tolerance": f"1e-{dps + 4}",
                                     "identity": self.applies(model)[1]}
        return True, "ok"


def _poly_residual_arb(poly, xs, rho):
    """``(values, magnitudes)`` of the drift rows (sparse polynomials of ``model._drift_poly``) at the
    balls ``xs`` and ``rho``, by a loop (for drifts too large for ``model._poly_residual``); a row's
    magnitude is the sum of the absolute values of its terms."""
    from flint import fmpq
    z = list(xs) + [rho]
    powers: dict = {}
    vals, mags = [], []
    zero = arb(0)
    for row in poly:
        v, m = zero, zero
        for key, c in row.items():
            q = c.denominator
            t = arb(c.numerator) if q == 1 else arb(fmpq(c.numerator, q))
            for j, e in key:
                pw = powers.get((j, e))
                if pw is None:
                    pw = z[j] if e == 1 else z[j] ** e
                    powers[(j, e)] = pw
                t = t * pw
            v += t
            m += abs(t)
        vals.append(v)
        mags.append(m)
    return vals, mags


def _invariant_residual_arb(invariants, xs):
    """``(values, magnitudes)`` of the invariant rows ``c . x - value`` at the balls ``xs``."""
    def exact(c):      # invariant coefficients are SymPy integers, mostly 1: skip the general conversion
        return arb(int(c)) if isinstance(c, int) or getattr(c, "is_Integer", False) else to_arb(c)
    vals, mags = [], []
    for cc, val in invariants:
        v = -exact(val)
        m = abs(v)
        for ci, xi in zip(cc, xs):
            if ci != 0:
                t = xi if ci == 1 else exact(ci) * xi
                v += t
                m += abs(t)
        vals.append(v)
        mags.append(m)
    return vals, mags


def _rho_mpf(rho):
    return to_mpf(rho)


def _exact_load(rho):
    """The load as the input layer hands it over, kept exact: ``int``, ``float`` (its binary value),
    ``Fraction`` (also for SymPy rationals, ``Decimal`` and flint ``fmpq``), ``mpf``, or a flint ball
    with a radius (used as the ball). Nothing is rounded here: the solvers convert it with
    :func:`~symloss.core.precision.to_arb` at each working precision (an exact point for a binary
    value, a ball of that precision enclosing a non-dyadic rational)."""
    return exact_real(rho, "rho", allow_ball=True)


class _WorkState(list):
    """The working-precision state of an answer (``extra["_x_work"]``) with the exact load it solves
    (``rho``), so that :meth:`_Accelerator.verify` checks the definition at the load the user gave,
    not at the rounded ``FixedPointResult.rho``."""
    __slots__ = ("rho",)

    def __init__(self, values, rho):
        super().__init__(values)
        self.rho = rho


def _float_rho(rho):
    with mpmath.workdps(20):
        rf = float(to_mpf(rho))
    return rf if math.isfinite(rf) and 1e-300 < rf < 1e300 else None


def _finish(model, rho, x_work, B_ball, dps, residual, method, extra=None):
    """A FixedPointResult from a certified blocking ball and the working-precision state (exact
    ``arb`` points, e.g. ball midpoints, or mpf)."""
    x_mp = [arb_to_mpf(v) if isinstance(v, arb) else v for v in x_work]
    with mpmath.workdps(dps + 15):
        rm = _rho_mpf(rho)
        res = model.drift_residual(x_mp, rm) if residual else mpmath.nan
    with mpmath.workdps(dps):
        B = +arb_to_mpf(B_ball)
        x_out = [+v for v in x_mp]
    with flint_prec(dps_to_prec(dps) + 128):
        bracket = (arb_to_mpf(arb(B_ball.lower())), arb_to_mpf(arb(B_ball.upper())))
    ex = dict(extra or {})
    ex["_x_work"] = _WorkState(x_work, rho)
    return FixedPointResult(model.name, rm, x_out, B, bracket, res, method, dps, ex)


# ==================================================================================================
# retrial-of-d / random routing: the Erlang-B reduction
# ==================================================================================================

class RetrialAccelerator(_Accelerator):
    r"""The Erlang-B reduction of retrial-of-d (and random routing).

    With ``p = x_C`` a non-full server's occupancy is truncated Poisson with load
    :math:`a = \rho (1 + p + \dots + p^{d-1})`, so ``p = E(C, a)`` and ``a`` solves
    :math:`a (1 - E(C, a)) = \rho (1 - E(C, a)^d)`; safeguarded Newton in ``arb`` (bracket
    :math:`[\rho, d \rho]`, moved only on decided signs) and a ball sign change certify ``a``.
    Registered for :class:`~symloss.RetrialOfD` (the instance :data:`RETRIAL`).

    See Also
    --------
    PowerAccelerator, JSQAccelerator, symloss.register_accelerator

    Examples
    --------
    >>> from symloss import RetrialOfD
    >>> from symloss.core.registry import accelerator_for
    >>> accelerator_for(RetrialOfD(2, 2)).name
    'Erlang-B reduction'
    """
    name = "Erlang-B reduction"
    #: largest ``C (d - 1)`` for which :meth:`uniqueness` recomputes the monotonicity lemma (0.9 s at
    #: C = 1000, d = 2; cached per (C, d))
    UNIQUENESS_MAX_WORK = 1000

    def uniqueness(self, model, rho):
        r"""Uniqueness of the fixed point on the simplex, for every load: ``applies(model)`` proves the
        drift is the birth-death drift of arrival rate :math:`\rho\sigma_d(x_C)`, so every fixed
        point is an Erlang distribution of load ``a`` with :math:`\rho = g(a) = a/\sigma_d(E(C, a))`,
        and the exact lemma :func:`~symloss.meanfield.enclosures.retrial_g_lemma` (the numerator of
        ``g'`` has non-negative coefficients, ``g(0) = 0``, ``g -> oo``) makes ``g`` a bijection of
        :math:`(0, \infty)` (claims ``seed000.unique_fixed_point.*``).

        Parameters
        ----------
        model : RetrialOfD
            A model whose definition is the template.
        rho : number
            The load (the statement holds for every load).

        Returns
        -------
        tuple of (str, str) or None
            ``(status, text)``; ``None`` when the template does not apply.
        """
        if not self.applies(model)[0]:
            return None
        C, d = int(model.C), int(model.d)
        if C * (d - 1) > self.UNIQUENESS_MAX_WORK:
            return ("NOT CHECKED", f"NOT CHECKED (C (d - 1) = {C * (d - 1)} > {self.UNIQUENESS_MAX_WORK}: the exact "
                                   f"monotonicity lemma of the Erlang-B reduction is not recomputed here)")
        from .enclosures import retrial_g_lemma
        if not retrial_g_lemma(C, d)["holds"]:      # pragma: no cover - proved for every C, d tried
            return ("UNDECIDED", "UNDECIDED (the monotonicity lemma of g does not hold as computed)")
        return ("PROVED", "PROVED on the simplex for every load: the definition is the birth-death template "
                          "(exact identity), so a fixed point is Erlang with rho = g(a) = a/sigma_d(E(C,a)), and "
                          "g increases from 0 to oo (exact lemma: the numerator of g' has non-negative "
                          "coefficients; retrial_g_lemma)")

    def template(self, model):
        C, d = model.C, model.d
        x = list(model.variables)
        if len(x) != C + 1:
            raise ValueError("state length")
        lam = RHO * sum(x[C] ** j for j in range(d))
        f = []
        for k in range(C + 1):
            e = sp.Integer(0)
            if k > 0:
                e += lam * x[k - 1]
            if k < C:
                e -= lam * x[k] - (k + 1) * x[k + 1]
            e -= k * x[k]
            f.append(sp.expand(e))
        return f, [([1] * (C + 1), 1)], x[C] ** d

    def template_invariants_blocking(self, model):
        """The template's invariants and blocking (without the drift, which :meth:`template_poly`
        gives as polynomials).

        Parameters
        ----------
        model : RetrialOfD
            The model.

        Returns
        -------
        tuple
            ``(None, invariants, blocking)``.
        """
        C, d = model.C, model.d
        return None, [([1] * (C + 1), 1)], model.variables[C] ** d

    def template_poly(self, model):
        """The template drift as sparse polynomials: row ``k`` is
        ``lam x_{k-1} - (lam + k) x_k + (k + 1) x_{k+1}``, ``lam = rho (1 + x_C + ... + x_C^(d-1))``
        (index ``C + 1`` stands for rho).

        Parameters
        ----------
        model : RetrialOfD
            The model.

        Returns
        -------
        list of dict
            One ``{monomial: Fraction}`` per row.

        Raises
        ------
        ValueError
            If the state does not have ``C + 1`` variables.
        """
        from fractions import Fraction as F
        C, d = model.C, model.d
        if len(model.variables) != C + 1:
            raise ValueError("state length")
        R = C + 1
        rows = []
        for k in range(C + 1):
            row: dict = {}

            def add(key, c):
                key = tuple(sorted(key))
                v = row.get(key, 0) + c
                if v:
                    row[key] = v
                else:
                    row.pop(key, None)

            def mono(*pairs):
                m: dict = {}
                for j, e in pairs:
                    if e:
                        m[j] = m.get(j, 0) + e
                return tuple((j, e) for j, e in m.items() if e)
            for j in range(d):   # lam terms: rho x_C^j
                if k > 0:
                    add(mono((R, 1), (C, j), (k - 1, 1)), F(1))
                if k < C:
                    add(mono((R, 1), (C, j), (k, 1)), F(-1))
            if k < C:
                add(mono((k + 1, 1)), F(k + 1))
            if k > 0:
                add(mono((k, 1)), F(-k))
            rows.append(row)
        return rows

    # -- the scalar equation in the per-server load a -----------------------------------------------
    @staticmethod
    def _E_parts(a: arb, C: int):
        r"""``(E(C, a), 1 - E(C, a))`` as balls, both without cancellation.

        For ``C <= 256``: :math:`E = a^C / (a^C + Q(a))` and :math:`1 - E = Q(a) / (a^C + Q(a))` with
        :math:`Q(a) = \sum_{k<C} \frac{C!}{k!} a^k` (exact integer coefficients, positive terms: the
        balls are a few ulps wide at every load; python-flint's incomplete gamma loses up to 60 bits
        for ``a`` of a few times ``C`` at small ``C``, which made the Newton iteration run into its
        noise). Beyond, :math:`E = a^C e^{-a} / \Gamma(C + 1, a)` and ``1 - E`` by subtraction (it
        loses :math:`\log_2(a / C)` bits when ``a >> C``; the precision loop provides them).
        """
        if C <= _POLY_MAX_C:
            q = _tail_poly(C)(a)
            t = a ** C
            s = q + t
            return t / s, q / s
        E = (a ** C) * (-a).exp() / a.gamma_upper(arb(C + 1))
        return E, 1 - E

    @staticmethod
    def _E(a, C):
        """``E(C, a)`` as a ball (:meth:`_E_parts`)."""
        return RetrialAccelerator._E_parts(a, C)[0]

    def _g(self, C, d, a: arb, rho: arb, derivative=True):
        r"""``(g, g', E)`` at ``a`` in arb, :math:`g(a) = a - \rho (1 + E + \dots + E^{d-1})`.

        :math:`h(a) = a (1 - E) - \rho (1 - E^d) = (1 - E)\, g(a)` is strictly increasing in ``a``
        (the carried load :math:`a (1 - E)` increases, :math:`E^d` increases) with
        :math:`h(\rho) < 0 < h(d \rho)`, and :math:`1 - E > 0`: ``g`` has the sign of ``h``, one sign
        change, at the fixed point. ``g`` is evaluated without the cancellation of ``1 - E`` (which
        costs :math:`\log_2(a / C)` bits at large loads in ``h``).
        """
        E, F = self._E_parts(a, C)          # F = 1 - E
        s, ds = arb(1), arb(0)              # s = 1 + E + ... + E^{d-1}; ds = ds/dE
        p = arb(1)                          # E^(j-1)
        for j in range(1, d):
            ds += j * p
            p = p * E
            s += p
        g = a - rho * s
        if not derivative:
            return g, None, E
        dE = E * (arb(C) / a - F)           # E' = E (C/a - 1 + E)
        return g, 1 - rho * ds * dE, E

    def float_start(self, C, d, rho: float) -> float:
        """Float solution of ``a (1 - E(C, a)) / (1 - E(C, a)^d) = rho`` on ``[rho, d rho]``
        (log-space Erlang-B; safeguarded Newton, Brent's method as fallback).

        Parameters
        ----------
        C, d : int
            Capacity and number of tries.
        rho : float
            Load per server.

        Returns
        -------
        float
            The load ``a`` offered to a non-full server.

        Examples
        --------
        >>> from symloss.meanfield.accelerators import RETRIAL
        >>> round(RETRIAL.float_start(2, 2, 1.0), 12)            # 2^(1/3)
        1.259921049895
        """
        from scipy.optimize import brentq

        from ..erlang.erlang_b import _log_erlang_b_scalar as leb
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
            return (-math.expm1(le)) - rho / a * (-math.expm1(d * le))
        lo, hi = rho, rho * d
        # safeguarded Newton (dE/da = E (C/a - 1 + E)); Brent if it leaves the bracket
        x = min(max(a, lo), hi)
        for _ in range(30):
            le = leb(C, x)
            E = math.exp(le)
            dE = E * (C / x - 1 + E)
            hv = (-math.expm1(le)) - rho / x * (-math.expm1(d * le))
            dh = -dE + rho / (x * x) * (-math.expm1(d * le)) + rho / x * d * E ** (d - 1) * dE
            if dh == 0 or not math.isfinite(dh):
                break
            step = hv / dh
            x_new = x - step
            if not (lo <= x_new <= hi):
                break
            if abs(step) <= 4e-16 * x_new:
                return x_new
            x = x_new
        hl, hh = h(lo), h(hi)
        if not (hl <= 0 <= hh):
            return rho * (1 + 0.5 * (d - 1) * math.exp(leb(C, rho)))
        if hl == 0:
            return lo
        return brentq(h, lo, hi, xtol=1e-300, rtol=1e-15, maxiter=200)

    def float_log_blocking(self, model, rho: float) -> float:
        """``log B`` in float64, ``d log E(C, a)`` (fast scans).

        Parameters
        ----------
        model : RetrialOfD
            The model.
        rho : float
            Load per server.

        Returns
        -------
        float
        """
        from ..erlang.erlang_b import _log_erlang_b_scalar as leb
        a = self.float_start(model.C, model.d, rho) if model.d > 1 else rho
        return model.d * leb(model.C, a)

    def _solve_a(self, C, d, r: arb, prec: int, dps: int):
        r"""Safeguarded Newton on ``g`` (:meth:`_g`) inside ``[rho, d rho]``, then the certificate.

        The bracket moves only on signs the balls decide; a step that leaves it (closed: at a low
        load the root is within :math:`\rho E(C, \rho)` of ``rho``) is replaced by bisection; the
        iteration stops when the step is below ``2^-(prec - 20)`` relative or when
        ``g``'s ball contains 0 (``a`` is then as accurate as this precision allows). The certificate
        is :math:`g(a (1 - \delta)) < 0 < g(a (1 + \delta))`.

        Returns
        -------
        tuple
            ``(a, status, a_lo, a_hi, need, E_lo, E_hi)``: status ``"ok"`` (certified), ``"precision"``
            (the balls of ``g`` at ``a -+ delta`` are too wide: ``need`` bits would decide them) or
            ``"fail"`` (decided, no sign change: the iteration did not reach ``a``).
        """
        lo, hi = arb(r.mid()), arb((r * d).mid())      # a = rho (1 + p + ... + p^{d-1}) in [rho, d rho]
        rf = float(r.mid())
        a = arb(self.float_start(C, d, rf)) if math.isfinite(rf) and 1e-300 < rf < 1e300 else (lo + hi) / 2
        if not (lo.mid() <= a.mid() <= hi.mid()):
            a = (lo + hi) / 2
        a = arb(a.mid())     # at a low load the root is within rho E(C, rho) of lo: a start at lo is fine
        tol = arb(2) ** (-(prec - 20))
        dg = None
        for _ in range(4 * prec + 64):         # bisection alone halves the bracket: enough steps
            g, dg, _E = self._g(C, d, a, r)
            if g > 0:
                hi = a
            elif g < 0:
                lo = a
            else:
                break                          # |g| below its own rounding noise
            dgm = dg.mid()
            a_new = arb((a - arb(g.mid()) / arb(dgm)).mid()) if dgm > 0 else None
            if a_new is None or not (lo.mid() <= a_new.mid() <= hi.mid()):
                a_new = arb(((lo + hi) / 2).mid())
            if abs(a_new.mid() - a.mid()) <= (tol * a).mid():
                a = a_new
                break
            a = a_new
        # B = E(C, a)^d has relative condition d |C - a + a E| <= d (C + a) in a
        delta = arb(10) ** (-(dps + 3)) / (d * (C + a + 1))
        a_lo, a_hi = arb((a * (1 - delta)).mid()), arb((a * (1 + delta)).mid())
        g_lo, _, E_lo = self._g(C, d, a_lo, r, derivative=False)
        g_hi, _, E_hi = self._g(C, d, a_hi, r, derivative=False)
        if g_lo < 0 and g_hi > 0:
            return a, "ok", a_lo, a_hi, 0, E_lo, E_hi
        if g_lo > 0 or g_hi < 0:
            return a, "fail", a_lo, a_hi, 0, E_lo, E_hi
        # undecided: the balls of g are wider than the change of g over delta; bits to gain
        if dg is None or not dg.is_finite():
            dg = self._g(C, d, a, r)[1]
        target = abs(arb(dg.mid())) * a * delta / 4
        rad = max(g_lo.rad(), g_hi.rad())
        need = 2 * prec
        if target > 0 and rad.is_finite() and rad > 0:
            need = max(prec + 32, prec + int(float((rad / target).log().mid()) / math.log(2)) + 32)
        return a, "precision", a_lo, a_hi, need, E_lo, E_hi

    def solve(self, model, rho, dps, residual=True):
        """The certified fixed point by the reduction (precision raised until ``dps`` digits hold).

        Parameters
        ----------
        model : RetrialOfD
            The model (for which :meth:`applies` holds).
        rho : int, float, Fraction, mpmath.mpf or any real the input layer accepts
            Load per server, taken exactly (a float is its binary value; a non-dyadic rational is a
            ball of each working precision, never a rounded point).
        dps : int
            Significant digits of the blocking.
        residual : bool
            Compute the drift residual of the returned state.

        Returns
        -------
        FixedPointResult
            ``blocking_bracket`` is the certified ball :math:`[E(C, a_-)^d, E(C, a_+)^d]` converted
            outward.

        Raises
        ------
        PrecisionError
            If ``dps`` digits cannot be certified below 65536 bits.
        """
        C, d = model.C, model.d
        rho = _exact_load(rho)
        prec = dps_to_prec(dps) + 40 + int(math.log2(C + 2)) * 2
        while prec <= _MAX_PREC:
            with flint_prec(prec):
                r = to_arb(rho)
                need = 0
                if d == 1:
                    a = r
                    status = "ok"
                    E_lo = E_hi = self._E(r, C)
                else:
                    a, status, a_lo, a_hi, need, E_lo, E_hi = self._solve_a(C, d, r, prec, dps)
                if status == "ok":
                    B_ball = (E_lo ** d).union(E_hi ** d)
                    if arb_relative_accuracy_ok(B_ball, dps):
                        # the state at the point a (exact midpoint): x_C = E(C, a), x_{k-1} = k x_k / a
                        am_ball = arb(a.mid())
                        x = [arb(0)] * (C + 1)
                        x[C] = arb(self._E(am_ball, C).mid())
                        for k in range(C, 0, -1):
                            x[k - 1] = arb((x[k] * k / am_ball).mid())
                        am = arb_to_mpf(am_ball)
                        break
            prec = need if need > prec else 2 * prec
        else:
            raise PrecisionError(f"retrial-of-{d} fixed point at rho={rho} not certified to {dps} digits")
        return _finish(model, rho, x, B_ball, dps, residual,
                       "Erlang-B reduction p = E(C, a); safeguarded Newton on g(a) = a - rho (1 + p + ... + "
                       "p^(d-1)) in arb; ball-certified sign change",
                       {"a": rounded(am, dps)})


# ==================================================================================================
# power-of-d: shooting on log u_C
# ==================================================================================================

class PowerAccelerator(_Accelerator):
    r"""Shooting for power-of-d: :math:`u_{k-1}^d = u_k^d + k (u_k - u_{k+1})/\rho` downwards from
    :math:`u_C = e^t`, and :math:`G(t) = \log u_0^d = 0` solved by Newton in ``arb`` (float start in
    log space); a ball sign change of ``G`` certifies ``t``. Registered for
    :class:`~symloss.PowerOfD` (the instance :data:`POWER`).

    See Also
    --------
    RetrialAccelerator, JSQAccelerator

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.core.registry import accelerator_for
    >>> accelerator_for(PowerOfD(2, 2)).name
    'shooting'
    """
    name = "shooting"
    #: largest C for which :meth:`uniqueness` re-derives the telescoped identity on the model's drift
    #: (SymPy: 1 s at C = 100, 94 s at C = 1000; cached per definition)
    UNIQUENESS_MAX_C = 100

    def uniqueness(self, model, rho):
        r"""Uniqueness of the fixed point on :math:`[0, 1]^C`, for every load: the model's own drift
        telescopes (:func:`~symloss.meanfield.enclosures.power_binding`, exact SymPy identity), so at a
        fixed point :math:`u_{k-1} = (u_k^d + (k u_k + \sum_{j>k} u_j)/\rho)^{1/d}` downwards from
        ``u_C = s``, and :math:`W_1(s) = u_0^d` increases strictly from 0 to at least ``1 + 1/rho``:
        exactly one root (claims ``seed000.power_unique_fixed_point.*``).

        Parameters
        ----------
        model : PowerOfD
            A model whose definition is the template.
        rho : number
            The load (the statement holds for every load).

        Returns
        -------
        tuple of (str, str) or None
            ``(status, text)``; ``None`` when the template does not apply.
        """
        if not self.applies(model)[0]:
            return None
        C = int(model.C)
        if C > self.UNIQUENESS_MAX_C:
            return ("NOT CHECKED", f"NOT CHECKED (C = {C} > {self.UNIQUENESS_MAX_C}: the telescoped identity is not "
                                   f"re-derived on the drift here)")
        from .enclosures import BindingError, power_binding
        try:
            power_binding(model)
        except BindingError as exc:           # pragma: no cover - applies() holds
            return ("UNDECIDED", f"UNDECIDED ({exc})")
        return ("PROVED", "PROVED on [0, 1]^C for every load: the model's drift telescopes (exact SymPy identity), "
                          "so a fixed point is determined by u_C = s through a strictly increasing shooting map "
                          "whose top value W_1(s) = u_0^d runs from 0 to >= 1 + 1/rho: exactly one root")

    def template(self, model):
        C, d = model.C, model.d
        u = [sp.Integer(1)] + list(model.variables) + [sp.Integer(0)]
        if len(u) != C + 2:
            raise ValueError("state length")
        f = [sp.expand(RHO * (u[k - 1] ** d - u[k] ** d) - k * (u[k] - u[k + 1])) for k in range(1, C + 1)]
        return f, [], u[C] ** d

    def template_invariants_blocking(self, model):
        """The template's invariants (none) and blocking ``u_C^d``.

        Parameters
        ----------
        model : PowerOfD
            The model.

        Returns
        -------
        tuple
            ``(None, [], blocking)``.
        """
        return None, [], model.variables[-1] ** model.d

    def template_poly(self, model):
        """The template drift as sparse polynomials: row ``k`` is
        ``rho u_{k-1}^d - rho u_k^d - k u_k + k u_{k+1}`` (``u_0 = 1``, ``u_{C+1} = 0``; index ``C``
        stands for rho).

        Parameters
        ----------
        model : PowerOfD
            The model.

        Returns
        -------
        list of dict
            One ``{monomial: Fraction}`` per row.

        Raises
        ------
        ValueError
            If the state does not have ``C`` variables.
        """
        from fractions import Fraction as F
        C, d = model.C, model.d
        if len(model.variables) != C:
            raise ValueError("state length")
        R = C
        rows = []
        for k in range(1, C + 1):
            row: dict = {}
            prev = ((R, 1),) if k == 1 else tuple(sorted(((k - 2, d), (R, 1))))
            row[prev] = F(1)
            row[tuple(sorted(((k - 1, d), (R, 1))))] = F(-1)
            row[((k - 1, 1),)] = F(-k)
            if k < C:
                row[((k, 1),)] = F(k)
            rows.append(row)
        return rows

    @staticmethod
    def _shoot(C, d, s: arb, rho: arb):
        """Returns (G, dG/dlog s, u list) with G = log(u_0^d) computed downwards from u_C = s."""
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

    @staticmethod
    def _float_G(C, d, t: float, rho: float) -> float:
        """G(t) = log(u_0^d) from u_C = e^t, in float64 and log space (numba kernel)."""
        return _power_kernels().power_shoot_float(int(C), int(d), float(t), float(rho))

    def float_start(self, C, d, rho: float):
        """Float root of ``G(t) = 0`` (``G`` increases in ``t``, ``G(0) > 0``, ``G -> -inf``):
        safeguarded Newton with the derivative carried by the kernel, inside a bracket found in
        ``v = log(-t)`` (so that ``|t|`` up to 1e300 costs a few dozen evaluations).

        Parameters
        ----------
        C, d : int
            Capacity and number of samples.
        rho : float
            Load per server.

        Returns
        -------
        float or tuple or None
            ``t = log u_C``; ``("v", v)`` with ``t = -exp(v)`` beyond the float range of ``t``;
            ``None`` when no float root is found.

        Examples
        --------
        >>> import math
        >>> from symloss.meanfield.accelerators import POWER
        >>> round(math.exp(POWER.float_start(2, 2, 1.0)), 12)      # u_2 at rho = 1
        0.230292578846
        """
        K = _power_kernels()
        C, d, rho = int(C), int(d), float(rho)
        try:
            G = lambda t: K.power_shoot_float(C, d, t, rho)  # noqa: E731
            if G(-1.0) < 0:
                lo, hi = -1.0, 0.0
            else:
                v_hi = 1.0
                while G(-math.exp(v_hi)) >= 0:
                    if v_hi >= 705:
                        return self._float_start_v(C, d, rho)
                    v_hi = min(2 * v_hi, 705.0)
                v_lo = v_hi / 2 if v_hi > 1 else 0.0
                # bisection in v to a factor 2 in t, then Newton in t
                while v_hi - v_lo > math.log(2.0):
                    vm = 0.5 * (v_lo + v_hi)
                    if G(-math.exp(vm)) >= 0:
                        v_lo = vm
                    else:
                        v_hi = vm
                lo, hi = -math.exp(v_hi), -math.exp(v_lo) if v_lo > 0 else -1.0
            t = 0.5 * (lo + hi)
            for _ in range(100):
                g, dg = K.power_shoot_float_d(C, d, t, rho)
                if g > 0:
                    hi = t
                elif g < 0:
                    lo = t
                else:
                    return t
                t_new = t - g / dg if dg > 0 and math.isfinite(dg) else 0.5 * (lo + hi)
                if not (lo < t_new < hi):
                    t_new = 0.5 * (lo + hi)
                if abs(t_new - t) <= 4e-16 * abs(t) or hi - lo <= 4e-16 * abs(t):
                    return t_new
                t = t_new
            return t
        except (OverflowError, ValueError, ZeroDivisionError, RuntimeError):
            return None

    def _float_start_v(self, C, d, rho):
        """Root in v = log(-t) beyond the float range of t (``("v", v)``), or None."""
        from scipy.optimize import brentq
        K = _power_kernels()
        H = lambda v: K.power_shoot_float_v(C, d, v, rho)  # noqa: E731   decreasing in v
        v_lo, v_hi = 690.0, 1380.0
        while H(v_hi) >= 0:
            v_lo, v_hi = v_hi, 2 * v_hi
            if v_hi > 1e300:
                return None
        if H(v_lo) < 0:
            return None
        return ("v", brentq(H, v_lo, v_hi, xtol=1e-300, rtol=1e-15, maxiter=400))

    def float_log_blocking(self, model, rho: float) -> float:
        """``log B = d t`` in float64 (fast scans; the ball solve where ``t`` leaves the float range).

        Parameters
        ----------
        model : PowerOfD
            The model.
        rho : float
            Load per server.

        Returns
        -------
        float
        """
        t = self.float_start(model.C, model.d, rho)
        if isinstance(t, tuple):
            t = None
        if t is None:
            return float(mpmath.log(self.solve(model, mpmath.mpf(rho), 15, residual=False).blocking))
        return model.d * t

    def solve(self, model, rho, dps, residual=True):
        """The certified fixed point by shooting (precision raised until ``dps`` digits hold).

        Parameters
        ----------
        model : PowerOfD
            The model (for which :meth:`applies` holds).
        rho : int, float, Fraction, mpmath.mpf or any real the input layer accepts
            Load per server, taken exactly (a float is its binary value; a non-dyadic rational is a
            ball of each working precision, never a rounded point).
        dps : int
            Significant digits of the blocking.
        residual : bool
            Compute the drift residual of the returned state.

        Returns
        -------
        FixedPointResult
            ``blocking_bracket`` is the certified ball :math:`[e^{d t_-}, e^{d t_+}]` converted
            outward.

        Raises
        ------
        PrecisionError
            If ``dps`` digits cannot be certified.
        """
        C, d = model.C, model.d
        rho = _exact_load(rho)      # exact; a ball of each working precision below (to_arb)
        rf = _float_rho(rho)
        t0 = self.float_start(C, d, rf) if rf is not None else None
        # log2 |t|: from the float start, else the growth of the exponents u_k ~ u_{k-1}^d (|t| <= d^C |log rho|)
        if isinstance(t0, tuple):          # ("v", v): t = -exp(v) beyond the float range
            v0 = t0[1]
            extra = int(v0 / math.log(2)) + 8
            with flint_prec(extra + 128):
                t0 = arb((-(arb(v0).exp())).mid())
        elif t0 is not None:
            extra = int(math.log2(1.0 + abs(t0)))
        else:
            with mpmath.workdps(20):
                lr = abs(mpmath.log(to_mpf(rho))) + 1
                extra = int(C * math.log2(max(d, 2)) + float(mpmath.log(lr, 2))) + 8
        prec = dps_to_prec(dps) + 40 + 2 * int(math.log2(C + 2)) + extra
        # B = exp(d t): t is needed to absolute accuracy delta (relative accuracy of B: 2 d delta)
        delta = arb(10) ** (-(dps + 3)) / d
        while prec <= _MAX_PREC:
            with flint_prec(prec):
                r = to_arb(rho)
                t, status, t_lo, t_hi, need = self._solve_t(C, d, r, prec, delta, t0)
                if status == "precision":
                    prec = max(2 * prec, need) if need > prec else 2 * prec
                    continue
                if status == "ok":
                    B_ball = (arb(t_lo) * d).exp().union((arb(t_hi) * d).exp())
                    if arb_relative_accuracy_ok(B_ball, dps):
                        _, _, us = self._shoot(C, d, arb(t).exp(), r)
                        x = [arb(us[k].mid()) for k in range(1, C + 1)]
                        break
            prec *= 2
        else:
            raise PrecisionError(f"power-of-{d} fixed point at rho={rho} not certified to {dps} digits")
        return _finish(model, rho, x, B_ball, dps, residual,
                       "shooting on log u_C; safeguarded Newton in arb; ball-certified sign change",
                       {"certificate": {"kind": "sign change of G(t) = log u_0^d at t -+ delta",
                                        "t": t.mid().str(30, radius=False), "delta": delta.mid().str(5, radius=False),
                                        "prec": prec}})

    def _required_prec(self, C, d, t, r, prec, delta):
        """Bits needed so that G(t) is known to |G'(t)| delta / 100 (the downward recursion loses
        bits to cancellation, about the same number at any precision): (G, G', needed precision)."""
        G, dG, _ = self._shoot(C, d, t.exp(), r)
        if not (G.is_finite() and dG.is_finite()) or dG.is_zero():
            return G, dG, 2 * prec
        target = abs(dG).mid() * delta / 100
        rad = G.rad()
        if rad <= target:
            return G, dG, prec
        lost = float((rad / target).log().mid()) / math.log(2)
        return G, dG, prec + int(lost) + 32

    def _solve_t(self, C, d, r: arb, prec: int, delta, t0=None):
        """Returns (t, status, t_lo, t_hi, needed_prec) with status "ok" (certified bracket
        [t_lo, t_hi] = t -+ delta with G(t_lo) < 0 < G(t_hi)), "precision" (more bits needed) or
        "fail"."""
        if t0 is not None:
            t = t0 if isinstance(t0, arb) else arb(t0)
            G, dG, need = self._required_prec(C, d, t, r, prec, delta)
            if need > prec:
                return t, "precision", t, t, need
            # Newton from the float start first (G increases in t: the signs seen bound the root)
            res = self._newton_t(C, d, r, delta, t, arb(-math.inf), arb(math.inf), first=(G, dG))
            if res[1] != "nobracket":
                return res
            # a bracket around the float start
            w = abs(t) * arb(10) ** -12 + 1
            lo, hi = arb((t - w).mid()), arb((t + w).mid())
            for _ in range(200):
                g_lo = self._shoot(C, d, lo.exp(), r)[0]
                g_hi = self._shoot(C, d, hi.exp(), r)[0]
                if g_lo < 0 and g_hi > 0:
                    return self._newton_t(C, d, r, delta, t, lo, hi)
                if not (g_lo < 0):
                    lo = arb((lo - 4 * w).mid())
                if not (g_hi > 0):
                    hi = arb((hi + 4 * w).mid())
                w *= 4
                if not (hi < 0):
                    hi = arb(0)
        t = self._arb_start(C, d, r)
        if t is None:
            raise PrecisionError("could not bracket the power-of-d fixed point")
        return self._solve_t(C, d, r, prec, delta, t)

    def _arb_start(self, C, d, r):
        """Start for |t| beyond the float range: bisection in v = log(-t) with ball shooting (H(v) =
        G(-e^v) decreases in v), to relative accuracy 1e-15 in v."""
        H = lambda v: self._shoot(C, d, (-(v.exp())).exp(), r)[0]  # noqa: E731
        if self._shoot(C, d, arb(-1).exp(), r)[0] < 0:
            lo, hi = arb(-1), arb(0)
            return arb(((lo + hi) / 2).mid())
        def negative(h):   # G -> -inf as t -> -inf: a non-finite ball means "far below the root"
            return (not h.is_finite()) or h < 0
        v_lo, v_hi = arb(0), arb(1)
        for _ in range(64):
            if negative(H(v_hi)):
                break
            v_lo, v_hi = v_hi, v_hi * 2
        else:
            return None
        for _ in range(200):
            if v_hi - v_lo < arb(10) ** -15 * v_hi:
                break
            vm = arb(((v_lo + v_hi) / 2).mid())
            hm = H(vm)
            if negative(hm):
                v_hi = vm
            elif hm > 0:
                v_lo = vm
            else:
                break
        return arb((-(((v_lo + v_hi) / 2).exp())).mid())

    def _newton_t(self, C, d, r, delta, t, t_lo, t_hi, first=None):
        """Safeguarded Newton on G(t) = 0 inside the bracket [t_lo, t_hi] (G(t_lo) < 0 < G(t_hi);
        infinite ends: status "nobracket" if a step leaves it) until the step is below delta / 100,
        then the certificate G(t - delta) < 0 < G(t + delta)."""
        for _ in range(400):
            if first is not None:
                (G, dG), first = first, None
            else:
                G, dG, _ = self._shoot(C, d, t.exp(), r)
            Gm = G.mid()
            if Gm > 0:
                t_hi = arb(t.mid())
            else:
                t_lo = arb(t.mid())
            step = arb(Gm) / arb(dG.mid()) if dG.mid() != 0 else arb(0)
            if abs(step) <= delta / 100:        # converged (tested before the bracket guard)
                t = arb((t - step).mid())
                break
            t_new = arb((t - step).mid())
            if not (t_lo.mid() < t_new.mid() < t_hi.mid()):
                if not (t_lo.is_finite() and t_hi.is_finite()):
                    return t, "nobracket", t, t, 0
                t_new = arb(((t_lo + t_hi) / 2).mid())
            t = t_new
            if abs(t_hi - t_lo) <= delta / 100:
                break
            if G.rad() > abs(G.mid()) and abs(step) > delta / 100:
                # G is below its own rounding noise while t is not yet within delta: more bits
                need = self._required_prec(C, d, t, r, _flint_precision(), delta)[2]
                return t, "precision", t, t, need
        a_lo, a_hi = arb((t - delta).mid()), arb((t + delta).mid())
        g_lo = self._shoot(C, d, a_lo.exp(), r)[0]
        g_hi = self._shoot(C, d, a_hi.exp(), r)[0]
        if g_lo < 0 and g_hi > 0:
            return t, "ok", a_lo, a_hi, 0
        if g_lo > 0 or g_hi < 0:   # decided, but no sign change: not a root bracket
            return t, "fail", a_lo, a_hi, 0
        need = self._required_prec(C, d, t, r, _flint_precision(), delta)[2]
        return t, "precision", a_lo, a_hi, max(need, 2 * _flint_precision())


_KERNELS = None


def _power_kernels():
    """The numba kernels (imported, and compiled or loaded from the cache, on first use)."""
    global _KERNELS
    if _KERNELS is None:
        from . import _kernels
        _KERNELS = _kernels
    return _KERNELS


def _flint_precision() -> int:
    from flint import ctx
    return ctx.prec


# ==================================================================================================
# JSQ: closed form
# ==================================================================================================

class JSQAccelerator(_Accelerator):
    r"""The closed form of fluid JSQ: :math:`u_k = \min(1, \max(0, \rho - k + 1))`,
    :math:`B = \max(0, 1 - C/\rho)`. Registered for :class:`~symloss.JSQ` (the instance
    :data:`JSQ_CLOSED_FORM`).

    See Also
    --------
    RetrialAccelerator, PowerAccelerator

    Examples
    --------
    >>> from symloss import JSQ
    >>> from symloss.meanfield.accelerators import JSQ_CLOSED_FORM
    >>> JSQ_CLOSED_FORM.solve(JSQ(2), 3, 15).x
    [mpf('1.0'), mpf('1.0')]
    """
    name = "closed form (fluid JSQ)"

    def template(self, model):
        C = model.C
        u = [sp.Integer(1)] + list(model.variables) + [sp.Integer(0)]
        H = sp.Heaviside
        f = []
        for k in range(1, C + 1):
            lower_full = sp.Integer(1) if k == 1 else H(u[k - 1] - 1, 1)
            f.append(sp.expand(RHO * lower_full * (1 - H(u[k] - 1, 1)) - k * (u[k] - u[k + 1])))
        return f, [], sp.Max(0, 1 - C / RHO)

    def verify(self, model, res, dps):
        """The closed form is exact for the template, and :meth:`applies` checked the identity.

        Parameters
        ----------
        model : JSQ
            The model.
        res : FixedPointResult
            The answer.
        dps : int
            The digits asked for.

        Returns
        -------
        tuple of (bool, str)
        """
        return True, "closed form of the JSQ template (the definition is identical to it)"

    @staticmethod
    def fluid_rhs(C: int, rho: float, u):
        r"""The Filippov (sliding-mode) solution of the definition's discontinuous JSQ drift, for the
        ODE: the arrival flux :math:`\rho` first keeps the full levels full (level ``k`` needs
        :math:`k (u_k - u_{k+1})` to replace its departures), from the lowest up; what remains goes to
        the first level that is not full. Where the drift is continuous (no level exactly full but the
        ones below the first non-full level) this is the definition's drift.

        Parameters
        ----------
        C : int
            Capacity.
        rho : float
            Load per server.
        u : array_like
            Tails ``u_1, ..., u_C`` (clipped to ``[0, 1]``).

        Returns
        -------
        numpy.ndarray
            ``du/dt``.

        Examples
        --------
        >>> from symloss.meanfield.accelerators import JSQAccelerator
        >>> JSQAccelerator.fluid_rhs(2, 3.0, [1.0, 0.5]).tolist()      # level 1 kept full, the rest to level 2
        [0.0, 1.5]
        """
        import numpy as np
        u = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
        ext = np.concatenate(([1.0], u, [0.0]))
        out = np.empty(C)
        remaining = rho
        for k in range(1, C + 1):
            dep = k * (ext[k] - ext[k + 1])
            if ext[k] >= 1.0 - 1e-12 and remaining >= dep:
                flux = dep                       # kept full
            else:
                flux = remaining                 # the first level that is not full takes the rest
            flux = max(0.0, min(flux, remaining))
            remaining -= flux
            out[k - 1] = flux - dep
        return out

    def solve(self, model, rho, dps, residual=True):
        r"""The closed-form fixed point, computed from the exact load.

        The load is kept exact up to the final rounding: a rational (``int``, ``Fraction``, SymPy
        ``Rational``, ...) gives :math:`B = (p - C q)/p` in exact rational arithmetic, a binary value
        (a float, an ``mpf``) is an exact ``arb`` point, and :math:`\rho - C`, :math:`1 - C/\rho` and
        :math:`\rho - k + 1` are balls (no cancellation of a rounded load, e.g. at
        :math:`\rho = C + 10^{-40}`). ``blocking_bracket`` is the ball of ``B`` converted outward.

        Parameters
        ----------
        model : JSQ
            The model.
        rho : int, float, Fraction, mpmath.mpf or any real the input layer accepts
            Load per server (exact; a flint ball with a radius is used as the ball).
        dps : int
            Significant digits.
        residual : bool
            Unused (the residual of the closed form is 0).

        Returns
        -------
        FixedPointResult

        Raises
        ------
        PrecisionError
            If ``rho`` is a ball too wide for ``dps`` digits (or containing a kink ``rho = C`` or
            ``rho = k`` of the closed form).

        Examples
        --------
        >>> from fractions import Fraction
        >>> from symloss import JSQ
        >>> from symloss.meanfield.accelerators import JSQ_CLOSED_FORM
        >>> import mpmath
        >>> r = JSQ_CLOSED_FORM.solve(JSQ(3), Fraction(3 * 10**40 + 1, 10**40), 15)
        >>> mpmath.nstr(r.blocking, 15)                 # 1/(3e40 + 1)
        '3.33333333333333e-41'
        >>> lo, hi = r.blocking_bracket                 # a ball around it, not the point repeated
        >>> lo < hi
        True
        """
        C = model.C
        v = _exact_load(rho)
        prec = dps_to_prec(dps) + 64
        with flint_prec(prec):
            B, u = self._balls(C, v, rho)
            if not (arb_relative_accuracy_ok(B, dps) and all(arb_relative_accuracy_ok(t, dps) for t in u)):
                raise PrecisionError(f"JSQ closed form at rho={rho}: the load ball is too wide for {dps} digits")
            x_work = [arb_to_mpf(t) for t in u]          # exact midpoints
        with mpmath.workdps(dps + 15):
            rm = _rho_mpf(rho)
        with flint_prec(dps_to_prec(dps) + 128):
            bracket = (arb_to_mpf(arb(B.lower())), arb_to_mpf(arb(B.upper())))
        return FixedPointResult("jsq", rm, [rounded(t, dps) for t in x_work], rounded(arb_to_mpf(B), dps), bracket,
                                mpmath.mpf(0),
                                "closed form (fluid JSQ): u_k = min(1, max(0, rho - k + 1)), B = max(0, 1 - C/rho)",
                                dps, {"_x_work": _WorkState(x_work, v)})

    @staticmethod
    def _balls(C, v, rho):
        """``(B, [u_1, ..., u_C])`` as balls at the current precision from the exact load ``v``."""
        from flint import fmpq
        d = v.denominator if isinstance(v, Fraction) else 1
        if d & (d - 1):                                   # a non-dyadic rational p/q: exact arithmetic
            q = fmpq(v.numerator, d)
            B = arb(fmpq(v.numerator - C * d, v.numerator)) if q > C else arb(0)
            return B, [arb(min(fmpq(1), max(fmpq(0), q - (k - 1)))) for k in range(1, C + 1)]
        r = to_arb(v)                   # an exact point (int, float, mpf, dyadic), or a ball with a radius

        def piece(lo: int, hi: int, t):
            # the closed form's branch decided on the load itself (exact for a point), then its value
            if r <= lo:
                return arb(0)
            if hi is not None and r >= hi:
                return arb(1)
            if r > lo and (hi is None or r < hi):
                return t()
            raise PrecisionError(f"JSQ closed form at rho={rho}: the load ball contains the kink rho = "
                                 f"{lo if not r > lo else hi} of the closed form; its value is not determined")
        B = piece(C, None, lambda: (r - C) / r)
        return B, [piece(k - 1, k, lambda k=k: r - (k - 1)) for k in range(1, C + 1)]


#: the accelerator registered for :class:`~symloss.RetrialOfD` (and :class:`~symloss.RandomRouting`)
RETRIAL = RetrialAccelerator()
#: the accelerator registered for :class:`~symloss.PowerOfD`
POWER = PowerAccelerator()
#: the accelerator registered for :class:`~symloss.JSQ`
JSQ_CLOSED_FORM = JSQAccelerator()
register_accelerator(RetrialOfD, RETRIAL)
register_accelerator(PowerOfD, POWER)
register_accelerator(JSQ, JSQ_CLOSED_FORM)


def float_log_blocking(model, rho: float) -> float:
    """``log B`` in float64 at load ``rho``: the accelerator's float path where it applies, else the
    generic float continuation (used by the scans of :mod:`symloss.meanfield.compare`).

    Parameters
    ----------
    model : MeanFieldModel
        The model.
    rho : float
        Load per server, ``> 0``.

    Returns
    -------
    float
        The natural logarithm of the blocking (not certified: for scans).

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.meanfield.accelerators import float_log_blocking
    >>> round(float_log_blocking(PowerOfD(2, 2), 1.0), 10)
    -2.9368093931
    """
    from ..core.registry import accelerator_for
    acc = accelerator_for(model)
    if acc is not None and hasattr(acc, "float_log_blocking") and acc.applies(model)[0]:
        return acc.float_log_blocking(model, rho)
    from ..core.certify import float_fixed_point
    y = float_fixed_point(model, rho)
    return model.compiled.log_blocking(y, math.log(rho))

