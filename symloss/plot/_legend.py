"""Legend placement off the data, and the layout helpers it needs (part of :mod:`symloss.plot._style`,
which re-exports these names).

matplotlib itself is imported by :mod:`symloss.plot`; the functions here only use the figure objects
they are given.
"""
from __future__ import annotations

import numpy as np

__all__ = ["legend_overlaps_data", "legend_is_above", "place_legend"]


def _layout(fig) -> None:
    """Run the figure's layout engine (constrained layout: axes positions with room for every label),
    without drawing the artists; a figure without an engine is drawn once instead."""
    engine = fig.get_layout_engine()
    if engine is None:
        fig.draw_without_rendering()
        return
    _renderer(fig)
    engine.execute(fig)


def _renderer(fig):
    canvas = fig.canvas
    get = getattr(canvas, "get_renderer", None)
    if get is not None:
        try:
            return get()
        except TypeError:  # pragma: no cover - some backends need arguments
            pass
    fig.draw_without_rendering()
    return fig._get_renderer()


def _data_points(ax, renderer) -> np.ndarray:
    """Display coordinates of the data drawn in ``ax`` (lines densified to about 2 px, markers,
    error bars, filled areas, text labels' corners)."""
    pts = []
    trans_data = ax.transData
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        xy = np.column_stack(line.get_data(orig=False)).astype(float)
        if xy.size == 0:
            continue
        tr = line.get_transform()
        disp = tr.transform(xy)
        disp = disp[np.all(np.isfinite(disp), axis=1)]
        if len(disp) == 0:
            continue
        dense = [disp[:1]]
        for a, b in zip(disp[:-1], disp[1:]):
            n = int(min(200, max(1, np.hypot(*(b - a)) / 2.0)))
            t = np.linspace(0, 1, n + 1)[1:, None]
            dense.append(a + t * (b - a))
        pts.append(np.vstack(dense))
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        offs = coll.get_offsets()
        if len(offs) and getattr(coll, "get_sizes", None) is not None and len(coll.get_sizes()):
            disp = coll.get_offset_transform().transform(np.asarray(offs, float))
            pts.append(disp[np.all(np.isfinite(disp), axis=1)])
        for path in coll.get_paths():
            v = path.vertices
            if len(v):
                disp = coll.get_transform().transform(v)
                disp = disp[np.all(np.isfinite(disp), axis=1)]
                if len(disp) >= 2:
                    dense = []
                    for a, b in zip(disp[:-1], disp[1:]):
                        n = int(min(200, max(1, np.hypot(*(b - a)) / 2.0)))
                        t = np.linspace(0, 1, n + 1)[:, None]
                        dense.append(a + t * (b - a))
                    pts.append(np.vstack(dense))
                else:
                    pts.append(disp)
    for txt in ax.texts:
        if txt.get_visible() and txt.get_text():
            bb = txt.get_window_extent(renderer)
            xs = np.linspace(bb.x0, bb.x1, 8)
            ys = np.linspace(bb.y0, bb.y1, 4)
            pts.append(np.array([(x, y) for x in xs for y in ys]))
    del trans_data
    return np.vstack(pts) if pts else np.zeros((0, 2))


def legend_overlaps_data(ax, legend=None, *, pad: float = 1.0) -> bool:
    """Whether a legend covers drawn data.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    legend : matplotlib.legend.Legend, optional
        Default: the axes' legend.
    pad : float
        Margin in pixels.

    Returns
    -------
    bool
        True when the legend lies inside the axes and a line (sampled every 2 px), marker, error
        bar, filled area or text label of the axes falls inside its box.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from symloss.plot import new_figure
    >>> fig, axes = new_figure("single")
    >>> ax = axes[0, 0]
    >>> _ = ax.plot([0, 1], [0.5, 0.5], label="flat")
    >>> legend_overlaps_data(ax, ax.legend(loc="center"))
    True
    """
    legend = legend or ax.get_legend()
    if legend is None:
        return False
    fig = ax.figure
    renderer = _renderer(fig)
    bb = legend.get_window_extent(renderer)
    axbb = ax.get_window_extent(renderer)
    if bb.x0 >= axbb.x1 - pad or bb.x1 <= axbb.x0 + pad or bb.y0 >= axbb.y1 - pad or bb.y1 <= axbb.y0 + pad:
        return False  # outside the axes
    pts = _data_points(ax, renderer)
    if not len(pts):
        return False
    inside = ((pts[:, 0] >= bb.x0 - pad) & (pts[:, 0] <= bb.x1 + pad) &
              (pts[:, 1] >= bb.y0 - pad) & (pts[:, 1] <= bb.y1 + pad))
    return bool(inside.any())


_LOCATIONS = ("upper right", "upper left", "lower left", "lower right", "center right", "center left",
              "upper center", "lower center")

