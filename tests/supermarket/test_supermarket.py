"""Tests of symloss.supermarket (seed 002): mean field, graphs, simulator, distance, pair approximation.

Reference values and where they come from:
* JSQ(2) mean-field E[Q] = 1.130118 (lam = 0.7), 2.352652 (lam = 0.9): MATH.md section 5 [checked].
* d = 1 is M/M/1 at every vertex: E[Q] = lam/(1 - lam) exactly.
* Pair approximation for k = 1 (a perfect matching) is the exact two-queue JSQ chain: compared with an
  independent dense solve of that chain written here.
* Ring (k = 2) at lam = 0.7: about 1.2553 (MATH.md section 5).
"""
from __future__ import annotations

import math
import warnings
from fractions import Fraction

import mpmath
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sps
from hypothesis import given, strategies as st

import symloss
from symloss.supermarket import Graph, Supermarket


# --------------------------------------------------------------------------------------------------
# mean field
# --------------------------------------------------------------------------------------------------

def test_mean_field_known_values():
    assert abs(float(Supermarket(2, 0.7).mean_queue_length()) - 1.130118) < 5e-7
    assert abs(float(Supermarket(2, 0.9).mean_queue_length()) - 2.352652) < 5e-7
    # d = 1: M/M/1, exact
    v = Supermarket(1, Fraction(3, 4)).mean_queue_length(40)
    with mpmath.workdps(45):
        assert abs(v - mpmath.mpf(3)) < mpmath.mpf(10) ** -39
    # sojourn time by Little's law
    s = Supermarket(2, Fraction(1, 2)).sojourn_time(30)
    q = Supermarket(2, Fraction(1, 2)).mean_queue_length(30)
    with mpmath.workdps(40):
        assert abs(s - 2 * q) < mpmath.mpf(10) ** -29


def test_mean_queue_length_high_precision_exact_series():
    # lam = 1/2, d = 2: E[Q] = sum_k 2^-(2^k - 1), summed exactly in rationals (terms beyond k = 9 are < 1e-150)
    exact = sum(Fraction(1, 2 ** (2 ** k - 1)) for k in range(1, 10))
    v = Supermarket(2, Fraction(1, 2)).mean_queue_length(100)
    with mpmath.workdps(120):
        ref = mpmath.mpf(exact.numerator) / exact.denominator
        assert abs(v - ref) < mpmath.mpf(10) ** -99 * ref


