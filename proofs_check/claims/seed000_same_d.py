r"""Seed 000, claim 2: for the same ``d``, power-of-d blocks no more than retrial-of-d at every load.

``seed000.same_d.C{C}_d{d}``: :math:`B_{pod}(d) \le B_{ret}(d)` for every :math:`\rho > 0`.

* ``C = 1`` (PROVED, equality): the model polynomials of both policies are the same,
  ``Q(x, rho) = x + rho x^d - rho``, strictly increasing in ``x > 0`` (every coefficient of
  ``dQ/dx`` is >= 0 and the constant term is 1), so ``p = s`` and the blockings are equal.
* ``C >= 2`` where elimination is tractable (PROVED, strict): ``R_v = Res_rho(Q_ret(v, rho),
  Q_pod(v, rho))`` (a crossing has ``p^d = s^d``, i.e. ``p = s = v``) has no root in ``(0, 1)``
  (Sturm count, or a Descartes partition above degree 60), so the sign of ``B_ret - B_pod`` is the
  certified sign at ``rho = 1``: positive.
* Where elimination stops (``C = 4, d = 3``: ``R_v`` of degree 364 has two roots in ``(0, 1)``, both
  from non-physical branches according to the numerics, which this argument cannot exclude; larger
  ``C``/``d``): EVIDENCE - the certified sign on a grid of rational loads, values at two precisions.
"""
from __future__ import annotations

from fractions import Fraction

from proofs_check import algebra as alg
from proofs_check.claims import seed000_common as com
from proofs_check.core import Certificate, CertificateError, Status, claim

PROVED_CASES = ([(1, d) for d in (2, 3, 4, 5)] + [(C, d) for C in (2, 3) for d in (2, 3, 4, 5)]
                + [(4, 2), (4, 3), (5, 2)])
EVIDENCE_CASES = [(4, 4), (5, 3), (6, 2), (6, 3), (10, 2), (10, 3), (20, 2)]
GRID = [Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(4), Fraction(8)]


def _statement(C, d):
    return rf"C = {C},\ d = {d}:\ B_{{pod}}({d}) \le B_{{ret}}({d})\ \text{{for every }} \rho > 0"


def _grid(C):
    return [C * r for r in GRID] + [Fraction(1, 10)]


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
    # dQ/dx: every coefficient >= 0 (as a polynomial in x and rho), constant term > 0
    dQ = {}
    for i, j, c in data["Q_ret"]["terms"]:
        if i > 0:
            dQ[(i - 1, j)] = dQ.get((i - 1, j), 0) + i * c
    if any(c < 0 for c in dQ.values()) or dQ.get((0, 0), 0) <= 0:
        raise CertificateError("dQ/dx is not positive on x, rho > 0")


def _make_equal(C, d):
    def prove():
        data = _equal_data(d)
        _check_equal(data, d)
        data["argument"] = ("both policies' fixed points are the unique root x in (0,1) of the same Q(x, rho), "
                            "strictly increasing in x; hence p = s and B_ret = p^d = s^d = B_pod")
        return Certificate(Status.PROVED, data, "same model polynomial, strictly monotone in x: equality")

    def recheck(data):
        if (data.get("C"), data.get("d")) != (C, d):
            raise CertificateError("parameters differ")
        _check_equal(data, d)
        return Status.PROVED
    return prove, recheck


# ---- C >= 2, elimination --------------------------------------------------------------------------

def _make_elim(C, d):
    def prove():
        data = com.prove_no_crossing(C, d, d, Fraction(1))
        if "sign" not in data:
            return Certificate(Status.UNDECIDED, data, f"R_v has {data['roots_in_(0,1)']} root(s) in (0,1) "
                                                       "not excluded as crossings")
        st = Status.PROVED if data["sign"] == 1 else Status.REFUTED
        roots = ("no root in (0,1)" if not data["roots_in_(0,1)"] else
                 f"{data['roots_in_(0,1)']} root(s) in (0,1), each excluded on the retrial branch")
        return Certificate(st, data, f"R_v (degree {data['R_v_degree']}, {data['R_v']['method']}): {roots}; "
                                     f"B_ret - B_pod {'>' if data['sign'] == 1 else '<'} 0 at rho = 1")

    def recheck(data):
        s = com.recheck_no_crossing(data, C, d, d)
        return Status.PROVED if s == 1 else Status.REFUTED
    return prove, recheck


# ---- evidence -------------------------------------------------------------------------------------

def _make_evidence(C, d):
    def prove():
        data = com.evidence_grid(C, d, d, _grid(C))
        ok = all(r["sign"] == 1 and r["precisions_agree"] for r in data["grid"])
        data["note"] = "numerical evidence only: certified sign at each grid load, not for every rho"
        return Certificate(Status.EVIDENCE if ok else Status.REFUTED, data,
                           f"B_pod < B_ret at all {len(data['grid'])} grid loads (two precisions)" if ok
                           else "a grid load violates the claim")

    def recheck(data):
        signs = com.recheck_evidence_grid(data, C, d, d)
        if [alg.q(r["rho"]) for r in data["grid"]] != [alg.q(x) for x in _grid(C)]:
            raise CertificateError("the evidence grid is not the claim's grid")
        return Status.EVIDENCE if all(s == 1 for s in signs) else Status.REFUTED
    return prove, recheck


for _C, _d in PROVED_CASES:
    _p, _r = (_make_equal if _C == 1 else _make_elim)(_C, _d)
    claim(f"seed000.same_d.C{_C}_d{_d}", statement=_statement(_C, _d),
          source="seeds/000_23f33c6a2eab69fc.txt (power-of-d vs retrial-of-d, same d); MATH.md section 2 item 2",
          method=("identical model polynomial, monotone in x" if _C == 1 else
                  "elimination: resultant R_v from the model's stationary equations, no root in (0,1), "
                  "one ball-certified sample"),
          expected="PROVED", recheck=_r, tags=("seed000", "elimination"))(_p)

for _C, _d in EVIDENCE_CASES:
    _p, _r = _make_evidence(_C, _d)
    claim(f"seed000.same_d.C{_C}_d{_d}", statement=_statement(_C, _d),
          source="seeds/000_23f33c6a2eab69fc.txt (power-of-d vs retrial-of-d, same d); MATH.md section 2 item 2",
          method="EVIDENCE: ball-certified sign on a grid of loads, values at 20 and 40 digits",
          expected="EVIDENCE", recheck=_r, tags=("seed000", "evidence"))(_p)
