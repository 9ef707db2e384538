"""The docstring fragments of :mod:`symloss.plot`: the parameter texts every figure function shares,
written once and filled in with :func:`symloss.core.docstrings.fill_doc` (``@fill_doc(PLOT_DOCS)``).
"""
from __future__ import annotations

__all__ = ["PLOT_DOCS"]

#: name -> text of the shared parameter descriptions of the figure functions.
PLOT_DOCS: dict[str, str] = {
    "width_height": """\
width, height : str or float, optional
    ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
    width).""",
    "title": """\
title : str, optional
    A title (in the paper style: over the axes of a one-panel figure, a figure title over several
    panels).""",
}
