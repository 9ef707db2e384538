"""Tests of the exact certificate tools (proofs_check.algebra) and of the seed-000 claims.

Reference values: root counts are compared with polynomials built from known rational roots and with
python-flint's independent complex root isolation (arb); the certified thresholds with the exact
algebraic thresholds of the elimination method (minimal polynomials and 1e-40 intervals, a different
algorithm) and with symloss.crossing_loads (adaptive grid + certified bisection); the quartic of the
issue's worked check (C = 2, d = 2, rho = 1: s^4 + 2 s^3 - 2 s^2 - 4 s + 1) is quoted from MATH.md
section 2.

Certificate formats changed deliberately in issue 14 (comparisons for every load replace the grids of
EVIDENCE; ball samples store brackets; stamps with fingerprints): the tampering tests below edit each
kind of stored number of the new formats.
"""
from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest
from flint import fmpq, fmpz_poly
from hypothesis import given, settings, strategies as st

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
    # the first registry (C <= 20, d <= 6); the claims at scale are sampled in test_registry_at_scale
    claims = [c for c in select([SEED000]) if "scale" not in c.tags]
    assert len(claims) >= 700
    return run_claims(claims)


@pytest.fixture(scope="module")
def records(results, tmp_path_factory):
    path = tmp_path_factory.mktemp("certs") / "seed000.json"
    dump_json(results, str(path))
    return json.loads(path.read_text())["claims"]


def _clear_caches():
    from proofs_check.claims import seed000_common as com
    from symloss.meanfield.enclosures import clear_caches
    com._model_polynomial_cached.cache_clear()
    com.check_retrial_birth_death.cache_clear()
    clear_caches()


@pytest.mark.slow
def test_every_seed000_claim_has_its_expected_status(results):
    bad = [(r.claim.id, r.status.value, r.certificate.summary) for r in results if not r.as_expected]
    assert not bad
    ids = {r.claim.id for r in results}
    # the ids of earlier versions keep working
    for must in ("seed000.dominance.C2_d2_dt3", "seed000.same_d.C2_d2", "seed000.same_d.C3_d3",
                 "seed000.same_d.C1_d2", "seed000.eventually.C3_d2_dt3", "seed000.unique_fixed_point.C2_d2",
                 "seed000.erlang_bounds.retrial_sandwich", "seed000.erlang_bounds.fluid_lower",
                 "seed000.erlang_bounds.large_C", "seed000.same_d.C20_d2", "seed000.eventually.C20_d2_dt3"):
        assert must in ids
    statuses = {r.claim.id: r.status for r in results}
    want = ([f"seed000.same_d.C{C}_d{d}" for C in range(1, 21) for d in range(2, 7)]
            + [f"seed000.eventually.C{C}_d{d}_dt{dt}" for C in range(1, 21) for d in range(1, 6)
               for dt in range(d + 1, 7)]
            + [f"seed000.power_unique_fixed_point.C{C}_d{d}" for C in range(1, 21) for d in range(1, 7)]
            + [f"seed000.retrial_monotone_d.C{C}_d{d}" for C in range(1, 21) for d in range(1, 6)]
            + [f"seed000.unique_fixed_point.C{C}_d{d}" for C in range(1, 21) for d in range(2, 7)]
            + ["seed000.erlang_bounds.large_C"])
    assert all(statuses[c] == Status.PROVED for c in want)
    assert not [c for c, s in statuses.items() if s == Status.EVIDENCE and c.startswith("seed000.")
                and not c.startswith("seed000.finite_n")]


@pytest.mark.slow
def test_round_trip_and_recheck_accepts_all(records):
    _clear_caches()     # the re-check recomputes the model polynomials, bindings and lemmas
    rows = recheck_records(json.loads(json.dumps(records)))
    bad = [r for r in rows if not r[1]]
    assert not bad and len(rows) == len(records)


def _rec(records, cid):
    return copy.deepcopy(next(r for r in records if r["id"] == cid))


