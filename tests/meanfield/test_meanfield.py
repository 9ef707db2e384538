"""Mean-field models of seed 000: symbolic definition, certified fixed points, ODE, eliminants,
crossings and thresholds."""
import csv
import pathlib
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, strategies as st

from symloss import (JSQ, PowerOfD, RandomRouting, RetrialOfD, crossing_loads, erlang_b,
                     threshold_load)
from symloss.meanfield.models import BSYM, RHO

DATA = pathlib.Path(__file__).parents[1] / "data" / "meanfield_reference.csv"


def _rows():
    with open(DATA) as fh:
        return list(csv.DictReader(line for line in fh if not line.startswith("#")))


def _model(policy, C, d):
    return {"retrial": lambda: RetrialOfD(C, d), "random": lambda: RandomRouting(C),
            "power": lambda: PowerOfD(C, d)}[policy]()


def _rel(u, v):
    with mpmath.workdps(80):
        return abs(mpmath.mpf(u) - mpmath.mpf(v)) / abs(mpmath.mpf(v))


@pytest.mark.parametrize("row", _rows(), ids=lambda r: f"{r['policy']}-C{r['C']}-d{r['d']}-rho{r['rho']}")
def test_blocking_matches_independent_reference(row):
    m = _model(row["policy"], int(row["C"]), int(row["d"]))
    rho = Fraction(row["rho"])
    with mpmath.workdps(60):
        ref = mpmath.mpf(row["blocking"])
    for dps in (20, 40):
        b = m.blocking(rho, dps=dps)
        assert _rel(b, ref) <= mpmath.mpf(10) ** (-dps), (dps, b, ref)


def test_worked_check_C2_d2_rho1():
    with mpmath.workdps(60):
        ret = (mpmath.cbrt(2) - 1) ** 2
        roots = mpmath.polyroots([1, 2, -2, -4, 1], maxsteps=200, extraprec=200)
        s = [r for r in roots if abs(mpmath.im(r)) < 1e-40 and 0 < mpmath.re(r) < 1]
        assert len(s) == 1
        pod = mpmath.re(s[0]) ** 2
    assert _rel(RetrialOfD(2, 2).blocking(1, dps=50), ret) < mpmath.mpf(10) ** -50
    assert _rel(PowerOfD(2, 2).blocking(1, dps=50), pod) < mpmath.mpf(10) ** -50
    assert mpmath.nstr(PowerOfD(2, 2).fixed_point(1).x[1], 15) == "0.230292578846118"


@pytest.mark.parametrize("m,rho,exp10", [(PowerOfD(5, 3), Fraction(1, 2), -160), (PowerOfD(20, 2), 10, -521)])
def test_far_below_float_range(m, rho, exp10):
    fp = m.fixed_point(rho, dps=30)
    B = fp.blocking
    assert B > 0 and int(mpmath.floor(mpmath.log10(B))) == exp10
    lo, hi = fp.blocking_bracket
    with mpmath.workdps(50):
        assert lo <= B * (1 + mpmath.mpf(10) ** -29) and B <= hi * (1 + mpmath.mpf(10) ** -29)
        assert (hi - lo) <= mpmath.mpf(10) ** -30 * B
    # relative residual of every stationary equation of the symbolic model
    C, d = m.C, m.d
    with mpmath.workdps(60):
        u = [mpmath.mpf(1)] + [mpmath.mpf(v) for v in fp.x] + [mpmath.mpf(0)]
        r = mpmath.mpf(rho.numerator) / rho.denominator if isinstance(rho, Fraction) else mpmath.mpf(rho)
        for k in range(1, C + 1):
            lhs, rhs = r * (u[k - 1] ** d - u[k] ** d), k * (u[k] - u[k + 1])
            assert abs(lhs - rhs) <= mpmath.mpf(10) ** -20 * abs(rhs)  # x is rounded to 30 digits


def test_C50_is_smaller_still_and_C1000_works():
    b50 = PowerOfD(50, 2).blocking(10, dps=20)
    assert 0 < b50 < PowerOfD(20, 2).blocking(10, dps=20)
    assert mpmath.log10(b50) < -1e9
    b = RetrialOfD(1000, 2).blocking(900, dps=20)
    assert mpmath.mpf("3.5e-9") < b < mpmath.mpf("3.6e-9")


def test_C1_policies_coincide():
    for rho in (Fraction(1, 3), 1, 7):
        r = RetrialOfD(1, 3).blocking(rho, dps=30)
        p = PowerOfD(1, 3).blocking(rho, dps=30)
        assert _rel(r, p) < mpmath.mpf(10) ** -28


