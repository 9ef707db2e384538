r"""One function per figure of a paper on these models.

Every function takes plain data (sequences of numbers, ``mpmath.mpf`` included: values far below the
float range are handled through their logarithms) or symloss result objects, labels its axes with
units, puts the legend where it covers no data (or outside the axes), takes ``width="single"`` (3.5 in)
or ``"double"`` (7.2 in) or a width in inches, and returns the :class:`matplotlib.figure.Figure`;
:func:`symloss.plot.savefig` writes it with its provenance.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ._style import (cap_probability_axis, float_values, log10_values, new_figure, paper_style, place_legend,
                     policy_label)

__all__ = ["threshold_marks", "tail_slope", "blocking_ratio", "retrial_vs_power", "blocking_curves", "jsq_heatmap",
           "exact_vs_asymptotic", "finite_n", "regret_decomposition", "supermarket_tails", "supermarket_distance",
           "mean_queue_vs_degree", "trajectories"]

RHO_LABEL = r"load per server $\rho = \lambda/\mu$ (Erlang)"
N_LABEL = r"number of servers $N$"


def _set_title(fig, title) -> None:
    if not title:
        return
    axes = [a for a in fig.axes if a.get_label() != "<colorbar>"]
    if len(axes) == 1:
        axes[0].set_title(title)
    else:
        fig.suptitle(title)


def _info(fig, name: str, **kw) -> None:
    fig._symloss.update({"figure": name, **{k: v for k, v in kw.items() if v is not None}})


def _as_array(x, name: str) -> np.ndarray:
    arr = float_values(x) if not isinstance(x, np.ndarray) else np.asarray(x, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty one-dimensional sequence of numbers")
    return arr


def _finite_positive(arr: np.ndarray, name: str) -> None:
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be finite and positive (it is plotted on a log axis)")


# ------------------------------------------------------------------------------------------------
# mean field: blocking ratio and blocking curves
# ------------------------------------------------------------------------------------------------

PROVED, EVIDENCE = "PROVED", "EVIDENCE"


def threshold_marks(thresholds) -> list[tuple[float, str]]:
    r"""The loads to mark and how each is known: ``"PROVED"`` or ``"EVIDENCE"``.

    ``PROVED`` only where the object says it is certified: a
    :class:`~symloss.meanfield.certified.CertifiedComparison` (from
    :func:`~symloss.meanfield.certified.certified_threshold` /
    :func:`~symloss.meanfield.certified.certified_comparison`: every crossing on :math:`(0, \infty)`
    in an interval of width :math:`\le 10^{-\mathrm{dps}}`, with a certificate that
    :func:`~symloss.meanfield.certified.verify_comparison` re-checks; each crossing is marked at its
    interval's midpoint). A plain number (what :func:`symloss.threshold_load` returns, the end of a
    float scan whose crossings are bisected with certified signs but whose search is not a proof) and
    any :class:`~symloss.CrossingResult` are ``EVIDENCE``: even the eliminant method's ``certified``
    crossings carry no stored certificate that an independent re-check verifies (use
    :func:`~symloss.meanfield.certified.certified_threshold` for a PROVED mark).

    Parameters
    ----------
    thresholds : None, number, mpf, sequence of those, CrossingResult or CertifiedComparison

    Returns
    -------
    list of (float, str)
        Each load with its status.

    Raises
    ------
    TypeError
        For an object that is none of these.

    Examples
    --------
    >>> threshold_marks(0.8)
    [(0.8, 'EVIDENCE')]
    >>> from symloss.meanfield.certified import certified_threshold
    >>> [(round(v, 6), s) for v, s in threshold_marks(certified_threshold(3, 2, 3, dps=15))]
    [(0.949636, 'PROVED')]
    """
    if thresholds is None:
        return []
    if hasattr(thresholds, "certificate") and hasattr(thresholds, "pieces") and hasattr(thresholds, "crossings"):
        out = []
        for c in thresholds.crossings:         # CertifiedComparison: Crossing(rho_lo, rho_hi, sign_after)
            import mpmath
            with mpmath.workdps(40):
                mid = (mpmath.mpf(c.rho_lo) + mpmath.mpf(c.rho_hi)) / 2
            out.append((float(mid), PROVED))
        return out
    if hasattr(thresholds, "crossings") and hasattr(thresholds, "guarantee"):   # CrossingResult
        return [(float(t), EVIDENCE) for t in thresholds.crossings]   # no re-checkable certificate
    if not isinstance(thresholds, (list, tuple, np.ndarray)):
        thresholds = [thresholds]
    out = []
    for t in thresholds:
        try:
            out.append((float(t), EVIDENCE))
        except (TypeError, ValueError):
            raise TypeError("thresholds must be numbers, a CrossingResult or a CertifiedComparison (or a "
                            f"mapping label -> those), got a {type(t).__name__}") from None
    return out


def _recheck(thresholds, model_a, model_b):
    """Re-check a CertifiedComparison's certificate for the two models (raises CertificateMismatch)."""
    if hasattr(thresholds, "certificate") and hasattr(thresholds, "pieces"):
        from ..meanfield.certified import verify_comparison
        verify_comparison(thresholds.certificate, model_a, model_b)


