"""``symloss verify``: run the claims registry (same as ``python -m proofs_check``)."""


def register(sub) -> None:
    from proofs_check.cli import add_arguments, run
    p = sub.add_parser("verify", help="check the seed papers' claims and print a status table",
                       description="Run the claims registry; exit non-zero when a status differs "
                                   "from the expected one.")
    add_arguments(p)
    p.set_defaults(func=run)
