"""The admission family in the one fast-path registry: the hand-written solvers bind to the shipped
rule table only (exact identity), the online optimum is verified on the chains generated from the
rules, and an edited rate is refused (mutation test)."""
from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from symloss.admission import definition
from symloss.admission.fast_path import ONLINE_MDP
from symloss.admission.network import OverloadedLossNetwork
from symloss.core import registry as reg
from symloss.core.model import ModelDefinitionError
from symloss.core.precision import PrecisionError

ARGS = (12, Fraction(2, 5), Fraction(4, 5), 3, 1)


class SlowerService(OverloadedLossNetwork):
    """One rate edited: departures at n mu / 2."""
    rules = tuple(definition.Rule(r.name, r.jump, r.rate / 2 if r.cls is None else r.rate, r.cls)
                  for r in definition.RULES)


@pytest.fixture()
def spy(monkeypatch):
    calls = []
    orig = ONLINE_MDP.solve
    monkeypatch.setattr(ONLINE_MDP, "solve", lambda net, dps: calls.append(net) or orig(net, dps))
    return calls


def test_registered_and_bound_by_identity():
    assert reg.fast_path_for("admission", SlowerService(*ARGS)) is ONLINE_MDP
    assert ONLINE_MDP.applies(OverloadedLossNetwork(*ARGS))[0]
    assert not ONLINE_MDP.applies(SlowerService(*ARGS))[0]


def test_unedited_network_uses_the_fast_path(spy):
    net = OverloadedLossNetwork(*ARGS)
    opt = net.online_optimal(dps=20)
    assert spy == [net]
    # independent: the best trunk reservation of the chains generated from the rules
    best = max(range(net.N + 1), key=lambda K: net.trunk_reservation(K, dps=20).reward)
    assert opt.threshold == best


def test_mutation_edited_rate_is_refused(spy):
    with pytest.raises(ModelDefinitionError, match="fast path written for the shipped rules"):
        SlowerService(*ARGS).online_optimal(dps=20)
    assert spy == []


def test_a_wrong_online_answer_is_not_returned(monkeypatch):
    """Mutation test of the check: a threshold that is not locally optimal on the generated chains raises."""
    orig = ONLINE_MDP.solve

    def broken(net, dps):
        res, bias = orig(net, dps)
        K = res.threshold + 3
        tr = net.trunk_reservation(K, dps=dps)
        return dataclasses.replace(res, threshold=K, reward=tr.reward), bias
    monkeypatch.setattr(ONLINE_MDP, "solve", broken)
    with pytest.raises(PrecisionError, match="exceeds the returned one"):
        OverloadedLossNetwork(*ARGS).online_optimal(dps=20)
