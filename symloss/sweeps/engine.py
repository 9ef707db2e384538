"""Parameter sweeps: evaluate a function over a grid, locally or on a Dask cluster, into a resumable store.

A sweep maps a function over a grid of parameter dicts and writes every finished point to an SQLite
file at once (one row per point: parameters as canonical JSON, result as JSON, status, error text,
timings, worker and package version). A rerun skips the points already done and retries the failed
ones, so a sweep killed after hours loses only the points that were being computed.

Executors
---------
``"serial"``
    in this process, in grid order.
``"processes"`` (default)
    a pool of local worker processes (``spawn``), one point per task, a bounded number in flight.
    A worker that dies (segfault, out of memory, ``SIGKILL``) breaks the pool; the pool is rebuilt and
    the points that were in flight are rerun one at a time, so that only a point that kills its worker
    on its own is recorded as failed.
``"dask"``
    a Dask ``distributed`` cluster (``scheduler="tcp://host:8786"``, a ``Client``, a cluster object,
    or a ``LocalCluster`` started for the sweep when ``scheduler=None``). The scheduler reruns the
    points of a lost worker; results are written to the store by the client as they complete.

Only the client process writes to the store (SQLite in WAL mode, one short transaction per point), so
two sweeps writing to the same file serialise their writes instead of corrupting it; a point already
``done`` is never overwritten by a concurrent sweep.
"""
from __future__ import annotations

import dataclasses
import itertools
import json
import os
import pickle
import socket
import sqlite3
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..core.results import ResultMixin
from ..core.validation import check_output_path
from .functions import _call, resolve_function
from .grid import Grid
from .records import canonical_params, to_jsonable

__all__ = ["sweep", "load_sweep", "sweep_status", "SweepSummary"]

EXECUTORS = ("processes", "serial", "dask")
SCHEMA_VERSION = 1
_ERROR_CHARS = 8000


# ------------------------------------------------------------------------------------------------
# running one point (in a worker)
# ------------------------------------------------------------------------------------------------

def _worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


_PARENT_PID = None  # set in worker processes of the "processes" executor


def _run_point(fn, key: str):
    """Evaluate one point; never raises for an error of the function (it becomes a 'failed' record)."""
    if _PARENT_PID is not None and os.getppid() != _PARENT_PID:
        os._exit(70)  # the sweep that queued this point is gone: do not start it
    params = json.loads(key)
    started = time.time()
    t0 = time.perf_counter()
    try:
        value = _call(fn, params)
        dps = params.get("dps") if isinstance(params.get("dps"), int) else None
        result = json.dumps(to_jsonable(value, dps=dps), separators=(",", ":"), ensure_ascii=False)
        status, error = "done", None
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - recorded, the sweep goes on
        result, status = None, "failed"
        error = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-_ERROR_CHARS:]
    elapsed = time.perf_counter() - t0
    return status, result, error, started, time.time(), elapsed, _worker_id()


def _worker_init(parent_pid: int) -> None:
    """Worker process set-up: one thread per worker for BLAS/OpenMP, exit when the parent is gone."""
    global _PARENT_PID
    _PARENT_PID = parent_pid
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(var, "1")

    def watch():
        while True:
            time.sleep(0.2)
            if os.getppid() != parent_pid:
                os._exit(70)  # orphaned (the sweep was killed): stop computing at once

    threading.Thread(target=watch, name="symloss-sweep-parent-watch", daemon=True).start()


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
    from .. import __version__
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
        self.conn.close()


# ------------------------------------------------------------------------------------------------
# the sweep
# ------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class SweepSummary(ResultMixin):
    """What one call of :func:`sweep` did.

    Attributes
    ----------
    store : str
        Path of the SQLite store.
    func : str
        The function's key in the store, ``"module:qualname"``.
    executor : str
        ``"serial"``, ``"processes"`` or ``"dask"``.
    n_points : int
        Distinct points in the grid.
    n_skipped : int
        Points already done in the store (not recomputed).
    n_done, n_failed : int
        Points computed by this call that succeeded / raised (or lost their worker for good).
    elapsed : float
        Wall time of the call in seconds.
    run : int
        Row id of this call in the store's ``runs`` table.
    """

    store: str
    func: str
    executor: str
    n_points: int
    n_skipped: int
    n_done: int
    n_failed: int
    elapsed: float
    run: int

    @property
    def complete(self) -> bool:
        """True when every point of the grid is now done (none failed)."""
        return self.n_failed == 0 and self.n_skipped + self.n_done == self.n_points

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), "complete": self.complete}

    def frame(self):
        """The store's rows for this function as a pandas DataFrame (see :func:`load_sweep`)."""
        return load_sweep(self.store, func=self.func)

    def __str__(self) -> str:
        rate = self.n_done / self.elapsed if self.elapsed > 0 else float("nan")
        return (f"sweep {self.func} [{self.executor}] into {self.store}: {self.n_points} points, "
                f"{self.n_skipped} already done, {self.n_done} computed, {self.n_failed} failed, "
                f"{self.elapsed:.2f} s ({rate:.1f} points/s)")


