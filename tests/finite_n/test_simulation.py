"""Tests of symloss.finite_n: simulator, exact finite-N chain, refined mean field.

Independent references used here (none computed by the code under test):
* random routing splits the Poisson stream into independent Poisson(rho) streams, so every server
  is an M/M/C/C station and B_N = E(C, rho) exactly, for every N (Erlang recursion below);
* under JSQ (and under retrial / power with d = N distinct servers) a job is lost only when all
  N*C places are busy, and the number of busy jobs is an M/M/NC/NC birth-death process:
  B_N = E(N*C, N*rho);
* for C = 1 the number M of busy servers is a birth-death chain (birth rate N*rho*(1 - b(M)),
  death rate M), whose stationary law is a product of rate ratios (computed in exact rationals);
* flow balance (mu = 1): mean number of busy jobs = rho * (1 - B).
"""
from __future__ import annotations

import math
import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

import symloss
from symloss.finite_n import (conditional_blocking, exact_finite_n, refined_mean_field, simulate,
                                finite_n_threshold)

ROOT = Path(__file__).resolve().parents[2]


def erlang_b_ref(C: int, a) -> Fraction | float:
    """Erlang-B by the recursion 1/E(n) = 1 + (n/a)/E(n-1) (exact for rational a)."""
    inv = Fraction(1) if isinstance(a, Fraction) else 1.0
    for n in range(1, C + 1):
        inv = 1 + n / a * inv
    return 1 / inv


def birth_death_c1(N: int, rho: Fraction, d: int, without: bool) -> Fraction:
    """Exact blocking for C = 1 (retrial-of-d = power-of-d): M busy servers, birth rate
    N rho (1 - b(M)), death rate M, b(m) = (m/N)^d or prod_{i<d} (m-i)/(N-i)."""
    def b(m):
        if without:
            out = Fraction(1)
            for i in range(d):
                out *= Fraction(max(m - i, 0), N - i)
            return out
        return Fraction(m, N) ** d
    w = [Fraction(1)]
    for m in range(1, N + 1):
        w.append(w[-1] * N * rho * (1 - b(m - 1)) / m)
    Z = sum(w)
    return sum(wi * b(m) for m, wi in enumerate(w)) / Z


# --------------------------------------------------------------------------------------------------
# input validation
# --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, exc, text", [
    (dict(policy="best"), ValueError, "policy"),
    (dict(policy="retrial", d=None), ValueError, "d is required"),
    (dict(policy="power", d=None), ValueError, "d is required"),
    (dict(policy="power", d=11, sampling="without_replacement"), ValueError, "d must be an integer in [1, N]"),
    (dict(policy="retrial", d=11, sampling="without_replacement"), ValueError, "d must be"),
    (dict(events=0), ValueError, "events"),
    (dict(events=-5), ValueError, "events"),
    (dict(events=1.5), TypeError, "events"),
    (dict(rho=0.0), ValueError, "rho"),
    (dict(rho=-1.0), ValueError, "rho"),
    (dict(rho=float("inf")), ValueError, "rho"),
    (dict(N=0), ValueError, "N"),
    (dict(C=0), ValueError, "C"),
    (dict(policy="jsq", d=2), ValueError, "d must be None"),
    (dict(sampling="sometimes"), ValueError, "sampling"),
    (dict(replications=0), ValueError, "replications"),
    (dict(seed=-1), ValueError, "seed"),
    (dict(seed="abc"), TypeError, "seed"),
    (dict(N=10 ** 9, C=5), ValueError, "N * C"),
])
def test_simulate_bad_input(kwargs, exc, text):
    args = dict(policy="retrial", N=10, C=2, rho=1.0, d=2, events=1000, seed=1)
    args.update(kwargs)
    policy = args.pop("policy")
    with pytest.raises(exc, match=None) as info:
        simulate(policy, **args)
    assert text in str(info.value)


def test_exact_bad_input():
    with pytest.raises(ValueError, match="states"):
        exact_finite_n("power", 200, 3, 1.0, 2)
    with pytest.raises(ValueError, match="d is required"):
        exact_finite_n("retrial", 5, 2, 1.0)
    with pytest.raises(ValueError, match=r"\[1, N\]"):
        exact_finite_n("retrial", 3, 2, 1.0, 4, sampling="without_replacement")


