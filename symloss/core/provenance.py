"""Provenance: one record of how an output was made, attached to every file symloss writes.

:func:`provenance` returns a plain dict -- the symloss version (and the git commit when symloss runs
from a checkout), the Python and dependency versions, the platform, the precision (``dps``), the
seeds, the command line and the UTC date -- that is written

* into JSON outputs (a ``"provenance"`` key: ``symloss ... --json``, ``certs.json``),
* as ``#`` comment lines at the top of CSV files (:func:`provenance_lines`; read them back with
  ``pandas.read_csv(path, comment="#")`` and :func:`read_provenance_lines`),
* into the metadata of saved figures (:func:`figure_metadata`, used by :func:`symloss.plot.savefig`).

The CLI records its own command line with :func:`command_context`; outside it the command is
``sys.argv`` of the running process.
"""
from __future__ import annotations

import contextlib
import contextvars
import datetime as _dt
import json
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
           "DEPENDENCIES"]

#: Distributions whose versions every provenance record lists (missing ones are left out).
DEPENDENCIES = ("mpmath", "sympy", "numpy", "scipy", "python-flint", "numba", "networkx", "pandas",
                "matplotlib")

_COMMAND: contextvars.ContextVar = contextvars.ContextVar("symloss_command", default=None)


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
        ``sys.argv``.
    **extra
        Further JSON values to record (e.g. ``store=``, ``method=``).

    Returns
    -------
    dict
        Keys ``symloss``, ``git`` (commit or None), ``python``, ``platform``, ``dependencies``
        (distribution -> version), ``dps``, ``seed``, ``command``, ``date`` (UTC, ISO 8601), then
        ``extra``.

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
    for k, v in extra.items():
        out[k] = _plain_seed(v) if k.startswith("seed") else v
    return out


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
    return out


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
