r"""The load figures of :mod:`symloss.plot.figures`: blocking ratios with threshold marks, blocking
curves, the joint law of two queues under JSQ, exact against asymptotic values. Re-exported by
:mod:`symloss.plot.figures`.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..core.docstrings import fill_doc
from ..meanfield.certified import certified_threshold, verify_comparison
from ..meanfield.compare import threshold_load
from ..meanfield.models import PowerOfD, RetrialOfD
from ._docfragments import PLOT_DOCS
from ._style import (
    cap_probability_axis,
    float_values,
    log10_values,
    new_figure,
    paper_style,
    place_legend,
    policy_label,
)
from .annotate import (
    PROVED,
    RHO_LABEL,
    _as_array,
    _draw_fit,
    _finish,
    _finite_positive,
    _info,
    _is_model,
    _mark_thresholds,
    _recheck,
    threshold_marks,
)

__all__ = ["blocking_ratio", "retrial_vs_power", "blocking_curves", "jsq_heatmap", "exact_vs_asymptotic"]


@paper_style
@fill_doc(PLOT_DOCS)
def blocking_ratio(rho, B_a, B_b=None, *, thresholds=None, labels=("retrial-of-$\\tilde d$", "power-of-$d$"),
                   width="single", height=None, title: str | None = None, ylabel: str | None = None,
                   zoom="auto", dps: int = 15):
    r"""The ratio :math:`B_a/B_b` of two blockings against the load, on log-log axes, with thresholds
    marked: where the curve crosses 1 the two policies block equally; below 1, policy *a* blocks less.
    Each threshold is written with its status, ``PROVED`` (a certified object, see
    ``threshold_marks``) or ``EVIDENCE`` (a number, a float scan).

    Parameters
    ----------
    rho : sequence of float
        Loads (plotted on a log axis).
    B_a, B_b : sequences of numbers, mpf or FixedPointResult, or models
        The two blockings at ``rho`` (values below the float range are fine), or two model objects
        (``.blocking(rho, dps=...)`` is evaluated here). ``B_a`` may instead be a mapping
        ``{label: (B_a, B_b)}`` for several curves (then ``B_b`` is None).
    thresholds : float, sequence, CrossingResult, CertifiedComparison or mapping label -> those, optional
        Thresholds / crossing loads, drawn as vertical lines (dotted: PROVED, dashed: EVIDENCE) with
        their value and status. A ``CertifiedComparison`` beside a pair of models is re-checked
        (:func:`~symloss.meanfield.certified.verify_comparison`) before it is marked PROVED.
    labels : (str or model, str or model)
        Names of policy *a* and *b* for the axis label (a model gives its name, see
        :func:`~symloss.plot.policy_label`).
    {{width_height}}
    {{title}}
    ylabel : str, optional
        The y-axis label (default from ``labels``).
    zoom : "auto", None or float
        A second panel below shows the ratios within a factor ``zoom`` of 1 (the crossings,
        magnified, with the thresholds written there). ``"auto"`` (default): ``zoom = 2`` when the
        ratios span more than 4 decades and some lie within a factor 2 of 1; None: one panel. Where a
        curve is a pair of models, each grid cell with a ratio within a factor ``zoom**1.5`` of 1 gets
        eight more loads (geometric), so the magnified panel is smooth.
    dps : int
        Digits of the blockings evaluated here (models given).

    Returns
    -------
    matplotlib.figure.Figure
        One panel of ratios (log-log; :math:`\log_{10}` of the ratio on a linear axis beyond the
        float range), and the magnified panel below it when ``zoom`` is set.

    Raises
    ------
    ValueError
        When the loads are not positive, a curve has not one value per load, a blocking is not
        positive (the ratio is undefined) or ``zoom`` is not above 1.
    TypeError
        For thresholds of an unknown type.

    Notes
    -----
    When a ratio lies outside the float range (:math:`|\log_{10} B_a/B_b| > 300`), the y axis shows
    :math:`\log_{10}(B_a/B_b)` on a linear scale instead, as its label says.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = blocking_ratio([0.5, 1, 2], [1e-3, 0.05, 0.2], [2e-3, 0.04, 0.21], thresholds=0.8)
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_yscale()
    ('log', 'log')
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['$\\rho^* = 0.8$\nEVIDENCE']
    """
    rho = _as_array(rho, "rho")
    _finite_positive(rho, "rho")
    curves = B_a if isinstance(B_a, Mapping) else {None: (B_a, B_b)}
    if isinstance(B_a, Mapping) and B_b is not None:
        raise ValueError("give B_b only when B_a is a sequence (not a mapping of curves)")
    thr = thresholds if isinstance(thresholds, Mapping) else {None: thresholds}
    marks = {label: threshold_marks(t) for label, t in thr.items()}      # TypeError before any work
    logs, grids, model_pairs = {}, {}, {}

    def _log_ratio(label, a, b, at):
        if _is_model(a):
            a = [a.blocking(float(r), dps=dps) for r in at]
        if _is_model(b):
            b = [b.blocking(float(r), dps=dps) for r in at]
        la, lb = log10_values(a), log10_values(b)
        if la.shape != at.shape or lb.shape != at.shape:
            raise ValueError(f"B_a and B_b must have one value per load ({at.size}); got {la.size} and {lb.size}")
        if not (np.all(np.isfinite(la)) and np.all(np.isfinite(lb))):
            raise ValueError(f"curve {label!r}: every blocking must be positive (the ratio B_a/B_b is plotted)")
        return la - lb

    for label, pair in curves.items():
        a, b = pair
        if _is_model(a) and _is_model(b):
            model_pairs[label] = (a, b)
            if thr.get(label) is not None:
                _recheck(thr[label], a, b)
        logs[label], grids[label] = _log_ratio(label, a, b, rho), rho
    allv = np.concatenate(list(logs.values()))
    as_log10 = bool(np.max(np.abs(allv)) > 300)
    if zoom == "auto":
        zoom = 2.0 if (np.ptp(allv) > 4 and np.any(np.abs(allv) < math.log10(2.0))) else None
    if zoom is not None:
        zoom = float(zoom)
        if not (zoom > 1 and math.isfinite(zoom)):
            raise ValueError(f"zoom must be 'auto', None or a number > 1, got {zoom!r}")
    if zoom is not None:     # models: refine the grid where the ratio is within the zoom band
        for label, (a, b) in model_pairs.items():
            y, band = logs[label], 1.5 * math.log10(zoom)
            near = np.abs(y) < band
            cells = np.flatnonzero(near[:-1] | near[1:])
            if cells.size:
                extra = np.concatenate([np.geomspace(rho[i], rho[i + 1], 10)[1:-1] for i in cells])
                fine = np.union1d(rho, extra)
                grids[label], logs[label] = fine, _log_ratio(label, a, b, fine)
    if zoom is None:
        fig, axes = new_figure(width, height)
        ax, zax = axes[0, 0], None
    else:
        fig, axes = new_figure(width, height, nrows=2, sharex=True, gridspec_kw={"height_ratios": [1.3, 1.0]})
        ax, zax = axes[0, 0], axes[1, 0]
    colours = {label: f"C{i}" for i, label in enumerate(curves)}
    for a_ in (ax, zax):
        if a_ is None:
            continue
        for label, y in logs.items():
            a_.plot(grids[label], y if as_log10 else 10.0 ** y, color=colours[label],
                    label=label if a_ is ax else None)
        a_.set_xscale("log")
        if not as_log10:
            a_.set_yscale("log")
        a_.axhline(0.0 if as_log10 else 1.0, color="0.4", lw=0.6, ls="-", zorder=0)
        a_.set_xlim(rho.min(), rho.max())
    (zax or ax).set_xlabel(RHO_LABEL)
    la_, lb_ = (policy_label(x) if not isinstance(x, str) else x for x in labels)
    if ylabel is None:
        ylabel = rf"blocking ratio $B$({la_}) / $B$({lb_})"
        if as_log10:
            ylabel = rf"$\log_{{10}}$ of the blocking ratio $B$({la_}) / $B$({lb_})"
    ax.set_ylabel(ylabel)
    if zax is not None:          # the crossings of 1, magnified: ratios within a factor zoom of 1
        lo_z = max(float(np.min(allv)), -math.log10(zoom))
        hi_z = min(float(np.max(allv)), math.log10(zoom))
        pad = 0.08 * max(hi_z - lo_z, 0.02)
        lo_z, hi_z = min(lo_z - pad, -0.01), max(hi_z + pad, 0.01)
        zax.set_ylim(*((lo_z, hi_z) if as_log10 else (10.0 ** lo_z, 10.0 ** hi_z)))
        zax.set_ylabel(f"the same, within a\nfactor {zoom:g} of 1")
        for label, m in marks.items():
            for value, status in m:
                ax.axvline(value, color=colours.get(label, "0.3"), lw=0.8, ls=":" if status == PROVED else "--",
                           zorder=1)
    for label, m in marks.items():
        _mark_thresholds(zax or ax, m, colours.get(label, "0.3"))
    legend = ax if any(lbl is not None for lbl in curves) else None     # one unlabelled curve: no legend
    return _finish(fig, "blocking_ratio", title, f"blocking ratio {la_} / {lb_}", legend=legend, dps=dps)


@paper_style
@fill_doc(PLOT_DOCS)
def retrial_vs_power(C, d: int = 2, dt: int = 3, *, rho=None, dps: int = 15, width="single", height=None,
                     thresholds: bool = True, title: str | None = None):
    r"""Mean-field retrial-of-:math:`\tilde d` against power-of-:math:`d`: :func:`blocking_ratio` of the
    certified blockings at each load, with the certified thresholds marked PROVED, for one or several
    capacities ``C`` (e.g. ``C=[3, 5]`` shows the thresholds near 0.95 and 2.96 of ``d = 2``,
    ``dt = 3``).

    The thresholds come from :func:`~symloss.meanfield.certified.certified_threshold` (every crossing
    on :math:`(0, \infty)`), re-checked by
    :func:`~symloss.meanfield.certified.verify_comparison` before they are drawn; where that proof
    cannot be completed, :func:`symloss.threshold_load` (a float scan) is drawn and marked EVIDENCE.

    Parameters
    ----------
    C : int or sequence of int
        Capacities, one curve each.
    d, dt : int
        Samples of power-of-d and attempts of retrial-of-dt (``dt > d``).
    rho : sequence of float, optional
        Loads (default 60 points from 0.05 to 50, geometric); the thresholds inside the range are
        added, so that each curve passes through 1 at its threshold.
    dps : int
        Digits of the certified blockings; width :math:`10^{-\mathrm{dps}}` of the threshold intervals.
    {{width_height}}
    {{title}}
    thresholds : bool
        Mark the thresholds (default True).

    Returns
    -------
    matplotlib.figure.Figure
        The figure of :func:`blocking_ratio`: one curve per capacity, its thresholds marked.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = retrial_vs_power(3, 2, 3, rho=[0.5, 1.0, 2.0])
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['$\\rho^* = 0.9496$\nPROVED']
    """
    Cs = [C] if isinstance(C, int) else list(C)
    rho = np.geomspace(0.05, 50.0, 60) if rho is None else rho
    rho = _as_array(rho, "rho")
    _finite_positive(rho, "rho")
    thr = {}
    if thresholds:
        for c in Cs:
            ret, pod = RetrialOfD(c, dt), PowerOfD(c, d)
            try:
                res = certified_threshold(c, d, dt, dps=dps)
                verify_comparison(res.certificate, ret, pod)
                thr[f"$C = {c}$"] = res
            except ArithmeticError:
                t = threshold_load(c, d, dt, dps=dps)
                thr[f"$C = {c}$"] = [t] if t > 0 else []
    # the curves also pass through the crossings themselves (a coarse grid would cross 1 elsewhere)
    extra = [v for m in thr.values() for v, _ in threshold_marks(m) if rho.min() < v < rho.max()]
    rho = np.unique(np.concatenate([rho, np.asarray(extra, dtype=float)]))
    # the models themselves: blocking_ratio evaluates them, on a finer grid inside the zoom band
    curves = {f"$C = {c}$": (RetrialOfD(c, dt), PowerOfD(c, d)) for c in Cs}
    fig = blocking_ratio(rho, curves, thresholds=thr, labels=(f"retrial-of-{dt}", f"power-of-{d}"), width=width,
                         height=height, dps=dps)
    return _finish(fig, "retrial_vs_power", title, f"retrial-of-{dt} vs power-of-{d}, C = {Cs}", dps=dps)


@paper_style
@fill_doc(PLOT_DOCS)
def blocking_curves(rho, curves: Mapping, *, width="single", height=None, dps: int = 15, ylabel=None,
                    title: str | None = None):
    r"""Blocking probabilities against the load on log-log axes.

    Parameters
    ----------
    rho : sequence of float
    curves : mapping label -> values
        Values are numbers, ``mpf`` or ``FixedPointResult`` (one per load), or a model object with
        ``blocking(rho, dps=...)`` (evaluated here). A label None is replaced by the model's policy name
        (``retrial-of-2``, ``power-of-2``, ...). When some blocking is below the float range the y axis
        shows :math:`\log_{10} B` on a linear scale instead.
    {{width_height}}
    {{title}}
    dps : int
        Digits used when a model is evaluated here.
    ylabel : str, optional
        The y-axis label (default: blocking probability).

    Returns
    -------
    matplotlib.figure.Figure
        One panel, a curve per label; the y axis ends at 1 (a probability).

    Raises
    ------
    ValueError
        When the loads are not positive, a curve has not one value per load or a value exceeds 1.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import symloss
    >>> fig = blocking_curves([0.5, 1, 2], [symloss.RetrialOfD(2, 2), symloss.PowerOfD(2, 2)])
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['retrial-of-2', 'power-of-2']
    """
    rho = _as_array(rho, "rho")
    _finite_positive(rho, "rho")
    if isinstance(curves, Sequence) and not isinstance(curves, Mapping):
        curves = {policy_label(m) if hasattr(m, "blocking") else f"curve {i + 1}": m for i, m in enumerate(curves)}
    logs = {}
    for label, vals in curves.items():
        if hasattr(vals, "blocking") and callable(vals.blocking):
            model = vals
            vals = [model.blocking(float(r), dps=dps) if (model.name != "jsq" or r > model.C) else 0 for r in rho]
            label = label if label is not None else policy_label(model)
        lv = log10_values(vals)
        if lv.shape != rho.shape:
            raise ValueError(f"curve {label!r}: {lv.size} values for {rho.size} loads")
        if np.any(lv[np.isfinite(lv)] > 0):
            raise ValueError(f"curve {label!r}: a blocking probability must be <= 1, got "
                             f"10^{float(np.nanmax(lv)):.3g}")
        logs[label if label is not None else "blocking"] = lv
    finite = np.concatenate([v[np.isfinite(v)] for v in logs.values()]) if logs else np.zeros(0)
    as_log10 = finite.size > 0 and finite.min() < -300
    fig, axes = new_figure(width, height)
    ax = axes[0, 0]
    for i, (label, lv) in enumerate(logs.items()):
        y = lv if as_log10 else np.where(np.isfinite(lv), 10.0 ** lv, np.nan)
        ax.plot(rho, y, color=f"C{i}", label=label)
    ax.set_xscale("log")
    if as_log10:
        ax.set_ylabel(ylabel or r"$\log_{10}$ of the blocking probability $B$")
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, min(hi, 0.0))
    else:
        ax.set_yscale("log")
        ax.set_ylabel(ylabel or r"blocking probability $B$")
        cap_probability_axis(ax)
    ax.set_xlabel(RHO_LABEL)
    ax.set_xlim(rho.min(), rho.max())
    return _finish(fig, "blocking_curves", title, "blocking against load", legend=ax, dps=dps)


# ------------------------------------------------------------------------------------------------
# two queues under JSQ
# ------------------------------------------------------------------------------------------------

@paper_style
@fill_doc(PLOT_DOCS)
def jsq_heatmap(dist, *, width="single", height=None, log: bool = True, title: str | None = None):
    r"""Heat map of the joint law :math:`p(m, n)` of two M/M/N/N queues under JSQ (integer ticks, a
    labelled colour bar, :math:`\log_{10}` colours by default).

    Parameters
    ----------
    dist : TwoQueueDistribution or 2-D array
        ``p[m][n]``: probability that queue 1 has ``m`` and queue 2 ``n`` busy servers.
    {{width_height}}
    log : bool
        Colours of :math:`\log_{10} p` (default) or of :math:`p`.
    title : str, optional
        Default: :math:`N` and :math:`\rho` of the distribution.

    Returns
    -------
    matplotlib.figure.Figure
        One panel, the heat map (``fig.axes[0]``), and its colour bar (``fig.axes[1]``).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import symloss
    >>> fig = jsq_heatmap(symloss.TwoQueueJSQ(10, 10).stationary_distribution())
    >>> fig.axes[1].get_ylabel()
    '$\\log_{10} p(m, n)$'
    """
    from matplotlib.ticker import MaxNLocator
    info = {}
    if hasattr(dist, "p") and hasattr(dist, "N"):
        info = {"N": dist.N, "rho": dist.rho}
        lp = getattr(dist, "log_p", None)
        if lp is not None and log:
            L = np.asarray(lp, dtype=float) / math.log(10)
        else:
            p = dist.p
            L = (np.vstack([log10_values(row) for row in p]) if log else
                 np.vstack([float_values(row) for row in p]))
    else:
        arr = np.asarray(dist, dtype=object)
        if arr.ndim != 2:
            raise ValueError("dist must be a TwoQueueDistribution or a 2-D array p[m][n]")
        L = np.vstack([log10_values(row) for row in arr]) if log else np.vstack([float_values(r) for r in arr])
    Z = np.ma.masked_invalid(np.where(np.isinf(L), np.nan, L))
    m_max, n_max = Z.shape[0] - 1, Z.shape[1] - 1
    fig, axes = new_figure(width, height, aspect=0.85)
    ax = axes[0, 0]
    im = ax.imshow(Z, origin="lower", cmap="viridis", aspect="auto", interpolation="nearest",
                   extent=(-0.5, n_max + 0.5, -0.5, m_max + 0.5))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=6))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=6))
    ax.set_xlabel(r"busy servers in queue 2, $n$")
    ax.set_ylabel(r"busy servers in queue 1, $m$")
    cb = fig.colorbar(im, ax=ax, shrink=0.9)
    cb.set_label(r"$\log_{10} p(m, n)$" if log else r"$p(m, n)$")
    if title is None and info:
        title = f"$N = {info['N']}$, $\\rho = {float(info['rho']):g}$"
    if title:
        ax.set_title(title)
    for spine in ("top", "right"):
        ax.spines[spine].set_visible(True)
    _info(fig, "jsq_heatmap", title=title or "joint law p(m, n)")
    return fig



@paper_style
@fill_doc(PLOT_DOCS)
def exact_vs_asymptotic(x, exact, asymptotic, *, xlabel: str = RHO_LABEL, ylabel: str = "value",
                        labels=("exact", "asymptotic"), reference_slope: float | None = None,
                        probability: bool = False, width="single", height=None, title: str | None = None):
    r"""An exact quantity and its asymptotic approximation on log-log axes, with a second panel of the
    relative error :math:`|\mathrm{asymptotic}/\mathrm{exact} - 1|` (log-log) and the least-squares
    line of its tail, labelled with the slope it has (``tail_slope``; the slope expected in theory,
    ``reference_slope``, is written beside it, never drawn as if it were the data's).

    Parameters
    ----------
    x : sequence of float
        Abscissae (positive: log axis), e.g. loads.
    exact, asymptotic : sequences of numbers or mpf
        The two values at each ``x`` (positive).
    xlabel, ylabel : str
        Axis labels (with units).
    labels : (str, str)
        Legend entries of the two curves.
    reference_slope : float, optional
        The slope of the relative error expected in theory (e.g. ``-1`` for an :math:`O(1/\rho)`
        error), written in the fitted line's legend entry.
    probability : bool
        The quantity is a probability: its axis ends at 1 and a value above 1 is refused.
    {{width_height}}
    {{title}}

    Returns
    -------
    matplotlib.figure.Figure
        Two panels: the two values (top) and their relative error with its fitted tail (bottom).

    Raises
    ------
    ValueError
        When ``x`` is not positive, the values are not one per ``x``, or (``probability=True``) a value
        exceeds 1.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = exact_vs_asymptotic([10, 100, 1000], [0.11, 0.0101, 0.001001], [0.1, 0.01, 0.001],
    ...                           ylabel="blocking", reference_slope=-1, probability=True)
    >>> [ax.get_yscale() for ax in fig.axes]
    ['log', 'log']
    >>> [t.get_text() for t in fig.axes[1].get_legend().get_texts()]
    ['relative error: slope $-0.98$ (theory $-1$)', 'least-squares fit of the tail']
    """
    x = _as_array(x, "x")
    _finite_positive(x, "x")
    le, la = log10_values(exact), log10_values(asymptotic)
    if le.shape != x.shape or la.shape != x.shape:
        raise ValueError(f"exact and asymptotic need one value per x ({x.size})")
    if probability and (np.any(le[np.isfinite(le)] > 0) or np.any(la[np.isfinite(la)] > 0)):
        raise ValueError("probability=True: every exact and asymptotic value must be <= 1")
    with np.errstate(over="ignore", invalid="ignore"):
        rel = np.abs(np.expm1((la - le) * math.log(10)))
    fig, axes = new_figure(width, height, nrows=2, sharex=True, gridspec_kw={"height_ratios": [1.4, 1.0]})
    ax, ax2 = axes[0, 0], axes[1, 0]
    ax.plot(x, 10.0 ** le, color="C0", label=labels[0])
    ax.plot(x, 10.0 ** la, color="C1", ls="--", label=labels[1])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    if probability:
        cap_probability_axis(ax)
    place_legend(ax)
    ok = np.isfinite(rel) & (rel > 0)
    (line,) = ax2.plot(x[ok], rel[ok], color="C2", marker="o", ms=2.5, label="relative error")
    _draw_fit(ax2, x[ok], rel[ok], line, theory=reference_slope)
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel(xlabel)
    ax2.set_ylabel("relative error")
    return _finish(fig, "exact_vs_asymptotic", title, f"{ylabel}: exact and asymptotic", legend=ax2)


# ------------------------------------------------------------------------------------------------
# finite N
# ------------------------------------------------------------------------------------------------
