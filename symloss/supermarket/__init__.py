"""Supermarket model on graphs (Budhiraja, Mukherjee and Wu, *Supermarket model on graphs*, 2019): mean field, graphs, simulation, distance to the ODE and
the pair approximation.

Modules: :mod:`.meanfield` (:class:`Supermarket`: the truncated mean-field ODE, its fixed point),
:mod:`.graphs` (:func:`make_graph`, :class:`Graph`), :mod:`.simulate` (:func:`simulate_supermarket`,
numba kernels in ``symloss.supermarket._kernels``), :mod:`.distance` (:func:`ode_distance`), :mod:`.pair`
(:func:`pair_approximation`).
"""
from .distance import DistanceResult, ode_distance
from .graphs import Graph, make_graph
from .meanfield import GRAPH_FAMILIES, OdeSolution, Supermarket, SupermarketFixedPoint
from .pair import PairApproximationResult, pair_approximation
from .simulate import SimulationResult, simulate_supermarket

__all__ = ["Supermarket", "SupermarketFixedPoint", "OdeSolution", "Graph", "SimulationResult",
           "DistanceResult", "PairApproximationResult", "make_graph", "simulate_supermarket",
           "ode_distance", "pair_approximation", "GRAPH_FAMILIES"]
