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

This module holds the parser and its checks of the command line (:class:`SymlossArgumentParser`,
:func:`check_argv`, hidden aliases, options refused as unused), the range grammar :func:`parse_range`
and :func:`name_option`. The rest lives in rooms of its own and is re-exported here (``__all__``), so
every name is still imported from this module: the option values and :class:`CliError` in
``symloss.core.cli_values``, the outputs in ``symloss.core.cli_output``, the progress policy in
``symloss.core.cli_progress``.
"""
from __future__ import annotations

import argparse
import ast
import difflib
import re

from .cli_output import (STDOUT, add_output, check_readable, check_writable,  # noqa: F401
                         fmt_number, outputs, write_json, write_text)
from .cli_progress import (PROGRESS_INTERVAL, PROGRESS_LINE_PATTERN, PROGRESS_QUIET, PROGRESS_STEP,  # noqa: F401
                           ProgressLines, Stages, add_progress, progress_bar, progress_enabled, progress_mode)
from .cli_values import (CliError, parse_dps, parse_events, parse_int,  # noqa: F401
                         parse_load, parse_real, parse_seed)
# the ``--policy`` choices: the canonical names of the policy-name table, in its order (data only, so
# building the parsers at startup loads no model)
from .policy_names import POLICIES  # noqa: F401

__all__ = [
    "STDOUT", "POLICIES", "SYNONYMS", "CliError", "SymlossArgumentParser", "option_strings", "suggest",
    "check_argv", "add_alias", "add_output", "given", "refuse_unused", "add_progress", "outputs",
    "check_writable", "check_readable", "write_text", "write_json",
    "PROGRESS_INTERVAL", "PROGRESS_STEP", "PROGRESS_QUIET", "PROGRESS_LINE_PATTERN", "progress_mode",
    "progress_enabled", "ProgressLines", "progress_bar", "Stages",
    "parse_int", "parse_real", "parse_load", "parse_dps", "parse_seed", "parse_events", "parse_range",
    "fmt_number", "name_option",
]

#: Common misspellings -> the option symloss uses (offered as "did you mean", never accepted silently).
SYNONYMS = {
    "--digits": "--dps", "--precision": "--dps", "--prec": "--dps", "--capacity": "--C", "--c-max": "--C",
    "--load": "--rho", "--lambda": "--rho", "--servers": "--N", "--n": "--N", "--samples": "--d",
    "--attempts": "--d", "--d-tilde": "--dt", "--dtilde": "--dt", "--reps": "--replications",
    "--nreps": "--replications", "--random-seed": "--seed", "--rng-seed": "--seed", "--steps": "--events",
    "--output": "--json", "--out": "--json", "--tex": "--latex",
}

_NEGATIVE_NUMBER = re.compile(r"^-(\d|\.\d)")


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


# ==================================================================================================
# ranges (the scalar values: symloss.core.cli_values)
# ==================================================================================================

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


