"""The docstring examples of every module run (doctest, in the module's namespace, NumPy 2 reprs): the
modules of the API reference and every other module of ``symloss`` (not the CLI) whose docstrings hold
examples, so a function moved to a new module keeps its examples running. Modules already listed in
tests/test_doctests.py are not run twice."""
from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _reference_modules() -> list[str]:
    mods = []
    for rst in sorted((ROOT / "docs" / "api").glob("*.rst")):
        mods += re.findall(r"^\.\. automodule:: ([\w.]+)", rst.read_text(), flags=re.M)
    return list(dict.fromkeys(mods))


def _already_run() -> set[str]:
    text = (ROOT / "tests" / "test_doctests.py").read_text()
    return set(re.findall(r'"(symloss[\w.]+)"', text))


def _modules_with_examples() -> list[str]:
    import symloss
    out = []
    for info in pkgutil.walk_packages(symloss.__path__, "symloss."):
        name = info.name
        if name.startswith("symloss.cli") or name.endswith("__main__"):
            continue
        mod = importlib.import_module(name)
        if any(t.examples for t in doctest.DocTestFinder().find(mod)):
            out.append(name)
    return out


MODULES = [m for m in dict.fromkeys(_reference_modules() + _modules_with_examples()) if m not in _already_run()]


def test_every_module_of_the_reference_has_its_doctests_run():
    run = set(MODULES) | _already_run()
    assert set(_reference_modules()) <= run
    assert {"symloss.plot", "symloss.core.latex", "symloss.sweeps.checks"} <= set(MODULES)
    assert set(_modules_with_examples()) <= run          # every module with examples is run somewhere


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch, tmp_path):
    if name.startswith("symloss.plot"):
        mpl = pytest.importorskip("matplotlib")
        mpl.use("Agg")
    monkeypatch.chdir(tmp_path)
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                          extraglobs={"arb": __import__("flint").arb})
    assert res.failed == 0, f"{res.failed} doctest failures in {name}"
