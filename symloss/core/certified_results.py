r"""The result types of the generic certified solver (:mod:`symloss.core.certify`): :class:`FixedPointResult`,
:class:`OdeResult`, :class:`Enclosure`, :class:`IntervalEnclosure`, :class:`DefinitionMismatchWarning`
and the outward decimal strings of a ball. Re-exported by :mod:`symloss.core.certify`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import math

import mpmath
import numpy as np
from flint import arb

from .precision import (
    flint_prec,
    to_arb,
)
from .results import ResultMixin

__all__ = ["DefinitionMismatchWarning", "outward_decimal_strings", "FixedPointResult", "OdeResult", "Enclosure",
           "IntervalEnclosure", "parse_exact"]

class DefinitionMismatchWarning(UserWarning):
    """An accelerator is registered for the model's class, but this definition differs from the
    equations it assumes (a subclass or an edit changed a rate): the generic certified solver is used."""


# ==================================================================================================
# results
# ==================================================================================================

def outward_decimal_strings(lo, hi, digits: int) -> list:
    """``[lo, hi]`` as decimal strings of ``digits`` significant digits rounded *outward* (``lo`` down,
    ``hi`` up), so the printed interval contains the exact one (round-to-nearest of both ends can
    print a point or an interval that misses a bound).

    Parameters
    ----------
    lo, hi : mpmath.mpf
        The interval ends, ``lo <= hi``.
    digits : int
        Significant digits, ``>= 1``.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import mpmath
    >>> outward_decimal_strings(mpmath.mpf(1) / 3, mpmath.mpf(1) / 3, 5)
    ['0.33333', '0.33334']
    >>> with mpmath.workdps(40):
    ...     third = mpmath.mpf(1) / 3
    >>> outward_decimal_strings(third, third, 25)                        # every bit of the mpf is used
    ['0.3333333333333333333333333', '0.3333333333333333333333334']
    >>> outward_decimal_strings(mpmath.mpf("-1.5e-2286906"), mpmath.mpf("1e-2286906"), 3)
    ['-1.5E-2286906', '1E-2286906']
    """
    import decimal

    def one(x, rounding):
        if not mpmath.isfinite(x):
            return mpmath.nstr(x, digits)
        # the exact binary value of x (an mpf keeps every bit it has, whatever the ambient precision)
        sign, man, exp, bc = (x if isinstance(x, mpmath.mpf) else mpmath.mpf(x))._mpf_
        if man == 0:
            return "0"
        d = max(1, int(digits))
        up = (rounding == decimal.ROUND_CEILING) != bool(sign)          # round |x| up?
        shift = math.floor((exp + bc - 1) * math.log10(2)) - d + 1      # |x| / 10^shift has about d digits
        while True:
            num = man * (1 << max(exp, 0)) * 10 ** max(-shift, 0)
            den = (1 << max(-exp, 0)) * 10 ** max(shift, 0)
            q, r = divmod(num, den)
            if q >= 10 ** d:                                            # the estimate was one digit short
                shift += 1
                continue
            if up and r:
                q += 1
            break
        ctx = decimal.Context(prec=d + 2, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
        v = decimal.Decimal(-q if sign else q).scaleb(shift, context=ctx).normalize(context=ctx)
        return format(v, "f") if abs(v.adjusted()) < 12 else str(v)
    return [one(lo, decimal.ROUND_FLOOR), one(hi, decimal.ROUND_CEILING)]


@dataclass
class FixedPointResult(ResultMixin):
    """A certified mean-field fixed point.

    Parameters
    ----------
    model : str
        The model's name.
    rho : mpmath.mpf
        The load.
    x : list of mpmath.mpf
        The state in the order of ``model.variables`` (``dps`` digits).
    blocking : mpmath.mpf
        Stationary blocking probability, ``dps`` significant digits.
    blocking_bracket : tuple of mpmath.mpf
        Rigorous enclosure ``(lo, hi)`` of the blocking of the certified fixed point.
    residual : mpmath.mpf
        Max-norm of the symbolic drift at ``x`` (NaN when not evaluated).
    method : str
        The solver that ran.
    dps : int
        The digits asked for (``str()`` and ``to_dict()`` show that many).
    extra : dict
        Method-specific data: for the generic solver ``box`` (the certified box in ``y = log x`` as
        ``(lo, hi)`` strings), ``certificate`` (Krawczyk margin, delta, precision); for an
        accelerator its own certificate and the verification on the definition;
        ``uniqueness_record`` (the record behind the two fields below, see
        ``fixed_point_uniqueness``).
    uniqueness : str
        Whether this is the only fixed point on the state space (``StateSpace``):
        ``"PROVED ..."`` (exclusion in interval arithmetic, re-checkable), ``"NOT UNIQUE: k fixed
        points ..."`` (each certified; which one this result is and which one the ODE from the
        default start reaches), ``"UNDECIDED ..."``, ``"EVIDENCE ..."`` (multi-start, not a proof)
        or ``"NOT CHECKED ..."`` with the reason.
    n_found : int or None
        The number of fixed points found on the state space (``None`` when not searched).

    Examples
    --------
    >>> from symloss import RetrialOfD
    >>> r = RetrialOfD(2, 2).fixed_point(1, dps=25)
    >>> r.to_dict()["blocking"]
    '0.06755895217845314521728442'
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
    uniqueness: str = "NOT CHECKED"
    n_found: Any = None

    def to_dict(self) -> dict:
        """Plain data: every number with the ``dps`` digits asked for (the bracket with 3 more, its
        ends rounded outward, so the printed bracket still contains the blocking).

        Returns
        -------
        dict
        """
        n = self.dps
        out = {"model": self.model, "rho": mpmath.nstr(self.rho, n), "x": [mpmath.nstr(v, n) for v in self.x],
               "blocking": mpmath.nstr(self.blocking, n),
               "blocking_bracket": outward_decimal_strings(*self.blocking_bracket, n + 3),
               "residual": mpmath.nstr(self.residual, 5), "method": self.method, "dps": n,
               "uniqueness": self.uniqueness, "n_found": self.n_found}
        for k, v in self.extra.items():
            out[k] = mpmath.nstr(v, n) if isinstance(v, mpmath.mpf) else v
        return out

    def __repr__(self) -> str:
        return (f"FixedPointResult({self.model}, rho={mpmath.nstr(self.rho, 8)}, "
                f"blocking={mpmath.nstr(self.blocking, min(self.dps, 20))}, "
                f"residual={mpmath.nstr(self.residual, 3)}, method={self.method!r}, "
                f"uniqueness={self.uniqueness.split(':')[0].split(' (')[0]!r}, n_found={self.n_found})")


