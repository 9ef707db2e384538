"""Erlang-B benchmark: prints figures and ratios against baselines run in the same process.

Targets (Foundation issue): erlang_b(10**6, 9*10**5, dps=50) and erlang_b(10**6, 10**6, dps=50) median
<= 5 ms each and >= 100x faster than the plain mpmath recursion at C = 10^4; erlang_b_float over 10^6 random
pairs (C <= 1000) <= 1 s; erlang_b_capacity(10**6, 1e-3) <= 50 ms.

Run:  python benchmarks/bench_erlang.py
"""
import statistics
import time

import numpy as np

from symloss import erlang_b, erlang_b_capacity, erlang_b_float
from symloss.erlang import erlang_b_recursion


def median_time(fn, repeat=21):
    fn()  # warm-up (numba compile / caches)
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    rows = []
    for C, a in [(10**6, 9 * 10**5), (10**6, 10**6), (10**4, 10**4)]:
        t = median_time(lambda: erlang_b(C, a, dps=50))
        rows.append((f"erlang_b({C}, {a}, dps=50)", t))
        print(f"erlang_b(C={C:>8}, a={a:>8}, dps=50): median {t * 1e3:8.3f} ms")
    t_rec = median_time(lambda: erlang_b_recursion(10**4, 10**4, dps=50), repeat=5)
    t_fast = rows[2][1]
    print(f"plain mpmath recursion C=10^4, a=10^4, dps=50: median {t_rec * 1e3:8.2f} ms;"
          f" erlang_b is {t_rec / t_fast:7.1f}x faster (target >= 100x)")

    rng = np.random.default_rng(12345)
    C = rng.integers(0, 1001, 10**6).astype(float)
    a = rng.uniform(1e-3, 3000.0, 10**6)
    erlang_b_float(C[:10], a[:10])
    t0 = time.perf_counter()
    v = erlang_b_float(C, a)
    t_vec = time.perf_counter() - t0
    print(f"erlang_b_float over 10^6 random pairs (C <= 1000, a in [1e-3, 3000]): {t_vec:.3f} s "
          f"(target <= 1 s); all in [0, 1]: {bool(((v >= 0) & (v <= 1)).all())}")
    # float baseline in the same run: a numpy-vectorised recursion over the first 10^5 pairs, scaled x10
    k = 10**5
    t0 = time.perf_counter()
    Ci = C[:k].astype(np.int64)
    e = np.ones(k)
    for n in range(1, 1001):
        e = np.where(Ci >= n, a[:k] * e / (n + a[:k] * e), e)
    t_np = (time.perf_counter() - t0) * 10
    print(f"baseline numpy-vectorised recursion (10^5 pairs, time x10): {t_np:.3f} s (ratio {t_np / t_vec:.1f}x);"
          f" max rel. difference {np.max(np.abs(e - v[:k]) / np.maximum(e, 1e-300)):.2e}")

    # scalar calls (issue 17: the input layer must not cost what it protects; target <= 2 us at C <= 1000)
    # against a plain Python float recursion in the same run
    import timeit

    def plain(C, a):
        e = 1.0
        for n in range(1, C + 1):
            e = a * e / (n + a * e)
        return e
    for Cs, As in ((10, 7.5), (100, 80.0), (1000, 950.0)):
        n = 20000
        erlang_b_float(Cs, As)
        t_s = min(timeit.repeat(lambda: erlang_b_float(Cs, As), number=n, repeat=5)) / n
        t_p = min(timeit.repeat(lambda: plain(Cs, As), number=max(1, n // Cs), repeat=5)) / max(1, n // Cs)
        print(f"scalar erlang_b_float({Cs}, {As}): {t_s * 1e6:6.2f} us (target <= 2 us); plain float recursion "
              f"{t_p * 1e6:8.2f} us (ratio {t_p / t_s:6.1f}x); rel. difference "
              f"{abs(erlang_b_float(Cs, As) / plain(Cs, As) - 1):.1e}")

    t = median_time(lambda: erlang_b_capacity(10**6, 1e-3), repeat=11)
    print(f"erlang_b_capacity(10**6, 1e-3) = {erlang_b_capacity(10**6, 1e-3)}: median {t * 1e3:.2f} ms (target <= 50 ms)")


if __name__ == "__main__":
    main()