def _as_points(points) -> list[dict]:
    if isinstance(points, Grid):
        return list(points)
    if isinstance(points, Mapping):
        return list(Grid.product(**points))
    if isinstance(points, (str, bytes)) or not isinstance(points, Iterable):
        raise TypeError(f"grid must be a Grid, a mapping of axes or an iterable of parameter dicts, "
                        f"got {type(points).__name__}")
    return list(Grid(points))


def sweep(func, grid, *, store="sweep.sqlite", executor: str = "processes", scheduler=None,
          progress: bool = True, resume: bool = True, workers: int | None = None,
          name: str | None = None, check: bool = True) -> SweepSummary:
    """Evaluate ``func(**point)`` at every point of ``grid``, writing each result to ``store`` at once.

    Parameters
    ----------
    func : callable or str
        The function, or its name (see :func:`~symloss.sweeps.functions.resolve_function`): ``"threshold"`` ->
        :func:`symloss.threshold_load`, ``"blocking"`` -> ``Policy(C, d).blocking(rho)``, ``"simulate"`` ->
        :func:`symloss.simulate`, ``"admission"`` -> a quantity of :class:`symloss.OverloadedLossNetwork`,
        ``"erlang"`` -> :func:`symloss.erlang_b`, or ``"package.module:function"``. With
        ``executor="processes"`` a callable must be picklable by reference (a module-level function).
    grid : Grid, mapping or iterable of dicts
        The points; a mapping of axes means their product (:func:`grid`). Values must be JSON numbers,
        strings, booleans, None or lists (numpy scalars are converted). Duplicate points run once.
        The function receives the JSON-decoded values, exactly what is stored.
    store : str or Path
        SQLite file (created if missing). Rows are keyed by ``(function name, canonical JSON of the
        point)``, so one store can hold sweeps of several functions.
    executor : {"processes", "serial", "dask"}
        Where the points run (see the module docstring).
    scheduler : str, distributed.Client, cluster or None
        Dask only: a scheduler address ``"tcp://host:8786"``, a ``Client``, a cluster object, or None
        for a ``LocalCluster`` (``workers`` processes, one thread each) started and closed by the call.
    progress : bool
        Show a tqdm progress bar (points/s and ETA) on stderr.
    resume : bool
        True: skip points already ``done`` in the store, retry the ``failed`` ones. False: compute every
        point again and overwrite its row.
    workers : int, optional
        Worker processes (``processes``, and ``dask`` with a LocalCluster); default: the usable CPUs.
    name : str, optional
        The function's key in the store instead of ``"module:qualname"`` (e.g. for a lambda).
    check : bool
        Check the grid before anything runs (default): every point against the function's signature
        and, for the named symloss functions, every value against its documented range
        (:func:`symloss.sweeps.checks.check_grid`); a bad grid raises one ``ValueError`` and no point
        is launched (nor is the store created).

    Returns
    -------
    SweepSummary
        Counts, elapsed time and the run id; ``.frame()`` loads the rows as a DataFrame.

    Raises
    ------
    ValueError
        A bad grid (unknown or missing arguments, values out of range; see ``check``), a bad executor
        or worker count.
    TypeError
        A function that is not callable or (processes executor) not picklable by reference.

    Notes
    -----
    Each finished point is written in its own SQLite transaction (WAL mode, ``synchronous=NORMAL``:
    durable when the process is killed; a power cut may lose the last few points), so killing the sweep
    loses at most the points being computed at that moment; rerunning the same call resumes. A point
    whose function raises is stored with ``status='failed'`` and the traceback in ``error``; the sweep
    goes on. Worker processes use one BLAS/OpenMP thread each (``OMP_NUM_THREADS=1`` unless set).

    Examples
    --------
    >>> import symloss, tempfile, os
    >>> from symloss.sweeps import sweep, grid
    >>> path = os.path.join(tempfile.mkdtemp(), "comb.sqlite")
    >>> s = sweep("math:comb", grid(n=range(5, 8), k=[2, 3]), store=path, executor="serial", progress=False)
    >>> s.n_done, s.n_failed
    (6, 0)
    >>> df = symloss.load_sweep(path)              # doctest: +SKIP
    """
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {list(EXECUTORS)}, got {executor!r}")
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    if scheduler is not None and executor != "dask":
        raise ValueError(f"scheduler is only used with executor='dask', got executor={executor!r}")
    if executor == "dask":
        if scheduler is not None and not (isinstance(scheduler, str) or hasattr(scheduler, "scheduler_address")
                                          or hasattr(scheduler, "submit")):
            raise TypeError(f"scheduler must be an address 'tcp://host:port', a distributed.Client, a "
                            f"cluster or None, got {type(scheduler).__name__}")
        try:
            import distributed  # noqa: F401
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("executor='dask' needs the optional extra: pip install 'symloss[distributed]' "
                              "(dask and distributed)") from exc
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    check_output_path(store, "store")             # before anything is computed
    fn, func_name = resolve_function(func)
    func_name = name or func_name
    points = _as_points(grid)
    keys = list(dict.fromkeys(canonical_params(p) for p in points))  # dedupe, keep order
    if check:
        from .checks import check_grid
        check_grid(fn, [json.loads(k) for k in keys], func_name=func_name)
    if executor == "processes":
        main = sys.modules.get("__main__")
        main_file = getattr(main, "__file__", None)
        if getattr(fn, "__module__", None) == "__main__" and not (main_file and os.path.exists(main_file)):
            raise TypeError(f"executor='processes' cannot run {func_name}: it is defined interactively "
                            f"(notebook or REPL), so worker processes cannot import it; move it to a module, "
                            f"or use executor='dask' (cloudpickle) or 'serial'")
        try:
            pickle.dumps(fn)
        except Exception as exc:
            raise TypeError(f"executor='processes' needs a function picklable by reference (module-level); "
                            f"{func_name} is not ({exc}); use executor='serial' or 'dask'") from exc
    if workers is None:
        workers = _usable_cpus()

    t_start = time.perf_counter()
    st = _Store(store, func_name)
    try:
        done, _failed = st.done_and_failed()
        todo = [k for k in keys if not (resume and k in done)]
        n_skipped = len(keys) - len(todo)
        st.start_run(executor, None if executor == "serial" else workers, len(keys), n_skipped)
        counts = {"done": 0, "failed": 0}
        bar = _progress_bar(progress, len(todo), func_name)

        def record(key, rec):
            st.write(key, rec, overwrite_done=not resume)
            counts[rec[0]] += 1
            if bar is not None:
                bar.update(1)
                if counts["failed"]:
                    bar.set_postfix(failed=counts["failed"], refresh=False)

        state = "error"
        try:
            if todo:
                if executor == "serial":
                    for k in todo:
                        record(k, _run_point(fn, k))
                elif executor == "processes":
                    _run_processes(fn, todo, workers, record)
                else:
                    _run_dask(fn, todo, scheduler, workers, record)
            state = "finished"
        except KeyboardInterrupt:
            state = "interrupted"
            raise
        finally:
            if bar is not None:
                bar.close()
            st.finish_run(state, counts["done"], counts["failed"])
        return SweepSummary(str(st.path), func_name, executor, len(keys), n_skipped, counts["done"],
                            counts["failed"], time.perf_counter() - t_start, st.run_id)
    finally:
        st.close()


