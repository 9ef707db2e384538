"""Exact in, exact through (issue 21): a load given exactly stays exact through the accelerators until
the final rounding, and ``blocking_bracket`` is a computed enclosure, never the rounded value repeated.
Also: no cliffs in the retrial-of-d Newton iteration, and the Erlang-B magnitude estimate keeps its bits.

Independent references:

* JSQ: the closed form ``max(0, 1 - C/rho)`` and ``u_k = min(1, max(0, rho - k + 1))`` in exact
  ``Fraction`` arithmetic (a float or mpf load is converted to its exact binary value first);
* random routing (retrial-of-1): the Erlang-B recursion ``E_k = a E_{k-1} / (k + a E_{k-1})`` in exact
  Fractions (the blocking is ``E(C, rho)``);
* retrial-of-d and power-of-d: the same solver at 90 digits (its bracket is 10^60 times narrower);
  the rigorous brackets at 30 and at 90 digits must intersect, a rounded point would not.
"""
import math
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import arb

from symloss import JSQ, RHO, DefinitionMismatchWarning, PowerOfD, RandomRouting, RetrialOfD
from symloss.core.precision import PrecisionError
from symloss.meanfield import accelerators as acc_mod
from symloss.meanfield.accelerators import POWER, RETRIAL

pytestmark = pytest.mark.timeout(120)

BIG = Fraction(3 * 10**40 + 1, 10**40)            # the issue's load: 1 - 3/rho = 1/(3e40 + 1)
TINY = 3 + Fraction(1, 2**200)                     # C + 2^-200


def frac(x):
    """The exact value of an mpf (or int/float/Fraction) as a Fraction."""
    if isinstance(x, mpmath.mpf):
        man, exp = x.man_exp
        return Fraction(man) * Fraction(2) ** exp
    return Fraction(x)


def mpf_exact(q: Fraction):
    """A dyadic Fraction as an exact mpf."""
    with mpmath.workprec(q.numerator.bit_length() + q.denominator.bit_length() + 8):
        return mpmath.mpf(q.numerator) / q.denominator


def erlang_b_exact(C, a):
    e = Fraction(1)
    for k in range(1, C + 1):
        e = a * e / (k + a * e)
    return e


def rel(got, exact: Fraction):
    return abs(frac(got) - exact) / exact if exact else abs(frac(got))


EXACT_LOADS = [
    ("Fraction 3 + 1e-40", BIG, BIG),
    ("Fraction 3 + 2^-200", TINY, TINY),
    ("mpf 3 + 2^-200", mpf_exact(TINY), TINY),
    ("float above 3", math.nextafter(3.0, 4.0), Fraction(math.nextafter(3.0, 4.0))),
    ("sympy Rational", sp.Rational(3 * 10**40 + 1, 10**40), BIG),
    ("Decimal", Decimal("3.0000000000000000000000000000000000000001"), BIG),
    ("int above C", 7, Fraction(7)),
    ("exactly C", 3, Fraction(3)),
    ("below C", Fraction(5, 2), Fraction(5, 2)),
    ("just below C", 3 - Fraction(1, 10**50), 3 - Fraction(1, 10**50)),
]


# --------------------------------------------------------------------------------------------------
# JSQ: the closed form on the exact load
# --------------------------------------------------------------------------------------------------

def test_issue_example_jsq_blocking_is_not_zero():
    """JSQ(3).blocking(3 + 1e-40) was 0.0 at dps=15 and 1.6e-6 off at dps=30."""
    exact = Fraction(1, 3 * 10**40 + 1)
    for dps in (15, 30, 50):
        b = JSQ(3).blocking(BIG, dps=dps)
        assert b != 0 and rel(b, exact) < Fraction(1, 10**(dps - 1))


