"""Benchmark of symloss.finite_n: simulators, exact chain and refined mean field (figures and ratios
against baselines run in the same process).

Prints, in one run:
1. kernel compile / cache-load times (server-level kernel; generated count-level kernel of a model);
2. events/s of the server-level kernels (retrial-of-2, power-of-2, random, JSQ) and of the count-level
   kernels generated from the definitions (the same shipped models and the hybrid policy) at
   N = 10^4, C = 5, rho = 4, with the ratio generated / server-level (target: >= 1e7 events/s);
3. exact chain generated from the definition against the hand-coded implementation it replaced
   (``_legacy_exact_finite_n`` below: the code of commit 0c21e9e, hand-written routing probabilities),
   on the same chains: seconds and ratio (target: <= 1.5), plus two chains of about 50 000 states
   (target: <= 30 s);
4. refined mean field: first call for a shipped model in a warmed process (target <= 0.3 s) and
   repeated calls, against rmftool's ``meanFieldExpansionSteadyState`` (order 1 and 2) on the same
   model when rmftool is importable (``pip install rmftool`` into the benchmark environment; it is not
   a symloss dependency), ratio (target >= 5);
5. random routing side by side with Ciw (if importable), and the peak memory at N = 10^6.

Usage:  python benchmarks/bench_simulation.py [--quick]
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import subprocess
import sys
import time

import numpy as np


def _load() -> str:
    return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"


# --------------------------------------------------------------------------------------------------
# baseline: the hand-coded exact_finite_n of commit 0c21e9e (routing probabilities written per policy)
# --------------------------------------------------------------------------------------------------

def _legacy_exact_finite_n(policy, N, C, rho, d=None, sampling="with_replacement"):
    import scipy.sparse as sps
    import scipy.sparse.linalg as spla

    from symloss.core.stats import truncated_poisson_weights
    M = math.comb(N + C, C)
    bars = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(N + C), C)), dtype=np.int64,
                       count=M * C).reshape(M, C)
    ext = np.concatenate([np.full((M, 1), -1, np.int64), bars, np.full((M, 1), N + C, np.int64)], axis=1)
    S = np.diff(ext, axis=1) - 1
    weights = (N + 1) ** np.arange(C + 1, dtype=np.int64)
    weights[0] = 0
    keys = S @ weights
    order = np.argsort(keys)
    sorted_keys = keys[order]

    def index_of(T):
        return order[np.searchsorted(sorted_keys, T @ weights)]
    q = np.zeros((M, C))
    Sf = S.astype(np.float64)
    if policy == "random":
        q[:] = Sf[:, :C] / N
    elif policy == "power":
        T = np.cumsum(Sf[:, ::-1], axis=1)[:, ::-1]
        P = (T / N) ** d
        q[:] = P[:, :C] - P[:, 1:]
    else:
        f = Sf[:, C] / N
        geo, term = np.zeros(M), np.ones(M)
        for _ in range(d):
            geo += term / N
            term = term * f
        q[:] = Sf[:, :C] * geo[:, None]
    rows, cols, vals = [], [], []
    idx = np.arange(M)
    for k in range(C):
        rate = N * rho * q[:, k]
        m = rate > 0
        T = S[m].copy()
        T[:, k] -= 1
        T[:, k + 1] += 1
        rows.append(idx[m]); cols.append(index_of(T)); vals.append(rate[m])
    for k in range(1, C + 1):
        rate = k * S[:, k].astype(np.float64)
        m = rate > 0
        T = S[m].copy()
        T[:, k] -= 1
        T[:, k - 1] += 1
        rows.append(idx[m]); cols.append(index_of(T)); vals.append(rate[m])
    rows = np.concatenate(rows); cols = np.concatenate(cols); vals = np.concatenate(vals)
    out = np.bincount(rows, weights=vals, minlength=M)
    Q = sps.csr_matrix((np.concatenate([vals, -out]), (np.concatenate([rows, idx]), np.concatenate([cols, idx]))),
                       shape=(M, M))
    A = Q.T.tocsc()
    p = truncated_poisson_weights(C, rho)
    guess = np.floor(N * p / p.sum()).astype(np.int64)
    guess[int(np.argmax(p))] += N - guess.sum()
    ref = int(index_of(guess[None, :])[0])
    keep = np.ones(M, bool)
    keep[ref] = False
    lu = spla.splu(A[keep][:, keep].tocsc(), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.1,
                   options={"SymmetricMode": True})
    pi = np.empty(M)
    pi[ref] = 1.0
    pi[keep] = lu.solve(-A[keep][:, [ref]].toarray().ravel())
    pi = np.clip(pi, 0, None)
    pi /= pi.sum()
    b = S[:, C] / N if policy == "random" else (S[:, C] / N) ** d
    return float(pi @ b)


# --------------------------------------------------------------------------------------------------
# 1-2. simulators
# --------------------------------------------------------------------------------------------------

def _hybrid(C, d, r):
    import sympy as sp

    from symloss import RHO, define_model
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + tuple(u) + (sp.Integer(0),)
    s = U[C] ** d
    rounds = sum(s ** j for j in range(r))
    trs = []
    for k in range(1, C + 1):
        trs.append(({u[k - 1]: 1}, RHO * rounds * (U[k - 1] ** d - U[k] ** d)))
        trs.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"hybrid(d={d}, r={r})", u, trs, blocking=U[C] ** (d * r), state_kind="tail", C=C)


def bench_compile() -> dict:
    from symloss import PowerOfD
    from symloss.finite_n.chain import finite_n_chain
    from symloss.finite_n.generated import count_kernel
    from symloss.finite_n.simulate import _kernel
    t0 = time.perf_counter()
    _kernel()
    server = time.perf_counter() - t0
    t0 = time.perf_counter()
    count_kernel(finite_n_chain(PowerOfD(5, 2), 10_000))
    count = time.perf_counter() - t0
    return {"server_s": server, "count_s": count}


def _best(fn, repeats):
    best = None
    for r in range(repeats):
        c0 = time.process_time()
        res = fn(r)
        cpu = time.process_time() - c0
        if best is None or res.wall_time < best[0].wall_time:
            best = (res, cpu)
    return best


def bench_throughput(events: int, repeats: int) -> list[dict]:
    import symloss
    from symloss import JSQ, PowerOfD, RandomRouting, RetrialOfD
    rows = []
    cases = [("retrial-of-2", RetrialOfD(5, 2)), ("power-of-2", PowerOfD(5, 2)), ("random", RandomRouting(5)),
             ("jsq", JSQ(5)), ("hybrid(2, 2)", _hybrid(5, 2, 2))]
    for name, model in cases:
        row = {"model": name}
        for kernel in ("server", "count"):
            if kernel == "server" and name.startswith("hybrid"):
                continue
            res, cpu = _best(lambda r, k=kernel, m=model: symloss.simulate(
                m, N=10_000, rho=4.0, events=events, warmup=0, seed=r, kernel=k), repeats)
            row[kernel] = {"events_per_s": res.events_per_second, "events_per_cpu_s": res.total_events / cpu,
                           "wall_s": res.wall_time, "blocking": res.blocking, "se": res.std_error}
        rows.append(row)
    return rows


# --------------------------------------------------------------------------------------------------
# 3. exact chain
# --------------------------------------------------------------------------------------------------

def bench_exact(quick: bool) -> list[dict]:
    from symloss import exact_finite_n
    cases = [("power", 50, 3, 2), ("retrial", 50, 3, 2), ("power", 300, 2, 2), ("retrial", 300, 2, 3),
             ("power", 10, 5, 2), ("random", 12, 5, None)]
    if quick:
        cases = cases[2:]
    rows = []
    for policy, N, C, d in cases:
        t_new, t_old = [], []
        for _ in range(2):
            t0 = time.perf_counter()
            b_old = _legacy_exact_finite_n(policy, N, C, 2.0, d)
            t_old.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            r = exact_finite_n(policy, N, C, 2.0, d)
            t_new.append(time.perf_counter() - t0)
        rows.append({"case": f"{policy} N={N} C={C} d={d}", "states": r.n_states, "legacy_s": min(t_old),
                     "definition_s": min(t_new), "ratio": min(t_new) / min(t_old),
                     "rel_diff": abs(r.blocking - b_old) / b_old})
    return rows


def bench_exact_50k() -> list[dict]:
    from symloss import PowerOfD, exact_finite_n
    rows = []
    for model, N in ((PowerOfD(2, 2), 315), (PowerOfD(3, 2), 65)):
        t0 = time.perf_counter()
        r = exact_finite_n(model, N, 2.0)
        rows.append({"case": f"{model!r} N={N}", "states": r.n_states, "s": time.perf_counter() - t0,
                     "method": r.method.split(" (")[0], "blocking": r.blocking, "residual": r.residual})
    return rows


# --------------------------------------------------------------------------------------------------
# 4. refined mean field
# --------------------------------------------------------------------------------------------------

def _rmftool_model(C, d, rho):
    try:
        import rmftool
    except ImportError:
        return None
    sys.path.insert(0, os.path.dirname(rmftool.__file__))
    import population_processes as pp
    ddpp = pp.DDPP()
    for k in range(1, C + 1):
        e = np.zeros(C)
        e[k - 1] = 1

        def up(x, k=k):
            u = [1] + list(x) + [0]
            return rho * (u[k - 1] ** d - u[k] ** d)

        def down(x, k=k):
            u = [1] + list(x) + [0]
            return k * (u[k] - u[k + 1])
        ddpp.add_transition(e, up)
        ddpp.add_transition(-e, down)
    ddpp.set_initial_state(np.linspace(0.6, 0.1, C))
    return ddpp


def bench_refined(repeats: int) -> dict:
    from symloss import PowerOfD, RetrialOfD, refined_mean_field
    refined_mean_field(PowerOfD(2, 2), rho=1.0)              # warm the process (imports, numba loads)
    refined_mean_field(RetrialOfD(2, 2), rho=1.0)
    out = {"first": [], "repeat": [], "rmftool": None}
    for model in (PowerOfD(5, 2), RetrialOfD(5, 2), PowerOfD(10, 3)):
        t0 = time.perf_counter()
        refined_mean_field(model, rho=0.8 * model.C)
        out["first"].append((repr(model), time.perf_counter() - t0))
    C, d, rho = 5, 2, 3.0
    m = PowerOfD(C, d)
    for label, kw in (("order 2, dps=30", {}), ("order 1, dps=30", {"order": 1}),
                      ("order 1, float64", {"order": 1, "dps": None})):
        ts = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            r = refined_mean_field(m, rho=rho, **kw)
            ts.append(time.perf_counter() - t0)
        out["repeat"].append((label, min(ts), r.V, r.W))
    dd = _rmftool_model(C, d, rho)
    if dd is not None:
        import contextlib
        import io
        rm = {}
        for order in (1, 2):
            ts = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                with contextlib.redirect_stdout(io.StringIO()):
                    res = dd.meanFieldExpansionSteadyState(order=order)
                ts.append(time.perf_counter() - t0)
            rm[order] = min(ts)
        pi, V, A, extra = res
        uC = pi[-1]
        S1 = extra[1]
        VB = d * uC ** (d - 1) * V[-1] + 0.5 * d * (d - 1) * uC ** (d - 2) * S1[-1, -1]
        WB = (d * uC ** (d - 1) * A[-1] + 0.5 * d * (d - 1) * uC ** (d - 2) * extra[3][-1, -1])
        out["rmftool"] = {"order1_s": rm[1], "order2_s": rm[2], "V": VB, "W": WB}
    return out


# --------------------------------------------------------------------------------------------------
# 5. Ciw and memory (unchanged from the issue-6 benchmark)
# --------------------------------------------------------------------------------------------------

def bench_ciw(N: int, C: int, rho: float, max_time: float) -> dict | None:
    try:
        import ciw
    except ImportError:
        print("  Ciw is not importable: skipped (install it only in the benchmark environment with "
              "`pip install --no-deps ciw`)")
        return None
    import symloss
    net = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(rate=rho) for _ in range(N)],
        service_distributions=[ciw.dists.Exponential(rate=1.0) for _ in range(N)],
        number_of_servers=[C] * N, queue_capacities=[0] * N, routing=[[0.0] * N for _ in range(N)])
    ciw.seed(1)
    sim = ciw.Simulation(net)
    t0 = time.perf_counter()
    sim.simulate_until_max_time(max_time)
    ciw_wall = time.perf_counter() - t0
    recs = sim.get_all_records()
    served = sum(1 for r in recs if r.record_type == "service")
    rejected = sum(1 for r in recs if r.record_type == "rejection")
    ciw_events = served + rejected + served
    res = symloss.simulate("random", N=N, C=C, rho=rho, events=2_000_000, seed=1)
    return {"ciw_events_per_s": ciw_events / ciw_wall, "symloss_events_per_s": res.events_per_second,
            "ratio": res.events_per_second / (ciw_events / ciw_wall)}


_MEM_CHILD = r"""
import resource, time, json, symloss
from symloss.finite_n.simulate import _kernel
_kernel()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r = symloss.simulate("power", N=1_000_000, C=5, rho=4.0, d=2, events={events}, warmup=0, seed=1)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"base_MB": base / 1024, "peak_MB": peak / 1024, "events_per_s": r.events_per_second,
                  "blocking": r.blocking}}))
