"""Benchmark of symloss.sweeps: per-point overhead and the speed-up from 1 to 2 worker processes.

    python benchmarks/bench_sweep.py [--quick] [--no-dask]

1. Overhead per point for a cheap function (returns its argument), process executor, 2 workers:
   the marginal cost (T(n2) - T(n1)) / (n2 - n1) (best of 3 runs each), which excludes the pool
   start-up, the steady-state time per completion read from the store's timestamps, and the plain
   T(n2) / n2; beside it, in the same run, the serial executor (the cost of the SQLite write per point)
   and a bare Python loop calling the function (the baseline). Target: <= 5 ms per point.
2. Speed-up from 1 to 2 workers on a CPU-bound grid (a pure-Python loop of ~0.2 s per point): the ratio
   T(1 worker) / T(2 workers), and the same ratio in steady state (start-up excluded); ideal 2 on an idle
   2-core machine. The machine's load average before and
   after, the mean compute time per point inside the workers (which grows when cores are contended)
   and the share of the workers' time spent inside the function (start-up and orchestration are the
   rest) are printed beside it, because other jobs may share the cores.
3. (unless --no-dask) The same cheap grid on a Dask LocalCluster of 2 worker processes: start-up and
   per-point overhead, beside bare ``client.map`` + ``gather`` of the same tasks (Dask's own cost).
"""
from __future__ import annotations

import argparse
import importlib
import math
import os
import sqlite3
import statistics
import sys
import tempfile
import time

sw = importlib.import_module("symloss.sweeps")


def cheap(x):
    return x


def busy(x, n=600_000):
    """CPU-bound, deterministic: ~0.2 s of pure Python on an idle core."""
    acc = x
    for i in range(n):
        acc = (acc * 1103515245 + 12345 + i) % 2147483648
    return acc


def _timed(func, grid, store, *, repeat=1, **kw):
    """Best of ``repeat`` wall times of a fresh sweep (resume=False recomputes every point)."""
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        s = sw.sweep(func, grid, store=store, progress=False, resume=False, **kw)
        best = min(best, time.perf_counter() - t0)
        assert s.n_done == s.n_points and s.n_failed == 0, s
    return best


def _steady_interval(store):
    """Median time between consecutive completions (worker clocks) over the middle 80 % of the points:
    the per-point cost of the pipeline in steady state, pool start-up excluded."""
    conn = sqlite3.connect(store)
    try:
        t = sorted(f for (f,) in conn.execute("SELECT finished FROM points"))
    finally:
        conn.close()
    lo, hi = len(t) // 10, len(t) - len(t) // 10
    gaps = [b - a for a, b in zip(t[lo:hi], t[lo + 1:hi])]
    return (t[hi - 1] - t[lo]) / max(1, hi - 1 - lo), statistics.median(gaps)


def _mean_elapsed(store):
    conn = sqlite3.connect(store)
    try:
        return conn.execute("SELECT AVG(elapsed) FROM points").fetchone()[0]
    finally:
        conn.close()


