"""The end pieces of the generic certified comparison with the states rescaled by their valuations
(issue 23): x_k = t^e_k v_k, each equation divided by its least power of t, v regular at t = 0.

Independent references: the valuations of the tail models at rho -> 0 follow from their equations by
hand (rho u_(k-1)^d = k u_k to leading order: e_k = 1 + d e_(k-1), i.e. (d^k - 1)/(d - 1)), and the
leading coefficients from the same recursion (v_k = v_(k-1)^d / k, v_1 = 1) in exact rationals; the
Taylor-model shift is checked against point evaluation."""
import random
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from flint import arb, fmpq

from symloss import PowerOfD
from symloss.meanfield.generic_ends import (
    _end_model,
    _EndModel,
    _iroot,
    _PolySystem,
    _qroot,
    _solve_t0,
)
from symloss.meanfield.generic_search import _Generic
from symloss.meanfield.taylor import ExactTM

sys.path.insert(0, str(Path(__file__).parent))
from test_certified_user_models import hybrid  # noqa: E402


def _tail_valuations(C, d):
    e = [1]
    for _ in range(C - 1):
        e.append(1 + d * e[-1])
    return e


def _tail_leading(C, d):
    v = [Fraction(1)]
    for k in range(2, C + 1):
        v.append(v[-1] ** d / k)
    return v


@pytest.mark.parametrize("C,d", [(5, 2), (5, 3), (8, 2)])
def test_power_of_d_valuations_and_exact_leading_coefficients(C, d):
    m = PowerOfD(C, d)
    g = _Generic(m, m, 15, 128)
    em = _end_model(m, "zero", g.guess("a", Fraction(1, 8)), Fraction(1, 8))
    assert em.valuations == _tail_valuations(C, d)
    assert [Fraction(int(v.p), int(v.q)) for v in em.x0] == _tail_leading(C, d)
    assert em.scale == d * _tail_valuations(C, d)[-1]                # B = u_C^d
    # the rows divided by their least power: a regular point (checked exactly by the constructor)
    assert em.J0.det() != 0
    # the series of v to order 6: v_1 = u_1 / rho, whose exact series starts 1 - rho + ... (u_1 = rho (1 - u_1^d)
    # + u_2 ... to leading orders: 1 at t^0)
    xs = em.series(6)
    assert xs[0].coeffs()[0] == 1


def test_hybrid_valuations_and_blocking_scales():
    h = hybrid(5, 2, 2)
    g = _Generic(h, PowerOfD(5, 3), 15, 128)
    K, pre = g.end_order("zero", Fraction(1, 8), 12, 48)
    assert pre["a"][0].valuations == [1, 3, 7, 15, 31] and pre["a"][0].scale == 124
    assert pre["b"][0].valuations == [1, 4, 13, 40, 121] and pre["b"][0].scale == 363
    assert K == 12                                  # the leading powers differ: no extra terms


def test_wrong_valuations_or_limit_are_refused():
    m = PowerOfD(4, 2)
    e = _tail_valuations(4, 2)
    v0 = _tail_leading(4, 2)
    _EndModel(m, "zero", None, e=e, x0_exact=v0)                  # the right data: accepted
    with pytest.raises(ValueError, match="not rational|zero component|regular"):
        _EndModel(m, "zero", None, e=e[:-1] + [e[-1] - 1], x0_exact=v0)
    with pytest.raises(ValueError, match="not rational"):
        _EndModel(m, "zero", None, e=e, x0_exact=v0[:-1] + [v0[-1] * 2])
    with pytest.raises(ValueError, match="valuations must have 4 entries"):
        _PolySystem(m, "zero").rescaled([1, 2])


def test_exact_limit_by_propagation():
    m = PowerOfD(6, 3)
    ps = _PolySystem(m, "zero").rescaled(_tail_valuations(6, 3))
    v0 = _solve_t0(ps, [0.0] * 6)
    assert v0 == _tail_leading(6, 3)                               # 100-digit denominators, exact
    assert all(x == 0 for x in ps.value0([fmpq(v.numerator, v.denominator) for v in v0]))


def test_integer_and_rational_roots():
    rng = random.Random(3)
    for _ in range(200):
        a = rng.randint(1, 7)
        r = rng.randint(0, 10 ** rng.randint(1, 40))
        assert _iroot(r ** a, a) == r
        if r > 1 and a > 1:                                 # r^a + 1 is not an a-th power
            assert _iroot(r ** a + 1, a) is None
    assert _qroot(Fraction(-8, 27), 3) == Fraction(-2, 3)
    assert _qroot(Fraction(4, 9), 2) == Fraction(2, 3)
    assert _qroot(Fraction(-4, 9), 2) is None and _qroot(Fraction(2), 2) is None


def test_exact_taylor_model_shift_encloses_the_shifted_function():
    rng = random.Random(11)
    for _ in range(60):
        K = rng.randint(1, 6)
        h = Fraction(1, rng.randint(2, 9))
        c = [Fraction(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(K + 1)]
        R = Fraction(rng.randint(-9, 9), 7)
        f = ExactTM([fmpq(x.numerator, x.denominator) for x in c], arb(R.numerator) / R.denominator,
                    arb(h.numerator) / h.denominator, K)
        s = rng.randint(0, 2 * K + 2)
        g = f.shift(s)
        assert g.K == K
        for _ in range(5):
            t = h * Fraction(rng.randint(1, 100), 100)
            val = (sum(ci * t ** i for i, ci in enumerate(c)) + t ** (K + 1) * R) * t ** s   # a point of f times t^s
            enc = sum((arb(ci.p) / arb(ci.q)) * (arb(t.numerator) / t.denominator) ** i for i, ci in enumerate(g.c)) \
                + (arb(t.numerator) / t.denominator) ** (K + 1) * g.R
            assert enc.contains(arb(val.numerator) / val.denominator), (c, R, s, t)
    with pytest.raises(ValueError, match="s must be an integer >= 0"):
        f.shift(-1)


@pytest.mark.slow
def test_hybrid_c5_against_power_of_3_is_certified():
    """Was: SeriesBudgetError (both blockings, ~rho^124 and ~rho^363, vanish to any order <= 64 of the
    unscaled series). One crossing, re-checked; the threshold agrees with threshold_load (mpmath root
    finding, not the certified search)."""
    import copy
    import json

    import mpmath

    from symloss import certified_comparison, threshold_load, verify_comparison
    from symloss.meanfield.certified import CertificateMismatch
    h, p = hybrid(5, 2, 2), PowerOfD(5, 3)
    res = certified_comparison(h, p, dps=15)
    assert res.status == "PROVED" and res.count == 1 and res.sign_at_zero == 1 and res.sign_at_infinity == -1
    z = res.certificate["zero_end"]
    assert z["D"]["scale"] == 124 and z["K"] == 12
    lo, hi = (Fraction(v) for v in res.threshold["rho"])
    ref = Fraction(mpmath.nstr(threshold_load(h, p, dps=25), 22))
    assert lo - Fraction(1, 10 ** 12) <= ref <= hi + Fraction(1, 10 ** 12)
    cert = json.loads(json.dumps(res.certificate))
    assert verify_comparison(cert, h, p).threshold == res.threshold
    for field, value in (("valuations", [1, 4, 13, 40, 120]), ("scale", 362)):
        bad = copy.deepcopy(cert)
        bad["zero_end"]["models"]["b"][field] = value
        with pytest.raises(CertificateMismatch):
            verify_comparison(bad, h, p)
