"""Generate the cells of notebooks/jsq_erlang_loss.ipynb with nbformat.

Run ``python notebooks/build.py jsq_erlang_loss`` to regenerate the notebook from this file and store it
executed (``python notebooks/make_jsq_erlang_loss.py`` writes it without outputs). Sizes: the stored run
(loads up to 800), ``SYMLOSS_NOTEBOOK_SIZE=paper`` (loads up to 3200, a larger heat map),
``SYMLOSS_NOTEBOOK_SMALL=1`` (the test suite). Figures (PDF and PNG, provenance in the metadata) go to
``symloss.plot.figure_dir()``; ``python notebooks/build.py --docs-figures`` copies them to ``docs/figures``.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CELLS = [
    ("md", r"""# The shortest-queue version of the Erlang loss model: five asymptotic regimes

Two M/M/N/N stations fed by one Poisson stream (rate $\lambda$) under join-the-shortest-queue, ties
split 1/2-1/2, an arrival lost only when all $2N$ servers are busy; $\rho=\lambda/\mu$, $a=N/\rho$
(H. Yao and C. Knessl, *On the Shortest Queue Version of the Erlang Loss Model*, Studies in Applied
Mathematics 120(2), 2008). Public API only: `symloss.TwoQueueJSQ`, `symloss.jsq_regime`,
`symloss.twoqueue` (the definition), `symloss.plot` (the figures), `proofs_check` (the claims). The figures
are saved (PDF and PNG, with their provenance in the metadata) to `symloss.plot.figure_dir()`
(`$SYMLOSS_FIGURE_DIR`, else `./symloss-figures`). This stored run uses loads up to $\rho = 800$;
`SYMLOSS_NOTEBOOK_SIZE=paper` runs the paper-size figures (loads up to 3200).

Contents: 1. the one definition and what is generated from it; 2. the exact solution (four methods);
3. the derivations (SymPy, from the rules): outer law, corner law in closed form, blocking;
4. one figure per regime (exact vs asymptotic with the relative error on log-log axes) and the heat map
of the joint law; 5. error tables with fitted exponents before and after the O(1/rho) corrections; 6. the claims;
7. the $a = 1/4$ boundary."""),
    ("code", r"""import json
import os
import time
from fractions import Fraction
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import sympy as sp
from IPython.display import Math, display

import symloss
from symloss import TwoQueueJSQ, jsq_regime, plot
from symloss.twoqueue import RULES, Rule, definition, derivation

# sizes: the stored run; SYMLOSS_NOTEBOOK_SIZE=paper; SYMLOSS_NOTEBOOK_SMALL=1 (the test suite)
SIZE = "small" if os.environ.get("SYMLOSS_NOTEBOOK_SMALL") == "1" else os.environ.get("SYMLOSS_NOTEBOOK_SIZE", "docs")
SMALL, PAPER = SIZE == "small", SIZE == "paper"
FIG_DIR = plot.figure_dir()            # $SYMLOSS_FIGURE_DIR, else ./symloss-figures
# loads of the exact-vs-asymptotic figures (exact float solves up to N = a rho)
RHOS = [50, 100, 200, 400] if SMALL else ([50, 100, 200, 400, 800, 1600, 3200] if PAPER else [50, 100, 200, 400, 800])
# the stored error tables live in the repository's tests/data (not in the installed package)
_here = [Path(os.environ["SYMLOSS_REPO"])] if "SYMLOSS_REPO" in os.environ else []
_here += [Path.cwd(), *Path.cwd().parents, Path(symloss.__file__).resolve().parents[1]]
DATA = next((p / "tests" / "data" for p in _here if (p / "tests" / "data" / "twoqueue_error_tables.json").is_file()), None)
if DATA is None:
    raise FileNotFoundError("tests/data/twoqueue_error_tables.json not found: run this notebook from a clone of "
                            "symloss (or set SYMLOSS_REPO to the clone's root)")
TABLES = json.loads((DATA / "twoqueue_error_tables.json").read_text())
CASES = [("a>1/2", 1.0), ("a~1/2", 0.5), ("1/4<a<1/2", 0.35), ("a~1/4", 0.25), ("a<1/4", 0.15)]
REG_TEX = {"a>1/2": r"$a > 1/2$", "a~1/2": r"$a \approx 1/2$", "1/4<a<1/2": r"$1/4 < a < 1/2$",
           "a~1/4": r"$a \approx 1/4$", "a<1/4": r"$a < 1/4$"}
