r"""Closed forms by elimination: polynomials :math:`P(\rho, B)` vanishing at the mean-field blocking.

The generic eliminant (:func:`generic_eliminant`, :func:`physical_factor`) is in
:mod:`symloss.core.elimination` and the exact real-root tools (:func:`isolate_real_roots`,
:class:`RealRoot`, ...) in :mod:`symloss.core.polyroots`; both are re-exported here. Every polynomial here is computed from the model's own stationary equations, or from a reduction
whose assumptions are first checked on the definition (the retrial Erlang-B reduction applies only
when the definition is the shipped retrial system, see :mod:`symloss.meanfield.accelerators`); the
physical factor is then selected by the certified blocking at a sample load, so an eliminant that
does not belong to the definition is never returned (a :class:`~symloss.PrecisionError` is raised).
"""
from __future__ import annotations

import sympy as sp

from ..core.definition import BSYM, RHO
from ..core.docstrings import fill_doc
from ..core.elimination import MAX_GENERIC_WORK, _bezout_of_rows, _check_degree, generic_eliminant, physical_factor  # noqa: F401
from ..core.polyroots import (  # noqa: F401
    RealRoot,
    common_factor_mod,
    integer_poly,
    isolate_real_roots,
    linear_subresultant,
    poly_in_b,
    sturm_count,
)
from ..core.registry import registered_accelerators
from ._docfragments import MEANFIELD_DOCS

__all__ = ["generic_eliminant", "retrial_eliminant", "retrial_relation_in_a", "power_polynomial_in_s",
           "power_eliminant", "physical_factor", "MAX_ELIMINANT_DEGREE", "MAX_RELATION_DEGREE",
           "MAX_GENERIC_WORK", "RealRoot", "isolate_real_roots", "sturm_count", "integer_poly", "poly_in_b",
           "common_factor_mod", "linear_subresultant"]

#: Default ``max_degree`` of the eliminants: the predicted degree (the Bezout number of the rows
#: eliminated, ``d^C`` for power-of-d; ``C (d - 1) + 1`` for the retrial reduction) above which the
#: elimination is refused before it starts. Measured on this project's 2-core machine: degree 27-36 in
#: about 1 s, 41 in 9-10 s, 49-64 in 2-70 s (power-of-d (6, 2): 69 s), 100 in 12 s to minutes.
MAX_ELIMINANT_DEGREE = 48
#: Default ``max_degree`` of the relation in the per-server load ``a`` (retrial): degree
#: ``C (d - 1) + 1``, measured 0.4-2.6 s for degree 31-61.
MAX_RELATION_DEGREE = 128


#: the name of the accelerator whose reduction :func:`retrial_eliminant` uses (``RETRIAL`` of
#: :mod:`symloss.meanfield.accelerators`)
_RETRIAL_REDUCTION = "Erlang-B reduction"


def _retrial_reduction_applies(model) -> bool:
    """Whether the Erlang-B reduction applies to this definition (``RETRIAL.applies``). The accelerator
    is found in the registry, not imported: :mod:`symloss.meanfield.models` imports this module and
    :mod:`symloss.meanfield.accelerators` imports the models (an import cycle otherwise)."""
    for acc in registered_accelerators().values():
        if getattr(acc, "name", None) == _RETRIAL_REDUCTION:
            return acc.applies(model)[0]
    return False  # pragma: no cover - symloss.meanfield registers the accelerators on import


@fill_doc(MEANFIELD_DOCS)
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
        index of :func:`generic_eliminant`, default ``MAX_GENERIC_WORK``).

    {{returns_physical_factor}}

    {{raises_retrial_eliminant}}

    Examples
    --------
    >>> from symloss import RetrialOfD
    >>> from symloss.meanfield.elimination import retrial_eliminant
    >>> model = RetrialOfD(1, 2)
    >>> P = retrial_eliminant(model)
    >>> P
    Poly(rho**2*B**2 - 2*rho**2*B + rho**2 - B, rho, B, domain='ZZ')
    >>> rho, B = P.gens
    >>> abs(P.as_expr().subs({rho: 1, B: model.blocking(1)})) < 1e-12     # it vanishes at the blocking
    True
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


@fill_doc(MEANFIELD_DOCS)
def retrial_relation_in_a(model, *, max_degree: int | None = None) -> sp.Poly:
    r"""The polynomial relation between rho and the per-server load ``a`` (retrial reduction).

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
        In ``a``, coefficients in ``rho``: the numerator of :math:`\rho (1 + E + \dots + E^{d-1}) - a`,
        ``E = E(C, a)``, with a positive leading coefficient.

    {{raises_relation_in_a}}

    Examples
    --------
    >>> from symloss import RHO, RetrialOfD
    >>> from symloss.meanfield.elimination import retrial_relation_in_a
    >>> P = retrial_relation_in_a(RetrialOfD(2, 2))
    >>> P
    Poly(a**3 + (2 - 2*rho)*a**2 + (2 - 2*rho)*a - 2*rho, a, domain='ZZ[rho]')
    >>> P.as_expr().subs(RHO, 1)          # at rho = 1 the load of a non-full server is 2^(1/3)
    a**3 - 2
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


@fill_doc(MEANFIELD_DOCS)
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
        In ``(s, rho)``: the last resultant, which vanishes at ``s = u_C`` of every stationary point.

    {{raises_power_elimination}}

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


@fill_doc(MEANFIELD_DOCS)
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

    {{returns_physical_factor}}

    {{raises_power_eliminant}}

    Examples
    --------
    >>> from symloss import PowerOfD, RetrialOfD
    >>> from symloss.meanfield.elimination import power_eliminant, retrial_eliminant
    >>> power_eliminant(PowerOfD(1, 2)) == retrial_eliminant(RetrialOfD(1, 2))  # C = 1: the same system
    True
    >>> power_eliminant(PowerOfD(2, 2)).degree_list()      # degrees in rho and B at C = d = 2
    (6, 4)
    """
    s = sp.Symbol("s", positive=True)
    P = power_polynomial_in_s(model, max_degree=max_degree)
    Bs = model._blocking.subs(model.variables[-1], s)
    if Bs.free_symbols - {s, RHO}:
        return generic_eliminant(model, max_degree=max_degree)
    r = sp.resultant(P.as_expr(), sp.numer(sp.together(BSYM - Bs)), s)
    return physical_factor(sp.Poly(r, RHO, BSYM), model)
