"""Erlang-B: reference values, properties, errors, symbolic identities."""
import csv
import math
import pathlib
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import arb
from hypothesis import given, strategies as st

import symloss
from symloss import (erlang_b, erlang_b_ball, erlang_b_capacity, erlang_b_derivative,
                     erlang_b_expr, erlang_b_float, erlang_b_load, log_erlang_b)
from symloss.erlang import erlang_b_recursion

DATA = pathlib.Path(__file__).parents[1] / "data" / "erlang_b_reference.csv"


def _reference_rows():
    with open(DATA) as fh:
        rows = [r for r in csv.DictReader(line for line in fh if not line.startswith("#"))]
    assert len(rows) >= 60
    return rows


REF = _reference_rows()


def _rel(u, v):
    return abs(u - v) / abs(v)


@pytest.mark.parametrize("row", REF, ids=lambda r: f"C={r['C']},a={r['a']}")
def test_erlang_b_matches_independent_reference(row):
    C, a = Fraction(row["C"]), Fraction(row["a"])
    C = int(C) if C.denominator == 1 else C
    with mpmath.workdps(70):
        ref = mpmath.mpf(row["E"])
    for dps in (15, 50):
        v = erlang_b(C, a, dps=dps)
        with mpmath.workdps(70):
            assert _rel(v, ref) <= mpmath.mpf(10) ** (-dps), (dps, v, ref)
    # the ball contains the reference
    assert erlang_b_ball(C, a, prec=200).overlaps(arb(row["E"]))


@pytest.mark.parametrize("row", REF, ids=lambda r: f"C={r['C']},a={r['a']}")
def test_float_and_log_forms_match_reference(row):
    C, a = Fraction(row["C"]), Fraction(row["a"])
    Cf, af = float(C), float(a)
    # evaluate the reference at the float inputs exactly (they may differ from p/q by rounding)
    ref = erlang_b(Cf, af, dps=30)
    lg = log_erlang_b(Cf, af)
    with mpmath.workdps(40):
        lref = mpmath.log(ref)
        assert abs(lg - lref) <= 1e-13 * max(1.0, abs(float(lref))), (lg, lref)
    v = erlang_b_float(Cf, af)
    if ref > mpmath.mpf("1e-100"):
        assert _rel(mpmath.mpf(v), ref) <= 1e-13
    elif ref > mpmath.mpf("1e-300"):
        assert _rel(mpmath.mpf(v), ref) <= 8 * 2.2e-16 * (1 + abs(float(lref)))
    elif ref < mpmath.mpf("1e-324"):
        assert v == 0.0


def test_huge_example_from_the_issue():
    v = erlang_b(10**6, 9 * 10**5, dps=30)
    assert mpmath.nstr(v, 6) == "3.61859e-2332"
    assert erlang_b_float(10**6, 9e5) == 0.0  # true value is below the float range
    assert log_erlang_b(10**6, 9e5) == pytest.approx(float(mpmath.log(v)), rel=1e-14)


