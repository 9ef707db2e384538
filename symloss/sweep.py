"""Parameter sweeps: evaluate a function over a grid, locally or on a Dask cluster, into a resumable store.

A sweep maps a function over a grid of parameter dicts and writes every finished point to an SQLite
file at once (one row per point: parameters as canonical JSON, result as JSON, status, error text,
timings, worker and package version). A rerun skips the points already done and retries the failed
ones, so a sweep killed after hours loses only the points that were being computed.

Executors
---------
``"serial"``
    in this process, in grid order.
``"processes"`` (default)
    a pool of local worker processes (``spawn``), one point per task, a bounded number in flight.
    A worker that dies (segfault, out of memory, ``SIGKILL``) breaks the pool; the pool is rebuilt and
    the points that were in flight are rerun one at a time, so that only a point that kills its worker
    on its own is recorded as failed.
``"dask"``
    a Dask ``distributed`` cluster (``scheduler="tcp://host:8786"``, a ``Client``, a cluster object,
    or a ``LocalCluster`` started for the sweep when ``scheduler=None``). The scheduler reruns the
    points of a lost worker; results are written to the store by the client as they complete.

Only the client process writes to the store (SQLite in WAL mode, one short transaction per point), so
two sweeps writing to the same file serialise their writes instead of corrupting it; a point already
``done`` is never overwritten by a concurrent sweep.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import itertools
import json
import math
import os
import pickle
import socket
import sqlite3
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

__all__ = ["sweep", "load_sweep", "sweep_status", "grid", "zip_grid", "Grid", "SweepSummary",
           "resolve_function", "FUNCTIONS"]

EXECUTORS = ("processes", "serial", "dask")
SCHEMA_VERSION = 1
_ERROR_CHARS = 8000


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


class Grid(Sequence):
    """An ordered, immutable sequence of parameter points (dicts with string keys).

    Build grids with :func:`grid` (Cartesian product of axes) and :func:`zip_grid` (axes that advance
    together), and combine them: ``a * b`` is the product of two grids (their keys must differ),
    ``a + b`` the concatenation, ``a.filter(pred)`` keeps the points where ``pred(point)`` is true.

    Examples
    --------
    >>> from symloss.sweep import grid, zip_grid
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
        """Cartesian product of the axes, the first axis varying slowest (like ``itertools.product``)."""
        names = list(axes)
        values = [_axis_values(n, axes[n]) for n in names]
        return cls(dict(zip(names, combo)) for combo in itertools.product(*values))

    @classmethod
    def zip(cls, **axes) -> Grid:
        """Axes that advance together; all non-scalar axes must have the same length (scalars repeat)."""
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
        """The points ``p`` for which ``predicate(p)`` is true (``p`` is a dict)."""
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


def grid(**axes) -> Grid:
    """Cartesian product of parameter axes (a scalar is a one-value axis).

    ``grid(C=range(1, 101), d=[2, 3], rho=np.linspace(0.5, 2, 16), dps=30)`` has 100 * 2 * 16 points;
    the first axis varies slowest. Combine with :func:`zip_grid` through ``*`` and ``+``.
    """
    return Grid.product(**axes)


def zip_grid(**axes) -> Grid:
    """Axes that advance together: ``zip_grid(d=[2, 3], dt=[3, 4])`` is the two points (2, 3), (3, 4)."""
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


# ------------------------------------------------------------------------------------------------
# canonical parameters and JSON results
# ------------------------------------------------------------------------------------------------

