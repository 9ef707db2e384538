"""Univariate exact tools: square-free parts, rational roots divided out, Sturm sequences and root counts on
open intervals, exact signs, root isolation and refinement, resultants (see :mod:`proofs_check.algebra`
for Sturm's theorem as used here)."""
from __future__ import annotations

from typing import Iterable

from flint import fmpq, fmpq_poly, fmpz_poly

from proofs_check.core import CertificateError
from proofs_check.exact.serial import q


def _primitive_keep_sign(p: fmpq_poly | fmpz_poly) -> fmpz_poly:
    """Positive rational multiple of ``p`` with coprime integer coefficients (signs unchanged)."""
    if isinstance(p, fmpq_poly):
        p = p.numer()          # p = numer / denom with denom > 0
    if p.is_zero():
        return p
    c = p.content()
    return p if c == 1 else p // c


def squarefree_part(p: fmpz_poly) -> fmpz_poly:
    """``p / gcd(p, p')`` made primitive with a positive leading coefficient: same real roots,
    all simple."""
    if p.degree() < 1:
        return p
    g = p.gcd(p.derivative())
    r = p if g.degree() == 0 else fmpz_poly(divmod(fmpq_poly(p), fmpq_poly(g))[0].numer().coeffs())
    r = _primitive_keep_sign(r)
    return -r if r.leading_coefficient() < 0 else r


def remove_rational_root(p: fmpz_poly, r) -> fmpz_poly:
    """Divide out every factor ``(b x - a)`` for the rational root ``r = a/b`` of ``p``."""
    r = q(r)
    lin = fmpz_poly([-int(r.p), int(r.q)])
    while p.degree() > 0 and p(r) == 0:
        quo, rem = divmod(p, lin)
        if not rem.is_zero():   # pragma: no cover - Gauss' lemma guarantees exact division
            raise ArithmeticError("inexact division by a linear factor")
        p = quo
    return p


def sturm_sequence(p: fmpz_poly) -> list[fmpz_poly]:
    """Sturm sequence of ``p`` with every member scaled by a positive rational to a primitive
    integer polynomial (positive scaling does not change any sign)."""
    if p.degree() < 1:
        return [p]
    seq = [_primitive_keep_sign(p), _primitive_keep_sign(p.derivative())]
    while seq[-1].degree() > 0:
        _, rem = divmod(fmpq_poly(seq[-2]), fmpq_poly(seq[-1]))
        if rem.is_zero():
            break
        seq.append(_primitive_keep_sign(-rem))
    return seq


def sign_at(p: fmpz_poly, x) -> int:
    """Exact sign of ``p(x)``; ``x`` rational, or ``"-oo"``/``"oo"`` (``None`` is not accepted here)."""
    if p.is_zero():
        return 0
    if x == "oo":
        return 1 if p.leading_coefficient() > 0 else -1
    if x == "-oo":
        s = 1 if p.leading_coefficient() > 0 else -1
        return s if p.degree() % 2 == 0 else -s
    v = p(q(x))
    return (v > 0) - (v < 0)


def sign_variations(seq: Iterable[fmpz_poly], x) -> int:
    signs = [s for s in (sign_at(f, x) for f in seq) if s != 0]
    return sum(1 for a, b in zip(signs, signs[1:]) if a != b)


def _end(x, default):
    return default if x is None else q(x)


def _prepared(p: fmpz_poly, lo, hi) -> fmpz_poly:
    """Square-free part with rational interval end points that are roots divided out."""
    if p.is_zero():
        raise CertificateError("the zero polynomial has no finite root count")
    p = squarefree_part(p)
    for e in (lo, hi):
        if e is not None:
            p = remove_rational_root(p, e)
    return p


def count_roots(p: fmpz_poly, lo=None, hi=None) -> int:
    """Number of distinct real roots of ``p`` in the **open** interval ``(lo, hi)`` (``None`` = infinite
    end), by Sturm's theorem on the square-free part with end-point roots divided out."""
    a, b = _end(lo, "-oo"), _end(hi, "oo")
    if lo is not None and hi is not None and not q(lo) < q(hi):
        raise ValueError(f"empty interval ({lo}, {hi})")
    p = _prepared(p, lo, hi)
    if p.degree() < 1:
        return 0
    seq = sturm_sequence(p)
    return sign_variations(seq, a) - sign_variations(seq, b)