# --------------------------------------------------------------------------------------------------
# exact finite-N chain against independent references
# --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("N, C, rho", [(1, 1, 0.5), (7, 1, 2.0), (12, 2, 1.3), (8, 3, 2.5), (5, 5, 4.0)])
def test_exact_random_is_erlang(N, C, rho):
    e = exact_finite_n("random", N, C, rho)
    assert e.blocking == pytest.approx(erlang_b_ref(C, rho), rel=1e-11)
    k = np.arange(C + 1)
    p = np.array([rho ** i / math.factorial(i) for i in k])
    np.testing.assert_allclose(e.occupancy, p / p.sum(), rtol=1e-10)
    assert e.residual < 1e-10


@pytest.mark.parametrize("N, C, rho", [(4, 2, 1.5), (10, 2, 2.2), (6, 3, 3.0)])
def test_exact_all_servers_policies_are_erlang_NC(N, C, rho):
    ref = erlang_b_ref(N * C, N * rho)
    assert exact_finite_n("jsq", N, C, rho).blocking == pytest.approx(ref, rel=1e-9)
    for pol in ("retrial", "power"):
        e = exact_finite_n(pol, N, C, rho, N, sampling="without_replacement")
        assert e.blocking == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("without", [False, True])
@pytest.mark.parametrize("N, d", [(5, 2), (12, 3), (30, 2)])
def test_exact_c1_birth_death(N, d, without):
    rho = Fraction(3, 2)
    ref = float(birth_death_c1(N, rho, d, without))
    sampling = "without_replacement" if without else "with_replacement"
    for pol in ("retrial", "power"):
        assert exact_finite_n(pol, N, 1, 1.5, d, sampling=sampling).blocking == pytest.approx(ref, rel=1e-11)


def test_exact_known_ordering():
    # power-of-d blocks less than retrial-of-d (same d), both less than random, JSQ least
    r = {p: exact_finite_n(p, 12, 2, 1.0, 2 if p in ("retrial", "power") else None).blocking
         for p in ("random", "retrial", "power", "jsq")}
    assert r["jsq"] < r["power"] < r["retrial"] < r["random"]


@settings(max_examples=25, deadline=None)
@given(policy=st.sampled_from(["random", "retrial", "power", "jsq"]), N=st.integers(1, 9),
       C=st.integers(1, 3), rho=st.floats(0.05, 6.0), d=st.integers(1, 4),
       without=st.booleans())
def test_exact_flow_balance(policy, N, C, rho, d, without):
    """Throughput = mean number of busy jobs (mu = 1): rho (1 - B) = sum_k k x_k."""
    sampling = "without_replacement" if without else "with_replacement"
    if policy in ("random", "jsq"):
        d = None
    elif without and d > N:
        d = N
    e = exact_finite_n(policy, N, C, rho, d, sampling=sampling)
    assert e.occupancy.sum() == pytest.approx(1.0, abs=1e-12)
    assert rho * (1 - e.blocking) == pytest.approx(float(np.arange(C + 1) @ e.occupancy),
                                                   rel=1e-8, abs=1e-13)


@settings(max_examples=30, deadline=None)
@given(N=st.integers(1, 30), nfull=st.integers(0, 30), d=st.integers(1, 5))
def test_conditional_blocking(N, nfull, d):
    nfull = min(nfull, N)
    assert conditional_blocking("retrial", N, d, nfull) == pytest.approx((nfull / N) ** d)
    if d <= N:
        ref = math.comb(nfull, d) / math.comb(N, d)
        assert conditional_blocking("power", N, d, nfull, "without_replacement") == pytest.approx(ref)


# --------------------------------------------------------------------------------------------------
# simulator
# --------------------------------------------------------------------------------------------------

def test_identical_seed_identical_output():
    kw = dict(N=50, C=3, rho=2.0, d=2, events=100_000, replications=3)
    a = simulate("power", seed=123, **kw)
    b = simulate("power", seed=123, **kw)
    c = simulate("power", seed=124, **kw)
    assert a.blocking == b.blocking and a.ci == b.ci
    np.testing.assert_array_equal(a.estimates, b.estimates)
    np.testing.assert_array_equal(a.occupancy, b.occupancy)
    assert a.blocking != c.blocking
    # replication r of a run equals the r-th spawned child of the same SeedSequence
    ss = np.random.SeedSequence(123)
    single = simulate("power", seed=ss.spawn(3)[1].spawn(1)[0], **{**kw, "replications": 1})
    assert single.events == a.events


SIM_CASES = [
    ("random", None, "with_replacement"),
    ("retrial", 2, "with_replacement"),
    ("retrial", 3, "without_replacement"),
    ("power", 2, "with_replacement"),
    ("power", 2, "without_replacement"),
    ("jsq", None, "with_replacement"),
]


