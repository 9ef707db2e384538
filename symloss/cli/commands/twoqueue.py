"""``symloss twoqueue``: the shortest-queue Erlang loss model (two M/M/N/N queues under JSQ; Yao and Knessl,
*On the shortest queue version of the Erlang loss model*, 2008).

    symloss twoqueue --N 20 --rho 20 [--method float|mp|exact|symbolic] [--dps 30] [--asymptotic]
                     [--latex [PATH]] [--json [PATH]]

``N`` and ``rho`` may also be given as positional arguments (``symloss twoqueue 20 20``).
"""
from __future__ import annotations

from .._common import (
    STDOUT,
    CliError,
    Stages,
    add_output,
    add_progress,
    outputs,
    parse_dps,
    parse_int,
    parse_load,
    refuse_unused,
    write_json,
    write_text,
)


def _pick(pos, opt, name):
    if pos is not None and opt is not None and pos != opt:
        raise CliError(f"{name} given twice (positional {pos!r} and {name} {opt!r})")
    v = pos if pos is not None else opt
    if v is None:
        raise CliError(f"{name} is required (e.g. symloss twoqueue --N 20 --rho 20)")
    return v


def _run(args) -> int:
    from symloss.twoqueue import TwoQueueJSQ, jsq_regime

    from ...core.provenance import provenance
    N = parse_int(_pick(args.N_pos, args.N, "--N"), "--N", min_value=1, max_value=100_000)
    rho_q = parse_load(_pick(args.rho_pos, args.rho, "--rho"))
    dps = parse_dps("30" if args.dps is None else args.dps)
    if args.latex is not None and args.method not in ("symbolic", "exact"):
        raise CliError("--latex needs --method exact or --method symbolic (p(m, n) as fractions)")
    if args.method != "mp":     # TwoQueueJSQ.stationary_distribution reads dps only for method="mp"
        refuse_unused(args, [("dps", "--dps")], f"only with --method mp (--method {args.method} "
                      + ("is float64)" if args.method == "float" else "is exact)"))
    if args.method == "symbolic":
        refuse_unused(args, [("asymptotic", "--asymptotic")], "only at a numeric load (not with --method symbolic)")
    outs = outputs(args, "json", "latex")
    rho = rho_q if args.method in ("exact", "symbolic") else float(rho_q)
    model = TwoQueueJSQ(N, rho)
    with Stages(args, ["solve"], f"twoqueue {args.method}") as st:
        st.start(f"N={N}")
        res = model.stationary_distribution(args.method, dps=dps)
        st.done()
    a = N / float(rho_q)
    out = {
        "N": N, "rho": str(rho_q), "a": a, "regime": jsq_regime(a, float(rho_q)),
        "method": args.method, "seconds": round(res.seconds, 4),
        "blocking": str(res.blocking()), "P(m=n)": str(res.imbalance()[0]),
        "residual": res.residual, "error": res.error,
    }
    if args.method == "mp":
        out["dps"] = dps
    if args.asymptotic and args.method != "symbolic":
        out["asymptotic_blocking"] = model.asymptotic("blocking")
        out["asymptotic_P(m=n)"] = float(model.asymptotic("imbalance")[0])
    if "json" in outs:
        write_json(outs["json"], out, provenance=provenance(dps=dps if args.method == "mp" else None))
    if "latex" in outs:
        write_text(outs["latex"], r"\begin{equation*}" + "\n" + res.to_latex() + "\n" + r"\end{equation*}")
    if STDOUT in outs.values():
        return 0
    for k, v in out.items():
        print(f"{k:22s} {v}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("twoqueue", help="two M/M/N/N queues under join-the-shortest-queue",
                       description="Exact stationary law of the shortest-queue Erlang loss model (Yao and Knessl "
                                   "2008): blocking (= E(2N, rho)), P(m = n), and optionally the asymptotic "
                                   "values.")
    p.add_argument("N_pos", nargs="?", metavar="N", help="servers per queue (or --N)")
    p.add_argument("rho_pos", nargs="?", metavar="RHO", help="offered load lambda/mu (or --rho)")
    p.add_argument("--N", default=None, help="servers per queue, integer >= 1")
    p.add_argument("--rho", default=None, help="offered load lambda/mu, real > 0 (a fraction such as 7/3 is "
                                                "read exactly for --method exact/symbolic)")
    p.add_argument("--method", default="float", choices=["float", "mp", "exact", "symbolic"],
                   help="float (default), mp (DPS digits), exact (rationals) or symbolic (in rho)")
    p.add_argument("--dps", default=None, help="digits for --method mp (only), integer in [5, 100000] (default 30)")
    p.add_argument("--asymptotic", action="store_true", help="also print the asymptotic approximations")
    add_output(p, "latex", "p(m, n) as LaTeX (with --method exact or symbolic)")
    add_output(p, "json", "the results as JSON with provenance")
    add_progress(p)
    p.set_defaults(func=_run)