@pytest.mark.parametrize("name, rho, exact_rho", EXACT_LOADS, ids=[e[0] for e in EXACT_LOADS])
@pytest.mark.parametrize("dps", [15, 30])
def test_jsq_exact_load(name, rho, exact_rho, dps):
    C = 3
    res = JSQ(C).fixed_point(rho, dps=dps)
    B = max(Fraction(0), 1 - Fraction(C) / exact_rho)
    lo, hi = (frac(v) for v in res.blocking_bracket)
    assert lo <= B <= hi                                   # a computed enclosure of the exact value
    if B == 0:
        assert lo == hi == 0 and res.blocking == 0
    else:
        assert rel(res.blocking, B) < Fraction(1, 10**(dps - 1))
        assert 0 < hi - lo < B / 10**(dps + 1)              # narrow, and not the point (B, B)
    for k, u in enumerate(res.x, start=1):
        ue = min(Fraction(1), max(Fraction(0), exact_rho - k + 1))
        assert (u == ue) if ue in (0, 1) else rel(u, ue) < Fraction(1, 10**(dps - 1))


def test_jsq_ball_loads():
    b = JSQ(3).fixed_point(arb(6, 1e-45), dps=20)          # a narrow ball away from the kinks: its value
    lo, hi = (frac(v) for v in b.blocking_bracket)
    assert lo <= Fraction(1, 2) <= hi and rel(b.blocking, Fraction(1, 2)) < Fraction(1, 10**19)
    with pytest.raises(PrecisionError, match="kink rho = 3"):
        JSQ(3).blocking(arb(3, 1e-40), dps=20)               # a ball containing rho = C: not determined
    with pytest.raises(PrecisionError, match="too wide"):
        JSQ(3).blocking(arb(6, 1e-10), dps=20)              # a ball too wide for 20 digits


def test_jsq_mutation_follows_the_edit():
    """Mutation test: a JSQ whose arrival rate is edited is not solved by the closed form (a
    DefinitionMismatchWarning) but by the piecewise-smooth solver on its own definition: doubled
    arrivals at rho are JSQ at 2 rho, never the stale closed-form number."""
    class Edited(JSQ):
        def transitions(self):
            return [(j, r * 2 if r.has(RHO) else r) for j, r in super().transitions()]
    with pytest.warns(DefinitionMismatchWarning):
        got = Edited(3).fixed_point(Fraction(5, 4), dps=20)
    assert list(got.x) == list(JSQ(3).fixed_point(Fraction(5, 2), dps=20).x) == [1, 1, mpmath.mpf("0.5")]
    assert list(JSQ(3).fixed_point(Fraction(5, 4), dps=20).x) == [1, mpmath.mpf("0.25"), 0]


# --------------------------------------------------------------------------------------------------
# retrial-of-d, random routing and power-of-d: exact loads, computed brackets
# --------------------------------------------------------------------------------------------------

ACC_LOADS = [e for e in EXACT_LOADS if e[0] in ("Fraction 3 + 1e-40", "Fraction 3 + 2^-200", "mpf 3 + 2^-200",
                                                 "float above 3", "sympy Rational", "below C")]
ACC_LOADS.append(("huge float", 1e40, Fraction(1e40)))               # its binary value, not 10^40
ACC_LOADS.append(("third", Fraction(1, 3), Fraction(1, 3)))


@pytest.mark.parametrize("name, rho, exact_rho", ACC_LOADS, ids=[e[0] for e in ACC_LOADS])
def test_random_routing_is_the_exact_erlang_value(name, rho, exact_rho):
    C = 3
    E = erlang_b_exact(C, exact_rho)
    res = RandomRouting(C).fixed_point(rho, dps=30)
    lo, hi = (frac(v) for v in res.blocking_bracket)
    assert lo <= E <= hi and lo < hi
    assert rel(res.blocking, E) < Fraction(1, 10**29)


