"""Mean-field retrial-of-d / power-of-d subcommands (seed 000).

* ``symloss blocking --policy retrial|power|random|jsq --C 2 --d 3 --rho 1.5 --dps 40``
* ``symloss threshold --C 3 --d 2 --dt 3 [--dps 30]``
* ``symloss table --C 1:10 --d 2:4 --dt d+1:d+2 [--json PATH] [--csv PATH]``
* ``symloss derive --policy power --C 2 --d 2 [--latex]``

Integers and ranges are parsed here (not by argparse) so that every bad value gets an error that
names the option, the value and the valid range. Loads are read exactly (decimal or ``p/q``).
"""
from __future__ import annotations

import ast
import csv
import json
import sys
import time
from fractions import Fraction

POLICIES = ("retrial", "power", "random", "jsq")
MAX_C = 100_000
MAX_D = 64


# ==================================================================================================
# parsing helpers (public for the tests: they raise ValueError with a clear message)
# ==================================================================================================

def parse_int(text, name: str, *, min_value: int = 1, max_value: int | None = None) -> int:
    """An integer option such as ``--C 3``; ``3.0`` is accepted, ``2.5``/``nan``/``x`` are not."""
    rng = f">= {min_value}" if max_value is None else f"in [{min_value}, {max_value}]"
    s = str(text).strip()
    try:
        v = int(s)
    except ValueError:
        try:
            f = Fraction(s)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{name} must be an integer {rng}, got {text!r}") from None
        if f.denominator != 1:
            raise ValueError(f"{name} must be an integer {rng}, got {text!r} (not an integer)") from None
        v = int(f)
    if v < min_value or (max_value is not None and v > max_value):
        raise ValueError(f"{name} must be an integer {rng}, got {v}")
    return v


def parse_load(text, name: str = "--rho") -> Fraction:
    """A load ``rho > 0`` read exactly: ``1.5``, ``3/2``, ``1e-3``. ``nan``, ``inf``, ``0`` and
    negative values are rejected."""
    s = str(text).strip()
    low = s.lower()
    if low in ("nan", "+nan", "-nan") or "inf" in low:
        raise ValueError(f"{name} must be a finite real number > 0, got {text!r}")
    try:
        v = Fraction(s)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{name} must be a real number > 0 such as 1.5, 3/2 or 1e-3, got {text!r}") from None
    if v <= 0:
        raise ValueError(f"{name} must be a real number > 0, got {text!r}")
    return v


def parse_dps(text) -> int:
    return parse_int(text, "--dps", min_value=5, max_value=100_000)


