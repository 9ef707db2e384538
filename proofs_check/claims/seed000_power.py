r"""Seed 000: uniqueness of the power-of-d fixed point, and retrial-of-d blocking decreasing in d.

``seed000.power_unique_fixed_point.C{C}_d{d}`` (PROVED, ``C <= 20``, ``1 <= d <= 6``): for every
:math:`\rho > 0` the power-of-d stationary equations have exactly one solution in :math:`[0, 1]^C`
(with :math:`u_0 = 1`), and its :math:`u_C` increases with :math:`\rho`. Certificate: the exact
identity (SymPy, on the model's own drift)

.. math:: \sum_{j=k}^{C} f_j = \rho\,(u_{k-1}^d - u_C^d) - \Big(k u_k + \sum_{j>k} u_j\Big),
          \qquad k = 1, \dots, C,

so at a fixed point :math:`u_{k-1} = (u_C^d + (k u_k + \sum_{j>k} u_j)/\rho)^{1/d}` (the unique
non-negative root). From :math:`u_C = s` every :math:`u_k` is then a strictly increasing function of
``s`` and a non-increasing function of :math:`\rho`, and so is :math:`W_1(s, \rho) = u_0^d`; a fixed
point is a root of :math:`W_1(s, \rho) = 1`; :math:`W_1(0, \rho) = 0` and
:math:`W_1(1, \rho) \ge 1 + 1/\rho`, so there is exactly one root :math:`s \in (0, 1)`, and since
:math:`W_1` decreases in :math:`\rho` it increases with :math:`\rho`.

``seed000.retrial_monotone_d.C{C}_d{d}`` (PROVED, ``C <= 20``, ``1 <= d <= 5``):
:math:`B_{ret}(d+1) < B_{ret}(d)` for every :math:`\rho > 0`. With :math:`g_d(a) = a/\sigma_d(E(C,a))`,
:math:`\sigma_d(p) = 1 + \dots + p^{d-1}`, the retrial-of-d fixed point has per-server load
:math:`a_d = g_d^{-1}(\rho)` and :math:`\rho(1 - B_{ret}(d)) = c(a_d)` with the carried load
:math:`c(a) = a(1 - E(C, a))` (because :math:`\sigma_d(p)(1 - p) = 1 - p^d`). Now
:math:`\sigma_{d+1} = \sigma_d + E^d > \sigma_d`, so :math:`g_{d+1}(a_d) < g_d(a_d) = \rho =
g_{d+1}(a_{d+1})`; :math:`g_{d+1}` increases strictly (lemma of ``seed000.unique_fixed_point``), so
:math:`a_{d+1} > a_d`, and :math:`c` increases strictly (non-negative coefficients of the numerator of
:math:`c'`), so :math:`1 - B_{ret}(d+1) > 1 - B_{ret}(d)`. Certificate: both models' bindings to the
birth-death template, the two exact lemmas, the identity
:math:`\sigma_{d+1} - \sigma_d = p^d` (integer polynomials), all recomputed by the re-check.
"""
from __future__ import annotations

from flint import fmpz_poly

from proofs_check.core import Certificate, CertificateError, Status, claim
from proofs_check.support import seed000 as com
from symloss.meanfield.enclosures import (BindingError, carried_load_lemma, power_binding, retrial_binding,
                                          retrial_g_lemma)
from symloss.meanfield.lemmas import retrial_g_facts_v1

C_RANGE = range(1, com.REGISTRY_C_MAX + 1)
SOURCE = "Cuesta, Jonckheere, Prabhu, Brun, Retrials in Loss Systems (2026; paper 1 in docs/papers.md), claims 1 and 5"


def _power_facts(C, d):
    m = com._model("power", C, d)
    try:
        b = power_binding(m)
    except BindingError as exc:
        raise CertificateError(str(exc)) from None
    return {"C": C, "d": d, "identity": b["identity"], "telescoped": b["telescoped"],
            "argument": "u_{k-1} = (u_C^d + (k u_k + sum_{j>k} u_j)/rho)^(1/d): every u_k strictly increasing in "
                        "s = u_C, non-increasing in rho; W_1(0) = 0 < 1 < 1 + 1/rho <= W_1(1): one root"}


