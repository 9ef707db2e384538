"""Exact real-root tools on integer polynomials (python-flint ``fmpz_poly``), shared by the families
that isolate roots exactly: the crossing loads of two eliminants (:mod:`symloss.meanfield.elimination`)
and the finite-N thresholds (:mod:`symloss.finite_n.rational`). One Sturm sequence, one square-free
part, one count of sign variations.

(``proofs_check.algebra`` keeps its own copies on purpose: the claim re-checker is an independent
implementation of the algebra it re-checks.)
"""
from __future__ import annotations

from flint import fmpq_poly, fmpz_poly

__all__ = ["primitive", "squarefree_part", "sturm_sequence", "sign_variations"]


def primitive(p) -> fmpz_poly:
    """``p`` (``fmpq_poly`` or ``fmpz_poly``) scaled by a positive rational to a primitive integer
    polynomial (signs kept, so Sturm counts are unchanged).

    Parameters
    ----------
    p : flint.fmpq_poly or flint.fmpz_poly
        The polynomial.

    Returns
    -------
    flint.fmpz_poly

    Examples
    --------
    >>> from flint import fmpz_poly
    >>> primitive(fmpz_poly([-4, 0, 6]))
    3*x^2 + (-2)
    """
    if isinstance(p, fmpq_poly):
        p = fmpz_poly(p.numer().coeffs())
    if p.is_zero():
        return p
    c = p.content()
    return p if c == 1 else fmpz_poly([x // c for x in p.coeffs()])


def squarefree_part(p) -> fmpz_poly:
    """The square-free part ``p / gcd(p, p')`` (primitive, positive leading coefficient).

    Parameters
    ----------
    p : flint.fmpz_poly
        A non-zero integer polynomial.

    Returns
    -------
    flint.fmpz_poly

    Raises
    ------
    ArithmeticError
        If the gcd does not divide ``p`` exactly (cannot happen for an integer polynomial).

    Examples
    --------
    >>> from flint import fmpz_poly
    >>> squarefree_part(fmpz_poly([1, -2, 1]))          # (x - 1)^2
    x + (-1)
    """
    if p.degree() <= 0:
        return fmpz_poly([1])
    g = p.gcd(p.derivative())
    q, r = divmod(p, g)
    if not r.is_zero():    # pragma: no cover - gcd divides exactly
        raise ArithmeticError("square-free part: the gcd does not divide the polynomial")
    q = primitive(q)
    return -q if q.leading_coefficient() < 0 else q


def sturm_sequence(p) -> list:
    r"""The Sturm sequence :math:`p_0 = p,\ p_1 = p',\ p_{i+1} = -\mathrm{rem}(p_{i-1}, p_i)` in exact
    rationals, each member scaled by a positive rational to a primitive integer polynomial.

    Parameters
    ----------
    p : flint.fmpz_poly
        A square-free integer polynomial of degree ``>= 1``.

    Returns
    -------
    list of flint.fmpz_poly

    Examples
    --------
    >>> from flint import fmpz_poly
    >>> sturm_sequence(fmpz_poly([-2, 0, 1]))
    [x^2 + (-2), x, 1]
    """
    seq = [primitive(p), primitive(p.derivative())]
    while seq[-1].degree() > 0:
        r = fmpq_poly(seq[-2]) % fmpq_poly(seq[-1])
        if r.is_zero():
            break
        seq.append(primitive(-r))
    return seq


def sign_variations(signs) -> int:
    """Number of sign changes in a sequence of signs, zeros skipped.

    Parameters
    ----------
    signs : iterable of int
        Signs (-1, 0, 1).

    Returns
    -------
    int

    Examples
    --------
    >>> sign_variations([1, 0, -1, -1, 1])
    2
    """
    s = [x for x in signs if x != 0]
    return sum(1 for a, b in zip(s, s[1:]) if a != b)
