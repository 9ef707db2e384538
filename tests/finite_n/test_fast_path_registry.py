"""The finite-N family in the one fast-path registry: the server-level numba kernel of the shipped
policies binds to a subject ``(model, N, sampling)`` only when the definition's finite-N chain is the
kernel's (exact identity), its answer is checked against martingale identities of the definition's
chain, and an edited rate gets the count-level kernel generated from the definition (mutation test)."""
from __future__ import annotations

import dataclasses
import warnings

import pytest

from symloss import DefinitionMismatchWarning, PowerOfD, RetrialOfD, exact_finite_n, simulate
from symloss.core import registry as reg
from symloss.finite_n.sim_server import SERVER_KERNEL


class DoubleService(RetrialOfD):
    """Retrial-of-d with every service at rate 2 (one kind of rate edited)."""

    def transitions(self):
        return [(jump, 2 * rate if sum(k * int(v) for k, v in enumerate(jump)) < 0 else rate)
                for jump, rate in super().transitions()]


def test_registered_for_the_shipped_classes_and_bound_on_the_chain():
    s = (PowerOfD(2, 2), 10, "with_replacement")
    assert reg.fast_path_for("finite_n", s) is SERVER_KERNEL
    assert SERVER_KERNEL.applies(s)[0]
    assert SERVER_KERNEL.applies((RetrialOfD(2, 2), 10, "without_replacement"))[0]
    ok, why = SERVER_KERNEL.applies((DoubleService(2, 2), 10, "with_replacement"))
    assert not ok and "transitions differ" in why
    # the binding is keyed on the chain at (N, sampling), never on the class name
    assert SERVER_KERNEL.binding_key(s) != SERVER_KERNEL.binding_key((PowerOfD(2, 2), 11, "with_replacement"))


def test_unedited_model_uses_the_kernel_and_the_answer_is_checked():
    r = simulate(RetrialOfD(2, 2), N=20, rho=1.2, events=40_000, seed=3)
    assert r.kernel == "server"
    ok, why = SERVER_KERNEL.verify((RetrialOfD(2, 2), 20, "with_replacement"), r)
    assert ok, why


def test_mutation_edited_rate_gets_the_count_kernel():
    N, C, d, rho = 8, 2, 2, 2.4
    with pytest.warns(DefinitionMismatchWarning, match="server-level kernel"):
        r = simulate(DoubleService(C, d), N=N, rho=rho, events=100_000, replications=4, seed=5)
    assert r.kernel == "count"
    # independent value: the exact finite-N chain (doubling every service rate halves the load)
    ref = exact_finite_n(RetrialOfD(C, d), N, rho / 2).blocking
    assert abs(r.blocking - ref) <= 5 * r.std_error + 1e-3
    assert abs(r.blocking - exact_finite_n(RetrialOfD(C, d), N, rho).blocking) > 10 * r.std_error


def test_a_wrong_kernel_answer_is_not_returned(monkeypatch):
    """Mutation test of the check: a kernel that loses twice as often as the definition says is caught."""
    orig = SERVER_KERNEL.solve

    def broken(subject, *args, **kwargs):
        res = orig(subject, *args, **kwargs)
        return dataclasses.replace(res, lost_fraction=2 * res.lost_fraction)
    monkeypatch.setattr(SERVER_KERNEL, "solve", broken)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.warns(DefinitionMismatchWarning, match="lost arrivals"):
            r = simulate(PowerOfD(2, 2), N=20, rho=1.5, events=40_000, seed=2)
    assert r.kernel == "count"
