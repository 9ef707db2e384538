"""Mean-field retrial-of-d / power-of-d subcommands (Cuesta, Jonckheere, Prabhu and Brun, *Retrials in
Loss Systems: Mean-Field Analysis, Erlang Bounds, and Power-of-d Comparison*, 2026).

* ``symloss blocking --policy retrial|power|random|jsq --C 2 --d 3 --rho 1.5 --dps 40 [--json] [--latex]``
* ``symloss threshold --C 3 --d 2 --dt 3 [--dps 30] [--json]``
* ``symloss table --C 1:10 --d 2:4 --dt d+1:d+2 [--json [PATH]] [--csv [PATH]] [--latex [PATH]]``
* ``symloss derive --policy power --C 2 --d 2 [--latex [PATH]] [--standalone] [--width PT] [--json]``

Integers and ranges are parsed here (not by argparse) so that every bad value gets an error that
names the option, the value and the valid range. Loads are read exactly (decimal or ``p/q``).
"""
from __future__ import annotations

import sys
import time

from .._common import (
    POLICIES,
    STDOUT,
    CliError,
    add_output,
    add_progress,
    check_writable,
    fmt_number,
    outputs,
    parse_dps,
    parse_int,
    parse_load,
    parse_range,
    parse_real,
    Stages,
    progress_bar,
    refuse_unused,
    write_json,
    write_text,
)
from ._shared import json_output

__all__ = ["parse_int", "parse_load", "parse_range", "parse_dps", "make_model", "POLICIES", "register"]

MAX_C = 10_000      # symloss.meanfield.models._MAX_C
MAX_D = 64


# ==================================================================================================
# models
# ==================================================================================================

def make_model(policy: str, C: int, d: int | None):
    """The model object for ``--policy``, from the policy-name table.

    Parameters
    ----------
    policy : str
        A name of :data:`symloss.meanfield.policies.POLICIES` (or an accepted spelling).
    C : int
        Capacity of a server.
    d : int or None
        Attempts (retrial) or samples (power); required for those, must be 1 or absent for random/jsq.

    Returns
    -------
    MeanFieldModel
        What :func:`symloss.meanfield.policies.policy_model` returns.

    Raises
    ------
    CliError
        For an unknown policy, a missing ``--d`` or a ``--d`` that the policy does not use (the message
        names ``--policy`` and ``--d``).
    """
    from symloss.meanfield.policies import policy_model
    try:
        return policy_model(policy, C, d, name="--policy", d_name="--d")
    except (TypeError, ValueError) as exc:
        raise CliError(str(exc)) from None


_fmt = fmt_number



POLICY_TEXT = {"retrial": "Retrial-of-$d$", "power": "Power-of-$d$", "random": "Random routing",
               "jsq": "Join the shortest queue (fluid JSQ)"}


# ==================================================================================================
# blocking
# ==================================================================================================

def _run_blocking(args) -> int:
    from ...core.provenance import provenance
    missing = [opt for opt, v in (("--C", args.C), ("--rho", args.rho)) if v is None]
    if missing:
        raise CliError(f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} required "
                       "(e.g. --policy retrial --C 2 --d 3 --rho 1.5)")
    C = parse_int(args.C, "--C", min_value=1, max_value=MAX_C)
    d = None if args.d is None else parse_int(args.d, "--d", min_value=1, max_value=MAX_D)
    rho = parse_load(args.rho)
    dps = parse_dps(args.dps)
    outs = outputs(args, "json", "latex")
    model = make_model(args.policy, C, d)
    if outs or args.fixed_point:
        res = model.fixed_point(rho, dps=dps)
        if "json" in outs:
            write_json(outs["json"], {"policy": args.policy, "C": C, "d": model.d, "rho": str(rho), **res.to_dict()},
                       provenance=provenance(dps=dps))
        if "latex" in outs:
            write_text(outs["latex"], _provenance_comment(dps) + res.to_latex())
        if STDOUT in outs.values():
            return 0
        if args.fixed_point:
            print(f"blocking = {_fmt(res.blocking, dps)}")
            for var, x in zip(model.variables, res.x):
                print(f"{var} = {_fmt(x, dps)}")
            print(f"residual = {_fmt(res.residual, 3)}")
            print(f"method: {res.method}")
        else:
            print(_fmt(res.blocking, dps))
        return 0
    print(_fmt(model.blocking(rho, dps=dps), dps))
    return 0


