"""Serialisation of exact numbers and polynomials as certificate data (see :mod:`proofs_check.algebra`):
rationals as ``"p/q"`` strings, univariate polynomials as integer coefficient lists (lowest degree first),
multivariate ones as exponent rows with their variable names."""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from flint import fmpq, fmpz, fmpz_mpoly_ctx, fmpz_poly

from proofs_check.core import CertificateError


def q(x) -> fmpq:
    """Exact rational from ``int``, ``Fraction``, ``fmpq``, ``fmpz`` or a string ``"p/q"``."""
    if isinstance(x, fmpq):
        return x
    if isinstance(x, bool):
        raise CertificateError(f"not a rational number: {x!r}")
    if isinstance(x, (int, fmpz)):
        return fmpq(int(x))
    if isinstance(x, Fraction):
        return fmpq(x.numerator, x.denominator)
    if isinstance(x, str):
        s = x.strip()
        try:
            if "/" in s:
                n, d = s.split("/")
                if int(d) == 0:
                    raise ZeroDivisionError
                return fmpq(int(n), int(d))
            return fmpq(int(s))
        except (ValueError, ZeroDivisionError) as exc:
            raise CertificateError(f"not a rational number: {x!r}") from exc
    raise CertificateError(f"not an exact rational: {x!r} ({type(x).__name__})")


def qstr(x) -> str:
    """``"p/q"`` (or ``"p"`` for an integer) of an exact rational."""
    x = q(x)
    return str(int(x.p)) if x.q == 1 else f"{int(x.p)}/{int(x.q)}"


def poly_to_list(p: fmpz_poly) -> list[int]:
    """Integer coefficients, lowest degree first."""
    return [int(c) for c in p.coeffs()]


def poly_from_list(coeffs: Sequence) -> fmpz_poly:
    """Inverse of :func:`poly_to_list`; rejects anything that is not an integer list."""
    if not isinstance(coeffs, (list, tuple)) or not coeffs:
        raise CertificateError("a polynomial must be a non-empty list of integer coefficients")
    for c in coeffs:
        if isinstance(c, bool) or not isinstance(c, int):
            raise CertificateError(f"polynomial coefficient {c!r} is not an integer")
    return fmpz_poly([int(c) for c in coeffs])


def mpoly_to_data(P) -> dict:
    """``fmpz_mpoly`` -> ``{"vars": [...], "terms": [[e1, ..., en, c], ...]}`` (sorted, exact)."""
    names = list(P.context().names())
    terms = sorted([list(map(int, m)) + [int(c)] for m, c in zip(P.monoms(), P.coeffs())])
    return {"vars": names, "terms": terms}


def mpoly_from_data(data: dict):
    names = tuple(data["vars"])
    ctx = fmpz_mpoly_ctx.get(names, "lex")
    d = {}
    for row in data["terms"]:
        if len(row) != len(names) + 1 or any(isinstance(v, bool) or not isinstance(v, int) for v in row):
            raise CertificateError(f"malformed polynomial term {row!r}")
        d[tuple(row[:-1])] = row[-1]
    return ctx.from_dict(d)
