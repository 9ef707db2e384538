"""Certified comparison of user-defined models on the generic path (symloss.meanfield.certified_generic):
end pieces for user models, series orders chosen per pair up to a budget, several crossings, tangencies
refused with the reason, certificates re-checked and tampered ones refused.

Independent references: closed forms of one-dimensional models (x = rho / (1 + rho)), exact roots of
their blocking polynomials, high-precision fixed points of the shipped accelerators, and
``threshold_load`` (mpmath root finding, not the certified search)."""
import copy
import json
import random
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import arb

from symloss import RHO, PowerOfD, certified_comparison, define_model, threshold_load, verify_comparison
from symloss.meanfield.certified import CertificateMismatch
from symloss.meanfield.certified_generic import (
    SeriesBudgetError,
    _end_slice,
    _Generic,
    _ipow,
    end_branch,
    generic_comparison,
)
from symloss.meanfield.enclosures import q_arb

X = sp.Symbol("x", nonnegative=True)


def hybrid(C, d, r):
    """docs/models.md: sample d servers, join the least loaded; if all d are full, draw a fresh sample;
    at most r rounds."""
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + u + (sp.Integer(0),)
    retry = sum((u[-1] ** d) ** j for j in range(r))
    transitions = []
    for k in range(1, C + 1):
        transitions.append(({u[k - 1]: +1}, RHO * retry * (U[k - 1] ** d - U[k] ** d)))
        transitions.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"hybrid(d={d}, r={r})", u, transitions, blocking=u[-1] ** (d * r), state_kind="tail", C=C)


def one_dim(blocking, name, up=1):
    """x' = up * rho (1 - x) - x: x = up rho / (1 + up rho) exactly; any polynomial blocking."""
    return define_model(name, [X], [({X: 1}, up * RHO * (1 - X)), ({X: -1}, X)], blocking=blocking)


def _x(rho, up=1):
    return Fraction(up) * rho / (1 + Fraction(up) * rho)


# --------------------------------------------------------------------------------------------------
# ball powers (python-flint's arb ** int is NaN for a ball around 0)
# --------------------------------------------------------------------------------------------------

def test_integer_power_of_balls_encloses_every_point_power():
    rng = random.Random(5)
    for _ in range(300):
        mid = Fraction(rng.randint(-40, 40), 16)
        rad = Fraction(rng.randint(0, 40), 16)
        x = arb(q_arb(mid), q_arb(rad))
        for a in range(0, 6):
            p = _ipow(x, a)
            assert p.is_finite(), (mid, rad, a)
            for s in (mid - rad, mid + rad, mid, mid - rad / 3):
                assert p.contains(q_arb(s ** a)), (mid, rad, a, s)


# --------------------------------------------------------------------------------------------------
# end pieces of user and shipped models
# --------------------------------------------------------------------------------------------------

def test_small_load_end_of_a_component_vanishing_to_high_order():
    """PowerOfD(3, 3) at rho -> 0: u_3 ~ rho^13 (its order-12 series is 0); the remainder box used to be
    NaN. The end tube encloses the accelerator's fixed point at sample loads."""
    m = PowerOfD(3, 3)
    K, t_hi = 12, Fraction(1, 8)
    br = end_branch(m, "zero", [0.0, 0.0, 0.0], K, t_hi)
    assert br["series"][2] == []                                # u_3 vanishes to order 12
    assert all(w.is_finite() for w in br["_W"])
    for rho in (Fraction(1, 8), Fraction(1, 50)):
        fp = m.fixed_point(rho, dps=30)                       # the accelerator (shooting), to 30 digits
        tube = _end_slice(br["_xs"], br["_W"], K, rho)
        for j in range(3):
            v = mpmath.mpf(fp.x[j])
            assert tube[j].contains(arb(mpmath.nstr(v, 25))), (rho, j, tube[j], v)
            if j < 2:                                             # u_3: only t^13 W (series 0)
                assert tube[j].rad() < abs(v) * 1e-3              # a useful enclosure, not a blur
    # the blocking Taylor model on [0, 1/8] encloses the accelerator's blocking at 1/8
    B = m.blocking(Fraction(1, 8), dps=30)
    assert br["_B"].range().contains(arb(mpmath.nstr(B, 25)))


