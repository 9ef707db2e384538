"""Docstring fragments of :mod:`symloss.erlang` (:data:`ERLANG_DOCS`, filled in by
:func:`symloss.core.docstrings.fill_doc`): for now the parameter section of the exact coefficient tables of
``symloss.erlang.balls``.
"""
from __future__ import annotations

__all__ = ["ERLANG_DOCS"]

#: name -> text of the docstring fragments of the Erlang room.
ERLANG_DOCS: dict[str, str] = {
    # the one argument of the integer-coefficient tables of E(C, a) (balls.py)
    "params_C0": """\
Parameters
----------
C : int
    Capacity, ``C >= 0``.""",
}