def _is_model(x) -> bool:
    return hasattr(x, "blocking") and callable(getattr(x, "blocking"))


def _line_points(ax) -> np.ndarray:
    """Display coordinates along every visible line of ``ax`` (about every 2 px)."""
    pts = []
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        xy = np.column_stack(line.get_data(orig=False)).astype(float)
        if not len(xy):
            continue
        d = line.get_transform().transform(xy)
        d = d[np.all(np.isfinite(d), axis=1)]
        for p, q in zip(d[:-1], d[1:]):
            n = int(min(400, max(2, np.hypot(*(q - p)) / 2.0)))
            pts.append(p + np.linspace(0, 1, n)[:, None] * (q - p))
        pts.append(d)
    return np.vstack(pts) if pts else np.zeros((0, 2))


def _mark_thresholds(ax, marks, colour) -> None:
    """Vertical lines at the marked loads (dotted: PROVED, dashed: EVIDENCE), each with its value and
    status written beside it, inside the axes, at the top or the bottom, on the side of the line where
    it covers the fewest drawn points (other labels included)."""
    fig = ax.figure
    x0, x1 = ax.get_xlim()
    for value, status in marks:
        if not (min(x0, x1) <= value <= max(x0, x1)):
            continue
        ax.axvline(value, color=colour, lw=0.8, ls=":" if status == PROVED else "--", zorder=1)
    from ._style import _layout, _renderer
    _layout(fig)
    renderer = _renderer(fig)
    pts = _line_points(ax)
    axbb = ax.get_window_extent(renderer)
    for value, status in marks:
        if not (min(x0, x1) <= value <= max(x0, x1)):
            continue
        best = None
        for above in (True, False):
            for right in (True, False):
                t = ax.annotate(rf"$\rho^* = {value:.4g}$" + "\n" + status, xy=(value, 0.97 if above else 0.03),
                                xycoords=("data", "axes fraction"), xytext=(3 if right else -3, 0),
                                textcoords="offset points", fontsize=6.5, color=colour,
                                ha="left" if right else "right", va="top" if above else "bottom",
                                linespacing=1.1)
                bb = t.get_window_extent(renderer)
                inside_axes = bb.x0 >= axbb.x0 - 1 and bb.x1 <= axbb.x1 + 1
                hit = int(np.sum((pts[:, 0] >= bb.x0 - 1) & (pts[:, 0] <= bb.x1 + 1) &
                                 (pts[:, 1] >= bb.y0 - 1) & (pts[:, 1] <= bb.y1 + 1))) if len(pts) else 0
                score = (not inside_axes, hit)
                t.remove()
                if best is None or score < best[0]:
                    best = (score, above, right)
        _, above, right = best
        t = ax.annotate(rf"$\rho^* = {value:.4g}$" + "\n" + status, xy=(value, 0.97 if above else 0.03),
                        xycoords=("data", "axes fraction"), xytext=(3 if right else -3, 0),
                        textcoords="offset points", fontsize=6.5, color=colour,
                        ha="left" if right else "right", va="top" if above else "bottom", linespacing=1.1)
        bb = t.get_window_extent(renderer)       # later labels avoid this one
        xs, ys = np.linspace(bb.x0, bb.x1, 12), np.linspace(bb.y0, bb.y1, 4)
        pts = np.vstack([pts, np.array([(x, y) for x in xs for y in ys])])


