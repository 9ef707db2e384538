"""The supermarket family in the one fast-path registry: the closed form binds to the shipped drift
only (exact identity), is verified on the definition's own drift, and an edited rate gets the
definition's own fixed point (mutation test)."""
from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from symloss import Supermarket
from symloss.core import registry as reg
from symloss.core.certify import DefinitionMismatchWarning
from symloss.supermarket.closed_form import CLOSED_FORM


class HalfArrivals(Supermarket):
    """One rate edited: arrivals at lam / 2 (closed form with lam' = lam / 2)."""

    def drift(self, K=None, *, symbolic_parameters=False):
        K = self.K if K is None else K
        s = (sp.Integer(1),) + tuple(self.symbols(K)) + (sp.Integer(0),)
        lam = sp.nsimplify(self.lam) / 2
        return sp.Matrix([lam * (s[k - 1] ** self.d - s[k] ** self.d) - (s[k] - s[k + 1]) for k in range(1, K + 1)])


class SameDrift(Supermarket):
    """A subclass that does not change the definition."""


@pytest.fixture()
def spy(monkeypatch):
    calls = []
    orig = CLOSED_FORM.solve
    monkeypatch.setattr(CLOSED_FORM, "solve", lambda m, *a: calls.append(m) or orig(m, *a))
    return calls


def test_registered_and_bound_by_identity():
    assert reg.fast_path_for("supermarket", HalfArrivals(2, 0.5)) is CLOSED_FORM
    assert CLOSED_FORM.applies(Supermarket(2, 0.5))[0]
    assert CLOSED_FORM.applies(SameDrift(2, 0.5))[0]
    assert not CLOSED_FORM.applies(HalfArrivals(2, 0.5))[0]


def test_unedited_model_uses_the_closed_form(spy):
    m = SameDrift(2, 0.5)
    fp = m.fixed_point(20)
    assert spy == [m] and fp.symbolic_check is True
    with mpmath.workdps(30):
        assert abs(fp.s[2] - mpmath.mpf("0.5") ** 3) < mpmath.mpf(10) ** -19


def test_mutation_edited_rate_gets_the_definitions_fixed_point(spy):
    with pytest.warns(DefinitionMismatchWarning, match="differs from the equations of the closed form"):
        fp = HalfArrivals(2, 0.5).fixed_point(15)
    assert spy == [] and fp.symbolic_check is False
    with mpmath.workdps(30):                  # independent: the closed form at lam / 2
        for k in range(1, 4):
            assert abs(fp.s[k] - mpmath.mpf("0.25") ** (2 ** k - 1)) < mpmath.mpf(10) ** -14 * fp.s[k]


def test_a_wrong_closed_form_is_not_returned(monkeypatch):
    """Mutation test of the check: a closed form off the definition's drift is refused."""
    orig = CLOSED_FORM.solve

    def broken(m, *a):
        ans = orig(m, *a)
        ans["s"] = [ans["s"][0], ans["s"][1] * (1 + mpmath.mpf(10) ** -10)] + ans["s"][2:]
        return ans
    monkeypatch.setattr(CLOSED_FORM, "solve", broken)
    with pytest.warns(DefinitionMismatchWarning, match="is not solved by the closed form"):
        fp = Supermarket(2, 0.5).fixed_point(15)
    with mpmath.workdps(30):
        assert abs(fp.s[1] - mpmath.mpf("0.5")) < mpmath.mpf(10) ** -14