def _usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _progress_bar(progress: bool, total: int, func_name: str):
    if not progress:
        return None
    from tqdm.auto import tqdm
    label = func_name.rsplit(":", 1)[-1]
    return tqdm(total=total, desc=f"sweep {label}", unit="pt", dynamic_ncols=True, smoothing=0.05)


def _infrastructure_failure(exc: BaseException):
    """A 'failed' record for an error outside the function (unpicklable task, lost worker, ...)."""
    now = time.time()
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return ("failed", None, text[-_ERROR_CHARS:], now, now, None, None)


def _lost_worker_record(detail: str):
    now = time.time()
    return ("failed", None, f"WorkerLost: {detail}", now, now, None, None)


def _run_processes(fn, todo: list[str], workers: int, record) -> None:
    """Local process pool; a bounded window of tasks in flight; rebuilt when a worker dies."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    ctx = multiprocessing.get_context("spawn")
    window = 2 * workers

    def new_pool(n):
        return ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_worker_init,
                                   initargs=(os.getpid(),))

    pool = new_pool(workers)
    it = iter(todo)
    suspects: list[str] = []  # points in flight when a worker died: rerun one at a time
    lost_alone = 0  # points that killed their worker while running alone, in a row
    try:
        pending: dict = {}
        exhausted = False
        while True:
            if suspects and not pending:
                for key in suspects:
                    fut = pool.submit(_run_point, fn, key)
                    try:
                        rec = fut.result()
                    except BrokenProcessPool as exc:
                        record(key, _lost_worker_record(
                            "the worker process died while computing this point alone (killed, "
                            "out of memory or crashed); it is retried on resume"))
                        pool.shutdown(wait=True, cancel_futures=True)
                        lost_alone += 1
                        if lost_alone >= 3:
                            raise RuntimeError(
                                "worker processes died on 3 points in a row, each run alone: they cannot "
                                "start (is the function importable in a fresh interpreter?) or every "
                                "point kills them (memory?); the points done so far are stored") from exc
                        pool = new_pool(workers)
                        continue
                    except Exception as exc:
                        rec = _infrastructure_failure(exc)
                    lost_alone = 0
                    record(key, rec)
                suspects = []
            while not exhausted and len(pending) < window:
                key = next(it, None)
                if key is None:
                    exhausted = True
                    break
                pending[pool.submit(_run_point, fn, key)] = key
            if not pending:
                break
            finished, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            broken = False
            for fut in finished:
                key = pending.pop(fut)
                try:
                    rec = fut.result()
                except BrokenProcessPool:
                    suspects.append(key)
                    broken = True
                    continue
                except Exception as exc:  # e.g. the function cannot be unpickled in the worker
                    rec = _infrastructure_failure(exc)
                record(key, rec)
            if broken:
                for fut, key in pending.items():
                    if fut.done() and not fut.cancelled() and fut.exception() is None:
                        record(key, fut.result())  # finished before the pool broke
                    else:
                        suspects.append(key)
                pending.clear()
                pool.shutdown(wait=True, cancel_futures=True)
                pool = new_pool(workers)
    except BaseException:  # interrupted (Ctrl-C) or the store failed: stop the workers now
        procs = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
        raise
    else:
        pool.shutdown(wait=True)


def _dask_client(scheduler, workers: int):
    """(client, closers): connect to or start a cluster; closers are closed after the sweep."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("executor='dask' needs the optional extra: pip install 'symloss[distributed]' "
                          "(dask and distributed)") from exc
    if scheduler is None:
        import logging
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
        return client, [client, cluster]
    if isinstance(scheduler, Client):
        return scheduler, []
    if isinstance(scheduler, str) or hasattr(scheduler, "scheduler_address"):
        client = Client(scheduler)
        return client, [client]
    raise TypeError(f"scheduler must be an address 'tcp://host:port', a distributed.Client, a cluster "
                    f"or None, got {type(scheduler).__name__}")