def test_random_routing_is_erlang_b_and_jsq_closed_form():
    assert _rel(RandomRouting(7).blocking(Fraction(9, 2), dps=40), erlang_b(7, Fraction(9, 2), dps=40)) < mpmath.mpf(10) ** -40
    assert JSQ(3).blocking(2) == 0
    assert _rel(JSQ(3).blocking(6), mpmath.mpf("0.5")) < mpmath.mpf(10) ** -30


# ---------------------------------------------------------------- one symbolic definition

def test_drift_matches_the_written_equations():
    m = RetrialOfD(3, 2)
    x = m.variables
    lam = RHO * (1 + x[3])
    expect = [-lam * x[0] + x[1], lam * x[0] - (lam + 1) * x[1] + 2 * x[2],
              lam * x[1] - (lam + 2) * x[2] + 3 * x[3], lam * x[2] - 3 * x[3]]
    for got, want in zip(m.drift(), expect):
        assert sp.expand(got - want) == 0
    p = PowerOfD(3, 2)
    u = p.variables
    uu = [1, *u, 0]
    for k in range(1, 4):
        want = RHO * (uu[k - 1] ** 2 - uu[k] ** 2) - k * (uu[k] - uu[k + 1])
        assert sp.expand(p.drift()[k - 1] - want) == 0
    assert p.jacobian().shape == (3, 3)
    assert sp.expand(sum(m.drift())) == 0   # conservation of mass


def test_fixed_point_solves_the_symbolic_system():
    for m in (RetrialOfD(3, 2), PowerOfD(3, 3)):
        fp = m.fixed_point(Fraction(3, 2), dps=40)
        assert fp.residual < mpmath.mpf(10) ** -38
        subs = dict(zip(m.variables, [sp.Float(mpmath.nstr(v, 40), 45) for v in fp.x]))
        subs[RHO] = sp.Rational(3, 2)
        subs[BSYM] = sp.Float(mpmath.nstr(fp.blocking, 40), 45)
        for poly in m.polynomial_system():
            assert abs(sp.N(poly.subs(subs), 40)) < 1e-35
        assert fp.to_dict()["model"] == m.name


@pytest.mark.parametrize("m", [RetrialOfD(2, 2), PowerOfD(2, 2), RetrialOfD(2, 3), PowerOfD(2, 3)])
def test_eliminant_vanishes_at_the_blocking(m):
    P = m.eliminant()
    f = sp.lambdify((RHO, BSYM), P.as_expr(), "mpmath")
    for rho in (Fraction(1, 4), 1, Fraction(7, 2), 20):
        with mpmath.workdps(60):
            B = m.blocking(rho, dps=50)
            r = mpmath.mpf(rho.numerator) / rho.denominator if isinstance(rho, Fraction) else mpmath.mpf(rho)
            scale = sum(abs(mpmath.mpf(int(c))) * r ** i * B ** j for (i, j), c in P.terms())
            assert abs(f(r, B)) < mpmath.mpf(10) ** -45 * scale


def test_C2_closed_forms():
    a = sp.Symbol("a", positive=True)
    cubic = RetrialOfD(2, 2).cubic_in_a().as_expr().subs(sp.Symbol("a", positive=True), a)
    assert sp.expand(cubic - (a**3 + 2 * (1 - RHO) * a**2 + 2 * (1 - RHO) * a - 2 * RHO)) == 0
    q = PowerOfD(2, 2).quartic().as_expr().subs(RHO, 1)
    s = sp.Symbol("s", positive=True)
    assert sp.expand(q - (s**4 + 2 * s**3 - 2 * s**2 - 4 * s + 1)) == 0


def test_stationary_equations_are_eqs():
    eqs = PowerOfD(2, 2).stationary_equations()
    assert all(isinstance(e, sp.Eq) for e in eqs) and len(eqs) == 2
    assert len(RetrialOfD(2, 2).stationary_equations()) == 4   # 3 balance + normalisation


# ---------------------------------------------------------------- ODE

@pytest.mark.parametrize("m", [RetrialOfD(3, 2), PowerOfD(3, 2)])
def test_ode_converges_to_fixed_point_from_many_states(m):
    rng = np.random.default_rng(7)
    B = float(m.blocking(2))
    for _ in range(5):
        if isinstance(m, PowerOfD):
            x0 = np.sort(rng.uniform(0, 1, m.C))[::-1]
        else:
            x0 = rng.dirichlet(np.ones(m.C + 1))
        sol = m.ode(2, x0, np.linspace(0, 60, 7))
        assert abs(sol.blocking[-1] - B) < 1e-8 * max(B, 1e-300) + 1e-12
    assert sol.x.shape == (7, len(m.variables))