def _plain(v):
    """A JSON value for a parameter: numpy scalars become Python numbers, tuples lists."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"parameter values must be finite, got {v!r}")
        return float(v)
    if type(v).__module__ == "numpy":
        return _plain(v.tolist())
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    raise TypeError(f"parameter values must be JSON numbers, strings, booleans, None or lists of them "
                    f"(numpy scalars are converted), got {type(v).__name__} {v!r}")


def canonical_params(params: Mapping) -> str:
    """Canonical JSON text of a point: sorted keys, compact separators; the point's key in the store."""
    if not isinstance(params, Mapping):
        raise TypeError(f"a grid point must be a mapping, got {type(params).__name__} {params!r}")
    plain = {}
    for k, v in params.items():
        if not isinstance(k, str):
            raise TypeError(f"parameter names must be strings, got {k!r}")
        try:
            plain[k] = _plain(v)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"parameter {k!r}: {exc}") from None
    return json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def to_jsonable(value, *, dps: int | None = None):
    """Convert a function's result to plain JSON data.

    ``mpmath.mpf`` becomes a decimal string (``dps`` significant digits when the point has a ``dps``
    parameter, otherwise enough digits to round-trip its binary value), ``Fraction`` / ``fmpq`` a
    ``"p/q"`` string, ``arb`` and ``Decimal`` their text, ``complex`` / ``mpc`` ``{"re", "im"}``, numpy
    scalars and arrays Python numbers and lists, SymPy objects their ``str``; dataclasses go through ``to_dict()`` when they have one (else
    ``dataclasses.asdict``). Anything else raises ``TypeError`` (the point is then recorded as failed).
    Non-finite floats are kept (Python's JSON writes them as ``NaN`` / ``Infinity``).
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, complex):
        return {"re": value.real, "im": value.imag}
    mod = type(value).__module__ or ""
    name = type(value).__name__
    if mod.startswith("numpy"):
        if hasattr(value, "dtype") and value.dtype == object:
            return [to_jsonable(v, dps=dps) for v in value.tolist()]
        return value.tolist()
    if mod.startswith("mpmath"):
        import mpmath
        if isinstance(value, mpmath.mpf):
            return _mpf_text(value, dps)
        if hasattr(value, "_mpf_"):  # a constant such as mpmath.pi, at the current precision
            return _mpf_text(mpmath.mpf(value), dps)
        if isinstance(value, mpmath.mpc):
            return {"re": _mpf_text(value.real, dps), "im": _mpf_text(value.imag, dps)}
        if isinstance(value, mpmath.matrix):
            return [[to_jsonable(value[i, j], dps=dps) for j in range(value.cols)] for i in range(value.rows)]
        return str(value)  # interval types and the like
    if name == "Fraction" and mod == "fractions":
        return f"{value.numerator}/{value.denominator}"
    if name == "Decimal" and mod == "decimal":
        return str(value)
    if mod.startswith("flint"):
        if name == "fmpz":
            return int(value)
        if name == "fmpq":
            return f"{int(value.p)}/{int(value.q)}"
        return str(value)
    if mod.startswith("sympy"):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v, dps=dps) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v, dps=dps) for v in value]
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_jsonable(to_dict(), dps=dps)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_jsonable({f.name: getattr(value, f.name) for f in dataclasses.fields(value)}, dps=dps)
    raise TypeError(f"result of type {mod}.{name} is not JSON-serialisable: return numbers, strings, "
                    f"lists, dicts, mpf, numpy values or an object with to_dict()")


def _mpf_text(x, dps: int | None) -> str:
    import mpmath
    from mpmath import libmp
    if not mpmath.isfinite(x):
        return str(x)
    if dps is None:
        bc = x._mpf_[3]
        dps = max(1, libmp.prec_to_dps(max(bc, 1)) + 3)  # enough to round-trip bc bits
    return libmp.to_str(x._mpf_, int(dps))


# ------------------------------------------------------------------------------------------------
# named functions
# ------------------------------------------------------------------------------------------------

_POLICIES = {
    "random": "RandomRouting", "random_routing": "RandomRouting", "randomrouting": "RandomRouting",
    "retrial": "RetrialOfD", "retrial_of_d": "RetrialOfD", "retrialofd": "RetrialOfD",
    "power": "PowerOfD", "power_of_d": "PowerOfD", "powerofd": "PowerOfD",
    "jsq": "JSQ",
}


def _policy(policy: str, C, d=None):
    import symloss
    if not isinstance(policy, str) or policy.lower() not in _POLICIES:
        raise ValueError(f"policy must be one of {sorted(set(_POLICIES))}, got {policy!r}")
    cls_name = _POLICIES[policy.lower()]
    cls = getattr(symloss, cls_name)
    if cls_name in ("RandomRouting", "JSQ"):
        if d not in (None, 1) and cls_name == "RandomRouting":
            raise ValueError(f"random routing samples d = 1 server, got d={d!r}")
        return cls(C)
    if d is None:
        raise ValueError(f"policy {policy!r} needs d")
    return cls(C, d)


def blocking(policy: str, C, rho, d=None, dps: int = 30):
    """Mean-field blocking of a policy at load ``rho``: ``Policy(C[, d]).blocking(rho, dps=dps)``.

    ``policy`` is ``"random"``, ``"retrial"``, ``"power"`` or ``"jsq"`` (the names of
    :func:`symloss.simulate`); the classes are :class:`symloss.RandomRouting`, :class:`symloss.RetrialOfD`,
    :class:`symloss.PowerOfD` and :class:`symloss.JSQ`.
    """
    return _policy(policy, C, d).blocking(rho, dps=dps)


def fixed_point(policy: str, C, rho, d=None, dps: int = 30):
    """Mean-field fixed point of a policy: ``Policy(C[, d]).fixed_point(rho, dps=dps)`` (as a dict)."""
    return _policy(policy, C, d).fixed_point(rho, dps=dps)


def admission(N, lam_H, lam_L, r_H, r_L, mu=1.0, quantity: str = "online_optimal", **kwargs):
    """One quantity of the overloaded loss network with admission control (seed 001).

    Builds ``symloss.OverloadedLossNetwork(N, lam_H, lam_L, r_H, r_L, mu)`` and returns
    ``getattr(network, quantity)(**kwargs)``: e.g. ``quantity="online_optimal"``, ``"fluid_reward"``,
    ``"trunk_reservation"`` with ``K=...``.
    """
    import symloss
    net = symloss.OverloadedLossNetwork(N, lam_H, lam_L, r_H, r_L, mu=mu)
    if not isinstance(quantity, str) or quantity.startswith("_"):
        raise ValueError(f"quantity must name a public method of OverloadedLossNetwork, got {quantity!r}")
    attr = getattr(net, quantity, None)
    if attr is None:
        raise ValueError(f"OverloadedLossNetwork has no quantity {quantity!r}")
    return attr(**kwargs) if callable(attr) else attr


#: Names usable in ``sweep("name", ...)`` and in a TOML spec's ``function``: name -> "module:qualname".
#: Any public name of :mod:`symloss` and any ``"package.module:function"`` path also work.
FUNCTIONS = {
    "erlang": "symloss:erlang_b",
    "erlang_b": "symloss:erlang_b",
    "erlang_b_float": "symloss:erlang_b_float",
    "log_erlang_b": "symloss:log_erlang_b",
    "erlang_capacity": "symloss:erlang_b_capacity",
    "erlang_load": "symloss:erlang_b_load",
    "threshold": "symloss:threshold_load",
    "threshold_load": "symloss:threshold_load",
    "crossing": "symloss:crossing_loads",
    "crossing_loads": "symloss:crossing_loads",
    "blocking": "symloss.sweep:blocking",
    "fixed_point": "symloss.sweep:fixed_point",
    "simulate": "symloss:simulate",
    "simulation": "symloss:simulate",
    "exact_finite_n": "symloss:exact_finite_n",
    "finite_n_threshold": "symloss:finite_n_threshold",
    "refined_mean_field": "symloss:refined_mean_field",
    "jsq_regime": "symloss:jsq_regime",
    "supermarket": "symloss:simulate_supermarket",
    "simulate_supermarket": "symloss:simulate_supermarket",
    "pair_approximation": "symloss:pair_approximation",
    "admission": "symloss.sweep:admission",
    "admission_study": "symloss.sweep:admission",
}


def _import_path(path: str):
    if ":" in path:
        mod, _, qual = path.partition(":")
    elif "." in path:
        mod, _, qual = path.rpartition(".")
    else:
        raise ValueError(f"unknown function {path!r}: use a name from symloss.sweep.FUNCTIONS "
                         f"({', '.join(sorted(FUNCTIONS))}), a public symloss name, or 'module:function'")
    try:
        obj = importlib.import_module(mod)
    except ImportError as exc:
        raise ValueError(f"function {path!r}: cannot import module {mod!r} ({exc})") from exc
    for part in qual.split("."):
        try:
            obj = getattr(obj, part)
        except (AttributeError, ImportError) as exc:
            raise ValueError(f"function {path!r}: {mod!r} has no usable attribute {qual!r} ({exc})") from exc
    if not callable(obj):
        raise TypeError(f"function {path!r} resolves to a non-callable {type(obj).__name__}")
    return obj


def resolve_function(func):
    """Return ``(callable, name)``: ``name`` is ``"module:qualname"``, the function's key in the store.

    ``func`` is a callable, a name from :data:`FUNCTIONS` (``"threshold"``, ``"blocking"``, ``"simulate"``,
    ``"admission"``, ``"erlang"``, ...), a public name of :mod:`symloss`, or a dotted path
    ``"package.module:function"``. Modules are imported now, at call time.
    """
    if isinstance(func, str):
        if not func.strip():
            raise ValueError("function name must not be empty")
        key = func.strip()
        if key in FUNCTIONS:
            fn = _import_path(FUNCTIONS[key])
        elif ":" not in key and "." not in key:
            import symloss
            if key not in getattr(symloss, "_EXPORTS", {}):
                _import_path(key)  # raises the 'unknown function' error
            fn = _import_path(f"symloss:{key}")
        else:
            fn = _import_path(key)
    elif callable(func):
        fn = func
    else:
        raise TypeError(f"func must be a callable or a function name, got {type(func).__name__} {func!r}")
    return fn, _function_name(fn)


def _function_name(fn) -> str:
    mod = getattr(fn, "__module__", None)
    qual = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if mod is None or qual is None:
        raise TypeError(f"cannot name function {fn!r}: pass name='...' to sweep()")
    return f"{mod}:{qual}"


def _call(fn, params: dict):
    """``fn(**params)``, passing positional-only parameters (e.g. ``math.comb(n, k, /)``) by position."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn(**params)
    args = []
    kwargs = dict(params)
    for p in sig.parameters.values():
        if p.kind is not p.POSITIONAL_ONLY or p.name not in kwargs:
            break
        args.append(kwargs.pop(p.name))
    return fn(*args, **kwargs)


