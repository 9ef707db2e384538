r"""Seed 000, the simulation study: the load above which retrial-of-dt beats power-of-d at finite N.

``seed000.finite_n.threshold_C2_d3_dt4.N10`` (PROVED): at ``N = 10`` (66 states per chain) both exact
finite-N blockings are rational functions of the load, computed exactly
(:func:`symloss.finite_n.rational.blocking_rational_function`: integer determinants at ``D + 1 = 66``
points, exact interpolation, degree bound ``D = (M - 1) k = 65`` by Cramer's rule); the numerator of
their difference has exactly one root on :math:`(0, \infty)` (Descartes counts on a tiling of
:math:`(0, H)`, exact), a sign change from + to -, isolated to 12 digits. Re-check: the tiling, the
Descartes counts and the signs recomputed from the stored polynomials
(:func:`~symloss.finite_n.rational.recheck_threshold_certificate`), and both rational functions compared
with the chains solved exactly by another algorithm (``fmpq_mat.solve``) at
:math:`\max(\deg P, \deg Q) + D + 1 = 131` fresh half-integer loads, which proves the identity
(:func:`~symloss.finite_n.rational.recheck_blocking_rational_function`). The boundary: the search costs
about (M - 1) k + 2 pairs of integer determinants of size M - 1 per model, 7-15 s at N = 10 and 45 s at
N = 12 (measured on a loaded 2-core machine), so N = 20, 40, 80 stay EVIDENCE below.

``seed000.finite_n.threshold_C2_d3_dt4`` (EVIDENCE): with ``C = 2``, ``d = 3``, ``dt = 4`` and
sampling with replacement, the finite-N threshold (the largest load where
:math:`B_N^{ret}(4) - B_N^{pod}(3)` changes sign) increases with ``N = 10, 20, 40, 80`` and stays
below the mean-field threshold; the refined mean field ``B + V/N`` predicts it better than the plain
mean field at every ``N``.

Search: :func:`symloss.finite_n_threshold` with ``method="exact"`` (exact occupancy-count chains,
Brent's method), the refined threshold (crossing of ``B + V/N``) and the mean-field crossing (Brent on
the certified mean-field blockings). Re-check (no search): at each stored load ``t`` the exact
finite-N (resp. refined, mean-field) blockings are recomputed at ``t (1 - 1e-6)`` and
``t (1 + 1e-6)`` and must show retrial worse below and better above; then the ordering statements
are checked on the stored numbers. Floating-point numerics (sparse LU, residual ~1e-15): EVIDENCE,
not a proof.
"""
from __future__ import annotations

from fractions import Fraction

from scipy.optimize import brentq

from proofs_check.core import Certificate, CertificateError, Status, claim
from symloss import PowerOfD, RetrialOfD, exact_finite_n, finite_n_threshold, refined_mean_field
from symloss.finite_n.rational import (RationalCertificateError, certified_finite_n_threshold,
                                       recheck_blocking_rational_function, recheck_threshold_certificate)

C, D_POD, D_RET = 2, 3, 4
NS = (10, 20, 40, 80)
REL = 1e-6


def _exact_D(N, rho):
    a = exact_finite_n("retrial", N, C, rho, D_RET).blocking
    b = exact_finite_n("power", N, C, rho, D_POD).blocking
    return a - b


def _refined_D(N, rho):
    return (refined_mean_field("retrial", rho=rho, C=C, d=D_RET, dps=15).at(N)
            - refined_mean_field("power", rho=rho, C=C, d=D_POD, dps=15).at(N))


def _mf_D(rho):
    return float(RetrialOfD(C, D_RET).blocking(rho, dps=20) - PowerOfD(C, D_POD).blocking(rho, dps=20))


def _brackets(f, t):
    """(sign below, sign above) of f around t."""
    return f(t * (1 - REL)) > 0, f(t * (1 + REL)) < 0


def _recheck(data: dict) -> Status:
    if (data.get("C"), data.get("d"), data.get("dt")) != (C, D_POD, D_RET) or tuple(data.get("N", ())) != NS:
        raise CertificateError("certificate is for a different case")
    mf = float(data["mean_field"])
    if _brackets(_mf_D, mf) != (True, True):
        raise CertificateError(f"mean-field blockings do not cross at the stored load {mf}")
    exact = [float(v) for v in data["exact"]]
    refined = [float(v) for v in data["refined"]]
    for N, t, r in zip(NS, exact, refined):
        if _brackets(lambda x: _exact_D(N, x), t) != (True, True):
            raise CertificateError(f"N = {N}: exact finite-N blockings do not cross at {t}")
        if _brackets(lambda x: _refined_D(N, x), r) != (True, True):
            raise CertificateError(f"N = {N}: refined blockings do not cross at {r}")
    if not all(a < b for a, b in zip(exact, exact[1:])) or not exact[-1] < mf:
        raise CertificateError("the finite-N thresholds do not increase towards the mean-field one")
    if not all(abs(r - t) < abs(mf - t) for r, t in zip(refined, exact)):
        raise CertificateError("the refined mean field is not closer than the mean field at every N")
    return Status.EVIDENCE


