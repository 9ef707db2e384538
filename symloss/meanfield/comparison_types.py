r"""The result types of the certified comparisons, shared by the fast path
(:mod:`symloss.meanfield.certified`) and the generic path (:mod:`symloss.meanfield.certified_generic`):
:class:`CertificateMismatch`, :class:`Crossing`, :class:`CertifiedComparison`, and the re-check's
``need`` / ``keys`` helpers. A module of their own, so that neither path imports the other's module
to build its result (the two are re-exported from :mod:`symloss.meanfield.certified`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._version import __version__
from ..core.results import ResultMixin

__all__ = ["CertificateMismatch", "Crossing", "CertifiedComparison"]


class CertificateMismatch(ValueError):
    """A certificate does not verify: a stored number, a cell, a count or a model differs."""




@dataclass
class Crossing:
    """One crossing: ``rho`` in ``[rho_lo, rho_hi]`` (decimal strings, rigorous outward bounds,
    width <= 10^-dps), exactly one crossing there; ``sign_after`` is the sign of ``B_a - B_b`` just
    above it.

    Parameters
    ----------
    rho_lo, rho_hi : str
        Decimal bounds of the load interval holding the crossing.
    sign_after : int
        Sign of ``B_a - B_b`` just above the crossing (``+1`` or ``-1``).
    """
    rho_lo: str
    rho_hi: str
    sign_after: int

    def to_dict(self) -> dict:
        """Plain data, as stored in a certificate's ``crossing_intervals``.

        Returns
        -------
        dict
            ``{"rho": [rho_lo, rho_hi], "sign_after": sign_after}``.
        """
        return {"rho": [self.rho_lo, self.rho_hi], "sign_after": self.sign_after}


@dataclass
class CertifiedComparison(ResultMixin):
    r"""Result of :func:`~symloss.meanfield.certified.certified_comparison` (signs are those of
    :math:`B_a - B_b`).

    Parameters
    ----------
    models : (str, str)
        The ``repr`` of the two models.
    pieces : list of dict
        ``{"rho": [lo, hi], "sign": s}`` from 0 to infinity (``lo``/``hi`` are the crossing bounds,
        ``"0"`` and ``"oo"`` at the ends).
    crossings : list of Crossing
        Every crossing, certified.
    count : int
        Number of crossings on :math:`(0, \infty)` (all of them, certified), outside the intervals
        listed in ``evidence`` (none when ``status == "PROVED"``).
    sign_at_zero, sign_at_infinity : int
        Sign of :math:`B_a - B_b` as :math:`\rho \to 0` and as :math:`\rho \to \infty`.
    threshold : dict or None
        When ``a`` blocks less than ``b`` at large load: the load above which it does at every larger
        load, ``{"value": "0"}`` if at every load, else the last crossing ``{"rho": [lo, hi]}``;
        ``None`` when ``a`` blocks more at large load.
    method : str
        How the pieces were certified.
    certificate : dict
        JSON data for :func:`~symloss.meanfield.certified.verify_comparison`.
    seconds : float
        Wall time of the computation.
    status : str
        ``"PROVED"`` when every piece is certified; ``"EVIDENCE"`` when some load intervals are not
        (listed in ``evidence``): there ``count``, the pieces' signs and the threshold are not proved;
        ``"PROVED on [lo, hi] only"`` (or ``[lo, oo)``) for a comparison with a piecewise-smooth model,
        certified on a load range (:mod:`symloss.meanfield.compare_piecewise`).
    reason : str
        Why (empty when ``status == "PROVED"``).
    evidence : list of dict
        The uncertified load intervals: ``{"rho": [lo, hi], "status": "EVIDENCE", "reason": ...,
        "sign_before": s, "sign_after": s}`` (the certified signs of ``B_a - B_b`` on either side).
    """
    models: tuple
    pieces: list
    crossings: list
    count: int
    sign_at_zero: int
    sign_at_infinity: int
    threshold: Any
    method: str
    certificate: dict = field(repr=False, default_factory=dict)
    seconds: float = 0.0
    status: str = "PROVED"
    reason: str = ""
    evidence: list = field(default_factory=list)

    #: the quantities of its paper-mode LaTeX (:meth:`~symloss.core.results.ResultMixin.to_latex`)
    latex_quantities = {"count": (r"\text{crossings}", "integer"),
                        "sign_at_zero": (r"\operatorname{sign}(B_a-B_b) \text{ as } \rho\to 0", "integer"),
                        "sign_at_infinity": (r"\operatorname{sign}(B_a-B_b) \text{ as } \rho\to\infty", "integer"),
                        "threshold": (r"\rho^*", "threshold")}

    def holds_everywhere(self, sign: int) -> bool:
        """True when ``B_a - B_b`` has the given sign at every load.

        Parameters
        ----------
        sign : int
            ``+1`` or ``-1``.

        Returns
        -------
        bool
        """
        return self.count == 0 and self.sign_at_zero == sign and not self.evidence

    def to_dict(self) -> dict:
        """Plain data: every field except ``certificate`` (crossings as :meth:`Crossing.to_dict`,
        ``seconds`` rounded to 0.1 ms).

        Returns
        -------
        dict
        """
        return {"models": list(self.models), "pieces": self.pieces, "crossings": [c.to_dict() for c in self.crossings],
                "count": self.count, "sign_at_zero": self.sign_at_zero, "sign_at_infinity": self.sign_at_infinity,
                "threshold": self.threshold, "method": self.method, "seconds": round(self.seconds, 4),
                "status": self.status, "reason": self.reason, "evidence": self.evidence}


def _version() -> str:
    """The symloss version written into a certificate."""
    return __version__


def _need(cond, msg: str) -> None:
    """Raise :class:`CertificateMismatch` with ``msg`` unless ``cond``."""
    if not cond:
        raise CertificateMismatch(msg)


def _keys(d, expected: set, where: str) -> None:
    """Reject a record whose fields are not exactly ``expected`` (a field the re-check does not know is
    a field nobody checked)."""
    _need(isinstance(d, dict), f"{where} must be an object")
    extra, missing = set(d) - expected, expected - set(d)
    _need(not extra, f"{where}: unknown field(s) {sorted(extra)} (not checked by the re-check)")
    _need(not missing, f"{where}: missing field(s) {sorted(missing)}")


# public home of the classes (as numpy's ``set_module``): their documented path, unchanged by the split of issue 22
# (a refused certificate's traceback names it)
CertificateMismatch.__module__ = Crossing.__module__ = CertifiedComparison.__module__ = "symloss.meanfield.certified"
