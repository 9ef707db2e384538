"""The refined mean field's V, certified (symloss.finite_n.refined_certified): against independent values
(the float64 expansion with scipy's Bartels-Stewart solver; Richardson extrapolation of the exact finite-N
chain; V = 0 for random routing, whose servers are independent), mutation, tampering and bad input."""
from __future__ import annotations

import copy
from fractions import Fraction

import pytest
import sympy as sp

from symloss import JSQ, PowerOfD, RandomRouting, RetrialOfD, exact_finite_n, refined_mean_field
from symloss.core.precision import PrecisionError
from symloss.finite_n.refined_certified import CertifiedRefinedV, certified_refined_V, verify_refined_V


class _FasterArrivals(PowerOfD):
    """Power-of-2 with the arrival rates edited (x 3/2): another definition."""

    def transitions(self):
        return [(j, r * sp.Rational(3, 2)) if i % 2 == 0 else (j, r) for i, (j, r) in enumerate(super().transitions())]


@pytest.mark.parametrize("model", [PowerOfD(2, 2), RetrialOfD(2, 2), RetrialOfD(3, 3), PowerOfD(4, 2)])
def test_bracket_holds_the_float64_expansion(model):
    r = certified_refined_V(model, 1)
    assert isinstance(r, CertifiedRefinedV) and r.status == "PROVED" and r.digits >= 30
    f = refined_mean_field(model, rho=1.0, dps=None).V        # scipy Lyapunov solver, float64
    assert abs(f - float(r.V)) <= 1e-10 * abs(float(r.V))
    assert r.V_lo < r.V_hi
    assert verify_refined_V(r.certificate, model) == (r.V_lo, r.V_hi)


def test_exact_chain_richardson_agrees():
    m = RetrialOfD(2, 2)
    r = certified_refined_V(m, 1)
    B = float(m.fixed_point(1, dps=20).blocking)
    v = {N: N * (exact_finite_n(m, N, 1.0).blocking - B) for N in (80, 160)}
    assert abs((2 * v[160] - v[80]) - float(r.V)) < 1e-4 * float(r.V)


def test_random_routing_V_is_zero_exactly():
    r = certified_refined_V(RandomRouting(3), 1)
    assert r.V_lo == r.V_hi == 0 and r.accuracy == "absolute" and "exactly" in repr(r)


def test_rational_load_and_precision():
    r = certified_refined_V(PowerOfD(2, 2), "1/2", digits=40)
    assert r.digits >= 40 and r.rho == Fraction(1, 2)
    assert abs(float(r.V) - refined_mean_field(PowerOfD(2, 2), rho=0.5, dps=None).V) < 1e-10


def test_tiny_blocking_where_float64_underflows():
    # V ~ 1e-11969: the float64 corrections of the old refinement underflowed (V_mp came out 1e-17731)
    r = certified_refined_V(PowerOfD(10, 3), 1, digits=20)
    assert "e-11969" in r.certificate["V_text"]
    mp = refined_mean_field(PowerOfD(10, 3), rho=1.0, dps=20).V_mp
    assert Fraction(str(mp)) != 0 and abs(Fraction(str(mp)) / ((r.V_lo + r.V_hi) / 2) - 1) < Fraction(1, 10 ** 15)


def test_mutation_edited_rate_is_another_V_and_refuses_the_certificate():
    base = certified_refined_V(PowerOfD(2, 2), 1)
    edited = certified_refined_V(_FasterArrivals(2, 2), 1)
    assert edited.V_hi < base.V_lo or edited.V_lo > base.V_hi
    with pytest.raises(ValueError, match="fingerprint"):
        verify_refined_V(base.certificate, _FasterArrivals(2, 2))


def _tampered(cert, how):
    c = copy.deepcopy(cert)
    how(c)
    return c


@pytest.mark.parametrize("how, match", [
    (lambda c: c.__setitem__("V", [c["V"][0], c["V"][0]]), "digit|enclose"),
    (lambda c: c.__setitem__("V", [c["V"][1], c["V"][1]]), "digit|enclose"),
    (lambda c: c["center"].__setitem__(0, str(int(c["center"][0].split("*2^")[0]) * 11 // 10) + "*2^"
                                        + c["center"][0].split("*2^")[1]), "Krawczyk|box|contain"),
    (lambda c: c.__setitem__("eigen_bound", "-5.0"), "eigenvalue"),
    (lambda c: c.__setitem__("V_text", "0.3"), "V_text"),
    (lambda c: c.__setitem__("digits", c["digits"] + 5), "digit"),
    (lambda c: c.__setitem__("rho", "2"), "Krawczyk|box|enclose|contain"),
    (lambda c: c.__setitem__("kind", "krawczyk-box"), "refined-V"),
])
def test_tampered_certificates_are_rejected(how, match):
    m = PowerOfD(2, 2)
    cert = certified_refined_V(m, 1).certificate
    with pytest.raises(ValueError, match=match):
        verify_refined_V(_tampered(cert, how), m)


def test_bad_input():
    m = PowerOfD(2, 2)
    with pytest.raises(TypeError, match="rho must be exact"):
        certified_refined_V(m, 1.0)
    with pytest.raises(ValueError, match="rho must be > 0"):
        certified_refined_V(m, 0)
    with pytest.raises(TypeError, match="rho"):
        certified_refined_V(m, [1])
    with pytest.raises(ValueError, match="prec"):
        certified_refined_V(m, 1, prec=10)
    with pytest.raises(ValueError, match="digits"):
        certified_refined_V(m, 1, digits=0)
    with pytest.raises(ValueError, match="smooth"):
        certified_refined_V(JSQ(2), 1)


def test_precision_error_names_the_budget(monkeypatch):
    import symloss.finite_n.refined_certified as rc
    monkeypatch.setattr(rc, "_digits", lambda lo, hi: (3, "relative"))
    with pytest.raises(PrecisionError, match="not certified to 30 digits"):
        certified_refined_V(PowerOfD(2, 2), 1)
