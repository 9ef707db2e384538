"""symloss.evaluate (tidy tables of several models at several loads) and the EVIDENCE status that
threshold_load's value carries, against independent closed forms."""
from __future__ import annotations

import pickle

import mpmath
import pytest
import sympy as sp

import symloss
from symloss import RHO, define_model


def _erlang1(g=1):
    u = sp.Symbol("u", nonnegative=True)
    return define_model(f"M/M/1/1 x{g}", [u], [({u: 1}, RHO * g * (1 - u)), ({u: -1}, u)], blocking=u)


def test_evaluate_rows_against_closed_forms():
    rhos = [0.5, 1.0]
    ev = symloss.evaluate([symloss.RetrialOfD(2, 2), symloss.PowerOfD(2, 2), _erlang1()], rhos, dps=20)
    f = ev.to_frame()
    assert len(f) == 6 and list(f["model"]) == ["retrial-of-2"] * 2 + ["power-of-2"] * 2 + ["M/M/1/1 x1"] * 2
    assert list(f["rho"]) == rhos * 3 and set(f["status"]) == {"certified"}
    with mpmath.workdps(40):
        ret = (mpmath.cbrt(2) - 1) ** 2                                  # B_ret(2) at rho = 1, C = 2
        s = [r for r in sp.Poly(sp.Symbol("s") ** 4 + 2 * sp.Symbol("s") ** 3 - 2 * sp.Symbol("s") ** 2
                                - 4 * sp.Symbol("s") + 1).real_roots() if 0 < r < 1][0]
        pod = mpmath.mpf(sp.N(s ** 2, 40))                               # B_pod(2) at rho = 1, C = 2
    rows = ev.rows()
    with mpmath.workdps(40):
        assert abs(rows[1]["blocking"] / ret - 1) < 1e-18 and abs(rows[3]["blocking"] / pod - 1) < 1e-18
        for r in rows[4:]:                                              # Erlang B with C = 1: rho / (1 + rho)
            exact = mpmath.mpf(r["rho"]) / (1 + mpmath.mpf(r["rho"]))
            assert abs(r["blocking"] / exact - 1) < 1e-18
            assert mpmath.mpf(r["blocking_lo"]) <= exact <= mpmath.mpf(r["blocking_hi"])
            assert abs(r["carried_load"] - mpmath.mpf(r["rho"]) * (1 - exact)) < 1e-18
    assert f.loc[1, "digits"] >= 20 and f.loc[0, "full_fraction"] > 0
    assert len(ev.fixed_points) == 6


def test_evaluate_follows_an_edited_definition():
    """Mutation: doubling the arrival rate of the definition is the original at twice the load."""
    a = symloss.evaluate(_erlang1(2), [0.5], dps=20).rows()[0]["blocking"]
    b = symloss.evaluate(_erlang1(1), [1.0], dps=20).rows()[0]["blocking"]
    c = symloss.evaluate(_erlang1(1), [0.5], dps=20).rows()[0]["blocking"]
    with mpmath.workdps(40):
        assert abs(a / b - 1) < 1e-18 and abs(b - mpmath.mpf("0.5")) < 1e-18
        assert abs(c - mpmath.mpf(1) / 3) < 1e-18                           # the edit changes the answer


def test_evaluate_text_and_latex():
    ev = symloss.evaluate([symloss.RetrialOfD(2, 2), symloss.JSQ(2)], 1.0)
    text = str(ev)
    assert "retrial-of-2" in text and "certified" in text and "RetrialOfD(" not in text
    tex = ev.to_latex(digits=6)
    assert r"\toprule" in tex and "$B$" in tex and r"$\rho$" in tex and "$0.0675590$" in tex
    assert "certified" in tex and "seconds" not in tex


def test_evaluate_rejects_bad_input_naming_the_argument():
    with pytest.raises(ValueError, match="models must be a non-empty"):
        symloss.evaluate([], [1.0])
    with pytest.raises(TypeError, match=r"models\[1\] must be a MeanFieldModel"):
        symloss.evaluate([symloss.PowerOfD(2, 2), "power"], [1.0])
    with pytest.raises(TypeError, match="models must be a MeanFieldModel"):
        symloss.evaluate("power", [1.0])
    with pytest.raises(ValueError, match="rhos must be a non-empty"):
        symloss.evaluate(symloss.PowerOfD(2, 2), [])
    with pytest.raises(ValueError, match=r"rhos\[1\]"):
        symloss.evaluate(symloss.PowerOfD(2, 2), [1.0, -2.0])
    with pytest.raises(ValueError, match=r"rhos\[0\]"):
        symloss.evaluate(symloss.PowerOfD(2, 2), [0])
    with pytest.raises(ValueError, match="dps"):
        symloss.evaluate(symloss.PowerOfD(2, 2), [1.0], dps=2)


def test_threshold_load_says_evidence_and_stays_a_number():
    t = symloss.threshold_load(3, 2, 3, dps=20)
    assert isinstance(t, symloss.ThresholdLoad) and t.status == "EVIDENCE"
    assert repr(t).startswith("ThresholdLoad(0.94963560400272693932, EVIDENCE: largest crossing in a float scan")
    assert "EVIDENCE" in str(t) and "not proved" in str(t)
    assert mpmath.nstr(t, 15) == "0.949635604002727" and float(t) == pytest.approx(0.949635604002727, rel=1e-15)
    assert type(t * mpmath.mpf(2)) is mpmath.mpf and t > 0.9 and t == t.value() and hash(t) == hash(t.value())
    with mpmath.workdps(30):                  # mpmath.mpf(x) rounds to the working precision, as for any mpf
        assert mpmath.mpf(t) == t and mpmath.log(t) == mpmath.log(t.value())
    # symloss's own argument checks take it exactly: the blockings agree at the threshold
    with mpmath.workdps(30):
        br, bp = symloss.RetrialOfD(3, 3).blocking(t, dps=25), symloss.PowerOfD(3, 2).blocking(t, dps=25)
        assert abs(br / bp - 1) < mpmath.mpf(10) ** -15
    back = pickle.loads(pickle.dumps(t))
    assert back == t and back.status == "EVIDENCE" and back.method == t.method
    tex = t.to_latex(digits=6)
    assert tex.startswith(r"$\rho^{*} = 0.949636$") and "EVIDENCE" in tex
    from symloss.core.results import to_jsonable
    assert to_jsonable(t, dps=12) == "0.949635604003"                   # JSON / CSV record the number
    zero = symloss.threshold_load(2, 2, 3, dps=10)
    assert zero == 0 and "better at every load" in str(zero) and "better at every load" in zero.to_latex()
    with pytest.raises(ValueError, match="digits"):
        t.to_latex(digits=0)


def test_threshold_load_keeps_its_digits_whatever_the_ambient_precision():
    t = symloss.threshold_load(3, 2, 3, dps=30)
    assert mpmath.mp.dps == 15
    assert mpmath.nstr(t, 30) == mpmath.nstr(t.value(), 30) and len(repr(t).split(",")[0]) > 30
