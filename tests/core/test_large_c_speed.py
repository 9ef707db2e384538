"""Issue 23 (performance of the generic certified fixed point at large C): the pieces that make it fast
must not weaken it. The sparse ball Jacobian encloses the term table's, the Krawczyk test with the
approximate arb preconditioner still rejects a wrong box or a bad preconditioner, a certificate does
not depend on the loads solved before, and the 60-level mixture of symloss.core.unbounded gets its shooting
start (rows with two exponents: the log-sum row solver; the outer Newton bisects on an exponential
flank) instead of 20 s of ball shots."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from flint import arb

from symloss import RHO
from symloss.core.certify import certified_fixed_point, start_point
from symloss.core.krawczyk import _default_preconditioner, _krawczyk, _newton_arb
from symloss.core.precision import flint_prec
from symloss.core.shooting_start import (
    _float_rows,
    _float_shot,
    _NoRoot,
    _shoot_float,
    _solve_row_logsum,
    _solve_row_newton,
    banded_plan,
    shooting_start,
)
from symloss.core.unbounded import define_unbounded_model
from test_large_c_user_models import user_power  # the one user power-of-d of these tests


def mixture():
    a, b, c = sp.symbols("a b c")
    p = sp.Rational(3, 10)
    G = lambda x: p * x + (1 - p) * x ** 2            # noqa: E731
    return define_unbounded_model("mixture", RHO * (G(a) - G(b)), b - c, a=a, b=b, c=c)


def test_sparse_jacobian_encloses_the_term_table_jacobian():
    m = user_power(100, 2)
    comp = m.compiled
    y = start_point(m, 0.5)
    sel = list(range(comp.n))
    with flint_prec(300):
        r = arb(0.5).log()
        X = [arb(v.mid(), arb(2) ** -200) for v in y]
        vals, J, dr = comp.GJ_arb(X, r, sel)
        vals0, J0, dr0 = comp.table.jacobian_arb(list(X) + [r], rows=sel)
        assert all(J[i, j].contains(J0[i, j]) for i in range(comp.n) for j in range(comp.n))
        assert all(a.contains(b) and b.contains(a) for a, b in zip(vals, vals0))
        assert all(a.contains(b) for a, b in zip(dr, dr0))
        # the floor replaced the entries of a doubly exponential size by a small ball around 0
        coarse = [(i, j) for i in range(comp.n) for j in range(comp.n)
                  if J[i, j].mid() == 0 and J[i, j].rad() > 0]
        assert coarse and all(abs(J0[i, j]) < arb(2) ** -300 for i, j in coarse)


@pytest.mark.parametrize("C,d", [(60, 2), (40, 3)])
def test_krawczyk_with_the_approximate_preconditioner_proves_and_rejects(C, d):
    m = user_power(C, d)
    comp = m.compiled
    y = start_point(m, 0.5)
    sel = list(range(comp.n))
    prec = 700
    with flint_prec(prec):
        r = arb(0.5).log()
        mid, _step, J = _newton_arb(comp, y, r, prec, sel, with_jacobian=True)
        Y, ynorm = _default_preconditioner(J)
        assert ynorm > 1e6                                   # ill conditioned: the arb inverse
        delta = 1e-33 / ynorm
        rad = [arb(delta)] * comp.n
        ok, margin, _K, _Y = _krawczyk(comp, mid, rad, r, sel, Y)
        assert ok and margin < 1
        # the same test without a preconditioner given (verify_box's path) also proves
        assert _krawczyk(comp, mid, rad, r, sel)[0]
        # a box beside the zero is rejected
        shifted = [v + arb(10 * delta) for v in mid]
        assert not _krawczyk(comp, shifted, rad, r, sel, Y)[0]
        # a bad preconditioner (any Y is allowed, so a wrong one must make the test fail, not pass)
        assert not _krawczyk(comp, mid, rad, r, sel, Y * arb(2))[0]


def test_the_certificate_does_not_depend_on_earlier_loads():
    """No state carried from one load to the next: the certificate at 0.7 after solving other loads
    equals the one a fresh interpreter computes (equal definitions share their compiled model, so a
    second instance in this process would not be fresh)."""
    m = user_power(60, 3)
    for rho in ("0.3", "1.9", "4.5"):
        certified_fixed_point(m, mpmath.mpf(rho), 30)
    warm = certified_fixed_point(m, mpmath.mpf("0.7"), 30)
    code = ("import json, mpmath, sys; sys.path.insert(0, sys.argv[1]); "
            "from test_large_c_user_models import user_power; "
            "from symloss.core.certify import certified_fixed_point; "
            "r = certified_fixed_point(user_power(60, 3), mpmath.mpf('0.7'), 30); "
            "print(json.dumps([str(r.blocking), [str(v) for v in r.x], r.extra['certificate']], default=str))")
    out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)], capture_output=True,
                         text=True, timeout=300, check=True).stdout
    fresh = json.loads(out)
    assert fresh[0] == str(warm.blocking) and fresh[1] == [str(v) for v in warm.x]
    assert fresh[2] == json.loads(json.dumps(warm.extra["certificate"], default=str))


def test_logsum_row_solver_matches_the_bracketing_newton():
    with flint_prec(200):
        # f(s) = K + W1 e^s + W2 e^(2 s): the mixture's rows
        for K, W1, W2 in [(-1, 0.3, 0.7), (-5e-30, 2.0, 1e-5), (-3.0, 1e-40, 4.0)]:
            K, W1, W2 = arb(K), arb(W1), arb(W2)
            groups = {1: (W1, arb(0)), 2: (W2, arb(0))}
            s = _solve_row_logsum(K, groups)
            f = K + W1 * s.exp() + W2 * (2 * s).exp()
            assert abs(f.mid()) <= arb(2) ** -80 * abs(K.mid())
        # signs that do not allow the log form: refused (the bracketing Newton answers)
        groups = {1: (arb(1), arb(0)), -1: (arb(-1), arb(0))}
        assert _solve_row_logsum(arb(0.5), groups) is None
        s, _ds = _solve_row_newton(arb(0.5), arb(0), groups, False)
        assert abs((arb(0.5) + s.exp() - (-s).exp()).mid()) < 1e-20


def test_mixture_60_levels_gets_the_shooting_start():
    m = mixture()
    t = m.truncated(60, measure="mean_queue_length")
    t0 = time.perf_counter()
    y = shooting_start(t, 0.95)
    took = time.perf_counter() - t0
    assert y is not None and len(y) == 60
    assert took < 10.0                                    # 20-30 s before (300 ball shots, no root)
    v = m.certified_values("0.95", dps=30)
    for k in range(5):
        assert abs(math.exp(float(y[k].mid())) - float(v.tails[k].mid())) < 1e-12
    fp = t.fixed_point(0.95, dps=20)
    assert fp.extra["certificate"]["kind"] == "krawczyk"
    assert abs(float(fp.blocking) - float(v.mean_queue_length.mid())) < 1e-12


@pytest.mark.parametrize("C,d", [(100, 3), (20, 2)])
def test_generated_float_shot_is_the_reference_descent(C, d):
    """The straight-line float shot gives the floats of _shoot_float (same operations, same order)."""
    plan = banded_plan(user_power(C, d))
    rows, shot = _float_rows(plan), _float_shot(plan)
    compared = 0
    for v in (0.5, 3.0, 30.0, 60.0, 100.0, 108.0, 300.0):
        for lr in (math.log(0.9), math.log(50.0)):
            t = -math.exp(v)
            try:
                ref = _shoot_float(rows, plan["n"], t, lr)
            except (_NoRoot, OverflowError, ValueError, ZeroDivisionError) as exc:
                with pytest.raises(type(exc)):
                    shot(t, lr)
                continue
            assert shot(t, lr) == ref
            compared += 1
    assert compared >= 4
    assert _float_shot(banded_plan(mixture().truncated(8))) is None     # two exponents per row: ball shots


@pytest.fixture
def unscaled(monkeypatch):
    """The unscaled Krawczyk test of certified_fixed_point (arb preconditioner), which runs where the
    scaled test of symloss.core.krawczyk_scaled does not apply (tests/core/test_krawczyk_scaled.py)."""
    import symloss.core.krawczyk as K
    monkeypatch.setattr(K, "_use_scaled", lambda n, ymax: False)


def test_chord_steps_refine_with_a_good_preconditioner_and_refuse_a_bad_one():
    """The chord refinement of certified_fixed_point (Y fixed, one G per step) reaches the tolerance of
    the ball Newton from its point with the preconditioner of the Newton Jacobian, and gives up
    (None, the caller falls back to another attempt) when Y is not an approximate inverse."""
    from symloss.core.krawczyk import _chord_arb
    m = user_power(40, 2)
    comp = m.compiled
    sel = list(range(comp.n))
    y = start_point(m, 0.7)
    with flint_prec(300):
        r = arb(0.7).log()
        mid, _step, J = _newton_arb(comp, y, r, 300, sel, with_jacobian=True)
        Y, _ynorm = _default_preconditioner(J)
    with flint_prec(500):
        r = arb(0.7).log()
        ref, _s = _newton_arb(comp, mid, r, 500, sel)
        fine = _chord_arb(comp, mid, r, 500, sel, Y)
        assert fine is not None
        assert all(abs(a - b) <= arb(2) ** -440 * max(arb(1), abs(b)) for a, b in zip(fine, ref))
        G = comp.G_arb(fine, r, sel)
        assert all(abs(g.mid()) <= arb(2) ** -400 for g in G)
        assert _chord_arb(comp, mid, r, 500, sel, Y * arb(2)) is None       # |I - 2 Y J| ~ 1: no contraction


def test_the_certificate_precision_is_the_box_precision_not_a_doubling(unscaled):
    """Where the box needs more bits than the first attempt (|Y| ~ 2^C), the test runs at exactly the
    bits the box needs (base + 2 log2 |Y|) after chord steps, not at twice the first precision."""
    m = user_power(100, 2)
    r = certified_fixed_point(m, mpmath.mpf("0.7"), 30)
    cert = r.extra["certificate"]
    assert cert["kind"] == "krawczyk" and cert["prec"] < 2 * 278
    ref = __import__("symloss").PowerOfD(100, 2).blocking(mpmath.mpf("0.7"), dps=30)
    with mpmath.workdps(40):
        assert abs(r.blocking / ref - 1) < mpmath.mpf(10) ** -29


def test_pattern_floats_is_the_float_copy_of_the_sparse_jacobian():
    from symloss.core.krawczyk import _mat_floats, _pattern_floats
    for C, d in ((100, 2), (20, 3)):
        m = user_power(C, d)
        comp = m.compiled
        sel = list(range(C))
        y = start_point(m, 0.7)
        with flint_prec(300):
            X = [v if isinstance(v, arb) else arb(float(v)) for v in y]
            _g, J, _dr = comp.GJ_arb(X, arb(0.7).log(), sel)
            assert (_pattern_floats(J, comp.jacobian_pattern(sel)) == _mat_floats(J)).all()
    assert mixture().truncated(4).compiled.jacobian_pattern() is not None


def test_drift_residual_from_the_term_table_is_the_definitions_residual():
    from symloss.core.krawczyk import _drift_residual
    m = user_power(20, 3)
    r = certified_fixed_point(m, mpmath.mpf("0.8"), 30)
    x = r.x                                      # rounded to 30 digits: a residual ~1e-30
    with mpmath.workdps(45):
        ref = m.drift_residual(x, mpmath.mpf("0.8"))
        mine = _drift_residual(m, x, mpmath.mpf("0.8"), 45)
        assert ref > mpmath.mpf(10) ** -40
        assert abs(mine - ref) <= mpmath.mpf(10) ** -12 * ref
    # an edited rate moves the residual of the same point (the definition's drift, not a copy)
    edited = user_power(20, 3, edit_k=1)
    with mpmath.workdps(45):
        assert _drift_residual(edited, x, mpmath.mpf("0.8"), 45) > mpmath.mpf(10) ** -3


@pytest.mark.parametrize("rho", ["0.6", "1.5", "50"])
def test_shooting_start_takes_few_shots(rho):
    """The float Newton stops at the rounding level of the outer equation (it used to bisect back for
    ~20 float shots after a step at the rounding level left the bracket) and the ball Newton likewise
    (~10 ball shots); the bracket is confirmed by float shots first, by ball shots when that start fails."""
    import symloss.core.shooting_start as ss
    m = user_power(100, 2)
    plan = banded_plan(m)
    counts = {"float": 0, "ball": 0}
    shot = _float_shot(plan)

    def counted_float(t, r):
        counts["float"] += 1
        return shot(t, r)

    real = ss._shoot

    def counted_ball(*a, **k):
        counts["ball"] += 1
        return real(*a, **k)

    plan["float_shot"] = counted_float
    ss._shoot = counted_ball
    try:
        y = shooting_start(m, mpmath.mpf(rho))
        lr = float(mpmath.log(mpmath.mpf(rho)))
        with flint_prec(200):
            fb = ss._bracket_float(plan, lr, lambda: arb(mpmath.mpf(rho)).log(), "float")
            bb = ss._bracket_float(plan, lr, lambda: arb(mpmath.mpf(rho)).log(), "ball")
    finally:
        plan["float_shot"] = shot
        ss._shoot = real
    assert y is not None
    assert counts["float"] <= 3 * 22 and counts["ball"] <= 5 + 2       # the start, then the two brackets
    assert fb is not None and bb is not None and fb[1] == bb[1]
    assert bb[0][0].mid() <= fb[0][0].mid() <= fb[0][1].mid() <= bb[0][1].mid() or \
        fb[0][0].mid() <= bb[0][0].mid() <= bb[0][1].mid() <= fb[0][1].mid()


def _count_preconditioners(monkeypatch):
    import symloss.core.krawczyk as K
    bits = []
    real = K._default_preconditioner

    def counted(J, *a, **k):
        from flint import ctx
        bits.append(ctx.prec)
        return real(J, *a, **k)

    monkeypatch.setattr(K, "_default_preconditioner", counted)
    return bits


def test_doubly_exponential_state_needs_one_preconditioner(monkeypatch, unscaled):
    """C = 100, d = 3 (|y| ~ 3^100, cond J ~ |y|): the first attempt starts at the bits a preconditioner
    needs (one Newton, one approximate inverse; it used to compute a refused Y at the base precision,
    then a second Newton and inverse at twice that), and the answer is the accelerator's."""
    bits = _count_preconditioners(monkeypatch)
    m = user_power(100, 3)
    r = certified_fixed_point(m, mpmath.mpf("0.6"), 30)
    assert len(bits) == 1
    assert r.extra["certificate"]["kind"] == "krawczyk" and r.extra["certificate"]["prec"] < 2 * bits[0]
    ref = __import__("symloss").PowerOfD(100, 3).blocking(mpmath.mpf("0.6"), dps=30)
    with mpmath.workdps(40):
        assert abs(r.blocking / ref - 1) < mpmath.mpf(10) ** -29


