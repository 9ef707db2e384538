"""Tests of the exact certificate tools (proofs_check.algebra) and of the seed-000 claims.

Reference values: root counts are compared with polynomials built from known rational roots and with
python-flint's independent complex root isolation (arb); thresholds with symloss.crossing_loads
(adaptive grid + certified bisection, a different algorithm); the quartic of the issue's worked check
(C = 2, d = 2, rho = 1: s^4 + 2 s^3 - 2 s^2 - 4 s + 1) is quoted from MATH.md section 2.
"""
from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest
from flint import fmpq, fmpz_poly
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs_check import algebra as alg
from proofs_check.core import CertificateError, Status, all_claims, dump_json, recheck_records, run_claims, select

SEED000 = "seed000.*"


# --------------------------------------------------------------------------------------------------
# algebra
# --------------------------------------------------------------------------------------------------

def _from_roots(roots, extra=(1,)):
    p = alg.fmpq_poly([1])
    for r in roots:
        p *= alg.fmpq_poly([-fmpq(r.numerator, r.denominator), 1])
    p *= alg.fmpq_poly(list(extra))
    return p.numer()


rational = st.fractions(min_value=-5, max_value=5, max_denominator=7)


@settings(max_examples=60, deadline=None)
@given(st.lists(rational, min_size=1, max_size=7), st.integers(1, 4), rational, rational)
def test_counts_and_isolation_match_known_roots(roots, mult_first, a, b):
    lo, hi = min(a, b), max(a, b)
    if lo == hi:
        hi = lo + 1
    roots = roots + [roots[0]] * (mult_first - 1)       # a multiple root
    p = _from_roots(roots, extra=(3, 0, 1))             # times x^2 + 3 (no real root)
    inside = sorted({r for r in roots if lo < r < hi})
    assert alg.count_roots(p, lo, hi) == len(inside)
    assert alg.count_roots(p) == len(set(roots))
    for method in ("sturm", "descartes"):
        cert = alg.certify_isolation(p, lo, hi, method=method)
        ivs = alg.recheck_isolation(json.loads(json.dumps(cert)))
        assert len(ivs) == len(inside)
        for (x, y), r in zip(ivs, inside):
            assert x < fmpq(r.numerator, r.denominator) < y
    cert = alg.certify_no_roots(p, lo, hi, method="descartes")
    if inside:
        with pytest.raises(CertificateError):
            alg.recheck_no_roots(cert)
    else:
        alg.recheck_no_roots(cert)


def test_count_agrees_with_flint_complex_roots():
    import random
    rng = random.Random(7)
    for _ in range(40):
        p = fmpz_poly([rng.randint(-20, 20) for _ in range(rng.randint(2, 14))])
        if p.degree() < 1:
            continue
        sq = alg.squarefree_part(p)
        # flint isolates the real roots of an integer polynomial with an exactly zero imaginary part
        ref = sum(1 for r, _m in sq.complex_roots() if r.imag == 0)
        assert alg.count_roots(p) == ref, p


def test_factored_isolation_and_tampering():
    p = _from_roots([Fraction(1, 3), Fraction(5, 2), Fraction(-1), Fraction(7, 4)], extra=(-2, 0, 1))  # and +-sqrt 2
    cert = alg.certify_factored_isolation(p, 0)
    ivs = alg.recheck_factored_isolation(json.loads(json.dumps(cert)))
    assert len(ivs) == 4        # 1/3, sqrt(2), 7/4, 5/2
    assert ivs[1][0] < fmpq(1414213, 1000000) < ivs[1][1]
    bad = copy.deepcopy(cert)
    bad["factors"][0][0][0] += 1
    with pytest.raises(CertificateError):
        alg.recheck_factored_isolation(bad)
    bad = copy.deepcopy(cert)
    bad["intervals"] = bad["intervals"][1:]
    bad["count"] -= 1
    with pytest.raises(CertificateError):
        alg.recheck_factored_isolation(bad)


def test_sign_and_serialisation():
    p = fmpz_poly([1, -4, -2, 2, 1])        # MATH.md worked quartic at rho = 1
    assert alg.sign_at(p, fmpq(1, 4)) == -1 and alg.sign_at(p, fmpq(1, 5)) == 1
    c = alg.certify_sign(p, fmpq(1, 5))
    assert alg.recheck_certificate(c) == 1
    c["sign"] = -1
    with pytest.raises(CertificateError):
        alg.recheck_certificate(c)
    with pytest.raises(CertificateError):
        alg.poly_from_list([1, 2.5])
    with pytest.raises(CertificateError):
        alg.poly_from_list([True, 1])
    assert alg.qstr(alg.q("6/4")) == "3/2"
    with pytest.raises(CertificateError):
        alg.q("1/0")
    ivs = alg.isolate_roots(p, 0, 1)
    assert len(ivs) == 1 and ivs[0][0] < fmpq(230292578846118, 10 ** 15) < ivs[0][1]


