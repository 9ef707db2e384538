"""Elimination by resultants (deterministic order), monomial factors, Newton polygons of bivariate
polynomials (edges and branch exponents)."""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence


def eliminate(polys: list, eliminate_vars: Sequence[str]):
    """Eliminate ``eliminate_vars`` (in order) from a list of ``fmpz_mpoly`` by resultants.

    At each step the polynomial of least positive degree in the variable (then fewest terms) is the
    pivot; it is combined by resultants with every other polynomial containing the variable.
    Returns the gcd of the non-zero polynomials left (every common zero of the input is a zero of
    it). Deterministic: the same input gives the same output, so a certificate can be re-derived.
    """
    F = [f for f in polys if not f.is_zero()]
    if not F:
        raise ValueError("no non-zero polynomial to eliminate from")
    names = list(F[0].context().names())
    for v in eliminate_vars:
        i = names.index(v)
        withv = [f for f in F if f.degrees()[i] > 0]
        without = [f for f in F if f.degrees()[i] == 0]
        if not withv:
            continue
        base = min(withv, key=lambda f: (f.degrees()[i], len(f), str(f)))
        new = [base.resultant(f, v) for f in withv if f is not base]
        F = [f for f in without + new if not f.is_zero()]
        if not F:
            raise ArithmeticError(f"elimination of {v} produced only zero polynomials")
    g = F[0]
    for f in F[1:]:
        g = g.gcd(f)
    if g.is_constant():
        raise ArithmeticError("the eliminated polynomials have no common factor")
    return g


def strip_monomial_factors(P):
    """Product of the distinct irreducible factors of ``P`` that are not monomials (a monomial factor
    such as ``x`` or ``rho`` vanishes only on coordinate hyperplanes), sign normalised."""
    _c, fac = P.factor()
    out = None
    for f, _m in fac:
        if len(f) <= 1:
            continue
        out = f if out is None else out * f
    if out is None:
        raise ArithmeticError("polynomial is a monomial")
    return out


def newton_edges(points: dict) -> list[tuple[Fraction, list]]:
    """Edges of the lower Newton polygon of ``{(j, i): coeff}`` (``j`` = power of the branch variable,
    ``i`` = power of the small parameter) with negative slope: ``(e, edge coefficients)`` where ``e`` is
    minus the slope and the edge coefficients (lowest ``j`` first) define the polynomial whose
    non-zero roots ``c`` give branches ``~ c * param^e``."""
    pts = {k: v for k, v in points.items() if v != 0}
    lower: list = []
    for pnt in sorted(pts):
        while len(lower) >= 2:
            (j1, i1), (j2, i2) = lower[-2], lower[-1]
            if (i2 - i1) * (pnt[0] - j1) >= (pnt[1] - i1) * (j2 - j1):
                lower.pop()
            else:
                break
        lower.append(pnt)
    out = []
    for (j1, i1), (j2, i2) in zip(lower, lower[1:]):
        slope = Fraction(i2 - i1, j2 - j1)
        if slope >= 0:
            continue
        e = -slope
        const = i1 + e * j1
        on = sorted((j, v) for (j, i), v in pts.items() if i + e * j == const)
        j0 = on[0][0]
        coeffs = [0] * (on[-1][0] - j0 + 1)
        for j, v in on:
            coeffs[j - j0] = v
        out.append((e, coeffs))
    return out


def newton_polygon_branches(P, x: str, y: str) -> list[tuple[Fraction, list[int]]]:
    r"""Branches :math:`y \sim c\,x^e` (``e > 0``) of ``P(x, y) = 0`` as ``x -> 0+`` with ``y -> 0``, for an
    ``fmpz_mpoly`` ``P``: ``(e, edge coefficients)`` from :func:`newton_edges`; the positive roots of the
    edge polynomial are the admissible leading coefficients ``c``."""
    names = list(P.context().names())
    ix, iy = names.index(x), names.index(y)
    pts: dict = {}
    for m, c in zip(P.monoms(), P.coeffs()):
        key = (int(m[iy]), int(m[ix]))
        pts[key] = pts.get(key, 0) + int(c)
    return [(e, [int(c) for c in cs]) for e, cs in newton_edges(pts)]
