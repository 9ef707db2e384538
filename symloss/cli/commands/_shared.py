"""Steps several subcommands take alike: a required option read from ``args``, the short aliases of
options, and a ``--json`` output that replaces the text output when it goes to stdout."""
from __future__ import annotations

from .._common import STDOUT, CliError, add_alias, write_json


def need(args, dest: str, option: str):
    """The value of ``args.<dest>``; :class:`CliError` ``"<option> is required"`` when it was not given."""
    v = getattr(args, dest, None)
    if v is None:
        raise CliError(f"{option} is required")
    return v


def add_short_aliases(p, *dests: str) -> None:
    """The hidden one-dash aliases ``-X`` of the options ``--X`` (``add_alias``), one per ``dest``."""
    for dest in dests:
        add_alias(p, f"-{dest}", dest=dest)


def json_output(outs: dict, data, provenance) -> bool:
    """Write ``data`` (with ``provenance``) to the ``--json`` output; ``True`` when it went to stdout,
    where it is the whole output (the caller prints no text)."""
    write_json(outs["json"], data, provenance=provenance)
    return outs["json"] == STDOUT
