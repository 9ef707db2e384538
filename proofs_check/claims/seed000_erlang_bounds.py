r"""Seed 000, Erlang bounds (MATH.md section 2 item 5).

``seed000.erlang_bounds.retrial_sandwich`` (PROVED for ``C in {1..5, 10, 20}``, ``d in {2, 3, 4}``):
:math:`E(C,\rho)^d \le B_{ret}(d) \le E(C,\rho)`. With ``p = E(C, a)``, ``a = rho (1 + ... + p^{d-1})``
(the model's birth-death structure, checked on the drift):

* L1: ``E(C, a)`` increases in ``a``: ``dE/da = f (C S - a S') / (a S^2)`` and ``C S - a S'`` has
  coefficients ``(C - j) C!/j! >= 0`` with constant ``C C! > 0``;
* L2: the carried load ``c(a) = a (1 - E(C, a)) = a S_{C-1}/S_C`` increases in ``a``: the numerator of
  ``c'`` has non-negative coefficients and a positive constant term;
* since ``a >= rho``: ``p = E(C, a) >= E(C, rho)``, so ``B = p^d >= E(C, rho)^d``; and
  ``rho (1 - B) = rho (1 - p^d) = a (1 - p) = c(a) >= c(rho) = rho (1 - E(C, rho))``, so ``B <= E(C, rho)``
  (the identity ``(1 + p + ... + p^{d-1})(1 - p) = 1 - p^d`` is checked exactly).

``seed000.erlang_bounds.fluid_lower`` (PROVED for ``C in {1..5, 10}``, ``d in {1, 2, 3, 4}``):
:math:`\max(0, 1 - C/\rho) \le B` for retrial-of-d, power-of-d and JSQ. From the models' drifts
(checked in SymPy): retrial ``sum_k k f_k = rho (1 - x_C^d) - sum_k k x_k`` on ``sum x_k = 1``;
power-of-d ``sum_k f_k = rho (1 - u_C^d) - sum_k u_k``. At a fixed point ``rho (1 - B)`` is the carried
load, at most ``C`` (``x_k >= 0``, ``sum x_k = 1``; ``0 <= u_k <= 1``). JSQ's blocking expression is
``max(0, 1 - C/rho)`` itself.

``seed000.erlang_bounds.large_C`` (EVIDENCE): the three bounds on a grid at ``C = 50, 100``, two
precisions.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp
from flint import fmpz_poly

from proofs_check.claims import seed000_common as com
from proofs_check.core import Certificate, CertificateError, Status, claim

SANDWICH_C = (1, 2, 3, 4, 5, 10, 20)
SANDWICH_D = (2, 3, 4)
FLUID_C = (1, 2, 3, 4, 5, 10)
FLUID_D = (1, 2, 3, 4)


def _lemma_polys(C):
    S, Sm, f = com.erlang_polys(C)
    LE = C * S - fmpz_poly([0, 1]) * S.derivative()     # numerator of dE/da (times f/(a S^2))
    c_num = fmpz_poly([0, 1]) * Sm                     # c = c_num / S
    Lc = c_num.derivative() * S - c_num * S.derivative()
    return LE, Lc


def _geometric_identity(d):
    sigma = fmpz_poly([1] * d)
    return sigma * fmpz_poly([1, -1]) == fmpz_poly([1] + [0] * (d - 1) + [-1])


def _sandwich_data():
    out = {"lemmas": {}, "models": {}, "geometric_identity_d": list(SANDWICH_D)}
    for C in SANDWICH_C:
        LE, Lc = _lemma_polys(C)
        out["lemmas"][str(C)] = {"E_increasing": com.nonneg_certificate(LE), "carried_increasing": com.nonneg_certificate(Lc)}
        for d in SANDWICH_D:
            out["models"][f"{C},{d}"] = com.check_retrial_birth_death(C, d)
    return out


def _recheck_sandwich(data: dict) -> Status:
    if set(data.get("lemmas", {})) != {str(C) for C in SANDWICH_C}:
        raise CertificateError("lemmas missing for some C")
    for C in SANDWICH_C:
        LE, Lc = _lemma_polys(C)
        lem = data["lemmas"][str(C)]
        for key, p in (("E_increasing", LE), ("carried_increasing", Lc)):
            com.recheck_nonneg(lem[key], p)
            if lem[key]["kind"] != "nonneg_coefficients" and not p(0) > 0:
                raise CertificateError("lemma needs positivity from 0")
        for d in SANDWICH_D:
            if data["models"].get(f"{C},{d}") != com.check_retrial_birth_death(C, d):
                raise CertificateError(f"model binding for C={C}, d={d} differs")
    if data.get("geometric_identity_d") != list(SANDWICH_D) or not all(_geometric_identity(d) for d in SANDWICH_D):
        raise CertificateError("geometric identity not checked")
    return Status.PROVED


def _prove_sandwich() -> Certificate:
    data = _sandwich_data()
    try:
        st = _recheck_sandwich(data)
    except CertificateError as exc:
        return Certificate(Status.UNDECIDED, data, str(exc))
    return Certificate(st, data, f"lemmas L1, L2 by non-negative coefficients for C in {list(SANDWICH_C)}; "
                                 f"model structure checked for d in {list(SANDWICH_D)}")


claim("seed000.erlang_bounds.retrial_sandwich",
      statement=(r"E(C,\rho)^d \le B_{ret}(d) \le E(C,\rho)\ \text{for every } \rho > 0,\ "
                 r"C \in \{1,\dots,5,10,20\},\ d \in \{2,3,4\}"),
      source="MATH.md section 2 item 5 (Erlang bounds); seeds/000_23f33c6a2eab69fc.txt",
      method="monotonicity lemmas by exact polynomials with non-negative coefficients (flint); model drift "
             "checked to be the birth-death form (SymPy)",
      expected="PROVED", recheck=_recheck_sandwich, tags=("seed000",))(_prove_sandwich)


# ---- fluid lower bound ------------------------------------------------------------------------------

def _fluid_identities(C, d) -> dict:
    from symloss.meanfield import JSQ, RHO, PowerOfD, RetrialOfD
    R = RetrialOfD(C, d)
    x = list(R.variables)
    f = R.drift()
    lhs = sum(k * f[k] for k in range(C + 1))
    rhs = RHO * (1 - x[C] ** d) - sum(k * x[k] for k in range(C + 1))
    ret = sp.expand((lhs - rhs).subs(x[0], 1 - sum(x[1:])))
    P = PowerOfD(C, d)
    u = list(P.variables)
    g = P.drift()
    pod = sp.expand(sum(g) - (RHO * (1 - u[-1] ** d) - sum(u)))
    out = {"retrial_residual": str(ret), "power_residual": str(pod),
           "retrial_blocking": str(R.blocking_expr()), "power_blocking": str(P.blocking_expr())}
    if d == 1:
        out["jsq_blocking"] = str(JSQ(C).blocking_expr())
    return out


def _fluid_ok(C, d, ids) -> bool:
    xs, us, rho = sp.Symbol(f"x{C}"), sp.Symbol(f"u{C}"), sp.Symbol("rho")
    ok = ids["retrial_residual"] == "0" and ids["power_residual"] == "0"
    ok = ok and sp.sympify(ids["retrial_blocking"]) == xs ** d and sp.sympify(ids["power_blocking"]) == us ** d
    if d == 1:
        ok = ok and sp.sympify(ids["jsq_blocking"]) == sp.Max(0, 1 - C / rho)
    return bool(ok)


def _prove_fluid() -> Certificate:
    data = {"identities": {f"{C},{d}": _fluid_identities(C, d) for C in FLUID_C for d in FLUID_D}}
    ok = all(_fluid_ok(C, d, data["identities"][f"{C},{d}"]) for C in FLUID_C for d in FLUID_D)
    return Certificate(Status.PROVED if ok else Status.UNDECIDED, data,
                       "carried-load identities hold exactly on the models' drifts" if ok else "an identity fails")


def _recheck_fluid(data: dict) -> Status:
    ids = data.get("identities", {})
    if set(ids) != {f"{C},{d}" for C in FLUID_C for d in FLUID_D}:
        raise CertificateError("identity set differs")
    for C in FLUID_C:
        for d in FLUID_D:
            fresh = _fluid_identities(C, d)
            if ids[f"{C},{d}"] != fresh or not _fluid_ok(C, d, fresh):
                raise CertificateError(f"identity check fails at C={C}, d={d}")
    return Status.PROVED


claim("seed000.erlang_bounds.fluid_lower",
      statement=(r"\max(0, 1 - C/\rho) \le B\ \text{for retrial-of-}d\text{, power-of-}d\text{ and JSQ},\ "
                 r"C \in \{1,\dots,5,10\},\ d \in \{1,\dots,4\},\ \rho > 0"),
      source="MATH.md section 2 item 5; seeds/000_23f33c6a2eab69fc.txt",
      method="exact carried-load identities on the models' drifts (SymPy)",
      expected="PROVED", recheck=_recheck_fluid, tags=("seed000",))(_prove_fluid)


# ---- evidence at large C ----------------------------------------------------------------------------

LARGE = [(50, 2), (100, 2)]
LARGE_RHO = [Fraction(1, 2), Fraction(1), Fraction(11, 10), Fraction(2)]


def _large_rows(dps):
    from symloss import erlang_b
    from symloss.meanfield import PowerOfD, RetrialOfD
    rows = []
    for C, d in LARGE:
        for f in LARGE_RHO:
            rho = C * f
            with mpmath.workdps(dps + 10):
                E = erlang_b(C, rho, dps=dps)
                Br = RetrialOfD(C, d).blocking(rho, dps=dps)
                Bp = PowerOfD(C, d).blocking(rho, dps=dps)
                fl = max(mpmath.mpf(0), 1 - mpmath.mpf(C) / (mpmath.mpf(rho.numerator) / rho.denominator))
                rows.append({"C": C, "d": d, "rho": f"{rho.numerator}/{rho.denominator}",
                             "E": mpmath.nstr(E, 20), "B_ret": mpmath.nstr(Br, 20), "B_pod": mpmath.nstr(Bp, 20),
                             "ok": bool(E ** d <= Br <= E and fl <= Br and fl <= Bp)})
    return rows


def _prove_large() -> Certificate:
    a, b = _large_rows(20), _large_rows(40)
    agree = all(r1["ok"] and r2["ok"] and abs(mpmath.mpf(r1[k]) - mpmath.mpf(r2[k])) <= mpmath.mpf(10) ** -17 * abs(mpmath.mpf(r2[k]))
                for r1, r2 in zip(a, b) for k in ("E", "B_ret", "B_pod"))
    return Certificate(Status.EVIDENCE if agree else Status.UNDECIDED, {"rows": b, "dps": [20, 40]},
                       f"all three bounds hold at {len(b)} (C, d, rho) points, two precisions agree")


def _recheck_large(data: dict) -> Status:
    fresh = _large_rows(20)
    rows = data.get("rows", [])
    if len(rows) != len(fresh):
        raise CertificateError("grid differs")
    for r, f in zip(rows, fresh):
        if (r["C"], r["d"], r["rho"]) != (f["C"], f["d"], f["rho"]) or not f["ok"] or not r["ok"]:
            raise CertificateError("grid point differs or violates a bound")
        for k in ("E", "B_ret", "B_pod"):
            if abs(mpmath.mpf(r[k]) - mpmath.mpf(f[k])) > mpmath.mpf(10) ** -17 * abs(mpmath.mpf(f[k])):
                raise CertificateError(f"stored {k} differs at C={r['C']}, rho={r['rho']}")
    return Status.EVIDENCE


claim("seed000.erlang_bounds.large_C",
      statement=(r"E(C,\rho)^d \le B_{ret}(d) \le E(C,\rho),\ \max(0,1-C/\rho) \le B_{ret}(d), B_{pod}(d)"
                 r"\ \text{at } C \in \{50, 100\}"),
      source="MATH.md section 2 item 5; seeds/000_23f33c6a2eab69fc.txt",
      method="EVIDENCE: grid of loads around rho = C, values at 20 and 40 digits",
      expected="EVIDENCE", recheck=_recheck_large, tags=("seed000", "evidence"))(_prove_large)