def _rejected(rec) -> bool:
    (_cid, ok, _msg), = recheck_records([rec])
    return not ok


@pytest.mark.slow
def test_elimination_certificates_tampering_rejected(records):
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
    r["certificate"]["data"]["sample"]["rho"] = "1/3"     # ball samples made at another load
    assert _rejected(r)
    r = copy.deepcopy(rec)
    r["certificate"]["status"] = r["status"] = "REFUTED"
    assert _rejected(r)
    r = copy.deepcopy(rec)
    r["statement"] = r["statement"].replace("<", r"\le")
    assert _rejected(r)
    r = _rec(records, "seed000.unique_fixed_point.C3_d2")
    r["certificate"]["data"]["N_positive"]["poly"][2] += 1
    assert _rejected(r)
    r = _rec(records, "seed000.erlang_bounds.retrial_sandwich")
    r["certificate"]["data"]["lemmas"]["3"]["E_increasing"]["poly"][0] += 1
    assert _rejected(r)
    r = _rec(records, "seed000.erlang_bounds.large_C")
    r["certificate"]["data"]["sandwich"]["lemmas"]["100"]["carried_increasing"]["poly"][5] += 1
    assert _rejected(r)
    r = _rec(records, "seed000.power_unique_fixed_point.C5_d3")
    r["certificate"]["data"]["telescoped"] = "sum f_j = anything"
    assert _rejected(r)
    r = _rec(records, "seed000.retrial_monotone_d.C5_d3")
    r["certificate"]["data"]["g_4_increasing"]["deg N"] += 1
    assert _rejected(r)


@pytest.mark.slow
def test_ball_sample_tampering_rejected(records):
    """The ball samples of the dominance proof are re-checked from their stored brackets."""
    rec = _rec(records, "seed000.dominance.C2_d2_dt3")
    smp = rec["certificate"]["data"]["sample"]
    assert smp["retrial"]["kind"] == "retrial-theta" and smp["power"]["kind"] == "power-log-s"
    for key, field in (("retrial", "theta"), ("power", "t")):
        r = copy.deepcopy(rec)
        lo, hi = r["certificate"]["data"]["sample"][key][field]
        r["certificate"]["data"]["sample"][key][field] = [hi, hi + "1"]     # a bracket without the root
        assert _rejected(r), key
        r = copy.deepcopy(rec)
        lb = r["certificate"]["data"]["sample"][key]["log_blocking"]
        lb[1] = lb[0]                                                      # a bound that does not hold
        assert _rejected(r), key
    r = copy.deepcopy(rec)
    r["certificate"]["data"]["sample"]["sign"] = 1
    assert _rejected(r)


def _comparison(rec):
    return rec["certificate"]["data"]["comparison"]