@paper_style
def blocking_ratio(rho, B_a, B_b=None, *, thresholds=None, labels=("retrial-of-$\\tilde d$", "power-of-$d$"),
                   width="single", height=None, title: str | None = None, ylabel: str | None = None,
                   zoom="auto", dps: int = 15):
    r"""The ratio :math:`B_a/B_b` of two blockings against the load, on log-log axes, with thresholds
    marked: where the curve crosses 1 the two policies block equally; below 1, policy *a* blocks less.
    Each threshold is written with its status, ``PROVED`` (a certified object, see
    :func:`threshold_marks`) or ``EVIDENCE`` (a number, a float scan).

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
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style).
    ylabel : str, optional
        The y-axis label (default from ``labels``).
    zoom : "auto", None or float
        A second panel below shows the ratios within a factor ``zoom`` of 1 (the crossings,
        magnified, with the thresholds written there). ``"auto"`` (default): ``zoom = 2`` when the
        ratios span more than 4 decades and some lie within a factor 2 of 1; None: one panel.
    dps : int
        Digits of the blockings evaluated here (models given).

    Returns
    -------
    matplotlib.figure.Figure

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
    logs = {}
    for label, pair in curves.items():
        a, b = pair
        models = (a, b) if _is_model(a) and _is_model(b) else None
        if models is not None and thr.get(label) is not None:
            _recheck(thr[label], *models)
        if _is_model(a):
            a = [a.blocking(float(r), dps=dps) for r in rho]
        if _is_model(b):
            b = [b.blocking(float(r), dps=dps) for r in rho]
        la, lb = log10_values(a), log10_values(b)
        if la.shape != rho.shape or lb.shape != rho.shape:
            raise ValueError(f"B_a and B_b must have one value per load ({rho.size}); got {la.size} and {lb.size}")
        if not (np.all(np.isfinite(la)) and np.all(np.isfinite(lb))):
            raise ValueError(f"curve {label!r}: every blocking must be positive (the ratio B_a/B_b is plotted)")
        logs[label] = la - lb
    allv = np.concatenate(list(logs.values()))
    as_log10 = bool(np.max(np.abs(allv)) > 300)
    if zoom == "auto":
        zoom = 2.0 if (np.ptp(allv) > 4 and np.any(np.abs(allv) < math.log10(2.0))) else None
    if zoom is not None:
        zoom = float(zoom)
        if not (zoom > 1 and math.isfinite(zoom)):
            raise ValueError(f"zoom must be 'auto', None or a number > 1, got {zoom!r}")
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
            a_.plot(rho, y if as_log10 else 10.0 ** y, color=colours[label], label=label if a_ is ax else None)
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
    if any(lbl is not None for lbl in curves):
        place_legend(ax)
    _set_title(fig, title)
    _info(fig, "blocking_ratio", dps=dps, title=f"blocking ratio {la_} / {lb_}")
    return fig


@paper_style
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
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style).
    thresholds : bool
        Mark the thresholds (default True).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = retrial_vs_power(3, 2, 3, rho=[0.5, 1.0, 2.0])
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['$\\rho^* = 0.9496$\nPROVED']
    """
    import symloss
    from ..meanfield.certified import certified_threshold, verify_comparison
    Cs = [C] if isinstance(C, int) else list(C)
    rho = np.geomspace(0.05, 50.0, 60) if rho is None else rho
    rho = _as_array(rho, "rho")
    _finite_positive(rho, "rho")
    thr = {}
    if thresholds:
        for c in Cs:
            ret, pod = symloss.RetrialOfD(c, dt), symloss.PowerOfD(c, d)
            try:
                res = certified_threshold(c, d, dt, dps=dps)
                verify_comparison(res.certificate, ret, pod)
                thr[f"$C = {c}$"] = res
            except ArithmeticError:
                t = symloss.threshold_load(c, d, dt, dps=dps)
                thr[f"$C = {c}$"] = [t] if t > 0 else []
    # the curves also pass through the crossings themselves (a coarse grid would cross 1 elsewhere)
    extra = [v for m in thr.values() for v, _ in threshold_marks(m) if rho.min() < v < rho.max()]
    rho = np.unique(np.concatenate([rho, np.asarray(extra, dtype=float)]))
    curves = {}
    for c in Cs:
        ret, pod = symloss.RetrialOfD(c, dt), symloss.PowerOfD(c, d)
        curves[f"$C = {c}$"] = ([ret.blocking(float(r), dps=dps) for r in rho],
                                [pod.blocking(float(r), dps=dps) for r in rho])
    fig = blocking_ratio(rho, curves, thresholds=thr, labels=(f"retrial-of-{dt}", f"power-of-{d}"), width=width,
                         height=height, dps=dps)
    _set_title(fig, title)
    _info(fig, "retrial_vs_power", dps=dps, title=f"retrial-of-{dt} vs power-of-{d}, C = {Cs}")
    return fig