@pytest.mark.slow
@pytest.mark.parametrize("policy, d, sampling", SIM_CASES)
def test_simulation_matches_exact(policy, d, sampling):
    N, C, rho = 10, 2, 1.2
    e = exact_finite_n(policy, N, C, rho, d, sampling=sampling)
    s = simulate(policy, N=N, C=C, rho=rho, d=d, events=300_000, replications=12, seed=2024,
                 sampling=sampling)
    assert s.ci_method == "replications"
    # a 95 % interval misses with probability 5 %: require 4 standard errors (the seed is fixed,
    # so the test is deterministic; a systematic error of this size would be a bug)
    assert abs(s.blocking - e.blocking) <= 4 * s.std_error, (s, e.blocking)
    np.testing.assert_allclose(s.occupancy, e.occupancy, atol=5e-3)
    lo, hi = s.lost_ci
    assert abs(s.lost_fraction - e.blocking) <= 4 * (hi - lo) / 2 / 2.2


@pytest.mark.slow
def test_simulation_ci_covers_exact():
    """The 95 % intervals of the simulator cover the exact finite-N blocking (N = 20, C = 2)."""
    for policy, d in [("retrial", 2), ("power", 2), ("random", None)]:
        e = exact_finite_n(policy, 20, 2, 1.0, d)
        s = simulate(policy, N=20, C=2, rho=1.0, d=d, events=400_000, replications=10, seed=7)
        assert s.covers(e.blocking), (s, e.blocking)
        # batch means on one long run
        s1 = simulate(policy, N=20, C=2, rho=1.0, d=d, events=2_000_000, seed=8)
        assert s1.ci_method == "batch means"
        assert s1.covers(e.blocking), (s1, e.blocking)


def test_jsq_simulation_erlang_NC():
    N, C, rho = 6, 2, 1.5
    ref = float(erlang_b_ref(N * C, N * rho))
    s = simulate("jsq", N=N, C=C, rho=rho, events=400_000, replications=8, seed=3)
    assert abs(s.blocking - ref) <= 4 * s.std_error


def test_result_fields_and_flow_balance():
    s = simulate("retrial", N=200, C=3, rho=2.5, d=2, events=400_000, seed=5)
    assert s.ci[0] < s.blocking < s.ci[1]
    assert s.occupancy.shape == (4,) and s.occupancy.sum() == pytest.approx(1.0)
    assert s.occupancy_ci.shape == (4, 2)
    assert s.events == 400_000 and s.replications == 1
    assert s.total_events == s.events + s.warmup
    assert 0 < s.arrivals < s.total_events
    assert s.wall_time > 0 and s.events_per_second > 0
    # flow balance in the simulation: throughput = mean busy jobs
    assert float(np.arange(4) @ s.occupancy) == pytest.approx(2.5 * (1 - s.blocking), rel=5e-3)
    d = s.to_dict()
    assert d["blocking"] == s.blocking and d["ci_method"] == "batch means"
    assert "SimulationResult(retrial" in repr(s)


def test_tiny_blocking_is_estimated():
    """The conditional (Rao-Blackwellised) estimator resolves a blocking far below 1/arrivals."""
    e = exact_finite_n("power", 40, 3, 0.3, 2).blocking
    s = simulate("power", N=40, C=3, rho=0.3, d=2, events=200_000, replications=6, seed=11)
    assert e < 2e-6 and s.arrivals * e < 1.0      # hardly any job is actually lost
    assert abs(s.blocking - e) <= 4 * s.std_error and s.std_error < 0.2 * e


def test_public_api_exports():
    assert symloss.simulate is simulate
    assert symloss.exact_finite_n is exact_finite_n
    assert symloss.refined_mean_field is refined_mean_field
    assert symloss.finite_n_threshold is finite_n_threshold


# --------------------------------------------------------------------------------------------------
# refined mean field
# --------------------------------------------------------------------------------------------------

class _RetrialC1:
    """A hand-written model with the meanfield interface (C = 1, retrial-of-d = power-of-d), in the
    redundant coordinates (x0, x1) with x0 + x1 = 1, or reduced to x1 alone."""

    def __init__(self, d, reduced=False):
        self.d = d
        self.C = 1
        self.name = "retrial"
        self.rho = sp.Symbol("rho", positive=True)
        self.reduced = reduced
        self.variables = (sp.Symbol("y1"),) if reduced else (sp.Symbol("y0"), sp.Symbol("y1"))

    def _busy(self):
        return self.variables[-1]

    def transitions(self):
        x1 = self._busy()
        up, down = (sp.Matrix([1]), sp.Matrix([-1])) if self.reduced else (sp.Matrix([-1, 1]), sp.Matrix([1, -1]))
        return [(up, self.rho * (1 - x1 ** self.d)), (down, x1)]

    def drift(self):
        return sum((j * r for j, r in self.transitions()), sp.zeros(len(self.variables), 1))

    def blocking_expr(self):
        return self._busy() ** self.d

    def fixed_point(self, rho, dps=30):
        import mpmath

        class R:
            pass
        with mpmath.workdps(dps + 10):
            x = mpmath.findroot(lambda t: rho * (1 - t ** self.d) - t, 0.5)
        r = R()
        r.x = [x] if self.reduced else [1 - x, x]
        r.blocking = x ** self.d
        return r


