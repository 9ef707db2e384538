"""The executors of a sweep: one point in a worker (``_run_point``), a pool of local processes
rebuilt when a worker dies (``_run_processes``), and a Dask cluster (``_run_dask``).

``distributed`` (and ``multiprocessing``'s pool machinery) are imported inside the executor that uses
them: Dask is an optional dependency, not loaded by ``import symloss.sweeps``.
"""
from __future__ import annotations

import itertools
import json
import os
import socket
import threading
import time
import traceback
import uuid

from .functions import _call
from .records import to_jsonable

EXECUTORS = ("processes", "serial", "dask")
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


def _usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


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
