"""The one input layer (symloss.core.validation, symloss.core.precision): every accepted type converted
exactly, everything else refused with an error naming the argument, before any work."""
import decimal
import math
import time
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from adversarial_strategies import (
    INTEGER_KINDS,
    NONFINITE,
    REAL_KINDS,
    as_type,
    invalid_type_values,
    typed_ints,
    typed_reals,
)
from flint import arb, fmpq, fmpz
from hypothesis import given, strategies as st

from symloss.core import validation as V
from symloss.core.precision import to_arb, to_mpf

pytestmark = pytest.mark.timeout(60)


def _frac_of_canonical(v):
    """Exact Fraction of a canonical value (int, float, Fraction, mpf), computed independently."""
    if isinstance(v, mpmath.mpf):
        s, man, exp, _ = v._mpf_
        f = Fraction(man) * Fraction(2) ** exp
        return -f if s else f
    return Fraction(v)


@given(typed_reals(-1e300, 1e300))
def test_exact_real_keeps_the_exact_value_of_every_accepted_type(pair):
    obj, exact = pair
    if exact is None:                   # float16/32 overflow to inf: refused
        with pytest.raises(ValueError, match="x"):
            V.exact_real(obj, "x")
        return
    v = V.exact_real(obj, "x")
    assert type(v) in (int, float, Fraction, mpmath.mpf)
    assert _frac_of_canonical(v) == exact


@given(typed_ints(-2 ** 70, 2 ** 70))
def test_integer_accepts_every_integer_type_exactly(pair):
    obj, exact = pair
    assert V.integer(obj, "n") == int(exact)
    assert type(V.check_int(obj, "n")) is int


@pytest.mark.parametrize("bad", invalid_type_values(), ids=lambda b: type(b).__name__)
def test_invalid_types_are_a_type_error_naming_the_argument(bad):
    for f in (lambda: V.exact_real(bad, "rho"), lambda: V.real_float(bad, "rho"), lambda: V.check_real(bad, "rho"),
              lambda: V.real(bad, "rho", lower=0)):
        with pytest.raises(TypeError, match="rho"):
            f()
    with pytest.raises(TypeError, match="n"):
        V.integer(bad, "n")


@pytest.mark.parametrize("bad", NONFINITE, ids=repr)
def test_non_finite_values_are_a_value_error(bad):
    with pytest.raises(ValueError, match="rho"):
        V.exact_real(bad, "rho")
    with pytest.raises(ValueError, match="rho"):
        V.check_real(bad, "rho")


def test_strings_only_where_documented_and_read_exactly():
    with pytest.raises(TypeError, match="lam"):
        V.exact_real("0.7", "lam")
    assert V.exact_real("0.7", "lam", allow_str=True) == Fraction(7, 10)
    assert V.exact_real(" 7/10 ", "lam", allow_str=True) == Fraction(7, 10)
    assert V.exact_real("-1.5e-3", "lam", allow_str=True) == Fraction(-3, 2000)
    assert V.exact_real("12", "lam", allow_str=True) == 12
    for bad in ("nan", "inf", "seven", "1/0", "", "1e", "0x10", "1,5"):
        with pytest.raises(ValueError, match="lam"):
            V.exact_real(bad, "lam", allow_str=True)


@pytest.mark.parametrize("text", ["1e99999999", "1e-99999999", "1" * 200_001, "1e" + "9" * 50])
def test_huge_decimal_exponents_are_refused_at_once(text):
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="x"):
        V.parse_decimal(text, "x")
    with pytest.raises(ValueError, match="x"):
        V.exact_real(decimal.Decimal(text) if len(text) < 20 else decimal.Decimal("1e999999999"), "x")
    assert time.perf_counter() - t0 < 1.0