def _eval_int_expr(text: str, name: str, d: int | None) -> int:
    """Evaluate an integer expression in ``d`` (``d+1``, ``2*d``, ``d-1``, ``4``)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise ValueError(f"{name}: cannot read {text!r} (use integers, d, +, -, *)") from None

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name) and node.id == "d":
            if d is None:
                raise ValueError(f"{name}: 'd' is only allowed in --dt, got {text!r}")
            return d
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            a, b = ev(node.left), ev(node.right)
            return a + b if isinstance(node.op, ast.Add) else (a - b if isinstance(node.op, ast.Sub) else a * b)
        raise ValueError(f"{name}: cannot read {text!r} (use integers, d, +, -, *)")
    return ev(tree)


def parse_range(text, name: str, *, d: int | None = None, min_value: int = 1, max_value: int | None = None) -> list:
    """Inclusive integer ranges: ``1:10`` -> 1..10, ``1:10:3`` -> 1, 4, 7, 10, ``2,5,7`` -> a list,
    ``4`` -> [4]. With ``d`` given, endpoints may be expressions in ``d`` (``d+1:d+2``)."""
    s = str(text).strip()
    if not s:
        raise ValueError(f"{name} must be a range such as 1:10, got an empty string")
    out: list = []
    for part in s.split(","):
        pieces = part.split(":")
        if len(pieces) not in (1, 2, 3) or any(not p.strip() for p in pieces):
            raise ValueError(f"{name} must look like A, A:B or A:B:STEP (inclusive), got {text!r}")
        vals = [_eval_int_expr(p, name, d) for p in pieces]
        if len(vals) == 1:
            out.append(vals[0])
            continue
        lo, hi = vals[0], vals[1]
        step = vals[2] if len(vals) == 3 else 1
        if step < 1:
            raise ValueError(f"{name}: the step must be >= 1, got {step} in {text!r}")
        if hi < lo:
            raise ValueError(f"{name}: empty range {text!r} (end {hi} < start {lo})")
        out.extend(range(lo, hi + 1, step))
    rng = f">= {min_value}" if max_value is None else f"in [{min_value}, {max_value}]"
    for v in out:
        if v < min_value or (max_value is not None and v > max_value):
            where = f" (with d = {d})" if d is not None else ""
            raise ValueError(f"{name} values must be integers {rng}, got {v} from {text!r}{where}")
    return list(dict.fromkeys(out))


def make_model(policy: str, C: int, d: int | None):
    """The model object for ``--policy`` (``d`` is required for retrial/power, must be 1 or absent
    for random/jsq)."""
    import symloss
    if policy not in POLICIES:
        raise ValueError(f"--policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    if policy in ("random", "jsq"):
        if d not in (None, 1):
            raise ValueError(f"--d is not used by --policy {policy} (it samples no servers); omit it or use --d 1")
        return symloss.RandomRouting(C) if policy == "random" else symloss.JSQ(C)
    if d is None:
        raise ValueError(f"--policy {policy} needs --d (number of attempts / samples, integer >= 1)")
    return symloss.RetrialOfD(C, d) if policy == "retrial" else symloss.PowerOfD(C, d)


def _fmt(x, dps: int) -> str:
    import mpmath
    return mpmath.nstr(x, dps, min_fixed=-5, max_fixed=8)


# ==================================================================================================
# blocking
# ==================================================================================================

def _run_blocking(args) -> int:
    C = parse_int(args.C, "--C", min_value=1, max_value=MAX_C)
    d = None if args.d is None else parse_int(args.d, "--d", min_value=1, max_value=MAX_D)
    rho = parse_load(args.rho)
    dps = parse_dps(args.dps)
    model = make_model(args.policy, C, d)
    if args.json or args.fixed_point:
        res = model.fixed_point(rho, dps=dps)
        if args.json:
            print(json.dumps({"policy": args.policy, "C": C, "d": model.d, "rho": str(rho), **res.to_dict()}, indent=2))
        else:
            print(f"blocking = {_fmt(res.blocking, dps)}")
            for var, x in zip(model.variables, res.x):
                print(f"{var} = {_fmt(x, dps)}")
            print(f"residual = {_fmt(res.residual, 3)}")
            print(f"method: {res.method}")
        return 0
    print(_fmt(model.blocking(rho, dps=dps), dps))
    return 0


# ==================================================================================================
# threshold and table
# ==================================================================================================

def _threshold_row(C, d, dt, dps):
    import symloss
    t0 = time.perf_counter()
    row = {"C": C, "d": d, "dt": dt, "threshold": None, "error": None}
    try:
        row["threshold"] = symloss.threshold_load(C, d, dt, dps=dps)
    except (ValueError, ArithmeticError) as exc:
        row["error"] = f"{type(exc).__name__}: {exc}"
    row["seconds"] = round(time.perf_counter() - t0, 3)
    return row


def _run_threshold(args) -> int:
    C = parse_int(args.C, "--C", min_value=1, max_value=1000)
    d = parse_int(args.d, "--d", min_value=1, max_value=MAX_D)
    dt = parse_int(args.dt, "--dt", min_value=1, max_value=MAX_D)
    dps = parse_dps(args.dps)
    if dt <= d:
        raise ValueError(f"--dt must be > --d (got d={d}, dt={dt}): for dt <= d power-of-d never blocks "
                         "more than retrial-of-dt, so there is no threshold")
    if getattr(args, "certified", False):
        return _run_threshold_certified(args, C, d, dt, dps)
    import symloss
    t0 = time.perf_counter()
    thr = symloss.threshold_load(C, d, dt, dps=dps)
    secs = time.perf_counter() - t0
    if args.json:
        print(json.dumps({"C": C, "d": d, "dt": dt, "dps": dps, "threshold": _fmt(thr, dps),
                          "seconds": round(secs, 3)}, indent=2))
    else:
        print(_fmt(thr, dps))
    return 0


def _run_threshold_certified(args, C, d, dt, dps) -> int:
    """``--certified``: the threshold as an interval of width <= 10^-dps, the crossing count and the
    certificate (symloss.meanfield.certified)."""
    from ...meanfield.certified import format_threshold, threshold_report
    rep = threshold_report(C, d, dt, dps=dps)
    if args.certificate:
        with open(args.certificate, "w", encoding="utf-8") as fh:
            json.dump(rep["certificate"], fh)
        rep["certificate_file"] = args.certificate
    if args.json:
        print(json.dumps({k: v for k, v in rep.items() if k != "certificate"}, indent=2))
    else:
        print(format_threshold(rep) + (f" (written to {args.certificate})" if args.certificate else ""))
    return 0 if rep["threshold"] is not None else 1


def _run_table_certified(args, jobs, dps) -> int:
    from tqdm import tqdm

    from ...meanfield.certified import format_threshold, threshold_report
    rows = []
    with tqdm(total=len(jobs), file=sys.stderr, desc="certified thresholds", unit="load",
              disable=args.no_progress) as bar:
        for C, d, dt in jobs:
            bar.set_postfix_str(f"C={C} d={d} dt={dt}")
            rep = threshold_report(C, d, dt, dps=dps)
            if args.certificates:
                import os
                os.makedirs(args.certificates, exist_ok=True)
                path = os.path.join(args.certificates, f"threshold_C{C}_d{d}_dt{dt}.json")
                with open(path, "w", encoding="utf-8") as fh:
                    json.dump(rep["certificate"], fh)
                rep["certificate_file"] = path
            rep.pop("certificate")
            rows.append(rep)
            bar.update(1)
    print(f"{'C':>5} {'d':>3} {'dt':>3}  threshold (certified interval), crossings, certificate")
    for r in rows:
        print(f"{r['C']:>5} {r['d']:>3} {r['dt']:>3}  {format_threshold(r, min(dps, 20))}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"dps": dps, "definition": "certified threshold: every crossing of B_ret(dt) and B_pod(d) on "
                       "(0, oo) isolated (width <= 10^-dps); the threshold is the last one", "rows": rows}, fh, indent=2)
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=["C", "d", "dt", "threshold_lo", "threshold_hi", "crossings", "claim"])
            w.writeheader()
            for r in rows:
                thr = r["threshold"]
                lo, hi = (("0", "0") if thr == {"value": "0"} else (thr["rho"][0], thr["rho"][1]) if thr else ("", ""))
                w.writerow({"C": r["C"], "d": r["d"], "dt": r["dt"], "threshold_lo": lo, "threshold_hi": hi,
                            "crossings": r["crossings"], "claim": r["claim"] or ""})
    return 0 if all(r["threshold"] is not None for r in rows) else 1


def _row_out(row, dps):
    thr = row["threshold"]
    return {"C": row["C"], "d": row["d"], "dt": row["dt"],
            "threshold": None if thr is None else _fmt(thr, dps),
            "seconds": row["seconds"], "error": row["error"]}


def _run_table(args) -> int:
    Cs = parse_range(args.C, "--C", min_value=1, max_value=1000)
    ds = parse_range(args.d, "--d", min_value=1, max_value=MAX_D)
    dps = parse_dps(args.dps)
    jobs = []
    for d in ds:
        dts = parse_range(args.dt, "--dt", d=d, min_value=1, max_value=MAX_D)
        for dt in dts:
            if dt <= d:
                raise ValueError(f"--dt must give values > d; {args.dt!r} gives dt = {dt} for d = {d}")
            jobs.extend((C, d, dt) for C in Cs)
    jobs.sort()
    if getattr(args, "certified", False):
        return _run_table_certified(args, jobs, dps)
    from tqdm import tqdm
    rows = []
    with tqdm(total=len(jobs), file=sys.stderr, desc="thresholds", unit="load",
              disable=args.no_progress) as bar:
        for C, d, dt in jobs:
            bar.set_postfix_str(f"C={C} d={d} dt={dt}")
            rows.append(_row_out(_threshold_row(C, d, dt, dps), dps))
            bar.update(1)
    # stdout: an aligned text table
    width = max([len("threshold")] + [len(r["threshold"] or "-") for r in rows])
    print(f"{'C':>5} {'d':>3} {'dt':>3}  {'threshold':<{width}}  {'seconds':>8}")
    for r in rows:
        line = f"{r['C']:>5} {r['d']:>3} {r['dt']:>3}  {(r['threshold'] or '-'):<{width}}  {r['seconds']:>8.2f}"
        if r["error"]:
            line += f"  ({r['error']})"
        print(line)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"dps": dps, "definition": "threshold_load(C, d, dt): the load above which "
                       "retrial-of-dt blocks strictly less than power-of-d (mean field); 0 if at every load",
                       "rows": rows}, fh, indent=2)
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=["C", "d", "dt", "threshold", "seconds", "error"])
            w.writeheader()
            for r in rows:
                w.writerow(r)
    return 0 if not any(r["error"] for r in rows) else 1


# ==================================================================================================
# derive
# ==================================================================================================

def _run_derive(args) -> int:
    from ...meanfield.series import big_int_str
    with big_int_str():   # exact coefficients can have more than 4300 digits
        return _derive(args)


def _derive(args) -> int:
    import sympy as sp

    from ...meanfield.series import blocking_series
    C = parse_int(args.C, "--C", min_value=1, max_value=MAX_C)
    d = None if args.d is None else parse_int(args.d, "--d", min_value=1, max_value=MAX_D)
    model = make_model(args.policy, C, d)
    n_series = parse_int(args.series, "--series", min_value=0, max_value=20)
    latex = args.latex
    out = []

    def title(text):
        out.append(("% " if latex else "") + text)

    def block(exprs):
        if latex:
            out.append(r"\begin{aligned}")
            for i, e in enumerate(exprs):
                if isinstance(e, sp.Equality):
                    s = sp.latex(e.lhs) + " &= " + sp.latex(e.rhs)
                else:
                    s = "& " + sp.latex(e)
                out.append(s + (r" \\" if i < len(exprs) - 1 else ""))
            out.append(r"\end{aligned}")
        else:
            for e in exprs:
                out.append("  " + (f"{sp.sstr(e.lhs)} = {sp.sstr(e.rhs)}" if isinstance(e, sp.Equality) else sp.sstr(e)))
        out.append("")

    title(f"{model!r}: variables {', '.join(map(str, model.variables))}; blocking B = {model.blocking_expr()}")
    out.append("")
    if args.policy == "jsq":
        title("fluid JSQ (join the shortest queue): blocking")
        block([sp.Eq(sp.Symbol("B"), model.blocking_expr())])
    else:
        title("stationary equations (drift = 0, from the model's transitions)")
        block(model.stationary_equations())
    if args.policy in ("retrial", "random") and model.d > 1:
        title("relation between rho and the per-server load a (p = E(C, a), B = p^d)")
        block([sp.Eq(model.cubic_in_a().as_expr(), 0)])
    if args.policy == "power" and model.d > 1 and not args.no_eliminant:
        title("polynomial in s = u_C after eliminating u_1 .. u_{C-1} (B = s^d)")
        block([sp.Eq(sp.factor(model.quartic().as_expr()), 0)])
    if args.policy != "jsq" and not args.no_eliminant:
        title("eliminant P(rho, B) = 0 (the factor that vanishes on the physical branch)")
        block([sp.Eq(sp.collect(model.eliminant().as_expr(), sp.Symbol("B", positive=True)), 0)])
    if n_series:
        for at in (0, sp.oo):
            title(f"expansion of the blocking at rho -> {'0' if at == 0 else 'oo'}")
            block([sp.Eq(sp.Symbol("B"), blocking_series(model, at, n_series))])
    print("\n".join(out).rstrip())
    return 0


# ==================================================================================================
# registration
# ==================================================================================================

def register(sub) -> None:
    p = sub.add_parser(
        "blocking", help="mean-field blocking of retrial-of-d, power-of-d, random routing or JSQ",
        description="Stationary mean-field blocking probability (seed 000) at load RHO to DPS "
                    "significant digits, certified by ball arithmetic (values far below the float "
                    "range are printed exactly as well).")
    p.add_argument("--policy", required=True, choices=POLICIES, help="load-balancing policy")
    p.add_argument("--C", required=True, help="capacity of each server, integer >= 1")
    p.add_argument("--d", default=None, help="attempts (retrial) or samples (power), integer >= 1")
    p.add_argument("--rho", required=True, help="load per server, real > 0 (decimal or p/q, read exactly)")
    p.add_argument("--dps", default="30", help="significant digits, integer >= 5 (default 30)")
    p.add_argument("--fixed-point", action="store_true", help="also print the occupancy vector and the residual")
    p.add_argument("--json", action="store_true", help="print the fixed point as JSON")
    p.set_defaults(func=_run_blocking)

    p = sub.add_parser(
        "threshold", help="load above which retrial-of-dt blocks less than power-of-d",
        description="threshold_load(C, d, dt): the load above which retrial-of-dt blocks strictly "
                    "less than power-of-d at every larger load (mean field); 0 if at every load.")
    p.add_argument("--C", required=True, help="capacity, integer in [1, 1000]")
    p.add_argument("--d", required=True, help="samples of power-of-d, integer >= 1")
    p.add_argument("--dt", required=True, help="attempts of retrial-of-dt, integer > d")
    p.add_argument("--dps", default="30", help="significant digits, integer >= 5 (default 30)")
    p.add_argument("--json", action="store_true", help="print JSON (with the run time)")
    p.add_argument("--certified", action="store_true",
                   help="certified for every load: the threshold as an interval of width <= 10^-dps, the number of "
                        "crossings and a pointer to the certificate")
    p.add_argument("--certificate", metavar="PATH", default=None, help="with --certified: write the certificate")
    p.set_defaults(func=_run_threshold)

    p = sub.add_parser(
        "table", help="table of threshold loads over ranges of C, d and dt",
        description="Threshold loads for every C, d, dt in inclusive ranges (A:B, A:B:STEP, or a "
                    "comma list); --dt may be relative to d (d+1:d+2). A progress bar goes to "
                    "stderr, the table to stdout. Exit status 1 if any entry failed.")
    p.add_argument("--C", required=True, help="capacities, e.g. 1:10")
    p.add_argument("--d", required=True, help="power-of-d sample counts, e.g. 2:4")
    p.add_argument("--dt", required=True, help="retrial attempts, e.g. d+1:d+2 or 3:5")
    p.add_argument("--dps", default="20", help="significant digits, integer >= 5 (default 20)")
    p.add_argument("--json", metavar="PATH", default=None, help="also write the table as JSON")
    p.add_argument("--csv", metavar="PATH", default=None, help="also write the table as CSV")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--certified", action="store_true",
                   help="certified thresholds (intervals, crossing counts, certificates) instead of the scan")
    p.add_argument("--certificates", metavar="DIR", default=None, help="with --certified: write each certificate")
    p.set_defaults(func=_run_table)

    p = sub.add_parser(
        "derive", help="stationary equations, eliminant and expansions of a mean-field model",
        description="Print the stationary equations generated from the model's transitions, the "
                    "scalar reduction (retrial: relation in a; power: polynomial in u_C), the "
                    "eliminant P(rho, B) and the expansions of B at rho -> 0 and rho -> oo; "
                    "LaTeX with --latex. The eliminant grows quickly with C and d (--no-eliminant).")
    p.add_argument("--policy", required=True, choices=POLICIES)
    p.add_argument("--C", required=True, help="capacity, integer >= 1")
    p.add_argument("--d", default=None, help="attempts / samples, integer >= 1")
    p.add_argument("--latex", action="store_true", help="LaTeX output (aligned environments)")
    p.add_argument("--no-eliminant", action="store_true", help="skip the resultant computations")
    p.add_argument("--series", default="2", help="number of terms of the expansions (0: none; default 2)")
    p.set_defaults(func=_run_derive)
