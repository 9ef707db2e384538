"""symloss: loss systems and load balancing, exact where possible, certified where it claims a
proof, arbitrarily precise where it returns a number, and fast.

Public names are imported lazily (``symloss.X`` loads the module that defines ``X`` on first use),
so ``import symloss`` stays cheap and numba is only loaded by the modules that need it.
"""
from __future__ import annotations

import importlib

__version__ = "0.1.0"

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
    "Enclosure": ".core.certify",
    "DefinitionMismatchWarning": ".core.certify",
    "register_accelerator": ".core.registry",
    # mean-field retrial-of-d / power-of-d (seed 000)
    "dominance": ".meanfield",
    "DominanceResult": ".meanfield",
    "RetrialOfD": ".meanfield",
    "PowerOfD": ".meanfield",
    "RandomRouting": ".meanfield",
    "JSQ": ".meanfield",
    "FixedPointResult": ".meanfield",
    "crossing_loads": ".meanfield",
    "threshold_load": ".meanfield",
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
    # two M/M/N/N queues under JSQ (seed 003)
    "TwoQueueJSQ": ".twoqueue",
    "jsq_regime": ".twoqueue",
    "TwoQueueDistribution": ".twoqueue",
    # finite-N simulation and refined mean field (seed 000)
    "simulate": ".finite_n",
    "exact_finite_n": ".finite_n",
    "finite_n_threshold": ".finite_n",
    "refined_mean_field": ".finite_n",
    "SimulationResult": ".finite_n",
    "ExactFiniteNResult": ".finite_n",
    "RefinedMeanFieldResult": ".finite_n",
    "FiniteNThresholdResult": ".finite_n",
    "conditional_blocking": ".finite_n",
    "finite_n_chain": ".finite_n",
    "FiniteNChain": ".finite_n",
    "FiniteNModelError": ".finite_n",
    # supermarket model on graphs (seed 002)
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
    # admission control with lookahead (seed 001)
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


def __getattr__(name: str):
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'symloss' has no attribute {name!r}") from None
    module, _, attr = module.partition(":")
    value = getattr(importlib.import_module(module, __name__), attr or name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
