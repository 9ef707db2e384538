"""Descartes' rule of signs on intervals (Moebius transform), partitions of an interval into cells with 0 or 1
sign variation, and the factored isolation certificate (each irreducible factor isolated on its own)."""
from __future__ import annotations

from flint import fmpq, fmpq_poly, fmpz_poly

from proofs_check.core import CertificateError
from proofs_check.exact.serial import poly_from_list, poly_to_list, q, qstr
from proofs_check.exact.sturm import refine_root, remove_rational_root, sign_at, squarefree_part


def descartes_variations(p: fmpz_poly, a, b) -> int:
    r"""Sign variations of the coefficients of :math:`(1+x)^n p\left(\frac{a + b x}{1 + x}\right)`
    (``n = deg p``), which maps :math:`x \in (0, \infty)` onto :math:`(a, b)`; for ``b = None`` the
    coefficients of :math:`p(a + x)` (the interval :math:`(a, \infty)`).

    Descartes' rule of signs: this number is at least the number of roots of ``p`` in ``(a, b)``
    (with multiplicity) and has the same parity; 0 proves that there is no root, 1 that there is
    exactly one (the Vincent-Collins-Akritas test).
    """
    a = q(a)
    n = p.degree()
    if n < 1:
        return 0
    if b is None:   # (a, oo): the coefficients of p(a + x)
        t = fmpq_poly(p)(fmpq_poly([a, 1]))
        signs = [x for x in ((c > 0) - (c < 0) for c in t.coeffs()) if x != 0]
        return sum(1 for u, v in zip(signs, signs[1:]) if u != v)
    b = q(b)
    if not a < b:
        raise ValueError("empty interval")
    # r(x) = p(a + (b - a) x) has the roots of p in (a, b) in (0, 1); x^n r(1/x) has them in (1, oo);
    # shifting by 1 puts them in (0, oo).
    r = fmpq_poly(p)(fmpq_poly([a, b - a]))
    cs = list(r.coeffs()) + [fmpq(0)] * (n + 1 - len(r.coeffs()))
    rev = fmpq_poly(list(reversed(cs)))
    t = rev(fmpq_poly([1, 1]))
    signs = [(c > 0) - (c < 0) for c in t.coeffs()]
    signs = [x for x in signs if x != 0]
    return sum(1 for u, v in zip(signs, signs[1:]) if u != v)


def descartes_partition(p: fmpz_poly, lo, hi, *, max_depth: int = 400) -> list[list]:
    """Subdivide ``(lo, hi)`` (finite rationals) into cells ``[a, b, v]`` with Descartes variation
    ``v`` in {0, 1}; the interior cut points are not roots of ``p``. ``p`` must be square-free
    (otherwise a multiple root is never isolated)."""
    out = []
    stack = [(q(lo), None if hi is None else q(hi), 0)]
    while stack:
        a, b, depth = stack.pop()
        v = descartes_variations(p, a, b)
        if v <= 1:
            out.append([a, b, v])
            continue
        if depth > max_depth:
            raise ArithmeticError("Descartes subdivision did not terminate (multiple root?)")
        if b is None:   # split (a, oo) at max(2a, a + 1)
            m = max(2 * a, a + 1)
            while p(m) == 0:
                m += 1
            stack.append((m, None, depth + 1))
            stack.append((a, m, depth + 1))
            continue
        m = (a + b) / 2
        k = 3
        while p(m) == 0:
            m = a + (b - a) / k
            k += 1
        stack.append((m, b, depth + 1))
        stack.append((a, m, depth + 1))
    out.sort(key=lambda c: c[0])
    return out


def _cells_from_cuts(lo, cuts, hi):
    pts = [q(lo)] + [q(c) for c in cuts] + [None if hi is None else q(hi)]
    for a, b in zip(pts, pts[1:]):
        if b is not None and not a < b:
            raise CertificateError("Descartes cut points are not increasing inside the interval")
    return list(zip(pts, pts[1:]))


def certify_factored_isolation(p: fmpz_poly, lo) -> dict:
    r"""Every real root of ``p`` in ``(lo, oo)``, isolated through the irreducible factors of ``p``.

    The certificate stores the factorisation (re-checked by multiplying out), for each factor a
    Descartes partition of ``(lo, oo)`` (cells of variation 0 or 1; an unbounded last cell is tested
    through the coefficients of ``f(a + x)``), and the merged list of isolating intervals ``[a, b, i]``
    (``i`` = factor index), refined until disjoint. Distinct irreducible factors have no common
    root, so the merged intervals hold each root of ``p`` in ``(lo, oo)`` exactly once.
    """
    lo = q(lo)
    c, fac = p.factor()
    factors, parts, merged = [], [], []
    for i, (f, m) in enumerate(fac):
        f = remove_rational_root(f, lo)
        factors.append([poly_to_list(f), int(m)])
        cells = descartes_partition(f, lo, None) if f.degree() >= 1 else [[lo, None, 0]]
        cells = _open_cells(f, lo, None, cells)
        parts.append([qstr(cl[0]) for cl in cells[1:]])
        for a, b, v in cells:
            if v == 1:
                if b is None:   # bound the root: split the unbounded cell until the root is in a finite one
                    x = max(2 * a, a + 1)
                    while descartes_variations(f, x, None) == 1 or f(x) == 0:
                        x = 2 * x
                    b = x
                merged.append([a, b, i])
    # refine overlapping intervals of different factors (they share no root)
    changed = True
    while changed:
        changed = False
        merged.sort(key=lambda r: r[0])
        for j in range(len(merged) - 1):
            A, B = merged[j], merged[j + 1]
            if not A[1] < B[0]:
                for R in (A, B):
                    f = poly_from_list(factors[R[2]][0])
                    R[0], R[1] = refine_root(f, (R[0], R[1]), (R[1] - R[0]) / 2)
                changed = True
                break
    return {"kind": "factored_isolation", "poly": poly_to_list(p), "lo": qstr(lo), "hi": None,
            "content": str(int(c)), "factors": factors, "cuts": parts,
            "intervals": [[qstr(a), qstr(b), i] for a, b, i in merged], "count": len(merged)}