# ------------------------------------------------------------------------------------------------
# running one point (in a worker)
# ------------------------------------------------------------------------------------------------

def _worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


_PARENT_PID = None  # set in worker processes of the "processes" executor


def _run_point(fn, key: str):
    """Evaluate one point; never raises for an error of the function (it becomes a 'failed' record)."""
    if _PARENT_PID is not None and os.getppid() != _PARENT_PID:
        os._exit(70)  # the sweep that queued this point is gone: do not start it
    params = json.loads(key)
    started = time.time()
    t0 = time.perf_counter()
    try:
        value = _call(fn, params)
        dps = params.get("dps") if isinstance(params.get("dps"), int) else None
        result = json.dumps(to_jsonable(value, dps=dps), separators=(",", ":"), ensure_ascii=False)
        status, error = "done", None
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - recorded, the sweep goes on
        result, status = None, "failed"
        error = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-_ERROR_CHARS:]
    elapsed = time.perf_counter() - t0
    return status, result, error, started, time.time(), elapsed, _worker_id()


def _worker_init(parent_pid: int) -> None:
    """Worker process set-up: one thread per worker for BLAS/OpenMP, exit when the parent is gone."""
    global _PARENT_PID
    _PARENT_PID = parent_pid
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(var, "1")

    def watch():
        while True:
            time.sleep(0.2)
            if os.getppid() != parent_pid:
                os._exit(70)  # orphaned (the sweep was killed): stop computing at once

    threading.Thread(target=watch, name="symloss-sweep-parent-watch", daemon=True).start()


