"""``symloss sweep``: run a parameter sweep from a TOML spec, show a store's status, export it.

    symloss sweep SPEC.toml [--executor processes|serial|dask] [--workers N] [--scheduler ADDR]
                            [--store PATH] [--no-resume] [--no-progress] [--json [PATH]]
    symloss sweep --status STORE [--json [PATH]]
    symloss sweep --export STORE (--csv [OUT] | --parquet OUT) [--function NAME] [--only done|failed]

A spec (see docs/sweep.md and examples/spec.toml)::

    function = "threshold"            # a name (symloss.sweep.FUNCTIONS), a symloss name or "module:function"
    store = "thresholds.sqlite"       # relative to the spec's directory
    executor = "processes"            # or "serial", "dask"
    workers = 2

    [grid]                            # Cartesian product of the axes
    C = { range = [2, 11] }           # 2..10
    dps = 30                          # a scalar is a one-value axis

    [grid.zip]                        # axes advancing together
    d = [2, 3]
    dt = [3, 4]
"""
from __future__ import annotations

import json
import sys
from datetime import datetime, timezone

from .._common import (
    STDOUT,
    CliError,
    add_output,
    add_progress,
    check_readable,
    check_writable,
    outputs,
    parse_int,
    write_json,
)
from ._shared import json_output


def register(sub) -> None:
    p = sub.add_parser(
        "sweep", help="run a parameter sweep from a TOML spec into a resumable SQLite store",
        description="Evaluate a symloss function over a grid (TOML spec), writing every point to an SQLite "
                    "store at once; rerunning resumes. The grid is checked against the function's signature "
                    "and parameter ranges before the first point runs. --status and --export read a store. "
                    "Example: symloss sweep examples/spec.toml")
    p.add_argument("spec", nargs="?", metavar="SPEC.toml", help="the sweep spec to run")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--status", metavar="STORE", help="print the points and runs stored in STORE")
    mode.add_argument("--export", metavar="STORE", help="export STORE as a table (with --csv or --parquet)")
    fmt = p.add_mutually_exclusive_group()
    add_output(fmt, "csv", "with --export: a plain CSV (provenance in <path>.provenance.json)")
    fmt.add_argument("--parquet", metavar="OUT", help="with --export: write a Parquet file (needs pyarrow)")
    p.add_argument("--function", dest="only_func", metavar="NAME",
                   help="with --export: only the rows of this function")
    p.add_argument("--only", choices=["done", "failed"], help="with --export: only rows with this status")
    add_output(p, "json", "the run summary (with --status the store's status, with --export the rows) as JSON with "
                          "provenance")
    p.add_argument("--executor", choices=["processes", "serial", "dask"], help="override the spec's executor")
    p.add_argument("--workers", default=None, help="override the spec's number of workers")
    p.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786 (implies --executor dask)")
    p.add_argument("--store", help="override the spec's store path")
    p.add_argument("--no-resume", action="store_true", help="recompute points already done")
    p.add_argument("--no-check", action="store_true",
                   help="do not check the grid against the function before starting (not recommended)")
    add_progress(p)
    p.set_defaults(func=run)


def run(args) -> int:
    return _run(args)


