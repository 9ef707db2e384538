"""Re-export of :mod:`proofs_check.support.seed000_compare` (certified comparisons of the seed-000
claims); registers no claim. The helpers moved out of the auto-discovered claims package; this module
keeps the old import path working.
"""
from proofs_check.support.seed000_compare import (  # noqa: F401 - re-exported
    DPS,
    _oriented,
    _sign_word,
    counterexample,
    describe,
    eventually_summary,
    everywhere_summary,
    make_eventually,
    make_everywhere,
    models,
    run,
    sample_load,
    verify,
)

__all__ = ["DPS", "counterexample", "describe", "eventually_summary", "everywhere_summary", "make_eventually",
           "make_everywhere", "models", "run", "sample_load", "verify"]