def _provenance_comment(dps=None) -> str:
    from ...core.provenance import provenance, provenance_lines
    return "\n".join(provenance_lines(provenance(dps=dps), prefix="% ")) + "\n"


# ==================================================================================================
# threshold and table
# ==================================================================================================

def _run_threshold(args) -> int:
    from ...core.provenance import provenance
    C = parse_int(args.C, "--C", min_value=1, max_value=1000)
    d = parse_int(args.d, "--d", min_value=1, max_value=MAX_D)
    dt = parse_int(args.dt, "--dt", min_value=1, max_value=MAX_D)
    dps = parse_dps(args.dps)
    if dt <= d:
        raise CliError(f"--dt must be > --d (got d={d}, dt={dt}): for dt <= d power-of-d never blocks "
                       "more than retrial-of-dt, so there is no threshold")
    if not args.certified:
        refuse_unused(args, [("certificate", "--certificate")], "only with --certified")
    outs = outputs(args, "json")
    if getattr(args, "certified", False):
        return _run_threshold_certified(args, C, d, dt, dps, outs)
    import symloss
    t0 = time.perf_counter()
    thr = symloss.threshold_load(C, d, dt, dps=dps)
    secs = time.perf_counter() - t0
    if "json" in outs:
        if json_output(outs, {"C": C, "d": d, "dt": dt, "dps": dps, "threshold": _fmt(thr, dps),
                              "seconds": round(secs, 3)}, provenance(dps=dps)):
            return 0
    print(_fmt(thr, dps))
    return 0


def _run_threshold_certified(args, C, d, dt, dps, outs) -> int:
    """``--certified``: the threshold as an interval of width <= 10^-dps, the crossing count and the
    certificate (symloss.meanfield.certified)."""
    from ...core.provenance import provenance
    from ...meanfield.certified import format_threshold, threshold_report
    if args.certificate:
        check_writable(args.certificate, "--certificate")
    rep = threshold_report(C, d, dt, dps=dps)
    if args.certificate:
        write_json(args.certificate, rep["certificate"], provenance=provenance(dps=dps))
        rep["certificate_file"] = args.certificate
    if "json" in outs:
        if json_output(outs, {k: v for k, v in rep.items() if k != "certificate"}, provenance(dps=dps)):
            return 0 if rep["threshold"] is not None else 1
    print(format_threshold(rep) + (f" (written to {args.certificate})" if args.certificate else ""))
    return 0 if rep["threshold"] is not None else 1


