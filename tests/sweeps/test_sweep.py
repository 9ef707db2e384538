"""Tests of symloss.sweeps: grids, the store, resume, faults (raising points, SIGKILL, dead workers,
concurrent writers), executor equivalence (serial / processes / Dask), the CLI.

The module-level functions below are what the sweeps evaluate; worker processes import this module to
run them. Reference values are computed independently in the tests (exact integer arithmetic,
``math.comb``, mpmath at the stated precision).
"""
from __future__ import annotations

import importlib
import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sw = importlib.import_module("symloss.sweeps")
from symloss.sweeps.engine import _Store  # noqa: E402
from symloss.sweeps.functions import _call  # noqa: E402
from symloss.sweeps import Grid, grid, load_sweep, sweep, sweep_status, zip_grid  # noqa: E402
from test_sweep_functions import (KILL_FLAG_ENV, _Res, counted, escape, flaky, killer, mixed,  # noqa: E402
                                  square, with_dataclass)

FUNCS = "test_sweep_functions"

TESTS_DIR = str(Path(__file__).resolve().parent)


def _rows(store, func=None):
    conn = sqlite3.connect(store)
    try:
        sql = "SELECT params, status, result, error FROM points"
        args = ()
        if func:
            sql += " WHERE func = ?"
            args = (func,)
        return conn.execute(sql + " ORDER BY params", args).fetchall()
    finally:
        conn.close()


def _comparable(store):
    """(params, status, result, last line of error) per point: what must not depend on the executor."""
    return [(p, s, r, None if e is None else e.strip().splitlines()[-1]) for p, s, r, e in _rows(store)]


# ---------------------------------------------------------------------------------------------
# grids and canonical keys
# ---------------------------------------------------------------------------------------------

def test_grid_product_order_and_scalars():
    g = grid(C=[2, 3], rho=np.array([0.5, 1.0]), dps=30)
    assert len(g) == 4
    assert list(g) == [{"C": 2, "rho": 0.5, "dps": 30}, {"C": 2, "rho": 1.0, "dps": 30},
                       {"C": 3, "rho": 0.5, "dps": 30}, {"C": 3, "rho": 1.0, "dps": 30}]
    assert grid(C=range(1, 4)).keys() == ["C"] and len(grid(C=[])) == 0
    assert grid(policy="power", d=[2, 3])[1] == {"policy": "power", "d": 3}  # strings are scalars


def test_zip_combinations_filter():
    z = zip_grid(d=[2, 3, 4], dt=[3, 4, 5], C=10)
    assert list(z) == [{"d": 2, "dt": 3, "C": 10}, {"d": 3, "dt": 4, "C": 10}, {"d": 4, "dt": 5, "C": 10}]
    with pytest.raises(ValueError, match="same length.*d: 2, dt: 3"):
        zip_grid(d=[2, 3], dt=[3, 4, 5])
    g = grid(rho=[0.5, 1]) * z
    assert len(g) == 6 and g[5] == {"rho": 1, "d": 4, "dt": 5, "C": 10}
    assert len(g + g) == 12 and len((g + g)[:3]) == 3 and isinstance(g[:2], Grid)
    assert len(g.filter(lambda p: p["d"] < 4)) == 4
    with pytest.raises(ValueError, match="sharing parameters \\['C'\\]"):
        grid(C=[1, 2]) * z
    with pytest.raises(TypeError, match="mapping"):
        Grid([{"a": 1}, 5])
    with pytest.raises(TypeError, match="strings"):
        Grid([{1: 2}])
    assert "Grid(6 points; rho[2], d[3], dt[3], C[1])" == repr(g)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.text("abcdefgh", min_size=1, max_size=3),
                       st.lists(st.integers(-5, 5) | st.floats(-1e6, 1e6, allow_nan=False), min_size=1,
                                max_size=4, unique=True), min_size=1, max_size=3))
def test_grid_size_and_canonical_keys_property(axes):
    g = grid(**axes)
    assert len(g) == math.prod(len(v) for v in axes.values())
    keys = [sw.canonical_params(p) for p in g]
    # a key decodes to the point, whatever the insertion order of the dict
    for p, k in zip(g, keys):
        assert json.loads(k) == p
        assert sw.canonical_params(dict(reversed(list(p.items())))) == k
    # distinct points have distinct keys unless they compare equal (1 == 1.0 are different keys)
    assert len(set(keys)) == len({tuple((k, type(v), v) for k, v in sorted(p.items())) for p in g})


def test_canonical_params():
    assert sw.canonical_params({"b": np.int64(2), "a": np.float64(0.5)}) == '{"a":0.5,"b":2}'
    assert sw.canonical_params({"v": (1, 2)}) == '{"v":[1,2]}'
    with pytest.raises(ValueError, match="'rho'.*finite"):
        sw.canonical_params({"rho": float("nan")})
    with pytest.raises(TypeError, match="'x'.*Fraction"):
        sw.canonical_params({"x": Fraction(1, 3)})


