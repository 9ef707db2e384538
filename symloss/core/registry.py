"""Fast paths: hand-written solvers registered *outside* the definitions they answer for, in one
registry for every family (as SymPy registers its numeric samplers outside its distributions).

STATUS: ready (the protocol, :func:`~symloss.core.registry.same_system`, the binding cache and :func:`~symloss.core.registry.dispatch` are stable).

A *fast path* answers for one system faster than the generic solvers of its family. It may answer
only for the system it was written for, and its answer is checked on the definition's own equations
before anybody sees it. One protocol says so for every family (``"meanfield"``, ``"finite_n"``,
``"twoqueue"``, ``"supermarket"``, ``"admission"``): a fast path is an object with

* ``name`` (str);
* ``applies(subject) -> (bool, reason)``: whether this *definition* is the system the fast path
  solves (an exact identity, decided with :func:`~symloss.core.registry.same_system`); :func:`~symloss.core.registry.binding` caches it per
  definition;
* ``solve(subject, *args, **kwargs)``: the answer;
* ``verify(subject, answer, *args, **kwargs) -> (bool, reason)``: the answer checked on the
  definition's own equations;
* optionally ``warn_on_mismatch(subject) -> bool``: warn when a subject of the registered type does
  not match (a shipped class whose definition was edited);
* optionally ``decide(subject) -> (bool, reason)``: the uncached decision. When a fast path has it,
  :func:`~symloss.core.registry.binding` calls ``decide`` and the fast path's own ``applies`` may simply return
  ``binding(self, subject)``, so that a direct call of ``applies`` shares the one cache;
* optionally ``binding_key(subject)``: a hashable key of exactly what ``applies`` reads (e.g. a rule
  table and the template it is compared with), or ``None`` (not cached); the default is
  :func:`~symloss.core.registry.definition_identity`.

**Subjects.** A subject is the object a fast path answers for (a model, a network, a supermarket), or
a tuple whose first element is that object and whose other elements are plain parameters the
definition depends on, e.g. ``(model, N, sampling)`` for a finite-``N`` chain. The registry walks the
MRO of the first element's type (``register_fast_path`` takes that type), and
:func:`~symloss.core.registry.definition_identity` of a tuple is the identity of its first element with the frozen values of
the others.

One cache policy: :func:`~symloss.core.registry.binding` keys the ``applies`` answer on the fast path and the subject's
*definition* (:func:`~symloss.core.registry.definition_identity`: the subject's ``_definition_key()`` where it has one, else
its complete state, :func:`symloss.core.identity.state_key`, without the attributes its class names
in ``_CACHE_ATTRIBUTES``; or the fast path's ``binding_key``), never on a class name, constructor
arguments or ``id()``; a subject with no canonical state is checked every time.

:func:`fast_path_for` walks the subject's MRO, so a subclass of a shipped model that changes a rate
finds its parent's fast path, fails ``applies`` and is answered by the generic solver.
:func:`~symloss.core.registry.dispatch` is the one flow every family runs: bind, solve, verify, else the generic solver.

The mean-field names of the first version (:func:`register_accelerator`, :func:`accelerator_for`,
:func:`registered_accelerators`) are this registry's ``"meanfield"`` family.

Size: one mechanism (the protocol, the exact same-system check through
``symloss.core.registry_same_system``, the binding cache and :func:`dispatch`) used by every family.
"""
from __future__ import annotations

import collections
import sys
import warnings

from ._docfragments import CORE_DOCS
from .docstrings import fill_doc
from .identity import freeze, state_key
from .registry_same_system import same_system

__all__ = ["FAMILIES", "FastPath", "declare_family", "register_fast_path", "fast_path_for", "registered_fast_paths",
           "same_system", "definition_identity", "binding", "clear_bindings", "dispatch",
           "register_accelerator", "accelerator_for", "registered_accelerators", "warn_outside_package"]

#: family name -> the base type its subjects must have (declared by the family's definition module).
FAMILIES: dict = {}
_REGISTRY: dict = {}                     # family -> {subject type: fast path}
_REQUIRED = ("name", "applies", "solve", "verify")
_BINDINGS: collections.OrderedDict = collections.OrderedDict()
_BINDINGS_MAX = 4096


