"""Tests of the model definition (symloss.core.model), the generic certified solver
(symloss.core.certify) and the binding of the accelerators to the definitions (mutation tests)."""
from __future__ import annotations

import warnings
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

import symloss
from symloss import (
    JSQ,
    RHO,
    DefinitionMismatchWarning,
    ModelDefinitionError,
    PowerOfD,
    RandomRouting,
    RetrialOfD,
    define_model,
)
from symloss.core.certify import certified_fixed_point, enclose

# --------------------------------------------------------------------------------------------------
# helpers: an independent solve (mpmath findroot on the full stationary system, x-space)
# --------------------------------------------------------------------------------------------------

def findroot_blocking(model, rho, x0, dps=40):
    """Blocking of ``model`` at ``rho`` by mpmath.findroot on drift = 0 plus the invariants, from x0
    (an independent algorithm: no log variables, no Krawczyk, no accelerator)."""
    rows, _ = model._square_system
    V = list(model.variables)
    f = sp.lambdify(V + [RHO], rows, "mpmath")
    B = sp.lambdify(V + [RHO], model._blocking, "mpmath")
    with mpmath.workdps(dps + 20):
        r = mpmath.mpf(rho.numerator) / rho.denominator if isinstance(rho, Fraction) else mpmath.mpf(rho)
        sol = mpmath.findroot(lambda *x: f(*x, r), [mpmath.mpf(v) for v in x0], tol=mpmath.mpf(10) ** -(dps + 10))
        return +B(*sol, r)


def hybrid(C, d, r):
    """Sample d servers, join the least loaded; if all d are full, sample afresh; at most r rounds."""
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + tuple(u) + (sp.Integer(0),)
    s = u[-1] ** d
    retry = sum(s ** j for j in range(r))
    trs = []
    for k in range(1, C + 1):
        trs.append(({u[k - 1]: 1}, RHO * retry * (U[k - 1] ** d - U[k] ** d)))
        trs.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"hybrid(d={d}, r={r})", u, trs, blocking=u[-1] ** (d * r), state_kind="tail", C=C)


# --------------------------------------------------------------------------------------------------
# the definition
# --------------------------------------------------------------------------------------------------

def test_define_model_random_routing_is_erlang_b():
    x = sp.symbols("x0:4", nonnegative=True)
    trs = [({x[k]: -1, x[k + 1]: 1}, RHO * x[k]) for k in range(3)]
    trs += [({x[k]: -1, x[k - 1]: 1}, k * x[k]) for k in range(1, 4)]
    m = define_model("random", x, trs, blocking=x[3], invariants=[sp.Eq(sum(x), 1)])
    for rho in (Fraction(1, 3), 2, 17):
        B = m.blocking(rho, dps=30)
        with mpmath.workdps(40):
            ref = symloss.erlang_b(3, rho, dps=35)
        assert abs(B / ref - 1) < mpmath.mpf(10) ** -29


@pytest.mark.parametrize("bad, err", [
    (lambda x: [(sp.Matrix([1, 0]), RHO * x[0])], ModelDefinitionError),              # wrong length
    (lambda x: [(sp.Matrix([sp.Rational(1, 2), 0, 0]), RHO)], ModelDefinitionError),  # not an integer
    (lambda x: [(sp.Matrix([0, 0, 0]), RHO)], ModelDefinitionError),                  # zero jump
    (lambda x: [(sp.Matrix([-1, 1, 0]), sp.Symbol("mu") * x[0])], ModelDefinitionError),   # unknown symbol
])
def test_bad_transitions_are_refused_before_any_solve(bad, err):
    x = sp.symbols("x0:3", nonnegative=True)
    with pytest.raises(err):
        define_model("bad", x, bad(x), blocking=x[2], invariants=[sp.Eq(sum(x), 1)])


def test_invariant_changed_by_a_jump_is_refused():
    x = sp.symbols("x0:3", nonnegative=True)
    with pytest.raises(ModelDefinitionError, match="changed by transition"):
        define_model("bad", x, [({x[0]: -1, x[1]: 2}, RHO * x[0])], blocking=x[2], invariants=[sp.Eq(sum(x), 1)])


def test_undeclared_conserved_form_is_refused():
    x = sp.symbols("x0:3", nonnegative=True)
    trs = [({x[0]: -1, x[1]: 1}, RHO * x[0]), ({x[1]: -1, x[0]: 1}, x[1]),
           ({x[1]: -1, x[2]: 1}, RHO * x[1]), ({x[2]: -1, x[1]: 1}, 2 * x[2])]
    m = define_model("no-invariant", x, trs, blocking=x[2])
    with pytest.raises(ModelDefinitionError, match="conserves"):
        m.blocking(1)


