"""Generate the cells of notebooks/load_balancing_policies.ipynb with nbformat.

Run ``python notebooks/build.py load_balancing_policies`` to regenerate the notebook from this file and store
it executed (``python notebooks/make_load_balancing_policies.py`` writes it without outputs). The stored run
takes about 40 s once the numba kernels are cached (the first run also compiles the count-chain kernel of the
buffer-40 supermarket model, about 80 s, cached on disk after); ``SYMLOSS_NOTEBOOK_SIZE=paper`` uses a
finer load grid, larger N and longer simulations; ``SYMLOSS_NOTEBOOK_SMALL=1`` is the test suite's run.
Figures go to ``symloss.plot.figure_dir()``.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CELLS = [
    ("md", r"""# The load-balancing literature's policies, written as user models

JSQ, join-the-idle-queue (JIQ) and threshold policies route by *comparisons*: their rates jump with the
state, and their mean-field fixed points sit on a face of the state space. The supermarket model has no
buffer at all. Here each of them is written **once** as a user model (`symloss.define_model`,
`symloss.define_unbounded_model`) and compared with the shipped power-of-$d$ (`symloss.PowerOfD`):

1. the definitions, the certified fixed points and what exactly is certified (`r.extra["parts"]`); the
   shipped `symloss.JSQ` against the user JSQ;
2. the mean field: blocking against the load for the four policies, and their certified comparisons
   (on load ranges for the switching policies, with what is and is not proved);
3. finite $N$ from the same definitions: the exact chain and simulations against the mean field;
4. the unbounded supermarket JSQ(2): certified mean queue length and delay probability with a truncation
   bound, the refined mean field ($V/N + W/N^2$) at buffer 40, and simulations of the finite system.

Loss systems: $N$ servers of capacity $C$, Poisson arrivals at rate $N\rho$, unit-rate service per job. The
state is the tails $u_k$ = fraction of servers with at least $k$ jobs ($u_0 = 1$, $u_{C+1} = 0$).

Statuses printed below: **PROVED** only for a certificate re-checked in this notebook by its verify
function; **EVIDENCE** for numerical evidence (a float scan, an ODE run, a simulation); **refused** where
symloss declines a computation, with its reason."""),
    ("code", r"""import os
import time
from fractions import Fraction

import matplotlib.pyplot as plt
import mpmath
import numpy as np
import sympy as sp

import symloss
from symloss import RHO, PowerOfD, define_model, define_unbounded_model, plot, verify_unbounded
from symloss.core.piecewise import verify_piecewise_certificate

# sizes: the stored run; SYMLOSS_NOTEBOOK_SIZE=paper (finer grid, larger N, longer runs); SYMLOSS_NOTEBOOK_SMALL=1 (tests)
SIZE = "small" if os.environ.get("SYMLOSS_NOTEBOOK_SMALL") == "1" else os.environ.get("SYMLOSS_NOTEBOOK_SIZE", "docs")
SMALL, PAPER = SIZE == "small", SIZE == "paper"
N_GRID = 16 if SMALL else (160 if PAPER else 70)                       # loads of the mean-field figure
N_EXACT = (5, 10) if SMALL else ((5, 10, 20, 30) if PAPER else (5, 10, 20))   # exact finite-N chains
N_SIM = (10, 20) if SMALL else ((10, 20, 50, 100, 200, 500) if PAPER else (10, 20, 50, 100))
EVENTS_PER_SERVER = 5_000 if SMALL else (200_000 if PAPER else 30_000)      # simulated events / N, per replication
REPLICATIONS = 8                                                             # independent replications per run
JSQ_N_MAX = 50          # JSQ loses nothing observable beyond (every server full at rho = 0.8 C): not simulated
N_SUPER = (10, 20) if SMALL else ((10, 20, 40, 80) if PAPER else (10, 20, 40))   # supermarket, count chain
N_GRAPH = (10, 20) if SMALL else ((10, 20, 40, 80, 160) if PAPER else (10, 20, 40, 80))  # supermarket, complete graph
GRAPH_EVENTS = 2e6 if SMALL else (4e8 if PAPER else 5e7)              # events per complete-graph run
SUPER_EVENTS = 200_000 if SMALL else (20_000_000 if PAPER else 3_000_000)  # events per count-chain replication
FIG_DIR = plot.figure_dir()            # $SYMLOSS_FIGURE_DIR, else ./symloss-figures
T_START = time.perf_counter()
print(f"{SIZE} run - figures go to {FIG_DIR}")"""),
    ("md", r"""## 1. Four policies, each written once

