"""Parameter grids for sweeps: products and zips of named axes.
"""
from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable, Mapping, Sequence

from ..core.docstrings import fill_doc
from ._docfragments import SWEEPS_DOCS
from .records import _plain

# ------------------------------------------------------------------------------------------------
# grids
# ------------------------------------------------------------------------------------------------

def _is_scalar(values) -> bool:
    if values is None or isinstance(values, (str, bytes, int, float, bool)):
        return True
    if hasattr(values, "tolist") and getattr(values, "ndim", 1) == 0:  # numpy scalar
        return True
    return not isinstance(values, Iterable)  # an object meant as one value (e.g. an mpf)


def _axis_values(name: str, values) -> list:
    """The values of one axis: a scalar is a one-value axis, anything else iterable is a list."""
    if isinstance(values, Mapping):
        raise TypeError(f"axis {name!r} must be a scalar or a sequence of values, got a mapping")
    return [values] if _is_scalar(values) else list(values)


MAX_POINTS = 10_000_000     # points of one grid (each is a dict: about 1 KB with its store row)

@fill_doc(SWEEPS_DOCS)
class Grid(Sequence):
    """An ordered, immutable sequence of parameter points (dicts with string keys).

    Build grids with :func:`grid` (Cartesian product of axes) and :func:`zip_grid` (axes that advance
    together), and combine them: ``a * b`` is the product of two grids (their keys must differ),
    ``a + b`` the concatenation, ``a.filter(pred)`` keeps the points where ``pred(point)`` is true.

    Parameters
    ----------
    points : iterable of mappings
        The points, in order.

    Examples
    --------
    >>> from symloss.sweeps import grid, zip_grid
    >>> g = grid(C=[2, 3], rho=[0.5, 1.0]) * zip_grid(d=[2, 3], dt=[3, 4])
    >>> len(g), g[0]
    (8, {'C': 2, 'rho': 0.5, 'd': 2, 'dt': 3})
    >>> len(g.filter(lambda p: p["d"] <= p["C"]))
    6
    """

    __slots__ = ("_points",)

    def __init__(self, points: Iterable[Mapping] = ()):
        pts = []
        for i, p in enumerate(points):
            if not isinstance(p, Mapping):
                raise TypeError(f"grid point {i} must be a mapping of parameter names to values, "
                                f"got {type(p).__name__} {p!r}")
            for k in p:
                if not isinstance(k, str):
                    raise TypeError(f"grid point {i}: parameter names must be strings, got {k!r}")
            pts.append(dict(p))
        self._points = tuple(pts)

    @classmethod
    def product(cls, **axes) -> Grid:
        """Cartesian product of the axes, the first axis varying slowest (like ``itertools.product``).

        {{product_sections}}
        """
        names = list(axes)
        values = [_axis_values(n, axes[n]) for n in names]
        size = math.prod(len(v) for v in values)
        if size > MAX_POINTS:
            detail = " x ".join(f"{n}: {len(v)}" for n, v in zip(names, values))
            raise ValueError(f"grid: {size:,} points ({detail}) is more than MAX_POINTS={MAX_POINTS:,} (every point "
                             f"is stored in memory and in the sweep's store); split the sweep or coarsen an axis")
        return cls(dict(zip(names, combo)) for combo in itertools.product(*values))

    @classmethod
    def zip(cls, **axes) -> Grid:
        """Axes that advance together; all non-scalar axes must have the same length (scalars repeat).

        {{zip_sections}}
        """
        names = list(axes)
        values = [_axis_values(n, axes[n]) for n in names]
        scalar = [_is_scalar(axes[n]) for n in names]
        lengths = {len(v) for v, s in zip(values, scalar) if not s}
        if len(lengths) > 1:
            detail = ", ".join(f"{n}: {len(v)}" for n, v, s in zip(names, values, scalar) if not s)
            raise ValueError(f"zip_grid axes must have the same length, got {detail}")
        n = lengths.pop() if lengths else 1
        cols = [v * n if s else v for v, s in zip(values, scalar)]
        return cls(dict(zip(names, row)) for row in zip(*cols)) if names else cls()

    def __len__(self) -> int:
        return len(self._points)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Grid(self._points[i])
        return dict(self._points[i])

    def __iter__(self):
        return (dict(p) for p in self._points)

    def __mul__(self, other) -> Grid:
        other = other if isinstance(other, Grid) else Grid(other)
        out = []
        for a in self._points:
            for b in other._points:
                common = a.keys() & b.keys()
                if common:
                    raise ValueError(f"cannot take the product of grids sharing parameters {sorted(common)}")
                out.append({**a, **b})
        return Grid(out)

    def __add__(self, other) -> Grid:
        other = other if isinstance(other, Grid) else Grid(other)
        return Grid(self._points + other._points)

    def __eq__(self, other) -> bool:
        return isinstance(other, Grid) and self._points == other._points

    __hash__ = None

    def filter(self, predicate) -> Grid:
        """The points ``p`` for which ``predicate(p)`` is true (``p`` is a dict).

        Parameters
        ----------
        predicate : callable
            ``predicate(point) -> bool`` on a copy of each point.

        Returns
        -------
        Grid
        """
        return Grid(p for p in self._points if predicate(dict(p)))

    def keys(self) -> list[str]:
        """Every parameter name, in order of first appearance."""
        seen = {}
        for p in self._points:
            for k in p:
                seen.setdefault(k, None)
        return list(seen)

    def __repr__(self) -> str:
        axes = []
        for k in self.keys():
            n = len({_canonical_value_key(p[k]) for p in self._points if k in p})
            axes.append(f"{k}[{n}]")
        return f"Grid({len(self)} points; {', '.join(axes)})"


def _canonical_value_key(v) -> str:
    try:
        return json.dumps(_plain(v), sort_keys=True)
    except (TypeError, ValueError):
        return repr(v)


@fill_doc(SWEEPS_DOCS)
def grid(**axes) -> Grid:
    """Cartesian product of parameter axes (a scalar is a one-value axis).

    ``grid(C=range(1, 101), d=[2, 3], rho=np.linspace(0.5, 2, 16), dps=30)`` has 100 * 2 * 16 points;
    the first axis varies slowest. Combine with :func:`zip_grid` through ``*`` and ``+``.

    {{product_sections}}

    Examples
    --------
    >>> g = grid(C=[2, 3], d=2, rho=[0.5, 1.0])
    >>> len(g), g[1]
    (4, {'C': 2, 'd': 2, 'rho': 1.0})
    """
    return Grid.product(**axes)


@fill_doc(SWEEPS_DOCS)
def zip_grid(**axes) -> Grid:
    """Axes that advance together (same lengths; scalars repeat).

    {{zip_sections}}

    Examples
    --------
    >>> list(zip_grid(d=[2, 3], dt=[3, 4]))
    [{'d': 2, 'dt': 3}, {'d': 3, 'dt': 4}]
    """
    return Grid.zip(**axes)


def _linspace(start, stop, num, *, round12: bool = True) -> list[float]:
    num = int(num)
    if num < 1:
        raise ValueError(f"linspace needs at least one point, got num={num}")
    if num == 1:
        return [float(start)]
    step = (float(stop) - float(start)) / (num - 1)
    f = _round12 if round12 else float
    return [f(float(start) + i * step) for i in range(num - 1)] + [float(stop)]


def _round12(x: float) -> float:
    """Round to 12 significant digits so grid keys read 0.3, not 0.30000000000000004."""
    return float(f"{x:.12g}")


