"""Finite N from the one definition (issue 13): exact chain, simulators and refined mean field of ANY model.

Independent references (none computed by the code under test):
* ``server_level_exact`` (finite_n_hybrid.py): the chain of the N individual server occupancies,
  routing written operationally (all N^d samples of a round enumerated), exact rationals;
* random routing: every server is an M/M/C/C station, B_N = E(C, rho) exactly for every N;
* C = 1: the number of busy servers is a birth-death chain (exact rationals);
* a service rate mu = 2 is the original model at load rho/2 (time change): the stationary law, hence
  the blocking and every term of the expansion, is that of the unmutated model at rho/2;
* rmftool (Gast) agrees with V to 1e-15 and with W to 1e-5 on PowerOfD(5, 2) (measured in the
  benchmark; rmftool is not a test dependency).
"""
from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from finite_n_hybrid import (
    hybrid_finite_n_blocking,
    hybrid_model,
    hybrid_refined,
    hybrid_routing,
    hybrid_simulation,
    server_level_exact,
)

import symloss
from symloss import (
    RHO,
    DefinitionMismatchWarning,
    PowerOfD,
    RandomRouting,
    RetrialOfD,
    define_model,
    exact_finite_n,
    finite_n_threshold,
    refined_mean_field,
    simulate,
)
from symloss.finite_n.chain import FiniteNModelError


def erlang_b(C, a):
    inv = Fraction(1) if isinstance(a, Fraction) else 1.0
    for n in range(1, C + 1):
        inv = 1 + n / a * inv
    return 1 / inv


def birth_death_c1(N, rho, d):
    w = [Fraction(1)]
    for m in range(1, N + 1):
        w.append(w[-1] * N * rho * (1 - Fraction(m - 1, N) ** d) / m)
    return sum(wi * Fraction(m, N) ** d for m, wi in enumerate(w)) / sum(w)


class DoubleServicePower(PowerOfD):
    """Power-of-d with every service at rate 2 (a mutation of the definition's rates)."""

    def transitions(self):
        return [(jump, 2 * rate if any(v < 0 for v in jump) else rate) for jump, rate in super().transitions()]


def occupancy_random(C):
    x = sp.symbols(f"x0:{C + 1}", nonnegative=True)
    trs = [({x[k]: -1, x[k + 1]: 1}, RHO * x[k]) for k in range(C)]
    trs += [({x[k]: -1, x[k - 1]: 1}, k * x[k]) for k in range(1, C + 1)]
    return x, trs


# --------------------------------------------------------------------------------------------------
# exact chain from the definition
# --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("N, C, d, r", [(3, 2, 2, 2), (4, 2, 2, 2), (3, 2, 1, 3), (3, 2, 3, 1), (3, 3, 2, 2)])
def test_hybrid_exact_equals_server_level_chain(N, C, d, r):
    """The count chain generated from the hybrid definition gives exactly (rationals) the blocking of
    the chain of the individual servers under the operational routing."""
    rho = Fraction(3, 2)
    ref = server_level_exact(N, C, rho, hybrid_routing(d, r))
    e = hybrid_finite_n_blocking(C, d, r, N, rho, method="exact")
    assert e.blocking_exact == ref
    f = hybrid_finite_n_blocking(C, d, r, N, 1.5)
    assert f.blocking == pytest.approx(float(ref), rel=1e-12)
    assert "generated from the definition" in f.method and f.chain_source == "mean-field rates x N"


@pytest.mark.parametrize("N, C", [(1, 1), (5, 2), (6, 3), (3, 4)])
def test_exact_rationals_random_routing(N, C):
    rho = Fraction(7, 5)
    e = exact_finite_n(RandomRouting(C), N, rho, method="exact")
    assert e.blocking_exact == erlang_b(C, rho)
    assert exact_finite_n("random", N, C, "1.4", method="exact").blocking_exact == erlang_b(C, rho)


@pytest.mark.parametrize("N, d", [(6, 2), (9, 3)])
def test_exact_rationals_c1_birth_death(N, d):
    rho = Fraction(3, 2)
    for m in (RetrialOfD(1, d), PowerOfD(1, d)):
        assert exact_finite_n(m, N, rho, method="exact").blocking_exact == birth_death_c1(N, rho, d)


