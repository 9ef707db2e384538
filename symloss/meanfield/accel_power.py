r"""The power-of-d accelerator (``PowerAccelerator``, the instance :data:`POWER`; re-exported by
:mod:`symloss.meanfield.accelerators`, which registers it): shooting on :math:`t = \log u_C`, the
stationary equations giving :math:`u_{k-1}^d = u_k^d + k (u_k - u_{k+1})/\rho` downwards from
:math:`u_C = e^t`; :math:`G(t) = \log u_0^d = 0` solved by Newton in ``arb`` from a float start in
log space; a ball sign change of ``G`` certifies it. :func:`power_binding` binds a model to the
reduction of the certified comparisons (template and telescoped drift, exact SymPy identities).

The numba kernels (``symloss.meanfield._kernels``) are imported on first use (``_power_kernels``):
that import stays lazy so that importing symloss does not load numba or compile the kernels.
"""
from __future__ import annotations

import math

import mpmath
import sympy as sp
from flint import arb

from ..core.docstrings import fill_doc
from ..core.model import RHO
from ..core.precision import (
    PrecisionError,
    arb_relative_accuracy_ok,
    dps_to_prec,
    flint_prec,
    raise_precision,
    to_arb,
    to_mpf,
)
from ._docfragments import MEANFIELD_DOCS
from .accel_base import (
    _BINDING_CACHE,
    _MAX_PREC,
    BindingError,
    _Accelerator,
    _binding_key,
    _exact_load,
    _finish,
    _float_rho,
)

# ==================================================================================================
# power-of-d: shooting on log u_C
# ==================================================================================================

