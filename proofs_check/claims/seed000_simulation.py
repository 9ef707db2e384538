r"""Seed 000, the simulation study: the load above which retrial-of-dt beats power-of-d at finite N.

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

import math

from proofs_check.core import Certificate, CertificateError, Status, claim

C, D_POD, D_RET = 2, 3, 4
NS = (10, 20, 40, 80)
REL = 1e-6


def _exact_D(N, rho):
    from symloss import exact_finite_n
    a = exact_finite_n("retrial", N, C, rho, D_RET).blocking
    b = exact_finite_n("power", N, C, rho, D_POD).blocking
    return a - b


def _refined_D(N, rho):
    from symloss import refined_mean_field
    return (refined_mean_field("retrial", rho=rho, C=C, d=D_RET, dps=15).at(N)
            - refined_mean_field("power", rho=rho, C=C, d=D_POD, dps=15).at(N))


def _mf_D(rho):
    from symloss import PowerOfD, RetrialOfD
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
                  r"\ \text{below } \rho^*_\infty;\ |\rho^{ref}_N - \rho^*_N| < |\rho^*_\infty - \rho^*_N|"),
       source="seeds/000_23f33c6a2eab69fc.txt, simulation study (threshold load at finite N)",
       method="exact finite-N CTMC (sparse LU) + Brent; refined mean field (Gast-Van Houdt)",
       expected="EVIDENCE", recheck=_recheck)
def _prove() -> Certificate:
    from scipy.optimize import brentq

    from symloss import finite_n_threshold
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
