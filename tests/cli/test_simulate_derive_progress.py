"""``simulate`` reports simulated events (bit-identical results with and without the callback) and
``derive`` prints the equations first and enforces ``--max-seconds`` from outside (issue 26, item 4 and 6)."""
from __future__ import annotations

import time

import numpy as np
import pytest

import symloss
from symloss.cli import main
from symloss.core.budgets import TimeLimitExceeded, run_with_deadline


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


FIELDS = ("blocking", "ci", "std_error", "simulated_time", "warmup", "events")


@pytest.mark.parametrize("model, kw", [
    (symloss.PowerOfD(2, 2), dict(N=40, rho=1.0, events=60_007, replications=2)),
    (symloss.RetrialOfD(3, 2), dict(N=25, rho=0.9, events=33_001, warmup=5_003)),
])
def test_count_kernel_in_pieces_is_bit_identical(model, kw):
    plain = symloss.simulate(model, seed=11, kernel="count", **kw)
    calls = []
    with_bar = symloss.simulate(model, seed=11, kernel="count", progress=lambda d, t: calls.append((d, t)), **kw)
    for f in FIELDS:
        assert getattr(plain, f) == getattr(with_bar, f), f
    for f in ("occupancy", "estimates", "state_mean", "occupancy_ci"):
        assert np.array_equal(getattr(plain, f), getattr(with_bar, f)), f
    reps = kw.get("replications", 1)
    done = [d for d, _ in calls]
    assert done == sorted(done) and len(calls) >= reps * 20          # one report per batch at least
    assert calls[-1] == (reps * (plain.warmup + plain.events),) * 2  # the total, reached exactly
    # a different seed gives another run: the comparison above can fail
    other = symloss.simulate(model, seed=12, kernel="count", progress=lambda d, t: None, **kw)
    assert other.blocking != plain.blocking


def test_progress_argument_checked():
    with pytest.raises(TypeError, match="progress must be a callable"):
        symloss.simulate("power", N=10, C=2, d=2, rho=1.0, events=100, progress=3)


def test_server_kernel_reports_its_total():
    calls = []
    r = symloss.simulate("power", N=10, C=2, d=2, rho=1.0, events=10_000, seed=1,
                         progress=lambda d, t: calls.append((d, t)))
    assert calls == [(r.warmup + r.events,) * 2]


def test_run_with_deadline_kills_a_step_that_cannot_be_interrupted():
    t0 = time.perf_counter()
    got = []
    # the budget counts from the call, the worker's start included (spawn, when threads run, imports symloss)
    with pytest.raises(TimeLimitExceeded, match=r"nap did not finish within --max-seconds=4"):
        for item in run_with_deadline([("sum", sum, ([1, 2],)), ("nap", time.sleep, (60,))], 4,
                                      what="test", name="--max-seconds"):
            got.append(item)
    assert got == [("sum", 3)] and time.perf_counter() - t0 < 10
    with pytest.raises(ZeroDivisionError):                     # a step's own error comes back
        list(run_with_deadline([("div", divmod, (1, 0))], 10))
    with pytest.raises(TypeError, match="steps must be"):
        list(run_with_deadline([("x", 1, ())], 10))


def test_derive_prints_the_equations_in_order(capsys):
    code, out, _ = run(capsys, "derive", "--policy", "power", "--C", "2", "--d", "2")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("PowerOfD(C=2, d=2)") and lines[2].startswith("stationary equations")
    assert lines[3] == "  -rho*u1**2 + rho - u1 + u2 = 0"
    order = [out.index(t) for t in ("stationary equations", "polynomial in s", "eliminant P(rho, B)",
                                    "expansion of the blocking at rho -> 0", "expansion of the blocking at rho -> oo")]
    assert order == sorted(order) and not out.endswith("\n\n")
    assert "B = rho**6/4 - rho**8/2 + O(rho**10)" in out


def test_derive_stops_at_max_seconds_with_the_cheaper_flags(capsys):
    t0 = time.perf_counter()
    code, out, err = run(capsys, "derive", "--policy", "power", "--C", "24", "--d", "2", "--no-eliminant",
                         "--max-seconds", "2")
    took = time.perf_counter() - t0
    assert code == 2 and took < 15
    assert "stationary equations" in out and "rho*u23**2 - rho*u24**2 - 24*u24 = 0" in out   # printed first
    assert "TimeLimitExceeded" in err and "--max-seconds=2" in err
    assert "--series 0 (no expansions)" in err and "--series 1" in err and "--C 12" in err
    assert "--no-eliminant" not in err.split("cheaper:")[1]            # already given: not suggested


def test_derive_errors_of_a_step_and_unused_budget(capsys):
    code, _, err = run(capsys, "derive", "--policy", "power", "--C", "3", "--d", "2", "--max-degree", "2")
    assert code == 2 and "max-degree" in err.replace("max_degree", "max-degree")
    code, _, err = run(capsys, "derive", "--policy", "power", "--C", "3", "--d", "2", "--series", "0",
                       "--no-eliminant", "--max-seconds", "5")
    assert code == 2 and "--max-seconds would be ignored" in err