@pytest.mark.parametrize("reduced", [False, True])
def test_refined_c1_custom_model(reduced):
    """B_N - B - V/N = O(1/N^2) against the exact birth-death chain (rationals)."""
    model = _RetrialC1(2, reduced=reduced)
    r = refined_mean_field(model, rho=1.5)
    assert r.conserved == (0 if reduced else 1)
    errs = []
    for N in (20, 40, 80):
        bn = float(birth_death_c1(N, Fraction(3, 2), 2, False))
        errs.append(abs(bn - r.at(N)) * N ** 2)
        assert abs(bn - r.blocking_mf) * N > 0.5 * abs(r.V)   # the 1/N term is real
    assert max(errs) < 1.0 and errs[2] < 1.2 * errs[0] + 1e-3
    # closed form for d = 2 in one dimension: f = rho (1 - x^2) - x, Q = 2 x*
    x = r.x_star[-1]
    A = -2 * 1.5 * x - 1
    W = -(2 * x) / (2 * A)
    c = -(0.5 * (-2 * 1.5) * W) / A
    assert r.V == pytest.approx(2 * x * c + W, rel=1e-10)


def test_refined_random_routing_is_exact():
    for C in (1, 2, 3):
        assert abs(refined_mean_field("random", rho=1.3, C=C).V) < 1e-12


@pytest.mark.parametrize("policy, C, d, rho, Ns", [("retrial", 2, 2, 1.0, (15, 30, 60)),
                                                   ("power", 2, 3, 1.5, (15, 30, 60)),
                                                   ("retrial", 3, 2, 2.0, (10, 20, 40))])
def test_refined_second_order(policy, C, d, rho, Ns):
    r = refined_mean_field(policy, rho=rho, C=C, d=d)
    err = []
    for N in Ns:
        bn = exact_finite_n(policy, N, C, rho, d).blocking
        err.append(bn - r.at(N))
        assert abs(err[-1]) < abs(bn - r.blocking_mf) / 3      # refined beats plain mean field
    # O(1/N^2): doubling N divides the error by about 4
    assert 3.0 < err[0] / err[1] < 5.0 and 3.0 < err[1] / err[2] < 5.0


def test_refined_jsq_refused():
    with pytest.raises(ValueError, match="smooth"):
        refined_mean_field("jsq", rho=1.0, C=2)


