"""Generate the cells of notebooks/define_your_own_policy.ipynb with nbformat.

Run ``python notebooks/build.py define_your_own_policy`` to regenerate the notebook from this file and store it
executed (``python notebooks/make_define_your_own_policy.py`` writes it without outputs). The stored run takes
about a minute; ``SYMLOSS_NOTEBOOK_SIZE=paper`` uses finer grids and longer simulations;
``SYMLOSS_NOTEBOOK_SMALL=1`` is the test suite's run. Figures go to ``symloss.plot.figure_dir()``.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CELLS = [
    ("md", r"""# Define your own policy: a model is data

symloss derives everything from one definition of a mean-field model: state variables, transitions
(jump, rate per server) and the blocking. Here we define a policy that is in none of the papers,

> **hybrid$(d, r)$**: sample $d$ servers and join the least loaded; if all $d$ are full, draw a
> fresh sample; at most $r$ rounds, then the job is lost,

and get, from the definition alone: its stationary equations in LaTeX, a *certified* blocking far
below the float range, its thresholds against power-of-$d$ and retrial-of-$d$, and its expansion
at small load. It contains power-of-$d$ ($r = 1$) and retrial-of-$r$ ($d = 1$) as special cases,
which we check.

With tails $u_k$ (fraction of servers with at least $k$ jobs, $u_0 = 1$, $u_{C+1} = 0$) and
$s = u_C^d$ (a round finds all $d$ sampled servers full), an arrival joins a server with $k - 1$ jobs
at rate $\rho\,(1 + s + \dots + s^{r-1})\,(u_{k-1}^d - u_k^d)$; a server with $k$ jobs completes one at
rate $k$; the blocking is $u_C^{d r}$."""),
    ("code", r"""import os
import time

import matplotlib
import matplotlib.pyplot as plt
import mpmath
import numpy as np
import sympy as sp
from IPython.display import Math, display

import symloss
from symloss import RHO, PowerOfD, RetrialOfD, define_model, plot