def _run_table_certified(args, jobs, dps, outs) -> int:
    import os

    from ...core.provenance import provenance
    from ...meanfield.certified import format_threshold, threshold_report
    if args.certificates:
        os.makedirs(args.certificates, exist_ok=True)
        check_writable(os.path.join(args.certificates, "probe.json"), "--certificates")
    rows = []
    with progress_bar(args, total=len(jobs), desc="certified thresholds", unit="load") as bar:
        for C, d, dt in jobs:
            bar.set_postfix_str(f"C={C} d={d} dt={dt}")
            rep = threshold_report(C, d, dt, dps=dps)
            if args.certificates:
                path = os.path.join(args.certificates, f"threshold_C{C}_d{d}_dt{dt}.json")
                write_json(path, rep["certificate"], provenance=provenance(dps=dps))
                rep["certificate_file"] = path
            rep.pop("certificate")
            rows.append(rep)
            bar.update(1)
    doc = {"dps": dps, "definition": "certified threshold: every crossing of B_ret(dt) and B_pod(d) on (0, oo) "
           "isolated (width <= 10^-dps); the threshold is the last one", "rows": rows}
    if "json" in outs:
        write_json(outs["json"], doc, provenance=provenance(dps=dps))
    if "csv" in outs:
        from ...core.provenance import write_csv
        csv_rows = []
        for r in rows:
            thr = r["threshold"]
            lo, hi = (("0", "0") if thr == {"value": "0"} else (thr["rho"][0], thr["rho"][1]) if thr else ("", ""))
            csv_rows.append({"C": r["C"], "d": r["d"], "dt": r["dt"], "threshold_lo": lo, "threshold_hi": hi,
                             "crossings": r["crossings"], "claim": r["claim"] or "", "status": "PROVED"
                             if thr is not None else "UNDECIDED"})
        write_csv(csv_rows, sys.stdout if outs["csv"] == STDOUT else outs["csv"], provenance(dps=dps),
                  columns=["C", "d", "dt", "threshold_lo", "threshold_hi", "crossings", "status", "claim"],
                  meta={"notes": "certified thresholds: every crossing isolated (width <= 10^-dps); a threshold "
                                 "of 0 means retrial-of-dt blocks less at every load"})
    if STDOUT not in outs.values():
        print(f"{'C':>5} {'d':>3} {'dt':>3}  threshold (certified interval), crossings, certificate")
        for r in rows:
            print(f"{r['C']:>5} {r['d']:>3} {r['dt']:>3}  {format_threshold(r, min(dps, 20))}")
    return 0 if all(r["threshold"] is not None for r in rows) else 1


def _run_table(args) -> int:
    from ...sweeps.tables import THRESHOLD_HEADERS, threshold_table
    Cs = parse_range(args.C, "--C", min_value=1, max_value=1000)
    ds = parse_range(args.d, "--d", min_value=1, max_value=MAX_D)
    dps = parse_dps(args.dps)
    dts = {}
    for d in ds:
        dts[d] = parse_range(args.dt, "--dt", d=d, min_value=1, max_value=MAX_D)
        bad = [t for t in dts[d] if t <= d]
        if bad:
            raise CliError(f"--dt must give values > d; {args.dt!r} gives dt = {bad[0]} for d = {d}")
    if not args.certified:
        refuse_unused(args, [("certificates", "--certificates")], "only with --certified")
    outs = outputs(args, "json", "csv", "latex")
    if getattr(args, "certified", False):
        if "latex" in outs:
            raise CliError("--latex: not available with --certified (use --json or --csv)")
        jobs = sorted((C, d, dt) for d in ds for dt in dts[d] for C in Cs)
        return _run_table_certified(args, jobs, dps, outs)
    n = sum(len(Cs) * len(v) for v in dts.values())
    with progress_bar(args, total=n, desc="thresholds", unit="load") as bar:
        def step(i, total, row):
            bar.set_postfix_str(f"C={row['C']} d={row['d']} dt={row['dt']}")
            bar.update(1)
        table = threshold_table(Cs, ds, lambda d: dts[d], dps=dps, progress=step)
    rows = table.rows()
    if "json" in outs:
        table.to_json(None if outs["json"] == STDOUT else outs["json"])
        if outs["json"] == STDOUT:
            print(table.to_json())
    if "csv" in outs:
        table.to_csv(sys.stdout if outs["csv"] == STDOUT else outs["csv"])
    if "latex" in outs:
        body = table.to_latex(columns=["C", "d", "dt", "threshold"], headers=THRESHOLD_HEADERS)
        write_text(outs["latex"], _provenance_comment(dps) + body)
    if STDOUT not in outs.values():
        print(_text_table(table))
    return 0 if not any(r["error"] for r in rows) else 1