"""


def bench_memory(events: int) -> dict:
    out = subprocess.run([sys.executable, "-c", _MEM_CHILD.format(events=events)], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller runs")
    args = ap.parse_args(argv)
    events = 5_000_000 if args.quick else 20_000_000
    repeats = 2 if args.quick else 3
    print(f"symloss.finite_n benchmark ({_load()} at the start)")
    c = bench_compile()
    print(f"kernel compile / cache load: server-level {c['server_s']:.2f} s, generated count-level "
          f"(PowerOfD(5, 2)) {c['count_s']:.2f} s (excluded from the rates below)")

    print(f"\n[simulate] N = 10^4, C = 5, rho = 4, {events:,} events, best of {repeats} ({_load()}):")
    for row in bench_throughput(events, repeats):
        s, k = row.get("server"), row["count"]
        srv = (f"server {s['events_per_s'] / 1e6:6.2f} M/s ({s['events_per_cpu_s'] / 1e6:5.1f} per CPU s)"
               if s else "server      -                    ")
        ratio = f"ratio count/server {k['events_per_s'] / s['events_per_s']:.2f}" if s else ""
        print(f"  {row['model']:13s} {srv}   generated {k['events_per_s'] / 1e6:6.2f} M/s "
              f"({k['events_per_cpu_s'] / 1e6:5.1f} per CPU s)  {ratio}   B = {k['blocking']:.5f} "
              f"+- {k['se']:.1e}")

    print(f"\n[exact_finite_n] generated from the definition vs the hand-coded legacy solver, rho = 2 ({_load()}):")
    for row in bench_exact(args.quick):
        print(f"  {row['case']:28s} {row['states']:7d} states  legacy {row['legacy_s']:7.3f} s  definition "
              f"{row['definition_s']:7.3f} s  ratio {row['ratio']:.2f}  (|diff|/B = {row['rel_diff']:.1e})")
    if not args.quick:
        print(f"  about 50 000 states ({_load()}):")
        for row in bench_exact_50k():
            print(f"  {row['case']:28s} {row['states']:7d} states  {row['s']:6.2f} s  [{row['method']}]  "
                  f"B = {row['blocking']:.12g}, residual {row['residual']:.1e}")

    print(f"\n[refined_mean_field] ({_load()}):")
    r = bench_refined(5 if args.quick else 10)
    for name, t in r["first"]:
        print(f"  first call {name:22s} {t * 1e3:7.1f} ms")
    for label, t, V, W in r["repeat"]:
        print(f"  repeated PowerOfD(5, 2), rho = 3, {label:17s} {t * 1e3:7.2f} ms   V = {V:.15g}"
              + ("" if W is None else f", W = {W:.10g}"))
    rm = r["rmftool"]
    if rm is None:
        print("  rmftool is not importable: no baseline (pip install rmftool into the benchmark environment)")
    else:
        t2 = dict((lab, t) for lab, t, _V, _W in r["repeat"])
        print(f"  rmftool meanFieldExpansionSteadyState order 1 {rm['order1_s'] * 1e3:7.1f} ms, order 2 "
              f"{rm['order2_s'] * 1e3:7.1f} ms; V = {rm['V']:.15g}, W = {rm['W']:.10g}")
        print(f"  ratio rmftool / symloss: order 1 (dps=30) {rm['order1_s'] / t2['order 1, dps=30']:.1f}x, "
              f"order 1 (float64) {rm['order1_s'] / t2['order 1, float64']:.1f}x, order 2 (dps=30) "
              f"{rm['order2_s'] / t2['order 2, dps=30']:.1f}x")

    print("\n[Ciw] random routing to N = 10 M/M/5/5 loss nodes, rho = 4:")
    cw = bench_ciw(10, 5, 4.0, 200.0 if args.quick else 1000.0)
    if cw:
        print(f"  Ciw {cw['ciw_events_per_s']:,.0f} events/s, symloss {cw['symloss_events_per_s']:,.0f} events/s, "
              f"ratio {cw['ratio']:,.0f}")
    m = bench_memory(2_000_000 if args.quick else 10_000_000)
    print(f"\n[memory] N = 10^6, C = 5, power-of-2 (child process): peak RSS {m['peak_MB']:.0f} MB "
          f"(interpreter + numba: {m['base_MB']:.0f} MB), {m['events_per_s'] / 1e6:.1f} M events/s")
    print(f"\nend: {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
