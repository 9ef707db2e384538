"""Subcommands of the ``symloss`` CLI, one module each (see :mod:`symloss.cli`)."""
