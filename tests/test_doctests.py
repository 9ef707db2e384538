"""The docstring examples run (doctest) for the modules whose examples are part of the documentation."""
import doctest
import importlib

import pytest

MODULES = ["symloss.erlang", "symloss.meanfield", "symloss._precision", "symloss.meanfield_series",
           "symloss.supermarket", "symloss.simulation", "symloss.twoqueue", "symloss.admission", "symloss.sweep"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                          extraglobs={"arb": __import__("flint").arb})
    assert res.failed == 0, f"{res.failed} doctest failures in {name}"