@dataclass
class OdeResult(ResultMixin):
    """Trajectories of the mean-field ODE: ``t`` (n_t,), ``x`` (n_t, n_vars), ``blocking`` (n_t,).

    Parameters
    ----------
    t : numpy.ndarray
        Output times.
    x : numpy.ndarray
        The state at each time (rows).
    blocking : numpy.ndarray
        The blocking expression at each state.
    variables : tuple of sympy.Symbol
        The state variables (columns of ``x``).
    success : bool
        The integrator's flag; ``False`` also when the trajectory leaves the state space.
    message : str
        The integrator's message, or where the trajectory left the state space.
    left_state_space : dict or None
        ``None`` when every integrator step stayed in the state space (``StateSpace``, within
        the tolerance ``tol``); else the first step outside it: ``t``, ``coordinate`` (a variable
        name or ``None`` for an invariant), ``value``, ``constraint``, ``tol``.
    """
    t: np.ndarray
    x: np.ndarray
    blocking: np.ndarray
    variables: tuple
    success: bool
    message: str
    left_state_space: Any = None

    def to_dict(self) -> dict:
        """Plain data (lists of floats).

        Returns
        -------
        dict
        """
        return {"t": self.t.tolist(), "x": self.x.tolist(), "blocking": self.blocking.tolist(),
                "variables": [str(v) for v in self.variables], "success": self.success, "message": self.message,
                "left_state_space": self.left_state_space}


@dataclass
class Enclosure(ResultMixin):
    """Enclosures valid for every load in ``[rho_lo, rho_hi]`` (``enclose``).

    ``box`` is the certified box of ``y = log x`` (arb balls), ``blocking`` and ``log_blocking``
    enclose the blocking of the unique fixed point in the box for every load of the interval,
    ``margin`` is ``max_i |K_i - m_i| / delta_i`` (< 1).

    Parameters
    ----------
    rho_lo, rho_hi : number
        The load interval.
    box : list of flint.arb
        The certified box of ``y = log x``.
    blocking, log_blocking : flint.arb
        Enclosures of the blocking and its logarithm over the interval.
    margin : float
        The Krawczyk contraction margin.
    prec : int
        Working precision in bits.
    """
    rho_lo: Any
    rho_hi: Any
    box: list
    blocking: arb
    log_blocking: arb
    margin: float
    prec: int

    def to_dict(self) -> dict:
        """Plain data (balls as ``[mid +/- rad]`` strings).

        Returns
        -------
        dict
        """
        return {"rho_lo": str(self.rho_lo), "rho_hi": str(self.rho_hi), "box": [b.str(radius=True) for b in self.box],
                "blocking": self.blocking.str(radius=True), "log_blocking": self.log_blocking.str(radius=True),
                "margin": self.margin, "prec": self.prec}


# ==================================================================================================
# enclosures over load intervals with derivative enclosures; point boxes; re-check from stored boxes
# ==================================================================================================

