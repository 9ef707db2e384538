"""Generator of the cells of notebooks/supermarket_graphs.ipynb.

Run ``python notebooks/build.py supermarket_graphs`` to regenerate the notebook from this file and store it
executed (``python notebooks/make_supermarket_graphs.py notebooks/supermarket_graphs.ipynb`` writes it without
outputs). Sizes: the stored run (N up to 16000, degrees up to 10), ``SYMLOSS_NOTEBOOK_SIZE=paper`` (N up to
64000, degrees up to 40 on 10^5 vertices), ``SYMLOSS_NOTEBOOK_SMALL=1`` (the test suite).
"""
import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CELLS = [
("md", r"""# The supermarket model on graphs: insensitivity and its failure at fixed degree

A. Budhiraja, D. Mukherjee and R. Wu, *Supermarket model on graphs*, Ann. Appl. Probab. 29(3), 2019.
A single-server queue sits on every vertex of a graph; tasks arrive at each vertex at rate
$\lambda<1$ and join the shortest queue among the arrival vertex and $d-1$ uniformly chosen
neighbours (ties uniformly at random); service is unit-rate exponential.

On the complete graph the tail fractions $s_k$ (fraction of queues with at least $k$ tasks) follow
$$\dot s_k = \lambda(s_{k-1}^d - s_k^d) - (s_k - s_{k+1}),\qquad s_k^* = \lambda^{(d^k-1)/(d-1)} .$$
The paper proves the same limit when the minimum degree grows (max/min degree ratio $\to 1$) and for
Erdős–Rényi graphs with $c(N)\to\infty$ (annealed) or $c(N)/\ln N\to\infty$ (quenched). At fixed degree
the limit is different; the pair approximation of N. Gast (2015) tracks it.

Everything here uses the public API: `symloss.Supermarket`, `make_graph`, `simulate_supermarket`,
`ode_distance`, `pair_approximation`, and `symloss.plot` for the figures, which are saved (PDF and PNG,
with their provenance in the metadata) to `symloss.plot.figure_dir()` (`$SYMLOSS_FIGURE_DIR`, else
`./symloss-figures`). The stored run uses $N \le 16000$ and degrees up to 10 on $2\cdot 10^4$ vertices;
`SYMLOSS_NOTEBOOK_SIZE=paper` runs the study of the paper-size figures ($N \le 64000$, degrees up to 40 on
$10^5$ vertices)."""),
("code", r"""import math
import os
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np

import symloss
from symloss import plot

# sizes: the stored run; SYMLOSS_NOTEBOOK_SIZE=paper (the study); SYMLOSS_NOTEBOOK_SMALL=1 (the test suite)
SIZE = "small" if os.environ.get("SYMLOSS_NOTEBOOK_SMALL") == "1" else os.environ.get("SYMLOSS_NOTEBOOK_SIZE", "docs")
SMALL, PAPER = SIZE == "small", SIZE == "paper"
LAM, D = 0.7, 2
if SMALL:
    NS, T, RUNS = [500, 2000, 8000], 6.0, 2
    DEGREES, N_DEG, T_END = [2, 3, 6], 3000, 40.0
elif PAPER:
    NS, T, RUNS = [1000, 4000, 16000, 64000], 10.0, 4
    DEGREES, N_DEG, T_END = [2, 3, 4, 6, 10, 20, 40], 100000, 200.0
else:
    NS, T, RUNS = [1000, 4000, 16000], 10.0, 3
    DEGREES, N_DEG, T_END = [2, 3, 4, 6, 10], 20000, 100.0
warnings.simplefilter("ignore", UserWarning)   # sparse G(N, c/N) has a few isolated vertices
FIG_DIR = plot.figure_dir()            # $SYMLOSS_FIGURE_DIR, else ./symloss-figures
print(f"{SIZE} run - figures go to {FIG_DIR}")"""),
("md", r"""## 1. Mean field: symbolic ODE, fixed point, any precision"""),
("code", r"""mf = symloss.Supermarket(D, LAM)
print(mf, "\n", mf.symbolic_check())
mf.equations(3)"""),
("code", r"""fp = mf.fixed_point(40)
print("K =", fp.K, " tail bound", fp.tail_bound, " residual", fp.residual)
print("E[Q] =", symloss.Supermarket(D, LAM).mean_queue_length(40))
print("E[T] =", symloss.Supermarket(D, LAM).sojourn_time(40))
assert abs(float(fp.mean_queue_length) - 1.130118) < 1e-6      # sum_k 0.7^(2^k - 1), k >= 1
EQ_MF = float(fp.mean_queue_length)"""),
("code", r"""sol = mf.ode(None, 15.0)
fig = plot.trajectories(sol.t, {f"$s_{k}(t)$": sol.s[:, k] for k in range(1, 5)},
                        fixed={f"$s_{k}(t)$": float(fp.s[k]) for k in range(1, 5)},
                        ylabel=r"tail fraction $s_k(t)$", probability=True,
                        title=rf"mean-field ODE from empty, $d = {D}$, $\lambda = {LAM}$")
plot.savefig(fig, FIG_DIR / "supermarket_ode.pdf", formats=("pdf", "png"))
plt.show()"""),
("md", r"""## 2. Distance to the ODE as $N$ grows, per graph family

$\sup_{t\le T}\max_k |s^N_k(t) - s_k(t)|$ from the empty state (sup over a grid of 100 times), mean
over runs with a 95 % interval. Families: complete; random regular with $k = \lceil\ln N\rceil$
(degree $\to\infty$); Erdős–Rényi with $c = \ln N$ (annealed and quenched) and $c = (\ln N)^2$;
fixed degree: ring ($k=2$), random 3-regular, torus ($k = 4$)."""),
("code", r"""def k_ln(N):
    k = max(3, math.ceil(math.log(N)))
    return k + 1 if (N * k) % 2 else k

FAMILIES = {
    "complete":            lambda N: dict(graph="complete", N=N),
    "random k = ln N":     lambda N: dict(graph="random_regular", N=N, k=k_ln(N)),
    "ER c = ln N (annealed)": lambda N: dict(graph="erdos_renyi", N=N, c="ln", mode="annealed"),
    "ER c = ln N (quenched)": lambda N: dict(graph="erdos_renyi", N=N, c="ln", mode="quenched"),
    "ER c = (ln N)^2":     lambda N: dict(graph="erdos_renyi", N=N, c="ln2"),
    "ring k = 2":          lambda N: dict(graph="ring", N=N, k=2),
    "random 3-regular":    lambda N: dict(graph="random_regular", N=N, k=3),
    "torus k = 4":         lambda N: dict(graph="torus", N=int(round(math.sqrt(N))) ** 2, k=4),
}
dist = {}
t0 = time.time()
for name, spec in FAMILIES.items():
    dist[name] = []
    for i, N in enumerate(NS):
        kw = spec(N)
        g = kw.pop("graph")
        r = symloss.ode_distance(g, d=D, lam=LAM, T=T, runs=RUNS, seed=1000 + i, **kw)
        dist[name].append(r)
    print(f"{name:>24}: " + "  ".join(f"N={r.N}: {r.distance:.4f}" for r in dist[name]))
print(f"{time.time() - t0:.1f} s")"""),
("code", r"""fig = plot.supermarket_distance(dist, width="double",
                                title=rf"distance to the mean-field ODE, $d = {D}$, $\lambda = {LAM}$, $T = {T:g}$")
plot.savefig(fig, FIG_DIR / "supermarket_distance.pdf", formats=("pdf", "png"))
plt.show()"""),
("code", r"""# insensitivity: growing degree -> distance shrinks; fixed degree -> it levels off
for name in ("complete", "random k = ln N", "ER c = (ln N)^2"):
    print(f"{name:>20}: distance ratio largest N / smallest N = {dist[name][-1].distance / dist[name][0].distance:.3f}")
for name in ("ring k = 2", "random 3-regular"):
    print(f"{name:>20}: distance at largest N = {dist[name][-1].distance:.4f}")
    assert dist[name][-1].distance > dist["complete"][-1].distance"""),
("md", r"""## 3. Stationary mean queue length against the degree

Simulations on random $k$-regular graphs (and the ring, $k=2$, and torus, $k=4$), 95 % batch-means
intervals; the lines are the mean field (1.130118 at $\lambda=0.7$) and the pair approximation."""),
("code", r"""rows = []
t0 = time.time()
for k in DEGREES:
    g = symloss.make_graph("random_regular", N_DEG if (N_DEG * k) % 2 == 0 else N_DEG + 1, k=k, seed=k)
    r = symloss.simulate_supermarket(g, d=D, lam=LAM, t_end=T_END, seed=100 + k)
    pa = symloss.pair_approximation(k, LAM)
    rows.append((f"random {k}-regular", k, r, pa.mean_queue_length))
for fam, k, n in (("ring", 2, N_DEG), ("torus", 4, int(math.isqrt(N_DEG)) ** 2)):
    g = symloss.make_graph(fam, n, k=k)
    r = symloss.simulate_supermarket(g, d=D, lam=LAM, t_end=T_END, seed=7)
    rows.append((fam, k, r, symloss.pair_approximation(k, LAM).mean_queue_length))
print(f"{time.time() - t0:.1f} s")
print(f"{'graph':>20} {'k':>3} {'E[Q] sim':>9} {'95% CI':>20} {'excess over MF':>15} {'pair approx':>12}")
for name, k, r, pa in rows:
    print(f"{name:>20} {k:>3} {r.mean_queue_length:9.4f} [{r.ci[0]:.4f}, {r.ci[1]:.4f}] "
          f"{r.mean_queue_length - EQ_MF:+15.4f} {pa:12.4f}")"""),
("code", r"""points = {"simulation, random $k$-regular": [(k, r) for name, k, r, _ in rows if name.startswith("random")]}
for name, k, r, _ in rows:
    if not name.startswith("random"):
        points[f"simulation, {name}"] = [(k, r)]
ks = np.unique(np.geomspace(1, max(DEGREES) * 2, 30).astype(int))
fig = plot.mean_queue_vs_degree(points, pair=(ks, [symloss.pair_approximation(int(k), LAM).mean_queue_length for k in ks]),
                                mean_field=EQ_MF, title=rf"JSQ(2) on $k$-regular graphs, $\lambda = {LAM}$")
plot.savefig(fig, FIG_DIR / "supermarket_degree.pdf", formats=("pdf", "png"))
plt.show()"""),
("md", r"""## 4. Tails on a log scale

The stationary tail fractions $s_k$: doubly exponential decay on the complete graph (mean field), only
geometric decay at fixed degree, which the pair approximation reproduces."""),
("code", r"""tails = {"mean field (complete graph)": fp}
for name, k, r, _ in rows:
    if name in ("random 3-regular", "ring"):
        tails[f"simulation, {name}"] = r
tails["pair approximation, $k = 3$"] = symloss.pair_approximation(3, LAM)
fig = plot.supermarket_tails(tails, k_max=8, title=rf"stationary tails, $d = {D}$, $\lambda = {LAM}$")
plot.savefig(fig, FIG_DIR / "supermarket_tails.pdf", formats=("pdf", "png"))
plt.show()"""),
("code", r"""# checks: fixed degree stays above the mean field; the pair approximation tracks the simulations
for name, k, r, pa in rows:
    assert r.ci[0] > EQ_MF or k >= 6, (name, r.ci)
    if not SMALL and name.startswith("random"):
        assert abs(r.mean_queue_length - pa) < max(4 * r.half_width, 0.01), (name, r.mean_queue_length, pa)
print("ring (k = 2): simulation", round(rows[-2][2].mean_queue_length, 4), " pair approximation", round(rows[-2][3], 4))"""),
("md", r"""## Reading the results

* **Insensitivity.** When the degree grows (complete graph, random regular with $k=\lceil\ln N\rceil$,
  Erdős–Rényi with $c=(\ln N)^2$) the distance to the ODE falls roughly like $N^{-1/2}$; with
  $c=\ln N$ it still falls, but slowly, since a positive fraction of vertices keeps a small degree at
  these sizes.
* **Failure at fixed degree.** On the ring, random 3-regular graphs and the torus the distance levels
  off, and the stationary mean queue length stays above the mean-field value $1.130118$ by an amount
  that shrinks roughly like $1/k$.
* **Pair approximation.** Its mean queue length follows the random-regular simulations closely for
  every degree (it is exact on trees; the torus, with short cycles, is slightly off)."""),
]


def build():
    nb = new_notebook()
    nb.cells = [new_markdown_cell(src) if kind == "md" else new_code_cell(src) for kind, src in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


if __name__ == "__main__":
    import sys
    nbformat.write(build(), sys.argv[1])
