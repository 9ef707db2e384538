"""Unbounded queues as user models (issue 24, item 2): prints figures and ratios from one run.

Targets: the supermarket written as an unbounded user model (power-of-2, lambda = 0.9) gets its certified
mean queue length (dps = 30, truncation chosen and bounded) in <= 1 s, and the refined mean field with W on
its truncation at buffer 40 (the truncation rmftool uses) in <= 10 s. Baselines in the same process: the
shipped supermarket closed form (``Supermarket(2, 0.9).fixed_point(dps=30)``) for the first, and the refined
mean field of the shipped ``PowerOfD(2, 2)`` (a 2-state model) for the second. The machine load
(``os.getloadavg``) is printed with the figures.

Run:  python benchmarks/bench_unbounded.py
"""
import os
import statistics
import time

import sympy as sp

import symloss
from symloss import RHO, define_unbounded_model, verify_unbounded


def timed(fn, repeat=5):
    """(first call in s, median of the next ``repeat`` calls in s, last value)."""
    t0 = time.perf_counter()
    value = fn()
    first = time.perf_counter() - t0
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        ts.append(time.perf_counter() - t0)
    return first, statistics.median(ts), value


def main():
    print(f"load average (1, 5, 15 min): {os.getloadavg()}, cpus: {os.cpu_count()}")
    a, b, c = sp.symbols("a b c")

    t0 = time.perf_counter()
    jsq2 = define_unbounded_model("JSQ(2)", RHO * (a ** 2 - b ** 2), b - c, a=a, b=b, c=c)
    t_define = time.perf_counter() - t0
    first, med, v = timed(lambda: jsq2.certified_values("0.9", dps=30))
    t0 = time.perf_counter()
    verify_unbounded(v.certificate, jsq2)
    t_verify = time.perf_counter() - t0
    b_first, b_med, shipped = timed(lambda: symloss.Supermarket(2, "0.9").fixed_point(dps=30))
    print("\ncertified mean queue length, power-of-2, lambda = 0.9, dps = 30 (target <= 1 s)")
    print(f"  define_unbounded_model: {1e3 * t_define:.1f} ms (structural checks, SymPy)")
    print(f"  certified_values: first {1e3 * first:.2f} ms, then median {1e3 * med:.3f} ms; K = {v.K}, "
          f"bound {v.truncation_bound.str(3, radius=False)}")
    print(f"  L = {v.mean_queue_length.str(30, radius=False)}  ({v.status})")
    print(f"  verify_unbounded: {1e3 * t_verify:.2f} ms")
    print(f"  baseline Supermarket(2, 0.9).fixed_point(dps=30) (closed form): first {1e3 * b_first:.2f} ms, "
          f"median {1e3 * b_med:.3f} ms; L = {shipped.mean_queue_length}")
    print(f"  ratio certified_values / closed form (medians): {med / b_med:.2f}")

    for dps in (None, 30):
        t0 = time.perf_counter()
        model = jsq2.truncated(40, "mean_queue_length")
        t_trunc = time.perf_counter() - t0
        first, med, r = timed(lambda: symloss.refined_mean_field(model, rho=0.9, order=2, dps=dps), repeat=3)
        b_first, b_med, base = timed(lambda: symloss.refined_mean_field(symloss.PowerOfD(2, 2), rho=1.0, order=2,
                                                                         dps=dps), repeat=3)
        print(f"\nrefined mean field with W, buffer 40, mean queue length, dps = {dps} (target <= 10 s)")
        print(f"  truncated(40): {1e3 * t_trunc:.1f} ms")
        print(f"  refined_mean_field: first {first:.2f} s (derivation, tables, fixed point), then median "
              f"{med:.3f} s; V = {r.V:.12g}, W = {r.W:.10g}"
              + (f", V_mp = {r.V_mp}" if r.V_mp is not None else ""))
        print(f"  note: {r.note}")
        print(f"  baseline refined_mean_field(PowerOfD(2, 2), rho=1): first {b_first:.2f} s, median {b_med:.4f} s")
        print(f"  ratio (medians): {med / b_med:.1f}")


if __name__ == "__main__":
    main()
