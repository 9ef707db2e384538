"""Large-C user tail models (issue 23, item 2): power-of-d written with ``define_model`` against the shipped
accelerator ``PowerOfD(C, d)`` (shooting), in one process.

Target: ``fixed_point(rho, dps=30)`` of the user model certified (Krawczyk, generic solver: at C >= 41
or a doubly exponential state the scaled test of ``symloss.core.krawczyk_scaled`` from the coarse
banded shooting start, else the unscaled test) and equal to the accelerator's to 30 digits, for
C in {5, 20, 60, 100}, d in {2, 3}; <= 20 ms per call after the first (a new load, the same model) and
within 5x of the accelerator (issue 23). Printed per case: the first call (definition, compilation,
solve), the median of the calls at the other loads (each load once: no result is reused), the
accelerator's median per call on the same loads, their ratio (wall clock, and CPU time of the process:
the machine is shared), the worst relative disagreement, and the machine load (``uptime``) before and
after. ``--mixture`` also times the first call of the 60-level
mixture ``truncated(60).fixed_point`` of ``symloss.core.unbounded`` (G(x) = 3/10 x + 7/10 x^2).

Run:  python benchmarks/bench_user_large_c.py [--C 5,20,60,100] [--d 2,3] [--loads ...] [--hybrid] [--mixture]
"""
import argparse
import statistics
import subprocess
import time

import mpmath
import sympy as sp

import symloss
from symloss import RHO, define_model
from symloss.core.precision import PrecisionError
from symloss.core.unbounded import define_unbounded_model


def user_power(C, d):
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + u + (sp.Integer(0),)
    trs = []
    for k in range(1, C + 1):
        trs.append(({u[k - 1]: +1}, RHO * (U[k - 1] ** d - U[k] ** d)))
        trs.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"user power-of-{d} C={C}", u, trs, blocking=u[-1] ** d, state_kind="tail", C=C)


def hybrid(C, d, r):
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + u + (sp.Integer(0),)
    retry = sum((u[-1] ** d) ** j for j in range(r))
    trs = []
    for k in range(1, C + 1):
        trs.append(({u[k - 1]: +1}, RHO * retry * (U[k - 1] ** d - U[k] ** d)))
        trs.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"hybrid(d={d}, r={r})", u, trs, blocking=u[-1] ** (d * r), state_kind="tail", C=C)


def uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return "uptime not available"


#: CPU seconds of the last :func:`timed` call (process time: less sensitive than the wall clock to other
#: jobs on a shared machine; both are printed)
_CPU = [0.0]


def timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        out = fn()
    except PrecisionError as exc:
        out = exc
    _CPU[0] = time.process_time() - c0
    return out, time.perf_counter() - t0


def case(C, d, loads):
    rhos = [mpmath.mpf(x) for x in loads]
    shipped = symloss.PowerOfD(C, d)
    shipped.blocking(rhos[0], dps=30)                    # warm the accelerator (kernels, binding)
    acc, acc_t, acc_c = [], [], []
    for rho in rhos:
        b, t = timed(lambda: shipped.blocking(rho, dps=30))
        acc.append(b)
        acc_t.append(t)
        acc_c.append(_CPU[0])
    t0 = time.perf_counter()
    m = user_power(C, d)
    res, t_first_solve = timed(lambda: m.fixed_point(rhos[0], dps=30))
    t_first = time.perf_counter() - t0
    results, times, cpus = [res], [], []
    for rho in rhos[1:]:
        r, t = timed(lambda: m.fixed_point(rho, dps=30))
        results.append(r)
        times.append(t)
        cpus.append(_CPU[0])
    worst, kinds, failed = None, set(), 0
    with mpmath.workdps(60):
        for r, b in zip(results, acc):
            if isinstance(r, Exception):
                failed += 1
                continue
            kinds.add(r.extra["certificate"]["kind"])
            diff = abs(r.blocking / b - 1)
            worst = diff if worst is None else max(worst, diff)
    rep = statistics.median(times) if times else float("nan")
    rep_c = statistics.median(cpus) if cpus else float("nan")
    acc_med = statistics.median(acc_t[1:] if len(acc_t) > 1 else acc_t)   # the same loads as the user model's
    acc_cpu = statistics.median(acc_c[1:] if len(acc_c) > 1 else acc_c)
    print(f"C={C:4d} d={d}  first {t_first:7.2f} s (solve {t_first_solve * 1e3:8.1f} ms)  "
          f"per call after the first (median of {len(times)}) {rep * 1e3:8.1f} ms "
          f"(max {max(times, default=0) * 1e3:.1f}, "
          f"cpu {rep_c * 1e3:.1f})  accelerator {acc_med * 1e3:7.2f} ms (cpu {acc_cpu * 1e3:.2f})  "
          f"ratio {rep / acc_med:6.1f} (cpu {rep_c / acc_cpu:.1f})  "
          f"worst rel diff {'n/a' if worst is None else mpmath.nstr(worst, 3):>8s}  certificates {sorted(kinds)}  failed {failed}/{len(rhos)}")
    for r in results:
        if isinstance(r, Exception):
            print(f"    not certified: {str(r)[-160:]}")


def hybrid_case(C, loads):
    m = hybrid(C, 2, 2)
    t0 = time.perf_counter()
    out = []
    for x in loads:
        r, t = timed(lambda: m.fixed_point(mpmath.mpf(x), dps=30))
        out.append((x, r, t))
    print(f"hybrid(C={C}, 2, 2): total {time.perf_counter() - t0:.2f} s")
    for x, r, t in out:
        what = (f"{mpmath.nstr(r.blocking, 12)} [{r.extra['certificate']['kind']}]" if not isinstance(r, Exception)
                else f"not certified ({str(r)[-100:]})")
        print(f"    rho={x:>4s}  {t * 1e3:8.1f} ms  {what}")


def mixture_case(K, rho="0.95"):
    a, b, c = sp.symbols("a b c")
    p = sp.Rational(3, 10)
    G = lambda x: p * x + (1 - p) * x ** 2            # noqa: E731
    m = define_unbounded_model("mixture", RHO * (G(a) - G(b)), b - c, a=a, b=b, c=c)
    t0 = time.perf_counter()
    fp = m.truncated(K, measure="mean_queue_length").fixed_point(float(rho), dps=20)
    t = time.perf_counter() - t0
    ref = m.certified_values(rho, dps=30).mean_queue_length
    print(f"mixture truncated({K}).fixed_point({rho}): first call {t:.2f} s  [{fp.extra['certificate']['kind']}]  "
          f"mean queue length {mpmath.nstr(fp.blocking, 15)} (unbounded, certified: {ref.mid().str(15, radius=False)})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--C", default="5,20,60,100")
    ap.add_argument("--d", default="2,3")
    ap.add_argument("--loads", default="0.5,0.6,0.7,0.8,0.9,1.5,2,5,50")
    ap.add_argument("--hybrid", action="store_true", help="also the docs' hybrid(C, 2, 2)")
    ap.add_argument("--mixture", action="store_true", help="also the 60-level mixture of symloss.core.unbounded")
    a = ap.parse_args()
    loads = a.loads.split(",")
    print("load before:", uptime())
    for C in (int(c) for c in a.C.split(",")):
        for d in (int(x) for x in a.d.split(",")):
            case(C, d, loads)
        if a.hybrid:
            hybrid_case(C, loads)
    if a.mixture:
        mixture_case(60)
    print("load after: ", uptime())


if __name__ == "__main__":
    main()