For capacity $C$ and tails $u_1, \dots, u_C$, an arrival that joins a server with $k-1$ jobs raises $u_k$
(jump $+e_k$), a departure from a server with $k$ jobs lowers it (rate $k(u_k - u_{k+1})$, the same for
every policy). The routing is the only difference:

| policy | arrival rate into level $k$ |
| --- | --- |
| JSQ | $\rho\,\mathbf 1[u_{k-1} = 1]\,\mathbf 1[u_k < 1]$ (every lower level full) |
| JIQ | to an idle server while there is one ($u_1 < 1$), else to a random server: $\rho\,\mathbf 1[u_1<1]\,\delta_{k1} + \rho\,\mathbf 1[u_1 = 1](u_{k-1} - u_k)$ |
| threshold | random routing while at most a fraction $\tau$ of the servers is full, power-of-$d$ above: $\rho\,\big(\mathbf 1[u_C > \tau](u_{k-1}^d - u_k^d) + \mathbf 1[u_C \le \tau](u_{k-1} - u_k)\big)$ |
| power-of-$d$ | $\rho\,(u_{k-1}^d - u_k^d)$ (shipped: `symloss.PowerOfD(C, d)`) |

The indicators are written with `Heaviside` and `Piecewise`. The mean-field blocking of a switching model
is written by flow balance, $B = 1 - (u_1 + \dots + u_C)/\rho$ (smooth in the state; `docs/models.md`).
The exact finite-$N$ chain needs a *per-state* loss probability instead, `finite_n_blocking`, written in
the count symbols $n_{u_k} = N u_k$: JSQ loses an arrival only when every server is full, JIQ when every
server is busy and the random server is full, the threshold policy with probability $u_C$ or $u_C^d$. In
stationarity the two agree (flow balance), which section 3 checks."""),
    ("code", r"""C, D, TAU = 5, 2, sp.Rational(1, 100)
H = sp.Heaviside


def tails(C):
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    return u, (sp.Integer(1),) + u + (sp.Integer(0),)


def departures(u, U, C):
    return [({u[k - 1]: -1}, k * (U[k] - U[k + 1])) for k in range(1, C + 1)]


def user_jsq(C):
    u, U = tails(C)
    trs = []
    for k in range(1, C + 1):
        lower_full = sp.Integer(1) if k == 1 else H(U[k - 1] - 1, 1)
        trs.append(({u[k - 1]: 1}, RHO * lower_full * (1 - H(U[k] - 1, 1))))
    trs += departures(u, U, C)

    def all_full(N, sampling):
        n = symloss.count_symbols(m)
        return sp.Piecewise((1, n[-1] >= N), (0, True))
    m = define_model(f"user JSQ C={C}", u, trs, blocking=1 - sum(u) / RHO, state_kind="tail", C=C,
                     finite_n_blocking=all_full)
    return m


def user_jiq(C):
    u, U = tails(C)
    idle = sp.Piecewise((1, u[0] < 1), (0, True))          # some server is idle
    trs = [({u[0]: 1}, RHO * idle + RHO * (1 - idle) * (1 - u[0]))]
    trs += [({u[k - 1]: 1}, RHO * (1 - idle) * (U[k - 1] - U[k])) for k in range(2, C + 1)]
    trs += departures(u, U, C)

    def busy_then_full(N, sampling):
        n = symloss.count_symbols(m)
        return sp.Piecewise((n[-1] / N, n[0] >= N), (0, True))
    m = define_model(f"user JIQ C={C}", u, trs, blocking=1 - sum(u) / RHO, state_kind="tail", C=C,
                     finite_n_blocking=busy_then_full)
    return m


def user_threshold(C, d, tau):
    u, U = tails(C)
    on = sp.Piecewise((1, u[-1] > tau), (0, True))          # more than a fraction tau of the servers full
    trs = [({u[k - 1]: 1}, RHO * (on * (U[k - 1] ** d - U[k] ** d) + (1 - on) * (U[k - 1] - U[k])))
           for k in range(1, C + 1)]
    trs += departures(u, U, C)

    def lost(N, sampling):
        if sampling != "with_replacement":
            return None
        n = symloss.count_symbols(m)
        return sp.Piecewise(((n[-1] / N) ** d, n[-1] / N > tau), (n[-1] / N, True))
    m = define_model(f"threshold(d={d}, tau={tau}) C={C}", u, trs, blocking=1 - sum(u) / RHO,
                     state_kind="tail", C=C, finite_n_blocking=lost)
    return m


jsq, jiq, thr, pod = user_jsq(C), user_jiq(C), user_threshold(C, D, TAU), PowerOfD(C, D)
POLICIES = {"JSQ": jsq, "JIQ": jiq, "threshold": thr, f"power-of-{D}": pod}
for name, m in POLICIES.items():
    print(f"{name:28s} switching surfaces: {m.switching_functions() if hasattr(m, 'switching_functions') else '-'}")"""),
    ("md", r"""### Certified fixed points, and what is certified

