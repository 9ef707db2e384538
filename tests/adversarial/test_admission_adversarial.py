"""Admission-control entry points under valid, extreme and invalid input (issue 17)."""
import math
import time
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from adversarial_strategies import covers, invalid_type_values, isolated_outcome, typed_reals
from flint import fmpq
from hypothesis import given, settings, strategies as st

import symloss
from symloss import PFI, SSS, Estimate, OverloadedLossNetwork, SamplePath, TrunkReservation, WindowDP, fit_log_n
from symloss.core.validation import BudgetError

pytestmark = pytest.mark.timeout(120)


def net(N=100, **kw):
    args = {"lam_H": Fraction(1, 2), "lam_L": 1, "r_H": 2, "r_L": 1}
    args.update(kw)
    return OverloadedLossNetwork(N, **args)


@covers("OverloadedLossNetwork")
@given(st.integers(1, 500), typed_reals(0.05, 0.95), typed_reals(1.1, 5.0))
@settings(max_examples=40)
def test_fluid_reward_is_exact_for_every_type(N, lh, rh):
    (lh_obj, lh_exact), (rh_obj, rh_exact) = lh, rh
    if lh_exact is None or rh_exact is None or not (0 < lh_exact < 1 and rh_exact > 1):
        return
    n = OverloadedLossNetwork(N, lh_obj, 1, rh_obj, 1)
    exact = N * (rh_exact * lh_exact + 1 * (1 - lh_exact))
    v = n.fluid_reward()
    if isinstance(v, Fraction):
        assert v == exact
    else:
        assert v == float(exact)             # computed exactly, rounded once


def test_rational_types_keep_the_exact_path():
    assert net(lam_H=fmpq(1, 2)).fluid_reward() == Fraction(150)
    assert isinstance(net(lam_H=np.float32(0.5)).fluid_reward(), float)
    with mpmath.workdps(40):
        lh = mpmath.mpf(1) / 3
    sign, man, exp, _ = lh._mpf_
    exact = Fraction(man) * Fraction(2) ** exp
    assert net(lam_H=lh).fluid_reward() == float(100 * (2 * exact + (1 - exact)))   # every bit of the mpf used


@pytest.mark.parametrize("bad", invalid_type_values(), ids=lambda b: type(b).__name__)
def test_parameters_refuse_bad_types(bad):
    for name in ("lam_H", "lam_L", "r_H", "r_L", "mu"):
        with pytest.raises(TypeError, match=name):
            net(**{name: bad})
    with pytest.raises(TypeError, match="N"):
        net(N=bad)


@pytest.mark.parametrize("kw,words", [
    ({"lam_H": 1e-300}, r"lam_H must be a real number in \[1e-100, 1e\+100\]"),
    ({"r_H": 1e300, "r_L": 1e299}, "r_H"),
    ({"lam_H": float("nan")}, "lam_H"), ({"mu": 0}, "mu"), ({"lam_L": -1}, "lam_L"),
    ({"lam_H": 1}, "lam_H < mu"), ({"lam_L": Fraction(1, 2)}, "mu < lam_H"), ({"r_L": 2}, "r_H must exceed"),
    ({"N": 0}, "N"), ({"N": 10 ** 8}, "N"),
])
def test_parameter_values_are_refused_with_the_range(kw, words):
    with pytest.raises(ValueError, match=words):
        net(**kw)


def test_overload_conditions_are_decided_exactly():
    # lam_H + lam_L == mu exactly in binary: not overloaded (a float sum would round)
    with pytest.raises(ValueError, match="mu < lam_H"):
        OverloadedLossNetwork(10, 0.5, 0.25, 2, 1, mu=0.75)
    OverloadedLossNetwork(10, 0.5, 0.25 + 2 ** -54, 2, 1, mu=0.75)


@covers("TrunkReservation")
def test_online_and_trunk_reservation_extremes():
    n = net(N=10 ** 6)
    t0 = time.perf_counter()
    opt = n.online_optimal(dps=20)
    assert opt.threshold == 16 and opt.min_margin >= 0
    assert time.perf_counter() - t0 < 30
    tr = net().trunk_reservation(np.int64(4), dps=25)
    assert abs(tr.identity_residual) < mpmath.mpf(10) ** -20
    for K in (-1, 101, 2.5, True, "4"):
        with pytest.raises((TypeError, ValueError), match="K"):
            net().trunk_reservation(K)
    extreme = OverloadedLossNetwork(50, 1e-100, 1, 2, 1, mu=1e-90)     # was a false PrecisionError
    assert extreme.trunk_reservation(0, dps=20).reward > 0
    with pytest.raises(TypeError, match="K"):
        TrunkReservation(1.5)


@covers("SamplePath")
def test_sample_path_budgets_and_seeds():
    n = net()
    t0 = time.perf_counter()
    with pytest.raises(BudgetError, match="max_events"):
        n.sample_path(1e6)                     # 2.5e8 events, ~10 GB before
    with pytest.raises(BudgetError, match="max_bytes"):
        n.sample_path(1e3, max_bytes=1e6)
    assert time.perf_counter() - t0 < 2
    with pytest.raises(ValueError, match="seed"):
        n.sample_path(1.0, seed=-1)            # numpy's message without the name before
    with pytest.raises(TypeError, match="seed"):
        n.sample_path(1.0, seed="a")
    with pytest.raises(ValueError, match="horizon"):
        n.sample_path(float("nan"))
    ss = np.random.SeedSequence(4)
    p1, p2 = n.sample_path(2.0, ss), n.sample_path(2.0, ss)
    assert isinstance(p1, SamplePath) and np.array_equal(p1.marks, p2.marks) and ss.n_children_spawned == 0
    assert np.array_equal(n.sample_path(2.0, 4).marks, p1.marks)


