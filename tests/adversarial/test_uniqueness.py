"""Issue 21: the fixed point is certified unique on the state space, or the result says it is one of
several (how many, which one this is, which one the ODE from the default start reaches); certified
comparisons refuse a model with several fixed points; a model whose reference load lies outside its
domain works or fails naming the cause.

References are exact: the test model x' = rho (s1 x^2 + s3)/4 - x^3 - s2 x has, at rho = 4, the drift
-(x - r1)(x - r2)(x - r3) with the chosen rational roots; at rho in {1, 2} its derivative
rho s1 x / 2 - 3 x^2 - s2 has a negative discriminant, so the drift decreases and the root is unique.
"""
import warnings
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import arb, fmpq

import symloss
from symloss import RHO, PowerOfD, RandomRouting, RetrialOfD, define_model
from symloss.core.certify import (
    NonUniqueFixedPointError,
    NonUniqueFixedPointWarning,
    StateSpace,
    fixed_point_uniqueness,
    parse_exact,
    verify_uniqueness,
)

X = sp.Symbol("x", nonnegative=True)


def cubic(roots, name="cubic"):
    """x' = rho a(x) - b(x), equal to -(x - r1)(x - r2)(x - r3) at rho = 4."""
    r1, r2, r3 = (sp.Rational(r) for r in roots)
    s1, s2, s3 = r1 + r2 + r3, r1 * r2 + r1 * r3 + r2 * r3, r1 * r2 * r3
    return define_model(name, [X], [({X: 1}, RHO * (s1 * X ** 2 + s3) / 4), ({X: -1}, X ** 3 + s2 * X)],
                        blocking=X, state_kind="custom")


ROOTS = (Fraction(1, 5), Fraction(2, 5), Fraction(4, 5))


def _close(value, ref, digits=19):
    """|value - ref| <= 10^-digits |ref|, at 40 digits (``ref`` a Fraction or an mpmath callable)."""
    with mpmath.workdps(40):
        r = ref() if callable(ref) else mpmath.mpf(ref.numerator) / ref.denominator
        return abs(mpmath.mpf(value) - r) <= mpmath.mpf(10) ** -digits * abs(r)


def _region_contains(rec, k, point):
    """The k-th certified region (balls of y = log x) holds the exact state ``point``."""
    reg = rec["regions"][k]
    return all(arb(parse_exact(c), parse_exact(d)).exp().contains(arb(fmpq(p.numerator, p.denominator)))
               for c, d, p in zip(reg["center"], reg["delta"], point))


def _index_of(rec, point):
    hits = [k for k in range(rec["n_found"]) if _region_contains(rec, k, point)]
    assert len(hits) == 1
    return hits[0]


def test_three_fixed_points_found_and_named():
    m = cubic(ROOTS)
    with pytest.warns(NonUniqueFixedPointWarning, match="NOT UNIQUE: 3 fixed points"):
        r = m.fixed_point(4, dps=20, uniqueness=True)
    assert r.n_found == 3 and r.uniqueness.startswith("NOT UNIQUE: 3 fixed points found")
    rec = r.extra["uniqueness_record"]
    assert rec["complete"] and rec["status"] == "NOT UNIQUE"
    idx = {root: _index_of(rec, [root]) for root in ROOTS}          # each exact root in its own region
    assert sorted(idx.values()) == [0, 1, 2]
    # the continuation from the reference load rho0 = 2 follows the lower branch: x = 1/5 exactly
    assert _close(r.blocking, Fraction(1, 5))
    assert f"this result is #{idx[ROOTS[0]]}" in r.uniqueness
    # the ODE from the default start x = 1/2 (drift +0.009 > 0 there) goes up to the stable root 4/5
    assert f"the ODE from the default start [0.5] reaches #{idx[ROOTS[2]]}" in r.uniqueness
    assert "NOT UNIQUE" in repr(r) and r.to_dict()["n_found"] == 3
    with pytest.warns(NonUniqueFixedPointWarning):
        assert _close(m.blocking(4, dps=20), Fraction(1, 5))