@fill_doc(MEANFIELD_DOCS)
class PowerAccelerator(_Accelerator):
    r"""Shooting for power-of-d: :math:`u_{k-1}^d = u_k^d + k (u_k - u_{k+1})/\rho` downwards from
    :math:`u_C = e^t`, and :math:`G(t) = \log u_0^d = 0` solved by Newton in ``arb`` (float start in
    log space); a ball sign change of ``G`` certifies ``t``. Registered for
    :class:`~symloss.PowerOfD` (the instance ``POWER``).

    See Also
    --------
    RetrialAccelerator, JSQAccelerator

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.meanfield.accelerators import POWER
    >>> res = POWER.solve(PowerOfD(2, 2), 1, 20)
    >>> res.extra["certificate"]["t"][:12]            # t = log u_2, certified by a sign change of G
    '-1.468404696'
    >>> str(res.blocking)[:12]                         # B = e^(2 t)
    '0.0530346718'
    """
    name = "shooting"
    uniqueness_every_load = True
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
        {{uniqueness_rho_returns}}
        """
        if not self.applies(model)[0]:
            return None
        C = int(model.C)
        if C > self.UNIQUENESS_MAX_C:
            return ("NOT CHECKED", f"NOT CHECKED (C = {C} > {self.UNIQUENESS_MAX_C}: the telescoped identity is not "
                                   f"re-derived on the drift here)")
        try:
            power_binding(model)
        except BindingError as exc:           # pragma: no cover - applies() holds
            return ("UNDECIDED", f"UNDECIDED ({exc})")
        return ("PROVED", "PROVED on [0, 1]^C for every load: the model's drift telescopes (exact SymPy identity), "
                          "so a fixed point is determined by u_C = s through a strictly increasing shooting map "
                          "whose top value W_1(s) = u_0^d runs from 0 to >= 1 + 1/rho: exactly one root")

    def template(self, model):
        """The power-of-d drift in tail variables and the blocking ``u_C^d``
        (in the model's own variables; ``_Accelerator.template``).

        Parameters
        ----------
        model : PowerOfD
            A power-of-d model (capacity ``C``, ``d`` samples).

        Returns
        -------
        tuple
            ``(drift, [], blocking)`` in the tail variables ``u_1..u_C``.
        """
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
            The model; its last variable ``u_C`` gives the blocking.

        Returns
        -------
        tuple
            ``(None, [], u_C^d)``: no drift (:meth:`template_poly` gives it), no invariant, the blocking.
        """
        return None, [], model.variables[-1] ** model.d

    def template_poly(self, model):
        """The template drift as sparse polynomials: row ``k`` is
        ``rho u_{k-1}^d - rho u_k^d - k u_k + k u_{k+1}`` (``u_0 = 1``, ``u_{C+1} = 0``; index ``C``
        stands for rho).

        Parameters
        ----------
        model : PowerOfD
            A power-of-d model: its ``C`` tail variables and ``d`` give the rows.

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

        {{float_log_blocking_sections}}
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
            The model, for which ``applies`` holds (its definition is the power-of-d template).
        {{accel_solve_params}}

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
        def attempt(prec):
            with flint_prec(prec):
                r = to_arb(rho)
                t, status, t_lo, t_hi, need = self._solve_t(C, d, r, prec, delta, t0)
                if status == "precision":
                    return False, None, need if need > prec else None
                if status == "ok":
                    B_ball = (arb(t_lo) * d).exp().union((arb(t_hi) * d).exp())
                    if arb_relative_accuracy_ok(B_ball, dps):
                        _, _, us = self._shoot(C, d, arb(t).exp(), r)
                        return True, (t, B_ball, [arb(us[k].mid()) for k in range(1, C + 1)], prec), None
            return False, None, None

        t, B_ball, x, prec = raise_precision(attempt, prec, max_prec=_MAX_PREC,
                                             what=f"power-of-{d} fixed point at rho={rho} to {dps} digits")
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


#: the accelerator registered for :class:`~symloss.PowerOfD`
POWER = PowerAccelerator()

# public home of the class (as numpy's ``set_module``): its documented path, unchanged by the split of issue 22
PowerAccelerator.__module__ = "symloss.meanfield.accelerators"


def power_binding(model) -> dict:
    """Check that ``model``'s definition is the power-of-d template and that its own drift
    telescopes: for every ``k``, ``sum_{j=k}^{C} f_j = rho (u_{k-1}^d - u_C^d) - (k u_k + sum_{j>k} u_j)``
    (exact SymPy identity, ``u_0 = 1``); returns ``{"C", "d", "identity", "telescoped"}``.

    Parameters
    ----------
    model : MeanFieldModel
        Any model.

    Returns
    -------
    dict
        ``{"C", "d", "identity", "telescoped"}`` (cached per definition).

    Raises
    ------
    BindingError
        When the definition is not the template or its drift does not telescope.
    """
    key = ("power", _binding_key(model))
    if key not in _BINDING_CACHE:
        if not (hasattr(model, "C") and hasattr(model, "d")):
            raise BindingError(f"{model!r} has no (C, d): not a power-of-d definition")
        ok, reason = POWER.applies(model)
        if not ok:
            raise BindingError(f"{model!r} is not the power-of-d template: {reason}")
        C, d = int(model.C), int(model.d)
        u = [sp.Integer(1)] + list(model.variables)
        f = list(model.drift())
        acc = sp.Integer(0)
        tail = sp.Integer(0)
        for k in range(C, 0, -1):
            acc = acc + f[k - 1]
            expect = RHO * (u[k - 1] ** d - u[C] ** d) - (k * u[k] + tail)
            if sp.expand(acc - expect) != 0:
                raise BindingError(f"{model!r}: the sum of drift rows {k}..{C} is not the telescoped form")
            tail = tail + u[k]
        if sp.expand(model._blocking - u[C] ** d) != 0:
            raise BindingError(f"{model!r}: blocking is not u_C^d")
        _BINDING_CACHE[key] = {"C": C, "d": d, "identity": reason,
                               "telescoped": "sum_{j=k..C} f_j = rho (u_{k-1}^d - u_C^d) - (k u_k + sum_{j>k} u_j), "
                                             "k = 1..C (SymPy, the model's drift)"}
    return dict(_BINDING_CACHE[key])
