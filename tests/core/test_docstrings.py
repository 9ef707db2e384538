"""The docstring-fragment mechanism (symloss.core.docstrings) and the guard that every public
docstring of the package was filled (no ``{{name}}`` placeholder left)."""
import importlib
import inspect
import pkgutil

import pytest

import symloss
from symloss.core.docstrings import FRAGMENTS, fill_doc, fill_text


def test_fill_indents_like_the_placeholder():
    doc = "Title.\n\n        {{raises_C}}\n    tail\n"
    out = fill_text(doc)
    lines = out.splitlines()
    assert lines[2] == "        Raises"
    assert lines[4] == "        TypeError"
    assert lines[5] == "            If ``C`` is not an integer."
    assert lines[-1] == "    tail"


def test_room_table_wins_over_core_and_unknown_name_is_refused():
    assert fill_text("    {{raises_C}}", [{"raises_C": "mine"}]) == "    mine"
    with pytest.raises(ValueError, match=r"f: no docstring fragment \{\{nope\}\}"):
        fill_text("a\n    {{nope}}\n", where="f")


def test_placeholder_only_on_its_own_line():
    doc = r"x = {{a}} and \frac{{1}}{{2}}"
    assert fill_text(doc) == doc


def test_class_methods_properties_and_none():
    @fill_doc({"p": "p : int\n    A p."})
    class K:
        """K.

        {{p}}
        """

        def m(self):
            """m.

            {{p}}
            """

        @property
        def q(self):
            """q.

            {{p}}
            """

        @staticmethod
        def s():
            """s.

            {{ref_retrial}}
            """

    for doc in (K.__doc__, K.m.__doc__, K.q.__doc__):
        assert "{{" not in doc and "p : int" in doc
    assert "Retrials in Loss Systems" in K.s.__doc__

    @fill_doc
    def g():
        pass
    assert g.__doc__ is None
    with pytest.raises(TypeError, match="tables must be dicts"):
        fill_doc({"a": "b"}, 3)


def _public_objects():
    for info in pkgutil.walk_packages(symloss.__path__, "symloss."):
        if info.name.endswith("__main__") or (".cli" in info.name and "commands" in info.name):
            continue
        mod = importlib.import_module(info.name)
        yield info.name, mod
        for name, obj in vars(mod).items():
            if getattr(obj, "__module__", None) != mod.__name__:
                continue
            if inspect.isclass(obj):
                yield f"{info.name}.{name}", obj
                for attr, member in vars(obj).items():
                    f = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
                    if callable(f) or isinstance(member, property):
                        yield f"{info.name}.{name}.{attr}", f
            elif callable(obj):
                yield f"{info.name}.{name}", obj


def test_no_placeholder_left_in_the_package():
    left = [name for name, obj in _public_objects()
            if isinstance(getattr(obj, "__doc__", None), str) and fill_text.__globals__["_PLACEHOLDER"].search(obj.__doc__)]
    assert left == [], f"docstrings with an unfilled {{{{name}}}} placeholder (add @fill_doc): {left}"


def test_core_fragments_are_plain_text():
    for name, text in FRAGMENTS.items():
        assert text == text.strip("\n") and not text.startswith(" "), name
