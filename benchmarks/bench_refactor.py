"""Issue 22 constraint: the refactor changes no behaviour and no speed. Times representative calls of
every family in this tree and in a baseline commit (``git archive``), each in fresh processes run
alternately (so drift of the machine's load hits both), and prints the medians and their ratios.

    python benchmarks/bench_refactor.py [--base REV] [--rounds N]

Each case is timed after one warm-up call in the same process (caches of the *call* are cleared where
the API allows it, so the number is the cost of a solve, not of a cache hit); the result is the median
of 5 timed calls; ``--rounds`` processes per tree, alternating. The values are compared too: the two
trees must print the same digits.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CASES = {
    "erlang_b(1000, 950, dps=50)": "lambda: symloss.erlang_b(1000, 950, dps=50)",
    "PowerOfD(20, 2).blocking(15)": "lambda: symloss.PowerOfD(20, 2).blocking(15)",
    "RetrialOfD(20, 3).blocking(15)": "lambda: symloss.RetrialOfD(20, 3).blocking(15)",
    "user hybrid(3,2,2).blocking(2)": "lambda: hybrid(3, 2, 2).blocking(2)",
    "certified_threshold(3, 2, 3)": "lambda: symloss.certified_threshold(3, 2, 3, dps=20).threshold",
    "exact_finite_n(PowerOfD(2,2), N=10)": "lambda: symloss.exact_finite_n(symloss.PowerOfD(2, 2), 10, rho=1.5).blocking",
    "TwoQueueJSQ(30, 25).stationary_distribution()":
        "lambda: symloss.TwoQueueJSQ(30, 25).stationary_distribution().blocking",
    "Supermarket(2, 0.9).mean_queue_length()": "lambda: symloss.Supermarket(2, 0.9).mean_queue_length()",
    "OverloadedLossNetwork(20,..).trunk_reservation(2)":
        "lambda: symloss.OverloadedLossNetwork(20, 0.6, 0.8, 2, 1).trunk_reservation(2).p_full",
}

CHILD = r'''
import json, statistics, sys, time
import sympy as sp
import symloss
from symloss import RHO, define_model

def hybrid(C, d, r):
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + u + (sp.Integer(0),)
    retry = sum((u[-1] ** d) ** j for j in range(r))
    tr = []
    for k in range(1, C + 1):
        tr.append(({u[k - 1]: +1}, RHO * retry * (U[k - 1] ** d - U[k] ** d)))
        tr.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"hybrid(d={d}, r={r})", u, tr, blocking=u[-1] ** (d * r), state_kind="tail", C=C)

cases = json.loads(sys.argv[1])
out = {}
for name, src in cases.items():
    f = eval(src)
    try:
        v = f()
    except Exception as exc:
        out[name] = {"error": f"{type(exc).__name__}: {exc}"}
        continue
    ts = []
    for _ in range(5):
        t0 = time.perf_counter(); v = f(); ts.append(time.perf_counter() - t0)
    out[name] = {"median": statistics.median(ts), "value": str(v)[:40]}
print(json.dumps(out))
'''


def run(tree: Path, cases: dict) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    r = subprocess.run([sys.executable, "-c", CHILD, json.dumps(cases)], cwd=tempfile.gettempdir(), env=env,
                       capture_output=True, text=True, timeout=1800)
    if r.returncode:
        raise RuntimeError(r.stderr[-2000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="9e047cb", help="baseline commit (default: the tree before issue 22)")
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        data = subprocess.run(["git", "-C", str(ROOT), "archive", args.base, "symloss", "proofs_check"],
                              capture_output=True, check=True).stdout
        tar = Path(tmp) / "base.tar"
        tar.write_bytes(data)
        with tarfile.open(tar) as t:
            t.extractall(base, filter="data")
        res = {"now": [], "base": []}
        for _ in range(args.rounds):
            res["now"].append(run(ROOT, CASES))
            res["base"].append(run(base, CASES))
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (2 cores); base = {args.base}, {args.rounds} "
          f"processes per tree, alternating")
    print(f"{'case':42s} {'now ms':>10s} {'base ms':>10s} {'now/base':>9s}  same value")
    for name in CASES:
        now = [r[name] for r in res["now"]]
        old = [r[name] for r in res["base"]]
        if any("error" in r for r in now + old):
            print(f"{name:42s} error: {[r.get('error') for r in now + old if 'error' in r][0]}")
            continue
        a = statistics.median(r["median"] for r in now) * 1e3
        b = statistics.median(r["median"] for r in old) * 1e3
        same = now[0]["value"] == old[0]["value"]
        print(f"{name:42s} {a:10.3f} {b:10.3f} {a / b:9.2f}  {same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