# sizes: the stored run; SYMLOSS_NOTEBOOK_SIZE=paper (finer grid, longer simulation); SYMLOSS_NOTEBOOK_SMALL=1 (tests)
SIZE = "small" if os.environ.get("SYMLOSS_NOTEBOOK_SMALL") == "1" else os.environ.get("SYMLOSS_NOTEBOOK_SIZE", "docs")
SMALL, PAPER = SIZE == "small", SIZE == "paper"
N_GRID = 12 if SMALL else (120 if PAPER else 60)
print(f"{SIZE} run - figures go to {symloss.plot.figure_dir()}")"""),
    ("md", r"""## 1. The definition (the only place the policy is written)"""),
    ("code", r"""def hybrid(C, d, r):
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + u + (sp.Integer(0),)
    retry = sum((u[-1] ** d) ** j for j in range(r))          # 1 + s + ... + s^(r-1)
    transitions = []
    for k in range(1, C + 1):
        transitions.append(({u[k - 1]: +1}, RHO * retry * (U[k - 1] ** d - U[k] ** d)))
        transitions.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"hybrid(d={d}, r={r})", u, transitions, blocking=u[-1] ** (d * r),
                        state_kind="tail", C=C)


model = hybrid(3, 2, 2)
model"""),
    ("md", r"""## 2. Stationary equations, derived by SymPy

The drift $f(x) = \sum_\ell \ell\,\beta_\ell(x)$ and the blocking, as a complete LaTeX environment
(`model.latex()` pastes into a paper as it is):"""),
    ("code", r"""print(model.latex())
display(Math(model.latex().replace("\\begin{align*}", "\\begin{aligned}").replace("\\end{align*}", "\\end{aligned}")))"""),
    ("md", r"""## 3. A certified blocking, far below the float range

No accelerator knows this policy, so symloss uses its generic certified solver: a float start
(continuation in the load, in log variables $y = \log u$), Newton in ball arithmetic, then a
Krawczyk test on the model's own stationary equations that proves exactly one zero in a box. The
blocking is given to the requested digits, with a rigorous bracket."""),
    ("code", r"""fp = model.fixed_point(mpmath.mpf(10) ** -4, dps=30)
print("blocking at rho = 1e-4:", mpmath.nstr(fp.blocking, 30))
print("bracket:", [mpmath.nstr(v, 32) for v in fp.blocking_bracket])
print("method:", fp.method)
print("certificate:", fp.extra["certificate"])
assert fp.blocking < mpmath.mpf(10) ** -100"""),
    ("md", r"""Special cases, checked against the shipped policies (whose numbers come from different
algorithms: the shooting method for power-of-$d$, the Erlang-B reduction for retrial):"""),
    ("code", r"""with mpmath.workdps(40):
    for rho in (mpmath.mpf("0.5"), mpmath.mpf(2), mpmath.mpf(7)):
        a, b = hybrid(3, 2, 1).blocking(rho, dps=30), PowerOfD(3, 2).blocking(rho, dps=30)
        c, e = hybrid(3, 1, 2).blocking(rho, dps=30), RetrialOfD(3, 2).blocking(rho, dps=30)
        print(f"rho = {mpmath.nstr(rho, 3)}:  hybrid(2,1) / power-of-2 - 1 = {mpmath.nstr(a / b - 1, 3)}, "
              f"hybrid(1,2) / retrial-of-2 - 1 = {mpmath.nstr(c / e - 1, 3)}")
        assert abs(a / b - 1) < mpmath.mpf(10) ** -28 and abs(c / e - 1) < mpmath.mpf(10) ** -28"""),
    ("md", r"""## 4. Against power-of-$d$ and retrial-of-$d$

`crossing_loads(model_a, model_b)` finds every load where the blockings are equal (float scan, then
each crossing certified by ball-bracketed signs); `threshold_load(model_a, model_b)` is the load
above which `model_a` blocks strictly less at every larger load (0: at every load). Both come from a
float scan of a range of loads, so they are **EVIDENCE** (the value says so); a threshold PROVED for
every load is `symloss.certified_comparison(model_a, model_b)`, whose certificate
`symloss.verify_comparison` re-checks."""),
    ("code", r"""C = 3
others = [PowerOfD(C, 2), PowerOfD(C, 3), PowerOfD(C, 4), RetrialOfD(C, 3), RetrialOfD(C, 4)]
thresholds = {}
for other in others:
    res = symloss.crossing_loads(model, other, rho_min=0.01, rho_max=150, dps=15)
    name = plot.policy_label(other)
    try:
        thr = symloss.threshold_load(model, other, dps=15)
        thresholds[name] = thr
        verdict = ("hybrid lower at every load" if thr == 0 else f"hybrid lower above rho = {mpmath.nstr(thr, 12)}")
        verdict += f" ({thr.status}: float scan)"
    except ValueError:
        thr = None
        verdict = f"{name} stays lower at large load"
    print(f"{name:14s} crossings: {[mpmath.nstr(c, 12) for c in res.crossings]};  {verdict}")
print(repr(thresholds["power-of-3"]))
assert abs(thresholds["power-of-3"] - mpmath.mpf("1.2876465775759")) < 1e-9"""),
    ("md", r"""### Certified for every load

`certified_comparison(model, other)` proves the sign of $B_{\mathrm{hybrid}} - B_{\mathrm{other}}$ on all
of $(0, \infty)$, or isolates every crossing in an interval of width $\le 10^{-\mathrm{dps}}$ holding exactly
one crossing (exact series at both ends, Taylor models and Krawczyk boxes of the model's own stationary
equations in between); `verify_comparison` re-checks the certificate from its stored data, without the
search. Only then is a threshold called **PROVED**."""),
    ("code", r"""certified = {}
for other in (PowerOfD(C, 3), PowerOfD(C, 2)):
    t0 = time.perf_counter()
    res = symloss.certified_comparison(model, other, dps=15)
    seconds = time.perf_counter() - t0
    symloss.verify_comparison(res.certificate, model, other)          # raises if the certificate is wrong
    certified[plot.policy_label(other)] = res
    where = ("no crossing on (0, oo): " + ("hybrid lower at every load" if res.sign_at_infinity < 0 else
                                            "hybrid higher at every load")) if not res.crossings else \
        "crossings " + ", ".join(f"[{c.rho_lo}, {c.rho_hi}]" for c in res.crossings)
    print(f"against {plot.policy_label(other)}: {where}  (PROVED, re-checked; {seconds:.1f} s)")
cross = certified["power-of-3"].crossings[0]
assert float(cross.rho_lo) <= float(thresholds["power-of-3"]) <= float(cross.rho_hi)   # the float scan agrees"""),
    ("code", r"""# the ratio B_hybrid / B_other on log axes (below 1: the hybrid blocks less); the threshold against
# power-of-3 is the certified comparison above (re-checked again by blocking_ratio before it is marked
# PROVED); the models themselves are passed, so the magnified panel is evaluated on a finer grid
rhos = np.geomspace(0.05, 100, N_GRID)
curves = {plot.policy_label(other): (model, other) for other in (PowerOfD(C, 3), PowerOfD(C, 4), RetrialOfD(C, 4))}
fig = plot.blocking_ratio(rhos, curves, thresholds={"power-of-3": certified["power-of-3"]},
                          ylabel=r"blocking ratio $B_{\mathrm{hybrid}(2,2)} / B_{\mathrm{policy}}$",
                          width="double", dps=15,
                          title=r"hybrid$(d = 2, r = 2)$ against power-of-$d$ and retrial-of-$d$, $C = 3$")
print([p.name for p in plot.savefig(fig, "hybrid_vs_power_and_retrial", formats=("pdf", "png"))])   # to figure_dir()
plt.show()"""),
    ("md", r"""## 5. Expansion at small load, from the stationary equations

The scaling of each variable is read off certified fixed points near $\rho = 0$, then *verified
exactly* as a dominant balance (triangular leading system solved in rationals, invertible Jacobian,
exact residual of the formal power series): the coefficients are exact."""),
    ("code", r"""ser = symloss.blocking_series(model, 0, 3)
display(ser)
exp = symloss.blocking_expansion(model, 0, 3)
with mpmath.workdps(40):
    for rho in (mpmath.mpf("0.01"), mpmath.mpf("0.001")):
        approx = sum(mpmath.mpf(int(c.p)) / int(c.q) * rho ** e for c, e in exp.terms)
        exact = model.blocking(rho, dps=30)
        print(f"rho = {mpmath.nstr(rho, 3)}: relative error of the 3-term expansion {mpmath.nstr(abs(approx / exact - 1), 3)}")"""),
    ("md", r"""## 6. Finite $N$ from the same definition

The mean field is the $N \to \infty$ limit. With $N$ servers the occupancy counts form a Markov chain
whose jumps and rates (`N * rate(counts / N)`) come from the same transitions: `exact_finite_n` builds and
solves it, `simulate` runs a count-level simulation whose numba kernel is generated from the definition,
and `refined_mean_field` gives the expansion $B_N \approx B + V/N + W/N^2$ (Gast & Van Houdt 2017)."""),
    ("code", r"""rho = 2.0
refined = symloss.refined_mean_field(model, rho=rho, dps=30)
print(f"mean field B = {refined.blocking_mf:.6g},  V = {refined.V:.6g},  W = {refined.W:.6g}")
print(f"{'N':>5} {'states':>8} {'exact B_N':>12} {'B + V/N':>12} {'B + V/N + W/N^2':>17}")
for N in ((10, 20) if SMALL else (10, 20, 40, 60)):
    ex = symloss.exact_finite_n(model, N, rho)
    print(f"{N:5d} {ex.n_states:8d} {ex.blocking:12.6g} {refined.at(N, 1):12.6g} {refined.at(N, 2):17.6g}")
    if N >= 20:     # the expansion is asymptotic in N: a few percent at N = 20, under 1 % at N = 40
        assert abs(refined.at(N, 2) / ex.blocking - 1) < 0.05
sim = symloss.simulate(model, N=1000, rho=rho, events=200_000 if SMALL else (10_000_000 if PAPER else 2_000_000),
                       replications=4, seed=1)
print(f"simulated, N = 1000: B = {sim.blocking:.5g}, 95% CI ({sim.ci[0]:.5g}, {sim.ci[1]:.5g}); "
      f"refined prediction {refined.at(1000, 2):.5g}; kernel: {sim.kernel}")"""),
    ("md", r"""## 7. The definition is binding

Edit a rate and every solver follows. A subclass of the shipped power-of-$d$ with doubled service
rates is no longer the system the shooting accelerator solves: symloss says so (a
`DefinitionMismatchWarning`) and computes the edited model with the generic certified solver;
doubling every service rate is the original model at half the load."""),
    ("code", r"""import warnings


class DoubledService(PowerOfD):
    def transitions(self):
        return [(jump, 2 * rate if min(jump) < 0 else rate) for jump, rate in super().transitions()]


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    b_edit = DoubledService(2, 2).blocking(1, dps=25)
print(caught[0].category.__name__, ":", str(caught[0].message)[:110], "...")
b_half = PowerOfD(2, 2).blocking(mpmath.mpf("0.5"), dps=25)
print(mpmath.nstr(b_edit, 25), mpmath.nstr(b_half, 25))
assert b_edit == b_half"""),
]


def build() -> nbformat.NotebookNode:
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for kind, src in CELLS:
        nb.cells.append(new_markdown_cell(src) if kind == "md" else new_code_cell(src))
    return nb


def main() -> Path:
    path = Path(__file__).with_name("define_your_own_policy.ipynb")
    nb = build()
    nbformat.validate(nb)
    nbformat.write(nb, str(path))
    return path


if __name__ == "__main__":
    print(main())
