"""Mean-field models of load balancing between loss stations (retrial-of-d, power-of-d, random
routing, JSQ): model definitions, verified accelerators, comparisons, closed forms and expansions.

Modules: :mod:`.models` (the shipped policies, as :class:`~symloss.MeanFieldModel` definitions),
:mod:`.accelerators` (Erlang-B reduction, shooting, JSQ closed form; registered for those classes and
checked against each definition), :mod:`.compare` (crossings, thresholds and dominance between any
two models), :mod:`.elimination` (eliminants), :mod:`.series` (expansions at small and large load),
:mod:`.certified` (certified comparisons for every load: :func:`~symloss.certified_comparison`), with
:mod:`.enclosures` (the one-dimensional retrial/power-of-d reduction, ball samples), :mod:`.taylor`
(Taylor models in ball arithmetic) and :mod:`.certified_generic` (any two models).
"""
from . import accelerators  # noqa: F401  (registers the accelerators)
from .compare import CrossingResult, DominanceResult, crossing_loads, dominance, threshold_load
from .models import BSYM, JSQ, RHO, FixedPointResult, OdeResult, PowerOfD, RandomRouting, RetrialOfD
from .series import BlockingSeries, blocking_expansion, blocking_series

__all__ = ["RetrialOfD", "PowerOfD", "RandomRouting", "JSQ", "FixedPointResult", "OdeResult",
           "crossing_loads", "threshold_load", "dominance", "CrossingResult", "DominanceResult",
           "blocking_series", "blocking_expansion", "BlockingSeries", "RHO", "BSYM"]
