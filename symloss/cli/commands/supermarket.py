"""``symloss supermarket``: the supermarket model on graphs (Budhiraja, Mukherjee and Wu, *Supermarket
model on graphs*, 2019).

* ``symloss supermarket meanfield --d 2 --lam 0.7 [--dps 40] [--json]``
* ``symloss supermarket pair --k 3 --lam 0.7``
* ``symloss supermarket simulate --family random_regular --N 10000 --k 3 --d 2 --lam 0.7 --t-end 100 [--seed 1]``
* ``symloss supermarket distance --family erdos_renyi --N 1000 --c ln --lam 0.7 --T 10 --runs 4 [--annealed]``
"""
from __future__ import annotations

from .._common import (
    CliError,
    Stages,
    add_output,
    add_progress,
    outputs,
    parse_dps,
    parse_int,
    parse_real,
    parse_seed,
    refuse_unused,
)
from ._shared import json_output


def _lam(text: str):
    return parse_real(text, "--lam", lower=0, upper=1, lower_open=True, upper_open=True, example="0.7 or 7/10")


def _c(text):
    if text is None:
        return None
    if text in ("ln", "ln2"):
        return text
    return float(parse_real(text, "--c", lower=0, lower_open=True, example="8, 'ln' or 'ln2'"))


def _run(args) -> int:
    import mpmath

    import symloss
    from symloss.supermarket import Supermarket

    from ...core.provenance import provenance
    if args.lam is None:
        raise CliError("--lam is required (arrival rate per server in (0, 1), e.g. 0.7)")
    lam = _lam(args.lam)
    for dest, flag in _OPTIONS:
        if args.what not in _USED_BY[dest]:
            refuse_unused(args, [(dest, flag)], f"only by supermarket {' and '.join(_USED_BY[dest])}, not by "
                          f"supermarket {args.what}")
    d = parse_int(args.d or "2", "--d", min_value=1, max_value=1000)
    dps = parse_dps(args.dps or "30")
    k = None if args.k is None else parse_int(args.k, "--k", min_value=1)
    N = parse_int(args.N or "1000", "--N", min_value=1)
    seed = parse_seed(args.seed or "0")
    t_end = float(parse_real(args.t_end or "100", "--t-end", lower=0, lower_open=True, max_magnitude=1e9))
    T = float(parse_real(args.T or "10", "--T", lower=0, lower_open=True, max_magnitude=1e9))
    runs = parse_int(args.runs or "4", "--runs", min_value=1, max_value=100_000)
    outs = outputs(args, "json")
    if args.what == "pair" and k is None:
        raise CliError("supermarket pair needs --k (the degree of the regular graph)")
    with Stages(args, [args.what], f"supermarket {args.what}") as st:
        st.start(args.what)
        if args.what == "meanfield":
            m = Supermarket(d, lam)
            fp = m.fixed_point(dps)
            out = {"d": d, "lam": str(lam), "dps": dps,
                   "mean_queue_length": mpmath.nstr(m.mean_queue_length(dps), dps),
                   "sojourn_time": mpmath.nstr(m.sojourn_time(dps), dps), "K": fp.K,
                   "tail_bound": mpmath.nstr(fp.tail_bound, 5), "symbolic_check": fp.symbolic_check,
                   "s": [mpmath.nstr(x, dps) for x in fp.s]}
            prov = provenance(dps=dps)
        elif args.what == "pair":
            r = symloss.pair_approximation(k, float(lam))
            out = r.to_dict()
            out["mean_field"] = float(Supermarket(2, lam).mean_queue_length(15))
            prov = provenance()
        elif args.what == "simulate":
            g = symloss.make_graph(args.family or "complete", N, k=k, c=_c(args.c), seed=seed)
            r = symloss.simulate_supermarket(g, d=d, lam=float(lam), t_end=t_end, seed=seed, replace=args.replace)
            out = {"graph": r.graph, "d": r.d, "lam": r.lam, "seed": seed, "mean_queue_length": r.mean_queue_length,
                   "ci95": list(r.ci), "events": r.events, "events_per_second": r.events_per_second,
                   "mean_field": float(Supermarket(d, lam).mean_queue_length(15)),
                   "stationary_s": r.stationary_s[:8].tolist()}
            prov = provenance(seed=seed)
        else:
            r = symloss.ode_distance(args.family or "complete", N=N, k=k, c=_c(args.c), d=d, lam=float(lam), T=T,
                                     runs=runs, seed=seed, mode="annealed" if args.annealed else "quenched",
                                     replace=args.replace)
            out = {key: v for key, v in r.to_dict().items() if key != "graphs"}
            out["seed"] = seed
            prov = provenance(seed=seed)
        st.done()
    if "json" in outs:
        if json_output(outs, out, prov):
            return 0
    for key, v in out.items():
        print(f"{key:>20}: {v}")
    return 0


#: (dest, option) of the options that only some of the four computations read, and which read them: the
#: others refuse them (they would be silently ignored).
_OPTIONS = (("d", "--d"), ("dps", "--dps"), ("k", "--k"), ("family", "--family"), ("N", "--N"), ("c", "--c"),
            ("t_end", "--t-end"), ("T", "--T"), ("runs", "--runs"), ("annealed", "--annealed"),
            ("replace", "--replace"), ("seed", "--seed"))
_USED_BY = {"d": ("meanfield", "simulate", "distance"), "dps": ("meanfield",),
            "k": ("pair", "simulate", "distance"), "family": ("simulate", "distance"),
            "N": ("simulate", "distance"), "c": ("simulate", "distance"), "t_end": ("simulate",),
            "T": ("distance",), "runs": ("distance",), "annealed": ("distance",),
            "replace": ("simulate", "distance"), "seed": ("simulate", "distance")}


def register(sub) -> None:
    p = sub.add_parser("supermarket", help="supermarket model on graphs (JSQ(d) with neighbours)",
                       description="Mean field, pair approximation, simulation on graphs and the distance "
                                   "to the mean-field ODE for JSQ(d) on graphs (Budhiraja, Mukherjee and Wu, "
                                   "Supermarket model on graphs, 2019).")
    p.add_argument("what", choices=["meanfield", "pair", "simulate", "distance"], help="what to compute")
    p.add_argument("--d", default=None, help="number of queues compared, integer >= 1 (default 2)")
    p.add_argument("--lam", default=None, help="arrival rate per server in (0, 1), e.g. 0.7 or 7/10 (required)")
    p.add_argument("--dps", default=None, help="digits for meanfield, integer in [5, 100000] (default 30)")
    p.add_argument("--k", default=None, help="degree (pair, random_regular, ring, torus)")
    p.add_argument("--family", default=None, help="graph family (complete, random_regular, "
                                                      "erdos_renyi, ring, torus)")
    p.add_argument("--N", default=None, help="number of vertices (default 1000)")
    p.add_argument("--c", default=None, help="Erdos-Renyi mean degree: a number, 'ln' or 'ln2'")
    p.add_argument("--t-end", default=None, help="simulated time (simulate; default 100)")
    p.add_argument("--T", default=None, help="horizon (distance; default 10)")
    p.add_argument("--runs", default=None, help="runs (distance; default 4)")
    p.add_argument("--annealed", action="store_true", help="new graph per run (distance)")
    p.add_argument("--replace", action="store_true", help="sample neighbours with replacement")
    p.add_argument("--seed", default=None, help="seed of the graph and the simulation, integer >= 0 (default 0)")
    add_output(p, "json", "the results as JSON with provenance")
    add_progress(p)
    p.set_defaults(func=_run)