def _text_table(table) -> str:
    rows = table.to_dict()["rows"]
    width = max([len("threshold")] + [len(r["threshold"] or "-") for r in rows])
    out = [f"{'C':>5} {'d':>3} {'dt':>3}  {'threshold':<{width}}  {'seconds':>8}"]
    for r in rows:
        line = f"{r['C']:>5} {r['d']:>3} {r['dt']:>3}  {(r['threshold'] or '-'):<{width}}  {r['seconds']:>8.2f}"
        if r["error"]:
            line += f"  ({r['error']})"
        out.append(line)
    return "\n".join(out)


# ==================================================================================================
# derive
# ==================================================================================================

def _run_derive(args) -> int:
    from ...meanfield.series import big_int_str
    with big_int_str():   # exact coefficients can have more than 4300 digits
        return _derive(args)


def _model_title(model, latex: bool) -> str:
    import sympy as sp
    if not latex:
        return f"{model!r}: variables {', '.join(map(str, model.variables))}; blocking B = {model.blocking_expr()}"
    params = f"$C = {model.C}$" + (f", $d = {model.d}$" if model.name in ("retrial", "power") else "")
    vars_ = ", ".join(f"${sp.latex(v)}$" for v in model.variables)
    return (f"{POLICY_TEXT.get(model.name, model.name)}, {params}: variables {vars_}; "
            f"blocking $B = {sp.latex(model.blocking_expr())}$")


def _relation_in_a(model, max_degree):
    import sympy as sp
    return [sp.Eq(model.cubic_in_a(max_degree=max_degree).as_expr(), 0)]


def _polynomial_in_s(model, max_degree):
    import sympy as sp
    return [sp.Eq(sp.factor(model.quartic(max_degree=max_degree).as_expr()), 0)]


def _eliminant(model, max_degree):
    import sympy as sp
    Bsym = sp.Symbol("B", positive=True)
    return [sp.Eq(sp.collect(model.eliminant(max_degree=max_degree).as_expr(), Bsym), 0)]


def _expansion(model, at, n_series, max_seconds):
    import sympy as sp

    from ...meanfield.series import big_int_str, blocking_series
    with big_int_str():
        return [sp.Eq(sp.Symbol("B"), blocking_series(model, at, n_series, max_seconds=max_seconds))]


def _derive_steps(args, model, n_series: int, max_degree, max_seconds: float) -> list:
    """The sections after the stationary equations: ``(plain title, LaTeX title, func, args)``; each runs
    in the worker of :func:`symloss.core.budgets.run_with_deadline`."""
    import sympy as sp
    steps = []
    if args.policy in ("retrial", "random") and model.d > 1:
        steps.append(("relation between rho and the per-server load a (p = E(C, a), B = p^d)",
                      r"Relation between $\rho$ and the per-server load $a$ ($p = E(C, a)$, $B = p^d$)",
                      _relation_in_a, (model, max_degree)))
    if args.policy == "power" and model.d > 1 and not args.no_eliminant:
        steps.append(("polynomial in s = u_C after eliminating u_1 .. u_{C-1} (B = s^d)",
                      r"Polynomial in $s = u_C$ after eliminating $u_1, \dots, u_{C-1}$ ($B = s^d$)",
                      _polynomial_in_s, (model, max_degree)))
    if args.policy != "jsq" and not args.no_eliminant:
        steps.append(("eliminant P(rho, B) = 0 (the factor that vanishes on the physical branch)",
                      r"Eliminant $P(\rho, B) = 0$ (the factor that vanishes on the physical branch)",
                      _eliminant, (model, max_degree)))
    for at in (0, sp.oo) if n_series else ():
        where, where_tex = ("0", "0") if at == 0 else ("oo", r"\infty")
        steps.append((f"expansion of the blocking at rho -> {where}",
                      rf"Expansion of the blocking at $\rho \to {where_tex}$",
                      _expansion, (model, at, n_series, max_seconds)))
    return steps


