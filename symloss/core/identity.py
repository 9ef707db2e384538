"""Identity of user-written objects: what the caches of symloss may be keyed on.

A cache is keyed on what an object *is* (its derived definition), never on its class and a few
constructor arguments: a subclass with extra constructor state, an assigned attribute or a replaced
method is a different object. This module holds the two pieces every family uses:

* :func:`freeze` and :func:`state_key`: a hashable canonical form of an instance's complete state
  (every attribute, and the code and data of every class in its MRO). Two instances with equal state
  keys run the same methods on the same data, so they derive the same definition; a memo from the
  state key to the derived definition saves deriving it again for each new instance. Values with no
  canonical form (arbitrary objects) make :func:`state_key` return ``None``: the definition is then
  derived for that instance.
* :class:`ClearsCachesOnAssignment`: a mixin whose ``__setattr__`` drops the instance's caches when
  any other attribute is assigned (a changed instance is a new definition).

Limitation (documented in ``docs/models.md``): a definition that reads mutable module-level state,
or an attribute container mutated in place (``m.table.append(...)``), is not seen; assign the
attribute instead.
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

__all__ = ["freeze", "state_key", "ClearsCachesOnAssignment"]


class _Unfrozen(Exception):
    """An attribute value that has no hashable canonical form (the state memo is skipped)."""


_DUNDER_SKIP = frozenset({"__dict__", "__weakref__", "__doc__", "__module__", "__qualname__",
                          "__firstlineno__", "__static_attributes__", "__annotations__",
                          "__annotate__", "__orig_bases__", "__parameters__", "__slots__"})


def freeze(v):
    """A hashable canonical form of ``v``, tagged with its type (``1``, ``1.0`` and ``True`` differ).

    Numbers, strings, SymPy objects (structurally), matrices, containers (recursively), numpy arrays
    (by bytes) by value; functions, methods, descriptors and classes by identity.

    Parameters
    ----------
    v : object
        The value.

    Returns
    -------
    hashable

    Raises
    ------
    TypeError
        If ``v`` has no canonical form (an arbitrary unhashable object).

    Examples
    --------
    >>> from fractions import Fraction
    >>> freeze(1) == freeze(1.0), freeze([1, Fraction(1, 2)]) == freeze([1, Fraction(1, 2)])
    (False, True)
    """
    try:
        return _freeze(v)
    except _Unfrozen as exc:
        raise TypeError(f"no canonical form for a {exc}") from None


def _freeze(v):
    if v is None or isinstance(v, (str, bytes)):
        return v
    if isinstance(v, (bool, int, float, complex, Fraction)):
        return (type(v), v.hex() if isinstance(v, float) else v)
    if isinstance(v, sp.MatrixBase):
        return (sp.MatrixBase, v.shape, tuple(v))
    if isinstance(v, sp.Basic):
        return (type(v), v)
    if isinstance(v, (tuple, list)):
        return (type(v), tuple(_freeze(x) for x in v))
    if isinstance(v, dict) or type(v).__name__ == "mappingproxy":
        items = [(_freeze(k), _freeze(x)) for k, x in v.items()]
        return (dict, tuple(sorted(items, key=repr)))
    if isinstance(v, (set, frozenset)):
        return (frozenset, frozenset(_freeze(x) for x in v))
    if type(v).__module__ == "numpy" and hasattr(v, "tobytes"):
        return ("ndarray", str(getattr(v, "dtype", "")), getattr(v, "shape", ()), v.tobytes())
    if callable(v) or hasattr(v, "__get__") or isinstance(v, type):
        try:
            hash(v)
        except TypeError:
            raise _Unfrozen(type(v).__name__) from None
        return ("object", v)
    raise _Unfrozen(type(v).__name__)


def state_key(obj, skip=frozenset()):
    """The complete state of ``obj`` frozen: the code and data of every class in its MRO and every
    instance attribute not in ``skip`` (its caches), or ``None`` when a value has no canonical form.

    Parameters
    ----------
    obj : object
        An instance with a ``__dict__``.
    skip : collection of str
        Attribute names that hold caches, not state.

    Returns
    -------
    tuple or None

    Examples
    --------
    >>> class P:
    ...     def __init__(self, a):
    ...         self.a = a
    >>> state_key(P(1)) == state_key(P(1)), state_key(P(1)) == state_key(P(2))
    (True, False)
    """
    try:
        code = []
        for c in type(obj).__mro__:
            if c is object:
                continue
            code.append(_class_code(c))
        state = tuple(sorted(((k, _freeze(v)) for k, v in vars(obj).items() if k not in skip),
                             key=lambda kv: kv[0]))
        key = (tuple(code), state)
        hash(key)
        return key
    except (_Unfrozen, TypeError):
        return None


_CODE_CACHE: dict = {}


def _class_code(c):
    """``(class, frozen attributes)``, cached per class while its attributes are the same objects (an
    assigned or replaced attribute, e.g. a patched method, is seen; the cache holds the values, so
    their identities cannot be reused)."""
    d = vars(c)
    keys, ids = tuple(d), tuple(map(id, d.values()))
    hit = _CODE_CACHE.get(c)
    if hit is not None and hit[0] == keys and hit[1] == ids:
        return hit[3]
    frozen = _Hashed((c, tuple((k, _freeze(v)) for k, v in d.items() if k not in _DUNDER_SKIP)))
    _CODE_CACHE[c] = (keys, ids, tuple(d.values()), frozen)      # the values kept: their ids stay unique
    return frozen


class _Hashed:
    """A frozen value with its hash computed once (nested tuples recompute theirs at every lookup)."""

    __slots__ = ("value", "_hash")

    def __init__(self, value):
        self.value = value
        self._hash = hash(value)

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return self is other or (isinstance(other, _Hashed) and self._hash == other._hash and self.value == other.value)


class ClearsCachesOnAssignment:
    """Mixin: assigning any attribute not named in ``_CACHE_ATTRIBUTES`` drops the instance's caches
    (the attributes named there), so nothing derived from the old state survives a change."""

    _CACHE_ATTRIBUTES: frozenset = frozenset()

    def __setattr__(self, name, value):
        caches = type(self)._CACHE_ATTRIBUTES
        if name not in caches:
            d = self.__dict__
            for k in caches:
                d.pop(k, None)
        object.__setattr__(self, name, value)