def _run_dask(fn, todo: list[str], scheduler, workers: int, record) -> None:
    import functools

    from distributed import as_completed

    client, closers = _dask_client(scheduler, workers)
    try:
        nthreads = sum(client.nthreads().values()) or workers
        # Tasks beyond the running ones wait in the scheduler's queue (not computed, so not lost if the
        # client dies). A deep window, refilled by halves with one client.map (one graph update per
        # refill, not one per point), and one gather per batch of finished tasks amortise the
        # client-scheduler-worker round trips (~10x fewer than one per point for cheap functions).
        window = max(32 * nthreads, 256)
        run = functools.partial(_run_point, fn)
        tag = uuid.uuid4().hex[:12]
        it = iter(enumerate(todo))
        keys: dict = {}  # task key -> (future, point key)
        ac = as_completed([], with_results=False)

        def submit(n):
            batch = list(itertools.islice(it, n))
            if batch:
                futs = client.map(run, [k for _, k in batch], key=[f"symloss-sweep-{tag}-{i}" for i, _ in batch],
                                  pure=False)
                for fut, (_, k) in zip(futs, batch):
                    keys[fut.key] = (fut, k)
                ac.update(futs)

        def one(fut):
            try:
                return fut.result()
            except BaseException as exc:  # KilledWorker after repeated worker deaths, unpickling errors,
                return _infrastructure_failure(exc)  # cancellation, ...

        submit(window)
        for batch in ac.batches():
            # one gather per batch of finished tasks: a round trip per batch, not per point (while it
            # runs, more tasks finish, so batches grow with the rate)
            fin = [f for f in batch if f.status == "finished"]
            try:
                values = dict(zip((f.key for f in fin), client.gather(fin))) if fin else {}
            except Exception:  # e.g. a result lost with its worker, recomputed, then erred: one by one
                values = {}
            for fut in batch:
                _, key = keys.pop(fut.key)
                rec = values[fut.key] if fut.key in values else one(fut)
                fut.release()
                record(key, rec)
            if len(keys) <= window // 2:
                submit(window - len(keys))
    finally:
        if keys:  # interrupted: do not leave our tasks running on a shared cluster
            try:
                client.cancel([f for f, _ in keys.values()])
            except Exception:  # pragma: no cover - best effort
                pass
        for c in closers:
            try:
                c.close()
            except Exception:  # pragma: no cover - best effort at shutdown
                pass


