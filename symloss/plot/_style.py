"""Figure sizes, paper style, legend placement off the data, value conversion and saving with provenance.

This module holds the sizes, the rc settings, the :func:`paper_style` decorator, tick and label
tidying and :func:`new_figure`; the legend placement (:mod:`._legend`), the value conversion
(:mod:`._values`) and :func:`savefig` (:mod:`._save`) live beside it and are re-exported here.
matplotlib is imported inside the functions that draw (``symloss.plot`` itself imports it first).
"""
from __future__ import annotations

import contextlib
import math

import numpy as np

from ._legend import (  # noqa: F401
    _LOCATIONS,
    MAX_LEGEND_SHARE,
    _data_points,
    _layout,
    _legend_above,
    _legend_share,
    _renderer,
    legend_is_above,
    legend_overlaps_data,
    place_legend,
)
from ._save import savefig
from ._values import _scalar, float_values, log10_values, policy_label  # noqa: F401

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
    Inside the block the paper's font and sizes hold; after it, the settings of before:

    >>> import matplotlib; matplotlib.use("Agg")
    >>> with paper_rc():
    ...     size = matplotlib.rcParams["font.size"]
    ...     fig, axes = new_figure("single")
    ...     label = axes[0, 0].set_xlabel("load")
    >>> size, label.get_fontname(), matplotlib.rcParams["font.size"] == size
    (8.0, 'STIXGeneral', False)
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
        The labels and titles of ``fig`` are changed in place.

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
        The top y limit of ``ax`` is lowered to 1 in place when it lies above (a log axis that did
        not reach below 1 then starts at :math:`10^{-3}`).

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
