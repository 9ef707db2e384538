"""A model's identity is its definition (issue 21, part 1 and 2): caches, fingerprints, finite-N chains
and accelerator bindings are keyed on the derived definition (parameters included), never on a class
and a few constructor arguments; floats a user writes are their exact binary value; non-integer jumps
are refused with the place named.

Independent references: the Erlang-B recursion in exact Fractions (random routing with a scaled
arrival rate is an M/M/C/C station of load ``scale * rho``), exact rational solutions of 2-state
models, and the shipped model at the equivalent load (scaling every arrival rate by ``k`` is the load
``k * rho``: the issue's ``Boosted(2, 2, 2).blocking(1) = PowerOfD(2, 2).blocking(2) = 0.2828160608``).
"""
import warnings
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symloss
from symloss import RHO, ModelDefinitionError, PowerOfD, RandomRouting, define_model, exact_finite_n

pytestmark = [pytest.mark.timeout(300), pytest.mark.filterwarnings("ignore::symloss.DefinitionMismatchWarning")]


def erlang_b_exact(C, a):
    """E(C, a) by the recursion E_k = a E_{k-1} / (k + a E_{k-1}) in exact Fractions."""
    e = Fraction(1)
    for k in range(1, C + 1):
        e = a * e / (k + a * e)
    return e


def mpq(q):
    """A Fraction as an mpf at 60 digits (the comparisons are at <= 30)."""
    with mpmath.workdps(60):
        return mpmath.mpf(q.numerator) / q.denominator


class Boosted(PowerOfD):
    """The issue's example: constructor state the base class does not know, multiplying arrivals."""

    def __init__(self, C, d, boost):
        super().__init__(C, d)
        self.boost = sp.nsimplify(boost) if not isinstance(boost, Fraction) else sp.Rational(boost.numerator,
                                                                                            boost.denominator)

    def transitions(self):
        return [(j, r * self.boost if r.has(RHO) else r) for j, r in super().transitions()]


class Scaled(RandomRouting):
    """Random routing whose arrival rate is multiplied by ``scale``: blocking E(C, scale * rho)."""

    def __init__(self, C, scale):
        super().__init__(C)
        self.scale = sp.Rational(scale.numerator, scale.denominator)

    def transitions(self):
        return [(j, r * self.scale if r.has(RHO) else r) for j, r in super().transitions()]


def test_subclass_state_is_part_of_the_identity():
    """Boosted(2, 2, 1) then Boosted(2, 2, 2): the second is its own model (was the first's number)."""
    a, b = Boosted(2, 2, 1), Boosted(2, 2, 2)
    ba = a.blocking(1, dps=30)
    bb = b.blocking(1, dps=30)
    assert abs(bb - mpmath.mpf("0.2828160608")) < 1e-10                      # the truth
    assert abs(bb - PowerOfD(2, 2).blocking(2, dps=30)) < mpmath.mpf(10) ** -28
    assert abs(ba - PowerOfD(2, 2).blocking(1, dps=30)) < mpmath.mpf(10) ** -28
    assert a.fingerprint() != b.fingerprint()
    assert a._definition_key() != b._definition_key()
    # the finite-N chain follows (scaling arrivals by 2 is the load 2)
    fa, fb = exact_finite_n(a, 3, 1.0), exact_finite_n(b, 3, 1.0)
    ref = exact_finite_n(PowerOfD(2, 2), 3, 2.0)
    assert abs(fb.blocking - ref.blocking) < 1e-12 and abs(fa.blocking - fb.blocking) > 1e-3
    # the refined mean field follows
    ra = symloss.refined_mean_field(a, rho=1.0)
    rb = symloss.refined_mean_field(b, rho=1.0)
    rr = symloss.refined_mean_field(PowerOfD(2, 2), rho=2.0)
    assert abs(float(rb.V) - float(rr.V)) < 1e-9 * max(1.0, abs(float(rr.V)))
    assert abs(float(ra.V) - float(rb.V)) > 1e-6


