r"""Shared machinery of the seed-000 claims proved by a certified comparison for **every** load;
registers no claim (used by ``proofs_check.claims.seed000_dominance``, ``seed000_eventually`` and
``seed000_same_d``; ``proofs_check.claims.seed000_compare`` re-exports it).

The certificate of such a claim is the JSON certificate of
:func:`symloss.meanfield.certified.certified_comparison` of ``RetrialOfD(C, d_ret)`` against
``PowerOfD(C, d_pod)`` (sign of :math:`B_{ret} - B_{pod}` on :math:`(0, \infty)`, every crossing in an
interval of width :math:`\le 10^{-30}` holding exactly one crossing, their count), the stamp of the
two model definitions, and the conclusion drawn from it. The re-check is
:func:`symloss.meanfield.certified.verify_comparison`: every stored cell, end piece and crossing
bracket is re-verified from its stored numbers and the models' own equations (no search), the
fingerprints are compared, and the conclusion is recomputed.

A claim that comes out false is REFUTED with a certified counter-example: a ball sample of both
blockings (:func:`proofs_check.support.seed000.certified_sign`) at a rational load inside a piece of the wrong sign.
"""
from __future__ import annotations

import math
from fractions import Fraction

from proofs_check.core import Certificate, CertificateError, Status
from proofs_check.support import seed000 as com
from symloss.meanfield.certified import CertificateMismatch, _orient, certified_comparison, verify_comparison

DPS = 30


def models(C: int, d_ret: int, d_pod: int):
    """``(RetrialOfD(C, d_ret), PowerOfD(C, d_pod))``, from the policy-name table."""
    return com._model("retrial", C, d_ret), com._model("power", C, d_pod)


def _sign_word(s: int) -> str:
    return "B_ret > B_pod" if s == 1 else "B_ret < B_pod"


def describe(res) -> dict:
    """The conclusion a claim draws from a verified comparison (recomputed by the re-check)."""
    out = {"count": res.count, "sign_at_0": res.sign_at_zero, "sign_at_oo": res.sign_at_infinity,
           "pieces": res.pieces, "crossings": [c.to_dict() for c in res.crossings], "threshold": res.threshold}
    return out


def run(C: int, d_ret: int, d_pod: int) -> tuple:
    a, b = models(C, d_ret, d_pod)
    res = certified_comparison(a, b, dps=DPS)
    data = {"C": C, "d_ret": d_ret, "d_pod": d_pod, "stamp": com.stamp(a, b), "comparison": res.certificate,
            "conclusion": describe(res)}
    return res, data


def verify(data: dict, C: int, d_ret: int, d_pod: int):
    if (data.get("C"), data.get("d_ret"), data.get("d_pod")) != (C, d_ret, d_pod):
        raise CertificateError("certificate parameters differ from the claim's")
    a, b = models(C, d_ret, d_pod)
    com.check_stamp(data, a, b)
    try:
        res = verify_comparison(data["comparison"], a, b)
    except CertificateMismatch as exc:
        raise CertificateError(str(exc)) from None
    if data.get("conclusion") != describe(res):
        raise CertificateError("stored conclusion differs from the one the verified comparison gives")
    return res


def sample_load(piece: dict) -> Fraction:
    """A rational load strictly inside a piece ``{"rho": [lo, hi], ...}`` (``"0"``/``"oo"`` ends)."""
    lo, hi = piece["rho"]
    if hi == "oo":
        return Fraction(math.floor(Fraction(lo)) + 2)
    hi_f = Fraction(hi)
    if lo == "0":
        return hi_f / 2
    return (Fraction(lo) + hi_f) / 2


def counterexample(C: int, d_ret: int, d_pod: int, res, bad_sign: int) -> dict | None:
    for piece in res.pieces:
        if piece["sign"] == bad_sign:
            s = com.certified_sign(C, d_ret, d_pod, sample_load(piece))
            if s["sign"] != bad_sign:   # impossible for a verified comparison
                raise CertificateError("ball sample contradicts the certified comparison")
            return s
    return None


