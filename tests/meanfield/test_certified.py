"""Certified comparisons for every load (symloss.meanfield.certified, .certified_generic,
.enclosures, .taylor) and the interval enclosures of symloss.core.certify.

Independent references: mpmath at 50 digits (Taylor models: function values and derivatives at
sample points; blockings: the verified accelerators at 40 digits, a different algorithm from the
one-dimensional reduction), bisection on those blockings for thresholds, finite differences for
derivative enclosures, and the fast path against the generic path (different equations: the
explicit reduction against the model's compiled stationary system)."""
from __future__ import annotations

import copy
import json
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import arb, fmpq
from hypothesis import given, settings, strategies as st

from symloss import PowerOfD, RandomRouting, RetrialOfD, define_model
from symloss.core.model import RHO
from symloss.core.precision import flint_prec
from symloss.meanfield import enclosures as en
from symloss.meanfield.certified import CertificateMismatch, certified_comparison, verify_comparison
from symloss.meanfield.taylor import BallTM, DualBallTM, ExactTM

# --------------------------------------------------------------------------------------------------
# Taylor models
# --------------------------------------------------------------------------------------------------

def _f(x, c1, c2, q):
    return (x + c1).pow(q) / (x * x + c2) + x * c1


def _f_mp(x, c1, c2, q):
    return (x + c1) ** (mpmath.mpf(q.numerator) / q.denominator) / (x * x + c2) + x * c1


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 9), st.integers(1, 4), st.integers(1, 5), st.integers(2, 10),
       st.integers(1, 5))
def test_ball_taylor_model_encloses_function_and_derivative(m10, h100, c1, c2, K, qd):
    m, h, q = Fraction(m10, 10), Fraction(h100, 100) * Fraction(m10, 10), Fraction(1, qd)
    with flint_prec(128):
        T = _f(BallTM.var(en.q_arb(m), en.q_arb(h), K), c1, c2, fmpq(1, qd))
        D = _f(DualBallTM.var(en.q_arb(m), en.q_arb(h), K), c1, c2, fmpq(1, qd))
    with mpmath.workdps(50):
        for i in range(9):
            tau = (mpmath.mpf(2 * i) / 8 - 1) * mpmath.mpf(h.numerator) / h.denominator
            x = mpmath.mpf(m.numerator) / m.denominator + tau
            for tm, val in ((T, _f_mp(x, c1, c2, q)), (D.d, mpmath.diff(lambda z: _f_mp(z, c1, c2, q), x))):
                P = sum(mpmath.mpf(c.mid().str(60, radius=False)) * tau ** n for n, c in enumerate(tm.c))
                slack = sum(mpmath.mpf(c.rad().str(10, radius=False)) * abs(tau) ** n for n, c in enumerate(tm.c))
                assert abs(val - P) <= mpmath.mpf(tm.r.upper().str(20, radius=False)) + slack + mpmath.mpf(10) ** -30


@pytest.mark.parametrize("K", [3, 6, 10])
def test_exact_taylor_model_leading_term_and_scaled_range(K):
    with flint_prec(128):
        x = ExactTM.var(en.q_arb(Fraction(3, 10)), K)
        g = (x + 1).pow(fmpq(1, 2)) - 1 - x * fmpq(1, 2)       # = -tau^2/8 + ...
        m, c = g.leading()
        assert (m, c) == (2, fmpq(-1, 8))
        sr = g.scaled_range(m)
    with mpmath.workdps(40):
        for i in range(1, 31):
            t = mpmath.mpf(3) / 10 * i / 30
            v = (mpmath.sqrt(1 + t) - 1 - t / 2) / t ** 2
            assert float(sr.lower()) - 1e-30 <= v <= float(sr.upper()) + 1e-30
    with pytest.raises(ValueError):
        g.scaled_range(3)


