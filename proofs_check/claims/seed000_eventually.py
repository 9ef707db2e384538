r"""Seed 000, claim 3: for ``dt > d`` retrial-of-dt blocks less than power-of-d at all large loads.

``seed000.eventually.C{C}_d{d}_dt{dt}``: there is :math:`\rho_0` with
:math:`B_{ret}(\tilde d) < B_{pod}(d)` for every :math:`\rho > \rho_0`.

PROVED by elimination where tractable (:func:`seed000_common.prove_crossings`): every crossing load
is a root of ``R_rho = Res_v(Q_ret(v^(d/g), rho), Q_pod(v^(dt/g), rho))``; the positive roots of
``R_rho`` are isolated (factored Descartes certificate), the sign of ``D = B_ret(dt) - B_pod(d)`` is
certified at one rational load in every gap, and the last gap (above the largest positive root of
``R_rho``) has ``D < 0``: the claim holds with ``rho_0`` = the upper end of the last isolating interval.
When the sign changes account for all roots of ``R_v`` in (0, 1) (distinct crossings have distinct
``p``), the **exact threshold** (the load above which ``D < 0`` at every larger load) is the root of
``R_rho`` in the interval of the last sign change: its minimal polynomial (the irreducible factor of
``R_rho``) and an isolating interval of width ``10^-40`` are stored; ``0`` when ``D < 0`` everywhere.

Second argument, from the **large-load expansions** (exact Newton polygons of ``Q_ret`` and
``Q_pod`` at ``rho = oo``, :func:`seed000_common.large_load_expansion`): on the physical branch
``B = 1 - C t + (C/d') t^2 + O(t^3)``, ``t = 1/rho``. The physical branch is identified by
``rho (1 - B) -> C`` (fluid lower bound, Erlang sandwich and, for power-of-d, ``B_pod <= B_ret``:
claims ``seed000.erlang_bounds.*`` and ``seed000.same_d.C{C}_d{d}``), and it is unique because
``C/d'`` is a simple root of the slope -1 edge polynomial (so it is a convergent power series in
``t``). Hence ``B_ret(dt) - B_pod(d) = -C (1/d - 1/dt) t^2 + O(t^3) < 0`` for large ``rho``. This is
stored (and re-checked) with every elimination certificate, and it is the proof for
``C = 5, d = 2`` (``dt = 3, 4``), where ``R_rho`` is not computed.

EVIDENCE beyond (larger ``C``): the certified sign on a grid of large loads at two precisions, and the
large-load expansion :math:`B = 1 - C/\rho + (C/d')/\rho^2 + O(\rho^{-3})` (``d'`` = the policy's
``d``), i.e. :math:`\rho^2 (B_{pod}(d) - B_{ret}(\tilde d)) \to C (1/d - 1/\tilde d) > 0`, checked at the
largest grid load (relative deviation below 2 %).
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
from flint import fmpq

from proofs_check import algebra as alg
from proofs_check.claims import seed000_common as com
from proofs_check.core import Certificate, CertificateError, Status, claim

PROVED_CASES = [(2, 2, 3), (2, 2, 4), (2, 3, 4), (3, 2, 3), (3, 2, 4), (3, 3, 4), (4, 2, 3), (4, 2, 4)]
EXPANSION_CASES = [(5, 2, 3), (5, 2, 4)]
EVIDENCE_CASES = [(6, 2, 3), (10, 2, 3), (10, 3, 4), (20, 2, 3)]
EVIDENCE_FACTORS = [Fraction(2), Fraction(8), Fraction(32), Fraction(128), Fraction(1024)]


def _statement(C, d, dt):
    return (rf"C = {C}:\ \exists \rho_0\ \forall \rho > \rho_0:\ B_{{ret}}({dt}) < B_{{pod}}({d})"
            rf"\ \text{{(and the threshold load)}}")


def _summary(data):
    thr = data["threshold"]
    t = ("threshold 0 (retrial-of-dt lower at every load)" if thr and thr["value"] == "0" else
         f"threshold {thr['value'][:22]} (root of a degree-{len(thr['minimal_polynomial']) - 1} factor)"
         if thr else "threshold not certified")
    return (f"D < 0 for rho > {data['holds_above']}; {len(data['R_rho']['intervals'])} positive root(s) of R_rho, "
            f"sign changes {len(data['sign_changes'])}/{data['R_v']['count']}; {t}")


def _expansion(C, d, dt) -> dict:
    """Exact large-load expansions of both blockings and the lemmas identifying the physical branch."""
    from proofs_check.claims import seed000_erlang_bounds as eb
    from proofs_check.claims import seed000_same_d as sd
    S, Sm, _f = com.erlang_polys(C)
    # 1 - E(C, rho) = S_{C-1}/S_C = C/rho + O(rho^-2): degrees C-1, C and leading coefficients
    erl = {"deg S_C-1": Sm.degree(), "deg S_C": S.degree(),
           "lc ratio": alg.qstr(fmpq(int(Sm.leading_coefficient()), int(S.leading_coefficient())))}
    if erl != {"deg S_C-1": C - 1, "deg S_C": C, "lc ratio": str(C)}:
        raise CertificateError("1 - E(C, rho) is not C/rho + O(rho^-2)")
    uses = {"seed000.erlang_bounds.fluid_lower": C in eb.FLUID_C and d in eb.FLUID_D and dt in eb.FLUID_D,
            "seed000.erlang_bounds.retrial_sandwich": C in eb.SANDWICH_C and d in eb.SANDWICH_D and dt in eb.SANDWICH_D,
            f"seed000.same_d.C{C}_d{d}": (C, d) in sd.PROVED_CASES}
    ret = com.large_load_expansion("retrial", C, dt)
    pod = com.large_load_expansion("power", C, d)
    diff = Fraction(ret["b2"]) - Fraction(pod["b2"])
    return {"retrial": ret, "power": pod, "erlang_tail": erl, "uses_proved_claims": uses,
            "difference_t2": f"{diff.numerator}/{diff.denominator}",
            "valid": all(uses.values()) and diff < 0 and diff == -C * (Fraction(1, d) - Fraction(1, dt))}


def _check_expansion(stored, C, d, dt):
    fresh = _expansion(C, d, dt)
    if stored != fresh:
        raise CertificateError("stored large-load expansion differs from the recomputed one")
    return fresh["valid"]


def _make_proved(C, d, dt):
    def prove():
        data = com.prove_crossings(C, d, dt)
        try:
            data["expansion"] = _expansion(C, d, dt)
        except CertificateError as exc:
            data["expansion"] = {"error": str(exc)}
        st = Status.PROVED if data["eventual_sign"] == -1 else Status.REFUTED
        return Certificate(st, data, _summary(data))

    def recheck(data):
        concl = com.recheck_crossings(data, C, d, dt)
        ex = data.get("expansion", {})
        if "error" not in ex:
            _check_expansion(ex, C, d, dt)
        return Status.PROVED if concl["eventual_sign"] == -1 else Status.REFUTED
    return prove, recheck


def _make_expansion(C, d, dt):
    def prove():
        data = {"C": C, "d": d, "dt": dt, "expansion": _expansion(C, d, dt)}
        ok = data["expansion"]["valid"]
        return Certificate(Status.PROVED if ok else Status.UNDECIDED, data,
                           f"B_ret({dt}) - B_pod({d}) = {data['expansion']['difference_t2']} rho^-2 + O(rho^-3) "
                           "on the unique physical branches (exact Newton polygons)")

    def recheck(data):
        if (data.get("C"), data.get("d"), data.get("dt")) != (C, d, dt):
            raise CertificateError("parameters differ")
        if not _check_expansion(data.get("expansion"), C, d, dt):
            raise CertificateError("the expansion does not prove the claim")
        return Status.PROVED
    return prove, recheck


def _grid(C):
    return [C * f for f in EVIDENCE_FACTORS]


def _make_evidence(C, d, dt):
    coef = Fraction(C) * (Fraction(1, d) - Fraction(1, dt))

    def scaled(row):
        with mpmath.workdps(40):
            r = com.frac(row["rho"])
            return (mpmath.mpf(row["B_pod"]) - mpmath.mpf(row["B_ret"])) * (mpmath.mpf(r.numerator) / r.denominator) ** 2

    def judge(data, signs):
        last = scaled(data["grid"][-1])
        dev = abs(last / (mpmath.mpf(coef.numerator) / coef.denominator) - 1)
        return all(s == -1 for s in signs) and dev < 0.02, dev

    def prove():
        data = com.evidence_grid(C, dt, d, _grid(C))
        data["expansion_coefficient"] = f"{coef.numerator}/{coef.denominator}"
        ok, dev = judge(data, [r["sign"] for r in data["grid"]])
        ok = ok and all(r["precisions_agree"] for r in data["grid"])
        data["relative_deviation_at_largest_load"] = mpmath.nstr(dev, 5)
        data["note"] = "numerical evidence only: certified signs at grid loads and the rho^-2 coefficient"
        return Certificate(Status.EVIDENCE if ok else Status.UNDECIDED, data,
                           f"D < 0 at {len(data['grid'])} loads up to {1024 * C}; rho^2 (B_pod - B_ret) -> "
                           f"{coef} within {mpmath.nstr(dev, 2)}")

    def recheck(data):
        if [alg.q(r["rho"]) for r in data["grid"]] != [alg.q(x) for x in _grid(C)]:
            raise CertificateError("the evidence grid is not the claim's grid")
        if data.get("expansion_coefficient") != f"{coef.numerator}/{coef.denominator}":
            raise CertificateError("wrong expansion coefficient")
        signs = com.recheck_evidence_grid(data, C, dt, d)
        ok, _dev = judge(data, signs)
        if not ok:
            raise CertificateError("the recomputed grid does not support the claim")
        return Status.EVIDENCE
    return prove, recheck


_SRC = "seeds/000_23f33c6a2eab69fc.txt (retrial-of-dt beats power-of-d at high load); MATH.md section 2 item 3"
for _C, _d, _dt in PROVED_CASES:
    _p, _r = _make_proved(_C, _d, _dt)
    claim(f"seed000.eventually.C{_C}_d{_d}_dt{_dt}", statement=_statement(_C, _d, _dt), source=_SRC,
          method="elimination: R_rho and R_v from the model's stationary equations, factored Descartes "
                 "isolation, one ball-certified sample per gap; exact threshold (minimal polynomial)",
          expected="PROVED", recheck=_r, tags=("seed000", "elimination"))(_p)
for _C, _d, _dt in EXPANSION_CASES:
    _p, _r = _make_expansion(_C, _d, _dt)
    claim(f"seed000.eventually.C{_C}_d{_d}_dt{_dt}", statement=_statement(_C, _d, _dt).replace(
          r"\ \text{(and the threshold load)}", ""), source=_SRC,
          method="large-load expansions: exact Newton polygons of the model polynomials at rho = oo, "
                 "physical branch identified by the Erlang and fluid bounds (claims seed000.erlang_bounds.*, "
                 "seed000.same_d)",
          expected="PROVED", recheck=_r, tags=("seed000", "expansion"))(_p)
for _C, _d, _dt in EVIDENCE_CASES:
    _p, _r = _make_evidence(_C, _d, _dt)
    claim(f"seed000.eventually.C{_C}_d{_d}_dt{_dt}", statement=_statement(_C, _d, _dt), source=_SRC,
          method="EVIDENCE: ball-certified signs at large loads (20 and 40 digits) and the rho^-2 coefficient",
          expected="EVIDENCE", recheck=_r, tags=("seed000", "evidence"))(_p)