def test_end_series_order_follows_the_pair_and_its_budget():
    """x = rho / (1 + rho) has valuation 1 at rho -> 0: in the rescaled state x = rho v the blockings
    are rho^14 times a series. B_a = x^14, B_b = x^14 + x^15: these differ at order 1, so the end takes
    the smallest order K_end = 12 beyond the common leading power (the unscaled series needed 15 + 2).
    B_b = x^14 + x^28: they agree to order 13 beyond it, so the budget K_end_max = 12 is named, with the
    leading power."""
    a, b = one_dim(X ** 14, "x^14"), one_dim(X ** 14 + X ** 15, "x^14 + x^15")
    g = _Generic(a, b, 20, 128)
    K, pre = g.end_order("zero", Fraction(1, 8), 12, 48)
    assert K == 12
    assert [em.valuations for em, _xs in pre.values()] == [[1], [1]] and pre["a"][0].scale == 14
    b28 = one_dim(X ** 14 + X ** 28, "x^14 + x^28")
    K28, _pre = _Generic(a, b28, 20, 128).end_order("zero", Fraction(1, 8), 12, 48)
    assert K28 == 16
    with pytest.raises(SeriesBudgetError, match=r"agree to order 12 \(series budget K_end_max = 12"):
        _Generic(a, b28, 20, 128).end_order("zero", Fraction(1, 8), 12, 12)
    with pytest.raises(SeriesBudgetError, match=r"K_end_max = 12.*common leading power \(rho\)\^14") as exc:
        generic_comparison(a, b28, dps=20, K_end_max=12)
    assert str(exc.value).count("agree to order") == 1
    for bad in (1, 65, 2.0, True):
        with pytest.raises(ValueError, match="K_end_max"):
            generic_comparison(a, b, dps=20, K_end_max=bad)
    res = certified_comparison(a, b, dps=20)
    assert res.holds_everywhere(-1) and res.certificate["zero_end"]["K"] == 12
    assert res.certificate["zero_end"]["D"]["scale"] == 14 and res.status == "PROVED"
    assert verify_comparison(json.loads(json.dumps(res.certificate)), a, b).holds_everywhere(-1)


def test_end_piece_failure_is_reported_once(monkeypatch):
    a, b = one_dim(X, "x"), one_dim(X ** 2, "x^2")

    def boom(self, end, rho_j, *args, **kw):
        raise ValueError("no Krawczyk box (test)")
    monkeypatch.setattr(_Generic, "end", boom)
    with pytest.raises(ArithmeticError, match="not certified at any of the junction loads") as exc:
        generic_comparison(a, b, dps=20)
    assert str(exc.value).count("no Krawczyk box (test)") == 1


# --------------------------------------------------------------------------------------------------
# several crossings, tangency, tampering (one-dimensional user models, exact references)
# --------------------------------------------------------------------------------------------------

def test_two_crossings_at_exact_loads_and_tampering():
    """B_a = x, B_b = x + x (x - 1/4)(x - 1/2): they cross exactly where x = 1/4 and x = 1/2, i.e. at
    rho = 1/3 and rho = 1; B_a < B_b outside [1/3, 1], B_a > B_b inside."""
    a = one_dim(X, "x")
    b = one_dim(X + X * (X - sp.Rational(1, 4)) * (X - sp.Rational(1, 2)), "two crossings")
    res = certified_comparison(a, b, dps=20)
    assert res.count == 2 and res.sign_at_zero == -1 and res.sign_at_infinity == -1
    for c, want in zip(res.crossings, (Fraction(1, 3), Fraction(1))):
        assert Fraction(c.rho_lo) <= want <= Fraction(c.rho_hi)
        assert Fraction(c.rho_hi) - Fraction(c.rho_lo) <= Fraction(1, 10 ** 20)
    assert [p["sign"] for p in res.pieces] == [-1, 1, -1]
    cert = json.loads(json.dumps(res.certificate))
    assert verify_comparison(cert, a, b).count == 2
    bad = copy.deepcopy(cert)
    bad["zero_end"]["models"]["b"]["W"][0] = "[+/- 1e-30]"          # a remainder box shrunk
    with pytest.raises(CertificateMismatch):
        verify_comparison(bad, a, b)
    bad = copy.deepcopy(cert)
    bad["zero_end"]["K"] = int(bad["zero_end"]["K"]) + 1              # another order: series differ
    with pytest.raises(CertificateMismatch):
        verify_comparison(bad, a, b)
    for end in ("zero_end", "infinity_end"):
        bad = copy.deepcopy(cert)
        bad[end]["D"]["pieces"] = 0                                   # no sub-interval: nothing checked
        with pytest.raises(CertificateMismatch):
            verify_comparison(bad, a, b)
        bad = copy.deepcopy(cert)
        bad[end]["link"]["a"]["center"][0] = "1*2^-1"                 # the junction box moved away
        with pytest.raises(CertificateMismatch):
            verify_comparison(bad, a, b)
    bad = copy.deepcopy(cert)
    bad["cells"] = bad["cells"][:-1]                                  # a gap in the tiling
    with pytest.raises(CertificateMismatch):
        verify_comparison(bad, a, b)
    # mutation: the same certificate for an edited definition (arrivals doubled) is refused, and the
    # edited pair's crossings move to the exact loads of x = 2 rho / (1 + 2 rho)
    a2 = one_dim(X, "x", up=2)
    b2 = one_dim(X + X * (X - sp.Rational(1, 4)) * (X - sp.Rational(1, 2)), "two crossings", up=2)
    with pytest.raises(CertificateMismatch):
        verify_comparison(cert, a2, b2)
    res2 = certified_comparison(a2, b2, dps=20)
    for c, want in zip(res2.crossings, (Fraction(1, 6), Fraction(1, 2))):
        assert Fraction(c.rho_lo) <= want <= Fraction(c.rho_hi)


