"""Tests for symloss.meanfield.series: expansions of the mean-field blocking at rho -> 0 and oo.

Independent references:
* leading terms from MATH.md section 2 (B_ret(d) ~ (rho^C/C!)^d; B_pod(d) ~ c rho^(d(d^C-1)/(d-1))
  with c_k = c_{k-1}^d / k computed here with Fractions);
* random routing: SymPy's own ``series`` of the closed form E(C, rho) = (rho^C/C!) / sum_k rho^k/k!;
* the eliminant P(rho, B) of the model (resultants, a different derivation): substituting more
  terms of the expansion must raise the valuation of P(rho, S_n) strictly;
* the certified numerics (``model.blocking`` at 40 digits): (B - S_n) / T_{n+1} -> 1.
"""
from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

import symloss
from symloss.meanfield.series import BlockingSeries, blocking_expansion, blocking_series

RHO = sp.Symbol("rho", positive=True)


def pod_leading(C, d):
    c = Fraction(1)
    for k in range(1, C + 1):
        c = c ** d / k
    e = d * (d ** C - 1) // (d - 1) if d > 1 else C
    return c ** d, e


# ------------------------------------------------------------------------------------------------
# leading terms (MATH.md section 2)
# ------------------------------------------------------------------------------------------------

def test_seed_examples_C2():
    assert blocking_expansion(symloss.PowerOfD(2, 2), 0, 1).terms == [(sp.Rational(1, 4), 6)]
    assert blocking_expansion(symloss.RetrialOfD(2, 3), 0, 1).terms == [(sp.Rational(1, 8), 6)]
    # the two leading terms have the same exponent, and retrial-of-3 is lower
    e = blocking_series(symloss.PowerOfD(2, 2), 0, 1)
    assert sp.simplify(e.removeO() - RHO ** 6 / 4) == 0
    assert e.getO() == sp.Order(RHO ** 8, (RHO, 0))


@pytest.mark.parametrize("C, d", [(1, 1), (1, 3), (2, 2), (3, 2), (4, 3), (3, 5), (6, 2)])
def test_leading_retrial(C, d):
    s = blocking_expansion(symloss.RetrialOfD(C, d), 0, 1)
    assert s.terms[0] == (sp.Rational(1, math.factorial(C)) ** d, C * d)


@pytest.mark.parametrize("C, d", [(1, 2), (2, 2), (2, 3), (3, 2), (3, 3), (4, 2), (5, 3), (2, 6)])
def test_leading_power(C, d):
    s = blocking_expansion(symloss.PowerOfD(C, d), 0, 1)
    c, e = pod_leading(C, d)
    assert s.terms[0] == (sp.Rational(c.numerator, c.denominator), e)


@settings(max_examples=8, deadline=None)
@given(C=st.integers(1, 5), d=st.integers(1, 4), power=st.booleans())
def test_large_load_leading_terms(C, d, power):
    """Every policy loses load at rate rho - C: B = 1 - C/rho + O(rho^-2); both retrial-of-d and
    power-of-d have the rho^-2 coefficient C/d (so retrial-of-dt beats power-of-d at large load
    exactly when dt > d, seed 000 claim 3)."""
    model = symloss.PowerOfD(C, d) if power else symloss.RetrialOfD(C, d)
    s = blocking_expansion(model, sp.oo, 3)
    assert s.terms == [(1, 0), (-C, -1), (sp.Rational(C, d), -2)]
    assert s.remainder_exponent <= -3


@pytest.mark.parametrize("C, d", [(2, 2), (3, 2), (2, 3), (4, 3)])
def test_power_below_retrial_at_large_load(C, d):
    """Seed 000 claim 2 (B_pod(d) <= B_ret(d)) seen in the expansions: at the first order where they
    differ, power-of-d has the smaller coefficient."""
    r = blocking_expansion(symloss.RetrialOfD(C, d), sp.oo, 5)
    p = blocking_expansion(symloss.PowerOfD(C, d), sp.oo, 5)
    diff = sp.expand(r.polynomial - p.polynomial)
    assert diff != 0
    lead = max(sp.Add.make_args(diff), key=lambda t: t.as_coeff_exponent(RHO)[1])
    assert lead.as_coeff_exponent(RHO)[0] > 0
    assert lead.as_coeff_exponent(RHO)[1] > max(r.remainder_exponent, p.remainder_exponent)