def test_longdouble_and_decimal_are_not_rounded():
    ld = np.longdouble(1) / np.longdouble(3)
    v = V.exact_real(ld, "x")
    if np.finfo(np.longdouble).nmant > 52:          # extended precision: not a float64 value
        assert isinstance(v, Fraction) and v == Fraction(*ld.as_integer_ratio())
        assert float(v) != v
    assert V.exact_real(decimal.Decimal("0.1"), "x") == Fraction(1, 10)
    # the float path rounds once, to nearest
    assert V.real_float(Fraction(1, 3), "x") == 1 / 3
    assert V.real_float(decimal.Decimal("0.1"), "x") == 0.1
    assert V.real_float(10 ** 400 // 10 ** 300, "x") == 1e100


def test_float_path_refuses_overflow_and_underflow():
    with pytest.raises(ValueError, match="a=.*beyond the float64 range"):
        V.real_float(10 ** 400, "a")
    with pytest.raises(ValueError, match="a=.*below the smallest float64"):
        V.real_float(Fraction(1, 10 ** 400), "a")
    with pytest.raises(ValueError, match="a="):
        V.real_float(mpmath.mpf("1e-400"), "a")
    assert V.real_float(0, "a") == 0.0


def test_ranges_are_exact_and_the_message_names_value_and_limit():
    with pytest.raises(ValueError, match=r"p must be a real number in \(0, 1\), got 1"):
        V.check_probability(1, "p")
    with pytest.raises(ValueError, match="p"):
        V.check_probability(Fraction(10 ** 30 + 1, 10 ** 30), "p")     # exactly above 1
    assert V.check_probability(Fraction(10 ** 30 - 1, 10 ** 30), "p") < 1
    with mpmath.workdps(50):
        just_below = mpmath.mpf(1) - mpmath.mpf("1e-40")
    assert V.check_probability(just_below, "p") == just_below
    with pytest.raises(ValueError, match="x"):
        V.real(mpmath.mpf(2), "x", upper=Fraction(3, 2))
    assert V.real(mpmath.mpf(1), "x", upper=Fraction(3, 2)) == 1


def test_integer_refuses_non_integers_and_names_the_range():
    for bad in (2.5, Fraction(5, 2), mpmath.mpf(2.5), decimal.Decimal("2.5")):
        with pytest.raises(TypeError, match="n must be an integer"):
            V.check_int(bad, "n")
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, 10\], got 11"):
        V.check_int(11, "n", min_value=1, max_value=10)
    assert V.check_int(3.0, "n") == 3 and V.check_int(mpmath.mpf(2) ** 80, "n") == 2 ** 80


def test_balls_only_where_accepted():
    ball = arb(1, 0.5)
    with pytest.raises(ValueError, match="x must be a point value"):
        V.exact_real(ball, "x")
    assert V.exact_real(ball, "x", allow_ball=True) is ball
    assert V.exact_real(arb(0.25), "x") == mpmath.mpf(0.25)     # an exact ball is a point


def test_choice_and_boolean():
    assert V.check_choice("a", "m", ("a", "b")) == "a"
    with pytest.raises(ValueError, match="m must be one of"):
        V.check_choice("c", "m", ("a", "b"))
    for bad in (1, None, np.array(["a"]), ["a"]):
        with pytest.raises(TypeError, match="m must be one of"):
            V.check_choice(bad, "m", ("a", "b"))
    assert V.boolean(np.bool_(True), "flag") is True
    for bad in (1, 0, "True", None):
        with pytest.raises(TypeError, match="flag"):
            V.boolean(bad, "flag")


# --- arrays ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint32, np.float16, np.float32, np.float64, np.longdouble])
def test_real_arrays_of_every_real_dtype(dtype):
    a = np.arange(1, 7, dtype=dtype).reshape(2, 3)
    out = V.as_float_array(a, "x", lower=0)
    assert out.dtype == np.float64 and out.shape == (2, 3) and out.tolist() == [[1, 2, 3], [4, 5, 6]]


@pytest.mark.parametrize("bad,words", [
    (np.array([2 + 5j]), "complex"), (np.array([True]), "booleans"), (np.array(["1"]), "strings"),
    ([1, True], "boolean"), ([1, 2 + 0j], "complex"), ([1, "a"], "x"), ([[1, 2], [3]], "ragged|rectangular"),
    ([1, None], "x"), (np.array([1, None], dtype=object), "x"), ("12", "string"),
])
def test_bad_arrays_are_a_type_error_naming_the_argument(bad, words):
    with pytest.raises(TypeError, match=words):
        V.as_float_array(bad, "x")


