"""Tests of symloss.twoqueue: two M/M/N/N queues under join-the-shortest-queue (seed 003)."""
from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
from flint import fmpq, fmpq_mat
from hypothesis import given, settings, strategies as st

import symloss
from symloss import TwoQueueJSQ, jsq_regime

DATA = Path(__file__).parents[1] / "data" / "twoqueue_reference.txt"


# ---- independent references ----------------------------------------------------------------------

def _full_exact(N, rho):
    """Exact stationary law of the FULL (m, n) chain (no lumping, no levels), transition rules
    written out again here, solved with fmpq_mat (independent of the package's solvers)."""
    S = (N + 1) ** 2
    idx = lambda m, n: m * (N + 1) + n  # noqa: E731
    A = fmpq_mat(S, S)
    for m in range(N + 1):
        for n in range(N + 1):
            i = idx(m, n)
            out = []
            if m < n:
                out.append((m + 1, n, rho))
            elif n < m:
                out.append((m, n + 1, rho))
            elif m < N:
                out += [(m + 1, n, rho / 2), (m, n + 1, rho / 2)]
            if m > 0:
                out.append((m - 1, n, fmpq(m)))
            if n > 0:
                out.append((m, n - 1, fmpq(n)))
            for (m2, n2, r) in out:
                A[idx(m2, n2), i] += r
                A[i, i] -= r
    for j in range(S):
        A[S - 1, j] = 1
    b = fmpq_mat(S, 1)
    b[S - 1, 0] = 1
    x = A.solve(b)
    return [[x[idx(m, n), 0] for n in range(N + 1)] for m in range(N + 1)]


def _erlang_exact(C, a):
    """E(C, a) by the recursion 1/E(n) = 1 + (n/a)/E(n-1), in rationals."""
    inv = fmpq(1)
    for n in range(1, C + 1):
        inv = 1 + fmpq(n) / a * inv
    return 1 / inv


def _as_float(p):
    return np.array([[float(mpmath.mpf(int(x.p)) / int(x.q)) if isinstance(x, fmpq) else float(x)
                      for x in row] for row in p])


# ---- exact / symbolic ------------------------------------------------------------------------------

@pytest.mark.parametrize("N,rho", [(1, fmpq(1)), (2, fmpq(3, 2)), (3, fmpq(5)), (5, fmpq(7, 3)),
                                   (7, fmpq(1, 4))])
def test_exact_equals_full_generator_solution(N, rho):
    res = TwoQueueJSQ(N, Fraction(int(rho.p), int(rho.q))).stationary_distribution("exact")
    ref = _full_exact(N, rho)
    assert res.p == ref
    assert res.blocking() == _erlang_exact(2 * N, rho)


def test_exact_level_law_is_truncated_poisson_and_symmetric():
    N, rho = 6, fmpq(9, 2)
    res = TwoQueueJSQ(N, Fraction(9, 2)).stationary_distribution("exact")
    w = [rho ** k / math.factorial(k) for k in range(2 * N + 1)]
    tot = sum(w, fmpq(0))
    for K in range(2 * N + 1):
        s = sum((res.p[m][K - m] for m in range(N + 1) if 0 <= K - m <= N), fmpq(0))
        assert s == w[K] / tot
    assert all(res.p[m][n] == res.p[n][m] for m in range(N + 1) for n in range(N + 1))
    assert sum((x for row in res.p for x in row), fmpq(0)) == 1
    assert all(x > 0 for row in res.p for x in row)


@pytest.mark.slow
def test_symbolic_solves_the_balance_equations_and_matches_exact():
    import sympy
    rho = sympy.Symbol("rho", positive=True)
    small = TwoQueueJSQ(2, 1)
    r2 = small.stationary_distribution("symbolic")
    sub = {sympy.Symbol(f"p_{m}_{n}"): r2.p[m][n] for m in range(3) for n in range(3)}
    for eq in small.balance_equations():
        assert sympy.cancel(eq.lhs.subs(sub) - eq.rhs.subs(sub)) == 0
    assert sympy.cancel(sum(sum(row) for row in r2.p) - 1) == 0
    model = TwoQueueJSQ(3, 1)
    res = model.stationary_distribution("symbolic")
    # blocking is E(6, rho) identically
    erl = (rho ** 6 / sympy.factorial(6)) / sum(rho ** k / sympy.factorial(k) for k in range(7))
    assert sympy.cancel(res.blocking() - erl) == 0
    # value at rho = 5/2 equals the exact rational solution
    ex = TwoQueueJSQ(3, Fraction(5, 2)).stationary_distribution("exact")
    for m in range(4):
        for n in range(4):
            v = sympy.Rational(int(ex.p[m][n].p), int(ex.p[m][n].q))
            assert res.p[m][n].subs(rho, sympy.Rational(5, 2)) == v
    tex = res.to_latex()
    assert r"\rho" in tex and "p(0,0)" in tex