# ------------------------------------------------------------------------------------------------
# exact comparisons with independent derivations
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("C", [1, 2, 3, 4])
def test_random_routing_matches_sympy_series_of_erlang_b(C):
    E = (RHO ** C / sp.factorial(C)) / sum(RHO ** k / sp.factorial(k) for k in range(C + 1))
    n = 4
    for model in (symloss.RandomRouting(C), symloss.PowerOfD(C, 1)):
        s0 = blocking_expansion(model, 0, n)
        top = s0.remainder_exponent
        ref = sp.series(E, RHO, 0, top).removeO()
        assert sp.expand(s0.polynomial - ref) == 0
        assert len(s0.terms) == n
        # at infinity: series of E(C, 1/x) in x
        x = sp.Symbol("x", positive=True)
        so = blocking_expansion(model, sp.oo, n)
        top = -so.remainder_exponent
        ref = sp.series(E.subs(RHO, 1 / x), x, 0, top).removeO().subs(x, 1 / RHO)
        assert sp.expand(so.polynomial - ref) == 0


def _valuation(expr, var):
    P = sp.Poly(sp.expand(expr), var)
    return min(m[0] for m in P.monoms()) if not P.is_zero else math.inf


@pytest.mark.parametrize("model", [symloss.RetrialOfD(2, 2), symloss.RetrialOfD(2, 3), symloss.PowerOfD(2, 2),
                                   symloss.PowerOfD(3, 2), symloss.RetrialOfD(3, 2)], ids=repr)
def test_expansion_annihilates_eliminant_at_0(model):
    """P(rho, S_n) must vanish to higher and higher order as terms are added (P from resultants)."""
    P = model.eliminant().as_expr()
    B = sp.Symbol("B", positive=True)
    vals = [_valuation(P.subs(B, blocking_expansion(model, 0, n).polynomial), RHO) for n in (1, 2, 3, 4)]
    assert all(b > a for a, b in zip(vals, vals[1:])), vals


def _trunc(expr, x, N):
    P = sp.Poly(sp.expand(expr), x)
    return sum((c * x ** m[0] for m, c in P.terms() if m[0] < N), sp.Integer(0))


def _root_series(F, y, y0, x, N):
    """Power series (in x, mod x^N) of the simple root y(x) of the polynomial F(x, y) = 0 with
    y(0) = y0, by the iteration y <- y - F(x, y) / F_y(0, y0): an independent route through a
    scalar reduction (one order gained per step)."""
    assert sp.expand(F.subs({x: 0, y: y0})) == 0
    dF0 = sp.expand(sp.diff(F, y).subs({x: 0, y: y0}))
    assert dF0 != 0
    Y = sp.Integer(y0)
    for _ in range(N + 1):
        Y = _trunc(Y - F.subs(y, Y) / dF0, x, N)
    assert _trunc(F.subs(y, Y), x, N) == 0
    return Y