@covers("SSS", "PFI", "WindowDP")
def test_policy_evaluation_budgets():
    n = net(N=1000)
    path = n.sample_path(10.0, 1)
    for pol in (SSS(0.01), PFI(), WindowDP(0.01), WindowDP(0.01, terminal="zero"), TrunkReservation(3), "online"):
        r = n.evaluate(pol, path)
        assert math.isfinite(r.cost_rate)
    t0 = time.perf_counter()
    with pytest.raises(BudgetError, match="max_work"):
        n.evaluate(WindowDP(1e6), path)
    with pytest.raises(BudgetError, match="max_work"):
        n.evaluate(SSS(1e6), path, max_work=1e5)
    with pytest.raises(BudgetError, match="max_work"):
        n.evaluate(PFI(level=900), path, max_work=1e4)      # counted inside the kernel
    with pytest.raises(ValueError, match="level"):
        n.evaluate(PFI(level=10 ** 9), path)
    with pytest.raises(BudgetError, match="max_work"):
        net(N=10 ** 5).offline_optimal(net(N=10 ** 5).sample_path(1.0, 1), max_work=1e9)
    assert time.perf_counter() - t0 < 20
    with pytest.raises(TypeError, match="path"):
        n.offline_optimal("path")
    with pytest.raises(ValueError, match="path was drawn"):
        net(N=10).offline_optimal(path)
    with pytest.raises(ValueError, match="method"):
        n.offline_optimal(path, method="fast")
    for bad in (-1, float("nan"), True):
        with pytest.raises((TypeError, ValueError), match="W"):
            SSS(bad)
    with pytest.raises(ValueError, match="terminal"):
        WindowDP(1.0, terminal="one")


def test_interval_lp_budget():
    n = net(N=10 ** 5)
    t0 = time.perf_counter()
    with pytest.raises(BudgetError, match="nonzeros"):
        n.offline_interval_lp(n.sample_jobs(1.0, 1))
    with pytest.raises(BudgetError, match="jobs"):
        n.sample_jobs(10.0, 1)
    assert time.perf_counter() - t0 < 20
    with pytest.raises(ValueError, match="seed"):
        net().sample_jobs(1.0, seed=-1)
    r = net().offline_interval_lp(net().sample_jobs(20.0, 1))
    assert r.max_fractionality < 1e-6 and r.gain_per_server > 0


def test_decomposition_budget_and_arguments():
    t0 = time.perf_counter()
    with pytest.raises(BudgetError, match="max_work"):
        net(N=10 ** 5).decomposition(100.0)
    with pytest.raises(BudgetError, match="max_work"):
        OverloadedLossNetwork.decomposition_study([10, 10 ** 5], 0.5, 1, 2, 1, horizon=1000.0)
    assert time.perf_counter() - t0 < 10
    with pytest.raises(TypeError, match="c must be a sequence"):
        net().decomposition(1.0, replications=2, c=4)
    with pytest.raises(TypeError, match=r"c\[1\]"):
        net().decomposition(1.0, replications=2, c=[1, "x"])
    with pytest.raises(ValueError, match="replications"):
        net().decomposition(1.0, replications=1)
    d = net(N=20).decomposition(2.0, replications=2, c=(4,), seed=np.random.SeedSequence(1))
    assert math.isfinite(d.C_vol.value) and math.isfinite(d.C_vol.half_width)


@covers("fit_log_n", "Estimate")
def test_fit_and_estimates_never_nan():
    e = [Estimate(1.0, 0.1, 3), Estimate(2.0, 0.1, 3)]
    f = fit_log_n([10, 100], e)
    assert all(math.isfinite(x) for x in (f.intercept, f.slope, f.slope_hw))
    for Ns, est, words in (([10], e[:1], "two distinct"), ([10, 10], e, "two distinct"), ([0, 10], e, "Ns"),
                           ([10, 20, 30], e, "same length"),
                           ([10, 20], [Estimate(float("nan"), 0.1, 3), e[1]], r"estimates\[0\].value"),
                           ([10, 20], [Estimate(1.0, math.inf, 1), e[1]], "half-width")):
        with pytest.raises(ValueError, match=words):
            fit_log_n(Ns, est)
    with pytest.raises(TypeError, match="estimates"):
        fit_log_n([10, 20], [1.0, 2.0])
    assert Estimate.from_samples([1.0]).half_width == math.inf
    with pytest.raises(ValueError, match="samples"):
        Estimate.from_samples([1.0, float("nan")])
    with pytest.raises(TypeError, match="samples"):
        Estimate.from_samples([1.0, 1j])


@pytest.mark.timeout(60)
def test_no_crash_in_a_fresh_process():
    out = isolated_outcome("symloss.OverloadedLossNetwork(10**5, 0.5, 1, 2, 1).sample_path(1e4)")
    assert out.startswith("raised BudgetError"), out


def test_lazy_names():
    assert symloss.OverloadedLossNetwork is OverloadedLossNetwork
