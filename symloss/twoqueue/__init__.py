"""Two M/M/N/N queues under join-the-shortest-queue: the shortest-queue Erlang loss model
(H. Yao, C. Knessl, "On the Shortest Queue Version of the Erlang Loss Model", 2008).

Modules: :mod:`.definition` (the model, written once as a rule table), :mod:`.kernels` (level kernels
generated from the definition, with structure checks), :mod:`.solvers` (level reduction and float
Gauss-Seidel on generated kernels), :mod:`.jsq` (the model class, a thin face over its solvers, with
:class:`TwoQueueDistribution` and :func:`jsq_regime`), :mod:`.levels` (the exact level law),
:mod:`.asymptotic` (the asymptotic regimes), :mod:`.derivation` (their SymPy derivations), :mod:`.series`
(the corner law's coefficients), the private ``_kernels`` (numba Gauss-Seidel).

The solvers behind :class:`TwoQueueJSQ` are functions of the model in modules by subsystem, re-exported
from the paths above: ``float_solve`` (``method="float"``, generator, residual), ``exact_solve``
(``"mp"``, ``"exact"``, ``"symbolic"``), ``asymptotic_model`` (the asymptotic methods), ``distribution``
(the result object), ``regimes``; ``outer_law``, ``corner`` and ``summaries`` (the numerical asymptotics,
re-exported by :mod:`.asymptotic`); ``derive_lumped``, ``derive_outer``, ``derive_corner`` and
``derive_blocking`` (the derivations, re-exported by :mod:`.derivation`); ``_numba`` (the one lazy import
of numba) and ``_public`` (where a moved object is documented).
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