def test_small_exact_values():
    with mpmath.workdps(40):
        assert _rel(erlang_b(2, 1, dps=20), mpmath.mpf(1) / 5) < mpmath.mpf(10) ** -20
    assert erlang_b(0, 3.5) == 1
    assert erlang_b(1, Fraction(1, 3), dps=25) == mpmath.mpf("0.25")
    # mpf inputs are exact binary values
    with mpmath.workdps(40):
        assert _rel(erlang_b(mpmath.mpf(1), mpmath.mpf("0.5")), mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -30


def test_result_is_rounded_to_dps_and_precision_restored():
    before = mpmath.mp.prec
    v = erlang_b(30, 25, dps=40)
    assert mpmath.mp.prec == before
    with mpmath.workdps(60):
        assert _rel(v, erlang_b_recursion(30, 25, dps=50)) < mpmath.mpf(10) ** -40
    with mpmath.workdps(20):
        assert mpmath.mp.dps == 20
        erlang_b(10, 3, dps=80)
        assert mpmath.mp.dps == 20


def test_continuous_extension_integral_form():
    for C, a in [(0.5, 0.2), (2.5, 7.0), (17.3, 17.3), (100.25, 50.0)]:
        v = erlang_b(C, a, dps=25)
        with mpmath.workdps(40):
            Cm, am = mpmath.mpf(C), mpmath.mpf(a)
            q = am * mpmath.quad(lambda t: mpmath.exp(-am * t) * (1 + t) ** Cm, [0, 1, mpmath.inf])
            assert _rel(v, 1 / q) < mpmath.mpf(10) ** -24


def test_ball_is_rigorous_and_tightens():
    b1 = erlang_b_ball(1000, 900, prec=64)
    b2 = erlang_b_ball(1000, 900, prec=512)
    ref = erlang_b_recursion(1000, 900, dps=120)
    with mpmath.workdps(150):
        assert b2.contains(arb(mpmath.nstr(ref, 140)).mid()) or b2.overlaps(arb(mpmath.nstr(ref, 140)))
    assert b2.rad() < b1.rad()
    assert b1.overlaps(b2)


# ---------------------------------------------------------------- properties (hypothesis)

Cs = st.floats(min_value=0.0, max_value=2000.0, allow_nan=False)
As = st.floats(min_value=1e-3, max_value=5e4, allow_nan=False)


@given(C=Cs, a=As, f=st.floats(min_value=1.001, max_value=3.0))
def test_increasing_in_a(C, a, f):
    if C == 0:
        return
    lo, hi = log_erlang_b(C, a), log_erlang_b(C, a * f)
    assert lo <= hi
    if C >= 1e-3:
        assert lo < hi


@given(C=st.floats(min_value=0.0, max_value=2000.0), a=As, dc=st.floats(min_value=0.5, max_value=50.0))
def test_decreasing_in_C(C, a, dc):
    assert log_erlang_b(C + dc, a) < log_erlang_b(C, a) or (C == 0 and log_erlang_b(C + dc, a) < 0)


@given(C=Cs, a=As)
def test_inside_unit_interval_never_nan(C, a):
    v = erlang_b_float(C, a)
    assert 0.0 <= v <= 1.0 and not math.isnan(v)
    if C > 0:
        assert v < 1.0 or a / max(C, 1e-300) > 1e15


@given(C=st.integers(min_value=0, max_value=300), a=st.fractions(min_value=Fraction(1, 100), max_value=1000))
def test_continuous_form_equals_recursion_at_integers(C, a):
    if a <= 0:
        return
    assert _rel(erlang_b(C, a, dps=30), erlang_b_recursion(C, a, dps=40)) <= mpmath.mpf(10) ** -30


@given(C=st.floats(min_value=0.0, max_value=1000.0), a=st.floats(min_value=1e-2, max_value=1e4))
def test_float_forms_agree_with_mpmath(C, a):
    ref = erlang_b(C, a, dps=25)
    with mpmath.workdps(30):
        lref = mpmath.log(ref)
    assert abs(log_erlang_b(C, a) - float(lref)) <= 1e-13 * max(1.0, abs(float(lref)))
    if ref > mpmath.mpf("1e-100"):
        assert float(_rel(mpmath.mpf(erlang_b_float(C, a)), ref)) <= 1e-13


def test_float_broadcasting():
    C = np.arange(0, 5).reshape(5, 1)
    a = np.array([0.5, 1.0, 2.0])
    v = erlang_b_float(C, a)
    assert v.shape == (5, 3)
    for i in range(5):
        for j in range(3):
            assert v[i, j] == pytest.approx(float(erlang_b(int(C[i, 0]), a[j])), rel=1e-14)


def test_float_subnormal_range():
    # a value in the subnormal range is returned, not flushed to zero
    C, a = 200.0, 0.2  # E ~ 1e-515? pick one in the subnormal band instead
    for C, a in [(150.0, 0.9), (160.0, 1.5)]:
        ref = erlang_b(C, a, dps=20)
        if mpmath.mpf("1e-320") < ref < mpmath.mpf("2.2e-308"):
            v = erlang_b_float(C, a)
            assert 0 < v < 2.3e-308
            assert abs(v - float(ref)) <= 2 * 5e-324 + 1e-10 * float(ref)


# ---------------------------------------------------------------- derivative, capacity, load

def test_derivative_wrt_a_closed_form_and_finite_difference():
    assert erlang_b_derivative(1, 1, dps=20) == mpmath.mpf("0.25")
    d = erlang_b_derivative(50, 40, dps=30)
    def rec(x):  # plain recursion at the working precision (no rounding), for numerical diff
        e = mpmath.mpf(1)
        for n in range(1, 51):
            e = x * e / (n + x * e)
        return e
    with mpmath.workdps(60):
        fd = mpmath.diff(rec, 40)
        assert _rel(d, fd) < mpmath.mpf(10) ** -28
    # cancellation regime a >> C
    d = erlang_b_derivative(3, 10**8, dps=20)
    a = Fraction(10**8)
    P, S = a**3 / 6, 1 + a + a**2 / 2 + a**3 / 6
    exact = (a**2 / 2 * S - P * (1 + a + a**2 / 2)) / S**2   # quotient rule, exact rationals
    with mpmath.workdps(40):
        assert _rel(d, mpmath.mpf(exact.numerator) / exact.denominator) < mpmath.mpf(10) ** -19


def test_derivative_wrt_C():
    d = erlang_b_derivative(3, 2.5, wrt="C", dps=25)
    with mpmath.workdps(50):
        ref = mpmath.diff(lambda c: mpmath.mpf(2.5) ** c * mpmath.exp(-2.5) / mpmath.gammainc(c + 1, 2.5), 3)
    assert _rel(d, ref) < mpmath.mpf(10) ** -24
    assert d < 0  # decreasing in C


def test_capacity_examples():
    assert erlang_b_capacity(1000, 1e-3) == 1072
    c = erlang_b_capacity(10**6, 1e-3)
    assert erlang_b(c, 10**6) <= mpmath.mpf(1e-3) < erlang_b(c - 1, 10**6)
    assert erlang_b_capacity(0.01, 0.5) == 1
    assert erlang_b_capacity(5, 1e-300) > 100


@given(a=st.floats(min_value=0.01, max_value=2e4), eps=st.floats(min_value=1e-12, max_value=0.9))
def test_capacity_property(a, eps):
    c = erlang_b_capacity(a, eps)
    assert erlang_b(c, a, dps=20) <= eps
    assert c == 0 or erlang_b(c - 1, a, dps=20) > eps


def test_load_inverts_erlang_b():
    a = erlang_b_load(10, 0.01, dps=40)
    assert _rel(erlang_b(10, a, dps=45), mpmath.mpf(0.01)) < mpmath.mpf(10) ** -38
    assert mpmath.nstr(erlang_b_load(10, 0.01, dps=20), 10) == "4.461176858"
    a = erlang_b_load(2.5, Fraction(1, 3), dps=30)
    with mpmath.workdps(50):
        assert abs(erlang_b(2.5, a, dps=45) - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -29


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("C,a,exc,words", [
    (-1, 1.0, ValueError, "C"), (1, 0, ValueError, "a"), (1, -2.0, ValueError, "a"),
    (float("nan"), 1.0, ValueError, "C"), (1, float("inf"), ValueError, "a"),
    ("3", 1.0, TypeError, "C"), (2, None, TypeError, "a"), (True, 1.0, TypeError, "C"),
])
def test_bad_input(C, a, exc, words):
    with pytest.raises(exc, match=words):
        erlang_b(C, a)
    with pytest.raises((ValueError, TypeError), match=words):
        erlang_b_float(C, a)


def test_bad_input_vectorised_names_element():
    with pytest.raises(ValueError, match=r"a must be .*index 2"):
        erlang_b_float([1, 2, 3], [1.0, 2.0, -1.0])
    with pytest.raises(ValueError, match=r"C must be .*index 1"):
        log_erlang_b([1, float("nan")], 1.0)


def test_bad_eps_and_dps():
    for eps in (0, 1, 1.5, -0.1, float("nan")):
        with pytest.raises(ValueError, match="eps"):
            erlang_b_capacity(10, eps)
        with pytest.raises(ValueError, match="eps"):
            erlang_b_load(10, eps)
    with pytest.raises(ValueError, match="dps"):
        erlang_b(1, 1, dps=2)
    with pytest.raises(TypeError, match="dps"):
        erlang_b(1, 1, dps=10.5)
    with pytest.raises(ValueError, match="wrt"):
        erlang_b_derivative(1, 1, wrt="x")


# ---------------------------------------------------------------- symbolic identities

def test_expr_values():
    a = sp.Symbol("a", positive=True)
    assert erlang_b_expr(2, 1) == sp.Rational(1, 5)
    assert sp.simplify(erlang_b_expr(1, a) - a / (1 + a)) == 0
    Cs = sp.Symbol("C", integer=True, nonnegative=True)
    assert erlang_b_expr(Cs, a).has(sp.Sum)
    with pytest.raises(ValueError):
        erlang_b_expr(-1, a)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["recursion", "derivative", "gamma"])
def test_identities_proved_symbolically(kind):
    from proofs_check.claims import erlang as cl
    cert = cl._certify(kind)
    assert cert.status.value == "PROVED"
    assert cl._recheck_factory(kind)(cert.data).value == "PROVED"


def test_cli_erlang(capsys):
    from symloss.cli import main
    assert main(["erlang", "2", "1", "--dps", "10"]) == 0
    assert capsys.readouterr().out.strip() == "0.2"
    assert main(["erlang", "2", "-1"]) == 2
    assert "a must be" in capsys.readouterr().err


def test_lazy_public_api():
    for name in ["erlang_b", "erlang_b_ball", "erlang_b_float", "log_erlang_b", "erlang_b_expr",
                 "erlang_b_derivative", "erlang_b_capacity", "erlang_b_load"]:
        assert callable(getattr(symloss, name))
    with pytest.raises(AttributeError):
        symloss.no_such_name
