"""The command-line grammar shared by every ``symloss`` subcommand and by ``proofs_check``'s CLI (it lives
in ``core`` so that both command lines can use it without importing each other; ``symloss.cli._common``
re-exports it).

* One spelling per quantity: ``--policy``, ``--C``, ``--d``, ``--dt``, ``--rho``, ``--N``, ``--dps``,
  ``--seed``, ``--events``, ``--replications`` (older spellings stay as hidden aliases).
* Outputs: ``--json [PATH]``, ``--csv [PATH]``, ``--latex [PATH]`` -- without ``PATH`` (or with ``-``)
  the format goes to stdout instead of the text output; with ``PATH`` the file is written and the text
  output still goes to stdout. Output paths are checked for writability before any work starts.
* Errors: one line on stderr, ``symloss CMD: error: ...`` naming the option, exit status 2; no
  traceback unless ``--debug``. Unknown options and subcommands get a "did you mean" hint.
* Progress, one policy for every long command of both command lines and for the API's ``progress=``
  (:func:`progress_mode`, :func:`progress_bar`, :class:`Stages`): a tqdm bar on stderr when it is a
  terminal (``SYMLOSS_PROGRESS=1`` forces it), plain periodic lines when it is not (a log gets no
  carriage-return frames: :class:`ProgressLines`), nothing with ``--no-progress`` (``verify --quiet`` too) or
  ``SYMLOSS_PROGRESS=0``. Labels are for a user (``verify claims``, ``simulate power``).

Parsers here raise :class:`CliError` (a ``ValueError``) with the option's name in the message.

The module is over 700 lines only because every helper carries a full numpydoc docstring (the code is
about 600 lines, one subject: the grammar both command lines share, progress included), so it is kept in
one piece.
"""
from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import re
import sys
from fractions import Fraction

STDOUT = "-"

#: The ``--policy`` choices: the canonical names of the policy-name table, in its order (data only, so
#: building the parsers at startup loads no model).
from .policy_names import POLICIES  # noqa: E402

#: Common misspellings -> the option symloss uses (offered as "did you mean", never accepted silently).
SYNONYMS = {
    "--digits": "--dps", "--precision": "--dps", "--prec": "--dps", "--capacity": "--C", "--c-max": "--C",
    "--load": "--rho", "--lambda": "--rho", "--servers": "--N", "--n": "--N", "--samples": "--d",
    "--attempts": "--d", "--d-tilde": "--dt", "--dtilde": "--dt", "--reps": "--replications",
    "--nreps": "--replications", "--random-seed": "--seed", "--rng-seed": "--seed", "--steps": "--events",
    "--output": "--json", "--out": "--json", "--tex": "--latex",
}

_NEGATIVE_NUMBER = re.compile(r"^-(\d|\.\d)")


class CliError(ValueError):
    """A user error at the command line (bad option value, unwritable output, ...)."""


# ==================================================================================================
# the parser
# ==================================================================================================