def test_to_jsonable_types():
    with mpmath.workdps(60):
        third = mpmath.mpf(1) / 3
    assert sw.to_jsonable(third, dps=30) == "0." + "3" * 30
    # without dps: enough digits to give back the binary value
    text = sw.to_jsonable(third)
    with mpmath.workprec(third._mpf_[3]):
        assert mpmath.mpf(text) == third
    for bits in (53, 100, 333):
        with mpmath.workprec(bits):
            for v in (mpmath.mpf(2) / 3, mpmath.pi, mpmath.mpf(10) ** -200 / 7, mpmath.e ** 300):
                assert mpmath.mpf(sw.to_jsonable(v)) == v
    assert sw.to_jsonable(mpmath.mpf(0.5)) == "0.5"
    assert sw.to_jsonable(Fraction(-3, 7)) == "-3/7"
    assert sw.to_jsonable(np.arange(3)) == [0, 1, 2] and sw.to_jsonable(np.float32(0.5)) == 0.5
    assert sw.to_jsonable(_Res(Fraction(1, 2), "m")) == {"value": "1/2", "method": "m"}
    assert sw.to_jsonable({"t": (1, mpmath.mpf(2))}) == {"t": [1, "2.0"]}
    assert sw.to_jsonable(1 + 2j) == {"re": 1.0, "im": 2.0}
    from decimal import Decimal
    assert sw.to_jsonable(Decimal("0.1000")) == "0.1000"
    import sympy
    assert sw.to_jsonable([sympy.Rational(1, 3), sympy.sqrt(2)]) == ["1/3", "sqrt(2)"]
    from flint import arb, fmpq, fmpz
    assert sw.to_jsonable({"q": fmpq(-2, 6), "z": fmpz(10) ** 30}) == {"q": "-1/3", "z": 10 ** 30}
    assert sw.to_jsonable(arb(1) / 3).startswith("[0.33333")
    with pytest.raises(TypeError, match="not JSON-serialisable"):
        sw.to_jsonable(object())


# ---------------------------------------------------------------------------------------------
# function registry
# ---------------------------------------------------------------------------------------------

def test_resolve_function_names_and_paths():
    fn, name = sw.resolve_function("math:comb")
    assert fn is math.comb and name == "math:comb"
    assert _call(math.comb, {"n": 6, "k": 2}) == 15  # positional-only parameters
    fn, name = sw.resolve_function(square)
    assert name == f"{FUNCS}:square"
    with pytest.raises(ValueError, match="unknown function 'no_such_thing'.*threshold"):
        sw.resolve_function("no_such_thing")
    with pytest.raises(ValueError, match="cannot import module"):
        sw.resolve_function("no_such_module_xyz:f")
    with pytest.raises(TypeError, match="non-callable"):
        sw.resolve_function("math:pi")
    assert sw.FUNCTIONS["threshold"] == "symloss:threshold_load"
    assert sw.FUNCTIONS["simulate"] == "symloss:simulate"


def test_named_erlang_matches_recursion(tmp_path):
    """'erlang' resolves to symloss.erlang_b; the store keeps what it returns, to 30 digits."""
    erlang = pytest.importorskip("symloss.erlang")
    store = tmp_path / "erl.sqlite"
    s = sweep("erlang", grid(C=[1, 5, 20], a=[1, 3]), store=store, executor="serial", progress=False)
    assert s.func == "symloss.erlang.erlang_b:erlang_b" and s.n_done == 6
    for p, status, result, _ in _rows(store):
        C, a = json.loads(p)["C"], json.loads(p)["a"]
        assert json.loads(result) == sw.to_jsonable(erlang.erlang_b(C, a))
        b = Fraction(1)
        for k in range(1, C + 1):  # exact recursion B(k) = a B(k-1) / (k + a B(k-1))
            b = a * b / (k + a * b)
        with mpmath.workdps(40):
            assert abs(mpmath.mpf(json.loads(result)) / (mpmath.mpf(b.numerator) / b.denominator) - 1) < 1e-28


