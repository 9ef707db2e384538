r"""Exact polynomial certificates: Sturm sequences, real-root isolation, signs, resultants.

Everything here is exact integer / rational arithmetic (python-flint ``fmpz_poly``, ``fmpq_poly``,
``fmpz_mpoly``); nothing is rounded. Certificates are plain JSON data:

* a univariate polynomial is a list of integer coefficients, **lowest degree first**
  (``[1, -4, -2, 2, 1]`` is :math:`1 - 4x - 2x^2 + 2x^3 + x^4`);
* a multivariate polynomial is a list of ``[exponent tuple..., coefficient]`` rows together with
  the list of its variable names;
* a rational number is the string ``"p/q"`` (or ``"p"``); ``None`` stands for :math:`\mp\infty`
  as the lower / upper end of an interval.

Root counting follows Sturm's theorem (Basu, Pollack, Roy, *Algorithms in Real Algebraic Geometry*,
Thm. 2.50): for a square-free :math:`P` and :math:`a < b` in :math:`\mathbb{R}\cup\{\pm\infty\}` that
are not roots of :math:`P`, the number of roots of :math:`P` in :math:`(a, b)` equals
:math:`\mathrm{Var}(a) - \mathrm{Var}(b)`, the difference of the numbers of sign changes of the
Sturm sequence :math:`P_0 = P,\ P_1 = P',\ P_{i+1} = -\mathrm{rem}(P_{i-1}, P_i)`. Before counting, a
polynomial is made square-free and the rational end points of the interval that are roots are
divided out (a factor :math:`q x - p` of an integer polynomial with root :math:`p/q`, Gauss' lemma), so
the theorem applies verbatim to the *open* interval.

The ``recheck_*`` functions verify a stored certificate by recomputing every count and sign from the
stored polynomial and the stored rational points; they never trust a stored count. They raise
:class:`proofs_check.core.CertificateError` on any mismatch.

This module is the face of the exact tools; they are written in :mod:`proofs_check.exact`, one module
a subsystem: ``serial`` (certificate data), ``sturm`` (square-free parts, Sturm counts, signs,
isolation, resultants), ``descartes`` (Descartes cells, factored isolation), ``elimination`` (resultant
elimination, Newton polygons) and ``certificates`` (root-count, isolation, sign and positivity
certificates and their re-checks). They are an independent re-implementation on purpose: nothing here
imports the solvers of :mod:`symloss`.
"""
from __future__ import annotations

from fractions import Fraction  # noqa: F401 - the names this module had before the split stay importable
from typing import Iterable, Sequence  # noqa: F401

from flint import fmpq, fmpq_poly, fmpz, fmpz_mpoly_ctx, fmpz_poly  # noqa: F401

from proofs_check.core import CertificateError  # noqa: F401
from proofs_check.exact.certificates import (  # noqa: F401
                                             _poly_and_interval,
                                             _qs,
                                             certify_isolation,
                                             certify_no_roots,
                                             certify_positive,
                                             certify_sign,
                                             recheck_certificate,
                                             recheck_isolation,
                                             recheck_no_roots,
                                             recheck_positive,
                                             recheck_sign,
)
from proofs_check.exact.descartes import (  # noqa: F401
                                             _cells_from_cuts,
                                             _open_cells,
                                             certify_factored_isolation,
                                             descartes_partition,
                                             descartes_variations,
                                             recheck_factored_isolation,
)
from proofs_check.exact.elimination import eliminate, newton_edges, newton_polygon_branches, strip_monomial_factors
from proofs_check.exact.serial import mpoly_from_data, mpoly_to_data, poly_from_list, poly_to_list, q, qstr
from proofs_check.exact.sturm import (  # noqa: F401
                                             _end,
                                             _prepared,
                                             _primitive_keep_sign,
                                             cauchy_bound,
                                             count_roots,
                                             isolate_roots,
                                             refine_root,
                                             remove_rational_root,
                                             resultant_univariate,
                                             sign_at,
                                             sign_variations,
                                             squarefree_part,
                                             sturm_sequence,
)

__all__ = [
    "q", "qstr", "poly_to_list", "poly_from_list", "mpoly_to_data", "mpoly_from_data",
    "squarefree_part", "remove_rational_root", "sturm_sequence", "sign_at", "sign_variations",
    "count_roots", "descartes_variations", "descartes_partition", "isolate_roots", "refine_root", "cauchy_bound", "eliminate", "strip_monomial_factors",
    "resultant_univariate", "newton_polygon_branches", "newton_edges",
    "certify_factored_isolation", "recheck_factored_isolation",
    "certify_no_roots", "certify_isolation", "certify_sign", "certify_positive",
    "recheck_no_roots", "recheck_isolation", "recheck_sign", "recheck_positive", "recheck_certificate",
]
