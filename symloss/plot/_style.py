"""Figure sizes, paper style, legend placement off the data, value conversion and saving with provenance."""
from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from ..core.validation import check_output_path

__all__ = ["figure_size", "new_figure", "paper_style", "paper_rc", "tidy_log_axes", "place_legend",
           "legend_overlaps_data", "legend_is_above", "savefig", "log10_values", "cap_probability_axis", "fit_labels",
           "finish_figure", "float_values", "policy_label", "WIDTHS", "PAPER_RC", "FONT_FAMILY", "MATH_FONTSET"]

#: Figure widths in inches: one column and two columns of a typical two-column journal page.
WIDTHS = {"single": 3.5, "double": 7.2}

#: The one font family of every text of a figure (text and mathtext alike): STIX, a Times-like serif
#: shipped with matplotlib, whose mathtext fontset draws the formulas in the same face.
FONT_FAMILY = "STIXGeneral"
MATH_FONTSET = "stix"

#: matplotlib settings for print: one serif family (text and mathtext), small fonts, thin lines, no
#: top/right spines, constrained layout.
PAPER_RC = {
    "font.family": [FONT_FAMILY], "mathtext.fontset": MATH_FONTSET,
    "axes.unicode_minus": True, "axes.formatter.use_mathtext": True,
    "font.size": 8.0, "axes.labelsize": 8.0, "axes.titlesize": 8.0, "figure.titlesize": 8.0,
    "legend.fontsize": 7.0, "legend.title_fontsize": 7.0,
    "xtick.labelsize": 7.0, "ytick.labelsize": 7.0, "lines.linewidth": 1.2, "lines.markersize": 3.5,
    "axes.linewidth": 0.6, "xtick.major.width": 0.6, "ytick.major.width": 0.6, "axes.spines.top": False,
    "axes.spines.right": False, "legend.frameon": False, "savefig.dpi": 300, "figure.dpi": 100,
    "errorbar.capsize": 2.0, "axes.grid": False, "figure.constrained_layout.use": True,
}


def figure_size(width="single", height=None, *, rows: int = 1, aspect: float | None = None) -> tuple[float, float]:
    """The size of a figure for one or two columns.

    Parameters
    ----------
    width : {"single", "double"} or float
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches.
    height : float, optional
        Inches; default ``width * aspect`` (taller for several rows).
    rows : int
        Rows of panels.
    aspect : float, optional
        Height / width of one row (default 0.72 for one column, 0.42 for two).

    Returns
    -------
    (float, float)
        Width and height in inches.

    Examples
    --------
    >>> figure_size("single"), figure_size("double", 3)
    ((3.5, 2.52), (7.2, 3.0))
    """
    if isinstance(width, str):
        if width not in WIDTHS:
            raise ValueError(f"width must be 'single', 'double' or a number of inches, got {width!r}")
        w = WIDTHS[width]
    else:
        try:
            w = float(width)
        except (TypeError, ValueError):
            raise TypeError(f"width must be 'single', 'double' or a number of inches, got {width!r}") from None
        if not 1.0 <= w <= 20.0:
            raise ValueError(f"width must be between 1 and 20 inches, got {width!r}")
    if height is None:
        a = aspect if aspect is not None else (0.72 if w < 5 else 0.42)
        h = w * a * (1.0 + 0.75 * (rows - 1))
    else:
        h = float(height)
        if not 0.5 <= h <= 20.0:
            raise ValueError(f"height must be between 0.5 and 20 inches, got {height!r}")
    return (w, h)


@contextlib.contextmanager
def _style():
    import matplotlib as mpl
    with mpl.rc_context(PAPER_RC):
        yield


def paper_rc():
    """Context manager: matplotlib runs under ``PAPER_RC`` (one font family, paper sizes) inside it.

    For a figure drawn by hand beside the ones of :mod:`symloss.plot`: create the figure
    (:func:`new_figure`), its artists, labels and legend inside the block (fonts are fixed when an
    artist is created), then call :func:`finish_figure`.

    Returns
    -------
    contextlib.AbstractContextManager
        Restores the previous settings on exit.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> with paper_rc():
    ...     fig, axes = new_figure("single")
    ...     _ = axes[0, 0].set_xlabel("load")
    >>> axes[0, 0].xaxis.label.get_fontname()
    'STIXGeneral'
    """
    return _style()


