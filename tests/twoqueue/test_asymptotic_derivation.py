"""The SymPy derivations of the five regimes (symloss.twoqueue.derivation) and the asymptotic laws
evaluated from them (symloss.twoqueue.asymptotic): checked against exact solutions and independent
numerics."""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

import symloss
from symloss import TwoQueueJSQ
from symloss.twoqueue import definition as D, derivation as dv
from symloss.twoqueue.asymptotic import corner_conditionals, corner_first_order
from symloss.twoqueue.series import corner_conditional_laws

CASES = [("a>1/2", 1.0), ("a~1/2", 0.5), ("1/4<a<1/2", 0.35), ("a~1/4", 0.25), ("a<1/4", 0.15)]


# ---- the generated equations ------------------------------------------------------------------------

def test_generated_equations_are_equation_1():
    eqs = dv.lumped_equations()
    K, d, rho = dv.K, dv.d, dv.rsym
    want = {"d>=2": {(-1, d + 1): K, (1, d - 1): rho * (K - d + 2) / (2 * (K + 1)),
                     (1, d + 1): rho * (K + d + 2) / (2 * (K + 1))},
            "d=1": {(-1, 0): K, (-1, 2): K, (1, 0): rho, (1, 2): rho * (K + 3) / (2 * (K + 1))},
            "d=0": {(-1, 1): K, (1, 1): rho * (K + 2) / (2 * (K + 1))}}
    for name, cf in eqs.items():
        assert sympy.simplify(cf.out - (K + rho)) == 0
        got = {(dK, sympy.sympify(dp)): c for dK, dp, c in cf.terms}
        assert set(got) == set(want[name])
        for k, v in want[name].items():
            assert sympy.simplify(got[k] - v) == 0
        assert "c_{K" in cf.latex()
    assert dv.level_rates() == (rho, K)


def test_outer_solution_satisfies_the_equations_and_matches_exact():
    sol = dv.outer_solution()
    assert sympy.simplify(sol.theta - 1 / (2 * dv.r + 1)) == 0
    assert len(sol.checks) == 4
    # order 1 and order epsilon against the exact conditional laws at K = rho, small d
    f = {k: sympy.lambdify((dv.r, dv.d), e) for k, e in (("g", sol.g), ("h", sol.h))}
    f0 = {k: sympy.lambdify(dv.r, e) for k, e in (("g", sol.g0), ("h", sol.h0))}
    errs = []
    for rho in (200, 800):
        ex = TwoQueueJSQ(rho, float(rho)).stationary_distribution()
        c = ex.conditional_levels[rho]
        e0 = e1 = 0.0
        for t in range(4):
            dd = 2 * t
            g = f0["g"](1.0) if dd == 0 else f["g"](1.0, dd)
            h = f0["h"](1.0) if dd == 0 else f["h"](1.0, dd)
            e0 = max(e0, abs(g / c[t] - 1))
            e1 = max(e1, abs((g + h / rho) / c[t] - 1))
        errs.append((e0, e1))
    (a0, a1), (b0, b1) = errs
    assert 3 < a0 / b0 < 5 and 12 < a1 / b1 < 20       # O(1/rho) and O(1/rho^2)


def test_corner_walk_is_the_longer_queue_model():
    w = dv.corner_walk()
    a = dv.a
    assert dict(w.jumps["D>=2"]) == {(0, -1): 1, (0, 1): a, (1, -1): a}
    assert dict(w.jumps["D=0"]) == {(-1, 1): 1, (0, 1): 2 * a}
    assert dict(w.jumps["J=0"]) == {(0, 1): 2 * a}
    assert w.load == 2 * a
    law = dv.corner_law()
    assert "functional equation" in " ".join(law.checks)
    assert r"\zeta" in law.latex()


