"""Regenerate tests/data/threshold_law_reference.csv: thresholds rho*(C, d, dt) for large C.

rho*(C, d, dt) is the load above which retrial-of-dt (``RetrialOfD(C, dt)``) blocks strictly less
than power-of-d (``PowerOfD(C, d)``) in the mean field.  Every row records how it was made
(column ``status``):

* ``certified``: ``symloss.meanfield.certified.certified_comparison(RetrialOfD(C, dt), PowerOfD(C, d),
  dps=20)`` (the certified machinery: every crossing on (0, oo) found, each in an interval of width
  <= 1e-20 that provably holds exactly one crossing; ``crossings`` is the certified count).
  ``rho_lo``/``rho_hi`` are the ends of the threshold's interval (both ``0`` when retrial-of-dt
  blocks less at every load).
* ``EVIDENCE``: a high-precision solve that is NOT a certificate, used where the certified
  machinery is too slow (C > 1000): both fixed points are solved by mpmath at 60 digits (written
  here, independently of symloss's solvers: retrial-of-dt by Newton on
  ``p = E(C, rho (1 - p^dt)/(1 - p))`` with Erlang-B as the finite top-down sum; power-of-d by
  shooting on its stationary rows ``rho (u_{k-1}^d - u_k^d) = k (u_k - u_{k+1})`` written in the
  deficits ``e_j = 1 - u_{C-j}``), and the crossing is found by the secant method on
  ``B_ret - B_pod`` started from the asymptotic law.  ``rho_lo = rho_hi`` is the value (rounded to
  25 digits); ``crossings`` is empty (not counted).  The same solver is also run at some C <= 1000
  where a certified value exists (rows ``EVIDENCE`` with the same ``C``): the script checks that it
  falls inside the certified interval, which validates the solver there.

Run (about 40 minutes on one free core: the certified rows at C >= 500 and the EVIDENCE rows at
C >= 5000 are the expensive ones; the reference file was made in pieces with ``--reuse``)::

    nice -n 10 python tests/data/make_threshold_law_reference.py > tests/data/threshold_law_reference.csv

``--reuse PATH`` keeps the rows of an earlier CSV and computes only the missing ones (resumable);
``--only certified|evidence`` restricts the kind of rows computed.
"""
import argparse
import sys
import time

import mpmath

PAIRS = [(1, 2), (2, 3), (3, 4), (9, 10)]
CERTIFIED_C = {(1, 2): [10, 100, 1000],
               (2, 3): [10, 20, 30, 50, 100, 200, 300, 500, 700, 1000],
               (3, 4): [10, 30, 100, 300],
               (9, 10): [10, 30, 100, 300]}
EVIDENCE_C = {(2, 3): [100, 1000, 2000, 5000, 10000],
              (3, 4): [300, 1000, 3000, 10000],
              (9, 10): [100, 1000, 2000, 5000, 10000]}
COLUMNS = ["C", "d", "dt", "status", "rho_lo", "rho_hi", "crossings", "seconds"]
EVIDENCE_DPS = 60


# ---------------------------------------------------------------------------------------------
# certified rows (the library's certified machinery)
# ---------------------------------------------------------------------------------------------

def certified_row(C, d, dt):
    from symloss import PowerOfD, RetrialOfD
    from symloss.meanfield.certified import certified_comparison
    t0 = time.time()
    res = certified_comparison(RetrialOfD(C, dt), PowerOfD(C, d), dps=20)
    thr = res.threshold
    if thr is None:
        raise ArithmeticError(f"C={C}, d={d}, dt={dt}: retrial-of-dt does not win at large load")
    lo, hi = ("0", "0") if "value" in thr else (thr["rho"][0], thr["rho"][1])
    return {"C": C, "d": d, "dt": dt, "status": "certified", "rho_lo": lo, "rho_hi": hi,
            "crossings": str(res.count), "seconds": f"{time.time() - t0:.1f}"}


# ---------------------------------------------------------------------------------------------
# EVIDENCE rows: independent mpmath solver (not a certificate)
# ---------------------------------------------------------------------------------------------

def _retrial_blocking(C, dt, rho):
    """p = E(C, A), A = rho (1 - p^dt)/(1 - p); 1/E = sum_j prod_{i<j} (C - i)/A (top-down)."""
    def inv_erlang(A):
        s, t = mpmath.mpf(1), mpmath.mpf(1)
        for i in range(C):
            t *= (C - i) / A
            s += t
            if t < s * mpmath.mpf(10) ** (-mpmath.mp.dps - 5) and (C - i) < A:
                break
        return s

    def g(p):
        A = rho * (1 - p ** dt) / (1 - p)
        return p * inv_erlang(A) - 1
    p0 = (1 - C / rho) ** (mpmath.mpf(1) / dt) if rho > C else mpmath.mpf("0.5")
    p = mpmath.findroot(g, [p0 * mpmath.mpf("0.999"), p0 * mpmath.mpf("1.001")], solver="secant", tol=mpmath.mpf(10) ** (-mpmath.mp.dps + 5))
    return p ** dt


