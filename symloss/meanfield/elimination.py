r"""Closed forms by elimination: polynomials :math:`P(\rho, B)` vanishing at the mean-field blocking.

Every polynomial here is computed from the model's own stationary equations, or from a reduction
whose assumptions are first checked on the definition (the retrial Erlang-B reduction applies only
when the definition is the shipped retrial system, see :mod:`symloss.meanfield.accelerators`); the
physical factor is then selected by the certified blocking at a sample load, so an eliminant that
does not belong to the definition is never returned (a :class:`~symloss.PrecisionError` is raised).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath
import sympy as sp
from flint import fmpq, fmpq_poly, fmpz_poly

from ..core.model import BSYM, RHO
from ..core.polyroots import primitive as _primitive, sign_variations, sturm_sequence as _sturm
from ..core.precision import PrecisionError
from ..core.validation import BudgetError, check_int

__all__ = ["generic_eliminant", "retrial_eliminant", "retrial_relation_in_a", "power_polynomial_in_s",
           "power_eliminant", "physical_factor", "MAX_ELIMINANT_DEGREE", "MAX_RELATION_DEGREE",
           "MAX_GENERIC_WORK", "RealRoot", "isolate_real_roots", "sturm_count", "integer_poly", "poly_in_b",
           "common_factor_mod", "linear_subresultant"]

_SAMPLE_LOAD = Fraction(3, 2)

#: Default ``max_degree`` of the eliminants: the predicted degree (the Bezout number of the rows
#: eliminated, ``d^C`` for power-of-d; ``C (d - 1) + 1`` for the retrial reduction) above which the
#: elimination is refused before it starts. Measured on this project's 2-core machine: degree 27-36 in
#: about 1 s, 41 in 9-10 s, 49-64 in 2-70 s (power-of-d (6, 2): 69 s), 100 in 12 s to minutes.
MAX_ELIMINANT_DEGREE = 48
#: Default ``max_degree`` of :func:`generic_eliminant`, bounding its work index: the Bezout number of the
#: polynomial system in the state variables (and ``B``) times ``4^(n - 2)`` for ``n`` state variables (the
#: Groebner basis grows with both). Measured (user model ``hybrid`` of the tests): index 64 in 1.4 s
#: (n = 2) and 8.3 s (n = 3); 216, 512 and 1024 did not end in a minute.
MAX_GENERIC_WORK = 100
#: Default ``max_degree`` of the relation in the per-server load ``a`` (retrial): degree
#: ``C (d - 1) + 1``, measured 0.4-2.6 s for degree 31-61.
MAX_RELATION_DEGREE = 128


def _fmt_degree(D: int) -> str:
    return str(D) if D < 10 ** 12 else f"about 10^{len(str(D)) - 1}"


_MEASURED = "measured: degree 41 in ~10 s, 61-64 in 8-70 s"


def _check_degree(predicted: int, max_degree, default: int, what: str, model, formula: str,
                  measured: str = _MEASURED) -> None:
    """Refuse (before any work) an elimination whose predicted degree exceeds ``max_degree``
    (``default`` when ``None``)."""
    max_degree = default if max_degree is None else check_int(max_degree, "max_degree", min_value=1,
                                                             max_value=10 ** 9)
    if predicted > max_degree:
        raise BudgetError(f"{what} of {model!r}: predicted degree {_fmt_degree(predicted)} ({formula}) exceeds "
                          f"max_degree={max_degree}; the symbolic elimination grows steeply with the degree "
                          f"({measured}); pass a larger max_degree to try")


def _bezout_of_rows(model) -> int:
    """Product over the drift rows of their total degree in the state variables (from the sparse
    drift, no expansion): the Bezout bound on the number of solutions of the system eliminated."""
    poly = model._drift_poly
    n = len(model.variables)
    if poly is None:
        V = list(model.variables)
        out = 1
        for e in model.drift():
            if e != 0:
                out *= max(1, sp.Poly(e, *V).total_degree())
        return out
    out = 1
    for row in poly:
        if row:
            out *= max(1, max(sum(e for j, e in key if j < n) for key in row))
    return out


def physical_factor(P: sp.Poly, model) -> sp.Poly:
    """The irreducible factor of ``P(rho, B)`` that vanishes at the certified blocking of ``model`` at
    the sample load ``rho = 3/2`` (checked to 40 digits).

    Parameters
    ----------
    P : sympy.Poly
        A polynomial in :data:`~symloss.core.model.RHO` and ``B`` vanishing at the model's blocking.
    model : MeanFieldModel
        The model whose certified blocking selects the factor.

    Returns
    -------
    sympy.Poly
        The factor, in ``(rho, B)``.

    Raises
    ------
    PrecisionError
        If no factor vanishes at the certified blocking (the polynomial does not belong to the
        definition).

    Examples
    --------
    >>> import sympy as sp
    >>> from symloss import RandomRouting
    >>> from symloss.core.model import BSYM, RHO
    >>> from symloss.meanfield.elimination import physical_factor
    >>> P = sp.Poly((BSYM * (1 + RHO) - RHO) * (BSYM - 2), RHO, BSYM)   # E(1, rho) = rho/(1 + rho)
    >>> physical_factor(P, RandomRouting(1))
    Poly(rho*B - rho + B, rho, B, domain='ZZ')
    """
    facs = sp.factor_list(P.as_expr())[1]
    B = model.blocking(_SAMPLE_LOAD, dps=40)
    best, val = None, None
    with mpmath.workdps(60):
        for f, _m in facs:
            if not f.has(BSYM):
                continue
            v = abs(sp.lambdify((RHO, BSYM), f, "mpmath")(mpmath.mpf(3) / 2, B))
            scale = max(abs(c) for c in sp.Poly(f, RHO, BSYM).coeffs())
            v = v / mpmath.mpf(int(scale)) if scale != 0 else v
            if val is None or v < val:
                best, val = f, v
        if best is None or val > mpmath.mpf(10) ** -25:
            raise PrecisionError("no factor of the eliminant vanishes at the certified blocking")
    return sp.Poly(best, RHO, BSYM)


def generic_eliminant(model, *, max_variables: int = 6, max_degree: int | None = None) -> sp.Poly:
    r"""Eliminate the state from ``model.polynomial_system()`` (lex Groebner basis, ``B`` and
    :math:`\rho` last) and return the physical factor of the polynomial in :math:`(\rho, B)`.

    Parameters
    ----------
    model : MeanFieldModel
        Any model whose stationary equations are polynomial.
    max_variables : int
        Refuse models with more state variables (the Groebner basis grows fast).
    max_degree : int
        Refuse, before the Groebner basis is started, systems whose work index (the Bezout number,
        product of the total degrees of the polynomial system in the state variables, times
        ``4^(n - 2)`` for ``n >= 2`` state variables) exceeds it (default :data:`MAX_GENERIC_WORK`).

    Returns
    -------
    sympy.Poly
        In ``(rho, B)``.

    Raises
    ------
    ValueError
        If the model has more than ``max_variables`` variables or the elimination leaves no
        polynomial in ``(rho, B)``.
    BudgetError
        If the work index exceeds ``max_degree`` (a ``ValueError``).
    PrecisionError
        If no factor vanishes at the certified blocking.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> from symloss.meanfield.elimination import generic_eliminant
    >>> generic_eliminant(RandomRouting(2))          # B = E(2, rho) = rho^2 / (2 + 2 rho + rho^2)
    Poly(rho**2*B - rho**2 + 2*rho*B + 2*B, rho, B, domain='ZZ')
    """
    V = list(model.variables)
    if len(V) > max_variables:
        raise ValueError(f"generic elimination is limited to {max_variables} state variables "
                         f"(this model has {len(V)}); pass max_variables to try more")
    polys = model.polynomial_system()
    bez = 1
    for p_ in polys:
        deg = sp.Poly(p_, *V).total_degree() if p_.free_symbols & set(V) else 0
        bez *= max(1, deg)
    work = bez * 4 ** max(0, len(V) - 2)
    _check_degree(work, max_degree, MAX_GENERIC_WORK, "the generic eliminant", model,
                  f"work index: Bezout number {bez} of the polynomial system times 4^(n - 2), n = {len(V)}",
                  "measured: index 64 in 1.4-8.3 s; 216 and more did not end in a minute")
    G = sp.groebner(polys, *V, RHO, BSYM, order="lex")
    cands = [g for g in G.exprs if not (g.free_symbols & set(V)) and g.has(BSYM)]
    if not cands:
        raise ValueError("elimination left no polynomial in (rho, B) only")
    P = min(cands, key=lambda g: sp.Poly(g, RHO, BSYM).total_degree())
    return physical_factor(sp.Poly(P, RHO, BSYM), model)


def _retrial_reduction_applies(model) -> bool:
    from .accelerators import RETRIAL
    return RETRIAL.applies(model)[0]


def retrial_eliminant(model, *, max_degree: int | None = None) -> sp.Poly:
    """``p = E(C, a)``, ``rho (1 - p^d) = a (1 - p)``, ``B = p^d``: eliminate ``a`` and ``p``
    (resultants), when the Erlang-B reduction applies to the definition; else
    :func:`generic_eliminant`.

    Parameters
    ----------
    model : RetrialOfD
        The model.
    max_degree : int
        Refuse, before any work, when the predicted degree ``C (d - 1) + 1`` of the resultant in
        ``p`` exceeds it (default :data:`MAX_ELIMINANT_DEGREE`; for an edited definition, the work
        index of :func:`generic_eliminant`, default :data:`MAX_GENERIC_WORK`).

    Returns
    -------
    sympy.Poly
        The physical factor, in ``(rho, B)``.

    Raises
    ------
    BudgetError
        If the predicted degree exceeds ``max_degree`` (a ``ValueError``).
    PrecisionError
        If no factor vanishes at the certified blocking.

    Examples
    --------
    >>> from symloss import RetrialOfD
    >>> from symloss.meanfield.elimination import retrial_eliminant
    >>> retrial_eliminant(RetrialOfD(1, 2))
    Poly(rho**2*B**2 - 2*rho**2*B + rho**2 - B, rho, B, domain='ZZ')
    """
    if not _retrial_reduction_applies(model):
        return generic_eliminant(model, max_degree=max_degree)
    C, d = model.C, model.d
    _check_degree(C * (d - 1) + 1, max_degree, MAX_ELIMINANT_DEGREE, "the retrial eliminant", model,
                  "C (d - 1) + 1")
    a, p = sp.symbols("a p", positive=True)
    S = sum(a ** k / sp.factorial(k) for k in range(C + 1))
    e1 = sp.expand((p * S - a ** C / sp.factorial(C)) * sp.factorial(C))
    e2 = sp.expand(sp.cancel(RHO * (1 - p ** d) / (1 - p)) - a)
    r1 = sp.resultant(e1, e2, a)
    r2 = sp.resultant(r1, BSYM - p ** d, p)
    return physical_factor(sp.Poly(r2, RHO, BSYM), model)


def retrial_relation_in_a(model, *, max_degree: int | None = None) -> sp.Poly:
    """The polynomial relation between rho and the per-server load ``a`` (retrial reduction).

    Parameters
    ----------
    model : RetrialOfD
        The model (the Erlang-B reduction must apply to it).
    max_degree : int
        Refuse, before any work, when the degree ``C (d - 1) + 1`` in ``a`` exceeds it (default
        :data:`MAX_RELATION_DEGREE`).

    Returns
    -------
    sympy.Poly
        In ``a``, coefficients in ``rho``.

    Raises
    ------
    ValueError
        If the definition is not the retrial system of the reduction.
    BudgetError
        If the degree exceeds ``max_degree`` (a ``ValueError``).

    Examples
    --------
    >>> from symloss import RetrialOfD
    >>> from symloss.meanfield.elimination import retrial_relation_in_a
    >>> retrial_relation_in_a(RetrialOfD(2, 2))
    Poly(a**3 + (2 - 2*rho)*a**2 + (2 - 2*rho)*a - 2*rho, a, domain='ZZ[rho]')
    """
    if not _retrial_reduction_applies(model):
        raise ValueError(f"{model!r}: the definition is not the retrial system of the Erlang-B reduction, "
                         "so there is no relation in the per-server load a")
    a = sp.Symbol("a", positive=True)
    C, d = model.C, model.d
    _check_degree(C * (d - 1) + 1, max_degree, MAX_RELATION_DEGREE, "the relation in a", model,
                  "C (d - 1) + 1",
                  "measured: degree 61 in 2.6 s, 129 in 7 s")
    S = sum(a ** k / sp.factorial(k) for k in range(C + 1))
    expr = sp.expand(sp.together(RHO * sum((a ** C / sp.factorial(C) / S) ** j for j in range(d)) - a))
    num = sp.Poly(sp.numer(sp.together(expr)), a)
    return -num if num.LC().could_extract_minus_sign() else num


def power_polynomial_in_s(model, *, max_degree: int | None = None) -> sp.Poly:
    """Eliminate ``u_1..u_{C-1}`` from the model's own stationary equations (drift rows, last
    variable renamed ``s``) by successive resultants.

    Parameters
    ----------
    model : MeanFieldModel
        A model with a tail state (power-of-d or an edit of it).
    max_degree : int
        Refuse, before any work, when the Bezout number of the drift rows (``d^C`` for power-of-d)
        exceeds it (default :data:`MAX_ELIMINANT_DEGREE`).

    Returns
    -------
    sympy.Poly
        In ``(s, rho)``.

    Raises
    ------
    ValueError
        If the elimination does not end in one polynomial.
    BudgetError
        If the Bezout number exceeds ``max_degree`` (a ``ValueError``).

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.meanfield.elimination import power_polynomial_in_s
    >>> power_polynomial_in_s(PowerOfD(2, 2))
    Poly(s**4*rho**4 + 2*s**3*rho**3 - 2*s**2*rho**4 - 2*s*rho**3 - 2*s*rho + rho**4, s, rho, domain='ZZ')
    """
    _check_degree(_bezout_of_rows(model), max_degree, MAX_ELIMINANT_DEGREE, "the polynomial in s = u_C", model,
                  "Bezout number of the drift rows, d^C for power-of-d")
    V = list(model.variables)
    C = len(V)
    s = sp.Symbol("s", positive=True)
    vs = list(sp.symbols(f"v1:{C}", positive=True))
    sub = dict(zip(V, vs + [s]))
    cur = [sp.expand(sp.numer(sp.together(e.subs(sub)))) for e in model.drift()]
    cur = [e for e in cur if e != 0]
    for v in reversed(vs):
        with_v = [e for e in cur if e.has(v)]
        without = [e for e in cur if not e.has(v)]
        if not with_v:
            continue
        base = min(with_v, key=lambda e: sp.Poly(e, v).degree())
        new = [sp.factor_terms(sp.resultant(base, e, v)) for e in with_v if e is not base]
        cur = without + [sp.numer(sp.together(n)) for n in new if n != 0]
    cur = [e for e in cur if e != 0]
    if len(cur) != 1:
        raise ValueError(f"elimination did not end in one polynomial (got {len(cur)})")
    return sp.Poly(sp.expand(cur[0]), s, RHO)


def power_eliminant(model, *, max_degree: int | None = None) -> sp.Poly:
    """The polynomial in ``s = u_C`` combined with the blocking ``B = B(s)`` by a resultant
    (:func:`generic_eliminant` when the blocking depends on other variables).

    Parameters
    ----------
    model : MeanFieldModel
        A model with a tail state.
    max_degree : int
        Refuse, before any work, when the Bezout number of the drift rows (``d^C`` for power-of-d)
        exceeds it (default :data:`MAX_ELIMINANT_DEGREE`).

    Returns
    -------
    sympy.Poly
        The physical factor, in ``(rho, B)``.

    Raises
    ------
    ValueError
        If the elimination does not end in one polynomial.
    BudgetError
        If the Bezout number exceeds ``max_degree`` (a ``ValueError``).
    PrecisionError
        If no factor vanishes at the certified blocking.

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.meanfield.elimination import power_eliminant
    >>> power_eliminant(PowerOfD(1, 2))      # at C = 1 power-of-2 is retrial-of-2
    Poly(rho**2*B**2 - 2*rho**2*B + rho**2 - B, rho, B, domain='ZZ')
    """
    s = sp.Symbol("s", positive=True)
    P = power_polynomial_in_s(model, max_degree=max_degree)
    Bs = model._blocking.subs(model.variables[-1], s)
    if Bs.free_symbols - {s, RHO}:
        return generic_eliminant(model, max_degree=max_degree)
    r = sp.resultant(P.as_expr(), sp.numer(sp.together(BSYM - Bs)), s)
    return physical_factor(sp.Poly(r, RHO, BSYM), model)


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
    seq = _sturm(p)
    return _variations(seq, lo) - _variations(seq, hi)


@dataclass
class RealRoot:
    """One real root of an integer polynomial, isolated exactly (:func:`isolate_real_roots`).

    Attributes
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
    return _primitive(fmpz_poly([int(c) for c in reversed(P.all_coeffs())]))


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
        seq = _sturm(f)
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