def test_equal_definitions_share_and_edits_do_not():
    """Two instances of equal definition share derivations (one compiled system); an assignment, a
    replaced class method (mutation test) or a parameter value gives a new identity and new numbers."""
    a, b = Scaled(2, Fraction(3, 2)), Scaled(2, Fraction(3, 2))
    assert a._definition_key() == b._definition_key()
    assert a.compiled is b.compiled
    assert Boosted(2, 2, 1)._definition_key() == PowerOfD(2, 2)._definition_key()   # same equations
    m = Scaled(2, Fraction(1))
    v1 = m.blocking(Fraction(1), dps=25)
    m.scale = sp.Integer(3)                         # assignment: a new definition
    v3 = m.blocking(Fraction(1), dps=25)
    for v, s in ((v1, 1), (v3, 3)):
        e = erlang_b_exact(2, Fraction(s))
        assert abs(v - mpq(e)) < mpmath.mpf(10) ** -23
    # a mutation of the class: the edited rate is followed
    orig = Scaled.transitions
    try:
        Scaled.transitions = lambda self: [(j, r * 2 * self.scale if r.has(RHO) else r)
                                           for j, r in RandomRouting.transitions(self)]
        v = m.blocking(Fraction(1), dps=25)
        e = erlang_b_exact(2, Fraction(6))
        assert abs(v - mpq(e)) < mpmath.mpf(10) ** -23
    finally:
        Scaled.transitions = orig
    assert abs(m.blocking(Fraction(1), dps=25) - v3) < mpmath.mpf(10) ** -23


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(C=st.integers(1, 3),
       scales=st.lists(st.fractions(min_value=Fraction(1, 8), max_value=Fraction(8), max_denominator=12),
                       min_size=2, max_size=4),
       rho=st.fractions(min_value=Fraction(1, 4), max_value=Fraction(4), max_denominator=8))
def test_generated_subclasses_never_share_a_number(C, scales, rho):
    """Property: instances that differ in a constructor attribute the definition uses each get their
    own blocking (the exact Erlang value of their own load), in any call order, and equal
    fingerprints only for equal definitions."""
    models = [Scaled(C, s) for s in scales]
    for m, s in list(zip(models, scales)) + list(zip(models[::-1], scales[::-1])):
        e = erlang_b_exact(C, s * rho)
        got = m.blocking(rho, dps=20)
        assert abs(got - mpq(e)) <= mpmath.mpf(10) ** -18 * max(1, got)
    for (m1, s1) in zip(models, scales):
        for (m2, s2) in zip(models, scales):
            assert (m1.fingerprint() == m2.fingerprint()) == (s1 == s2)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(extra=st.dictionaries(st.sampled_from(["tag", "note", "k"]), st.integers(0, 5), max_size=2),
       boost=st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(3)]))
def test_generated_subclasses_with_extra_unused_state(extra, boost):
    """Extra attributes the definition does not read do not change the numbers; the boost does."""
    m = Boosted(2, 2, boost)
    for k, v in extra.items():
        setattr(m, k, v)
    got = m.blocking(1, dps=20)
    ref = PowerOfD(2, 2).blocking(float(boost) if boost.denominator in (1, 2) else boost, dps=20)
    assert abs(got - ref) < mpmath.mpf(10) ** -18