@claim("seed000.finite_n.threshold_C2_d3_dt4",
       statement=(r"C=2:\ \rho^*_N(B^{ret}_N(4) = B^{pod}_N(3))\ \text{increases in } N \in \{10,20,40,80\}"
                  r"\ \text{below } \rho^*_\infty;\ |\rho^{ref}_N - \rho^*_N| < |\rho^*_\infty - \rho^*_N|"
                  r"\ \text{(floats: EVIDENCE; } N = 10 \text{ PROVED in the claim .N10, } N \ge 12"
                  r"\text{ beyond the exact method's reach)}"),
       source="Cuesta, Jonckheere, Prabhu, Brun, Retrials in Loss Systems (2026; paper 1 in docs/papers.md), simulation study (threshold load at finite N)",
       method="exact finite-N CTMC (sparse LU) + Brent; refined mean field (Gast-Van Houdt)",
       expected="EVIDENCE", unchecked=('rel_bracket',), recheck=_recheck)
def _prove() -> Certificate:
    exact, refined = [], []
    for N in NS:
        r = finite_n_threshold(C, D_POD, D_RET, N, method="exact", mean_field=False)
        exact.append(r.threshold)
        refined.append(r.refined)
    lo, hi = exact[-1], 2.0
    mf = brentq(_mf_D, lo, hi, xtol=1e-13, rtol=1e-13)
    data = {"C": C, "d": D_POD, "dt": D_RET, "N": list(NS), "exact": [repr(v) for v in exact],
            "refined": [repr(v) for v in refined], "mean_field": repr(mf), "rel_bracket": REL}
    status = _recheck(data)
    return Certificate(status, data=data,
                       summary="finite-N thresholds " + ", ".join(f"{v:.4f}" for v in exact)
                       + f" (N = {', '.join(map(str, NS))}) -> mean field {mf:.4f}; refined "
                       + ", ".join(f"{v:.4f}" for v in refined))


# --------------------------------------------------------------------------------------------------
# the second-order refined mean field against the exact finite-N chain
# --------------------------------------------------------------------------------------------------

RMF_C, RMF_D, RMF_RHO = 2, 2, 1
RMF_NS = (10, 20, 50, 100, 200)


def _rmf_models():
    return {"retrial": RetrialOfD(RMF_C, RMF_D), "power": PowerOfD(RMF_C, RMF_D)}


def _rmf_recheck(data: dict) -> Status:
    if (data.get("C"), data.get("d"), data.get("rho")) != (RMF_C, RMF_D, RMF_RHO) or tuple(data.get("N", ())) != RMF_NS:
        raise CertificateError("certificate is for a different case")
    for name, model in _rmf_models().items():
        rec = data[name]
        r = refined_mean_field(model, rho=RMF_RHO, dps=20)
        for key, val in (("B", r.blocking_mf), ("V", r.V), ("W", r.W)):
            if abs(float(rec[key]) - val) > 1e-10 * abs(val):
                raise CertificateError(f"{name}: stored {key} = {rec[key]} but the definition gives {val!r}")
        e1, e2 = [], []
        for N, bn_s in zip(RMF_NS, rec["B_N"]):
            bn = exact_finite_n(model, N, RMF_RHO).blocking
            if abs(bn - float(bn_s)) > 1e-12 * bn:
                raise CertificateError(f"{name}, N = {N}: stored B_N = {bn_s}, exact chain gives {bn!r}")
            e1.append(abs(bn - r.at(N)))
            e2.append(abs(bn - r.at(N, 2)))
        if not all(b < a for a, b in zip(e1, e2)):
            raise CertificateError(f"{name}: the second-order term does not improve on B + V/N at every N")
        for (n0, a), (n1, b) in zip(zip(RMF_NS, e2), zip(RMF_NS[1:], e2[1:])):
            if b > a * (n0 / n1) ** 2.5:
                raise CertificateError(f"{name}: |B_N - B - V/N - W/N^2| falls slower than N^-2.5 between "
                                       f"N = {n0} and {n1}")
    return Status.EVIDENCE


@claim("seed000.finite_n.refined_second_order",
       statement=(r"C=2,\ d=2,\ \rho=1:\ |B_N - B - V/N - W/N^2| < |B_N - B - V/N|\ \text{and falls faster than }"
                  r"N^{-5/2}\ \text{for } N \in \{10,20,50,100,200\}\ \text{(retrial, power)}"),
       source="Cuesta, Jonckheere, Prabhu, Brun, Retrials in Loss Systems (2026; paper 1 in docs/papers.md), simulation study (finite-N corrections)",
       method="exact finite-N CTMC (sparse LU) against the refined mean field to second order "
              "(Gast-Van Houdt; Gast-Bortolussi-Tribastone)",
       expected="EVIDENCE", recheck=_rmf_recheck)