def test_ode_bad_input():
    with pytest.raises(ValueError, match="x0"):
        PowerOfD(3, 2).ode(1, [0.5, 0.2], [0, 1])
    with pytest.raises(ValueError, match="t must"):
        PowerOfD(2, 2).ode(1, [0.5, 0.2], [1, 0])


# ---------------------------------------------------------------- Erlang bounds (property tests)

@given(C=st.integers(1, 8), d=st.integers(2, 4), rho=st.fractions(Fraction(1, 20), Fraction(60)))
def test_erlang_bounds_and_ordering(C, d, rho):
    E = erlang_b(C, rho, dps=20)
    br = RetrialOfD(C, d).blocking(rho, dps=20)
    br1 = RetrialOfD(C, d + 1).blocking(rho, dps=20)
    bp = PowerOfD(C, d).blocking(rho, dps=20)
    mpmath.mp.dps = 40  # restored by the test fixture check below
    tol = 1 + mpmath.mpf(10) ** -18
    try:
        _check_bounds(C, d, rho, E, br, br1, bp, tol)
    finally:
        mpmath.mp.dps = 15


def _check_bounds(C, d, rho, E, br, br1, bp, tol):
    assert E ** d <= br * tol and br <= E * tol
    assert br1 <= br * tol
    assert bp <= br * tol                  # power-of-d blocks no more than retrial-of-d
    lower = max(mpmath.mpf(0), 1 - C / mpmath.mpf(rho.numerator) * rho.denominator)
    assert lower <= bp * tol and lower <= br * tol


# ---------------------------------------------------------------- crossings and thresholds

def test_threshold_zero_for_C2_d2_dt3():
    assert threshold_load(2, 2, 3, dps=15) == 0
    assert crossing_loads(2, 2, 3, rho_min=0.05, rho_max=50, dps=15).crossings == []


@pytest.mark.slow
def test_threshold_C3_d2_dt3_is_a_crossing():
    th = threshold_load(3, 2, 3, dps=25)
    assert 0 < th < 50
    eps = th * mpmath.mpf(10) ** -6
    assert RetrialOfD(3, 3).blocking(th + eps, dps=25) < PowerOfD(3, 2).blocking(th + eps, dps=25)
    assert RetrialOfD(3, 3).blocking(th - eps, dps=25) > PowerOfD(3, 2).blocking(th - eps, dps=25)
    with mpmath.workdps(40):
        gap = mpmath.log(RetrialOfD(3, 3).blocking(th, dps=30)) - mpmath.log(PowerOfD(3, 2).blocking(th, dps=30))
    assert abs(gap) < mpmath.mpf(10) ** -20


def test_threshold_errors():
    with pytest.raises(ValueError, match="dt must be > d"):
        threshold_load(2, 3, 3)


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("make,exc,word", [
    (lambda: RetrialOfD(0, 2), ValueError, "C"), (lambda: PowerOfD(2, 0), ValueError, "d"),
    (lambda: PowerOfD(2.5, 2), TypeError, "C"), (lambda: RetrialOfD(2, "3"), TypeError, "d"),
])
def test_bad_model_arguments(make, exc, word):
    with pytest.raises(exc, match=word):
        make()


@pytest.mark.parametrize("rho,exc", [(0, ValueError), (-1, ValueError), (float("nan"), ValueError),
                                     ("1", TypeError)])
def test_bad_rho(rho, exc):
    with pytest.raises(exc, match="rho"):
        PowerOfD(2, 2).blocking(rho)


def test_bad_dps():
    with pytest.raises(ValueError, match="dps"):
        RetrialOfD(2, 2).blocking(1, dps=4)


@pytest.mark.slow
@pytest.mark.parametrize("C,d,dt", [(2, 3, 4), (3, 2, 3)])
def test_crossings_eliminant_and_adaptive_agree(C, d, dt):
    """Two independent searches: exact root isolation of Res_B(P_ret, P_pod) and the adaptive scan."""
    e = crossing_loads(C, d, dt, rho_min=0.01, rho_max=100, dps=20, method="eliminant")
    a = crossing_loads(C, d, dt, rho_min=0.01, rho_max=100, dps=20, method="adaptive")
    assert len(e.crossings) == len(a.crossings) == 1
    assert _rel(e.crossings[0], a.crossings[0]) < mpmath.mpf(10) ** -18
    assert e.guarantee.startswith("certified")


def test_crossing_method_validation():
    with pytest.raises(ValueError, match="method"):
        crossing_loads(2, 2, 3, method="grid")