# --------------------------------------------------------------------------------------------------
# the one-dimensional reduction
# --------------------------------------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(st.integers(1, 8), st.integers(1, 4), st.integers(0, 3), st.fractions(Fraction(1, 4), Fraction(40)))
def test_psi_sign_is_the_sign_of_the_blocking_difference(C, d, extra, a):
    """sign Psi(a) = sign(B_ret(dt) - B_pod(d)) at rho(a) (accelerators at 40 digits)."""
    dt = d + extra
    if C == 1 and dt == d:
        return                                            # identical blockings
    with flint_prec(160):
        A = en.q_arb(a)
        psi = en.psi_point(C, d, dt, A)
        rho = en.rho_of_a(C, dt, A)
    if not (psi > 0 or psi < 0):
        return
    with mpmath.workdps(60):
        r = mpmath.mpf(rho.mid().str(50, radius=False))
        br = RetrialOfD(C, dt).blocking(r, dps=40)
        bp = PowerOfD(C, d).blocking(r, dps=40)
        if abs(br / bp - 1) < mpmath.mpf(10) ** -30:
            return
        assert (br > bp) == (psi > 0)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 12), st.integers(1, 6), st.fractions(Fraction(1, 8), Fraction(50)), st.fractions(Fraction(1, 8), Fraction(50)))
def test_rho_of_a_increases(C, dt, a, b):
    if a == b:
        return
    lo, hi = min(a, b), max(a, b)
    with flint_prec(128):
        assert en.rho_of_a(C, dt, en.q_arb(lo)) < en.rho_of_a(C, dt, en.q_arb(hi))


@pytest.mark.parametrize("C,d,dt", [(2, 2, 3), (3, 2, 3), (5, 3, 3), (10, 2, 4)])
def test_small_end_bound_holds_at_sample_loads(C, d, dt):
    sb = None
    for j in range(40):
        sb = en.small_end_bound(C, d, dt, Fraction(1, 2 ** j))
        if sb["sign"]:
            break
    rho_lo = float(arb(sb["rho_lo"]).mid())
    with mpmath.workdps(50):
        for f in (1, 2, 5, 20):
            r = mpmath.mpf(rho_lo) / f
            D = mpmath.log(RetrialOfD(C, dt).blocking(r, dps=30)) - mpmath.log(PowerOfD(C, d).blocking(r, dps=30))
            assert (D > 0) == (sb["sign"] == 1)


def test_ball_samples_against_the_accelerators_and_tampering():
    for m in (RetrialOfD(2, 3), RetrialOfD(20, 6), RandomRouting(5), PowerOfD(2, 2), PowerOfD(20, 6)):
        for rho in (Fraction(1, 4), Fraction(7, 3), Fraction(100)):
            cert = json.loads(json.dumps(en.point_certificate(m, rho)))
            lo, hi = en.verify_point_certificate(cert, m)
            assert hi - lo < Fraction(1, 10 ** 20) * max(1, abs(lo))
            with mpmath.workdps(60):
                ref = mpmath.log(m.blocking(rho, dps=45))
                assert mpmath.mpf(lo.numerator) / lo.denominator <= ref <= mpmath.mpf(hi.numerator) / hi.denominator
            bad = copy.deepcopy(cert)
            key = "theta" if cert["kind"] == "retrial-theta" else "t"
            if cert[key][0] != cert[key][1]:
                bad[key] = [cert[key][1], cert[key][1] + "1"] if key == "theta" else [cert[key][0], cert[key][0] + "1"]
                with pytest.raises(ValueError):
                    en.verify_point_certificate(bad, m)
            bad = copy.deepcopy(cert)
            bad["log_blocking"][0] = bad["log_blocking"][1]
            with pytest.raises(ValueError):
                en.verify_point_certificate(bad, m)
    with pytest.raises(ValueError):     # another definition
        en.verify_point_certificate(en.point_certificate(PowerOfD(3, 2), Fraction(1)), PowerOfD(3, 3))


# --------------------------------------------------------------------------------------------------
# certified comparisons: fast path
# --------------------------------------------------------------------------------------------------

def _threshold_by_bisection(C, d, dt, lo, hi):
    """The crossing of the two blockings (accelerators, 45 digits) by bisection: an independent value."""
    with mpmath.workdps(60):
        a, b = mpmath.mpf(lo), mpmath.mpf(hi)
        f = lambda r: RetrialOfD(C, dt).blocking(r, dps=45) - PowerOfD(C, d).blocking(r, dps=45)
        fa = f(a)
        for _ in range(140):
            m = (a + b) / 2
            if (f(m) > 0) == (fa > 0):
                a = m
            else:
                b = m
        return (a + b) / 2