def test_a_refused_preconditioner_is_recomputed_at_the_bits_it_needs(monkeypatch, unscaled):
    """When the first attempt's Y is too poor (the starting guess is forced low here), Newton goes on
    to the ``need`` bits of that Y's condition number and Y is recomputed there, inside the same attempt
    (not at a doubled precision), and the certificate is the same as with a good guess."""
    import symloss.core.krawczyk as K
    real_need = K._need_bits
    calls = []

    def low_first_guess(cond, ymax, n):
        calls.append(cond)
        return 0 if len(calls) == 1 else real_need(cond, ymax, n)   # the first call is the start's guess

    ref = certified_fixed_point(user_power(100, 3), mpmath.mpf("0.6"), 30)
    bits = _count_preconditioners(monkeypatch)
    monkeypatch.setattr(K, "_need_bits", low_first_guess)
    r = certified_fixed_point(user_power(100, 3), mpmath.mpf("0.6"), 30)
    assert len(bits) == 2 and bits[0] < bits[1] < 2 * bits[0]
    assert r.extra["certificate"]["kind"] == "krawczyk"
    assert r.blocking == ref.blocking


def test_box_strings_are_mpmath_strings_of_the_exact_bounds():
    import random

    from symloss.core.krawczyk import _str20
    from symloss.core.precision import arb_to_mpf
    rng = random.Random(7)
    for prec in (64, 400):
        with flint_prec(prec):
            for _ in range(300):
                x = arb(rng.uniform(-1, 1)) * arb(10) ** rng.randint(-300, 300)
                x = arb(x.mid(), arb(2) ** rng.randint(-prec, 0) * abs(x))
                for b in (x.lower(), x.upper(), arb(0)):
                    assert _str20(b) == mpmath.nstr(arb_to_mpf(b), 20)
