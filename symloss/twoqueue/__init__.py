"""Two M/M/N/N queues under join-the-shortest-queue: the shortest-queue Erlang loss model (seed 003).

Modules: :mod:`.jsq` (the model, its exact stationary distribution and :func:`jsq_regime`),
:mod:`.levels` (the exact level law), :mod:`.asymptotic` (the asymptotic regimes), :mod:`._kernels`
(numba Gauss-Seidel).
"""
from .jsq import (
    METHOD_LIMITS,
    TwoQueueDistribution,
    TwoQueueJSQ,
    jsq_regime,
    transitions,
)

__all__ = ["TwoQueueJSQ", "TwoQueueDistribution", "jsq_regime", "METHOD_LIMITS", "transitions"]