def test_blocking_adaptor_builds_the_policy(tmp_path, monkeypatch):
    import symloss

    class FakeRetrial:
        def __init__(self, C, d):
            self.C, self.d = C, d

        def blocking(self, rho, *, dps=30):
            with mpmath.workdps(dps):
                return mpmath.mpf(rho) ** self.d / (self.C + 1)

    class FakeJSQ:
        def __init__(self, C):
            self.C = C

        def blocking(self, rho, *, dps=30):
            return max(0.0, 1 - self.C / rho)

    from symloss.meanfield.policies import POLICY_CLASSES
    monkeypatch.setitem(POLICY_CLASSES, "retrial", FakeRetrial)   # the one policy-name table
    monkeypatch.setitem(POLICY_CLASSES, "jsq", FakeJSQ)
    g = grid(policy="retrial", C=2, d=[2, 3], rho=0.5, dps=25) + grid(policy="jsq", C=2, rho=4.0)
    g = g + grid(policy="retrial", C=2, rho=1.0) + grid(policy="nope", C=2, rho=1.0)
    store = tmp_path / "b.sqlite"
    with pytest.raises(ValueError, match="2 of 5 points are invalid: policy 'retrial' needs d"):
        sweep("blocking", g, store=store, executor="serial", progress=False)   # checked before it runs
    assert not store.exists()
    # the adaptor's own errors, with the grid check switched off: recorded as failed points
    s = sweep("blocking", g, store=store, executor="serial", progress=False, check=False)
    assert (s.n_done, s.n_failed) == (3, 2)
    df = load_sweep(store).set_index("params_json")
    key = '{"C":2,"d":2,"dps":25,"policy":"retrial","rho":0.5}'
    assert df.loc[key, "result"] == 1 / 12                        # numeric by default (float64) ...
    assert json.loads(df.loc[key, "result_json"]) == "0.08333333333333333333333333"   # ... exact text kept
    assert load_sweep(store, numeric=False).set_index("params_json").loc[key, "result"] == \
        "0.08333333333333333333333333"
    assert df.loc['{"C":2,"policy":"jsq","rho":4.0}', "result"] == 0.5
    assert "needs d" in df.loc['{"C":2,"policy":"retrial","rho":1.0}', "error"]
    assert "policy must be one of" in df.loc['{"C":2,"policy":"nope","rho":1.0}', "error"]


def test_blocking_with_the_real_mean_field_models(tmp_path):
    """'blocking' through symloss's policy classes, against independent closed forms (seed 000 /
    MATH.md): random routing is Erlang-B(C, rho); JSQ max(0, 1 - C/rho); at C = 2, d = 2, rho = 1
    power-of-2 is s^2 with s the root in (0, 1) of s^4 + 2 s^3 - 2 s^2 - 4 s + 1."""
    pytest.importorskip("symloss.meanfield")
    g = grid(policy="random", C=3, rho=2.0, dps=25) + grid(policy="jsq", C=3, rho=4.0, dps=25)
    g = g + grid(policy="power", C=2, d=2, rho=1.0, dps=25)
    store = tmp_path / "mf.sqlite"
    s = sweep("blocking", g, store=store, executor="serial", progress=False)
    assert (s.n_done, s.n_failed) == (3, 0)
    got = {json.loads(p)["policy"]: json.loads(r) for p, _, r, _ in _rows(store)}
    with mpmath.workdps(40):
        s_root = [r for r in mpmath.polyroots([1, 2, -2, -4, 1], maxsteps=200, extraprec=100)
                  if abs(mpmath.im(r)) < 1e-30 and 0 < mpmath.re(r) < 1]
        assert len(s_root) == 1
        expected = {"random": mpmath.mpf(4) / 19, "jsq": mpmath.mpf(1) / 4, "power": mpmath.re(s_root[0]) ** 2}
        for policy, value in expected.items():
            assert len(got[policy].replace(".", "").lstrip("0")) <= 25  # stored with dps digits
            assert abs(mpmath.mpf(got[policy]) / value - 1) < mpmath.mpf(10) ** -23, policy


def _trunk_reservation_reward(N, lam_H, lam_L, r_H, r_L, K, mu=1):
    """Exact reward rate of trunk reservation K (L accepted iff fewer than N - K servers are busy):
    the birth-death chain on the busy count, in rationals (independent of symloss.admission)."""
    lam_H, lam_L, r_H, r_L, mu = map(Fraction, (lam_H, lam_L, r_H, r_L, mu))
    w = [Fraction(1)]
    for n in range(N):
        w.append(w[-1] * (N * lam_H + (N * lam_L if n < N - K else 0)) / ((n + 1) * mu))
    p = [x / sum(w) for x in w]
    return N * lam_H * r_H * (1 - p[N]) + N * lam_L * r_L * sum(p[:N - K])


def test_admission_adaptor(tmp_path):
    pytest.importorskip("symloss.admission")
    base = dict(N=10, lam_H=0.5, lam_L=1.0, r_H=2.0, r_L=1.0)
    g = grid(**base, quantity="fluid_reward") + grid(**base, quantity="trunk_reservation", K=[1, 2])
    g = g + grid(**base, quantity="_private") + grid(**base, quantity="no_such_quantity")
    store = tmp_path / "adm.sqlite"
    with pytest.raises(ValueError, match="quantity must name a method of OverloadedLossNetwork"):
        sweep("admission", g, store=store, executor="serial", progress=False)
    s = sweep("admission", g, store=store, executor="serial", progress=False, check=False)
    assert s.func == "symloss.sweeps.functions:admission" and (s.n_done, s.n_failed) == (3, 2)
    df = load_sweep(store).set_index("params_json")
    by = {json.loads(k).get("K", json.loads(k)["quantity"]): row for k, row in df.iterrows()}
    assert by["fluid_reward"]["result"] == 15.0  # N (r_H lam_H + r_L (mu - lam_H)) = 10 (1 + 0.5)
    for K in (1, 2):
        exact = _trunk_reservation_reward(10, 0.5, 1.0, 2.0, 1.0, K)
        assert by[K]["result.K"] == K
        assert abs(float(by[K]["result.reward"]) - exact) < 1e-12 * exact
    assert "public method" in by["_private"]["error"] and "no quantity" in by["no_such_quantity"]["error"]


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5)
                    | st.floats(allow_nan=False, allow_infinity=False),
                    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=3), kids, max_size=3),
                    max_leaves=10))