def test_c2_d2_closed_forms_give_the_same_expansions():
    """C = 2, d = 2: retrial from the cubic in a (B = (a/rho - 1)^2), power-of-2 from the
    polynomial in s = u_2 (B = s^2), both at rho -> 0 and rho -> oo (x = 1/rho)."""
    a, z, x = sp.symbols("a z x", positive=True)
    cubic = a ** 3 + 2 * (1 - RHO) * a ** 2 + 2 * (1 - RHO) * a - 2 * RHO
    quartic = RHO ** 3 * z ** 4 - 2 * RHO ** 3 * z ** 2 + RHO ** 3 + 2 * RHO ** 2 * z ** 3 - 2 * RHO ** 2 * z - 2 * z
    N = 8
    cases = []
    # retrial at 0: a = rho (1 + rho^2 z), B = rho^4 z^2
    F = sp.expand(cubic.subs(a, RHO * (1 + RHO ** 2 * z)) / RHO ** 3)
    Z = _root_series(F, z, sp.Rational(1, 2), RHO, N)
    cases.append((symloss.RetrialOfD(2, 2), 0, RHO ** 4 * _trunc(Z ** 2, RHO, N), 4 + N))
    # retrial at oo: a = 2 rho - z, B = (1 - x z)^2
    F = sp.expand(sp.expand(cubic.subs(a, 2 * RHO - z).subs(RHO, 1 / x) * x ** 3) / x)
    Z = _root_series(F, z, 1, x, N)
    cases.append((symloss.RetrialOfD(2, 2), sp.oo, _trunc((1 - x * Z) ** 2, x, N).subs(x, 1 / RHO), N))
    # power-of-2 at 0: s = rho^3 z, B = rho^6 z^2
    F = sp.expand(quartic.subs(z, RHO ** 3 * z) / RHO ** 3)
    Z = _root_series(F, z, sp.Rational(1, 2), RHO, N)
    cases.append((symloss.PowerOfD(2, 2), 0, RHO ** 6 * _trunc(Z ** 2, RHO, N), 6 + N))
    # power-of-2 at oo: s = 1 - x z, B = (1 - x z)^2
    F = sp.expand(sp.expand(quartic.subs(z, 1 - x * z).subs(RHO, 1 / x) * x ** 2) / x)
    Z = _root_series(F, z, 1, x, N)
    cases.append((symloss.PowerOfD(2, 2), sp.oo, _trunc((1 - x * Z) ** 2, x, N).subs(x, 1 / RHO), N))
    for model, at, ref, known in cases:
        got = blocking_expansion(model, at, 3)
        ref_terms = sorted(((k, c) for c, k in _terms_of(ref)), reverse=(at != 0))
        ref_terms = [(c, k) for k, c in ref_terms if c != 0]
        assert got.terms == ref_terms[:3], (model, at)
        assert got.next_term == ref_terms[3], (model, at)


def _terms_of(expr):
    out = []
    for t in sp.Add.make_args(sp.expand(expr)):
        c, e = t.as_coeff_exponent(RHO)
        out.append((c, int(e)))
    return out


def test_jsq_exact():
    assert blocking_series(symloss.JSQ(3), 0, 3) == 0
    assert sp.simplify(blocking_series(symloss.JSQ(3), sp.oo, 3) - (1 - 3 / RHO)) == 0
    s = blocking_expansion(symloss.JSQ(3), sp.oo, 1)
    assert s.terms == [(1, 0)] and s.next_term == (-3, -1)


# ------------------------------------------------------------------------------------------------
# against the certified numerics: the error behaves like the first omitted term
# ------------------------------------------------------------------------------------------------

CASES_0 = [(symloss.RetrialOfD(2, 2), (0.02, 0.002)), (symloss.RetrialOfD(3, 3), (0.02, 0.002)),
           (symloss.RetrialOfD(4, 2), (0.02, 0.002)), (symloss.PowerOfD(2, 2), (0.1, 0.01)),
           (symloss.PowerOfD(3, 2), (0.1, 0.01)), (symloss.PowerOfD(2, 3), (0.2, 0.05)),
           (symloss.PowerOfD(5, 3), (0.3, 0.1))]
CASES_OO = [(symloss.RetrialOfD(2, 2), (100, 1000)), (symloss.RetrialOfD(3, 3), (100, 1000)),
            (symloss.PowerOfD(2, 2), (100, 1000)), (symloss.PowerOfD(4, 3), (200, 2000)),
            (symloss.RandomRouting(5), (200, 2000))]