@pytest.mark.slow
def test_comparison_certificates_tampering_rejected(records):
    base = _rec(records, "seed000.eventually.C3_d2_dt3")
    assert not _rejected(copy.deepcopy(base))
    cmp = _comparison(base)
    kinds = {c["test"] for c in cmp["cells"]}
    assert {"mixed", "taylor", "crossing"} <= kinds

    def edited(fn):
        r = copy.deepcopy(base)
        fn(_comparison(r), r["certificate"]["data"])
        return r

    def cell(kind):
        return next(i for i, c in enumerate(cmp["cells"]) if c["test"] == kind)
    im, it, ix = cell("mixed"), cell("taylor"), cell("crossing")

    def set_(path, value):
        def f(c, _d):
            node = c
            for k in path[:-1]:
                node = node[k]
            node[path[-1]] = value
        return f
    bad = {
        "mixed bound": set_(("cells", im, "bound"), "[1.0 +/- 1e-10]"),
        "taylor constant": set_(("cells", it, "c0"), "[5.0 +/- 1e-10]"),
        "taylor deviation": set_(("cells", it, "dev"), "0"),
        "a box (cell end point)": set_(("cells", it, "a", 1), "1000"),
        "a cell sign": set_(("cells", it, "sign"), -cmp["cells"][it]["sign"]),
        "crossing derivative": set_(("cells", ix, "deriv", "dev"), "0"),
        "crossing load bounds": set_(("cells", ix, "refined", "rho", 0), "0.95"),
        "crossing bracket": set_(("cells", ix, "refined", "a", 1), cmp["cells"][ix]["refined"]["a"][0]),
        "large-end coefficient": set_(("large_end", "coefficients", 2), "-1/3"),
        "large-end remainder": set_(("large_end", "R", ), "[0 +/- 1e-100]"),
        "small-end a_lo": set_(("small_end", "a_lo"), "1/3"),
        "small-end bound": set_(("small_end", "bound"), "[-1.0 +/- 1e-10]"),
        "count": set_(("summary_psi", "count"), 2),
        "model fingerprint": set_(("models", "power", "fingerprint"), "0" * 64),
        "precision": set_(("prec",), 1),
    }
    for name, fn in bad.items():
        assert _rejected(edited(fn)), name
    r = copy.deepcopy(base)                               # a cell removed: the tiling has a gap
    del _comparison(r)["cells"][1]
    assert _rejected(r)
    r = copy.deepcopy(base)                               # the claim's conclusion (threshold) edited
    r["certificate"]["data"]["conclusion"]["count"] = 0
    assert _rejected(r)
    r = copy.deepcopy(base)
    r["certificate"]["data"]["stamp"]["models"][1]["fingerprint"] = "f" * 64
    assert _rejected(r)


@pytest.mark.slow
def test_certificate_of_another_definition_is_refused(records):
    """A certificate made from PowerOfD(3, 2) does not verify for an edited definition."""
    import sympy as sp

    from proofs_check.claims import seed000_common as com
    from symloss import PowerOfD
    from symloss.meanfield.certified import CertificateMismatch, verify_comparison

    class Edited(PowerOfD):
        def transitions(self):
            out = super().transitions()
            jump, rate = out[0]
            return [(jump, rate * sp.Rational(101, 100))] + out[1:]
    rec = _rec(records, "seed000.eventually.C3_d2_dt3")
    cmp = _comparison(rec)
    from symloss import RetrialOfD
    verify_comparison(copy.deepcopy(cmp), RetrialOfD(3, 3), PowerOfD(3, 2))
    with pytest.raises(CertificateMismatch):
        verify_comparison(copy.deepcopy(cmp), RetrialOfD(3, 3), Edited(3, 2))
    with pytest.raises(CertificateError):
        com.check_stamp(rec["certificate"]["data"], RetrialOfD(3, 3), Edited(3, 2))


@pytest.mark.slow
def test_certified_thresholds_contain_the_exact_algebraic_ones(results):
    """The elimination method (a different algorithm: resultants, minimal polynomials, 1e-40 intervals)
    gives exact thresholds for small C; each lies in the certified interval of width <= 1e-30."""
    from fractions import Fraction

    from proofs_check.claims import seed000_common as com
    by = {r.claim.id: r for r in results}
    for C, d, dt in ((2, 3, 4), (3, 2, 3), (3, 2, 4), (4, 2, 4)):
        exact = com.prove_crossings(C, d, dt)
        if C == 2:
            com.recheck_crossings(json.loads(json.dumps(exact)), C, d, dt)   # the elimination certificate itself
        thr = by[f"seed000.eventually.C{C}_d{d}_dt{dt}"].certificate.data["conclusion"]["threshold"]
        lo, hi = (Fraction(x) for x in thr["rho"])
        x, y = (Fraction(v) for v in exact["threshold"]["interval"])
        assert lo <= x < y <= hi and hi - lo <= Fraction(1, 10 ** 30), (C, d, dt)
        n_changes = len(exact["sign_changes"])
        assert by[f"seed000.eventually.C{C}_d{d}_dt{dt}"].certificate.data["conclusion"]["count"] == n_changes
    assert by["seed000.eventually.C2_d2_dt3"].certificate.data["conclusion"]["threshold"] == {"value": "0"}