@pytest.mark.parametrize("model", [RetrialOfD(3, 2), RetrialOfD(3, 3), PowerOfD(3, 2)], ids=repr)
@pytest.mark.parametrize("name, rho, exact_rho", ACC_LOADS, ids=[e[0] for e in ACC_LOADS])
def test_accelerator_brackets_are_computed_enclosures(model, name, rho, exact_rho):
    res = model.fixed_point(rho, dps=30)
    ref = model.fixed_point(exact_rho, dps=90)               # the exact load, 60 more digits
    lo, hi = res.blocking_bracket
    rlo, rhi = ref.blocking_bracket
    assert lo < hi and rlo <= rhi
    assert lo <= rhi and rlo <= hi                            # both rigorous: they intersect
    assert (rhi - rlo) < (hi - lo)                            # and the reference is the narrower one
    with mpmath.workdps(100):
        assert abs(res.blocking - ref.blocking) <= mpmath.mpf(10) ** -29 * ref.blocking


@pytest.mark.parametrize("model", [RetrialOfD(3, 2), PowerOfD(3, 2), RandomRouting(3)], ids=repr)
def test_the_load_is_not_rounded_before_the_solver(model):
    """At 60 digits 3 + 1e-40 and 3 have different blockings: their certified brackets are disjoint
    (a load rounded to fewer than 41 digits anywhere on the way would make them overlap)."""
    a = model.fixed_point(BIG, dps=60).blocking_bracket
    b = model.fixed_point(3, dps=60).blocking_bracket
    assert a[1] < b[0] or b[1] < a[0]
    if isinstance(model, RandomRouting):
        lo, hi = (frac(v) for v in a)
        assert lo <= erlang_b_exact(3, BIG) <= hi


def test_power_large_exact_load():
    m = PowerOfD(2, 2)
    rho = Fraction(10**6) + Fraction(1, 3)
    res, ref = m.fixed_point(rho, dps=30), m.fixed_point(rho, dps=90)
    assert res.blocking_bracket[0] <= ref.blocking_bracket[1] and ref.blocking_bracket[0] <= res.blocking_bracket[1]


@pytest.mark.parametrize("model, acc", [(RetrialOfD(3, 2), RETRIAL), (PowerOfD(3, 2), POWER)], ids=["retrial", "power"])
def test_verification_uses_the_exact_load(model, acc):
    """The answer is checked on the definition at the load it solved (kept exact in the work state),
    not at the rounded ``FixedPointResult.rho``: the same state at a load 1e-25 away fails."""
    res = acc.solve(model, BIG, 30)
    state = res.extra["_x_work"]
    assert state.rho == BIG and acc.verify(model, res, 30)[0]
    state.rho = BIG + Fraction(1, 10**25)
    ok, why = acc.verify(model, res, 30)
    assert not ok and "row" in why


# --------------------------------------------------------------------------------------------------
# mutation tests of the accelerated solvers touched here
# --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("base, args", [(RetrialOfD, (2, 2)), (PowerOfD, (2, 2))], ids=["retrial", "power"])
def test_edited_arrival_rate_is_followed(base, args):
    """Doubling every arrival rate of the definition is the load 2 rho: the edited model leaves the
    accelerator (warning) and its answer is the shipped model's at the doubled exact load."""
    class Edited(base):
        def transitions(self):
            return [(j, r * 2 if r.has(RHO) else r) for j, r in super().transitions()]
    rho = Fraction(3 * 10**40 + 1, 2 * 10**40)
    with pytest.warns(DefinitionMismatchWarning):
        got = Edited(*args).blocking(rho, dps=20)
    ref = base(*args).blocking(2 * rho, dps=20)
    assert abs(got - ref) <= mpmath.mpf(10) ** -19 * ref
    assert abs(got - base(*args).blocking(rho, dps=20)) > mpmath.mpf(10) ** -3


def test_wrong_erlang_polynomial_is_not_returned(monkeypatch):
    """Mutation of the fast path itself: a wrong coefficient in the Erlang-B polynomial gives a state
    that fails the verification on the definition; the dispatcher falls back to the generic solver."""
    from flint import fmpz_poly
    good = RetrialOfD(2, 2).blocking(Fraction(7, 5), dps=25)
    real_poly = acc_mod._tail_poly

    def wrong(C):
        c = [int(v) for v in real_poly(C).coeffs()]
        c[0] += 1
        return fmpz_poly(c)
    monkeypatch.setattr(acc_mod, "_tail_poly", wrong)
    with pytest.warns(DefinitionMismatchWarning, match="own stationary equations"):
        res = RetrialOfD(2, 2).fixed_point(Fraction(7, 5), dps=25)
    assert res.method.startswith("generic")
    assert abs(res.blocking - good) <= mpmath.mpf(10) ** -24 * good


