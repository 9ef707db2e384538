"""Mean-field models of load balancing between loss stations (retrial-of-d, power-of-d, random
routing, JSQ): model definitions, certified fixed points, comparisons and expansions.

Modules: :mod:`.models` (the shipped policies), :mod:`.compare` (crossings and thresholds between
two models), :mod:`.series` (expansions at small and large load).
"""
from .compare import CrossingResult, crossing_loads, threshold_load
from .models import BSYM, JSQ, RHO, FixedPointResult, OdeResult, PowerOfD, RandomRouting, RetrialOfD
from .series import BlockingSeries, blocking_expansion, blocking_series

__all__ = ["RetrialOfD", "PowerOfD", "RandomRouting", "JSQ", "FixedPointResult", "OdeResult",
           "crossing_loads", "threshold_load", "CrossingResult", "blocking_series", "blocking_expansion",
           "BlockingSeries", "RHO", "BSYM"]
