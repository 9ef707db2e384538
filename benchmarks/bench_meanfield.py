"""Mean-field benchmark (seed 000): prints figures and ratios from one run.

Targets (issue 3): blocking(..., dps=50) median retrial-of-d <= 2 ms and power-of-d <= 20 ms for C <= 100;
C = 1000 must work; threshold_load(C, d, dt, dps=30) <= 2 s for C <= 20. Side by side: the fixed point found
by integrating the ODE "until it looks stationary" (what generic mean-field tools do), with the speed ratio
and both residuals.

Targets (issue 12, models as data): the generic certified fixed point of a user model with <= 20 states
<= 50 ms at dps = 30 after the first call, first call (symbolic build + lambdify) <= 2 s; the shipped models
through their accelerators (now verified against the definition) no slower than the previous implementation
(the code of commit fca04e3, loaded from git into this process, is the baseline: ratios printed); no cliffs:
worst PowerOfD(C, d).blocking(rho, dps=30) over rho in [0.01 C, 10 C], C in {2, 5, 10, 30, 100, 1000},
d in {2, 3}: <= 20 ms for C <= 100, <= 0.5 s at C = 1000.

Targets (issue 17, large C): PowerOfD(10^4, 2).blocking(12000) first call (derivation + solve) well under a
minute (was minutes); threshold_load(1000, 2, 3, dps=15) and crossing_loads(1000, 2, 3) under 10 s each (were
minutes; the scan's evaluation count is printed against the previous refinement test, re-run here with
--slow-baseline); the nullspace of the 2 10^5 jumps of C = 10^5 in seconds.

Run:  python benchmarks/bench_meanfield.py [--quick] [--slow-baseline] [--large-only]
(--slow-baseline also times the previous implementation on the cliff cases, e.g. 41 s at C = 1000.)
"""
import subprocess
import sys
import types
import statistics
import time
from pathlib import Path

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


BASELINE_COMMIT = "fca04e3"


def load_baseline():
    """The previous implementation of the shipped models (symloss/meanfield/models.py at BASELINE_COMMIT),
    imported from git into a private module, or None when git or the commit is not available."""
    root = Path(__file__).resolve().parents[1]
    try:
        src = subprocess.run(["git", "show", f"{BASELINE_COMMIT}:symloss/meanfield/models.py"], cwd=root,
                             capture_output=True, text=True, check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    src = (src.replace("from ..core.", "from symloss.core.").replace("from ..erlang.", "from symloss.erlang.")
           .replace("from .series import", "from symloss.meanfield.series import"))
    mod = types.ModuleType("baseline_meanfield_models")
    sys.modules[mod.__name__] = mod
    exec(compile(src, f"{BASELINE_COMMIT}:symloss/meanfield/models.py", "exec"), mod.__dict__)
    return mod


def hybrid(C, d, r):
    """The user model of notebooks/define_your_own_policy.ipynb (hybrid of power-of-d and retrial)."""
    import sympy as sp
    from symloss import RHO, define_model
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + u + (sp.Integer(0),)
    retry = sum((u[-1] ** d) ** j for j in range(r))
    trs = []
    for k in range(1, C + 1):
        trs.append(({u[k - 1]: 1}, RHO * retry * (U[k - 1] ** d - U[k] ** d)))
        trs.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"hybrid(d={d}, r={r})", u, trs, blocking=u[-1] ** (d * r), state_kind="tail", C=C)


