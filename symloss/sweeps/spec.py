"""TOML sweep specifications (``symloss sweep SPEC.toml``).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from .grid import Grid, _linspace, _round12

# ------------------------------------------------------------------------------------------------
# TOML specs (used by ``symloss sweep SPEC.toml``)
# ------------------------------------------------------------------------------------------------

_SPEC_KEYS = {"function", "store", "executor", "workers", "scheduler", "name", "resume", "progress", "check",
              "grid"}


def _spec_axis(name: str, value):
    """An axis of a TOML grid: a list, a scalar, or a table {range|linspace|logspace|geomspace|values}."""
    if not isinstance(value, dict):
        return value
    if len(value) != 1:
        raise ValueError(f"grid axis {name!r}: a table must have exactly one of range, linspace, logspace, "
                         f"geomspace, values; got {sorted(value)}")
    (kind, args), = value.items()
    if kind == "values":
        return list(args)
    if not isinstance(args, list) or not all(isinstance(a, (int, float)) and not isinstance(a, bool)
                                             for a in args):
        raise ValueError(f"grid axis {name!r}: {kind} needs a list of numbers, got {args!r}")
    if kind == "range":
        if not all(isinstance(a, int) for a in args) or not 1 <= len(args) <= 3:
            raise ValueError(f"grid axis {name!r}: range needs 1 to 3 integers [start, stop, step], got {args!r}")
        return list(range(*args))
    if len(args) != 3 or not float(args[2]).is_integer() or args[2] < 1:
        raise ValueError(f"grid axis {name!r}: {kind} needs [start, stop, num] with num >= 1, got {args!r}")
    start, stop, num = float(args[0]), float(args[1]), int(args[2])
    if kind == "linspace":
        return _linspace(start, stop, num)
    if kind == "logspace":  # exponents of 10
        return [_round12(10.0 ** e) for e in _linspace(start, stop, num, round12=False)]
    if kind == "geomspace":
        if start <= 0 or stop <= 0:
            raise ValueError(f"grid axis {name!r}: geomspace needs positive bounds, got {args!r}")
        exps = _linspace(math.log(start), math.log(stop), num, round12=False)
        return [_round12(math.exp(e)) for e in exps][:-1] + [stop]
    raise ValueError(f"grid axis {name!r}: unknown kind {kind!r} (use range, linspace, logspace, "
                     f"geomspace or values)")


def spec_grid(table: Mapping) -> Grid:
    """The grid of a TOML spec's ``[grid]`` table: the product of its axes and of its zip groups.

    ``zip`` inside ``[grid]`` (``[grid.zip]`` or several ``[[grid.zip]]``) holds axes that advance together.

    Parameters
    ----------
    table : mapping
        The ``[grid]`` table: axis name -> list, scalar or ``{range|linspace|logspace|geomspace|values}``.

    Returns
    -------
    Grid

    Examples
    --------
    >>> len(spec_grid({"C": {"range": [2, 5]}, "rho": {"linspace": [0.5, 1.5, 3]}, "zip": {"d": [2, 3], "dt": [3, 4]}}))
    18
    """
    if not isinstance(table, Mapping):
        raise TypeError(f"[grid] must be a table, got {type(table).__name__}")
    axes = {k: _spec_axis(k, v) for k, v in table.items() if k != "zip"}
    g = Grid.product(**axes) if axes else Grid([{}])
    zips = table.get("zip", [])
    if isinstance(zips, Mapping):
        zips = [zips]
    for group in zips:
        if not isinstance(group, Mapping):
            raise TypeError(f"[grid.zip] must be a table of axes, got {group!r}")
        g = g * Grid.zip(**{k: _spec_axis(k, v) for k, v in group.items()})
    return g


def load_spec(path) -> dict:
    """Read and check a TOML sweep spec.

    Parameters
    ----------
    path : str or Path
        The spec (see ``docs/sweep.md`` and ``examples/spec.toml``). A relative ``store`` is taken
        relative to the spec file's directory.

    Returns
    -------
    dict
        The keyword arguments of :func:`~symloss.sweeps.engine.sweep` plus ``func`` and ``grid``.

    Raises
    ------
    ValueError
        For invalid TOML, unknown keys, or a missing ``function`` or ``[grid]``.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "s.toml")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write('function = "threshold"\\n[grid]\\nC = [2, 3]\\nd = 2\\ndt = 3\\n')
    >>> kw = load_spec(path)
    >>> kw["func"], len(kw["grid"]), os.path.basename(kw["store"])
    ('threshold', 2, 's.sqlite')
    """
    import tomllib
    path = Path(path)
    with open(path, "rb") as fh:
        try:
            spec = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{path}: invalid TOML: {exc}") from exc
    unknown = set(spec) - _SPEC_KEYS
    if unknown:
        raise ValueError(f"{path}: unknown keys {sorted(unknown)}; allowed: {sorted(_SPEC_KEYS)}")
    if "function" not in spec or not isinstance(spec["function"], str):
        raise ValueError(f"{path}: 'function' (a name such as \"threshold\" or \"module:function\") is required")
    if "grid" not in spec:
        raise ValueError(f"{path}: a [grid] table is required")
    store = Path(spec.get("store", path.with_suffix(".sqlite").name))
    if not store.is_absolute():
        store = path.parent / store
    out = {"func": spec["function"], "grid": spec_grid(spec["grid"]), "store": str(store),
           "executor": spec.get("executor", "processes")}
    for k in ("workers", "scheduler", "name", "resume", "progress", "check"):
        if k in spec:
            out[k] = spec[k]
    return out

