"""``symloss simulate`` and ``symloss finite-n``: finite-N load balancing in loss systems (the finite-N
systems behind the mean field of Cuesta, Jonckheere, Prabhu and Brun 2026).

    symloss simulate --policy retrial --N 100 --C 2 --d 2 --rho 1 [--events 2e6] [--replications R]
                     [--seed S] [--exact] [--refined] [--json [PATH]]
    symloss finite-n --C 2 --d 3 --dt 4 --N 20 [--method auto|exact|simulation] [--json [PATH]]

The positional policy and ``-N``/``-C``/``-d`` of earlier versions still work (deprecated).
"""
from __future__ import annotations

from .._common import (
    POLICIES,
    CliError,
    Stages,
    add_output,
    add_progress,
    outputs,
    parse_events,
    parse_int,
    parse_load,
    parse_seed,
    progress_bar,
    refuse_unused,
)
from ._shared import add_short_aliases, json_output, need


def register(sub) -> None:
    p = sub.add_parser(
        "simulate", help="simulate N loss servers under random / retrial / power-of-d / JSQ routing",
        description="Estimate the stationary blocking of N servers of capacity C (Poisson arrivals N*rho, "
                    "unit-rate exponential services) with a 95% confidence interval; optionally beside the "
                    "exact finite-N value (small N) and the (refined) mean field. The seed is printed "
                    "(and recorded in --json): the same seed gives the same numbers.")
    p.add_argument("policy_pos", nargs="?", choices=POLICIES, metavar="POLICY", help="(deprecated: use --policy)")
    p.add_argument("--policy", choices=POLICIES, default=None, help="routing policy (required)")
    p.add_argument("--N", default=None, help="number of servers, integer >= 1 (required)")
    p.add_argument("--C", default=None, help="capacity of each server, integer >= 1 (required)")
    p.add_argument("--d", default=None, help="attempts (retrial) / samples (power), integer >= 1")
    p.add_argument("--rho", default=None, help="load per server, real > 0 (required)")
    add_short_aliases(p, "N", "C", "d")
    p.add_argument("--events", default="2e6", help="measured events per replication (default 2e6)")
    p.add_argument("--warmup", default=None, help="warm-up events per replication (default: see symloss.simulate)")
    p.add_argument("--replications", default="1", help="independent replications (1: batch-means interval)")
    p.add_argument("--seed", default="0", help="seed of numpy.random.SeedSequence, integer >= 0 (default 0)")
    p.add_argument("--sampling", choices=["with_replacement", "without_replacement"], default=None,
                   help="finite-N sampling of retrial / power (default with_replacement; random and jsq sample "
                        "no servers, so it is refused there)")
    p.add_argument("--exact", action="store_true", help="also solve the exact occupancy-count chain")
    p.add_argument("--refined", action="store_true", help="also print the (refined) mean field B + V/N")
    add_output(p, "json", "the estimate (and --exact/--refined values) as JSON with provenance")
    add_progress(p)
    p.set_defaults(func=run_simulate)

    q = sub.add_parser(
        "finite-n", help="finite-N load threshold above which retrial-of-dt beats power-of-d",
        description="Exact (small chains) or simulated threshold with a 95% interval, beside the refined "
                    "and the plain mean-field thresholds.")
    q.add_argument("--C", default=None, help="capacity of each server, integer >= 1 (required)")
    q.add_argument("--d", default=None, help="samples of power-of-d, integer >= 1 (required)")
    q.add_argument("--dt", default=None, help="attempts of retrial-of-dt, integer > d (required)")
    q.add_argument("--N", default=None, help="number of servers, integer >= 2 (required)")
    add_short_aliases(q, "C", "d", "N")
    q.add_argument("--method", choices=["auto", "exact", "simulation"], default="auto",
                   help="exact chain (small N), simulation, or auto (default)")
    q.add_argument("--events", default=None, help="events per replication of each simulation (simulation only)")
    q.add_argument("--replications", default=None, help="replications per load (simulation only; default 8)")
    q.add_argument("--seed", default=None, help="seed, integer >= 0 (simulation only; default 0)")
    add_output(q, "json", "the threshold as JSON with provenance")
    add_progress(q)
    q.set_defaults(func=run_threshold)


