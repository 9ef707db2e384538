r"""The JSQ accelerator (``JSQAccelerator``, the instance :data:`JSQ_CLOSED_FORM`; re-exported by
:mod:`symloss.meanfield.accelerators`, which registers it): the closed form of the fluid limit,
:math:`u_k = \min(1, \max(0, \rho - k + 1))`, :math:`B = \max(0, 1 - C/\rho)`.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp
from flint import arb

from ..core.certify import FixedPointResult
from ..core.model import RHO
from ..core.piecewise import verify_point
from ..core.precision import (
    PrecisionError,
    arb_relative_accuracy_ok,
    arb_to_mpf,
    dps_to_prec,
    flint_prec,
    rounded,
    to_arb,
)
from .accel_base import _Accelerator, _exact_load, _rho_mpf, _WorkState

# ==================================================================================================
# JSQ: closed form
# ==================================================================================================

class JSQAccelerator(_Accelerator):
    r"""The closed form of fluid JSQ: :math:`u_k = \min(1, \max(0, \rho - k + 1))`,
    :math:`B = \max(0, 1 - C/\rho)`. Registered for :class:`~symloss.JSQ` (the instance
    ``JSQ_CLOSED_FORM``).

    See Also
    --------
    PowerAccelerator : the shooting accelerator of power-of-d (JSQ is its limit as ``d`` grows to
        every server; its fixed point lies on a face of the state space, where shooting does not apply).
    symloss.core.piecewise.piecewise_fixed_point : the piecewise-smooth solver that proves the same
        point from the Heaviside definition before this closed form answers.

    Examples
    --------
    >>> from symloss import JSQ
    >>> from symloss.meanfield.accelerators import JSQ_CLOSED_FORM
    >>> JSQ_CLOSED_FORM.solve(JSQ(2), 3, 15).x
    [mpf('1.0'), mpf('1.0')]
    """
    name = "closed form (fluid JSQ)"

    def template(self, model):
        """The fluid JSQ drift with Heaviside switches and the blocking ``max(0, 1 - C/rho)``
        (in the model's own variables; ``_Accelerator.template``).

        Parameters
        ----------
        model : JSQ
            A JSQ model (capacity ``C``).

        Returns
        -------
        tuple
            ``(drift, [], blocking)``: JSQ has no invariant.
        """
        C = model.C
        u = [sp.Integer(1)] + list(model.variables) + [sp.Integer(0)]
        H = sp.Heaviside
        f = []
        for k in range(1, C + 1):
            lower_full = sp.Integer(1) if k == 1 else H(u[k - 1] - 1, 1)
            f.append(sp.expand(RHO * lower_full * (1 - H(u[k] - 1, 1)) - k * (u[k] - u[k + 1])))
        return f, [], sp.Max(0, 1 - C / RHO)

    def verify(self, model, res, dps):
        """Check the closed-form answer on the definition's own piecewise equations: the piecewise
        certified solver (:func:`symloss.core.piecewise.verify_point`) proves the Filippov fixed point
        of the definition's piece at the closed-form state (Krawczyk on the piece's system, the branch
        signs on its box, an exact solution for this linear piece) and the closed form must equal it.
        The certificate is attached to ``res.extra["certificate"]``.

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

        Examples
        --------
        >>> from symloss import JSQ
        >>> from symloss.meanfield.accelerators import JSQ_CLOSED_FORM
        >>> m = JSQ(2)
        >>> JSQ_CLOSED_FORM.verify(m, JSQ_CLOSED_FORM.solve(m, 3, 15), 15)[0]
        True
        """
        work = res.extra.get("_x_work")
        rho = getattr(work, "rho", res.rho)
        x = list(work) if work is not None else list(res.x)
        ok, why, cert_res = verify_point(model, rho, x, dps)
        if ok:
            res.extra["certificate"] = cert_res.extra["certificate"]
            res.extra["parts"] = dict(cert_res.extra["parts"])
            if cert_res.blocking != res.blocking and abs(cert_res.blocking - res.blocking) > \
                    mpmath.mpf(10) ** (-dps) * max(1, abs(res.blocking)):
                return False, (f"the definition's blocking {cert_res.blocking} at the certified state differs from "
                               f"the closed form {res.blocking}")
        return ok, why

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


#: the accelerator registered for :class:`~symloss.JSQ`
JSQ_CLOSED_FORM = JSQAccelerator()

# public home of the class (as numpy's ``set_module``): its documented path, unchanged by the split of issue 22
JSQAccelerator.__module__ = "symloss.meanfield.accelerators"
