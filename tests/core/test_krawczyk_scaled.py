"""The scaled Krawczyk test of the generic certified fixed point (symloss.core.krawczyk_scaled, issue 23
item 2): box radii relative to the variables' sizes, a float64 preconditioner of the row- and
column-scaled Jacobian, magnitudes bounded in float64 with a priori rounding errors.

Checked here: its answers are the shipped accelerator's and the unscaled test's; the float bound
encloses the exact ball computation (random matrices over a wide range of sizes, subnormal and zero
entries included); it rejects a box beside the zero and a bad preconditioner; a rate edit moves the
answer; where it does not apply the unscaled test answers the same."""
from __future__ import annotations

import mpmath
import numpy as np
import pytest
from flint import arb, arb_mat

import symloss
import symloss.core.krawczyk as K
import symloss.core.krawczyk_scaled as KS
from symloss.core.certify import certified_fixed_point, start_point
from symloss.core.precision import flint_prec
from test_large_c_user_models import user_power


def _rel(a, b):
    with mpmath.workdps(60):
        return abs(mpmath.mpf(a) / mpmath.mpf(b) - 1)


@pytest.mark.parametrize("C, d", [(60, 2), (100, 2), (100, 3)])
def test_scaled_answers_are_the_accelerators(C, d):
    m = user_power(C, d)
    shipped = symloss.PowerOfD(C, d)
    for rho in ("0.05", "0.7", "3", "40", "99", "250"):
        r = certified_fixed_point(m, mpmath.mpf(rho), 30)
        cert = r.extra["certificate"]
        assert "scaling" in cert and cert["margin"] < 1 and cert["delta"].startswith("2^-")
        ref = shipped.blocking(mpmath.mpf(rho), dps=40)
        assert _rel(r.blocking, ref) <= mpmath.mpf(10) ** -29
        lo, hi = r.blocking_bracket
        assert lo <= ref <= hi


def test_scaled_and_unscaled_give_the_same_digits(monkeypatch):
    m = user_power(60, 3)
    scaled = [certified_fixed_point(m, mpmath.mpf(rho), 30) for rho in ("0.4", "2")]
    monkeypatch.setattr(K, "_use_scaled", lambda n, ymax: False)
    plain = [certified_fixed_point(m, mpmath.mpf(rho), 30) for rho in ("0.4", "2")]
    for a, b in zip(scaled, plain):
        assert "scaling" in a.extra["certificate"] and "scaling" not in b.extra["certificate"]
        assert a.blocking == b.blocking and a.x == b.x
        assert a.blocking_bracket[0] <= b.blocking_bracket[1] and b.blocking_bracket[0] <= a.blocking_bracket[1]


def _exact_bound(Yf, S, R, h0):
    """|Y' H(0)| + |I - Y' H'| 1 for the worst H' in the interval matrix [S +/- R] and |H(0)| = h0,
    in ball arithmetic at 3000 bits on the exact float inputs (every product and sum exact up to
    2^-2900 relative): sup |(I - Y' H')_ij| = |(I - Y' S)_ij| + (|Y'| R)_ij, each H'_kj free in its
    interval. The quantity contraction_bound must bound from above, and closely."""
    n = Yf.shape[0]
    with flint_prec(3000):
        Y = arb_mat([[arb(float(v)) for v in row] for row in Yf])
        aY = arb_mat([[arb(abs(float(v))) for v in row] for row in Yf])
        Sm = arb_mat([[arb(float(v)) for v in row] for row in S])
        Rm = arb_mat([[arb(float(v)) for v in row] for row in R])
        I = arb_mat(n, n)
        for i in range(n):
            I[i, i] = 1
        C, W = I - Y * Sm, aY * Rm
        h = arb_mat([[arb(float(v))] for v in h0])
        q = aY * h
        return np.array([float((sum((abs(C[i, j]) + W[i, j] for j in range(n)), arb(0)) + q[i, 0]).upper())
                         for i in range(n)])


@pytest.mark.parametrize("seed", range(6))
def test_float_bound_encloses_the_ball_computation(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 30))
    # a scaled Jacobian, lower bidiagonal-dominant like the tails' (entries of order 1, some tiny,
    # some zero, some subnormal), its float inverse, and radii from 0 to 1e-3
    S = np.diag(-1.0 - rng.random(n)) + np.diag(1.0 + rng.random(n - 1), -1)
    S += np.where(rng.random((n, n)) < 0.2, rng.standard_normal((n, n)) * 10.0 ** rng.integers(-320, 0, (n, n)), 0.0)
    Yf = np.linalg.inv(S)
    Yf += rng.standard_normal((n, n)) * 1e-9            # any finite Y' is a valid preconditioner
    R = np.abs(rng.standard_normal((n, n))) * 10.0 ** rng.integers(-300, -3, (n, n))
    h0 = np.abs(rng.standard_normal(n)) * 10.0 ** rng.integers(-300, -1, n)
    got = KS.contraction_bound(Yf, S, R, h0)
    exact = _exact_bound(Yf, S, R, h0)
    assert np.all(got >= exact)
    assert np.all(got <= exact * (1 + 1e-6) + 1e-10)      # and not a loose bound


