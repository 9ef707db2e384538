"""symloss verify through the sweep engine: local processes, a Dask LocalCluster, resume from the
SQLite store. The certificates are deterministic, so every executor writes the same JSON as the
serial run (apart from the per-claim run times)."""
import json
import sqlite3
import subprocess
import sys

import pytest

SELECTION = ["seed000.eventually.C3_d2_*", "seed000.same_d.C2_d3", "seed000.unique_fixed_point.C4_d2",
             "seed000.power_unique_fixed_point.C3_d2", "erlang.recursion"]


def _strip(path):
    data = json.loads(path.read_text())
    data.pop("provenance", None)          # command line and date differ between the runs
    for r in data["claims"]:
        r.pop("seconds")
    return data


def _args(extra, out):
    args = [sys.executable, "-m", "proofs_check", "--quiet", "--json", str(out)]
    for g in SELECTION:
        args += ["--claim", g]
    return args + extra


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    out = tmp_path_factory.mktemp("serial") / "serial.json"
    proc = subprocess.run(_args(["--workers", "1"], out), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return _strip(out)


def test_processes_equal_serial_and_resume(serial, tmp_path):
    store, out = tmp_path / "v.sqlite", tmp_path / "p.json"
    proc = subprocess.run(_args(["--workers", "2", "--store", str(store)], out), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _strip(out) == serial
    n = len(serial["claims"])
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT COUNT(*) FROM points WHERE status = 'done'").fetchone()[0] == n
        # an interrupted run: forget two finished certificates, the rerun computes exactly those
        conn.execute("DELETE FROM points WHERE id IN (SELECT id FROM points ORDER BY id LIMIT 2)")
    proc = subprocess.run(_args(["--workers", "2", "--store", str(store)], out), capture_output=True, text=True)
    assert proc.returncode == 0
    assert _strip(out) == serial
    loud = [a for a in _args(["--workers", "2", "--store", str(store)], out) if a != "--quiet"]
    proc = subprocess.run(loud, capture_output=True, text=True)
    assert f"0 claims computed, {n} taken from" in proc.stderr


@pytest.mark.slow
def test_dask_local_cluster_equals_serial(serial, tmp_path):
    distributed = pytest.importorskip("distributed")
    store, out = tmp_path / "d.sqlite", tmp_path / "d.json"
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        proc = subprocess.run(_args(["--scheduler", cluster.scheduler_address, "--store", str(store)], out),
                              capture_output=True, text=True)
    finally:
        cluster.close()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _strip(out) == serial


def test_bad_workers_value():
    proc = subprocess.run([sys.executable, "-m", "proofs_check", "--workers", "0", "--claim", "erlang.recursion"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "--workers" in proc.stderr


def _example(name):
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "examples" / name
    spec = importlib.util.spec_from_file_location(name[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_batch_system_example_parses_and_names_its_dependency(capsys, monkeypatch):
    """examples/verify_on_a_batch_system.py (docs/proofs_check.md): --help works without dask-jobqueue,
    and without it the run stops before submitting anything, naming the package to install."""
    mod = _example("verify_on_a_batch_system.py")
    with pytest.raises(SystemExit) as e:
        mod.main(["--help"])
    assert e.value.code == 0 and "--jobs" in capsys.readouterr().out
    monkeypatch.setitem(sys.modules, "dask_jobqueue", None)       # as if not installed
    assert mod.main(["--jobs", "2"]) == 2
    assert "pip install dask-jobqueue" in capsys.readouterr().err
