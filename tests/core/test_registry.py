"""The one fast-path registry (symloss.core.registry): protocol, exact same-system check, binding cache
keyed on the definition, and the dispatch flow (bind, solve, verify, else the generic solver)."""
from __future__ import annotations

import warnings
from fractions import Fraction

import pytest
import sympy as sp

import symloss
from symloss import PowerOfD, RetrialOfD
from symloss.core import registry as reg
from symloss.core.identity import ClearsCachesOnAssignment

x, y = sp.symbols("x y")


@pytest.mark.parametrize("a,b,same", [
    ((x + 1) ** 2, x ** 2 + 2 * x + 1, True),
    (x / (1 - x), -x / (x - 1), True),
    (1 / (1 - x) - 1, x / (1 - x), True),
    (sp.Float(0.1) * x, x / 10, False),                       # a float is its binary value
    (sp.Float(0.5) * x, x / 2, True),
    (0.1, Fraction(1, 10), False),
    (0.5, Fraction(1, 2), True),
    (sp.Rational(1, 3), Fraction(1, 3), True),
    (True, 1, False),
    ([x, y], [x, y], True),
    ([x, y], [x], False),
    ({"a": x}, {"a": x + 0}, True),
    ({"a": x}, {"b": x}, False),
    (sp.Matrix([x, y]), sp.Matrix([x, y + 0 * x]), True),
    (sp.Matrix([x, y]), sp.Matrix([[x, y]]), False),
    (sp.exp(x) * sp.exp(y), sp.exp(x + y), True),
])
def test_same_system(a, b, same):
    assert reg.same_system(a, b) is same
    assert reg.same_system(b, a) is same


def test_same_system_on_definitions():
    assert reg.same_system(PowerOfD(2, 2), PowerOfD(2, 2))
    assert not reg.same_system(PowerOfD(2, 2), PowerOfD(2, 3))
    assert not reg.same_system(PowerOfD(3, 2), RetrialOfD(3, 2))


class _Subject(ClearsCachesOnAssignment):
    def __init__(self, rate):
        self.rate = rate


class _Base:
    pass


class _Toy(_Subject, _Base):
    pass


class _FastSquare:
    """Answers rate**2 for subjects whose rate is an integer; its check recomputes from the definition."""
    name = "square"

    def __init__(self):
        self.applies_calls = 0
        self.wrong = False

    def applies(self, s):
        self.applies_calls += 1
        return (isinstance(s.rate, int), "integer rate" if isinstance(s.rate, int) else "not an integer")

    def solve(self, s, k):
        return s.rate ** 2 + (1 if self.wrong else 0) + 0 * k

    def verify(self, s, answer, k):
        return (answer == s.rate * s.rate, "recomputed from the definition")

    def warn_on_mismatch(self, s):
        return True


@pytest.fixture()
def toy_family():
    reg.declare_family("toy_test", _Base)
    fp = _FastSquare()
    reg.register_fast_path("toy_test", _Toy, fp)
    yield fp
    reg._REGISTRY.pop("toy_test", None)
    reg.FAMILIES.pop("toy_test", None)
    reg.clear_bindings(fp)


def _generic(s, k):
    return ("generic", s.rate * s.rate)


def test_dispatch_binds_solves_verifies(toy_family):
    ans, used = reg.dispatch("toy_test", _Toy(3), _generic, args=(0,))
    assert (ans, used) == (9, toy_family)
    # cached on the definition (the complete state): a second equal subject does not re-check
    n = toy_family.applies_calls
    reg.dispatch("toy_test", _Toy(3), _generic, args=(0,))
    assert toy_family.applies_calls == n
    # a different definition is checked again, and refused -> generic, with a warning
    with pytest.warns(UserWarning, match="differs from the equations the square fast path assumes"):
        ans, used = reg.dispatch("toy_test", _Toy(3.0), _generic, args=(0,))
    assert ans == ("generic", 9.0) and used is None


def test_dispatch_mutation_a_wrong_fast_path_is_caught(toy_family):
    """Mutation test: a fast path that answers wrongly is not believed."""
    toy_family.wrong = True
    with pytest.warns(UserWarning, match="does not satisfy the definition's own equations"):
        ans, used = reg.dispatch("toy_test", _Toy(4), _generic, args=(0,))
    assert ans == ("generic", 16) and used is None


def test_assignment_changes_the_binding(toy_family):
    s = _Toy(2)
    assert reg.dispatch("toy_test", s, _generic, args=(0,))[1] is toy_family
    s.rate = 2.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert reg.dispatch("toy_test", s, _generic, args=(0,)) == (("generic", 6.25), None)


def test_registration_is_checked(toy_family):
    with pytest.raises(TypeError, match="subject_type must be a _Base subclass"):
        reg.register_fast_path("toy_test", int, toy_family)
    with pytest.raises(TypeError, match="lacks"):
        reg.register_fast_path("toy_test", _Toy, object())
    with pytest.raises(ValueError, match="declared families"):
        reg.fast_path_for("no_such_family", _Toy(1))
    with pytest.raises(ValueError, match="already declared"):
        reg.declare_family("toy_test", int)


def test_meanfield_names_are_the_meanfield_family():
    symloss.PowerOfD(2, 2).blocking(1)     # the accelerators are registered
    assert reg.registered_accelerators() == reg.registered_fast_paths("meanfield")
    assert reg.accelerator_for(PowerOfD(2, 2)) is reg.fast_path_for("meanfield", PowerOfD(2, 2))