@pytest.mark.parametrize("rho", [1, 2])
def test_one_fixed_point_proved(rho):
    m = cubic(ROOTS)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NonUniqueFixedPointWarning)
        r = m.fixed_point(rho, dps=20, uniqueness=True)
    assert r.n_found == 1 and r.uniqueness.startswith("PROVED on the state space")
    assert "uniqueness='PROVED" in repr(r)
    # the certified state is a zero of the drift (independent: SymPy, 40 digits)
    f = m.drift()[0].subs({RHO: rho, X: sp.Float(mpmath.nstr(r.x[0], 20), 40)})
    assert abs(float(f)) < 1e-18
    rec = fixed_point_uniqueness(m, rho)
    assert verify_uniqueness(m, rec) == "PROVED"


def test_mutation_roots_follow_the_definition():
    """Edit the rates (other roots, then a drift with one root): the count and the roots follow."""
    roots = (Fraction(1, 10), Fraction(3, 5), Fraction(9, 10))
    m = cubic(roots, "cubic2")
    rec = fixed_point_uniqueness(m, 4)
    assert rec["status"] == "NOT UNIQUE" and rec["n_found"] == 3 and rec["complete"]
    assert sorted(_index_of(rec, [q]) for q in roots) == [0, 1, 2]
    # the record of one definition does not verify on another
    with pytest.raises(ValueError):
        verify_uniqueness(cubic(ROOTS), rec)
    one = define_model("one root", [X], [({X: 1}, RHO * (1 - X)), ({X: -1}, X)], blocking=X)
    rec1 = fixed_point_uniqueness(one, 4)
    assert rec1["status"] == "PROVED" and _index_of(rec1, [Fraction(4, 5)]) == 0      # x = rho / (1 + rho)


def test_tampered_record_is_refused():
    m = cubic(ROOTS)
    rec = fixed_point_uniqueness(m, 4)
    assert verify_uniqueness(m, rec) == "NOT UNIQUE"
    bad = dict(rec, n_found=1, status="PROVED")
    with pytest.raises(ValueError, match="re-check supports NOT UNIQUE"):
        verify_uniqueness(m, bad)
    drop = dict(rec, regions=rec["regions"][:1])
    with pytest.raises((ValueError, IndexError)):
        verify_uniqueness(m, drop)
    tree = rec["tree"]
    i = tree.index("E")
    j = tree.index(",", i)
    forged = dict(rec, tree=tree[:i] + "A0" + tree[j:])              # a discarded box claimed inside region 0
    with pytest.raises(ValueError, match="not inside region"):
        verify_uniqueness(m, forged)


def test_shipped_models_small_state_space():
    rec = fixed_point_uniqueness(RandomRouting(2), 1)
    assert rec["status"] == "PROVED" and rec["dim"] == 2
    assert _region_contains(rec, 0, [Fraction(2, 5), Fraction(2, 5), Fraction(1, 5)])    # Erlang at rho = 1
    assert verify_uniqueness(RandomRouting(2), rec) == "PROVED"
    for m in (RetrialOfD(2, 2), PowerOfD(2, 2)):
        assert fixed_point_uniqueness(m, 3)["status"] == "PROVED"
    assert StateSpace(PowerOfD(2, 2)).describe() == "u1, u2 in [0, 1], u1 >= u2"


def test_accelerated_result_states_it_is_not_checked():
    """The accelerators state uniqueness from their binding and exact lemma (every load); beyond the
    size where the lemma is recomputed they say it is not checked."""
    r = RetrialOfD(2, 2).fixed_point(1, dps=20, uniqueness=True)
    assert r.uniqueness.startswith("PROVED on the simplex for every load") and r.n_found == 1
    assert r.to_dict()["uniqueness"] == r.uniqueness
    r = PowerOfD(3, 2).fixed_point(2, dps=20, uniqueness=True)
    assert r.uniqueness.startswith("PROVED on [0, 1]^C for every load") and r.n_found == 1
    r = PowerOfD(120, 2).fixed_point(100, dps=20, uniqueness=True)
    assert r.uniqueness.startswith("NOT CHECKED (C = 120 > 100") and r.n_found is None


