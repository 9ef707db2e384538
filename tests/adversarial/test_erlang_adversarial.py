"""Erlang-B entry points under valid, extreme and invalid input (issue 17).

Values are checked against independent references: the exact rational recursion (python-flint fmpq), mpmath
at high precision, and tests/data/erlang_b_float_reference.csv (arb / integral form over the whole float
range, see tests/data/make_erlang_float_reference.py).
"""
import csv
import math
import pathlib
import time
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from adversarial_strategies import (
    INTEGER_KINDS,
    REAL_KINDS,
    as_type,
    covers,
    invalid_type_values,
    isolated_outcome,
    string_values,
)
from flint import arb, fmpq
from hypothesis import given, settings, strategies as st

import symloss
from symloss import (
    PrecisionError,
    erlang_b,
    erlang_b_ball,
    erlang_b_capacity,
    erlang_b_derivative,
    erlang_b_expr,
    erlang_b_float,
    erlang_b_load,
    log_erlang_b,
)
from symloss.core.validation import BudgetError, TimeLimitExceeded
from symloss.erlang import erlang_b_recursion

pytestmark = pytest.mark.timeout(120)

REF = pathlib.Path(__file__).parents[1] / "data" / "erlang_b_float_reference.csv"


def exact_erlang_b(C: int, a: Fraction) -> Fraction:
    """Independent reference: the recursion in exact rationals (python-flint fmpq)."""
    q = fmpq(a.numerator, a.denominator)
    e = fmpq(1)
    for n in range(1, C + 1):
        e = q * e / (n + q * e)
    return Fraction(int(e.p), int(e.q))


def log_fraction(f: Fraction) -> float:
    with mpmath.workdps(40):
        return float(mpmath.log(mpmath.mpf(f.numerator)) - mpmath.log(mpmath.mpf(f.denominator)))


# --------------------------------------------------------------------------------------------------
# the float kernel: correct over its whole documented range
# --------------------------------------------------------------------------------------------------

def _reference_rows():
    with open(REF) as fh:
        return [r for r in csv.DictReader(line for line in fh if not line.startswith("#"))]


@covers("log_erlang_b", "erlang_b_float")
def test_float_kernel_over_the_whole_range_against_the_reference_file():
    rows = _reference_rows()
    assert len(rows) > 1000
    C = np.array([float(r["C"]) for r in rows])
    a = np.array([float(r["a"]) for r in rows])
    ref = np.array([float(r["log_E"]) for r in rows])
    assert C.max() >= 1e299 and a.min() < 1e-300 and a.max() > 1e307
    got = log_erlang_b(C, a)
    err = np.abs(got - ref) / np.maximum(1.0, np.abs(ref))
    worst = int(np.argmax(err))
    assert err.max() < 1e-14, (C[worst], a[worst], got[worst], ref[worst])
    assert np.all(np.isfinite(got)) and np.all(got <= 0)
    # the scalar path gives the same numbers as the vectorised one
    for i in range(0, len(rows), 7):
        assert log_erlang_b(float(C[i]), float(a[i])) == got[i]
    E = erlang_b_float(C, a)
    assert np.all((E >= 0) & (E <= 1))
    big = ref > -700
    assert np.all(np.abs(E[big] - np.exp(ref[big])) <= 1e-14 * (1 + np.abs(ref[big])) * np.exp(ref[big]) + 1e-300)


@covers("erlang_b_float", "log_erlang_b")
@given(st.integers(0, 400), st.fractions(Fraction(1, 64), Fraction(2000), max_denominator=64))
def test_float_forms_against_exact_rational_recursion(C, a):
    ref = exact_erlang_b(C, a)
    lg = log_erlang_b(C, a)
    assert abs(lg - log_fraction(ref)) <= 2e-14 * max(1.0, abs(log_fraction(ref)))
    e = erlang_b_float(C, float(a))
    f = float(ref)
    assert abs(e - f) <= 2e-14 * (1 + abs(log_fraction(ref))) * f + 1e-320


def test_examples_of_the_issue():
    # erlang_b_float(10**9, 10**9 + 10) returned 1.0; true 2.52e-5
    v = erlang_b_float(10 ** 9, 10 ** 9 + 10)
    ref = float(erlang_b(10 ** 9, 10 ** 9 + 10, dps=20))
    assert abs(v - ref) < 1e-13 * ref and abs(ref - 2.5237267140245e-5) < 1e-15
    # log_erlang_b(1e16, 1e16) was off by 24 %
    ref = float(mpmath.log(erlang_b(10 ** 16, 10 ** 16, dps=20)))
    assert abs(log_erlang_b(1e16, 1e16) - ref) < 1e-14 * abs(ref)
    # complex input was cast to real with a warning
    with pytest.raises(TypeError, match="complex"):
        erlang_b_float(np.array([2 + 5j]), 1)
    # the derivative in C was wrong near C = 0 (to_arb dropped the sign of -h)
    with mpmath.workdps(30):
        expected = -mpmath.e * mpmath.e1(1)
    assert abs(erlang_b_derivative(0, 1, wrt="C", dps=20) - expected) < mpmath.mpf(10) ** -19