def _ratios(model, at, rhos, n=3):
    s = blocking_expansion(model, at, n)
    assert s.next_term is not None
    out = []
    for r in rhos:
        B = model.blocking(r, dps=40)
        S = s.evaluate(r, dps=40)
        T = s.evaluate_next(r, dps=40)
        out.append((float((B - S) / T), float(abs((B - S) / B)), float(abs(T / B))))
    return out


@pytest.mark.parametrize("model, rhos", CASES_0 + CASES_OO, ids=[f"{m!r}-0" for m, _ in CASES_0]
                         + [f"{m!r}-oo" for m, _ in CASES_OO])
def test_error_is_next_term(model, rhos):
    at = 0 if rhos[0] < 1 else sp.oo
    (q1, e1, t1), (q2, e2, t2) = _ratios(model, at, rhos)
    # (B - S_n) / T_{n+1} -> 1, more closely at the point nearer to the expansion point
    assert abs(q2 - 1) < 0.25, (q1, q2)
    assert abs(q2 - 1) <= abs(q1 - 1) + 1e-12
    # the relative error shrinks like the next term
    assert e2 < e1
    assert 0.5 < e2 / t2 < 1.5


def test_far_below_float_range():
    """Power-of-3 at C = 5, rho = 0.05: B ~ 1e-475, the expansion still matches to many digits."""
    model = symloss.PowerOfD(5, 3)
    s = blocking_expansion(model, 0, 4)
    B = model.blocking(0.05, dps=30)
    assert B < mpmath.mpf("1e-400")
    rel = abs(s.evaluate(0.05, dps=30) / B - 1)
    assert rel < 2 * abs(s.evaluate_next(0.05, dps=30) / B)


# ------------------------------------------------------------------------------------------------
# result object and argument checks
# ------------------------------------------------------------------------------------------------

def test_result_object():
    s = blocking_expansion(symloss.RetrialOfD(2, 2), 0, 3)
    assert isinstance(s, BlockingSeries)
    d = json.loads(json.dumps(s.to_dict()))
    assert d["terms"][0] == ["1/4", 4] and d["at"] == "0" and d["policy"] == "retrial"
    assert "rho" in s._repr_latex_()
    assert "BlockingSeries(retrial" in repr(s)
    assert abs(s.evaluate(Fraction(1, 10), dps=20, terms=1) / mpmath.mpf("0.000025") - 1) < 1e-19
    assert s.evaluate(1, dps=20) == mpmath.mpf(3) / 4   # 1/4 - 1/2 + 1
    # the same expansion through the other spellings of the point
    for at in ("oo", "inf", math.inf, sp.oo):
        assert blocking_expansion(symloss.RetrialOfD(2, 2), at, 2).at == "oo"
    for at in ("0", 0, 0.0, sp.Integer(0)):
        assert blocking_expansion(symloss.RetrialOfD(2, 2), at, 2).at == "0"


@pytest.mark.parametrize("kw, exc, match", [
    (dict(at=1), ValueError, "at must be"), (dict(at="x"), ValueError, "at must be"),
    (dict(at=True), TypeError, "at must be"), (dict(n=0), ValueError, "n must be"),
    (dict(n=1.5), TypeError, "n must be"), (dict(n=10 ** 6), ValueError, "n must be")])
def test_bad_arguments(kw, exc, match):
    with pytest.raises(exc, match=match):
        blocking_series(symloss.RetrialOfD(2, 2), **kw)


def test_bad_model():
    with pytest.raises(TypeError, match="model must be"):
        blocking_series("retrial", 0, 2)
    s = blocking_expansion(symloss.RetrialOfD(2, 2), 0, 2)
    with pytest.raises(ValueError, match="rho"):
        s.evaluate(0)
    with pytest.raises(ValueError, match="dps"):
        s.evaluate(1, dps=3)


def test_model_series_method_uses_this_module():
    for model in (symloss.PowerOfD(2, 2), symloss.RetrialOfD(2, 3), symloss.JSQ(2)):
        for at in (0, sp.oo):
            assert model.series(at, n=2) == blocking_series(model, at, 2)