@pytest.mark.slow
def test_certified_thresholds_agree_with_the_adaptive_scan(results):
    import mpmath

    from symloss import crossing_loads
    by = {r.claim.id: r for r in results}
    for C, d, dt in ((10, 2, 3), (20, 3, 5), (6, 5, 6)):
        thr = by[f"seed000.eventually.C{C}_d{d}_dt{dt}"].certificate.data["conclusion"]["threshold"]
        lo = float(thr["rho"][0])
        x = crossing_loads(C, d, dt, rho_min=lo * 0.9, rho_max=lo * 1.1, dps=20, method="adaptive").crossings
        assert len(x) == 1
        with mpmath.workdps(30):
            assert mpmath.mpf(thr["rho"][0]) - mpmath.mpf(10) ** -18 <= x[0] <= mpmath.mpf(thr["rho"][1]) + \
                mpmath.mpf(10) ** -18


def test_large_load_expansion_tool():
    """Newton polygons of the model polynomials at rho = oo: B = 1 - C/rho + (C/d)/rho^2 + O(rho^-3)."""
    import sympy as sp

    from proofs_check.claims import seed000_common as com
    for kind, C, d in (("retrial", 2, 3), ("power", 2, 2), ("power", 3, 2)):
        ex = com.large_load_expansion(kind, C, d)
        assert ex["b2"] == str(sp.Rational(C, d))


@pytest.mark.slow
def test_dominance_end_points(results):
    data = next(r for r in results if r.claim.id == "seed000.dominance.C2_d2_dt3").certificate.data
    ep = data["endpoints"]
    assert ep["retrial"]["at_0"]["blocking"] == "rho**6/8"         # (rho^2/2)^3
    assert ep["power"]["at_0"]["blocking"] == "rho**6/4"           # MATH.md: B_pod(2) ~ rho^6/4
    assert data["endpoint_signs"]["rho->oo"]["sign"] == -1
    assert data["R_v"]["count"] == 0 and data["sign"] == -1


def test_false_claims_are_refuted_and_not_registered():
    from proofs_check.claims.seed000_dominance import FALSE_CLAIM, FALSE_CLAIM_C3
    ids = {c.id for c in all_claims()}
    assert FALSE_CLAIM.id not in ids and FALSE_CLAIM_C3.id not in ids
    (res,) = run_claims([FALSE_CLAIM])
    assert res.status == Status.REFUTED and res.as_expected
    cx = res.certificate.data["counterexample"]
    assert float(cx["retrial"]["log_blocking"][0]) > float(cx["power"]["log_blocking"][1])
    assert FALSE_CLAIM.recheck(json.loads(json.dumps(res.certificate.data))) == Status.REFUTED
    bad = copy.deepcopy(res.certificate.data)
    bad["counterexample"]["sign"] = -1
    with pytest.raises(CertificateError):
        FALSE_CLAIM.recheck(bad)
    # "power-of-2 beats retrial-of-3 for every load at C = 3": refuted by a certified counter-example
    (res,) = run_claims([FALSE_CLAIM_C3])
    assert res.status == Status.REFUTED and res.as_expected, res.certificate.summary
    data = json.loads(json.dumps(res.certificate.data))
    assert data["conclusion"]["count"] == 1 and data["counterexample"]["sign"] == -1
    from fractions import Fraction
    assert Fraction(data["counterexample"]["rho"]) > Fraction(data["conclusion"]["crossings"][0]["rho"][1])
    assert FALSE_CLAIM_C3.recheck(data) == Status.REFUTED
    bad = copy.deepcopy(data)
    bad["counterexample"]["power"]["t"][0] = bad["counterexample"]["power"]["t"][1]
    with pytest.raises(CertificateError):
        FALSE_CLAIM_C3.recheck(bad)
    bad = copy.deepcopy(data)
    del bad["counterexample"]
    with pytest.raises(CertificateError):
        FALSE_CLAIM_C3.recheck(bad)