def run_simulate(args) -> int:
    import symloss

    from ...core.provenance import provenance
    from ...meanfield.policies import SAMPLES_SERVERS
    if args.policy and args.policy_pos and args.policy != args.policy_pos:
        raise CliError(f"--policy {args.policy} and the positional policy {args.policy_pos} differ")
    policy = args.policy or args.policy_pos
    if policy is None:
        raise CliError("--policy is required (random, retrial, power or jsq)")
    N = parse_int(need(args, "N", "--N"), "--N", min_value=1)
    C = parse_int(need(args, "C", "--C"), "--C", min_value=1)
    d = None if args.d is None else parse_int(args.d, "--d", min_value=1, max_value=64)
    rho = parse_load(need(args, "rho", "--rho"))
    events = parse_events(args.events)
    warmup = None if args.warmup is None else parse_int(args.warmup, "--warmup", min_value=0)
    reps = parse_int(args.replications, "--replications", min_value=1, max_value=100_000)
    seed = parse_seed(args.seed)
    if not SAMPLES_SERVERS[policy]:
        refuse_unused(args, [("sampling", "--sampling")], f"only with --policy retrial or power (--policy {policy} "
                      "samples no servers, so both conventions give the same chain)")
    sampling = args.sampling or "with_replacement"
    outs = outputs(args, "json")
    exact = refined = None
    # one bar in simulated events (warm-up included; the total is refined as the replications start),
    # with ETA; the companions run first and are named beside it
    with progress_bar(args, total=events * reps, desc=f"simulate {policy}", unit="event", unit_scale=True) as bar:
        # the cheap companions first: the API's own checks (e.g. no refined mean field without replacement)
        # refuse a combination before the long simulation runs
        if args.refined:
            bar.set_postfix_str("refined mean field")
            refined = symloss.refined_mean_field(policy, rho=float(rho), C=C, d=d, N=N, sampling=sampling)
        if args.exact:
            bar.set_postfix_str("exact chain")
            exact = symloss.exact_finite_n(policy, N, C, float(rho), d, sampling=sampling)
        bar.set_postfix_str(f"N={N}, {reps} x {events:.3g} events" if reps > 1 else f"N={N}")

        def advance(done, total):
            if bar.total != total:
                bar.total = total
            bar.update(done - bar.n)
        r = symloss.simulate(policy, N=N, C=C, rho=float(rho), d=d, events=events, warmup=warmup,
                             replications=reps, seed=seed, sampling=sampling, progress=advance)
    if "json" in outs:
        data = {"simulation": r.to_dict(), "seed": seed}
        if exact is not None:
            data["exact"] = exact.to_dict()
        if refined is not None:
            data["refined"] = refined.to_dict()
        if json_output(outs, data, provenance(seed=seed)):
            return 0
    print(repr(r))
    print(f"seed {seed} (numpy.random.SeedSequence; --seed {seed} reproduces these numbers)")
    print(f"occupancy fractions k = 0..{C}: " + " ".join(f"{v:.6f}" for v in r.occupancy))
    print(f"lost fraction {r.lost_fraction:.6g}; {r.events_per_second / 1e6:.1f} M events/s; "
          f"compile/load {r.compile_time:.2f} s")
    if exact is not None:
        print(f"exact B_N = {exact.blocking:.10g} ({exact.n_states} states), inside the interval: "
              f"{r.covers(exact.blocking)}")
    if refined is not None:
        print(f"mean field B = {refined.blocking_mf:.10g}; refined B + V/N = {refined.blocking_refined:.10g} "
              f"(V = {refined.V:.6g})")
    return 0


def run_threshold(args) -> int:
    import symloss

    from ...core.provenance import provenance
    C = parse_int(need(args, "C", "--C"), "--C", min_value=1)
    d = parse_int(need(args, "d", "--d"), "--d", min_value=1, max_value=64)
    dt = parse_int(need(args, "dt", "--dt"), "--dt", min_value=1, max_value=64)
    N = parse_int(need(args, "N", "--N"), "--N", min_value=2)
    if dt <= d:
        raise CliError(f"--dt must be > --d (got d={d}, dt={dt})")
    events = None if args.events is None else parse_events(args.events)
    reps = parse_int("8" if args.replications is None else args.replications, "--replications", min_value=2,
                     max_value=100_000)
    seed = parse_seed("0" if args.seed is None else args.seed)
    method = args.method
    if method == "auto":        # the API's own rule (symloss.finite_n.threshold), resolved before any work
        from ...finite_n.threshold import _exact_fits
        method = "exact" if (_exact_fits(symloss.RetrialOfD(C, dt), N) and
                             _exact_fits(symloss.PowerOfD(C, d), N)) else "simulation"
    if method == "exact":
        refuse_unused(args, [("events", "--events"), ("replications", "--replications"), ("seed", "--seed")],
                      "only by the simulation method (the exact chain" +
                      (" is used at this N with --method auto" if args.method == "auto" else " draws no sample") + ")")
    outs = outputs(args, "json")
    with Stages(args, ["threshold"], "finite-N threshold") as st:
        st.start(args.method)
        t = symloss.finite_n_threshold(C, d, dt, N, method=args.method, events=events, replications=reps,
                                       seed=seed)
        st.done()
    if "json" in outs:
        if json_output(outs, {"threshold": t.to_dict(), "seed": seed}, provenance(seed=seed)):
            return 0
    print(f"C={t.C} d={t.d} dt={t.dt} N={t.N}: threshold {t.threshold:.6g}, 95% CI ({t.ci[0]:.6g}, "
          f"{t.ci[1]:.6g}) [{t.method}]")
    print(f"refined mean field: {t.refined}; mean field: {t.mean_field}")
    if t.method != "exact":
        print(f"seed {seed}")
    return 0
