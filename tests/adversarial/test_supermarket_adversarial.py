"""Supermarket-model entry points under valid, extreme and invalid input (issue 17)."""
import math
import time
import warnings
from fractions import Fraction

import mpmath
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sps
from adversarial_strategies import covers, invalid_type_values, isolated_outcome, typed_reals
from hypothesis import given, settings, strategies as st

import symloss
from symloss import (
    GRAPH_FAMILIES,
    DistanceResult,
    Graph,
    OdeSolution,
    PairApproximationResult,
    Supermarket,
    SupermarketFixedPoint,
    SupermarketSimulationResult,
    make_graph,
    ode_distance,
    pair_approximation,
    simulate_supermarket,
)
from symloss.core.validation import BudgetError, TimeLimitExceeded

pytestmark = pytest.mark.timeout(120)


# --------------------------------------------------------------------------------------------------
# mean field
# --------------------------------------------------------------------------------------------------

@covers("Supermarket", "SupermarketFixedPoint")
@given(st.integers(1, 6), typed_reals(1e-6, 0.999))
@settings(max_examples=40)
def test_mean_queue_length_equals_the_closed_form_for_every_type(d, pair):
    lam_obj, lam = pair
    if lam is None or not 0 < lam < 1:
        return
    m = Supermarket(d, lam_obj)
    with mpmath.workdps(60):
        lm = mpmath.mpf(lam.numerator) / lam.denominator
        if d == 1:
            ref = lm / (1 - lm)
        else:
            ref = mpmath.nsum(lambda k: lm ** ((mpmath.mpf(d) ** k - 1) / (d - 1)), [1, mpmath.inf])
        assert abs(m.mean_queue_length(25) - ref) <= mpmath.mpf(10) ** -24 * ref
    fp = m.fixed_point(20)
    assert isinstance(fp, SupermarketFixedPoint) and fp.symbolic_check


def test_issue_examples_mean_field():
    t0 = time.perf_counter()
    m = Supermarket(1, 0.99999)                      # did not return in 2 minutes
    assert time.perf_counter() - t0 < 1
    assert abs(float(m.mean_queue_length(15)) - 0.99999 / 0.00001) < 1e-6
    with pytest.raises(BudgetError, match="levels"):
        m.fixed_point()
    with pytest.raises(ValueError, match="lam"):
        Supermarket(2, "1e-99999999")                # a hundred-million-digit Fraction was built
    assert time.perf_counter() - t0 < 3


def test_lam_extremely_close_to_one_keeps_its_digits():
    with mpmath.workdps(80):
        lam = mpmath.mpf(1) - mpmath.mpf("1e-40")
        ref1 = lam / (1 - lam)
    assert abs(Supermarket(1, lam).mean_queue_length(20) - ref1) < mpmath.mpf(10) ** -19 * ref1
    v = Supermarket(2, lam).mean_queue_length(15)     # ~ log2(1e40) + O(1)
    assert 128 < v < 140
    assert Supermarket(3, Fraction(1, 10 ** 400)).mean_queue_length(15) > 0


@pytest.mark.parametrize("bad", invalid_type_values(), ids=lambda b: type(b).__name__)
def test_mean_field_bad_types(bad):
    if isinstance(bad, str):              # lam documents decimal strings: a bad one is a ValueError
        with pytest.raises(ValueError, match="lam"):
            Supermarket(2, bad)
    else:
        with pytest.raises(TypeError, match="lam"):
            Supermarket(2, bad)
    with pytest.raises(TypeError, match="d"):
        Supermarket(bad, 0.5)


@covers("OdeSolution")
def test_mean_field_bad_values_and_budgets():
    for lam in (0, 1, 1.5, -0.1, float("nan"), "1", "7/7"):
        with pytest.raises(ValueError, match="lam"):
            Supermarket(2, lam)
    with pytest.raises(ValueError, match="tail_tol"):
        Supermarket(2, 0.5, tail_tol=0.9)
    m = Supermarket(2, 0.7)
    t0 = time.perf_counter()
    with pytest.raises(BudgetError, match="max_steps"):
        m.ode(None, 1e300)
    with pytest.raises(BudgetError, match="max_steps"):
        m.ode(None, 1e6)
    with pytest.raises(TypeError, match="t"):
        m.ode(None, [0, 1j])
    with pytest.raises(ValueError, match="t"):
        m.ode(None, [0, -1])
    with pytest.raises(ValueError, match="s0"):
        m.ode([1, 0.5, float("nan")], 1.0)
    with pytest.raises(TimeLimitExceeded, match="max_seconds"):
        m.ode(None, 10.0, dps=30, max_seconds=0.5)
    with pytest.raises(BudgetError, match="levels"):
        Supermarket(1, 0.999999).ode(None, 1.0)
    assert time.perf_counter() - t0 < 20
    sol = m.ode(None, 2.0)
    assert isinstance(sol, OdeSolution) and np.all(np.isfinite(sol.s))


