"""Adversarial probes of the families owned by other engineers in phase 1 of issue 17 (meanfield, finite_n,
twoqueue, sweeps): what already holds is asserted; every defect found is recorded in docs/accuracy_and_limits.md
and marked ``xfail(strict=True)`` here, so the test turns red (XPASS) the day the defect is fixed and the
marker has to go."""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from adversarial_strategies import covers, invalid_type_values, typed_reals
from flint import arb, fmpq
from hypothesis import given, settings

import symloss
from symloss import (
    JSQ,
    BlockingSeries,
    CrossingResult,
    ExactFiniteNResult,
    FiniteNThresholdResult,
    FixedPointResult,
    Grid,
    OdeResult,
    PowerOfD,
    RandomRouting,
    RefinedMeanFieldResult,
    RetrialOfD,
    SimulationResult,
    SweepSummary,
    TwoQueueDistribution,
    TwoQueueJSQ,
    blocking_expansion,
    blocking_series,
    conditional_blocking,
    crossing_loads,
    exact_finite_n,
    finite_n_threshold,
    grid,
    jsq_regime,
    load_sweep,
    refined_mean_field,
    simulate,
    sweep,
    sweep_status,
    threshold_load,
    zip_grid,
)

pytestmark = pytest.mark.timeout(120)



def _settled(outcome) -> bool:
    """The isolated probe answered (a value or a clear ValueError/TypeError/PrecisionError-type refusal)
    within its CPU budget, without crashing."""
    return outcome.finished and outcome.rc == 0 and (
        outcome.last_line.startswith("ok") or any(
            outcome.last_line.startswith(f"raised {t}") for t in
            ("ValueError", "TypeError", "BudgetError", "PrecisionError", "TimeLimitExceeded")))


# --------------------------------------------------------------------------------------------------
# mean field (symloss.meanfield)
# --------------------------------------------------------------------------------------------------

MODELS = [lambda: RetrialOfD(2, 3), lambda: PowerOfD(2, 2), lambda: RandomRouting(3), lambda: JSQ(3)]


@covers("RetrialOfD", "PowerOfD", "RandomRouting", "JSQ", "FixedPointResult")
@pytest.mark.parametrize("make", MODELS, ids=["retrial", "power", "random", "jsq"])
def test_models_take_every_numeric_type_exactly(make):
    m = make()
    ref = m.blocking(Fraction(3, 2), dps=20)
    for obj in (1.5, np.float32(1.5), np.float64(1.5), np.longdouble(1.5), fmpq(3, 2), arb(1.5), mpmath.mpf(1.5),
                "skip"):
        if obj == "skip":
            continue
        assert m.blocking(obj, dps=20) == ref
    fp = m.fixed_point(1.5, dps=20)
    assert isinstance(fp, FixedPointResult)
    for bad in invalid_type_values():
        with pytest.raises(TypeError, match="rho"):
            m.blocking(bad)
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="rho"):
            m.blocking(bad)


@given(typed_reals(1e-300, 1e300))
@settings(max_examples=30)
def test_power_of_d_blocking_is_a_probability_at_every_load(pair):
    obj, exact = pair
    if exact is None or exact <= 0:
        return
    b = PowerOfD(2, 2).blocking(obj, dps=15)
    assert 0 <= b <= 1


def test_power_of_d_inside_documented_range_no_overflow():
    b = PowerOfD(320, 10).blocking(0.5, dps=15)
    assert 0 <= b <= 1


def test_jsq_ode():
    r = JSQ(2).ode(1.0, [0.5, 0.2], [0, 1])
    assert isinstance(r, OdeResult) and np.all(np.isfinite(r.x))