def test_fast_path_thresholds_and_certificate_round_trip():
    res = certified_comparison(RetrialOfD(3, 3), PowerOfD(3, 2), dps=30)
    assert (res.count, res.sign_at_zero, res.sign_at_infinity) == (1, 1, -1)
    lo, hi = (Fraction(x) for x in res.threshold["rho"])
    assert hi - lo <= Fraction(1, 10 ** 30)
    ref = _threshold_by_bisection(3, 2, 3, 0.9, 1.0)
    with mpmath.workdps(60):
        assert mpmath.mpf(lo.numerator) / lo.denominator - mpmath.mpf(10) ** -38 <= ref
        assert ref <= mpmath.mpf(hi.numerator) / hi.denominator + mpmath.mpf(10) ** -38
    cert = json.loads(json.dumps(res.certificate))
    assert cert["symloss_version"] and cert["models"]["power"]["fingerprint"] == PowerOfD(3, 2).fingerprint()
    v = verify_comparison(cert, RetrialOfD(3, 3), PowerOfD(3, 2))
    assert v.threshold == res.threshold and v.count == 1
    # seed 000, claim 4: retrial-of-3 below power-of-2 at every load at C = 2
    r2 = certified_comparison(RetrialOfD(2, 3), PowerOfD(2, 2), dps=20)
    assert r2.holds_everywhere(-1) and r2.threshold == {"value": "0"}


def test_orientation_and_bad_input():
    a = certified_comparison(RetrialOfD(4, 3), PowerOfD(4, 2), dps=20)
    b = certified_comparison(PowerOfD(4, 2), RetrialOfD(4, 3), dps=20)
    assert b.sign_at_zero == -a.sign_at_zero and b.sign_at_infinity == -a.sign_at_infinity
    assert [c.rho_lo for c in a.crossings] == [c.rho_lo for c in b.crossings]
    assert a.threshold is not None and b.threshold is None     # power-of-2 is not lower at large load
    verify_comparison(json.loads(json.dumps(b.certificate)), PowerOfD(4, 2), RetrialOfD(4, 3))
    with pytest.raises(CertificateMismatch):          # model order differs
        verify_comparison(b.certificate, RetrialOfD(4, 3), PowerOfD(4, 2))
    with pytest.raises(TypeError):
        certified_comparison(RetrialOfD(2, 2), "power")
    with pytest.raises(ValueError):
        certified_comparison(RetrialOfD(2, 2), PowerOfD(3, 2))      # different C
    with pytest.raises(ValueError):
        certified_comparison(RetrialOfD(2, 3), PowerOfD(2, 2), dps=2)
    with pytest.raises(ValueError):
        certified_comparison(RetrialOfD(2, 3), PowerOfD(2, 2), method="fastest")
    with pytest.raises(ValueError):
        certified_comparison(RetrialOfD(2, 3), PowerOfD(2, 2), K=1)


def test_tampered_fast_certificate_rejected():
    res = certified_comparison(RetrialOfD(5, 4), PowerOfD(5, 3), dps=20)
    cert = json.loads(json.dumps(res.certificate))
    for edit in (lambda c: c["cells"].pop(),                               # a cell removed
                 lambda c: c["cells"][0].__setitem__("sign", -c["cells"][0]["sign"]),
                 lambda c: c["large_end"]["coefficients"].__setitem__(0, "1"),
                 lambda c: c["summary_psi"].__setitem__("count", 3),
                 lambda c: c["models"]["retrial"].__setitem__("fingerprint", "x")):
        bad = copy.deepcopy(cert)
        edit(bad)
        with pytest.raises(CertificateMismatch):
            verify_comparison(bad, RetrialOfD(5, 4), PowerOfD(5, 3))


# --------------------------------------------------------------------------------------------------
# interval enclosures (core.certify) and the generic path
# --------------------------------------------------------------------------------------------------