def test_tangency_is_reported_as_evidence_with_the_reason():
    """B_b = x + x (x - 1/2)^2 >= B_a = x (same dynamics), equality (a double root) at rho = 1: the
    comparison returns, the touching interval (around rho = 1) is EVIDENCE with the reason, on the
    result, in its repr and in the certificate; the rest is PROVED (B_a < B_b on both sides) and the
    re-check verifies it and reports the EVIDENCE part as such."""
    a = one_dim(X, "x")
    b = one_dim(X + X * (X - sp.Rational(1, 2)) ** 2, "touch")
    res = certified_comparison(a, b, dps=20)
    assert res.status == "EVIDENCE" and res.count == 0 and len(res.evidence) == 1
    ev = res.evidence[0]
    lo, hi = (Fraction(v) for v in ev["rho"])
    assert lo < 1 < hi and hi - lo < Fraction(1, 1000)
    assert ev["sign_before"] == ev["sign_after"] == -1 and "touch" in ev["reason"]
    assert "EVIDENCE" in repr(res) and "EVIDENCE" in res.reason and "PROVED" not in res.reason
    assert not res.holds_everywhere(-1)                           # not claimed where it is not proved
    assert [p.get("status") for p in res.pieces] == [None, "EVIDENCE", None]
    assert [p["sign"] for p in res.pieces] == [-1, None, -1]
    cert = json.loads(json.dumps(res.certificate))
    again = verify_comparison(cert, a, b)
    assert again.status == "EVIDENCE" and again.evidence == res.evidence
    bad = copy.deepcopy(cert)
    k = next(i for i, c in enumerate(bad["cells"]) if c["test"] == "evidence")
    bad["cells"][k]["status"] = "PROVED"                           # an uncertified cell relabelled
    with pytest.raises(CertificateMismatch):
        verify_comparison(bad, a, b)
    bad = copy.deepcopy(cert)
    bad["cells"][k]["sign"] = -1                                   # a sign claimed for it
    with pytest.raises(CertificateMismatch):
        verify_comparison(bad, a, b)


# --------------------------------------------------------------------------------------------------
# the docs' hybrid (issue 23)
# --------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_docs_hybrid_against_power_of_3():
    """Was: ArithmeticError (no Krawczyk box for the remainder of the end series, printed twice)."""
    h, p = hybrid(3, 2, 2), PowerOfD(3, 3)
    res = certified_comparison(h, p)
    assert res.count == 1 and res.sign_at_zero == 1 and res.sign_at_infinity == -1
    lo, hi = (Fraction(v) for v in res.threshold["rho"])
    with mpmath.workdps(40):
        ref = threshold_load(h, p, dps=30)                     # mpmath root finding (not certified)
    assert lo - Fraction(1, 10 ** 25) <= Fraction(mpmath.nstr(ref, 28)) <= hi + Fraction(1, 10 ** 25)
    assert mpmath.nstr(ref, 12) == "1.28764657758"             # the README's value
    cert = json.loads(json.dumps(res.certificate))
    assert verify_comparison(cert, h, p).threshold == res.threshold
    bad = copy.deepcopy(cert)
    bad["zero_end"]["D"]["sign"] = -1
    with pytest.raises(CertificateMismatch):
        verify_comparison(bad, h, p)
    with pytest.raises(CertificateMismatch):                   # mutation: another hybrid
        verify_comparison(cert, hybrid(3, 2, 3), p)