def _run(args) -> int:
    import importlib

    from ...core.provenance import provenance
    sw = importlib.import_module("symloss.sweeps")

    if args.status:
        _reject(args, "--status", ("spec", "csv", "parquet", "only_func", "only"))
        outs = outputs(args, "json")
        check_readable(args.status, "--status")
        status = sw.sweep_status(args.status)
        if "json" in outs:
            if json_output(outs, status, provenance(store=args.status)):
                return 0 if status["integrity"] == "ok" else 1
        print(_format_status(status))
        return 0 if status["integrity"] == "ok" else 1
    if args.export:
        _reject(args, "--export", ("spec",))
        if not (args.csv or args.parquet or args.json):
            raise CliError("--export needs --csv [OUT], --json [OUT] or --parquet OUT")
        check_readable(args.export, "--export")
        outs = outputs(args, "csv", "json")
        if args.parquet:
            check_writable(args.parquet, "--parquet")
        frame = sw.load_sweep(args.export, func=args.only_func, status=args.only, numeric=False)   # exact text
        frame = _flat_frame(frame, parquet=bool(args.parquet))
        prov = provenance(store=args.export, function=args.only_func, status=args.only)
        if args.json:
            rows = json.loads(frame.to_json(orient="records", date_format="iso", default_handler=str))
            if json_output(outs, {"store": args.export, "rows": rows}, prov):
                return 0
        if args.csv:
            from ...core.provenance import write_csv
            if args.csv == STDOUT:
                write_csv(frame, sys.stdout, prov)
                return 0
            write_csv(frame, args.csv, prov)
            out = args.csv
        elif args.parquet:
            try:
                frame.to_parquet(args.parquet, index=False)
            except ImportError as exc:
                raise CliError(f"--parquet needs pyarrow (pip install pyarrow): {exc}") from exc
            _parquet_provenance(args.parquet, prov)
            out = args.parquet
        if args.csv or args.parquet:
            print(f"wrote {len(frame)} rows, {frame.shape[1]} columns to {out}")
        else:
            print(f"wrote {len(frame)} rows to {outs['json']}")
        return 0
    if not args.spec:
        raise CliError("give a SPEC.toml to run (e.g. symloss sweep examples/spec.toml), or --status STORE, "
                       "or --export STORE --csv/--parquet OUT")
    for flag, opt in (("csv", "--csv"), ("parquet", "--parquet"), ("only_func", "--function"),
                      ("only", "--only")):
        if getattr(args, flag):
            raise CliError(f"{opt} is only used with --export")
    check_readable(args.spec, "SPEC.toml")
    outs = outputs(args, "json")
    kw = sw.load_spec(args.spec)
    if args.executor:
        kw["executor"] = args.executor
    if args.scheduler:
        kw["scheduler"] = args.scheduler
        kw["executor"] = "dask"
    if args.workers is not None:
        kw["workers"] = parse_int(args.workers, "--workers", min_value=1, max_value=4096)
    if args.store:
        kw["store"] = args.store
    check_writable(kw["store"], "--store" if args.store else "store (in the spec)")
    if args.no_resume:
        kw["resume"] = False
    if args.no_progress:
        kw["progress"] = False
    if args.no_check:
        kw["check"] = False
    func = kw.pop("func")
    grid = kw.pop("grid")
    if kw.get("progress", True) is True:   # the one progress policy, a label for a user
        import os
        name = func if isinstance(func, str) else getattr(func, "__name__", "points")
        kw["progress"] = f"sweep {name.rsplit(':', 1)[-1]} ({os.path.basename(args.spec)})"
    summary = sw.sweep(func, grid, **kw)
    note = summary.replay_note("points")
    if "json" in outs:
        write_json(outs["json"], summary.to_dict(), provenance=provenance(store=summary.store))
    if outs.get("json") != STDOUT:
        print(summary)
        if note:
            print(note)
    elif note:
        print(note, file=sys.stderr)
    if summary.n_failed:
        print(f"{summary.n_failed} point(s) failed; see `symloss sweep --status {summary.store}`; "
              f"rerun the same command to retry them", file=sys.stderr)
    return 0 if summary.complete else 1


def _parquet_provenance(path, prov) -> None:
    """Store the provenance in the Parquet file's key-value metadata (``symloss.provenance``)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - to_parquet needed it already
        return
    table = pq.read_table(path)
    meta = dict(table.schema.metadata or {})
    meta[b"symloss.provenance"] = json.dumps(prov, sort_keys=True, default=str).encode()
    pq.write_table(table.replace_schema_metadata(meta), path)


def _reject(args, mode, flags) -> None:
    for flag in flags:
        if getattr(args, flag):
            name = {"spec": "SPEC.toml", "only_func": "--function"}.get(flag, f"--{flag}")
            raise CliError(f"{name} cannot be combined with {mode}")


def _when(t) -> str:
    if t is None:
        return "-"
    return datetime.fromtimestamp(t, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def _format_status(status: dict) -> str:
    lines = [f"store {status['store']} (integrity: {status['integrity']})"]
    if not status["functions"]:
        lines.append("no points stored")
    else:
        w = max(len("function"), *(len(f["func"]) for f in status["functions"]))
        lines.append(f"{'function':<{w}}  {'done':>8}  {'failed':>7}  {'mean time/point':>15}")
        for f in status["functions"]:
            mean = f["mean_elapsed"]
            mean_text = "-" if mean is None else (f"{mean * 1e3:.2f} ms" if mean < 1 else f"{mean:.2f} s")
            lines.append(f"{f['func']:<{w}}  {f['done']:>8}  {f['failed']:>7}  {mean_text:>15}")
            if f["first_error"]:
                params = json.dumps(f["first_error"]["params"], sort_keys=True)
                lines.append(f"    first failure at {params}: {f['first_error']['error']}")
    if status["runs"]:
        lines.append("runs:")
        for r in status["runs"]:
            took = "" if r["finished"] is None else f", {r['finished'] - r['started']:.1f} s"
            workers = "" if not r["workers"] else f" x{r['workers']}"
            lines.append(f"  #{r['id']} {_when(r['started'])} UTC  {r['func']}  {r['executor']}{workers}  "
                         f"{r['state']}: grid {r['n_grid']}, skipped {r['n_skipped']}, done {r['n_done']}, "
                         f"failed {r['n_failed']}{took}")
    return "\n".join(lines)


def _flat_frame(frame, *, parquet: bool):
    """Make every column storable in CSV/Parquet: nested values become JSON text, mixed types too."""
    import pandas as pd

    out = frame.copy()
    for c in out.columns:
        col = out[c]
        if col.dtype != object:
            continue
        vals = col.dropna()
        kinds = {type(v) for v in vals}
        if any(k in (list, dict, tuple) for k in kinds) or (parquet and len(kinds - {bool}) > 1
                                                          and not kinds <= {int, float}):
            out[c] = col.map(lambda v: None if v is None else json.dumps(v, sort_keys=True)
                             if not isinstance(v, str) else v)
        elif parquet and kinds and kinds <= {int, float}:
            out[c] = pd.to_numeric(col)
    return out
