"""symloss: loss systems and load balancing, exact where possible, certified where it claims a
proof, arbitrarily precise where it returns a number, and fast.

Public names are imported lazily (``symloss.X`` loads the module that defines ``X`` on first use),
so ``import symloss`` stays cheap and numba is only loaded by the modules that need it. The
subpackages load the same way (``symloss.plot``, ``symloss.meanfield``, ...); they are not in
``__all__``, so ``from symloss import *`` does not import matplotlib.

The papers behind the families are listed with author, title and year in ``docs/papers.md``.
"""
from __future__ import annotations

import importlib

from ._version import __version__  # noqa: E402,F401

# public name -> defining module (relative to this package), or "module:attribute" for an alias
_EXPORTS = {
    # precision policy
    "PrecisionError": ".core.precision",
    "DEFAULT_DPS": ".core.precision",
    # Erlang-B (issue: Foundation)
    "erlang_b": ".erlang",
    "erlang_b_ball": ".erlang",
    "erlang_b_float": ".erlang",
    "log_erlang_b": ".erlang",
    "erlang_b_expr": ".erlang",
    "erlang_b_derivative": ".erlang",
    "erlang_b_capacity": ".erlang",
    "erlang_b_load": ".erlang",
    # models as data: the definition and the generic certified solver
    "MeanFieldModel": ".core.model",
    "define_model": ".core.model",
    "ModelDefinitionError": ".core.model",
    "RHO": ".core.model",
    "BSYM": ".core.model",
    "Enclosure": ".core.certify",
    "DefinitionMismatchWarning": ".core.certify",
    "register_accelerator": ".core.registry",
    # unbounded queues as user models, with a certified truncation bound (issue 24)
    "define_unbounded_model": ".core.unbounded",
    "verify_unbounded": ".core.unbounded",
    "UnboundedTailModel": ".core.unbounded",
    "UnboundedValues": ".core.unbounded_orbit",
    # mean-field retrial-of-d / power-of-d (Cuesta, Jonckheere, Prabhu, Brun, "Retrials in Loss Systems:
    # Mean-Field Analysis, Erlang Bounds, and Power-of-d Comparison", 2026) and comparisons of any two models
    "dominance": ".meanfield",
    "DominanceResult": ".meanfield",
    "RetrialOfD": ".meanfield",
    "PowerOfD": ".meanfield",
    "RandomRouting": ".meanfield",
    "JSQ": ".meanfield",
    "FixedPointResult": ".meanfield",
    "crossing_loads": ".meanfield",
    "threshold_load": ".meanfield",
    "ThresholdLoad": ".meanfield.compare",
    "evaluate": ".meanfield.evaluate",
    "Evaluation": ".meanfield.evaluate",
    "set_provenance_source": ".core.provenance",
    "CrossingResult": ".meanfield",
    "OdeResult": ".meanfield",
    "blocking_series": ".meanfield",
    "blocking_expansion": ".meanfield",
    "BlockingSeries": ".meanfield",
    # certified comparisons for every load (issue 14)
    "certified_comparison": ".meanfield.certified",
    "verify_comparison": ".meanfield.certified",
    "certified_threshold": ".meanfield.certified",
    "CertifiedComparison": ".meanfield.certified",
    # the threshold's law for large C (issue 25)
    "threshold_law": ".meanfield.threshold_law",
    "threshold_asymptotic": ".meanfield.threshold_law",
    "threshold_constants": ".meanfield.threshold_law",
    "ThresholdLaw": ".meanfield.threshold_law",
    # two M/M/N/N queues under JSQ (Yao, Knessl, "On the Shortest Queue Version of the Erlang Loss
    # Model", 2008)
    "TwoQueueJSQ": ".twoqueue",
    "jsq_regime": ".twoqueue",
    "TwoQueueDistribution": ".twoqueue",
    # finite N for any model: count chain, simulation, exact chain, refined mean field (Gast, Van Houdt,
    # "A refined mean field approximation", 2017), thresholds
    "simulate": ".finite_n",
    "exact_finite_n": ".finite_n",
    "finite_n_threshold": ".finite_n",
    "refined_mean_field": ".finite_n",
    "SimulationResult": ".finite_n",
    "ZeroObservationsWarning": ".core.stats",
    "ExactFiniteNResult": ".finite_n",
    "RefinedMeanFieldResult": ".finite_n",
    "FiniteNThresholdResult": ".finite_n",
    "conditional_blocking": ".finite_n",
    "finite_n_chain": ".finite_n",
    "count_symbols": ".finite_n",
    "certify_global_convergence": ".core.convergence",
    "verify_global_convergence": ".core.convergence",
    "GlobalConvergenceResult": ".core.convergence",
    "blocking_rational_function": ".finite_n",
    "certified_finite_n_threshold": ".finite_n",
    "BlockingRationalFunction": ".finite_n",
    "CertifiedFiniteNThreshold": ".finite_n",
    "certified_refined_V": ".finite_n",
    "verify_refined_V": ".finite_n",
    "CertifiedRefinedV": ".finite_n",
    "FiniteNChain": ".finite_n",
    "FiniteNModelError": ".finite_n",
    # supermarket model on graphs (Budhiraja, Mukherjee, Wu, "Supermarket model on graphs", 2019)
    "Supermarket": ".supermarket",
    "simulate_supermarket": ".supermarket",
    "pair_approximation": ".supermarket",
    "make_graph": ".supermarket",
    "ode_distance": ".supermarket",
    "Graph": ".supermarket",
    "SupermarketSimulationResult": ".supermarket:SimulationResult",
    "DistanceResult": ".supermarket",
    "PairApproximationResult": ".supermarket",
    "SupermarketFixedPoint": ".supermarket",
    "OdeSolution": ".supermarket",
    "GRAPH_FAMILIES": ".supermarket",
    # parameter sweeps
    "sweep": ".sweeps",
    "load_sweep": ".sweeps",
    "sweep_status": ".sweeps",
    "grid": ".sweeps",
    "zip_grid": ".sweeps",
    "Grid": ".sweeps",
    "SweepSummary": ".sweeps",
    # admission control with lookahead (Bray, "An Omega(log(N)/N) Lookahead is Sufficient to Bound Costs
    # in the Overloaded Loss Network", 2026)
    "OverloadedLossNetwork": ".admission",
    "SSS": ".admission",
    "PFI": ".admission",
    "TrunkReservation": ".admission",
    "WindowDP": ".admission",
    "fit_log_n": ".admission",
    "SamplePath": ".admission",
    "Estimate": ".admission",
}

__all__ = sorted(_EXPORTS) + ["__version__"]

#: subpackages, imported lazily as modules (``symloss.plot`` needs the optional matplotlib)
_SUBMODULES = ("admission", "cli", "core", "erlang", "finite_n", "meanfield", "plot", "supermarket", "sweeps",
               "twoqueue")


def __getattr__(name: str):
    if name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
        globals()[name] = value
        return value
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'symloss' has no attribute {name!r}") from None
    module, _, attr = module.partition(":")
    value = getattr(importlib.import_module(module, __name__), attr or name)
    globals()[name] = value
    return value


def __dir__():
    return __all__ + list(_SUBMODULES)