def test_worked_quartic_is_the_model_polynomial():
    """Q_pod(s, rho = 1) from PowerOfD(2, 2)'s stationary equations is s^4 + 2s^3 - 2s^2 - 4s + 1."""
    from proofs_check.claims.seed000_common import model_polynomial
    Q = model_polynomial("power", 2, 2)
    coeffs = {}
    for i, j, c in Q["terms"]:
        coeffs[i] = coeffs.get(i, 0) + c
    p = fmpz_poly([coeffs.get(i, 0) for i in range(max(coeffs) + 1)])
    ref = fmpz_poly([1, -4, -2, 2, 1])
    q, r = divmod(p, ref)
    assert r == 0 and q.degree() == 0


# --------------------------------------------------------------------------------------------------
# the seed-000 claims: run once, round-trip, recheck
# --------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def results():
    claims = select([SEED000])
    assert len(claims) >= 50
    return run_claims(claims)


@pytest.fixture(scope="module")
def records(results, tmp_path_factory):
    path = tmp_path_factory.mktemp("certs") / "seed000.json"
    dump_json(results, str(path))
    return json.loads(path.read_text())["claims"]


def _clear_caches():
    from proofs_check.claims import seed000_common as com
    com._model_polynomial_cached.cache_clear()
    com.check_retrial_birth_death.cache_clear()


@pytest.mark.slow
def test_every_seed000_claim_has_its_expected_status(results):
    bad = [(r.claim.id, r.status.value, r.certificate.summary) for r in results if not r.as_expected]
    assert not bad
    ids = {r.claim.id for r in results}
    for must in ("seed000.dominance.C2_d2_dt3", "seed000.same_d.C2_d2", "seed000.same_d.C3_d3",
                 "seed000.same_d.C1_d2", "seed000.eventually.C3_d2_dt3", "seed000.unique_fixed_point.C2_d2",
                 "seed000.erlang_bounds.retrial_sandwich", "seed000.erlang_bounds.fluid_lower"):
        assert must in ids
    proved = {r.claim.id for r in results if r.status == Status.PROVED}
    assert {f"seed000.same_d.C{C}_d{d}" for C in (1, 2, 3) for d in (2, 3)} <= proved
    assert "seed000.same_d.C4_d3" in proved


@pytest.mark.slow
def test_round_trip_and_recheck_accepts_all(records):
    _clear_caches()     # the re-check recomputes the model polynomials from the models
    rows = recheck_records(json.loads(json.dumps(records)))
    bad = [r for r in rows if not r[1]]
    assert not bad and len(rows) == len(records)


def _rec(records, cid):
    return copy.deepcopy(next(r for r in records if r["id"] == cid))


def _rejected(rec) -> bool:
    (_cid, ok, _msg), = recheck_records([rec])
    return not ok


@pytest.mark.slow
def test_changed_coefficients_are_rejected(records):
    rec = _rec(records, "seed000.dominance.C2_d2_dt3")
    assert not _rejected(copy.deepcopy(rec))
    for path in (("R_v", "poly", 7), ("Q_pod", "terms", 0, 2), ("Q_ret", "terms", 3, 2)):
        r = copy.deepcopy(rec)
        node = r["certificate"]["data"]
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] += 1
        assert _rejected(r), path
    r = copy.deepcopy(rec)
    r["certificate"]["data"]["sample"]["rho"] = "1/3"     # sign not re-established at another load
    r["certificate"]["data"]["sample"]["sign"] = 1
    assert _rejected(r)
    r = copy.deepcopy(rec)
    r["certificate"]["status"] = r["status"] = "REFUTED"
    assert _rejected(r)
    r = copy.deepcopy(rec)
    r["statement"] = r["statement"].replace("<", r"\le")
    assert _rejected(r)