def _power_blocking(C, d, rho):
    """Shooting on the stationary rows in deficits e_j = 1 - u_{C-j}, unknown X = sum_j e_j.

    With a = rho/C, s^d = 1 - (1 - X/C)/a, the row k = C - j telescoped from the top reads
    1 - (1 - e_{j+1})^d = (1/a) [(1 - j/C) e_j - (X - sum_{i<j} e_i)/C];  the boundary u_0 = 1 is
    e_C = 0, i.e. X = sum_{j<C} e_j.
    """
    a = rho / C
    invd = mpmath.mpf(1) / d

    def G(X):
        w = (1 - X / C) / a                              # 1 - s^d = w
        if not -1 < w < 1:
            return mpmath.mpf(-1) - C if w >= 1 else mpmath.mpf(C)
        e = -mpmath.expm1(mpmath.log1p(-w) * invd)       # e_0 = 1 - s
        S = mpmath.mpf(0)
        for j in range(C):
            w = ((1 - mpmath.mpf(j) / C) * e - (X - S) / C) / a
            S += e
            if w >= 1:
                return mpmath.mpf(-1) - (C - j)          # overshoot: X too small
            e = -mpmath.expm1(mpmath.log1p(-w) * invd) if w > -1 else mpmath.mpf(-1)
        return e                                          # e_C, must be 0
    from symloss.meanfield.threshold_law import idle_asymptotic
    X0 = idle_asymptotic("power", a, d, order=2, C=C) if a > mpmath.mpf("1.001") else mpmath.mpf(C) / 10
    X = mpmath.findroot(G, [X0, X0 * mpmath.mpf("1.0001")], solver="secant", tol=mpmath.mpf(10) ** (-mpmath.mp.dps + 5))
    return 1 - (1 - X / C) / a


def evidence_row(C, d, dt):
    from symloss.meanfield.threshold_law import threshold_asymptotic
    t0 = time.time()
    with mpmath.workdps(EVIDENCE_DPS):
        guess = mpmath.mpf(threshold_asymptotic(C, d, dt, order=2))

        def D(rho):
            return _retrial_blocking(C, dt, rho) - _power_blocking(C, d, rho)
        rho = mpmath.findroot(D, [guess, guess * (1 + mpmath.mpf(10) ** -6)], solver="secant",
                              tol=mpmath.mpf(10) ** (-EVIDENCE_DPS + 10))
        val = mpmath.nstr(rho, 25, min_fixed=-1, max_fixed=30)
    return {"C": C, "d": d, "dt": dt, "status": "EVIDENCE", "rho_lo": val, "rho_hi": val,
            "crossings": "", "seconds": f"{time.time() - t0:.1f}"}


# ---------------------------------------------------------------------------------------------

def _read(path):
    rows = {}
    with open(path) as fh:
        lines = [ln for ln in fh if ln.strip() and not ln.startswith("#")]
    for ln in lines[1:]:
        vals = ln.rstrip("\n").split(",")
        r = dict(zip(COLUMNS, vals))
        rows[(int(r["C"]), int(r["d"]), int(r["dt"]), r["status"])] = r
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reuse", help="CSV of an earlier run whose rows are kept")
    ap.add_argument("--only", choices=["certified", "evidence"])
    args = ap.parse_args(argv)
    have = _read(args.reuse) if args.reuse else {}
    jobs = []
    if args.only != "evidence":
        jobs += [(C, d, dt, "certified") for (d, dt) in PAIRS for C in CERTIFIED_C.get((d, dt), [])]
    if args.only != "certified":
        jobs += [(C, d, dt, "EVIDENCE") for (d, dt) in PAIRS for C in EVIDENCE_C.get((d, dt), [])]
    out = dict(have)
    for key in jobs:
        if key in out:
            continue
        C, d, dt, kind = key
        out[key] = certified_row(C, d, dt) if kind == "certified" else evidence_row(C, d, dt)
        print(f"  {','.join(str(out[key][c]) for c in COLUMNS)}", file=sys.stderr, flush=True)
    # an EVIDENCE value at a C with a certified interval must fall inside it (checks the solver)
    for (C, d, dt, kind), r in out.items():
        cert = out.get((C, d, dt, "certified"))
        if kind == "EVIDENCE" and cert is not None:
            v = mpmath.mpf(r["rho_lo"])
            lo, hi = mpmath.mpf(cert["rho_lo"]), mpmath.mpf(cert["rho_hi"])
            if not (lo - mpmath.mpf(10) ** -18 * hi <= v <= hi + mpmath.mpf(10) ** -18 * hi):
                raise AssertionError(f"EVIDENCE solver disagrees with the certified interval at {C, d, dt}: {v} not in [{lo}, {hi}]")
    print("# Thresholds rho*(C, d, dt): retrial-of-dt blocks less than power-of-d above rho* (mean field).")
    print("# Made by tests/data/make_threshold_law_reference.py (see its docstring).  status=certified:")
    print("# symloss.meanfield.certified.certified_comparison(RetrialOfD(C, dt), PowerOfD(C, d), dps=20),")
    print("# [rho_lo, rho_hi] holds the threshold (certified, width <= 1e-20), crossings = certified count.")
    print("# status=EVIDENCE: independent 60-digit mpmath solve (secant on B_ret - B_pod), NOT a certificate;")
    print("# where a certified row has the same C the EVIDENCE value was checked to lie in its interval.")
    print(",".join(COLUMNS))
    order = sorted(out, key=lambda k: (k[1], k[2], k[0], k[3]))
    for key in order:
        print(",".join(str(out[key][c]) for c in COLUMNS))


if __name__ == "__main__":
    main()