def test_reference_file_values():
    lines = [ln.split() for ln in DATA.read_text().splitlines() if ln and not ln.startswith("#")]
    assert len(lines) >= 20
    for N, rho, name, val, exact in lines:
        N = int(N)
        rho_q = fmpq(*map(int, rho.split("/"))) if "/" in rho else fmpq(int(rho))
        mp = TwoQueueJSQ(N, Fraction(int(rho_q.p), int(rho_q.q))).stationary_distribution("mp", dps=30)
        got = {"blocking": mp.blocking(), "P(m=n)": mp.imbalance()[0], "P(m=0)": mp.marginal()[0],
               "p(N,0)": mp.p[N][0]}[name]
        with mpmath.workdps(40):
            ref = mpmath.mpf(val)
            assert abs(got - ref) <= mpmath.mpf(10) ** -29 * ref, (N, rho, name)
        if N <= 8:
            ex = TwoQueueJSQ(N, Fraction(int(rho_q.p), int(rho_q.q))).stationary_distribution("exact")
            got_ex = {"blocking": ex.blocking(), "P(m=n)": ex.imbalance()[0],
                      "P(m=0)": ex.marginal()[0], "p(N,0)": ex.p[N][0]}[name]
            assert str(got_ex) == exact


# ---- agreement of the four methods ----------------------------------------------------------------

@pytest.mark.slow
def test_methods_agree_N20():
    N = 20
    ex = TwoQueueJSQ(N, Fraction(20)).stationary_distribution("exact")
    mp = TwoQueueJSQ(N, 20).stationary_distribution("mp", dps=40)
    fl = TwoQueueJSQ(N, 20).stationary_distribution("float")
    with mpmath.workdps(50):
        worst = max(abs(mpmath.mpf(int(e.p)) / int(e.q) - m) / (mpmath.mpf(int(e.p)) / int(e.q))
                    for re, rm in zip(ex.p, mp.p) for e, m in zip(re, rm))
        assert worst < mpmath.mpf(10) ** -39
    pe = _as_float(ex.p)
    mask = pe > 1e-290
    assert np.max(np.abs(fl.p[mask] / pe[mask] - 1)) < 1e-12   # entrywise, tails included
    assert fl.residual < 1e-13 and fl.error < 1e-12
    # MATH.md reference values (N = 20, a = 1)
    assert fl.blocking() == pytest.approx(2.77764131302435e-5, rel=1e-13)
    assert fl.imbalance()[0] == pytest.approx(0.347342289224, abs=1e-12)


def test_mp_digits_certified_and_precision_restored():
    r30 = TwoQueueJSQ(6, mpmath.mpf("2.5")).stationary_distribution("mp", dps=30)
    r60 = TwoQueueJSQ(6, mpmath.mpf("2.5")).stationary_distribution("mp", dps=60)
    with mpmath.workdps(70):
        for a, b in zip(r30.p, r60.p):
            for x, y in zip(a, b):
                assert abs(x - y) <= mpmath.mpf(10) ** -29 * y
        assert abs(r60.blocking() - symloss.erlang_b(12, mpmath.mpf("2.5"), dps=60)) < mpmath.mpf(10) ** -58


@pytest.mark.parametrize("N,rho", [(40, 12.0), (40, 80.0), (40, 200.0), (25, 0.3)])
def test_float_matches_generic_sparse_solve(N, rho):
    model = TwoQueueJSQ(N, rho)
    fl = model.stationary_distribution("float")
    gen = model.generic_solve()
    big = gen > 1e-6       # the generic LU is accurate only in absolute terms
    assert np.max(np.abs(fl.p[big] / gen[big] - 1)) < 1e-9
    assert np.max(np.abs(fl.p - gen)) < 1e-14
    assert abs(fl.p.sum() - 1) < 1e-13 and (fl.p >= 0).all()
    assert np.array_equal(fl.p, fl.p.T)
    assert fl.blocking() == pytest.approx(float(symloss.erlang_b(2 * N, rho)), rel=1e-12)