def declare_family(family: str, base: type) -> None:
    """Declare a family and the base type of its subjects (done once by the family's definition module).

    Parameters
    ----------
    family : str
        The family name, e.g. ``"meanfield"``.
    base : type
        Every subject type registered in this family must be a subclass of ``base``.

    Returns
    -------
    None
        ``family`` is in :data:`FAMILIES` (unchanged when it was declared with the same base).

    Raises
    ------
    TypeError
        If ``family`` is not a string or ``base`` not a class.
    ValueError
        If the family is already declared with another base.

    Examples
    --------
    >>> from symloss.core.registry import FAMILIES
    >>> import symloss
    >>> FAMILIES["meanfield"].__name__
    'MeanFieldModel'
    """
    if not isinstance(family, str) or not family:
        raise TypeError(f"family must be a non-empty string, got {family!r}")
    if not isinstance(base, type):
        raise TypeError(f"base must be a class, got {base!r}")
    old = FAMILIES.get(family)
    if old is not None and old is not base:
        raise ValueError(f"family {family!r} is already declared with base {old.__qualname__}, not {base.__qualname__}")
    FAMILIES[family] = base
    _REGISTRY.setdefault(family, {})


def _check_family(family) -> None:
    if not isinstance(family, str) or family not in FAMILIES:
        raise ValueError(f"family must be one of the declared families {sorted(FAMILIES)}, got {family!r}")


def register_fast_path(family: str, subject_type, fast_path, *, required=_REQUIRED) -> None:
    """Register ``fast_path`` for subjects of ``subject_type`` (and its subclasses) in ``family``.

    Parameters
    ----------
    family : str
        A declared family (:data:`FAMILIES`).
    subject_type : type
        A subclass of the family's base type.
    fast_path : object
        An object with ``name``, ``applies``, ``solve`` and ``verify`` (module docstring).
    required : tuple of str, optional
        The attributes the fast path must have (a family may require more, e.g. ``warn_on_mismatch``).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        If the family is not declared.
    TypeError
        If ``subject_type`` is not a subclass of the family's base, or ``fast_path`` lacks a method.

    Examples
    --------
    >>> from symloss.core.registry import fast_path_for
    >>> from symloss import PowerOfD
    >>> fast_path_for("meanfield", PowerOfD(2, 2)).name
    'shooting'
    """
    _register(family, subject_type, fast_path, required, f"a fast path must have {', '.join(required)}")


def _register(family, subject_type, fast_path, required, must_have) -> None:
    """:func:`register_fast_path` and :func:`register_accelerator`: the checks, then the entry."""
    _check_family(family)
    base = FAMILIES[family]
    if not (isinstance(subject_type, type) and issubclass(subject_type, base)):
        what = "model_class" if family == "meanfield" else "subject_type"
        raise TypeError(f"{what} must be a {base.__name__} subclass, got {subject_type!r}")
    missing = [a for a in required if not hasattr(fast_path, a)]
    if missing:
        raise TypeError(f"{must_have}; {type(fast_path).__name__} lacks {missing}")
    _REGISTRY[family][subject_type] = fast_path
    clear_bindings(fast_path)


def fast_path_for(family: str, subject):
    """The fast path registered for the nearest class in ``type(subject).__mro__``, or ``None``.

    Parameters
    ----------
    family : str
        A declared family.
    subject : object
        The model / network / chain a fast path may answer for.

    Returns
    -------
    object or None

    Raises
    ------
    ValueError
        If the family is not declared.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> fast_path_for("meanfield", RandomRouting(2)).name      # found on the parent class RetrialOfD
    'Erlang-B reduction'
    """
    _check_family(family)
    reg = _REGISTRY[family]
    for cls in type(_dispatch_object(subject)).__mro__:
        fp = reg.get(cls)
        if fp is not None:
            return fp
    return None


def _dispatch_object(subject):
    """The object whose type selects the fast path: the first element of a tuple subject."""
    return subject[0] if isinstance(subject, tuple) and subject else subject


def registered_fast_paths(family: str | None = None) -> dict:
    """A copy of the registry.

    Parameters
    ----------
    family : str, optional
        One family; all families (``{family: {type: fast path}}``) when omitted.

    Returns
    -------
    dict
        A copy: subject type -> fast path (of every family: family -> such a dict).

    Raises
    ------
    ValueError
        If ``family`` is given and not declared.

    Examples
    --------
    >>> import symloss
    >>> sorted(c.__name__ for c in registered_fast_paths("meanfield"))
    ['JSQ', 'PowerOfD', 'RetrialOfD']
    """
    if family is None:
        return {f: dict(r) for f, r in _REGISTRY.items()}
    _check_family(family)
    return dict(_REGISTRY[family])