# --------------------------------------------------------------------------------------------------
# notebook
# --------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_notebook_runs():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    path = ROOT / "notebooks" / "finite_n.ipynb"
    nb = nbformat.read(path, as_version=4)
    os.environ["SYMLOSS_NOTEBOOK_SMALL"] = "1"
    try:
        nbclient.NotebookClient(nb, kernel_name="python3", timeout=300,
                                resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        os.environ.pop("SYMLOSS_NOTEBOOK_SMALL", None)


# --------------------------------------------------------------------------------------------------
# finite-N threshold
# --------------------------------------------------------------------------------------------------

def test_finite_n_threshold_exact():
    r = finite_n_threshold(2, 3, 4, 10, mean_field=False)
    assert r.method == "exact" and r.ci == (r.threshold, r.threshold)
    # at the threshold the two exact finite-N blockings agree
    a = exact_finite_n("retrial", 10, 2, r.threshold, 4).blocking
    b = exact_finite_n("power", 10, 2, r.threshold, 3).blocking
    assert a == pytest.approx(b, rel=1e-9)
    # and retrial-of-4 is better just above it, worse just below
    assert exact_finite_n("retrial", 10, 2, r.threshold * 1.01, 4).blocking < \
        exact_finite_n("power", 10, 2, r.threshold * 1.01, 3).blocking
    assert exact_finite_n("retrial", 10, 2, r.threshold * 0.99, 4).blocking > \
        exact_finite_n("power", 10, 2, r.threshold * 0.99, 3).blocking
    assert r.refined is not None and abs(r.refined - r.threshold) < 0.3
    with pytest.raises(ValueError, match="dt must be > d"):
        finite_n_threshold(2, 3, 3, 10)


def test_finite_n_threshold_c2_always():
    """C = 2, d = 2, dt = 3: retrial-of-3 is better at every load (seed 000), also at N = 10."""
    r = finite_n_threshold(2, 2, 3, 10, mean_field=False)
    assert r.threshold == 0.0 and np.all(r.log_ratio < 0)


@pytest.mark.slow
def test_finite_n_threshold_simulation_brackets_exact():
    ex = finite_n_threshold(3, 2, 3, 10, method="exact", mean_field=False)
    sim = finite_n_threshold(3, 2, 3, 10, method="simulation", events=100_000, replications=6,
                             seed=5, mean_field=False)
    assert sim.ci[0] <= ex.threshold <= sim.ci[1]
    assert sim.ci[1] - sim.ci[0] < 0.5 * ex.threshold


def test_rng_matches_reference_xoshiro():
    """The kernel's generator is xoshiro256** (reference: Blackman & Vigna's C code, transcribed
    in Python integers) and its bounded integers are uniform."""
    from numba import njit
    from symloss.finite_n._kernels import _next4, _randint4
    mask = (1 << 64) - 1

    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & mask

    def ref(s):
        r = (rotl((s[1] * 5) & mask, 7) * 9) & mask
        t = (s[1] << 17) & mask
        s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45)
        return r

    @njit
    def draws(st, n, bound):
        a, b, c, d = st[0], st[1], st[2], st[3]
        out = np.empty(n, np.uint64)
        for i in range(n):
            out[i], a, b, c, d = _next4(a, b, c, d)
        ints = np.empty(n, np.int64)
        for i in range(n):
            ints[i], a, b, c, d = _randint4(a, b, c, d, bound)
        return out, ints

    st = np.random.SeedSequence(99).generate_state(4, np.uint64)
    raw, ints = draws(st, 200_000, 7)
    s = [int(v) for v in st]
    assert all(int(raw[i]) == ref(s) for i in range(1000))
    counts = np.bincount(ints, minlength=7)
    chi2 = float(((counts - ints.size / 7) ** 2 / (ints.size / 7)).sum())
    assert chi2 < 25.0          # chi-square, 6 degrees of freedom: P(> 25) < 4e-4


def test_cli_simulate(capsys):
    from symloss.cli import main
    assert main(["simulate", "retrial", "-N", "10", "-C", "2", "--rho", "1", "-d", "2",
                 "--events", "2e5", "--replications", "4", "--exact", "--refined"]) == 0
    out = capsys.readouterr().out
    assert "exact B_N = 0.0859713549" in out and "refined B + V/N" in out
    assert main(["simulate", "power", "-N", "10", "-C", "2", "--rho", "1", "--events", "10"]) == 2
    assert "d is required" in capsys.readouterr().err


@pytest.mark.slow
def test_million_servers_memory():
    """N = 10^6 servers fit in far less than 1 GB (peak RSS of a child process). The peak is the
    child's own ``VmHWM`` (Linux): ``ru_maxrss`` of a child started by ``vfork`` + ``exec`` includes the
    pytest process's resident set before the ``exec`` (CI measured 1065100 kB that way once the
    parent had grown past 1 GB; the child itself peaks near 300 MB)."""
    import subprocess
    import sys
    code = ("import resource, symloss\n"
            "r = symloss.simulate('power', N=1_000_000, C=5, rho=4.0, d=2, events=200_000, warmup=0, seed=1)\n"
            "try:\n"
            "    peak = next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
            "except (OSError, StopIteration):\n"
            "    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "print(peak, r.blocking)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         timeout=120)
    rss_kb, blocking = out.stdout.split()
    assert int(rss_kb) < 1_000_000 and 0 < float(blocking) < 1


@pytest.mark.parametrize("policy,d", [("power", 2), ("retrial", 2), ("jsq", None)])
def test_exact_finite_n_gauss_seidel_matches_direct_lu(policy, d):
    """Beyond the LU state limit the chain is solved by Gauss-Seidel: both solvers on the same chain."""
    direct = exact_finite_n(policy, 30, 3, 2.8, d)
    iterative = exact_finite_n(policy, 30, 3, 2.8, d, max_states=100)
    assert "Gauss-Seidel" in iterative.method and "LU" in direct.method
    assert abs(iterative.blocking - direct.blocking) <= 1e-11 * direct.blocking
    assert np.allclose(iterative.occupancy, direct.occupancy, rtol=1e-10, atol=0)
    assert iterative.residual < 1e-12