@settings(max_examples=25)
@given(N=st.integers(1, 9), num=st.integers(1, 60), den=st.integers(1, 6))
def test_float_vs_exact_property(N, num, den):
    rho = Fraction(num, den)
    ex = TwoQueueJSQ(N, rho).stationary_distribution("exact")
    fl = TwoQueueJSQ(N, float(rho)).stationary_distribution("float")
    pe = _as_float(ex.p)
    assert np.max(np.abs(fl.p - pe) / pe) < 1e-11
    # total occupancy is truncated Poisson
    tot = fl.total()
    k = np.arange(2 * N + 1)
    lw = k * math.log(float(rho)) - np.array([math.lgamma(j + 1) for j in k])
    assert np.allclose(tot, np.exp(lw - np.logaddexp.reduce(lw)), rtol=1e-12, atol=0)


def test_float_large_N_structure():
    N, rho = 300, 500.0
    fl = TwoQueueJSQ(N, rho).stationary_distribution("float")
    assert fl.residual < 1e-12
    assert abs(fl.p.sum() - 1) < 1e-12
    assert fl.blocking() == pytest.approx(float(symloss.erlang_b(2 * N, rho)), rel=1e-11)
    K = np.add.outer(np.arange(N + 1), np.arange(N + 1))
    tot = np.bincount(K.ravel(), weights=fl.p.ravel())
    assert np.allclose(tot, fl.total(), rtol=1e-11, atol=1e-300)


# ---- summaries -------------------------------------------------------------------------------------

def test_summaries_consistent():
    N, rho = 12, 15.0
    fl = TwoQueueJSQ(N, rho).stationary_distribution("float")
    k = np.arange(N + 1)
    mmin, mmax, marg = fl.marginal_min(), fl.marginal_max(), fl.marginal()
    for v in (mmin, mmax, marg, fl.imbalance()):
        assert abs(v.sum() - 1) < 1e-13 and (v >= 0).all()
    assert (mmin + mmax) / 2 == pytest.approx(marg, rel=1e-12)           # exchangeable pair
    EK = (np.arange(2 * N + 1) * fl.total()).sum()
    assert (k * mmin).sum() + (k * mmax).sum() == pytest.approx(EK, rel=1e-13)
    assert (k * mmax).sum() - (k * mmin).sum() == pytest.approx(fl.mean_imbalance(), rel=1e-12)
    c = fl.conditional(n=5)
    assert c.sum() == pytest.approx(1) and c == pytest.approx(fl.p[:, 5] / fl.p[:, 5].sum())
    ct = fl.conditional(total=17)
    assert ct.sum() == pytest.approx(1) and ct[:5].sum() == 0
    cm = fl.conditional(total=17, of="min")
    assert cm.sum() == pytest.approx(1) and cm[9:].sum() == 0
    # exact version of the same summaries
    ex = TwoQueueJSQ(4, 3).stationary_distribution("exact")
    assert sum(ex.imbalance(), fmpq(0)) == 1
    assert sum(ex.conditional(total=5), fmpq(0)) == 1
    assert sum(ex.marginal_min(), fmpq(0)) == 1
    d = ex.to_dict()
    assert d["blocking"] == str(ex.blocking()) and d["method"] == "exact"


# ---- errors ----------------------------------------------------------------------------------------

def test_bad_input():
    with pytest.raises(ValueError, match="N"):
        TwoQueueJSQ(0, 1.0)
    with pytest.raises(ValueError, match="rho"):
        TwoQueueJSQ(3, 0)
    with pytest.raises(ValueError, match="rho"):
        TwoQueueJSQ(3, -1.5)
    with pytest.raises(TypeError, match="N"):
        TwoQueueJSQ(2.5, 1.0)
    with pytest.raises(ValueError, match="method"):
        TwoQueueJSQ(3, 1).stationary_distribution("lu")
    with pytest.raises(ValueError, match="N <= 8.*exact"):
        TwoQueueJSQ(9, 1).stationary_distribution("symbolic")
    with pytest.raises(ValueError, match="N <= 30.*mp"):
        TwoQueueJSQ(31, 1).stationary_distribution("exact")
    with pytest.raises(ValueError, match="N <= 200.*float"):
        TwoQueueJSQ(201, 1).stationary_distribution("mp")
    with pytest.raises(ValueError, match="N <= 10000"):           # was 2000 before issue 15
        TwoQueueJSQ(10001, 1).stationary_distribution("float")
    with pytest.raises(TypeError, match="rational rho"):
        TwoQueueJSQ(3, 0.1).stationary_distribution("exact")
    with pytest.raises(ValueError, match="exactly one"):
        TwoQueueJSQ(3, 1).stationary_distribution().conditional()
    with pytest.raises(ValueError, match="quantity"):
        TwoQueueJSQ(3, 1).asymptotic("mean")
    with pytest.raises(ValueError, match="a"):
        jsq_regime(0)