def paper_style(fn):
    """Decorator: the whole figure function runs under ``PAPER_RC`` (fonts are fixed when artists
    are created, so the style must hold while labels and legends are made, not only for the figure);
    the figure is finished with :func:`finish_figure` (log ticks, labels that would be clipped wrapped)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with _style():
            fig = fn(*args, **kwargs)
            finish_figure(fig)
            return fig
    return wrapper


def finish_figure(fig):
    r"""Tidy a figure for print: readable log ticks (``tidy_log_axes``), then every axis label or
    title that would be longer than its axes wrapped onto more lines (:func:`fit_labels`).

    Parameters
    ----------
    fig : matplotlib.figure.Figure

    Returns
    -------
    matplotlib.figure.Figure
        ``fig`` itself.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> with paper_rc():
    ...     fig, axes = new_figure("single")
    ...     _ = axes[0, 0].plot([1, 10], [0.1, 0.5])
    ...     _ = axes[0, 0].set_ylabel("a very long label " * 4)
    ...     fig = finish_figure(fig)
    >>> "\n" in axes[0, 0].get_ylabel()
    True
    """
    with _style():
        tidy_log_axes(fig)
        _titles_over_legends(fig)
        fit_labels(fig)
    return fig


def _titles_over_legends(fig) -> None:
    """An axes title goes above a legend placed above the axes (its pad grows by the legend's height)."""
    import matplotlib as mpl
    renderer = _renderer(fig)     # a legend above is anchored on the axes' top: no new layout needed
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None or not ax.get_title() or not legend_is_above(ax, leg):
            continue
        h_pt = leg.get_window_extent(renderer).height * 72.0 / fig.dpi
        ax.set_title(ax.get_title(), pad=float(mpl.rcParams["axes.titlepad"]) + h_pt + 1.0)


def _split_points(text: str) -> list[int]:
    """Indices of the spaces of ``text`` outside ``$...$`` (where a line may break)."""
    out, in_math = [], False
    for i, ch in enumerate(text):
        if ch == "$" and (i == 0 or text[i - 1] != "\\"):
            in_math = not in_math
        elif ch == " " and not in_math:
            out.append(i)
    return out


def _wrap_once(text: str) -> str | None:
    """``text`` with its longest line broken at the space nearest its middle (None if it has none)."""
    lines = text.split("\n")
    j = max(range(len(lines)), key=lambda i: len(lines[i]))
    line = lines[j]
    pts = _split_points(line)
    if not pts:
        return None
    k = min(pts, key=lambda i: abs(i - len(line) / 2))
    lines[j:j + 1] = [line[:k].rstrip(), line[k + 1:].lstrip()]
    return "\n".join(lines)


def fit_labels(fig, *, max_lines: int = 3) -> None:
    r"""Wrap every axis label longer than its axes (and every title wider than its axes, a figure
    title wider than the figure) onto more lines, at spaces outside ``$...$``, so that nothing is
    clipped by the figure's edge.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    max_lines : int
        At most this many lines per label.

    Returns
    -------
    None

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> with paper_rc():
    ...     fig, axes = new_figure("single")
    ...     _ = axes[0, 0].set_title("a title much too long for one column of a two-column page, really")
    ...     fit_labels(fig)
    >>> axes[0, 0].get_title().count("\n")
    1
    """
    for _ in range(max_lines):
        _layout(fig)
        renderer = _renderer(fig)
        changed = False
        for ax in fig.axes:
            axbb = ax.get_window_extent(renderer)
            items = [(ax.xaxis.label, "w", axbb.width), (ax.yaxis.label, "h", axbb.height),
                     (ax.title, "w", max(axbb.width, 0.9 * fig.bbox.width if len(fig.axes) == 1 else axbb.width))]
            for txt, dim, span in items:
                s = txt.get_text()
                if not s or not txt.get_visible() or s.count("\n") + 1 >= max_lines:
                    continue
                bb = txt.get_window_extent(renderer)
                if (bb.width if dim == "w" else bb.height) > span:
                    new = _wrap_once(s)
                    if new is not None:
                        txt.set_text(new)
                        changed = True
        sup = getattr(fig, "_suptitle", None)
        if sup is not None and sup.get_text() and sup.get_text().count("\n") + 1 < max_lines:
            if sup.get_window_extent(renderer).width > 0.98 * fig.bbox.width:
                new = _wrap_once(sup.get_text())
                if new is not None:
                    sup.set_text(new)
                    changed = True
        if not changed:
            return


def cap_probability_axis(ax, values=None) -> None:
    """A probability's y axis ends at 1 (never 10^3): the top limit is set to at most 1.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    values : array_like, optional
        The plotted probabilities: a ``ValueError`` is raised when one of them exceeds 1 or is
        negative (it is not a probability).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        When a value lies outside ``[0, 1]``.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig, axes = new_figure("single")
    >>> ax = axes[0, 0]
    >>> _ = ax.semilogy([1, 2, 3], [1e-6, 1e-3, 0.9])
    >>> cap_probability_axis(ax)
    >>> bool(ax.get_ylim()[1] <= 1)
    True
    """
    if values is not None:
        v = np.asarray(values, dtype=float)
        v = v[np.isfinite(v)]
        if v.size and (v.max() > 1.0 or v.min() < 0.0):
            raise ValueError(f"a probability must lie in [0, 1]; got values from {v.min()!r} to {v.max()!r}")
    lo, hi = ax.get_ylim()
    if hi > 1.0:
        if ax.get_yscale() == "log" and not lo < 1.0:
            lo = 1e-3
        ax.set_ylim(lo, 1.0)


def _plain_tick(x, _pos=None) -> str:
    """``0.5``, ``20`` (plain) between 10^-3 and 10^4, else ``$2\\times 10^{-5}$``."""
    if x == 0:
        return "$0$"
    if 1e-3 <= abs(x) < 1e4:
        return f"{x:g}"
    e = int(math.floor(math.log10(abs(x)) + 1e-9))
    m = x / 10.0 ** e
    mant = "" if abs(round(m, 6) - 1) < 1e-6 else f"{m:g}\\times "
    return f"${mant}10^{{{e}}}$"


def _decade_ticks(axis, lo: float, hi: float, max_ticks: int = 7) -> None:
    """Powers of ten at a round stride (1, 2, 3, 5, 10, 20, 25, 50, ... decades), aligned on 10^0."""
    from matplotlib.ticker import FixedLocator, LogFormatterSciNotation, NullFormatter, NullLocator
    elo = int(math.ceil(math.log10(lo) - 1e-9))
    ehi = int(math.floor(math.log10(hi) + 1e-9))
    exps = list(range(elo, ehi + 1))
    for stride in (1, 2, 3, 5, 10, 20, 25, 50, 100, 200, 250, 500):
        exps = [e for e in range(elo, ehi + 1) if e % stride == 0]
        if len(exps) <= max_ticks:
            break
    if len(exps) < 2:
        return
    axis.set_major_locator(FixedLocator([10.0 ** e for e in exps]))
    axis.set_major_formatter(LogFormatterSciNotation())
    if stride == 1:
        return
    decades = [10.0 ** e for e in range(elo, ehi + 1)]
    axis.set_minor_locator(FixedLocator(decades) if len(decades) <= 60 else NullLocator())
    axis.set_minor_formatter(NullFormatter())


def tidy_log_axes(fig) -> None:
    """Log axes spanning less than two decades get plain labels at 1, 2, 5 x 10^k (the default minor
    labels such as ``2x10^1 3x10^1 4x10^1`` overlap)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        for axis, lim, scale in ((ax.xaxis, ax.get_xlim(), ax.get_xscale()),
                                 (ax.yaxis, ax.get_ylim(), ax.get_yscale())):
            if scale != "log":
                continue
            lo, hi = sorted(lim)
            if lo <= 0 or not np.isfinite(lo) or not np.isfinite(hi):
                continue
            if math.log10(hi / lo) >= 2.0:
                _decade_ticks(axis, lo, hi)
                continue
            ks = range(int(math.floor(math.log10(lo))), int(math.ceil(math.log10(hi))) + 1)
            ticks = []
            for mants in ((1, 2, 5), (1, 2, 3, 5, 7), range(1, 10)):
                ticks = [m * 10.0 ** k for k in ks for m in mants if lo <= m * 10.0 ** k <= hi]
                if len(ticks) >= 3:
                    break
            if len(ticks) < 2:          # less than a factor 2 or so: evenly spaced round numbers
                from matplotlib.ticker import MaxNLocator
                ticks = [t for t in MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi)
                         if lo <= t <= hi and t > 0]
            if len(ticks) < 2:
                continue
            axis.set_major_locator(FixedLocator(ticks))
            axis.set_major_formatter(FuncFormatter(_plain_tick))
            axis.set_minor_formatter(NullFormatter())


def new_figure(width="single", height=None, *, nrows: int = 1, ncols: int = 1, sharex=False, aspect=None,
               gridspec_kw=None):
    """A pyplot figure in the paper style with ``constrained`` layout (every label, legend and title
    inside the figure) and its axes.

    Parameters
    ----------
    width : {"single", "double"} or float
        See :func:`figure_size`.
    height : float, optional
        See :func:`figure_size`.
    nrows, ncols : int
        Panels.
    sharex : bool
        Share the x axis between panels.
    aspect : float, optional
        See :func:`figure_size`.
    gridspec_kw : dict, optional
        Passed to :func:`matplotlib.pyplot.subplots`.

    Returns
    -------
    (Figure, numpy.ndarray of Axes)
        The axes as a 2-D array.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig, axes = new_figure("double", nrows=2)
    >>> axes.shape, fig.get_layout_engine().__class__.__name__
    ((2, 1), 'ConstrainedLayoutEngine')
    """
    import matplotlib.pyplot as plt
    size = figure_size(width, height, rows=nrows, aspect=aspect)
    with _style():
        fig, axes = plt.subplots(nrows, ncols, figsize=size, sharex=sharex, layout="constrained",
                                 gridspec_kw=gridspec_kw, squeeze=False)
    fig._symloss = {"width": width}
    return fig, axes


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

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig, axes = new_figure("single")
    >>> _ = axes[0, 0].plot([0, 1], [0, 1], label="diagonal")
    >>> legend_is_above(axes[0, 0], place_legend(axes[0, 0], outside="above"))
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
        For an unknown ``outside``.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
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


# ------------------------------------------------------------------------------------------------
# values
# ------------------------------------------------------------------------------------------------

def _scalar(v):
    """A number from a value or a result object (``.blocking``, ``.value``, ``.distance``)."""
    for attr in ("blocking", "value", "distance", "mean_queue_length"):
        if hasattr(v, attr) and not isinstance(v, (int, float)):
            x = getattr(v, attr)
            return x() if callable(x) else x
    return v


def log10_values(values) -> np.ndarray:
    """``log10`` of each value as float64.

    Parameters
    ----------
    values : iterable
        Numbers, mpf, flint balls or result objects (``.blocking``, ``.value``, ...).

    Returns
    -------
    numpy.ndarray
        Computed in mpmath for mpf (so 1e-2332 gives -2332, not -inf); 0 gives ``-inf``, negative
        values ``nan``.
    """
    import mpmath
    out = []
    for v in values:
        v = _scalar(v)
        if isinstance(v, mpmath.mpf) or type(v).__module__.startswith("flint"):
            v = mpmath.mpf(v) if isinstance(v, mpmath.mpf) else mpmath.mpf(str(v).split(" +/-")[0].strip("[]"))
            if v > 0:
                out.append(float(mpmath.log10(v)))
            elif v == 0:
                out.append(-math.inf)
            else:
                out.append(math.nan)
        else:
            x = float(v)
            out.append(math.log10(x) if x > 0 else (-math.inf if x == 0 else math.nan))
    return np.asarray(out, dtype=float)


def float_values(values) -> np.ndarray:
    """Each value (or result object) as float64.

    Parameters
    ----------
    values : iterable
        Numbers or result objects.

    Returns
    -------
    numpy.ndarray
    """
    return np.asarray([float(_scalar(v)) for v in values], dtype=float)


def policy_label(model) -> str:
    """A legend label for a policy.

    Parameters
    ----------
    model : model object or str
        E.g. ``symloss.RetrialOfD(2, 2)`` or ``"jsq"``.

    Returns
    -------
    str
        ``retrial-of-2``, ``power-of-3``, ``random routing``, ``JSQ``, else the model's ``name``
        (never a Python repr).

    Raises
    ------
    TypeError
        When ``model`` is neither a str nor an object with a non-empty str ``name``.

    Examples
    --------
    >>> import symloss
    >>> policy_label(symloss.PowerOfD(2, 3)), policy_label("jsq")
    ('power-of-3', 'JSQ')
    """
    if isinstance(model, str):
        name = model
    else:
        name = getattr(model, "name", None)
        if not isinstance(name, str) or not name:
            raise TypeError(f"a legend label needs a model with a 'name' (or a str label), got a "
                            f"{type(model).__name__}")
    d = getattr(model, "d", None)
    if name == "retrial":
        return f"retrial-of-{d}" if d is not None else "retrial-of-$d$"
    if name == "power":
        return f"power-of-{d}" if d is not None else "power-of-$d$"
    if name == "random":
        return "random routing"
    if name == "jsq":
        return "JSQ"
    return str(name)


# ------------------------------------------------------------------------------------------------
# saving
# ------------------------------------------------------------------------------------------------

def savefig(fig, path, *, formats: Iterable[str] | None = None, provenance: Mapping | None = None,
            dpi: int = 300, **kwargs) -> list[Path]:
    """Save ``fig`` to PDF/PNG/SVG with the provenance in the file's metadata.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    path : str or Path
        File name; its suffix gives the format unless ``formats`` is given (then one file per format,
        ``path`` with each suffix).
    formats : iterable of str, optional
        E.g. ``("pdf", "png")``.
    provenance : mapping, optional
        Default: :func:`symloss.core.provenance.provenance` with what the figure function recorded
        (figure name, dps, seeds).
    dpi : int
        Resolution of raster formats.
    **kwargs
        Passed to :meth:`matplotlib.figure.Figure.savefig`.

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    ValueError
        For an unknown format.
    FileNotFoundError, PermissionError
        When the directory does not exist or cannot be written (checked before drawing).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import os, tempfile
    >>> fig, axes = new_figure("single")
    >>> _ = axes[0, 0].plot([1, 2], [3, 4])
    >>> [p.suffix for p in savefig(fig, os.path.join(tempfile.mkdtemp(), "f.pdf"), formats=("pdf", "png"))]
    ['.pdf', '.png']
    """
    from ..core.provenance import figure_metadata, provenance as make_provenance
    path = Path(path)
    if formats is None:
        fmt = path.suffix.lower().lstrip(".")
        if fmt not in ("pdf", "png", "svg"):
            raise ValueError(f"path must end in .pdf, .png or .svg (or give formats=), got {str(path)!r}")
        targets = [(path, fmt)]
    else:
        fmts = [str(f).lower().lstrip(".") for f in formats]
        bad = [f for f in fmts if f not in ("pdf", "png", "svg")]
        if bad or not fmts:
            raise ValueError(f"formats must be among 'pdf', 'png', 'svg', got {list(formats)!r}")
        targets = [(path.with_suffix("." + f), f) for f in fmts]
    for target, _ in targets:
        check_output_path(target, "path")
    info = dict(getattr(fig, "_symloss", {}) or {})
    prov = dict(provenance) if provenance is not None else make_provenance(
        dps=info.get("dps"), seed=info.get("seed"), figure=info.get("figure"))
    written = []
    for target, fmt in targets:
        md = figure_metadata(prov, fmt, title=info.get("title"))
        fig.savefig(target, format=fmt, dpi=dpi, metadata=md, **kwargs)
        written.append(target)
    return written
