"""Unbounded tail models (define_unbounded_model, certified_values, verify_unbounded) under valid,
extreme and invalid input: every typed load in (0, 1) gives balls containing the closed form
u_k = rho^(2^k - 1) of JSQ(2) and a certificate the re-check accepts; bad input is refused naming
the argument before any work."""
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from adversarial_strategies import covers, invalid_type_values, typed_reals
from hypothesis import given, settings

from flint import arb

from symloss import RHO, UnboundedTailModel, UnboundedValues, define_unbounded_model, verify_unbounded
from symloss.core.model import ModelDefinitionError

pytestmark = pytest.mark.timeout(120)

a, b, c = sp.symbols("a b c")


def jsq2():
    return define_unbounded_model("JSQ(2)", RHO * (a**2 - b**2), b - c, a=a, b=b, c=c)


@covers("define_unbounded_model", "UnboundedTailModel", "UnboundedValues", "verify_unbounded")
@given(typed_reals(0.01, 0.99))
@settings(max_examples=25, deadline=None)
def test_every_typed_load_is_certified_and_contains_the_closed_form(rho):
    obj, exact = rho
    if exact is None or not (0 < exact < 1):
        return
    m = jsq2()
    assert isinstance(m, UnboundedTailModel)
    v = m.certified_values(obj, dps=20)
    assert isinstance(v, UnboundedValues) and v.status == "PROVED" and v.rho == exact
    with mpmath.workdps(60):
        lam = mpmath.mpf(exact.numerator) / exact.denominator
        for k, t in enumerate(v.tails, start=1):
            exact_tail = arb(mpmath.nstr(lam ** (2**k - 1), 55, strip_zeros=False))
            assert t.overlaps(exact_tail) and t.rad() <= abs(t.mid()) * arb("1e-19"), (k, t, exact_tail)
    assert verify_unbounded(v.certificate, m) is True


@pytest.mark.parametrize("bad", invalid_type_values(), ids=lambda x: type(x).__name__)
def test_bad_rho_and_dps_types_are_refused_naming_the_argument(bad):
    m = jsq2()
    if isinstance(bad, str):
        return                          # decimal strings are documented input; "abc" checked below
    with pytest.raises(TypeError, match="rho"):
        m.certified_values(bad)
    if not isinstance(bad, (float, int)):
        with pytest.raises((TypeError, ValueError), match="dps"):
            m.certified_values(Fraction(1, 2), dps=bad)


@pytest.mark.parametrize("rho", [0, -1, 1, Fraction(3, 2), float("nan"), float("inf"), "abc", "1e99999"])
def test_out_of_range_loads_are_refused_before_work(rho):
    with pytest.raises((ValueError, TypeError), match="rho|load"):
        jsq2().certified_values(rho)


@pytest.mark.parametrize("arrival, departure, what", [
    (RHO * a * b, b - c, "jointly"),
    (RHO * (a - b) - RHO * (a**2 - b**2), b - c, "negative"),
    (RHO * (sp.exp(a) - sp.exp(b)), b - c, "polynomial"),
    (RHO * (a**2 - b**2), b - c + a, "departure"),
    (RHO * (a**2 - b**2), b * c, "departure"),
])
def test_definitions_outside_the_class_name_the_rate(arrival, departure, what):
    with pytest.raises(ModelDefinitionError, match=what):
        define_unbounded_model("bad", arrival, departure, a=a, b=b, c=c)


def test_a_tampered_certificate_or_another_model_is_rejected():
    m = jsq2()
    v = m.certified_values(Fraction(9, 10), dps=25)
    cert = dict(v.certificate)
    cert["rho"] = "4/5"
    with pytest.raises(Exception):
        verify_unbounded(cert, m)
    other = define_unbounded_model("JSQ(3)", RHO * (a**3 - b**3), b - c, a=a, b=b, c=c)
    with pytest.raises(Exception):
        verify_unbounded(v.certificate, other)


@pytest.mark.parametrize("K", [0, -3, 1.5, True, "4", None, 10**7, 10**100])
def test_truncated_refuses_bad_K(K):
    with pytest.raises((TypeError, ValueError), match="K"):
        jsq2().truncated(K)


def test_repr_and_messages_show_the_load_as_written():
    m = jsq2()
    assert "rho=0.9:" in repr(m.certified_values(0.9, dps=15))           # the float's shortest repr
    assert "rho=9/10:" in repr(m.certified_values(Fraction(9, 10), dps=15))
    with pytest.raises(ValueError, match=r"\(rho = 1\.2\)"):
        m.certified_values(1.2)