The piecewise-smooth solver finds the face of the state space and the switching surfaces the fixed point
sits on, proves one zero of that piece's system by a Krawczyk test in ball arithmetic (`zero`), and
certifies on the Krawczyk box that every other switching function keeps its sign, the sliding weights lie in
$[0, 1]$ and the state is in the state space (`active_piece`). `verify_piecewise_certificate` re-checks both
from the stored data, without searching. **Uniqueness on the whole state space is not proved**:
`fixed_point(rho, uniqueness=True)` adds EVIDENCE (the regularised ODE from the extreme states reaches the
same point). Power-of-$d$ is smooth; its uniqueness follows from an exact argument (the drift telescopes to a
monotone shooting map), which `fixed_point(rho, uniqueness=True)` states."""),
    ("code", r"""def show(name, m, rho):
    r = m.fixed_point(rho, uniqueness=True)
    parts = r.extra.get("parts")
    cert = r.extra.get("certificate", {})
    recheck = verify_piecewise_certificate(m, cert)[0] if parts else None
    print(f"{name}, rho = {rho}:")
    print(f"   u = [{', '.join(mpmath.nstr(v, 6) for v in r.x)}],  B = {mpmath.nstr(r.blocking, 10)}")
    print(f"   method: {r.method}")
    if parts:
        print(f"   parts: {parts}   (zero and active piece re-checked from the certificate: {recheck})")
    else:
        print(f"   uniqueness (an exact argument, no stored certificate): {r.uniqueness}")
    return r


for rho in (0.8, 3.5, 7.0):
    for name, m in POLICIES.items():
        show(name, m, rho)
    print()
show("threshold, sliding", thr, 2.0);"""),
    ("md", r"""At $\rho = 2$ the threshold policy *slides*: random routing would put more than $\tau$ of the servers