def test_exact_methods_agree_and_shorthand():
    for m in (RetrialOfD(2, 2), PowerOfD(2, 3), hybrid_model(2, 2, 2)):
        ex = exact_finite_n(m, 12, Fraction(6, 5), method="exact")
        lu = exact_finite_n(m, 12, 1.2, method="lu")
        gs = exact_finite_n(m, 12, 1.2, method="gauss-seidel")
        assert lu.blocking == pytest.approx(float(ex.blocking_exact), rel=1e-12)
        assert gs.blocking == pytest.approx(float(ex.blocking_exact), rel=1e-11)
        assert "Gauss-Seidel" in gs.method and "LU" in lu.method and "exact" in ex.method
    # the policy shorthand is the shipped model
    a = exact_finite_n("power", 15, 3, 2.0, 2, sampling="without_replacement")
    b = exact_finite_n(PowerOfD(3, 2), 15, 2.0, sampling="without_replacement")
    assert a.blocking == b.blocking and a.chain_source == "finite_n_transitions"


def test_custom_state_kind_by_search():
    """A model declared 'custom' (no enumeration shortcut) is explored by breadth-first search and
    gives the same chain as the occupancy enumeration."""
    x, trs = occupancy_random(2)
    custom = define_model("random-custom", x, trs, blocking=x[2], invariants=[sp.Eq(sum(x), 1)])
    occ = define_model("random-occ", x, trs, blocking=x[2], invariants=[sp.Eq(sum(x), 1)],
                       state_kind="occupancy", C=2)
    a = exact_finite_n(custom, 9, 1.3)
    b = exact_finite_n(occ, 9, 1.3)
    assert a.n_states == b.n_states == math.comb(11, 2)
    assert a.blocking == pytest.approx(b.blocking, rel=1e-13) == pytest.approx(float(erlang_b(2, 1.3)), rel=1e-12)
    assert exact_finite_n(custom, 9, Fraction(13, 10), method="exact").blocking_exact == erlang_b(2, Fraction(13, 10))


def test_tail_occupancy_output():
    e = exact_finite_n(PowerOfD(3, 2), 10, 2.0)
    assert e.occupancy.shape == (4,) and e.occupancy.sum() == pytest.approx(1.0)
    assert e.state_mean.shape == (3,)
    assert e.state_mean[0] == pytest.approx(1 - e.occupancy[0])
    assert 2.0 * (1 - e.blocking) == pytest.approx(float(np.arange(4) @ e.occupancy), rel=1e-10)
    d = e.to_dict()
    assert d["model"] == "PowerOfD(C=3, d=2)" and d["symbols"] == ["U1", "U2", "U3"]


# --------------------------------------------------------------------------------------------------
# bad input: named state and transition, before any solve
# --------------------------------------------------------------------------------------------------

def test_negative_rate_named():
    x, trs = occupancy_random(2)
    trs[0] = (trs[0][0], RHO * (x[0] - x[2]))            # negative where x2 > x0
    m = define_model("neg", x, trs, blocking=x[2], invariants=[sp.Eq(sum(x), 1)], state_kind="occupancy", C=2)
    with pytest.raises(FiniteNModelError, match=r"rate of transition 0 .* is negative .* at the state \{n_x0: 0"):
        exact_finite_n(m, 4, 1.0)
    with pytest.raises(FiniteNModelError, match=r"transition 0 .* negative"):
        simulate(m, N=4, rho=1.0, events=10_000, seed=1)


def test_transition_leaving_the_state_space_named():
    x, trs = occupancy_random(2)
    trs[1] = (trs[1][0], RHO)                             # 1 -> 2 even with no server at level 1
    m = define_model("leak", x, trs, blocking=x[2], invariants=[sp.Eq(sum(x), 1)], state_kind="occupancy", C=2)
    with pytest.raises(FiniteNModelError, match=r"transition 1 .* leaves the state space from the state"):
        exact_finite_n(m, 3, 1.0)
    with pytest.raises(FiniteNModelError, match=r"transition 1 .* leaves the state space"):
        simulate(m, N=3, rho=1.0, events=100_000, seed=1, warmup=0)