# ------------------------------------------------------------------------------------------------
# the store
# ------------------------------------------------------------------------------------------------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS points (
    id INTEGER PRIMARY KEY,
    func TEXT NOT NULL,
    params TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
    result TEXT,
    error TEXT,
    started REAL,
    finished REAL,
    elapsed REAL,
    worker TEXT,
    version TEXT,
    attempts INTEGER NOT NULL DEFAULT 1,
    run INTEGER,
    UNIQUE (func, params)
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    func TEXT NOT NULL,
    executor TEXT,
    workers INTEGER,
    host TEXT,
    pid INTEGER,
    version TEXT,
    started REAL,
    finished REAL,
    state TEXT,
    n_grid INTEGER,
    n_skipped INTEGER,
    n_done INTEGER DEFAULT 0,
    n_failed INTEGER DEFAULT 0
);
"""

_UPSERT_KEEP_DONE = """
INSERT INTO points (func, params, status, result, error, started, finished, elapsed, worker, version, run)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (func, params) DO UPDATE SET
    status = excluded.status, result = excluded.result, error = excluded.error,
    started = excluded.started, finished = excluded.finished, elapsed = excluded.elapsed,
    worker = excluded.worker, version = excluded.version, run = excluded.run,
    attempts = points.attempts + 1
"""


def _version() -> str:
    from . import __version__
    return __version__


def _connect(path, *, create: bool) -> sqlite3.Connection:
    path = Path(path)
    if not create and not path.exists():
        raise FileNotFoundError(f"store {str(path)!r} does not exist")
    conn = sqlite3.connect(str(path), timeout=60.0, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout = 60000")
    if create:
        for attempt in range(100):
            try:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                break
            except sqlite3.OperationalError:  # another process is switching the mode right now
                time.sleep(0.05 * (attempt + 1))
        else:  # pragma: no cover
            raise sqlite3.OperationalError(f"cannot put {str(path)!r} in WAL mode")
        if str(mode).lower() != "wal":
            raise sqlite3.OperationalError(f"store {str(path)!r} refused WAL mode (journal_mode={mode})")
        conn.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: durable against process crashes
        conn.execute("BEGIN IMMEDIATE")
        try:
            for stmt in _SCHEMA.split(";"):
                if stmt.strip():
                    conn.execute(stmt)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    else:
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise ValueError(f"{str(path)!r} is not a sweep store ({exc})") from None
        if "points" not in tables:
            conn.close()
            raise ValueError(f"{str(path)!r} is not a sweep store (no 'points' table)")
    return conn


class _Store:
    """The client-side writer: one row per point, each written in its own transaction."""

    def __init__(self, path, func_name: str):
        self.path = Path(path)
        self.func = func_name
        self.version = _version()
        self.conn = _connect(self.path, create=True)
        self.run_id = None

    def done_and_failed(self) -> tuple[set[str], set[str]]:
        done, failed = set(), set()
        for params, status in self.conn.execute(
                "SELECT params, status FROM points WHERE func = ?", (self.func,)):
            (done if status == "done" else failed).add(params)
        return done, failed

    def start_run(self, executor: str, workers, n_grid: int, n_skipped: int) -> int:
        cur = self.conn.execute(
            "INSERT INTO runs (func, executor, workers, host, pid, version, started, state, n_grid, n_skipped)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?)",
            (self.func, executor, workers, socket.gethostname(), os.getpid(), self.version, time.time(),
             n_grid, n_skipped))
        self.run_id = cur.lastrowid
        return self.run_id

    def write(self, key: str, record, *, overwrite_done: bool) -> bool:
        """Write one point; returns False when a concurrent sweep already stored it as done."""
        status, result, error, started, finished, elapsed, worker = record
        sql = _UPSERT_KEEP_DONE + ("" if overwrite_done else " WHERE points.status != 'done'")
        cur = self.conn.execute(sql, (self.func, key, status, result, error, started, finished, elapsed,
                                      worker, self.version, self.run_id))
        return cur.rowcount > 0

    def finish_run(self, state: str, n_done: int, n_failed: int) -> None:
        if self.run_id is not None:
            self.conn.execute("UPDATE runs SET finished = ?, state = ?, n_done = ?, n_failed = ? WHERE id = ?",
                              (time.time(), state, n_done, n_failed, self.run_id))

    def close(self) -> None:
        self.conn.close()


# ------------------------------------------------------------------------------------------------
# the sweep
# ------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class SweepSummary:
    """What one call of :func:`sweep` did.

    Attributes
    ----------
    store : str
        Path of the SQLite store.
    func : str
        The function's key in the store, ``"module:qualname"``.
    executor : str
        ``"serial"``, ``"processes"`` or ``"dask"``.
    n_points : int
        Distinct points in the grid.
    n_skipped : int
        Points already done in the store (not recomputed).
    n_done, n_failed : int
        Points computed by this call that succeeded / raised (or lost their worker for good).
    elapsed : float
        Wall time of the call in seconds.
    run : int
        Row id of this call in the store's ``runs`` table.
    """

    store: str
    func: str
    executor: str
    n_points: int
    n_skipped: int
    n_done: int
    n_failed: int
    elapsed: float
    run: int

    @property
    def complete(self) -> bool:
        """True when every point of the grid is now done (none failed)."""
        return self.n_failed == 0 and self.n_skipped + self.n_done == self.n_points

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), "complete": self.complete}

    def frame(self):
        """The store's rows for this function as a pandas DataFrame (see :func:`load_sweep`)."""
        return load_sweep(self.store, func=self.func)

    def __str__(self) -> str:
        rate = self.n_done / self.elapsed if self.elapsed > 0 else float("nan")
        return (f"sweep {self.func} [{self.executor}] into {self.store}: {self.n_points} points, "
                f"{self.n_skipped} already done, {self.n_done} computed, {self.n_failed} failed, "
                f"{self.elapsed:.2f} s ({rate:.1f} points/s)")


