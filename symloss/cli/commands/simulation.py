"""``symloss simulate`` and ``symloss finite-n``: finite-N load balancing in loss systems (seed 000)."""
from __future__ import annotations


def _events(text: str) -> int:
    v = float(text)
    if not v.is_integer():
        raise ValueError(f"events must be an integer, got {text}")
    return int(v)


def register(sub) -> None:
    p = sub.add_parser(
        "simulate", help="simulate N loss servers under random / retrial / power-of-d / JSQ routing",
        description="Estimate the stationary blocking of N servers of capacity C (Poisson arrivals N*rho, "
                    "unit-rate exponential services) with a 95%% confidence interval; optionally beside the "
                    "exact finite-N value (small N) and the (refined) mean field.")
    p.add_argument("policy", choices=["random", "retrial", "power", "jsq"])
    p.add_argument("-N", type=int, required=True, help="number of servers")
    p.add_argument("-C", type=int, required=True, help="capacity of each server")
    p.add_argument("--rho", type=float, required=True, help="load per server")
    p.add_argument("-d", type=int, default=None, help="attempts (retrial) / samples (power)")
    p.add_argument("--events", type=_events, default=2_000_000, help="events per replication (default 2e6)")
    p.add_argument("--warmup", type=_events, default=None, help="warm-up events per replication")
    p.add_argument("--replications", type=int, default=1,
                   help="independent replications (1: batch-means interval)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--sampling", choices=["with_replacement", "without_replacement"],
                   default="with_replacement")
    p.add_argument("--exact", action="store_true", help="also solve the exact occupancy-count chain")
    p.add_argument("--refined", action="store_true", help="also print the (refined) mean field B + V/N")
    p.set_defaults(func=run_simulate)

    q = sub.add_parser(
        "finite-n", help="finite-N load threshold above which retrial-of-dt beats power-of-d",
        description="Exact (small chains) or simulated threshold with a 95%% interval, beside the refined "
                    "and the plain mean-field thresholds.")
    q.add_argument("-C", type=int, required=True)
    q.add_argument("-d", type=int, required=True)
    q.add_argument("--dt", type=int, required=True)
    q.add_argument("-N", type=int, required=True)
    q.add_argument("--method", choices=["auto", "exact", "simulation"], default="auto")
    q.add_argument("--events", type=_events, default=None)
    q.add_argument("--replications", type=int, default=8)
    q.add_argument("--seed", type=int, default=0)
    q.set_defaults(func=run_threshold)


def run_simulate(args) -> int:
    import symloss
    r = symloss.simulate(args.policy, N=args.N, C=args.C, rho=args.rho, d=args.d, events=args.events,
                         warmup=args.warmup, replications=args.replications, seed=args.seed,
                         sampling=args.sampling)
    print(r)
    print(f"occupancy fractions k = 0..{args.C}: " + " ".join(f"{v:.6f}" for v in r.occupancy))
    print(f"lost fraction {r.lost_fraction:.6g}; {r.events_per_second / 1e6:.1f} M events/s; "
          f"compile/load {r.compile_time:.2f} s")
    if args.exact:
        e = symloss.exact_finite_n(args.policy, args.N, args.C, args.rho, args.d, sampling=args.sampling)
        print(f"exact B_N = {e.blocking:.10g} ({e.n_states} states), inside the interval: {r.covers(e.blocking)}")
    if args.refined:
        m = symloss.refined_mean_field(args.policy, rho=args.rho, C=args.C, d=args.d, N=args.N)
        print(f"mean field B = {m.blocking_mf:.10g}; refined B + V/N = {m.blocking_refined:.10g} (V = {m.V:.6g})")
    return 0


def run_threshold(args) -> int:
    import symloss
    t = symloss.finite_n_threshold(args.C, args.d, args.dt, args.N, method=args.method, events=args.events,
                                   replications=args.replications, seed=args.seed)
    print(f"C={t.C} d={t.d} dt={t.dt} N={t.N}: threshold {t.threshold:.6g}, 95% CI ({t.ci[0]:.6g}, "
          f"{t.ci[1]:.6g}) [{t.method}]")
    print(f"refined mean field: {t.refined}; mean field: {t.mean_field}")
    return 0