def test_undefined_rate_named():
    x, trs = occupancy_random(2)
    trs[0] = (trs[0][0], RHO * x[0] / (1 - x[2]))         # undefined when every server is full
    m = define_model("undef", x, trs, blocking=x[2], invariants=[sp.Eq(sum(x), 1)], state_kind="occupancy", C=2)
    with pytest.raises(FiniteNModelError, match=r"undefined .* at the state \{n_x0: 0, n_x1: 0, n_x2: 3\}"):
        exact_finite_n(m, 3, 1.0)


def test_sizes_checked_before_work():
    import time
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="states"):
        exact_finite_n("random", 10 ** 7, 10 ** 5, 1.0)
    with pytest.raises(ValueError, match="states"):
        exact_finite_n(PowerOfD(5, 2), 60, 1.0)
    with pytest.raises(ValueError, match="at most 1500 states"):
        exact_finite_n(PowerOfD(3, 2), 30, Fraction(1), method="exact")
    with pytest.raises(ValueError, match="exceeds the limit"):
        simulate(PowerOfD(2, 2), N=10, rho=1.0, events=10 ** 12, replications=100, seed=1)
    assert time.perf_counter() - t0 < 5
    with pytest.raises(TypeError, match="exact rational"):
        exact_finite_n(PowerOfD(2, 2), 5, 1.3, method="exact")
    with pytest.raises(TypeError, match="C and d are given by the model"):
        exact_finite_n(PowerOfD(2, 2), 5, 1.0, C=2)
    with pytest.raises(TypeError, match="MeanFieldModel"):
        exact_finite_n(object(), 5, 1.0)
    with pytest.raises(ValueError, match="kernel"):
        simulate(PowerOfD(2, 2), N=5, rho=1.0, events=100, kernel="gpu")


# --------------------------------------------------------------------------------------------------
# both simulators against the exact chain, on the same cases
# --------------------------------------------------------------------------------------------------

SIM_CASES = [(RandomRouting(2), "with_replacement"), (RetrialOfD(2, 2), "with_replacement"),
             (RetrialOfD(2, 3), "without_replacement"), (PowerOfD(2, 2), "with_replacement"),
             (PowerOfD(2, 2), "without_replacement"), (symloss.JSQ(2), "with_replacement")]


@pytest.mark.parametrize("model, sampling", SIM_CASES)
def test_both_simulators_agree_with_exact(model, sampling):
    N, rho = 10, 1.2
    e = exact_finite_n(model, N, rho, sampling=sampling)
    srv = simulate(model, N=N, rho=rho, events=200_000, replications=8, seed=11, sampling=sampling)
    cnt = simulate(model, N=N, rho=rho, events=200_000, replications=8, seed=12, sampling=sampling, kernel="count")
    assert srv.kernel == "server" and cnt.kernel == "count"
    for s in (srv, cnt):
        assert abs(s.blocking - e.blocking) <= 4 * s.std_error, (s, e.blocking)
        np.testing.assert_allclose(s.occupancy, e.occupancy, atol=6e-3)


def test_generated_kernel_hybrid_and_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMLOSS_CACHE_DIR", str(tmp_path))
    e = hybrid_finite_n_blocking(2, 2, 2, 8, 1.5)
    s = hybrid_simulation(2, 2, 2, 8, 1.5, events=200_000, replications=8, seed=3)
    assert s.kernel == "count" and abs(s.blocking - e.blocking) <= 4 * s.std_error
    files = list((tmp_path / "kernels").glob("count_kernel_*.py"))
    assert len(files) == 1 and "Generated by symloss" in files[0].read_text()
    # same definition, other N: the same kernel (N is an argument of the mean-field-rate kernels)
    hybrid_simulation(2, 2, 2, 20, 1.5, events=20_000, replications=2, seed=3)
    assert len(list((tmp_path / "kernels").glob("count_kernel_*.py"))) == 1
    # identical seed, identical output
    a = hybrid_simulation(2, 2, 2, 8, 1.5, events=50_000, replications=2, seed=9)
    b = hybrid_simulation(2, 2, 2, 8, 1.5, events=50_000, replications=2, seed=9)
    assert a.blocking == b.blocking and np.array_equal(a.estimates, b.estimates)


