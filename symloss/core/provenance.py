"""Provenance: one record of how an output was made, attached to every file symloss writes.

:func:`provenance` returns a plain dict -- the symloss version (and the git commit when symloss runs
from a checkout), the Python and dependency versions, the platform, the precision (``dps``), the
seeds, the command line and the UTC date -- that is written

* into JSON outputs (a ``"provenance"`` key: ``symloss ... --json``, ``certs.json``),
* beside CSV files, in a sidecar ``<name>.csv.provenance.json`` (:func:`write_csv`; the CSV itself is a
  plain header + rows file that ``pandas.read_csv(path)`` reads; :func:`read_csv_provenance` reads the
  sidecar back),
* into the metadata of saved figures (:func:`figure_metadata`, used by :func:`symloss.plot.savefig`),
* as ``%`` comment lines of LaTeX files (:func:`provenance_lines`).

The CLI records its own command line with :func:`command_context`; outside it the command is
``sys.argv`` of the running process, except in a notebook, where it names the notebook
(:func:`provenance_source`): the path given to :func:`set_provenance_source`, else the notebook path
the Jupyter server gives its kernel (``JPY_SESSION_NAME``, set by ``jupyter_server`` >= 2 and by
``notebooks/build.py``), else IPython's ``__session__`` / VS Code's ``__vsc_ipynb_file__``. A kernel
whose notebook is unknown is recorded as such (never its launcher and connection file).
"""
from __future__ import annotations

import contextlib
import contextvars
import csv
import datetime as _dt
import io
import json
import os
import platform
import shlex
import subprocess
import sys
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Iterator

from .._version import __version__

__all__ = ["provenance", "provenance_lines", "read_provenance_lines", "figure_metadata", "command_context",
           "DEPENDENCIES", "write_csv", "read_csv_provenance", "sidecar_path", "SIDECAR_SUFFIX",
           "set_provenance_source", "provenance_source"]

#: Suffix appended to a CSV file's name for its provenance sidecar (``thresholds.csv`` ->
#: ``thresholds.csv.provenance.json``).
SIDECAR_SUFFIX = ".provenance.json"

#: Distributions whose versions every provenance record lists (missing ones are left out).
DEPENDENCIES = ("mpmath", "sympy", "numpy", "scipy", "python-flint", "numba", "networkx", "pandas",
                "matplotlib")

_COMMAND: contextvars.ContextVar = contextvars.ContextVar("symloss_command", default=None)
_SOURCE: dict = {"path": None}     # set_provenance_source


def set_provenance_source(source) -> str | None:
    """Name the notebook (or script) that the provenance of every following output records.

    Jupyter kernels are launched as ``python -m ipykernel_launcher -f <connection file>``, so
    ``sys.argv`` does not say which notebook runs; :func:`provenance_source` finds the notebook by
    itself under JupyterLab / Notebook 7 (``jupyter_server`` >= 2), VS Code and
    ``notebooks/build.py``. Call this where none of those applies (e.g. a notebook run by another
    tool), or to record another name.

    Parameters
    ----------
    source : str, os.PathLike or None
        The notebook's path (recorded as given); None goes back to automatic detection.

    Returns
    -------
    str or None
        The previous explicit source.

    Raises
    ------
    TypeError
        If ``source`` is not a string, a path or None.
    ValueError
        If ``source`` is an empty string.

    Examples
    --------
    >>> old = set_provenance_source("notebooks/retrial_vs_power.ipynb")
    >>> provenance()["source"], provenance()["command"]
    ('notebooks/retrial_vs_power.ipynb', 'notebook notebooks/retrial_vs_power.ipynb')
    >>> _ = set_provenance_source(old)
    """
    if source is not None and not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"source must be a path (str or os.PathLike) or None, got {type(source).__name__} "
                        f"{source!r}")
    if source is not None:
        source = os.fspath(source)
        if not source.strip():
            raise ValueError("source must be a non-empty path (or None for automatic detection), got ''")
    old, _SOURCE["path"] = _SOURCE["path"], source
    return old