@pytest.mark.parametrize("C,a", [(1e300, 1e300), (1e300, 5e-324), (1e300, 1.7e308), (5e-324, 1.0),
                                 (1e-300, 1.7e308), (0.5, 5e-324), (3.0, 5e-324), (2.0 ** 53, 2.0 ** 53),
                                 (1e300, 1e300 * (1 + 1e-14)), (1e150, 1e150 + 3e75)])
def test_extremes_never_nan_inf_or_positive(C, a):
    t0 = time.perf_counter()
    lg = log_erlang_b(C, a)
    assert math.isfinite(lg) and lg <= 0
    e = erlang_b_float(C, a)
    assert 0 <= e <= 1 and not math.isnan(e)
    assert time.perf_counter() - t0 < 1.0


@covers("erlang_b_float", "log_erlang_b")
def test_float_range_limits_are_explicit():
    with pytest.raises(ValueError, match=r"C must be a real number in \[0, 1e\+300\]"):
        erlang_b_float(2e300, 1.0)
    with pytest.raises(ValueError, match=r"C must be finite real numbers in \[0, 1e\+300\]; got .* at index 1"):
        log_erlang_b([1.0, 2e300], 1.0)
    with pytest.raises(ValueError, match="a=.*beyond the float64 range"):
        erlang_b_float(5, 10 ** 400)
    with pytest.raises(ValueError, match="a=.*below the smallest float64"):
        erlang_b_float(5, Fraction(1, 10 ** 400))
    with pytest.raises(ValueError, match="C"):
        erlang_b_float(-1, 1.0)
    with pytest.raises(ValueError, match="a"):
        erlang_b_float(1, 0.0)


@pytest.mark.parametrize("bad", invalid_type_values() + string_values(), ids=lambda b: type(b).__name__ + repr(b)[:12])
def test_float_forms_refuse_bad_types(bad):
    for f in (erlang_b_float, log_erlang_b):
        for args, name in (((bad, 1.0), "C"), ((1.0, bad), "a")):
            if isinstance(bad, (list, tuple, set, dict)) or (isinstance(bad, np.ndarray) and bad.dtype != object):
                if isinstance(bad, (list, tuple, np.ndarray)) and not isinstance(bad, set):
                    continue    # array-likes of reals are valid (broadcasting)
            with pytest.raises(TypeError, match=name):
                f(*args)


@pytest.mark.parametrize("kind", REAL_KINDS + INTEGER_KINDS)
def test_every_numeric_type_gives_the_value_of_its_exact_value(kind):
    obj, exact = as_type(Fraction(5) if kind in INTEGER_KINDS else Fraction(5, 2), kind)
    ref_float = float(erlang_b(exact, 3, dps=20))
    assert abs(erlang_b_float(obj, 3.0) - ref_float) < 1e-14
    assert abs(erlang_b_float(3, obj) - float(erlang_b(3, exact, dps=20))) < 1e-14
    assert abs(erlang_b(obj, 3, dps=25) - erlang_b(exact, 3, dps=25)) == 0


def test_arrays_broadcast_empty_and_mixed():
    out = erlang_b_float(np.array([[1], [2]]), np.array([1.0, 2.0, 3.0]))
    assert out.shape == (2, 3)
    assert erlang_b_float([], 1.0).shape == (0,)
    assert log_erlang_b(np.zeros((0, 4)), 1.0).shape == (0, 4)
    mixed = erlang_b_float([1, Fraction(2), np.int8(3), mpmath.mpf(4)], [1.0, 2.0, 3.0, np.float32(4.0)])
    assert np.allclose(mixed, [erlang_b_float(k, float(k)) for k in (1, 2, 3, 4)], rtol=1e-14, atol=0)
    with pytest.raises(ValueError, match="broadcast"):
        erlang_b_float([1, 2], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="C"):
        erlang_b_float([1, True], 1.0)
    a = np.array([1.0, 2.0])
    erlang_b_float(3, a)
    assert a.tolist() == [1.0, 2.0]