def test_count_kernel_custom_model_batch_means():
    x, trs = occupancy_random(2)
    custom = define_model("random-custom", x, trs, blocking=x[2], invariants=[sp.Eq(sum(x), 1)])
    s = simulate(custom, N=50, rho=1.3, events=1_000_000, seed=4)
    assert s.kernel == "count" and s.ci_method == "batch means"
    assert s.covers(float(erlang_b(2, 1.3))) or abs(s.blocking - float(erlang_b(2, 1.3))) < 4 * s.std_error
    assert s.occupancy.sum() == pytest.approx(1.0)


# --------------------------------------------------------------------------------------------------
# mutation tests: edit a rate, every finite-N solver follows (or raises); no fast path for the edit
# --------------------------------------------------------------------------------------------------

def test_mutation_exact_follows_independent_reference():
    N, C, d = 3, 2, 2
    mut = DoubleServicePower(C, d)
    ref = server_level_exact(N, C, Fraction(3, 2), hybrid_routing(d, 1), mu=Fraction(2))
    assert exact_finite_n(mut, N, Fraction(3, 2), method="exact").blocking_exact == ref
    assert exact_finite_n(mut, N, 1.5).blocking == pytest.approx(float(ref), rel=1e-12)
    assert exact_finite_n(PowerOfD(C, d), N, 1.5).blocking != pytest.approx(float(ref), rel=1e-3)


def test_mutation_simulate_uses_generated_kernel():
    N, C, d, rho = 10, 2, 2, 2.4
    mut = DoubleServicePower(C, d)
    ref = exact_finite_n("power", N, C, rho / 2, d).blocking          # time change: mu = 2 <=> rho / 2
    with pytest.warns(DefinitionMismatchWarning, match="server-level kernel"):
        s = simulate(mut, N=N, rho=rho, events=200_000, replications=8, seed=5)
    assert s.kernel == "count" and abs(s.blocking - ref) <= 4 * s.std_error
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DefinitionMismatchWarning)
        with pytest.raises(ValueError, match="server-level kernel does not simulate"):
            simulate(mut, N=N, rho=rho, events=1000, kernel="server")
    unmut = exact_finite_n("power", N, C, rho, d).blocking
    assert abs(s.blocking - unmut) > 10 * s.std_error


def test_mutation_patched_class_no_stale_fast_path(monkeypatch):
    """Patching PowerOfD.transitions on the class: the fast path, the chain cache and the kernel
    cache do not keep the old definition."""
    N, C, d, rho = 10, 2, 2, 2.4
    before = simulate(PowerOfD(C, d), N=N, rho=rho, events=20_000, seed=1)
    assert before.kernel == "server"
    orig = PowerOfD.transitions
    monkeypatch.setattr(PowerOfD, "transitions", lambda self: [(j, 2 * r if any(v < 0 for v in j) else r)
                                                               for j, r in orig(self)])
    ref = server_level_exact(4, C, Fraction(12, 5), hybrid_routing(d, 1), mu=Fraction(2))
    assert exact_finite_n(PowerOfD(C, d), 4, Fraction(12, 5), method="exact").blocking_exact == ref
    with pytest.warns(DefinitionMismatchWarning):
        s = simulate(PowerOfD(C, d), N=N, rho=rho, events=200_000, replications=8, seed=5)
    assert s.kernel == "count"
    monkeypatch.undo()
    assert simulate(PowerOfD(C, d), N=N, rho=rho, events=20_000, seed=1).kernel == "server"


def test_mutation_refined_follows():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DefinitionMismatchWarning)
        mut = refined_mean_field(DoubleServicePower(2, 2), rho=2.4, dps=20)
    ref = refined_mean_field(PowerOfD(2, 2), rho=1.2, dps=20)
    orig = refined_mean_field(PowerOfD(2, 2), rho=2.4, dps=20)
    assert mut.blocking_mf == pytest.approx(ref.blocking_mf, rel=1e-14)
    assert mut.V == pytest.approx(ref.V, rel=1e-10) and mut.W == pytest.approx(ref.W, rel=1e-8)
    assert abs(mut.V_mp - ref.V_mp) < 1e-18 and abs(mut.V - orig.V) > 1e-3