@dataclass
class IntervalEnclosure(ResultMixin):
    r"""A certified *tube* around the fixed-point branch over ``[rho_lo, rho_hi]``
    (``enclose_interval``): with :math:`r = \log\rho`, :math:`r_m` the middle of
    :math:`[\log\rho_{lo}, \log\rho_{hi}]`, for every load of the interval the model's square
    stationary system (rows ``sel``) has exactly one zero ``y = log x`` in

    .. math:: c + t\,(r - r_m) + [-\delta, \delta]^n,

    ``c`` the Newton point at :math:`r_m`, ``t`` the tangent :math:`dy/dr` there. ``box`` is the
    interval hull of the tube; ``log_blocking`` and ``dlog_blocking``
    (:math:`d\log B/d\log\rho`, by implicit differentiation in ball arithmetic,
    ``box_derivative``) enclose those quantities over the whole interval.

    Parameters
    ----------
    rho_lo, rho_hi : number
        The load interval.
    center : list of flint.arb
        ``c``: the Newton point at :math:`r_m` (exact balls).
    slope : list of flint.arb
        ``t``: the tangent :math:`dy/dr` at :math:`r_m` (exact balls).
    delta : list of flint.arb
        The radii :math:`\delta` of the tube, one per variable (exact balls).
    sel : list of int
        The rows of the stationary system kept in the square system.
    box : list of flint.arb
        The interval hull of the tube.
    log_blocking : flint.arb
        Enclosure of :math:`\log B` over the interval.
    dlog_blocking : flint.arb
        Enclosure of :math:`d\log B/d\log\rho` over the interval.
    dy_dr : list of flint.arb
        Enclosures of :math:`dy/dr` over the interval, one per variable.
    margin : float
        The Krawczyk contraction margin (< 1).
    prec : int
        Working precision in bits.
    """
    rho_lo: Any
    rho_hi: Any
    center: list
    slope: list
    delta: list
    sel: list
    box: list
    log_blocking: arb
    dlog_blocking: arb
    dy_dr: list
    margin: float
    prec: int

    def slice(self, rho) -> list:
        r"""The tube's box at one load of the interval.

        Parameters
        ----------
        rho : number or str
            A load of ``[rho_lo, rho_hi]`` (taken exactly).

        Returns
        -------
        list of flint.arb
            The box :math:`c + t\,(\log\rho - r_m) + [-\delta, \delta]` (one ball per variable,
            ``y = log x``) that contains the fixed point at this load.
        """
        r = to_arb(rho).log()
        rm = _load_ball(self.rho_lo, self.rho_hi)
        rm = arb(rm.mid())
        return [self.center[i] + self.slope[i] * (r - rm) + arb(0, self.delta[i]) for i in range(len(self.center))]

    def to_dict(self) -> dict:
        """Plain data (exact tube coefficients as ``"m*2^e"`` strings, balls as strings).

        Returns
        -------
        dict
            The load interval, the tube's centre, slope, radii and row selection, the
            log-blocking and its derivative, the Krawczyk margin and the precision.
        """
        return {"rho": [str(self.rho_lo), str(self.rho_hi)], "center": [_exact_str(c) for c in self.center],
                "slope": [_exact_str(c) for c in self.slope], "delta": [_exact_str(c) for c in self.delta],
                "sel": list(self.sel), "log_blocking": self.log_blocking.str(20, radius=True, more=True),
                "dlog_blocking": self.dlog_blocking.str(20, radius=True, more=True), "margin": self.margin,
                "prec": self.prec}


def _exact_str(x: arb) -> str:
    """Exact text of an exact ball (its midpoint): ``"m*2^e"``."""
    man, exp = x.mid().man_exp()
    return f"{int(man)}*2^{int(exp)}"


def parse_exact(s: str) -> arb:
    """Inverse of ``_exact_str`` (exact).

    Parameters
    ----------
    s : str
        An exact dyadic ``"m*2^e"``.

    Returns
    -------
    flint.arb
        The exact ball ``m 2^e``.

    Raises
    ------
    ValueError
        If ``s`` is not of that form.
    """
    if not isinstance(s, str) or "*2^" not in s:
        raise ValueError(f"expected an exact dyadic 'm*2^e', got {s!r}")
    m, e = s.split("*2^")
    m, e = int(m), int(e)
    from flint import ctx as _ctx
    with flint_prec(max(_ctx.prec, m.bit_length() + 8)):
        return arb(m) * arb(2) ** e


def _load_ball(rho_lo, rho_hi=None) -> arb:
    """The ball of ``log rho`` over ``[rho_lo, rho_hi]`` (exact rational end points)."""
    lo = to_arb(rho_lo).log()
    if rho_hi is None:
        return lo
    return arb.union(lo, to_arb(rho_hi).log())
