"""The architecture rules of symloss, measured from the source (no code is run but the imports of grimp).

* the import graph of ``symloss`` and ``proofs_check`` — every ``import`` statement, at module level
  and inside function bodies (grimp reads them all) — has no cycle;
* a room imports only the rooms below it (:data:`ALLOWED`): ``core`` imports nothing from a family,
  a family imports ``core`` (and ``erlang``/``meanfield`` where stated), ``cli`` and ``proofs_check``
  sit on top and ``proofs_check`` does not import ``symloss.cli``;
* the figures of issue 22: own-module imports inside function bodies, modules over 700 lines,
  public callables with a numpydoc ``Parameters`` section.

``python benchmarks/architecture_metrics.py`` prints the figures.
"""
from __future__ import annotations

import ast
import collections
import functools
import importlib
import inspect
import pathlib
import pkgutil

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("symloss", "proofs_check")

CORE = "symloss.core"
FAMILIES = ("symloss.erlang", "symloss.meanfield", "symloss.finite_n", "symloss.twoqueue",
            "symloss.supermarket", "symloss.admission")
#: room -> the rooms it may import (besides itself and ``symloss._version``)
ALLOWED = {
    "symloss.core": set(),
    "symloss.erlang": {CORE},
    "symloss.meanfield": {CORE, "symloss.erlang"},
    "symloss.finite_n": {CORE, "symloss.erlang", "symloss.meanfield"},
    "symloss.twoqueue": {CORE, "symloss.erlang"},
    "symloss.supermarket": {CORE},
    "symloss.admission": {CORE, "symloss.erlang"},
    "symloss.sweeps": {CORE, *FAMILIES},
    "symloss.plot": {CORE, *FAMILIES, "symloss.sweeps"},
    "symloss.cli": {CORE, *FAMILIES, "symloss.sweeps", "symloss.plot", "symloss", "proofs_check"},
    "symloss.__main__": {"symloss.cli"},
    "symloss": {CORE, *FAMILIES, "symloss.sweeps", "symloss.plot"},
    "proofs_check": {CORE, *FAMILIES, "symloss.sweeps", "symloss"},
}
#: rooms whose lazy imports are not counted (the CLI imports its subcommands on demand)
LAZY_OK = ("symloss.cli", "proofs_check.cli")


def room(module: str) -> str:
    """The room of a module: ``symloss.<package>`` or ``proofs_check`` (``symloss`` for the package itself)."""
    parts = module.split(".")
    if parts[0] == "proofs_check":
        return "proofs_check"
    if len(parts) == 1:
        return "symloss"
    if parts[1] == "_version":
        return "symloss._version"
    return ".".join(parts[:2])


@functools.lru_cache(maxsize=1)
def graph():
    import grimp
    return grimp.build_graph(*PACKAGES, cache_dir=None)


def edges() -> dict:
    g = graph()
    return {m: set(g.find_modules_directly_imported_by(m)) for m in g.modules}


def cycles() -> list:
    """The strongly connected components of more than one module (each a sorted list)."""
    import networkx as nx
    G = nx.DiGraph()
    for a, bs in edges().items():
        G.add_node(a)
        for b in bs:
            G.add_edge(a, b)
    return sorted(sorted(c) for c in nx.strongly_connected_components(G) if len(c) > 1)


def forbidden_imports() -> list:
    """``(importer, imported, line, text)`` for every import that crosses the rooms the wrong way."""
    g = graph()
    out = []
    for a, bs in sorted(edges().items()):
        ra = room(a)
        allowed = ALLOWED.get(ra)
        for b in sorted(bs):
            rb = room(b)
            if rb in (ra, "symloss._version"):
                continue
            if allowed is None or rb not in allowed:
                for d in g.get_import_details(importer=a, imported=b):
                    out.append((a, b, d["line_number"], d["line_contents"]))
    return out


def source_files():
    for pkg in PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            yield p