at capacity, power-of-2 fewer, so the fixed point stays on the surface $u_C = \tau$, a convex combination
(weight $\theta$) of the two regimes (Filippov; Utkin's equivalent control).

### The shipped `JSQ` against the user JSQ

`symloss.JSQ(C)` keeps its closed form $u_k = \min(1, \max(0, \rho - k + 1))$, $B = \max(0, 1 - C/\rho)$ as
an accelerator, which answers only after the piecewise solver has proved the same point for `JSQ`'s own
Heaviside equations. The user definition above is a different object; the two must agree exactly."""),
    ("code", r"""shipped = symloss.JSQ(C)
loads = [Fraction(1, 4), Fraction(1, 2), 1, Fraction(7, 4), Fraction(11, 4), 4, 5, Fraction(13, 2), 9, 20]
worst = 0
for rho in loads:
    a, b = jsq.fixed_point(rho), shipped.fixed_point(rho)
    assert a.x == b.x and a.blocking == b.blocking, rho
    worst = max(worst, max(abs(p - q) for p, q in zip(a.x, b.x)))
    assert a.extra["parts"]["zero"] == "PROVED" and a.extra["parts"]["active_piece"] == "PROVED"
print(f"user JSQ == shipped JSQ (state and blocking identical) at {len(loads)} loads in [1/4, 20]; "
      f"max |difference| = {worst}")
print("shipped:", b.method)
print("user:   ", a.method)"""),
    ("md", r"""## 2. The mean field: blocking against the load

JSQ is the best any policy can do in the mean field: $B \ge 1 - C/\rho$ for every policy by flow balance
($u_k \le 1$), and JSQ attains it ($B = 0$ for $\rho \le C$). JIQ loses nothing while some server is idle
($\rho \le 1$) and then routes at random among busy servers: above $\rho = 1$ it blocks more than power-of-2 at every grid load. The
threshold policy is random routing at low load (dotted grey curve), power-of-2 at high load, and slides on
$u_C = \tau$ in between (shaded), where its blocking *decreases* with the load."""),
    ("code", r"""t0 = time.perf_counter()
def boundary(m, lo, hi, steps=40):
    # the load where the fixed point's u_C crosses tau (float bisection on certified fixed points: EVIDENCE)
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if m.fixed_point(mid).x[-1] < TAU else (lo, mid)
    return 0.5 * (lo + hi)


rand = PowerOfD(C, 1)                                   # random routing, for reference
slide = (boundary(rand, 0.5, 3.0), boundary(pod, 0.5, 3.0))
print(f"threshold policy: random routing for rho < {slide[0]:.6f}, sliding on u_C = tau up to {slide[1]:.6f}, "
      f"power-of-{D} above (EVIDENCE: float bisection)")
# a uniform grid, plus loads just above rho = 1 (JIQ starts losing) and rho = C (JSQ starts losing),
# and the edges of the sliding region
rhos = np.unique(np.concatenate([np.linspace(0.5, 12, N_GRID), 1 + np.geomspace(1e-3, 0.3, 10),
                                 C * (1 + np.geomspace(1e-10, 0.03, 12)), np.linspace(*slide, 8)]))
curves = {name: [] for name in list(POLICIES) + ["random"]}
sliding, failed = [], []
for rho in rhos:
    for name, m in list(POLICIES.items()) + [("random", rand)]:
        try:
            r = m.fixed_point(float(rho))
        except symloss.PrecisionError as exc:
            curves[name].append(np.nan)
            failed.append((name, float(rho), str(exc).split(":")[-1].strip()[:90]))
            continue
        curves[name].append(float(r.blocking))
        if m is thr and r.extra.get("theta"):
            sliding.append(float(rho))
curves = {k: np.asarray(v) for k, v in curves.items()}
print(f"{len(rhos)} loads x 5 policies in {time.perf_counter() - t0:.1f} s; the threshold policy slides at "
      f"{len(sliding)} of them, all in [{min(sliding):.4f}, {max(sliding):.4f}]")
for name in POLICIES:
    bad = [rho for n, rho, _ in failed if n == name]
    if bad:
        why = next(w for n, _, w in failed if n == name)
        where = f"rho = {bad[0]:.4f}" if len(bad) == 1 else f"{len(bad)} loads in [{min(bad):.4f}, {max(bad):.4f}]"
        print(f"not certified: {name} at {where} (PrecisionError: ...{why}); left out of the figure")"""),
    ("code", r"""styles = {"JSQ": ("C0", "-", 1.6, 3), "JIQ": ("C1", "-", 1.6, 3), "threshold": ("C3", "--", 1.6, 4),
          f"power-of-{D}": ("C2", "-", 1.6, 2), "random": ("0.55", ":", 1.1, 1)}   # colour, style, width, zorder
labels = {"JSQ": r"JSQ ($B = 0$ for $\rho \leq C$)", "JIQ": r"JIQ ($B = 0$ for $\rho \leq 1$)",
          "threshold": rf"threshold: random if $u_C \leq \tau = {TAU}$, else power-of-{D}",
          "random": "random routing (reference)"}
with plot.paper_rc():
    fig, axes = plot.new_figure("double", 3.4)
    ax = axes[0, 0]
    ax.axvspan(*slide, color="C3", alpha=0.08, lw=0)
    for name, (col, ls, lw, z) in styles.items():
        ys = curves[name]
        pos = ys > 0                                     # 0 is exact (JSQ, JIQ on a face): off the log axis
        ax.semilogy(rhos[pos], ys[pos], ls, color=col, lw=lw, zorder=z, label=labels.get(name, name))
    ax.axvline(C, color="0.7", lw=0.6, zorder=0)
    ax.set_ylim(1e-12, 1)
    ax.set_xlim(rhos[0], rhos[-1])
    ax.set_xlabel(r"offered load per server $\rho$ (Erlang)")
    ax.set_ylabel(r"mean-field blocking probability $B(\rho)$")
    ax.set_title(rf"mean field, capacity $C = {C}$; shaded: threshold policy slides on $u_C = \tau$")
    plot.place_legend(ax, outside="right")
    plot.finish_figure(fig)
print([p.name for p in plot.savefig(fig, FIG_DIR / "lb_policies_meanfield.pdf", formats=("pdf", "png"))])
plt.show()"""),
    ("md", r"""### Certified comparisons

`symloss.certified_comparison(a, b)` proves the sign of $B_a - B_b$ on all of $(0, \infty)$ for smooth
models (Taylor models and Krawczyk boxes over load intervals, exact series at both ends). With a switching
model it needs a bounded load range, `rho_min` and `rho_max`: the range is tiled into cells, each cell gets
one Filippov piece of the switching model (JSQ's pieces are linear and solved exactly with the load as a
symbol, their sign conditions proved by Sturm counts; JIQ above $\rho = 1$ and the threshold policy by a
Krawczyk test with the load as an interval), and the smooth model its Krawczyk tubes. `verify_comparison`
re-checks each certificate below. What is PROVED and what is not is printed from the certificate's
`parts`: the range, the loads outside it (NOT CERTIFIED, except JSQ's two ends: below $\rho_{min}$ by the
end piece at $\rho \to 0$, above $\rho_{max}$ by exact structure), and uniqueness of the fixed points
(PROVED for power-of-$d$, whose exact argument covers every load and is re-derived on its definition;
EVIDENCE for the piecewise policies, an assumption). The ranges avoid
the loads where a non-linear piece meets a switching surface (JIQ at $\rho = 1$; the threshold policy
where it starts to slide), which this path does not certify."""),
    ("code", r"""PAIRS = [("user JSQ", jsq, f"power-of-{D}", pod, "1/2", 2 * C),
         ("user JIQ", jiq, f"power-of-{D}", pod, "33/32", 2 * C),
         ("threshold", thr, f"power-of-{D}", pod, "1/2", "4/3")]
for na, a, nb, b, lo, hi in PAIRS:
    t0 = time.perf_counter()
    res = symloss.certified_comparison(a, b, rho_min=lo, rho_max=hi, dps=12)
    symloss.verify_comparison(res.certificate, a, b)          # raises if the certificate does not re-check
    signs = ", ".join(f"[{p['rho'][0]}, {p['rho'][1]}{')' if p['rho'][1] == 'oo' else ']'}: {na} blocks "
                      f"{'less' if p['sign'] < 0 else 'more'}" for p in res.pieces)
    parts = res.certificate["parts"]
    print(f"{na} vs {nb}: {res.count} crossings; {signs}; {res.status} (re-checked, "
          f"{time.perf_counter() - t0:.1f} s)")
    print(f"    below rho_min: {parts['below_rho_min']}; above rho_max: {parts['above_rho_max'].split(':')[0]}; "
          f"uniqueness of the fixed points: {na} {parts['uniqueness_a'].split(' (')[0]}, {nb} "
          f"{parts['uniqueness_b'].split(' (')[0]}")

t0 = time.perf_counter()
res = symloss.certified_comparison(rand, pod, dps=15)
symloss.verify_comparison(res.certificate, rand, pod)          # raises if the certificate does not re-check
sign = {1: "random blocks more", -1: "random blocks less"}[res.sign_at_zero]
print(f"\nrandom vs power-of-{D}, C = {C}: {res.count} crossings on (0, oo), {sign} at every load "
      f"(PROVED, re-checked; {time.perf_counter() - t0:.1f} s)")"""),
    ("md", r"""Outside those ranges, and between JSQ and JIQ, what the notebook says is pointwise: at each load of
the grid each fixed point is a certified zero on its certified piece, so the order of the blockings *at
those fixed points* is decided by their balls; that the points are the unique fixed points, and the order between the
grid loads, are not certified. So these orderings are **EVIDENCE**."""),
    ("code", r"""def order(a, b):
    A, B = np.asarray(curves[a]), np.asarray(curves[b])
    ok = ~(np.isnan(A) | np.isnan(B))
    return int(np.sum(A[ok] < B[ok])), int(np.sum(A[ok] == B[ok])), int(np.sum(A[ok] > B[ok])), int(ok.sum())


tname = "threshold"
for a, b in [("JSQ", f"power-of-{D}"), ("JSQ", "JIQ"), ("JIQ", f"power-of-{D}"), (tname, f"power-of-{D}"),
             (tname, "random")]:
    lt, eq, gt, n = order(a, b)
    print(f"{a} vs {b}: lower at {lt}, equal at {eq}, higher at {gt} of {n} grid loads (EVIDENCE: pointwise)")
A, B = curves["JIQ"], curves[f"power-of-{D}"]
ok = ~(np.isnan(A) | np.isnan(B))
print(f"JIQ lower than power-of-{D} up to rho = {rhos[ok][A[ok] < B[ok]].max():.4f}, higher from rho = "
      f"{rhos[ok][A[ok] > B[ok]].min():.4f} on (EVIDENCE: grid); JIQ's B = 0 exactly for rho <= 1 (a linear piece "
      f"solved exactly)")"""),
    ("md", r"""## 3. Finite $N$ from the same definitions

The same definitions give the $N$-server chain: jumps $\pm e_k/N$ at rates $N \beta(n/N)$, with the
indicators evaluated on the counts (e.g. JSQ at finite $N$ is exactly join-the-shortest-queue). The exact
chain (`symloss.exact_finite_n`, $\binom{N+C}{C}$ states) and a count-level simulation (`symloss.simulate`,
a numba kernel generated from the definition; 95 % intervals over independent replications) are compared
with the mean field at $\rho = 4 = 0.8\,C$. For power-of-$d$ the refined mean field (Gast & Van Houdt 2017),
$B + V/N + W/N^2$, is shown too. For JSQ and JIQ it is refused: the message printed below names the
switching surface (the expansion needs twice differentiable rates, whatever the sampling) and says that the
declared `finite_n_blocking` is a per-state loss indicator, not a smooth function of the state.
The flow-balance blocking $1 - \mathbb E[\sum_k u_k]/\rho$ of the exact chain checks the per-state loss
probability each model declares."""),
    ("code", r"""RHO_N = 4
FINITE = {"JSQ": jsq, "JIQ": jiq, f"power-of-{D}": pod}
mf = {name: float(m.fixed_point(RHO_N).blocking) for name, m in FINITE.items()}
refined = symloss.refined_mean_field(pod, rho=RHO_N)
for name in ("JSQ", "JIQ"):
    try:
        symloss.refined_mean_field(FINITE[name], rho=RHO_N)
    except ValueError as exc:
        print(f"refined mean field of {name}: refused - {exc}")
exact, sims = {}, {}
t0 = time.perf_counter()
for name, m in FINITE.items():
    for N in N_EXACT:
        ex = symloss.exact_finite_n(m, N, RHO_N)
        flow = 1 - sum(ex.state_mean) / RHO_N                   # flow balance on the exact chain
        assert abs(flow - ex.blocking) < 1e-9, (name, N, flow, ex.blocking)
        exact[name, N] = ex
t_exact = time.perf_counter() - t0
t0 = time.perf_counter()
for name, m in FINITE.items():
    for N in N_SIM:
        if name == "JSQ" and N > JSQ_N_MAX:
            continue
        sims[name, N] = symloss.simulate(m, N=N, rho=RHO_N, events=EVENTS_PER_SERVER * N,
                                         replications=REPLICATIONS, seed=1000 + N)
t_sim = time.perf_counter() - t0
print(f"exact chains in {t_exact:.1f} s (flow balance checked on each), simulations in {t_sim:.1f} s\n")
print(f"rho = {RHO_N}, C = {C}: blocking probability B_N")
print(f"{'N':>5} {'method':>18} " + " ".join(f"{n:>26}" for n in FINITE))
for N in sorted(set(N_EXACT) | set(N_SIM)):
    if N in N_EXACT:
        print(f"{N:5d} {'exact chain':>18} " + " ".join(f"{exact[n, N].blocking:26.6g}" for n in FINITE)
              + f"   ({exact['JSQ', N].n_states} states)")
    if N in N_SIM:
        print(f"{N:5d} {'simulation, 95% CI':>18} "
              + " ".join((f"{sims[n, N].blocking:9.4g} [{sims[n, N].ci[0]:.4g}, {sims[n, N].ci[1]:.4g}]"
                          if (n, N) in sims else "not simulated").rjust(26) for n in FINITE))
print(f"{'oo':>5} {'mean field':>18} " + " ".join(f"{mf[n]:26.6g}" for n in FINITE))
print(f"refined mean field of power-of-{D}: V = {refined.V:.6g}, W = {refined.W:.6g}; at N = 20: "
      f"{refined.at(20, 2):.6g}")
for name in FINITE:                                     # the simulation covers the exact value where both exist
    for N in set(N_EXACT) & set(N_SIM):
        lo, hi = sims[name, N].ci
        print(f"{name}, N = {N}: exact {exact[name, N].blocking:.5g} in the simulation's 95% CI: {lo <= exact[name, N].blocking <= hi}")"""),
    ("code", r"""colors = {"JSQ": "C0", "JIQ": "C1", f"power-of-{D}": "C2"}
with plot.paper_rc():
    fig, axes = plot.new_figure("double", 3.4)
    ax = axes[0, 0]
    Ns = np.geomspace(min(N_EXACT), max(N_SIM), 100)
    for name, col in colors.items():
        ne = [N for N in N_EXACT]
        ax.loglog(ne, [exact[name, N].blocking for N in ne], "o", mfc="none", color=col, ms=6,
                  label=f"{name}: exact chain")
        ns = [N for N in N_SIM if (name, N) in sims]
        y = np.array([sims[name, N].blocking for N in ns])
        lo = np.array([sims[name, N].ci[0] for N in ns])
        hi = np.array([sims[name, N].ci[1] for N in ns])
        ax.errorbar(ns, y, yerr=[y - np.maximum(lo, y * 1e-3), hi - y], fmt="s", color=col, ms=3.5, capsize=2,
                    lw=0.9, label=f"{name}: simulation, 95% CI")
        if mf[name] > 0:
            ax.axhline(mf[name], color=col, ls="--", lw=0.9, label=f"{name}: mean field")
    ax.loglog(Ns, refined.blocking_mf + refined.V / Ns + refined.W / Ns ** 2, ":", color="C2", lw=1.2,
              label=rf"power-of-{D}: $B + V/N + W/N^2$")
    ax.set_xlabel(r"number of servers $N$")
    ax.set_ylabel(r"blocking probability $B_N$")
    ax.set_title(rf"finite $N$, $C = {C}$, $\rho = {RHO_N}$ (JSQ mean field: $B = 0$)")
    plot.place_legend(ax, outside="right")
    plot.finish_figure(fig)
print([p.name for p in plot.savefig(fig, FIG_DIR / "lb_policies_finite_n.pdf", formats=("pdf", "png"))])
plt.show()"""),
    ("md", r"""JSQ's blocking vanishes as $N$ grows (its mean field is 0 below $\rho = C$); JIQ and power-of-2 converge
to their mean-field values, power-of-2 from above at rate $V/N$.

## 4. The unbounded supermarket: JSQ(2) with single-server queues

Single-server queues, no buffer, arrivals at rate $\lambda$ per queue, each joining the shorter of two
sampled queues. Written once by the rates of level $k$ in the neighbouring tails $a = u_{k-1}$, $b = u_k$,
$c = u_{k+1}$. symloss checks the form (the drift telescopes, so the fixed point is the orbit
$u_k = \lambda u_{k-1}^2$, unique), picks the truncation $K$ and bounds the tail
$\sum_{k > K} u_k \le u_{K+1}/(1 - r)$; the values are balls that contain the exact stationary values.
`verify_unbounded` re-checks them from the stored balls. The shipped `symloss.Supermarket` uses the
closed form $u_k = \lambda^{2^k - 1}$ (Vvedenskaya, Dobrushin & Karpelevich 1996; Mitzenmacher 1996)."""),
    ("code", r"""a, b, c = sp.symbols("a b c")                   # u_(k-1), u_k, u_(k+1)
jsq2 = define_unbounded_model("JSQ(2)", RHO * (a ** 2 - b ** 2), b - c, a=a, b=b, c=c)
print(f"{'lambda':>7} {'E[queue] (certified ball)':>44} {'P(delay)':>12} {'K':>3} {'trunc. bound':>12} "
      f"{'status':>8} {'re-check':>8} {'|closed form - ball mid|':>24}")
for lam in ("1/2", "7/10", "9/10", "19/20", "99/100"):
    t0 = time.perf_counter()
    v = jsq2.certified_values(lam, dps=30)
    secs = time.perf_counter() - t0
    ok = verify_unbounded(v.certificate, jsq2)
    ref = symloss.Supermarket(2, Fraction(lam))
    with mpmath.workdps(40):
        q_ref, p_ref = ref.mean_queue_length(dps=30), ref.delay_probability(dps=30)
        dq = abs(mpmath.mpf(v.mean_queue_length.mid().str(40, radius=False)) - q_ref)
        dp = abs(mpmath.mpf(v.delay_probability.mid().str(40, radius=False)) - p_ref)
    assert ok and dq < 1e-28 and dp < 1e-28
    print(f"{lam:>7} {v.mean_queue_length.str(25):>44} {v.delay_probability.str(8, radius=False):>12} {v.K:3d} "
          f"{float(v.truncation_bound):12.3g} {v.status:>8} {str(ok):>8} {mpmath.nstr(max(dq, dp), 3):>24}"
          f"   ({1e3 * secs:.1f} ms)")
v = jsq2.certified_values("9/10", dps=30)
print(repr(v))
print("status PROVED above: the ball's own label; re-checked by verify_unbounded:", verify_unbounded(v.certificate, jsq2))"""),
    ("md", r"""### The refined mean field at buffer 40, and the finite system

`jsq2.truncated(40, measure)` is the same rates with a buffer of 40, an ordinary tail model; the refined
mean field of its mean queue length and delay probability gives $\mathbb E[\cdot]_N \approx m + V/N + W/N^2$.
It describes the count chain of the definition, where an arrival samples its two queues **with
replacement** (the same queue twice with probability $1/N$). That chain is simulated with
`symloss.simulate` on the same truncated model. `symloss.simulate_supermarket` on the complete graph is the
system usually simulated: the arrival queue against one **other** queue, i.e. two distinct queues. Its
$1/N$ correction is smaller. `refined_mean_field` refuses models whose finite-$N$ rates are not the
mean-field rates times $N$, so it gives no expansion for that chain."""),
    ("code", r"""t0 = time.perf_counter()
rq = symloss.refined_mean_field(jsq2.truncated(40, "mean_queue_length"), rho=Fraction(9, 10))
rd = symloss.refined_mean_field(jsq2.truncated(40, "delay_probability"), rho=Fraction(9, 10))
print(f"refined mean field at buffer 40 ({time.perf_counter() - t0:.1f} s):")
print(f"  mean queue length:  m = {rq.blocking_mf:.10f}, V = {rq.V:.6f}, W = {rq.W:.4f}")
print(f"  delay probability:  m = {rd.blocking_mf:.10f}, V = {rd.V:.6f}, W = {rd.W:.4f}")
print("  note:", rq.note)
assert abs(rq.blocking_mf - float(v.mean_queue_length.mid())) < 1e-12

t0 = time.perf_counter()
chain = {}
model40 = jsq2.truncated(40, "mean_queue_length")
for N in N_SUPER:
    chain[N] = symloss.simulate(model40, N=N, rho=0.9, events=SUPER_EVENTS, replications=4, seed=N)
t_chain = time.perf_counter() - t0
t0 = time.perf_counter()
graph = {}
for N in N_GRAPH:
    graph[N] = symloss.simulate_supermarket("complete", N=N, d=2, lam=0.9, t_end=GRAPH_EVENTS / (1.9 * N),
                                            seed=N, batches=40)
t_graph = time.perf_counter() - t0
print(f"\nsimulations: count chain {t_chain:.1f} s, complete graph {t_graph:.1f} s")
print(f"{'N':>5} {'m + V/N':>9} {'m + V/N + W/N^2':>16} {'chain (with repl.), 95% CI':>30} "
      f"{'N (sim - m)':>12} {'complete graph (distinct), 95% CI':>36} {'N (sim - m)':>12}")
m0 = rq.blocking_mf
for N in sorted(set(N_SUPER) | set(N_GRAPH)):
    row = f"{N:5d} {rq.at(N, 1):9.5f} {rq.at(N, 2):16.5f} "
    if N in chain:
        s = chain[N]
        row += f"{s.blocking:10.5f} [{s.ci[0]:.5f}, {s.ci[1]:.5f}]".rjust(30) + f"{N * (s.blocking - m0):12.3f} "
    else:
        row += " " * 43
    g = graph.get(N)
    if g is not None:
        row += f"{g.mean_queue_length:10.5f} [{g.ci[0]:.5f}, {g.ci[1]:.5f}]".rjust(36) + f"{N * (g.mean_queue_length - m0):12.3f}"
    print(row)
print(f"mean field m = {m0:.5f}; V = {rq.V:.4f}: the with-replacement chain's N (E - m) tends to V")"""),
    ("code", r"""with plot.paper_rc():
    fig, axes = plot.new_figure("double", 3.4)
    ax = axes[0, 0]
    inv = np.linspace(0, 1.05 / min(N_SUPER + N_GRAPH), 100)
    ax.plot(inv, m0 + rq.V * inv, "--", color="C0", lw=1.0, label=r"refined mean field $m + V/N$")
    ax.plot(inv, m0 + rq.V * inv + rq.W * inv ** 2, "-", color="C0", lw=1.4, label=r"$m + V/N + W/N^2$ (buffer 40)")
    for data, col, mk, lab in ((chain, "C0", "s", "count chain, sampling with replacement"),
                               (graph, "C3", "o", "complete graph, two distinct queues")):
        Ns = sorted(data)
        y = np.array([data[N].blocking if data is chain else data[N].mean_queue_length for N in Ns])
        lo, hi = np.array([data[N].ci for N in Ns]).T
        ax.errorbar(1 / np.array(Ns), y, yerr=[y - lo, hi - y], fmt=mk, color=col, ms=4, capsize=2, lw=0.9,
                    label=f"simulation, {lab} (95% CI)")
    ax.plot([0], [m0], "k*", ms=8, label=r"certified mean field $m$ ($N = \infty$)")
    ax.set_xlabel(r"inverse number of queues $1/N$")
    ax.set_ylabel(r"mean queue length $\mathbb{E}[Q_N]$")
    ax.set_title(r"supermarket JSQ(2), $\lambda = 0.9$: the $1/N$ correction")
    ax.set_xlim(left=-0.002)
    plot.place_legend(ax, outside="right")
    plot.finish_figure(fig)
print([p.name for p in plot.savefig(fig, FIG_DIR / "lb_policies_supermarket_refined.pdf", formats=("pdf", "png"))])
plt.show()
print(f"total execution time: {time.perf_counter() - T_START:.0f} s")"""),
]


def build() -> nbformat.NotebookNode:
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for kind, src in CELLS:
        nb.cells.append(new_markdown_cell(src) if kind == "md" else new_code_cell(src))
    return nb


def main() -> Path:
    path = Path(__file__).with_name("load_balancing_policies.ipynb")
    nb = build()
    nbformat.validate(nb)
    nbformat.write(nb, str(path))
    return path


if __name__ == "__main__":
    print(main())
