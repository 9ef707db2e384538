"""The last hand-written conversions folded onto the input layer (issue 17): the exact loads of
``exact_finite_n(method="exact")`` and ``TwoQueueJSQ(method="exact")``, the float load of the finite-N
solvers, and the one output-path check behind the API and the CLI."""
import decimal
import os
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq, fmpz

from symloss import TwoQueueJSQ, exact_finite_n
from symloss.core.validation import check_output_path
from symloss.finite_n.chain import as_exact_rho
from symloss.finite_n.common import _to_float
from symloss.twoqueue.jsq import _to_fmpq


@pytest.mark.parametrize("rho, q", [
    (2, Fraction(2)), (Fraction(3, 2), Fraction(3, 2)), ("1.3", Fraction(13, 10)), (" 7/4 ", Fraction(7, 4)),
    (decimal.Decimal("1.3"), Fraction(13, 10)), (fmpq(5, 3), Fraction(5, 3)), (fmpz(4), Fraction(4)),
    (np.int64(3), Fraction(3)),
])
def test_exact_rho_accepts_the_exact_types(rho, q):
    f, q2 = as_exact_rho(rho)
    assert q2 == q and f == fmpq(q.numerator, q.denominator)


@pytest.mark.parametrize("rho", [True, 1.5, np.float64(1.5), np.longdouble("1.1"), 1 + 2j, [1]])
def test_exact_rho_refuses_binary_and_other_types(rho):
    with pytest.raises(TypeError, match="rho"):
        as_exact_rho(rho)


@pytest.mark.parametrize("rho", ["abc", "nan", "-1", 0, Fraction(-1, 2)])
def test_exact_rho_refuses_bad_values(rho):
    with pytest.raises(ValueError, match="rho"):
        as_exact_rho(rho)


def test_exact_finite_n_with_a_decimal_load_equals_the_fraction():
    a = exact_finite_n("random", 3, 2, Fraction(3, 2), method="exact").blocking
    b = exact_finite_n("random", 3, 2, decimal.Decimal("1.5"), method="exact").blocking
    assert a == b


def test_float_load_is_rounded_once():
    x = np.longdouble("1.1")                       # not the double 1.1: rounded once, to the nearest double
    assert _to_float(x) == float(Fraction(*x.as_integer_ratio()))
    assert _to_float(Fraction(1, 3)) == 1 / 3
    with pytest.raises(TypeError, match="rho"):
        _to_float(True)


@pytest.mark.parametrize("x, q", [(3, fmpq(3)), (Fraction(3, 2), fmpq(3, 2)), (fmpq(3, 2), fmpq(3, 2)),
                                  (np.int64(2), fmpq(2)), (2.0, fmpq(2))])
def test_twoqueue_exact_load(x, q):
    assert _to_fmpq(x) == q


@pytest.mark.parametrize("x", [True, 1.5, np.float64(1.5), "1.5"])
def test_twoqueue_exact_load_refused(x):
    with pytest.raises(TypeError, match="rational rho"):
        _to_fmpq(x)


def test_twoqueue_flint_loads_through_the_layer():
    a = TwoQueueJSQ(3, fmpq(3, 2)).stationary_distribution(method="exact")
    b = TwoQueueJSQ(3, Fraction(3, 2)).stationary_distribution(method="exact")
    assert a.p == b.p
    assert TwoQueueJSQ(3, fmpz(2)).rho == 2
    with pytest.raises(TypeError, match="rho"):
        TwoQueueJSQ(3, True)


def test_check_output_path(tmp_path):
    assert check_output_path(tmp_path / "x.json", "out") == str(tmp_path / "x.json")
    with pytest.raises(IsADirectoryError, match="out"):
        check_output_path(tmp_path, "out")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        check_output_path(tmp_path / "missing" / "x.json", "out")
    with pytest.raises(ValueError, match="empty"):
        check_output_path("", "out")
    with pytest.raises(TypeError, match="out"):
        check_output_path(3, "out")
    if os.geteuid() != 0:                          # root may write anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        with pytest.raises(PermissionError):
            check_output_path(ro / "x.json", "out")