def _as_points(points) -> list[dict]:
    if isinstance(points, Grid):
        return list(points)
    if isinstance(points, Mapping):
        return list(Grid.product(**points))
    if isinstance(points, (str, bytes)) or not isinstance(points, Iterable):
        raise TypeError(f"grid must be a Grid, a mapping of axes or an iterable of parameter dicts, "
                        f"got {type(points).__name__}")
    return list(Grid(points))


def sweep(func, grid, *, store="sweep.sqlite", executor: str = "processes", scheduler=None,
          progress: bool = True, resume: bool = True, workers: int | None = None,
          name: str | None = None) -> SweepSummary:
    """Evaluate ``func(**point)`` at every point of ``grid``, writing each result to ``store`` at once.

    Parameters
    ----------
    func : callable or str
        The function, or its name (see :func:`resolve_function`): ``"threshold"`` ->
        :func:`symloss.threshold_load`, ``"blocking"`` -> ``Policy(C, d).blocking(rho)``, ``"simulate"`` ->
        :func:`symloss.simulate`, ``"admission"`` -> a quantity of :class:`symloss.OverloadedLossNetwork`,
        ``"erlang"`` -> :func:`symloss.erlang_b`, or ``"package.module:function"``. With
        ``executor="processes"`` a callable must be picklable by reference (a module-level function).
    grid : Grid, mapping or iterable of dicts
        The points; a mapping of axes means their product (:func:`grid`). Values must be JSON numbers,
        strings, booleans, None or lists (numpy scalars are converted). Duplicate points run once.
        The function receives the JSON-decoded values, exactly what is stored.
    store : str or Path
        SQLite file (created if missing). Rows are keyed by ``(function name, canonical JSON of the
        point)``, so one store can hold sweeps of several functions.
    executor : {"processes", "serial", "dask"}
        Where the points run (see the module docstring).
    scheduler : str, distributed.Client, cluster or None
        Dask only: a scheduler address ``"tcp://host:8786"``, a ``Client``, a cluster object, or None
        for a ``LocalCluster`` (``workers`` processes, one thread each) started and closed by the call.
    progress : bool
        Show a tqdm progress bar (points/s and ETA) on stderr.
    resume : bool
        True: skip points already ``done`` in the store, retry the ``failed`` ones. False: compute every
        point again and overwrite its row.
    workers : int, optional
        Worker processes (``processes``, and ``dask`` with a LocalCluster); default: the usable CPUs.
    name : str, optional
        The function's key in the store instead of ``"module:qualname"`` (e.g. for a lambda).

    Returns
    -------
    SweepSummary
        Counts, elapsed time and the run id; ``.frame()`` loads the rows as a DataFrame.

    Notes
    -----
    Each finished point is written in its own SQLite transaction (WAL mode, ``synchronous=NORMAL``:
    durable when the process is killed; a power cut may lose the last few points), so killing the sweep
    loses at most the points being computed at that moment; rerunning the same call resumes. A point
    whose function raises is stored with ``status='failed'`` and the traceback in ``error``; the sweep
    goes on. Worker processes use one BLAS/OpenMP thread each (``OMP_NUM_THREADS=1`` unless set).

    Examples
    --------
    >>> import symloss, tempfile, os
    >>> from symloss.sweep import sweep, grid
    >>> path = os.path.join(tempfile.mkdtemp(), "comb.sqlite")
    >>> s = sweep("math:comb", grid(n=range(5, 8), k=[2, 3]), store=path, executor="serial", progress=False)
    >>> s.n_done, s.n_failed
    (6, 0)
    >>> df = symloss.load_sweep(path)              # doctest: +SKIP
    """
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {list(EXECUTORS)}, got {executor!r}")
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    if scheduler is not None and executor != "dask":
        raise ValueError(f"scheduler is only used with executor='dask', got executor={executor!r}")
    if executor == "dask":
        if scheduler is not None and not (isinstance(scheduler, str) or hasattr(scheduler, "scheduler_address")
                                          or hasattr(scheduler, "submit")):
            raise TypeError(f"scheduler must be an address 'tcp://host:port', a distributed.Client, a "
                            f"cluster or None, got {type(scheduler).__name__}")
        try:
            import distributed  # noqa: F401
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("executor='dask' needs the optional extra: pip install 'symloss[distributed]' "
                              "(dask and distributed)") from exc
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    fn, func_name = resolve_function(func)
    func_name = name or func_name
    points = _as_points(grid)
    keys = list(dict.fromkeys(canonical_params(p) for p in points))  # dedupe, keep order
    if executor == "processes":
        main = sys.modules.get("__main__")
        main_file = getattr(main, "__file__", None)
        if getattr(fn, "__module__", None) == "__main__" and not (main_file and os.path.exists(main_file)):
            raise TypeError(f"executor='processes' cannot run {func_name}: it is defined interactively "
                            f"(notebook or REPL), so worker processes cannot import it; move it to a module, "
                            f"or use executor='dask' (cloudpickle) or 'serial'")
        try:
            pickle.dumps(fn)
        except Exception as exc:
            raise TypeError(f"executor='processes' needs a function picklable by reference (module-level); "
                            f"{func_name} is not ({exc}); use executor='serial' or 'dask'") from exc
    if workers is None:
        workers = _usable_cpus()

    t_start = time.perf_counter()
    st = _Store(store, func_name)
    try:
        done, _failed = st.done_and_failed()
        todo = [k for k in keys if not (resume and k in done)]
        n_skipped = len(keys) - len(todo)
        st.start_run(executor, None if executor == "serial" else workers, len(keys), n_skipped)
        counts = {"done": 0, "failed": 0}
        bar = _progress_bar(progress, len(todo), func_name)

        def record(key, rec):
            st.write(key, rec, overwrite_done=not resume)
            counts[rec[0]] += 1
            if bar is not None:
                bar.update(1)
                if counts["failed"]:
                    bar.set_postfix(failed=counts["failed"], refresh=False)

        state = "error"
        try:
            if todo:
                if executor == "serial":
                    for k in todo:
                        record(k, _run_point(fn, k))
                elif executor == "processes":
                    _run_processes(fn, todo, workers, record)
                else:
                    _run_dask(fn, todo, scheduler, workers, record)
            state = "finished"
        except KeyboardInterrupt:
            state = "interrupted"
            raise
        finally:
            if bar is not None:
                bar.close()
            st.finish_run(state, counts["done"], counts["failed"])
        return SweepSummary(str(st.path), func_name, executor, len(keys), n_skipped, counts["done"],
                            counts["failed"], time.perf_counter() - t_start, st.run_id)
    finally:
        st.close()


