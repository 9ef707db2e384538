"""The result types of :mod:`symloss.meanfield.compare` (:class:`CrossingResult`, :class:`DominanceResult`;
re-exported there)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import mpmath

from ..core.results import ResultMixin

__all__ = ["CrossingResult", "DominanceResult"]


@dataclass
class CrossingResult(ResultMixin):
    """Crossings of two models' blockings (:func:`crossing_loads`).

    Parameters
    ----------
    C, d, dt : int or None
        Set for the retrial-vs-power shorthand ``crossing_loads(C, d, dt)``, else ``None``.
    crossings : list of mpmath.mpf
        The loads where the blockings are equal, increasing, each to the ``dps`` digits asked for.
    rho_min, rho_max : float or mpmath.mpf
        The range searched.
    evaluations : int
        Float evaluations of the scan (or isolated roots, with the eliminant method).
    guarantee : str
        What is certified (the method and its guarantee).
    models : tuple of str
        Both models (``a`` first).
    roots : list of dict
        With the eliminant method: one record per real root of the resultant in the range, increasing:
        ``kind`` ("crossing": sign change, "touch": equal blockings without a sign change, "not a
        crossing", or "undecided"), ``certified``, ``exact`` (the root as a ``Fraction`` when it is
        rational, else ``None``), ``factor`` (integer coefficients, constant term first, of the
        irreducible factor of the resultant that vanishes there), ``multiplicity`` (its exponent in
        the resultant), ``order`` (the certified order of the zero of ``B_a - B_b``, or ``None`` where
        it is not provable), ``sign_change``, ``signs`` (certified signs of ``B_a - B_b`` just below
        and above), ``interval`` (closed, exact ``Fraction`` ends: it contains the root, the returned
        ``value`` and its printed ``text``, and no other root; the intervals are pairwise disjoint),
        ``value`` (mpf), ``text``, ``digits`` (``dps``, more only where ``dps`` digits do not
        separate two roots), ``listed`` (the value is in ``crossings``) and ``reason``.
    certified : bool
        Every root in the range was decided with a certificate (eliminant method only).
    """
    C: Any
    d: Any
    dt: Any
    crossings: list
    rho_min: Any
    rho_max: Any
    evaluations: int
    guarantee: str
    models: tuple = ()
    roots: list = field(default_factory=list)
    certified: bool = False

    def to_dict(self):
        """Plain data (loads as 20-digit strings, exact rationals as ``"p/q"``), for JSON.

        Returns
        -------
        dict
        """
        def plain(r):
            out = {k: v for k, v in r.items() if k != "value"}
            out["value"] = None if r.get("value") is None else mpmath.nstr(r["value"], r["digits"])
            out["exact"] = None if r.get("exact") is None else str(r["exact"])
            if r.get("interval") is not None:
                out["interval"] = [str(x) for x in r["interval"]]
            if r.get("signs") is not None:
                out["signs"] = list(r["signs"])
            return out
        return {"C": self.C, "d": self.d, "dt": self.dt, "models": list(self.models),
                "crossings": [mpmath.nstr(c, 20) for c in self.crossings],
                "rho_min": str(self.rho_min), "rho_max": str(self.rho_max), "evaluations": self.evaluations,
                "guarantee": self.guarantee, "certified": self.certified, "roots": [plain(r) for r in self.roots]}


@dataclass
class DominanceResult(ResultMixin):
    """Whether ``model_a`` blocks no more than ``model_b`` on ``[rho_min, rho_max]``
    (:func:`dominance`).

    Parameters
    ----------
    models : tuple of str
        Both models (``a`` first).
    holds : bool
        ``a`` blocks strictly less than ``b`` at every certified sample and there is no crossing.
    crossings : list of mpmath.mpf
        The crossings in the range.
    signs : list of int
        The certified sign of ``log B_a - log B_b`` on each piece between consecutive crossings.
    rho_min, rho_max : float or mpmath.mpf
        The range.
    guarantee : str
        A scan with certified samples: EVIDENCE over the range, not a proof for every load (see
        ``symloss verify`` for proofs).
    samples : list of dict
        The load, the log ratio and its certified sign at each sample.
    """
    models: tuple
    holds: bool
    crossings: list
    signs: list
    rho_min: Any
    rho_max: Any
    guarantee: str
    samples: list = field(default_factory=list)

    def to_dict(self):
        """Plain data (loads as 20-digit strings), for JSON.

        Returns
        -------
        dict
        """
        return {"models": list(self.models), "holds": self.holds,
                "crossings": [mpmath.nstr(c, 20) for c in self.crossings], "signs": self.signs,
                "rho_min": str(self.rho_min), "rho_max": str(self.rho_max), "guarantee": self.guarantee,
                "samples": self.samples}


# public home of the class (as numpy's ``set_module``): its documented path, unchanged by the split of issue 22
CrossingResult.__module__ = DominanceResult.__module__ = "symloss.meanfield.compare"
