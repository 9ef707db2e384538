"""Exact integer polynomials for :mod:`symloss.finite_n.rational`: their text form in certificates,
exact signs, Sturm counts, and the real roots on :math:`(0, \\infty)` isolated by Descartes' rule of
signs on Vincent-Collins-Akritas tiles (python-flint ``fmpz_poly`` / ``fmpq``).
"""
from __future__ import annotations

from fractions import Fraction

from ..core.polyroots import sign_variations, squarefree_part

__all__ = ["RationalCertificateError", "count_positive_roots", "descartes_variations", "sturm_count"]


class RationalCertificateError(ValueError):
    """A stored rational-function or threshold certificate does not verify (the message says which part)."""


def _poly_text(p) -> list[str]:
    """Integer coefficients (constant first) as decimal strings (python-flint prints big integers)."""
    return [str(c) for c in p.coeffs()]


def _poly_from_text(coeffs, what: str):
    from flint import fmpz, fmpz_poly
    if not isinstance(coeffs, (list, tuple)) or not coeffs:
        raise RationalCertificateError(f"{what}: expected a non-empty list of integer coefficients, got {coeffs!r}")
    out = []
    for c in coeffs:
        if not isinstance(c, str) or not c.lstrip("-").isdigit():
            raise RationalCertificateError(f"{what}: coefficient {c!r} is not a decimal integer string")
        out.append(fmpz(c))
    p = fmpz_poly(out)
    if p.is_zero():
        raise RationalCertificateError(f"{what}: the polynomial is zero")
    if len(out) != p.degree() + 1:
        raise RationalCertificateError(f"{what}: trailing zero coefficients (not in normal form)")
    return p


def _q(x):
    """An exact rational (int, Fraction, fmpq, or a ``"p/q"`` string) as ``fmpq``."""
    from flint import fmpq
    if isinstance(x, fmpq):
        return x
    if isinstance(x, bool):
        raise TypeError(f"expected an exact rational, got {x!r}")
    if isinstance(x, int):
        return fmpq(x)
    if isinstance(x, Fraction):
        return fmpq(x.numerator, x.denominator)
    if isinstance(x, str):
        try:
            f = Fraction(x)
        except ValueError:
            raise RationalCertificateError(f"{x!r} is not an exact rational 'p/q'") from None
        return fmpq(f.numerator, f.denominator)
    raise TypeError(f"expected an exact rational, got {type(x).__name__} {x!r}")


def _qtext(x) -> str:
    from flint import fmpq
    x = x if isinstance(x, fmpq) else fmpq(x)
    return str(x.p) if x.q == 1 else f"{x.p}/{x.q}"


def _sign(v) -> int:
    return (v > 0) - (v < 0)


def _strip_zero_roots(p):
    """``(p / rho^m, m)`` with the largest ``m``."""
    from flint import fmpz_poly
    cs = p.coeffs()
    m = 0
    while m < len(cs) and cs[m] == 0:
        m += 1
    return fmpz_poly(cs[m:]), m


def _sign_at(p, x) -> int:
    """Sign of the integer polynomial ``p`` at the rational ``x`` (fmpq), exactly."""
    return _sign(p(x))


def _variations_at(seq, x) -> int:
    if x == "inf":
        return sign_variations([_sign(q.leading_coefficient()) for q in seq])
    return sign_variations([_sign_at(q, x) for q in seq])


def sturm_count(seq, lo, hi) -> int:
    r"""Number of distinct real roots in :math:`(lo, hi]` of the first member of the Sturm sequence
    ``seq``: :math:`V(lo) - V(hi)` (``hi = "inf"`` for :math:`+\infty`).

    Parameters
    ----------
    seq : list of flint.fmpz_poly
        From ``sturm_sequence``.
    lo : flint.fmpq
        Left end (the polynomial must not vanish there).
    hi : flint.fmpq or "inf"
        Right end.

    Returns
    -------
    int
    """
    return _variations_at(seq, lo) - _variations_at(seq, hi)


def _positive_on_halfline(p) -> bool:
    """True when the integer polynomial ``p`` is > 0 on (0, oo) (exact: non-negative coefficients, or no
    root there by a Sturm count and p(1) > 0)."""
    from flint import fmpq
    cs = p.coeffs()
    if all(c >= 0 for c in cs):
        return any(c > 0 for c in cs)
    return count_positive_roots(p) == 0 and p(fmpq(1)) > 0