# --------------------------------------------------------------------------------------------------
# refined mean field of any model, to second order
# --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model, rho, Ns", [(PowerOfD(2, 2), 1.0, (20, 40, 80)),
                                            (RetrialOfD(2, 2), 1.0, (20, 40, 80)),
                                            (hybrid_model(2, 2, 2), 1.5, (20, 40, 80))])
def test_refined_second_order_against_exact(model, rho, Ns):
    r = refined_mean_field(model, rho=rho, dps=20)
    e1, e2 = [], []
    for N in Ns:
        bn = exact_finite_n(model, N, rho).blocking
        e1.append(bn - r.at(N))
        e2.append(bn - r.at(N, 2))
    # (B_N - B - V/N) N^2 -> W (the gap falling like 1/N), and the second-order error falls like N^-3
    gaps = [abs(e * n ** 2 - r.W) for e, n in zip(e1, Ns)]
    assert gaps[2] < gaps[0] / 3 and gaps[2] < 0.1 * abs(r.W)
    assert abs(e2[0]) < abs(e1[0]) / 3 and abs(e2[-1]) < abs(e1[-1]) / 10
    assert 6.0 < abs(e2[0] / e2[1]) < 10.0 and 6.0 < abs(e2[1] / e2[2]) < 10.0


def test_refined_high_precision():
    m = hybrid_model(3, 2, 2)
    r30 = refined_mean_field(m, rho=2.0, dps=30)
    r60 = refined_mean_field(m, rho=2.0, dps=60)
    assert abs(r30.V_mp - r60.V_mp) < 1e-29 * abs(r60.V_mp)
    assert float(r60.V_mp) == pytest.approx(r30.V, rel=1e-12)
    assert abs(r60.blocking_mf_mp - m.blocking(2.0, dps=60)) < 1e-58
    assert hybrid_refined(3, 2, 2, 2.0, N=50).blocking_refined2 == pytest.approx(r30.at(50, 2))


def test_refined_refuses_without_replacement_and_jsq():
    with pytest.raises(ValueError, match="with_replacement"):
        refined_mean_field(PowerOfD(2, 2), rho=1.0, sampling="without_replacement")
    with pytest.raises(ValueError, match="smooth"):
        refined_mean_field(symloss.JSQ(2), rho=1.0)


def test_refined_order_one_only():
    r = refined_mean_field(PowerOfD(3, 2), rho=2.0, order=1, dps=None)
    assert r.W is None and r.V_mp is None
    with pytest.raises(ValueError, match="second-order"):
        r.at(10, 2)


# --------------------------------------------------------------------------------------------------
# finite-N threshold between any two models
# --------------------------------------------------------------------------------------------------

def test_threshold_any_two_models():
    a = finite_n_threshold(RetrialOfD(2, 4), PowerOfD(2, 3), 10, mean_field=False)
    b = finite_n_threshold(2, 3, 4, 10, mean_field=False)
    assert a.method == b.method == "exact" and a.threshold == b.threshold
    assert a.model_a == "RetrialOfD(C=2, d=4)" and (a.C, a.d, a.dt) == (2, 3, 4)
    # a user model: the hybrid with r = 2 rounds against power-of-2 (C = 2, N = 8)
    h = hybrid_model(2, 2, 2)
    t = finite_n_threshold(h, PowerOfD(2, 3), 8, mean_field=False)
    assert t.method == "exact"
    if t.threshold > 0:
        lo = exact_finite_n(h, 8, t.threshold * 0.99).blocking - exact_finite_n(PowerOfD(2, 3), 8, t.threshold * 0.99).blocking
        hi = exact_finite_n(h, 8, t.threshold * 1.01).blocking - exact_finite_n(PowerOfD(2, 3), 8, t.threshold * 1.01).blocking
        assert lo > 0 > hi