@paper_style
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
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).
    dps : int
        Digits used when a model is evaluated here.
    ylabel : str, optional
        The y-axis label (default: blocking probability).

    Returns
    -------
    matplotlib.figure.Figure
        The y axis ends at 1 (a probability).

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
    place_legend(ax)
    _set_title(fig, title)
    _info(fig, "blocking_curves", dps=dps, title="blocking against load")
    return fig


# ------------------------------------------------------------------------------------------------
# two queues under JSQ
# ------------------------------------------------------------------------------------------------

@paper_style
def jsq_heatmap(dist, *, width="single", height=None, log: bool = True, title: str | None = None):
    r"""Heat map of the joint law :math:`p(m, n)` of two M/M/N/N queues under JSQ (integer ticks, a
    labelled colour bar, :math:`\log_{10}` colours by default).

    Parameters
    ----------
    dist : TwoQueueDistribution or 2-D array
        ``p[m][n]``: probability that queue 1 has ``m`` and queue 2 ``n`` busy servers.
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    log : bool
        Colours of :math:`\log_{10} p` (default) or of :math:`p`.
    title : str, optional
        Default: :math:`N` and :math:`\rho` of the distribution.

    Returns
    -------
    matplotlib.figure.Figure

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


def tail_slope(x, y, *, fraction: float = 0.5, min_points: int = 3):
    r"""Least-squares slope of :math:`\log y` against :math:`\log x` on the tail (the largest ``x``).

    Parameters
    ----------
    x, y : array_like
        Positive values (non-positive or non-finite pairs are left out).
    fraction : float
        Share of the points (the largest ``x``) in the fit; at least ``min_points`` (or all there are).
    min_points : int
        Fewest points of the fit.

    Returns
    -------
    (float, float, numpy.ndarray) or None
        Slope, intercept (of :math:`\log_{10} y = \mathrm{intercept} + \mathrm{slope}\,\log_{10} x`) and
        the ``x`` of the points fitted; None with fewer than two usable points.

    Examples
    --------
    >>> slope, intercept, xs = tail_slope([1, 10, 100, 1000], [1, 0.1, 0.01, 0.001])
    >>> round(slope, 12), xs.tolist()
    (-1.0, [10.0, 100.0, 1000.0])
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    x, y = x[ok], y[ok]
    if x.size < 2:
        return None
    order = np.argsort(x)
    x, y = x[order], y[order]
    n = min(x.size, max(min_points, int(math.ceil(fraction * x.size))))
    x, y = x[-n:], y[-n:]
    slope, intercept = np.polyfit(np.log10(x), np.log10(y), 1)
    return float(slope), float(intercept), x


def _slope_text(slope: float) -> str:
    return f"${slope:.2f}$"


