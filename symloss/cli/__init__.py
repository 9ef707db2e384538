"""The ``symloss`` command line.

Subcommands live in :mod:`symloss.cli.commands`: every module there defines ``register(subparsers)``,
which adds its parser and sets ``func`` (a callable taking the parsed namespace and returning an exit
status). Adding a subcommand means adding one module; this file does not change.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from .. import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="symloss",
        description="Loss systems and load balancing: exact, certified, arbitrarily precise, fast.")
    parser.add_argument("--version", action="version", version=f"symloss {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from . import commands
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        status = args.func(args)
    except (ValueError, TypeError) as exc:
        print(f"symloss {args.command}: error: {exc}", file=sys.stderr)
        return 2
    return int(status or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