# --------------------------------------------------------------------------------------------------
# protocol extensions: decide, binding_key, tuple subjects, on_reject, the texts of the warnings
# --------------------------------------------------------------------------------------------------

class _FastPower(_FastSquare):
    """Answers rate**k for subjects (toy, k); applies through the registry's cache (decide), keyed on
    the rate only (binding_key)."""
    name = "power"

    def __init__(self):
        super().__init__()
        self.decide_calls = 0

    def binding_key(self, subject):
        return ("rate", subject[0].rate) if isinstance(subject[0].rate, int) else None

    def applies(self, subject):
        return reg.binding(self, subject)

    def decide(self, subject):
        self.decide_calls += 1
        return (isinstance(subject[0].rate, int), "integer rate")

    def solve(self, subject):
        return subject[0].rate ** subject[1] + (1 if self.wrong else 0)

    def verify(self, subject, answer):
        return (answer == subject[0].rate ** subject[1], "recomputed")


@pytest.fixture()
def tuple_family():
    reg.declare_family("toy_tuple", _Base)
    fp = _FastPower()
    reg.register_fast_path("toy_tuple", _Toy, fp)
    yield fp
    reg._REGISTRY.pop("toy_tuple", None)
    reg.FAMILIES.pop("toy_tuple", None)
    reg.clear_bindings(fp)


def test_tuple_subjects_dispatch_on_their_first_element(tuple_family):
    ans, used = reg.dispatch("toy_tuple", (_Toy(3), 3), lambda s: ("generic", s[0].rate ** s[1]))
    assert (ans, used) == (27, tuple_family)
    assert reg.fast_path_for("toy_tuple", (_Toy(3), 1)) is tuple_family
    assert reg.fast_path_for("toy_tuple", (_Base(), 1)) is None
    # identity of a tuple subject: its object's definition and the frozen parameters
    assert reg.definition_identity((_Toy(3), 2)) == reg.definition_identity((_Toy(3), 2))
    assert reg.definition_identity((_Toy(3), 2)) != reg.definition_identity((_Toy(3), 2.0))
    assert reg.definition_identity((object(), 2)) is None


def test_decide_and_binding_key_share_the_one_cache(tuple_family):
    n = tuple_family.decide_calls
    assert tuple_family.applies((_Toy(5), 1))[0]
    assert tuple_family.applies((_Toy(5), 7))[0]              # same binding key (the rate): not decided again
    reg.dispatch("toy_tuple", (_Toy(5), 2), lambda s: None)
    assert tuple_family.decide_calls == n + 1
    # no key (binding_key None): decided every time
    assert not tuple_family.applies((_Toy(5.0), 1))[0] and not tuple_family.applies((_Toy(5.0), 1))[0]
    assert tuple_family.decide_calls == n + 3


def test_on_reject_raises_and_texts_are_the_callers(tuple_family):
    """Mutation test: a wrong answer raises on_reject with the caller's text; with the default it warns."""
    tuple_family.wrong = True
    with pytest.raises(ArithmeticError, match=r"^power of _Toy: recomputed$"):
        reg.dispatch("toy_tuple", (_Toy(2), 2), lambda s: None, on_reject=ArithmeticError,
                     rejected="{name} of {subject.__class__.__name__}: {reason}")
    with pytest.warns(UserWarning, match="does not satisfy the definition's own equations"):
        assert reg.dispatch("toy_tuple", (_Toy(2), 2), lambda s: "generic") == ("generic", None)


def test_meanfield_accelerators_use_the_registry_binding_cache(monkeypatch):
    from symloss.meanfield.accelerators import POWER
    reg.clear_bindings(POWER)
    calls = []
    orig = POWER._check
    monkeypatch.setattr(POWER, "_check", lambda m: calls.append(m) or orig(m))
    assert POWER.applies(PowerOfD(3, 2))[0] and POWER.applies(PowerOfD(3, 2))[0]
    assert reg.binding(POWER, PowerOfD(3, 2))[0]
    assert len(calls) == 1
    assert not hasattr(POWER, "_applies_cache")


class _SlowerService(PowerOfD):
    """Power-of-d with the service of level-1 servers at rate 2 (one rate edited)."""

    def transitions(self):
        out = []
        for jump, rate in super().transitions():
            if jump[0] < 0:
                rate = rate + self.variables[0] - self.variables[1] if len(self.variables) > 1 else 2 * rate
            out.append((jump, rate))
        return out


def test_meanfield_mutation_edited_rate_gets_the_generic_answer():
    """certify.solve is registry.dispatch: the shipped model is answered by its accelerator, a subclass
    with one rate edited by the generic certified solver (with the mismatch warning), whose answer is
    checked against an independent value (the generic solver on the shipped model differs)."""
    from symloss.core.certify import DefinitionMismatchWarning, solve
    base = solve(PowerOfD(2, 2), 1, dps=20)
    assert base.method.startswith("shooting")
    with pytest.warns(DefinitionMismatchWarning, match="differs from the equations the shooting accelerator"):
        edited = solve(_SlowerService(2, 2), 1, dps=20)
    assert edited.method.startswith("generic")
    # independent: the edited drift vanishes at the returned state, the shipped one does not
    assert _SlowerService(2, 2).drift_residual(edited.x, 1) < 1e-15
    assert PowerOfD(2, 2).drift_residual(edited.x, 1) > 1e-3
