"""Mean-field benchmark (seed 000): prints figures and ratios from one run.

Targets (issue 3): blocking(..., dps=50) median retrial-of-d <= 2 ms and power-of-d <= 20 ms for C <= 100;
C = 1000 must work; threshold_load(C, d, dt, dps=30) <= 2 s for C <= 20. Side by side: the fixed point found
by integrating the ODE "until it looks stationary" (what generic mean-field tools do), with the speed ratio
and both residuals.

Run:  python benchmarks/bench_meanfield.py
"""
import statistics
import time

import mpmath
import numpy as np

from symloss import PowerOfD, RetrialOfD, threshold_load


def median_ms(fn, repeat=7):
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(ts)


def ode_until_stationary(model, rho, tol=1e-10, t_max=1e5):
    """Generic approach: integrate from the empty state, doubling the horizon until the state stops moving."""
    n = len(model.variables)
    x = np.zeros(n)
    if model.name != "power":
        x[0] = 1.0
    T = 1.0
    while T < t_max:
        sol = model.ode(rho, x, [0.0, T])
        x_new = sol.x[-1]
        if np.max(np.abs(x_new - x)) < tol:
            return x_new, float(sol.blocking[-1]), T
        x, T = x_new, 2 * T
    return x, float(sol.blocking[-1]), T


def main():
    print("blocking(rho, dps=50), median over 7 runs")
    cases = [(2, 2, 1), (5, 3, 0.5), (20, 2, 10), (20, 4, 18), (50, 2, 45), (100, 2, 80), (100, 3, 50), (100, 2, 150)]
    worst = {"retrial": 0.0, "power": 0.0}
    for C, d, rho in cases:
        for M in (RetrialOfD, PowerOfD):
            m = M(C, d)
            t = median_ms(lambda: m.blocking(rho, dps=50))
            worst[m.name] = max(worst[m.name], t)
            b = m.blocking(rho, dps=50)
            print(f"  {m!r:24} rho={rho:<5} B={mpmath.nstr(b, 12):>24}  {t:8.2f} ms")
    print(f"  worst: retrial {worst['retrial']:.2f} ms (target <= 2), power {worst['power']:.2f} ms (target <= 20)")
    for M in (RetrialOfD, PowerOfD):
        t0 = time.perf_counter()
        b = M(1000, 2).blocking(900, dps=30)
        print(f"  {M.__name__}(1000, 2) at rho=900: B={mpmath.nstr(b, 10)} in {time.perf_counter() - t0:.2f} s")

    print("\nthreshold_load(C, d, dt, dps=30)")
    for C, d, dt in [(2, 2, 3), (3, 2, 3), (5, 2, 3), (10, 3, 4), (20, 2, 3)]:
        t0 = time.perf_counter()
        th = threshold_load(C, d, dt, dps=30)
        print(f"  C={C:<3} d={d} dt={dt}: {mpmath.nstr(th, 20):>24}  {time.perf_counter() - t0:7.2f} s (target <= 2 s)")

    print("\nfixed point: certified solver vs ODE integrated until it looks stationary (float64)")
    for C, d, rho in [(5, 2, 3), (20, 2, 15), (30, 3, 25)]:
        m = PowerOfD(C, d)
        t0 = time.perf_counter()
        fp = m.fixed_point(rho, dps=30)
        t_cert = time.perf_counter() - t0
        t0 = time.perf_counter()
        x, b_ode, T = ode_until_stationary(m, rho)
        t_ode = time.perf_counter() - t0
        with mpmath.workdps(40):
            res_ode = m.drift_residual([mpmath.mpf(v) for v in x], mpmath.mpf(rho))
            rel = abs(mpmath.mpf(b_ode) - fp.blocking) / fp.blocking if fp.blocking else mpmath.inf
        print(f"  PowerOfD({C},{d}) rho={rho}: certified {t_cert * 1e3:8.1f} ms, residual {mpmath.nstr(fp.residual, 3)};"
              f" ODE to T={T:g}: {t_ode * 1e3:8.1f} ms, residual {mpmath.nstr(res_ode, 3)},"
              f" blocking rel. error {mpmath.nstr(rel, 3)}; speed ratio {t_ode / t_cert:.1f}x")


if __name__ == "__main__":
    main()
