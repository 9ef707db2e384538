"""Tests for symloss.admission (seed 001: admission control with lookahead)."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import symloss
from symloss.admission import (PFI, SSS, OverloadedLossNetwork, TrunkReservation, WindowDP, fit_log_n,
                               Estimate)

DATA = Path(__file__).parents[1] / "data" / "admission_trunk_reference.csv"
F = Fraction


def seed_net(N):
    return OverloadedLossNetwork(N, F(1, 2), 1, 2, 1)


# ------------------------------------------------------------------------------------------------
# validation and fluid
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    (dict(N=10, lam_H=1, lam_L=1, r_H=2, r_L=1), "lam_H < mu"),
    (dict(N=10, lam_H=F(1, 2), lam_L=F(1, 2), r_H=2, r_L=1), "mu < lam_H \\+ lam_L"),
    (dict(N=10, lam_H=F(1, 2), lam_L=1, r_H=1, r_L=1), "r_H must exceed r_L"),
    (dict(N=10, lam_H=F(1, 2), lam_L=1, r_H=2, r_L=0), "r_L"),
    (dict(N=0, lam_H=F(1, 2), lam_L=1, r_H=2, r_L=1), "N"),
    (dict(N=10, lam_H=-1, lam_L=1, r_H=2, r_L=1), "lam_H"),
    (dict(N=10, lam_H=0.5, lam_L=1, r_H=2, r_L=1, mu=0), "mu"),
])
def test_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        OverloadedLossNetwork(**kwargs)


def test_validation_types():
    with pytest.raises(TypeError, match="N"):
        OverloadedLossNetwork(10.5, 0.5, 1, 2, 1)
    with pytest.raises(TypeError, match="lam_L"):
        OverloadedLossNetwork(10, 0.5, "1", 2, 1)


def test_public_names():
    assert symloss.OverloadedLossNetwork is OverloadedLossNetwork
    assert symloss.SSS is SSS and symloss.PFI is PFI


def test_fluid_exact_and_symbolic():
    net = OverloadedLossNetwork(1000, F(1, 2), 1, 2, 1)
    v = net.fluid_reward()
    assert isinstance(v, Fraction) and v == 1500
    net = OverloadedLossNetwork(7, F(1, 3), F(5, 7), F(7, 2), F(3, 2), F(3, 4))
    v = net.fluid_reward()
    assert v == 7 * (F(7, 2) * F(1, 3) + F(3, 2) * (F(3, 4) - F(1, 3)))
    import sympy as sp
    assert sp.Rational(v.numerator, v.denominator) == net.fluid_expr(evaluate=True)
    e = net.fluid_expr()
    assert {str(s) for s in e.free_symbols} == {"N", "lambda_H", "mu", "r_H", "r_L"}
    fl = OverloadedLossNetwork(10, 0.5, 1.0, 2.0, 1.0).fluid_reward()
    assert isinstance(fl, float) and fl == 15.0


# ------------------------------------------------------------------------------------------------
# online MDP
# ------------------------------------------------------------------------------------------------

def _reference_rows():
    rows = []
    for line in DATA.read_text().splitlines():
        if line.startswith("#") or line.startswith("N,"):
            continue
        N, lH, lL, mu, rH, rL, K, kind, rew, reg = line.split(",")
        rows.append((int(N), F(lH), F(lL), F(mu), F(rH), F(rL), int(K), kind, rew, reg))
    return rows


@pytest.mark.parametrize("row", _reference_rows(), ids=lambda r: f"N{r[0]}K{r[6]}{r[7]}")
def test_trunk_reservation_reference(row):
    N, lH, lL, mu, rH, rL, K, kind, rew, reg = row
    net = OverloadedLossNetwork(N, lH, lL, rH, rL, mu)
    res = net.trunk_reservation(K, dps=35)
    with mpmath.workdps(50):
        if kind == "exact":
            fr, fg = F(rew), F(reg)
            ref_rew = mpmath.mpf(fr.numerator) / fr.denominator
            ref_reg = mpmath.mpf(fg.numerator) / fg.denominator
        else:
            ref_rew, ref_reg = mpmath.mpf(rew), mpmath.mpf(reg)
        assert abs(res.reward - ref_rew) <= mpmath.mpf(10) ** -33 * abs(ref_rew)
        assert abs(res.regret - ref_reg) <= mpmath.mpf(10) ** -31 * abs(ref_rew)
        assert abs(res.identity_residual) <= mpmath.mpf(10) ** -30 * N


def test_trunk_reservation_closed_form_matches_reference():
    import sympy as sp
    rows = [r for r in _reference_rows() if r[7] == "exact" and r[0] <= 8]
    assert rows
    for N, lH, lL, mu, rH, rL, K, _, rew, _ in rows:
        net = OverloadedLossNetwork(N, lH, lL, rH, rL, mu)
        e = net.trunk_reservation_expr(evaluate=True)
        K_sym = [s for s in e.free_symbols if s.name == "K"][0]
        val = sp.simplify(e.subs(K_sym, K).doit())
        assert isinstance(val, sp.Rational)          # exact, no float crept in
        assert val == sp.Rational(F(rew).numerator, F(rew).denominator)


def test_trunk_reservation_keeps_global_precision():
    before = mpmath.mp.dps
    seed_net(50).trunk_reservation(3, dps=60)
    assert mpmath.mp.dps == before


def _rvi(N, lH, lL, mu, rH, rL, iters=40000):
    """Relative value iteration on the uniformised MDP with free accept/reject for BOTH classes."""
    Lam = N * (lH + lL + mu)
    pH, pL = N * lH / Lam, N * lL / Lam
    n = np.arange(N + 1)
    pD = n * mu / Lam
    h = np.zeros(N + 1)
    g = 0.0
    for _ in range(iters):
        up = np.append(h[1:], -np.inf)
        acc_H = np.maximum(rH + up, h)
        acc_L = np.maximum(rL + up, h)
        down = np.concatenate(([0.0], h[:-1]))
        Th = pH * acc_H + pL * acc_L + pD * down + (1 - pH - pL - pD) * h
        diff = Th - h
        g = Th[0]
        h = Th - g
        if diff.max() - diff.min() < 1e-14 * Lam:   # span seminorm: gain bracketed to 1e-14
            break
    else:
        raise AssertionError("relative value iteration did not converge")
    up = np.append(h[1:], -np.inf)
    pol_L = rL + up >= h
    pol_H = rH + up >= h
    return g * Lam, pol_H[:N], pol_L[:N], h


@pytest.mark.parametrize("N, params", [(6, (0.5, 1.0, 1.0, 2.0, 1.0)), (12, (0.5, 1.0, 1.0, 2.0, 1.0)),
                                       (9, (0.3, 0.9, 1.0, 5.0, 2.0)), (15, (0.6, 0.9, 1.0, 1.5, 1.0))])
def test_online_optimal_matches_value_iteration(N, params):
    lH, lL, mu, rH, rL = params
    net = OverloadedLossNetwork(N, lH, lL, rH, rL, mu)
    opt = net.online_optimal()
    g, pol_H, pol_L, h = _rvi(N, lH, lL, mu, rH, rL)
    assert float(opt.reward) == pytest.approx(g, rel=1e-10)
    # the bias of the uniformised chain is the CTMC bias: compare the differences used by the
    # policy-improvement check (and the public bias) with value iteration's
    assert np.allclose(np.diff(h), np.diff(net.online_bias()), rtol=1e-7, atol=1e-9)
    assert pol_H.all()
    K = opt.threshold
    assert np.array_equal(pol_L, np.arange(N) < N - K)
    assert opt.min_margin >= 0 and opt.bias_concave
    # neighbours are worse (the scan and the improvement step agree)
    for k in (K - 1, K + 1):
        if 0 <= k <= N:
            assert net.trunk_reservation(k).reward < opt.reward


@settings(max_examples=25, deadline=None)
@given(N=st.integers(1, 400), lH=st.floats(0.05, 0.95), extra=st.floats(0.05, 2.0), frac=st.floats(0.05, 0.95),
       rL=st.floats(0.1, 5.0), ratio=st.floats(1.01, 10.0))
def test_online_optimal_always_verifies(N, lH, extra, frac, rL, ratio):
    # mu in (lam_H, lam_H + lam_L): lam_L = extra, mu = lam_H + frac * extra
    net = OverloadedLossNetwork(N, lH, extra, rL * ratio, rL, lH + frac * extra)
    opt = net.online_optimal(dps=20)
    assert opt.min_margin >= 0
    assert 0 <= opt.threshold <= N
    ref = net.trunk_reservation(opt.threshold, dps=20)
    assert ref.reward == opt.reward
    for k in (opt.threshold - 1, opt.threshold + 1):
        if 0 <= k <= N:
            assert net.trunk_reservation(k, dps=20).reward <= opt.reward


def test_high_precision_bias_agrees_with_float_bias():
    # the mpmath Delta h(n) decides near-ties of the optimality check; compare it with the float path
    net = OverloadedLossNetwork(25, F(1, 2), 1, 2, 1)
    opt = net.online_optimal()
    d = np.diff(net.online_bias())
    for n in range(25):
        dm = net._bias_difference_mp(opt.threshold, n, opt.reward, 30)
        assert float(dm) == pytest.approx(d[n], rel=1e-9, abs=1e-12)


def test_online_regret_identity_and_growth():
    prev = None
    for N in (10, 100, 1000, 10000):
        opt = seed_net(N).online_optimal()
        with mpmath.workdps(40):
            assert abs(mpmath.mpf(opt.fluid.numerator) / opt.fluid.denominator - opt.reward - opt.regret) < 1e-20
        assert opt.min_margin > 0
        if prev is not None:
            # regret grows like ln N / ln(mu/lam_H) = log2(N): about 3.3 per decade here
            assert 2.5 < float(opt.regret - prev) < 4.0
        prev = opt.regret
    # K* ~ ln N / ln 2 within a bounded offset
    assert abs(seed_net(10000).online_optimal().threshold - math.log(10000) / math.log(2)) < 5


def test_online_optimal_large_N_is_fast_enough():
    import time
    net = seed_net(10000)
    t = time.perf_counter()
    opt = net.online_optimal()
    assert time.perf_counter() - t < 15.0  # the benchmark target is 1 s (measured 0.07 s); loose for loaded CI
    assert opt.threshold == 10


# ------------------------------------------------------------------------------------------------
# sample paths and the offline optimum
# ------------------------------------------------------------------------------------------------

def test_sample_path_reproducible_and_distributed():
    net = seed_net(200)
    p1, p2 = net.sample_path(20, seed=7), net.sample_path(20, seed=7)
    assert np.array_equal(p1.times, p2.times) and np.array_equal(p1.kinds, p2.kinds)
    assert np.array_equal(p1.marks, p2.marks)
    p3 = net.sample_path(20, seed=8)
    assert not np.array_equal(p1.kinds[:100], p3.kinds[:100])
    assert np.all(np.diff(p1.times) >= 0) and p1.times[-1] <= 20 and p1.times[0] >= 0
    c = p1.counts
    tot = 200 * 2.5 * 20
    assert abs(p1.n_events - tot) < 5 * math.sqrt(tot)
    assert abs(c["H"] / p1.n_events - 0.2) < 0.02 and abs(c["L"] / p1.n_events - 0.4) < 0.02
    with pytest.raises(ValueError, match="horizon"):
        net.sample_path(0)


def _brute_force_offline(path, N, rH, rL, n0):
    arr = [i for i, k in enumerate(path.kinds) if k != 2]
    best = -1.0
    for choice in itertools.product((0, 1), repeat=len(arr)):
        dec = dict(zip(arr, choice))
        n, v = n0, 0.0
        for i, k in enumerate(path.kinds):
            if k == 2:
                if path.marks[i] * N < n:
                    n -= 1
            elif dec[i] and n < N:
                n += 1
                v += rH if k == 0 else rL
        best = max(best, v)
    return best


@pytest.mark.parametrize("seed", range(4))
def test_offline_dp_equals_brute_force(seed):
    net = OverloadedLossNetwork(3, 0.5, 1.0, 2.0, 1.0)
    path = net.sample_path(1.6, seed=seed)
    path = type(path)(**{**path.__dict__, "times": path.times[:14], "kinds": path.kinds[:14],
                         "marks": path.marks[:14]})
    for n0 in range(4):
        ref = _brute_force_offline(path, 3, 2.0, 1.0, n0)
        assert net.offline_optimal(path, n0).total_reward == ref
        assert net.offline_optimal(path, n0, method="plain").total_reward == ref


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), N=st.integers(1, 60), rH=st.floats(1.01, 5.0), rL=st.floats(0.05, 1.0))
def test_offline_shift_equals_plain_recursion(seed, N, rH, rL):
    net = OverloadedLossNetwork(N, 0.5, 1.0, rH, rL)
    path = net.sample_path(200.0 / N, seed=seed)
    for n0 in {0, N // 2, N}:
        a = net.offline_optimal(path, n0).total_reward
        b = net.offline_optimal(path, n0, method="plain").total_reward
        assert a == pytest.approx(b, rel=1e-12, abs=1e-9)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), N=st.integers(2, 40))
def test_offline_dominates_every_policy(seed, N):
    net = OverloadedLossNetwork(N, 0.5, 1.0, 2.0, 1.0)
    path = net.sample_path(60.0 / N, seed=seed)
    off = net.offline_optimal(path).total_reward
    for pol in ("online", TrunkReservation(0), SSS(net.window(2)), PFI(), WindowDP(net.window(2))):
        r = net.evaluate(pol, path)
        assert r.total_reward <= off + 1e-9
        # pathwise identity X - V = (r_H - r_L) lost_H + r_L wasted - r_L (n_T - n_0)
        X = path.control_variate(2.0, 1.0)
        assert X - r.total_reward == pytest.approx(1.0 * r.lost_H + 1.0 * r.wasted - (r.n_end - r.n0))
        assert r.accepted_H + r.lost_H == path.counts["H"]
        assert r.accepted_L + r.rejected_L == path.counts["L"]


def _ref_policy(path, N, n0, rule):
    """Pure-Python reference for SSS / PFI (written from the definitions in the docstrings)."""
    n = n0
    accH = accL = 0
    for j, k in enumerate(path.kinds):
        if k == 0:
            if n < N:
                n += 1
                accH += 1
        elif k == 2:
            if path.marks[j] * N < n:
                n -= 1
        elif n < N and rule(j, N - n - 1):
            n += 1
            accL += 1
    return accH, accL, n


def _continuation(path, N, j, idle):
    """Idle counts after each later event in the reject-all-L continuation, with event times."""
    out = []
    for i in range(j + 1, path.n_events):
        k = path.kinds[i]
        if k == 0 and idle >= 1:
            idle -= 1
        elif k == 2 and path.marks[i] * N < N - idle:
            idle += 1
        out.append((path.times[i], idle))
    return out


@pytest.mark.parametrize("N", [5, 30])
def test_sss_and_pfi_match_reference(N):
    net = OverloadedLossNetwork(N, 0.5, 1.0, 2.0, 1.0)
    path = net.sample_path(400.0 / N, seed=N)
    W = net.window(3)
    n0 = N - 2

    def sss(j, idle):
        if idle < 1:
            return False
        return all(v >= 1 for t, v in _continuation(path, N, j, idle) if t <= path.times[j] + W)

    level = math.isqrt(N)

    def pfi(j, idle):
        if idle < 1:
            return False
        if idle >= level:
            return True
        for _, v in _continuation(path, N, j, idle):
            if v < 1:
                return False
            if v >= level:
                return True
        return True

    for pol, rule in ((SSS(W), sss), (PFI(), pfi)):
        r = net.evaluate(pol, path, n0)
        assert (r.accepted_H, r.accepted_L, r.n_end) == _ref_policy(path, N, n0, rule)


def test_window_dp_matches_reference():
    """Full-state backward DP over each window, written independently from the WindowDP docstring."""
    N = 12
    net = OverloadedLossNetwork(N, 0.5, 1.0, 2.0, 1.0)
    path = net.sample_path(25.0, seed=11)
    h = net.online_bias()
    W = net.window(6)
    n0 = N - 2

    def rule(j, idle_after):
        n = N - idle_after - 1
        V = h.copy()
        idx = [i for i in range(j + 1, path.n_events) if path.times[i] <= path.times[j] + W]
        for i in reversed(idx):
            k = path.kinds[i]
            new = V.copy()
            for x in range(N + 1):
                if k == 2:
                    new[x] = V[x - 1] if path.marks[i] * N < x else V[x]
                elif x < N:
                    new[x] = max(V[x], (2.0 if k == 0 else 1.0) + V[x + 1])
            V = new
        return 1.0 + V[n + 1] >= V[n]

    r = net.evaluate(WindowDP(W), path, n0)
    assert (r.accepted_H, r.accepted_L, r.n_end) == _ref_policy(path, N, n0, rule)


def test_window_dp_limits():
    net = seed_net(50)
    path = net.sample_path(10, seed=3)
    on = net.evaluate("online", path)
    w0 = net.evaluate(WindowDP(0.0), path)
    assert (w0.accepted_L, w0.total_reward) == (on.accepted_L, on.total_reward)
    # a longer window earns more on average than the online policy here
    w = net.evaluate(WindowDP(net.window(8)), path)
    assert w.total_reward > on.total_reward


def test_path_mismatch_rejected():
    a, b = seed_net(20), seed_net(21)
    with pytest.raises(ValueError, match="N=20"):
        b.offline_optimal(a.sample_path(1, seed=0))
    with pytest.raises(TypeError, match="SamplePath"):
        a.offline_optimal([1, 2, 3])
    with pytest.raises(TypeError, match="policy"):
        a.evaluate(3, a.sample_path(1, seed=0))


# ------------------------------------------------------------------------------------------------
# job-duration contrast
# ------------------------------------------------------------------------------------------------

def _brute_interval(jobs, N, rH, rL):
    best = 0.0
    M = jobs.n_jobs
    for choice in itertools.product((0, 1), repeat=M):
        ok = True
        for i in range(M):
            active = sum(choice[j] for j in range(M)
                         if jobs.arrivals[j] <= jobs.arrivals[i] < jobs.arrivals[j] + jobs.durations[j])
            if active > N:
                ok = False
                break
        if ok:
            best = max(best, sum(c * (rH if k == 0 else rL) for c, k in zip(choice, jobs.classes)))
    return best


def test_interval_lp_small_exact():
    net = OverloadedLossNetwork(2, 0.5, 1.0, 2.0, 1.0)
    for seed in range(3):
        jobs = net.sample_jobs(3.0, seed=seed)
        if jobs.n_jobs > 12:
            continue
        res = net.offline_interval_lp(jobs)
        assert res.value == pytest.approx(_brute_interval(jobs, 2, 2.0, 1.0))
        assert res.max_fractionality < 1e-7


def test_interval_lp_beats_fluid_by_order_N():
    net = seed_net(60)
    res = net.offline_interval_lp(net.sample_jobs(30.0, seed=1))
    assert res.max_fractionality < 1e-7
    assert res.value >= res.greedy_value
    # about 1.6-1.8 per server against the fluid 1.5 (MATH.md section 4, pitfall)
    assert 0.05 < res.gain_per_server < 0.4


# ------------------------------------------------------------------------------------------------
# the decomposition
# ------------------------------------------------------------------------------------------------

def test_decomposition_consistency():
    net = seed_net(30)
    d = net.decomposition(40.0, replications=4, c=(2, 8), seed=5)
    for c in (2.0, 8.0):
        # C_vol + C_long + C_short is the simulated online regret, replication by replication
        assert d.C_vol.value + d.C_long[c].value + d.C_short[c].value == pytest.approx(d.online_sim.value)
        assert d.C_long[c].value >= 0
    assert d.C_long[8.0].value <= d.C_long[2.0].value + 1e-12 or d.C_long[8.0].half_width > 0
    # the simulated online regret agrees with the exact MDP regret
    assert abs(d.online_sim.value - d.online_regret) < 3 * d.online_sim.half_width + 0.1
    rows = d.rows()
    assert len(rows) == 2 and rows[0]["N"] == 30
    assert "<table>" in d._repr_html_() and "C_short" in d._repr_html_()
    assert d.to_dict()["N"] == 30
    # identical seeds give identical estimates
    d2 = net.decomposition(40.0, replications=4, c=(2, 8), seed=5)
    assert d2.C_vol == d.C_vol and d2.C_short == d.C_short


def test_fit_log_n_recovers_a_line():
    Ns = [10, 100, 1000, 10000]
    est = [Estimate(1.0 + 2.0 * math.log(n), 0.01, 10) for n in Ns]
    f = fit_log_n(Ns, est)
    assert f.slope == pytest.approx(2.0) and f.intercept == pytest.approx(1.0) and f.chi2 < 1e-12


def test_cli_admission(capsys):
    from symloss.cli import main
    rc = main(["admission", "--N", "40", "--lam-H", "0.5", "--lam-L", "1", "--r-H", "2", "--r-L", "1",
               "--horizon", "20", "--reps", "3", "--c", "4"])
    out = capsys.readouterr().out
    assert rc == 0
    for word in ("R_fluid", "R_off", "R_W", "R_on", "C_vol", "C_long", "C_short"):
        assert word in out
    assert main(["admission", "--N", "40", "--lam-H", "1", "--lam-L", "1", "--r-H", "2", "--r-L", "1"]) == 2
    assert main(["admission", "--N", "100000", "--lam-H", "0.5", "--lam-L", "1", "--r-H", "2", "--r-L", "1"]) == 2
    assert "max-work" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------
# claims and notebook
# ------------------------------------------------------------------------------------------------

def test_claims_prove_and_recheck():
    import copy
    from proofs_check.core import CertificateError, Status, select
    claims = {c.id: c for c in select(["seed001.*"])}
    c = claims["seed001.fluid_lp"]
    cert = c.prove()
    assert cert.status == Status.PROVED
    assert c.recheck(cert.data) == Status.PROVED
    bad = copy.deepcopy(cert.data)
    bad["instances"][0]["dual"]["y"] = "3/2"
    with pytest.raises(CertificateError):
        c.recheck(bad)


@pytest.mark.slow
def test_regret_claim_evidence():
    from proofs_check.core import Status, select
    c = {c.id: c for c in select(["seed001.*"])}["seed001.online_regret_log"]
    cert = c.prove()
    assert cert.status == Status.EVIDENCE
    assert c.recheck(cert.data) == Status.EVIDENCE


@pytest.mark.slow
def test_notebook_executes(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("matplotlib")
    path = Path(__file__).parents[2] / "notebooks" / "admission_lookahead.ipynb"
    nb = nbformat.read(path, as_version=4)
    monkeypatch.setenv("SYMLOSS_NOTEBOOK_SMALL", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
