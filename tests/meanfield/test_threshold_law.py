"""The large-C law of the threshold rho*(C, d, dt) (symloss.meanfield.threshold_law).

Reference values: tests/data/threshold_law_reference.csv (made by
tests/data/make_threshold_law_reference.py; each row says whether it is certified or EVIDENCE).
"""
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from flint import arb, fmpq

from symloss import PowerOfD, RetrialOfD
from symloss.meanfield import threshold_law as TL

DATA = Path(__file__).resolve().parents[1] / "data" / "threshold_law_reference.csv"


def _rows():
    lines = [ln.rstrip("\n") for ln in DATA.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    head = lines[0].split(",")
    out = []
    for ln in lines[1:]:
        r = dict(zip(head, ln.split(",")))
        r["C"], r["d"], r["dt"] = int(r["C"]), int(r["d"]), int(r["dt"])
        with mpmath.workdps(40):
            r["lo"], r["hi"] = mpmath.mpf(r["rho_lo"]), mpmath.mpf(r["rho_hi"])
        out.append(r)
    return out


ROWS = _rows()


def _err2(r):
    with mpmath.workdps(30):
        return (r["lo"] + r["hi"]) / 2 - TL.threshold_asymptotic(r["C"], r["d"], r["dt"], order=2)


# ---------------------------------------------------------------------------------------------
# the reference file
# ---------------------------------------------------------------------------------------------

def test_reference_rows_say_how_they_were_made():
    assert {r["status"] for r in ROWS} == {"certified", "EVIDENCE"}
    for r in ROWS:
        assert r["lo"] <= r["hi"]
        if r["status"] == "certified":
            assert r["crossings"] == ("0" if r["d"] == 1 else "1")
            with mpmath.workdps(40):
                assert r["hi"] - r["lo"] <= mpmath.mpf(10) ** -19 * max(1, r["hi"])
        else:
            assert r["crossings"] == "" and r["C"] >= 100
    # EVIDENCE and certified agree where both exist (the EVIDENCE solver's validation)
    cert = {(r["C"], r["d"], r["dt"]): r for r in ROWS if r["status"] == "certified"}
    both = [r for r in ROWS if r["status"] == "EVIDENCE" and (r["C"], r["d"], r["dt"]) in cert]
    assert len(both) >= 2
    with mpmath.workdps(40):
        for r in both:                                   # to 18 relative digits (the solver's 60-digit
            c = cert[(r["C"], r["d"], r["dt"])]          # value lies in the width-1e-20 interval)
            tol = mpmath.mpf(10) ** -18 * c["hi"]
            assert c["lo"] - tol <= r["lo"] <= c["hi"] + tol


# ---------------------------------------------------------------------------------------------
# the law against the certified thresholds
# ---------------------------------------------------------------------------------------------

def test_law_matches_certified_thresholds_d2_dt3():
    rows = sorted((r for r in ROWS if (r["d"], r["dt"]) == (2, 3) and r["status"] == "certified"),
                  key=lambda r: r["C"])
    assert rows[-1]["C"] == 1000
    a, b = TL.threshold_constants(2, 3)
    for r in rows:
        rho = (r["lo"] + r["hi"]) / 2
        err1 = rho - a.mid * r["C"]
        err2 = _err2(r)
        # the two-term law errs by c/C with c about 6 (measured: C err2 -> 6.4); one term by about b*
        assert abs(err2) * r["C"] < 8, (r["C"], err2)
        if r["C"] >= 100:
            assert abs(err1 - b.mid) < 0.06
            assert abs(err2) < abs(err1) / 20
    # the measured values of the issue: 1040.58 at C = 1000, 101.77 at C = 100
    assert abs(TL.threshold_asymptotic(1000, 2, 3) - mpmath.mpf("1040.58")) < 0.01
    assert abs(TL.threshold_asymptotic(100, 2, 3) - mpmath.mpf("101.77")) < 0.06


def test_error_decreases_at_the_derived_rate_one_over_C():
    for pair in [(2, 3), (9, 10)]:
        rows = sorted((r for r in ROWS if (r["d"], r["dt"]) == pair and r["C"] >= 100), key=lambda r: r["C"])
        best = {}
        for r in rows:                                   # certified where present
            if r["C"] not in best or r["status"] == "certified":
                best[r["C"]] = r
        Cs = sorted(best)
        assert Cs[-1] >= 5000
        scaled = [float(_err2(best[C]) * C) for C in Cs]     # C * err2 -> the next coefficient
        assert all(s > 0 for s in scaled) or all(s < 0 for s in scaled)
        # C * err2 settles: consecutive values change less and less, and stay within 25 %
        assert max(scaled) / min(scaled) < 1.25, (pair, scaled)
        slope = float(mpmath.log(abs(_err2(best[Cs[-1]]) / _err2(best[Cs[0]]))) / mpmath.log(mpmath.mpf(Cs[-1]) / Cs[0]))
        assert -1.1 < slope < -0.9, (pair, slope)


def test_d1_has_no_threshold():
    law = TL.threshold_law(1, 2, digits=10)
    assert law.expressions["rho_star"] == 0 and law.a_star is None
    assert TL.threshold_asymptotic(10 ** 4, 1, 2) == 0
    rows = [r for r in ROWS if r["d"] == 1]
    assert rows and all(r["lo"] == 0 == r["hi"] for r in rows)
    # the limiting comparison behind it: I_pod0 = 1/(a-1) > I_ret0 for every a > 1
    for a in ("1.01", "2", "50"):
        assert TL.idle_asymptotic("retrial", a, 2, order=1) < TL.idle_asymptotic("power", a, 1, order=1)
    # the power-of-d sums at d = 1 (a linear iteration) against random routing's closed forms:
    # I0 = 1/(a-1), I1 = -2a/(a-1)^3 (a = 2: 1 and -4; -3.984 C-scaled at C = 2000 by Erlang-B)
    with TL._prec(80):
        I0, dI0, I1 = TL._pod_sums(arb(2), 1, 2)
    assert I0.overlaps(arb(1)) and I1.overlaps(arb(-4)) and dI0.overlaps(arb(-1))
    assert I0.rad() < 1e-20 and I1.rad() < 1e-20


# ---------------------------------------------------------------------------------------------
# the constants and the limiting equations
# ---------------------------------------------------------------------------------------------

def test_constants_recheck_from_stored_ends():
    a, b = TL.threshold_constants(2, 3, digits=20)
    assert Fraction(a.lo) < Fraction(a.hi) and Fraction(b.lo) < Fraction(b.hi)
    # independent re-check at another precision: sign change of Delta_0 at the stored decimal ends
    with TL._prec(200):
        lo = TL._delta(arb(fmpq(int(a.lo.replace(".", "")), 10 ** 20)), 2, 3)[0]
        hi = TL._delta(arb(fmpq(int(a.hi.replace(".", "")), 10 ** 20)), 2, 3)[0]
    assert lo > 0 and hi < 0
    # the truncated-sum value of the limiting equation (plain mpmath, no tail bound) agrees
    with mpmath.workdps(40):
        av = a.mid
        e, S = mpmath.mpf(1), mpmath.mpf(0)
        for _ in range(400):
            e = 1 - (1 - e / av) ** (mpmath.mpf(1) / 2)
            S += e
        assert abs((1 - 1 / av) ** (-mpmath.mpf(1) / 3) - 1 - S) < 1e-18


def test_tail_bounds_contain_long_sums():
    """The ball of I_pod0, I_pod1 (truncated early + proved tail) contains a much longer plain sum."""
    with TL._prec(60):
        I0, dI0, I1 = TL._pod_sums(arb("1.3"), 3, 4)
    with mpmath.workdps(40):
        a = mpmath.mpf("1.3")
        es = [mpmath.mpf(1)]
        for _ in range(300):
            es.append(1 - (1 - es[-1] / a) ** (mpmath.mpf(1) / 3))
        S0 = mpmath.fsum(es[1:])
        T, f, S1 = 1 + S0, mpmath.mpf(0), mpmath.mpf(0)
        for J in range(-1, 299):
            f = (f - J * es[J + 1] - T) / (a * 3 * (1 - es[J + 2]) ** 2)
            S1 += f
            T -= es[J + 1]
        h = mpmath.diff(lambda x: mpmath.fsum(_iterates(x, 3)), a)
    for ball, val in ((I0, S0), (I1, S1), (dI0, h)):
        assert ball.overlaps(arb(mpmath.nstr(val, 35))), (ball, val)


def _iterates(a, d):
    e, out = mpmath.mpf(1), []
    for _ in range(300):
        e = 1 - (1 - e / a) ** (mpmath.mpf(1) / d)
        out.append(e)
    return out


@pytest.mark.slow
def test_idle_expansion_against_library_fixed_points():
    """I = C - rho (1 - B) from the library's certified blocking at rho = aC against I0 + I1/C:
    the remainder is O(1/C^2) (C^2 x remainder nearly constant)."""
    a = mpmath.mpf("1.25")
    for pol, d, model in (("retrial", 3, RetrialOfD), ("power", 2, PowerOfD)):
        scaled = []
        for C in (100, 200):
            B = model(C, d).blocking(a * C, dps=25)
            idle = C - a * C * (1 - B)
            scaled.append((idle - TL.idle_asymptotic(pol, a, d, order=2, C=C)) * C ** 2)
            assert abs(idle - TL.idle_asymptotic(pol, a, d, order=1)) * C < 5
        assert 0.8 < scaled[1] / scaled[0] < 1.25, (pol, scaled)


def test_retrial_closed_forms():
    I0, I1 = TL.retrial_idle_expansion(2)
    assert sp.simplify(I0 - (1 - TL.P) / TL.P) == 0
    # random routing (dt = 1, P = 1 - 1/a): I = 1/(a-1) - 2a/(C (a-1)^3), against Erlang-B itself
    I0_1, I1_1 = TL.retrial_idle_expansion(1)
    a = TL.A
    assert sp.simplify(I1_1.subs(TL.P, 1 - 1 / a) + 2 * a / (a - 1) ** 3) == 0
    from symloss import erlang_b
    with mpmath.workdps(30):
        C, rho = 2000, 4000
        idle = C - rho * (1 - erlang_b(C, rho, dps=30))
        assert abs((idle - 1) * C - (-4)) < 0.05        # -3.984 (the O(1/C^2) term)


@pytest.mark.slow
def test_general_dt_closed_form_matches_each_dt():
    g = TL.retrial_idle_expansion(TL.DT)[1]
    for k in (2, 3, 10):
        assert sp.cancel(g.subs(TL.DT, k) - TL.retrial_idle_expansion(k)[1]) == 0


def test_law_latex_and_expressions():
    law = TL.threshold_law(2, 3, digits=12)
    assert law.latex["rho_star"].startswith(r"\rho^*")
    assert "P" in law.latex["I_ret1"]
    assert law.expressions["phi"] == 1 - sp.sqrt(1 - TL._E / TL.A)
    d = law.to_dict()
    assert d["a_star"]["lo"].startswith("1.0431760575")


# ---------------------------------------------------------------------------------------------
# mutation: the derivation follows the library's definitions
# ---------------------------------------------------------------------------------------------

def test_edited_power_definition_is_refused(monkeypatch):
    class Edited(PowerOfD):
        def transitions(self):
            return [(jump, rate * 2 if TL.RHO not in rate.free_symbols else rate)
                    for jump, rate in super().transitions()]
    monkeypatch.setattr(TL, "PowerOfD", Edited)
    with pytest.raises(AssertionError, match="reduced recursion"):
        TL._check_power_rows(2, 4, TL.A)


def test_edited_retrial_definition_is_refused(monkeypatch):
    class Sneaky(RetrialOfD):                        # rates edited, arrival_rate_expr left as shipped
        def transitions(self):
            out = super().transitions()
            return out[:-1] + [(out[-1][0], out[-1][1] * 3)]
    monkeypatch.setattr(TL, "RetrialOfD", Sneaky)
    with pytest.raises(AssertionError, match="birth-death row"):
        TL._check_retrial_rows(3, 4)


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("d, dt, exc, word", [(2, 2, ValueError, "dt"), (3, 2, ValueError, "dt"),
                                              (0, 2, ValueError, "d"), (2, 65, ValueError, "dt"),
                                              (2.5, 3, TypeError, "d"), (2, "3", TypeError, "dt")])
def test_bad_pair(d, dt, exc, word):
    with pytest.raises(exc, match=word):
        TL.threshold_law(d, dt)
    with pytest.raises(exc, match=word):
        TL.threshold_asymptotic(100, d, dt)


def test_bad_arguments():
    with pytest.raises(ValueError, match="C"):
        TL.threshold_asymptotic(0, 2, 3)
    with pytest.raises(TypeError, match="C"):
        TL.threshold_asymptotic("100", 2, 3)
    with pytest.raises(ValueError, match="order"):
        TL.threshold_asymptotic(100, 2, 3, order=3)
    with pytest.raises(ValueError, match="digits"):
        TL.threshold_constants(2, 3, digits=5)
    with pytest.raises(ValueError, match="policy"):
        TL.idle_asymptotic("jsq", 2, 2)
    with pytest.raises(ValueError, match="a must be"):
        TL.idle_asymptotic("power", "0.5", 2)
    with pytest.raises(ValueError, match="needs C"):
        TL.idle_asymptotic("power", 2, 2, order=2)
    with pytest.raises(ValueError, match="check_C"):
        TL.derive_reduced_equations(2, 3, check_C=(1,))


@pytest.mark.slow
def test_reduction_holds_at_more_capacities():
    """The reduction of the library's rows to the recursions, checked at C = 6, 7 (default: C = 5)."""
    for pair in [(2, 3), (9, 10)]:
        eq = TL.derive_reduced_equations(*pair, check_C=(6, 7))
        assert eq["I_ret1"] == TL.derive_reduced_equations(*pair)["I_ret1"]


def test_stable_map_is_checked_against_the_derived_map():
    """The cancellation-free evaluation of phi is used only when it equals the SymPy map."""
    derived = TL.derive_reduced_equations(2, 3)["phi"]
    assert TL._stable_phi(derived, 2)(arb("0.5"), arb("1.5")).overlaps(1 - (1 - arb("0.5") / arb("1.5")).sqrt())
    with pytest.raises(AssertionError, match="stable form"):
        TL._stable_phi(1 - (1 - TL._E / TL.A) ** sp.Rational(1, 3), 2)   # a map that is not power-of-2's
