"""Docstring fragments of :mod:`symloss.sweeps`, filled in at import by
:func:`symloss.core.docstrings.fill_doc` (``@fill_doc(SWEEPS_DOCS)``): the sections :func:`grid` and
:func:`zip_grid` share with the :class:`Grid` constructors they call, and the doctest set-up of the
store readers.
"""
from __future__ import annotations

__all__ = ["SWEEPS_DOCS"]

#: name -> text of the docstring fragments of the sweeps room.
SWEEPS_DOCS: dict[str, str] = {
    # Grid.product and grid(), which is Grid.product
    "product_sections": """\
Parameters
----------
**axes
    Parameter name -> a scalar (a one-value axis) or a sequence of values.

Returns
-------
Grid
    One point per combination of the axis values (the product of the axis lengths), the first axis
    varying slowest.

Raises
------
ValueError
    Beyond ``MAX_POINTS`` points.""",
    # Grid.zip and zip_grid(), which is Grid.zip
    "zip_sections": """\
Parameters
----------
**axes
    Parameter name -> a scalar (repeated at every point) or a sequence; all sequences have one
    length, the number of points.

Returns
-------
Grid
    One point per position along the axes.

Raises
------
ValueError
    When two sequences have different lengths.""",
    # the doctest set-up of the store readers: a two-point store of math.comb
    "example_comb_store": """\
>>> import tempfile, os
>>> from symloss.sweeps import sweep, grid
>>> path = os.path.join(tempfile.mkdtemp(), "comb.sqlite")
>>> _ = sweep("math:comb", grid(n=[4, 5], k=2), store=path, executor="serial", progress=False)""",
}