def _setup(m, rho):
    comp = m.compiled
    sel = list(range(comp.n))
    pattern = comp.jacobian_pattern(sel)
    y = start_point(m, rho)
    ymax = max(abs(float(v.mid())) for v in y)
    cols = [KS._log2_ceil(1.0 + abs(float(v.mid()))) for v in y]
    with flint_prec(400):
        r = arb(mpmath.nstr(mpmath.mpf(rho), 20)).log()
        rows, Jf = KS._scalings(comp, y, r, sel, pattern, cols)
        Yf = KS._float_preconditioner(Jf)
        b = 230
        mid = KS._chord(comp, y, r, sel, Yf, rows, cols, b)
    return comp, sel, pattern, ymax, cols, rows, Yf, b, mid, r


def test_the_scaled_test_proves_and_rejects():
    m = user_power(100, 2)
    comp, sel, pattern, ymax, cols, rows, Yf, b, mid, r = _setup(m, 0.7)
    mat_prec = 64 + KS._log2_ceil(1 + ymax) + 14
    with flint_prec(400):
        ok, margin = KS._test(comp, mid, r, sel, pattern, Yf, rows, cols, b, mat_prec)
        assert ok and margin < 1e-3
        # a box beside the zero: the midpoint moved by 4 radii in the top variable (the blocking's)
        moved = list(mid)
        moved[-1] = mid[-1] + arb(2) ** (cols[-1] - b + 2)
        assert not KS._test(comp, moved, r, sel, pattern, Yf, rows, cols, b, mat_prec)[0]
        # ... and in the first variable
        moved = list(mid)
        moved[0] = mid[0] + arb(2) ** (cols[0] - b + 2)
        assert not KS._test(comp, moved, r, sel, pattern, Yf, rows, cols, b, mat_prec)[0]
        # a bad preconditioner: |I - 2 Y' J'| ~ 1
        assert not KS._test(comp, mid, r, sel, pattern, 2 * Yf, rows, cols, b, mat_prec)[0]
        # a box far smaller than the midpoint's accuracy (the chord stopped at a step of 2^-(b + 20))
        assert not KS._test(comp, mid, r, sel, pattern, Yf, rows, cols, b + 120, mat_prec)[0]


def test_chord_refuses_a_preconditioner_that_does_not_contract():
    m = user_power(60, 2)
    comp, sel, pattern, ymax, cols, rows, Yf, b, mid, r = _setup(m, 0.7)
    assert mid is not None
    with flint_prec(400):
        assert KS._chord(comp, start_point(m, 0.7), r, sel, -Yf, rows, cols, b) is None


def test_a_rate_edit_moves_the_scaled_answer(monkeypatch):
    """Mutation: the departure rate of level 1 edited to 4/3; the scaled path certifies the edited
    definition (the unscaled test gives the same digits) and the answer moves."""
    m, e = user_power(60, 2), user_power(60, 2, edit_k=1)
    a = certified_fixed_point(m, mpmath.mpf("0.8"), 30)
    b = certified_fixed_point(e, mpmath.mpf("0.8"), 30)
    assert "scaling" in b.extra["certificate"]
    assert _rel(a.blocking, b.blocking) > mpmath.mpf(10) ** -3
    assert b.extra["certificate"]["fingerprint"] == e.fingerprint() != m.fingerprint()
    monkeypatch.setattr(K, "_use_scaled", lambda n, ymax: False)
    assert certified_fixed_point(e, mpmath.mpf("0.8"), 30).blocking == b.blocking


@pytest.mark.parametrize("where", ["cond", "coarse"])
def test_falls_back_where_the_scaled_path_does_not_apply(monkeypatch, where):
    m = user_power(60, 3)
    ref = certified_fixed_point(m, mpmath.mpf("0.9"), 30)
    if where == "cond":
        monkeypatch.setattr(KS, "_COND_MAX", 0.0)            # every scaled preconditioner refused
    else:
        monkeypatch.setattr(K, "coarse_start", lambda *a: None)   # no coarse start: the refined one
    r = certified_fixed_point(m, mpmath.mpf("0.9"), 30)
    assert ("scaling" in r.extra["certificate"]) == (where == "coarse")
    assert r.blocking == ref.blocking


def test_high_precision_beyond_the_float_range():
    """dps = 400: the residuals and steps lie below 1e-308; the common power of two keeps their float
    copies in range."""
    m = user_power(60, 2)
    r = certified_fixed_point(m, mpmath.mpf("0.6"), 400)
    assert "scaling" in r.extra["certificate"]
    ref = symloss.PowerOfD(60, 2).blocking(mpmath.mpf("0.6"), dps=410)
    with mpmath.workdps(420):
        assert abs(r.blocking / ref - 1) <= mpmath.mpf(10) ** -399


def test_which_models_take_the_scaled_test():
    """Below 41 variables and with moderate log states (|y| < 2^16) the certificate is the unscaled one;
    a doubly exponential tail (power-of-2 at C = 20: |y| ~ 4e5) takes the scaled one."""
    r = certified_fixed_point(user_power(10, 2), mpmath.mpf("0.7"), 30)
    assert "scaling" not in r.extra["certificate"]
    r = certified_fixed_point(user_power(20, 2), mpmath.mpf("0.7"), 30)
    assert "scaling" in r.extra["certificate"]
