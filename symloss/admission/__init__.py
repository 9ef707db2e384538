"""Admission control with lookahead in the overloaded two-class loss network (Bray 2026).

Modules: :mod:`.network` (:class:`OverloadedLossNetwork`: fluid LP, online optimum, sample paths,
offline optimum, policy evaluation, decomposition), :mod:`.policies` (:class:`SSS`, :class:`PFI`,
:class:`TrunkReservation`, :class:`WindowDP`), :mod:`.results` (result types), :mod:`.study` (the
study over ``N`` and :func:`fit_log_n`), the private ``_kernels`` (numba kernels).
"""
from . import network as _network, policies as _policies, results as _results
from .network import *  # noqa: F403 - OverloadedLossNetwork
from .policies import *  # noqa: F403 - the policies
from .results import *  # noqa: F403 - the result types
from .study import DecompositionStudy, LogFit, fit_log_n

__all__ = [*_network.__all__, *_policies.__all__, *_results.__all__, "LogFit", "fit_log_n", "DecompositionStudy"]
