"""Admission control with lookahead in the overloaded two-class loss network (Bray 2026).

Modules: :mod:`.network` (:class:`OverloadedLossNetwork`: fluid LP, online optimum, sample paths,
offline optimum, policy evaluation, decomposition), :mod:`.policies` (:class:`SSS`, :class:`PFI`,
:class:`TrunkReservation`, :class:`WindowDP`), :mod:`.results` (result types), :mod:`.study` (the
study over ``N`` and :func:`fit_log_n`), the private ``_kernels`` (numba kernels).
"""
from .network import OverloadedLossNetwork
from .policies import PFI, SSS, TrunkReservation, WindowDP
from .results import (
                      Decomposition,
                      Estimate,
                      IntervalLPResult,
                      JobSample,
                      OfflineResult,
                      OnlineOptimum,
                      PolicyResult,
                      SamplePath,
                      TrunkReservationReward,
)
from .study import DecompositionStudy, LogFit, fit_log_n

__all__ = ["OverloadedLossNetwork", "SSS", "PFI", "TrunkReservation", "WindowDP", "OnlineOptimum",
           "TrunkReservationReward", "SamplePath", "JobSample", "OfflineResult", "PolicyResult",
           "IntervalLPResult", "Estimate", "Decomposition", "LogFit", "fit_log_n", "DecompositionStudy"]