def _busy_fraction(store, wall, workers):
    """Share of the workers' wall time spent inside the function: near 1 means the executor kept every
    worker busy (a missing speed-up then comes from the CPU being shared, not from the sweep)."""
    conn = sqlite3.connect(store)
    try:
        total = conn.execute("SELECT SUM(elapsed) FROM points").fetchone()[0]
    finally:
        conn.close()
    return total / (wall * workers)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller grids")
    ap.add_argument("--no-dask", action="store_true", help="skip the Dask part")
    args = ap.parse_args(argv)
    n1, n2 = (200, 1000) if args.quick else (500, 4000)
    n_busy = 8 if args.quick else 16
    tmp = tempfile.mkdtemp(prefix="bench_sweep_")
    load0 = os.getloadavg()
    print(f"machine: {os.cpu_count()} CPUs, load average {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} "
          f"(1/5/15 min) at start; python {sys.version.split()[0]}")

    # 1. per-point overhead ------------------------------------------------------------------------
    t0 = time.perf_counter()
    for x in range(n2):
        cheap(**{"x": x})
    bare = (time.perf_counter() - t0) / n2
    t_serial = _timed(cheap, sw.grid(x=range(n2)), os.path.join(tmp, "serial.sqlite"), executor="serial",
                      repeat=3)
    ta = _timed(cheap, sw.grid(x=range(n1)), os.path.join(tmp, "p1.sqlite"), executor="processes", workers=2,
                repeat=3)
    tb = _timed(cheap, sw.grid(x=range(n2)), os.path.join(tmp, "p2.sqlite"), executor="processes", workers=2,
                repeat=3)
    marginal = (tb - ta) / (n2 - n1)
    steady_mean, steady_median = _steady_interval(os.path.join(tmp, "p2.sqlite"))
    print("\n1. overhead per point, cheap function (x -> x)")
    print(f"   bare Python call                  {bare * 1e6:10.1f} us/point   (baseline)")
    print(f"   serial executor (SQLite write)    {t_serial / n2 * 1e3:10.3f} ms/point   ({n2} points, "
          f"{t_serial:.2f} s)")
    print(f"   processes x2, marginal            {marginal * 1e3:10.3f} ms/point   "
          f"((T({n2}) - T({n1})) / {n2 - n1}, best of 3 each; T = {tb:.2f} s, {ta:.2f} s)")
    print(f"   processes x2, steady state        {steady_mean * 1e3:10.3f} ms/point   "
          f"(completions per point over the middle 80 %; median gap {steady_median * 1e3:.3f} ms)")
    print(f"   processes x2, total / points       {tb / n2 * 1e3:10.3f} ms/point   (includes pool start-up)")
    print(f"   ratio processes marginal / serial  {marginal / (t_serial / n2):9.2f}")
    worst = max(marginal, steady_mean)
    print(f"   target <= 5 ms/point: {'met' if worst <= 5e-3 else 'NOT met'} (worst of the two: "
          f"{worst * 1e3:.3f} ms)")

    # 2. speed-up 1 -> 2 workers ----------------------------------------------------------------------
    g = sw.grid(x=range(n_busy))
    t1 = _timed(busy, g, os.path.join(tmp, "busy1.sqlite"), executor="processes", workers=1)
    t2 = _timed(busy, g, os.path.join(tmp, "busy2.sqlite"), executor="processes", workers=2)
    e1 = _mean_elapsed(os.path.join(tmp, "busy1.sqlite"))
    e2 = _mean_elapsed(os.path.join(tmp, "busy2.sqlite"))
    print(f"\n2. CPU-bound grid: {n_busy} points of ~{e1:.3f} s (pure Python loop)")
    b1 = _busy_fraction(os.path.join(tmp, "busy1.sqlite"), t1, 1)
    b2 = _busy_fraction(os.path.join(tmp, "busy2.sqlite"), t2, 2)
    print(f"   1 worker   {t1:7.2f} s   mean compute time per point {e1:.3f} s   workers busy {b1:.0%} of the time")
    print(f"   2 workers  {t2:7.2f} s   mean compute time per point {e2:.3f} s   workers busy {b2:.0%} of the time")
    i1, _ = _steady_interval(os.path.join(tmp, "busy1.sqlite"))
    i2, _ = _steady_interval(os.path.join(tmp, "busy2.sqlite"))
    print(f"   speed-up T1/T2 = {t1 / t2:.2f}   (wall time, pool start-up included; ideal 2.00)")
    print(f"   steady-state speed-up = {i1 / i2:.2f}   (time per completion over the middle 80 % of the "
          f"points, start-up excluded)")
    print(f"   compute time per point grew x{e2 / e1:.2f} with 2 workers: a measure of core contention "
          f"(1.00 on an idle 2-core machine)")

    # 3. Dask ---------------------------------------------------------------------------------------
    if not args.no_dask:
        try:
            import logging

            from distributed import Client, LocalCluster
        except ImportError:
            print("\n3. Dask: distributed is not installed; skipped")
        else:
            t0 = time.perf_counter()
            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                              silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
                start = time.perf_counter() - t0
                nd1, nd2 = n1 // 2, n2 // 4
                da = _timed(cheap, sw.grid(x=range(nd1)), os.path.join(tmp, "d1.sqlite"), executor="dask",
                            scheduler=client)
                db = _timed(cheap, sw.grid(x=range(nd2)), os.path.join(tmp, "d2.sqlite"), executor="dask",
                            scheduler=client)
                t0 = time.perf_counter()  # baseline: bare Dask, same cluster, no store
                client.gather(client.map(cheap, range(nd2), pure=False))
                raw = (time.perf_counter() - t0) / nd2
            dm = (db - da) / (nd2 - nd1)
            print("\n3. Dask LocalCluster, 2 worker processes, cheap function")
            print(f"   cluster start-up {start:.2f} s; sweep marginal {dm * 1e3:.3f} ms/point "
                  f"((T({nd2}) - T({nd1})) / {nd2 - nd1})")
            print(f"   bare client.map + gather of the same {nd2} tasks: {raw * 1e3:.3f} ms/task "
                  f"(baseline); ratio sweep / bare {dm / raw:.2f}")
    load1 = os.getloadavg()
    print(f"\nload average at end {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}; "
          f"median of start/end 1-min load {statistics.median([load0[0], load1[0]]):.2f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