# ------------------------------------------------------------------------------------------------
# one binding cache
# ------------------------------------------------------------------------------------------------

def definition_identity(subject):
    """What a binding is cached on: the subject's ``_definition_key()`` where it has one, else its
    complete state (:func:`~symloss.core.identity.state_key`), else ``None`` (not cached).

    Parameters
    ----------
    subject : object
        A model, network, chain or supermarket, or a tuple ``(object, *parameters)`` (module docstring).

    Returns
    -------
    hashable or None

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> definition_identity(PowerOfD(2, 2)) == definition_identity(PowerOfD(2, 2))
    True
    >>> definition_identity(PowerOfD(2, 2)) == definition_identity(PowerOfD(2, 3))
    False
    """
    if isinstance(subject, tuple):
        if not subject:
            return None
        head = definition_identity(subject[0])
        if head is None:
            return None
        try:
            return ("tuple", head, freeze(subject[1:]))
        except TypeError:
            return None
    key = getattr(subject, "_definition_key", None)
    if callable(key):
        return ("definition", key())
    s = state_key(subject, skip=getattr(type(subject), "_CACHE_ATTRIBUTES", frozenset()))
    return None if s is None else ("state", s)


def binding(fast_path, subject):
    """``fast_path.applies(subject)`` (``fast_path.decide(subject)`` where it has one), cached on the fast
    path and the subject's definition (or the fast path's ``binding_key(subject)``).

    Parameters
    ----------
    fast_path : object
        A registered fast path.
    subject : object
        The subject it may answer for.

    Returns
    -------
    tuple of (bool, str)
        Whether the fast path may answer, and why.

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> fp = fast_path_for("meanfield", PowerOfD(2, 2))
    >>> binding(fp, PowerOfD(2, 2))[0]
    True
    """
    decide = getattr(fast_path, "decide", None) or fast_path.applies
    key_of = getattr(fast_path, "binding_key", None)
    ident = key_of(subject) if key_of is not None else definition_identity(subject)
    if ident is None:
        return decide(subject)
    key = (id(fast_path), fast_path.name, ident)
    hit = _BINDINGS.get(key)
    if hit is not None and hit[0] is fast_path:
        _BINDINGS.move_to_end(key)
        return hit[1]
    out = decide(subject)
    _BINDINGS[key] = (fast_path, out)          # the fast path is held, so its id is not reused
    if len(_BINDINGS) > _BINDINGS_MAX:
        _BINDINGS.popitem(last=False)
    return out


def clear_bindings(fast_path=None) -> None:
    """Forget cached bindings (of one fast path, or all).

    Parameters
    ----------
    fast_path : object, optional
        Only this fast path's bindings.

    Returns
    -------
    None

    Examples
    --------
    >>> clear_bindings()
    """
    if fast_path is None:
        _BINDINGS.clear()
        return
    for k in [k for k, v in _BINDINGS.items() if v[0] is fast_path]:
        del _BINDINGS[k]