# --------------------------------------------------------------------------------------------------
# graphs
# --------------------------------------------------------------------------------------------------

@covers("make_graph", "Graph", "GRAPH_FAMILIES")
@pytest.mark.parametrize("family,kw", [("random_regular", {"k": 3}), ("ring", {"k": 4}), ("torus", {"k": 4}),
                                       ("erdos_renyi", {"c": 3.0}), ("erdos_renyi", {"c": "ln"}), ("complete", {})])
def test_graph_families_accept_every_int_type_and_seed_kind(family, kw):
    assert family in GRAPH_FAMILIES
    for N in (36, np.int64(36), 36.0):
        for seed in (1, [1, 2], np.random.SeedSequence(1), np.random.default_rng(1), None):
            g = make_graph(family, N, seed=seed, **kw)
            assert isinstance(g, Graph) and g.N == 36
    ss = np.random.SeedSequence(7)
    state = ss.state if hasattr(ss, "state") else None
    g1, g2 = make_graph(family, 36, seed=ss, **kw), make_graph(family, 36, seed=ss, **kw)
    if not g1.complete:
        assert np.array_equal(g1.indices, g2.indices)        # the caller's SeedSequence is not consumed
    assert (ss.state if hasattr(ss, "state") else None) == state and ss.n_children_spawned == 0


def test_graph_budgets_and_bad_input():
    t0 = time.perf_counter()
    with pytest.raises(BudgetError, match="max_bytes"):
        make_graph("ring", 10 ** 9, k=2)
    with pytest.raises(BudgetError, match="max_bytes"):
        make_graph("erdos_renyi", 10 ** 5, c=10 ** 5 - 1)
    with pytest.raises(BudgetError, match="max_bytes"):
        make_graph("random_regular", 10 ** 6, k=8, max_bytes=1e6)
    with pytest.raises(ValueError, match="N"):
        make_graph("random_regular", 10 ** 10, k=3)
    assert time.perf_counter() - t0 < 2
    with pytest.raises(ValueError, match="seed"):
        make_graph("random_regular", 10, k=3, seed=-1)
    with pytest.raises(TypeError, match="seed"):
        make_graph("random_regular", 10, k=3, seed="x")
    with pytest.raises(ValueError, match="c"):
        make_graph("erdos_renyi", 10, c=float("nan"))
    with pytest.raises(ValueError, match="family"):
        make_graph("star", 10)
    with pytest.raises(TypeError, match="N"):
        make_graph("ring", True, k=2)
    with pytest.raises(ValueError, match="directed"):
        make_graph(nx.DiGraph([(0, 1)]))
    with pytest.raises(ValueError, match="square"):
        make_graph(sps.csr_matrix(np.ones((2, 3))))


# --------------------------------------------------------------------------------------------------
# simulation
# --------------------------------------------------------------------------------------------------

@covers("simulate_supermarket", "SupermarketSimulationResult")
def test_simulation_matches_mean_field_and_seeds_are_not_consumed():
    g = make_graph("complete", 2000)
    ss = np.random.SeedSequence(11)
    r1 = simulate_supermarket(g, lam=0.7, t_end=40.0, seed=ss)
    r2 = simulate_supermarket(g, lam=Fraction(7, 10), t_end=40.0, seed=ss)
    assert isinstance(r1, SupermarketSimulationResult)
    assert r1.mean_queue_length == r2.mean_queue_length and ss.n_children_spawned == 0
    mf = float(Supermarket(2, 0.7).mean_queue_length(15))
    assert abs(r1.mean_queue_length - mf) < 0.05
    assert all(math.isfinite(x) for x in (r1.mean_queue_length, *r1.ci, r1.events_per_second))
    assert np.all(np.isfinite(r1.s)) and np.all(np.isfinite(r1.stationary_s))
    init = np.full(2000, 3)
    r3 = simulate_supermarket(g, lam=0.5, t_end=2.0, seed=1, initial=init, method="event")
    assert np.all(init == 3) and r3.final_queues is not init