@covers("OdeResult")
def test_retrial_ode_checks_its_input():
    r = RetrialOfD(2, 2).ode(1.0, [1, 0, 0], [0, 1])
    assert isinstance(r, OdeResult)
    with pytest.raises(ValueError, match="x0"):
        RetrialOfD(2, 2).ode(1.0, [1, 0, float("nan")], [0, 1])


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_power_of_d_C_1e4_heavy_load():
    # was: PowerOfD(10000, 2).blocking(12000) ran for minutes (quadratic nullspace of the jumps, the
    # compiled system built only to verify); now ~10 s alone, most of it deriving the 2 10^4 transitions.
    # Independent checks: the float64 shooting of the same equations, and the large-load expansion
    # 1 - C/rho + C/(d rho^2) + O(rho^-3) of both blockings.
    from symloss.meanfield.accelerators import POWER
    m = PowerOfD(10000, 2)
    b = m.blocking(12000, dps=30)
    assert abs(mpmath.log(b) - POWER.float_log_blocking(m, 12000.0)) < 1e-12
    assert abs(b - (1 - 10000 / 12000 + 10000 / (2 * 12000 ** 2))) < 1e-3
    assert 0 < b < 1


def test_power_of_d_C_beyond_the_documented_range(isolated):
    # was: PowerOfD(100000, 2).blocking(1) ran for minutes (74 s to derive the definition, 135 s to
    # solve at rho = C); the documented range is now C <= 10000, refused at construction
    o = isolated["pod_big_C"]
    assert _settled(o) and o.last_line.startswith("raised ValueError") and "10000" in o.last_line, o
    with pytest.raises(ValueError, match="C"):
        PowerOfD(10001, 2)
    with pytest.raises(ValueError, match="C"):
        RetrialOfD(10 ** 5, 2)
    # JSQ's Heaviside definition: 60 s to derive and check at C = 10^4; documented range C <= 1000
    with pytest.raises(ValueError, match=r"C must be an integer in \[1, 1000\], got 1001"):
        JSQ(1001)
    assert JSQ(1000).C == 1000


@covers("threshold_load", "crossing_loads", "CrossingResult")
def test_threshold_and_crossing_small():
    assert threshold_load(2, 2, 3, dps=15) == 0
    r = crossing_loads(2, 2, 3, dps=15)
    assert isinstance(r, CrossingResult)
    with pytest.raises(ValueError, match="dt"):
        threshold_load(2, 3, 2)


def test_crossing_error_names_rho_min():
    with pytest.raises(ValueError, match="rho_min"):
        crossing_loads(2, 2, 3, rho_min=-1)


def test_crossing_identical_policies(isolated):
    # was: crossing_loads(1, 2, 2) (identical policies at C = 1) ended after ~20 s in a PrecisionError; now a
    # ValueError saying the models coincide (about 1 s alone; the isolated probes share two cores, so no
    # wall-time bound here beyond the fixture's)
    o = isolated["crossing_same"]
    assert o.finished and o.last_line.startswith("raised ValueError") and "coincide" in o.last_line, o


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_threshold_and_crossing_C1000():
    # was: threshold_load(1000, 2, 3) and crossing_loads(1000, 2, 3) ran for minutes (the scan refined
    # cells 20 000 times where log B of power-of-d reaches -1e302, and each certified sign paid an
    # mpmath drift residual); now ~6 s each alone. Independent check of the threshold: certified
    # blockings at 30 digits on both sides have opposite signs of log B_ret - log B_pod.
    from symloss.meanfield.compare import _logdiff
    t = threshold_load(1000, 2, 3, dps=15)
    assert 1000 < t < 1100
    lo = _logdiff(1000, 2, 3, t * (1 - mpmath.mpf(10) ** -12), 30)
    hi = _logdiff(1000, 2, 3, t * (1 + mpmath.mpf(10) ** -12), 30)
    assert lo[1] > 0 and hi[2] < 0, (lo, hi)
    r = crossing_loads(1000, 2, 3, dps=15)
    assert r.crossings == [t]


@covers("blocking_series", "blocking_expansion", "BlockingSeries")
def test_series_inputs():
    s = blocking_expansion(PowerOfD(2, 2), 0, 3)
    assert isinstance(s, BlockingSeries)
    assert blocking_series(PowerOfD(2, 2), 0, 3) is not None
    with pytest.raises(ValueError, match="n"):
        blocking_series(PowerOfD(2, 2), 0, 10 ** 6)
    with pytest.raises(ValueError, match="rho"):
        s.evaluate(float("nan"))
    v = s.evaluate(1e-300)
    assert 0 <= v <= 1


