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
"""
from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Sequence

from flint import fmpq, fmpq_poly, fmpz, fmpz_mpoly_ctx, fmpz_poly

from proofs_check.core import CertificateError

__all__ = [
    "q", "qstr", "poly_to_list", "poly_from_list", "mpoly_to_data", "mpoly_from_data",
    "squarefree_part", "remove_rational_root", "sturm_sequence", "sign_at", "sign_variations",
    "count_roots", "descartes_variations", "descartes_partition", "isolate_roots", "refine_root", "cauchy_bound", "eliminate", "strip_monomial_factors",
    "resultant_univariate", "newton_polygon_branches", "newton_edges",
    "certify_factored_isolation", "recheck_factored_isolation",
    "certify_no_roots", "certify_isolation", "certify_sign", "certify_positive",
    "recheck_no_roots", "recheck_isolation", "recheck_sign", "recheck_positive", "recheck_certificate",
]

# --------------------------------------------------------------------------------------------------
# serialisation
# --------------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------------
# univariate exact tools
# --------------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------------
# elimination
# --------------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------------
# certificates and their re-checks
# --------------------------------------------------------------------------------------------------


def _qs(x):
    return None if x is None else qstr(x)


def certify_no_roots(p: fmpz_poly, lo=None, hi=None, *, method: str = "auto") -> dict:
    """Certificate that ``p`` has no real root in the open interval ``(lo, hi)``.

    ``method="sturm"``: the re-check recomputes the Sturm count; ``method="descartes"`` (finite
    interval only): the certificate stores a partition of ``(lo, hi)`` into cells with Descartes
    variation 0 whose cut points are not roots, and the re-check recomputes every variation (much
    faster than Sturm for degrees in the hundreds). ``"auto"`` takes Descartes above degree 60.
    """
    if method == "auto":
        method = "descartes" if (p.degree() > 60 and lo is not None and hi is not None) else "sturm"
    cert = {"kind": "no_roots", "method": method, "poly": poly_to_list(p), "lo": _qs(lo), "hi": _qs(hi)}
    if method == "sturm":
        cert["count"] = count_roots(p, lo, hi)
    elif method == "descartes":
        p0 = _prepared(p, lo, hi)
        cells = descartes_partition(p0, lo, hi)
        cert["cuts"] = [qstr(c[0]) for c in cells[1:]]
        cert["count"] = sum(c[2] for c in cells)
    else:
        raise ValueError(f"unknown method {method!r}")
    return cert


def certify_isolation(p: fmpz_poly, lo=None, hi=None, *, method: str = "auto", max_width=None) -> dict:
    """Certificate listing every real root of ``p`` in ``(lo, hi)`` by an isolating interval.

    ``method="sturm"``: intervals from Sturm bisection, re-checked by Sturm counts.
    ``method="descartes"`` (``lo`` finite; ``hi = None`` means the Cauchy bound, recomputed by the
    re-check): a partition of ``(lo, hi)`` into cells of Descartes variation 0 or 1; the cells of
    variation 1 are the isolating intervals. ``"auto"``: Descartes above degree 60 when ``lo`` is finite.
    """
    if method == "auto":
        method = "descartes" if (p.degree() > 60 and lo is not None) else "sturm"
    cert = {"kind": "isolation", "method": method, "poly": poly_to_list(p), "lo": _qs(lo), "hi": _qs(hi)}
    if method == "sturm":
        iv = isolate_roots(p, lo, hi, max_width=max_width)
    elif method == "descartes":
        if lo is None:
            raise ValueError("Descartes isolation needs a finite lower end")
        p0 = _prepared(p, lo, hi)
        top = q(hi) if hi is not None else cauchy_bound(p0)
        cells = _open_cells(p0, q(lo), top, descartes_partition(p0, lo, top))
        iv = [(a, b) for a, b, v in cells if v == 1]
        if max_width is not None:
            iv = [refine_root(p0, ab, max_width) for ab in iv]
        cert["cuts"] = [qstr(c[0]) for c in cells[1:]]
    else:
        raise ValueError(f"unknown method {method!r}")
    cert["intervals"] = [[qstr(a), qstr(b)] for a, b in iv]
    cert["count"] = len(iv)
    return cert


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


def certify_sign(p: fmpz_poly, x) -> dict:
    return {"kind": "sign", "poly": poly_to_list(p), "x": qstr(x), "sign": sign_at(p, q(x))}


def certify_positive(p: fmpz_poly, lo=None, hi=None, sample=None) -> dict:
    """Certificate that ``p > 0`` on ``(lo, hi)``: no root there (Sturm) and ``p(sample) > 0``.
    When every coefficient is >= 0 (and p is non-zero) on ``lo >= 0`` the check is immediate."""
    if sample is None:
        a = q(lo) if lo is not None else (q(hi) - 1 if hi is not None else fmpq(0))
        b = q(hi) if hi is not None else a + 2
        sample = (a + b) / 2 if lo is not None and hi is not None else (a + 1 if hi is None else b - 1)
    return {"kind": "positive", "poly": poly_to_list(p), "lo": _qs(lo), "hi": _qs(hi),
            "count": count_roots(p, lo, hi), "sample": qstr(sample), "sample_sign": sign_at(p, q(sample))}


def _poly_and_interval(cert: dict):
    p = poly_from_list(cert["poly"])
    lo = None if cert.get("lo") is None else q(cert["lo"])
    hi = None if cert.get("hi") is None else q(cert["hi"])
    return p, lo, hi


def recheck_no_roots(cert: dict) -> None:
    p, lo, hi = _poly_and_interval(cert)
    method = cert.get("method", "sturm")
    if method == "descartes":
        if lo is None or hi is None:
            raise CertificateError("a Descartes certificate needs a finite interval")
        p0 = _prepared(p, lo, hi)
        pts = [lo] + [q(c) for c in cert.get("cuts", [])] + [hi]
        for a, b in zip(pts, pts[1:]):
            if not a < b:
                raise CertificateError("Descartes cut points are not increasing inside the interval")
        for c in pts[1:-1]:
            if p(c) == 0:
                raise CertificateError(f"cut point {qstr(c)} is a root")
        n = sum(descartes_variations(p0, a, b) for a, b in zip(pts, pts[1:]))
        if n != 0 or cert.get("count") != 0:
            raise CertificateError(f"Descartes variations {n} on the stored cells (certificate says "
                                   f"{cert.get('count')}): no proof of the absence of roots")
        return
    if method != "sturm":
        raise CertificateError(f"unknown root-count method {method!r}")
    n = count_roots(p, lo, hi)
    if n != 0 or cert.get("count") != 0:
        raise CertificateError(f"polynomial has {n} real root(s) in ({cert.get('lo')}, {cert.get('hi')}), "
                               f"certificate says {cert.get('count')}")


def recheck_isolation(cert: dict) -> list[tuple[fmpq, fmpq]]:
    """Every stored interval lies in ``(lo, hi)``, the intervals are disjoint and increasing, each
    holds exactly one root, and together they hold all roots in ``(lo, hi)`` - all recomputed
    (Sturm counts, or Descartes variations on the stored partition)."""
    p, lo, hi = _poly_and_interval(cert)
    ivs = [(q(a), q(b)) for a, b in cert["intervals"]]
    method = cert.get("method", "sturm")
    prev = None
    for a, b in ivs:
        if not a < b:
            raise CertificateError(f"empty isolating interval [{qstr(a)}, {qstr(b)}]")
        if (lo is not None and not a > lo) or (hi is not None and not b < hi):
            raise CertificateError(f"interval [{qstr(a)}, {qstr(b)}] not inside ({cert.get('lo')}, {cert.get('hi')})")
        if prev is not None and not a >= prev:   # a shared end point is not a root (checked below)
            raise CertificateError("isolating intervals overlap or are not increasing")
        if p(a) == 0 or p(b) == 0:
            raise CertificateError(f"end point of [{qstr(a)}, {qstr(b)}] is a root")
        prev = b
    if method == "sturm":
        total = count_roots(p, lo, hi)
        if total != len(ivs) or cert.get("count") != total:
            raise CertificateError(f"{total} root(s) in ({cert.get('lo')}, {cert.get('hi')}) but "
                                   f"{len(ivs)} interval(s) / count {cert.get('count')} stored")
        for a, b in ivs:
            if count_roots(p, a, b) != 1:
                raise CertificateError(f"[{qstr(a)}, {qstr(b)}] does not hold exactly one root")
        return ivs
    if method != "descartes" or lo is None:
        raise CertificateError(f"unsupported isolation method {method!r}")
    p0 = _prepared(p, lo, hi)
    top = hi if hi is not None else cauchy_bound(p0)
    pts = [lo] + [q(c) for c in cert.get("cuts", [])] + [top]
    for a, b in zip(pts, pts[1:]):
        if not a < b:
            raise CertificateError("Descartes cut points are not increasing inside the interval")
    for c in pts[1:-1]:
        if p(c) == 0:
            raise CertificateError(f"cut point {qstr(c)} is a root")
    ones = []
    for a, b in zip(pts, pts[1:]):
        v = descartes_variations(p0, a, b)
        if v > 1:
            raise CertificateError(f"cell [{qstr(a)}, {qstr(b)}] has Descartes variation {v} > 1")
        if v == 1:
            ones.append((a, b))
    if len(ones) != len(ivs) or cert.get("count") != len(ivs):
        raise CertificateError(f"{len(ones)} isolating cell(s) but {len(ivs)} interval(s) stored")
    for (a, b), (x, y) in zip(ones, ivs):
        if not (a <= x < y <= b):
            raise CertificateError(f"interval [{qstr(x)}, {qstr(y)}] not inside its isolating cell")
        if (x, y) != (a, b) and not sign_at(p0, x) * sign_at(p0, y) < 0:
            raise CertificateError(f"refined interval [{qstr(x)}, {qstr(y)}] shows no sign change")
    return ivs


def recheck_sign(cert: dict) -> int:
    p = poly_from_list(cert["poly"])
    s = sign_at(p, q(cert["x"]))
    if s != cert.get("sign"):
        raise CertificateError(f"sign of the polynomial at {cert['x']} is {s}, certificate says {cert.get('sign')}")
    return s


def recheck_positive(cert: dict) -> None:
    p, lo, hi = _poly_and_interval(cert)
    x = q(cert["sample"])
    if (lo is not None and not x > lo) or (hi is not None and not x < hi):
        raise CertificateError("sample point outside the interval")
    n = count_roots(p, lo, hi)
    s = sign_at(p, x)
    if n != 0 or s != 1 or cert.get("count") != 0 or cert.get("sample_sign") != 1:
        raise CertificateError(f"positivity fails: {n} root(s) in the interval, sign {s} at the sample")


def recheck_certificate(cert: dict):
    """Dispatch on ``cert["kind"]``."""
    kind = cert.get("kind")
    fn = {"no_roots": recheck_no_roots, "isolation": recheck_isolation, "sign": recheck_sign,
          "positive": recheck_positive, "factored_isolation": recheck_factored_isolation}.get(kind)
    if fn is None:
        raise CertificateError(f"unknown certificate kind {kind!r}")
    return fn(cert)