def module_name(p: pathlib.Path) -> str:
    parts = list(p.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def function_imports() -> list:
    """``(module, line, text)`` of every import of an own module inside a function body."""
    out = []
    for p in source_files():
        mod = module_name(p)
        if mod.startswith(LAZY_OK):
            continue
        tree = ast.parse(p.read_text())
        is_pkg = p.name == "__init__.py"

        def own(node) -> bool:
            if isinstance(node, ast.ImportFrom):
                return node.level > 0 or (node.module or "").split(".")[0] in PACKAGES
            return any(a.name.split(".")[0] in PACKAGES for a in node.names)

        def walk(node, depth):
            for child in ast.iter_child_nodes(node):
                d = depth + isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                if isinstance(child, (ast.Import, ast.ImportFrom)) and depth and own(child):
                    out.append((mod, child.lineno, ast.unparse(child)))
                walk(child, d)
        del is_pkg
        walk(tree, 0)
    return out


def long_modules(limit: int = 700) -> list:
    """``(lines, path)`` of the modules with more than ``limit`` lines, longest first."""
    rows = []
    for p in source_files():
        n = len(p.read_text().splitlines())
        if n > limit:
            rows.append((n, str(p.relative_to(ROOT))))
    return sorted(rows, reverse=True)


def _public_callables():
    """(path, function) of the public functions and methods of every symloss module (not the CLI)."""
    import symloss
    seen = {}
    for info in pkgutil.walk_packages(symloss.__path__, "symloss."):
        name = info.name
        if name.startswith("symloss.cli") or any(part.startswith("_") for part in name.split(".")[1:]):
            continue
        mod = importlib.import_module(name)
        public = getattr(mod, "__all__", None)
        names = public if public is not None else [n for n in vars(mod) if not n.startswith("_")]
        for n in names:
            obj = getattr(mod, n, None)
            if getattr(obj, "__module__", None) != name:
                continue
            if inspect.isfunction(obj):
                seen[f"{name}.{n}"] = obj
            elif inspect.isclass(obj) and not issubclass(obj, BaseException):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") and attr != "__init__":
                        continue
                    fn = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
                    if inspect.isfunction(fn):
                        seen[f"{name}.{n}.{attr}"] = fn
    return seen


def _takes_arguments(fn) -> bool:
    params = [p for p in inspect.signature(fn).parameters.values() if p.name not in ("self", "cls")]
    return bool(params)


def numpydoc_parameters_coverage():
    """``(documented, total, missing)``: public functions and methods that take arguments and whose
    docstring has a numpydoc ``Parameters`` section (for ``__init__``, the class docstring counts)."""
    from numpydoc.docscrape import FunctionDoc, ClassDoc
    total, documented, missing = 0, 0, []
    for path, fn in sorted(_public_callables().items()):
        if not _takes_arguments(fn):
            continue
        if fn.__name__ == "__init__":
            cls_path, _, _ = path.rpartition(".")
            mod, _, cls_name = cls_path.rpartition(".")
            cls = getattr(importlib.import_module(mod), cls_name)
            ok = bool(cls.__doc__) and bool(ClassDoc(cls)["Parameters"]) or (
                bool(fn.__doc__) and bool(FunctionDoc(fn)["Parameters"]))
        else:
            doc = fn.__doc__
            if not doc:
                ok = False
            else:
                try:
                    ok = bool(FunctionDoc(fn)["Parameters"])
                except Exception:
                    ok = False
        total += 1
        documented += ok
        if not ok:
            missing.append(path)
    return documented, total, missing


def _docstring_lines(path: pathlib.Path) -> set:
    lines = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def duplicate_pairs(seconds: int = 60):
    """``(pairs, docstring_only)``: the number of pairs the ``duplicates`` tool reports within
    ``symloss/`` plus within ``proofs_check/``, and how many of them share docstring text only (the
    first side of the pair lies inside a docstring); ``None`` where the tool is not installed."""
    import re
    import shutil
    import subprocess
    if shutil.which("duplicates") is None:
        return None
    total = doc = 0
    row = re.compile(r"D\d+ (\S+):(\d+)-(\d+) ~ ")
    for pkg in PACKAGES:
        out = subprocess.run(["duplicates", "--repo", str(ROOT / pkg), "--seconds", str(seconds), "--most", "200"],
                             capture_output=True, text=True).stdout
        m = re.match(r"(\d+) pairs", out)
        total += int(m.group(1)) if m else 0
        for line in out.splitlines():
            r = row.match(line)
            if r:
                lines = _docstring_lines(ROOT / pkg / r.group(1))
                doc += all(k in lines for k in range(int(r.group(2)), int(r.group(3)) + 1))
    return total, doc
