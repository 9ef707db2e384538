r"""Figures for papers on loss systems and load balancing (matplotlib; ``pip install 'symloss[plot]'``).

One function per figure a paper on these models shows; each takes plain data or symloss result
objects, labels its axes (with units; legend labels from the models' names, never a Python repr),
keeps its legend off the data (a free corner covering at most a quarter of the axes, checked on the
drawn figure, else above the axes in rows), comes in one- and two-column widths (``width="single"`` =
3.5 in, ``"double"`` = 7.2 in, or inches) and returns the :class:`matplotlib.figure.Figure`. One font
family (STIX, text and formulas alike), constrained layout with nothing clipped, ratios on log axes,
probability axes ending at 1, fitted slopes labelled with the slope they have, thresholds marked
PROVED (a certified object) or EVIDENCE (a number, a scan). :func:`savefig`
writes PDF/PNG/SVG with the provenance (symloss and dependency versions, dps, seeds, command line or
notebook, date) in the file's metadata; a bare file name goes to the one figure directory
:func:`figure_dir` (``$SYMLOSS_FIGURE_DIR``, else ``./symloss-figures/``).

=================================  ==============================================================
:func:`blocking_ratio`             ratio of two blockings against the load (log axes), thresholds marked
                                   PROVED or EVIDENCE
:func:`retrial_vs_power`           the same, computed: retrial-of-dt against power-of-d
:func:`blocking_curves`            blocking against load on log-log axes
:func:`jsq_heatmap`                joint law p(m, n) of two queues under JSQ
:func:`exact_vs_asymptotic`        exact and asymptotic values with a relative-error panel
:func:`finite_n`                   finite-N values with the 1/N and 1/N^2 predictions
:func:`regret_decomposition`       C_vol, C_long, C_short and the online regret against ln N
:func:`supermarket_tails`          tail fractions s_k on a log axis
:func:`supermarket_distance`       distance to the mean-field ODE against N
:func:`mean_queue_vs_degree`       mean queue length against the graph degree
:func:`trajectories`               time series (fluid ODE, several runs a label) with fixed points
=================================  ==============================================================

Helpers for a figure drawn by hand in the same style: :func:`paper_rc` (the settings),
:func:`new_figure`, :func:`place_legend`, :func:`cap_probability_axis`, :func:`finish_figure`;
:func:`threshold_marks` (what a threshold object proves) and :func:`tail_slope` (a fitted slope).

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

from ._style import (
    FONT_FAMILY,
    MATH_FONTSET,
    WIDTHS,
    cap_probability_axis,
    figure_size,
    finish_figure,
    fit_labels,
    legend_is_above,
    legend_overlaps_data,
    new_figure,
    paper_rc,
    place_legend,
    policy_label,
    savefig,
)
from ._save import DEFAULT_FIGURE_DIR, FIGURE_DIR_ENV, figure_dir
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
    tail_slope,
    threshold_marks,
    trajectories,
)

__all__ = ["blocking_ratio", "retrial_vs_power", "blocking_curves", "jsq_heatmap", "exact_vs_asymptotic",
           "finite_n", "regret_decomposition", "supermarket_tails", "supermarket_distance", "mean_queue_vs_degree",
           "trajectories", "savefig", "figure_size", "new_figure", "paper_rc", "finish_figure", "fit_labels",
           "cap_probability_axis", "place_legend", "legend_overlaps_data", "legend_is_above", "policy_label",
           "threshold_marks", "tail_slope", "WIDTHS", "FONT_FAMILY", "MATH_FONTSET", "figure_dir", "FIGURE_DIR_ENV",
           "DEFAULT_FIGURE_DIR"]
