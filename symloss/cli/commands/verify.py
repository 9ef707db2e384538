"""``symloss verify``: run the claims registry (same as ``python -m proofs_check``)."""


def register(sub) -> None:
    from proofs_check.cli import add_arguments, run
    p = sub.add_parser("verify", help="check the claims of the four papers and print a status table",
                       description="Run the claims registry (certificates re-checkable with --recheck); exit "
                                   "status 1 when a status differs from the expected one or a certificate is "
                                   "rejected. --json PATH writes the certificates with their provenance.")
    add_arguments(p)
    p.set_defaults(func=run)