def test_parameters_are_bound_exactly():
    x = sp.symbols("x0:2", nonnegative=True)
    mu = sp.Symbol("mu", positive=True)
    m = define_model("mm11", x, [({x[0]: -1, x[1]: 1}, RHO * x[0]), ({x[1]: -1, x[0]: 1}, mu * x[1])],
                     blocking=x[1], invariants=[sp.Eq(x[0] + x[1], 1)], parameters={mu: 2})
    B = m.blocking(1, dps=25)
    with mpmath.workdps(40):
        assert abs(B - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -25   # rho/(rho + mu)
    with pytest.raises(TypeError):
        define_model("mm11", x, [({x[0]: -1, x[1]: 1}, RHO * x[0])], blocking=x[1], parameters={mu: 2.5})


def test_fingerprint_follows_the_definition():
    assert PowerOfD(3, 2).fingerprint() == PowerOfD(3, 2).fingerprint()
    assert PowerOfD(3, 2).fingerprint() != PowerOfD(3, 3).fingerprint()

    class Edited(PowerOfD):
        def transitions(self):
            return [(j, 2 * r if min(j) < 0 else r) for j, r in super().transitions()]
    assert Edited(3, 2).fingerprint() != PowerOfD(3, 2).fingerprint()


def test_latex_is_a_complete_environment():
    s = RetrialOfD(2, 2).latex()
    assert s.startswith("\\begin{align*}") and s.endswith("\\end{align*}") and "B &=" in s


# --------------------------------------------------------------------------------------------------
# the generic certified solver against the accelerators (independent algorithms)
# --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model", [PowerOfD(2, 2), RetrialOfD(2, 3), PowerOfD(5, 3), RetrialOfD(5, 2),
                                   PowerOfD(10, 2), RetrialOfD(10, 6), PowerOfD(20, 6), RetrialOfD(20, 2),
                                   RandomRouting(7)])
@pytest.mark.parametrize("f", [0.01, 0.3, 1.0, 3.0])
def test_generic_solver_agrees_with_the_accelerators(model, f):
    rho = f * model.C
    g = certified_fixed_point(model, rho, 30, residual=False)
    a = model.fixed_point(rho, dps=30)
    lo, hi = g.blocking_bracket
    with mpmath.workdps(50):
        assert abs(g.blocking / a.blocking - 1) < mpmath.mpf(10) ** -28
        assert lo <= a.blocking * (1 + mpmath.mpf(10) ** -29) and a.blocking <= hi * (1 + mpmath.mpf(10) ** -29)
    cert = g.extra["certificate"]
    assert cert["kind"] == "krawczyk" and cert["margin"] < 1 and cert["fingerprint"] == model.fingerprint()


def test_generic_solver_far_below_the_float_range():
    g = certified_fixed_point(PowerOfD(20, 2), 10, 30, residual=False)
    a = PowerOfD(20, 2).blocking(10, dps=30)
    with mpmath.workdps(50):
        assert int(mpmath.floor(mpmath.log10(g.blocking))) == -521
        assert abs(g.blocking / a - 1) < mpmath.mpf(10) ** -28


def test_generic_solver_refuses_non_smooth_models():
    with pytest.raises(ModelDefinitionError, match="differentiable"):
        certified_fixed_point(JSQ(3), 2, 20)


def test_enclosure_holds_the_fixed_point_at_every_sampled_load():
    m = PowerOfD(3, 2)
    e = enclose(m, 1.0, 1.005)
    assert e.margin < 1
    for k in range(6):
        rho = 1.0 + 0.001 * k
        LB = mpmath.log(m.blocking(rho, dps=20))
        lo, hi = e.log_blocking.lower(), e.log_blocking.upper()
        assert float(lo.mid()) <= float(LB) <= float(hi.mid())


# --------------------------------------------------------------------------------------------------
# mutation tests: edit a rate of a definition; every solver follows or raises
# --------------------------------------------------------------------------------------------------

def test_power_of_d_with_doubled_service_rate_follows():
    class Doubled(PowerOfD):
        def transitions(self):
            return [(j, 2 * r if min(j) < 0 else r) for j, r in super().transitions()]
    m = Doubled(2, 2)
    with pytest.warns(DefinitionMismatchWarning):
        B = m.blocking(1, dps=30)
    # doubling every service rate is the load rho/2 of the original model
    ref = PowerOfD(2, 2).blocking(Fraction(1, 2), dps=30)
    old = PowerOfD(2, 2).blocking(1, dps=30)
    ind = findroot_blocking(m, Fraction(1), [0.2, 0.02])
    with mpmath.workdps(50):
        assert abs(B / ref - 1) < mpmath.mpf(10) ** -28
        assert abs(B - old) > mpmath.mpf("0.04")       # not the old number
        assert abs(B / ind - 1) < mpmath.mpf(10) ** -28