def _cheaper(args, C: int, n_series: int, eliminations: bool) -> str:
    """The cheaper options of ``derive`` that exist for this command line, for a time-limit error."""
    tips = []
    if n_series:
        tips.append("--series 0 (no expansions)")
        if n_series > 1:
            tips.append(f"--series {n_series - 1} (fewer terms)")
    if eliminations and not args.no_eliminant:
        tips.append("--no-eliminant (no resultants)")
    if C > 1:
        tips.append(f"a smaller --C (e.g. --C {max(1, C // 2)})")
    tips.append("or a larger --max-seconds")
    return "; cheaper: " + ", ".join(tips)


def _print_section(title, eqs) -> None:
    import sympy as sp
    lines = ["", title]          # a blank line before each section, none at the end
    for e in eqs:
        lines.append("  " + (f"{sp.sstr(e.lhs)} = {sp.sstr(e.rhs)}" if isinstance(e, sp.Equality) else sp.sstr(e)))
    print("\n".join(lines), flush=True)


def _derive(args) -> int:
    from ...core.budgets import TimeLimitExceeded, run_with_deadline
    from ...core.latex import document, math_block
    from ...core.provenance import provenance, provenance_lines
    if args.C is None:
        raise CliError("--C is required (e.g. --policy power --C 2 --d 2)")
    C = parse_int(args.C, "--C", min_value=1, max_value=MAX_C)
    d = None if args.d is None else parse_int(args.d, "--d", min_value=1, max_value=MAX_D)
    n_series = parse_int(args.series, "--series", min_value=0, max_value=20)
    width = parse_int("300" if args.width is None else args.width, "--width", min_value=100, max_value=2000)
    max_degree = None if args.max_degree is None else \
        parse_int(args.max_degree, "--max-degree", min_value=1, max_value=10 ** 6)
    max_seconds = parse_real("120" if args.max_seconds is None else args.max_seconds, "--max-seconds", lower=0,
                             lower_open=True, upper=86400)
    if args.standalone and args.latex is None:
        raise CliError("--standalone is used with --latex (a whole LaTeX document)")
    if args.latex is None:
        refuse_unused(args, [("width", "--width")], "only with --latex (the line width of the LaTeX output)")
    if args.policy == "jsq":
        refuse_unused(args, [("no_eliminant", "--no-eliminant"), ("max_degree", "--max-degree")],
                      "only by the eliminations, and --policy jsq has none")
    elif args.no_eliminant and not (args.policy in ("retrial", "random") and (d or 1) > 1):
        refuse_unused(args, [("max_degree", "--max-degree")], "only by the eliminations, and --no-eliminant skips "
                      f"every elimination of --policy {args.policy}" + (f" with --d {d}" if d else ""))
    outs = outputs(args, "latex", "json")
    model = make_model(args.policy, C, d)
    steps = _derive_steps(args, model, n_series, max_degree, float(max_seconds))
    if not steps:
        refuse_unused(args, [("max_seconds", "--max-seconds")], "only by the eliminations and the expansions "
                      "(here --series 0" + (" and --no-eliminant" if args.no_eliminant else "") + " leave none)")
    text = STDOUT not in outs.values()     # the text output goes to stdout, section by section
    sections = []   # (plain title, latex title, equations)
    with Stages(args, ["stationary equations"] + [t for t, *_ in steps], f"derive {args.policy} C={C}") as st:
        st.start("stationary equations")
        if args.policy == "jsq":
            import sympy as sp
            sections.append(("fluid JSQ (join the shortest queue): blocking", "Blocking of fluid JSQ",
                             [sp.Eq(sp.Symbol("B"), model.blocking_expr())]))
        else:
            sections.append(("stationary equations (drift = 0, from the model's transitions)",
                             "Stationary equations (drift $= 0$, from the model's transitions)",
                             list(model.stationary_equations())))
        st.done()
        if text:         # the equations first, as soon as they are derived
            print(_model_title(model, False), flush=True)
            _print_section(sections[0][0], sections[0][2])
        titles = {t: tt for t, tt, *_ in steps}
        eliminations = any(fn is not _expansion for *_, fn, _a in steps)
        try:
            if steps:
                st.start(steps[0][0])
            work = run_with_deadline([(t, fn, a) for t, _, fn, a in steps], float(max_seconds),
                                     what="derive", name="--max-seconds")
            for i, (title, eqs) in enumerate(work):
                sections.append((title, titles[title], eqs))
                st.done()
                if i + 1 < len(steps):
                    st.start(steps[i + 1][0])
                if text:
                    _print_section(title, eqs)
        except TimeLimitExceeded as exc:
            raise TimeLimitExceeded(str(exc).rstrip(".") + _cheaper(args, C, n_series, eliminations)) from None
    prov = provenance()
    if "json" in outs:
        data = {"model": repr(model), "policy": args.policy, "C": C, "d": model.d,
                "variables": [str(v) for v in model.variables], "blocking": str(model.blocking_expr()),
                "sections": [{"title": t, "equations": [_eq_json(e) for e in eqs]} for t, _, eqs in sections]}
        write_json(outs["json"], data, provenance=prov)
    if "latex" in outs:
        parts = []
        for title, title_tex, eqs in sections:
            if args.standalone:
                parts.append(r"\subsection*{" + title_tex + "}")
            else:
                parts.append("% " + title)
            parts.append(math_block(eqs, width=float(width)))
            parts.append("")
        body = "\n".join(parts).rstrip() + "\n"
        comment = "\n".join(line[2:] for line in provenance_lines(prov))
        if args.standalone:
            text_doc = document(r"\noindent " + _model_title(model, True) + "\n\n" + body, comment=comment,
                                packages=("amsmath", "amssymb"))
        else:
            text_doc = "\n".join("% " + ln for ln in comment.splitlines()) + "\n% " + _model_title(model, False) + \
                "\n\n" + body
        write_text(outs["latex"], text_doc)
    return 0


