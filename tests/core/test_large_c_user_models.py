"""Large-C user tail models (issue 23, item 2): the banded shooting start of
symloss.core.shooting_start feeds the unchanged ball Newton + Krawczyk verification of the generic
solver. Power-of-d and the docs' hybrid written with define_model are checked against the shipped
accelerator (PowerOfD, shooting), a rate edit must move the answer, and a model the shooting cannot
handle keeps the continuation start."""
from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import ctx as flint_ctx

import symloss
from symloss import RHO, define_model
from symloss.core.certify import certified_fixed_point, float_fixed_point, start_point
from symloss.core.shooting_start import banded_plan, shooting_start


def user_power(C, d, edit_k=None):
    """Power-of-d in tails u_1..u_C; ``edit_k`` makes the departure rate of level ``edit_k`` k + 1/3."""
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + u + (sp.Integer(0),)
    trs = []
    for k in range(1, C + 1):
        trs.append(({u[k - 1]: +1}, RHO * (U[k - 1] ** d - U[k] ** d)))
        rate = k + sp.Rational(1, 3) if k == edit_k else sp.Integer(k)
        trs.append(({u[k - 1]: -1}, rate * (U[k] - U[k + 1])))
    return define_model(f"user power-of-{d} C={C} edit={edit_k}", u, trs, blocking=u[-1] ** d,
                        state_kind="tail", C=C)


def hybrid(C, d, r):
    """The docs' hybrid (docs/models.md)."""
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + u + (sp.Integer(0),)
    retry = sum((u[-1] ** d) ** j for j in range(r))
    trs = []
    for k in range(1, C + 1):
        trs.append(({u[k - 1]: +1}, RHO * retry * (U[k - 1] ** d - U[k] ** d)))
        trs.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"hybrid(d={d}, r={r})", u, trs, blocking=u[-1] ** (d * r), state_kind="tail", C=C)


def _rel(a, b):
    with mpmath.workdps(60):
        return abs(mpmath.mpf(a) / mpmath.mpf(b) - 1)


LOADS = ["0.5", "0.9", "2", "50"]


@pytest.mark.parametrize("d", [2, 3])
def test_user_power_of_d_matches_the_accelerator_C20(d):
    m = user_power(20, d)
    assert banded_plan(m) is not None
    shipped = symloss.PowerOfD(20, d)
    for rho in LOADS:
        r = m.fixed_point(mpmath.mpf(rho), dps=30)
        assert r.extra["certificate"]["kind"] == "krawczyk"
        assert r.method.startswith("generic")
        assert _rel(r.blocking, shipped.blocking(mpmath.mpf(rho), dps=30)) <= mpmath.mpf(10) ** -29


@pytest.mark.parametrize("C,d", [(60, 2), (100, 2), (60, 3), (100, 3)])
def test_shooting_start_matches_the_accelerator_state(C, d):
    """The start itself at large C: y = log u to ~25 digits absolute, |y| up to 1e47."""
    m = user_power(C, d)
    prec = flint_ctx.prec
    y = shooting_start(m, mpmath.mpf("0.5"))
    assert flint_ctx.prec == prec                       # no lasting change of the flint precision
    assert y is not None and len(y) == C
    ref = symloss.PowerOfD(C, d).fixed_point(mpmath.mpf("0.5"), dps=80)
    with mpmath.workdps(400):
        err = max(abs(mpmath.mpf(v.mid().str(400, radius=False)) - mpmath.log(x)) for v, x in zip(y, ref.x))
        assert abs(mpmath.log(ref.x[-1])) > 10 ** 17      # doubly exponential: far below the float range of u
    assert err < mpmath.mpf(10) ** -25


def test_hybrid_is_banded_and_certified():
    m = hybrid(20, 2, 2)
    assert banded_plan(m) is not None
    y = start_point(m, 0.5)
    r = certified_fixed_point(m, 0.5, 30, y_start=float_fixed_point(m, 0.5))    # the continuation start
    r2 = m.fixed_point(0.5, dps=30)                                              # the shooting start
    assert isinstance(y, np.ndarray) and r2.extra["certificate"]["kind"] == "krawczyk"
    assert _rel(r2.blocking, r.blocking) <= mpmath.mpf(10) ** -29