def test_floats_are_their_exact_binary_value():
    """A rate 0.25000001*rho*x0 is solved with the exact binary value of 0.25000001 (was nsimplify's
    1/4, certified to 30 digits as exactly 0.2; the truth is 0.2000000064), and the finite-N chain of
    the same definition agrees."""
    x0, x1 = sp.symbols("x0 x1", nonnegative=True)
    m = define_model("float-rate", [x0, x1], [({x0: -1, x1: 1}, 0.25000001 * RHO * x0), ({x1: -1, x0: 1}, x1)],
                     blocking=x1, invariants=[sp.Eq(x0 + x1, 1)], state_kind="occupancy", C=1)
    q = Fraction(0.25000001)                    # exact binary value
    exact = q / (1 + q)
    with mpmath.workdps(40):
        ref = mpmath.mpf(exact.numerator) / exact.denominator
    got = m.blocking(1, dps=30)
    assert abs(got - ref) < mpmath.mpf(10) ** -29
    assert abs(got - mpmath.mpf("0.2")) > 1e-9
    # a subclass's float parameter value is exact too
    mu = sp.Symbol("mu", positive=True)

    class P(symloss.MeanFieldModel):
        parameter_values = {mu: 0.1}
        variables = (x0, x1)

        def transitions(self):
            return [(sp.Matrix([-1, 1]), RHO * x0), (sp.Matrix([1, -1]), mu * x1)]

        def blocking_expr(self):
            return x1

        def invariants(self):
            return [sp.Eq(x0 + x1, 1)]
    m2 = P()
    assert m2._checked_transitions[1][1] == sp.Rational(Fraction(0.1).numerator, Fraction(0.1).denominator) * x1
    # finite N keeps the same exact value
    fn = exact_finite_n(m, 1, Fraction(1))
    assert abs(fn.blocking - float(exact)) < 1e-15


def test_non_finite_and_non_integer_values_refused_with_the_place():
    x = sp.Symbol("x", nonnegative=True)
    y = sp.Symbol("y", nonnegative=True)
    with pytest.raises(ModelDefinitionError, match=r"transitions\[0\].*jump of x must be an integer.*0\.5"):
        define_model("half", [x, y], [({x: 0.5, y: -1}, RHO * y), ({x: -1, y: 1}, x)], blocking=x)
    with pytest.raises(ModelDefinitionError, match=r"transition 0: jump entries must be integers"):
        define_model("half2", [x, y], [([sp.Rational(1, 2), -1], RHO * y), ({x: -1, y: 1}, x)], blocking=x)
    with pytest.raises(ModelDefinitionError, match=r"transition 1: rate.*non-finite"):
        define_model("inf", [x, y], [({x: 1, y: -1}, RHO * y), ({x: -1, y: 1}, sp.oo * x)], blocking=x)
    # an integral float jump (1.0) is not silently truncated either: it is refused like 0.5 ...
    with pytest.raises(ModelDefinitionError, match="must be an integer"):
        define_model("f1", [x, y], [({x: 1.0, y: -1}, RHO * y), ({x: -1, y: 1}, x)], blocking=x)
    # ... while integer types are accepted
    m = define_model("ok", [x, y], [({x: sp.Integer(1), y: -1}, RHO * y), ({x: -1, y: 1}, x)], blocking=x,
                     invariants=[sp.Eq(x + y, 1)])
    assert abs(m.blocking(1, dps=20) - mpq(Fraction(1, 2))) < 1e-18


def test_defined_model_data_is_immutable():
    """define_model's data cannot be changed in place behind the caches (tuples, a read-only mapping)."""
    x, y = sp.symbols("x y", nonnegative=True)
    mu = sp.Symbol("mu", positive=True)
    m = define_model("p", [x, y], [({x: -1, y: 1}, RHO * x), ({x: 1, y: -1}, mu * y)], blocking=y,
                     invariants=[sp.Eq(x + y, 1)], parameters={mu: 2})
    with pytest.raises(TypeError):
        m.parameter_values[mu] = 3
    assert abs(m.blocking(1, dps=20) - mpq(Fraction(1, 3))) < 1e-18          # rho / (rho + mu)