@pytest.mark.slow
def test_descartes_and_threshold_tampering_rejected(records):
    r = _rec(records, "seed000.same_d.C3_d4")
    cert = r["certificate"]["data"]["R_v"]
    assert cert["method"] == "descartes"
    cert["poly"][10] -= 1
    assert _rejected(r)
    r = _rec(records, "seed000.eventually.C3_d2_dt3")
    thr = r["certificate"]["data"]["threshold"]
    thr["minimal_polynomial"][0] += 1
    assert _rejected(r)
    r = _rec(records, "seed000.eventually.C3_d2_dt3")
    r["certificate"]["data"]["threshold"]["value"] = "0.9496356"    # outside the 1e-40 interval
    assert _rejected(r)
    r = _rec(records, "seed000.eventually.C3_d2_dt3")
    r["certificate"]["data"]["samples"][0]["rho"] = "1/3"
    assert _rejected(r)
    r = _rec(records, "seed000.eventually.C5_d2_dt3")   # proof from the large-load expansions
    ex = r["certificate"]["data"]["expansion"]
    assert ex["valid"] and ex["difference_t2"] == "-5/6"      # -C (1/d - 1/dt)
    ex["power"]["b2"] = "2"
    assert _rejected(r)
    r = _rec(records, "seed000.eventually.C3_d2_dt3")
    assert r["certificate"]["data"]["expansion"]["difference_t2"] == "-1/2"
    r["certificate"]["data"]["expansion"]["retrial"]["edge_polynomial"][0] = "7"
    assert _rejected(r)
    r = _rec(records, "seed000.unique_fixed_point.C3_d2")
    r["certificate"]["data"]["N_positive"]["poly"][2] += 1
    assert _rejected(r)
    r = _rec(records, "seed000.erlang_bounds.retrial_sandwich")
    r["certificate"]["data"]["lemmas"]["3"]["E_increasing"]["poly"][0] += 1
    assert _rejected(r)
    r = _rec(records, "seed000.same_d.C4_d3")       # roots of R_v excluded on the retrial branch
    exs = r["certificate"]["data"]["exclusions"]
    assert len(exs) == 2 and all(e["excluded"] for e in exs)
    lo, hi = exs[0]["rho"]
    exs[0]["rho"] = [lo, hi + "1"]
    assert _rejected(r)
    r = _rec(records, "seed000.same_d.C4_d3")
    r["certificate"]["data"]["exclusions"][1]["v"][0] = "0"
    assert _rejected(r)
    r = _rec(records, "seed000.same_d.C6_d2")       # evidence: a stored value changed
    r["certificate"]["data"]["grid"][2]["B_pod"] = "0.5"
    assert _rejected(r)


@pytest.mark.slow
def test_exact_thresholds_match_the_numerical_crossings(results):
    import mpmath

    from symloss import crossing_loads
    by = {r.claim.id: r for r in results}
    for cid, (C, d, dt, lo, hi) in {"seed000.eventually.C3_d2_dt3": (3, 2, 3, 0.9, 1.0),
                                    "seed000.eventually.C2_d3_dt4": (2, 3, 4, 0.7, 0.8)}.items():
        thr = by[cid].certificate.data["threshold"]
        x = crossing_loads(C, d, dt, rho_min=lo, rho_max=hi, dps=20).crossings
        assert len(x) == 1
        with mpmath.workdps(40):
            assert abs(mpmath.mpf(thr["value"]) - x[0]) < mpmath.mpf(10) ** -18
    assert by["seed000.eventually.C2_d2_dt3"].certificate.data["threshold"]["value"] == "0"
    assert by["seed000.eventually.C3_d2_dt3"].certificate.data["threshold"]["value"].startswith("0.9496356040027269")


@pytest.mark.slow
def test_dominance_end_points(results):
    data = next(r for r in results if r.claim.id == "seed000.dominance.C2_d2_dt3").certificate.data
    ep = data["endpoints"]
    assert ep["retrial"]["at_0"]["blocking"] == "rho**6/8"         # (rho^2/2)^3
    assert ep["power"]["at_0"]["blocking"] == "rho**6/4"           # MATH.md: B_pod(2) ~ rho^6/4
    assert data["endpoint_signs"]["rho->oo"]["sign"] == -1
    assert data["R_v"]["count"] == 0 and data["sign"] == -1


def test_false_claim_is_refuted_and_not_registered():
    from proofs_check.claims.seed000_dominance import FALSE_CLAIM
    assert FALSE_CLAIM.id not in {c.id for c in all_claims()}
    (res,) = run_claims([FALSE_CLAIM])
    assert res.status == Status.REFUTED and res.as_expected
    cx = res.certificate.data["counterexample"]
    assert float(cx["B_ret"][0]) > float(cx["B_pod"][1])       # certified: B_ret(2) > B_pod(2)
    assert FALSE_CLAIM.recheck(json.loads(json.dumps(res.certificate.data))) == Status.REFUTED
    bad = copy.deepcopy(res.certificate.data)
    bad["counterexample"]["sign"] = -1
    with pytest.raises(CertificateError):
        FALSE_CLAIM.recheck(bad)


def test_cli_round_trip_small(tmp_path, capsys):
    from proofs_check.cli import main
    path = tmp_path / "c.json"
    assert main(["--claim", "seed000.same_d.C2_d2", "--claim", "seed000.unique_fixed_point.C2_*",
                 "--json", str(path), "--quiet"]) == 0
    data = json.loads(path.read_text())
    assert {r["id"] for r in data["claims"]} >= {"seed000.same_d.C2_d2", "seed000.unique_fixed_point.C2_d3"}
    assert main(["--recheck", str(path)]) == 0
    d = data["claims"][0]["certificate"]["data"]
    key = "R_v" if "R_v" in d else "N_positive"
    d[key]["poly"][1] += 1
    path.write_text(json.dumps(data))
    assert main(["--recheck", str(path)]) == 1
    assert "rejected" in capsys.readouterr().out