# --------------------------------------------------------------------------------------------------
# the retrial Newton iteration: no cliffs (counted evaluations, not wall time)
# --------------------------------------------------------------------------------------------------

def test_retrial_newton_has_no_cliffs(monkeypatch):
    """Over loads log-spaced in [0.01 C, 10 C] (and the loads of the measured cliffs, 1.7-5.3 C at
    C = 5, 10) every solve needs at most 12 evaluations of g and one working precision; it was 800+
    (the Newton loop ran to its limit at two precisions, inside python-flint's incomplete-gamma noise)."""
    calls = {"g": 0, "prec": 0}
    g0, s0 = acc_mod.RetrialAccelerator._g, acc_mod.RetrialAccelerator._solve_a

    def g(self, *a, **k):
        calls["g"] += 1
        return g0(self, *a, **k)

    def solve_a(self, *a, **k):
        calls["prec"] += 1
        return s0(self, *a, **k)
    monkeypatch.setattr(acc_mod.RetrialAccelerator, "_g", g)
    monkeypatch.setattr(acc_mod.RetrialAccelerator, "_solve_a", solve_a)
    worst = (0, 0)
    for C in (2, 5, 10, 30):
        for d in (2, 3):
            m = RetrialOfD(C, d)
            loads = [0.01 * C * 1000 ** (i / 24) for i in range(25)] + [26.5442, 17.7407, 28.1838, 19.9526]
            for rho in loads:
                calls.update(g=0, prec=0)
                m.blocking(rho)
                worst = max(worst, (calls["g"], calls["prec"]))
                assert calls["g"] <= 12 and calls["prec"] == 1, (C, d, rho, calls)


@pytest.mark.parametrize("C", [1, 2, 7, 256, 257])
def test_erlang_parts_against_the_exact_recursion(C):
    """E and 1 - E of the accelerator (exact polynomial up to C = 256, incomplete gamma beyond)
    enclose the exact Erlang-B value, and 1 - E is accurate also where E is close to 1."""
    from flint import ctx, fmpq
    old = ctx.prec
    ctx.prec = 200
    try:
        for a in (Fraction(1, 7), Fraction(C), Fraction(50 * C + 1, 3)):
            E, F = RETRIAL._E_parts(arb(fmpq(a.numerator, a.denominator)), C)
            ex = erlang_b_exact(C, a)
            assert E.contains(arb(fmpq(ex.numerator, ex.denominator)))
            assert F.contains(arb(fmpq((1 - ex).numerator, (1 - ex).denominator)))
            assert F.rad() < F * arb(2) ** -150
    finally:
        ctx.prec = old


# --------------------------------------------------------------------------------------------------
# Erlang-B: the float magnitude estimate gives at least the bits of the mpmath formula
# --------------------------------------------------------------------------------------------------

def test_magnitude_bits_float_path_keeps_the_bits():
    import importlib
    eb = importlib.import_module("symloss.erlang.erlang_b")

    def reference(C, a):
        with mpmath.workprec(128):
            Cm, am = abs(mpmath.mpf(C)), mpmath.mpf(a)
            return int(mpmath.log(Cm * (abs(mpmath.log(am)) + 1) + am + 2, 2)) + 8
    cases = [(10**4, 9000), (0, 1), (0, 5e-324), (3, 1e-300), (10**300, 10**299), (10**400, 3), (3, 10**400),
             (1e300, 1e300), (2, 1.5), (10**18, 10**18), (2**53 + 1, 2.0**-1000)]
    for C, a in cases:
        assert eb._magnitude_bits(C, a) >= reference(C, a) - 1, (C, a)
        assert eb._magnitude_bits(C, a) <= reference(C, a) + 1, (C, a)
