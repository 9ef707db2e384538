r"""Finite-N blocking as an exact rational function of the load, and the finite-N threshold proved.

For a model whose finite-N rates are polynomials in :math:`\rho` with coefficients :math:`\ge 0` at
every state (arrivals proportional to :math:`\rho`, departures free of it: every shipped policy), the
stationary blocking of the count chain (:func:`symloss.finite_n_chain`) is a rational function

.. math::

    B_N(\rho) = \frac{P(\rho)}{Q(\rho)}, \qquad P, Q \in \mathbb{Z}[\rho].

**Why, and the degree bound.** Write the balance equations :math:`\pi G(\rho) = 0` (``G`` the
generator, ``M`` states), fix one reference state ``r`` and let ``A`` be :math:`G^T` without row and
column ``r`` and ``c = -G^T[\cdot, r]`` without row ``r``. Every entry of ``A`` and ``c`` is a polynomial
of degree :math:`\le k` in :math:`\rho` (``k`` the largest degree of a rate, 1 for the shipped models).
By Cramer's rule the vector :math:`(\det A,\ \mathrm{adj}(A)\,c)` is a stationary measure, so with the
matrix determinant lemma

.. math::

    S(\rho) = \det(A + c\,\mathbf 1^T), \qquad
    T(\rho) = b_r \det A + \det(A + c\,w^T) - \det A, \qquad B_N = T/S,

(``w`` the loss probabilities of the other states, ``b_r`` that of ``r``), and
:math:`\deg S, \deg T \le D = (M-1)k`. ``S`` and ``T`` are therefore determined by their values at
``D + 1`` points: they are evaluated exactly (integer determinants, python-flint ``fmpz_mat.det``, after
scaling the generator by the common denominator ``L`` of its coefficients) at
:math:`\rho = 1, \dots, D + 1`, interpolated exactly (Newton's forward differences over the integers),
checked at one more point, and the fraction is reduced (``gcd``). The chain is irreducible for every
:math:`\rho > 0` when :math:`\det A(1) \ne 0`: by the matrix-tree theorem :math:`\det A` is a sum of
products of rates, polynomials with non-negative coefficients, so it does not vanish on
:math:`(0, \infty)` once it does not vanish at 1; the same holds for ``S``, so ``Q > 0`` on
:math:`(0, \infty)` (``Q`` divides ``S`` up to a constant and is normalised to a positive leading
coefficient).

**What the re-check proves.** :func:`recheck_blocking_rational_function` re-evaluates the chain at
fresh rational points (half-integers, never interpolation points) by a different algorithm (the
generator built from the definition's exact rates and solved by ``fmpq_mat.solve``, no determinant,
no interpolation) and compares with ``P/Q`` exactly. If ``P/Q`` agrees with ``T/S`` at ``K`` points then
:math:`F = P S - Q T` (degree :math:`\le \max(\deg P, \deg Q) + D`) has ``K`` roots, so with
:math:`K \ge \max(\deg P, \deg Q) + D + 1` points the identity :math:`B_N = P/Q` is *proved* (``D``
recomputed by the re-check from the definition, not read from the data); fewer points are a spot check
(a wrong ``P/Q`` agrees with the chain at no more than that many points, but a spot check is no proof).

**The threshold.** :func:`certified_finite_n_threshold` takes two models, the numerator
:math:`R = P_a Q_b - P_b Q_a` of :math:`B_a - B_b` (whose sign it is on :math:`(0, \infty)`, as
:math:`Q_a Q_b > 0` there), removes the factor :math:`\rho^m`, takes the square-free part and isolates its real roots on
:math:`(0, \infty)` exactly: below a Cauchy bound ``H``, :math:`(0, H)` is cut into tiles on which
Descartes' rule of signs (after a Möbius map of the tile onto :math:`(0, \infty)`) counts 0 or 1
root (Vincent-Collins-Akritas, integer arithmetic). Each root is refined by exact sign evaluations to
the requested relative width; a root is a *crossing* when ``R`` changes sign across it (odd
multiplicity). (A Sturm sequence, :func:`sturm_count`, gives the same counts but its remainders grow
to hundreds of thousands of bits at degree 130, ``N = 10``: 100 s against well under a second.) The
certificate (:meth:`CertifiedFiniteNThreshold.certificate`) stores the polynomials, the tiles with
their counts, the refined intervals and the signs; :func:`recheck_threshold_certificate` re-verifies it from the stored data
alone and rejects tampered data.
"""
from __future__ import annotations

from ..core.polyroots import sign_variations, squarefree_part, sturm_sequence  # noqa: F401 (re-exported)
from . import rational_blocking, rational_poly, rational_threshold
from ._doctests import doctest_table

# the method's three parts, re-exported here (the public path)
from .rational_blocking import (  # noqa: F401
    _JUSTIFICATION,
    MAX_STATES,
    BlockingRationalFunction,
    _fresh_points,
    _interpolate_consecutive,
    _lcm,
    _PolyChain,
    blocking_rational_function,
    chain_blocking_exact,
    recheck_blocking_rational_function,
)
from .rational_poly import (  # noqa: F401
    RationalCertificateError,
    _difference_numerator,
    _poly_from_text,
    _poly_text,
    _positive_on_halfline,
    _q,
    _qtext,
    _refine,
    _root_bound,
    _sign,
    _sign_at,
    _strip_zero_roots,
    _tiles,
    _variations_at,
    count_positive_roots,
    descartes_variations,
    sturm_count,
)
from .rational_threshold import (  # noqa: F401
    CertifiedFiniteNThreshold,
    _analyse,
    certified_finite_n_threshold,
    recheck_threshold_certificate,
)

__all__ = ["BlockingRationalFunction", "CertifiedFiniteNThreshold", "RationalCertificateError", "chain_blocking_exact",
           "blocking_rational_function", "certified_finite_n_threshold", "recheck_blocking_rational_function",
           "recheck_threshold_certificate", "sturm_count", "count_positive_roots", "descartes_variations"]

#: the doctests of the parts run under this module's name too
__test__ = doctest_table(rational_poly, rational_blocking, rational_threshold)
