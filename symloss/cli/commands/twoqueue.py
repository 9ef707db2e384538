"""``symloss twoqueue``: the shortest-queue Erlang loss model (two M/M/N/N queues under JSQ, seed 003)."""
from __future__ import annotations


def _run(args) -> int:
    import json
    from fractions import Fraction

    from symloss.twoqueue import TwoQueueJSQ, jsq_regime
    rho = Fraction(args.rho) if args.method in ("exact", "symbolic") else float(Fraction(args.rho))
    model = TwoQueueJSQ(args.N, rho)
    res = model.stationary_distribution(args.method, dps=args.dps)
    a = args.N / float(Fraction(args.rho))
    out = {
        "N": args.N, "rho": args.rho, "a": a, "regime": jsq_regime(a, float(Fraction(args.rho))),
        "method": args.method, "seconds": round(res.seconds, 4),
        "blocking": str(res.blocking()), "P(m=n)": str(res.imbalance()[0]),
        "residual": res.residual, "error": res.error,
    }
    if args.asymptotic and args.method != "symbolic":
        out["asymptotic_blocking"] = model.asymptotic("blocking")
        out["asymptotic_P(m=n)"] = float(model.asymptotic("imbalance")[0])
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for k, v in out.items():
            print(f"{k:22s} {v}")
    if args.latex and args.method in ("symbolic", "exact"):
        print(res.to_latex())
    return 0


def register(sub) -> None:
    p = sub.add_parser("twoqueue", help="two M/M/N/N queues under join-the-shortest-queue (seed 003)",
                       description="Exact stationary law of the shortest-queue Erlang loss model: blocking "
                                   "(= E(2N, rho)), P(m = n), and optionally the asymptotic values.")
    p.add_argument("N", type=int, help="servers per queue")
    p.add_argument("rho", help="offered load lambda/mu (a fraction such as 7/3 for --method exact)")
    p.add_argument("--method", default="float", choices=["float", "mp", "exact", "symbolic"])
    p.add_argument("--dps", type=int, default=30, help="digits for --method mp")
    p.add_argument("--asymptotic", action="store_true", help="also print the asymptotic approximations")
    p.add_argument("--latex", action="store_true", help="print p(m, n) as LaTeX (exact/symbolic)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_run)