def _usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _progress_bar(progress: bool, total: int, func_name: str):
    if not progress:
        return None
    from tqdm.auto import tqdm
    label = func_name.rsplit(":", 1)[-1]
    return tqdm(total=total, desc=f"sweep {label}", unit="pt", dynamic_ncols=True, smoothing=0.05)


def _infrastructure_failure(exc: BaseException):
    """A 'failed' record for an error outside the function (unpicklable task, lost worker, ...)."""
    now = time.time()
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return ("failed", None, text[-_ERROR_CHARS:], now, now, None, None)


def _lost_worker_record(detail: str):
    now = time.time()
    return ("failed", None, f"WorkerLost: {detail}", now, now, None, None)


def _run_processes(fn, todo: list[str], workers: int, record) -> None:
    """Local process pool; a bounded window of tasks in flight; rebuilt when a worker dies."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    ctx = multiprocessing.get_context("spawn")
    window = 2 * workers

    def new_pool(n):
        return ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_worker_init,
                                   initargs=(os.getpid(),))

    pool = new_pool(workers)
    it = iter(todo)
    suspects: list[str] = []  # points in flight when a worker died: rerun one at a time
    lost_alone = 0  # points that killed their worker while running alone, in a row
    try:
        pending: dict = {}
        exhausted = False
        while True:
            if suspects and not pending:
                for key in suspects:
                    fut = pool.submit(_run_point, fn, key)
                    try:
                        rec = fut.result()
                    except BrokenProcessPool as exc:
                        record(key, _lost_worker_record(
                            "the worker process died while computing this point alone (killed, "
                            "out of memory or crashed); it is retried on resume"))
                        pool.shutdown(wait=True, cancel_futures=True)
                        lost_alone += 1
                        if lost_alone >= 3:
                            raise RuntimeError(
                                "worker processes died on 3 points in a row, each run alone: they cannot "
                                "start (is the function importable in a fresh interpreter?) or every "
                                "point kills them (memory?); the points done so far are stored") from exc
                        pool = new_pool(workers)
                        continue
                    except Exception as exc:
                        rec = _infrastructure_failure(exc)
                    lost_alone = 0
                    record(key, rec)
                suspects = []
            while not exhausted and len(pending) < window:
                key = next(it, None)
                if key is None:
                    exhausted = True
                    break
                pending[pool.submit(_run_point, fn, key)] = key
            if not pending:
                break
            finished, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            broken = False
            for fut in finished:
                key = pending.pop(fut)
                try:
                    rec = fut.result()
                except BrokenProcessPool:
                    suspects.append(key)
                    broken = True
                    continue
                except Exception as exc:  # e.g. the function cannot be unpickled in the worker
                    rec = _infrastructure_failure(exc)
                record(key, rec)
            if broken:
                for fut, key in pending.items():
                    if fut.done() and not fut.cancelled() and fut.exception() is None:
                        record(key, fut.result())  # finished before the pool broke
                    else:
                        suspects.append(key)
                pending.clear()
                pool.shutdown(wait=True, cancel_futures=True)
                pool = new_pool(workers)
    except BaseException:  # interrupted (Ctrl-C) or the store failed: stop the workers now
        procs = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
        raise
    else:
        pool.shutdown(wait=True)


def _dask_client(scheduler, workers: int):
    """(client, closers): connect to or start a cluster; closers are closed after the sweep."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("executor='dask' needs the optional extra: pip install 'symloss[distributed]' "
                          "(dask and distributed)") from exc
    if scheduler is None:
        import logging
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
        return client, [client, cluster]
    if isinstance(scheduler, Client):
        return scheduler, []
    if isinstance(scheduler, str) or hasattr(scheduler, "scheduler_address"):
        client = Client(scheduler)
        return client, [client]
    raise TypeError(f"scheduler must be an address 'tcp://host:port', a distributed.Client, a cluster "
                    f"or None, got {type(scheduler).__name__}")