def _kernel_launcher() -> bool:
    argv0 = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return argv0 in ("ipykernel_launcher.py", "ipykernel_launcher", "__main__.py") and "ipykernel" in sys.modules


def provenance_source() -> str | None:
    """The notebook (or script) named in provenance records, or None outside a notebook.

    In order: the path given to :func:`set_provenance_source`; the environment variable
    ``JPY_SESSION_NAME`` when it names a notebook (``jupyter_server`` >= 2 sets it for each kernel
    it starts, ``notebooks/build.py`` for each notebook it executes); IPython's ``__session__`` or
    VS Code's ``__vsc_ipynb_file__`` in the interactive namespace.

    Returns
    -------
    str or None

    Examples
    --------
    >>> import os
    >>> os.environ.get("JPY_SESSION_NAME") is None and provenance_source() is None
    True
    """
    if _SOURCE["path"] is not None:
        return _SOURCE["path"]
    env = os.environ.get("JPY_SESSION_NAME", "").strip()
    if env.endswith(".ipynb"):
        return env
    ipy = sys.modules.get("IPython")
    get = getattr(ipy, "get_ipython", None)
    shell = get() if callable(get) else None
    ns = getattr(shell, "user_ns", None) or {}
    for key in ("__session__", "__vsc_ipynb_file__"):
        val = ns.get(key)
        if isinstance(val, str) and val.endswith(".ipynb"):
            return val
    return None


@contextlib.contextmanager
def command_context(argv, prog: str = "symloss") -> Iterator[str]:
    """Context in which :func:`provenance` records ``prog argv...`` as the command line.

    Parameters
    ----------
    argv : sequence of str
        The arguments after the program name.
    prog : str
        The program name.

    Yields
    ------
    str
        The command line recorded.

    Examples
    --------
    >>> with command_context(["erlang", "10", "7"]):
    ...     provenance()["command"]
    'symloss erlang 10 7'
    """
    text = " ".join([prog, shlex.join([str(a) for a in argv])]).strip()
    token = _COMMAND.set(text)
    try:
        yield text
    finally:
        _COMMAND.reset(token)


@lru_cache(maxsize=1)
def _versions() -> dict:
    out = {}
    for name in DEPENDENCIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


