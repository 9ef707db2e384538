"""``symloss admission``: the four benchmarks of the overloaded loss network (Bray, *An Omega(log(N)/N)
lookahead is sufficient to bound costs in the overloaded loss network*, 2026).

    symloss admission --N 1000 --lam-H 0.5 --lam-L 1 --r-H 2 --r-L 1 [--mu 1] [--horizon T]
                      [--replications 8] [--c 8] [--seed 0] [--dps 20] [--json [PATH]]
"""
from __future__ import annotations

from .._common import (
    CliError,
    add_alias,
    add_output,
    add_progress,
    outputs,
    parse_dps,
    parse_int,
    parse_real,
    parse_seed,
    progress_bar,
)
from ._shared import json_output, need


def _number(text: str, name: str):
    """An exact rational ('1/2', '0.5', '2')."""
    return parse_real(text, name, lower=0, lower_open=True, max_magnitude=1e12, example="1/2, 0.5 or 2")


def register(sub) -> None:
    p = sub.add_parser(
        "admission", help="fluid, offline, lookahead and online rewards of the overloaded loss network",
        description="Admission control with lookahead (Bray 2026): prints R_fluid (exact LP value), R_on "
                    "(exact optimal online MDP: trunk reservation K*), and Monte Carlo estimates with 95% "
                    "intervals of R_off (offline optimum on uniformised paths) and R_W (best of the lookahead "
                    "policies WindowDP(online terminal), WindowDP(zero terminal), SSS with W = c ln N / N), "
                    "and the costs C_vol, C_long, C_short.")
    p.add_argument("--N", default=None, help="number of servers, integer >= 2 (required)")
    p.add_argument("--lam-H", default=None, help="per-server H arrival rate (required; exact, e.g. 1/2)")
    p.add_argument("--lam-L", default=None, help="per-server L arrival rate (required)")
    p.add_argument("--r-H", default=None, help="reward of an H job (required)")
    p.add_argument("--r-L", default=None, help="reward of an L job (required)")
    p.add_argument("--mu", default="1", help="service rate (default 1)")
    p.add_argument("--horizon", default=None,
                   help="length of each sample path (default: about 2.5e7 events / N in all, at least 5)")
    p.add_argument("--replications", default="8", help="independent paths (default 8)")
    add_alias(p, "--reps", dest="replications")
    p.add_argument("--c", nargs="+", default=["8"], help="window constants c in W = c ln N / N (default 8)")
    p.add_argument("--seed", default="0", help="seed of numpy.random.SeedSequence, integer >= 0 (default 0)")
    p.add_argument("--dps", default="20", help="digits for the exact online quantities (default 20)")
    p.add_argument("--max-work", default="2e11",
                   help="refuse runs whose offline DP needs more than this many state updates (default 2e11, "
                        "about 2-4 minutes)")
    add_output(p, "json", "the decomposition as JSON with provenance")
    add_progress(p)
    p.set_defaults(func=run)


def run(args) -> int:
    import mpmath

    from symloss.admission import OverloadedLossNetwork

    from ...core.provenance import provenance
    for dest, opt in (("N", "--N"), ("lam_H", "--lam-H"), ("lam_L", "--lam-L"), ("r_H", "--r-H"), ("r_L", "--r-L")):
        need(args, dest, opt)
    N = parse_int(args.N, "--N", min_value=2, max_value=10 ** 6)
    lam_H, lam_L = _number(args.lam_H, "--lam-H"), _number(args.lam_L, "--lam-L")
    r_H, r_L, mu = _number(args.r_H, "--r-H"), _number(args.r_L, "--r-L"), _number(args.mu, "--mu")
    reps = parse_int(args.replications, "--replications", min_value=1, max_value=100_000)
    cs = tuple(float(parse_real(c, "--c", lower=0, lower_open=True, max_magnitude=1e6)) for c in args.c)
    seed = parse_seed(args.seed)
    dps = parse_dps(args.dps)
    max_work = float(parse_real(args.max_work, "--max-work", lower=0, lower_open=True))
    horizon = None if args.horizon is None else float(parse_real(args.horizon, "--horizon", lower=0,
                                                                  lower_open=True, max_magnitude=1e9))
    net = OverloadedLossNetwork(N, lam_H, lam_L, r_H, r_L, mu)
    lam_sum = float(lam_H) + float(lam_L) + float(mu)
    if horizon is None:
        horizon = max(5.0, 2.5e7 / (lam_sum * N * N * reps))
        horizon = min(horizon, 200.0)
    work = float(N) * N * lam_sum * horizon * reps
    if work > max_work:
        raise CliError(f"N={N}, horizon={horizon:g}, replications={reps} need about {work:.2g} offline-DP state "
                       f"updates (> --max-work {max_work:.2g}); lower --horizon/--replications or raise --max-work")
    outs = outputs(args, "json")
    with progress_bar(args, total=reps + 1, desc="admission", unit="step") as bar:
        bar.set_postfix_str("exact online MDP")
        opt = net.online_optimal(dps=dps)
        bar.update(1)
        bar.set_postfix_str(f"{reps} paths")

        def step(i, n):
            bar.update(1)
        d = net.decomposition(horizon, reps, cs, seed=seed, progress=step)
    b = d.benchmarks()
    fl = b["R_fluid"]
    if "json" in outs:
        data = {"network": repr(net), "params": {"N": N, "lam_H": str(lam_H), "lam_L": str(lam_L), "r_H": str(r_H),
                                                 "r_L": str(r_L), "mu": str(mu)},
                "horizon": horizon, "replications": reps, "seed": seed, "dps": dps,
                "R_fluid": str(fl), "R_on": mpmath.nstr(opt.reward, dps), "online_optimum": opt.to_dict(),
                "R_off": b["R_off"].to_dict(), "R_W": {f"{c:g}": e.to_dict() for c, e in b["R_W"].items()},
                "R_on_sim": b["R_on_sim"].to_dict(), "decomposition": d.to_dict()}
        if json_output(outs, data, provenance(dps=dps, seed=seed)):
            return 0
    print(f"{net!r}")
    print(f"paths: {reps} x horizon {horizon:g} (uniformised events), seed {seed}; "
          f"intervals are 95% Student-t over paths\n")
    print(f"R_fluid   = {fl}  (exact LP value N (r_H lam_H + r_L (mu - lam_H)))")
    print(f"R_off     = {b['R_off']}  (offline optimum on the uniformised path)")
    for c, e in b["R_W"].items():
        print(f"R_W       = {e}  (best W-lookahead policy tried: {d.best[c]}, c = {c:g}, W = {d.windows[c]:.6g})")
    print(f"R_on      = {mpmath.nstr(opt.reward, dps)}  (exact MDP: trunk reservation K* = {opt.threshold}, "
          f"min improvement margin {opt.min_margin:.3g})")
    print(f"R_on sim  = {b['R_on_sim']}  (K* simulated on the same paths)\n")
    print(f"regret R_fluid - R_on = {mpmath.nstr(opt.regret, dps)}")
    print(f"C_vol   = R_fluid - R_off = {d.C_vol}")
    for c in d.C_long:
        print(f"C_long  = R_off - R_W     = {d.C_long[c]}   (c = {c:g})")
        print(f"C_short = R_W - R_on      = {d.C_short[c]}   (c = {c:g})")
        for nm, e in d.lookahead[c].items():
            print(f"  cost of {nm:18s}= {e}   (R_fluid - reward, c = {c:g})")
    print(f"  cost of PFI()             = {d.pfi}")
    print(f"({d.seconds:.1f} s)")
    return 0

