"""Mutation tests (issue 12): the admission network's rates come from one definition
(symloss.admission.definition.RULES); the exact solvers follow an edit, the fast paths refuse it."""
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from symloss.admission import definition
from symloss.admission.network import OverloadedLossNetwork
from symloss.core.model import ModelDefinitionError

N, LH, LL, RH, RL = 12, Fraction(2, 5), Fraction(4, 5), 3, 1


def _rules(dep_rate=None, h_rate=None):
    out = []
    for r in definition.RULES:
        if r.cls is None and dep_rate is not None:
            r = definition.Rule(r.name, r.jump, dep_rate, None)
        if r.cls == "H" and h_rate is not None:
            r = definition.Rule(r.name, r.jump, h_rate, "H")
        out.append(r)
    return tuple(out)


class DoubledService(OverloadedLossNetwork):
    rules = _rules(dep_rate=2 * definition.n * definition.mu)


def test_shipped_rules_are_recognised():
    assert definition.is_shipped(definition.RULES)
    assert OverloadedLossNetwork(N, LH, LL, RH, RL)._rules_shipped()
    # an equal rule written differently is still the shipped definition (exact SymPy identity)
    same = _rules(dep_rate=definition.mu * definition.n + 0 * definition.N)
    assert definition.is_shipped(same)
    assert not DoubledService(N, LH, LL, RH, RL, mu=Fraction(1, 2))._rules_shipped()


@pytest.mark.parametrize("K", [0, 2, 5])
def test_doubled_service_rate_is_followed_by_the_exact_solver(K):
    edited = DoubledService(N, LH, LL, RH, RL, mu=Fraction(1, 2))        # departure rate 2 n mu = n
    ref = OverloadedLossNetwork(N, LH, LL, RH, RL, mu=1)                 # the same chain, shipped rules
    a, b = edited.trunk_reservation(K, dps=30), ref.trunk_reservation(K, dps=30)
    for f in ("reward", "regret", "lost_H_rate", "mean_idle", "p_full"):
        assert abs(getattr(a, f) - getattr(b, f)) <= mpmath.mpf(10) ** -28 * max(1, abs(getattr(b, f))), f
    assert edited.fluid_reward() == ref.fluid_reward()                   # exact Fractions
    assert abs(a.identity_residual) < mpmath.mpf(10) ** -25
    # and the shipped network at the same parameters gives another answer (the edit is not ignored)
    orig = OverloadedLossNetwork(N, LH, LL, RH, RL, mu=Fraction(1, 2)).trunk_reservation(K, dps=30)
    assert abs(orig.reward - a.reward) > 0.1


def test_fast_paths_refuse_an_edited_definition():
    edited = DoubledService(N, LH, LL, RH, RL, mu=Fraction(1, 2))
    for call in (lambda: edited.online_optimal(), lambda: edited.sample_path(1.0, seed=1),
                 lambda: edited.sample_jobs(1.0, seed=1), lambda: edited.fluid_expr(),
                 lambda: edited.trunk_reservation_expr(), lambda: edited.online_bias()):
        with pytest.raises(ModelDefinitionError, match="fast path written for the shipped rules"):
            call()


def test_inconsistent_definitions_raise():
    class NoServiceAtOne(OverloadedLossNetwork):
        rules = _rules(dep_rate=(definition.n - 1) * definition.mu)
    with pytest.raises(ValueError, match="departure rate"):
        NoServiceAtOne(N, LH, LL, RH, RL).trunk_reservation(2, dps=20)

    class Unknown(OverloadedLossNetwork):
        rules = _rules(h_rate=sp.Symbol("x") * definition.N)
    with pytest.raises(ModelDefinitionError, match="unknown symbols"):
        Unknown(N, LH, LL, RH, RL).trunk_reservation(2, dps=20)

    class NotOverloaded(OverloadedLossNetwork):
        rules = _rules(dep_rate=10 * definition.n * definition.mu)        # capacity 10 N mu > all arrivals
    with pytest.raises(ValueError, match="not overloaded"):
        NotOverloaded(N, LH, LL, RH, RL).fluid_reward()
