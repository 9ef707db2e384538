r"""Seed 000, finite N: the refined mean field's :math:`1/N` coefficient :math:`V` **proved** for small
``C`` (issue 25).

``seed000.finite_n.refined_V.{retrial,power}.C{C}_d{d}`` (``C <= 5``, ``d = 2, 3``, load
:math:`\rho = 1`): the stationary blocking of the ``N``-server chain is
:math:`B_N = B + V/N + o(1/N)` (Gast & Van Houdt 2017, Theorem 3.1: smooth rates, a globally
attracting and exponentially stable fixed point — global attraction is
``seed000.global_convergence.*``), and :math:`V` lies in the stated enclosure, to 30 significant digits.

PROVED by :func:`symloss.finite_n.refined_certified.certified_refined_V`: a Krawczyk box of the
fixed point, rigorous eigenvalue enclosures of the reduced Jacobian (all real parts negative), the
Lyapunov equation as its exact-size Kronecker-sum ball system and :math:`A a_1 = -\tfrac12 D^2f{:}\Sigma_1`
by ``arb_mat.solve``. The re-check (:func:`~symloss.finite_n.refined_certified.verify_refined_V`)
rebuilds the box from its stored exact numbers, runs the Krawczyk test once, and recomputes the ball of
:math:`V` from the model's own equations (no search); the stored bracket must enclose it.
"""
from __future__ import annotations

from proofs_check.core import Certificate, CertificateError, Status, claim
from proofs_check.support import seed000 as com
from symloss.finite_n.refined_certified import certified_refined_V, verify_refined_V

CASES = [(kind, C, d) for kind in ("retrial", "power") for C in range(1, 6) for d in (2, 3)]
RHO = 1
DIGITS = 30
SOURCE = ("Cuesta, Jonckheere, Prabhu, Brun, Retrials in Loss Systems (2026; paper 1 in docs/papers.md), "
          "simulation study (finite-N corrections); Gast & Van Houdt 2017 (refined mean field)")


def _summary(data: dict, status: Status) -> str:
    if status != Status.PROVED:
        return f"V not certified: {data.get('error')}"
    cert = data["certificate"]
    word = "exactly" if cert["V"][0] == cert["V"][1] else f"({cert['digits']} certified {cert['accuracy']} digits)"
    return f"V = {cert['V_text']} {word}; reduced Jacobian eigenvalues have real part <= {cert['eigen_bound']}"


def _make(kind: str, C: int, d: int):
    def prove():
        model = com._model(kind, C, d)
        res = certified_refined_V(model, RHO, digits=DIGITS)
        data = {"policy": kind, "C": C, "d": d, "rho": str(RHO), "stamp": com.stamp(model),
                "certificate": res.certificate}
        return Certificate(Status.PROVED, data, _summary(data, Status.PROVED))

    def recheck(data):
        if (data.get("policy"), data.get("C"), data.get("d"), data.get("rho")) != (kind, C, d, str(RHO)):
            raise CertificateError("certificate parameters differ from the claim's")
        model = com._model(kind, C, d)
        com.check_stamp(data, model)
        cert = data["certificate"]
        if cert.get("rho") != str(RHO):
            raise CertificateError("the V certificate is for another load")
        try:
            verify_refined_V(cert, model)
        except (ValueError, KeyError, TypeError) as exc:
            raise CertificateError(f"V certificate rejected: {exc}") from None
        if cert["V"][0] != cert["V"][1] and not (cert["accuracy"] == "relative" and cert["digits"] >= DIGITS):
            raise CertificateError(f"the certified bracket gives fewer than {DIGITS} digits")
        return Status.PROVED
    return prove, recheck


for _kind, _C, _d in CASES:
    _p, _r = _make(_kind, _C, _d)
    claim(f"seed000.finite_n.refined_V.{_kind}.C{_C}_d{_d}",
          statement=(rf"C = {_C},\ d = {_d},\ \rho = {RHO}:\ B_N = B + V/N + o(1/N)\ \text{{({_kind}), with }} V "
                     rf"\text{{ enclosed to {DIGITS} digits and the fixed point exponentially stable}}"),
          source=SOURCE,
          method="Krawczyk box of the fixed point; rigorous eigenvalue enclosures (acb_mat.eig); Lyapunov equation "
                 "as the Kronecker-sum ball system and the first-moment system by arb_mat.solve (python-flint)",
          expected="PROVED", recheck=_r, tags=("seed000", "finite_n"), summarize=_summary)(_p)