def test_to_jsonable_keeps_plain_data(value):
    assert json.loads(json.dumps(sw.to_jsonable(value))) == value


# ---------------------------------------------------------------------------------------------
# serial sweeps: storing, failing points, resume
# ---------------------------------------------------------------------------------------------

def test_serial_sweep_stores_every_point_and_failures(tmp_path):
    store = tmp_path / "s.sqlite"
    s = sweep(mixed, grid(x=range(6), dps=[15, 30]), store=store, executor="serial", progress=False)
    assert (s.n_points, s.n_done, s.n_failed, s.n_skipped) == (12, 10, 2, 0) and not s.complete
    rows = _rows(store)
    assert len(rows) == 12
    for p, status, result, error in rows:
        x, dps = json.loads(p)["x"], json.loads(p)["dps"]
        if x == 3:
            assert status == "failed" and result is None
            assert "ValueError: x = 3 is not allowed" in error and "Traceback" in error
            continue
        r = json.loads(result)
        f = Fraction(x, 7)
        assert r["powers"] == [x, x * x, x ** 3] and r["exact"] == f"{f.numerator}/{f.denominator}"
        assert r["arr"] == list(range(x))
        with mpmath.workdps(dps + 10):
            assert len(r["root"].replace(".", "").lstrip("0")) <= dps
            assert abs(mpmath.mpf(r["root"]) - mpmath.sqrt(x + 2)) < mpmath.mpf(10) ** (1 - dps)
    conn = sqlite3.connect(store)
    # WAL while the sweep writes; a closed store is one file again (no -wal / -shm left behind)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    meta = conn.execute("SELECT version, worker, elapsed, started <= finished, attempts FROM points").fetchall()
    conn.close()
    import symloss
    assert all(v == symloss.__version__ and w.endswith(f":{os.getpid()}") and e >= 0 and ok and a == 1
               for v, w, e, ok, a in meta)


def test_base_exceptions_are_recorded_but_interrupts_propagate(tmp_path):
    s = sweep(escape, grid(x=range(3)), store=tmp_path / "b.sqlite", executor="serial", progress=False)
    assert (s.n_done, s.n_failed) == (2, 1)
    assert "Escape: not an Exception" in load_sweep(tmp_path / "b.sqlite", status="failed")["error"].iloc[0]

    def interrupt(x):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sweep(interrupt, grid(x=[1]), store=tmp_path / "i.sqlite", executor="serial", progress=False)
    assert sweep_status(tmp_path / "i.sqlite")["runs"][0]["state"] == "interrupted"


def test_resume_skips_done_and_retries_failed(tmp_path):
    store, flag = tmp_path / "r.sqlite", str(tmp_path / "flag")
    g = grid(x=range(8), flag=flag)
    s1 = sweep(flaky, g, store=store, executor="serial", progress=False)
    assert (s1.n_done, s1.n_failed) == (4, 4)
    s2 = sweep(flaky, g, store=store, executor="serial", progress=False)  # still failing: retried
    assert (s2.n_skipped, s2.n_done, s2.n_failed) == (4, 0, 4)
    Path(flag).touch()
    s3 = sweep(flaky, g, store=store, executor="serial", progress=False)
    assert (s3.n_skipped, s3.n_done, s3.n_failed) == (4, 4, 0) and s3.complete
    conn = sqlite3.connect(store)
    att = dict(conn.execute("SELECT json_extract(params, '$.x'), attempts FROM points"))
    conn.close()
    assert att == {x: (3 if x % 2 else 1) for x in range(8)}
    s4 = sweep(flaky, g, store=store, executor="serial", progress=False)
    assert (s4.n_skipped, s4.n_done) == (8, 0)
    # resume=False recomputes everything
    log = str(tmp_path / "log")
    sweep(counted, grid(x=range(3), log=log), store=store, executor="serial", progress=False)
    sweep(counted, grid(x=range(3), log=log), store=store, executor="serial", progress=False, resume=False)
    assert sorted(Path(log).read_text().split()) == ["0", "0", "1", "1", "2", "2"]
    # one store, two functions, kept apart
    assert {r["func"] for r in sweep_status(store)["functions"]} == {f"{FUNCS}:flaky", f"{FUNCS}:counted"}