def _eq_json(e) -> dict:
    import sympy as sp
    if isinstance(e, sp.Equality):
        return {"lhs": sp.sstr(e.lhs), "rhs": sp.sstr(e.rhs), "latex": sp.latex(e)}
    return {"expr": sp.sstr(e), "latex": sp.latex(e)}


# ==================================================================================================
# registration
# ==================================================================================================

def _model_options(p, *, rho: bool = True, dps_default: str | None = "30") -> None:
    p.add_argument("--policy", required=True, choices=POLICIES, help="load-balancing policy")
    p.add_argument("--C", default=None, help="capacity of each server, integer >= 1 (required)")
    p.add_argument("--d", default=None, help="attempts (retrial) or samples (power), integer >= 1")
    if rho:
        p.add_argument("--rho", default=None,
                       help="load per server, real > 0 (decimal or p/q, read exactly; required)")
    if dps_default is not None:
        p.add_argument("--dps", default=dps_default,
                       help=f"significant digits, integer in [5, 100000] (default {dps_default})")


def register(sub) -> None:
    p = sub.add_parser(
        "blocking", help="mean-field blocking of retrial-of-d, power-of-d, random routing or JSQ",
        description="Stationary mean-field blocking probability (Cuesta, Jonckheere, Prabhu and Brun 2026) at "
                    "load RHO to DPS significant digits, certified by ball arithmetic (values far below the "
                    "float range are printed exactly as well).")
    _model_options(p)
    p.add_argument("--fixed-point", action="store_true", help="also print the occupancy vector and the residual")
    add_output(p, "json", "the fixed point as JSON (with provenance)")
    add_output(p, "latex", "the fixed point as a LaTeX table")
    p.set_defaults(func=_run_blocking)

    p = sub.add_parser(
        "threshold", help="load above which retrial-of-dt blocks less than power-of-d",
        description="threshold_load(C, d, dt): the load above which retrial-of-dt blocks strictly "
                    "less than power-of-d at every larger load (mean field); 0 if at every load.")
    p.add_argument("--C", required=True, help="capacity, integer in [1, 1000]")
    p.add_argument("--d", required=True, help="samples of power-of-d, integer >= 1")
    p.add_argument("--dt", required=True, help="attempts of retrial-of-dt, integer > d")
    p.add_argument("--dps", default="30", help="significant digits, integer in [5, 100000] (default 30)")
    add_output(p, "json", "JSON with the run time and the provenance")
    p.add_argument("--certified", action="store_true",
                   help="certified for every load: the threshold as an interval of width <= 10^-dps, the number of "
                        "crossings and a pointer to the certificate")
    p.add_argument("--certificate", metavar="PATH", default=None, help="with --certified: write the certificate")
    p.set_defaults(func=_run_threshold)

    p = sub.add_parser(
        "table", help="table of threshold loads over ranges of C, d and dt",
        description="Threshold loads for every C, d, dt in inclusive ranges (A:B, A:B:STEP, or a "
                    "comma list); --dt may be relative to d (d+1:d+2). A progress bar goes to "
                    "stderr, the table to stdout. Exit status 1 if any entry failed. CSV files are plain "
                    "(pandas.read_csv(path) reads them); the provenance is in <path>.provenance.json.")
    p.add_argument("--C", required=True, help="capacities, e.g. 1:10")
    p.add_argument("--d", required=True, help="power-of-d sample counts, e.g. 2:4")
    p.add_argument("--dt", required=True, help="retrial attempts, e.g. d+1:d+2 or 3:5")
    p.add_argument("--dps", default="20", help="significant digits, integer in [5, 100000] (default 20)")
    add_output(p, "json", "the table as JSON (with provenance)")
    add_output(p, "csv", "the table as a plain CSV (provenance in <path>.provenance.json)")
    add_output(p, "latex", "the table as a LaTeX tabular (booktabs)")
    p.add_argument("--certified", action="store_true",
                   help="certified thresholds (intervals, crossing counts, certificates) instead of the scan")
    p.add_argument("--certificates", metavar="DIR", default=None, help="with --certified: write each certificate")
    add_progress(p)
    p.set_defaults(func=_run_table)

    p = sub.add_parser(
        "derive", help="stationary equations, eliminant and expansions of a mean-field model",
        description="Print the stationary equations generated from the model's transitions, the "
                    "scalar reduction (retrial: relation in a; power: polynomial in u_C), the "
                    "eliminant P(rho, B) and the expansions of B at rho -> 0 and rho -> oo. "
                    "--latex gives complete display environments (align*, multline*; amsmath only) with "
                    "long sums broken over lines to fit --width points; --standalone a whole document. "
                    "The eliminant grows quickly with C and d (--no-eliminant).")
    _model_options(p, rho=False, dps_default=None)
    add_output(p, "latex", "LaTeX display environments (amsmath)")
    p.add_argument("--standalone", action="store_true", help="with --latex: a whole document (pdflatex-ready)")
    p.add_argument("--width", default=None,
                   help="with --latex: target line width in points (default 300 for a 345pt single column; "
                        "about 220 for a two-column layout)")
    add_output(p, "json", "the equations as JSON (text and LaTeX)")
    p.add_argument("--no-eliminant", action="store_true", help="skip the resultant computations")
    p.add_argument("--max-degree", default=None,
                   help="refuse an elimination whose predicted degree (d^C for power-of-d, C(d-1)+1 for retrial) "
                        "exceeds this, before it starts (default: 48 for the eliminants, 128 for the relation in a)")
    p.add_argument("--series", default="2", help="number of terms of the expansions (0: none; default 2)")
    p.add_argument("--max-seconds", default=None,
                   help="wall-clock budget in seconds of the eliminations and expansions together (default 120); "
                        "they run in a worker process stopped at the deadline, the stationary equations are "
                        "printed before")
    add_progress(p)
    p.set_defaults(func=_run_derive)
