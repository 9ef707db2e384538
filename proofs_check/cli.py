"""``symloss verify`` / ``python -m proofs_check``: run, list, export and re-check claims.

Usage::

    symloss verify [--claim GLOB ...] [--quick] [--scope {default,full}] [--json [PATH]] [--no-progress]
                   [--workers N] [--scheduler ADDRESS] [--store PATH] [--no-resume]
    symloss verify --list [--scope full] [--json]
    symloss verify --recheck PATH [--claim GLOB ...] [--json]

A run with a store (the default when running in parallel) replays the claims already in it and says so
on stdout (``replayed N stored results from STORE``); ``--no-resume`` recomputes them. ``--scope full``
adds the claims beyond the default run (the seed-000 registry to ``C = 100``, ``d < dt <= 10``, and
comparisons at ``C`` up to 1000); the table ends with the claim seconds summed per family.
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys

# the command-line grammar shared with every ``symloss`` subcommand (one-line errors, --json [PATH],
# progress bars), from the room below both command lines
from symloss.core.cli_grammar import (STDOUT, CliError, SymlossArgumentParser, add_alias, add_output, check_readable,
                                      outputs, progress_bar, progress_mode, refuse_unused, write_json)

from .core import (QUICK_SELECTION, SCOPES, Status, certificate_document, dump_json, recheck_records, run_claims,
                   select)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--claim", action="append", metavar="GLOB",
                   help="only claims whose id matches GLOB (repeatable), e.g. 'seed000.*'")
    p.add_argument("--list", action="store_true", help="list the claims and exit")
    p.add_argument("--scope", choices=SCOPES, default="default",
                   help="default: the claims of the default run (about 4 minutes on two cores); full: every "
                        "registered claim (the seed-000 registry to C = 100, d < dt <= 10, and comparisons up to "
                        "C = 1000; meant for --workers or --scheduler, resumable through --store)")
    p.add_argument("--quick", action="store_true",
                   help="a quick selection: Erlang-B identities, the retrial-vs-power claims (paper 1) for C <= 5, the "
                        "exact claims of papers 2-4 (proofs_check.core.QUICK_SELECTION)")
    add_output(p, "json", "the results and certificates (with provenance) as JSON")
    p.add_argument("--recheck", metavar="PATH",
                   help="re-verify the certificates in a JSON file written by --json (no search)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress on stderr (default: a bar on a terminal, plain lines otherwise)")
    add_alias(p, "--quiet", dest="no_progress", action="store_true")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="run the claims on N local processes through the sweep engine (default: every core; "
                        "1: in this process)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run the claims on a Dask cluster (tcp://host:8786) through the sweep engine")
    p.add_argument("--store", metavar="PATH", default=None,
                   help="SQLite store of finished certificates (default symloss_verify.sqlite when running in "
                        "parallel); a rerun with the same store resumes")
    p.add_argument("--no-resume", action="store_true",
                   help="recompute every claim even if the store has it (a rerun otherwise replays the stored "
                        "results, and says so)")


def _load_records(path: str) -> tuple[list, dict | None]:
    check_readable(path, "--recheck")
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except json.JSONDecodeError as exc:
        raise CliError(f"--recheck: {path!r} is not JSON ({exc.msg} at line {exc.lineno})") from None
    except UnicodeDecodeError:
        raise CliError(f"--recheck: {path!r} is not a text file") from None
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
        raise CliError(f"--recheck: {path!r} is not a certificate file written by `symloss verify --json` "
                       "(no 'claims' list)")
    return data["claims"], data.get("provenance")


def run(args) -> int:
    from symloss.core.provenance import provenance   # lazy: it loads importlib.metadata
    out = sys.stdout
    runs = [("workers", "--workers"), ("scheduler", "--scheduler"), ("store", "--store"), ("no_resume", "--no-resume")]
    if args.recheck:
        refuse_unused(args, [("list", "--list"), ("quick", "--quick")] + runs,
                      "when claims are run, not with --recheck (which re-verifies stored certificates)")
    elif args.list:
        refuse_unused(args, runs, "when claims are run, not with --list")
    outs = outputs(args, "json")
    show = progress_mode(args) is not None
    if args.recheck:
        records, prov = _load_records(args.recheck)
        if args.claim:
            import fnmatch
            records = [r for r in records if isinstance(r, dict)
                       and any(fnmatch.fnmatchcase(str(r.get("id", "")), g) for g in args.claim)]
        bad_records = [i for i, r in enumerate(records) if not isinstance(r, dict)]
        if bad_records:
            raise CliError(f"--recheck: record {bad_records[0]} of {args.recheck!r} is not an object")
        rows = recheck_records(records)
        bad = sum(not ok for _, ok, _ in rows)
        if "json" in outs:
            write_json(outs["json"], {"recheck": args.recheck, "written_by": prov,
                                      "results": [{"id": cid, "ok": ok, "message": msg} for cid, ok, msg in rows],
                                      "accepted": len(rows) - bad, "rejected": bad}, provenance=provenance())
            if outs["json"] == STDOUT:
                return 1 if bad or not rows else 0
        if prov:
            print(f"certificates written by symloss {prov.get('symloss', '?')} on {prov.get('date', '?')} "
                  f"({prov.get('command', '?')})", file=out)
        w = max([len(r[0]) for r in rows] + [5])
        for cid, ok, msg in rows:
            print(f"{cid:<{w}}  {'OK  ' if ok else 'FAIL'}  {msg}", file=out)
        print(f"{len(rows) - bad} certificates re-verified, {bad} rejected", file=out)
        return 1 if bad or not rows else 0

    patterns = list(args.claim or []) + (list(QUICK_SELECTION) if args.quick else [])
    claims = select(patterns, scope=args.scope)
    if args.list:
        if "json" in outs:
            write_json(outs["json"], {"claims": [{"id": c.id, "expected": Status(c.expected).value, "method": c.method,
                                                  "source": c.source, "statement": c.statement} for c in claims]},
                       provenance=provenance())
            if outs["json"] == STDOUT:
                return 0
        for c in claims:
            print(f"{c.id:<44} expected {Status(c.expected).value:<9} {c.method}", file=out)
        return 0
    if not claims:
        hint = " (see --list)"
        if args.scope == "default" and select(patterns, scope="full"):
            hint = f" in the default scope; {len(select(patterns, scope='full'))} match with --scope full"
        raise CliError(f"--claim: no claim matches {', '.join(args.claim or [])}{hint}")
    if args.workers is not None and args.workers < 1:
        raise CliError(f"--workers must be an integer >= 1, got {args.workers}")

    bar = progress_bar(args, total=len(claims), desc="verify claims", unit="claim")

    def progress(i, n, c, res):
        if res is None:
            bar.set_postfix_str(c.id)
        else:
            bar.update(1)

    if args.scheduler or args.store or args.workers != 1:
        bar.close()
        from .parallel import DEFAULT_STORE, as_results, run_claims_store
        store = args.store or DEFAULT_STORE
        try:
            records, summary = run_claims_store(claims, workers=args.workers, scheduler=args.scheduler, store=store,
                                                progress="verify claims" if show else False,
                                                resume=not args.no_resume)
        except (ImportError, OSError, RuntimeError, ValueError, TypeError, sqlite3.Error) as exc:
            print(f"verify: the parallel run failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
        results = as_results(records, claims)
        replay_note = summary.replay_note("results")    # on stdout, with the table
        if show:
            print(f"{summary.n_done} claims computed, {summary.n_skipped} taken from {store}", file=sys.stderr)
    else:
        replay_note = None
        try:
            results = run_claims(claims, progress)
        finally:
            bar.close()
    bad = [r for r in results if not r.as_expected]
    if "json" in outs:
        if outs["json"] == STDOUT:
            json.dump(_document(results), sys.stdout, indent=1)
            sys.stdout.write("\n")
            if replay_note:                     # stdout holds the JSON: the note goes to stderr
                print(replay_note, file=sys.stderr)
            return 1 if bad else 0
        dump_json(results, outs["json"])
    w = max(len(r.claim.id) for r in results)
    print(f"{'claim':<{w}}  {'status':<9}  {'expected':<9}  {'seconds':>8}  method", file=out)
    for r in results:
        flag = "" if r.as_expected else "   <-- differs from expected"
        print(f"{r.claim.id:<{w}}  {r.status.value:<9}  {Status(r.claim.expected).value:<9}  "
              f"{r.seconds:8.2f}  {r.claim.method}{flag}", file=out)
    counts = {s.value: sum(r.status == s for r in results) for s in Status}
    print(", ".join(f"{v} {k}" for k, v in counts.items()) +
          f"; {len(results) - len(bad)} of {len(results)} as expected", file=out)
    for r in bad:
        print(f"  {r.claim.id}: {r.certificate.summary}", file=out)
    print(_family_costs(results), file=out)
    if "json" in outs:
        print(f"certificates written to {outs['json']}", file=out)
    if replay_note:
        print(replay_note, file=out)
    return 1 if bad else 0


def _family_costs(results) -> str:
    """One line: the claim seconds summed per family (the id up to its parameters), most expensive first."""
    fam: dict = {}
    for r in results:
        key = ".".join(p for p in r.claim.id.split(".")[:3] if not p[:1] == "C" or not p[1:2].isdigit())
        n, t = fam.get(key, (0, 0.0))
        fam[key] = (n + 1, t + r.seconds)
    parts = [f"{k} {t:.1f} s/{n}" for k, (n, t) in sorted(fam.items(), key=lambda kv: -kv[1][1])]
    return f"claim seconds per family (sum/claims): {', '.join(parts)}; total {sum(r.seconds for r in results):.1f} s"


def _document(results) -> dict:
    return certificate_document(results)


def main(argv=None) -> int:
    """``python -m proofs_check``: the same options and error handling as ``symloss verify``."""
    p = SymlossArgumentParser(prog="python -m proofs_check", description=__doc__.splitlines()[0])
    add_arguments(p)
    p.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    argv = list(sys.argv[1:] if argv is None else argv)
    args = p.parse_args(argv)
    from symloss.core.provenance import command_context
    try:
        with command_context(argv, prog="python -m proofs_check"):
            return run(args)
    except KeyboardInterrupt:
        print("proofs_check: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback (unless --debug)
        if args.debug:
            import traceback
            traceback.print_exc()
        print(f"{p.prog}: error: {' '.join(str(exc).split()) or type(exc).__name__}", file=sys.stderr)
        return 2