@pytest.mark.slow
def test_docs_hybrid_against_power_of_2():
    """Was: ArithmeticError (the blockings agree to order 12 at rho -> zero): B_h ~ rho^28, B_p ~ rho^14
    needed 16 exact terms; with the states rescaled by their valuations (u_k ~ rho^(2^k - 1)) the
    blockings are rho^28 and rho^14 times series, and K_end = 12 terms beyond rho^14 suffice. Two rounds
    of power-of-2 block less than one at every load."""
    h, p = hybrid(3, 2, 2), PowerOfD(3, 2)
    res = certified_comparison(h, p)
    assert res.holds_everywhere(-1) and res.threshold == {"value": "0"} and res.status == "PROVED"
    z = res.certificate["zero_end"]
    assert z["K"] == 12 and z["D"]["scale"] == 14
    assert z["models"]["a"]["valuations"] == [1, 3, 7] and z["models"]["b"]["valuations"] == [1, 3, 7]
    assert threshold_load(h, p, dps=20) == 0                   # "below at every load" there too
    with mpmath.workdps(40):
        for rho in (Fraction(1, 10), Fraction(3), Fraction(40)):
            assert h.blocking(rho, dps=30) < p.blocking(rho, dps=30)
    cert = json.loads(json.dumps(res.certificate))
    assert verify_comparison(cert, h, p).holds_everywhere(-1)
    bad = copy.deepcopy(cert)
    bad["zero_end"]["models"]["a"]["series"][0][1] = "2"
    with pytest.raises(CertificateMismatch):
        verify_comparison(bad, h, p)
    bad = copy.deepcopy(cert)
    bad["zero_end"]["models"]["a"]["valuations"] = [1, 3, 6]         # another rescaling: refused
    with pytest.raises(CertificateMismatch):
        verify_comparison(bad, h, p)


def test_options_are_used_or_refused():
    """Options of certified_comparison are never silently ignored: K (fast path only) is refused on the
    generic path, K_end_max (generic only) on the fast path; both before any search."""
    from symloss import PowerOfD, RandomRouting, RetrialOfD, certified_comparison
    with pytest.raises(ValueError, match="K=8 applies to the retrial-of-d / power-of-d fast path only"):
        certified_comparison(RetrialOfD(2, 2), RandomRouting(2), dps=15, K=8)
    with pytest.raises(ValueError, match="K_end_max=20 applies to the generic path only"):
        certified_comparison(RetrialOfD(3, 3), PowerOfD(3, 2), dps=15, K_end_max=20)
    with pytest.raises(ValueError, match="K_end_max must be an integer >= 2"):
        certified_comparison(RetrialOfD(3, 3), PowerOfD(3, 2), dps=15, K_end_max=1)


def test_certified_threshold_of_two_models_agrees_with_threshold_load():
    """``certified_threshold(model_a, model_b)`` (issue 23): the same certificate as the (C, d, dt) form for
    the shipped pair, and the float scan of ``threshold_load`` lies in its crossing interval."""
    from symloss.meanfield.certified import certified_threshold
    from symloss import RetrialOfD
    two = certified_threshold(RetrialOfD(3, 3), PowerOfD(3, 2), dps=20)
    three = certified_threshold(3, 2, 3, dps=20)
    assert two.threshold == three.threshold and two.count == three.count == 1
    lo, hi = (Fraction(v) for v in two.threshold["rho"])
    ref = threshold_load(RetrialOfD(3, 3), PowerOfD(3, 2), dps=25)
    assert lo - Fraction(1, 10 ** 18) <= Fraction(mpmath.nstr(ref, 24)) <= hi + Fraction(1, 10 ** 18)
    with pytest.raises(TypeError, match=r"\(C, d, dt\) or \(model_a, model_b\)"):
        certified_threshold(RetrialOfD(3, 3), 2)
    with pytest.raises(TypeError, match=r"\(C, d, dt\) or \(model_a, model_b\)"):
        certified_threshold(RetrialOfD(3, 3), PowerOfD(3, 2), 3)
    with pytest.raises(TypeError, match="needs d and dt"):
        certified_threshold(3, 2)