def _run_dask(fn, todo: list[str], scheduler, workers: int, record) -> None:
    import functools

    from distributed import as_completed

    client, closers = _dask_client(scheduler, workers)
    try:
        nthreads = sum(client.nthreads().values()) or workers
        # Tasks beyond the running ones wait in the scheduler's queue (not computed, so not lost if the
        # client dies). A deep window, refilled by halves with one client.map (one graph update per
        # refill, not one per point), and one gather per batch of finished tasks amortise the
        # client-scheduler-worker round trips (~10x fewer than one per point for cheap functions).
        window = max(32 * nthreads, 256)
        run = functools.partial(_run_point, fn)
        tag = uuid.uuid4().hex[:12]
        it = iter(enumerate(todo))
        keys: dict = {}  # task key -> (future, point key)
        ac = as_completed([], with_results=False)

        def submit(n):
            batch = list(itertools.islice(it, n))
            if batch:
                futs = client.map(run, [k for _, k in batch], key=[f"symloss-sweep-{tag}-{i}" for i, _ in batch],
                                  pure=False)
                for fut, (_, k) in zip(futs, batch):
                    keys[fut.key] = (fut, k)
                ac.update(futs)

        def one(fut):
            try:
                return fut.result()
            except BaseException as exc:  # KilledWorker after repeated worker deaths, unpickling errors,
                return _infrastructure_failure(exc)  # cancellation, ...

        submit(window)
        for batch in ac.batches():
            # one gather per batch of finished tasks: a round trip per batch, not per point (while it
            # runs, more tasks finish, so batches grow with the rate)
            fin = [f for f in batch if f.status == "finished"]
            try:
                values = dict(zip((f.key for f in fin), client.gather(fin))) if fin else {}
            except Exception:  # e.g. a result lost with its worker, recomputed, then erred: one by one
                values = {}
            for fut in batch:
                _, key = keys.pop(fut.key)
                rec = values[fut.key] if fut.key in values else one(fut)
                fut.release()
                record(key, rec)
            if len(keys) <= window // 2:
                submit(window - len(keys))
    finally:
        if keys:  # interrupted: do not leave our tasks running on a shared cluster
            try:
                client.cancel([f for f, _ in keys.values()])
            except Exception:  # pragma: no cover - best effort
                pass
        for c in closers:
            try:
                c.close()
            except Exception:  # pragma: no cover - best effort at shutdown
                pass


# ------------------------------------------------------------------------------------------------
# reading a store
# ------------------------------------------------------------------------------------------------

def load_sweep(store, *, func: str | None = None, status: str | None = None, expand: bool = True,
               numeric: bool = False):
    """Load a sweep store as a pandas DataFrame, one row per point.

    Parameters
    ----------
    store : str or Path
        The SQLite file written by :func:`sweep`.
    func : str, optional
        Keep the rows of this function only (its ``"module:qualname"`` key, or a name that
        :func:`resolve_function` resolves).
    status : {"done", "failed"}, optional
        Keep the rows with this status only.
    expand : bool
        True: one column per parameter, a ``result`` column for non-dict results and one
        ``result.<key>`` column per key of dict results (nested dicts flattened with dots); the raw JSON
        stays in ``params_json`` / ``result_json``. False: ``params`` and ``result`` hold the decoded JSON.
    numeric : bool
        Convert result columns whose values are all numeric strings (mpf text) to float64.

    Returns
    -------
    pandas.DataFrame
        Columns: the parameters, ``result`` (or ``result.*``), ``status``, ``error``, ``func``,
        ``started`` / ``finished`` (UTC timestamps), ``elapsed`` (seconds), ``worker``, ``version``,
        ``attempts``, ``run``.
    """
    import pandas as pd

    if status is not None and status not in ("done", "failed"):
        raise ValueError(f"status must be 'done', 'failed' or None, got {status!r}")
    conn = _connect(store, create=False)
    try:
        sql = ("SELECT func, params, status, result, error, started, finished, elapsed, worker, version, "
               "attempts, run FROM points")
        where, args = [], []
        if func is not None:
            where.append("func = ?")
            args.append(_func_key(func, conn))
        if status is not None:
            where.append("status = ?")
            args.append(status)
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = conn.execute(sql + " ORDER BY id", args).fetchall()
    finally:
        conn.close()
    cols = ["func", "params_json", "status", "result_json", "error", "started", "finished", "elapsed",
            "worker", "version", "attempts", "run"]
    raw = pd.DataFrame(rows, columns=cols)
    for c in ("started", "finished"):
        raw[c] = pd.to_datetime(raw[c], unit="s", utc=True)
    params = [json.loads(r[1]) for r in rows]
    results = [json.loads(r[3]) if r[3] is not None else None for r in rows]
    if not expand:
        raw.insert(1, "params", params)
        raw.insert(3, "result", results)
        return raw
    pframe = pd.DataFrame.from_records(params, index=raw.index) if params else pd.DataFrame(index=raw.index)
    dicts = [isinstance(r, dict) for r in results]
    parts = []
    if not all(d or r is None for d, r in zip(dicts, results)) or not any(dicts):
        # scalar / list results (dict results leave this column empty)
        parts.append(pd.DataFrame({"result": pd.Series([None if d else r for d, r in zip(dicts, results)],
                                                       index=raw.index, dtype=object)}))
    if any(dicts):  # dict results: one column per (flattened) key
        flat = pd.DataFrame.from_records([_flatten(r) if d else {} for d, r in zip(dicts, results)],
                                         index=raw.index)
        flat.columns = [f"result.{c}" for c in flat.columns]
        parts.append(flat)
    rframe = pd.concat(parts, axis=1)
    if numeric:
        for c in rframe.columns:
            rframe[c] = _maybe_numeric(rframe[c])
    clash = [c for c in pframe.columns if c in set(rframe.columns) | set(cols)]
    if clash:
        pframe = pframe.rename(columns={c: f"param.{c}" for c in clash})
    return pd.concat([pframe, rframe, raw], axis=1)


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, name + "."))
        else:
            out[name] = v
    return out


