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

import math

import sympy as sp
from flint import arb

from ..core.certify import float_fixed_point
from ..core.docstrings import fill_doc
from ..core.model import RHO
from ..core.precision import (
    arb_relative_accuracy_ok,
    arb_to_mpf,
    dps_to_prec,
    flint_prec,
    raise_precision,
    rounded,
    to_arb,
)
from ..core.registry import accelerator_for, register_accelerator
from ..erlang.balls import erlang_b_parts_ball, tail_poly
from ..erlang.floats import _log_erlang_b_scalar as leb
from ._docfragments import MEANFIELD_DOCS
from .accel_base import _BINDING_CACHE, _MAX_PREC, BindingError, _Accelerator, _binding_key, _exact_load, _finish
from .accel_jsq import JSQ_CLOSED_FORM, JSQAccelerator
from .accel_power import POWER, PowerAccelerator
from .lemmas import retrial_g_lemma
from .models import JSQ, PowerOfD, RetrialOfD

__all__ = ["RETRIAL", "POWER", "JSQ_CLOSED_FORM", "RetrialAccelerator", "PowerAccelerator", "JSQAccelerator"]

#: :math:`Q(a) = \sum_{k<C} \frac{C!}{k!} a^k` (:func:`symloss.erlang.balls.tail_poly`), read here at each
#: evaluation of :meth:`RetrialAccelerator._E_parts` (a mutation test replaces it)
_tail_poly = tail_poly


# ==================================================================================================
# retrial-of-d / random routing: the Erlang-B reduction
# ==================================================================================================