def test_series_outside_its_range_is_not_a_probability_silently():
    # was: the rho -> 0 expansion evaluated at rho = 1e300 returned 1e1800 (a 'blocking' > 1) silently
    e = blocking_expansion(RetrialOfD(2, 2), 0, 3)
    with pytest.raises(ValueError, match="outside the range of this expansion"):
        e.evaluate(1e300)
    assert e.evaluate(1e300, check=False) > 1              # the polynomial value, on request
    assert 0 <= e.evaluate(1e-3) <= 1


# --------------------------------------------------------------------------------------------------
# finite N (symloss.finite_n)
# --------------------------------------------------------------------------------------------------

@covers("simulate", "SimulationResult")
def test_simulate_seeds_and_inputs():
    ss = np.random.SeedSequence(3)
    r1 = simulate("power", N=10, C=2, rho=1.0, d=2, events=20000, seed=ss)
    r2 = simulate("power", N=10, C=2, rho=1.0, d=2, events=20000, seed=ss)
    assert isinstance(r1, SimulationResult) and r1.blocking == r2.blocking     # issue: consumed the seed
    assert math.isfinite(r1.blocking) and all(math.isfinite(x) for x in r1.ci)
    with pytest.raises(ValueError, match="seed"):
        simulate("power", N=10, C=2, rho=1.0, d=2, events=1000, seed=-1)
    with pytest.raises(TypeError, match="events"):
        simulate("power", N=10, C=2, rho=1.0, d=2, events=1000.5)
    with pytest.raises(ValueError, match="N"):
        simulate("random", N=10 ** 12, C=2, rho=1.0, events=1000)
    for bad in (True, 1j, "1", None):
        with pytest.raises(TypeError, match="rho"):
            simulate("random", N=10, C=2, rho=bad, events=1000)


def test_simulate_events_budget(isolated):
    assert _settled(isolated["simulate_events_huge"]), isolated["simulate_events_huge"]


def test_simulate_d_budget(isolated):
    assert _settled(isolated["simulate_d_huge"]), isolated["simulate_d_huge"]


def test_simulate_default_warmup(isolated):
    # was: the default warm-up scaled with rho (1e10 events at rho=1e8 for 1000 requested events), minutes
    o = isolated["simulate_warmup_rho"]
    assert _settled(o) and "warmup" in o.last_line, o


@covers("exact_finite_n", "ExactFiniteNResult")
def test_exact_finite_n_types():
    r = exact_finite_n("power", 5, 2, np.float32(1.0), 2)
    assert isinstance(r, ExactFiniteNResult)
    assert r.blocking == exact_finite_n("power", 5, 2, Fraction(1), 2).blocking
    with pytest.raises(ValueError, match="max_states"):
        exact_finite_n("power", 5, 2, 1.0, 2, max_states=0)
    with pytest.raises(ValueError, match="rho"):
        exact_finite_n("power", 5, 2, float("nan"), 2)


def test_exact_finite_n_size_check_first(isolated):
    o = isolated["exact_huge"]
    assert _settled(o) and "states" in o.last_line, o


@covers("refined_mean_field", "RefinedMeanFieldResult")
def test_refined_mean_field_inputs():
    r = refined_mean_field("power", rho=1.0, C=2, d=2, N=10)
    assert isinstance(r, RefinedMeanFieldResult) and math.isfinite(r.blocking_refined)
    assert refined_mean_field("power", rho=1e-300, C=2, d=2, N=10).blocking_refined >= 0


def test_refined_mean_field_huge_load():
    # was: rho=1e300 raised a bare ArithmeticError ('drift at the fixed point is not zero'), 1e15 a
    # PrecisionError; now a range error naming rho and the limit, and the limit itself answers
    for rho in (1e300, 1e15, 10 ** 13):
        with pytest.raises(ValueError, match=r"rho must be in \(0, 1e\+12\]"):
            refined_mean_field("power", rho=rho, C=2, d=2, N=10)
    v = refined_mean_field("power", rho=1e12, C=2, d=2, N=10).blocking_refined
    assert 0 <= v <= 1 and abs(v - (1 - 2e-12)) < 1e-13


@covers("finite_n_threshold", "FiniteNThresholdResult")
def test_finite_n_threshold_inputs():
    r = finite_n_threshold(2, 2, 3, 5, method="exact")
    assert isinstance(r, FiniteNThresholdResult)
    with pytest.raises(ValueError, match="states"):
        finite_n_threshold(2, 2, 3, 10 ** 6, method="exact")