def section_models_as_data(quick: bool, slow_baseline: bool):
    from symloss.core.certify import certified_fixed_point
    print("generic certified fixed point of user models (dps = 30): first call, then median of 7")
    worst = 0.0
    for C, d, r, rho in [(3, 2, 2, 1.0), (5, 2, 2, 0.5), (10, 3, 2, 8.0), (20, 2, 3, 5.0), (20, 2, 2, 40.0)]:
        t0 = time.perf_counter()
        m = hybrid(C, d, r)
        b = m.blocking(rho, dps=30)
        first = time.perf_counter() - t0
        t = median_ms(lambda: m.blocking(rho, dps=30))
        worst = max(worst, t)
        print(f"  hybrid(C={C}, d={d}, r={r}) rho={rho:<5} states={C:<3} B={mpmath.nstr(b, 10):>18}  "
              f"first {first:6.2f} s (target <= 2)   repeated {t:7.2f} ms (target <= 50)")
    for M, C, d, rho in [(RetrialOfD, 20, 3, 10.0), (PowerOfD, 20, 2, 10.0)]:
        m = M(C, d)
        t = median_ms(lambda: certified_fixed_point(m, rho, 30, residual=False))
        worst = max(worst, t)
        print(f"  {m!r} through the generic solver, rho={rho}: {t:7.2f} ms")
    print(f"  worst repeated: {worst:.2f} ms (target <= 50)")

    print("\nshipped models: accelerator + verification on the definition vs the previous implementation "
          f"({BASELINE_COMMIT})")
    base = load_baseline()
    cases = [(RetrialOfD, 2, 2, 1.0), (RetrialOfD, 20, 3, 10.0), (RetrialOfD, 100, 2, 80.0),
             (PowerOfD, 2, 2, 1.0), (PowerOfD, 5, 3, 0.5), (PowerOfD, 20, 2, 10.0), (PowerOfD, 100, 3, 50.0)]
    for M, C, d, rho in cases:
        m = M(C, d)
        t_new = median_ms(lambda: m.blocking(rho, dps=30))
        if base is not None:
            bm = getattr(base, M.__name__)(C, d)
            t_old = median_ms(lambda: bm._fixed_point(rho, 30, residual=False))
            b_old = bm._fixed_point(rho, 30, residual=False).blocking
            with mpmath.workdps(40):
                agree = abs(m.blocking(rho, dps=30) / b_old - 1) < mpmath.mpf(10) ** -28
            print(f"  {m!r:24} rho={rho:<5} now {t_new:7.2f} ms, previous {t_old:7.2f} ms, ratio previous/now "
                  f"{t_old / t_new:5.2f}, same 30 digits: {agree}")
        else:
            print(f"  {m!r:24} rho={rho:<5} now {t_new:7.2f} ms (no git baseline available)")

    print("\nno cliffs: worst PowerOfD(C, d).blocking(rho, dps=30) over rho in [0.01 C, 10 C] (9 loads)")
    Cs = [2, 5, 10, 30, 100] + ([] if quick else [1000])
    for C in Cs:
        for d in (2, 3):
            m = PowerOfD(C, d)
            t0 = time.perf_counter()
            m.blocking(C, dps=30)
            first = time.perf_counter() - t0
            times = []
            for k in range(9):
                rho = C * 10 ** (-2 + 3 * k / 8)
                t0 = time.perf_counter()
                m.blocking(rho, dps=30)
                times.append((time.perf_counter() - t0, rho))
            t, at = max(times)
            target = 0.02 if C <= 100 else 0.5
            print(f"  C={C:<5} d={d}: worst {t * 1e3:9.2f} ms at rho={at:.4g}  (target <= {target * 1e3:.0f} ms; "
                  f"first call incl. symbolic build {first:.2f} s)")
    if slow_baseline and base is not None:
        for C, d, rho in [(100, 2, 95.0), (1000, 2, 500.0)]:
            bm = base.PowerOfD(C, d)
            bm._fixed_point(C / 2, 30, residual=False)
            t0 = time.perf_counter()
            bm._fixed_point(rho, 30, residual=False)
            t_old = time.perf_counter() - t0
            m = PowerOfD(C, d)
            t0 = time.perf_counter()
            m.blocking(rho, dps=30)
            t_new = time.perf_counter() - t0
            print(f"  cliff PowerOfD({C}, {d}) rho={rho}: previous {t_old:.2f} s, now {t_new:.3f} s, "
                  f"ratio {t_old / t_new:.0f}x")