def test_fixed_point_and_symbolic_check():
    m = Supermarket(3, Fraction(4, 5))
    fp = m.fixed_point(50)
    assert fp.symbolic_check is True
    assert fp.s[0] == 1
    with mpmath.workdps(60):
        lam = mpmath.mpf(4) / 5
        for k in range(1, 5):
            assert abs(fp.s[k] - lam ** ((3 ** k - 1) // 2)) < mpmath.mpf(10) ** -49
    assert fp.residual < mpmath.mpf(10) ** -50
    assert fp.tail_bound < mpmath.mpf(10) ** -55
    proof = Supermarket.symbolic_check()
    assert proof["proved"] and proof["exponent_identity_simplified"] == "0"
    assert set(fp.to_dict()) >= {"s", "K", "tail_bound", "residual", "mean_queue_length"}


def test_truncation_level_meets_tolerance():
    for d, lam in [(2, 0.7), (2, 0.95), (1, 0.5), (4, 0.3)]:
        m = Supermarket(d, lam, tail_tol=1e-12)
        with mpmath.workdps(30):
            true_tail = mpmath.fsum(mpmath.mpf(lam) ** m.exponent(k) for k in range(m.K + 1, m.K + (300 if d == 1 else 8)))
        assert true_tail <= 1e-12
        assert m.tail_bound(m.K) >= true_tail * (1 - 1e-20)
        if m.K > 1:   # minimal
            assert m.tail_bound(m.K - 1) > 1e-12


def test_symbolic_drift_and_equations():
    m = Supermarket(2, Fraction(1, 2))
    f = m.drift(3)
    s1, s2, s3 = Supermarket.symbols(3)
    assert f[0] - (Fraction(1, 2) * (1 - s1 ** 2) - (s1 - s2)) == 0
    assert f[2].subs({s2: 0, s3: 0}) == 0
    eqs = m.equations(2)
    assert len(eqs) == 2
    g = m.drift(2, symbolic_parameters=True)
    assert {str(x) for x in g.free_symbols} == {"lambda", "d", "s_1", "s_2"}


def test_ode_converges_to_fixed_point_and_fixed_point_is_stationary():
    m = Supermarket(2, 0.7)
    sol = m.ode(None, [0.0, 5.0, 150.0])
    fp = [float(x) for x in m.fixed_point(20).s]
    n = min(len(fp), sol.s.shape[1])
    assert np.max(np.abs(sol.s[-1, :n] - np.array(fp[:n]))) < 1e-8
    assert sol.s[0, 1] == 0 and sol.tail_max <= m.tail_tol
    # started at the fixed point it stays there
    sol2 = m.ode(fp, [0.0, 3.0])
    assert np.max(np.abs(sol2.s[-1, :n] - np.array(fp[:n]))) < 1e-10
    assert np.all(np.diff(sol.mean_queue_length) >= -1e-12)   # monotone from empty (monotone system)


@pytest.mark.slow
def test_ode_at_high_precision_matches_float():
    m = Supermarket(2, Fraction(1, 2))
    hi = m.ode([1, Fraction(1, 2), Fraction(1, 4)], [0.0, 0.25], dps=15)
    lo = m.ode([1, 0.5, 0.25], [0.0, 0.25])
    n = min(hi.s.shape[1], lo.s.shape[1])
    assert np.max(np.abs(hi.s[:, :n] - lo.s[:, :n])) < 1e-9
    assert hi.dps == 15 and len(hi.s_mp[-1]) == hi.K + 1


@given(st.integers(1, 5), st.floats(0.02, 0.98))
def test_fixed_point_solves_stationary_equations(d, lam):
    m = Supermarket(d, lam)
    fp = m.fixed_point(25)
    assert fp.residual < mpmath.mpf(10) ** -24
    assert all(fp.s[k] >= fp.s[k + 1] for k in range(len(fp.s) - 1))
    if d < 5:   # more choices, shorter queues
        assert Supermarket(d + 1, lam).mean_queue_length(15) <= m.mean_queue_length(15)


def test_mean_field_validation():
    with pytest.raises(ValueError, match="unstable"):
        Supermarket(2, 1.0)
    with pytest.raises(ValueError, match="unstable"):
        Supermarket(2, Fraction(3, 2))
    with pytest.raises(ValueError, match="lam"):
        Supermarket(2, 0.0)
    with pytest.raises(ValueError, match="d must be"):
        Supermarket(0, 0.5)
    with pytest.raises(TypeError, match="d must be"):
        Supermarket(2.5, 0.5)
    with pytest.raises(ValueError, match="s0"):
        Supermarket(2, 0.5).ode([0.5, 0.2], 1.0)
    with pytest.raises(ValueError, match="non-increasing"):
        Supermarket(2, 0.5).ode([1, 0.2, 0.3], 1.0)
    with pytest.raises(ValueError, match="dps"):
        Supermarket(2, 0.5).mean_queue_length(2)
    assert Supermarket(2, "7/10").lam == Fraction(7, 10) == Supermarket(2, "0.7").lam
    with pytest.raises(ValueError, match="lam"):
        Supermarket(2, "seven")


# --------------------------------------------------------------------------------------------------
# graphs
# --------------------------------------------------------------------------------------------------

def _as_nx(g: Graph):
    G = g.to_networkx()
    assert nx.number_of_selfloops(G) == 0
    assert G.number_of_edges() == g.n_edges            # no multi-edges were lost
    return G


def test_graph_families():
    g = symloss.make_graph("random_regular", 500, k=7 - 1, seed=3)
    G = _as_nx(g)
    assert set(dict(G.degree()).values()) == {6}
    g = symloss.make_graph("ring", 50, k=4)
    G = _as_nx(g)
    assert nx.is_isomorphic(G, nx.circulant_graph(50, [1, 2]))
    g = symloss.make_graph("torus", 49, k=4)
    assert nx.is_isomorphic(_as_nx(g), nx.grid_2d_graph(7, 7, periodic=True))
    g8 = symloss.make_graph("torus", 36, k=8)
    assert set(dict(_as_nx(g8).degree()).values()) == {8}
    c = symloss.make_graph("complete", 10 ** 7)       # nothing materialised
    assert c.complete and c.indices is None and c.nbytes == 0 and c.min_degree == 10 ** 7 - 1
    er = symloss.make_graph("erdos_renyi", 4000, c="ln", seed=1)
    _as_nx(er)
    assert abs(er.mean_degree - math.log(4000)) < 0.3
    er2 = symloss.make_graph("erdos_renyi", 2000, c=5.0, seed=2)
    assert abs(er2.mean_degree - 5.0) < 0.3
    assert symloss.make_graph("erdos_renyi", 300, c="ln2", seed=2).params["c_value"] == pytest.approx(math.log(300) ** 2)
    # same seed, same graph
    a = symloss.make_graph("random_regular", 300, k=3, seed=9)
    b = symloss.make_graph("random_regular", 300, k=3, seed=9)
    assert np.array_equal(a.indices, b.indices) and np.array_equal(a.indptr, b.indptr)


def test_user_graphs_and_validation():
    G = nx.petersen_graph()
    g = symloss.make_graph(G)
    assert g.N == 10 and g.min_degree == g.max_degree == 3 and g.family == "networkx"
    A = nx.to_scipy_sparse_array(G, format="csr")
    g2 = symloss.make_graph(sps.csr_matrix(A))
    assert np.array_equal(g2.degrees, g.degrees)
    with pytest.raises(ValueError, match="not symmetric"):
        symloss.make_graph(sps.csr_matrix(np.array([[0, 1], [0, 0]])))
    with pytest.raises(ValueError, match="directed"):
        symloss.make_graph(nx.DiGraph([(0, 1)]))
    with pytest.raises(ValueError, match="empty"):
        symloss.make_graph(nx.Graph())
    with pytest.warns(UserWarning, match="self-loops"):
        gl = symloss.make_graph(nx.Graph([(0, 0), (0, 1)]))
    assert gl.n_edges == 1
    with pytest.raises(ValueError, match="family"):
        symloss.make_graph("hypercube", 16)
    with pytest.raises(ValueError, match="even"):
        symloss.make_graph("random_regular", 5, k=3)
    with pytest.raises(ValueError, match="perfect square"):
        symloss.make_graph("torus", 50)
    with pytest.raises(TypeError, match="needs the degree"):
        symloss.make_graph("random_regular", 10)


# --------------------------------------------------------------------------------------------------
# simulator
# --------------------------------------------------------------------------------------------------

def test_simulation_reproducible_and_conservative():
    g = symloss.make_graph("random_regular", 2000, k=4, seed=1)
    a = symloss.simulate_supermarket(g, d=3, lam=0.8, t_end=20, seed=5)
    b = symloss.simulate_supermarket(g, d=3, lam=0.8, t_end=20, seed=5)
    c = symloss.simulate_supermarket(g, d=3, lam=0.8, t_end=20, seed=6)
    assert np.array_equal(a.s, b.s) and a.mean_queue_length == b.mean_queue_length
    assert not np.array_equal(a.s, c.s)
    # conservation: tasks in system at the end = arrivals - departures
    assert int(a.final_queues.sum()) == a.arrivals - a.departures
    assert a.s[-1, 1:].sum() * g.N == pytest.approx(a.final_queues.sum())
    assert a.t[0] == 0 and a.t[-1] == pytest.approx(20) and np.all(a.s[:, 0] == 1)
    assert np.all(np.diff(a.s, axis=1) <= 0)           # tail fractions decrease in k
    assert a.ci[0] < a.mean_queue_length < a.ci[1]
    assert set(a.to_dict()) >= {"mean_queue_length", "ci", "t", "s", "graph"}
    # arrivals are Poisson(lam N t_end)
    assert abs(a.arrivals - 0.8 * 2000 * 20) < 5 * math.sqrt(0.8 * 2000 * 20)


def test_uniformized_and_event_driven_agree():
    # two different algorithms for the same law: stationary means agree within the CIs
    g = symloss.make_graph("random_regular", 3000, k=5, seed=21)
    u = symloss.simulate_supermarket(g, d=3, lam=0.85, t_end=150, seed=22, method="uniformized")
    e = symloss.simulate_supermarket(g, d=3, lam=0.85, t_end=150, seed=23, method="event")
    assert abs(u.mean_queue_length - e.mean_queue_length) < 4 * math.hypot(u.half_width, e.half_width) + 1e-3
    n = min(len(u.stationary_s), len(e.stationary_s))
    assert np.max(np.abs(u.stationary_s[:n] - e.stationary_s[:n])) < 0.02
    assert int(e.final_queues.sum()) == e.arrivals - e.departures
    assert u.dummy_events > 0 and e.dummy_events == 0
    with pytest.raises(ValueError, match="method"):
        symloss.simulate_supermarket(g, d=2, lam=0.5, t_end=1, method="gillespie")


def test_d1_is_mm1():
    # d = 1 on any graph: independent M/M/1 queues, E[Q] = lam/(1 - lam) = 1
    g = symloss.make_graph("ring", 4000, k=2)
    r = symloss.simulate_supermarket(g, d=1, lam=0.5, t_end=200, seed=2)
    assert abs(r.mean_queue_length - 1.0) < max(4 * r.half_width, 0.03)


def test_complete_graph_matches_mean_field():
    r = symloss.simulate_supermarket("complete", N=5000, d=2, lam=0.7, t_end=120, seed=3)
    mf = float(Supermarket(2, 0.7).mean_queue_length(15))
    assert abs(r.mean_queue_length - mf) < max(4 * r.half_width, 0.02)
    fp = np.array([float(x) for x in Supermarket(2, 0.7).fixed_point(15).s])
    n = min(len(fp), len(r.stationary_s))
    assert np.max(np.abs(r.stationary_s[:n] - fp[:n])) < 0.02
    # d = 3 without and with replacement, both near the d = 3 mean field
    for rep in (False, True):
        r3 = symloss.simulate_supermarket("complete", N=3000, d=3, lam=0.9, t_end=80, seed=4, replace=rep)
        assert abs(r3.mean_queue_length - float(Supermarket(3, 0.9).mean_queue_length(15))) < 0.08


def _two_queue_jsq_mean(lam: float, L: int = 60) -> float:
    """Exact two-queue JSQ (total arrival rate 2 lam to the shorter queue, ties 1/2, unit service each),
    truncated at L per queue, dense stationary solve; returns E[queue length of one queue]."""
    idx = lambda m, n: m * (L + 1) + n   # noqa: E731
    n_st = (L + 1) ** 2
    Q = np.zeros((n_st, n_st))
    for m in range(L + 1):
        for n in range(L + 1):
            i = idx(m, n)
            if m < n and m < L:
                Q[i, idx(m + 1, n)] += 2 * lam
            elif n < m and n < L:
                Q[i, idx(m, n + 1)] += 2 * lam
            elif m == n and m < L:
                Q[i, idx(m + 1, n)] += lam
                Q[i, idx(m, n + 1)] += lam
            if m > 0:
                Q[i, idx(m - 1, n)] += 1
            if n > 0:
                Q[i, idx(m, n - 1)] += 1
    np.fill_diagonal(Q, -Q.sum(axis=1))
    A = Q.T.copy()
    A[0, :] = 1
    b = np.zeros(n_st)
    b[0] = 1
    pi = np.linalg.solve(A, b).reshape(L + 1, L + 1)
    return float((pi.sum(axis=1) * np.arange(L + 1)).sum())


def test_pair_approximation_exact_for_perfect_matching_and_limits():
    exact = _two_queue_jsq_mean(0.7, L=50)
    pa1 = symloss.pair_approximation(1, 0.7)
    assert abs(pa1.mean_queue_length - exact) < 1e-9
    pa2 = symloss.pair_approximation(2, 0.7)
    assert abs(pa2.mean_queue_length - 1.2553) < 1e-3          # MATH.md: ring about 1.2553
    pa_big = symloss.pair_approximation(400, 0.7)
    mf = float(Supermarket(2, 0.7).mean_queue_length(15))
    assert 0 < pa_big.mean_queue_length - mf < 2e-3             # k -> inf: mean field, from above
    assert pa2.mean_queue_length > symloss.pair_approximation(3, 0.7).mean_queue_length > pa_big.mean_queue_length
    assert pa2.residual < 1e-12 and pa2.tail_mass < 1e-12
    with pytest.raises(ValueError, match="unstable"):
        symloss.pair_approximation(3, 1.2)
    with pytest.raises(ValueError, match="k must be"):
        symloss.pair_approximation(0, 0.5)


@pytest.mark.slow
def test_simulation_on_matching_and_regular_graphs_tracks_pair_approximation():
    # perfect matching (k = 1): the two-queue chain, exactly what pair_approximation(1) solves
    N = 4000
    rows = np.arange(N)
    cols = rows ^ 1
    A = sps.csr_matrix((np.ones(N), (rows, cols)), shape=(N, N))
    r1 = symloss.simulate_supermarket(A, d=2, lam=0.7, t_end=200, seed=11)
    exact = _two_queue_jsq_mean(0.7, L=50)
    assert abs(r1.mean_queue_length - exact) < max(4 * r1.half_width, 0.02)
    # random 3-regular: above the mean field, close to the pair approximation
    g = symloss.make_graph("random_regular", 20000, k=3, seed=12)
    r3 = symloss.simulate_supermarket(g, d=2, lam=0.7, t_end=80, seed=13)
    mf = float(Supermarket(2, 0.7).mean_queue_length(15))
    pa = symloss.pair_approximation(3, 0.7).mean_queue_length
    assert r3.ci[0] > mf + 0.03
    assert abs(r3.mean_queue_length - pa) < 0.02


def test_simulation_validation():
    g = symloss.make_graph("ring", 20, k=2)
    with pytest.raises(ValueError, match="unstable"):
        symloss.simulate_supermarket(g, d=2, lam=1.0, t_end=1)
    with pytest.raises(ValueError, match="d must be"):
        symloss.simulate_supermarket(g, d=0, lam=0.5, t_end=1)
    with pytest.raises(ValueError, match="at least d-1=3 neighbours"):
        symloss.simulate_supermarket(g, d=4, lam=0.5, t_end=1)
    symloss.simulate_supermarket(g, d=4, lam=0.5, t_end=1, replace=True)   # allowed with replacement
    with pytest.raises(ValueError, match="no edges"):
        symloss.simulate_supermarket(symloss.make_graph(nx.empty_graph(5)), d=2, lam=0.5, t_end=1)
    G = nx.cycle_graph(10)
    G.add_node(10)
    with pytest.warns(UserWarning, match="isolated"):
        symloss.simulate_supermarket(G, d=2, lam=0.5, t_end=1, seed=1)
    with pytest.raises(ValueError, match="t_end"):
        symloss.simulate_supermarket(g, d=2, lam=0.5, t_end=0)
    with pytest.raises(ValueError, match="initial"):
        symloss.simulate_supermarket(g, d=2, lam=0.5, t_end=1, initial=np.zeros(3, dtype=int))
    with pytest.raises(TypeError, match="graph must be"):
        symloss.simulate_supermarket([[0, 1]], d=2, lam=0.5, t_end=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = symloss.simulate_supermarket(g, d=2, lam=0.5, t_end=1, seed=1, initial=np.full(20, 3))
    assert r.s[0, 3] == 1.0 and r.s[0, 4] == 0.0


# --------------------------------------------------------------------------------------------------
# distance to the ODE
# --------------------------------------------------------------------------------------------------

def test_ode_distance_shrinks_with_N_and_modes():
    small = symloss.ode_distance("complete", N=100, d=2, lam=0.7, T=5, runs=3, seed=1)
    large = symloss.ode_distance("complete", N=10000, d=2, lam=0.7, T=5, runs=3, seed=1)
    assert large.distance < small.distance / 3
    assert small.ci[0] <= small.distance <= small.ci[1]
    warnings.simplefilter("ignore", UserWarning)   # G(N, ln N/N) may have a few isolated vertices
    ann = symloss.ode_distance("erdos_renyi", N=2000, c="ln", d=2, lam=0.7, T=5, runs=2, seed=2, mode="annealed")
    que = symloss.ode_distance("erdos_renyi", N=2000, c="ln", d=2, lam=0.7, T=5, runs=2, seed=2, mode="quenched")
    assert ann.graphs[0]["n_edges"] != ann.graphs[1]["n_edges"]                # new graph per run
    assert que.graphs[0] == que.graphs[1]                                        # one graph
    # fixed degree: the distance does not vanish (the ring stays away from the mean field)
    ring = symloss.ode_distance("ring", N=10000, k=2, d=2, lam=0.7, T=8, runs=2, seed=3)
    assert ring.distance > 2 * large.distance
    with pytest.raises(ValueError, match="annealed"):
        symloss.ode_distance(symloss.make_graph("ring", 100), d=2, lam=0.7, T=1, mode="annealed")
    with pytest.raises(ValueError, match="mode"):
        symloss.ode_distance("ring", N=100, d=2, lam=0.7, T=1, mode="both")


@pytest.mark.parametrize("method", ["uniformized", "event"])
def test_long_queues_grow_level_arrays(method):
    # one M/M/1 queue at load 0.99 started at 31 (d = 1 needs no neighbours): the queue passes level 64, where the
    # kernels enlarge their level arrays; conservation and the recorded profile stay consistent
    g = symloss.make_graph(nx.empty_graph(1))
    r = symloss.simulate_supermarket(g, d=1, lam=0.99, t_end=4000, seed=8, method=method, record_every=1.0,
                                     initial=np.array([31]))
    assert r.s.shape[1] > 65
    assert int(r.final_queues.sum()) == 31 + r.arrivals - r.departures
    assert r.s[-1, int(r.final_queues[0])] == 1.0 and r.s[-1, int(r.final_queues[0]) + 1] == 0.0
    assert r.t[1] == pytest.approx(1.0) and r.warmup == pytest.approx(800.0)


@given(st.integers(5, 60), st.floats(0.1, 0.9), st.integers(1, 4), st.floats(0.05, 0.95),
       st.booleans(), st.integers(0, 2 ** 31))
def test_simulator_invariants_on_random_graphs(n, p, d, lam, replace, seed):
    G = nx.gnp_random_graph(n, p, seed=seed % 1000)
    G.add_edges_from((i, i + 1) for i in range(n - 1))          # connected: no isolated vertices
    g = symloss.make_graph(G)
    if not replace and g.min_degree < d - 1:
        with pytest.raises(ValueError, match="without replacement|neighbours"):
            symloss.simulate_supermarket(g, d=d, lam=lam, t_end=2.0, seed=seed, replace=replace)
        return
    r = symloss.simulate_supermarket(g, d=d, lam=lam, t_end=2.0, seed=seed, replace=replace)
    assert int(r.final_queues.sum()) == r.arrivals - r.departures
    assert np.all(r.s[:, 0] == 1.0) and np.all(np.diff(r.s, axis=1) <= 0) and np.all(r.s >= 0)
    assert r.s[-1, 1:].sum() * g.N == pytest.approx(float(r.final_queues.sum()))
    assert np.isfinite(r.mean_queue_length) and r.mean_queue_length >= 0


def test_dense_erdos_renyi_branch():
    g = symloss.make_graph("erdos_renyi", 30, c=20.0, seed=4)      # p > 1/2: enumerated pairs
    _as_nx(g)
    assert abs(g.mean_degree - 20.0) < 3.0
    full = symloss.make_graph("erdos_renyi", 12, c=11, seed=1)     # p = 1: the complete graph K_12
    assert full.n_edges == 66


def test_seed_forms():
    g = symloss.make_graph("ring", 200)
    a = symloss.simulate_supermarket(g, lam=0.6, t_end=5, seed=np.random.default_rng(3))
    b = symloss.simulate_supermarket(g, lam=0.6, t_end=5, seed=np.random.default_rng(3))
    c = symloss.simulate_supermarket(g, lam=0.6, t_end=5, seed=np.random.SeedSequence(3))
    d = symloss.simulate_supermarket(g, lam=0.6, t_end=5, seed=np.random.SeedSequence(3))
    assert np.array_equal(a.s, b.s) and np.array_equal(c.s, d.s)
    with pytest.raises(TypeError, match="seed"):
        symloss.simulate_supermarket(g, lam=0.6, t_end=5, seed="x")


def test_same_seedsequence_object_reused_gives_same_output():
    ss = np.random.SeedSequence(42)
    a = symloss.simulate_supermarket("random_regular", N=300, k=3, lam=0.6, t_end=5, seed=ss)
    b = symloss.simulate_supermarket("random_regular", N=300, k=3, lam=0.6, t_end=5, seed=ss)
    assert np.array_equal(a.s, b.s) and a.graph == b.graph