def test_finite_n_threshold_events_budget(isolated):
    assert _settled(isolated["fnt_events_huge"]), isolated["fnt_events_huge"]


@covers("conditional_blocking")
def test_conditional_blocking_valid():
    v = conditional_blocking("power", 10, 2, 5)
    assert 0 <= v <= 1


def test_conditional_blocking_checks_nfull():
    # was: conditional_blocking(nfull=11 > N=10) returned 1.21; bool/complex/NaN were accepted
    with pytest.raises(ValueError, match="nfull"):
        conditional_blocking("power", 10, 2, 11)
    assert conditional_blocking("power", 10, 2, [1]).tolist() == [0.01]          # arrays stay valid
    for bad in (True, 1j, None, [11], [2.5], float("nan"), -1, 2.5, "3"):
        with pytest.raises((TypeError, ValueError), match="nfull"):
            conditional_blocking("power", 10, 2, bad)


# --------------------------------------------------------------------------------------------------
# two queues (symloss.twoqueue)
# --------------------------------------------------------------------------------------------------

@covers("TwoQueueJSQ", "TwoQueueDistribution", "jsq_regime")
def test_twoqueue_inputs_and_limits():
    d = TwoQueueJSQ(np.int64(5), np.float32(3.0)).stationary_distribution()
    assert isinstance(d, TwoQueueDistribution) and 0 < float(d.blocking()) < 1
    assert abs(float(d.blocking()) - float(symloss.erlang_b(10, 3, dps=20))) < 1e-12    # E(2N, rho) exactly
    with pytest.raises(ValueError, match=r"N <= 10000, got N=10000000; N > 10000 is beyond the measured range"):
        TwoQueueJSQ(10 ** 7, 3.0).stationary_distribution()
    with pytest.raises(ValueError, match="N <= 30"):
        TwoQueueJSQ(2000, 3).stationary_distribution("exact")
    for bad in (float("nan"), -1, 0):
        with pytest.raises(ValueError, match="rho"):
            TwoQueueJSQ(5, bad)
    for bad in invalid_type_values():
        with pytest.raises(TypeError, match="rho"):
            TwoQueueJSQ(5, bad)
    assert jsq_regime(0.3) == "1/4<a<1/2"
    with pytest.raises(ValueError, match="a"):
        jsq_regime(float("nan"))
    assert 0 <= float(TwoQueueJSQ(5, 1e300).stationary_distribution().blocking()) <= 1


# --------------------------------------------------------------------------------------------------
# sweeps (symloss.sweeps)
# --------------------------------------------------------------------------------------------------

@covers("grid", "zip_grid", "Grid", "sweep", "sweep_status", "load_sweep", "SweepSummary")
def test_sweep_inputs(tmp_path):
    g = grid(C=[1, 2], a=[1.0, 2.0])
    assert isinstance(g, Grid) and len(g) == 4
    with pytest.raises(ValueError, match="same length"):
        zip_grid(a=[1, 2], b=[1])
    s = sweep("erlang_b", grid(C=[1, 2], a=[1.0]), store=str(tmp_path / "s.sqlite"), executor="serial",
              progress=False)
    assert isinstance(s, SweepSummary) and s.n_failed == 0
    assert sweep_status(str(tmp_path / "s.sqlite"))["integrity"] == "ok"
    assert len(load_sweep(str(tmp_path / "s.sqlite"))) == 2
    with pytest.raises(ValueError, match="finite"):
        sweep("erlang_b", grid(C=[1], a=[float("nan")]), store=str(tmp_path / "n.sqlite"), executor="serial",
              progress=False)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        sweep_status(str(tmp_path / "missing.sqlite"))


def test_sweep_store_in_missing_directory():
    # was: sqlite3's 'unable to open database file', not naming store
    with pytest.raises((ValueError, FileNotFoundError), match="store"):
        sweep("erlang_b", grid(C=[1], a=[1.0]), store="/nonexistent/dir/x.sqlite", executor="serial", progress=False)


def test_grid_size_budget(isolated):
    # was: grid() materialised every point: 1e10 points hung (no size budget)
    o = isolated["grid_huge"]
    assert _settled(o) and "MAX_POINTS" in o.last_line, o
