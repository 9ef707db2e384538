"""Issue 21: ``model.ode`` checks the state space (entries in [0, 1], the declared invariants, the
order of tails): a start outside it is refused before integrating, and a trajectory that leaves it
is reported ``success=False`` with the time and the coordinate where it left.

References are exact: x' = -1 from x = 1/2 reaches 0 at t = 1/2; x' = +1 reaches 1 at t = 1/2; the
wrong occupancy model's x1' = -x1 - 1/5 + rho x0 / 10 (x0 = 1 - x1) from x1 = 1/10 at rho = 1 is
x1(t) = c + (1/10 - c) e^{-11 t / 10}, c = -1/11, so x1 = -tol at t = (10/11) log((1/10 - c)/(-tol - c)).
"""
import math

import numpy as np
import pytest
import sympy as sp

from symloss import RHO, PowerOfD, RandomRouting, RetrialOfD, define_model

X = sp.Symbol("x", nonnegative=True)


def test_drift_below_zero_is_reported():
    m = define_model("leak", [X], [({X: -1}, sp.Integer(1))], blocking=X)
    r = m.ode(1, [0.5], [0, 1, 2])
    assert r.success is False
    left = r.left_state_space
    assert left["coordinate"] == "x" and left["value"] < 0
    assert abs(left["t"] - 0.5) < 1e-6
    assert "leaves the state space at t = 0.5" in r.message and "x = " in r.message
    assert r.to_dict()["left_state_space"]["coordinate"] == "x"


def test_drift_above_one_is_reported():
    m = define_model("fill", [X], [({X: 1}, sp.Integer(1))], blocking=X)
    r = m.ode(1, [0.5], [0, 2])
    assert r.success is False and r.left_state_space["coordinate"] == "x"
    assert abs(r.left_state_space["t"] - 0.5) < 1e-6 and "> 1" in r.left_state_space["constraint"]


def test_wrong_occupancy_model_pushes_a_fraction_below_zero():
    x0, x1 = sp.symbols("x0 x1", nonnegative=True)
    # wrong: completions at rate x1 + 1/5 also when no server is busy
    m = define_model("wrong", [x0, x1], [({x0: -1, x1: 1}, RHO * x0 / 10), ({x1: -1, x0: 1}, x1 + sp.Rational(1, 5))],
                     blocking=x1, invariants=[sp.Eq(x0 + x1, 1)])
    r = m.ode(1, [0.9, 0.1], [0, 5])
    assert r.success is False and r.left_state_space["coordinate"] == "x1"
    tol = r.left_state_space["tol"]                                   # reported where x1 < -tol
    c = -1 / 11
    assert abs(r.left_state_space["t"] - 10 / 11 * math.log((0.1 - c) / (-tol - c))) < 1e-7
    assert abs(r.left_state_space["t"] - 10 / 11 * math.log(21 / 10)) < 2e-6


def test_start_outside_the_state_space_is_refused():
    with pytest.raises(ValueError, match=r"x0 = \[0.5, 0.5, 0.5\] is not in the state space .*invariant x0 \+ x1 \+ x2 = 1"):
        RandomRouting(2).ode(1, [0.5, 0.5, 0.5], [0, 1])
    with pytest.raises(ValueError, match=r"x0 = \[0.2, 0.5\] .*order u1 >= u2 violated"):
        PowerOfD(2, 2).ode(1, [0.2, 0.5], [0, 1])
    with pytest.raises(ValueError, match=r"x0 must have entries in \[0, 1\], got x0 = \[1.5, -0.5, 0.0\]"):
        RandomRouting(2).ode(1, [1.5, -0.5, 0], [0, 1])


@pytest.mark.parametrize("x0", [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
def test_good_model_from_a_corner(x0):
    r = RandomRouting(2).ode(1, x0, [0, 60])
    assert r.success and r.left_state_space is None
    assert np.allclose(r.x[-1], [0.4, 0.4, 0.2], atol=1e-9)          # the Erlang distribution at rho = 1


@pytest.mark.parametrize("x0", [[1, 1], [0, 0], [1, 0]])
def test_power_of_d_from_the_corners_of_the_ordered_set(x0):
    m = PowerOfD(2, 2)
    r = m.ode(1, x0, [0, 80])
    assert r.success and r.left_state_space is None
    assert abs(r.blocking[-1] - float(m.blocking(1))) < 1e-9


def test_long_integration_stays_inside():
    r = RetrialOfD(2, 2).ode(3, [0, 0, 1], np.linspace(0, 1000, 11))
    assert r.success and r.left_state_space is None
    assert abs(r.blocking[-1] - float(RetrialOfD(2, 2).blocking(3))) < 1e-9