def test_longdouble_input_is_rounded_once_not_silently_truncated():
    ld = np.longdouble(1) + np.longdouble(2) ** -60        # not a float64 value
    assert erlang_b_float(ld, 2.0) == erlang_b_float(1.0, 2.0)   # rounded to nearest, documented
    assert erlang_b(ld, 2, dps=30) != erlang_b(1, 2, dps=30)     # the exact path keeps every bit


# --------------------------------------------------------------------------------------------------
# arbitrary precision
# --------------------------------------------------------------------------------------------------

@covers("erlang_b", "erlang_b_ball")
@given(st.integers(0, 300), st.fractions(Fraction(1, 30), Fraction(500), max_denominator=30), st.integers(5, 60))
@settings(max_examples=40)
def test_erlang_b_against_exact_rational(C, a, dps):
    ref = exact_erlang_b(C, a)
    v = erlang_b(C, a, dps=dps)
    with mpmath.workdps(dps + 10):
        r = mpmath.mpf(ref.numerator) / ref.denominator
        assert abs(v - r) <= mpmath.mpf(10) ** (1 - dps) * r
    b = erlang_b_ball(C, a, prec=64)
    with mpmath.workdps(40):
        r = mpmath.mpf(ref.numerator) / ref.denominator      # at 40 digits (above: only dps + 10)
        assert abs(mpmath.mpf(b.mid().str(40, radius=False)) - r) <= mpmath.mpf(b.rad().str(5, radius=False)) * 1.01


@covers("erlang_b")
@pytest.mark.parametrize("C,a", [(10 ** 19, 10 ** 19), (10 ** 25, 2 * 10 ** 25), (1e300, 1e300), (10 ** 20, 10 ** 20)])
def test_erlang_b_refuses_quickly_beyond_the_certifiable_range(C, a):
    t0 = time.perf_counter()
    with pytest.raises(PrecisionError, match="does not tighten"):
        erlang_b(C, a, dps=15)
    assert time.perf_counter() - t0 < 10
    assert math.isfinite(log_erlang_b(float(C), float(a)))     # the float form still answers


@covers("erlang_b")
def test_erlang_b_certifies_up_to_its_limit():
    # C = a = 1e18 is still inside python-flint's reach: certified and equal to the float form
    v = erlang_b(10 ** 18, 10 ** 18, dps=15)
    assert abs(v / mpmath.exp(log_erlang_b(1e18, 1e18)) - 1) < 1e-12


def test_erlang_b_inputs_and_budgets():
    with pytest.raises(ValueError, match="C must be a point value"):
        erlang_b(arb(3, 0.1), 2)
    assert erlang_b_ball(arb(3, 1e-10), 2).rad() > 0              # balls go to the ball function
    with pytest.raises(ValueError, match="dps"):
        erlang_b(3, 2, dps=4)
    with pytest.raises(TypeError, match="dps"):
        erlang_b(3, 2, dps=30.0)
    with pytest.raises(ValueError, match="prec"):
        erlang_b_ball(3, 2, prec=8)
    with pytest.raises(TypeError, match="prec"):
        erlang_b_ball(3, 2, prec="64")
    with pytest.raises(TimeLimitExceeded, match="max_seconds"):
        erlang_b(10 ** 7, 10 ** 7, dps=100000, max_seconds=0.01)
    assert erlang_b(5, mpmath.mpf("1e-100000"), dps=10) > 0        # far below the float range, exact
    for bad in invalid_type_values():
        with pytest.raises(TypeError):
            erlang_b(bad, 1)


# --------------------------------------------------------------------------------------------------
# derivative, capacity, load, expr, recursion
# --------------------------------------------------------------------------------------------------

@covers("erlang_b_derivative")
@given(st.integers(0, 50), st.fractions(Fraction(1, 10), Fraction(60), max_denominator=10))
@settings(max_examples=25)
def test_derivative_wrt_a_is_the_closed_form(C, a):
    ref = exact_erlang_b(C, a)
    closed = ref * (Fraction(C) / a - 1 + ref)
    d = erlang_b_derivative(C, a, dps=20)
    with mpmath.workdps(40):
        r = mpmath.mpf(closed.numerator) / closed.denominator
        assert abs(d - r) <= mpmath.mpf(10) ** -19 * abs(r) + mpmath.mpf(10) ** -300


def test_derivative_bad_input():
    with pytest.raises(ValueError, match="wrt"):
        erlang_b_derivative(2, 1, wrt="b")
    with pytest.raises(TypeError, match="wrt"):
        erlang_b_derivative(2, 1, wrt=1)
    with pytest.raises(ValueError, match="C"):
        erlang_b_derivative(-1, 1)


@covers("erlang_b_capacity")
@given(st.fractions(Fraction(1, 8), Fraction(3000), max_denominator=8),
       st.sampled_from([Fraction(1, 2), Fraction(1, 10), Fraction(1, 1000), Fraction(1, 10 ** 9), 1e-200]))
