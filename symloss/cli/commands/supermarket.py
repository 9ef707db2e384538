"""``symloss supermarket``: the supermarket model on graphs (seed 002).

* ``symloss supermarket meanfield --d 2 --lam 0.7 [--dps 40] [--json]``
* ``symloss supermarket pair --k 3 --lam 0.7``
* ``symloss supermarket simulate --family random_regular --N 10000 --k 3 --d 2 --lam 0.7 --t-end 100 [--seed 1]``
* ``symloss supermarket distance --family erdos_renyi --N 1000 --c ln --lam 0.7 --T 10 --runs 4 [--annealed]``
"""
from __future__ import annotations

import json
import sys
from fractions import Fraction


def _lam(text: str):
    s = str(text).strip()
    try:
        v = Fraction(s)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"--lam must be a number in (0, 1) such as 0.7 or 7/10, got {text!r}") from None
    return v


def _c(text):
    if text is None:
        return None
    if text in ("ln", "ln2"):
        return text
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"--c must be a number, 'ln' or 'ln2', got {text!r}") from None


def _run(args) -> int:
    import symloss
    from symloss.supermarket import Supermarket
    try:
        lam = _lam(args.lam)
        if args.what == "meanfield":
            m = Supermarket(args.d, lam)
            fp = m.fixed_point(args.dps)
            import mpmath
            out = {"d": args.d, "lam": str(lam),
                   "mean_queue_length": mpmath.nstr(m.mean_queue_length(args.dps), args.dps),
                   "sojourn_time": mpmath.nstr(m.sojourn_time(args.dps), args.dps), "K": fp.K,
                   "tail_bound": mpmath.nstr(fp.tail_bound, 5), "symbolic_check": fp.symbolic_check,
                   "s": [mpmath.nstr(x, args.dps) for x in fp.s]}
        elif args.what == "pair":
            r = symloss.pair_approximation(args.k, float(lam))
            out = r.to_dict()
            out["mean_field"] = float(Supermarket(2, lam).mean_queue_length(15))
        elif args.what == "simulate":
            g = symloss.make_graph(args.family, args.N, k=args.k, c=_c(args.c), seed=args.seed)
            r = symloss.simulate_supermarket(g, d=args.d, lam=float(lam), t_end=args.t_end, seed=args.seed,
                                             replace=args.replace)
            out = {"graph": r.graph, "d": r.d, "lam": r.lam, "mean_queue_length": r.mean_queue_length,
                   "ci95": list(r.ci), "events": r.events, "events_per_second": r.events_per_second,
                   "mean_field": float(Supermarket(args.d, lam).mean_queue_length(15)),
                   "stationary_s": r.stationary_s[:8].tolist()}
        else:
            r = symloss.ode_distance(args.family, N=args.N, k=args.k, c=_c(args.c), d=args.d, lam=float(lam),
                                     T=args.T, runs=args.runs, seed=args.seed,
                                     mode="annealed" if args.annealed else "quenched")
            out = {k: v for k, v in r.to_dict().items() if k != "graphs"}
    except (ValueError, TypeError) as exc:
        print(f"symloss supermarket: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out, indent=2, default=str))
    else:
        for k, v in out.items():
            print(f"{k:>20}: {v}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("supermarket", help="supermarket model on graphs (seed 002)",
                       description="Mean field, pair approximation, simulation on graphs and the distance "
                                   "to the mean-field ODE for JSQ(d) on graphs.")
    p.add_argument("what", choices=["meanfield", "pair", "simulate", "distance"])
    p.add_argument("--d", type=int, default=2, help="number of queues compared (default 2)")
    p.add_argument("--lam", required=True, help="arrival rate per server in (0, 1), e.g. 0.7 or 7/10")
    p.add_argument("--dps", type=int, default=30, help="digits for meanfield (default 30)")
    p.add_argument("--k", type=int, default=None, help="degree (pair, random_regular, ring, torus)")
    p.add_argument("--family", default="complete", help="graph family (complete, random_regular, "
                                                      "erdos_renyi, ring, torus)")
    p.add_argument("--N", type=int, default=1000, help="number of vertices")
    p.add_argument("--c", default=None, help="Erdos-Renyi mean degree: a number, 'ln' or 'ln2'")
    p.add_argument("--t-end", type=float, default=100.0, help="simulated time (simulate)")
    p.add_argument("--T", type=float, default=10.0, help="horizon (distance)")
    p.add_argument("--runs", type=int, default=4, help="runs (distance)")
    p.add_argument("--annealed", action="store_true", help="new graph per run (distance)")
    p.add_argument("--replace", action="store_true", help="sample neighbours with replacement")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_run)
