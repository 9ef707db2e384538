"""Generate notebooks/jsq_erlang_loss.ipynb (no outputs) with nbformat.

Run:  python notebooks/make_jsq_erlang_loss.py
The notebook is executed by tests/twoqueue/test_twoqueue.py with SYMLOSS_NOTEBOOK_SMALL=1. A full run
(from the notebooks/ directory) writes the figures docs/figures/twoqueue_*.png:
    cd notebooks && SYMLOSS_FIGDIR=../docs/figures jupyter nbconvert --to notebook --execute \
        --output /tmp/jsq_run.ipynb jsq_erlang_loss.ipynb
"""
from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CELLS = [
    ("md", r"""# The shortest-queue version of the Erlang loss model (seed 003): five asymptotic regimes

Two M/M/N/N stations fed by one Poisson stream (rate $\lambda$) under join-the-shortest-queue, ties
split 1/2-1/2, an arrival lost only when all $2N$ servers are busy; $\rho=\lambda/\mu$, $a=N/\rho$
(H. Yao and C. Knessl, *Stud. Appl. Math.* 120(2), 2008). Public API only: `symloss.TwoQueueJSQ`,
`symloss.jsq_regime`, `symloss.twoqueue` (the definition), `proofs_check` (the claims).

Contents: 1. the one definition and what is generated from it; 2. the exact solution (four methods);
3. the derivations (SymPy, from the rules): outer law, corner law in closed form, blocking;
4. one figure per regime (exact vs asymptotic, and the errors to $\rho=10^4$ on log-log axes);
5. error tables with fitted exponents before and after the O(1/rho) corrections; 6. the claims;
7. the $a = 1/4$ boundary."""),
    ("code", r"""import json
import math
import os
import time
from fractions import Fraction
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp
from IPython.display import Math, display

import symloss
from symloss import TwoQueueJSQ, jsq_regime
from symloss.twoqueue import RULES, Rule, definition, derivation

SMALL = os.environ.get("SYMLOSS_NOTEBOOK_SMALL") == "1"     # the test suite runs a reduced version
FIGDIR = Path(os.environ.get("SYMLOSS_FIGDIR", "figures_small" if SMALL else "figures"))
FIGDIR.mkdir(parents=True, exist_ok=True)
RHO_FIG = 200 if SMALL else 1000          # load of the exact-vs-asymptotic panels
# the stored error tables live in the repository's tests/data (not in the installed package)
_here = [Path(os.environ["SYMLOSS_REPO"])] if "SYMLOSS_REPO" in os.environ else []
_here += [Path.cwd(), *Path.cwd().parents, Path(symloss.__file__).resolve().parents[1]]
DATA = next((p / "tests" / "data" for p in _here if (p / "tests" / "data" / "twoqueue_error_tables.json").is_file()), None)
if DATA is None:
    raise FileNotFoundError("tests/data/twoqueue_error_tables.json not found: run this notebook from a clone of "
                            "symloss (or set SYMLOSS_REPO to the clone's root)")
TABLES = json.loads((DATA / "twoqueue_error_tables.json").read_text())
CASES = [("a>1/2", 1.0), ("a~1/2", 0.5), ("1/4<a<1/2", 0.35), ("a~1/4", 0.25), ("a<1/4", 0.15)]
plt.rcParams.update({"figure.dpi": 110, "savefig.dpi": 200, "font.size": 9})
print("small run" if SMALL else "full run", "; figures ->", FIGDIR)"""),
    ("md", r"""## 1. One definition

The model is the rule table `symloss.twoqueue.RULES`; `transitions(N, m, n)`, the balance equations, the
level kernels of every exact solver, the residual check of every float answer and the SymPy derivations
below are generated from it."""),
    ("code", r"""display(Math(definition.rules_latex()))
eqs = derivation.lumped_equations()
for name, cf in eqs.items():
    display(Math(r"\text{" + name + r":}\quad " + cf.latex()))"""),
    ("md", r"""A mutation: split ties 1/3-2/3. Every solver follows the edited chain (the lumped kernels are no longer
symmetric, so the solvers switch to the full states); the asymptotic derivations refuse it
(they need the symmetric lumping)."""),
    ("code", r"""Tie = type("Tie", (TwoQueueJSQ,), {"rules": tuple(
    Rule(r.jump, definition.rho / 3 if r.jump == (1, 0) else 2 * definition.rho / 3, r.when)
    if r.rate == definition.rho / 2 else r for r in RULES)})
edited, seed = Tie(6, 5.0), TwoQueueJSQ(6, 5.0)
fl, gen = edited.stationary_distribution(), edited.generic_solve()
print("edited: max |float - generic sparse LU| =", float(np.max(np.abs(fl.p - gen))))
print("P(first queue has 0 busy):  seed", seed.stationary_distribution().marginal()[0], " edited", fl.p[0].sum())
try:
    edited.asymptotic("marginal")
except derivation.DerivationError as exc:
    print("asymptotic:", exc)"""),
    ("md", r"""## 2. Exact solution: four methods

`"exact"` (rational, python-flint), `"symbolic"` (rational functions of $\rho$), `"mp"` (level reduction in
ball arithmetic, digits checked at two precisions) and `"float"` (Gauss-Seidel with the exact level
masses, verified on the full chain's balance equations; $N \le 10^4$)."""),
    ("code", r"""sym = TwoQueueJSQ(2, 1).stationary_distribution("symbolic")
print("blocking (symbolic):", sym.blocking())
N, rho = 20, 20
e20 = TwoQueueJSQ(N, Fraction(rho)).stationary_distribution("exact")
m20 = TwoQueueJSQ(N, rho).stationary_distribution("mp", dps=30)
f20 = TwoQueueJSQ(N, rho).stationary_distribution("float")
print("N=20, rho=20: blocking exact", float(e20.blocking()), " mp", m20.blocking(), " float", f20.blocking())
pe = np.array([[float(x.p) / float(x.q) for x in row] for row in e20.p])
print("max entrywise relative difference float vs exact:", np.max(np.abs(f20.p / pe - 1)))
t0 = time.time()
big = TwoQueueJSQ(500 if SMALL else 3000, 500.0 if SMALL else 3000.0).stationary_distribution()
print(f"float N={big.N}: {time.time() - t0:.1f} s, {big.iterations} sweeps, residual {big.residual:.1e}")"""),
    ("md", r"""## 3. The derivations

**Outer law** ($a>1/2$): $c_K(d) = g(d; r) + \rho^{-1} h(d; r)$, $r = K/\rho$ (evaluated as
$g\,e^{h/(\rho g)}$, equal to order $\rho^{-2}$ and positive in the tails)."""),
    ("code", r"""sol = derivation.outer_solution()
display(Math(r"\theta = " + sp.latex(sol.theta) + r",\quad g(0) = " + sp.latex(sp.factor(sol.g0))
             + r",\quad g(d) = " + sp.latex(sol.g)))
display(Math(r"h(0) = " + sp.latex(sol.h0) + r",\quad h(d) = " + sp.latex(sp.factor(sol.h))))"""),
    ("md", r"""**Corner law** ($a<1/2$): the deficits $(N-\max, |m-n|)$ converge to the longer-queue walk; its
generating function by the kernel method (in closed form, derived from the rules):"""),
    ("code", r"""law = derivation.corner_law()
display(Math(law.latex()))
print("checks:", "; ".join(law.checks))"""),
    ("md", r"""**Blocking** $p(N,N)=E(2N,\rho)$ with its next terms:"""),
    ("code", r"""for reg in ("a>1/2", "a<1/2", "a~1/2"):
    display(Math(r"\text{" + reg + r":}\quad p(N,N) \approx " + sp.latex(derivation.blocking_expansion(reg, 1))))"""),
    ("md", r"""## 4. One figure per regime

Left: the law of the less occupied queue, exact and asymptotic (leading order and with the O(1/rho)
correction), at $\rho$ = `RHO_FIG`; middle: the relative error of the two approximations;
right: errors against $\rho$ up to $10^4$ (stored tables, `tests/data/twoqueue_error_tables.json`) on log-log
axes, dashed = leading order, solid = corrected, grey = reference slopes."""),
    ("code", r"""def regime_figure(reg, a):
    N = int(round(a * RHO_FIG))
    model = TwoQueueJSQ(N, float(RHO_FIG))
    ex = model.stationary_distribution().marginal_min()
    a0 = model.asymptotic("marginal_min", regime=reg, order=0)
    a1 = model.asymptotic("marginal_min", regime=reg, order=1)
    k = np.arange(N + 1)
    sel = ex > 1e-30 * ex.max()
    fig, axes = plt.subplots(1, 3, figsize=(12.5, 3.4), constrained_layout=True)
    ax = axes[0]
    ax.semilogy(k[sel], ex[sel], "k-", lw=2.2, label="exact")
    ax.semilogy(k[sel], a0[sel], "C1--", lw=1.2, label="asymptotic, leading")
    ax.semilogy(k[sel], a1[sel], "C0:", lw=1.6, label=r"asymptotic, with $O(1/\rho)$")
    ax.set_xlabel(r"$k$ (busy servers in the less occupied station)")
    ax.set_ylabel(r"$P(\min(m,n)=k)$")
    ax.set_title(f"{reg}: a = {a}, N = {N}, rho = {RHO_FIG} Erlang")
    ax = axes[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        ax.semilogy(k[sel], np.abs(a0[sel] / ex[sel] - 1), "C1--", lw=1.2, label="leading")
        ax.semilogy(k[sel], np.abs(a1[sel] / ex[sel] - 1), "C0-", lw=1.2, label="corrected")
    ax.set_xlabel(r"$k$")
    ax.set_ylabel("relative error")
    ax.set_ylim(1e-9, 10)
    ax = axes[2]
    t = TABLES["tables"][reg]
    for key, col, name in (("tv", "C0", "TV joint"), ("marginal_min", "C2", "TV law of min"),
                           ("blocking", "C3", "rel. err. blocking")):
        for o, ls in (("0", "--"), ("1", "-")):
            rows = t["rows"][o]
            ax.loglog([r["rho"] for r in rows], [max(r[key], 1e-17) for r in rows], ls, color=col, marker=".",
                      label=f"{name}, order {o} (q = {t['fitted_order'][o][key]:.2f})")
    rr = np.array([50, 1e4])
    for q in ((0.5, 1) if reg == "a~1/2" else (1, 2)):
        ax.loglog(rr, 0.05 * (rr / 50) ** (-q), color="0.7", lw=0.8)
        ax.text(1.1e4, 0.05 * (1e4 / 50) ** (-q), rf"$\rho^{{-{q:g}}}$", color="0.4", fontsize=8, va="center")
    ax.set_xlabel(r"$\rho$ (offered load, Erlang)")
    ax.set_ylabel("error")
    ax.set_xlim(40, 3e4)
    for ax in axes[:2]:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.22), ncol=3, frameon=False)
    axes[2].legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    name = reg.replace("/", "").replace("<", "lt").replace(">", "gt").replace("~", "eq")
    path = FIGDIR / f"twoqueue_{name}.png"
    fig.savefig(path, bbox_inches="tight")
    plt.show()
    return path


for reg, a in CASES:
    print(regime_figure(reg, a))"""),
    ("md", r"""## 5. Error tables

Stored tables (exact float solution vs asymptotic at $\rho = 50,\dots,10^4$), with the fitted exponent $q$
(error $\propto \rho^{-q}$) before (order 0) and after (order 1) the O(1/rho) corrections; the rows with
$\rho \le 200$ are recomputed here and must agree with the stored ones."""),
    ("code", r"""KEYS = TABLES["header"]["keys"]
print("made by:", TABLES["header"]["made_by"], "in", TABLES["header"]["seconds"], "s")
for reg, a in CASES:
    t = TABLES["tables"][reg]
    print(f"\nregime {reg} (a = {a})")
    print("order   rho      N " + "".join(f"{k:>13s}" for k in KEYS))
    for o in ("0", "1"):
        for r in t["rows"][o]:
            print(f"{o:>5s} {r['rho']:5d} {r['N']:6d} " + "".join(f"{r[k]:13.2e}" for k in KEYS))
        print(f"{o:>5s} fitted q     " + "".join(f"{t['fitted_order'][o][k]:13.2f}" for k in KEYS))"""),
    ("code", r"""# recompute the small-rho rows and compare with the stored table
import importlib.util
maker = DATA / "make_twoqueue_error_tables.py"
spec = importlib.util.spec_from_file_location("tables", maker)
mk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mk)
for reg, a in CASES:
    for rho in (50, 100) if SMALL else (50, 100, 200):
        m = TwoQueueJSQ(int(round(a * rho)), float(rho))
        ex = m.stationary_distribution()
        for o in (0, 1):
            e = mk.errors(reg, a, rho, o, ex, mk._class_arrays(ex, m.N), m)
            stored = next(r for r in TABLES["tables"][reg]["rows"][str(o)] if r["rho"] == rho)
            assert all(abs(e[k] - stored[k]) <= 1e-9 * max(1.0, stored[k]) + 1e-14 for k in KEYS), (reg, rho, o)
print("recomputed rows agree with the stored table")
for reg, _ in CASES:
    f = TABLES["tables"][reg]["fitted_order"]
    assert f["1"]["tv"] > (1.0 if reg == "a~1/2" else 1.7) and 0.8 < f["0"]["tv"] < 1.2, reg
print("TV of the joint law: q ~ 1 before, q ~ 2 after the correction (q > 1 at a ~ 1/2)")"""),
    ("md", r"""## 6. The claims

`symloss verify --claim 'seed003.*'` runs them all; here the blocking regimes and the corner law."""),
    ("code", r"""from proofs_check.core import run_claims, select
ids = ["seed003.blocking_regime.*", "seed003.corner_law.closed_form", "seed003.regime_boundary.*"]
if not SMALL:
    ids.append("seed003.imbalance_regime.*")
for res in run_claims(select(ids)):
    print(f"{res.claim.id:40s} {res.status.value:9s} {res.seconds:6.1f} s  {res.certificate.summary}")
    assert res.as_expected"""),
    ("md", r"""## 7. The $a = 1/4$ boundary

In the corner law the deficit $L = N - \min(m,n)$ of the less occupied queue has the poles $1/a$ and
$1/(4a^2)$; the tail decays like $\max(a, 4a^2)^k$, the rates exchanging at $a = 1/4$ (double pole,
$k\,4^{-k}$). In the finite system the same exchange is local: between the imbalanced ray (ratio
$x = m/\rho$) and the balanced one ($4x^2$) at $m = \rho/4$; `asymptotic("marginal_min_tail")` resolves
it uniformly."""),
    ("code", r"""print("poles:", derivation.tail_poles())
rho = 200 if SMALL else 800
fig, ax = plt.subplots(figsize=(6.4, 3.6), constrained_layout=True)
for a, col in ((0.15, "C0"), (0.25, "C1"), (0.35, "C2")):
    N = int(round(a * rho))
    model = TwoQueueJSQ(N, float(rho))
    ex = model.stationary_distribution().marginal_min()
    tail = model.asymptotic("marginal_min_tail")
    k = np.arange(N + 1)
    sel = ex > 1e-300
    ax.semilogy(N - k[sel], ex[sel], "-", color=col, lw=2, label=f"exact, a = {a}")
    ax.semilogy(N - k[sel], tail[sel], "k:", lw=1)
    print(f"a = {a}: max relative error of the uniform tail law {np.max(np.abs(tail[sel] / ex[sel] - 1)):.2e}")
ax.plot([], [], "k:", label="uniform asymptotic (diagonal identity)")
ax.set_xlabel(r"deficit $N - \min(m,n)$ of the less occupied station")
ax.set_ylabel(r"probability")
ax.set_title(rf"law of the less occupied station, $\rho$ = {rho} Erlang")
ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
fig.savefig(FIGDIR / "twoqueue_quarter_boundary.png", bbox_inches="tight")
plt.show()"""),
]


def main():
    nb = new_notebook()
    nb.cells = [new_markdown_cell(src) if kind == "md" else new_code_cell(src) for kind, src in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = Path(__file__).with_name("jsq_erlang_loss.ipynb")
    nbformat.write(nb, path)
    print("written", path)


if __name__ == "__main__":
    main()