#: Largest share of the axes area a legend inside the axes may cover.
MAX_LEGEND_SHARE = 0.25


def _legend_share(ax, legend, renderer) -> float:
    bb = legend.get_window_extent(renderer)
    axbb = ax.get_window_extent(renderer)
    return (bb.width * bb.height) / max(axbb.width * axbb.height, 1e-9)


def legend_is_above(ax, legend=None) -> bool:
    """Whether the legend lies above the axes (outside them, over the top spine).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    legend : matplotlib.legend.Legend, optional
        Default: the axes' legend.

    Returns
    -------
    bool
        True when the bottom of the legend's box is at most a pixel below the top of the axes; False
        without a legend.

    Examples
    --------
    Twelve entries are too many for a corner of a one-column figure: :func:`place_legend` puts them
    above the axes.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> from symloss.plot import trajectories
    >>> fig = trajectories([0, 1], {f"series {i}": [i, i + 1] for i in range(12)})
    >>> legend_is_above(fig.axes[0])
    True
    """
    legend = legend or ax.get_legend()
    if legend is None:
        return False
    renderer = _renderer(ax.figure)
    return bool(legend.get_window_extent(renderer).y0 >= ax.get_window_extent(renderer).y1 - 1.0)


def place_legend(ax, *, ncol: int | None = None, outside: str | None = None, title: str | None = None,
                 max_share: float = MAX_LEGEND_SHARE, **kw):
    """Put the legend where it covers no data and takes no large share of the figure.

    Inside the axes: the first of the usual corners that is free (checked with
    :func:`legend_overlaps_data` on the drawn figure) where the legend covers at most ``max_share``
    of the axes area; otherwise above the axes, in rows as wide as the axes (as many columns as fit).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    ncol : int, optional
        Columns of the legend (inside; above, the most that fit in the axes' width by default).
    outside : {None, "above", "right", "below"}
        Force a place outside the axes: ``"above"`` (the default when no corner is free), or, only
        when asked for, ``"right"`` / ``"below"`` (a legend right of the axes takes much of a figure's
        width).
    title : str, optional
        Legend title.
    max_share : float
        Largest share of the axes area an inside legend may cover (default 0.25).
    **kw
        Passed to :meth:`matplotlib.axes.Axes.legend`.

    Returns
    -------
    matplotlib.legend.Legend or None
        None when the axes have no labelled artists.

    Raises
    ------
    ValueError
        If ``outside`` is not None, ``"above"``, ``"right"`` or ``"below"``.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from symloss.plot import new_figure
    >>> fig, axes = new_figure("single")
    >>> _ = axes[0, 0].plot([0, 1], [0, 1], label="diagonal")
    >>> leg = place_legend(axes[0, 0])
    >>> legend_overlaps_data(axes[0, 0])
    False
    """
    if outside not in (None, "above", "right", "below"):
        raise ValueError(f"outside must be None, 'above', 'right' or 'below', got {outside!r}")
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    kw = {"handlelength": 1.8, "borderaxespad": 0.4, **kw}
    if title is not None:
        kw["title"] = title
    fig = ax.figure
    if outside is None:
        old = ax.get_legend()
        if old is not None:
            old.remove()
        _layout(fig)        # the layout once: a legend inside the axes does not change it
        renderer = _renderer(fig)
        for loc in _LOCATIONS:
            leg = ax.legend(handles, labels, loc=loc, ncol=ncol or 1, **kw)
            if _legend_share(ax, leg, renderer) <= max_share and not legend_overlaps_data(ax, leg):
                return leg
            leg.remove()
    if outside == "right":
        return ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), ncol=ncol or 1, **kw)
    if outside == "below":
        return ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.24),
                         ncol=ncol or min(2 if fig.get_size_inches()[0] < 5 else 4, len(handles)), **kw)
    return _legend_above(ax, handles, labels, ncol, kw)


def _legend_above(ax, handles, labels, ncol, kw):
    """The legend above the axes, centred, in as many columns as fit in the axes' width."""
    fig = ax.figure
    kw = {**kw, "borderaxespad": 0.2, "columnspacing": 1.2, "handletextpad": 0.5}
    n = len(handles)
    renderer = _renderer(fig)
    width = ax.get_window_extent(renderer).width
    if ncol:
        c = ncol
    else:       # widest entry, from a one-column legend: as many columns as fit in the axes' width
        probe = ax.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=1, **kw)
        col_w = probe.get_window_extent(renderer).width
        probe.remove()
        sep = kw["columnspacing"] * probe._fontsize * fig.dpi / 72.0
        c = max(1, min(n, int((width + sep) // max(col_w + sep, 1.0))))
    while True:
        leg = ax.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=c, **kw)
        if ncol or c == 1 or leg.get_window_extent(renderer).width <= width:
            break
        leg.remove()
        c -= 1
    return leg
