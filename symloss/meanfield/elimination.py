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

__all__ = ["generic_eliminant", "retrial_eliminant", "retrial_relation_in_a", "power_polynomial_in_s",
           "power_eliminant", "physical_factor"]

_SAMPLE_LOAD = Fraction(3, 2)


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


def generic_eliminant(model, *, max_variables: int = 6) -> sp.Poly:
    r"""Eliminate the state from ``model.polynomial_system()`` (lex Groebner basis, ``B`` and
    :math:`\rho` last) and return the physical factor of the polynomial in :math:`(\rho, B)`.

    Parameters
    ----------
    model : MeanFieldModel
        Any model whose stationary equations are polynomial.
    max_variables : int
        Refuse models with more state variables (the Groebner basis grows fast).

    Returns
    -------
    sympy.Poly
        In ``(rho, B)``.

    Raises
    ------
    ValueError
        If the model has more than ``max_variables`` variables or the elimination leaves no
        polynomial in ``(rho, B)``.
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
    G = sp.groebner(polys, *V, RHO, BSYM, order="lex")
    cands = [g for g in G.exprs if not (g.free_symbols & set(V)) and g.has(BSYM)]
    if not cands:
        raise ValueError("elimination left no polynomial in (rho, B) only")
    P = min(cands, key=lambda g: sp.Poly(g, RHO, BSYM).total_degree())
    return physical_factor(sp.Poly(P, RHO, BSYM), model)


def _retrial_reduction_applies(model) -> bool:
    from .accelerators import RETRIAL
    return RETRIAL.applies(model)[0]


def retrial_eliminant(model) -> sp.Poly:
    """``p = E(C, a)``, ``rho (1 - p^d) = a (1 - p)``, ``B = p^d``: eliminate ``a`` and ``p``
    (resultants), when the Erlang-B reduction applies to the definition; else
    :func:`generic_eliminant`.

    Parameters
    ----------
    model : RetrialOfD
        The model.

    Returns
    -------
    sympy.Poly
        The physical factor, in ``(rho, B)``.

    Raises
    ------
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
        return generic_eliminant(model)
    a, p = sp.symbols("a p", positive=True)
    C, d = model.C, model.d
    S = sum(a ** k / sp.factorial(k) for k in range(C + 1))
    e1 = sp.expand((p * S - a ** C / sp.factorial(C)) * sp.factorial(C))
    e2 = sp.expand(sp.cancel(RHO * (1 - p ** d) / (1 - p)) - a)
    r1 = sp.resultant(e1, e2, a)
    r2 = sp.resultant(r1, BSYM - p ** d, p)
    return physical_factor(sp.Poly(r2, RHO, BSYM), model)


def retrial_relation_in_a(model) -> sp.Poly:
    """The polynomial relation between rho and the per-server load ``a`` (retrial reduction).

    Parameters
    ----------
    model : RetrialOfD
        The model (the Erlang-B reduction must apply to it).

    Returns
    -------
    sympy.Poly
        In ``a``, coefficients in ``rho``.

    Raises
    ------
    ValueError
        If the definition is not the retrial system of the reduction.

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
    S = sum(a ** k / sp.factorial(k) for k in range(C + 1))
    expr = sp.expand(sp.together(RHO * sum((a ** C / sp.factorial(C) / S) ** j for j in range(d)) - a))
    num = sp.Poly(sp.numer(sp.together(expr)), a)
    return -num if num.LC().could_extract_minus_sign() else num


def power_polynomial_in_s(model) -> sp.Poly:
    """Eliminate ``u_1..u_{C-1}`` from the model's own stationary equations (drift rows, last
    variable renamed ``s``) by successive resultants.

    Parameters
    ----------
    model : MeanFieldModel
        A model with a tail state (power-of-d or an edit of it).

    Returns
    -------
    sympy.Poly
        In ``(s, rho)``.

    Raises
    ------
    ValueError
        If the elimination does not end in one polynomial.

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.meanfield.elimination import power_polynomial_in_s
    >>> power_polynomial_in_s(PowerOfD(2, 2))
    Poly(s**4*rho**4 + 2*s**3*rho**3 - 2*s**2*rho**4 - 2*s*rho**3 - 2*s*rho + rho**4, s, rho, domain='ZZ')
    """
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


def power_eliminant(model) -> sp.Poly:
    """The polynomial in ``s = u_C`` combined with the blocking ``B = B(s)`` by a resultant
    (:func:`generic_eliminant` when the blocking depends on other variables).

    Parameters
    ----------
    model : MeanFieldModel
        A model with a tail state.

    Returns
    -------
    sympy.Poly
        The physical factor, in ``(rho, B)``.

    Raises
    ------
    ValueError
        If the elimination does not end in one polynomial.
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
    P = power_polynomial_in_s(model)
    Bs = model._blocking.subs(model.variables[-1], s)
    if Bs.free_symbols - {s, RHO}:
        return generic_eliminant(model)
    r = sp.resultant(P.as_expr(), sp.numer(sp.together(BSYM - Bs)), s)
    return physical_factor(sp.Poly(r, RHO, BSYM), model)
