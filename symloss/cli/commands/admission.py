"""``symloss admission``: the four benchmarks of the overloaded loss network (seed 001)."""
from __future__ import annotations

from fractions import Fraction


def _number(text: str):
    """Parse an exact rational where possible ('1/2', '0.5', '2'), else a float."""
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return float(text)


def register(sub) -> None:
    p = sub.add_parser(
        "admission", help="fluid, offline, lookahead and online rewards of the overloaded loss network",
        description="Admission control with lookahead (seed 001): prints R_fluid (exact LP value), R_on "
                    "(exact optimal online MDP: trunk reservation K*), and Monte Carlo estimates with 95%% "
                    "intervals of R_off (offline optimum on uniformised paths) and R_W (best of the lookahead "
                    "policies WindowDP(online terminal), WindowDP(zero terminal), SSS with W = c ln N / N), "
                    "and the costs C_vol, C_long, C_short.")
    p.add_argument("--N", type=int, required=True, help="number of servers")
    p.add_argument("--lam-H", type=_number, required=True, help="per-server H arrival rate")
    p.add_argument("--lam-L", type=_number, required=True, help="per-server L arrival rate")
    p.add_argument("--r-H", type=_number, required=True, help="reward of an H job")
    p.add_argument("--r-L", type=_number, required=True, help="reward of an L job")
    p.add_argument("--mu", type=_number, default=Fraction(1), help="service rate (default 1)")
    p.add_argument("--horizon", type=float, default=None,
                   help="length of each sample path (default: about 2.5e7 events / N in all, at least 5)")
    p.add_argument("--reps", type=int, default=8, help="independent paths (default 8)")
    p.add_argument("--c", type=float, nargs="+", default=[8.0], help="window constants c in W = c ln N / N")
    p.add_argument("--seed", type=int, default=0, help="seed of numpy.random.SeedSequence (default 0)")
    p.add_argument("--dps", type=int, default=20, help="digits for the exact online quantities (default 20)")
    p.add_argument("--max-work", type=float, default=2e11,
                   help="refuse runs whose offline DP needs more than this many state updates (default 2e11, "
                        "about 2-4 minutes)")
    p.set_defaults(func=run)


def run(args) -> int:
    import mpmath

    from symloss.admission import OverloadedLossNetwork
    net = OverloadedLossNetwork(args.N, args.lam_H, args.lam_L, args.r_H, args.r_L, args.mu)
    horizon = args.horizon
    if horizon is None:
        lam = float(args.lam_H) + float(args.lam_L) + float(args.mu)
        horizon = max(5.0, 2.5e7 / (lam * args.N * args.N * args.reps))
        horizon = min(horizon, 200.0)
    lam_sum = float(args.lam_H) + float(args.lam_L) + float(args.mu)
    work = float(args.N) * args.N * lam_sum * horizon * args.reps
    if work > args.max_work:
        raise ValueError(f"N={args.N}, horizon={horizon:g}, reps={args.reps} need about {work:.2g} offline-DP state "
                         f"updates (> --max-work {args.max_work:.2g}); lower --horizon/--reps or raise --max-work")
    opt = net.online_optimal(dps=args.dps)
    d = net.decomposition(horizon, args.reps, tuple(args.c), seed=args.seed)
    b = d.benchmarks()
    fl = b["R_fluid"]
    print(f"{net!r}")
    print(f"paths: {args.reps} x horizon {horizon:g} (uniformised events), seed {args.seed}; "
          f"intervals are 95% Student-t over paths\n")
    print(f"R_fluid   = {fl}  (exact LP value N (r_H lam_H + r_L (mu - lam_H)))")
    print(f"R_off     = {b['R_off']}  (offline optimum on the uniformised path)")
    for c, e in b["R_W"].items():
        print(f"R_W       = {e}  (best W-lookahead policy tried: {d.best[c]}, c = {c:g}, W = {d.windows[c]:.6g})")
    print(f"R_on      = {mpmath.nstr(opt.reward, args.dps)}  (exact MDP: trunk reservation K* = {opt.threshold}, "
          f"min improvement margin {opt.min_margin:.3g})")
    print(f"R_on sim  = {b['R_on_sim']}  (K* simulated on the same paths)\n")
    print(f"regret R_fluid - R_on = {mpmath.nstr(opt.regret, args.dps)}")
    print(f"C_vol   = R_fluid - R_off = {d.C_vol}")
    for c in d.C_long:
        print(f"C_long  = R_off - R_W     = {d.C_long[c]}   (c = {c:g})")
        print(f"C_short = R_W - R_on      = {d.C_short[c]}   (c = {c:g})")
        for nm, e in d.lookahead[c].items():
            print(f"  cost of {nm:18s}= {e}   (R_fluid - reward, c = {c:g})")
    print(f"  cost of PFI()             = {d.pfi}")
    print(f"({d.seconds:.1f} s)")
    return 0
