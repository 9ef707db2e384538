"""The decomposition study over N of the admission-control model, and the fit against ln N.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..core.results import ResultMixin
from ..core.validation import check_int, real_array
from .results import Estimate, _FieldsDict

# ------------------------------------------------------------------------------------------------
# the study over N
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LogFit(_FieldsDict, ResultMixin):
    r"""Weighted least-squares fit :math:`y = \alpha + \beta \ln N` (weights 1/se^2, se = half-width/1.96,
    floored at a tenth of the median positive se);
    ``slope_hw`` is a 95 % half-width for :math:`\beta`; ``chi2`` and ``dof`` judge the fit.

    Parameters
    ----------
    quantity : str
        Name of the fitted quantity ``y``.
    intercept, slope : float
        :math:`\alpha` and :math:`\beta`.
    slope_hw : float
        95 % half-width of the slope.
    chi2 : float
        Weighted sum of squared residuals.
    dof : int
        Degrees of freedom, the number of points minus 2.
    """
    quantity: str
    intercept: float
    slope: float
    slope_hw: float
    chi2: float
    dof: int

    def __str__(self) -> str:
        return (f"{self.quantity}: {self.intercept:.3f} + ({self.slope:.3f} ± {self.slope_hw:.3f}) ln N  "
                f"(chi2 = {self.chi2:.1f} on {self.dof} dof)")


def fit_log_n(Ns, estimates: Sequence[Estimate], quantity: str = "y") -> LogFit:
    """Fit ``y = a + b ln N`` to estimates with 95 % half-widths (weighted least squares).

    ``Ns``: values ``N >= 1``, at least two distinct; ``estimates``: one :class:`Estimate` per ``N``
    with a finite value and a finite half-width (at least two replications). Bad input is refused
    with an error naming the entry, so the fit is never NaN.

    Parameters
    ----------
    Ns : sequence of int
        The system sizes (at least two).
    estimates : sequence of Estimate
        One estimate with a finite half-width per ``N``.
    quantity : str
        Name of the fitted quantity (for display).

    Returns
    -------
    LogFit
        Intercept, slope with its 95 % half-width, and the chi-square of the fit.

    Examples
    --------
    >>> from symloss.admission.results import Estimate
    >>> f = fit_log_n([10, 100, 1000], [Estimate(1.0, 0.1, 5), Estimate(2.0, 0.1, 5), Estimate(3.0, 0.1, 5)])
    >>> round(f.slope * 2.302585, 6)              # one unit per decade
    1.0
    """
    Ns = real_array(Ns, "Ns", lower=1).ravel()
    if isinstance(estimates, (str, bytes)) or not hasattr(estimates, "__len__"):
        raise TypeError(f"estimates must be a sequence of Estimate, got {type(estimates).__name__}")
    if len(estimates) != Ns.size:
        raise ValueError(f"Ns and estimates must have the same length, got {Ns.size} and {len(estimates)}")
    for i, e in enumerate(estimates):
        if not isinstance(e, Estimate):
            raise TypeError(f"estimates[{i}] must be an Estimate, got {type(e).__name__}")
        if not math.isfinite(e.value):
            raise ValueError(f"estimates[{i}].value must be finite, got {e.value!r}")
        if not (math.isfinite(e.half_width) and e.half_width >= 0):
            raise ValueError(f"estimates[{i}] needs a finite half-width >= 0 (at least two replications), got "
                             f"{e.half_width!r}")
    if np.unique(Ns).size < 2:
        raise ValueError("need at least two distinct values of N to fit against ln N")
    y = np.array([e.value for e in estimates])
    se = np.array([e.half_width / 1.96 for e in estimates])
    # an estimate with zero spread (e.g. a cost that is exactly 0 on every path) would get infinite
    # weight: floor the standard errors at a tenth of the median positive one
    pos = se[se > 0]
    se = np.maximum(se, 0.1 * float(np.median(pos)) if pos.size else 1.0)
    if Ns.size < 2:
        raise ValueError("need at least two values of N to fit against ln N")
    X = np.column_stack([np.ones_like(Ns), np.log(Ns)])
    Wt = 1.0 / se ** 2
    XtW = X.T * Wt
    cov = np.linalg.inv(XtW @ X)
    coef = cov @ (XtW @ y)
    resid = y - X @ coef
    chi2 = float(np.sum(resid ** 2 * Wt))
    return LogFit(quantity=quantity, intercept=float(coef[0]), slope=float(coef[1]),
                  slope_hw=float(1.96 * math.sqrt(cov[1, 1])), chi2=chi2, dof=int(Ns.size - 2))


@dataclass
class DecompositionStudy(ResultMixin):
    """Decompositions over several ``N`` with fits of each cost against ``ln N``.

    Parameters
    ----------
    decompositions : list of Decomposition
        One per ``N``, in the order of the study.
    fits : dict
        Cost name -> its :class:`LogFit` against ``ln N``.
    """
    decompositions: list
    fits: dict

    def rows(self) -> list[dict]:
        return [r for d in self.decompositions for r in d.rows()]

    def _repr_html_(self) -> str:
        return "".join(d._repr_html_() for d in self.decompositions) + \
            "<pre>" + "\n".join(str(f) for f in self.fits.values()) + "</pre>"

    def to_dict(self) -> dict:
        return {"decompositions": [d.to_dict() for d in self.decompositions],
                "fits": {k: f.to_dict() for k, f in self.fits.items()}}


def run_study(cls, Ns, lam_H, lam_L, r_H, r_L, mu=1, horizon=30.0, replications=10, c=(1, 2, 4, 8),
              seed=0, progress=None) -> DecompositionStudy:
    """The body of :meth:`OverloadedLossNetwork.decomposition_study` (``cls`` builds each network).

    Parameters
    ----------
    cls : type
        The network class (``OverloadedLossNetwork`` or a subclass).
    Ns, lam_H, lam_L, r_H, r_L, mu, horizon, replications, c, seed, progress :
        As in :meth:`OverloadedLossNetwork.decomposition_study`.

    Returns
    -------
    DecompositionStudy
    """
    if isinstance(Ns, (str, bytes)) or not hasattr(Ns, "__iter__"):
        raise TypeError(f"Ns must be a sequence of integers, got {type(Ns).__name__} {Ns!r}")
    Ns = [check_int(n, f"Ns[{i}]", min_value=2, max_value=10**5) for i, n in enumerate(Ns)]
    decs = []
    for i, N in enumerate(Ns):
        net = cls(N, lam_H, lam_L, r_H, r_L, mu)
        d = net.decomposition(horizon, replications, c, seed=[check_int(seed, "seed", min_value=0), i])
        decs.append(d)
        if progress:
            progress(d)
    fits = {}
    if len(Ns) >= 2:
        fits["C_vol"] = fit_log_n(Ns, [d.C_vol for d in decs], "C_vol")
        fits["online_regret_sim"] = fit_log_n(Ns, [d.online_sim for d in decs], "online regret (simulated)")
        fits["PFI"] = fit_log_n(Ns, [d.pfi for d in decs], "PFI cost")
        for x in decs[0].C_long:
            fits[f"C_long[c={x:g}]"] = fit_log_n(Ns, [d.C_long[x] for d in decs], f"C_long (c={x:g})")
            fits[f"C_short[c={x:g}]"] = fit_log_n(Ns, [d.C_short[x] for d in decs], f"C_short (c={x:g})")
            for nm in decs[0].lookahead.get(x, {}):
                fits[f"{nm}[c={x:g}]"] = fit_log_n(Ns, [d.lookahead[x][nm] for d in decs], f"{nm} cost (c={x:g})")
    return DecompositionStudy(decs, fits)