def test_mutation_moves_the_answer_and_verifies_on_the_edit():
    C, d, rho = 20, 2, mpmath.mpf("0.9")
    base = user_power(C, d)
    edited = user_power(C, d, edit_k=7)
    assert banded_plan(edited) is not None
    b0 = base.blocking(rho, dps=30)
    r = edited.fixed_point(rho, dps=30)
    assert _rel(r.blocking, b0) > mpmath.mpf(10) ** -3
    cert = r.extra["certificate"]
    assert cert["kind"] == "krawczyk" and cert["fingerprint"] == edited.fingerprint() != base.fingerprint()
    # the same point from today's continuation start, on the edited equations
    other = certified_fixed_point(edited, rho, 30, y_start=float_fixed_point(edited, rho))
    assert _rel(r.blocking, other.blocking) <= mpmath.mpf(10) ** -29
    assert mpmath.isfinite(r.residual) and abs(r.residual) < mpmath.mpf(10) ** -25


def test_row_with_two_exponents_is_solved_by_the_ball_newton():
    """Arrivals half power-of-2, half power-of-3: each row has u_{k-1}^2 and u_{k-1}^3 (the float
    shots handle one exponent per row only; the ball shots solve the monotone row by Newton)."""
    C = 6
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + u + (sp.Integer(0),)
    trs = []
    for k in range(1, C + 1):
        trs.append(({u[k - 1]: +1}, RHO * (U[k - 1] ** 2 - U[k] ** 2 + U[k - 1] ** 3 - U[k] ** 3) / 2))
        trs.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    m = define_model("mixed power-of-2/3", u, trs, blocking=(u[-1] ** 2 + u[-1] ** 3) / 2, state_kind="tail", C=C)
    plan = banded_plan(m)
    assert plan is not None and len({a for _c, a, _o in plan["rows"][3] if a != 0}) == 2
    for rho in (0.5, 3.0):
        y = shooting_start(m, rho)
        assert y is not None
        ref = float_fixed_point(m, rho)                                    # the continuation
        assert np.max(np.abs(np.array([float(v.mid()) for v in y]) - ref)) < 1e-9 * (1 + np.max(np.abs(ref)))
        r = m.fixed_point(rho, dps=30)
        other = certified_fixed_point(m, rho, 30, y_start=ref)
        assert r.extra["certificate"]["kind"] == "krawczyk" and _rel(r.blocking, other.blocking) <= mpmath.mpf(10) ** -29


def test_not_banded_keeps_the_continuation_start():
    """A tail model whose row 1 also involves u_3 (C = 4): no shooting plan, today's start."""
    C = 4
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + u + (sp.Integer(0),)
    trs = []
    for k in range(1, C + 1):
        trs.append(({u[k - 1]: +1}, RHO * (U[k - 1] ** 2 - U[k] ** 2)))
        trs.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    trs.append(({u[0]: -1}, u[0] * u[2] / 4))            # level 1 loses jobs at a rate in u_3: not banded
    m = define_model("power-of-2 with a u3 coupling", u, trs, blocking=u[-1] ** 2, state_kind="tail", C=C)
    assert banded_plan(m) is None
    assert shooting_start(m, 1.5) is None
    y = start_point(m, 1.5)
    assert np.array_equal(y, float_fixed_point(m, 1.5))    # the continuation path, unchanged
    assert m.fixed_point(1.5, dps=20).extra["certificate"]["kind"] == "krawczyk"


def test_other_kinds_are_not_banded():
    assert banded_plan(symloss.RandomRouting(3)) is None            # occupancy, with an invariant


@pytest.mark.parametrize("rho,exc", [(-1, ValueError), (0, ValueError), ("abc", (TypeError, ValueError))])
def test_bad_input_unchanged(rho, exc):
    m = user_power(20, 2)
    with pytest.raises(exc, match="rho"):
        m.blocking(rho)
    with pytest.raises(ValueError, match="dps"):
        m.blocking(0.5, dps=2)


@pytest.mark.slow
@pytest.mark.parametrize("scaled", [True, False])
@pytest.mark.parametrize("C, d", [(60, 2), (100, 3)])
def test_user_power_of_d_certified_at_large_C(C, d, scaled, monkeypatch):
    """Certified at C = 60 and 100 both by the scaled test (symloss.core.krawczyk_scaled: box radii
    relative to the variables' sizes, a float preconditioner of the scaled Jacobian) and by the
    unscaled one it falls back to (the arb inverse where J is ill-conditioned, |J^-1| ~ d^C, the box
    shrunk and the precision raised by |J^-1|)."""
    import symloss.core.krawczyk as K
    if not scaled:
        monkeypatch.setattr(K, "_use_scaled", lambda n, ymax: False)
    m = user_power(C, d)
    fp = m.fixed_point(mpmath.mpf("0.5"), dps=30)
    assert fp.extra["certificate"]["kind"] == "krawczyk"
    assert ("scaling" in fp.extra["certificate"]) == scaled
    assert _rel(fp.blocking, symloss.PowerOfD(C, d).blocking(mpmath.mpf("0.5"), dps=30)) <= mpmath.mpf(10) ** -29
