"""Figure sizes, paper style, legend placement off the data, value conversion and saving with provenance."""
from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from ..core.validation import check_output_path

__all__ = ["figure_size", "new_figure", "paper_style", "symlog_ticks", "tidy_log_axes", "place_legend",
           "legend_overlaps_data", "savefig", "log10_values",
           "float_values", "policy_label", "WIDTHS", "PAPER_RC"]

#: Figure widths in inches: one column and two columns of a typical two-column journal page.
WIDTHS = {"single": 3.5, "double": 7.2}

#: matplotlib settings for print: small serif-free fonts, thin lines, no top/right spines.
PAPER_RC = {
    "font.size": 8.0, "axes.labelsize": 8.0, "axes.titlesize": 8.0, "legend.fontsize": 7.0,
    "xtick.labelsize": 7.0, "ytick.labelsize": 7.0, "lines.linewidth": 1.2, "lines.markersize": 3.5,
    "axes.linewidth": 0.6, "xtick.major.width": 0.6, "ytick.major.width": 0.6, "axes.spines.top": False,
    "axes.spines.right": False, "legend.frameon": False, "savefig.dpi": 300, "figure.dpi": 100,
    "errorbar.capsize": 2.0, "mathtext.fontset": "cm", "axes.grid": False,
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


def paper_style(fn):
    """Decorator: the whole figure function runs under :data:`PAPER_RC` (fonts are fixed when artists
    are created, so the style must hold while labels and legends are made, not only for the figure)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with _style():
            fig = fn(*args, **kwargs)
            tidy_log_axes(fig)
            return fig
    return wrapper


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
            if lo <= 0 or not np.isfinite(lo) or not np.isfinite(hi) or math.log10(hi / lo) >= 2.0:
                continue
            ticks = [m * 10.0 ** k for k in range(int(math.floor(math.log10(lo))), int(math.ceil(math.log10(hi))) + 1)
                     for m in (1, 2, 5) if lo <= m * 10.0 ** k <= hi]
            if len(ticks) < 2:
                ticks = [m * 10.0 ** k for k in range(int(math.floor(math.log10(lo))),
                                                      int(math.ceil(math.log10(hi))) + 1)
                         for m in range(1, 10) if lo <= m * 10.0 ** k <= hi]
            if len(ticks) < 2:
                continue
            axis.set_major_locator(FixedLocator(ticks))
            axis.set_major_formatter(FuncFormatter(lambda x, _p: f"{x:g}"))
            axis.set_minor_formatter(NullFormatter())


def symlog_ticks(ax, values, linthresh: float, *, max_pos: int = 4, max_neg: int = 3) -> None:
    """Readable ticks on a symlog y axis: 0 and a few powers of ten on each side of it."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    lo_exp = int(math.ceil(math.log10(linthresh)))
    ticks = [0.0]
    for sign, limit in ((1, max_pos), (-1, max_neg)):
        side = v[v * sign > linthresh]
        if side.size == 0:
            continue
        hi_exp = int(math.floor(math.log10(np.max(np.abs(side)))))
        exps = list(range(lo_exp, hi_exp + 1))
        if not exps:
            continue
        step = max(1, int(math.ceil(len(exps) / limit)))
        chosen = exps[::-1][::step][::-1]
        ticks.extend(sign * 10.0 ** e for e in chosen)

    def fmt(x, _pos):
        if x == 0:
            return "$0$"
        e = int(round(math.log10(abs(x))))
        return f"${'-' if x < 0 else ''}10^{{{e}}}$"
    ax.yaxis.set_major_locator(FixedLocator(sorted(ticks)))
    ax.yaxis.set_major_formatter(FuncFormatter(fmt))
    ax.yaxis.set_minor_locator(NullLocator())


def new_figure(width="single", height=None, *, nrows: int = 1, ncols: int = 1, sharex=False, aspect=None,
               gridspec_kw=None):
    """A pyplot figure with ``constrained`` layout (room for legends outside the axes) and its axes.

    Parameters
    ----------
    width, height, aspect :
        See :func:`figure_size`.
    nrows, ncols : int
        Panels.
    sharex : bool
        Share the x axis between panels.
    gridspec_kw : dict, optional
        Passed to :func:`matplotlib.pyplot.subplots`.

    Returns
    -------
    (Figure, numpy.ndarray of Axes)
        The axes as a 2-D array.
    """
    import matplotlib.pyplot as plt
    size = figure_size(width, height, rows=nrows, aspect=aspect)
    with _style():
        fig, axes = plt.subplots(nrows, ncols, figsize=size, sharex=sharex, layout="constrained",
                                 gridspec_kw=gridspec_kw, squeeze=False)
    fig._symloss = {"width": width}
    return fig, axes


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


def place_legend(ax, *, ncol: int | None = None, outside: str | None = None, title: str | None = None, **kw):
    """Put the legend where it covers no data.

    The first of the usual corners that is free (checked with :func:`legend_overlaps_data` on the
    drawn figure), otherwise outside the axes (right of a wide figure, below a narrow one).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    ncol : int, optional
        Columns of the legend.
    outside : {None, "right", "below"}
        Force a place outside the axes.
    title : str, optional
        Legend title.
    **kw
        Passed to :meth:`matplotlib.axes.Axes.legend`.

    Returns
    -------
    matplotlib.legend.Legend or None
        None when the axes have no labelled artists.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig, axes = new_figure("single")
    >>> _ = axes[0, 0].plot([0, 1], [0, 1], label="diagonal")
    >>> leg = place_legend(axes[0, 0])
    >>> legend_overlaps_data(axes[0, 0])
    False
    """
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    kw = {"handlelength": 1.8, "borderaxespad": 0.4, **kw}
    if title is not None:
        kw["title"] = title
    fig = ax.figure
    if outside is None:
        for loc in _LOCATIONS:
            leg = ax.legend(handles, labels, loc=loc, ncol=ncol or 1, **kw)
            fig.draw_without_rendering()
            if not legend_overlaps_data(ax, leg):
                return leg
            leg.remove()
        w_in = fig.get_size_inches()[0]
        outside = "right" if w_in >= 5 else "below"
    if outside == "right":
        leg = ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), ncol=ncol or 1, **kw)
    elif outside == "below":
        width_in = fig.get_size_inches()[0]
        leg = ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.24),
                        ncol=ncol or min(2 if width_in < 5 else 4, len(handles)), **kw)
    else:
        raise ValueError(f"outside must be None, 'right' or 'below', got {outside!r}")
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
        ``retrial-of-2``, ``power-of-3``, ``random routing``, ``JSQ`` (never a Python repr).

    Examples
    --------
    >>> import symloss
    >>> policy_label(symloss.PowerOfD(2, 3)), policy_label("jsq")
    ('power-of-3', 'JSQ')
    """
    name = getattr(model, "name", model)
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
