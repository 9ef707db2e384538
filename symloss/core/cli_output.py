"""Where the output of both command lines goes (re-exported by :mod:`symloss.core.cli_grammar`).

``--json [PATH]``, ``--csv [PATH]``, ``--latex [PATH]`` (:func:`add_output`): without ``PATH`` (or with
``-``, :data:`STDOUT`) the format goes to stdout instead of the text output; with ``PATH`` the file is
written and the text output still goes to stdout. :func:`outputs` checks the output paths for
writability before any work starts (:func:`check_writable`; :func:`check_readable` for input files);
:func:`write_text` and :func:`write_json` write, :func:`fmt_number` formats a number for the text output.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys

from .cli_values import CliError

#: The ``PATH`` of an output option that means standard output.
STDOUT = "-"


def _output_path(option: str):
    def conv(text: str) -> str:
        s = str(text)
        if s != STDOUT and re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?(/\d+)?", s):
            raise argparse.ArgumentTypeError(
                f"{s!r} looks like a number, not a file name; write {option} after the positional arguments "
                f"or give a file name (e.g. {option} out{'.' + option.lstrip('-')})")
        return s
    conv.__name__ = f"{option.lstrip('-')} path"
    return conv


def add_output(p, fmt: str, help_text: str) -> None:
    """``--FMT [PATH]``: without PATH (or ``-``) to stdout instead of the text output.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser to add the option to.
    fmt : str
        The format name, which is also the option (``"json"`` gives ``--json``).
    help_text : str
        What the output contains, the start of the ``--help`` line.
    """
    p.add_argument(f"--{fmt}", nargs="?", const=STDOUT, default=None, metavar="PATH",
                   type=_output_path(f"--{fmt}"),
                   help=f"{help_text}; to stdout instead of the text output, or to the file PATH")


def outputs(args, *formats) -> dict:
    """The output options given; checks that at most one goes to stdout and that every file can be
    written (before any work).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments.
    *formats : str
        The output formats the command offers (``"json"``, ``"csv"``, ``"latex"``), as added by
        :func:`add_output`.

    Returns
    -------
    dict
        ``{fmt: path}`` of the formats given, ``path`` being ``STDOUT`` (``"-"``) or a file name.

    Raises
    ------
    CliError
        When two outputs go to stdout, or a file cannot be written (:func:`check_writable`).
    """
    out = {f: getattr(args, f, None) for f in formats if getattr(args, f, None) is not None}
    to_stdout = [f"--{f}" for f, v in out.items() if v == STDOUT]
    if len(to_stdout) > 1:
        raise CliError(f"{' and '.join(to_stdout)} would both go to stdout; give a PATH to all but one")
    for f, path in out.items():
        if path != STDOUT:
            check_writable(path, f"--{f}")
    return out


def check_writable(path, option: str) -> str:
    """Fail now (not after the computation) when ``path`` cannot be written: the API's
    ``symloss.core.validation.check_output_path``, its error turned into a one-line
    :class:`CliError` naming the option.

    Parameters
    ----------
    path : str or os.PathLike
        The output file.
    option : str
        The option that named it (``"--json"``), for the message.

    Returns
    -------
    str
        The path as checked by ``check_output_path``.

    Raises
    ------
    CliError
        When the file cannot be written (missing directory, a directory, no permission, ...).
    """
    from .validation import check_output_path   # lazy: validation loads SymPy, the parsers are built at startup
    try:
        return check_output_path(path, option)
    except (OSError, ValueError, TypeError) as exc:
        raise CliError(str(exc)) from None


def check_readable(path, option: str) -> str:
    """Fail now when the input file ``path`` cannot be read.

    Parameters
    ----------
    path : str or os.PathLike
        The input file.
    option : str
        The option that named it, for the message.

    Returns
    -------
    str
        ``path`` as a string (``os.fspath``).

    Raises
    ------
    CliError
        When the file does not exist, is a directory or is not readable.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise CliError(f"{option}: file {path!r} does not exist")
    if os.path.isdir(path):
        raise CliError(f"{option}: {path!r} is a directory, not a file")
    if not os.access(path, os.R_OK):
        raise CliError(f"{option}: {path!r} is not readable")
    return path


def write_text(path, text: str) -> None:
    """Write ``text`` (with a final newline added if missing) to stdout or a file.

    Parameters
    ----------
    path : str or os.PathLike
        ``STDOUT`` (``"-"``) for standard output, otherwise a file written as UTF-8 (replaced).
    text : str
        The text to write.
    """
    if path == STDOUT:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text if text.endswith("\n") else text + "\n")


def write_json(path, data, *, provenance: dict | None = None) -> None:
    """JSON of ``data`` (a dict) with a ``provenance`` key, to stdout (``-``) or a file.

    Parameters
    ----------
    path : str or os.PathLike
        ``STDOUT`` (``"-"``) or a file name (see :func:`write_text`).
    data : object
        The JSON-able data (values ``json`` cannot encode are written with ``str``).
    provenance : dict, optional
        Added to ``data`` under the key ``"provenance"`` when ``data`` is a dict.
    """
    if provenance is not None and isinstance(data, dict):
        data = {**data, "provenance": provenance}
    write_text(path, json.dumps(data, indent=2, default=str, ensure_ascii=False))


def fmt_number(x, dps: int) -> str:
    """A number for the text output, with ``dps`` significant digits.

    Parameters
    ----------
    x : number
        The value (anything ``mpmath.nstr`` accepts).
    dps : int
        Significant digits shown.

    Returns
    -------
    str
        Fixed-point notation for magnitudes from ``1e-5`` to ``1e8``, scientific notation otherwise.
    """
    import mpmath
    return mpmath.nstr(x, dps, min_fixed=-5, max_fixed=8)