def test_store_never_overwrites_done_unless_asked(tmp_path):
    """What protects a point computed by a concurrent sweep: a later 'failed' write does not replace it."""
    st_ = _Store(tmp_path / "w.sqlite", "f")
    key = sw.canonical_params({"x": 1})
    done = ("done", "1", None, 0.0, 1.0, 1.0, "h:1")
    failed = ("failed", None, "boom", 2.0, 3.0, 1.0, "h:2")
    assert st_.write(key, done, overwrite_done=False)
    assert not st_.write(key, failed, overwrite_done=False)
    assert st_.conn.execute("SELECT status, result, attempts FROM points").fetchall() == [("done", "1", 1)]
    assert st_.write(key, failed, overwrite_done=True)  # resume=False
    assert st_.conn.execute("SELECT status, error, attempts FROM points").fetchall() == [("failed", "boom", 2)]
    st_.close()


def test_symloss_sweep_is_callable_whether_module_or_function(tmp_path):
    import symloss
    s = symloss.sweep(square, grid(x=[1, 2]), store=tmp_path / "c.sqlite", executor="serial", progress=False)
    assert s.n_done == 2 and symloss.sweep is sw.sweep  # the function, not a module
    for name in ("load_sweep", "grid", "zip_grid", "Grid", "SweepSummary", "sweep_status"):
        exported = getattr(symloss, name, None)  # present once the package exports it
        assert exported is None or exported is getattr(sw, name)


def test_duplicates_and_equivalent_points_run_once(tmp_path):
    log = str(tmp_path / "log")
    g = grid(x=[1, 2], log=log) + [{"log": log, "x": np.int64(1)}]
    s = sweep(counted, g, store=tmp_path / "d.sqlite", executor="serial", progress=False)
    assert s.n_points == 2 and sorted(Path(log).read_text().split()) == ["1", "2"]


def test_sweep_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="executor must be one of"):
        sweep(square, grid(x=[1]), store=tmp_path / "e", executor="threads")
    with pytest.raises(ValueError, match="workers must be an integer >= 1"):
        sweep(square, grid(x=[1]), store=tmp_path / "e", workers=0)
    with pytest.raises(ValueError, match="scheduler is only used with executor='dask'"):
        sweep(square, grid(x=[1]), store=tmp_path / "e", scheduler="tcp://127.0.0.1:1")
    with pytest.raises(TypeError, match="picklable by reference"):
        sweep(lambda x: x, grid(x=[1]), store=tmp_path / "e", executor="processes")
    with pytest.raises(TypeError, match="grid must be"):
        sweep(square, 5, store=tmp_path / "e")
    s = sweep(lambda x: -x, {"x": [1, 2]}, store=tmp_path / "l", executor="serial", name="neg",
              progress=False)
    assert s.func == "neg" and s.n_done == 2
    assert not (tmp_path / "e").exists()  # nothing was created for the rejected calls


def test_progress_bar_shows_rate_and_eta(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SYMLOSS_PROGRESS", "1")          # the tqdm bar (off a terminal: plain lines)
    sweep(square, grid(x=range(5)), store=tmp_path / "p.sqlite", executor="serial", progress=True)
    err = capsys.readouterr().err
    assert "sweep square" in err and "5/5" in err and "pt/s" in err and "<" in err  # elapsed<remaining


def test_load_sweep_frames(tmp_path):
    store = tmp_path / "f.sqlite"
    sweep(with_dataclass, grid(x=[1, 2, 3]), store=store, executor="serial", progress=False)
    sweep(mixed, grid(x=[2, 3]), store=store, executor="serial", progress=False)
    df = load_sweep(store, func=with_dataclass, numeric=False)
    assert list(df["x"]) == [1, 2, 3] and list(df["result.method"]) == ["exact"] * 3
    assert df["result.value"].iloc[0].startswith("0.3333333333333333")
    num = load_sweep(store, func=f"{FUNCS}:with_dataclass")        # numeric is the default
    assert num["result.value"].dtype == np.float64 and abs(num["result.value"].iloc[1] - 2 / 3) < 1e-15
    failed = load_sweep(store, status="failed")
    assert len(failed) == 1 and failed["x"].iloc[0] == 3 and "ValueError" in failed["error"].iloc[0]
    raw = load_sweep(store, expand=False)
    assert raw["params"].iloc[0] == {"x": 1} and str(raw["started"].dtype).startswith("datetime64")
    assert raw["elapsed"].ge(0).all()
    with pytest.raises(FileNotFoundError):
        load_sweep(tmp_path / "missing.sqlite")
    with pytest.raises(ValueError, match="status must be"):
        load_sweep(store, status="running")


# ---------------------------------------------------------------------------------------------
# processes: equivalence, dead workers, SIGKILL of the sweep, concurrent sweeps
# ---------------------------------------------------------------------------------------------

@pytest.mark.timeout(180)
def test_processes_worker_death_is_contained(tmp_path):
    """A worker killed by its point: the pool is rebuilt, the points in flight with it are rerun one at a
    time and succeed; only the point that kills its worker every time is recorded as failed."""
    store = tmp_path / "k.sqlite"
    s = sweep(killer, grid(x=range(9), sleep=0.05), store=store, executor="processes", workers=2,
              progress=False)
    assert (s.n_done, s.n_failed) == (8, 1)
    for p, status, result, error in _rows(store):
        x = json.loads(p)["x"]
        if x == 5:
            assert status == "failed" and error.startswith("WorkerLost") and result is None
        else:
            assert status == "done" and json.loads(result) == x + 100


@pytest.mark.slow
@pytest.mark.timeout(180)  # a hang must fail, not stall the suite
def test_processes_sweep_stops_when_every_point_kills_its_worker(tmp_path):
    store = tmp_path / "all.sqlite"
    with pytest.raises(RuntimeError, match="died on 3 points in a row"):
        sweep(killer, grid(x=5, sleep=[0.0, 0.001, 0.002, 0.003, 0.004, 0.005]), store=store,
              executor="processes", workers=2, progress=False)
    status = sweep_status(store)
    assert status["functions"][0]["failed"] == 3 and status["runs"][0]["state"] == "error"


_RUNNER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests!r})
    from symloss.sweeps import sweep, grid
    import test_sweep_functions as t
    if __name__ == "__main__":
        sweep(t.{func}, grid(x=range({lo}, {hi}), log={log!r}, sleep={sleep}), store={store!r},
              executor={executor!r}, workers=2, progress=False)