# ---- asymptotics -----------------------------------------------------------------------------------

def test_regimes():
    assert [jsq_regime(a) for a in (2, 0.6, 0.5, 0.3, 0.25, 0.2)] == [
        "a>1/2", "a>1/2", "a~1/2", "1/4<a<1/2", "a~1/4", "a<1/4"]
    assert jsq_regime(0.52, rho=400) == "a~1/2"   # |2N - rho| = 16 < sqrt(400) = 20
    assert jsq_regime(0.56, rho=400) == "a>1/2"
    assert jsq_regime(0.255, rho=400) == "a~1/4"
    assert TwoQueueJSQ(100, 200).regime == "a~1/2"


def test_imbalance_limit_and_blocking_asymptotics():
    lim = TwoQueueJSQ(30, 100).asymptotic("imbalance_limit")
    assert lim.sum() == pytest.approx(1, abs=1e-12)
    assert lim[0] == pytest.approx((1 - 0.3) / 1.3)
    # leading order (order=0, the default before issue 15) and the O(1/rho) term (order=1, default now)
    assert TwoQueueJSQ(30, 100).asymptotic("blocking", order=0) == pytest.approx(0.4)
    assert TwoQueueJSQ(30, 100).asymptotic("blocking") == pytest.approx(0.4 + 0.6 / (100 * 0.4))
    m = TwoQueueJSQ(400, 800)    # 2N = rho: beta = 0, E ~ sqrt(2/(pi rho))
    assert m.asymptotic("blocking", order=0) == pytest.approx(math.sqrt(2 / (math.pi * 800)))
    assert m.asymptotic("blocking", order=0) == pytest.approx(float(symloss.erlang_b(800, 800)), rel=0.03)
    assert m.asymptotic("blocking") == pytest.approx(float(symloss.erlang_b(800, 800)), rel=5e-4)


CASES = [("a>1/2", 1.0), ("a~1/2", 0.5), ("1/4<a<1/2", 0.35), ("a~1/4", 0.25), ("a<1/4", 0.15)]


@pytest.mark.slow
@pytest.mark.parametrize("regime,a", CASES)
def test_asymptotic_error_shrinks_like_one_over_rho(regime, a):
    errs = []
    for rho in (100, 400):
        model = TwoQueueJSQ(int(round(a * rho)), rho)
        assert model.regime == regime
        ex = model.stationary_distribution()
        ap = model.asymptotic("distribution")
        tv = 0.5 * np.abs(ap.p - ex.p).sum()
        mm = 0.5 * np.abs(ap.marginal_min() - ex.marginal_min()).sum()
        errs.append((tv, mm))
    (tv1, mm1), (tv2, mm2) = errs
    assert tv1 < 0.03 and tv2 < tv1 / 3.0       # O(1/rho): factor 4 expected
    assert mm2 < mm1 / 2.5


def test_asymptotic_conditional_given_total():
    model = TwoQueueJSQ(60, 200)  # a = 0.3
    ex = model.stationary_distribution()
    for K in (120, 118, 115):
        ca = model.asymptotic("conditional", total=K)
        ce = ex.conditional(total=K)
        assert 0.5 * np.abs(ca - ce).sum() < 0.02