@fill_doc(CORE_DOCS)
class FastPath:
    """A base for fast paths: the protocol of the module docstring with its defaults written once
    (``applies`` through the one binding cache, no mismatch warning); a family's fast path overrides
    :meth:`decide`, :meth:`solve`, :meth:`verify` and, where its ``applies`` reads only part of the
    subject, :meth:`binding_key`.

    Examples
    --------
    >>> class Square(FastPath):
    ...     name = "square"
    ...     def decide(self, s):
    ...         return isinstance(s, int), "an integer"
    ...     def solve(self, s):
    ...         return s * s
    ...     def verify(self, s, answer):
    ...         return answer == s ** 2, "recomputed"
    >>> Square().applies(3)
    (True, 'an integer')
    """
    name = "fast path"

    def applies(self, subject):
        """Whether this fast path may answer for ``subject``: :meth:`decide`, cached by :func:`~symloss.core.registry.binding`.

        {{parameters_subject}}

        Returns
        -------
        tuple of (bool, str)
            :meth:`decide`'s answer for ``subject``, from the cache when its :meth:`binding_key`
            has been decided before.
        """
        return binding(self, subject)

    def decide(self, subject):
        """The uncached decision: ``subject``'s definition is the system this fast path solves (an exact
        identity, :func:`~symloss.core.registry.same_system`).

        {{parameters_subject}}

        Returns
        -------
        tuple of (bool, str)
            Whether ``subject``'s definition is the system of this fast path, and the reason (for
            the report, or the mismatch warning).

        Raises
        ------
        NotImplementedError
            In the base class.
        """
        raise NotImplementedError

    def binding_key(self, subject):
        """What :meth:`decide` reads, hashable, or ``None`` (not cached): by default
        :func:`~symloss.core.registry.definition_identity`.

        {{parameters_subject}}

        Returns
        -------
        hashable or None
            The key of ``subject``'s decision in the binding cache.
        """
        return definition_identity(subject)

    def warn_on_mismatch(self, subject) -> bool:
        """Whether :func:`~symloss.core.registry.dispatch` warns when this fast path does not apply (default ``False``: an
        edited definition is a model of its own).

        {{parameters_subject}}

        Returns
        -------
        bool
            ``False`` here; a family's fast path says ``True`` where a definition that does not
            bind is an edited model of the class.
        """
        return False

    def solve(self, subject, *args, **kwargs):
        """The answer (not yet checked).

        Parameters
        ----------
        subject : object
            A subject for which ``applies`` holds.
        *args, **kwargs
            The family's arguments.

        Returns
        -------
        object

        Raises
        ------
        NotImplementedError
            In the base class.
        """
        raise NotImplementedError

    def verify(self, subject, answer, *args, **kwargs):
        """The answer checked on the definition's own equations.

        Parameters
        ----------
        subject : object
            The subject.
        answer : object
            What :meth:`solve` returned.
        *args, **kwargs
            The family's arguments.

        Returns
        -------
        tuple of (bool, str)
            Whether the answer passes, and why not.

        Raises
        ------
        NotImplementedError
            In the base class.
        """
        raise NotImplementedError


# ------------------------------------------------------------------------------------------------
# the one flow: bind, solve, verify, else the generic solver
# ------------------------------------------------------------------------------------------------

_REJECTED = ("{subject!r}: the {name} fast path's answer does not satisfy the definition's own equations "
             "({reason}); using the generic solver")
_MISMATCH = ("{subject!r}: the definition differs from the equations the {name} fast path assumes ({reason}); "
             "using the generic solver")


def dispatch(family: str, subject, fallback, *, args=(), kwargs=None, verify_args=None, verify_kwargs=None,
             warning=UserWarning, stacklevel: int = 3, rejected: str = _REJECTED, mismatch: str = _MISMATCH,
             on_reject=None):
    """Answer with the registered fast path when it binds and its answer verifies; else ``fallback``.

    Parameters
    ----------
    family : str
        A declared family.
    subject : object
        The subject (an object, or a tuple ``(object, *parameters)``; module docstring).
    fallback : callable
        ``fallback(subject, *args, **kwargs)``: the generic solver (it may raise, e.g. where a family
        has no generic solver for an edited definition).
    args, kwargs : tuple, dict, optional
        Arguments of ``solve`` and of ``fallback``.
    verify_args, verify_kwargs : tuple, dict, optional
        Arguments of ``verify`` after ``(subject, answer)`` (default: ``args`` and ``kwargs``).
    warning : type, optional
        The warning category when a fast path's answer fails its check, or a shipped type's
        definition was edited (``warn_on_mismatch``).
    stacklevel : int, optional
        Where the warnings are reported (``warnings.warn``) when every frame of the stack lies in
        symloss; otherwise they are reported at the first frame outside it (the caller of the
        public entry, however many symloss frames lie between it and this function).
    rejected, mismatch : str, optional
        The texts of the two warnings, formatted with ``subject``, ``name`` (the fast path's) and
        ``reason`` (what ``verify`` or ``applies`` said).
    on_reject : type, optional
        An exception class: an answer that fails its check raises it (with the ``rejected`` text)
        instead of falling back, for a family whose generic solver does not cover the fast path's
        range. Default: warn and fall back.

    Returns
    -------
    tuple
        ``(answer, fast_path)``; ``fast_path`` is ``None`` when the generic solver answered.

    Raises
    ------
    ValueError
        If the family is not declared.
    Exception
        ``on_reject`` when given and the fast path's answer fails its check.

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> fp = fast_path_for("meanfield", PowerOfD(2, 2))
    >>> ans, used = dispatch("meanfield", PowerOfD(2, 2), lambda m, rho, dps: None, args=(1, 20),
    ...                      verify_args=(20,))
    >>> used.name, ans.method.split(";")[0]
    ('shooting', 'shooting on log u_C')
    """
    kwargs = {} if kwargs is None else kwargs
    fp = fast_path_for(family, subject)
    if fp is not None:
        bound, reason = binding(fp, subject)
        template = None
        if bound:
            answer = fp.solve(subject, *args, **kwargs)
            ok, reason = fp.verify(subject, answer, *(args if verify_args is None else verify_args),
                                   **(kwargs if verify_kwargs is None else verify_kwargs))
            if ok:
                return answer, fp
            template = rejected
        elif (wm := getattr(fp, "warn_on_mismatch", None)) is not None and wm(subject):
            template = mismatch
        if template is not None:
            text = template.format(subject=_dispatch_object(subject), name=fp.name, reason=reason)
            if bound and on_reject is not None:
                raise on_reject(text)
            _warn(text, warning, stacklevel)
    return fallback(subject, *args, **kwargs), None


