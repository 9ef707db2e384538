"""Mutation tests (issue 12): Supermarket.fixed_point follows an edited drift() or raises."""
import warnings

import mpmath
import pytest
import sympy as sp

from symloss import Supermarket
from symloss.core.certify import DefinitionMismatchWarning
from symloss.core.precision import PrecisionError


class DoubledService(Supermarket):
    """Service rate 2: the edited closed form is s_k = (lam/2)^((d^k-1)/(d-1))."""

    def drift(self, K=None, *, symbolic_parameters=False):
        base = Supermarket.drift(self, K, symbolic_parameters=symbolic_parameters)
        K = self.K if K is None else K
        s = (sp.Integer(1),) + tuple(self.symbols(K)) + (sp.Integer(0),)
        # lam(...) - (s_k - s_{k+1})  ->  lam(...) - 2 (s_k - s_{k+1})
        return sp.Matrix([base[k - 1] - (s[k] - s[k + 1]) for k in range(1, K + 1)])


class ScaledArrival(Supermarket):
    """Arrival rate lam * factor: closed form with lam' = lam * factor (stable iff lam' < 1)."""
    factor = sp.Rational(1, 2)

    def drift(self, K=None, *, symbolic_parameters=False):
        K = self.K if K is None else K
        s = (sp.Integer(1),) + tuple(self.symbols(K)) + (sp.Integer(0),)
        lam = sp.nsimplify(self.lam) * self.factor
        return sp.Matrix([lam * (s[k - 1] ** self.d - s[k] ** self.d) - (s[k] - s[k + 1])
                          for k in range(1, K + 1)])


class Inconsistent(Supermarket):
    """Arrivals only, no service: the drift has no tail fixed point."""

    def drift(self, K=None, *, symbolic_parameters=False):
        K = self.K if K is None else K
        s = (sp.Integer(1),) + tuple(self.symbols(K)) + (sp.Integer(0),)
        return sp.Matrix([sp.Rational(7, 10) * (s[k - 1] ** self.d - s[k] ** self.d) + s[k] * 0 + 1
                          for k in range(1, K + 1)])


def _closed(lam, d, K):
    return [mpmath.mpf(lam) ** ((d ** k - 1) // (d - 1) if d > 1 else k) for k in range(K + 1)]


def test_shipped_model_takes_the_checked_fast_path():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DefinitionMismatchWarning)
        fp = Supermarket(2, "7/10").fixed_point(30)
    assert fp.symbolic_check is True and fp.method.startswith("closed form")


@pytest.mark.parametrize("d", [2, 3])
def test_doubled_service_rate_gets_the_edited_fixed_point(d):
    with pytest.warns(DefinitionMismatchWarning):
        fp = DoubledService(d, "7/10").fixed_point(30)
    assert fp.symbolic_check is False
    with mpmath.workdps(40):
        edited = _closed(mpmath.mpf(7) / 20, d, fp.K)
        shipped = _closed(mpmath.mpf(7) / 10, d, fp.K)
        for k in range(1, fp.K + 1):
            assert abs(fp.s[k] - edited[k]) <= mpmath.mpf(10) ** -28 * edited[k], k
        assert abs(fp.s[1] - shipped[1]) > 0.1


def test_changed_arrival_rate_gets_the_edited_fixed_point():
    with pytest.warns(DefinitionMismatchWarning):
        fp = ScaledArrival(2, "9/10").fixed_point(25)
    with mpmath.workdps(40):
        edited = _closed(mpmath.mpf(9) / 20, 2, fp.K)
        for k in range(1, fp.K + 1):
            assert abs(fp.s[k] - edited[k]) <= mpmath.mpf(10) ** -23 * edited[k]
        assert mpmath.almosteq(fp.mean_queue_length, mpmath.fsum(edited[1:]), 1e-20)


def test_inconsistent_drift_raises():
    with pytest.warns(DefinitionMismatchWarning), pytest.raises(PrecisionError):
        Inconsistent(2, "7/10").fixed_point(20)


def test_unstable_edit_raises():
    class Unstable(ScaledArrival):
        factor = sp.Rational(2)        # lam' = 1.4 > 1: no stationary tail vector
    with pytest.warns(DefinitionMismatchWarning), pytest.raises(PrecisionError):
        Unstable(2, "7/10").fixed_point(20)


def test_doubled_service_d1_too_many_levels_raises_not_old_value():
    from symloss.core.validation import BudgetError
    with pytest.warns(DefinitionMismatchWarning), pytest.raises(BudgetError):
        DoubledService(1, "7/10").fixed_point(30)



def test_derived_quantities_follow_an_edited_drift():
    # the closed-form shortcuts (E[Q], delay probability) must not keep the shipped values
    m = ScaledArrival(2, "9/10")                     # lam' = 9/20
    ref = Supermarket(2, "9/20")
    with pytest.warns(DefinitionMismatchWarning):
        q = m.mean_queue_length(25)
    assert abs(q / ref.mean_queue_length(25) - 1) < mpmath.mpf(10) ** -20
    with pytest.warns(DefinitionMismatchWarning):
        p = m.delay_probability(25)
    assert abs(p / ref.delay_probability(25) - 1) < mpmath.mpf(10) ** -20
    assert abs(Supermarket(2, "9/10").mean_queue_length(25) - q) > 0.1   # the shipped value differs


def test_fixed_point_claim_is_checked_on_the_definition(monkeypatch):
    # the claim seed002.fixed_point proves the closed form for the equations of Supermarket.drift: an
    # edited drift makes the stored certificate fail its re-check and the search not PROVED
    import proofs_check.claims.seed002_supermarket as claim
    from proofs_check.core import CertificateError, Status
    cert = claim._prove()
    assert cert.status == Status.PROVED and claim._recheck(cert.data) == Status.PROVED
    orig = Supermarket.drift

    def edited(self, K=None, *, symbolic_parameters=False):
        rows = orig(self, K, symbolic_parameters=symbolic_parameters)
        K = rows.shape[0]
        s = (sp.Integer(1),) + tuple(self.symbols(K)) + (sp.Integer(0),)
        return sp.Matrix([rows[k - 1] - (s[k] - s[k + 1]) for k in range(1, K + 1)])   # doubled service
    monkeypatch.setattr(Supermarket, "drift", edited)
    with pytest.raises(CertificateError):
        claim._recheck(cert.data)
    assert claim._prove().status != Status.PROVED