def recheck_factored_isolation(cert: dict) -> list[tuple[fmpq, fmpq, int]]:
    """Re-verify :func:`certify_factored_isolation` from its stored data (nothing trusted)."""
    p = poly_from_list(cert["poly"])
    lo = q(cert["lo"])
    if cert.get("hi") is not None:
        raise CertificateError("factored isolation is on (lo, oo)")
    prod = fmpz_poly([int(cert["content"])])
    facs = []
    for coeffs, m in cert["factors"]:
        f = poly_from_list(coeffs)
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise CertificateError("bad multiplicity")
        facs.append(f)
        prod *= f ** m
    # the stored factors may have had the root lo divided out: p = prod * (lin)^k
    lin = fmpz_poly([-int(lo.p), int(lo.q)])
    rest = p
    while rest.degree() > 0 and rest(lo) == 0:
        rest = divmod(rest, lin)[0]
    quo, rem = divmod(rest, prod) if prod.degree() <= rest.degree() else (None, rest)
    if not rem.is_zero() or quo is None or quo.degree() != 0:
        raise CertificateError("the stored factors do not multiply to the polynomial")
    for f in facs:
        if f.degree() >= 1 and squarefree_part(f).degree() != f.degree():
            raise CertificateError("a stored factor is not square-free")
        if f.degree() >= 1 and f(lo) == 0:
            raise CertificateError("a stored factor vanishes at the lower end")
    ivs = [(q(a), q(b), i) for a, b, i in cert["intervals"]]
    if len(cert["cuts"]) != len(facs):
        raise CertificateError("one Descartes partition per factor is required")
    expected = []
    for i, (f, cuts) in enumerate(zip(facs, cert["cuts"])):
        if f.degree() < 1:
            continue
        cells = _cells_from_cuts(lo, cuts, None)
        for a, _b in cells[1:]:
            if f(a) == 0:
                raise CertificateError("a cut point is a root")
        for a, b in cells:
            v = descartes_variations(f, a, b)
            if v > 1:
                raise CertificateError(f"factor {i}: a cell has Descartes variation {v}")
            if v == 1:
                expected.append((a, b, i))
    mine = sorted(ivs, key=lambda r: (r[2], r[0]))
    exp = sorted(expected, key=lambda r: (r[2], r[0]))
    if len(mine) != len(exp) or cert.get("count") != len(exp):
        raise CertificateError(f"{len(exp)} isolating cell(s) but {len(mine)} interval(s) stored")
    for (x, y, i), (a, b, j) in zip(mine, exp):
        f = facs[i]
        if i != j or not (a <= x < y) or (b is not None and not y <= b) or not x > lo:
            raise CertificateError(f"interval [{qstr(x)}, {qstr(y)}] is not inside an isolating cell of factor {i}")
        if not sign_at(f, x) * sign_at(f, y) < 0:
            raise CertificateError(f"factor {i} does not change sign on [{qstr(x)}, {qstr(y)}]")
    srt = sorted(ivs)
    for A, B in zip(srt, srt[1:]):
        if not A[1] <= B[0]:       # a shared end point is a root of neither factor (sign checks above)
            raise CertificateError("merged isolating intervals overlap")
    return srt


def _open_cells(p0, lo, hi, cells):
    """Split variation-1 cells touching ``lo`` or ``hi`` until no isolating cell touches them."""
    out = []
    stack = list(reversed(cells))
    while stack:
        a, b, v = stack.pop()
        if v == 1 and (a == lo or (hi is not None and b == hi)):
            if b is None:
                m = max(2 * a, a + 1)
                while p0(m) == 0:
                    m += 1
            else:
                m = (a + b) / 2
                k = 3
                while p0(m) == 0:
                    m = a + (b - a) / k
                    k += 1
            v1 = descartes_variations(p0, a, m)
            v2 = descartes_variations(p0, m, b)
            stack.append([m, b, v2])
            stack.append([a, m, v1])
            continue
        out.append([a, b, v])
    return out