def test_retrial_with_edited_arrival_rate_follows():
    class Edited(RetrialOfD):
        def arrival_rate_expr(self):              # an extra retry weight on full servers
            p = self.variables[-1]
            return RHO * (1 + 2 * p)
    m = Edited(2, 2)
    with pytest.warns(DefinitionMismatchWarning):
        B = m.blocking(1, dps=30)
    old = RetrialOfD(2, 2).blocking(1, dps=30)
    ind = findroot_blocking(m, Fraction(1), [0.4, 0.4, 0.2])
    with mpmath.workdps(50):
        assert abs(B / old - 1) > 1e-3
        assert abs(B / ind - 1) < mpmath.mpf(10) ** -28


def test_patched_class_method_does_not_reuse_the_old_derivation(monkeypatch):
    base = PowerOfD(2, 3).blocking(1, dps=25)
    orig = PowerOfD.transitions

    def doubled(self):
        return [(j, 2 * r if min(j) < 0 else r) for j, r in orig(self)]
    monkeypatch.setattr(PowerOfD, "transitions", doubled)
    with pytest.warns(DefinitionMismatchWarning):
        B = PowerOfD(2, 3).blocking(1, dps=25)
    monkeypatch.undo()
    assert abs(B - base) > mpmath.mpf("1e-3")
    with monkeypatch.context() as mp_:
        mp_.setattr(PowerOfD, "transitions", doubled)
    assert PowerOfD(2, 3).blocking(1, dps=25) == base        # the original definition is intact


def test_jsq_mutation_follows_the_edit_instead_of_the_closed_form():
    class Edited(JSQ):
        def transitions(self):
            return [(j, 2 * r if min(j) < 0 else r) for j, r in super().transitions()]
    with pytest.warns(DefinitionMismatchWarning):
        got = Edited(2).fixed_point(3, dps=15)         # doubled service rates: JSQ's state at half the load
    assert list(got.x) == list(JSQ(2).fixed_point(Fraction(3, 2), dps=15).x) == [1, mpmath.mpf("0.5")]
    assert list(JSQ(2).fixed_point(3, dps=15).x) == [1, 1]
    assert JSQ(2).blocking(4, dps=15) == mpmath.mpf("0.5")


def test_eliminant_of_an_edited_model_belongs_to_the_edited_model():
    class Doubled(PowerOfD):
        def transitions(self):
            return [(j, 2 * r if min(j) < 0 else r) for j, r in super().transitions()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DefinitionMismatchWarning)
        P = Doubled(2, 2).eliminant()
        B = Doubled(2, 2).blocking(Fraction(3, 2), dps=40)
    with mpmath.workdps(60):
        v = sp.lambdify((RHO, symloss.meanfield.BSYM), P.as_expr(), "mpmath")(mpmath.mpf(1.5), B)
    assert abs(v) < mpmath.mpf(10) ** -30


# --------------------------------------------------------------------------------------------------
# a user model: the hybrid policy
# --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("C, d", [(2, 2), (3, 3)])
def test_hybrid_with_one_round_is_power_of_d(C, d):
    for rho in (Fraction(1, 2), 2, 7):
        a, b = hybrid(C, d, 1).blocking(rho, dps=30), PowerOfD(C, d).blocking(rho, dps=30)
        with mpmath.workdps(50):
            assert abs(a / b - 1) < mpmath.mpf(10) ** -28


@pytest.mark.parametrize("C, r", [(2, 2), (3, 3)])
def test_hybrid_with_one_sample_is_retrial(C, r):
    for rho in (Fraction(1, 2), 2, 7):
        a, b = hybrid(C, 1, r).blocking(rho, dps=30), RetrialOfD(C, r).blocking(rho, dps=30)
        with mpmath.workdps(50):
            assert abs(a / b - 1) < mpmath.mpf(10) ** -28


def test_hybrid_comparisons_and_far_below_float():
    h = hybrid(3, 2, 2)
    B = h.blocking(Fraction(1, 10**4), dps=30)
    fp = PowerOfD(3, 2).fixed_point(Fraction(1, 10**4), dps=30)      # a start for the independent solve
    ind = findroot_blocking(h, Fraction(1, 10**4), fp.x)
    with mpmath.workdps(50):
        assert B < mpmath.mpf(10) ** -100
        assert abs(B / ind - 1) < mpmath.mpf(10) ** -28
    thr = symloss.threshold_load(h, PowerOfD(3, 2), dps=15)
    assert thr == 0                                # two rounds of two samples beat one round everywhere
    res = symloss.crossing_loads(h, RetrialOfD(3, 4), rho_min=0.05, rho_max=50, dps=15)
    assert all(0.05 <= c <= 50 for c in res.crossings)