print(f"{SIZE} run - figures go to {FIG_DIR}")"""),
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
edited, original = Tie(6, 5.0), TwoQueueJSQ(6, 5.0)
fl, gen = edited.stationary_distribution(), edited.generic_solve()
print("edited: max |float - generic sparse LU| =", float(np.max(np.abs(fl.p - gen))))
print("P(first queue has 0 busy):  original", original.stationary_distribution().marginal()[0],
      " edited", fl.p[0].sum())
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
big = TwoQueueJSQ(500 if SMALL else (3000 if PAPER else 1000), 500.0 if SMALL else (3000.0 if PAPER else 1000.0)).stationary_distribution()
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

The mean imbalance $E|m-n|$ of the two stations at $N = a\rho$, exact (float solution of the full chain,
verified on its balance equations) and asymptotic (the regime's formulas with their $O(1/\rho)$
corrections, `TwoQueueJSQ.asymptotic`), against $\rho$ on log-log axes; below, the relative error
$|E_{\rm asympt}/E_{\rm exact} - 1|$ with the least-squares line of its tail, labelled with the slope it has
and the theory's ($-2$; $-1$ at $a \sim 1/2$, where the corrections are $O(\rho^{-1/2})$). The errors of the whole joint law up to $\rho = 10^4$ are in the tables of
section 5."""),
    ("code", r"""def regime_figure(reg, a):
    exact, asym = [], []
    for rho in RHOS:
        model = TwoQueueJSQ(max(1, round(a * rho)), float(rho))
        exact.append(model.stationary_distribution().mean_imbalance())
        asym.append(model.asymptotic("distribution", regime=reg, order=1).mean_imbalance())
    fig = plot.exact_vs_asymptotic(RHOS, exact, asym, xlabel=r"offered load $\rho$ (Erlang)",
                                   ylabel=r"mean imbalance $E|m-n|$",
                                   labels=("exact", r"asymptotic, with the $O(1/\rho)$ terms"),
                                   reference_slope=-1 if reg == "a~1/2" else -2,
                                   title=rf"regime {REG_TEX[reg]}: $N = {'' if a == 1 else f'{a:g}'}\,\rho$")
    name = reg.replace("/", "").replace("<", "lt").replace(">", "gt").replace("~", "eq")
    paths = plot.savefig(fig, FIG_DIR / f"twoqueue_{name}.pdf", formats=("pdf", "png"))
    plt.show()
    rel = [abs(y / x - 1) for x, y in zip(exact, asym)]
    print(f"{reg:10s} a = {a:4}: relative error {rel[0]:.2e} at rho = {RHOS[0]}, {rel[-1]:.2e} at rho = {RHOS[-1]}",
          "->", [p.name for p in paths])
    assert rel[-1] < rel[0] / 4, reg          # the error falls with the load
    return paths


for reg, a in CASES:
    regime_figure(reg, a)"""),
    ("md", r"""The joint law itself, $p(m, n)$ at $N = 40$, $\rho = 100$ ($a = 0.4$, the corner regime): the mass
sits on the diagonal near the corner $(N, N)$, the longer-queue walk of section 3."""),
    ("code", r"""dist = TwoQueueJSQ(40, 100.0).stationary_distribution()
fig = plot.jsq_heatmap(dist)
print([p.name for p in plot.savefig(fig, FIG_DIR / "twoqueue_heatmap.pdf", formats=("pdf", "png"))])
plt.show()"""),
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
with plot.paper_rc():              # one font family, paper sizes: the style of every symloss.plot figure
    fig, axes = plot.new_figure("double", 3.0)
    ax = axes[0, 0]
    probs = []
    for a, col in ((0.15, "C0"), (0.25, "C1"), (0.35, "C2")):
        N = int(round(a * rho))
        model = TwoQueueJSQ(N, float(rho))
        ex = model.stationary_distribution().marginal_min()
        tail = model.asymptotic("marginal_min_tail")
        k = np.arange(N + 1)
        sel = ex > 1e-300
        ax.semilogy(N - k[sel], ex[sel], "-", color=col, lw=1.6, label=f"exact, $a = {a}$")
        ax.semilogy(N - k[sel], tail[sel], "k:", lw=0.9)
        probs.append(ex[sel])
        print(f"a = {a}: max relative error of the uniform tail law {np.max(np.abs(tail[sel] / ex[sel] - 1)):.2e}")
    ax.plot([], [], "k:", lw=0.9, label="uniform asymptotic (diagonal identity)")
    ax.set_xlabel(r"deficit $j = N - \min(m,n)$ of the less occupied station (servers)")
    ax.set_ylabel(r"probability $P(N - \min(m,n) = j)$")
    ax.set_title(rf"law of the less occupied station, $\rho = {rho}$ Erlang")
    plot.cap_probability_axis(ax, np.concatenate(probs))     # a probability: the axis ends at 1
    plot.place_legend(ax)
    plot.finish_figure(fig)
print([p.name for p in plot.savefig(fig, FIG_DIR / "twoqueue_quarter_boundary.pdf", formats=("pdf", "png"))])
plt.show()"""),
]


def build() -> nbformat.NotebookNode:
    nb = new_notebook()
    nb.cells = [new_markdown_cell(src) if kind == "md" else new_code_cell(src) for kind, src in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def main():
    path = Path(__file__).with_name("jsq_erlang_loss.ipynb")
    nb = build()
    nbformat.validate(nb)
    nbformat.write(nb, path)
    print("written", path)


if __name__ == "__main__":
    main()
