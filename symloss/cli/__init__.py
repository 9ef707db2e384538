"""The ``symloss`` command line.

Subcommands live in :mod:`symloss.cli.commands`: every module there defines ``register(subparsers)``,
which adds its parser and sets ``func`` (a callable taking the parsed namespace and returning an exit
status). Adding a subcommand means adding one module; this file does not change.

The grammar shared by every subcommand (option spellings, ``--json [PATH]``, one-line errors with
exit status 2, ``--debug`` for tracebacks, progress bars, "did you mean" hints) is in
:mod:`symloss.cli._common`.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import traceback

from .. import __version__
from ._common import CliError, SymlossArgumentParser, check_argv, name_option

__all__ = ["main", "build_parser"]

_EPILOG = ("Every command takes --json [PATH] (JSON with provenance: versions, dps, seeds, command line, "
           "date), --debug (show tracebacks) and --help. Errors are one line on stderr and exit status 2.")


def _build() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    parser = SymlossArgumentParser(
        prog="symloss",
        description="Loss systems and load balancing: exact, certified, arbitrarily precise, fast.",
        epilog=_EPILOG)
    parser.add_argument("--version", action="version", version=f"symloss {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=SymlossArgumentParser)
    from . import commands
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    for p in sub.choices.values():
        if "--debug" not in p._option_string_actions:
            p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                           help="show the full traceback of an error")
    return parser, sub


def build_parser() -> argparse.ArgumentParser:
    """The ``symloss`` argument parser with every subcommand registered."""
    return _build()[0]


def _message(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, FileNotFoundError) and exc.filename and str(exc.filename) not in text:
        text = f"{text}: {exc.filename}"
    return text


def main(argv=None) -> int:
    """Run ``symloss`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser, sub = _build()
    check_argv(parser, sub, argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    debug = bool(getattr(args, "debug", False))
    cmd = args.command
    subparser = sub.choices.get(cmd)
    from ..core.provenance import command_context
    try:
        with command_context(argv):
            status = args.func(args)
    except KeyboardInterrupt:
        print(f"symloss {cmd}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `symloss ... | head`
        try:
            sys.stdout = open(__import__("os").devnull, "w")  # noqa: SIM115 - silence the final flush
        except OSError:  # pragma: no cover
            pass
        return 0
    except (CliError, ValueError, TypeError, ArithmeticError, OSError, ImportError, LookupError,
            MemoryError, RecursionError) as exc:
        if debug:
            traceback.print_exc()
        kind = "" if isinstance(exc, (CliError, ValueError, TypeError)) else f"{type(exc).__name__}: "
        print(f"symloss {cmd}: error: {kind}{name_option(_message(exc), subparser)}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - nothing reaches a user as a traceback
        if debug:
            traceback.print_exc()
        print(f"symloss {cmd}: internal error: {type(exc).__name__}: {_message(exc)} "
              f"(please report it; --debug shows the traceback)", file=sys.stderr)
        return 2
    return int(status or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
