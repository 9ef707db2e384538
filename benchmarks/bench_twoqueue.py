"""Benchmark of symloss.TwoQueueJSQ (seed 003): the structured solvers against a generic CTMC solve.

Prints, for each case, wall-clock and CPU seconds and the peak resident memory of a fresh child
process (so one case's memory does not hide another's), and the ratio against the baseline, a plain
sparse LU of the unstructured (N+1)^2-state generator (SciPy SuperLU, no symmetry, no levels), run
in the same script on the sizes where it fits.

Targets (issue 5): float N = 1000 <= 10 s and <= 4 GB, N = 2000 must run; exact N = 20 <= 1 s;
symbolic N = 4 <= 10 s. Run:  python benchmarks/bench_twoqueue.py [--quick]
"""
from __future__ import annotations

import argparse
import json
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


def run(kind, N, rho):
    out = subprocess.run([sys.executable, "-c", CHILD, kind, str(N), str(rho)], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip N = 2000 and the largest baseline")
    args = ap.parse_args(argv)
    import os
    print(f"load average at start: {os.getloadavg()}  (2-core machine shared with other jobs)")
    rows = []

    def show(r, base=None):
        ratio = (f"  generic/this: x{base['wall'] / r['wall']:.0f} wall, x{base['cpu'] / max(r['cpu'], 1e-3):.0f} cpu"
                 if base else "")
        extra = f" its={r.get('iterations', '')} resid={r.get('residual', 0):.1e}" if "residual" in r else ""
        print(f"{r['kind']:9s} N={r['N']:5d} rho={r['rho']:>6s}  wall {r['wall']:8.3f} s  cpu {r['cpu']:8.3f} s  "
              f"peak {r['peak_GB']:.3f} GB  E={r['blocking']:.6e}{extra}{ratio}")
        rows.append(r)

    print("\n-- float solver vs generic sparse LU of the full generator --")
    sizes = [(100, "100"), (200, "200"), (400, "400")] + ([] if args.quick else [(700, "700")])
    for N, rho in sizes:
        base = run("generic", N, rho)
        show(base)
        show(run("float", N, rho), base)
    print("\n-- float solver, large N (targets: N=1000 <= 10 s, <= 4 GB; N=2000 runs) --")
    for N, rho in [(1000, "1000"), (1000, "2000"), (1000, "3333")] + ([] if args.quick else [(2000, "2000")]):
        show(run("float", N, rho))
    print("\n-- exact (fmpq), symbolic (Q(rho)) and mp (arb level reduction, 30 digits checked at two precisions) --")
    show(run("exact", 20, "20"))
    show(run("exact", 20, "7/3"))
    show(run("exact", 30, "30"))
    show(run("symbolic", 4, "1"))
    show(run("mp", 50, "50"))
    show(run("mp", 100, "100"))
    return rows


if __name__ == "__main__":
    main()