@fill_doc(MEANFIELD_DOCS)
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
    >>> from symloss.meanfield.accelerators import RETRIAL
    >>> res = RETRIAL.solve(RetrialOfD(2, 2), 1, 20)
    >>> str(res.extra["a"])[:10]             # the load of a non-full server, 2^(1/3)
    '1.25992104'
    >>> str(res.blocking)[:12]               # B = E(2, a)^2
    '0.0675589521'
    """
    name = "Erlang-B reduction"
    uniqueness_every_load = True
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
        {{uniqueness_rho_returns}}
        """
        if not self.applies(model)[0]:
            return None
        C, d = int(model.C), int(model.d)
        if C * (d - 1) > self.UNIQUENESS_MAX_WORK:
            return ("NOT CHECKED", f"NOT CHECKED (C (d - 1) = {C * (d - 1)} > {self.UNIQUENESS_MAX_WORK}: the exact "
                                   f"monotonicity lemma of the Erlang-B reduction is not recomputed here)")
        if not retrial_g_lemma(C, d)["holds"]:      # pragma: no cover - proved for every C, d tried
            return ("UNDECIDED", "UNDECIDED (the monotonicity lemma of g does not hold as computed)")
        return ("PROVED", "PROVED on the simplex for every load: the definition is the birth-death template "
                          "(exact identity), so a fixed point is Erlang with rho = g(a) = a/sigma_d(E(C,a)), and "
                          "g increases from 0 to oo (exact lemma: the numerator of g' has non-negative "
                          "coefficients; retrial_g_lemma)")

    def template(self, model):
        """The birth-death drift of arrival rate ``rho (1 + x_C + ... + x_C^(d-1))``, the invariant
        ``sum x = 1`` and the blocking ``x_C^d``
        (in the model's own variables; ``_Accelerator.template``).

        Parameters
        ----------
        model : RetrialOfD
            A retrial-of-d model (capacity ``C``, ``d`` attempts).

        Returns
        -------
        tuple
            ``(drift, invariants, blocking)`` in the occupancies ``x_0..x_C``.
        """
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
            The model; its ``C + 1`` occupancies give the invariant, ``x_C`` the blocking.

        Returns
        -------
        tuple
            ``(None, [([1, ..., 1], 1)], x_C^d)``: no drift (:meth:`template_poly` gives it), the
            invariant ``sum x = 1`` and the blocking.
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
            A retrial-of-d model: its ``C + 1`` occupancies and ``d`` give the rows.

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
        return erlang_b_parts_ball(C, a, _tail_poly)

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

        {{float_log_blocking_sections}}
        """
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
            The model, for which ``applies`` holds (its definition is the birth-death template of the
            reduction).
        {{accel_solve_params}}

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

        def attempt(prec):
            with flint_prec(prec):
                r = to_arb(rho)
                need = 0
                if d == 1:
                    a = r
                    status = "ok"
                    E_lo = E_hi = self._E(r, C)
                else:
                    a, status, _a_lo, _a_hi, need, E_lo, E_hi = self._solve_a(C, d, r, prec, dps)
                if status == "ok":
                    B_ball = (E_lo ** d).union(E_hi ** d)
                    if arb_relative_accuracy_ok(B_ball, dps):
                        # the state at the point a (exact midpoint): x_C = E(C, a), x_{k-1} = k x_k / a
                        am_ball = arb(a.mid())
                        x = [arb(0)] * (C + 1)
                        x[C] = arb(self._E(am_ball, C).mid())
                        for k in range(C, 0, -1):
                            x[k - 1] = arb((x[k] * k / am_ball).mid())
                        return True, (x, B_ball, arb_to_mpf(am_ball)), None
            return False, None, need if need > prec else None

        x, B_ball, am = raise_precision(attempt, prec, max_prec=_MAX_PREC,
                                        what=f"retrial-of-{d} fixed point at rho={rho} to {dps} digits")
        return _finish(model, rho, x, B_ball, dps, residual,
                       "Erlang-B reduction p = E(C, a); safeguarded Newton on g(a) = a - rho (1 + p + ... + "
                       "p^(d-1)) in arb; ball-certified sign change",
                       {"a": rounded(am, dps)})


#: the accelerator registered for :class:`~symloss.RetrialOfD` (and :class:`~symloss.RandomRouting`)
RETRIAL = RetrialAccelerator()


def retrial_binding(model) -> dict:
    """Check that ``model``'s definition is the retrial-of-d template (exact SymPy identity of the
    drift, the invariant ``sum x = 1`` and the blocking ``x_C^d`` with the birth-death system of
    arrival rate ``rho (1 + x_C + ... + x_C^(d-1))``); returns ``{"C", "d", "identity"}``.

    Parameters
    ----------
    model : MeanFieldModel
        Any model.

    Returns
    -------
    dict
        ``{"C", "d", "identity"}`` (cached per definition).

    Raises
    ------
    BindingError
        When the definition is not the template.
    """
    key = ("retrial", _binding_key(model))
    if key not in _BINDING_CACHE:
        if not (hasattr(model, "C") and hasattr(model, "d")):
            raise BindingError(f"{model!r} has no (C, d): not a retrial-of-d definition")
        ok, reason = RETRIAL.applies(model)
        if not ok:
            raise BindingError(f"{model!r} is not the retrial-of-d template: {reason}")
        _BINDING_CACHE[key] = {"C": int(model.C), "d": int(model.d), "identity": reason}
    return dict(_BINDING_CACHE[key])


register_accelerator(RetrialOfD, RETRIAL)
register_accelerator(PowerOfD, POWER)
register_accelerator(JSQ, JSQ_CLOSED_FORM)


@fill_doc(MEANFIELD_DOCS)
def float_log_blocking(model, rho: float) -> float:
    """``log B`` in float64 at load ``rho``: the accelerator's float path where it applies, else the
    generic float continuation (used by the scans of :mod:`symloss.meanfield.compare`).

    {{float_log_blocking_sections}}

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.meanfield.accelerators import float_log_blocking
    >>> round(float_log_blocking(PowerOfD(2, 2), 1.0), 10)
    -2.9368093931
    """
    acc = accelerator_for(model)
    if acc is not None and hasattr(acc, "float_log_blocking") and acc.applies(model)[0]:
        return acc.float_log_blocking(model, rho)
    y = float_fixed_point(model, rho)
    return model.compiled.log_blocking(y, math.log(rho))

