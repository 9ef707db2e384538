r"""Docstring fragments: a text that several docstrings share is written once and filled in at import.

The habit is scipy's ``doccer``: a docstring names a fragment on a line of its own, ``{{name}}``, and
the decorator :func:`fill_doc` replaces that line by the fragment, indented like the placeholder.
What a reader, ``help()``, Sphinx, numpydoc and the doctests see is the filled text; the source holds
each shared text once (a ``Raises`` block, a reference, a parameter's description).

A fragment table is a plain ``dict`` of name -> text. :data:`FRAGMENTS` holds the texts shared
across rooms; a room keeps its own table next to its code and passes it to :func:`fill_doc`, which
looks a name up in the tables given (in order) and then in :data:`FRAGMENTS`. An unknown name is an
error at import (``ValueError`` naming the object and the placeholder), so a typo cannot ship a
docstring with a hole in it.

Examples
--------
>>> from symloss.core.docstrings import fill_doc
>>> @fill_doc({"x_param": "x : float\n    A number."})
... def f(x):
...     '''Twice ``x``.
...
...     Parameters
...     ----------
...     {{x_param}}
...     '''
...     return 2 * x
>>> print(f.__doc__.splitlines()[4].strip())
x : float
"""
from __future__ import annotations

import re
import textwrap

__all__ = ["FRAGMENTS", "fill_doc", "fill_text"]

_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)\{\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}\}[ \t]*$", re.M)

_REF_RETRIAL = """\
.. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
   Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026)."""

_REF_KURTZ = """\
.. [1] T. G. Kurtz, "Solutions of ordinary differential equations as limits of pure jump Markov
   processes", Journal of Applied Probability 7(1), 49-58 (1970)."""

#: The fragments shared across rooms (name -> text, written without indentation).
FRAGMENTS: dict[str, str] = {
    "ref_retrial": _REF_RETRIAL,
    "references_retrial": "References\n----------\n" + _REF_RETRIAL,
    "references_yao_knessl": """\
References
----------
.. [1] H. Yao, C. Knessl, "On the Shortest Queue Version of the Erlang Loss Model", Studies in
   Applied Mathematics 120(2), 129-212 (2008).""",
    "ref_kurtz": _REF_KURTZ,
    "references_kurtz": "References\n----------\n" + _REF_KURTZ,
    "raises_C": """\
Raises
------
TypeError
    If ``C`` is not an integer.
ValueError
    If ``C`` is outside its range.""",
}


def fill_text(doc: str | None, tables=(), *, where: str = "a docstring") -> str | None:
    """``doc`` with every ``{{name}}`` line replaced by its fragment, indented like the placeholder.

    Parameters
    ----------
    doc : str or None
        The text (``None``, as under ``python -OO``, is returned unchanged).
    tables : sequence of dict
        Fragment tables searched in order before :data:`FRAGMENTS`.
    where : str
        What the text belongs to, for the error message.

    Returns
    -------
    str or None
        The filled text.

    Raises
    ------
    ValueError
        If a placeholder names no fragment of the tables or of :data:`FRAGMENTS`.
    """
    if not doc or "{{" not in doc:
        return doc
    tables = tuple(tables) + (FRAGMENTS,)

    def repl(m):
        name = m.group("name")
        for table in tables:
            if name in table:
                text = textwrap.dedent(table[name]).strip("\n")
                return textwrap.indent(text, m.group("indent"), lambda line: True)
        known = sorted({k for t in tables for k in t})
        raise ValueError(f"{where}: no docstring fragment {{{{{name}}}}} (known: {', '.join(known)})")

    return _PLACEHOLDER.sub(repl, doc)


def _fill_object(obj, tables):
    where = getattr(obj, "__qualname__", repr(obj))
    if isinstance(obj, property):
        if obj.fget is not None and obj.fget.__doc__:
            obj.fget.__doc__ = fill_text(obj.fget.__doc__, tables, where=where)
        if obj.__doc__:
            obj.__doc__ = fill_text(obj.__doc__, tables, where=where)
        return obj
    if isinstance(obj, (staticmethod, classmethod)):
        _fill_object(obj.__func__, tables)
        return obj
    doc = getattr(obj, "__doc__", None)
    if doc and "{{" in doc:
        obj.__doc__ = fill_text(doc, tables, where=where)
    if isinstance(obj, type):
        for attr in vars(obj).values():
            if isinstance(attr, (property, staticmethod, classmethod)) or callable(attr):
                if getattr(attr, "__module__", obj.__module__) == obj.__module__:
                    _fill_object(attr, tables)
    return obj


def fill_doc(*tables):
    """Decorator: fill the ``{{name}}`` placeholders of a function's or a class's docstring.

    On a class it fills the class docstring and those of the methods, properties, static and class
    methods defined in its body.

    Parameters
    ----------
    *tables : dict or callable
        Fragment tables searched before :data:`FRAGMENTS`; used bare (``@fill_doc``) the decorator
        takes :data:`FRAGMENTS` alone.

    Returns
    -------
    callable
        The decorator (or, used bare, the decorated object itself).

    Raises
    ------
    ValueError
        At import, if a placeholder names no fragment.
    """
    if len(tables) == 1 and not isinstance(tables[0], dict):
        return _fill_object(tables[0], ())
    for t in tables:
        if not isinstance(t, dict):
            raise TypeError(f"fill_doc: tables must be dicts of name -> text, got {type(t).__name__}")

    def deco(obj):
        return _fill_object(obj, tables)

    return deco
