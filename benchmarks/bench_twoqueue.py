"""Benchmark of symloss.TwoQueueJSQ (seed 003): exact solvers and asymptotic evaluations.

Prints, for each case, wall-clock and CPU seconds and the peak resident memory of a fresh child
process (so one case's memory does not hide another's), with ratios against baselines run in the same
script:

* exact solvers against a plain sparse LU of the unstructured (N+1)^2-state generator (SciPy SuperLU, no
  symmetry, no levels) on the sizes where it fits;
* each asymptotic evaluation of a whole distribution at rho = 10^4 (law of the less occupied queue, of one
  queue, of |m - n|, a conditional law, the blocking; best of 3 after the symbolic derivations are cached)
  against the exact float solve of the same model.

Targets (issue 15): float exact solution at N = 5000 (25 million states) <= 60 s and <= 4 GB; each
asymptotic evaluation of a whole distribution <= 0.1 s at rho = 10^4. (Issue 5: float N = 1000 <= 10 s;
exact N = 20 <= 1 s; symbolic N = 4 <= 10 s.)

Run:  python benchmarks/bench_twoqueue.py [--quick] [--large]
(--quick: skip N = 5000 and the largest baselines; --large: also the float solve at N = 10^4.)
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(r"""
    import json, resource, sys, time
    from fractions import Fraction
    import numpy as np
    import symloss
    kind, N, rho = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    model = symloss.TwoQueueJSQ(N, Fraction(rho) if kind in ("exact", "symbolic") else float(rho))
    if kind == "float":      # compile the numba kernels outside the timing (cached on disk anyway)
        symloss.TwoQueueJSQ(3, 2.0).stationary_distribution("float")
    t0, c0 = time.perf_counter(), time.process_time()
    if kind == "generic":
        p = model.generic_solve()
        blk = float(p[N, N])
        extra = {}
    else:
        res = model.stationary_distribution(kind)
        b = res.blocking()
        blk = float(b.subs(res.rho, Fraction(rho))) if kind == "symbolic" else float(b)
        extra = {"iterations": res.iterations, "residual": float(res.residual), "error": float(res.error)}
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6   # kB -> GB
    print(json.dumps({"kind": kind, "N": N, "rho": rho, "wall": wall, "cpu": cpu, "peak_GB": rss,
                      "blocking": blk, **extra}))
""")

ASYM = textwrap.dedent(r"""
    import json, sys, time
    import symloss
    reg, a, rho = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    N = int(round(a * rho))
    # warm-up: SymPy derivations, lambdify, numba, the corner law of this a (cached per process)
    symloss.TwoQueueJSQ(N, rho).asymptotic("marginal_min", regime=reg)
    K = int(min(rho, 2 * N)) - 6
    out = {}
    for q, kw in (("marginal_min", {}), ("marginal", {}), ("imbalance", {}), ("conditional", {"total": K}),
                  ("blocking", {}), ("distribution", {})):
        best = 1e9
        for _ in range(3):
            m = symloss.TwoQueueJSQ(N, rho)           # a fresh model: the band law is built each time
            t0 = time.perf_counter()
            m.asymptotic(q, regime=reg, **kw)
            best = min(best, time.perf_counter() - t0)
        out[q] = best
    print(json.dumps(out))
""")


def run(kind, N, rho):
    out = subprocess.run([sys.executable, "-c", CHILD, kind, str(N), str(rho)], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_asym(reg, a, rho):
    out = subprocess.run([sys.executable, "-c", ASYM, reg, str(a), str(rho)], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip N = 5000 and the largest baselines")
    ap.add_argument("--large", action="store_true", help="also the float solve at N = 10^4")
    args = ap.parse_args(argv)
    print(f"load average at start: {os.getloadavg()}  (2-core machine shared with other jobs)")
    rows = []

    def show(r, base=None):
        ratio = (f"  generic/this: x{base['wall'] / r['wall']:.0f} wall, x{base['cpu'] / max(r['cpu'], 1e-3):.0f} cpu"
                 if base else "")
        extra = f" its={r.get('iterations', '')} resid={r.get('residual', 0):.1e}" if "residual" in r else ""
        print(f"{r['kind']:9s} N={r['N']:5d} rho={r['rho']:>6s}  wall {r['wall']:8.3f} s  cpu {r['cpu']:8.3f} s  "
              f"peak {r['peak_GB']:.3f} GB  E={r['blocking']:.6e}{extra}{ratio}", flush=True)
        rows.append(r)

    print("\n-- float solver vs generic sparse LU of the full generator --")
    sizes = [(100, "100"), (200, "200")] + ([] if args.quick else [(400, "400")])
    for N, rho in sizes:
        base = run("generic", N, rho)
        show(base)
        show(run("float", N, rho), base)
    print("\n-- float solver, large N (targets: N=1000 <= 10 s; N=5000 <= 60 s and <= 4 GB) --")
    big = [(1000, "1000"), (2000, "2000")] + ([] if args.quick else [(5000, "5000"), (3000, "10000")])
    if args.large:
        big.append((10000, "10000"))
    exact_times = {}
    for N, rho in big:
        r = run("float", N, rho)
        show(r)
        exact_times[(N, rho)] = r["wall"]
    print("\n-- exact (fmpq), symbolic (Q(rho)) and mp (arb level reduction, 30 digits checked at two precisions) --")
    show(run("exact", 20, "20"))
    show(run("exact", 20, "7/3"))
    show(run("symbolic", 4, "1"))
    show(run("mp", 50, "50"))
    if not args.quick:
        show(run("mp", 100, "100"))
    print("\n-- asymptotic evaluations at rho = 10^4 (target <= 0.1 s each; best of 3, fresh model each time) --")
    cases = [("a>1/2", 1.0), ("a~1/2", 0.5), ("1/4<a<1/2", 0.35), ("a~1/4", 0.25), ("a<1/4", 0.15)]
    for reg, a in cases:
        t = run_asym(reg, a, 1e4)
        N = int(round(a * 1e4))
        base = None
        if not args.quick and N <= 5000:
            key = (N, "10000")
            if key not in exact_times:
                exact_times[key] = run("float", N, "10000")["wall"]
            base = exact_times[key]
        worst = max(v for k, v in t.items() if k != "distribution")
        ratio = f"  exact float solve {base:.1f} s: x{base / worst:.0f}" if base else ""
        print(f"{reg:11s} a={a:<5} N={N:6d}  " + "  ".join(f"{k} {v:.3f}" for k, v in t.items())
              + f"  worst {worst:.3f} s{ratio}", flush=True)
    print(f"\nload average at end: {os.getloadavg()}")
    return rows


if __name__ == "__main__":
    main()