@pytest.mark.parametrize("a", [0.05, 0.15, 0.25, 0.35, 0.45, 0.5, 0.7])
def test_corner_closed_form_equals_level_reduction(a):
    J = 120
    cf = corner_conditional_laws(a, 60)
    if a < 0.5:
        ref = corner_conditionals(a, 400)
    else:   # for a >= 1/2 the analytic continuation is the solution matched to the outer law
        ds = np.arange(J % 2, J + 1, 2)
        th = 1 / (1 + 4 * a)
        term = np.where(ds == 0, 1 - th, (1 - th * th) * th ** (np.maximum(ds, 1) - 1.0))
        ref = corner_conditionals(a, J, terminal=term / term.sum())
    for jj in range(61):
        sel = ref[jj] > 1e-250
        assert np.max(np.abs(cf[jj][sel] / ref[jj][sel] - 1)) < 1e-12
        assert abs(cf[jj].sum() - 1) < 1e-13


def test_corner_closed_form_high_precision():
    from proofs_check.claims.seed003_regimes import _corner_numeric
    assert _corner_numeric("0.3", 30) < 1e-45


def test_corner_first_order_solves_its_equation_and_improves():
    a = 0.35
    c1 = corner_first_order(a, 80)
    assert all(abs(x.sum()) < 1e-12 for x in c1) and np.all(c1[0] == 0)
    # finite-rho corner conditionals: c_j ~ c0_j + c1_j / rho, error O(1/rho^2)
    c0 = corner_conditional_laws(a, 10)
    e = []
    for rho in (200, 800):
        N = int(a * rho)
        ex = TwoQueueJSQ(N, float(rho)).stationary_distribution()
        jj = 4
        c = ex.conditional_levels[2 * N - jj]
        e.append((np.abs(c - c0[jj]).sum(), np.abs(c - c0[jj] - c1[jj] / rho).sum()))
    assert 3 < e[0][0] / e[1][0] < 5 and e[0][1] / e[1][1] > 10


# ---- blocking -------------------------------------------------------------------------------------------

def test_blocking_expansions():
    want = 1 - 2 * dv.a + 2 * dv.a / (dv.rsym * (1 - 2 * dv.a))
    assert sympy.simplify(dv.blocking_expansion("a<1/2", 1) - want) == 0
    e = dv.blocking_expansion("a>1/2", 1)
    lead = dv.blocking_expansion("a>1/2", 0)
    assert sympy.simplify(e / lead - (1 - 1 / (24 * dv.a * dv.rsym))) == 0      # Stirling's 1/(12 C)
    hw0 = dv.blocking_expansion("a~1/2", 0)
    v = float(hw0.subs({dv.beta: 0, dv.rsym: 1}))
    assert v == pytest.approx(math.sqrt(2 / math.pi))                          # phi(0)/Phi(0)
    assert dv.erlang_integral_identity(5)
    with pytest.raises(ValueError, match="regime"):
        dv.blocking_expansion("a=1/3")
    with pytest.raises(ValueError, match="order"):
        dv.blocking_expansion("a<1/2", 3)


@pytest.mark.parametrize("regime,a,q0,q1", [("a>1/2", 1.0, 1, 2), ("1/4<a<1/2", 0.35, 1, 2),
                                             ("a~1/2", 0.5, 0.5, 1)])
def test_blocking_error_exponents(regime, a, q0, q1):
    errs = {0: [], 1: []}
    rhos = (400, 1600, 6400)
    for rho in rhos:
        N = int(round(a * rho))
        ex = symloss.erlang_b(2 * N, rho, dps=30)
        for order in (0, 1):
            lb = TwoQueueJSQ(N, float(rho)).asymptotic("log_blocking", regime=regime, order=order)
            errs[order].append(float(abs(mpmath.exp(lb - mpmath.log(ex)) - 1)))
    for order, q in ((0, q0), (1, q1)):
        fit = -np.polyfit(np.log(rhos), np.log(errs[order]), 1)[0]
        assert abs(fit - q) < 0.15, (regime, order, fit)