class SymlossArgumentParser(argparse.ArgumentParser):
    """``argparse`` with one-line errors (``symloss CMD: error: ...``, exit status 2) and hints;
    no abbreviated options (``--rh`` is not ``--rho``: scripts must not break when options are added).

    Parameters
    ----------
    *args
        Positional arguments of :class:`argparse.ArgumentParser`.
    **kwargs
        Keyword arguments of :class:`argparse.ArgumentParser`; ``allow_abbrev`` defaults to ``False``.
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        """Print ``PROG: error: MESSAGE (see PROG --help)`` on one line (with a "did you mean" hint for an
        invalid choice) and exit with status 2.

        Parameters
        ----------
        message : str
            The error text; its whitespace (argparse's line breaks) is collapsed to single spaces.

        Raises
        ------
        SystemExit
            Always, with status 2.
        """
        message = " ".join(str(message).split())
        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if m:
            choices = [c.strip().strip("'") for c in m.group(2).split(",")]
            hint = difflib.get_close_matches(m.group(1), choices, n=1, cutoff=0.5)
            if hint:
                message += f"; did you mean {hint[0]!r}?"
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def option_strings(parser: argparse.ArgumentParser) -> list[str]:
    """Every option string a parser knows, hidden aliases included.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser (a top-level parser or one subcommand's).

    Returns
    -------
    list of str
        The option strings of all its actions (``-h``, ``--help``, ``--rho``, ...), in definition order.
    """
    return [s for a in parser._actions for s in a.option_strings]


def suggest(flag: str, options) -> str | None:
    """The closest known option to ``flag`` (synonyms first, then by spelling).

    Parameters
    ----------
    flag : str
        The unknown option as typed (``--digits``, ``--RHO``, ``-rho``).
    options : iterable of str
        The options the parser knows.

    Returns
    -------
    str or None
        The option of :data:`SYNONYMS` for ``flag`` if the parser has it, else a case-insensitive
        match, else ``--flag`` for a single-dash ``-flag``, else the closest spelling
        (``difflib``, cutoff 0.5); ``None`` when nothing is close.
    """
    options = list(options)
    syn = SYNONYMS.get(flag) or SYNONYMS.get(flag.lower())
    if syn and syn in options:
        return syn
    lower = {o.lower(): o for o in options}
    if flag.lower() in lower:
        return lower[flag.lower()]
    if flag.startswith("-") and not flag.startswith("--") and f"-{flag}" in options:
        return f"-{flag}"
    hit = difflib.get_close_matches(flag, options, n=1, cutoff=0.5)
    return hit[0] if hit else None


def check_argv(parser: argparse.ArgumentParser, subparsers: argparse._SubParsersAction, argv: list[str]) -> None:
    """Reject unknown subcommands and options before argparse reports anything else (such as missing
    required options), with a "did you mean" hint.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The top-level parser (its own options come before the subcommand).
    subparsers : argparse._SubParsersAction
        The subcommands' action of ``parser`` (``parser.add_subparsers()``).
    argv : list of str
        The command line without the program name.

    Raises
    ------
    SystemExit
        With status 2 (through :meth:`SymlossArgumentParser.error`) on an unknown option or
        subcommand.
    """
    top_opts = set(option_strings(parser))
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "--":
        flag = argv[i].split("=", 1)[0]
        if flag in ("-h", "--help", "--version"):
            return
        if flag not in top_opts:
            hint = suggest(flag, top_opts)
            parser.error(f"unknown option {flag}" + (f"; did you mean {hint}?" if hint else ""))
        i += 1
    if i >= len(argv):
        return
    cmd = argv[i]
    if cmd not in subparsers.choices:
        hint = difflib.get_close_matches(cmd, list(subparsers.choices), n=1, cutoff=0.5)
        parser.error(f"unknown command {cmd!r}" + (f"; did you mean {hint[0]!r}?" if hint else "") +
                     f" (commands: {', '.join(sorted(subparsers.choices))})")
    sub = subparsers.choices[cmd]
    known = option_strings(sub)
    for tok in argv[i + 1:]:
        if tok == "--":
            break
        if not tok.startswith("-") or tok == "-" or _NEGATIVE_NUMBER.match(tok):
            continue
        flag = tok.split("=", 1)[0]
        if flag in known:
            continue
        hint = suggest(flag, [o for o in known if o not in ("-h",)])
        sub.error(f"unknown option {flag}" + (f"; did you mean {hint}?" if hint else ""))


def add_alias(p, *flags, dest: str, type=None, action=None, nargs=None, choices=None) -> None:
    """A hidden, deprecated spelling of an option (``-N`` for ``--N``): same ``dest``, not in --help.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser to add the alias to.
    *flags : str
        The old spellings.
    dest : str
        The destination of the canonical option, shared by the alias.
    type : callable, optional
        Converter of the value (as in ``add_argument``); ignored with ``action``.
    action : str, optional
        An argparse action (``"store_true"``, ...); when given, ``type``, ``nargs`` and ``choices``
        are not passed.
    nargs : int or str, optional
        As in ``add_argument``.
    choices : sequence, optional
        As in ``add_argument``.
    """
    kw = {"dest": dest, "help": argparse.SUPPRESS, "default": argparse.SUPPRESS}
    if action:
        kw["action"] = action
    else:
        if type is not None:
            kw["type"] = type
        if nargs is not None:
            kw["nargs"] = nargs
        if choices is not None:
            kw["choices"] = choices
    p.add_argument(*flags, **kw)


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


def given(args, dest: str) -> bool:
    """Whether the option stored in ``dest`` was given (options that can be refused as unused have the
    default ``None``; flags ``False``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments.
    dest : str
        The option's destination name.

    Returns
    -------
    bool
        True when ``args.dest`` exists and is neither ``None`` nor ``False``.
    """
    v = getattr(args, dest, None)
    return v is not None and v is not False


def refuse_unused(args, options, why: str) -> None:
    """Raise a one-line :class:`CliError` naming the first of ``options`` (``(dest, "--flag")`` pairs)
    that was given although it would be silently ignored.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments.
    options : iterable of tuple
        ``(dest, "--flag")`` pairs of the options that the current command line does not use.
    why : str
        When the options are used, completing "it is used ..." (e.g. ``"only with --method mp"``).

    Raises
    ------
    CliError
        When one of ``options`` was given (see :func:`given`).
    """
    for dest, flag in options:
        if given(args, dest):
            raise CliError(f"{flag} would be ignored: it is used {why}; omit it")


def add_progress(p) -> None:
    """Add ``--no-progress`` (no progress bar on stderr; see :func:`progress_enabled`).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser to add the option to.
    """
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


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


# --------------------------------------------------------------------------------------------------
# progress: the one policy of every long command (CLI and API)
# --------------------------------------------------------------------------------------------------

#: Plain progress lines (stderr not a terminal): none in the first ``PROGRESS_QUIET`` seconds (a short
#: command leaves nothing in a log), then one at every ``PROGRESS_STEP`` of the total or every
#: ``PROGRESS_INTERVAL`` seconds, whichever comes first, and a last one when the work ends.
PROGRESS_INTERVAL = 10.0
PROGRESS_STEP = 0.1
PROGRESS_QUIET = 2.0

_OFF = ("", "0", "false", "no", "off")


def _stderr_is_tty() -> bool:
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # pragma: no cover - closed or replaced stderr
        return False


def _in_notebook() -> bool:
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # noqa: BLE001 - any failure means: not a notebook  # pragma: no cover
        return False
    return type(shell).__name__ == "ZMQInteractiveShell"


def progress_mode(args=None) -> str | None:
    """How progress is shown: the one policy of every long command of both command lines and of the
    API functions that take ``progress=``.

    * ``None`` (nothing): ``--no-progress`` (``verify --quiet``), ``progress=False`` or
      ``SYMLOSS_PROGRESS=0``;
    * ``"tty"``: a tqdm bar on stderr when it is a terminal (or with ``SYMLOSS_PROGRESS=1``);
    * ``"notebook"``: tqdm's notebook bar in a Jupyter kernel (API calls);
    * ``"lines"``: plain periodic lines on stderr when it is not a terminal (a log file or a pipe gets
      no carriage-return frames; ``SYMLOSS_PROGRESS=lines`` forces them), see :class:`ProgressLines`.

    Parameters
    ----------
    args : argparse.Namespace, bool or None, optional
        The parsed arguments (``args.no_progress`` and ``args.quiet`` are read if present), or
        ``True``/``None`` (the policy decides) or ``False`` (off).

    Returns
    -------
    str or None
        ``"tty"``, ``"notebook"``, ``"lines"`` or ``None``.

    Examples
    --------
    >>> import argparse
    >>> progress_mode(argparse.Namespace(no_progress=True)) is None
    True
    >>> progress_mode(False) is None
    True
    """
    if args is False or getattr(args, "no_progress", False) or getattr(args, "quiet", False):
        return None
    env = os.environ.get("SYMLOSS_PROGRESS")
    if env is not None:
        env = env.strip().lower()
        if env in _OFF:
            return None
        if env == "lines":
            return "lines"
        return "tty"
    if _stderr_is_tty():
        return "tty"
    if _in_notebook():
        return "notebook"
    return "lines"


def progress_enabled(args) -> bool:
    """Whether any progress is shown (:func:`progress_mode` is not ``None``).

    Parameters
    ----------
    args : argparse.Namespace, bool or None
        As in :func:`progress_mode`.

    Returns
    -------
    bool
        False with ``--no-progress`` (``verify --quiet``), ``progress=False`` or ``SYMLOSS_PROGRESS=0``.

    Examples
    --------
    >>> import argparse
    >>> progress_enabled(argparse.Namespace(no_progress=True))
    False
    """
    return progress_mode(args) is not None


def _count_text(n) -> str:
    n = float(n)
    if abs(n) < 100_000:
        return f"{n:.0f}"
    for div, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= div:
            return f"{n / div:.3g}{suffix}"
    return f"{n:.0f}"  # pragma: no cover


def _duration_text(s: float) -> str:
    s = max(0.0, float(s))
    if s < 59.5:
        return f"{s:.0f} s"
    if s < 599.5:
        m, sec = divmod(int(round(s)), 60)
        return f"{m} min" + (f" {sec} s" if sec else "")
    if s < 3600:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


class ProgressLines:
    """The progress of a command as plain lines on stderr, for a log file or a pipe (no ``\\r`` frames):
    ``claims 120/985 (12 %) 14 s elapsed, ETA 1 min``.

    Nothing is written in the first ``PROGRESS_QUIET`` seconds; then a line at every
    ``PROGRESS_STEP`` of the total or every :data:`PROGRESS_INTERVAL` seconds (whichever comes
    first) and a last line when the bar closes. The methods are those of a tqdm bar that symloss uses
    (``update``, ``set_postfix_str``, ``set_postfix``, ``set_description``, ``close``; a context manager).

    Parameters
    ----------
    total : number, optional
        The number of steps (``None``: unknown, no percentage or ETA).
    desc : str, optional
        The label, first on every line.
    unit : str, optional
        The unit of a step (shown when the total is unknown).
    file : file-like, optional
        Where the lines go (default ``sys.stderr`` at each write).
    interval, step, quiet : float, optional
        Override :data:`PROGRESS_INTERVAL`, ``PROGRESS_STEP`` and ``PROGRESS_QUIET``.
    clock : callable, optional
        The time source (default ``time.monotonic``; a test passes a fake clock).

    Examples
    --------
    >>> import io
    >>> buf, now = io.StringIO(), [0.0]
    >>> bar = ProgressLines(total=10, desc="claims", unit="claim", file=buf, clock=lambda: now[0])
    >>> for i in range(10):
    ...     now[0] += 3.0
    ...     bar.update(1)
    >>> bar.close()
    >>> buf.getvalue().splitlines()[0]
    'claims 1/10 (10 %) 3 s elapsed, ETA 27 s'
    >>> buf.getvalue().splitlines()[-1]
    'claims 10/10 (100 %) done in 30 s'
    """

    def __init__(self, total=None, desc: str = "", unit: str = "it", *, file=None, interval: float | None = None,
                 step: float | None = None, quiet: float | None = None, clock=None):
        import time
        self.total = total
        self.desc = desc
        self.unit = unit
        self.n = 0
        self.postfix = ""
        self._file = file
        self._interval = PROGRESS_INTERVAL if interval is None else float(interval)
        self._step = PROGRESS_STEP if step is None else float(step)
        self._quiet = PROGRESS_QUIET if quiet is None else float(quiet)
        self._clock = clock or time.monotonic
        self._t0 = self._clock()
        self._last_line = None      # time of the last line written
        self._last_step = 0         # PROGRESS_STEP index of the last line written
        self._closed = False

    # the tqdm methods symloss uses -------------------------------------------------------------
    def update(self, n=1) -> None:
        """Advance by ``n`` steps; write a line when one is due.

        Parameters
        ----------
        n : number, optional
            Steps done since the last update.
        """
        self.n += n
        self._maybe_write()

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        """Show ``s`` after the counts on the next line (e.g. the item now running).

        Parameters
        ----------
        s : str, optional
            The text.
        refresh : bool, optional
            Ignored (tqdm's signature).
        """
        self.postfix = str(s)

    def set_postfix(self, ordered_dict=None, refresh: bool = True, **kwargs) -> None:
        """``key=value`` pairs after the counts on the next line (tqdm's signature).

        Parameters
        ----------
        ordered_dict : mapping, optional
            Pairs to show.
        refresh : bool, optional
            Ignored.
        **kwargs
            More pairs.
        """
        items = dict(ordered_dict or {}, **kwargs)
        self.postfix = ", ".join(f"{k}={v}" for k, v in items.items())

    def set_description(self, desc: str = "", refresh: bool = True) -> None:
        """Change the label.

        Parameters
        ----------
        desc : str, optional
            The new label.
        refresh : bool, optional
            Ignored.
        """
        self.desc = str(desc)

    def refresh(self) -> None:
        """Write a line when one is due (tqdm's signature)."""
        self._maybe_write()

    def close(self) -> None:
        """Write the last line, ``done in ...`` (``stopped after ...`` before the total), unless no line
        was written and the work took less than :data:`PROGRESS_INTERVAL` (a command of a few seconds
        stays silent, however loaded the machine)."""
        if self._closed:
            return
        self._closed = True
        elapsed = self._clock() - self._t0
        if self._last_line is not None or elapsed >= max(self._quiet, self._interval):
            end = "stopped after" if self.total and self.n < self.total else "done in"
            self._write(f"{self._counts()} {end} {_duration_text(elapsed)}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    # lines -------------------------------------------------------------------------------------
    def _counts(self) -> str:
        head = f"{self.desc} " if self.desc else ""
        if self.total:
            pct = 100.0 * self.n / self.total
            return f"{head}{_count_text(self.n)}/{_count_text(self.total)} ({pct:.0f} %)"
        return f"{head}{_count_text(self.n)} {self.unit}"

    def _maybe_write(self) -> None:
        if self._closed:
            return
        now = self._clock()
        elapsed = now - self._t0
        if elapsed < self._quiet or (self.total and self.n >= self.total):
            return                  # the last line is written by close()
        step_index = int(self.n / self.total / self._step + 1e-9) if self.total else 0
        due_time = self._last_line is None or now - self._last_line >= self._interval
        due_step = bool(self.total) and step_index > self._last_step
        if not (due_time or due_step):
            return
        self._last_line = now
        self._last_step = step_index
        text = f"{self._counts()} {_duration_text(elapsed)} elapsed"
        if self.total and 0 < self.n < self.total:
            text += f", ETA {_duration_text(elapsed * (self.total - self.n) / self.n)}"
        if self.postfix:
            text += f" [{self.postfix}]"
        self._write(text)

    def _write(self, text: str) -> None:
        fh = self._file if self._file is not None else sys.stderr
        try:
            fh.write(text + "\n")
            fh.flush()
        except (OSError, ValueError):  # pragma: no cover - a closed log: progress is not worth an error
            pass


class _NoProgress:
    """The bar of ``--no-progress``: every method does nothing."""

    total = None
    n = 0

    def update(self, n=1):
        self.n += n

    def set_postfix_str(self, s="", refresh=True):
        pass

    def set_postfix(self, ordered_dict=None, refresh=True, **kwargs):
        pass

    def set_description(self, desc="", refresh=True):
        pass

    def refresh(self):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def progress_bar(args=None, total=None, desc: str = "", unit: str = "it", **tqdm_kwargs):
    """The progress bar of a long command, by the one policy :func:`progress_mode`: a tqdm bar on
    stderr on a terminal (erased when it closes), tqdm's notebook bar in Jupyter, plain periodic
    lines (:class:`ProgressLines`) off a terminal, nothing with ``--no-progress``.

    Parameters
    ----------
    args : argparse.Namespace, bool or None, optional
        The parsed arguments, or ``True``/``None`` (the policy decides) / ``False`` (no bar).
    total : number, optional
        Number of steps (``None``: unknown).
    desc : str, optional
        The bar's label, for a user (``"verify claims"``, ``"sweep threshold_load"``), not an internal name.
    unit : str, optional
        The unit of a step.
    **tqdm_kwargs
        More options of the tqdm bar (``smoothing``, ``unit_scale``, ...); ignored by the other modes.

    Returns
    -------
    object
        A bar with tqdm's ``update``, ``set_postfix_str``, ``set_postfix``, ``close`` (a context
        manager).

    Examples
    --------
    >>> bar = progress_bar(False, total=3, desc="points")
    >>> bar.update(3); bar.close()
    """
    mode = progress_mode(args)
    if mode is None:
        return _NoProgress()
    if mode == "lines":
        return ProgressLines(total=total, desc=desc, unit=unit)
    if mode == "notebook":
        from tqdm.auto import tqdm
        return tqdm(total=total, desc=desc, unit=unit, **tqdm_kwargs)
    from tqdm import tqdm
    tqdm_kwargs.setdefault("dynamic_ncols", True)
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=not _stderr_is_tty(), **tqdm_kwargs)


class Stages:
    """A progress bar over the named stages of a command whose single calls have no progress hook.

    Used as a context manager: the bar closes on exit.

    Parameters
    ----------
    args : argparse.Namespace, bool or None
        The parsed arguments (see :func:`progress_bar`).
    names : iterable of str
        The stages, in order; their number is the bar's total.
    desc : str
        The bar's label.
    """

    def __init__(self, args, names, desc: str):
        self.names = list(names)
        self.bar = progress_bar(args, total=len(self.names), desc=desc, unit="stage")

    def __enter__(self):
        return self

    def start(self, name: str) -> None:
        """Show the stage now running beside the bar.

        Parameters
        ----------
        name : str
            The stage's name.
        """
        self.bar.set_postfix_str(name)

    def done(self) -> None:
        """Advance the bar by one finished stage."""
        self.bar.update(1)

    def __exit__(self, *exc):
        self.bar.close()
        return False


# ==================================================================================================
# values
# ==================================================================================================

_MAX_EXPONENT = 400


def _decimal_exponent(s: str) -> int | None:
    m = re.fullmatch(r"[+-]?(\d*)(?:\.(\d*))?[eE]([+-]?\d+)", s)
    if not m:
        return None
    return int(m.group(3))


def parse_int(text, name: str, *, min_value: int | None = 1, max_value: int | None = None) -> int:
    """An integer option such as ``--C 3``; ``3.0`` and ``2e6`` are accepted, ``2.5``/``nan``/``x`` are not.

    Parameters
    ----------
    text : str
        The value as typed.
    name : str
        The option (``"--C"``), for the message.
    min_value : int or None, optional
        Smallest accepted value (default 1; ``None``: no lower bound).
    max_value : int or None, optional
        Largest accepted value (``None``: no upper bound).

    Returns
    -------
    int

    Raises
    ------
    CliError
        When ``text`` is not an integer (exponents beyond 400 are refused without evaluation) or
        lies outside the bounds.
    """
    if min_value is None and max_value is None:
        rng = ""
    elif max_value is None:
        rng = f" >= {min_value}"
    elif min_value is None:
        rng = f" <= {max_value}"
    else:
        rng = f" in [{min_value}, {max_value}]"
    s = str(text).strip()
    try:
        v = int(s)
    except ValueError:
        exp = _decimal_exponent(s)
        if exp is not None and abs(exp) > _MAX_EXPONENT:
            raise CliError(f"{name} must be an integer{rng}, got {text!r} (out of range)") from None
        try:
            f = Fraction(s)
        except (ValueError, ZeroDivisionError):
            raise CliError(f"{name} must be an integer{rng}, got {text!r}") from None
        if f.denominator != 1:
            raise CliError(f"{name} must be an integer{rng}, got {text!r} (not an integer)") from None
        v = int(f)
    if (min_value is not None and v < min_value) or (max_value is not None and v > max_value):
        raise CliError(f"{name} must be an integer{rng}, got {v}")
    return v


def _g(x) -> str:
    if isinstance(x, int) and x > 10 ** 300:       # beyond float: an exact power-of-ten bound
        s = str(x)
        return f"1e{len(s) - 1}" if s.strip("0") == "1" else s
    if isinstance(x, Fraction) and x.numerator == 1 and x.denominator > 10 ** 300:
        return "1e-" + str(len(str(x.denominator)) - 1)
    return re.sub(r"e([+-]?)0+(\d)", r"e\1\2", f"{x:g}".replace("e+", "e"))     # 1e9, 1e-9 (not 1e09)


def parse_real(text, name: str, *, lower=None, upper=None, lower_open: bool = False, upper_open: bool = False,
               max_magnitude: float = 1e300, example: str = "1.5, 3/2 or 1e-3") -> Fraction:
    """A real option read exactly (``1.5``, ``3/2``, ``1e-3``) as a Fraction; ``nan``/``inf`` and values
    outside the interval (or beyond ``max_magnitude``, the range the numerics accept) are rejected.

    Parameters
    ----------
    text : str
        The value as typed.
    name : str
        The option, for the message.
    lower, upper : number, optional
        Bounds of the accepted interval (``None``: unbounded on that side).
    lower_open, upper_open : bool, optional
        Whether the bound itself is excluded.
    max_magnitude : float, optional
        Largest accepted ``|value|``.
    example : str, optional
        Example spellings shown in the message for an unreadable value.

    Returns
    -------
    fractions.Fraction
        The value, exactly.

    Raises
    ------
    CliError
        For ``nan``/``inf``, an unreadable value, a value beyond ``max_magnitude`` (or with a
        decimal exponent beyond 400 either way) or outside the interval.
    """
    s = str(text).strip()
    low = s.lower()
    if low in ("nan", "+nan", "-nan") or "inf" in low:
        raise CliError(f"{name} must be a finite real number, got {text!r}")
    exp = _decimal_exponent(s)
    if exp is not None and exp > _MAX_EXPONENT:
        raise CliError(f"{name} = {text} is out of range (at most {_g(max_magnitude)})")
    if exp is not None and exp < -_MAX_EXPONENT:
        raise CliError(f"{name} = {text} is out of range (at least {_g(1 / max_magnitude) if max_magnitude <= 1e300 else _g(Fraction(1, int(max_magnitude)))} in magnitude, or 0)")
    try:
        v = Fraction(s)
    except (ValueError, ZeroDivisionError):
        raise CliError(f"{name} must be a real number such as {example}, got {text!r}") from None
    if abs(v) > max_magnitude:
        raise CliError(f"{name} = {text} is out of range (at most {_g(max_magnitude)} in magnitude)")
    left = "(" if lower_open or lower is None else "["
    right = ")" if upper_open or upper is None else "]"
    rng = f" in {left}{'-inf' if lower is None else lower}, {'inf' if upper is None else upper}{right}"
    if lower is not None and (v < lower or (lower_open and v == lower)):
        raise CliError(f"{name} must be a real number{rng}, got {text!r}")
    if upper is not None and (v > upper or (upper_open and v == upper)):
        raise CliError(f"{name} must be a real number{rng}, got {text!r}")
    return v


def parse_load(text, name: str = "--rho") -> Fraction:
    """A load ``rho > 0`` read exactly: ``1.5``, ``3/2``, ``1e-3``. ``nan``, ``inf``, ``0`` and
    negative values are rejected.

    Parameters
    ----------
    text : str
        The value as typed.
    name : str, optional
        The option, for the message.

    Returns
    -------
    fractions.Fraction

    Raises
    ------
    CliError
        When the value is not a finite real number > 0 (or is out of :func:`parse_real`'s range).
    """
    s = str(text).strip()
    low = s.lower()
    if low in ("nan", "+nan", "-nan") or "inf" in low:
        raise CliError(f"{name} must be a finite real number > 0, got {text!r}")
    try:
        v = parse_real(s, name)
    except CliError as exc:
        if "out of range" in str(exc):
            raise
        raise CliError(f"{name} must be a real number > 0 such as 1.5, 3/2 or 1e-3, got {text!r}") from None
    if v <= 0:
        raise CliError(f"{name} must be a real number > 0, got {text!r}")
    return v


def parse_dps(text, name: str = "--dps") -> int:
    """A precision option: an integer number of decimal digits in ``[5, 100000]`` (:func:`parse_int`).

    Parameters
    ----------
    text, name : str
        As in :func:`parse_int` (the option defaults to ``--dps``).

    Returns
    -------
    int
        The number of digits.

    Raises
    ------
    CliError
        When the value is not an integer in ``[5, 100000]``.
    """
    return parse_int(text, name, min_value=5, max_value=100_000)


def parse_seed(text, name: str = "--seed") -> int:
    """A random seed: an integer in ``[0, 2**128 - 1]`` (:func:`parse_int`).

    Parameters
    ----------
    text, name : str
        The value as typed and the option (default ``--seed``), as in :func:`parse_int`.

    Returns
    -------
    int
        The seed.

    Raises
    ------
    CliError
        Outside ``[0, 2**128 - 1]`` or not an integer.
    """
    return parse_int(text, name, min_value=0, max_value=2 ** 128 - 1)


def parse_events(text, name: str = "--events") -> int:
    """A number of simulated events: an integer in ``[1, 10**13]`` (:func:`parse_int`).

    Parameters
    ----------
    text, name : str
        As in :func:`parse_int` (the option defaults to ``--events``).

    Returns
    -------
    int
        The number of events, at least 1.

    Raises
    ------
    CliError
        Outside ``[1, 10**13]`` or not an integer.
    """
    return parse_int(text, name, min_value=1, max_value=10 ** 13)


def _eval_int_expr(text: str, name: str, d: int | None) -> int:
    """Evaluate an integer expression in ``d`` (``d+1``, ``2*d``, ``d-1``, ``4``)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise CliError(f"{name}: cannot read {text!r} (use integers, d, +, -, *)") from None

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            if abs(node.value) > 10 ** 9:
                raise CliError(f"{name}: {node.value} is out of range in {text!r}")
            return node.value
        if isinstance(node, ast.Name) and node.id == "d":
            if d is None:
                raise CliError(f"{name}: 'd' is only allowed in --dt, got {text!r}")
            return d
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            a, b = ev(node.left), ev(node.right)
            return a + b if isinstance(node.op, ast.Add) else (a - b if isinstance(node.op, ast.Sub) else a * b)
        raise CliError(f"{name}: cannot read {text!r} (use integers, d, +, -, *)")
    return ev(tree)


def parse_range(text, name: str, *, d: int | None = None, min_value: int = 1, max_value: int | None = None,
                max_count: int = 100_000) -> list:
    """Inclusive integer ranges: ``1:10`` -> 1..10, ``1:10:3`` -> 1, 4, 7, 10, ``2,5,7`` -> a list,
    ``4`` -> [4]. With ``d`` given, endpoints may be expressions in ``d`` (``d+1:d+2``).

    Parameters
    ----------
    text : str
        The ranges as typed, comma-separated ``A``, ``A:B`` or ``A:B:STEP`` (inclusive).
    name : str
        The option, for the message.
    d : int, optional
        The value of ``d`` in endpoint expressions (integers, ``d``, ``+``, ``-``, ``*``); without
        it, ``d`` is refused.
    min_value : int, optional
        Smallest accepted value.
    max_value : int, optional
        Largest accepted value (``None``: no upper bound).
    max_count : int, optional
        Most values the ranges may produce.

    Returns
    -------
    list of int
        The values in the order given, duplicates removed.

    Raises
    ------
    CliError
        For an empty or unreadable range, a step below 1, an empty ``A:B`` (``B < A``), more than
        ``max_count`` values or a value out of range.
    """
    s = str(text).strip()
    if not s:
        raise CliError(f"{name} must be a range such as 1:10, got an empty string")
    out: list = []
    for part in s.split(","):
        pieces = part.split(":")
        if len(pieces) not in (1, 2, 3) or any(not p.strip() for p in pieces):
            raise CliError(f"{name} must look like A, A:B or A:B:STEP (inclusive), got {text!r}")
        vals = [_eval_int_expr(p, name, d) for p in pieces]
        if len(vals) == 1:
            out.append(vals[0])
            continue
        lo, hi = vals[0], vals[1]
        step = vals[2] if len(vals) == 3 else 1
        if step < 1:
            raise CliError(f"{name}: the step must be >= 1, got {step} in {text!r}")
        if hi < lo:
            raise CliError(f"{name}: empty range {text!r} (end {hi} < start {lo})")
        if (hi - lo) // step + 1 + len(out) > max_count:
            raise CliError(f"{name}: {text!r} has more than {max_count} values")
        out.extend(range(lo, hi + 1, step))
    rng = f">= {min_value}" if max_value is None else f"in [{min_value}, {max_value}]"
    for v in out:
        if v < min_value or (max_value is not None and v > max_value):
            where = f" (with d = {d})" if d is not None else ""
            raise CliError(f"{name} values must be integers {rng}, got {v} from {text!r}{where}")
    return list(dict.fromkeys(out))


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


# ==================================================================================================
# errors from the library: name the option
# ==================================================================================================

def name_option(message: str, parser: argparse.ArgumentParser | None) -> str:
    """Name the option in a library message that starts with an argument name: ``rho must be ...``
    becomes ``--rho must be ...`` (positional arguments keep their name).

    Parameters
    ----------
    message : str
        The library's error message.
    parser : argparse.ArgumentParser or None
        The parser of the command; ``None`` leaves the message unchanged.

    Returns
    -------
    str
        The message with its leading argument name replaced by the visible option storing to that
        name (or ``--name`` / ``--na-me`` if the parser knows it); unchanged otherwise.
    """
    if parser is None or message.startswith("-"):
        return message
    m = re.match(r"^([A-Za-z_][A-Za-z_0-9]*)(\[\d+\])?(?=[\s:=,])", message)
    if not m:
        return message
    word = m.group(1)
    known = option_strings(parser)
    candidates = [f"--{word}", f"--{word.replace('_', '-')}"]
    for a in parser._actions:
        if a.dest == word and a.option_strings and a.help != argparse.SUPPRESS:
            candidates.insert(0, next((s for s in a.option_strings if s.startswith("--")), a.option_strings[0]))
    for opt in candidates:
        if opt in known:
            return opt + message[len(word):]
    return message