def test_tail_rate_of_less_occupied_queue():
    from symloss.twoqueue.asymptotic import corner_conditionals, local_decay
    for a in (0.15, 0.35):
        c = corner_conditionals(a, 120)
        pv = np.zeros(121)
        for j in range(121):
            for t, x in enumerate(c[j]):
                d = j % 2 + 2 * t
                pv[(j + d) // 2] += (1 - 2 * a) * (2 * a) ** j * x
        assert pv[41] / pv[40] == pytest.approx(max(a, 4 * a * a), rel=1e-3)
    # in the finite system the rate is local: x = min/rho replaces a (two rays)
    for N, rho in ((45, 300), (105, 300)):               # a = 0.15 and a = 0.35
        model = TwoQueueJSQ(N, rho)
        ex = model.stationary_distribution().marginal_min()
        for m in (N - 20, N - 40, N // 3, 5):
            assert ex[m - 1] / ex[m] == pytest.approx(float(local_decay(m, rho)), rel=0.1)
        # uniform approximation over the whole range (probabilities down to ~1e-200), across the
        # exchange of the rays at m = rho/4 for a = 0.35
        tail = model.asymptotic("marginal_min_tail")
        assert np.max(np.abs(tail / ex - 1)) < 0.03
    assert TwoQueueJSQ(45, 300).asymptotic("tail_rate") == pytest.approx(0.15)
    e = []
    for rho in (100, 300):
        model = TwoQueueJSQ(int(0.35 * rho), rho)
        e.append(np.max(np.abs(model.asymptotic("marginal_min_tail")
                               / model.stationary_distribution().marginal_min() - 1)))
    assert e[1] < e[0] / 2.2                       # O(1/rho): factor 3 expected
    big = TwoQueueJSQ(200, 200)                    # a = 1: same construction, corner is a far tail
    exb = big.stationary_distribution().marginal_min()
    sel = exb > 1e-300
    assert np.max(np.abs(big.asymptotic("marginal_min_tail")[sel] / exb[sel] - 1)) < 0.05


def test_min_law_from_diagonal_is_exact():
    from symloss.twoqueue.asymptotic import min_law_from_diagonal
    ex = TwoQueueJSQ(7, Fraction(9, 2)).stationary_distribution("exact")
    mm = ex.marginal_min()
    # the identity in exact arithmetic: P(min=m) = p(m,m) + 2 sum_{n>m} p(n,n) n!/(m! rho^(n-m))
    rho = fmpq(9, 2)
    for m in range(8):
        s = sum((ex.p[n][n] * math.factorial(n) / math.factorial(m) / rho ** (n - m) for n in range(m + 1, 8)),
                fmpq(0))
        assert mm[m] == ex.p[m][m] + 2 * s
    fl = TwoQueueJSQ(60, 150.0).stationary_distribution()
    got = min_law_from_diagonal(np.diag(fl.p).copy(), 150.0)
    assert np.max(np.abs(got / fl.marginal_min() - 1)) < 1e-12


# ---- notebook --------------------------------------------------------------------------------------

@pytest.mark.slow
def test_notebook_executes(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("matplotlib")
    path = Path(__file__).parents[2] / "notebooks" / "jsq_erlang_loss.ipynb"
    nb = nbformat.read(path, as_version=4)
    monkeypatch.setenv("SYMLOSS_NOTEBOOK_SMALL", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("SYMLOSS_REPO", str(Path(__file__).parents[2]))   # the installed package is not the clone
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()


# ---- claims ----------------------------------------------------------------------------------------

@pytest.mark.slow
def test_claims_prove_and_recheck_and_reject_tampering():
    import copy

    from proofs_check.core import CertificateError, Status, select
    (blk,) = select(["seed003.blocking_equals_erlang"])
    cert = blk.prove()
    assert cert.status == Status.PROVED
    assert blk.recheck(copy.deepcopy(cert.data)) == Status.PROVED
    bad = copy.deepcopy(cert.data)
    c = bad["laws"]["3"]["num"][1][2]
    c[-1] = str(fmpq(*map(int, c[-1].split("/"))) + 1) if "/" in c[-1] else str(int(c[-1]) + 1)
    with pytest.raises(CertificateError):
        blk.recheck(bad)
    bad2 = copy.deepcopy(cert.data)
    bad2["table"][2]["moves"][0][2] = "rho"
    with pytest.raises(CertificateError):
        blk.recheck(bad2)


def test_input_types_and_extreme_loads():
    m = TwoQueueJSQ(3, fmpq(3, 2))                 # flint rational accepted, kept exact
    assert m.rho == Fraction(3, 2) and m.a == 2.0
    assert m.stationary_distribution("exact").blocking() == _erlang_exact(6, fmpq(3, 2))
    for N, rho in ((50, 1e-6), (50, 1e4), (5, 1e8), (1, 1e-300)):
        r = TwoQueueJSQ(N, rho).stationary_distribution()
        assert np.isfinite(r.p).all() and abs(r.p.sum() - 1) < 1e-13 and r.residual < 1e-13
        assert r.blocking() == pytest.approx(float(symloss.erlang_b(2 * N, rho)), rel=1e-13, abs=1e-300)
    # tiny blocking far below float range, in mp
    tiny = mpmath.mpf("1e-50")                      # one binary value for both computations
    r = TwoQueueJSQ(10, tiny).stationary_distribution("mp")
    with mpmath.workdps(40):
        assert abs(r.blocking() / symloss.erlang_b(20, tiny, dps=35) - 1) < mpmath.mpf(10) ** -29
