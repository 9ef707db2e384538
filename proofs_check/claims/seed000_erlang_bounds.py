r"""Seed 000, Erlang bounds (Cuesta et al. 2026 in docs/papers.md, claim 5).

``seed000.erlang_bounds.retrial_sandwich`` (PROVED for ``C in {1..20}``, ``d in {2..6}``):
:math:`E(C,\rho)^d \le B_{ret}(d) \le E(C,\rho)`. With ``p = E(C, a)``, ``a = rho (1 + ... + p^{d-1})``
(the model's birth-death structure, checked on the drift):

* L1: ``E(C, a)`` increases in ``a``: ``dE/da = f (C S - a S') / (a S^2)`` and ``C S - a S'`` has
  coefficients ``(C - j) C!/j! >= 0`` with constant ``C C! > 0``;
* L2: the carried load ``c(a) = a (1 - E(C, a)) = a S_{C-1}/S_C`` increases in ``a``: the numerator of
  ``c'`` has non-negative coefficients and a positive constant term;
* since ``a >= rho``: ``p = E(C, a) >= E(C, rho)``, so ``B = p^d >= E(C, rho)^d``; and
  ``rho (1 - B) = rho (1 - p^d) = a (1 - p) = c(a) >= c(rho) = rho (1 - E(C, rho))``, so ``B <= E(C, rho)``
  (the identity ``(1 + p + ... + p^{d-1})(1 - p) = 1 - p^d`` is checked exactly).

``seed000.erlang_bounds.fluid_lower`` (PROVED for ``C in {1..20}``, ``d in {1..6}``):
:math:`\max(0, 1 - C/\rho) \le B` for retrial-of-d, power-of-d and JSQ. From the models' drifts
(checked in SymPy): retrial ``sum_k k f_k = rho (1 - x_C^d) - sum_k k x_k`` on ``sum x_k = 1``;
power-of-d ``sum_k f_k = rho (1 - u_C^d) - sum_k u_k``. At a fixed point ``rho (1 - B)`` is the carried
load, at most ``C`` (``x_k >= 0``, ``sum x_k = 1``; ``0 <= u_k <= 1``). JSQ's blocking expression is
``max(0, 1 - C/rho)`` itself.

``seed000.erlang_bounds.large_C`` (PROVED): the three bounds at ``C = 50, 100`` for ``d in {2..6}``,
by the same two arguments (lemmas L1, L2 for those ``C``, the models' drifts checked for every
``(C, d)``). Earlier versions held EVIDENCE (a grid of loads) here.

Every certificate carries a stamp (symloss version, fingerprints of every model it binds to); a
re-check refuses a certificate made from another definition.
"""
from __future__ import annotations

import sympy as sp
from flint import fmpz_poly

from proofs_check.core import Certificate, CertificateError, Status, claim
from proofs_check.support import seed000 as com
from symloss.meanfield import JSQ, RHO, PowerOfD, RetrialOfD

SANDWICH_C = tuple(range(1, 21))
SANDWICH_D = tuple(range(2, 7))
FLUID_C = tuple(range(1, 21))
FLUID_D = tuple(range(1, 7))
LARGE_C = (50, 100)
LARGE_D = tuple(range(2, 7))


def _lemma_polys(C):
    S, Sm, f = com.erlang_polys(C)
    LE = C * S - fmpz_poly([0, 1]) * S.derivative()     # numerator of dE/da (times f/(a S^2))
    c_num = fmpz_poly([0, 1]) * Sm                     # c = c_num / S
    Lc = c_num.derivative() * S - c_num * S.derivative()
    return LE, Lc


def _geometric_identity(d):
    sigma = fmpz_poly([1] * d)
    return sigma * fmpz_poly([1, -1]) == fmpz_poly([1] + [0] * (d - 1) + [-1])


def _ret_models(Cs, ds):
    return [com._model("retrial", C, d) for C in Cs for d in ds]


def _sandwich_data(Cs=SANDWICH_C, ds=SANDWICH_D):
    out = {"lemmas": {}, "models": {}, "geometric_identity_d": list(ds), "stamp": com.stamp(*_ret_models(Cs, ds))}
    for C in Cs:
        LE, Lc = _lemma_polys(C)
        out["lemmas"][str(C)] = {"E_increasing": com.nonneg_certificate(LE), "carried_increasing": com.nonneg_certificate(Lc)}
        for d in ds:
            out["models"][f"{C},{d}"] = com.check_retrial_birth_death(C, d)
    return out


def _recheck_sandwich(data: dict, Cs=SANDWICH_C, ds=SANDWICH_D) -> Status:
    com.check_stamp(data, *_ret_models(Cs, ds))
    if set(data.get("lemmas", {})) != {str(C) for C in Cs}:
        raise CertificateError("lemmas missing for some C")
    for C in Cs:
        LE, Lc = _lemma_polys(C)
        lem = data["lemmas"][str(C)]
        for key, p in (("E_increasing", LE), ("carried_increasing", Lc)):
            com.recheck_nonneg(lem[key], p)
            if lem[key]["kind"] != "nonneg_coefficients" and not p(0) > 0:
                raise CertificateError("lemma needs positivity from 0")
        for d in ds:
            if data["models"].get(f"{C},{d}") != com.check_retrial_birth_death(C, d):
                raise CertificateError(f"model binding for C={C}, d={d} differs")
    if data.get("geometric_identity_d") != list(ds) or not all(_geometric_identity(d) for d in ds):
        raise CertificateError("geometric identity not checked")
    return Status.PROVED


