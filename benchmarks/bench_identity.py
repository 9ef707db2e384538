"""Keying caches on the definition must not make repeated calls slower (issue 21).

The caches of symloss are keyed on the derived definition (``DefinitionKey``: checked transitions,
blocking, invariants, parameters substituted) instead of ``(class, C, d, definition functions)``. This
script times the same calls with the current tree and with a baseline tree (default: commit 14c175a,
extracted with ``git archive`` into a temporary folder), each in its own fresh interpreter, alternating
baseline / current three times, and prints the medians and the ratio current / baseline:

* repeated calls on one instance (``m.blocking(rho)`` again and again);
* repeated calls on fresh instances (``PowerOfD(C, d).blocking(rho)`` in a loop: the state memo maps the
  instance state to its definition without deriving it again);
* ``exact_finite_n`` on one instance (the chain cache).

Run:  python benchmarks/bench_identity.py [--base COMMIT]
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CASES = r'''
import json, time, warnings, statistics
warnings.simplefilter("ignore")
import symloss
from symloss import PowerOfD, RetrialOfD, exact_finite_n

def med(fn, n):
    """Best of 5 batches of n calls, per call in ms (the minimum is the least noisy estimator of the
    cost on a shared machine; single-call medians moved by 30 % between runs)."""
    fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e3

out = {}
for cls, C in ((PowerOfD, 2), (PowerOfD, 10), (PowerOfD, 100), (RetrialOfD, 10), (RetrialOfD, 100)):
    m = cls(C, 2)
    rho = 0.9 * C
    out[f"same instance {cls.__name__}({C}, 2).blocking"] = med(lambda: m.blocking(rho), 30)
    out[f"fresh instance {cls.__name__}({C}, 2).blocking"] = med(lambda: cls(C, 2).blocking(rho), 30)
m = PowerOfD(2, 2)
out["same instance exact_finite_n(PowerOfD(2, 2), 8, 1.0)"] = med(lambda: exact_finite_n(m, 8, 1.0), 20)
print(json.dumps(out))
'''


def run(tree):
    env = {"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"}
    import os
    env = dict(os.environ, PYTHONPATH=str(tree))
    r = subprocess.run([sys.executable, "-c", CASES], capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
    if r.returncode:
        raise SystemExit(r.stderr)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", default="14c175a")
    args = ap.parse_args()
    here = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        arch = subprocess.run(["git", "-C", str(here), "archive", args.base], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=arch, check=True)
        runs = {"base": [], "now": []}
        for _ in range(3):
            runs["base"].append(run(base))
            runs["now"].append(run(here))
    print(f"repeated calls: current tree vs {args.base} (ms per call: best of 5 batches, median over 3 fresh interpreters)")
    print(f"{'case':58s} {'base ms':>9s} {'now ms':>9s} {'now/base':>9s}")
    for case in runs["now"][0]:
        b = statistics.median(r[case] for r in runs["base"])
        n = statistics.median(r[case] for r in runs["now"])
        print(f"{case:58s} {b:9.3f} {n:9.3f} {n / b:9.2f}")


if __name__ == "__main__":
    main()
