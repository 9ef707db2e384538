"""Error table (and figure) of the large-C law of the threshold rho*(C, d, dt).

The law (``symloss.meanfield.threshold_law``): rho*(C, d, dt) = a* C + b* + O(1/C), with a*, b*
certified constants of the limiting equations. This script compares it with the stored thresholds
of ``tests/data/threshold_law_reference.csv`` (status ``certified``: the certified machinery;
``EVIDENCE``: a 60-digit non-certified solve, C > 1000) and prints, per row, the one-term error
rho* - a* C, the two-term error rho* - (a* C + b*), and C times the latter (which tends to the
constant of the next term when the error decays at the derived rate 1/C), plus the log-log slope
of the two-term error between consecutive C.

Run::

    python benchmarks/threshold_law_table.py                 # the table (markdown) on stdout
    python benchmarks/threshold_law_table.py --figure docs/figures/threshold_law_error.png
"""
import argparse
import math
import sys
import time
from pathlib import Path

import mpmath

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "data" / "threshold_law_reference.csv"


def read_reference(path=REFERENCE):
    """Rows of the reference CSV as dicts (``rho`` = midpoint of [rho_lo, rho_hi], an mpf)."""
    rows = []
    with open(path) as fh:
        lines = [ln.rstrip("\n") for ln in fh if ln.strip() and not ln.startswith("#")]
    head = lines[0].split(",")
    for ln in lines[1:]:
        r = dict(zip(head, ln.split(",")))
        with mpmath.workdps(40):
            r["rho"] = (mpmath.mpf(r["rho_lo"]) + mpmath.mpf(r["rho_hi"])) / 2
        r["C"], r["d"], r["dt"] = int(r["C"]), int(r["d"]), int(r["dt"])
        rows.append(r)
    return rows


def error_rows(rows=None):
    """One record per (pair, C): the preferred value (certified if present, else EVIDENCE) and the
    errors of the one- and two-term law."""
    from symloss.meanfield.threshold_law import threshold_asymptotic
    rows = read_reference() if rows is None else rows
    best = {}
    for r in rows:
        key = (r["d"], r["dt"], r["C"])
        if key not in best or r["status"] == "certified":
            best[key] = r
    out = []
    with mpmath.workdps(30):
        for (d, dt, C), r in sorted(best.items()):
            law1 = threshold_asymptotic(C, d, dt, order=1)
            law2 = threshold_asymptotic(C, d, dt, order=2)
            out.append({"d": d, "dt": dt, "C": C, "status": r["status"], "rho": r["rho"],
                        "law2": law2, "err1": r["rho"] - law1, "err2": r["rho"] - law2})
    return out


def slopes(records):
    """Log-log slope of |err2| between consecutive C of the same pair (None for the first)."""
    prev = {}
    for rec in records:
        key = (rec["d"], rec["dt"])
        p = prev.get(key)
        rec["slope"] = None
        if p is not None and rec["err2"] != 0 and p["err2"] != 0:
            rec["slope"] = float(mpmath.log(abs(rec["err2"] / p["err2"])) / mpmath.log(mpmath.mpf(rec["C"]) / p["C"]))
        prev[key] = rec
    return records


def markdown(records) -> str:
    lines = ["| d, dt | C | rho* | how | a* C + b* | rho* - a* C | rho* - (a* C + b*) | C (rho* - a* C - b*) | slope |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        slope = "" if r["slope"] is None else f"{r['slope']:.2f}"
        lines.append(f"| {r['d']}, {r['dt']} | {r['C']} | {mpmath.nstr(r['rho'], 12)} | {r['status']} | "
                     f"{mpmath.nstr(r['law2'], 12)} | {mpmath.nstr(r['err1'], 5)} | {mpmath.nstr(r['err2'], 4)} | "
                     f"{mpmath.nstr(r['err2'] * r['C'], 4)} | {slope} |")
    return "\n".join(lines)


def figure(records, path):
    """Log-log |error| of the two-term law against C per pair, with the derived slope -1 drawn."""
    import matplotlib
    matplotlib.use("Agg")
    from symloss.plot import new_figure, place_legend, savefig
    fig, axes = new_figure("single", aspect=0.8)
    ax = axes[0, 0]
    pairs = sorted({(r["d"], r["dt"]) for r in records if r["d"] > 1})
    markers = {"certified": "o", "EVIDENCE": "^"}
    for i, (d, dt) in enumerate(pairs):
        color = f"C{i}"
        rs = [r for r in records if (r["d"], r["dt"]) == (d, dt) and r["err2"] != 0]
        Cs = [r["C"] for r in rs]
        errs = [abs(float(r["err2"])) for r in rs]
        ax.plot(Cs, errs, "-", color=color, lw=0.8, label=f"d={d}, dt={dt}")
        for st, mk in markers.items():
            pts = [(r["C"], abs(float(r["err2"]))) for r in rs if r["status"] == st]
            if pts:
                ax.plot(*zip(*pts), mk, color=color, ms=4, mfc=color if st == "certified" else "white")
        # the derived rate: slope -1 through the last point
        Cl, el = Cs[-1], errs[-1]
        ax.plot([Cs[0], Cl], [el * Cl / Cs[0], el], ":", color=color, lw=0.8)
    ax.plot([], [], "ko", ms=4, label="certified threshold")
    ax.plot([], [], "k^", ms=4, mfc="white", label="EVIDENCE (60-digit solve)")
    ax.plot([], [], "k:", lw=0.8, label="derived rate: slope -1")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("capacity C")
    ax.set_ylabel(r"$|\rho^*(C) - (a^* C + b^*)|$")
    place_legend(ax, fontsize=6)
    return savefig(fig, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--figure", help="write the log-log error figure to this path (PNG/PDF)")
    args = ap.parse_args(argv)
    t0 = time.time()
    from symloss.meanfield.threshold_law import threshold_constants
    for pair in [(2, 3), (3, 4), (9, 10)]:
        a, b = threshold_constants(*pair)
        print(f"d={pair[0]}, dt={pair[1]}: a* in [{a.lo}, {a.hi}], b* in [{b.lo}, {b.hi}]  (certified)")
    records = slopes(error_rows())
    print()
    print(markdown(records))
    if args.figure:
        print("figure:", ", ".join(map(str, figure(records, args.figure))))
    print(f"\n{time.time() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