def _prove_sandwich(Cs=SANDWICH_C, ds=SANDWICH_D) -> Certificate:
    data = _sandwich_data(Cs, ds)
    try:
        st = _recheck_sandwich(data, Cs, ds)
    except CertificateError as exc:
        return Certificate(Status.UNDECIDED, data, str(exc))
    return Certificate(st, data, f"lemmas L1, L2 by non-negative coefficients for C in [{Cs[0]}..{Cs[-1]}]; "
                                 f"model structure checked for d in [{ds[0]}..{ds[-1]}]")


claim("seed000.erlang_bounds.retrial_sandwich",
      statement=(r"E(C,\rho)^d \le B_{ret}(d) \le E(C,\rho)\ \text{for every } \rho > 0,\ "
                 r"C \in \{1,\dots,20\},\ d \in \{2,\dots,6\}"),
      source="Cuesta, Jonckheere, Prabhu, Brun, Retrials in Loss Systems (2026; paper 1 in docs/papers.md), claim 5 (Erlang bounds)",
      method="monotonicity lemmas by exact polynomials with non-negative coefficients (flint); model drift "
             "checked to be the birth-death form (SymPy)",
      expected="PROVED", recheck=lambda data: _recheck_sandwich(data), tags=("seed000",))(lambda: _prove_sandwich())


# ---- fluid lower bound ------------------------------------------------------------------------------

def _fluid_identities(C, d) -> dict:
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


def _fluid_models(Cs, ds):
    out = []
    for C in Cs:
        for d in ds:
            out += [com._model("retrial", C, d), com._model("power", C, d)]
        if 1 in ds:
            out.append(JSQ(C))
    return out


def _prove_fluid(Cs=FLUID_C, ds=FLUID_D) -> Certificate:
    data = {"identities": {f"{C},{d}": _fluid_identities(C, d) for C in Cs for d in ds},
            "stamp": com.stamp(*_fluid_models(Cs, ds))}
    ok = all(_fluid_ok(C, d, data["identities"][f"{C},{d}"]) for C in Cs for d in ds)
    return Certificate(Status.PROVED if ok else Status.UNDECIDED, data,
                       "carried-load identities hold exactly on the models' drifts" if ok else "an identity fails")


def _recheck_fluid(data: dict, Cs=FLUID_C, ds=FLUID_D) -> Status:
    com.check_stamp(data, *_fluid_models(Cs, ds))
    ids = data.get("identities", {})
    if set(ids) != {f"{C},{d}" for C in Cs for d in ds}:
        raise CertificateError("identity set differs")
    for C in Cs:
        for d in ds:
            fresh = _fluid_identities(C, d)
            if ids[f"{C},{d}"] != fresh or not _fluid_ok(C, d, fresh):
                raise CertificateError(f"identity check fails at C={C}, d={d}")
    return Status.PROVED


claim("seed000.erlang_bounds.fluid_lower",
      statement=(r"\max(0, 1 - C/\rho) \le B\ \text{for retrial-of-}d\text{, power-of-}d\text{ and JSQ},\ "
                 r"C \in \{1,\dots,20\},\ d \in \{1,\dots,6\},\ \rho > 0"),
      source="Cuesta, Jonckheere, Prabhu, Brun, Retrials in Loss Systems (2026; paper 1 in docs/papers.md), claim 5 (Erlang bounds)",
      method="exact carried-load identities on the models' drifts (SymPy)",
      expected="PROVED", recheck=lambda data: _recheck_fluid(data), tags=("seed000",))(lambda: _prove_fluid())


# ---- large C: the same two arguments at C = 50, 100 -------------------------------------------------

def _prove_large() -> Certificate:
    a = _prove_sandwich(LARGE_C, LARGE_D)
    b = _prove_fluid(LARGE_C, LARGE_D)
    ok = a.status == Status.PROVED and b.status == Status.PROVED
    return Certificate(Status.PROVED if ok else Status.UNDECIDED, {"sandwich": a.data, "fluid": b.data},
                       f"C in {list(LARGE_C)}, d in [{LARGE_D[0]}..{LARGE_D[-1]}]: {a.summary}; {b.summary}")


def _recheck_large(data: dict) -> Status:
    _recheck_sandwich(data["sandwich"], LARGE_C, LARGE_D)
    _recheck_fluid(data["fluid"], LARGE_C, LARGE_D)
    return Status.PROVED


claim("seed000.erlang_bounds.large_C",
      statement=(r"E(C,\rho)^d \le B_{ret}(d) \le E(C,\rho),\ \max(0,1-C/\rho) \le B_{ret}(d), B_{pod}(d)"
                 r"\ \text{for every } \rho > 0 \text{ at } C \in \{50, 100\},\ d \in \{2,\dots,6\}"),
      source="Cuesta, Jonckheere, Prabhu, Brun, Retrials in Loss Systems (2026; paper 1 in docs/papers.md), claim 5 (Erlang bounds)",
      method="monotonicity lemmas (non-negative coefficients, flint) and carried-load identities on the models' "
             "drifts (SymPy), as for the small C",
      expected="PROVED", recheck=_recheck_large, tags=("seed000",))(_prove_large)