@lru_cache(maxsize=1)
def _git_commit() -> str | None:
    """The commit of the checkout symloss is imported from (None for an installed copy)."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return None
    try:
        res = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=5, check=False)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = res.stdout.strip()
    if res.returncode != 0 or not commit:
        return None
    return commit + ("+dirty" if dirty.returncode == 0 and dirty.stdout.strip() else "")


def _plain_seed(seed):
    if seed is None or isinstance(seed, (bool, int, float, str)):
        return seed
    entropy = getattr(seed, "entropy", None)     # numpy SeedSequence
    if entropy is not None:
        key = tuple(getattr(seed, "spawn_key", ()))
        return {"entropy": str(entropy), "spawn_key": list(key)} if key else str(entropy)
    if isinstance(seed, (list, tuple)):
        return [_plain_seed(s) for s in seed]
    return str(seed)


def provenance(*, dps: int | None = None, seed=None, command: str | None = None, **extra) -> dict:
    """How an output was made, as plain JSON data.

    Parameters
    ----------
    dps : int, optional
        Decimal digits the numbers were computed to (None for float or exact outputs).
    seed : int, sequence, SeedSequence or None, optional
        The seed(s) of the random numbers (a SeedSequence is recorded by its entropy).
    command : str, optional
        The command line; default: the one set by :func:`command_context` (the CLI), else
        ``sys.argv``; in a notebook ``notebook <path>`` (:func:`provenance_source`).
    **extra
        Further JSON values to record (e.g. ``store=``, ``method=``).

    Returns
    -------
    dict
        Keys ``symloss``, ``git`` (commit or None), ``python``, ``platform``, ``dependencies``
        (distribution -> version), ``dps``, ``seed``, ``command``, ``date`` (UTC, ISO 8601), then
        ``extra``; in a notebook also ``source`` (the notebook's path).

    Examples
    --------
    >>> p = provenance(dps=40, seed=1)
    >>> p["dps"], p["seed"], sorted(p)[:4]
    (40, 1, ['command', 'date', 'dependencies', 'dps'])
    >>> "mpmath" in p["dependencies"]
    True
    """
    if command is None:
        command = _COMMAND.get()
    source = provenance_source() if command is None else None
    if source is not None:
        command = f"notebook {source}"
    elif command is None and _kernel_launcher():
        command = "notebook (path unknown: call symloss.set_provenance_source(path) to record it)"
    if command is None:
        command = shlex.join([Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python",
                              *map(str, sys.argv[1:])])
    out = {
        "symloss": __version__,
        "git": _git_commit(),
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}".strip(),
        "dependencies": dict(_versions()),
        "dps": None if dps is None else int(dps),
        "seed": _plain_seed(seed),
        "command": command,
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
    }
    if source is not None:
        out["source"] = source
    for k, v in extra.items():
        out[k] = _plain_seed(v) if k.startswith("seed") else v
    return out


_provenance_record = provenance     # write_csv's argument ``provenance`` shadows the function


def provenance_lines(prov: dict, prefix: str = "# ") -> list[str]:
    """``prov`` as comment lines (``# key: value``; nested values as JSON) for the top of a CSV file.

    Parameters
    ----------
    prov : dict
        A :func:`provenance` record.
    prefix : str
        The comment marker (``"% "`` for LaTeX).

    Returns
    -------
    list of str
        One line per key, without newlines.

    Examples
    --------
    >>> provenance_lines({"dps": 30, "seed": [1, 2]})
    ['# dps: 30', '# seed: [1, 2]']
    """
    lines = []
    for k, v in prov.items():
        text = v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str)
        lines.append(f"{prefix}{k}: {text}".replace("\n", " "))
    return lines


def read_provenance_lines(path) -> dict:
    """Read back the ``# key: value`` lines at the top of a file written with :func:`provenance_lines`.

    A CSV file written by :func:`write_csv` has no such lines; its sidecar is read instead (the
    provenance record, with the sidecar's ``status`` and ``notes`` when it has them), so code written
    for the old ``#`` header keeps working.

    Parameters
    ----------
    path : str or Path
        A CSV (or other text) file.

    Returns
    -------
    dict
        The record (JSON values decoded).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("\\n".join(provenance_lines({"dps": 30})) + "\\nC,threshold\\n2,0\\n")
    >>> read_provenance_lines(path)
    {'dps': 30}
    """
    out: dict[str, Any] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.startswith("#"):
                break
            key, sep, value = line[1:].strip().partition(": ")
            if not sep:
                continue
            try:
                out[key] = json.loads(value)
            except json.JSONDecodeError:
                out[key] = value
    if not out and sidecar_path(path).exists():
        side = read_csv_provenance(path)
        out = dict(side.get("provenance") or {})
        out.update({k: side[k] for k in ("status", "notes") if k in side})
    return out


def sidecar_path(path) -> Path:
    """The provenance sidecar of a CSV file: ``<path>`` + :data:`SIDECAR_SUFFIX`.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> sidecar_path("out/thresholds.csv").as_posix()
    'out/thresholds.csv.provenance.json'
    """
    path = Path(os.fspath(path))
    return path.with_name(path.name + SIDECAR_SUFFIX)


def _csv_cell(v):
    if v is None:
        return ""
    if isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple, dict)):
        return json.dumps(v, sort_keys=True, default=str)
    mpf = getattr(v, "_mpf_", None)
    if mpf is not None:
        from mpmath import libmp
        return libmp.to_str(mpf, max(1, libmp.prec_to_dps(max(mpf[3], 1)) + 3))   # digits of its bits
    item = getattr(v, "item", None)          # numpy scalars
    if callable(item):
        try:
            return item()
        except (TypeError, ValueError):
            pass
    return str(v)


def write_csv(data, path, provenance: dict | None = None, *, columns=None, meta: dict | None = None):
    """Write a table as a plain CSV file (one header line, then the rows) and its provenance beside it.

    The CSV has no comment lines, so ``pandas.read_csv(path)`` (or any CSV reader) reads it as is.
    The provenance goes to the sidecar ``<path>.provenance.json`` (:func:`sidecar_path`), a JSON object
    with keys ``csv`` (the CSV file's name), ``columns``, ``rows`` (the row count), ``provenance`` (the
    record of :func:`provenance`) and the entries of ``meta`` (e.g. ``status``, ``notes``). This is the
    one writer of CSV files in symloss (:meth:`symloss.core.results.ResultTable.to_csv`, the CLI).

    Parameters
    ----------
    data : pandas.DataFrame, or iterable of mappings
        The table: a DataFrame (its index is not written), or rows as dicts (column -> value).
        Values: numbers and strings as they are, ``None`` as an empty cell, lists and dicts as JSON,
        ``mpmath.mpf`` with the digits its precision carries.
    path : str, os.PathLike or text stream
        The CSV file. A stream (e.g. ``sys.stdout``) receives the CSV only and no sidecar is written.
    provenance : dict, optional
        The provenance record; default :func:`provenance` of this call.
    columns : sequence of str, optional
        The columns, in order (default: the DataFrame's, else the keys of the rows in first-seen
        order); keys of a row that are not columns are left out.
    meta : dict, optional
        Further JSON entries of the sidecar (what applies to every row: ``status``, ``notes``, ...);
        they may not be named ``csv``, ``columns``, ``rows`` or ``provenance``.

    Returns
    -------
    pathlib.Path or None
        The sidecar written (None for a stream).

    Raises
    ------
    TypeError
        If ``data`` is neither a DataFrame nor an iterable of mappings, or ``meta`` is not a mapping.
    ValueError
        If ``meta`` uses a reserved key.
    FileNotFoundError, PermissionError
        When the directory of ``path`` does not exist or cannot be written (before anything is written).

    Examples
    --------
    >>> import os, tempfile, pandas as pd
    >>> path = os.path.join(tempfile.mkdtemp(), "thresholds.csv")
    >>> side = write_csv([{"C": 2, "threshold": 0.0}, {"C": 3, "threshold": 0.9496}], path,
    ...                  provenance(dps=15), meta={"status": "EVIDENCE: a float scan"})
    >>> pd.read_csv(path)["threshold"].tolist()
    [0.0, 0.9496]
    >>> info = read_csv_provenance(path)
    >>> info["columns"], info["rows"], info["status"], info["provenance"]["dps"]
    (['C', 'threshold'], 2, 'EVIDENCE: a float scan', 15)
    >>> side.name
    'thresholds.csv.provenance.json'
    """
    if meta is not None and not isinstance(meta, dict):
        raise TypeError(f"meta must be a dict or None, got {type(meta).__name__}")
    reserved = sorted({"csv", "columns", "rows", "provenance"} & set(meta or {}))
    if reserved:
        raise ValueError(f"meta may not use the key {reserved[0]!r} (reserved: csv, columns, rows, provenance)")
    if hasattr(data, "to_dict") and hasattr(data, "columns") and hasattr(data, "itertuples"):   # DataFrame
        cols = [str(c) for c in (data.columns if columns is None else columns)]
        rows = data.to_dict(orient="records")
        rows = [{str(k): v for k, v in r.items()} for r in rows]
    else:
        if isinstance(data, (str, bytes)) or not hasattr(data, "__iter__"):
            raise TypeError(f"data must be a pandas DataFrame or an iterable of mappings (rows), got "
                            f"{type(data).__name__}")
        rows = []
        for i, r in enumerate(data):
            if not hasattr(r, "keys"):
                raise TypeError(f"data must be an iterable of mappings (rows); row {i} is a {type(r).__name__}")
            rows.append({str(k): v for k, v in dict(r).items()})
        if columns is None:
            seen: dict[str, None] = {}
            for r in rows:
                seen.update(dict.fromkeys(r))
            cols = list(seen)
        else:
            cols = [str(c) for c in columns]
    stream = path if hasattr(path, "write") else None
    if stream is None:
        target = Path(os.fspath(path))
        parent = target.parent if str(target.parent) else Path(".")
        if not parent.is_dir():
            raise FileNotFoundError(f"path: the directory {str(parent)!r} of {str(target)!r} does not exist")
        if not os.access(parent, os.W_OK):
            raise PermissionError(f"path: the directory {str(parent)!r} of {str(target)!r} is not writable")
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({c: _csv_cell(r.get(c)) for c in cols})
    if stream is not None:
        stream.write(buf.getvalue())
        return None
    prov = provenance if provenance is not None else _provenance_record()
    target.write_text(buf.getvalue(), encoding="utf-8")
    side = sidecar_path(target)
    record = {"csv": target.name, "columns": cols, "rows": len(rows), "provenance": prov, **(meta or {})}
    side.write_text(json.dumps(record, indent=2, sort_keys=False, default=str) + "\n", encoding="utf-8")
    return side


def read_csv_provenance(path) -> dict:
    """The sidecar of a CSV file written by :func:`write_csv` (``<path>.provenance.json``).

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file (or its sidecar).

    Returns
    -------
    dict
        Keys ``csv``, ``columns``, ``rows``, ``provenance`` and the ``meta`` entries given to
        :func:`write_csv`.

    Raises
    ------
    FileNotFoundError
        If the sidecar does not exist (naming it).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = write_csv([{"x": 1}], path, {"dps": None})
    >>> read_csv_provenance(path)["provenance"]
    {'dps': None}
    """
    path = Path(os.fspath(path))
    side = path if path.name.endswith(SIDECAR_SUFFIX) else sidecar_path(path)
    if not side.exists():
        raise FileNotFoundError(f"path: no provenance sidecar {str(side)!r} beside {str(path)!r} "
                                "(written by symloss.core.provenance.write_csv)")
    return json.loads(side.read_text(encoding="utf-8"))


def figure_metadata(prov: dict, fmt: str, *, title: str | None = None) -> dict:
    """The ``metadata=`` of :meth:`matplotlib.figure.Figure.savefig` carrying ``prov``.

    PDF: the Info dictionary (``Subject`` holds the provenance JSON, ``Creator`` the symloss version,
    ``Keywords`` the command line); PNG: text chunks (``Provenance`` holds the JSON); SVG: Dublin Core
    ``Description``.

    Parameters
    ----------
    prov : dict
        A :func:`provenance` record.
    fmt : {"pdf", "png", "svg"}
        The file format.
    title : str, optional
        The figure's title.

    Returns
    -------
    dict
        Keys and text values for the format (empty for other formats).

    Examples
    --------
    >>> sorted(figure_metadata({"symloss": "0.1.0"}, "png"))
    ['Provenance', 'Software']
    """
    text = json.dumps(prov, sort_keys=True, default=str)
    creator = f"symloss {prov.get('symloss', '')}".strip()
    fmt = fmt.lower()
    if fmt == "pdf":
        md = {"Creator": creator, "Subject": text, "Keywords": str(prov.get("command", ""))}
        if title:
            md["Title"] = title
        return md
    if fmt == "png":
        md = {"Software": creator, "Provenance": text}
        if title:
            md["Title"] = title
        return md
    if fmt == "svg":
        md = {"Creator": creator, "Description": text}
        if title:
            md["Title"] = title
        return md
    return {}
