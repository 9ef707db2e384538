"""Two M/M/N/N queues under join-the-shortest-queue: the shortest-queue Erlang loss model
(H. Yao, C. Knessl, "On the Shortest Queue Version of the Erlang Loss Model", 2008).

Modules: :mod:`.definition` (the model, written once as a rule table), :mod:`.kernels` (level kernels
generated from the definition, with structure checks), :mod:`.solvers` (level reduction and float
Gauss-Seidel on generated kernels), :mod:`.jsq` (the model class, its exact stationary distribution
and :func:`jsq_regime`), :mod:`.levels` (the exact level law), :mod:`.asymptotic` (the asymptotic
regimes), the private ``_kernels`` (numba Gauss-Seidel).
"""
from .definition import RULES, Rule, transitions
from .jsq import (
    METHOD_LIMITS,
    TwoQueueDistribution,
    TwoQueueJSQ,
    jsq_regime,
)
from .kernels import LevelKernels, StructureError, level_kernels

__all__ = ["METHOD_LIMITS", "RULES", "LevelKernels", "Rule", "StructureError", "TwoQueueDistribution",
           "TwoQueueJSQ", "jsq_regime", "level_kernels", "transitions"]
