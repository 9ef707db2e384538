"""A store leaves no SQLite side files, a rerun says it replayed stored results (``symloss sweep`` and
``symloss verify``), and ``load_sweep`` gives numeric result columns with the exact JSON kept (issue 26)."""
from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest

from symloss.cli import main
from symloss.sweeps import grid, load_sweep, sweep, sweep_status
from symloss.sweeps.store import _connect, _maybe_numeric, close_store


def side_files(path):
    return [p.name for p in path.parent.iterdir() if p.name.startswith(path.name + "-")]


def test_no_side_files_after_a_sweep_and_its_readers(tmp_path):
    store = tmp_path / "s.sqlite"
    s = sweep("math:comb", grid(n=[4, 5], k=2), store=store, executor="serial", progress=False)
    assert s.n_done == 2 and side_files(store) == []
    load_sweep(store)
    sweep_status(store)
    ro = sqlite3.connect(f"file:{store.as_posix()}?mode=ro", uri=True)      # a read-only reader
    assert ro.execute("SELECT COUNT(*) FROM points").fetchone()[0] == 2
    ro.close()
    assert side_files(store) == []
    again = sweep("math:comb", grid(n=[4, 5, 6], k=2), store=store, executor="serial", progress=False)
    assert (again.n_skipped, again.n_done) == (2, 1) and side_files(store) == []
    assert again.replay_note() == f"replayed 2 stored points from {store}, computed 1 (use --no-resume to " \
                                  "recompute them)"
    assert sweep("math:comb", grid(n=[4], k=2), store=store, executor="serial", progress=False,
                 resume=False).replay_note() is None


def test_close_keeps_wal_while_another_connection_is_open(tmp_path):
    store = tmp_path / "w.sqlite"
    first, second = _connect(store, create=True), _connect(store, create=True)
    close_store(first)                       # the other one is still open: no error, WAL stays
    assert second.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    close_store(second)                      # the last one: back to a single file
    assert side_files(store) == []
    conn = sqlite3.connect(store)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


def test_load_sweep_numeric_columns_and_exact_json(tmp_path):
    store = tmp_path / "e.sqlite"
    sweep("erlang", grid(C=[2, 3], a=[1], dps=[25]), store=store, executor="serial", progress=False)
    df = load_sweep(store)
    assert df["result"].dtype == np.float64
    assert df["result"].tolist() == [0.2, 1 / 16]                    # E(2, 1) = 1/5, E(3, 1) = 1/16
    assert [json.loads(t) for t in df["result_json"]] == ["0.2", "0.0625"]
    assert load_sweep(store, numeric=False)["result"].tolist() == ["0.2", "0.0625"]


def test_numeric_conversion_never_rounds_to_zero_or_inf():
    assert _maybe_numeric(pd.Series(["1.5", None, "2e-3"], dtype=object)).tolist()[::2] == [1.5, 0.002]
    beyond = pd.Series(["3.6e-2332", "0.5"], dtype=object)          # below the float range
    assert _maybe_numeric(beyond).tolist() == ["3.6e-2332", "0.5"]
    assert _maybe_numeric(pd.Series(["1e400"], dtype=object)).tolist() == ["1e400"]
    assert _maybe_numeric(pd.Series(["0.0", "-0"], dtype=object)).tolist() == [0.0, 0.0]
    assert _maybe_numeric(pd.Series(["x", "1"], dtype=object)).tolist() == ["x", "1"]
    assert _maybe_numeric(pd.Series([2 ** 70, 1], dtype=object)).tolist() == [2 ** 70, 1]   # kept exact
    assert str(_maybe_numeric(pd.Series([3, 4], dtype=object)).dtype) == "int64"


def test_cli_sweep_says_it_replayed(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text('function = "math:comb"\nstore = "c.sqlite"\nexecutor = "serial"\n\n[grid]\nn = [4, 5]\nk = 2\n')
    assert main(["sweep", str(spec), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "replayed" not in out
    assert main(["sweep", str(spec), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert f"replayed 2 stored points from {tmp_path / 'c.sqlite'}" in out and "--no-resume" in out
    assert side_files(tmp_path / "c.sqlite") == []


@pytest.mark.slow
def test_verify_says_it_replayed_and_cleans_up(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["verify", "--claim", "erlang.recursion", "--workers", "1", "--store", "v.sqlite", "--no-progress"]
    assert main(argv) == 0
    assert "replayed" not in capsys.readouterr().out
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "replayed 1 stored results from v.sqlite (use --no-resume to recompute them)" in out
    assert side_files(tmp_path / "v.sqlite") == []
    assert main(argv + ["--no-resume"]) == 0
    assert "replayed" not in capsys.readouterr().out