def _previous_scan_count(a, b, rho_min, rho_max):
    """Evaluations of the scan with the refinement test on D itself (the code before issue 17's fix)."""
    import math
    from symloss.meanfield.compare import _float_logdiff
    lo_l, hi_l = math.log(rho_min), math.log(rho_max)
    n0 = max(16, int(64 * (hi_l - lo_l) / math.log(10)))
    grid = [lo_l + (hi_l - lo_l) * i / n0 for i in range(n0 + 1)]
    vals = {}

    def D(l):
        if l not in vals:
            vals[l] = _float_logdiff(a, b, math.exp(l))
        return vals[l]
    for l in grid:
        D(l)
    cells = list(zip(grid[:-1], grid[1:]))
    while cells:
        x0, x1 = cells.pop()
        D0, D1 = D(x0), D(x1)
        if D0 == 0 or D1 == 0 or (D0 < 0) != (D1 < 0):
            continue
        slope = abs(D1 - D0) / (x1 - x0)
        i_prev, i_next = x0 - (x1 - x0), x1 + (x1 - x0)
        neigh = [abs(D(i_next) - D1) / (x1 - x0) if i_next <= hi_l else 0.0,
                 abs(D0 - D(i_prev)) / (x1 - x0) if i_prev >= lo_l else 0.0]
        L = 4 * max([slope] + neigh)
        if min(abs(D0), abs(D1)) <= 2 * L * (x1 - x0) and x1 - x0 > 1e-8:
            m = (x0 + x1) / 2
            cells += [(x0, m), (m, x1)]
    return len(vals)


def section_large_C(slow_baseline: bool):
    import random
    from symloss import crossing_loads
    from symloss.core.model import _sparse_nullspace
    from symloss.meanfield import compare
    print("\nlarge C (issue 17): first calls, including the derivation of the definition")
    for C, d, rho, dps in [(10000, 2, 12000, 30), (10000, 64, 12000, 30)]:
        t0 = time.perf_counter()
        b = PowerOfD(C, d).blocking(rho, dps=dps)
        print(f"  PowerOfD({C}, {d}).blocking({rho}, dps={dps}) = {mpmath.nstr(b, 15)}  {time.perf_counter() - t0:6.1f} s "
              f"(was minutes)")
    a, b = RetrialOfD(1000, 3), PowerOfD(1000, 2)
    t0 = time.perf_counter()
    th = threshold_load(1000, 2, 3, dps=15)
    t_th = time.perf_counter() - t0
    t0 = time.perf_counter()
    cr = crossing_loads(1000, 2, 3, dps=15)
    t_cr = time.perf_counter() - t0
    print(f"  threshold_load(1000, 2, 3, dps=15) = {mpmath.nstr(th, 15)}  {t_th:6.1f} s; crossing_loads: "
          f"{len(cr.crossings)} crossing, {t_cr:6.1f} s (targets <= 10 s)")
    cells, n_new, _ = compare._scan(a, b, 0.01, 50000)
    if slow_baseline:
        t0 = time.perf_counter()
        n_old = _previous_scan_count(a, b, 0.01, 50000)
        print(f"  scan evaluations: now {n_new}, previous refinement test {n_old} ({time.perf_counter() - t0:.1f} s), "
              f"ratio {n_old / n_new:.1f}x")
    else:
        print(f"  scan evaluations: now {n_new} (previous: 21 910; --slow-baseline re-runs it)")
    n = 100_001
    rows = [((k, -1), (k + 1, 1)) for k in range(n - 1)] + [((k, 1), (k + 1, -1)) for k in range(n - 1)]
    random.Random(1).shuffle(rows)
    t0 = time.perf_counter()
    basis = _sparse_nullspace(rows, n)
    print(f"  nullspace of the 2e5 chain jumps of C = 1e5: {len(basis)} form in {time.perf_counter() - t0:.2f} s "
          f"(was quadratic: 30 s at 3e4)")


def main():
    quick = "--quick" in sys.argv
    if "--large-only" in sys.argv:
        section_large_C("--slow-baseline" in sys.argv)
        return
    section_models_as_data(quick, "--slow-baseline" in sys.argv)
    if quick:
        return
    print("\nblocking(rho, dps=50), median over 7 runs")
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
    section_large_C("--slow-baseline" in sys.argv)


if __name__ == "__main__":
    main()
