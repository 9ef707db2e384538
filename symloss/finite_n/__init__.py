"""Finite-N load balancing in loss systems, for any model: the count chain generated from the model's
definition, its exact stationary solution, simulation (generated count-level kernels; hand-written
server-level kernels as a checked fast path), the refined mean field and finite-N thresholds.

Modules: :mod:`.chain` (the count chain of a definition, its state space and checks), :mod:`.exact`
(the exact chain), :mod:`.simulate` (the simulator; server-level kernels in the private ``_kernels``,
generated kernels :mod:`.generated`), :mod:`.refined` (refined mean field; :mod:`.refined_certified`: its ``V`` certified), :mod:`.threshold`
(finite-N thresholds), :mod:`.rational` (the exact blocking as a rational function of the load and
certified finite-N thresholds), :mod:`.common` (policy names, sampling conventions, checks).
"""
from .chain import FiniteNChain, FiniteNModelError, count_symbols, finite_n_chain
from .common import conditional_blocking
from .exact import ExactFiniteNResult, exact_finite_n
from .rational import (BlockingRationalFunction, CertifiedFiniteNThreshold, blocking_rational_function,
                       certified_finite_n_threshold)
from .refined import RefinedMeanFieldResult, refined_mean_field
from .refined_certified import CertifiedRefinedV, certified_refined_V, verify_refined_V
from .simulate import SimulationResult, simulate
from .threshold import FiniteNThresholdResult, finite_n_threshold

__all__ = ["count_symbols", "blocking_rational_function", "certified_finite_n_threshold", "BlockingRationalFunction",
           "CertifiedFiniteNThreshold", "simulate", "SimulationResult", "exact_finite_n", "ExactFiniteNResult",
           "refined_mean_field", "RefinedMeanFieldResult", "certified_refined_V", "verify_refined_V",
           "CertifiedRefinedV", "finite_n_threshold",
           "FiniteNThresholdResult", "conditional_blocking", "finite_n_chain", "FiniteNChain",
           "FiniteNModelError"]