def test_default_states_that_uniqueness_was_not_checked():
    """Without uniqueness=True nothing is searched (blocking and load scans pay nothing) and the result
    says so, naming how to check; the three-fixed-point model is then not warned about, but its
    result does not claim uniqueness."""
    m = cubic(ROOTS)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NonUniqueFixedPointWarning)
        r = m.fixed_point(4, dps=20)
    assert r.uniqueness.startswith("NOT CHECKED (not asked: model.fixed_point(rho, uniqueness=True)")
    assert r.n_found is None and "uniqueness='NOT CHECKED" in repr(r)
    with pytest.raises(TypeError, match="uniqueness must be True or False"):
        m.fixed_point(4, dps=20, uniqueness="yes")


def test_large_state_space_says_so():
    u = sp.symbols("u1:6", nonnegative=True)
    U = (1,) + u + (0,)
    m = define_model("power-of-2 (user)", u,
                     [t for k in range(1, 6) for t in (({u[k - 1]: 1}, RHO * (U[k - 1] ** 2 - U[k] ** 2)),
                                                        ({u[k - 1]: -1}, k * (U[k] - U[k + 1])))],
                     blocking=u[-1] ** 2, state_kind="tail", C=5)
    r = m.fixed_point(2, dps=20, uniqueness=True)
    assert r.uniqueness.startswith("EVIDENCE: uniqueness not checked (dimension 5 > 3)")
    with pytest.raises(ValueError, match="at most 3 free coordinates"):
        fixed_point_uniqueness(m, 2)
    # same blocking as the shipped accelerator (same equations)
    ref = PowerOfD(5, 2).blocking(2, dps=25)
    assert _close(r.blocking, lambda: ref, 18)


def test_certified_comparison_refuses_several_fixed_points():
    lin = define_model("linear", [X], [({X: 1}, RHO * (1 - X)), ({X: -1}, X)], blocking=X)
    with pytest.raises(NonUniqueFixedPointError, match=r"3 fixed points .* at rho = 4") as exc:
        symloss.certified_comparison(cubic(ROOTS), lin, dps=10)
    assert isinstance(exc.value, ValueError)


def test_retrial_against_random_routing_is_compared():
    """Was ArithmeticError (the end-piece remainder never contracted for RandomRouting(2))."""
    from symloss.meanfield.certified import verify_comparison
    a, b = RetrialOfD(2, 2), RandomRouting(2)
    res = symloss.certified_comparison(a, b, dps=10)
    assert res.count == 0 and res.sign_at_zero == -1 and res.sign_at_infinity == -1
    # independent: E(2, 1) = 1/5 for random routing; retrial blocks less
    assert _close(b.blocking(1, dps=20), Fraction(1, 5)) and a.blocking(1, dps=20) < b.blocking(1, dps=20)
    assert any("PROVED at the 8 loads" in s for s in res.certificate["assumptions"])
    assert verify_comparison(res.certificate, a, b).count == 0
    forged = dict(res.certificate, assumptions=["nothing assumed"])
    with pytest.raises(ValueError):
        verify_comparison(forged, a, b)


# ---- reference load outside the model's domain ------------------------------------------------------

def test_rate_defined_only_above_the_reference_load():
    """rho0 = 2 C = 2 (no capacity: C = 1); sqrt(rho - 3) is not real there: the start is made at the
    target load. Exact: x = s / (1 + s), s = sqrt(rho - 3)."""
    m = define_model("sqrt", [X], [({X: 1}, sp.sqrt(RHO - 3) * (1 - X)), ({X: -1}, X)], blocking=X)
    r = m.fixed_point(5, dps=20)
    assert _close(r.blocking, lambda: mpmath.sqrt(2) / (1 + mpmath.sqrt(2)))
    with pytest.raises(ValueError, match=r"not defined at rho = 2.5 .*sqrt\(rho - 3\)"):
        m.fixed_point(2.5, dps=20)


def test_rate_vanishing_at_the_reference_load():
    """log(rho - 1) vanishes at rho0 = 2 (the fixed point there is x = 0, outside the log variables)."""
    m = define_model("log", [X], [({X: 1}, sp.log(RHO - 1) * (1 - X)), ({X: -1}, X)], blocking=X)
    r = m.fixed_point(5, dps=20)
    assert _close(r.blocking, lambda: mpmath.log(4) / (1 + mpmath.log(4)))
