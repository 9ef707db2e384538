r"""The checked definition of a mean-field model and its drift, derived from ``transitions()``,
``blocking_expr()`` and ``invariants()`` (functions of the model; :class:`~symloss.core.model.MeanFieldModel`
calls them and caches the results per definition).

* :func:`check_transitions`, :func:`check_blocking`, :func:`check_invariants` (with
  :func:`parameter_subs`): what the :class:`~symloss.core.definition_key.DefinitionKey` is made of;
* :func:`drift_poly` (the drift as sparse Laurent polynomials, linear in the number of transitions),
  :func:`drift_matrix` (the SymPy drift), :func:`poly_residual` (a generated ball evaluator of the
  rows) and :func:`drift_residual` (the max-norm of the drift at a state, mpmath).
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp
from flint import fmpq

from ._docfragments import CORE_DOCS
from .definition import (
    RHO,
    ModelDefinitionError,
    _nonzeros,
    exact_expr,
    exact_value,
    laurent_dict,
    poly_to_expr,
    unknown_symbols_message,
)
from .docstrings import fill_doc
from .piecewise import _REFUSED as _REFUSED_FUNCTIONS
from .piecewise import check_piecewise_smooth, is_nonsmooth
from .printers import straight_line_residual

__all__ = [
    "check_blocking",
    "check_invariants",
    "check_transitions",
    "drift_matrix",
    "drift_poly",
    "drift_residual",
    "parameter_subs",
    "poly_residual",
]


def parameter_subs(model) -> dict:
    """The substitution of the bound parameters: ``{symbol: exact value}`` from ``model.parameter_values``.

    Parameters
    ----------
    model : MeanFieldModel
        Its ``parameter_values`` are read.

    Returns
    -------
    dict

    Raises
    ------
    ModelDefinitionError
        If a key is not a symbol or a symbol name, or a value is not exact.
    """
    pv = model.parameter_values
    if not pv:
        return {}
    out = {}
    for k, v in pv.items():
        sym = sp.Symbol(k) if isinstance(k, str) else k
        if not isinstance(sym, sp.Symbol):
            raise ModelDefinitionError(f"parameter_values: key {k!r} is not a symbol or a symbol name")
        out[sym] = exact_value(v, f"parameter_values[{k!r}]")
    return out


def check_transitions(model) -> list:
    r"""The checked transitions ``[(jump, rate)]``: integer, non-zero jump columns of the right length, exact
    rates in the state and :math:`\rho` only (parameter values substituted).

    Parameters
    ----------
    model : MeanFieldModel
        Its ``transitions()`` are checked, against its ``variables`` (after substituting its
        ``parameter_values``).

    Returns
    -------
    list of (sympy.Matrix, sympy.Expr)
        Each jump as a SymPy column, each rate exact with the parameter values substituted.

    Raises
    ------
    ModelDefinitionError
        If a transition breaks one of these rules (the message names the transition), or a rate is not
        piecewise smooth in a way the solvers handle (a ``Piecewise`` without a default branch,
        ``floor``/``ceiling``/``Mod``, an ``Eq`` condition, a nested switch:
        :func:`symloss.core.piecewise.check_piecewise_smooth`).
    """
    trs = model.transitions()
    n = len(model.variables)
    if n == 0:
        raise ModelDefinitionError(f"{type(model).__name__}: no state variables (set model.variables)")
    if not isinstance(trs, (list, tuple)) or not trs:
        raise ModelDefinitionError(f"{type(model).__name__}.transitions() must return a non-empty list of "
                                   f"(jump, rate), got {type(trs).__name__}")
    allowed = set(model.variables) | {RHO}
    subs = model._parameter_subs()
    out = []
    for i, item in enumerate(trs):
        try:
            jump, rate = item
        except (TypeError, ValueError):
            raise ModelDefinitionError(f"transition {i}: expected (jump, rate), got {item!r}") from None
        jump = jump if isinstance(jump, sp.MatrixBase) else sp.Matrix(jump)
        if jump.shape != (n, 1):
            raise ModelDefinitionError(f"transition {i}: jump must be a column of length {n} "
                                       f"(the variables {model.variables}), got shape {jump.shape}")
        nz = _nonzeros(jump)
        bad = [(model.variables[j], e) for j, e in nz if not sp.sympify(e).is_Integer]
        if bad:
            raise ModelDefinitionError(f"transition {i}: jump entries must be integers, got {bad[0][1]!r} for "
                                       f"{bad[0][0]} (jump {list(jump)}); a jump is a change of counts")
        if not nz:
            raise ModelDefinitionError(f"transition {i}: the jump is zero")
        rate = exact_expr(sp.sympify(rate), f"transition {i}: rate")
        if subs:
            rate = rate.subs(subs)
        extra = rate.free_symbols - allowed
        if extra:
            raise ModelDefinitionError(f"transition {i}: rate {rate} " + unknown_symbols_message(extra, allowed))
        if is_nonsmooth(rate) or rate.has(*_REFUSED_FUNCTIONS):
            check_piecewise_smooth(rate, model.variables, f"transition {i}: rate {rate}")
        out.append((jump, rate))
    return out


def check_blocking(model) -> sp.Expr:
    r"""The checked blocking expression: exact, in the state and :math:`\rho` only (parameter values
    substituted).

    Parameters
    ----------
    model : MeanFieldModel
        Its ``blocking_expr()`` is checked, with its parameter values substituted.

    Returns
    -------
    sympy.Expr
        The blocking, exact, with the parameter values substituted.

    Raises
    ------
    ModelDefinitionError
        If it has another symbol.
    """
    B = exact_expr(sp.sympify(model.blocking_expr()), "blocking_expr")
    subs = model._parameter_subs()
    if subs:
        B = B.subs(subs)
    extra = B.free_symbols - set(model.variables) - {RHO}
    if extra:
        raise ModelDefinitionError("blocking_expr " + unknown_symbols_message(extra, set(model.variables) | {RHO}))
    if is_nonsmooth(B) or B.has(*_REFUSED_FUNCTIONS):
        check_piecewise_smooth(B, model.variables, f"blocking_expr {B}")
    return B


def check_invariants(model, transitions) -> list:
    """The checked invariants ``[(coefficient list, value)]``: linear forms of the state with rational
    coefficients, each conserved by every jump.

    Parameters
    ----------
    model : MeanFieldModel
        Its ``invariants()`` are checked.
    transitions : list
        The checked transitions (:func:`check_transitions`).

    Returns
    -------
    list of (list, sympy.Rational)

    Raises
    ------
    ModelDefinitionError
        If an invariant is not linear, involves no variable or is changed by a jump.
    """
    out = []
    V = list(model.variables)
    index = {v: j for j, v in enumerate(V)}
    for e in model.invariants():
        if not isinstance(e, sp.Equality):
            raise ModelDefinitionError(f"invariants() must return sympy.Eq(linear form, value), got {e!r}")
        lhs = sp.expand(exact_expr(e.lhs - e.rhs, f"invariant {e}"))
        coeffs = lhs.as_coefficients_dict()
        c = [sp.Integer(0)] * len(V)
        value = sp.Integer(0)
        for mono, coef in coeffs.items():
            if not sp.sympify(coef).is_Rational:
                raise ModelDefinitionError(f"invariant {e} does not have rational coefficients")
            if mono == 1:
                value = -coef
            elif mono in index:
                c[index[mono]] += coef
            else:
                raise ModelDefinitionError(f"invariant {e} is not linear in the state variables")
        if all(ci == 0 for ci in c):
            raise ModelDefinitionError(f"invariant {e} involves no state variable")
        for i, (jump, _rate) in enumerate(transitions):
            if sum(c[j] * v for j, v in _nonzeros(jump)) != 0:
                raise ModelDefinitionError(f"invariant {e} is changed by transition {i} (jump {list(jump)})")
        out.append((c, value))
    return out


@fill_doc(CORE_DOCS)
def drift_poly(model):
    """The drift as sparse Laurent polynomials (one dict per row: monomial key -> exact Fraction),
    built from the transitions without expanding the drift as a SymPy expression (linear in the
    number of transitions: C = 10^4 has 2 10^4 of them); ``None`` when a rate is not a Laurent
    polynomial in the state and rho with rational coefficients. A monomial key is the tuple of
    ``(index, exponent)`` pairs, index ``n`` standing for rho.

    {{parameters_checked_transitions}}

    Returns
    -------
    list of dict or None
        One dict per drift row (monomial key -> ``Fraction``), or ``None`` (a rate is not a
        Laurent polynomial).
    """
    V = list(model.variables)
    syms = V + [RHO]
    n = len(V)
    rows = [dict() for _ in range(n)]
    cache: dict = {}
    index = {s_: i for i, s_ in enumerate(syms)}
    for jump, rate in model._checked_transitions:
        terms = cache.get(rate)
        if terms is None:
            terms = laurent_dict(rate, syms, index)
            if terms is None:
                return None
            cache[rate] = terms
        for i, v in _nonzeros(jump):
            row = rows[i]
            v = int(v)
            for key, c in terms.items():
                val = row.get(key, 0) + v * c
                if val:
                    row[key] = val
                else:
                    row.pop(key, None)
    return rows


def poly_residual(model):
    """``(fn, coefs)``: a straight-line function ``fn(z, c) -> (values, magnitudes)`` of the drift
    rows generated from ``_drift_poly`` (``z`` the state balls and rho, ``c`` the coefficient
    balls, ``coefs`` their exact ``fmpq`` values; a row's magnitude is the sum of the absolute
    values of its terms), or ``None`` when the drift is not a sparse polynomial or has more than
    ``2 10^4`` terms (the generated code then costs more to compile than a loop costs to run: 1.5 s
    more at C = 10^4 for power-of-d, measured).

    Parameters
    ----------
    model : MeanFieldModel
        Its sparse drift (``model._drift_poly``) is compiled.

    Returns
    -------
    tuple or None
        ``(fn, coefs)``, or ``None`` (no sparse polynomial drift, or too many terms).
    """
    poly = model._drift_poly
    if poly is None or sum(len(r) for r in poly) > 20_000:
        return None

    terms, rows, coefs = [], [], []
    for i, row in enumerate(poly):
        for key, cf in row.items():
            terms.append([(j, int(e)) for j, e in key])
            rows.append(i)
            coefs.append(fmpq(cf.numerator, cf.denominator))
    return straight_line_residual(terms, rows, len(poly)), coefs


@fill_doc(CORE_DOCS)
def drift_matrix(model):
    r"""The drift :math:`f(x) = \sum_\ell \ell\,\beta_\ell(x)` as an expanded SymPy column (from the
    sparse polynomials when the rates are Laurent polynomials).

    {{parameters_checked_transitions}}

    Returns
    -------
    sympy.Matrix
        The ``n x 1`` drift, each entry expanded.
    """
    n = len(model.variables)
    poly = model._drift_poly
    if poly is not None:
        syms = list(model.variables) + [RHO]
        return sp.Matrix(n, 1, [poly_to_expr(row, syms) for row in poly])
    f = [sp.Integer(0)] * n
    for jump, rate in model._checked_transitions:
        for i, v in _nonzeros(jump):
            f[i] = f[i] + v * rate
    return sp.Matrix(n, 1, [sp.expand(e) for e in f])


@fill_doc(CORE_DOCS)
def drift_residual(model, x, rho):
    """Max-norm of the drift at ``x`` (mpmath, current precision); what
    :meth:`MeanFieldModel.drift_residual <symloss.core.model.MeanFieldModel.drift_residual>` returns.

    Parameters
    ----------
    model : MeanFieldModel
        Its drift is evaluated.
    {{x_rho_state}}

    Returns
    -------
    mpmath.mpf
        The largest absolute component of the drift at ``(x, rho)``.
    """
    poly = model._drift_poly
    if poly is None:
        vals = model._mp_drift(*x, rho)
        return max(abs(v) for v in vals)
    z = [mpmath.mpf(v) for v in x] + [mpmath.mpf(rho) if not isinstance(rho, Fraction) else
                                      mpmath.mpf(rho.numerator) / rho.denominator]
    worst = mpmath.mpf(0)
    for row in poly:
        acc = mpmath.mpf(0)
        for key, c in row.items():
            t = mpmath.mpf(c.numerator) / c.denominator
            for j, e in key:
                t *= z[j] ** e
            acc += t
        worst = max(worst, abs(acc))
    return worst
