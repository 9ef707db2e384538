"""Benchmarks for symloss.admission (seed 001). Run: python benchmarks/bench_admission.py [--quick]

Targets (issue 8): online_optimal at N = 10^4 in <= 1 s; offline_optimal at N = 10^3 over 10^7 events
in <= 10 s. Each figure is printed with a baseline run in the same process:
* online: relative value iteration (numpy, vectorised) on the uniformised MDP at N = 10^3;
* offline: the same backward DP written with numpy slices (no numba), timed on a prefix of the path
  and scaled per event.
"""
from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from symloss.admission import OverloadedLossNetwork, PFI, SSS, WindowDP


def timed(fn, repeat=1):
    best = math.inf
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def rvi(N, lH=0.5, lL=1.0, mu=1.0, rH=2.0, rL=1.0, tol=1e-9, max_iter=10**6):
    Lam = N * (lH + lL + mu)
    pH, pL = N * lH / Lam, N * lL / Lam
    pD = np.arange(N + 1) * mu / Lam
    h = np.zeros(N + 1)
    for it in range(max_iter):
        up = np.append(h[1:], -np.inf)
        Th = pH * np.maximum(rH + up, h) + pL * np.maximum(rL + up, h) + pD * np.concatenate(([0.0], h[:-1])) \
            + (1 - pH - pL - pD) * h
        d = Th - h
        h = Th - Th[0]
        if d.max() - d.min() < tol:
            return Th[0] * Lam, it + 1
    return Th[0] * Lam, max_iter


def numpy_offline(kinds, marks, N, rH, rL, n0):
    V = np.zeros(N + 1)
    for j in range(kinds.size - 1, -1, -1):
        k = kinds[j]
        if k != 2:
            r = rH if k == 0 else rL
            V[:N] = np.maximum(V[:N], V[1:] + r)
        else:
            s = int(math.floor(marks[j] * N)) + 1
            V[s:] = V[s - 1:N].copy()
    return V[n0]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="10^6 instead of 10^7 events for the offline DP")
    args = ap.parse_args(argv)
    print("symloss.admission benchmarks (wall-clock seconds; the machine may be shared)\n")

    # --- online optimum
    for N in (10**3, 10**4, 10**5):
        t, opt = timed(lambda: OverloadedLossNetwork(N, 0.5, 1, 2, 1).online_optimal(), repeat=3)
        print(f"online_optimal N={N:>6}: {t:7.3f} s  (K* = {opt.threshold}, regret {float(opt.regret):.6f}, "
              f"margin {opt.min_margin:.2e})" + ("   target <= 1 s" if N == 10**4 else ""))
    t_rvi, (g, iters) = timed(lambda: rvi(1000))
    t_on, opt = timed(lambda: OverloadedLossNetwork(1000, 0.5, 1, 2, 1).online_optimal())
    print(f"baseline RVI (numpy) N=1000: {t_rvi:7.3f} s ({iters} iterations, gain {g:.9f} vs exact "
          f"{float(opt.reward):.9f}); online_optimal is {t_rvi / t_on:.0f}x faster\n")

    # --- offline DP
    net = OverloadedLossNetwork(1000, 0.5, 1, 2, 1)
    target = 10**6 if args.quick else 10**7
    horizon = target / (1000 * 2.5)
    path = net.sample_path(horizon, seed=1)
    net.offline_optimal(net.sample_path(1.0, seed=0))  # compile / load the numba cache
    t_off, off = timed(lambda: net.offline_optimal(path))
    print(f"offline_optimal N=1000 over {path.n_events:.3g} events: {t_off:7.2f} s "
          f"({path.n_events * 1000 / t_off / 1e9:.2f} G state-updates/s; target <= 10 s for 1e7)"
          f"  R_off = {off.reward_rate:.4f}, C_vol on this path = {off.cost_rate:.4f}")
    m = 20000
    t_np, v_np = timed(lambda: numpy_offline(path.kinds[-m:], path.marks[-m:], 1000, 2.0, 1.0, 993))
    sub = type(path)(**{**path.__dict__, "times": path.times[-m:], "kinds": path.kinds[-m:], "marks": path.marks[-m:]})
    v_nb = net.offline_optimal(sub, 993).total_reward
    assert v_np == v_nb, (v_np, v_nb)
    per_np, per_nb = t_np / m, t_off / path.n_events
    print(f"baseline numpy-slice DP: {per_np * 1e6:.2f} us/event vs numba {per_nb * 1e6:.3f} us/event "
          f"({per_np / per_nb:.1f}x); same value on a {m}-event suffix")
    t_plain, plain = timed(lambda: net.offline_optimal(path, method="plain"))
    assert plain.total_reward == off.total_reward
    print(f"baseline numba textbook recursion (method='plain'): {t_plain:.2f} s, same value; "
          f"the shift kernel is {t_plain / t_off:.1f}x faster\n")

    # --- lookahead policies on 10^6 events
    p6 = net.sample_path(400.0, seed=2)
    W8 = net.window(8)
    for pol in ("online", SSS(W8), PFI(), WindowDP(W8)):
        net.evaluate(pol, net.sample_path(1.0, seed=0))
        t, r = timed(lambda: net.evaluate(pol, p6))
        print(f"{str(pol):26s} on {p6.n_events:.3g} events: {t:7.3f} s  (cost vs fluid {r.cost_rate:.3f})")

    # --- job-duration LP
    net100 = OverloadedLossNetwork(100, 0.5, 1, 2, 1)
    jobs = net100.sample_jobs(40.0, seed=3)
    t, res = timed(lambda: net100.offline_interval_lp(jobs))
    print(f"\noffline_interval_lp N=100, {jobs.n_jobs} jobs: {t:.2f} s, {res.reward_rate / 100:.3f} per server "
          f"vs fluid 1.5 (gain {res.gain_per_server:.3f}/server, fractionality {res.max_fractionality:.1e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