def _maybe_numeric(col):
    import pandas as pd
    vals = col.dropna()
    if len(vals) == 0 or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in vals):
        return col
    try:
        return pd.to_numeric(col, errors="raise").astype("float64")
    except (ValueError, TypeError):
        return col


def _func_key(func, conn) -> str:
    if isinstance(func, str):
        known = {r[0] for r in conn.execute("SELECT DISTINCT func FROM points")}
        if func in known:
            return func
    return resolve_function(func)[1]


def sweep_status(store) -> dict:
    """Counts per function and the runs of a store, as plain data (what ``symloss sweep --status`` prints).

    Returns ``{"store", "functions": [{"func", "done", "failed", "mean_elapsed", "first_error"}],
    "runs": [{"id", "func", "executor", "workers", "started", "finished", "state", "n_grid",
    "n_skipped", "n_done", "n_failed", "host", "pid"}], "integrity": "ok" | message}``. A run still
    marked ``running`` whose process no longer exists on this host is reported as ``killed``.
    """
    conn = _connect(store, create=False)
    try:
        funcs = []
        for func, done, failed, mean in conn.execute(
                "SELECT func, SUM(status = 'done'), SUM(status = 'failed'), "
                "AVG(CASE WHEN status = 'done' THEN elapsed END) FROM points GROUP BY func ORDER BY func"):
            err = conn.execute("SELECT params, error FROM points WHERE func = ? AND status = 'failed' "
                               "ORDER BY id LIMIT 1", (func,)).fetchone()
            funcs.append({"func": func, "done": int(done or 0), "failed": int(failed or 0),
                          "mean_elapsed": mean,
                          "first_error": None if err is None else
                          {"params": json.loads(err[0]), "error": _last_line(err[1])}})
        runs = []
        host = socket.gethostname()
        for row in conn.execute("SELECT id, func, executor, workers, started, finished, state, n_grid, "
                                "n_skipped, n_done, n_failed, host, pid FROM runs ORDER BY id"):
            r = dict(zip(["id", "func", "executor", "workers", "started", "finished", "state", "n_grid",
                          "n_skipped", "n_done", "n_failed", "host", "pid"], row))
            if r["state"] == "running" and r["host"] == host and not _pid_alive(r["pid"]):
                r["state"] = "killed"
            runs.append(r)
        integrity = conn.execute("PRAGMA quick_check").fetchone()[0]
    finally:
        conn.close()
    return {"store": str(store), "functions": funcs, "runs": runs, "integrity": integrity}


def _last_line(text) -> str | None:
    if not text:
        return text
    lines = [ln for ln in str(text).strip().splitlines() if ln.strip()]
    return lines[-1] if lines else None


def _pid_alive(pid) -> bool:
    if not pid:
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# ------------------------------------------------------------------------------------------------
# TOML specs (used by ``symloss sweep SPEC.toml``)
# ------------------------------------------------------------------------------------------------

_SPEC_KEYS = {"function", "store", "executor", "workers", "scheduler", "name", "resume", "progress", "grid"}


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
    """Read and check a TOML sweep spec; returns the keyword arguments of :func:`sweep` plus ``func``.

    A relative ``store`` is taken relative to the spec file's directory.
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
    for k in ("workers", "scheduler", "name", "resume", "progress"):
        if k in spec:
            out[k] = spec[k]
    return out


class _CallableModule(type(sys)):
    """``symloss.sweep`` is both this module and the function: whichever the attribute holds, calling it runs
    :func:`sweep` (the package exports names lazily, and importing the submodule first would otherwise
    leave the module object, not the function, at ``symloss.sweep``)."""

    def __call__(self, *args, **kwargs):
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