# --------------------------------------------------------------------------------------------------
# comparisons between models
# --------------------------------------------------------------------------------------------------

def test_model_form_equals_the_shorthand():
    a = symloss.threshold_load(RetrialOfD(3, 3), PowerOfD(3, 2), dps=20)
    b = symloss.threshold_load(3, 2, 3, dps=20)
    with mpmath.workdps(30):
        assert a == b and abs(a - mpmath.mpf("0.94963560400272693932")) < mpmath.mpf(10) ** -18


def test_identical_models_are_refused_at_once():
    import time
    t = time.perf_counter()
    with pytest.raises(ValueError, match="coincide"):
        symloss.crossing_loads(1, 2, 2)          # retrial-of-2 and power-of-2 at C = 1: both random routing
    assert time.perf_counter() - t < 5
    with pytest.raises(ValueError, match="same stationary equations"):
        symloss.crossing_loads(PowerOfD(3, 2), PowerOfD(3, 2))


def test_dominance_same_d():
    r = symloss.dominance(PowerOfD(2, 2), RetrialOfD(2, 2), rho_min=0.05, rho_max=20, dps=15)
    assert r.holds and not r.crossings and all(s < 0 for s in r.signs)


# --------------------------------------------------------------------------------------------------
# expansions of user models: the scaling is found numerically and verified exactly
# --------------------------------------------------------------------------------------------------

def test_series_of_user_models_match_the_shipped_cases():
    from symloss import blocking_series
    def same(a, b):
        return a.removeO() == b.removeO() and a.getO() == b.getO()
    assert same(blocking_series(hybrid(2, 2, 1), 0, 3), blocking_series(PowerOfD(2, 2), 0, 3))
    assert same(blocking_series(hybrid(2, 1, 2), 0, 3), blocking_series(RetrialOfD(2, 2), 0, 3))
    assert same(blocking_series(hybrid(2, 1, 2), "oo", 3), blocking_series(RetrialOfD(2, 2), "oo", 3))
    s = blocking_series(hybrid(2, 2, 2), 0, 2)
    assert s.removeO() == RHO ** 12 / 16 - RHO ** 14 / 4


def test_series_of_an_edited_model_follows_the_edit():
    from symloss import blocking_series

    class Doubled(PowerOfD):
        def transitions(self):
            return [(j, 2 * r if min(j) < 0 else r) for j, r in super().transitions()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DefinitionMismatchWarning)
        s = blocking_series(Doubled(2, 2), 0, 2).removeO()
    # doubled service = the original model at rho/2
    ref = blocking_series(PowerOfD(2, 2), 0, 2).removeO().subs(RHO, RHO / 2)
    assert sp.expand(s - ref) == 0


def test_jsq_ode_runs():
    r = JSQ(2).ode(3.0, [0.0, 0.0], [0, 1, 5, 20])
    assert r.success and abs(r.blocking[-1] - (1 - 2 / 3)) < 1e-3


def test_generic_eliminant_of_a_user_model():
    """Groebner elimination on the user model's own equations: hybrid(d, r=1) is power-of-d, so its
    eliminant is the shipped power-of-d eliminant (successive resultants) up to a constant."""
    P = hybrid(2, 2, 1).eliminant()
    Q = PowerOfD(2, 2).eliminant()
    ratio = sp.cancel(P.as_expr() / Q.as_expr())
    assert ratio.is_number and ratio != 0
    R = hybrid(2, 2, 2).eliminant()                # a new model: the certified blocking is a root
    B = hybrid(2, 2, 2).blocking(Fraction(7, 5), dps=40)
    with mpmath.workdps(60):
        v = sp.lambdify((RHO, symloss.meanfield.BSYM), R.as_expr(), "mpmath")(mpmath.mpf(7) / 5, B)
        scale = max(abs(c) for c in R.coeffs())
        assert abs(v) / int(scale) < mpmath.mpf(10) ** -30


def test_non_dyadic_rational_rates_are_exact_at_any_precision():
    """A coefficient 1/3 must enter the ball evaluations at the working precision, not at 53 bits."""
    x = sp.symbols("x0:2", nonnegative=True)
    m = define_model("mm11-third", x, [({x[0]: -1, x[1]: 1}, RHO * x[0] / 3), ({x[1]: -1, x[0]: 1}, x[1])],
                     blocking=x[1], invariants=[sp.Eq(x[0] + x[1], 1)])
    for dps in (30, 60):
        B = m.blocking(Fraction(2, 7), dps=dps)
        with mpmath.workdps(dps + 20):
            r = mpmath.mpf(2) / 7 / 3
            assert abs(B / (r / (1 + r)) - 1) < mpmath.mpf(10) ** -(dps - 1)
