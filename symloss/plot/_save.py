"""Saving a figure with its provenance in the file's metadata (part of :mod:`symloss.plot._style`,
which re-exports :func:`savefig`), and the one directory figures go to (:func:`figure_dir`).

Where figures go: a file name without a directory (``savefig(fig, "blocking.pdf")``) is written to
:func:`figure_dir` -- ``$SYMLOSS_FIGURE_DIR`` when that is set, else ``./symloss-figures/`` under the
working directory (created on first use; ``.gitignore`` of the repository lists it). A path with a
directory is written where it says. The figures of the documentation (``docs/figures/``) are written
only by the docs build step ``python notebooks/build.py --docs-figures``.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..core.provenance import figure_metadata, provenance as make_provenance
from ..core.validation import check_output_path

__all__ = ["savefig", "figure_dir", "FIGURE_DIR_ENV", "DEFAULT_FIGURE_DIR"]

#: Environment variable naming the directory figures are saved to.
FIGURE_DIR_ENV = "SYMLOSS_FIGURE_DIR"
#: Directory (under the working directory) figures go to when ``SYMLOSS_FIGURE_DIR`` is not set.
DEFAULT_FIGURE_DIR = "symloss-figures"


def figure_dir(create: bool = True) -> Path:
    """The directory figures are saved to: ``$SYMLOSS_FIGURE_DIR``, else ``./symloss-figures``.

    Parameters
    ----------
    create : bool
        Create the directory (and its parents) if it does not exist.

    Returns
    -------
    pathlib.Path
        The directory (relative to the working directory unless the variable gives an absolute path).

    Raises
    ------
    ValueError
        If ``SYMLOSS_FIGURE_DIR`` names an existing file that is not a directory.

    Examples
    --------
    >>> import os, tempfile
    >>> os.environ["SYMLOSS_FIGURE_DIR"] = d = tempfile.mkdtemp()
    >>> figure_dir() == Path(d)
    True
    >>> del os.environ["SYMLOSS_FIGURE_DIR"]
    >>> figure_dir(create=False).as_posix()
    'symloss-figures'
    """
    raw = os.environ.get(FIGURE_DIR_ENV, "").strip()
    path = Path(os.path.expanduser(raw)) if raw else Path(DEFAULT_FIGURE_DIR)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{FIGURE_DIR_ENV} must name a directory, got {raw!r}, which is a file")
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def savefig(fig, path, *, formats: Iterable[str] | None = None, provenance: Mapping | None = None,
            dpi: int = 300, **kwargs) -> list[Path]:
    """Save ``fig`` to PDF/PNG/SVG with the provenance in the file's metadata.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    path : str or Path
        File name; its suffix gives the format unless ``formats`` is given (then one file per format,
        ``path`` with each suffix). A bare name (no directory) is written to :func:`figure_dir`
        (``$SYMLOSS_FIGURE_DIR``, else ``./symloss-figures``); a path with a directory where it says.
    formats : iterable of str, optional
        E.g. ``("pdf", "png")``.
    provenance : mapping, optional
        Default: :func:`symloss.core.provenance.provenance` with what the figure function recorded
        (figure name, dps, seeds); in a notebook it names the notebook
        (:func:`symloss.core.provenance.provenance_source`).
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
    bare = isinstance(path, (str, os.PathLike)) and not os.path.dirname(os.fspath(path))
    path = Path(path)
    if bare:                                    # "f.pdf" (not "./f.pdf"): the one figure directory
        path = figure_dir() / path
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
        stem = path.with_suffix("") if path.suffix.lower() in (".pdf", ".png", ".svg") else path
        targets = [(stem.with_name(stem.name + "." + f), f) for f in fmts]
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
