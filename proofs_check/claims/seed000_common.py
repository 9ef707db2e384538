"""Re-export of :mod:`proofs_check.support.seed000` and :mod:`proofs_check.support.seed000_exclusion` (the
shared seed-000 machinery); registers no claim.

The helpers used to live here, inside the auto-discovered claims package; they moved to
:mod:`proofs_check.support` so that :mod:`proofs_check.claims` holds only modules that register claims.
This module keeps the old import path (``from proofs_check.claims import seed000_common``) working;
discovery imports it and it registers nothing.
"""
from proofs_check.support.seed000 import (  # noqa: F401 - re-exported
    ASSUMPTIONS, SOURCE, _model, _model_polynomial_cached, model_polynomial, check_model_polynomial,
    _substituted, exponents, crossing_resultants, stamp, check_stamp, _s, certified_sign, recheck_sample,
    frac, _local_poly, branch_terms, blocking_expansion, prove_no_crossing, recheck_no_crossing,
    _sample_points, prove_crossings, _conclusions, recheck_crossings, check_retrial_birth_death,
    erlang_polys, nonneg_certificate, recheck_nonneg, large_load_expansion,
)
from proofs_check.support.seed000_exclusion import (  # noqa: F401 - re-exported
    _erlang_inverse_poly, _positive_root_interval, _sigma, _arb_box_eval, exclude_root, recheck_exclusion,
)

__all__ = [
    "ASSUMPTIONS", "SOURCE", "model_polynomial", "check_model_polynomial", "exponents",
    "crossing_resultants", "stamp", "check_stamp", "certified_sign", "recheck_sample", "frac",
    "branch_terms", "blocking_expansion", "prove_no_crossing", "recheck_no_crossing", "prove_crossings",
    "recheck_crossings", "check_retrial_birth_death", "erlang_polys", "nonneg_certificate", "recheck_nonneg",
    "large_load_expansion", "exclude_root", "recheck_exclusion",
]