def _draw_fit(ax, x, y, data_line, *, theory: float | None = None):
    """The least-squares line of the tail of ``(x, y)`` on log-log axes (black, dotted, one legend entry
    "least-squares fit of the tail" per axes); the slope it has (and the slope expected in theory,
    when given) is appended to the legend label of ``data_line``. The fit line's ``gid`` is that label."""
    fit = tail_slope(x, y)
    if fit is None:
        return None
    slope, intercept, xs = fit
    g = np.geomspace(xs.min(), xs.max(), 30)
    label = f"{data_line.get_label()}: slope {_slope_text(slope)}"
    if theory is not None:
        label += f" (theory ${theory:g}$)"
    data_line.set_label(label)
    first = not any(getattr(ln, "_symloss_fit", False) for ln in ax.get_lines())
    (ln,) = ax.plot(g, 10.0 ** (intercept + slope * np.log10(g)), color="k", ls=":", lw=0.9, zorder=3,
                    label="least-squares fit of the tail" if first else None)
    ln._symloss_fit = True
    ln.set_gid(label)
    return slope


@paper_style
def exact_vs_asymptotic(x, exact, asymptotic, *, xlabel: str = RHO_LABEL, ylabel: str = "value",
                        labels=("exact", "asymptotic"), reference_slope: float | None = None,
                        probability: bool = False, width="single", height=None, title: str | None = None):
    r"""An exact quantity and its asymptotic approximation on log-log axes, with a second panel of the
    relative error :math:`|\mathrm{asymptotic}/\mathrm{exact} - 1|` (log-log) and the least-squares
    line of its tail, labelled with the slope it has (:func:`tail_slope`; the slope expected in theory,
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
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (a two-panel figure gets a figure title).

    Returns
    -------
    matplotlib.figure.Figure

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
    place_legend(ax2)
    _set_title(fig, title)
    _info(fig, "exact_vs_asymptotic", title=f"{ylabel}: exact and asymptotic")
    return fig


# ------------------------------------------------------------------------------------------------
# finite N
# ------------------------------------------------------------------------------------------------

def _value_ci(v):
    ci = getattr(v, "ci", None)
    val = float(getattr(v, "blocking", getattr(v, "value", v)))
    if ci is not None:
        return val, (float(ci[0]), float(ci[1]))
    return val, None


@paper_style
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
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).
    ylabel : str
        The y-axis label of the top panel.
    probability : bool
        ``B_N`` is a probability (default): the top axis ends at 1 and a value above 1 is refused.

    Returns
    -------
    matplotlib.figure.Figure

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
    place_legend(ax2)
    _set_title(fig, title)
    _info(fig, "finite_n", title="finite-N blocking against N")
    return fig


# ------------------------------------------------------------------------------------------------
# admission control
# ------------------------------------------------------------------------------------------------

def _est(e):
    return float(getattr(e, "value", e)), float(getattr(e, "half_width", 0.0))


@paper_style
def regret_decomposition(study, *, width="single", height=None, show_fits: bool = True,
                         title: str | None = None):
    r"""The regret decomposition :math:`R_{fluid}-R_{on} = C_{vol}+C_{long}+C_{short}` against
    :math:`N` (log scale, i.e. against :math:`\ln N`): the top panel the costs that stay bounded
    (:math:`C_{vol}`, :math:`C_{long}` per window constant :math:`c`), the bottom panel the ones that grow
    (:math:`C_{short}` and the exact online regret), with 95 % intervals and the fitted lines
    :math:`\alpha + \beta\ln N` of the study.

    Parameters
    ----------
    study : DecompositionStudy
        From :meth:`symloss.OverloadedLossNetwork.decomposition_study`.
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).
        A double-width figure puts the two panels side by side.
    show_fits : bool
        Draw the fitted lines of the study (default True).

    Returns
    -------
    matplotlib.figure.Figure

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
    from ._style import figure_size
    wide = figure_size(width)[0] >= 5
    if wide:   # two columns: the panels side by side
        fig, axes = new_figure(width, height, ncols=2, aspect=0.36)
        ax, ax2 = axes[0, 0], axes[0, 1]
    else:
        fig, axes = new_figure(width, height, nrows=2, sharex=True)
        ax, ax2 = axes[0, 0], axes[1, 0]
    shift = 1.0 + 0.025 * (np.arange(len(cs) + 1) - len(cs) / 2)   # separate the error bars a little
    v = np.array([_est(d.C_vol) for d in decs])
    ax.errorbar(Ns * shift[0], v[:, 0], yerr=v[:, 1], fmt="o-", color="k", ms=3, label=r"$C_{vol}$")
    for i, c in enumerate(cs):
        e = np.array([_est(d.C_long[c]) for d in decs])
        ax.errorbar(Ns * shift[i + 1], e[:, 0], yerr=e[:, 1], fmt="s--", color=f"C{i}", ms=3,
                    label=rf"$C_{{long}}$, $c = {c:g}$")
    ax.axhline(0.0, color="0.6", lw=0.5)
    ax.set_ylabel("cost per unit time\n(reward units)")
    if wide:
        ax.set_xscale("log")
        ax.set_xlabel(N_LABEL + " (log scale)")
        ax.set_title("bounded: variability and long-run uncertainty")
        ax2.set_title(r"growing like $\ln N$: short-run uncertainty")
    place_legend(ax)
    for i, c in enumerate(cs):
        e = np.array([_est(d.C_short[c]) for d in decs])
        ax2.errorbar(Ns * shift[i + 1], e[:, 0], yerr=e[:, 1], fmt="^-", color=f"C{i}", ms=3,
                     label=rf"$C_{{short}}$, $c = {c:g}$")
    ax2.plot(Ns, [d.online_regret for d in decs], "k-", lw=1.0, label=r"$R_{fluid} - R_{on}$ (exact)")
    if show_fits and len(Ns) >= 2:
        fits = getattr(study, "fits", {}) or {}
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
    place_legend(ax2)
    _set_title(fig, title)
    _info(fig, "regret_decomposition", title="regret decomposition against ln N")
    return fig


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
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = supermarket_tails({"simulation": [1.0, 0.7, 0.35, 0.1, 0.02]}, lam=0.7, d=2)
    >>> fig.axes[0].get_yscale()
    'log'
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
    place_legend(ax)
    _set_title(fig, title)
    _info(fig, "supermarket_tails", title="supermarket tails")
    return fig


