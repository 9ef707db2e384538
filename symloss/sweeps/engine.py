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

Modules: this one holds :func:`sweep`, :class:`SweepSummary` and the readers :func:`load_sweep` and
:func:`sweep_status` (pandas is imported inside :func:`load_sweep`, an optional dependency);
``symloss.sweeps.executors`` runs the points (serial, processes, Dask) and ``symloss.sweeps.store`` is
the SQLite schema and writer.
"""
from __future__ import annotations

import dataclasses
import json
import os
import pickle
import socket
import sys
import time
from collections.abc import Iterable, Mapping

from ..core.docstrings import fill_doc
from ..core.results import ResultMixin
from ..core.validation import check_output_path
from ._docfragments import SWEEPS_DOCS
from .checks import check_grid
from .executors import EXECUTORS, _run_dask, _run_point, _run_processes, _usable_cpus
from .functions import resolve_function
from .grid import Grid
from .records import canonical_params
from .store import _connect, _flatten, _func_key, _last_line, _maybe_numeric, _pid_alive, _Store

__all__ = ["sweep", "load_sweep", "sweep_status", "SweepSummary"]

# ------------------------------------------------------------------------------------------------
# the sweep
# ------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class SweepSummary(ResultMixin):
    """What one call of :func:`sweep` did.

    Parameters
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

    def replay_note(self, noun: str = "points", option: str = "--no-resume") -> str | None:
        """The sentence a command prints when this call took results from the store instead of computing
        them (a rerun replays; a user must not mistake 0.8 s for a recomputation).

        Parameters
        ----------
        noun : str, optional
            What a point is, for the sentence (``"results"``, ``"points"``).
        option : str, optional
            The option that recomputes them (``"--no-resume"``; ``"resume=False"`` in the API).

        Returns
        -------
        str or None
            ``"replayed 985 stored results from STORE (use --no-resume to recompute them)"`` (with the
            number computed by this call when some were), or ``None`` when nothing was replayed.

        Examples
        --------
        >>> SweepSummary("s.sqlite", "f", "serial", 3, 2, 1, 0, 0.1, 1).replay_note()
        'replayed 2 stored points from s.sqlite, computed 1 (use --no-resume to recompute them)'
        """
        if not self.n_skipped:
            return None
        computed = f", computed {self.n_done + self.n_failed}" if self.n_done + self.n_failed else ""
        return (f"replayed {self.n_skipped} stored {noun} from {self.store}{computed} "
                f"(use {option} to recompute them)")

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
    progress : bool or str
        Show the progress (points/s and ETA) on stderr by the one progress policy of symloss
        (:func:`symloss.core.cli_grammar.progress_bar`: a tqdm bar on a terminal or in a notebook,
        plain periodic lines otherwise); a string is the bar's label (default ``"sweep NAME"``, NAME
        the function's short name).
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
    if not isinstance(progress, (bool, str)):
        raise TypeError(f"progress must be True, False or a label (str), got {type(progress).__name__} {progress!r}")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    check_output_path(store, "store")             # before anything is computed
    fn, func_name = resolve_function(func)
    func_name = name or func_name
    points = _as_points(grid)
    keys = list(dict.fromkeys(canonical_params(p) for p in points))  # dedupe, keep order
    if check:
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
        bar = _progress_bar(progress, len(todo), _label(func, fn))

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


def _label(func, fn) -> str:
    """The bar's default label: ``sweep threshold`` for a named function, ``sweep comb`` for a callable
    or a ``"module:function"`` path (never the store key with its module and version)."""
    if isinstance(func, str) and ":" not in func and "." not in func:
        return f"sweep {func.strip()}"
    short = getattr(fn, "__name__", None) or str(func).rsplit(":", 1)[-1]
    return f"sweep {short}"


def _progress_bar(progress, total: int, label: str):
    if progress is False or progress is None:
        return None
    from ..core.cli_grammar import progress_bar, progress_mode
    if progress_mode(True) is None:         # SYMLOSS_PROGRESS=0
        return None
    desc = progress if isinstance(progress, str) and progress.strip() else label
    return progress_bar(True, total=total, desc=desc, unit="pt", smoothing=0.05)


# ------------------------------------------------------------------------------------------------
# reading a store
# ------------------------------------------------------------------------------------------------

@fill_doc(SWEEPS_DOCS)
def load_sweep(store, *, func: str | None = None, status: str | None = None, expand: bool = True,
               numeric: bool = True):
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
        With ``expand``: the result columns whose values are all numbers or numeric text (the decimal
        strings an ``mpf`` is stored as) are float64, so ``df["result"].max()`` and plots work at
        once (default). A column is left as text when a value lies beyond the float64 range (it would
        become 0 or inf). The exact decimal text of every result stays in ``result_json``. False: the
        values as stored (numeric text stays text).

    Returns
    -------
    pandas.DataFrame
        One row per point. Columns, in order:

        * the parameters, one column each (renamed ``param.<name>`` if a name clashes with a column
          below);
        * ``result`` (scalar and list results) and/or ``result.<key>`` (dict results, nested keys
          joined by dots): float64 where numeric (see ``numeric``), else the decoded JSON values;
          None for a failed point;
        * ``func`` (the function's key), ``params_json`` (the point's canonical JSON, its key in the
          store), ``status`` (``"done"`` / ``"failed"``), ``result_json`` (the result as stored: JSON
          text, exact decimal strings), ``error`` (the traceback of a failed point), ``started`` /
          ``finished`` (UTC timestamps), ``elapsed`` (seconds in the function), ``worker``
          (``host:pid``), ``version`` (of symloss), ``attempts``, ``run`` (the id in the store's
          ``runs`` table).

    Examples
    --------
    {{example_comb_store}}
    >>> load_sweep(path)[["n", "k", "result", "status"]].values.tolist()
    [[4, 2, 6, 'done'], [5, 2, 10, 'done']]
    >>> p2 = os.path.join(tempfile.mkdtemp(), "e.sqlite")
    >>> _ = sweep("erlang", grid(C=[2], a=[1], dps=[20]), store=p2, executor="serial", progress=False)
    >>> df = load_sweep(p2)
    >>> df["result"].dtype, float(df["result"].iloc[0]), df["result_json"].iloc[0]      # E(2, 1) = 1/5
    (dtype('float64'), 0.2, '"0.2"')
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


@fill_doc(SWEEPS_DOCS)
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
    {{example_comb_store}}
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
