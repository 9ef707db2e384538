"""Saving a figure with its provenance in the file's metadata (part of :mod:`symloss.plot._style`,
which re-exports :func:`savefig`)."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ..core.provenance import figure_metadata, provenance as make_provenance
from ..core.validation import check_output_path

__all__ = ["savefig"]


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
    >>> from symloss.plot import new_figure
    >>> fig, axes = new_figure("single")
    >>> _ = axes[0, 0].plot([1, 2], [3, 4])
    >>> [p.suffix for p in savefig(fig, os.path.join(tempfile.mkdtemp(), "f.pdf"), formats=("pdf", "png"))]
    ['.pdf', '.png']
    """
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
