"""Error tables of the asymptotic approximations of the two-queue JSQ loss model (issue 15).

For each regime (representative a: 1, 1/2 with 2N = rho, 0.35, 1/4 with 4N = rho, 0.15), each load
rho in RHOS and each order (0: leading, 1: with the O(1/rho) corrections), the errors of
``TwoQueueJSQ(N, rho).asymptotic(...)`` against the exact float solution (Gauss-Seidel, verified on the
balance equations of the full chain, relative accuracy ~1e-13):

* ``tv``: total variation of the joint law; ``maxrel``: max relative error over the states with
  p >= 1e-2 max p ("joint near the mode"); ``marginal``: TV of the law of one queue;
  ``marginal_min``: TV of the law of the less occupied queue; ``cond_total``: TV of P(m = . | m+n = K),
  K the mode of m+n (a > 1/2) or 2N - 6; ``cond_other``: TV of P(m = . | n = n0), n0 the mode of one
  queue; ``imbalance``: |P(m = n) error|; ``blocking``: relative error of the blocking formula
  (log form, no underflow).

Run:  python tests/data/make_twoqueue_error_tables.py [--small]   (about 5 minutes on 2 cores for the
full grid; --small: rho <= 400). Writes tests/data/twoqueue_error_tables.json.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import time
from pathlib import Path

import mpmath
import numpy as np

import symloss
from symloss import TwoQueueJSQ

CASES = [("a>1/2", 1.0), ("a~1/2", 0.5), ("1/4<a<1/2", 0.35), ("a~1/4", 0.25), ("a<1/4", 0.15)]
RHOS = [50, 100, 200, 500, 1000, 2000, 5000, 10000]
KEYS = ["tv", "maxrel", "marginal", "marginal_min", "cond_total", "cond_other", "imbalance", "blocking"]
OUT = Path(__file__).with_name("twoqueue_error_tables.json")


def _class_arrays(ex, N):
    """Exact lumped masses q(K, d) = pi_K c_K(d) level after level (same layout as the band law)."""
    return [ex.level[K] * ex.conditional_levels[K] for K in range(2 * N + 1)]


def errors(regime, a, rho, order, ex, qex, m):
    N = m.N
    ap = m.asymptotic("distribution", regime=regime, order=order)
    # joint: in class space (each class d > 0 is two states of equal mass)
    tv = 0.0
    pmax = max(float(np.max(q * np.where(np.arange(len(q)) * 2 + K % 2 > 0, 0.5, 1.0)))
               for K, q in enumerate(qex) if len(q))
    worst = 0.0
    for K, q in enumerate(qex):
        c = ap.cvals[ap.off[K]:ap.off[K + 1]]
        qa = np.zeros(len(q))
        n_ = min(len(q), len(c))
        qa[:n_] = ap.level[K] * c[:n_]
        tv += float(np.abs(q - qa).sum()) + float(ap.level[K] * c[n_:].sum())
        dd = K % 2 + 2 * np.arange(len(q))
        pst = q * np.where(dd > 0, 0.5, 1.0)
        sel = pst >= 1e-2 * pmax
        if sel.any():
            worst = max(worst, float(np.max(np.abs(qa[sel] / q[sel] - 1))))
    tv *= 0.5
    K0 = int(np.argmax(ex.level)) if regime == "a>1/2" else 2 * N - 6
    marg = ex.marginal()
    n0 = int(np.argmax(marg))
    out = {
        "tv": tv, "maxrel": worst,
        "marginal": 0.5 * float(np.abs(ap.marginal() - marg).sum()),
        "marginal_min": 0.5 * float(np.abs(ap.marginal_min() - ex.marginal_min()).sum()),
        "cond_total": 0.5 * float(np.abs(ap.conditional(total=K0) - ex.conditional(total=K0)).sum()),
        "cond_other": 0.5 * float(np.abs(ap.conditional(n=n0) - ex.conditional(n=n0)).sum()),
        "imbalance": abs(float(ap.imbalance()[0]) - float(ex.imbalance()[0])),
    }
    lb = m.asymptotic("log_blocking", regime=regime, order=order)
    with mpmath.workdps(30):
        le = mpmath.log(symloss.erlang_b(2 * N, rho, dps=30))
        out["blocking"] = float(abs(mpmath.expm1(lb - le)))
    return out


def fit(rhos, vals):
    x, y = np.log(rhos), np.log(np.maximum(vals, 1e-300))
    return float(-np.polyfit(x, y, 1)[0])


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", action="store_true")
    args = ap.parse_args(argv)
    rhos = [r for r in RHOS if r <= 400] if args.small else RHOS
    t_all = time.time()
    tables = {}
    for regime, a in CASES:
        rows = {0: [], 1: []}
        for rho in rhos:
            N = int(round(a * rho))
            m = TwoQueueJSQ(N, float(rho))
            t0 = time.time()
            ex = m.stationary_distribution()
            ex.log_p = None
            ts = time.time() - t0
            qex = _class_arrays(ex, N)
            for order in (0, 1):
                t1 = time.time()
                e = errors(regime, a, rho, order, ex, qex, m)
                e.update(rho=rho, N=N, exact_seconds=round(ts, 2), asymptotic_seconds=round(time.time() - t1, 3),
                         residual=float(ex.residual))
                rows[order].append(e)
            print(f"{regime:11s} rho={rho:6d} N={N:6d} exact {ts:6.1f} s  tv {rows[0][-1]['tv']:.2e} -> "
                  f"{rows[1][-1]['tv']:.2e}", flush=True)
            del ex, qex, m
            gc.collect()
        fits = {str(o): {k: fit([r["rho"] for r in rows[o]], [r[k] for r in rows[o]]) for k in KEYS}
                for o in (0, 1)}
        tables[regime] = {"a": a, "rows": {str(o): rows[o] for o in (0, 1)}, "fitted_order": fits}
    header = {
        "what": __doc__.split("\n\n")[0],
        "made_by": "python tests/data/make_twoqueue_error_tables.py" + (" --small" if args.small else ""),
        "symloss_version": symloss.__version__, "python": sys.version.split()[0],
        "machine": platform.machine(), "load_average_at_end": os.getloadavg(),
        "seconds": round(time.time() - t_all, 1), "keys": KEYS, "rhos": rhos,
        "exact": "TwoQueueJSQ.stationary_distribution('float'), residual on the full chain < 1e-9 (checked)",
    }
    OUT.write_text(json.dumps({"header": header, "tables": tables}, indent=1))
    print(f"written {OUT} in {header['seconds']} s")


if __name__ == "__main__":
    main()
