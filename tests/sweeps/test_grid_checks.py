"""The grid is checked against the function before the first point runs: one clear error, nothing
launched, no store created (the TOML example docs/sweep.md used to show launched 19 456 points that all
failed with "blocking() got an unexpected keyword argument 'a'")."""
from __future__ import annotations

import time

import pytest

from symloss.sweeps import GridError, check_grid, grid, spec_grid, sweep, zip_grid
from symloss.sweeps.functions import admission, blocking, resolve_function

OLD_DOC_GRID = {  # the [grid] table of the former docs/sweep.md example, verbatim
    "policy": {"values": ["retrial", "power"]}, "C": {"range": [2, 21]}, "rho": {"linspace": [0.25, 4.0, 16]},
    "eps": {"logspace": [-3, 0, 4]}, "a": {"geomspace": [1, 1000, 4]}, "dps": 30,
    "zip": {"d": [2, 3], "dt": [3, 4]},
}


def test_the_former_docs_example_is_refused_before_it_runs(tmp_path):
    g = spec_grid(OLD_DOC_GRID)
    assert len(g) == 19456
    store = tmp_path / "blocking.sqlite"
    t0 = time.perf_counter()
    with pytest.raises(GridError) as exc:
        sweep("blocking", g, store=store, executor="processes", progress=False)
    assert time.perf_counter() - t0 < 10
    msg = str(exc.value)
    assert "sweep not started: all 19456 points are invalid" in msg
    assert "'a', 'dt', 'eps' are not arguments of blocking(policy, C, rho, d=None, dps=30)" in msg
    assert not store.exists()
    assert isinstance(exc.value, ValueError)


def test_unknown_and_missing_parameters_with_a_hint():
    with pytest.raises(GridError, match=r"'rhoo' \(did you mean 'rho'\?\) is not an argument"):
        check_grid(blocking, list(grid(policy="power", C=2, d=2, rhoo=1.0)))
    with pytest.raises(GridError, match="no value for the required argument 'rho' of blocking"):
        check_grid(blocking, list(grid(policy="power", C=2, d=2)))


@pytest.mark.parametrize("name, g, match", [
    ("threshold", grid(C=[0, 2], d=2, dt=3), "1 of 2 points are invalid: C must be an integer in [1, 1000], got 0"),
    ("threshold", grid(C=2, d=2, dt=[2, 3]), "dt must be > d"),
    ("threshold", grid(C=2, d=2, dt=3, dps=3), "dps must be an integer in [5, 100000], got 3"),
    ("blocking", grid(policy="powr", C=2, d=2, rho=1.0), "policy must be one of"),
    ("blocking", grid(policy="retrial", C=2, rho=1.0), "policy 'retrial' needs d"),
    ("blocking", grid(policy="power", C=2, d=2, rho=[-1.0, 1.0]), "rho must be a real number in (0, inf)"),
    ("simulate", grid(policy="power", N=10, C=2, rho=1.0, d=2, events=0), "events must be an integer >= 1"),
    ("simulate", grid(policy="jsq", N=10, C=2, rho=1.0, d=2, events=10), "d must be None for policy 'jsq'"),
    ("simulate", grid(policy="power", N=10, C=2, rho=1.0, d=2, events=10, seed=-3), "seed must be a non-negative"),
    ("erlang", grid(C=[1, 2], a=0), "a must be a real number in (0, inf)"),
    ("supermarket", grid(graph="complete", N=100, lam=1.2, t_end=10.0), "lam must be a real number in (0, 1)"),
    ("admission", grid(N=10, lam_H=1.0, lam_L=1.0, r_H=2.0, r_L=1.0), "must be overloaded"),
    ("admission", grid(N=10, lam_H=0.5, lam_L=1.0, r_H=2.0, r_L=1.0, quantity="decomposition", horizn=2.0),
     "'horizn' not an argument of OverloadedLossNetwork.decomposition"),
])
def test_ranges_and_cross_conditions(name, g, match, tmp_path):
    store = tmp_path / "s.sqlite"
    with pytest.raises(GridError) as exc:
        sweep(name, g, store=store, executor="serial", progress=False)
    assert match in str(exc.value)
    assert not store.exists()


def test_valid_grids_pass_and_run(tmp_path):
    g = grid(policy=["retrial", "power"], C=2, d=2, rho=[0.5, 1.0], dps=15)
    check_grid(blocking, list(g))
    s = sweep("blocking", g, store=tmp_path / "b.sqlite", executor="serial", progress=False)
    assert (s.n_done, s.n_failed) == (4, 0)
    check_grid(admission, list(grid(N=10, lam_H=0.5, lam_L=1.0, r_H=2.0, r_L=1.0, quantity="decomposition",
                                    horizon=2.0, replications=2, seed=0)))
    fn, _ = resolve_function("math:comb")                           # positional-only parameters
    check_grid(fn, list(grid(n=[3, 4], k=1)))
    with pytest.raises(GridError, match="'m' is not an argument of comb"):
        check_grid(fn, list(grid(n=3, m=1)))


def _free(**kwargs):
    return len(kwargs)


def _mine(x, y=1):
    return x + y


def test_functions_of_the_user_get_the_signature_check_only(tmp_path):
    check_grid(_free, list(grid(anything=1, goes=[1, 2])))          # **kwargs accepts every name
    check_grid(_mine, list(grid(x=[-5, 5])))                         # no ranges known for user functions
    with pytest.raises(GridError, match="'z' is not an argument of _mine"):
        check_grid(_mine, list(grid(x=1, z=2)))


def test_mixed_grids_report_counts_and_examples():
    g = grid(C=[2, 3], d=2, dt=3) + grid(C=5000, d=2, dt=3) + grid(C=2, d=2, dt=3, bogus=1)
    with pytest.raises(GridError) as exc:
        check_grid(resolve_function("threshold")[0], list(g), func_name="threshold")
    msg = str(exc.value)
    assert "2 of 4 points are invalid" in msg and "'bogus' is not an argument" in msg and "got 5000" in msg
    assert "[function threshold]" in msg


def test_check_false_runs_everything(tmp_path):
    g = grid(policy="power", C=2, d=2, rho=1.0, a=1)
    s = sweep("blocking", g, store=tmp_path / "x.sqlite", executor="serial", progress=False, check=False)
    assert s.n_failed == 1


def test_checking_a_large_grid_is_fast():
    g = grid(C=range(1, 1001), dps=15) * zip_grid(d=[2, 3, 4], dt=[3, 4, 5])
    t0 = time.perf_counter()
    check_grid(resolve_function("threshold")[0], list(g))
    assert time.perf_counter() - t0 < 3.0
