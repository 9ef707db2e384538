"""The two-queue family in the one fast-path registry: the numba stencil of the Yao-Knessl model binds
only to the rule table it implements (exact identity), its answer is verified on the model's balance
equations, and an edited rate gets the generic answer (mutation test)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from symloss import TwoQueueJSQ
from symloss.core import registry as reg
from symloss.core.precision import PrecisionError
from symloss.twoqueue import definition as D
from symloss.twoqueue.float_solve import STENCIL


class SlowSecond(TwoQueueJSQ):
    """One rate edited: the second station serves at rate 1/2 per busy server."""
    rules = tuple(D.Rule(r.jump, r.rate / 2 if r.jump == (0, -1) else r.rate, r.when, r.label) for r in D.RULES)


class SameRulesWrittenDifferently(TwoQueueJSQ):
    """The shipped table with a rate written as another identical expression (still the stencil's)."""
    rules = tuple(D.Rule(r.jump, (2 * r.rate + D.m - D.m) / 2, r.when, r.label) for r in D.RULES)


@pytest.fixture()
def spy(monkeypatch):
    calls = []
    orig = STENCIL.solve
    monkeypatch.setattr(STENCIL, "solve", lambda model, tol, maxiter: calls.append(model) or orig(model, tol, maxiter))
    return calls


def test_registered_and_bound_by_identity():
    assert reg.fast_path_for("twoqueue", TwoQueueJSQ(3, 2)) is STENCIL
    assert reg.fast_path_for("twoqueue", SlowSecond(3, 2)) is STENCIL          # found on the parent class
    assert STENCIL.applies(TwoQueueJSQ(3, 2))[0]
    assert STENCIL.applies(SameRulesWrittenDifferently(3, 2))[0]
    ok, why = STENCIL.applies(SlowSecond(3, 2))
    assert not ok and "rule table differs" in why


def test_unedited_model_uses_the_stencil(spy):
    m = TwoQueueJSQ(6, 5)
    res = m.stationary_distribution()
    assert spy == [m]
    assert m.residual(res.p) < 1e-12
    # independent value: the generic sparse LU on the generator generated from the rules
    assert np.max(np.abs(res.p - m.generic_solve())) < 1e-12


def test_mutation_edited_rate_gets_the_generic_answer(spy):
    m = SlowSecond(6, 5)
    res = m.stationary_distribution()
    assert spy == []                                          # the stencil did not answer
    ref = m.generic_solve()                                   # independent: one sparse LU of the edited chain
    assert np.max(np.abs(res.p - ref)) < 1e-10
    assert np.max(np.abs(res.p - TwoQueueJSQ(6, 5).generic_solve())) > 1e-3      # not the stencil's numbers


def test_a_wrong_stencil_answer_is_not_returned(monkeypatch):
    """Mutation test of the check: a stencil answer off the balance equations raises, it is never returned."""
    orig = STENCIL.solve

    def broken(model, tol, maxiter):
        res = orig(model, tol, maxiter)
        p = res.p.copy()
        p[0, 1] *= 1.01
        return dataclasses.replace(res, p=p)
    monkeypatch.setattr(STENCIL, "solve", broken)
    with pytest.raises(PrecisionError, match="residual on the model's balance equations"):
        TwoQueueJSQ(6, 5).stationary_distribution()
