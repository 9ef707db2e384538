r"""The records of a global-convergence certificate: the theorem it uses (``THEOREM``), the
certificate format (:data:`METHOD`), the result types (:class:`ConditionResult`,
:class:`GlobalConvergenceResult`), the error of a re-check and the canonical form of a load (one
rational ``rho``, an interval, or every ``rho > 0``).

Split out of :mod:`symloss.core.convergence` (which re-exports every name).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from flint import fmpq

from .validation import real

#: the format of the certificate data
METHOD = "tails/monotone-contraction v1"

#: the theorem the certificate uses
THEOREM = ("Let D = {1 >= u_1 >= ... >= u_C >= 0} (compact, convex) and g the tail drift (a polynomial, so C^1). "
           "(b) on each face t_k = 0 of D the gap drift dt_k/dt >= 0, so D is forward invariant (Nagumo's tangency "
           "theorem for a closed convex set and a locally Lipschitz field); (a) every off-diagonal entry of Dg is >= 0 "
           "on D, so the l1 logarithmic norm of Dg(z) is its largest column sum; (c) every column sum is "
           "<= -m(rho) < 0 "
           "on D. Then for two solutions in D, |x(t) - y(t)|_1 <= exp(-m t) |x(0) - y(0)|_1 (Coppel's inequality along "
           "the segment [x, y], which lies in the convex D); D holds an equilibrium (Brouwer), which is therefore "
           "unique and attracts every solution starting in D exponentially. (With (a), (b) and a unique equilibrium, "
           "Kamke's comparison gives convergence too: H. L. Smith, Monotone Dynamical Systems, AMS 1995, ch. 3.)")

_TITLES = {"a": "(a) cooperative on D (off-diagonal Jacobian entries >= 0)",
           "b": "(b) D forward invariant (inward drift on every face)",
           "c": "(c) unique equilibrium (every Jacobian column sum <= -m(rho) < 0: l1 contraction)"}

_EVERY_RHO = (Fraction(1, 100), Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(10),
              Fraction(100))


class GlobalConvergenceCertificateError(ValueError):
    """A stored global-convergence certificate does not verify for the model it is checked against."""


class _NotApplicable(Exception):
    def __init__(self, condition: str, reason: str):
        super().__init__(reason)
        self.condition, self.reason = condition, reason


# ==================================================================================================
# results
# ==================================================================================================

@dataclass(frozen=True)
class ConditionResult:
    """One condition of the certificate.

    Parameters
    ----------
    name : str
        ``"a"``, ``"b"`` or ``"c"``.
    title : str
        What the condition says.
    status : str
        ``"holds"`` (certified), ``"fails"`` (an exact witness), ``"not certified"``.
    detail : str
        One line: how many polynomials were certified, or the witness.
    """
    name: str
    title: str
    status: str
    detail: str

    def to_dict(self) -> dict:
        """Plain data: the four fields.

        Returns
        -------
        dict
        """
        return {"name": self.name, "title": self.title, "status": self.status, "detail": self.detail}


@dataclass(frozen=True)
class GlobalConvergenceResult:
    """The answer of :func:`certify_global_convergence`.

    Parameters
    ----------
    status : str
        ``"PROVED"`` (all three conditions certified), ``"FAILED"`` (a condition fails: exact witness;
        ``failed_condition`` names it) or ``"UNDECIDED"`` (a condition is not certified, or the
        method does not apply: ``failed_condition`` is ``"a"``, ``"b"``, ``"c"``, ``"order"`` or
        ``"polynomial"``).
    model : str
        ``repr`` of the model.
    fingerprint : str
        The model's :meth:`~symloss.MeanFieldModel.fingerprint`.
    load : str
        The loads covered: ``"every rho > 0"``, ``"rho = 3/2"``, ``"rho in [1/2, 2]"``.
    failed_condition : str or None
        The first condition that fails or is not certified.
    conditions : tuple of ConditionResult
        The conditions checked (empty when the method does not apply).
    reason : str
        One line: why the status is what it is.
    theorem : str
        The theorem the certificate uses (``THEOREM``).
    certificate : dict
        The JSON data :func:`verify_global_convergence` re-checks.
    """
    status: str
    model: str
    fingerprint: str
    load: str
    failed_condition: str | None
    conditions: tuple
    reason: str
    theorem: str = THEOREM
    certificate: dict = field(default_factory=dict, repr=False)

    @property
    def proved(self) -> bool:
        """``True`` when global convergence is certified."""
        return self.status == "PROVED"

    def to_dict(self) -> dict:
        """Plain data (JSON-serialisable), the certificate included.

        Returns
        -------
        dict
        """
        return {"status": self.status, "model": self.model, "fingerprint": self.fingerprint, "load": self.load,
                "failed_condition": self.failed_condition, "conditions": [c.to_dict() for c in self.conditions],
                "reason": self.reason, "theorem": self.theorem, "certificate": self.certificate}

    def __repr__(self) -> str:
        st = self.status if self.failed_condition is None else f"{self.status}({self.failed_condition})"
        conds = ", ".join(f"({c.name}) {c.status}" for c in self.conditions) or self.reason
        return f"GlobalConvergenceResult({st}, {self.model}, {self.load}: {conds})"

    def _repr_html_(self) -> str:  # pragma: no cover - notebook cosmetics
        rows = "".join(f"<tr><td>{c.title}</td><td>{c.status}</td><td>{c.detail}</td></tr>" for c in self.conditions)
        return (f"<b>global convergence of {self.model}, {self.load}: {self.status}</b>"
                f"<table>{rows}</table><p>{self.reason}</p>")


# ==================================================================================================
# loads
# ==================================================================================================

def _fraction(v) -> Fraction:
    if isinstance(v, (int, Fraction)):
        return Fraction(v)
    if isinstance(v, float):
        return Fraction(v)
    man, exp = v.man_exp()                      # mpmath mpf (exact)
    man, exp = int(man), int(exp)
    return Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)


def _load_spec(rho, rho_lo, rho_hi) -> dict:
    if rho is not None and (rho_lo is not None or rho_hi is not None):
        raise ValueError("give either rho (one load) or rho_lo/rho_hi (an interval), not both; "
                         f"got rho={rho!r}, rho_lo={rho_lo!r}, rho_hi={rho_hi!r}")
    if rho is not None:
        r = _fraction(real(rho, "rho", lower=0, lower_open=True))
        return {"kind": "point", "rho": str(r)}
    if rho_lo is None and rho_hi is None:
        return {"kind": "every"}
    if rho_lo is None:
        raise ValueError(f"rho_lo must be given with rho_hi (the interval [rho_lo, rho_hi]), got rho_hi={rho_hi!r}")
    lo = _fraction(real(rho_lo, "rho_lo", lower=0, lower_open=True))
    if rho_hi is None:
        return {"kind": "interval", "lo": str(lo), "hi": None}
    hi = _fraction(real(rho_hi, "rho_hi", lower=lo, lower_open=True))
    return {"kind": "interval", "lo": str(lo), "hi": str(hi)}


def _load_text(load: dict) -> str:
    if load["kind"] == "every":
        return "every rho > 0"
    if load["kind"] == "point":
        return f"rho = {load['rho']}"
    return f"rho in [{load['lo']}, {load['hi']}]" if load["hi"] is not None else f"rho >= {load['lo']}"


def _parse_load(load) -> dict:
    """Validate stored load data (re-check)."""
    if not isinstance(load, dict):
        raise GlobalConvergenceCertificateError("the load must be an object")
    kind = load["kind"]
    try:
        if kind == "every":
            if set(load) != {"kind"}:
                raise GlobalConvergenceCertificateError("load fields differ")
            return {"kind": "every"}
        if kind == "point":
            if set(load) != {"kind", "rho"} or not Fraction(load["rho"]) > 0:
                raise GlobalConvergenceCertificateError("a point load must be one rational rho > 0")
            return {"kind": "point", "rho": str(Fraction(load["rho"]))}
        if kind == "interval":
            lo, hi = load["lo"], load["hi"]
            if (set(load) != {"kind", "lo", "hi"} or not Fraction(lo) > 0
                    or (hi is not None and not Fraction(hi) > Fraction(lo))):
                raise GlobalConvergenceCertificateError("an interval load needs 0 < lo < hi (or hi = null)")
            return {"kind": "interval", "lo": str(Fraction(lo)), "hi": None if hi is None else str(Fraction(hi))}
    except (TypeError, ValueError, ZeroDivisionError) as exc:
        if isinstance(exc, GlobalConvergenceCertificateError):
            raise
        raise GlobalConvergenceCertificateError(f"unreadable load {load!r}") from None
    raise GlobalConvergenceCertificateError(f"unknown load kind {kind!r}")


def _rho_samples(load: dict) -> list:
    if load["kind"] == "every":
        return list(_EVERY_RHO)
    if load["kind"] == "point":
        return [Fraction(load["rho"])]
    lo = Fraction(load["lo"])
    if load["hi"] is None:
        return [lo, lo + 1, 2 * lo + 10, 100 * lo + 100]
    hi = Fraction(load["hi"])
    return [lo, (3 * lo + hi) / 4, (lo + hi) / 2, (lo + 3 * hi) / 4, hi]


def _in_load(r: Fraction, load: dict) -> bool:
    if load["kind"] == "every":
        return r > 0
    if load["kind"] == "point":
        return r == Fraction(load["rho"])
    return r >= Fraction(load["lo"]) and (load["hi"] is None or r <= Fraction(load["hi"]))


def _q(x: Fraction):
    return fmpq(x.numerator, x.denominator)


def _overall(conds: dict) -> tuple:
    for name in ("a", "b", "c"):
        if conds[name]["status"] == "fails":
            return "FAILED", name
    for name in ("a", "b", "c"):
        if conds[name]["status"] != "holds":
            return "UNDECIDED", name
    return "PROVED", None