@paper_style
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
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).
    ylabel : str
        The y-axis label.

    Returns
    -------
    matplotlib.figure.Figure

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
    place_legend(ax)
    _set_title(fig, title)
    _info(fig, "supermarket_distance", title="distance to the mean-field ODE")
    return fig


@paper_style
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
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).

    Returns
    -------
    matplotlib.figure.Figure

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
    place_legend(ax)
    _set_title(fig, title)
    _info(fig, "mean_queue_vs_degree", title="mean queue length against degree")
    return fig


@paper_style
def trajectories(t, series: Mapping, *, fixed: Mapping | None = None, log: bool = False, width="single",
                 height=None, xlabel: str = r"time $t$ (mean service times)", ylabel: str = "value",
                 probability: bool = False, title: str | None = None):
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
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).
    xlabel, ylabel : str
        Axis labels (with units).
    probability : bool
        The values are probabilities or fractions: the axis ends at 1 and a value outside
        ``[0, 1]`` is refused.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        When a series has not one value per time or (``probability``) a value lies outside ``[0, 1]``.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = trajectories([0, 1, 2], {"$s_1$": [0.0, 0.5, 0.65]}, fixed={"$s_1$": 0.7}, ylabel="tail fraction")
    >>> fig.axes[0].get_ylabel()
    'tail fraction'
    """
    tt = _as_array(t, "t")
    fig, axes = new_figure(width, height)
    ax = axes[0, 0]
    allv = []
    for i, (label, vals) in enumerate(series.items()):
        arr = np.asarray(vals, dtype=object)
        rows = [float_values(r) for r in arr] if arr.ndim == 2 else [float_values(vals)]
        for j, y in enumerate(rows):
            if y.shape != tt.shape:
                raise ValueError(f"series {label!r}: {y.size} values for {tt.size} times")
            allv.append(y)
            ax.plot(tt, y, color=f"C{i}", label=label if j == 0 else None, alpha=0.7 if len(rows) > 1 else 1.0,
                    lw=0.9 if len(rows) > 1 else None)
        if fixed and label in fixed:
            ax.axhline(float(fixed[label]), color=f"C{i}", lw=0.6, ls=":")
    if log:
        ax.set_yscale("log")
    if probability:
        cap_probability_axis(ax, np.concatenate(allv) if allv else None)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_xlim(tt.min(), tt.max())
    place_legend(ax)
    _set_title(fig, title)
    _info(fig, "trajectories", title=ylabel)
    return fig
