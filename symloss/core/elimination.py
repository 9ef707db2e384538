r"""The generic eliminant of any mean-field model: a polynomial :math:`P(\rho, B)` vanishing at its
blocking, from the model's own polynomial system (lex Groebner basis, :func:`generic_eliminant`), with
the physical factor selected by the certified blocking (:func:`physical_factor`), so an eliminant that
does not belong to the definition is never returned. The degree budgets (``_check_degree``) refuse
an elimination before it starts. The eliminants of the shipped policies (resultants, the Erlang-B
reduction) are in :mod:`symloss.meanfield.elimination`, which re-exports these names.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp

from .definition import BSYM, RHO
from .precision import PrecisionError
from .validation import BudgetError, check_int

__all__ = ["generic_eliminant", "physical_factor", "MAX_GENERIC_WORK"]

_SAMPLE_LOAD = Fraction(3, 2)

#: Default ``max_degree`` of :func:`generic_eliminant`, bounding its work index: the Bezout number of the
#: polynomial system in the state variables (and ``B``) times ``4^(n - 2)`` for ``n`` state variables (the
#: Groebner basis grows with both). Measured (user model ``hybrid`` of the tests): index 64 in 1.4 s
#: (n = 2) and 8.3 s (n = 3); 216, 512 and 1024 did not end in a minute.
MAX_GENERIC_WORK = 100


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
        ``4^(n - 2)`` for ``n >= 2`` state variables) exceeds it (default ``MAX_GENERIC_WORK``).

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
