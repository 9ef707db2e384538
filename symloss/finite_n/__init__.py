"""Finite-N load balancing in loss systems: simulation, the exact occupancy-count chain, the refined
mean field and finite-N thresholds.

Modules: :mod:`.common` (policies, sampling conventions, checks), :mod:`.simulate` (the simulator and
its numba kernel :mod:`._kernels`), :mod:`.exact` (the exact chain), :mod:`.refined` (refined mean
field), :mod:`.threshold` (finite-N thresholds).
"""
from .common import conditional_blocking
from .exact import ExactFiniteNResult, exact_finite_n
from .refined import RefinedMeanFieldResult, refined_mean_field
from .simulate import SimulationResult, simulate
from .threshold import FiniteNThresholdResult, finite_n_threshold

__all__ = ["simulate", "SimulationResult", "exact_finite_n", "ExactFiniteNResult",
           "refined_mean_field", "RefinedMeanFieldResult", "finite_n_threshold",
           "FiniteNThresholdResult", "conditional_blocking"]
