"""The SQLite store of a sweep: its schema, the client-side writer, and the helpers that read it back
(used by :func:`symloss.sweeps.engine.load_sweep` and :func:`symloss.sweeps.engine.sweep_status`).

One row per point (parameters as canonical JSON, result as JSON, status, error text, timings, worker,
package version) and one row per call of :func:`~symloss.sweeps.engine.sweep` in ``runs``. SQLite in
WAL mode while a sweep writes, one short transaction per point; a closed store is a single file again
(``close_store``: no ``-wal`` / ``-shm`` left behind). pandas is imported inside ``_maybe_numeric`` only (an
optional dependency, not loaded by ``import symloss.sweeps``).
"""
from __future__ import annotations

import math
import os
import socket
import sqlite3
import time
from pathlib import Path

from .._version import __version__
from .functions import resolve_function

__all__: list = []

SCHEMA_VERSION = 1

# ------------------------------------------------------------------------------------------------
# the store
# ------------------------------------------------------------------------------------------------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS points (
    id INTEGER PRIMARY KEY,
    func TEXT NOT NULL,
    params TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
    result TEXT,
    error TEXT,
    started REAL,
    finished REAL,
    elapsed REAL,
    worker TEXT,
    version TEXT,
    attempts INTEGER NOT NULL DEFAULT 1,
    run INTEGER,
    UNIQUE (func, params)
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    func TEXT NOT NULL,
    executor TEXT,
    workers INTEGER,
    host TEXT,
    pid INTEGER,
    version TEXT,
    started REAL,
    finished REAL,
    state TEXT,
    n_grid INTEGER,
    n_skipped INTEGER,
    n_done INTEGER DEFAULT 0,
    n_failed INTEGER DEFAULT 0
);
"""

_UPSERT_KEEP_DONE = """
INSERT INTO points (func, params, status, result, error, started, finished, elapsed, worker, version, run)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (func, params) DO UPDATE SET
    status = excluded.status, result = excluded.result, error = excluded.error,
    started = excluded.started, finished = excluded.finished, elapsed = excluded.elapsed,
    worker = excluded.worker, version = excluded.version, run = excluded.run,
    attempts = points.attempts + 1
