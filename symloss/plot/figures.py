r"""One function per figure of a paper on these models.

Every function takes plain data (sequences of numbers, ``mpmath.mpf`` included: values far below the
float range are handled through their logarithms) or symloss result objects, labels its axes with
units, puts the legend where it covers no data (or outside the axes), takes ``width="single"`` (3.5 in)
or ``"double"`` (7.2 in) or a width in inches, and returns the :class:`matplotlib.figure.Figure`;
:func:`symloss.plot.savefig` writes it with its provenance.

The threshold marks and fitted slopes are in ``symloss.plot.annotate``, the load figures (blocking
ratios and curves, the JSQ heat map, exact against asymptotic) in ``symloss.plot.curves``; both are re-
exported here, and this module holds the finite-N, admission and supermarket figures.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ..core.docstrings import fill_doc
from ._docfragments import PLOT_DOCS
from ._style import (
    cap_probability_axis,
    figure_size,
    float_values,
    log10_values,
    new_figure,
    paper_style,
    place_legend,
)
from . import annotate as _annotate, curves as _curves
from .annotate import (  # noqa: F401 (re-exported: the figures' constants)
    EVIDENCE,
    N_LABEL,
    PROVED,
    RHO_LABEL,
    _as_array,
    _draw_fit,
    _finish,
    tail_slope,
    threshold_marks,
)
from .curves import blocking_curves, blocking_ratio, exact_vs_asymptotic, jsq_heatmap, retrial_vs_power

#: the figures re-exported from :mod:`.annotate` and :mod:`.curves`
_REEXPORTED = (*_annotate.__all__, *_curves.__all__)

__all__ = [*_REEXPORTED, "finite_n", "regret_decomposition", "supermarket_tails", "supermarket_distance",
           "mean_queue_vs_degree", "trajectories"]

#: the doctests of the figures re-exported here run with this module's
__test__ = {name: globals()[name] for name in _REEXPORTED}



def _value_ci(v):
    ci = getattr(v, "ci", None)
    val = float(getattr(v, "blocking", getattr(v, "value", v)))
    if ci is not None:
        return val, (float(ci[0]), float(ci[1]))
    return val, None


@paper_style
@fill_doc(PLOT_DOCS)
def finite_n(N, B_N, *, mean_field=None, V=None, W=None, ci=None, width="single", height=None,
             ylabel: str = r"blocking probability $B_N$", probability: bool = True, title: str | None = None):
    r"""Finite-:math:`N` blocking against :math:`N` with the mean field :math:`B`, the refined
    prediction :math:`B + V/N` and the second-order one :math:`B + V/N + W/N^2`; a second panel shows
    :math:`|B_N - B|` and :math:`|B_N - B - V/N|` on log-log axes, each with the least-squares line of
    its tail labelled with the slope it has (:func:`tail_slope`) and the one expected in theory
    (:math:`-1` and :math:`-2`).

    Parameters
    ----------
    N : sequence of int
    B_N : sequence of numbers or results (``ExactFiniteNResult``, ``SimulationResult``: their ``blocking``
        and, for simulations, ``ci``)
    mean_field : float or RefinedMeanFieldResult
        :math:`B` (a ``RefinedMeanFieldResult`` also gives ``V``).
    V, W : float, optional
        The :math:`1/N` and :math:`1/N^2` coefficients; ``W`` is fitted to the data (least squares on
        :math:`(B_N - B - V/N) N^2`, labelled "fitted") when not given.
    ci : sequence of (low, high), optional
        Confidence intervals of ``B_N`` (taken from the results when they carry one).
    {{width_height}}
    {{title}}
    ylabel : str
        The y-axis label of the top panel.
    probability : bool
        ``B_N`` is a probability (default): the top axis ends at 1 and a value above 1 is refused.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels: ``B_N`` with the predictions (top), the absolute errors with their fitted tails
        (bottom).

    Raises
    ------
    ValueError
        When ``B_N`` has not one value per ``N``, ``mean_field`` is missing or (``probability``) a value
        exceeds 1.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = finite_n([10, 20, 40], [0.074, 0.064, 0.0585], mean_field=0.0530, V=0.2225)
    >>> len(fig.axes), fig.axes[1].get_yscale()
    (2, 'log')
    """
    Ns = _as_array(N, "N")
    vals, cis = [], []
    for v in B_N:
        val, c = _value_ci(v)
        vals.append(val)
        cis.append(c)
    y = np.asarray(vals, dtype=float)
    if y.shape != Ns.shape:
        raise ValueError(f"B_N needs one value per N ({Ns.size}), got {y.size}")
    if ci is not None:
        cis = [tuple(map(float, c)) for c in ci]
    if mean_field is None:
        raise ValueError("mean_field (B, or a RefinedMeanFieldResult) is required")
    if probability and (np.any(y > 1) or np.any(y < 0)):
        raise ValueError(f"B_N: a blocking probability must lie in [0, 1], got values from {y.min()!r} to {y.max()!r}")
    if hasattr(mean_field, "blocking_mf"):
        V = float(mean_field.V) if V is None else V
        B = float(mean_field.blocking_mf)
    else:
        B = float(mean_field)
    fitted = False
    if W is None and V is not None and Ns.size >= 2:
        r = (y - B - V / Ns) * Ns ** 2
        half = max(1, Ns.size // 2)
        W = float(np.mean(r[np.argsort(Ns)][-half:]))
        fitted = True
    fig, axes = new_figure(width, height, nrows=2, sharex=True, gridspec_kw={"height_ratios": [1.3, 1.0]})
    ax, ax2 = axes[0, 0], axes[1, 0]
    if any(c is not None for c in cis):
        lo = np.array([c[0] if c else v for c, v in zip(cis, y)])
        hi = np.array([c[1] if c else v for c, v in zip(cis, y)])
        ax.errorbar(Ns, y, yerr=[y - lo, hi - y], fmt="o", color="k", ms=3, label=r"$B_N$ (95 % interval)")
    else:
        ax.plot(Ns, y, "o", color="k", ms=3, label=r"$B_N$")
    grid = np.geomspace(Ns.min(), Ns.max(), 200)
    ax.axhline(B, color="C0", lw=0.8, label=r"mean field $B$")
    if V is not None:
        ax.plot(grid, B + V / grid, color="C1", ls="--", label=r"$B + V/N$")
        if W is not None:
            ax.plot(grid, B + V / grid + W / grid ** 2, color="C2", ls="-.",
                    label=r"$B + V/N + W/N^2$" + (" (W fitted)" if fitted else ""))
    ax.set_xscale("log")
    ax.set_ylabel(ylabel)
    if probability:
        cap_probability_axis(ax)
    place_legend(ax)
    e1 = np.abs(y - B)
    (l1,) = ax2.plot(Ns, e1, "o-", color="C1", ms=3, label=r"$|B_N - B|$")
    _draw_fit(ax2, Ns, e1, l1, theory=-1)
    if V is not None:
        e2 = np.abs(y - B - V / Ns)
        ok = e2 > 0
        (l2,) = ax2.plot(Ns[ok], e2[ok], "s-", color="C2", ms=3, label=r"$|B_N - B - V/N|$")
        _draw_fit(ax2, Ns[ok], e2[ok], l2, theory=-2)
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel(N_LABEL)
    ax2.set_ylabel("absolute error")
    return _finish(fig, "finite_n", title, "finite-N blocking against N", legend=ax2)


# ------------------------------------------------------------------------------------------------
# admission control
# ------------------------------------------------------------------------------------------------

def _est(e):
    return float(getattr(e, "value", e)), float(getattr(e, "half_width", 0.0))


@paper_style
@fill_doc(PLOT_DOCS)
def regret_decomposition(study, *, width="single", height=None, show_fits: bool = True,
                         title: str | None = None):
    r"""The regret decomposition :math:`R_{fluid}-R_{on} = C_{vol}+C_{long}+C_{short}` against
    :math:`N` (log scale, i.e. against :math:`\ln N`): the top panel the costs the theorems bound
    (:math:`C_{vol}`; :math:`C_{long}` per window constant :math:`c`, bounded when :math:`c` is large
    enough), with each curve's fitted slope per :math:`\ln N` and its 95 % half-width in the legend, so
    that a window still too short at the simulated :math:`N` shows as a positive slope; the bottom panel
    the ones that grow (:math:`C_{short}` and the exact online regret), with 95 % intervals and the
    fitted lines :math:`\alpha + \beta\ln N` of the study.

    Parameters
    ----------
    study : DecompositionStudy
        From :meth:`symloss.OverloadedLossNetwork.decomposition_study`.
    {{width_height}}
    {{title}}
    show_fits : bool
        Draw the fitted lines of the study (default True).

    Returns
    -------
    matplotlib.figure.Figure
        Two panels, the bounded costs and then the growing ones: one above the other, side by side
        in a double-width figure.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import symloss
    >>> study = symloss.OverloadedLossNetwork.decomposition_study([10, 30], 0.5, 1, 2, 1, horizon=2.0,
    ...                                                           replications=2, c=(8,), seed=1)
    >>> fig = regret_decomposition(study)
    >>> fig.axes[1].get_xscale()
    'log'
    """
    decs = list(study.decompositions)
    if not decs:
        raise ValueError("the study has no decompositions")
    Ns = np.array([d.N for d in decs], dtype=float)
    cs = list(decs[0].C_long)
    wide = figure_size(width)[0] >= 5
    if wide:   # two columns: the panels side by side
        fig, axes = new_figure(width, height, ncols=2, aspect=0.36)
        ax, ax2 = axes[0, 0], axes[0, 1]
    else:
        fig, axes = new_figure(width, height, nrows=2, sharex=True)
        ax, ax2 = axes[0, 0], axes[1, 0]
    shift = 1.0 + 0.025 * (np.arange(len(cs) + 1) - len(cs) / 2)   # separate the error bars a little
    fits = getattr(study, "fits", {}) or {}

    def _slope(key):   # the fitted slope per ln N with its 95 % half-width, for the legend
        f = fits.get(key) if show_fits else None
        if f is None:
            return ""
        hw = f"{f.slope_hw:.2f}" if f.slope_hw >= 0.005 else "0.005"   # never a half-width printed as 0
        return rf": slope ${f.slope:.2f} \pm {hw}$"

    v = np.array([_est(d.C_vol) for d in decs])
    ax.errorbar(Ns * shift[0], v[:, 0], yerr=v[:, 1], fmt="o-", color="k", ms=3,
                label=r"$C_{vol}$" + _slope("C_vol"))
    for i, c in enumerate(cs):
        e = np.array([_est(d.C_long[c]) for d in decs])
        ax.errorbar(Ns * shift[i + 1], e[:, 0], yerr=e[:, 1], fmt="s--", color=f"C{i}", ms=3,
                    label=rf"$C_{{long}}$, $c = {c:g}$" + _slope(f"C_long[c={c:g}]"))
    ax.axhline(0.0, color="0.6", lw=0.5)
    ax.set_ylabel("cost per unit time\n(reward units)")
    if wide:
        ax.set_xscale("log")
        ax.set_xlabel(N_LABEL + " (log scale)")
        # the theorems say O(1) (C_long: for a window W >= c ln N / N with c large enough); the legend
        # gives each curve's fitted slope per ln N, so a curve still growing at these N is seen as such
        ax.set_title(r"bounded in theory: variability; long-run for large $c$")
        ax2.set_title(r"short-run uncertainty: growing like $\ln N$")
    place_legend(ax)
    for i, c in enumerate(cs):
        e = np.array([_est(d.C_short[c]) for d in decs])
        ax2.errorbar(Ns * shift[i + 1], e[:, 0], yerr=e[:, 1], fmt="^-", color=f"C{i}", ms=3,
                     label=rf"$C_{{short}}$, $c = {c:g}$")
    ax2.plot(Ns, [d.online_regret for d in decs], "k-", lw=1.0, label=r"$R_{fluid} - R_{on}$ (exact)")
    if show_fits and len(Ns) >= 2:
        grid = np.geomspace(Ns.min(), Ns.max(), 50)
        labelled = False
        for i, c in enumerate(cs):
            f = fits.get(f"C_short[c={c:g}]")
            if f is not None:
                ax2.plot(grid, f.intercept + f.slope * np.log(grid), color=f"C{i}", lw=0.6, ls=":",
                         label=None if labelled else r"fitted $\alpha + \beta \ln N$")
                labelled = True
    ax2.set_xscale("log")
    ax2.set_xlabel(N_LABEL + " (log scale)")
    ax2.set_ylabel("cost per unit time\n(reward units)")
    return _finish(fig, "regret_decomposition", title, "regret decomposition against ln N", legend=ax2)


# ------------------------------------------------------------------------------------------------
# supermarket model
# ------------------------------------------------------------------------------------------------

def _tail_values(v):
    for attr in ("stationary_s", "s"):
        if hasattr(v, attr):
            s = getattr(v, attr)
            return s[-1] if (attr == "s" and np.ndim(s) == 2) else s
    return v


@paper_style
@fill_doc(PLOT_DOCS)
def supermarket_tails(tails: Mapping, *, lam=None, d: int | None = None, k_max: int | None = None,
                      width="single", height=None, title: str | None = None):
    r"""Tail fractions :math:`s_k` (fraction of queues with at least :math:`k` tasks) against
    :math:`k` on a log axis; with ``lam`` and ``d`` the mean-field closed form
    :math:`s_k = \lambda^{(d^k-1)/(d-1)}` is added.

    Parameters
    ----------
    tails : mapping label -> values
        ``s_0, s_1, ...`` as numbers/mpf, a ``SupermarketFixedPoint`` (``.s``), a supermarket
        ``SimulationResult`` (``.stationary_s``) or a ``PairApproximationResult`` (``.s``).
    lam, d : optional
        Arrival rate and choices of the mean-field closed form to draw.
    k_max : int, optional
        Largest ``k`` shown.
    {{width_height}}
    {{title}}

    Returns
    -------
    matplotlib.figure.Figure
        One panel: a curve per label (and the mean-field closed form); the y axis ends at 1.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = supermarket_tails({"simulation": [1.0, 0.7, 0.35, 0.1, 0.02]}, lam=0.7, d=2)
    >>> fig.axes[0].get_yscale(), [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ('log', ['simulation', 'mean field $\\lambda^{(d^k-1)/(d-1)}$'])
    """
    fig, axes = new_figure(width, height)
    ax = axes[0, 0]
    markers = "osD^v<>ph"
    for i, (label, vals) in enumerate(tails.items()):
        lv = log10_values(_tail_values(vals))
        if np.any(lv[np.isfinite(lv)] > 0) or np.any(np.isnan(lv)):
            raise ValueError(f"tails[{label!r}]: a tail fraction s_k must lie in [0, 1]")
        k = np.arange(lv.size)
        ok = np.isfinite(lv) & (k >= 1)
        if k_max is not None:
            ok &= k <= k_max
        ax.plot(k[ok], 10.0 ** lv[ok], marker=markers[i % len(markers)], ms=3, color=f"C{i}", label=label)
    if lam is not None and d is not None:
        kk = np.arange(1, (k_max or 8) + 1)
        lv = np.array([((d ** int(k) - 1) / (d - 1) if d > 1 else int(k)) * math.log10(float(lam)) for k in kk])
        ok = lv > -300
        ax.plot(kk[ok], 10.0 ** lv[ok], color="k", ls="--", lw=0.8,
                label=r"mean field $\lambda^{(d^k-1)/(d-1)}$")
    ax.set_yscale("log")
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(r"queue length $k$ (tasks)")
    ax.set_ylabel(r"fraction of queues with $\geq k$ tasks, $s_k$")
    cap_probability_axis(ax)
    return _finish(fig, "supermarket_tails", title, "supermarket tails", legend=ax)


@paper_style
@fill_doc(PLOT_DOCS)
def supermarket_distance(results: Mapping, *, reference: bool = True, width="single", height=None,
                         ylabel: str = r"$\sup_{t \leq T} \max_k |s^N_k(t) - s_k(t)|$",
                         title: str | None = None):
    r"""Distance of the occupancy process on graphs to the mean-field ODE against :math:`N` (log-log),
    one curve per graph family with 95 % intervals, and the :math:`N^{-1/2}` reference.

    Parameters
    ----------
    results : mapping label -> sequence of DistanceResult
        (or of ``(N, distance, (low, high))`` tuples).
    reference : bool
        Draw :math:`N^{-1/2}` (default True).
    {{width_height}}
    {{title}}
    ylabel : str
        The y-axis label.

    Returns
    -------
    matplotlib.figure.Figure
        One panel (log-log): a curve per graph family, and the reference line.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = supermarket_distance({"complete": [(1000, 0.048, (0.04, 0.056)), (4000, 0.02, (0.017, 0.023))]})
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_yscale()
    ('log', 'log')
    """
    fig, axes = new_figure(width, height)
    ax = axes[0, 0]
    allN = []
    for i, (label, rs) in enumerate(results.items()):
        Ns, y, lo = [], [], []
        for r in rs:
            if hasattr(r, "distance"):
                n, dist, ci = r.N, r.distance, r.ci
            else:
                n, dist, ci = r
            Ns.append(float(n))
            y.append(float(dist))
            lo.append(float(ci[0]) if ci is not None and np.isfinite(ci[0]) else float(dist))
        Ns, y, lo = map(np.asarray, (Ns, y, lo))
        allN.extend(Ns)
        ax.errorbar(Ns, y, yerr=np.clip(y - lo, 0, None), fmt="o", ms=3, color=f"C{i % 10}",
                    ls="--" if i >= 10 else "-", label=label)
    if reference and allN:
        g = np.geomspace(min(allN), max(allN), 50)
        ax.plot(g, 1.0 / np.sqrt(g), "k:", lw=0.8, label=r"reference $N^{-1/2}$ (slope $-1/2$)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"number of vertices $N$")
    ax.set_ylabel(ylabel)
    return _finish(fig, "supermarket_distance", title, "distance to the mean-field ODE", legend=ax)


@paper_style
@fill_doc(PLOT_DOCS)
def mean_queue_vs_degree(points: Mapping, *, pair=None, mean_field=None, width="single", height=None,
                         title: str | None = None):
    r"""Stationary mean queue length per server against the degree :math:`k` of the graph (log
    :math:`k` axis): simulations with 95 % intervals, the pair approximation and the mean field.

    Parameters
    ----------
    points : mapping label -> sequence of (k, value)
        ``value`` a supermarket ``SimulationResult`` (its ``mean_queue_length`` and ``half_width``) or
        ``(mean, half_width)``.
    pair : (ks, values), optional
        The pair approximation's mean queue length at degrees ``ks``.
    mean_field : float, optional
        The complete-graph (mean-field) value.
    {{width_height}}
    {{title}}

    Returns
    -------
    matplotlib.figure.Figure
        One panel: the points of each label, with the pair approximation and the mean field when
        given.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = mean_queue_vs_degree({"random k-regular": [(2, (1.255, 0.002)), (6, (1.163, 0.001))]},
    ...                            mean_field=1.130118)
    >>> fig.axes[0].get_xlabel()
    'degree $k$ of the graph'
    """
    fig, axes = new_figure(width, height)
    ax = axes[0, 0]
    markers = "osD^v<>"
    for i, (label, pts) in enumerate(points.items()):
        ks, y, hw = [], [], []
        for k, v in pts:
            if hasattr(v, "mean_queue_length"):
                m, h = float(v.mean_queue_length), float(getattr(v, "half_width", 0.0))
            else:
                m, h = float(v[0]), float(v[1])
            ks.append(float(k))
            y.append(m)
            hw.append(h)
        ax.errorbar(ks, y, yerr=hw, fmt=markers[i % len(markers)], ms=3.5, color=f"C{i}", label=label)
    if pair is not None:
        ks, vals = pair
        ax.plot(np.asarray(ks, float), float_values(vals), "-", color="0.3", lw=0.9, label="pair approximation")
    if mean_field is not None:
        ax.axhline(float(mean_field), color="k", ls="--", lw=0.8, label="mean field (complete graph)")
    ax.set_xscale("log")
    ax.set_xlabel(r"degree $k$ of the graph")
    ax.set_ylabel(r"mean queue length $E[Q]$ (tasks per server)")
    return _finish(fig, "mean_queue_vs_degree", title, "mean queue length against degree", legend=ax)


@paper_style
@fill_doc(PLOT_DOCS)
def trajectories(t, series: Mapping, *, fixed: Mapping | None = None, log: bool = False, width="single",
                 height=None, xlabel: str = r"time $t$ (mean service times)", ylabel: str = "value",
                 probability: bool = False, title: str | None = None, styles: Mapping | None = None):
    r"""Time series (e.g. a fluid ODE from several starts) with optional fixed points as dotted lines;
    ``log=True`` for a log y axis (e.g. the distance to the fixed point).

    Parameters
    ----------
    t : sequence of float
        Times.
    series : mapping label -> sequence of float or 2-D array
        One value per time; a 2-D array (one row per run, e.g. several initial states) draws every
        row in the colour of the label, with one legend entry.
    fixed : mapping label -> float, optional
        Fixed points, drawn as dotted lines in the colour of their series.
    log : bool
        Log y axis.
    {{width_height}}
    {{title}}
    xlabel, ylabel : str
        Axis labels (with units).
    probability : bool
        The values are probabilities or fractions: the axis ends at 1 and a value outside
        ``[0, 1]`` is refused.
    styles : mapping label -> dict, optional
        Line properties of a series (``color``, ``lw``, ``ls``, ``alpha``; e.g. two series of one
        policy in one colour, one solid and one thin), over the defaults (colour ``C<i>`` of the
        series' position).

    Returns
    -------
    matplotlib.figure.Figure
        One panel: a line per series (per row of a 2-D series), and the fixed points.

    Raises
    ------
    ValueError
        When a series has not one value per time or (``probability``) a value lies outside ``[0, 1]``.
    TypeError
        When a ``styles`` entry is not a mapping or names a series that is not in ``series``.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = trajectories([0, 1, 2], {"$s_1$": [0.0, 0.5, 0.65]}, fixed={"$s_1$": 0.7}, ylabel="tail fraction")
    >>> fig.axes[0].get_ylabel()
    'tail fraction'
    """
    tt = _as_array(t, "t")
    styles = {} if styles is None else styles
    if not isinstance(styles, Mapping):
        raise TypeError(f"styles must be a mapping label -> dict of line properties, got {type(styles).__name__}")
    for label, st in styles.items():
        if label not in series:
            raise TypeError(f"styles names {label!r}, which is not a series (series: {list(series)})")
        if not isinstance(st, Mapping):
            raise TypeError(f"styles[{label!r}] must be a dict of line properties, got {type(st).__name__}")
    fig, axes = new_figure(width, height)
    ax = axes[0, 0]
    allv = []
    for i, (label, vals) in enumerate(series.items()):
        arr = np.asarray(vals, dtype=object)
        rows = [float_values(r) for r in arr] if arr.ndim == 2 else [float_values(vals)]
        style = {"color": f"C{i}", "alpha": 0.7 if len(rows) > 1 else 1.0, "lw": 0.9 if len(rows) > 1 else None}
        style.update(styles.get(label, {}))
        for j, y in enumerate(rows):
            if y.shape != tt.shape:
                raise ValueError(f"series {label!r}: {y.size} values for {tt.size} times")
            allv.append(y)
            ax.plot(tt, y, label=label if j == 0 else None, **style)
        if fixed and label in fixed:
            ax.axhline(float(fixed[label]), color=style["color"], lw=0.6, ls=":")
    if log:
        ax.set_yscale("log")
    if probability:
        cap_probability_axis(ax, np.concatenate(allv) if allv else None)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_xlim(tt.min(), tt.max())
    return _finish(fig, "trajectories", title, ylabel, legend=ax)