def test_arrays_name_the_first_bad_element_and_mixed_types_are_exact():
    with pytest.raises(ValueError, match=r"x must be finite .* at index 2"):
        V.as_float_array([1.0, 2.0, float("nan")], "x")
    with pytest.raises(ValueError, match=r"at index \(1, 0\)"):
        V.as_float_array([[1, 2], [-1, 3]], "x", lower=0)
    mixed = [1, Fraction(1, 3), mpmath.mpf(2), decimal.Decimal("0.1"), np.float32(0.5), 10 ** 20, fmpq(1, 4)]
    out = V.as_float_array(mixed, "x")
    assert out.tolist() == [1.0, 1 / 3, 2.0, 0.1, 0.5, 1e20, 0.25]
    with pytest.raises(ValueError, match=r"x\[0\]"):
        V.as_float_array([10 ** 400], "x")
    assert V.as_float_array([], "x").shape == (0,)
    assert V.as_float_array(np.zeros((0, 3)), "x").shape == (0, 3)


def test_arrays_are_not_copied_nor_changed():
    a = np.linspace(0, 1, 5)
    before = a.copy()
    out = V.as_float_array(a, "x")
    assert np.shares_memory(out, a) and np.array_equal(a, before)


# --- budgets --------------------------------------------------------------------------------------

def test_budget_and_deadline():
    V.check_budget(10, 10, "max_x", what="w")
    with pytest.raises(V.BudgetError, match=r"about 11 things, more than the limit max_x=10 things"):
        V.check_budget(11, 10, "max_x", what="w", unit="things")
    assert issubclass(V.BudgetError, ValueError)
    d = V.Deadline(0.05, "loop")
    d.check()
    time.sleep(0.06)
    with pytest.raises(V.TimeLimitExceeded, match="max_seconds=0.05"):
        d.check()
    V.Deadline(None).check()
    for bad in (0, -1, float("nan"), "1"):
        with pytest.raises((TypeError, ValueError), match="max_seconds"):
            V.Deadline(bad)


# --- precision bridge -----------------------------------------------------------------------------

@given(st.floats(-1e300, 1e300, allow_nan=False), st.integers(60, 400))
def test_to_arb_is_exact_and_keeps_the_sign(x, bits):
    with mpmath.workprec(bits):
        m = mpmath.mpf(x) / 3
    b = to_arb(m)
    assert b.is_exact()
    s, man, exp, _ = m._mpf_
    f = Fraction(man) * Fraction(2) ** exp * (-1 if s else 1)
    bm, be = b.mid().man_exp()
    assert Fraction(int(bm)) * Fraction(2) ** int(be) == f
    assert to_arb(mpmath.mpf(-0.5)).mid() == arb(-0.5).mid()


@pytest.mark.parametrize("kind", REAL_KINDS + INTEGER_KINDS)
def test_to_arb_and_to_mpf_accept_every_type(kind):
    obj, exact = as_type(Fraction(-7, 4), kind) if kind not in ("fmpz", "sympy_Integer") and not kind.startswith(
        "np.u") else as_type(Fraction(7), kind)
    if kind.startswith("np.int") or kind == "int":
        obj, exact = as_type(Fraction(-7), kind)
    b = to_arb(obj)
    assert abs(float(b.mid()) - float(exact)) < 1e-12
    with mpmath.workdps(30):
        assert abs(to_mpf(obj) - mpmath.mpf(exact.numerator) / exact.denominator) < 1e-12
    assert math.copysign(1, float(b.mid())) == math.copysign(1, float(exact))


def test_sympy_numbers_exact_and_expressions_refused():
    assert V.exact_real(sp.Rational(7, 10), "x") == Fraction(7, 10)
    assert V.exact_real(sp.Integer(3), "x") == 3
    with pytest.raises(TypeError, match="x"):
        V.exact_real(sp.sqrt(2), "x")
    with pytest.raises(ValueError, match="x"):
        V.exact_real(sp.oo, "x")
    assert V.exact_real(fmpz(5) ** 30, "x") == 5 ** 30
