r"""The common machinery of the mean-field accelerators (:mod:`symloss.meanfield.accelerators`): the
binding of an accelerator to a definition (``applies``: exact identity with its template, cached per
definition), the verification of an answer on the definition's compiled equations (``verify``), the
exact load and the :class:`~symloss.core.certify.FixedPointResult` built from a certified ball, and the
cache of the bindings of the certified comparisons (:class:`BindingError`, re-exported by
:mod:`symloss.meanfield.enclosures`).
"""
from __future__ import annotations

import math

import mpmath
from flint import arb, fmpq

from ..core.certify import FixedPointResult
from ..core.precision import (
    arb_to_mpf,
    dps_to_prec,
    flint_prec,
    to_arb,
    to_mpf,
)
from ..core.registry import FastPath, definition_identity, same_system
from ..core.validation import exact_real

#: working-precision cap (bits) of the accelerators' solves
_MAX_PREC = 1 << 16


class BindingError(ValueError):
    """The model's definition is not the template the one-dimensional reduction needs."""


#: the bindings of the certified comparisons (``retrial_binding``, ``power_binding``): the derived data
#: of a binding (the template's parameters, the telescoped identity), keyed on the definition like every
#: binding (:func:`symloss.core.registry.definition_identity`); whether the template applies is the
#: registry's one binding cache (:meth:`_Accelerator.applies`)
_BINDING_CACHE: dict = {}


def _binding_key(model):
    return definition_identity(model)


# ==================================================================================================
# common machinery
# ==================================================================================================

def _identical(a, b) -> bool:
    """The one exact "same system" check (:func:`symloss.core.registry.same_system`)."""
    return same_system(a, b)


def _same_invariants_and_blocking(model, invariants, blocking, identity: str):
    """The last two steps of :meth:`_Accelerator.applies`, once the drift matched: the model's
    invariants and blocking against the template's; ``(ok, reason)``, the reason naming the kind of
    ``identity`` that held."""
    inv = [(list(c), v) for c, v in model._invariants]
    if len(inv) != len(invariants) or any(list(c) != list(c2) or v != v2 for (c, v), (c2, v2) in
                                          zip(inv, invariants)):
        return False, "the invariants differ"
    if not _identical(model._blocking, blocking):
        return False, "the blocking expression differs"
    return True, f"the definition is the template system of the reduction ({identity})"


class _Accelerator(FastPath):
    """Common machinery of the accelerators: the binding to a definition (``applies``) and the
    verification of an answer on the definition's compiled equations (:meth:`verify`)."""
    name = "accelerator"
    #: ``True`` when the accelerator's ``uniqueness`` hook (where it has one) proves uniqueness for every load
    #: at once, whatever load it is asked at (the piecewise comparisons use it for a whole load range)
    uniqueness_every_load = False

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

    # applies: FastPath.applies, the registry's one binding cache (symloss.core.registry.binding) over
    # decide, the uncached check below
    def decide(self, model):
        return self._check(model)

    def template_poly(self, model):
        """The template drift as sparse polynomials (same keys as ``model._drift_poly``).

        Parameters
        ----------
        model : MeanFieldModel
            The model whose sparse drift is compared with these rows (``applies``).

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
            return _same_invariants_and_blocking(model, invariants, blocking, "exact polynomial identity")
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
        return _same_invariants_and_blocking(model, invariants, blocking, "exact SymPy identity")

    def warn_on_mismatch(self, model) -> bool:
        return True              # certify.solve warns when a shipped class's definition was edited

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
