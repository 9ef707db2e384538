"""Sphinx configuration of the symloss documentation (API reference with numpydoc, MyST pages).

Build:  python -m sphinx -W -n -b html docs docs/_build/html

The examples are doctests run by the test suite in their own namespace: the docstrings of every module
of the reference (``tests/test_doctests.py``, ``tests/docs/test_module_doctests.py``) and the ``>>>``
blocks of the guide pages (``tests/docs/test_docs_examples.py``). ``tests/docs/test_sphinx.py`` builds
the whole reference with ``-W -n`` (no warning, every cross reference resolved).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import symloss  # noqa: E402

project = "symloss"
author = "the symloss developers"
copyright = "2026, the symloss developers"
release = symloss.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "figures/*.pdf", "Thumbs.db", ".DS_Store"]

# MyST: $...$ and $$...$$ math in the markdown pages, heading anchors for cross references
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]   # the pages start at level 1 and skip levels inside tables of contents

# autodoc + numpydoc
autodoc_default_options = {"members": True}
autodoc_member_order = "bysource"
autodoc_typehints = "none"            # numpydoc Parameters sections carry the types
autodoc_preserve_defaults = True      # defaults as written in the source (e.g. rules=RULES), not their repr
numpydoc_show_class_members = False   # members are documented by autodoc, not listed twice
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# every cross reference must resolve (nitpicky); third-party targets have no inventory offline
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|matplotlib|mpmath|sympy|sp|flint|pandas|pd|scipy|networkx|nx|distributed|dask|"
               r"tqdm|pyarrow|concurrent|sqlite3|argparse|pathlib|fractions|decimal|numbers|collections|"
               r"typing|dataclasses|enum)(\..*)?"),
    (r"py:class", r"(callable|optional|array_like|array-like|ndarray|DataFrame|Figure|Generator|SeedSequence|"
                  r"Fraction|mpf|arb|fmpq|fmpz|Path|Client|Any|Iterable|Sequence|Mapping|Callable|"
                  r"Decimal|Poly|Expr|Symbol|Rational|Equality)"),
]

html_theme = "alabaster"
html_static_path: list = []
html_title = f"symloss {release}"


# ------------------------------------------------------------------------------------------------
# the CLI reference is generated from the parser itself (one source of truth for --help)
# ------------------------------------------------------------------------------------------------

from docutils import nodes  # noqa: E402
from docutils.parsers.rst import Directive  # noqa: E402


class SymlossCliHelp(Directive):
    """``.. symloss-cli-help::`` inserts ``symloss --help`` and every ``symloss CMD --help``."""

    has_content = False

    def run(self):
        import argparse
        import io

        from symloss.cli import _build
        parser, sub = _build()
        out = []

        def block(title, text):
            sec = nodes.section(ids=[nodes.make_id("cli-" + title)])
            sec += nodes.title(text=title)
            sec += nodes.literal_block(text=text, language="text")
            return sec

        os.environ.setdefault("COLUMNS", "100")
        buf = io.StringIO()
        parser.print_help(buf)
        out.append(block("symloss", buf.getvalue()))
        for name, p in sorted(sub.choices.items()):
            assert isinstance(p, argparse.ArgumentParser)
            buf = io.StringIO()
            p.print_help(buf)
            out.append(block(f"symloss {name}", buf.getvalue()))
        return out


class SymlossPublicNames(Directive):
    """``.. symloss-public-names::`` lists ``symloss.__all__`` with links to the defining modules."""

    has_content = False

    def run(self):
        from sphinx import addnodes
        table = nodes.bullet_list()
        for name in sorted(getattr(symloss, "_EXPORTS", {}), key=str.lower):
            target = _public_target(name)
            reftype = "obj"
            if target is None:   # a constant: link its module
                target = "symloss" + symloss._EXPORTS[name].split(":")[0] + "." + name
                reftype = "mod"
            item = nodes.list_item()
            para = nodes.paragraph()
            ref = addnodes.pending_xref("", refdomain="py", reftype=reftype,
                                        reftarget=target.rsplit(".", 1)[0] if reftype == "mod" else target,
                                        refexplicit=True, refwarn=True)
            ref += nodes.literal(text=f"symloss.{name}")
            para += ref
            para += nodes.Text(f"  ({target.rsplit('.', 1)[0]})")
            item += para
            table += item
        for name in getattr(symloss, "_SUBMODULES", ()):   # the subpackages, imported lazily as modules
            item = nodes.list_item()
            para = nodes.paragraph()
            ref = addnodes.pending_xref("", refdomain="py", reftype="mod", reftarget=f"symloss.{name}",
                                        refexplicit=True, refwarn=True)
            ref += nodes.literal(text=f"symloss.{name}")
            para += ref
            para += nodes.Text("  (subpackage)")
            item += para
            table += item
        return [table]


def _public_target(target: str) -> str | None:
    """``symloss.X...`` (a public name, defined in a submodule) or a bare public name ``X`` -> the
    defining module's path, so that references written with the public names resolve."""
    import importlib
    parts = target.split(".")
    if parts[0] == "symloss" and len(parts) >= 2:
        name, rest = parts[1], parts[2:]
    else:
        name, rest = parts[0], parts[1:]
    exports = getattr(symloss, "_EXPORTS", {})
    if name not in exports:
        return None
    try:
        obj = getattr(symloss, name)
    except AttributeError:  # pragma: no cover
        return None
    mod = getattr(obj, "__module__", None)
    if not mod or not (callable(obj) or isinstance(obj, type)):
        return None
    importlib.import_module(mod)
    return ".".join([mod, getattr(obj, "__name__", name), *rest])


def _resolve_public(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    new = _public_target(target)
    if new is None or new == target:
        return None
    domain = env.get_domain("py")
    node["reftarget"] = new
    try:
        return domain.resolve_xref(env, node.get("refdoc"), app.builder, node["reftype"], new, node, contnode)
    finally:
        node["reftarget"] = target


def setup(app):
    app.add_directive("symloss-cli-help", SymlossCliHelp)
    app.add_directive("symloss-public-names", SymlossPublicNames)
    app.connect("missing-reference", _resolve_public)
    return {"parallel_read_safe": True}
