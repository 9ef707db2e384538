"""Non-smooth user models (issue 24): JSQ and join-the-idle-queue written with ``define_model``
(Heaviside / Piecewise rates, ``tests/meanfield/nonsmooth_models.py``), certified by the piecewise solver
of ``symloss.core.piecewise``, against the shipped closed form ``JSQ(C)`` (the accelerator, verified on its
own definition) in one process.

Target (issue 24): a non-smooth fixed point (JSQ as a user model, C <= 100) in <= 20 ms per call after the
first. Printed per case: the first call (definition, compilation, search, proof), the median and the
largest wall time of the calls at the other loads (each load once: the search's memo holds only results
for the same arguments, so no result is reused), the CPU median, for JSQ the shipped closed form per call
on the same loads and the ratio, and whether every answer equals the closed form exactly (JSQ) / every
certificate re-checks. The machine load (``uptime``) is printed before and after.

Run:  python benchmarks/bench_nonsmooth.py [--C 5,20,100] [--models jsq,jiq]
"""
import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "meanfield"))
from nonsmooth_models import user_jiq, user_jsq  # noqa: E402

import symloss  # noqa: E402
from symloss.core.piecewise import verify_piecewise_certificate  # noqa: E402


def uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return "uptime not available"


def timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def loads_for(C):
    # between and on the loads where JSQ's face changes (rho = k), and beyond rho = C
    return [0.5 * C + 0.25, 0.3 * C + 0.1, 0.7 * C + 0.3, float(C // 2), 1.3 * C + 0.2, 2.1 * C]


def case(name, C):
    build = {"jsq": user_jsq, "jiq": user_jiq}[name]
    rhos = loads_for(C)
    t0 = time.perf_counter()
    m = build(C)
    first, _t, _c = timed(lambda: m.fixed_point(rhos[0], dps=30))
    t_first = time.perf_counter() - t0
    res, walls, cpus = [first], [], []
    for rho in rhos[1:]:
        r, t, c = timed(lambda: m.fixed_point(rho, dps=30))
        res.append(r)
        walls.append(t)
        cpus.append(c)
    rechecked = all(verify_piecewise_certificate(m, r.extra["certificate"])[0] for r in res)
    line = (f"{name:3s} C={C:4d}  first {t_first:6.2f} s  per call after the first: median "
            f"{statistics.median(walls) * 1e3:8.1f} ms (max {max(walls) * 1e3:8.1f}, cpu "
            f"{statistics.median(cpus) * 1e3:8.1f})  re-checked {rechecked}")
    if name == "jsq":
        shipped = symloss.JSQ(C)
        shipped.fixed_point(rhos[0], dps=30)
        acc = [timed(lambda: shipped.fixed_point(rho, dps=30)) for rho in rhos[1:]]
        same = all(r.x == a[0].x for r, a in zip(res[1:], acc))
        acc_med = statistics.median(a[1] for a in acc)
        line += (f"  shipped JSQ {acc_med * 1e3:7.2f} ms  ratio {statistics.median(walls) / acc_med:7.1f}  "
                 f"equal to the closed form {same}")
    print(line, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--C", default="5,20,100")
    ap.add_argument("--models", default="jsq,jiq")
    a = ap.parse_args()
    print("load before:", uptime())
    for name in a.models.split(","):
        for C in (int(c) for c in a.C.split(",")):
            case(name, C)
    print("load after: ", uptime())


if __name__ == "__main__":
    main()