"""


def _version() -> str:
    return __version__


def _connect(path, *, create: bool) -> sqlite3.Connection:
    path = Path(path)
    if not create and not path.exists():
        raise FileNotFoundError(f"store {str(path)!r} does not exist")
    conn = sqlite3.connect(str(path), timeout=60.0, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout = 60000")
    if create:
        for attempt in range(100):
            try:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                break
            except sqlite3.OperationalError:  # another process is switching the mode right now
                time.sleep(0.05 * (attempt + 1))
        else:  # pragma: no cover
            raise sqlite3.OperationalError(f"cannot put {str(path)!r} in WAL mode")
        if str(mode).lower() != "wal":
            raise sqlite3.OperationalError(f"store {str(path)!r} refused WAL mode (journal_mode={mode})")
        conn.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: durable against process crashes
        conn.execute("BEGIN IMMEDIATE")
        try:
            for stmt in _SCHEMA.split(";"):
                if stmt.strip():
                    conn.execute(stmt)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    else:
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise ValueError(f"{str(path)!r} is not a sweep store ({exc})") from None
        if "points" not in tables:
            conn.close()
            raise ValueError(f"{str(path)!r} is not a sweep store (no 'points' table)")
    return conn


def close_store(conn: sqlite3.Connection) -> None:
    """Close a writer's connection and leave no ``-wal`` / ``-shm`` side files: checkpoint the WAL into
    the database (``wal_checkpoint(TRUNCATE)``) and switch the file back to ``journal_mode=DELETE``
    (the next writer puts it in WAL mode again). When another process still has the store open the
    switch is refused (``SQLITE_BUSY``, after 0.2 s) and the side files stay until the last
    connection closes; that is not an error.

    Parameters
    ----------
    conn : sqlite3.Connection
        A connection opened by ``_connect``; it is closed.
    """
    try:
        conn.execute("PRAGMA busy_timeout = 200")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode = DELETE")
    except sqlite3.Error:   # another connection is open (a concurrent sweep or a reader): keep WAL
        pass
    finally:
        conn.close()


class _Store:
    """The client-side writer: one row per point, each written in its own transaction."""

    def __init__(self, path, func_name: str):
        self.path = Path(path)
        self.func = func_name
        self.version = _version()
        self.conn = _connect(self.path, create=True)
        self.run_id = None

    def done_and_failed(self) -> tuple[set[str], set[str]]:
        done, failed = set(), set()
        for params, status in self.conn.execute(
                "SELECT params, status FROM points WHERE func = ?", (self.func,)):
            (done if status == "done" else failed).add(params)
        return done, failed

    def start_run(self, executor: str, workers, n_grid: int, n_skipped: int) -> int:
        cur = self.conn.execute(
            "INSERT INTO runs (func, executor, workers, host, pid, version, started, state, n_grid, n_skipped)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?)",
            (self.func, executor, workers, socket.gethostname(), os.getpid(), self.version, time.time(),
             n_grid, n_skipped))
        self.run_id = cur.lastrowid
        return self.run_id

    def write(self, key: str, record, *, overwrite_done: bool) -> bool:
        """Write one point; returns False when a concurrent sweep already stored it as done."""
        status, result, error, started, finished, elapsed, worker = record
        sql = _UPSERT_KEEP_DONE + ("" if overwrite_done else " WHERE points.status != 'done'")
        cur = self.conn.execute(sql, (self.func, key, status, result, error, started, finished, elapsed,
                                      worker, self.version, self.run_id))
        return cur.rowcount > 0

    def finish_run(self, state: str, n_done: int, n_failed: int) -> None:
        if self.run_id is not None:
            self.conn.execute("UPDATE runs SET finished = ?, state = ?, n_done = ?, n_failed = ? WHERE id = ?",
                              (time.time(), state, n_done, n_failed, self.run_id))

    def close(self) -> None:
        close_store(self.conn)


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, name + "."))
        else:
            out[name] = v
    return out


def _float_exactly_ranged(v) -> float | None:
    """``float(v)`` for a number or numeric text, ``None`` when it is not numeric or lies beyond the
    float64 range (a nonzero value that would become 0, a finite one that would become inf)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        try:
            return float(v)
        except OverflowError:
            return None
    if not isinstance(v, str):
        return None
    try:
        x = float(v)
    except ValueError:
        return None
    low = v.strip().lower()
    if math.isinf(x) and "inf" not in low:
        return None
    if x == 0.0 and any(c in "123456789" for c in low.split("e")[0]):
        return None
    return x


def _maybe_numeric(col):
    """``col`` as float64 when every value is a number or numeric text within the float64 range; integer
    columns stay integer; otherwise ``col`` unchanged."""
    import pandas as pd
    vals = col.dropna()
    if len(vals) == 0:
        return col
    if all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        if len(vals) == len(col) and all(-2 ** 63 <= v < 2 ** 63 for v in vals):
            return col.astype("int64")
        return col                  # integers with gaps or beyond int64: kept exact
    conv = [_float_exactly_ranged(v) for v in vals]
    if any(x is None for x in conv):
        return col
    out = pd.Series(float("nan"), index=col.index, dtype="float64")
    out.loc[vals.index] = conv
    return out


def _func_key(func, conn) -> str:
    if isinstance(func, str):
        known = {r[0] for r in conn.execute("SELECT DISTINCT func FROM points")}
        if func in known:
            return func
    return resolve_function(func)[1]


def _last_line(text) -> str | None:
    if not text:
        return text
    lines = [ln for ln in str(text).strip().splitlines() if ln.strip()]
    return lines[-1] if lines else None


def _pid_alive(pid) -> bool:
    if not pid:
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


