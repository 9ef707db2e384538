"""The identity of a mean-field model and the caches keyed on it: :class:`DefinitionKey` (the canonical
checked definition, compared by value), the memo from an instance's state key to its key, and the
``_derived`` descriptor (a derived quantity computed once per definition).

Split out of :mod:`symloss.core.model` (which re-exports every name).
"""
from __future__ import annotations

from .definition import _nonzeros

__all__ = ["CACHE_ATTRIBUTES", "DefinitionKey"]

#: instance state key -> DefinitionKey (see :func:`symloss.core.identity.state_key`)
_STATE_MEMO: dict = {}

#: attributes of a model instance that hold caches, not definition: cleared whenever an attribute of
#: the instance is assigned (a changed instance is a new definition)
CACHE_ATTRIBUTES = frozenset({"_identity", "_derived_cache", "_finite_n_chains", "_refined_tables",
                              "_float_start_cache", "_uniqueness_cache"})
class DefinitionKey:
    """The identity of a model: its canonical definition, compared by value.

    ``parts`` is ``(variables, state_kind, C, transitions, blocking, invariants)`` with every rate and
    the blocking after substitution of the parameter values (so the parameters are part of the
    identity), each transition as ``(nonzero jump entries, rate)`` and each invariant as
    ``(coefficients, value)``. Two models have equal keys exactly when these are structurally equal
    SymPy objects: every cache of symloss (derivations, compiled evaluators, accelerator bindings,
    finite-N chains, kernels, expansions) is keyed on it, never on a class and a few constructor
    arguments. The checked definition itself is carried (``transitions``, ``blocking``,
    ``invariants``) so that a cache hit needs no new derivation. Hashes are per process (SymPy's);
    a certificate records :meth:`MeanFieldModel.fingerprint` instead, which is stable.

    Parameters
    ----------
    variables : sequence of sympy.Symbol
        The state variables.
    state_kind : str
        ``"occupancy"``, ``"tail"`` or ``"custom"``.
    C : object
        The capacity (frozen), or ``None``.
    transitions : list of (sympy.Matrix, sympy.Expr)
        The checked transitions.
    blocking : sympy.Expr
        The checked blocking expression.
    invariants : list of (list, sympy.Rational)
        The checked invariants.
    """

    __slots__ = ("parts", "transitions", "blocking", "invariants", "_hash")

    def __init__(self, variables, state_kind, C, transitions, blocking, invariants):
        self.transitions = transitions
        self.blocking = blocking
        self.invariants = invariants
        self.parts = (tuple(variables), state_kind, C,
                      tuple((tuple((i, int(v)) for i, v in _nonzeros(j)), r) for j, r in transitions),
                      blocking, tuple((tuple(c), v) for c, v in invariants))
        self._hash = hash(self.parts)

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return self is other or (isinstance(other, DefinitionKey) and self._hash == other._hash
                                 and self.parts == other.parts)

    def __repr__(self):
        return f"DefinitionKey({len(self.parts[0])} variables, {len(self.parts[3])} transitions, hash {self._hash:#x})"
class _derived:
    """A derived quantity of a model, computed once per *definition*.

    The cache key is ``(model._definition_key(), name)``: the canonical definition itself
    (:class:`DefinitionKey`), so two models share a derivation exactly when their definitions are
    equal (whatever their classes or constructor arguments), and a subclass, an edited rate, an extra
    constructor attribute or a replaced method (a mutation test) gives a new key."""

    _CACHE: dict = {}

    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        full = (obj._definition_key(), self.name)
        try:
            return self._CACHE[full]
        except KeyError:
            pass
        val = self.fn(obj)
        self._CACHE[full] = val
        return val
