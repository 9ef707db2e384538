"""``erlang_b(10**4, 9000, dps=50)`` now against commit 07ea108, measured in the same run.

Issue 21 target: no slower than at 07ea108 (0.27 ms there; 0.57 ms before the fix, the difference
being ``_magnitude_bits``, which had moved to mpmath for every input).

The baseline tree is extracted with ``git archive 07ea108`` (read-only for the repository) into a
temporary directory; each version runs in its own subprocess (``PYTHONPATH`` = its tree, the first
line printed names the ``symloss`` imported), alternately, ``--rounds`` times; each subprocess reports
the best of ``--repeat`` batches of ``--number`` calls in process CPU time and in wall time; the
figure per version is the best over its rounds.

Run:  python benchmarks/bench_erlang_dps50.py [--rev 07ea108] [--also HEAD] [--rounds 5]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[1]

SNIPPET = r"""
import json, time, sys
import symloss
from symloss import erlang_b
C, a, dps, number, repeat = {C}, {a}, {dps}, {number}, {repeat}
v = erlang_b(C, a, dps=dps)                        # warm-up
cpu = wall = float("inf")
for _ in range(repeat):
    c0, w0 = time.process_time(), time.perf_counter()
    for _ in range(number):
        erlang_b(C, a, dps=dps)
    w1, c1 = time.perf_counter(), time.process_time()
    cpu, wall = min(cpu, (c1 - c0) / number), min(wall, (w1 - w0) / number)
print(json.dumps({{"file": symloss.__file__, "cpu": cpu, "wall": wall, "value": str(v)}}))
"""


def run(tree, C, a, dps, number, repeat):
    env = dict(os.environ, PYTHONPATH=str(tree))
    code = SNIPPET.format(C=C, a=a, dps=dps, number=number, repeat=repeat)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                         cwd=tempfile.gettempdir())
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="07ea108", help="baseline revision (git archive); the ratio is against it")
    ap.add_argument("--also", default="", help="more revisions to show, comma-separated (e.g. HEAD)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--number", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--C", default="10**4")
    ap.add_argument("--a", default="9000")
    ap.add_argument("--dps", type=int, default=50)
    args = ap.parse_args(argv)
    revs = [args.rev] + [r for r in args.also.split(",") if r]
    with tempfile.TemporaryDirectory(prefix="symloss_base_") as tmp:
        trees = {"now (working tree)": REPO}
        for rev in revs:
            tree = pathlib.Path(tmp) / rev.replace("/", "_")
            tree.mkdir()
            archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
            trees[rev] = tree
        best = {}
        for _ in range(args.rounds):                  # alternate the versions, round after round
            for name, tree in trees.items():
                r = run(tree, args.C, args.a, args.dps, args.number, args.repeat)
                if name not in best:
                    best[name] = r
                else:
                    best[name]["cpu"] = min(best[name]["cpu"], r["cpu"])
                    best[name]["wall"] = min(best[name]["wall"], r["wall"])
    base = best[args.rev]
    print(f"erlang_b({args.C}, {args.a}, dps={args.dps}): best of {args.rounds} rounds x {args.repeat} batches "
          f"x {args.number} calls, each version in its own subprocess")
    for name, r in best.items():
        print(f"  {name:>20}: CPU {r['cpu'] * 1e3:.4f} ms (ratio to {args.rev} {r['cpu'] / base['cpu']:.3f})   "
              f"wall {r['wall'] * 1e3:.4f} ms (ratio {r['wall'] / base['wall']:.3f})   from {r['file']}")
    now = best["now (working tree)"]
    print(f"now / {args.rev} (CPU time): {now['cpu'] / base['cpu']:.3f} (target <= 1); same value in every "
          f"version: {len({r['value'] for r in best.values()}) == 1} ({now['value'][:40]})")


if __name__ == "__main__":
    main()