def _make_power(C, d):
    def prove():
        data = _power_facts(C, d)
        data["stamp"] = com.stamp(com._model("power", C, d))
        return Certificate(Status.PROVED, data, _power_summary(data, Status.PROVED))

    def recheck(data):
        if (data.get("C"), data.get("d")) != (C, d):
            raise CertificateError("parameters differ")
        com.check_stamp(data, com._model("power", C, d))
        fresh = _power_facts(C, d)
        for k in ("identity", "telescoped", "argument"):
            if data.get(k) != fresh[k]:
                raise CertificateError(f"stored {k} differs from the recomputed one")
        return Status.PROVED
    return prove, recheck


def _monotone_facts(C, d):
    out = {"C": C, "d": d}
    for dd in (d, d + 1):
        try:
            out[f"binding_d{dd}"] = retrial_binding(com._model("retrial", C, dd))["identity"]
        except BindingError as exc:
            raise CertificateError(str(exc)) from None
        g = retrial_g_lemma(C, dd)
        out[f"g_{dd}_increasing"] = g["facts"]
        out[f"g_{dd}_holds"] = g["holds"]
    c = carried_load_lemma(C)
    out["carried_load_increasing"] = c["holds"]
    sig_d, sig_d1 = fmpz_poly([1] * d), fmpz_poly([1] * (d + 1))
    out["sigma_identity"] = (sig_d1 - sig_d) == fmpz_poly([0] * d + [1])
    return out


def _ok(f, d):
    return bool(f[f"g_{d}_holds"] and f[f"g_{d + 1}_holds"] and f["carried_load_increasing"] and f["sigma_identity"])


def _monotone_summary(data: dict, status: Status) -> str:
    return ("a_{d+1} > a_d (g_{d+1} < g_d, both increasing) and the carried load increases"
            if status == Status.PROVED else "a lemma failed")


def _power_summary(data: dict, status: Status) -> str:
    return "telescoped stationary equations (exact identity on the drift): W_1(s, rho) strictly increasing in s, one root"


def _make_monotone(C, d):
    def prove():
        data = _monotone_facts(C, d)
        data["stamp"] = com.stamp(com._model("retrial", C, d), com._model("retrial", C, d + 1))
        st = Status.PROVED if _ok(data, d) else Status.UNDECIDED
        return Certificate(st, data, _monotone_summary(data, st))

    def recheck(data):
        if (data.get("C"), data.get("d")) != (C, d):
            raise CertificateError("parameters differ")
        com.check_stamp(data, com._model("retrial", C, d), com._model("retrial", C, d + 1))
        fresh = _monotone_facts(C, d)
        for k, v in fresh.items():
            # g_*_increasing: certificates written before 2026-12-02 stored A(0), B(0) as integers
            legacy = retrial_g_facts_v1(C, int(k[2:-11])) if k.endswith("_increasing") and k.startswith("g_") else v
            if data.get(k) != v and data.get(k) != legacy:
                raise CertificateError(f"stored {k} differs from the recomputed one")
        if not _ok(fresh, d):
            raise CertificateError("a lemma does not hold")
        return Status.PROVED
    return prove, recheck


for _C in C_RANGE:
    for _d in range(1, com.REGISTRY_D_MAX + 1):
        _p, _r = _make_power(_C, _d)
        claim(f"seed000.power_unique_fixed_point.C{_C}_d{_d}",
              statement=(rf"C = {_C},\ d = {_d}:\ \text{{the power-of-d fixed point is unique for every }} \rho > 0"
                         rf"\ \text{{and }} u_C \text{{ increases with }} \rho"),
              source=SOURCE, method="exact identity on the model's drift (telescoped stationary equations, SymPy)",
              expected="PROVED", recheck=_r, tags=com.scale_tags(_C, _d), summarize=_power_summary,
              scope=com.scope_of(_C, (_d,)))(_p)
    for _d in range(1, com.REGISTRY_D_MAX):
        _p, _r = _make_monotone(_C, _d)
        claim(f"seed000.retrial_monotone_d.C{_C}_d{_d}",
              statement=rf"C = {_C}:\ B_{{ret}}({_d + 1}) < B_{{ret}}({_d})\ \text{{for every }} \rho > 0",
              source=SOURCE, method="exact lemmas (flint): g_d, g_{d+1} and the carried load increasing; "
                                    "g_{d+1} < g_d; model drifts checked (SymPy)",
              expected="PROVED", recheck=_r, tags=com.scale_tags(_C, _d + 1), summarize=_monotone_summary,
              scope=com.scope_of(_C, (_d,)))(_p)