def test_other_families_key_on_their_state():
    """Supermarket: a subclass whose drift reads extra state gets its own numbers; TwoQueueJSQ and
    the loss network drop their caches when an attribute is assigned."""
    from symloss import Supermarket, TwoQueueJSQ

    class Slow(Supermarket):
        """Service rate ``nu``: the drift of the shipped model with lam/nu, time rescaled."""

        def __init__(self, d, lam, nu):
            super().__init__(d, lam)
            self.nu = nu

        def drift(self, K=None, **kw):
            return super().drift(K, **kw) * self.nu

    a, b = Slow(2, Fraction(1, 2), 1), Slow(2, Fraction(1, 2), 3)
    t = [0.0, 0.5]
    s0 = [1.0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ya = a.ode(s0, t).s[-1][1]
        yb = b.ode(s0, t).s[-1][1]
        yr = Supermarket(2, Fraction(1, 2)).ode(s0, [0.0, 1.5]).s[-1][1]     # nu = 3 is time x 3
    assert abs(yb - yr) < 1e-7 and abs(ya - yb) > 1e-3
    tq = TwoQueueJSQ(2, 1)
    k1 = tq.kernels()
    tq.N = 3
    assert "_cache" not in tq.__dict__
    assert tq.kernels() is not k1


def test_smooth_non_polynomial_rates_are_certified():
    """A rate with sin (was: NameError 'math' in the generated ball code): the certified blocking
    equals an independent mpmath root of the 1-d fixed-point equation rho x0 (1 + sin(x1)/2) = x1."""
    x0, x1 = sp.symbols("x0 x1", nonnegative=True)
    m = define_model("sin", [x0, x1], [({x0: -1, x1: 1}, RHO * x0 * (1 + sp.sin(x1) / 2)), ({x1: -1, x0: 1}, x1)],
                     blocking=x1, invariants=[sp.Eq(x0 + x1, 1)])
    with mpmath.workdps(40):
        ref = mpmath.findroot(lambda b: (1 - b) * (1 + mpmath.sin(b) / 2) - b, 0.5)
    assert abs(m.blocking(1, dps=30) - ref) < mpmath.mpf(10) ** -28
    with pytest.raises(ModelDefinitionError, match=r"besselj.*no ball"):
        bad = define_model("bessel", [x0, x1], [({x0: -1, x1: 1}, RHO * x0 * (1 + sp.besselj(0, x1))),
                                                ({x1: -1, x0: 1}, x1)], blocking=x1, invariants=[sp.Eq(x0 + x1, 1)])
        bad.blocking(1, dps=20)


def test_overlapping_invariants():
    """Two invariants that overlap (a0 + a1 + b0 + b1 = 2 and b0 + b1 = 1; was a singular square system
    and a misleading 'float start failed'): two independent M/M/1/1 groups, exact blocking
    (rho/(1+rho) + 2rho/(1+2rho))/2."""
    a0, a1, b0, b1 = sp.symbols("a0 a1 b0 b1", nonnegative=True)
    m = define_model("two groups", [a0, a1, b0, b1],
                     [({a0: -1, a1: 1}, RHO * a0), ({a1: -1, a0: 1}, a1),
                      ({b0: -1, b1: 1}, 2 * RHO * b0), ({b1: -1, b0: 1}, b1)],
                     blocking=(a1 + b1) / 2, invariants=[sp.Eq(a0 + a1 + b0 + b1, 2), sp.Eq(b0 + b1, 1)])
    for rho in (Fraction(1, 3), Fraction(1), Fraction(7, 2)):
        exact = (rho / (1 + rho) + 2 * rho / (1 + 2 * rho)) / 2
        assert abs(m.blocking(rho, dps=25) - mpq(exact)) < mpmath.mpf(10) ** -23
    with pytest.raises(ModelDefinitionError, match="combination of the other invariants"):
        define_model("dependent", [a0, a1, b0, b1],
                     [({a0: -1, a1: 1}, RHO * a0), ({a1: -1, a0: 1}, a1),
                      ({b0: -1, b1: 1}, 2 * RHO * b0), ({b1: -1, b0: 1}, b1)],
                     blocking=(a1 + b1) / 2, invariants=[sp.Eq(a0 + a1, 1), sp.Eq(b0 + b1, 1),
                                                         sp.Eq(a0 + a1 + b0 + b1, 2)]).stationary_system()