# ------------------------------------------------------------------------------------------------
# reading a store
# ------------------------------------------------------------------------------------------------

def load_sweep(store, *, func: str | None = None, status: str | None = None, expand: bool = True,
               numeric: bool = False):
    """Load a sweep store as a pandas DataFrame, one row per point.

    Parameters
    ----------
    store : str or Path
        The SQLite file written by :func:`sweep`.
    func : str, optional
        Keep the rows of this function only (its ``"module:qualname"`` key, or a name that
        :func:`~symloss.sweeps.functions.resolve_function` resolves).
    status : {"done", "failed"}, optional
        Keep the rows with this status only.
    expand : bool
        True: one column per parameter, a ``result`` column for non-dict results and one
        ``result.<key>`` column per key of dict results (nested dicts flattened with dots); the raw JSON
        stays in ``params_json`` / ``result_json``. False: ``params`` and ``result`` hold the decoded JSON.
    numeric : bool
        Convert result columns whose values are all numeric strings (mpf text) to float64.

    Returns
    -------
    pandas.DataFrame
        Columns: the parameters, ``result`` (or ``result.*``), ``status``, ``error``, ``func``,
        ``started`` / ``finished`` (UTC timestamps), ``elapsed`` (seconds), ``worker``, ``version``,
        ``attempts``, ``run``.

    Examples
    --------
    >>> import tempfile, os
    >>> from symloss.sweeps import sweep, grid
    >>> path = os.path.join(tempfile.mkdtemp(), "c.sqlite")
    >>> _ = sweep("math:comb", grid(n=[4, 5], k=2), store=path, executor="serial", progress=False)
    >>> load_sweep(path)[["n", "k", "result", "status"]].values.tolist()
    [[4, 2, 6, 'done'], [5, 2, 10, 'done']]
    """
    import pandas as pd

    if status is not None and status not in ("done", "failed"):
        raise ValueError(f"status must be 'done', 'failed' or None, got {status!r}")
    conn = _connect(store, create=False)
    try:
        sql = ("SELECT func, params, status, result, error, started, finished, elapsed, worker, version, "
               "attempts, run FROM points")
        where, args = [], []
        if func is not None:
            where.append("func = ?")
            args.append(_func_key(func, conn))
        if status is not None:
            where.append("status = ?")
            args.append(status)
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = conn.execute(sql + " ORDER BY id", args).fetchall()
    finally:
        conn.close()
    cols = ["func", "params_json", "status", "result_json", "error", "started", "finished", "elapsed",
            "worker", "version", "attempts", "run"]
    raw = pd.DataFrame(rows, columns=cols)
    for c in ("started", "finished"):
        raw[c] = pd.to_datetime(raw[c], unit="s", utc=True)
    params = [json.loads(r[1]) for r in rows]
    results = [json.loads(r[3]) if r[3] is not None else None for r in rows]
    if not expand:
        raw.insert(1, "params", params)
        raw.insert(3, "result", results)
        return raw
    pframe = pd.DataFrame.from_records(params, index=raw.index) if params else pd.DataFrame(index=raw.index)
    dicts = [isinstance(r, dict) for r in results]
    parts = []
    if not all(d or r is None for d, r in zip(dicts, results)) or not any(dicts):
        # scalar / list results (dict results leave this column empty)
        parts.append(pd.DataFrame({"result": pd.Series([None if d else r for d, r in zip(dicts, results)],
                                                       index=raw.index, dtype=object)}))
    if any(dicts):  # dict results: one column per (flattened) key
        flat = pd.DataFrame.from_records([_flatten(r) if d else {} for d, r in zip(dicts, results)],
                                         index=raw.index)
        flat.columns = [f"result.{c}" for c in flat.columns]
        parts.append(flat)
    rframe = pd.concat(parts, axis=1)
    if numeric:
        for c in rframe.columns:
            rframe[c] = _maybe_numeric(rframe[c])
    clash = [c for c in pframe.columns if c in set(rframe.columns) | set(cols)]
    if clash:
        pframe = pframe.rename(columns={c: f"param.{c}" for c in clash})
    return pd.concat([pframe, rframe, raw], axis=1)


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, name + "."))
        else:
            out[name] = v
    return out