def _prove_rmf() -> Certificate:
    data = {"C": RMF_C, "d": RMF_D, "rho": RMF_RHO, "N": list(RMF_NS)}
    for name, model in _rmf_models().items():
        r = refined_mean_field(model, rho=RMF_RHO, dps=20)
        data[name] = {"B": repr(r.blocking_mf), "V": repr(r.V), "W": repr(r.W),
                      "B_N": [repr(exact_finite_n(model, N, RMF_RHO).blocking) for N in RMF_NS]}
    status = _rmf_recheck(data)
    return Certificate(status, data=data,
                       summary="second-order refined mean field: errors " + "; ".join(
                           f"{name} V = {float(data[name]['V']):.6f}, W = {float(data[name]['W']):.6f}"
                           for name in ("retrial", "power")))


# --------------------------------------------------------------------------------------------------
# the finite-N threshold proved where the exact rational method reaches (N = 10)
# --------------------------------------------------------------------------------------------------

PROVED_N = 10
DIGITS = 12
#: the stated enclosure of the N = 10 threshold (the certificate's interval must lie inside it)
STATED_N10 = ("0.444754552002", "0.444754552003")


def _threshold_models():
    return RetrialOfD(C, D_RET), PowerOfD(C, D_POD)


def _proved_recheck(data: dict) -> Status:
    if (data.get("C"), data.get("d"), data.get("dt"), data.get("N")) != (C, D_POD, D_RET, PROVED_N):
        raise CertificateError("certificate is for a different case")
    cert = data["certificate"]
    if cert["N"] != PROVED_N or cert["sampling"] != "with_replacement":
        raise CertificateError("certificate is for another N or sampling")
    a, b = _threshold_models()
    try:
        out = recheck_threshold_certificate(cert, digits=DIGITS)
        for model, key in ((a, "a"), (b, "b")):
            r = recheck_blocking_rational_function(model, cert[key], points="proof")
            if not r["proved"]:     # pragma: no cover - points="proof"
                raise CertificateError(f"{key}: the rational function is not proved")
    except RationalCertificateError as exc:
        raise CertificateError(str(exc)) from None
    if (out["n_roots"], out["n_crossings"], cert["sign_below"], cert["sign_above"]) != (1, 1, 1, -1):
        return Status.REFUTED
    lo, hi = out["crossings"][0]
    slo, shi = (Fraction(x) for x in STATED_N10)
    if not (slo <= Fraction(int(lo.p), int(lo.q)) and Fraction(int(hi.p), int(hi.q)) <= shi):
        raise CertificateError(f"the crossing [{lo}, {hi}] is not inside the stated [{STATED_N10[0]}, {STATED_N10[1]}]")
    return Status.PROVED


@claim("seed000.finite_n.threshold_C2_d3_dt4.N10",
       statement=(r"C=2,\ N=10,\ \text{sampling with replacement}:\ B^{ret}_{10}(4) - B^{pod}_{10}(3)"
                  r"\ \text{changes sign exactly once on } (0,\infty),\ \text{from } + \text{ to } -,\ \text{at }"
                  r"\rho^*_{10} \in [0.444754552002,\ 0.444754552003]"),
       source="Cuesta, Jonckheere, Prabhu, Brun, Retrials in Loss Systems (2026; paper 1 in docs/papers.md), simulation study (threshold load at finite N)",
       method="exact rational functions B_N(rho) = P/Q (integer determinants, exact interpolation, Cramer degree "
              "bound) + Descartes/Vincent-Collins-Akritas root isolation of P_a Q_b - P_b Q_a; identity re-proved "
              "at deg + D + 1 fresh loads",
       expected="PROVED", recheck=_proved_recheck)
def _prove_threshold_N10() -> Certificate:
    a, b = _threshold_models()
    r = certified_finite_n_threshold(a, b, PROVED_N, "with_replacement", digits=DIGITS)
    data = {"C": C, "d": D_POD, "dt": D_RET, "N": PROVED_N, "certificate": r.certificate()}
    status = _proved_recheck(data)
    lo, hi = r.crossing if r.crossing else (None, None)
    return Certificate(status, data=data,
                       summary=(f"N = {PROVED_N}: {r.n_roots} root(s), {r.n_crossings} crossing(s) of "
                                f"B_ret(4) - B_pod(3) on (0, oo); crossing in [{float(lo):.13f}, {float(hi):.13f}]"
                                if lo is not None else f"N = {PROVED_N}: {r.n_crossings} crossings"))
