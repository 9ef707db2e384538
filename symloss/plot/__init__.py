r"""Figures for papers on loss systems and load balancing (matplotlib; ``pip install 'symloss[plot]'``).

One function per figure a paper on these models shows; each takes plain data or symloss result
objects, labels its axes (with units), keeps its legend off the data (a free corner, checked on the
drawn figure, or outside the axes), comes in one- and two-column widths (``width="single"`` = 3.5 in,
``"double"`` = 7.2 in, or inches) and returns the :class:`matplotlib.figure.Figure`. :func:`savefig`
writes PDF/PNG/SVG with the provenance (symloss and dependency versions, dps, seeds, command line, date)
in the file's metadata.

=================================  ==============================================================
:func:`blocking_ratio`             log-ratio of two blockings against the load, thresholds marked
:func:`retrial_vs_power`           the same, computed: retrial-of-dt against power-of-d
:func:`blocking_curves`            blocking against load on log-log axes
:func:`jsq_heatmap`                joint law p(m, n) of two queues under JSQ
:func:`exact_vs_asymptotic`        exact and asymptotic values with a relative-error panel
:func:`finite_n`                   finite-N values with the 1/N and 1/N^2 predictions
:func:`regret_decomposition`       C_vol, C_long, C_short and the online regret against ln N
:func:`supermarket_tails`          tail fractions s_k on a log axis
:func:`supermarket_distance`       distance to the mean-field ODE against N
:func:`mean_queue_vs_degree`       mean queue length against the graph degree
:func:`trajectories`               time series (fluid ODE) with fixed points
=================================  ==============================================================

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from symloss import plot
>>> fig = plot.blocking_curves([0.5, 1, 2], {"retrial-of-2": [0.01, 0.07, 0.3]})
>>> fig.axes[0].get_xscale(), fig.axes[0].get_yscale()
('log', 'log')
"""
from __future__ import annotations

try:
    import matplotlib  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("symloss.plot needs matplotlib: pip install 'symloss[plot]'") from exc

from ._style import WIDTHS, figure_size, legend_overlaps_data, place_legend, policy_label, savefig
from .figures import (
    blocking_curves,
    blocking_ratio,
    exact_vs_asymptotic,
    finite_n,
    jsq_heatmap,
    mean_queue_vs_degree,
    regret_decomposition,
    retrial_vs_power,
    supermarket_distance,
    supermarket_tails,
    trajectories,
)

__all__ = ["blocking_ratio", "retrial_vs_power", "blocking_curves", "jsq_heatmap", "exact_vs_asymptotic",
           "finite_n", "regret_decomposition", "supermarket_tails", "supermarket_distance", "mean_queue_vs_degree",
           "trajectories", "savefig", "figure_size", "place_legend", "legend_overlaps_data", "policy_label",
           "WIDTHS"]
