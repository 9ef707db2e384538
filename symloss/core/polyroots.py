"""Exact real-root tools on integer polynomials (python-flint ``fmpz_poly``), shared by the families
that isolate roots exactly: the crossing loads of two eliminants (:mod:`symloss.meanfield.elimination`)
and the finite-N thresholds (:mod:`symloss.finite_n.rational`). One Sturm sequence, one square-free
part, one count of sign variations; exact real roots of a univariate resultant (:func:`sturm_count`,
:class:`RealRoot`, :func:`isolate_real_roots`) and common roots of two eliminants over a factor
(:func:`poly_in_b`, :func:`common_factor_mod`, :func:`linear_subresultant`), re-exported by
:mod:`symloss.meanfield.elimination`.

(``proofs_check.algebra`` keeps its own copies on purpose: the claim re-checker is an independent
implementation of the algebra it re-checks.)
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy as sp
from flint import fmpq, fmpq_poly, fmpz_poly

from .definition import BSYM, RHO

__all__ = ["primitive", "squarefree_part", "sturm_sequence", "sign_variations", "RealRoot", "isolate_real_roots",
           "sturm_count", "integer_poly", "poly_in_b", "common_factor_mod", "linear_subresultant"]


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


# --------------------------------------------------------------------------------------------------
# exact real roots of a univariate resultant, and common roots of two eliminants over a factor
# --------------------------------------------------------------------------------------------------

def _fq(x) -> fmpq:
    x = Fraction(x)
    return fmpq(x.numerator, x.denominator)


def _frac(x: fmpq) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def _sign_q(p: fmpz_poly, x: Fraction) -> int:
    """Exact sign of ``p(x)`` at a rational ``x``."""
    v = p(_fq(x))
    return (v > 0) - (v < 0)


def _variations(seq, x: Fraction) -> int:
    return sign_variations(_sign_q(f, x) for f in seq)


def sturm_count(p, lo, hi) -> int:
    """Number of distinct real roots of the square-free integer polynomial ``p`` in the open interval
    ``(lo, hi)`` (rational ends that are not roots of ``p``), by Sturm's theorem in exact arithmetic.

    Parameters
    ----------
    p : flint.fmpz_poly or sequence of int
        A square-free polynomial (coefficients from the constant term up).
    lo, hi : Fraction or int
        The ends, ``lo < hi``, not roots of ``p``.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``lo >= hi`` or an end is a root of ``p``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from symloss.meanfield.elimination import sturm_count
    >>> sturm_count([-2, 0, 1], Fraction(1), Fraction(3, 2))       # sqrt(2) only
    1
    """
    p = p if isinstance(p, fmpz_poly) else fmpz_poly([int(c) for c in p])
    lo, hi = Fraction(lo), Fraction(hi)
    if not lo < hi:
        raise ValueError(f"sturm_count needs lo < hi, got [{lo}, {hi}]")
    if _sign_q(p, lo) == 0 or _sign_q(p, hi) == 0:
        raise ValueError(f"an end of [{lo}, {hi}] is a root of the polynomial")
    if p.degree() < 1:
        return 0
    seq = sturm_sequence(p)
    return _variations(seq, lo) - _variations(seq, hi)


@dataclass
class RealRoot:
    """One real root of an integer polynomial, isolated exactly (:func:`isolate_real_roots`).

    Parameters
    ----------
    lo, hi : Fraction
        Closed isolating interval (``lo == hi`` exactly when the root is rational, and then it is
        the root).
    factor : tuple of int
        The irreducible (primitive, positive leading coefficient) factor of the polynomial that
        vanishes at the root, coefficients from the constant term up.
    multiplicity : int
        The exponent of ``factor`` in the polynomial, i.e. the multiplicity of the root.
    """
    lo: Fraction
    hi: Fraction
    factor: tuple
    multiplicity: int

    @property
    def exact(self):
        """The root as a ``Fraction`` when it is rational, else ``None``."""
        return self.lo if self.lo == self.hi else None

    def poly(self) -> fmpz_poly:
        """The irreducible factor as a :class:`flint.fmpz_poly`.

        Returns
        -------
        flint.fmpz_poly

        Examples
        --------
        >>> from fractions import Fraction
        >>> from symloss.meanfield.elimination import RealRoot
        >>> RealRoot(Fraction(1), Fraction(2), (-2, 0, 1), 1).poly()
        x^2 + (-2)
        """
        return fmpz_poly(list(self.factor))

    def refine(self, width) -> "RealRoot":
        """Bisect (exact signs of the irreducible factor at the midpoints) until ``hi - lo <= width``.

        Parameters
        ----------
        width : Fraction or int
            The largest width kept, ``> 0``.

        Returns
        -------
        RealRoot
            ``self``, updated in place (a rational root is left as it is).

        Examples
        --------
        >>> from fractions import Fraction
        >>> from symloss.meanfield.elimination import RealRoot
        >>> r = RealRoot(Fraction(1), Fraction(2), (-2, 0, 1), 1).refine(Fraction(1, 8))
        >>> r.lo, r.hi
        (Fraction(11, 8), Fraction(3, 2))
        """
        width = Fraction(width)
        if self.lo == self.hi:
            return self
        p = self.poly()
        s_lo = _sign_q(p, self.lo)
        while self.hi - self.lo > width:
            m = (self.lo + self.hi) / 2
            s = _sign_q(p, m)          # never 0: an irreducible factor of degree >= 2 has no rational root
            if s == s_lo:
                self.lo = m
            else:
                self.hi = m
        return self

    def check(self) -> None:
        """Re-check the isolation exactly: a rational root is a root of its factor; an irrational one
        has a sign change of its factor at the ends and exactly one root inside (Sturm).

        Raises
        ------
        ArithmeticError
            If the interval does not isolate one root of the factor.

        Examples
        --------
        >>> from fractions import Fraction
        >>> from symloss.meanfield.elimination import RealRoot
        >>> RealRoot(Fraction(1), Fraction(2), (-2, 0, 1), 1).check()
        """
        p = self.poly()
        if self.lo == self.hi:
            if p.degree() != 1 or _sign_q(p, self.lo) != 0:
                raise ArithmeticError(f"{self.lo} is not the root of the linear factor {self.factor}")
            return
        if p.degree() < 2 or _sign_q(p, self.lo) * _sign_q(p, self.hi) >= 0 or sturm_count(p, self.lo, self.hi) != 1:
            raise ArithmeticError(f"[{self.lo}, {self.hi}] does not isolate one root of {self.factor}")


def integer_poly(R) -> fmpz_poly:
    """A univariate SymPy polynomial (or expression in :data:`~symloss.core.model.RHO`) with rational
    coefficients as a primitive :class:`flint.fmpz_poly` with the same roots.

    Parameters
    ----------
    R : sympy.Poly or SymPy expression
        Univariate, rational coefficients.

    Returns
    -------
    flint.fmpz_poly

    Raises
    ------
    ValueError
        If ``R`` is not univariate.

    Examples
    --------
    >>> from symloss.core.model import RHO
    >>> from symloss.meanfield.elimination import integer_poly
    >>> integer_poly(RHO ** 2 / 2 - 1)
    x^2 + (-2)
    """
    P = R if isinstance(R, sp.Poly) else sp.Poly(R, RHO)
    if len(P.gens) != 1:
        raise ValueError(f"expected a univariate polynomial, got generators {P.gens}")
    _den, P = P.clear_denoms()
    return primitive(fmpz_poly([int(c) for c in reversed(P.all_coeffs())]))


def _overlap(r: RealRoot, s: RealRoot) -> bool:
    return not (r.hi < s.lo or s.hi < r.lo)


def isolate_real_roots(R, lo, hi) -> list:
    r"""Every real root of ``R`` in the closed interval ``[lo, hi]``, isolated exactly.

    ``R`` is factored over the integers (python-flint); a linear factor gives its rational root
    exactly (``lo == hi``); the real roots of every other irreducible factor (which has no rational
    root, so no rational point is ever one of its roots) are isolated by exact Sturm counts and
    bisection. The intervals are then refined until they are pairwise disjoint (closed intervals: no
    shared end point) and each lies in ``[lo, hi]``. Each interval is re-checked exactly
    (:meth:`RealRoot.check`).

    Parameters
    ----------
    R : sympy.Poly, SymPy expression in RHO, or flint.fmpz_poly
        A non-zero polynomial with rational coefficients.
    lo, hi : Fraction or int
        The exact range, ``lo <= hi``.

    Returns
    -------
    list of RealRoot
        Increasing, one per distinct root, with the multiplicity of its factor.

    Raises
    ------
    ValueError
        If ``R`` is zero or ``lo > hi``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> import sympy as sp
    >>> from symloss.core.model import RHO
    >>> from symloss.meanfield.elimination import isolate_real_roots
    >>> R = (RHO - 1) * (1000 * RHO - 1001) * (4 * RHO - 3) ** 2 * (RHO ** 2 - 2)
    >>> [(r.exact, r.multiplicity) for r in isolate_real_roots(R, Fraction(1, 2), 2)]
    [(Fraction(3, 4), 2), (Fraction(1, 1), 1), (Fraction(1001, 1000), 1), (None, 1)]
    """
    p = R if isinstance(R, fmpz_poly) else integer_poly(R)
    lo, hi = Fraction(lo), Fraction(hi)
    if p.is_zero():
        raise ValueError("the zero polynomial has no isolated roots")
    if lo > hi:
        raise ValueError(f"isolate_real_roots needs lo <= hi, got [{lo}, {hi}]")
    _c, facs = p.factor()
    out: list[RealRoot] = []
    for f, k in facs:
        if f.leading_coefficient() < 0:
            f = -f
        coeffs = tuple(int(c) for c in f.coeffs())
        if f.degree() == 1:
            r = Fraction(-coeffs[0], coeffs[1])
            if lo <= r <= hi:
                out.append(RealRoot(r, r, coeffs, int(k)))
            continue
        if lo == hi:
            continue
        seq = sturm_sequence(f)
        stack = [(lo, hi, _variations(seq, lo), _variations(seq, hi))]
        while stack:
            x, y, vx, vy = stack.pop()
            n = vx - vy
            if n == 0:
                continue
            if n == 1:
                out.append(RealRoot(x, y, coeffs, int(k)))
                continue
            m = (x + y) / 2
            vm = _variations(seq, m)
            stack += [(x, m, vx, vm), (m, y, vm, vy)]
    out.sort(key=lambda r: (r.lo, r.hi))
    # closed intervals of distinct roots must not touch: refine the wider of two that meet
    changed = True
    while changed:
        changed = False
        out.sort(key=lambda r: (r.lo, r.hi))
        for r, s in zip(out, out[1:]):
            if _overlap(r, s):
                t = r if (r.hi - r.lo) >= (s.hi - s.lo) else s
                t.refine((t.hi - t.lo) / 2)
                changed = True
    for r in out:
        r.check()
    return out


# arithmetic in K[B], K = Q[rho]/(q) for an irreducible q: coefficients are fmpq_poly reduced mod q

def _kb_strip(A):
    while A and A[-1].is_zero():
        A.pop()
    return A


def _k_inv(c: fmpq_poly, q: fmpq_poly) -> fmpq_poly:
    g, s, _t = c.xgcd(q)
    if g.degree() != 0:
        raise ArithmeticError("not invertible modulo the factor (the factor is not irreducible)")
    return s * (1 / g[0])


def _kb_rem(A, Bp, q):
    A = list(A)
    inv = _k_inv(Bp[-1], q)
    while len(A) >= len(Bp):
        c = (A[-1] * inv) % q
        sh = len(A) - len(Bp)
        for i, b in enumerate(Bp):
            A[sh + i] = (A[sh + i] - c * b) % q
        A.pop()                       # the leading term cancels exactly
        _kb_strip(A)
    return A


def poly_in_b(P) -> list:
    """``P(rho, B)`` as the list of its coefficients in ``B`` (constant term first), each a
    :class:`flint.fmpq_poly` in ``rho``.

    Parameters
    ----------
    P : sympy.Poly or SymPy expression
        A polynomial in :data:`~symloss.core.model.RHO` and :data:`~symloss.core.model.BSYM` with
        rational coefficients.

    Returns
    -------
    list of flint.fmpq_poly

    Examples
    --------
    >>> from symloss.core.model import BSYM, RHO
    >>> from symloss.meanfield.elimination import poly_in_b
    >>> poly_in_b(BSYM * (1 + RHO) - RHO)
    [(-1)*x, x + 1]
    """
    P = P if isinstance(P, sp.Poly) else sp.Poly(P, RHO, BSYM)
    P = sp.Poly(P.as_expr(), BSYM)
    out = []
    for c in reversed(P.all_coeffs()):
        cr = sp.Poly(c, RHO)
        out.append(fmpq_poly([_fq(Fraction(int(t.p), int(t.q))) for t in reversed(cr.all_coeffs())]))
    return out


def common_factor_mod(Pa, Pb, q) -> dict:
    r"""The monic gcd in ``B`` of ``P_a(rho, B)`` and ``P_b(rho, B)`` over the field
    :math:`K = \mathbb{Q}[\rho]/(q)` (``q`` irreducible), by Euclid's algorithm in exact arithmetic.

    At every root :math:`\rho^*` of ``q`` the common roots in ``B`` of :math:`P_a(\rho^*, \cdot)` and
    :math:`P_b(\rho^*, \cdot)` are exactly the roots of the gcd evaluated at :math:`\rho^*`.

    Parameters
    ----------
    Pa, Pb : list of flint.fmpq_poly
        Coefficients in ``B`` (:func:`poly_in_b`).
    q : flint.fmpz_poly or sequence of int
        An irreducible polynomial in ``rho``.

    Returns
    -------
    dict
        ``gcd`` (list of fmpq_poly, monic, constant term first; ``[1]`` when there is no common
        root), ``degree`` (its degree in ``B``), ``lc_nonzero`` (both leading coefficients in ``B``
        are non-zero modulo ``q``).

    Raises
    ------
    ArithmeticError
        If an eliminant vanishes identically modulo ``q`` or ``q`` is not irreducible.

    Examples
    --------
    >>> from symloss.meanfield.elimination import common_factor_mod, poly_in_b
    >>> from symloss.core.model import BSYM, RHO
    >>> Pa = poly_in_b(BSYM * (1 + RHO) - RHO)
    >>> common_factor_mod(Pa, poly_in_b(BSYM - RHO ** 2), [-2, 0, 1])["degree"]    # 2 != rho/(1 + rho)
    0
    >>> g = common_factor_mod(Pa, poly_in_b(BSYM * (1 + RHO) - RHO ** 3 + RHO), [-2, 0, 1])
    >>> g["degree"], g["gcd"][0]              # rho^2 = 2: the common root B = rho/(1 + rho) = 2 - rho
    (1, x + (-2))
    """
    qq = fmpq_poly(q if isinstance(q, fmpz_poly) else fmpz_poly([int(c) for c in q]))
    A = _kb_strip([c % qq for c in Pa])
    Bp = _kb_strip([c % qq for c in Pb])
    lc_ok = len(A) == len(Pa) and len(Bp) == len(Pb)
    if not A or not Bp:
        raise ArithmeticError("an eliminant vanishes identically on the factor")
    while Bp:
        A, Bp = Bp, _kb_rem(A, Bp, qq)
    inv = _k_inv(A[-1], qq)
    A = [(c * inv) % qq for c in A]
    return {"gcd": A, "degree": len(A) - 1, "lc_nonzero": lc_ok}


def linear_subresultant(P1, P2):
    r"""The member of degree 1 in ``B`` of the subresultant PRS of ``P1(rho, B)`` and ``P2(rho, B)``
    (SymPy ``subresultants``), as ``[h0, h1]`` (:class:`flint.fmpq_poly` in ``rho``): ``h1 B + h0``.

    Every member of the PRS lies in the ideal generated by ``P1`` and ``P2`` over
    :math:`\mathbb{Z}[\rho]`, so at a load :math:`\rho^*` with :math:`h_1(\rho^*) \ne 0` every common
    root in ``B`` of :math:`P_1(\rho^*, \cdot)` and :math:`P_2(\rho^*, \cdot)` equals
    :math:`-h_0(\rho^*)/h_1(\rho^*)`; when the resultant vanishes at :math:`\rho^*` and both leading
    coefficients in ``B`` do not, that common root exists.

    Parameters
    ----------
    P1, P2 : sympy.Poly or SymPy expression
        Polynomials in ``(rho, B)``.

    Returns
    -------
    list of flint.fmpq_poly or None
        ``[h0, h1]``, or ``None`` when the PRS has no member of degree 1.

    Examples
    --------
    >>> from symloss.core.model import BSYM, RHO
    >>> from symloss.meanfield.elimination import linear_subresultant
    >>> linear_subresultant(BSYM ** 2 - RHO, BSYM * (1 + RHO) - RHO)      # (1 + rho) B - rho
    [(-1)*x, x + 1]
    """
    f = sp.Poly(P1.as_expr() if isinstance(P1, sp.Poly) else P1, BSYM)
    g = sp.Poly(P2.as_expr() if isinstance(P2, sp.Poly) else P2, BSYM)
    for S in sp.subresultants(f, g):
        S = sp.Poly(S.as_expr(), BSYM)
        if S.degree() == 1:
            return poly_in_b(S.as_expr())
    return None
