"""Benchmark of the supermarket-model simulator (seed 002).

Targets (issue 7): >= 1e7 events/s at N = 1e5 on a random 10-regular graph (JSQ(2), lam = 0.7), and
N = 1e6 vertices in <= 2 GB. "Events" are real arrivals and departures (the uniformised kernel's
dummy departures at empty queues are not counted). Baseline in the same process: the event-driven
kernel (exponential clock per event, busy list), i.e. ``method="event"``.

Memory: peak resident set size of this process (``resource.getrusage``, includes the Python/numba
runtime) and the peak of numpy allocations traced by ``tracemalloc`` during graph construction and
simulation at N = 1e6.

Run:  python benchmarks/bench_supermarket.py [--quick]
"""
from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import symloss


def _run(graph, method, t_end, seed=1):
    symloss.simulate_supermarket(graph, d=2, lam=0.7, t_end=min(t_end, 0.5), seed=seed, method=method)  # JIT
    c0, w0 = time.process_time(), time.perf_counter()
    r = symloss.simulate_supermarket(graph, d=2, lam=0.7, t_end=t_end, seed=seed, method=method)
    c1, w1 = time.process_time(), time.perf_counter()
    return r, w1 - w0, c1 - c0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller runs")
    a = ap.parse_args()
    t_end = 20.0 if a.quick else 60.0

    print("== throughput: N = 1e5, random 10-regular, JSQ(2), lam = 0.7 ==")
    t0 = time.perf_counter()
    g = symloss.make_graph("random_regular", 10 ** 5, k=10, seed=2)
    print(f"graph built in {time.perf_counter() - t0:.2f} s: {g}")
    rows = {}
    for method in ("uniformized", "event"):
        r, wall, cpu = _run(g, method, t_end)
        rows[method] = (r.events / wall, r.events / cpu)
        print(f"{method:>12}: {r.events:.3e} events in {wall:.2f} s wall ({cpu:.2f} s CPU): "
              f"{r.events / wall:.3e} events/s wall, {r.events / cpu:.3e} events/s CPU; "
              f"E[Q] = {r.mean_queue_length:.4f} [{r.ci[0]:.4f}, {r.ci[1]:.4f}]")
    print(f"speed-up of the uniformised kernel over the event-driven baseline: "
          f"{rows['uniformized'][0] / rows['event'][0]:.2f}x (wall), {rows['uniformized'][1] / rows['event'][1]:.2f}x (CPU)")
    print(f"target 1e7 events/s: {'met' if rows['uniformized'][0] >= 1e7 else 'NOT met'} (wall), "
          f"{'met' if rows['uniformized'][1] >= 1e7 else 'NOT met'} (CPU time)")

    print("\n== complete graph N = 1e5 (no edges stored) ==")
    r, wall, cpu = _run(symloss.make_graph("complete", 10 ** 5), "uniformized", t_end)
    print(f"{r.events / wall:.3e} events/s wall, {r.events / cpu:.3e} events/s CPU; E[Q] = {r.mean_queue_length:.4f}")

    print("\n== memory: N = 1e6, random 10-regular ==")
    tracemalloc.start()
    t0 = time.perf_counter()
    g = symloss.make_graph("random_regular", 10 ** 6, k=10, seed=3)
    tb = time.perf_counter() - t0
    _, peak_build = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    r = symloss.simulate_supermarket(g, d=2, lam=0.7, t_end=5.0 if a.quick else 10.0, seed=4)
    _, peak_sim = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB -> MB on Linux
    print(f"graph: {tb:.2f} s, CSR arrays {g.nbytes / 1e6:.1f} MB; traced peak during build {peak_build / 1e6:.1f} MB, "
          f"during simulation {peak_sim / 1e6:.1f} MB")
    print(f"simulation: {r.events:.3e} events, {r.events_per_second:.3e} events/s (wall); E[Q] = {r.mean_queue_length:.4f}")
    print(f"peak RSS of the whole process: {rss:.0f} MB (target <= 2048 MB: {'met' if rss <= 2048 else 'NOT met'})")


if __name__ == "__main__":
    main()
