"""Resumable parameter sweeps: a function over a grid, in this process, on local worker processes
or on a Dask cluster, into an SQLite store (see :mod:`.engine` for the executors and the store).

Modules: :mod:`.grid` (grids), :mod:`.records` (canonical keys, JSON results), :mod:`.functions`
(named functions), :mod:`.checks` (checking a grid before it runs), :mod:`.engine` (running, the store,
reading it back), :mod:`.spec` (TOML specs), :mod:`.tables` (small in-process tables such as
:func:`~symloss.sweeps.tables.threshold_table`).
The package is named ``sweeps`` so that ``symloss.sweep`` stays the function :func:`sweep`.
"""
from .checks import GridError, check_grid
from .engine import SweepSummary, load_sweep, sweep, sweep_status
from .functions import (
           FUNCTIONS,
           _call,
           admission,
           blocking,
           fixed_point,
           resolve_function,
)
from .grid import Grid, grid, zip_grid
from .records import canonical_params, to_jsonable
from .spec import load_spec, spec_grid
from .tables import threshold_table

__all__ = ["sweep", "load_sweep", "sweep_status", "grid", "zip_grid", "Grid", "SweepSummary",
           "resolve_function", "FUNCTIONS", "canonical_params", "to_jsonable", "load_spec", "spec_grid",
           "blocking", "fixed_point", "admission", "check_grid", "GridError", "threshold_table"]