_PACKAGE = __name__.partition(".")[0]


def warn_outside_package(text, warning, stacklevel: int = 2) -> None:
    """``warnings.warn`` reported at the first frame outside the package: the user's call of the public
    entry, however deep the package's own frames below it (a fixed ``stacklevel`` would be right for one
    call path only).

    Parameters
    ----------
    text : str
        The message.
    warning : type
        The warning category.
    stacklevel : int, optional
        Used only when every frame of the stack is the package's (frames above the caller of this
        function).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_outside_package("a note", UserWarning)
    >>> w[0].filename.endswith("registry.py")          # reported at the caller, not here
    False
    """
    frame, level = sys._getframe(1), 2                  # level 2 of warnings.warn here: our caller
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == _PACKAGE:
        frame, level = frame.f_back, level + 1
    warnings.warn(text, warning, stacklevel=level if frame is not None else stacklevel + 1)


_warn = warn_outside_package


# ------------------------------------------------------------------------------------------------
# the mean-field names of the first version
# ------------------------------------------------------------------------------------------------

_MEANFIELD_REQUIRED = ("name", "applies", "solve", "verify", "warn_on_mismatch")


def register_accelerator(model_class, accelerator) -> None:
    """Register ``accelerator`` for models of class ``model_class`` (and its subclasses): the
    ``"meanfield"`` family of :func:`register_fast_path`.

    Parameters
    ----------
    model_class : type
        A :class:`~symloss.MeanFieldModel` subclass.
    accelerator : object
        An object with ``name``, ``applies(model)``, ``solve(model, rho, dps, residual)``,
        ``verify(model, result, dps)`` and ``warn_on_mismatch(model)`` (module docstring).

    Returns
    -------
    None
        From now on :func:`accelerator_for` finds ``accelerator`` for the models of ``model_class``.

    Raises
    ------
    TypeError
        If ``model_class`` is not a ``MeanFieldModel`` subclass or the accelerator lacks a method.

    See Also
    --------
    accelerator_for, symloss.meanfield.accelerators

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.core.registry import accelerator_for
    >>> accelerator_for(PowerOfD(2, 2)).name
    'shooting'
    """
    if "meanfield" not in FAMILIES:
        raise RuntimeError("the meanfield family is not declared (import symloss.core.model first)")
    _register("meanfield", model_class, accelerator, _MEANFIELD_REQUIRED,
              "accelerator must have name, applies, solve, verify and warn_on_mismatch")


def accelerator_for(model):
    """The accelerator registered for the nearest class in ``type(model).__mro__``, or ``None``.

    Parameters
    ----------
    model : MeanFieldModel
        The model.

    Returns
    -------
    object or None
        The accelerator (whether it applies to this definition is its ``applies``), or ``None``.

    Examples
    --------
    >>> from symloss import RandomRouting, define_model
    >>> from symloss.core.registry import accelerator_for
    >>> accelerator_for(RandomRouting(2)).name        # found on the parent class RetrialOfD
    'Erlang-B reduction'
    """
    if "meanfield" not in FAMILIES:
        return None
    return fast_path_for("meanfield", model)


def registered_accelerators() -> dict:
    """A copy of the ``"meanfield"`` registry.

    Returns
    -------
    dict
        Model class -> accelerator.

    Examples
    --------
    >>> from symloss.core.registry import registered_accelerators
    >>> sorted(cls.__name__ for cls in registered_accelerators())
    ['JSQ', 'PowerOfD', 'RetrialOfD']
    """
    return registered_fast_paths("meanfield") if "meanfield" in FAMILIES else {}