def test_enclose_interval_derivative_and_tube_recheck():
    from symloss.core.certify import enclose_interval, verify_tube
    for m in (RetrialOfD(2, 3), PowerOfD(2, 2)):
        lo, hi = Fraction(1), Fraction(129, 128)
        e = enclose_interval(m, lo, hi, prec=128)
        verify_tube(m, e.center, e.slope, e.delta, e.sel, lo, hi)
        with mpmath.workdps(40):
            b0 = mpmath.log(m.blocking(lo, dps=30))
            b1 = mpmath.log(m.blocking(hi, dps=30))
            slope = (b1 - b0) / (mpmath.log(mpmath.mpf(hi.numerator) / hi.denominator))
        assert float(e.dlog_blocking.lower()) <= float(slope) <= float(e.dlog_blocking.upper())
        with pytest.raises(ValueError):
            verify_tube(m, e.center, e.slope, [d / 1000 for d in e.delta], e.sel, lo, hi)
        with pytest.raises(ValueError):
            verify_tube(m, [c + 1 for c in e.center], e.slope, e.delta, e.sel, lo, hi)
        with pytest.raises(ValueError):
            verify_tube(m, e.center, e.slope, e.delta, e.sel, lo, Fraction(2))       # another interval


def _hybrid(C, d, r):
    """MODEL_API.md: sample d servers, join the least loaded; if all d are full, draw again, r rounds."""
    u = sp.symbols(f"u1:{C + 1}", positive=True)
    U = (sp.Integer(1),) + u + (sp.Integer(0),)
    geo = sum((u[-1] ** d) ** j for j in range(r))
    trs = []
    for k in range(1, C + 1):
        trs.append(({u[k - 1]: 1}, RHO * geo * (U[k - 1] ** d - U[k] ** d)))
        trs.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"hybrid(C={C},d={d},r={r})", u, trs, blocking=u[-1] ** (d * r), state_kind="tail", C=C)


@pytest.mark.slow
def test_generic_path_agrees_with_the_fast_path():
    fast = certified_comparison(RetrialOfD(3, 3), PowerOfD(3, 2), dps=20)
    gen = certified_comparison(RetrialOfD(3, 3), PowerOfD(3, 2), dps=20, method="generic")
    assert gen.certificate["format"].startswith("symloss.comparison/generic")
    assert (gen.count, gen.sign_at_zero, gen.sign_at_infinity) == (fast.count, fast.sign_at_zero, fast.sign_at_infinity)
    (glo, ghi), (flo, fhi) = ([Fraction(x) for x in r.threshold["rho"]] for r in (gen, fast))
    assert max(glo, flo) <= min(ghi, fhi)                      # the two certified intervals overlap
    cert = json.loads(json.dumps(gen.certificate))
    verify_comparison(cert, RetrialOfD(3, 3), PowerOfD(3, 2))
    bad = copy.deepcopy(cert)
    bad["cells"][3]["tubes"]["a"]["delta"][0] = "1*2^-200"     # a box shrunk: Krawczyk fails
    with pytest.raises(CertificateMismatch):
        verify_comparison(bad, RetrialOfD(3, 3), PowerOfD(3, 2))
    bad = copy.deepcopy(cert)
    bad["infinity_end"]["D"]["coefficients"][2] = "5"         # a polynomial coefficient
    with pytest.raises(CertificateMismatch):
        verify_comparison(bad, RetrialOfD(3, 3), PowerOfD(3, 2))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::symloss.core.certify.DefinitionMismatchWarning")
def test_generic_path_on_a_user_model_and_mutation():
    """The hybrid policy of MODEL_API.md (a user definition, generic path): r = 2 rounds of power-of-2
    blocks less than power-of-2 at every load. Mutation: editing a rate of the power-of-d definition
    moves the comparison off the fast path, and the certificate of the shipped model is refused."""
    h = _hybrid(2, 2, 2)
    res = certified_comparison(h, PowerOfD(2, 2), dps=20)
    assert res.holds_everywhere(-1)
    cert = json.loads(json.dumps(res.certificate))
    verify_comparison(cert, h, PowerOfD(2, 2))
    with mpmath.workdps(40):         # independent check at one load: the generic certified solver
        assert h.blocking(1, dps=30) < PowerOfD(2, 2).blocking(1, dps=30)

    class Edited(PowerOfD):
        def transitions(self):
            out = super().transitions()
            jump, rate = out[0]
            return [(jump, rate * sp.Rational(3, 2))] + out[1:]
    edited = Edited(2, 2)
    shipped = certified_comparison(RetrialOfD(2, 3), PowerOfD(2, 2), dps=20)
    with pytest.raises(CertificateMismatch):
        verify_comparison(shipped.certificate, RetrialOfD(2, 3), edited)
    res_e = certified_comparison(RetrialOfD(2, 3), edited, dps=20)
    assert res_e.certificate["format"].startswith("symloss.comparison/generic")
    # the edited model (arrivals 1.5 times faster at level 1) blocks more: retrial-of-3 lower everywhere
    with mpmath.workdps(40):
        for r in (Fraction(1, 2), Fraction(2), Fraction(8)):
            want = RetrialOfD(2, 3).blocking(r, dps=30) < edited.blocking(r, dps=30)
            piece = next(p for p in res_e.pieces if (p["rho"][1] == "oo" or Fraction(p["rho"][1]) > r))
            assert want == (piece["sign"] == -1)