def _maybe_numeric(col):
    import pandas as pd
    vals = col.dropna()
    if len(vals) == 0 or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in vals):
        return col
    try:
        return pd.to_numeric(col, errors="raise").astype("float64")
    except (ValueError, TypeError):
        return col


def _func_key(func, conn) -> str:
    if isinstance(func, str):
        known = {r[0] for r in conn.execute("SELECT DISTINCT func FROM points")}
        if func in known:
            return func
    return resolve_function(func)[1]


def sweep_status(store) -> dict:
    """Counts per function and the runs of a store, as plain data (what ``symloss sweep --status`` prints).

    Parameters
    ----------
    store : str or Path
        An SQLite file written by :func:`sweep`.

    Returns
    -------
    dict
        ``{"store", "functions": [{"func", "done", "failed", "mean_elapsed", "first_error"}],
        "runs": [{"id", "func", "executor", "workers", "started", "finished", "state", "n_grid",
        "n_skipped", "n_done", "n_failed", "host", "pid"}], "integrity": "ok" | message}``. A run still
        marked ``running`` whose process no longer exists on this host is reported as ``killed``.

    Raises
    ------
    FileNotFoundError
        When ``store`` does not exist.
    ValueError
        When it is not a sweep store.

    Examples
    --------
    >>> import tempfile, os
    >>> from symloss.sweeps import sweep, grid
    >>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
    >>> _ = sweep("math:comb", grid(n=[4, 5], k=2), store=path, executor="serial", progress=False)
    >>> st = sweep_status(path)
    >>> st["functions"][0]["done"], st["integrity"]
    (2, 'ok')
    """
    conn = _connect(store, create=False)
    try:
        funcs = []
        for func, done, failed, mean in conn.execute(
                "SELECT func, SUM(status = 'done'), SUM(status = 'failed'), "
                "AVG(CASE WHEN status = 'done' THEN elapsed END) FROM points GROUP BY func ORDER BY func"):
            err = conn.execute("SELECT params, error FROM points WHERE func = ? AND status = 'failed' "
                               "ORDER BY id LIMIT 1", (func,)).fetchone()
            funcs.append({"func": func, "done": int(done or 0), "failed": int(failed or 0),
                          "mean_elapsed": mean,
                          "first_error": None if err is None else
                          {"params": json.loads(err[0]), "error": _last_line(err[1])}})
        runs = []
        host = socket.gethostname()
        for row in conn.execute("SELECT id, func, executor, workers, started, finished, state, n_grid, "
                                "n_skipped, n_done, n_failed, host, pid FROM runs ORDER BY id"):
            r = dict(zip(["id", "func", "executor", "workers", "started", "finished", "state", "n_grid",
                          "n_skipped", "n_done", "n_failed", "host", "pid"], row))
            if r["state"] == "running" and r["host"] == host and not _pid_alive(r["pid"]):
                r["state"] = "killed"
            runs.append(r)
        integrity = conn.execute("PRAGMA quick_check").fetchone()[0]
    finally:
        conn.close()
    return {"store": str(store), "functions": funcs, "runs": runs, "integrity": integrity}


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