""")


def _runner(tmp_path, name, **kw):
    script = tmp_path / f"{name}.py"
    script.write_text(_RUNNER.format(tests=TESTS_DIR, **kw))
    return script


def _count_done(store):
    try:
        conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)
        try:
            return conn.execute("SELECT COUNT(*) FROM points WHERE status = 'done'").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0


def _stat(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()  # fields after the command name
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def _children(pid):
    """Direct children of pid (Linux /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st_ = _stat(entry)
            if st_ is not None and int(st_[1]) == pid:
                out.append(int(entry))
    return out


def _running(pid) -> bool:
    st_ = _stat(pid)
    return st_ is not None and st_[0] not in ("Z", "X")  # gone, zombie or dead: not running


@pytest.mark.slow
@pytest.mark.timeout(180)  # a hang must fail, not stall the suite
def test_sigkill_mid_sweep_then_resume_computes_each_point_once(tmp_path):
    store, log = str(tmp_path / "kill.sqlite"), str(tmp_path / "calls.log")
    n, workers = 40, 2
    script = _runner(tmp_path, "victim", func="counted", lo=0, hi=n, log=log, sleep=0.05, store=store,
                     executor="processes")
    proc = subprocess.Popen([sys.executable, str(script)], start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while _count_done(store) < 12:
            assert proc.poll() is None, "the sweep ended before it could be killed"
            assert time.monotonic() < deadline, "the sweep made no progress"
            time.sleep(0.02)
        children = _children(proc.pid)
        assert len(children) >= workers
        Path(log + ".hang").touch()  # from now on every point takes two minutes
        stable, last = time.monotonic(), _count_done(store)
        while time.monotonic() - stable < 1.0:  # until the workers are all inside hanging points
            time.sleep(0.05)
            now = _count_done(store)
            if now != last:
                stable, last = time.monotonic(), now
        os.kill(proc.pid, signal.SIGKILL)  # the sweep only: its workers must notice and stop
        proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(map(_running, children)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(_running, children)), "orphaned workers kept running"
        os.remove(log + ".hang")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    conn = sqlite3.connect(store)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored = {json.loads(p)["x"] for (p,) in conn.execute("SELECT params FROM points WHERE status='done'")}
    conn.close()
    calls1 = Path(log).read_text().split()
    assert 12 <= len(stored) < n
    assert len(calls1) == len(set(calls1))                      # nothing computed twice in the first run
    assert stored <= {int(c) for c in calls1}
    lost = {int(c) for c in calls1} - stored
    assert len(lost) <= 2 * workers, f"lost more than the points in flight: {sorted(lost)}"
    status = sweep_status(store)
    assert [r["state"] for r in status["runs"]] == ["killed"]

    s = sweep(counted, grid(x=range(n), log=log, sleep=0.05), store=store, executor="processes",
              workers=workers, progress=False)
    assert (s.n_skipped, s.n_done, s.n_failed) == (len(stored), n - len(stored), 0)
    calls2 = [int(c) for c in Path(log).read_text().split()[len(calls1):]]
    assert sorted(calls2) == sorted(set(range(n)) - stored)        # each missing point exactly once
    rows = _rows(store)
    assert len(rows) == n and all(st_ == "done" and json.loads(r) == json.loads(p)["x"] ** 2
                                  for p, st_, r, _ in rows)
    print(f"killed after {len(stored)} stored points; {len(lost)} in-flight computation(s) lost")


@pytest.mark.slow
@pytest.mark.timeout(180)  # a hang must fail, not stall the suite
def test_two_sweeps_on_one_store(tmp_path):
    store, log = str(tmp_path / "shared.sqlite"), str(tmp_path / "calls.log")
    procs = [subprocess.Popen([sys.executable, str(_runner(tmp_path, f"w{i}", func="counted", lo=lo, hi=hi,
                                                           log=log, sleep=0.005, store=store,
                                                           executor="serial"))])
             for i, (lo, hi) in enumerate([(0, 150), (75, 225)])]
    try:
        assert [p.wait(timeout=60) for p in procs] == [0, 0]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    conn = sqlite3.connect(store)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = conn.execute("SELECT params, status, result FROM points").fetchall()
    runs = conn.execute("SELECT state, n_done, n_skipped FROM runs").fetchall()
    conn.close()
    xs = [json.loads(p)["x"] for p, _, _ in rows]
    assert sorted(xs) == list(range(225))                           # one row per point, none lost
    assert all(s == "done" and json.loads(r) == json.loads(p)["x"] ** 2 for p, s, r in rows)
    assert [r[0] for r in runs] == ["finished", "finished"]
    calls = Path(log).read_text().split()
    assert len(calls) >= 225 and set(map(int, calls)) == set(range(225))


# ---------------------------------------------------------------------------------------------
# Dask
# ---------------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.timeout(300)  # a hang must fail, not stall the suite
def test_serial_processes_dask_identical_results_and_killed_workers(tmp_path, monkeypatch):
    """serial, processes and Dask (a LocalCluster of 2 worker processes started by sweep()) store identical
    results. During the Dask sweep (allowed-failures = 1) the worker computing x == 4 kills itself once:
    the point is rerun and the sweep completes; the point (6, 15) kills every worker that runs it: it is
    stored as failed (KilledWorker) and the sweep still completes."""
    g = grid(x=range(10), dps=[15, 35])
    stores = {ex: tmp_path / f"{ex}.sqlite" for ex in ("serial", "processes", "dask")}
    for ex in ("serial", "processes"):
        s = sweep(mixed, g, store=stores[ex], executor=ex, workers=2, progress=False)
        assert (s.n_done, s.n_failed) == (18, 2), ex
    ref = _comparable(stores["serial"])
    assert len(ref) == 20
    assert _comparable(stores["processes"]) == ref
    conn = sqlite3.connect(stores["processes"])
    workers = {w for (w,) in conn.execute("SELECT worker FROM points")}
    conn.close()
    assert not any(w.endswith(f":{os.getpid()}") for w in workers)  # computed in other processes

    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    flag = tmp_path / "killed-a-worker"
    monkeypatch.setenv(KILL_FLAG_ENV, str(flag))  # inherited by the LocalCluster's workers only
    # saturation 1.0: a worker holds only the task it runs, so a death makes only that task suspicious
    with dask.config.set({"distributed.scheduler.allowed-failures": 1,
                          "distributed.scheduler.worker-saturation": 1.0}):
        s = sweep(mixed, g, store=stores["dask"], executor="dask", workers=2, progress=False)
    assert (s.n_done, s.n_failed) == (17, 3)
    assert flag.exists()  # a Dask worker really died mid-sweep
    killer_key = '{"dps":15,"x":6}'
    got = {p: (s_, r, e) for p, s_, r, e in _comparable(stores["dask"])}
    assert got.pop(killer_key)[0:2] == ("failed", None)
    errors = {p: e for p, _, _, e in _rows(stores["dask"])}
    assert "KilledWorker: " in errors[killer_key] and "2 different workers" in errors[killer_key]
    assert got == {p: (s_, r, e) for p, s_, r, e in ref if p != killer_key}
    with pytest.raises(TypeError, match="scheduler must be an address"):
        sweep(mixed, g, store=tmp_path / "x.sqlite", executor="dask", scheduler=42, progress=False)
    assert not (tmp_path / "x.sqlite").exists()


# ---------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------

def test_cli_spec_status_export(tmp_path, capsys):
    from symloss.cli import main
    spec = tmp_path / "spec.toml"
    spec.write_text(textwrap.dedent("""
        function = "math:comb"
        store = "comb.sqlite"
        executor = "serial"

        [grid]
        n = { range = [4, 7] }

        [grid.zip]
        k = [1, 2, 9]
        tag = ["a", "b", "c"]
    """))
    # tag is not a parameter of math.comb: one error before anything runs, no store written
    assert main(["sweep", str(spec), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "'tag' is not an argument of comb(n, k)" in err and err.count("\n") == 1
    assert not (tmp_path / "comb.sqlite").exists()
    # forced (--no-check): every point fails and is stored as failed
    assert main(["sweep", str(spec), "--no-progress", "--no-check"]) == 1  # k = 9 > n is fine (0)
    out = capsys.readouterr()
    assert "9 points" in out.out and "9 failed" in out.out and "rerun" in out.err
    spec.write_text(spec.read_text().replace('tag = ["a", "b", "c"]', ""))
    assert main(["sweep", str(spec), "--no-progress"]) == 0
    store = tmp_path / "comb.sqlite"
    df = load_sweep(store, status="done")
    assert sorted(zip(df["n"], df["k"], df["result"])) == sorted(
        (n, k, math.comb(n, k)) for n in range(4, 7) for k in (1, 2, 9))
    capsys.readouterr()
    assert main(["sweep", "--status", str(store)]) == 0
    out = capsys.readouterr().out
    assert "integrity: ok" in out and "math:comb" in out and "finished" in out
    assert main(["sweep", "--status", str(store), "--json"]) == 0
    st_ = json.loads(capsys.readouterr().out)
    assert st_["functions"][0]["done"] == 9 and st_["functions"][0]["failed"] == 9
    assert "takes no keyword arguments" in st_["functions"][0]["first_error"]["error"]
    csv = tmp_path / "out.csv"
    assert main(["sweep", "--export", str(store), "--csv", str(csv)]) == 0
    import pandas as pd
    assert not csv.read_text().startswith("#")                 # a plain CSV; the provenance in its sidecar
    from symloss.core.provenance import read_csv_provenance, read_provenance_lines
    assert read_provenance_lines(csv)["store"] == str(store)
    assert read_csv_provenance(csv)["provenance"]["store"] == str(store)
    back = pd.read_csv(csv)
    assert len(back) == 18 and {"n", "k", "tag", "result", "status", "error", "elapsed", "version"} <= set(back)
    pytest.importorskip("pyarrow")
    pq = tmp_path / "out.parquet"
    assert main(["sweep", "--export", str(store), "--parquet", str(pq), "--only", "done"]) == 0
    back = pd.read_parquet(pq)
    assert len(back) == 9 and back["result"].sum() == sum(math.comb(n, k) for n in range(4, 7) for k in (1, 2, 9))


def test_cli_errors(tmp_path, capsys):
    from symloss.cli import main
    bad = tmp_path / "bad.toml"
    bad.write_text('function = "math:comb"\nexecuter = "serial"\n[grid]\nn = [1]\n')
    assert main(["sweep", str(bad)]) == 2
    assert "unknown keys ['executer']" in capsys.readouterr().err
    bad.write_text('function = "math:comb"\n[grid]\nn = { linspace = [0, 1] }\n')
    assert main(["sweep", str(bad)]) == 2
    assert "linspace needs [start, stop, num]" in capsys.readouterr().err
    assert main(["sweep"]) == 2
    assert main(["sweep", "--export", str(bad)]) == 2
    capsys.readouterr()
    assert main(["sweep", "--status", str(tmp_path / "none.sqlite")]) == 2
    assert "none.sqlite' does not exist" in capsys.readouterr().err
    assert main(["sweep", "--export", str(tmp_path / "x.sqlite"), "--csv", str(tmp_path / "o.csv")]) == 2
    assert not (tmp_path / "x.sqlite").exists() and not (tmp_path / "o.csv").exists()
    (tmp_path / "plain.sqlite").write_bytes(b"")
    assert main(["sweep", "--status", str(tmp_path / "plain.sqlite")]) == 2
    assert "not a sweep store" in capsys.readouterr().err
    (tmp_path / "junk.sqlite").write_bytes(b"this is not a database" * 100)
    assert main(["sweep", "--status", str(tmp_path / "junk.sqlite")]) == 2
    assert "not a sweep store" in capsys.readouterr().err


def test_spec_axes(tmp_path):
    g = sw.spec_grid({"C": {"range": [2, 5]}, "rho": {"linspace": [0.1, 0.3, 3]},
                      "eps": {"logspace": [-2, 0, 3]}, "a": {"geomspace": [1, 100, 3]},
                      "p": {"values": ["x", "y"]}, "dps": 30})
    assert len(g) == 3 * 3 * 3 * 3 * 2
    first = g[0]
    assert first == {"C": 2, "rho": 0.1, "eps": 0.01, "a": 1.0, "p": "x", "dps": 30}
    assert sorted({p["rho"] for p in g}) == [0.1, 0.2, 0.3]            # rounded: no 0.30000000000000004
    assert sorted({p["a"] for p in g}) == [1.0, 10.0, 100.0]
    assert sorted({p["eps"] for p in g}) == [0.01, 0.1, 1.0]
    spec = tmp_path / "s.toml"
    spec.write_text('function = "erlang"\nstore = "sub/e.sqlite"\nworkers = 2\n[grid]\nC = [1]\na = [1]\n'
                    '[[grid.zip]]\nx = [1, 2]\n[[grid.zip]]\ny = [3]\nz = [4]\n')
    kw = sw.load_spec(spec)
    assert kw["store"] == str(tmp_path / "sub" / "e.sqlite") and kw["workers"] == 2
    assert kw["executor"] == "processes" and list(kw["grid"]) == [{"C": 1, "a": 1, "x": 1, "y": 3, "z": 4},
                                                                  {"C": 1, "a": 1, "x": 2, "y": 3, "z": 4}]
