r"""Closed forms by elimination: polynomials :math:`P(\rho, B)` vanishing at the mean-field blocking.

Every polynomial here is computed from the model's own stationary equations, or from a reduction
whose assumptions are first checked on the definition (the retrial Erlang-B reduction applies only
when the definition is the shipped retrial system, see :mod:`symloss.meanfield.accelerators`); the
physical factor is then selected by the certified blocking at a sample load, so an eliminant that
does not belong to the definition is never returned (a :class:`~symloss.PrecisionError` is raised).
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp

from ..core.model import BSYM, RHO
from ..core.precision import PrecisionError
from ..core.validation import BudgetError, check_int

__all__ = ["generic_eliminant", "retrial_eliminant", "retrial_relation_in_a", "power_polynomial_in_s",
           "power_eliminant", "physical_factor", "MAX_ELIMINANT_DEGREE", "MAX_RELATION_DEGREE",
           "MAX_GENERIC_WORK"]

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
