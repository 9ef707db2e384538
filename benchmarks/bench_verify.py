"""Time ``symloss verify`` (every claim) and ``symloss verify --recheck``, per claim family.

Run:  python benchmarks/bench_verify.py [--workers N] [--quick] [--skip-serial]

Prints, with the machine load (``uptime``) before and after:

1. the serial in-process run (``proofs_check.core.run_claims``): wall and CPU time per claim family
   (``seed000.eventually``, ``seed000.same_d``, ...) and in total; the baseline of the ratios below;
2. the re-check of the serial run's certificates (``recheck_records``, no search), per family, after
   clearing every cache that a re-check must recompute (bindings, lemmas, model polynomials);
3. ``symloss verify --workers N`` (the README's command: the sweep engine, a fresh SQLite store) and
   ``symloss verify --recheck`` as subprocesses, wall time;
4. ratios: parallel / serial wall time, re-check / run, and the issue's targets (run <= 300 s,
   re-check <= 120 s on the 2-core machine).

Figures depend on the load: other sessions share the 2 cores; the script reports the load average so
that every figure can be read next to it.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict


def _load() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:  # pragma: no cover
        return f"loadavg {os.getloadavg()}"


def family(cid: str) -> str:
    parts = cid.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 else cid


def _clear_caches():
    from proofs_check.claims import seed000_common as com
    from symloss.meanfield.enclosures import clear_caches
    com._model_polynomial_cached.cache_clear()
    com.check_retrial_birth_death.cache_clear()
    clear_caches()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="only the --quick selection")
    ap.add_argument("--skip-serial", action="store_true", help="only the parallel run and its re-check")
    args = ap.parse_args(argv)
    from proofs_check.core import QUICK_SELECTION, dump_json, recheck_records, run_claims, select
    pats = list(QUICK_SELECTION) if args.quick else None
    claims = select(pats)
    print(f"load before: {_load()}")
    print(f"{len(claims)} claims{' (--quick)' if args.quick else ''}")
    tmp = tempfile.mkdtemp(prefix="bench_verify_")
    serial_wall = None
    if not args.skip_serial:
        t0, c0 = time.perf_counter(), time.process_time()
        res = run_claims(claims)
        serial_wall, serial_cpu = time.perf_counter() - t0, time.process_time() - c0
        fam, n = defaultdict(float), defaultdict(int)
        for r in res:
            fam[family(r.claim.id)] += r.seconds
            n[family(r.claim.id)] += 1
        bad = [r.claim.id for r in res if not r.as_expected]
        path = os.path.join(tmp, "serial.json")
        dump_json(res, path)
        with open(path) as fh:
            records = json.load(fh)["claims"]
        _clear_caches()
        rfam = defaultdict(float)
        t0 = time.perf_counter()
        for rec in records:
            t1 = time.perf_counter()
            (_cid, ok, msg), = recheck_records([rec])
            rfam[family(rec["id"])] += time.perf_counter() - t1
            if not ok:
                bad.append(f"recheck {rec['id']}: {msg}")
        recheck_wall = time.perf_counter() - t0
        print(f"\n{'family':<36} {'claims':>6} {'run s':>9} {'recheck s':>10}")
        for f in sorted(fam, key=lambda k: -fam[k]):
            print(f"{f:<36} {n[f]:>6} {fam[f]:>9.2f} {rfam[f]:>10.2f}")
        print(f"{'total (serial, in process)':<36} {len(res):>6} {serial_wall:>9.2f} {recheck_wall:>10.2f}"
              f"   (CPU {serial_cpu:.1f} s for the run)")
        print(f"not as expected / rejected: {bad if bad else 'none'}")
    # the README's command, parallel, fresh store
    store, out = os.path.join(tmp, "verify.sqlite"), os.path.join(tmp, "verify.json")
    cmd = [sys.executable, "-m", "symloss", "verify", "--quiet", "--workers", str(args.workers), "--store", store,
           "--json", out] + (["--quick"] if args.quick else [])
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    par = time.perf_counter() - t0
    t0 = time.perf_counter()
    q = subprocess.run([sys.executable, "-m", "symloss", "verify", "--recheck", out], capture_output=True, text=True,
                       check=False)
    rchk = time.perf_counter() - t0
    print(f"\nsymloss verify --workers {args.workers}{' --quick' if args.quick else ''}: {par:.1f} s wall "
          f"(exit {p.returncode}); symloss verify --recheck: {rchk:.1f} s wall (exit {q.returncode}, "
          f"{q.stdout.strip().splitlines()[-1] if q.stdout.strip() else ''})")
    if serial_wall:
        print(f"ratio parallel/serial wall: {par / serial_wall:.2f}; recheck/run (subprocesses): {rchk / par:.2f}")
    if not args.quick:
        print(f"targets: run <= 300 s ({'met' if par <= 300 else 'NOT met'}), recheck <= 120 s "
              f"({'met' if rchk <= 120 else 'NOT met'})")
    print(f"load after: {_load()}")
    return 0 if p.returncode == 0 and q.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