# ---- imbalance, tails ----------------------------------------------------------------------------------

def test_imbalance_limit_law_and_expansion():
    e = dv.imbalance_limit_law()
    f = sympy.lambdify((dv.d, dv.a), e)
    for a in (0.1, 0.3, 0.5):
        vals = [f(i, a) for i in range(200)]
        assert sum(vals) == pytest.approx(1, abs=1e-12)
        assert vals[0] == pytest.approx((1 - a) / (1 + a))
    exp1 = dv.imbalance_expansion()
    rho = 800
    ex = TwoQueueJSQ(rho, float(rho)).stationary_distribution().imbalance()
    g = sympy.lambdify((dv.d, dv.rsym), exp1)
    lim = sympy.lambdify((dv.d,), e.subs(dv.a, sympy.Rational(1, 2)))
    for i in range(4):
        assert abs(g(i, rho) - ex[i]) < abs(lim(i) - ex[i]) / 20     # O(1/rho^2) vs O(1/rho)


def test_tail_poles_and_rate():
    assert set(map(str, dv.tail_poles())) == {"1/a", "1/(4*a**2)"}
    for a in (0.1, 0.2, 0.3, 0.45):
        assert TwoQueueJSQ(int(a * 1000), 1000.0).asymptotic("tail_rate") == pytest.approx(max(a, 4 * a * a))
    # in the closed-form corner law the tail ratio of N - min tends to max(a, 4a^2)
    for a in (0.15, 0.35):
        c = corner_conditional_laws(a, 160)
        pv = np.zeros(161)
        for jj in range(161):
            for t, x in enumerate(c[jj]):
                dd = jj % 2 + 2 * t
                pv[(jj + dd) // 2] += (1 - 2 * a) * (2 * a) ** jj * x
        assert pv[61] / pv[60] == pytest.approx(max(a, 4 * a * a), rel=2e-3)
    with pytest.raises(ValueError, match="a < 1/2|a = N/rho < 1/2"):
        TwoQueueJSQ(60, 100.0).asymptotic("tail_rate")


# ---- the asymptotic laws -----------------------------------------------------------------------------

@pytest.mark.parametrize("regime,a", CASES)
def test_distribution_errors_fall_like_rho_minus_one_and_two(regime, a):
    tv = {0: [], 1: []}
    rhos = (100, 400)
    for rho in rhos:
        m = TwoQueueJSQ(int(round(a * rho)), float(rho))
        assert m.regime == regime
        ex = m.stationary_distribution()
        for order in (0, 1):
            ap = m.asymptotic("distribution", order=order)
            tv[order].append(0.5 * np.abs(ap.p - ex.p).sum())
            assert abs(ap.p.sum() - 1) < 1e-12
    r0 = tv[0][0] / tv[0][1]
    r1 = tv[1][0] / tv[1][1]
    assert 3 < r0 < 5.5                                   # rho^-1
    assert r1 > (5.5 if regime == "a~1/2" else 11)        # rho^-2 (rho^-1 and better at a ~ 1/2)
    assert tv[1][1] < tv[0][1] / 3


def test_asymptotic_law_summaries_consistent():
    m = TwoQueueJSQ(140, 400.0)
    law = m.asymptotic("distribution")
    P = law.p
    assert np.allclose(law.marginal_min(), [P[k, k] + 2 * P[k, k + 1:].sum() for k in range(141)], atol=1e-15)
    assert np.allclose(law.marginal(), P.sum(axis=1), atol=1e-15)
    im = law.imbalance()
    assert im[0] == pytest.approx(np.trace(P)) and im.sum() == pytest.approx(1)
    K = 270
    ct = law.conditional(total=K)
    assert ct.sum() == pytest.approx(1)
    col = P[:, 130] / P[:, 130].sum()
    assert np.allclose(law.conditional(n=130), col)
    assert law.blocking() == pytest.approx(float(symloss.erlang_b(280, 400.0)), rel=1e-9)
    assert law.to_dict()["order"] == 1
    v = law.value(np.array([10, 139]), np.array([140, 139]))
    assert v[1] == pytest.approx(P[139, 139]) and v[0] == pytest.approx(P[10, 140])


def test_asymptotic_expr_and_latex():
    m = TwoQueueJSQ(300, 1000)
    e = m.asymptotic_expr("blocking")
    assert sympy.latex(e)
    assert sympy.simplify(m.asymptotic_expr("blocking", order=0) - (1 - 2 * dv.a)) == 0
    gf = m.asymptotic_expr("corner_generating_function")
    assert gf.has(dv.X) and gf.has(dv.Z)
    big = TwoQueueJSQ(1000, 1000)
    c = big.asymptotic_expr("conditional")
    assert c.has(dv.r) and c.has(dv.eps)
    assert big.asymptotic_expr("joint").has(dv.K)
    assert big.asymptotic_expr("imbalance").has(dv.rsym)
    assert set(m.asymptotic_expr("equations")) == {"d>=2", "d=1", "d=0"}
    assert len(m.asymptotic_expr("tail_rate")) == 2
    with pytest.raises(ValueError, match="quantity"):
        m.asymptotic_expr("mean")
    with pytest.raises(ValueError, match="regime"):
        m.asymptotic_expr("blocking", "a=1/3")
    with pytest.raises(ValueError, match="order"):
        m.asymptotic_expr("blocking", order=2)
    with pytest.raises(ValueError, match="order"):
        m.asymptotic("blocking", order=5)
    with pytest.raises(TypeError, match="J"):
        m.asymptotic("marginal", J=2.5)


def test_asymptotics_of_an_edited_model_follow_or_raise():
    """An edited definition: the derivations run on its rules, and either they do not apply (raise)
    or their result approximates the edited chain, never the seed model."""
    from symloss.twoqueue.derivation import DerivationError
    jlq = type("JLQ", (TwoQueueJSQ,), {"rules": (
        D.Rule((1, 0), D.rho, D.m > D.n), D.Rule((0, 1), D.rho, D.n > D.m),      # join the LONGER queue
        D.Rule((1, 0), D.rho / 2, sympy.Eq(D.m, D.n) & (D.m < D.N)),
        D.Rule((0, 1), D.rho / 2, sympy.Eq(D.m, D.n) & (D.m < D.N)),
        D.Rule((1, 0), D.rho, (D.n == D.N) & (D.m < D.N)), D.Rule((0, 1), D.rho, (D.m == D.N) & (D.n < D.N)),
        D.Rule((-1, 0), D.m, D.m > 0), D.Rule((0, -1), D.n, D.n > 0))})
    with pytest.raises(DerivationError):
        jlq(100, 100.0).asymptotic("imbalance")
    tie = type("Tie", (TwoQueueJSQ,), {"rules": tuple(
        D.Rule(r.jump, D.rho / 3 if r.jump == (1, 0) else 2 * D.rho / 3, r.when) if r.rate == D.rho / 2 else r
        for r in D.RULES)})
    with pytest.raises(DerivationError, match="symmetric"):
        tie(100, 100.0).asymptotic("marginal")
    fast = type("Fast", (TwoQueueJSQ,), {"rules": tuple(
        D.Rule(r.jump, 2 * r.rate, r.when) if r.jump in ((-1, 0), (0, -1)) else r for r in D.RULES)})
    with pytest.raises(DerivationError, match="level rates"):
        fast(100, 100.0).asymptotic("blocking")

    class Opaque(TwoQueueJSQ):
        def transitions(self, m, n):
            return super().transitions(m, n)
    with pytest.raises(DerivationError, match="overrides transitions"):
        Opaque(10, 10.0).asymptotic("blocking")
    with pytest.raises(DerivationError):
        dv.lumped_equations(jlq.rules[:2] + (D.Rule((1, 0), D.rho, sympy.Eq(D.m, 7)),))


def test_marginal_min_tail_uniform():
    for N, rho in ((105, 300), (45, 300), (200, 200)):
        m = TwoQueueJSQ(N, float(rho))
        ex = m.stationary_distribution().marginal_min()
        sel = ex > 1e-300
        assert np.max(np.abs(m.asymptotic("marginal_min_tail")[sel] / ex[sel] - 1)) < 0.05


def test_exact_limit_values_from_closed_form():
    """P(m = n) of the corner law (closed form) at a rational a, exactly: (1-a)/(1+a)."""
    e = dv.imbalance_limit_law()
    assert e.subs({dv.d: 0, dv.a: sympy.Rational(1, 3)}) == sympy.Rational(1, 2)
    assert e.subs({dv.d: 2, dv.a: sympy.Rational(1, 3)}) == sympy.Rational(2 * 27, 9 * 64)
    m = TwoQueueJSQ(1, Fraction(3))                      # a = 1/3
    assert m.asymptotic("imbalance_limit")[0] == pytest.approx(0.5)
    assert TwoQueueJSQ(2, Fraction(3)).asymptotic("imbalance_limit")[0] == pytest.approx(1 / 3)   # a > 1/2


# ---- bad input and properties ----------------------------------------------------------------------------

def test_bad_input_of_the_new_functions():
    from symloss.twoqueue.asymptotic import asymptotic_law, blocking_asymptotic
    from symloss.twoqueue.kernels import level_kernels
    with pytest.raises(ValueError, match="m"):
        D.transitions(3, 4, 0)
    with pytest.raises(ValueError, match="N"):
        D.transitions(0, 0, 0)
    with pytest.raises(TypeError, match="n"):
        D.transitions(3, 1, 1.5)
    with pytest.raises(ValueError, match="square"):
        D.balance_residual(np.zeros((3, 4)), 1.0)
    with pytest.raises(ValueError, match="rho_value"):
        D.balance_residual(np.zeros((3, 3)), -1.0)
    with pytest.raises(ValueError, match="N"):
        level_kernels(0, lambda i, j: [])
    with pytest.raises(TypeError, match="callable"):
        level_kernels(2, "rules")
    with pytest.raises(TypeError, match="lump"):
        level_kernels(2, lambda i, j: D.transitions(2, i, j), lump="yes")
    with pytest.raises(ValueError, match="a"):
        corner_conditional_laws(-0.1, 5)
    with pytest.raises(ValueError, match="J"):
        corner_conditional_laws(0.3, -1)
    with pytest.raises(ValueError, match="rho"):
        asymptotic_law(10, 0.0, "a>1/2")
    with pytest.raises(TypeError, match="N"):
        asymptotic_law(10.5, 5.0, "a>1/2")
    with pytest.raises(ValueError, match="regime"):
        asymptotic_law(10, 5.0, "a>1")
    with pytest.raises(ValueError, match="order"):
        blocking_asymptotic(10, 5.0, "a>1/2", order=3)


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=20, deadline=None)
@given(N=st.integers(2, 120), rho=st.floats(5.0, 300.0), order=st.sampled_from([0, 1]))
def test_asymptotic_law_is_a_probability_law(N, rho, order):
    m = TwoQueueJSQ(N, rho)
    law = m.asymptotic("distribution", order=order)
    for v in (law.marginal_min(), law.marginal(), law.imbalance(), law.total()):
        assert (v >= 0).all() and abs(v.sum() - 1) < 1e-9
    mn, mx = law.marginal_min(), law.marginal_max()
    k = np.arange(N + 1)
    EK = (np.arange(2 * N + 1) * law.total()).sum()
    assert (k * mn).sum() + (k * mx).sum() == pytest.approx(EK, rel=1e-9)      # min + max = m + n
    assert law.blocking() == pytest.approx(float(symloss.erlang_b(2 * N, rho)), rel=1e-9)