@settings(max_examples=25)
def test_capacity_is_the_smallest_sufficient_C(a, eps):
    C = erlang_b_capacity(a, eps)
    e = Fraction(eps)
    assert exact_erlang_b(C, a) <= e
    assert C == 0 or exact_erlang_b(C - 1, a) > e


def test_capacity_ties_extremes_and_bad_input():
    t0 = time.perf_counter()
    assert erlang_b_capacity(1, Fraction(1, 2)) == 1            # E(1, 1) = 1/2 exactly
    assert erlang_b_capacity(2, 0.4) == 2                        # E(2, 2) = 2/5: 0.4 is below 2/5 in binary
    assert erlang_b_capacity(1e-300, 0.5) == 1
    assert erlang_b_capacity(10 ** 12, 1e-3) == 999000000999
    assert time.perf_counter() - t0 < 30
    for eps in (0, 1, -0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="eps"):
            erlang_b_capacity(10, eps)
    with pytest.raises(TypeError, match="eps"):
        erlang_b_capacity(10, "0.1")
    with pytest.raises(ValueError, match="a"):
        erlang_b_capacity(0, 0.1)


@covers("erlang_b_load")
@given(st.integers(1, 200), st.sampled_from([Fraction(1, 2), Fraction(1, 100), Fraction(1, 10 ** 6), 1e-100, 0.9]))
@settings(max_examples=20)
def test_load_inverts_erlang_b(C, eps):
    a = erlang_b_load(C, eps, dps=20)
    with mpmath.workdps(40):
        e = erlang_b(C, a, dps=30)
        assert abs(e - mpmath.mpf(Fraction(eps).numerator) / Fraction(eps).denominator) <= \
            mpmath.mpf(10) ** -17 * e * max(1, C)


def test_load_range_is_refused_at_once():
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="below 1e-300"):
        erlang_b_load(1e-300, 0.5)
    with pytest.raises(ValueError, match="C must be > 0"):
        erlang_b_load(0, 0.5)
    with pytest.raises(ValueError, match=r"C must be a real number in \(0, 1e\+300\]"):
        erlang_b_load(10 ** 301, 0.5)
    assert time.perf_counter() - t0 < 2


@covers("erlang_b_expr")
def test_expr_exact_and_budgeted():
    a = sp.Symbol("a", positive=True)
    assert erlang_b_expr(2, 1) == sp.Rational(1, 5)
    assert erlang_b_expr(np.int64(2), Fraction(1, 2)) == exact_erlang_b(2, Fraction(1, 2))
    assert erlang_b_expr(1, 0.1) == sp.Rational(*(0.1).as_integer_ratio()) / (1 + sp.Rational(*(0.1).as_integer_ratio()))
    assert erlang_b_expr(sp.Symbol("C", integer=True), a).has(sp.Sum)
    t0 = time.perf_counter()
    with pytest.raises(BudgetError, match="max_terms"):
        erlang_b_expr(10 ** 6, a)
    assert time.perf_counter() - t0 < 1
    with pytest.raises(TypeError, match="a"):
        erlang_b_expr(2, "x + 1")      # strings are not parsed (sympify would evaluate them)
    with pytest.raises(ValueError, match="a must be positive"):
        erlang_b_expr(2, -1)
    with pytest.raises(TypeError, match="C"):
        erlang_b_expr(True, a)
    with pytest.raises(ValueError, match="integer"):
        erlang_b_expr(sp.Symbol("C"), a)


def test_recursion_budget_and_types():
    assert erlang_b_recursion(np.int16(3), Fraction(1), dps=15) == erlang_b(3, 1, dps=15)
    with pytest.raises(BudgetError, match="max_terms"):
        erlang_b_recursion(10 ** 9, 1.0)
    with pytest.raises(ValueError, match="C"):
        erlang_b_recursion(2.5, 1.0)


@pytest.mark.timeout(60)
def test_no_crash_in_a_fresh_process():
    out = isolated_outcome("symloss.erlang_b_float(np.array([1e300, 5e-324, 1e150]), np.array([1.7e308, 1e300, 1e150]))")
    assert out.startswith("ok")
    out = isolated_outcome("symloss.erlang_b(10**30, 10**30)")
    assert out.startswith("raised PrecisionError")


def test_no_warnings_for_valid_input():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        erlang_b_float(np.array([0.0, 1e-300, 1e300]), np.array([5e-324, 1.0, 1e300]))
        log_erlang_b(1e5, 5e-324)


def test_public_names_lazy():
    assert symloss.erlang_b_float is erlang_b_float
