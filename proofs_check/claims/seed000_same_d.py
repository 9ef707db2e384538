r"""Seed 000, claim 2: for the same ``d``, power-of-d blocks no more than retrial-of-d at every load.

``seed000.same_d.C{C}_d{d}``: :math:`B_{pod}(d) \le B_{ret}(d)` for every :math:`\rho > 0`, for every
``C <= 20`` and ``2 <= d <= 6``.

* ``C = 1`` (PROVED, equality): the model polynomials of both policies are the same,
  ``Q(x, rho) = x + rho x^d - rho``, strictly increasing in ``x > 0`` (every coefficient of
  ``dQ/dx`` is >= 0 and the constant term is 1), so ``p = s`` and the blockings are equal.
* ``C >= 2`` (PROVED, strict): a certified comparison for every load
  (:mod:`proofs_check.support.seed000_compare`): no crossing on :math:`(0, \infty)` and
  :math:`B_{ret}(d) - B_{pod}(d) > 0` on every cell, on :math:`(0, \rho(a_{lo})]` (elementary
  bounds) and on :math:`[\rho(a_{hi}), \infty)` (exact Taylor model; the blockings agree there to
  order :math:`\rho^{-3}`, the certified leading term is of order :math:`\rho^{-4}`).

The resultant method of earlier versions (no root of ``R_v`` in (0, 1)) stopped at ``C = 5``; it is
kept in :mod:`proofs_check.support.seed000` and used by the tests as an independent check of
the small cases.
"""
from __future__ import annotations

from proofs_check.core import Certificate, CertificateError, Status, claim
from proofs_check.support import seed000 as com, seed000_compare as cmp

C_RANGE = range(1, com.REGISTRY_C_MAX + 1)
D_RANGE = range(2, com.REGISTRY_D_MAX + 1)
SOURCE = "Cuesta, Jonckheere, Prabhu, Brun, Retrials in Loss Systems (2026; paper 1 in docs/papers.md), claim 2 (power-of-d vs retrial-of-d, same d)"


def _statement(C, d):
    return rf"C = {C},\ d = {d}:\ B_{{pod}}({d}) \le B_{{ret}}({d})\ \text{{for every }} \rho > 0"


# ---- C = 1 --------------------------------------------------------------------------------------

def _equal_data(d):
    Qr = com.model_polynomial("retrial", 1, d)
    Qp = com.model_polynomial("power", 1, d)
    return {"C": 1, "d": d, "Q_ret": Qr, "Q_pod": Qp}


def _check_equal(data, d):
    com.check_model_polynomial(data["Q_ret"], "retrial", 1, d, "Q_ret")
    com.check_model_polynomial(data["Q_pod"], "power", 1, d, "Q_pod")
    if data["Q_ret"] != data["Q_pod"]:
        raise CertificateError("the two model polynomials differ")
    dQ = {}
    for i, j, c in data["Q_ret"]["terms"]:
        if i > 0:
            dQ[(i - 1, j)] = dQ.get((i - 1, j), 0) + i * c
    if any(c < 0 for c in dQ.values()) or dQ.get((0, 0), 0) <= 0:
        raise CertificateError("dQ/dx is not positive on x, rho > 0")


def _make_equal(d):
    def prove():
        data = _equal_data(d)
        _check_equal(data, d)
        data["stamp"] = com.stamp(*cmp.models(1, d, d))
        data["argument"] = _ARGUMENT
        return Certificate(Status.PROVED, data, _equal_summary(data, Status.PROVED))

    def recheck(data):
        if (data.get("C"), data.get("d")) != (1, d):
            raise CertificateError("parameters differ")
        com.check_stamp(data, *cmp.models(1, d, d))
        _check_equal(data, d)
        if data.get("argument") != _ARGUMENT:
            raise CertificateError("stored argument differs from the proof's")
        return Status.PROVED
    return prove, recheck


_ARGUMENT = ("both policies' fixed points are the unique root x in (0,1) of the same Q(x, rho), "
             "strictly increasing in x; hence p = s and B_ret = p^d = s^d = B_pod")


def _equal_summary(data: dict, status: Status) -> str:
    return "same model polynomial, strictly monotone in x: equality"


for _C in C_RANGE:
    for _d in D_RANGE:
        if _C == 1:
            _p, _r = _make_equal(_d)
            _m = "identical model polynomial, monotone in x (equality)"
            _tags = ("seed000", "elimination")
            _s = _equal_summary
        else:
            _p, _r = cmp.make_everywhere(_C, _d, _d, 1)
            _s = cmp.everywhere_summary(1)
            _m = ("certified comparison for every load: 1-D reduction, Taylor models on dyadic cells, "
                  "elementary small-load bounds, exact Taylor model at large load")
            _tags = ("seed000", "comparison")
        claim(f"seed000.same_d.C{_C}_d{_d}", statement=_statement(_C, _d), source=SOURCE, method=_m,
              expected="PROVED", recheck=_r, tags=com.scale_tags(_C, _d, _tags), summarize=_s,
              scope=com.scope_of(_C, (_d,)))(_p)
