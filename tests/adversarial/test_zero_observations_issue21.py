"""Issue 21: a simulation that observes no loss must not report a zero-width interval that excludes the
truth. References: the Erlang formula (random routing: every server is an M/M/C/C queue of load rho,
for any N) and the exact finite-N chain."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import symloss
from symloss.core.stats import ZeroObservationsWarning, clopper_pearson_zero, proportion_interval


def test_clopper_pearson_bound_is_exact():
    for n in (1, 3, 20, 1000):
        u = clopper_pearson_zero(n)
        assert math.isclose((1 - u) ** n, 0.025, rel_tol=1e-12)          # P(no success | p = u) = alpha/2
        assert 3 / n < u < 3.7 / n or n < 20                              # a little above the rule of three
    with pytest.raises(ValueError, match="n must be"):
        clopper_pearson_zero(0)
    with pytest.raises(ValueError, match="level"):
        clopper_pearson_zero(5, level=1.0)


def test_proportion_interval_cases():
    (lo, hi), se, kind = proportion_interval([0.0] * 20, 0.0)
    assert (lo, kind) == (0.0, "none observed") and math.isclose(hi, 1 - 0.025 ** (1 / 20)) and math.isnan(se)
    (lo, hi), _, kind = proportion_interval([1.0] * 4, 1.0)
    assert kind == "all observed" and hi == 1.0 and math.isclose(lo, 0.025 ** 0.25)
    (lo, hi), _, kind = proportion_interval([0.0, np.nan, 0.0], 0.0)          # a unit without arrivals
    assert kind == "none observed" and math.isclose(hi, clopper_pearson_zero(2))
    (lo, hi), se, kind = proportion_interval([0.1, 0.3], 0.2)                  # ordinary Student t
    assert kind is None and lo < 0.2 < hi and se > 0


def test_light_load_no_loss_server_kernel_covers_truth():
    N, C, rho = 10, 6, 0.3
    with pytest.warns(ZeroObservationsWarning, match="20 batches"):
        r = symloss.simulate("random", N=N, C=C, rho=rho, events=20_000, seed=1)
    assert r.blocking == 0.0 and r.ci_one_sided == "none observed"         # nothing was observed ...
    truth = float(symloss.erlang_b(C, rho))                                 # ~7.5e-7
    exact = symloss.exact_finite_n("random", N, C, rho).blocking
    assert math.isclose(exact, truth, rel_tol=1e-8)
    assert r.ci[0] == 0.0 and r.ci[1] >= truth and r.covers(truth)          # ... and the interval still holds it
    assert math.isclose(r.ci[1], clopper_pearson_zero(20))                  # n = the 20 batch means
    assert r.lost_ci[1] >= truth
    assert "one-sided" in repr(r) and r.to_dict()["ci_one_sided"] == "none observed"


def test_light_load_no_loss_count_kernel_replications():
    model = symloss.RetrialOfD(4, 2)
    N, rho = 6, 0.1
    with pytest.warns(ZeroObservationsWarning, match="3 replications"):
        r = symloss.simulate(model, N=N, rho=rho, events=300, replications=3, seed=2, kernel="count")
    truth = symloss.exact_finite_n(model, N, rho).blocking
    assert r.blocking == 0.0 and 0 < truth <= r.ci[1]
    assert math.isclose(r.ci[1], clopper_pearson_zero(3))                   # n = the 3 replications


def test_ordinary_run_has_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ZeroObservationsWarning)
        r = symloss.simulate("retrial", N=50, C=2, rho=1.0, d=2, events=50_000, seed=3)
    assert r.ci_one_sided is None and r.ci[0] < r.blocking < r.ci[1]


def test_supermarket_no_task_is_one_sided():
    with pytest.warns(ZeroObservationsWarning, match="no task"):
        r = symloss.simulate_supermarket("complete", N=2, d=2, lam=1e-6, t_end=20.0, seed=1)
    assert r.mean_queue_length == 0.0 and r.ci == (0.0, math.inf)
    r = symloss.simulate_supermarket("complete", N=200, d=2, lam=0.7, t_end=10.0, seed=1)
    assert r.ci[0] < r.mean_queue_length < r.ci[1] < math.inf