def cauchy_bound(p: fmpz_poly) -> fmpq:
    """Rational ``M`` with every real root of ``p`` in ``(-M, M)``: ``1 + max |a_i / a_n|``."""
    c = p.coeffs()
    lc = abs(int(c[-1]))
    return fmpq(1) + max((fmpq(abs(int(x)), lc) for x in c[:-1]), default=fmpq(0))


def isolate_roots(p: fmpz_poly, lo=None, hi=None, *, max_width=None) -> list[tuple[fmpq, fmpq]]:
    """Disjoint closed rational intervals ``[a, b]`` inside ``(lo, hi)``, each containing exactly one
    real root of ``p`` (counted by Sturm), no end point a root, increasing order. Bisection at
    dyadic-ish rational midpoints; an infinite end is replaced by the Cauchy bound."""
    p0 = _prepared(p, lo, hi)
    if p0.degree() < 1:
        return []
    M = cauchy_bound(p0)
    a = q(lo) if lo is not None else -M
    b = q(hi) if hi is not None else M
    if lo is None and hi is not None:
        a = min(-M, b - 1)
    if hi is None and lo is not None:
        b = max(M, a + 1)
    seq = sturm_sequence(p0)
    out: list[tuple[fmpq, fmpq]] = []
    mw = None if max_width is None else q(max_width)

    def var(x):
        return sign_variations(seq, x)

    lo_q = None if lo is None else q(lo)
    hi_q = None if hi is None else q(hi)
    stack = [(a, b, var(a), var(b))]
    while stack:
        x, y, vx, vy = stack.pop()
        n = vx - vy
        if n == 0:
            continue
        # inside (lo, hi) the roots of p and p0 coincide, so end points that are not roots of p0
        # and differ from lo / hi are not roots of p either
        inside = (lo_q is None or x != lo_q) and (hi_q is None or y != hi_q)
        if n == 1 and inside and (mw is None or y - x <= mw):
            out.append((x, y))
            continue
        m = (x + y) / 2
        k = 3
        while p0(m) == 0:   # move the split point off the root
            m = x + (y - x) / k
            k += 1
        vm = var(m)
        stack.append((m, y, vm, vy))
        stack.append((x, m, vx, vm))
    out.sort()
    return out


def refine_root(p: fmpz_poly, interval, width) -> tuple[fmpq, fmpq]:
    """Shrink an isolating interval of a square-free ``p`` (sign change at the ends) by bisection
    until its width is at most ``width``."""
    x, y = q(interval[0]), q(interval[1])
    w = q(width)
    sx, sy = sign_at(p, x), sign_at(p, y)
    if sx == 0 or sy == 0 or sx == sy:
        raise ValueError("refine_root needs a sign change of p at the interval ends")
    while y - x > w:
        m = (x + y) / 2
        sm = sign_at(p, m)
        if sm == 0:
            return (m - w / 4, m + w / 4) if sign_at(p, m - w / 4) * sign_at(p, m + w / 4) < 0 else (m, m)
        if sm == sx:
            x = m
        else:
            y = m
    return x, y


def resultant_univariate(P, Q, var: str) -> fmpz_poly:
    """Resultant of two bivariate ``fmpz_mpoly`` with respect to ``var``, as an ``fmpz_poly`` in the
    remaining variable."""
    R = P.resultant(Q, var)
    names = list(R.context().names())
    k = [i for i, n in enumerate(names) if n != var]
    if len(k) != 1:
        raise ValueError("resultant_univariate expects bivariate polynomials")
    i = k[0]
    deg = max((m[i] for m in R.monoms()), default=0)
    coeffs = [0] * (deg + 1)
    for m, c in zip(R.monoms(), R.coeffs()):
        coeffs[m[i]] += int(c)
    return fmpz_poly(coeffs)