def _oriented(data: dict) -> dict:
    """Count, signs and threshold of ``B_ret - B_pod`` from the comparison certificate's summary (checked
    by :func:`symloss.verify_comparison` to be the one recomputed from its cells)."""
    comp = data["comparison"]
    return _orient(comp["summary_psi"], 1 if comp["a_is"] == "retrial" else -1)


def everywhere_summary(want: int):
    """The ``summarize`` of :func:`make_everywhere` claims: the summary rebuilt from the data."""
    def summarize(data: dict, status: Status) -> str:
        if status == Status.PROVED:
            return (f"{_sign_word(want)} at every load: no crossing on (0, oo) (certified, "
                    f"{len(data['comparison']['cells'])} cells, both end pieces)")
        if status == Status.REFUTED:
            return (f"{_oriented(data)['count']} crossing(s); counter-example at rho = {data['counterexample']['rho']} "
                    f"({_sign_word(-want)}, ball samples)")
        return f"comparison not certified: {data.get('error')}"
    return summarize


def eventually_summary(data: dict, status: Status) -> str:
    """The ``summarize`` of :func:`make_eventually` claims: the count and the threshold interval (first 24
    characters of each end) rebuilt from the data."""
    if status == Status.PROVED:
        o = _oriented(data)
        thr = o["threshold"]
        t = ("threshold 0: retrial-of-dt lower at every load" if thr == {"value": "0"} else
             f"threshold in [{thr['rho'][0][:24]}, {thr['rho'][1][:24]}]")
        return f"{o['count']} crossing(s) on (0, oo); {t}"
    if status == Status.REFUTED:
        return "B_ret > B_pod at large load (certified)"
    return f"comparison not certified: {data.get('error')}"


def make_everywhere(C: int, d_ret: int, d_pod: int, want: int):
    """Claim ``sign(B_ret(d_ret) - B_pod(d_pod)) = want`` at every load."""
    def prove():
        try:
            res, data = run(C, d_ret, d_pod)
        except ArithmeticError as exc:
            return Certificate(Status.UNDECIDED, {"error": str(exc)}, f"comparison not certified: {exc}")
        if res.count == 0 and res.sign_at_zero == want:
            return Certificate(Status.PROVED, data, everywhere_summary(want)(data, Status.PROVED))
        data["counterexample"] = counterexample(C, d_ret, d_pod, res, -want)
        return Certificate(Status.REFUTED, data, everywhere_summary(want)(data, Status.REFUTED))

    def recheck(data):
        res = verify(data, C, d_ret, d_pod)
        if res.count == 0 and res.sign_at_zero == want:
            return Status.PROVED
        cx = data.get("counterexample")
        if not cx or com.recheck_sample(cx, C, d_ret, d_pod) != -want:
            raise CertificateError("no certified counter-example stored")
        return Status.REFUTED
    return prove, recheck


def make_eventually(C: int, d: int, dt: int):
    """Claim ``B_ret(dt) < B_pod(d)`` for every load above some ``rho_0``, with the threshold and the
    number of crossings."""
    def prove():
        try:
            res, data = run(C, dt, d)
        except ArithmeticError as exc:
            return Certificate(Status.UNDECIDED, {"error": str(exc)}, f"comparison not certified: {exc}")
        if res.sign_at_infinity == -1:
            return Certificate(Status.PROVED, data, eventually_summary(data, Status.PROVED))
        data["counterexample"] = counterexample(C, dt, d, res, 1)
        return Certificate(Status.REFUTED, data, eventually_summary(data, Status.REFUTED))

    def recheck(data):
        res = verify(data, C, dt, d)
        if res.sign_at_infinity == -1:
            return Status.PROVED
        cx = data.get("counterexample")
        if not cx or com.recheck_sample(cx, C, dt, d) != 1:
            raise CertificateError("no certified counter-example stored")
        return Status.REFUTED
    return prove, recheck
