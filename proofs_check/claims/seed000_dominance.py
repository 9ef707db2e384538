r"""Seed 000, claim 4: at ``C = 2`` retrial-of-3 blocks strictly less than power-of-2 at every load.

``seed000.dominance.C2_d2_dt3`` (PROVED by elimination; Cuesta et al. 2026 in docs/papers.md, claim 4):

1. ``Q_ret(p, rho)`` and ``Q_pod(s, rho)`` are derived from ``RetrialOfD(2, 3)`` and ``PowerOfD(2, 2)``
   stationary equations by resultants (:mod:`proofs_check.support.seed000`).
2. A crossing ``B_ret(3) = p^3 = s^2 = B_pod(2)`` with ``p, s in (0, 1)`` means ``p = v^2``, ``s = v^3``
   with ``v in (0, 1)``; eliminating ``rho`` gives ``R_v(v) = Res_rho(Q_ret(v^2, rho), Q_pod(v^3, rho))``
   (degree 36) and ``R_v`` has **no root in (0, 1)** (Sturm count 0).
3. Hence ``D(rho) = B_ret(3) - B_pod(2)`` (continuous) never vanishes on ``(0, oo)``; its sign is the
   sign at ``rho = 1``, certified by disjoint ball brackets: ``D(1) < 0``.
4. End-point behaviour (consistency, exact): from the Newton polygons of ``Q_ret``, ``Q_pod``,
   ``B_ret(3) ~ rho^6/8`` and ``B_pod(2) ~ rho^6/4`` as ``rho -> 0``; as ``rho -> oo`` with ``t = 1/rho``,
   ``B_ret(3) = 1 - 2t + 2t^2/3 + O(t^3)`` and ``B_pod(2) = 1 - 2t + t^2 + O(t^3)``: the difference is
   negative at both ends, as the proof says.

``FALSE_CLAIM`` (not registered, a test fixture): "``B_ret(2) < B_pod(2)`` for all ``rho`` at
``C = 2``" comes out REFUTED with a certified counterexample at a rational load (disjoint ball
brackets with ``B_ret(2) > B_pod(2)``). ``FALSE_CLAIM_C3`` (not registered): "power-of-2 beats
retrial-of-3 for every load at ``C = 3``", i.e. ``B_pod(2) < B_ret(3)`` for every ``rho``: the certified
comparison finds the crossing near ``0.9496`` and the claim is REFUTED with a ball-sampled
counter-example load above it.
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from proofs_check.core import Certificate, CertificateError, Claim, Status, claim
from proofs_check.support import seed000 as com, seed000_compare as cmp

ID = "seed000.dominance.C2_d2_dt3"
C, D_POD, D_RET = 2, 2, 3


def _endpoints() -> dict:
    out = {}
    for kind, d in (("retrial", D_RET), ("power", D_POD)):
        Q = com.model_polynomial(kind, C, d)
        b0 = com.branch_terms(Q, "0", 1)
        boo = com.branch_terms(Q, "oo", 2)
        if len(b0) != 1 or len(boo) != 1:
            raise CertificateError(f"{kind}: the branch through the origin / through x = 1 is not unique")
        out[kind] = {"at_0": {"x_terms": b0[0], "blocking": str(com.blocking_expansion(b0[0], d, "0", 12))},
                     "at_oo": {"one_minus_x_terms": boo[0],
                               "blocking_in_t": str(com.blocking_expansion(boo[0], d, "oo", 2))}}
    return out


def _endpoint_signs(ep: dict) -> dict:
    """Signs of B_ret - B_pod from the leading terms at both ends (computed from ``ep``)."""
    rho, t = sp.symbols("rho t")
    b0 = sp.sympify(ep["retrial"]["at_0"]["blocking"]) - sp.sympify(ep["power"]["at_0"]["blocking"])
    boo = sp.sympify(ep["retrial"]["at_oo"]["blocking_in_t"]) - sp.sympify(ep["power"]["at_oo"]["blocking_in_t"])
    lead0 = sp.Poly(sp.expand(b0), rho).terms()[-1] if b0 != 0 else ((0,), 0)
    leadoo = sp.Poly(sp.expand(boo), t).terms()[-1] if boo != 0 else ((0,), 0)
    return {"rho->0": {"leading": f"{lead0[1]}*rho^{lead0[0][0]}", "sign": int(sp.sign(lead0[1]))},
            "rho->oo": {"leading": f"{leadoo[1]}*t^{leadoo[0][0]}", "sign": int(sp.sign(leadoo[1]))}}


def _models():
    return com._model("retrial", C, D_RET), com._model("power", C, D_POD)


def _prove() -> Certificate:
    data = com.prove_no_crossing(C, D_RET, D_POD, Fraction(1))
    data["stamp"] = com.stamp(*_models())
    if data["roots_in_(0,1)"] != 0 or "sign" not in data:
        return Certificate(Status.UNDECIDED, data, f"R_v has {data['roots_in_(0,1)']} root(s) in (0, 1)")
    ep = _endpoints()
    data["endpoints"] = ep
    data["endpoint_signs"] = _endpoint_signs(ep)
    ok = data["sign"] == -1 and all(v["sign"] == -1 for v in data["endpoint_signs"].values())
    st = Status.PROVED if data["sign"] == -1 else Status.REFUTED
    if data["sign"] == -1 and not ok:
        st = Status.UNDECIDED
    return Certificate(st, data, _summarize(data, st))


def _summarize(data: dict, status: Status) -> str:
    """The one-line summary, rebuilt from the (verified) data."""
    if status == Status.UNDECIDED and data.get("roots_in_(0,1)"):
        return f"R_v has {data['roots_in_(0,1)']} root(s) in (0, 1)"
    return (f"R_v (degree {data['R_v_degree']}) has no root in (0,1); "
            f"B_ret(3) - B_pod(2) < 0 at rho = 1; ends: "
            f"{data['endpoint_signs']['rho->0']['leading']}, "
            f"{data['endpoint_signs']['rho->oo']['leading']}")


def _recheck(data: dict) -> Status:
    com.check_stamp(data, *_models())
    s = com.recheck_no_crossing(data, C, D_RET, D_POD)
    ep = _endpoints()
    if data.get("endpoints") != ep:
        raise CertificateError("stored end-point expansions differ from the model's")
    signs = _endpoint_signs(ep)
    if data.get("endpoint_signs") != signs or any(v["sign"] != s for v in signs.values()):
        raise CertificateError("end-point signs disagree with the certified sign")
    return Status.PROVED if s == -1 else Status.REFUTED


claim(ID,
      statement=r"C = 2:\ B_{ret}(3) < B_{pod}(2)\ \text{for every } \rho > 0",
      source="Cuesta, Jonckheere, Prabhu, Brun, Retrials in Loss Systems (2026; paper 1 in docs/papers.md), claim 4 (retrial-of-3 beats power-of-2 at C = 2)",
      method="elimination: resultants from the model's stationary equations, Sturm count 0 of R_v on (0,1), "
             "one ball-certified sample, Newton-polygon end points",
      expected="PROVED", recheck=_recheck, tags=("seed000", "elimination"), summarize=_summarize)(_prove)


# --------------------------------------------------------------------------------------------------
# deliberately false claim (test fixture; NOT registered)
# --------------------------------------------------------------------------------------------------

def _false_fixture(id, statement, contradicts, method, prove, recheck) -> Claim:
    """A deliberately false claim (a test fixture, never registered): expected REFUTED, tagged
    ``fixture``, its statement marked as false and its source naming the claim it contradicts."""
    return Claim(id=id, statement=statement + r"\ \text{(deliberately false)}",
                 source=f"test fixture for proofs_check (contradicts {contradicts})", method=method,
                 expected=Status.REFUTED, prove=prove, recheck=recheck, tags=("fixture",))


FALSE_RHO = Fraction(1)


def _prove_false() -> Certificate:
    """Search for a counterexample to B_ret(2) < B_pod(2) on a few rational loads."""
    for rho in (FALSE_RHO, Fraction(1, 2), Fraction(2)):
        s = com.certified_sign(2, 2, 2, rho)
        if s["sign"] == 1:
            lr, lp = s["retrial"]["log_blocking"], s["power"]["log_blocking"]
            return Certificate(Status.REFUTED, {"counterexample": s},
                               f"at rho = {s['rho']}: log B_ret(2) >= {lr[0][:14]} > log B_pod(2) <= {lp[1][:14]}")
    return Certificate(Status.UNDECIDED, {}, "no counterexample found")


def _recheck_false(data: dict) -> Status:
    cx = data.get("counterexample")
    if not cx or cx.get("sign") != 1:
        raise CertificateError("no counterexample stored")
    com.recheck_sample(cx, 2, 2, 2)
    return Status.REFUTED


FALSE_CLAIM = _false_fixture(
    "seed000.false.C2_ret2_below_pod2", r"C = 2:\ B_{ret}(2) < B_{pod}(2)\ \text{for every } \rho > 0",
    "claim 2 of Cuesta et al. 2026", "search for a certified counterexample (ball brackets at rational loads)",
    _prove_false, _recheck_false)


# --------------------------------------------------------------------------------------------------
# "power-of-2 beats retrial-of-3 for every load at C = 3" (false; test fixture, NOT registered)
# --------------------------------------------------------------------------------------------------

def _c3():
    return cmp.make_everywhere(3, 3, 2, 1)     # claims B_ret(3) - B_pod(2) > 0 at every load


def _prove_false_c3() -> Certificate:
    return _c3()[0]()


def _recheck_false_c3(data: dict) -> Status:
    return _c3()[1](data)


FALSE_CLAIM_C3 = _false_fixture(
    "seed000.false.C3_pod2_beats_ret3", r"C = 3:\ B_{pod}(2) < B_{ret}(3)\ \text{for every } \rho > 0",
    "seed000.eventually.C3_d2_dt3",
    "certified comparison for every load; a ball-sampled counter-example in the piece of the wrong sign",
    _prove_false_c3, _recheck_false_c3)