@pytest.mark.parametrize("kw,exc,words", [
    ({"t_end": 1e300}, BudgetError, "max_events"),          # blamed lam (numpy's message)
    ({"t_end": 1e9}, BudgetError, "max_events"),
    ({"t_end": 10.0, "record_every": 1e-9}, BudgetError, "max_bytes"),
    ({"t_end": 10.0, "seed": -1}, ValueError, "seed"),
    ({"t_end": 10.0, "seed": 1.5}, TypeError, "seed"),
    ({"t_end": 10.0, "d": 10 ** 9, "replace": True}, ValueError, "d must be"),
    ({"t_end": 10.0, "initial": np.full(100, 2 ** 31 + 5)}, BudgetError, "initial"),      # segfaulted
    ({"t_end": 10.0, "initial": np.full(100, 2 ** 63, dtype=np.uint64)}, BudgetError, "initial"),
    ({"t_end": 10.0, "initial": np.full(100, 2.0)}, TypeError, "initial"),
    ({"t_end": 10.0, "initial": np.full(100, True)}, TypeError, "initial"),
    ({"t_end": 10.0, "initial": np.full(3, 1)}, ValueError, "initial"),
    ({"t_end": 10.0, "initial": np.full(100, -1)}, ValueError, "initial"),
    ({"t_end": 10.0, "replace": 1}, TypeError, "replace"),
    ({"t_end": 10.0, "method": "fast"}, ValueError, "method"),
    ({"t_end": float("nan")}, ValueError, "t_end"),
    ({"t_end": 10.0, "warmup": 10.0}, ValueError, "warmup"),
    ({"t_end": 10.0, "batches": 1}, ValueError, "batches"),
    ({"t_end": 10.0, "lam": 1.0}, ValueError, "lam"),
    ({"t_end": 10.0, "lam": "0.5"}, None, None),
    ({"t_end": 10.0, "lam": 1e-320}, None, None),
    ({"t_end": 10.0, "lam": Fraction(1, 10 ** 400)}, ValueError, "lam"),
])
def test_simulation_refuses_before_work(kw, exc, words):
    g = make_graph("complete", 100)
    args = {"lam": 0.5, "seed": 1}
    args.update(kw)
    t0 = time.perf_counter()
    if exc is None:
        r = simulate_supermarket(g, **args)
        assert math.isfinite(r.mean_queue_length)
    else:
        with pytest.raises(exc, match=words):
            simulate_supermarket(g, **args)
    assert time.perf_counter() - t0 < 5


def test_queue_growth_beyond_the_memory_budget_stops_the_kernel():
    g = make_graph("complete", 10)
    t0 = time.perf_counter()
    with pytest.raises(BudgetError, match="grew beyond"):
        simulate_supermarket(g, d=1, lam=0.999, t_end=5e4, seed=1, max_bytes=2e5)
    with pytest.raises(BudgetError, match="grew beyond"):
        simulate_supermarket(g, d=1, lam=0.999, t_end=5e4, seed=1, max_bytes=2e5, method="event")
    assert time.perf_counter() - t0 < 20


@pytest.mark.timeout(60)
def test_no_segfault_in_a_fresh_process():
    out = isolated_outcome("symloss.simulate_supermarket(symloss.make_graph('complete', 100), lam=0.5, t_end=1.0, "
                           "seed=1, initial=np.full(100, 2**31 + 5))")
    assert out.startswith("raised BudgetError"), out
    out = isolated_outcome("symloss.simulate_supermarket('complete', N=10**12, lam=0.5, t_end=1.0)")
    assert out.startswith("raised BudgetError"), out


# --------------------------------------------------------------------------------------------------
# pair approximation and distance
# --------------------------------------------------------------------------------------------------

@covers("pair_approximation", "PairApproximationResult")
def test_pair_approximation_values_and_budgets():
    r = pair_approximation(np.int32(2), Fraction(7, 10))
    assert isinstance(r, PairApproximationResult) and abs(r.mean_queue_length - 1.2553) < 1e-3
    t0 = time.perf_counter()
    with pytest.raises(BudgetError, match="max_states"):
        pair_approximation(1, 0.99)
    assert time.perf_counter() - t0 < 10
    with pytest.raises(TimeLimitExceeded, match="max_seconds"):
        pair_approximation(2, 0.995, max_seconds=3)
    assert time.perf_counter() - t0 < 20
    with pytest.raises(ValueError, match="tol"):
        pair_approximation(2, 0.5, tol=0.1)
    with pytest.raises(TypeError, match="k"):
        pair_approximation(2.5, 0.5)


@covers("ode_distance", "DistanceResult")
def test_ode_distance_never_reports_nan_and_checks_budgets_first():
    r = ode_distance("complete", N=200, lam=0.5, T=2.0, runs=1, seed=3)
    assert isinstance(r, DistanceResult) and r.ci is None and math.isfinite(r.distance)
    assert r.to_dict()["ci"] is None
    t0 = time.perf_counter()
    with pytest.raises(BudgetError, match="max_events"):
        ode_distance("complete", N=100, lam=0.5, T=1.0, runs=10 ** 9)
    with pytest.raises(BudgetError, match="max_events"):
        ode_distance("complete", N=100, lam=0.5, T=1e9, runs=2)
    with pytest.raises(TypeError, match="N"):
        ode_distance("complete", lam=0.5, T=1.0)
    assert time.perf_counter() - t0 < 2


def test_no_warnings_for_valid_mean_field_input():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Supermarket(3, 1e-300).mean_queue_length(15)
        Supermarket(1, 0.5).fixed_point(15)


def test_lazy_names():
    assert symloss.Supermarket is Supermarket