def test_cli_round_trip_small(tmp_path, capsys):
    from proofs_check.cli import main
    path = tmp_path / "c.json"
    assert main(["--claim", "seed000.same_d.C2_d2", "--claim", "seed000.unique_fixed_point.C2_*",
                 "--json", str(path), "--quiet", "--workers", "1"]) == 0
    data = json.loads(path.read_text())
    assert {r["id"] for r in data["claims"]} >= {"seed000.same_d.C2_d2", "seed000.unique_fixed_point.C2_d3"}
    assert main(["--recheck", str(path)]) == 0
    rec = next(r for r in data["claims"] if r["id"] == "seed000.unique_fixed_point.C2_d3")
    rec["certificate"]["data"]["N_positive"]["poly"][1] += 1
    path.write_text(json.dumps(data))
    assert main(["--recheck", str(path)]) == 1
    assert "rejected" in capsys.readouterr().out


# --------------------------------------------------------------------------------------------------
# the registry at scale (issue 25): C <= 100, d < dt <= 10; scopes
# --------------------------------------------------------------------------------------------------

def test_registry_scopes():
    from proofs_check.core import SCOPES
    assert SCOPES == ("default", "full")
    default, full = select(), select(scope="full")
    assert {c.id for c in default} < {c.id for c in full}
    ids = {c.id for c in full}
    for C in (1, 20, 57, 100):
        for d in range(1, 10):
            for dt in range(d + 1, 11):
                assert f"seed000.eventually.C{C}_d{d}_dt{dt}" in ids
        for d in range(2, 11):
            assert f"seed000.same_d.C{C}_d{d}" in ids and f"seed000.unique_fixed_point.C{C}_d{d}" in ids
        for d in range(1, 11):
            assert f"seed000.power_unique_fixed_point.C{C}_d{d}" in ids
    assert "seed000.eventually.C1000_d2_dt3" in ids
    d_ids = {c.id for c in default}
    assert "seed000.eventually.C20_d9_dt10" in d_ids and "seed000.eventually.C100_d2_dt3" in d_ids
    assert "seed000.eventually.C100_d3_dt4" not in d_ids and "seed000.eventually.C1000_d2_dt3" not in d_ids
    assert all(c.scope == "full" for c in full if c.id not in d_ids)
    with pytest.raises(ValueError, match="scope='everything'"):
        select(scope="everything")


SCALE_SAMPLE = ("seed000.eventually.C100_d9_dt10", "seed000.eventually.C37_d4_dt8", "seed000.same_d.C100_d10",
                "seed000.same_d.C20_d9", "seed000.unique_fixed_point.C100_d10",
                "seed000.power_unique_fixed_point.C100_d10", "seed000.retrial_monotone_d.C64_d9")


@pytest.mark.slow
def test_registry_at_scale_sample_proved_rechecked_and_tamper_rejected():
    claims = select(list(SCALE_SAMPLE), scope="full")
    assert len(claims) == len(SCALE_SAMPLE)
    res = run_claims(claims)
    assert [r.status for r in res] == [Status.PROVED] * len(res), [r.certificate.summary for r in res]
    path_records = json.loads(json.dumps([r.to_dict() for r in res]))
    _clear_caches()
    assert all(ok for _cid, ok, _msg in recheck_records(copy.deepcopy(path_records)))
    ev = next(r for r in path_records if r["id"] == "seed000.eventually.C100_d9_dt10")
    assert ev["certificate"]["data"]["conclusion"]["count"] == 1
    bad = copy.deepcopy(ev)
    bad["certificate"]["data"]["conclusion"]["count"] = 0
    assert _rejected(bad)