# --------------------------------------------------------------------------------------------------
# command line: threshold --certified, table --certified
# --------------------------------------------------------------------------------------------------

def test_cli_threshold_and_table_certified(tmp_path, capsys):
    from symloss.cli import main
    path = tmp_path / "cert.json"
    assert main(["threshold", "--C", "3", "--d", "2", "--dt", "3", "--certified", "--dps", "25", "--json",
                 "--certificate", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    lo, hi = (Fraction(x) for x in out["threshold"]["rho"])
    assert out["crossings"] == 1 and hi - lo <= Fraction(1, 10 ** 25)
    assert out["claim"] == "seed000.eventually.C3_d2_dt3"
    verify_comparison(json.loads(path.read_text()), RetrialOfD(3, 3), PowerOfD(3, 2))
    assert main(["threshold", "--C", "2", "--d", "2", "--dt", "3", "--certified"]) == 0
    assert capsys.readouterr().out.startswith("0 (retrial-of-dt lower at every load)  crossings: 0")
    csvp = tmp_path / "t.csv"
    assert main(["table", "--C", "1:3", "--d", "2", "--dt", "3", "--certified", "--no-progress",
                 "--csv", str(csvp), "--certificates", str(tmp_path / "certs")]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 4 and "crossings: 1" in lines[3]
    rows = [ln for ln in csvp.read_text().strip().splitlines() if not ln.startswith("#")]   # provenance first
    assert rows[0] == "C,d,dt,threshold_lo,threshold_hi,crossings,status,claim" and rows[3].startswith("3,2,3,0.9496356040")
    assert len(list((tmp_path / "certs").glob("*.json"))) == 3


@pytest.mark.filterwarnings("ignore::symloss.core.certify.DefinitionMismatchWarning")
def test_ball_sample_follows_an_edited_definition():
    """Mutation: an edited rate takes the ball sample off the fast path (Krawczyk box on the edited
    model's own equations) and its blocking follows the edited model (generic certified solver)."""

    class Edited(RetrialOfD):
        def transitions(self):
            out = super().transitions()
            jump, rate = out[-1]
            return out[:-1] + [(jump, rate * sp.Rational(3, 4))]     # slower service at level C
    # (a dyadic factor: core.codegen stores rational coefficients as 53-bit balls, so a factor such
    # as 2/3 caps every certified solve of the edited model near 15 digits; reported, not fixed here)
    m = Edited(2, 2)
    cert = en.point_certificate(m, Fraction(3, 2))
    assert cert["kind"] == "krawczyk-box"
    lo, hi = en.verify_point_certificate(json.loads(json.dumps(cert)), m)
    with mpmath.workdps(50):
        ref = mpmath.log(m.blocking(Fraction(3, 2), dps=30))
        assert mpmath.mpf(lo.numerator) / lo.denominator <= ref <= mpmath.mpf(hi.numerator) / hi.denominator
        shipped = mpmath.log(RetrialOfD(2, 2).blocking(Fraction(3, 2), dps=30))
        assert abs(ref - shipped) > mpmath.mpf(10) ** -3                   # the answer changed
    with pytest.raises(ValueError):                                        # the shipped model's sample is refused
        en.verify_point_certificate(cert, RetrialOfD(2, 2))
