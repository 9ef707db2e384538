"""``symloss verify`` / ``python -m proofs_check``: run, list, export and re-check claims."""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys

from .core import QUICK_SELECTION, Status, dump_json, recheck_records, run_claims, select


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--claim", action="append", metavar="GLOB",
                   help="only claims whose id matches GLOB (repeatable), e.g. 'seed000.*'")
    p.add_argument("--list", action="store_true", help="list the claims and exit")
    p.add_argument("--quick", action="store_true",
                   help="a quick selection: Erlang-B identities, seed 000 for C <= 5, the exact claims of the "
                        "other seeds (proofs_check.core.QUICK_SELECTION)")
    p.add_argument("--json", metavar="PATH", help="write the results and certificates as JSON")
    p.add_argument("--recheck", metavar="PATH",
                   help="re-verify the certificates in a JSON file written by --json (no search)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="run the claims on N local processes through the sweep engine (default: every core; "
                        "1: in this process)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run the claims on a Dask cluster (tcp://host:8786) through the sweep engine")
    p.add_argument("--store", metavar="PATH", default=None,
                   help="SQLite store of finished certificates (default symloss_verify.sqlite when running in "
                        "parallel); a rerun with the same store resumes")
    p.add_argument("--no-resume", action="store_true", help="recompute every claim even if the store has it")


def run(args) -> int:
    out = sys.stdout
    if args.recheck:
        with open(args.recheck) as fh:
            records = json.load(fh)["claims"]
        if args.claim:
            import fnmatch
            records = [r for r in records if any(fnmatch.fnmatchcase(r.get("id", ""), g) for g in args.claim)]
        rows = recheck_records(records)
        w = max([len(r[0]) for r in rows] + [5])
        for cid, ok, msg in rows:
            print(f"{cid:<{w}}  {'OK  ' if ok else 'FAIL'}  {msg}", file=out)
        bad = sum(not ok for _, ok, _ in rows)
        print(f"{len(rows) - bad} certificates re-verified, {bad} rejected", file=out)
        return 1 if bad or not rows else 0

    claims = select(list(args.claim or []) + (list(QUICK_SELECTION) if args.quick else []))
    if args.list:
        for c in claims:
            print(f"{c.id:<44} expected {Status(c.expected).value:<9} {c.method}", file=out)
        return 0
    if not claims:
        print("no claim matches", file=sys.stderr)
        return 2

    def progress(i, n, c, res):
        if args.quiet:
            return
        if res is None:
            print(f"[{i + 1}/{n}] {c.id} ...", end="", file=sys.stderr, flush=True)
        else:
            print(f" {res.status.value} ({res.seconds:.2f} s)", file=sys.stderr, flush=True)

    if args.workers is not None and args.workers < 1:
        print(f"--workers must be an integer >= 1, got {args.workers}", file=sys.stderr)
        return 2
    if args.scheduler or args.store or args.workers != 1:
        from .parallel import DEFAULT_STORE, as_results, run_claims_store
        store = args.store or DEFAULT_STORE
        try:
            records, summary = run_claims_store(claims, workers=args.workers, scheduler=args.scheduler, store=store,
                                                progress=not args.quiet, resume=not args.no_resume)
        except (ImportError, OSError, RuntimeError, ValueError, TypeError, sqlite3.Error) as exc:
            print(f"verify: the parallel run failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
        results = as_results(records, claims)
        if not args.quiet:
            print(f"{summary.n_done} claims computed, {summary.n_skipped} taken from {store}", file=sys.stderr)
    else:
        results = run_claims(claims, progress)
    w = max(len(r.claim.id) for r in results)
    print(f"{'claim':<{w}}  {'status':<9}  {'expected':<9}  {'seconds':>8}  method", file=out)
    for r in results:
        flag = "" if r.as_expected else "   <-- differs from expected"
        print(f"{r.claim.id:<{w}}  {r.status.value:<9}  {Status(r.claim.expected).value:<9}  "
              f"{r.seconds:8.2f}  {r.claim.method}{flag}", file=out)
    bad = [r for r in results if not r.as_expected]
    counts = {s.value: sum(r.status == s for r in results) for s in Status}
    print(", ".join(f"{v} {k}" for k, v in counts.items()) +
          f"; {len(results) - len(bad)} of {len(results)} as expected", file=out)
    for r in bad:
        print(f"  {r.claim.id}: {r.certificate.summary}", file=out)
    if args.json:
        dump_json(results, args.json)
        print(f"certificates written to {args.json}", file=out)
    return 1 if bad else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m proofs_check", description=__doc__)
    add_arguments(p)
    return run(p.parse_args(argv))