def _difference_numerator(a_P, a_Q, b_P, b_Q):
    """``R = P_a Q_b - P_b Q_a``, its order ``m`` at 0 and the square-free part of ``R / rho^m``."""
    R = a_P * b_Q - b_P * a_Q
    if R.is_zero():
        return R, 0, None
    R1, m = _strip_zero_roots(R)
    return R, m, squarefree_part(R1)


def _root_bound(p):
    """A power of two ``H`` above every positive root of ``p`` (Cauchy: ``1 + max |a_i / a_n|``)."""
    cs = p.coeffs()
    lc = abs(int(cs[-1]))
    mx = max(abs(int(c)) for c in cs[:-1]) if len(cs) > 1 else 0
    bound = 1 + -(-mx // lc)
    return 1 << max(1, bound.bit_length())


def descartes_variations(p, a, b) -> int:
    r"""Sign variations of :math:`(1+x)^d\, p\big((a + b x)/(1 + x)\big)`: an upper bound on the roots of
    ``p`` in :math:`(a, b)` with the same parity, exact when it is 0 or 1 (Descartes' rule of signs; the
    Möbius map sends :math:`(0, \infty)` onto :math:`(a, b)`). ``b = "inf"`` gives the variations of
    :math:`p(x + a)` (roots in :math:`(a, \infty)`).

    Parameters
    ----------
    p : flint.fmpz_poly
        Degree ``>= 1``.
    a : flint.fmpq
        Left end.
    b : flint.fmpq or "inf"
        Right end, ``> a``.

    Returns
    -------
    int
    """
    from flint import fmpq, fmpq_poly, fmpz_poly
    if b == "inf":
        q = fmpq_poly(p)(fmpq_poly([a, fmpq(1)]))
        return sign_variations([_sign(c) for c in q.numer().coeffs()])
    q = fmpq_poly(p)(fmpq_poly([a, b - a]))             # roots in (0, 1) <-> roots of p in (a, b)
    num = q.numer()
    d = p.degree()
    cs = num.coeffs() + [0] * (d + 1 - len(num.coeffs()))
    rev = fmpz_poly(cs[::-1])                            # z^d q(1/z): roots in (1, oo)
    t = rev(fmpz_poly([1, 1]))                           # (1 + x)^d q(1/(1 + x)): roots in (0, oo)
    return sign_variations([_sign(c) for c in t.coeffs()])


def _tiles(sq):
    """Vincent-Collins-Akritas bisection of ``(0, H)``: a list of open tiles ``(a, b, v)`` in order that
    cover ``(0, H)`` with ends that are not roots, ``v`` the exact root count (0 or 1) of ``(a, b)``
    (Descartes); a split point that is a root is moved to the nearest non-root dyadic point. Returns
    ``(H, tiles)``."""
    from flint import fmpq
    H = fmpq(_root_bound(sq))
    todo = [(fmpq(0), H)]
    tiles = []
    while todo:
        a, b = todo.pop()
        v = descartes_variations(sq, a, b)
        if v <= 1:
            tiles.append((a, b, v))
            continue
        m, j = (a + b) / 2, 3
        while sq(m) == 0:
            m, j = (a + b) / 2 + (b - a) / 2 ** j, j + 1
        todo += [(m, b), (a, m)]
    tiles.sort(key=lambda t: t[0])
    return H, tiles


def _refine(sq, a, b, tol):
    """``[lo, hi]`` inside the tile ``(a, b)`` (ends not roots, one simple root of ``sq`` inside) with
    ``hi - lo <= tol lo``, by exact sign bisection (``lo == hi`` when a bisection point is the root)."""
    lo, hi = a, b
    sl = _sign(sq(lo))
    while lo == 0 or hi - lo > tol * lo:
        mid = (lo + hi) / 2
        sm = _sign(sq(mid))
        if sm == 0:
            return mid, mid
        if sm == sl:
            lo = mid
        else:
            hi = mid
    return lo, hi


def count_positive_roots(p) -> int:
    """Number of distinct roots of the integer polynomial ``p`` on ``(0, oo)`` (exact: Descartes'
    rule on the Vincent-Collins-Akritas tiles of its square-free part).

    Parameters
    ----------
    p : flint.fmpz_poly
        Non-zero.

    Returns
    -------
    int
    """
    q, _m = _strip_zero_roots(p)
    sq = squarefree_part(q)
    if sq.degree() < 1:
        return 0
    return sum(v for _a, _b, v in _tiles(sq)[1])
