"""The docstring examples run (doctest) for the modules whose examples are part of the documentation."""
import doctest
import importlib

import pytest

MODULES = ["symloss.meanfield.threshold_law", "symloss.finite_n.refined_certified", "symloss.erlang.erlang_b", "symloss.meanfield.models", "symloss.meanfield.compare",
           "symloss.core.precision", "symloss.meanfield.series", "symloss.supermarket.meanfield",
           "symloss.supermarket.graphs", "symloss.supermarket.simulate", "symloss.supermarket.distance",
           "symloss.supermarket.pair", "symloss.finite_n.simulate", "symloss.finite_n.exact",
           "symloss.finite_n.refined", "symloss.finite_n.threshold", "symloss.finite_n.rational", "symloss.core.convergence", "symloss.core.polyroots", "symloss.twoqueue.jsq",
           "symloss.twoqueue.definition", "symloss.twoqueue.kernels", "symloss.twoqueue.derivation",
           "symloss.admission.network", "symloss.admission.results", "symloss.admission.policies",
           "symloss.admission.study", "symloss.sweeps.grid", "symloss.sweeps.engine", "symloss.sweeps.functions",
           "symloss.meanfield.certified", "symloss.core.certify", "symloss.core.model"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                          extraglobs={"arb": __import__("flint").arb})
    assert res.failed == 0, f"{res.failed} doctest failures in {name}"
