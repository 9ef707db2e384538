"""Benchmark of symloss.simulate (finite-N load balancing in loss systems).

Prints, in one run:
1. kernel compile / cache-load time (first call in this process), reported separately;
2. events/s of retrial-of-2, power-of-2, random and JSQ at N = 10^4, C = 5 (best of 3 runs);
3. random routing to M/M/C/C loss nodes side by side with Ciw (if importable; Ciw is NOT a symloss
   dependency: ``pip install --no-deps ciw`` into the benchmark environment), events/s and ratio;
4. peak resident memory of a child process simulating N = 10^6 servers.

Usage:  python benchmarks/bench_simulation.py [--quick]
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time


def _compile_time() -> float:
    from symloss import simulation
    t0 = time.perf_counter()
    simulation._kernel()
    return time.perf_counter() - t0


def bench_throughput(events: int, repeats: int) -> list[dict]:
    import symloss
    rows = []
    for policy, d in [("retrial", 2), ("power", 2), ("random", None), ("jsq", None)]:
        best = None
        for r in range(repeats):
            c0 = time.process_time()
            res = symloss.simulate(policy, N=10_000, C=5, rho=4.0, d=d, events=events, warmup=0,
                                   seed=r)
            cpu = time.process_time() - c0
            if best is None or res.wall_time < best[0].wall_time:
                best = (res, cpu)
        res, cpu = best
        rows.append({"policy": policy, "d": d, "events": res.total_events,
                     "wall_s": res.wall_time, "events_per_s": res.events_per_second,
                     "cpu_s": cpu, "events_per_cpu_s": res.total_events / cpu,
                     "blocking": res.blocking})
    return rows


def bench_ciw(N: int, C: int, rho: float, max_time: float) -> dict | None:
    try:
        import ciw
    except ImportError:
        print("  Ciw is not importable: skipped (install it only in the benchmark environment with "
              "`pip install --no-deps ciw`)")
        return None
    import symloss
    # N independent loss nodes with Poisson(rho) input each = random routing of a Poisson(N rho)
    # stream; C servers, no waiting room (queue_capacities = 0): M/M/C/C per node.
    net = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(rate=rho) for _ in range(N)],
        service_distributions=[ciw.dists.Exponential(rate=1.0) for _ in range(N)],
        number_of_servers=[C] * N,
        queue_capacities=[0] * N,
        routing=[[0.0] * N for _ in range(N)],
    )
    ciw.seed(1)
    sim = ciw.Simulation(net)
    t0 = time.perf_counter()
    sim.simulate_until_max_time(max_time)
    ciw_wall = time.perf_counter() - t0
    recs = sim.get_all_records()
    served = sum(1 for r in recs if r.record_type == "service")
    rejected = sum(1 for r in recs if r.record_type == "rejection")
    arrivals = served + rejected
    ciw_events = arrivals + served            # arrivals (lost or not) + departures
    ciw_blocking = rejected / arrivals if arrivals else float("nan")
    events = 2_000_000
    res = symloss.simulate("random", N=N, C=C, rho=rho, events=events, seed=1)
    exact = 1.0
    for n in range(1, C + 1):
        exact = 1 + n / rho * exact
    return {"N": N, "C": C, "rho": rho, "ciw_events": ciw_events, "ciw_wall_s": ciw_wall,
            "ciw_events_per_s": ciw_events / ciw_wall, "ciw_blocking": ciw_blocking,
            "symloss_events": res.total_events, "symloss_wall_s": res.wall_time,
            "symloss_events_per_s": res.events_per_second, "symloss_blocking": res.blocking,
            "symloss_ci": res.ci, "erlang_b": 1 / exact,
            "ratio": res.events_per_second / (ciw_events / ciw_wall)}


_MEM_CHILD = r"""
import resource, time, json, symloss
from symloss import simulation
simulation._kernel()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
r = symloss.simulate("power", N=1_000_000, C=5, rho=4.0, d=2, events={events}, warmup=0, seed=1)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"base_MB": base / 1024, "peak_MB": peak / 1024, "events_per_s": r.events_per_second,
                  "blocking": r.blocking}}))
"""


def bench_memory(events: int) -> dict:
    out = subprocess.run([sys.executable, "-c", _MEM_CHILD.format(events=events)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller runs")
    args = ap.parse_args(argv)
    events = 5_000_000 if args.quick else 20_000_000
    repeats = 2 if args.quick else 3
    import os
    print("symloss.simulate benchmark (one core; other processes may share the machine: "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"kernel compile / cache load: {_compile_time():.2f} s (excluded from the rates below)")
    print(f"\nthroughput at N = 10^4, C = 5, rho = 4, {events:,} events, best of {repeats}:")
    for row in bench_throughput(events, repeats):
        d = "" if row["d"] is None else f"-of-{row['d']}"
        print(f"  {row['policy'] + d:12s} {row['events_per_s'] / 1e6:7.2f} M events/s wall-clock, "
              f"{row['events_per_cpu_s'] / 1e6:7.2f} M events per CPU second   "
              f"({row['wall_s']:.2f} s, blocking {row['blocking']:.5f})")
    print("\nrandom routing to M/M/C/C loss nodes, Ciw vs symloss (N = 10, C = 5, rho = 4):")
    c = bench_ciw(10, 5, 4.0, 200.0 if args.quick else 1000.0)
    if c:
        print(f"  Ciw     {c['ciw_events_per_s']:12,.0f} events/s  ({c['ciw_events']:,} events, "
              f"{c['ciw_wall_s']:.1f} s, blocking {c['ciw_blocking']:.5f})")
        print(f"  symloss {c['symloss_events_per_s']:12,.0f} events/s  ({c['symloss_events']:,} events, "
              f"{c['symloss_wall_s']:.2f} s, blocking {c['symloss_blocking']:.5f}, 95% CI "
              f"({c['symloss_ci'][0]:.5f}, {c['symloss_ci'][1]:.5f}))")
        print(f"  Erlang-B E(5, 4) = {c['erlang_b']:.5f};  speed ratio symloss / Ciw = {c['ratio']:,.0f}")
    print("\nmemory, N = 10^6 servers, C = 5, power-of-2 (child process):")
    m = bench_memory(2_000_000 if args.quick else 10_000_000)
    print(f"  peak RSS {m['peak_MB']:.0f} MB (interpreter + numba after compile: {m['base_MB']:.0f} MB), "
          f"{m['events_per_s'] / 1e6:.1f} M events/s, blocking {m['blocking']:.5f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
