r"""The vocabulary of a mean-field definition, below every solver of :mod:`symloss.core`.

The load symbol :data:`RHO`, the blocking unknown :data:`BSYM`, :class:`ModelDefinitionError`, exact
values and expressions (:func:`exact_value`, :func:`exact_expr`), sparse Laurent polynomials
(:func:`laurent_dict`, :func:`poly_to_expr`), the conserved linear forms of a set of jumps
(``_sparse_nullspace``) and :func:`is_model`. :mod:`symloss.core.model` (the definition contract,
``MeanFieldModel``) and the solvers it calls (:mod:`~symloss.core.codegen`, :mod:`~symloss.core.certify`,
:mod:`~symloss.core.convergence`, :mod:`~symloss.core.series`, :mod:`~symloss.core.elimination`) import
these from here, so that ``model`` can import the solvers at module level without an import cycle;
:mod:`symloss.core.model` re-exports every name.
"""
from __future__ import annotations

import heapq
from fractions import Fraction

import sympy as sp

from .registry import FAMILIES

__all__ = ["RHO", "BSYM", "ModelDefinitionError", "exact_value", "exact_expr", "laurent_dict", "poly_to_expr",
           "unknown_symbols_message", "is_model"]

#: the load per server, :math:`\rho = \lambda/\mu` (service rate ``mu = 1``)
RHO = sp.Symbol("rho", positive=True)
#: the blocking probability, as an unknown of the polynomial system
BSYM = sp.Symbol("B", positive=True)


def laurent_dict(expr, symbols, idx=None):
    """``expr`` as a sparse Laurent polynomial ``{((index, exponent), ...): Fraction}`` in the
    ``symbols`` (rational coefficients, integer exponents), or ``None``.

    Parameters
    ----------
    expr : sympy.Expr
        The expression.
    symbols : sequence of sympy.Symbol
        The variables of the polynomial.
    idx : dict, optional
        Symbol -> index (default: the positions in ``symbols``).

    Returns
    -------
    dict or None
        ``None`` when ``expr`` is not a Laurent polynomial with rational coefficients.
    """
    expr = sp.sympify(expr)
    if any(isinstance(t, sp.Mul) and any(isinstance(a, sp.Add) for a in t.args) or
           isinstance(t, sp.Pow) and isinstance(t.base, sp.Add) for t in sp.Add.make_args(expr)):
        expr = sp.expand(expr)
    if idx is None:
        idx = {s_: i for i, s_ in enumerate(symbols)}
    out: dict = {}
    for term in sp.Add.make_args(expr):
        if term == 0:
            continue
        coeff, rest = term.as_coeff_Mul()
        if not coeff.is_Rational:
            if coeff.is_Float:
                coeff = sp.Rational(coeff)       # the exact binary value written, never a guess
            else:
                return None
        mono: dict = {}
        for base, e in rest.as_powers_dict().items():
            if base == 1:
                continue
            if base.is_Rational and e.is_Integer:
                coeff = coeff * base ** e
                continue
            if base not in idx or not e.is_Integer:
                return None
            j = idx[base]
            mono[j] = mono.get(j, 0) + int(e)
        key = tuple(sorted((j, e) for j, e in mono.items() if e != 0))
        c = Fraction(int(sp.Rational(coeff).p), int(sp.Rational(coeff).q))
        val = out.get(key, 0) + c
        if val:
            out[key] = val
        else:
            out.pop(key, None)
    return out


def poly_to_expr(poly: dict, symbols) -> sp.Expr:
    """A sparse Laurent polynomial of :func:`laurent_dict` as a SymPy expression.

    Parameters
    ----------
    poly : dict
        ``{((index, exponent), ...): Fraction}``.
    symbols : sequence of sympy.Symbol
        The variables, by index.

    Returns
    -------
    sympy.Expr
    """
    terms = []
    for key, c in poly.items():
        t = sp.Rational(c.numerator, c.denominator)
        for j, e in key:
            t = t * symbols[j] ** e
        terms.append(t)
    return sp.Add(*terms)


def _sparse_nullspace(rows, n: int) -> list:
    """A basis of ``{c : c . r = 0 for every row r}`` (rows as ``((index, value), ...)``), by sparse
    elimination over the rationals to row echelon form (each new row reduced by the pivot rows in
    increasing column order, its smallest column the new pivot), then back substitution per free
    column. The basis is the reduced one (1 at its free column, 0 at the other free columns), so it
    does not depend on the order of the rows. Near linear in the number of jumps for the chain-like
    jumps of load-balancing models (the earlier Gauss-Jordan pass touched every pivot row for each
    new row: quadratic, 30 s at C = 3 10^4)."""
    pivots: dict = {}                     # pivot column -> row (dict col -> Fraction, pivot entry 1, others > col)
    for r in rows:
        row = {i: Fraction(v) for i, v in r if v}
        heap = list(row)
        heapq.heapify(heap)
        pivot = None
        while heap:
            col = heapq.heappop(heap)
            f = row.get(col)
            if not f:
                continue
            pr = pivots.get(col)
            if pr is None:
                pivot = col
                break
            for j, v in pr.items():
                w = row.get(j, 0) - f * v
                if w:
                    if j not in row:
                        heapq.heappush(heap, j)
                    row[j] = w
                else:
                    row.pop(j, None)
        if pivot is None:
            continue
        f = row[pivot]
        pivots[pivot] = {j: v / f for j, v in row.items()}
    free = [j for j in range(n) if j not in pivots]
    order = sorted(pivots, reverse=True)
    basis = []
    for fcol in free:
        vec = [Fraction(0)] * n
        vec[fcol] = Fraction(1)
        for pc in order:
            acc = Fraction(0)
            for j, v in pivots[pc].items():
                if j != pc and vec[j]:
                    acc -= v * vec[j]
            vec[pc] = acc
        basis.append(vec)
    return basis


def _nonzeros(jump) -> list:
    """``[(index, value)]`` of the non-zero entries of a jump column (dense or sparse)."""
    if isinstance(jump, sp.SparseMatrix) or hasattr(jump, "todok"):
        return sorted((i, v) for (i, _j), v in jump.todok().items() if v != 0)
    return [(i, v) for i, v in enumerate(jump) if v != 0]


class ModelDefinitionError(ValueError):
    """A model definition is inconsistent (a jump that is not an integer column of the right
    length, an invariant that a jump changes, a rate in unknown symbols, ...)."""


def exact_value(v, where: str):
    """A number the user wrote, exactly: ints, Fractions and SymPy numbers as they are, a float as its
    exact binary value (``0.1`` is 3602879701896397/2^55, never guessed as 1/10); refuses a value that
    is not a finite real number, naming ``where``.

    Parameters
    ----------
    v : number
        The value.
    where : str
        The place it was written (used in the error).

    Returns
    -------
    sympy.Expr
        An exact SymPy number (or expression without floats).

    Raises
    ------
    ModelDefinitionError
        If ``v`` is not a finite real number or an exact SymPy expression.
    """
    if isinstance(v, bool):
        raise ModelDefinitionError(f"{where}: {v!r} is a bool, not a number")
    if isinstance(v, Fraction):
        return sp.Rational(v.numerator, v.denominator)
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise ModelDefinitionError(f"{where}: {v!r} is not a finite number")
        return sp.Rational(v)
    try:
        e = sp.sympify(v, strict=True)
    except (sp.SympifyError, TypeError):
        raise ModelDefinitionError(f"{where}: {v!r} ({type(v).__name__}) is not a number") from None
    return exact_expr(e, where)


def exact_expr(expr, where: str):
    """``expr`` with every SymPy ``Float`` replaced by its exact binary value (the number the user
    wrote, as the machine holds it); refuses ``nan`` and infinities, naming ``where``.

    Parameters
    ----------
    expr : sympy.Expr
        An expression.
    where : str
        The place it was written (used in the error).

    Returns
    -------
    sympy.Expr
        ``expr`` with exact rationals in place of its floats (``expr`` itself when it has none or
        is not a SymPy object).

    Raises
    ------
    ModelDefinitionError
        If ``expr`` holds a non-finite number.
    """
    if not isinstance(expr, sp.Basic):
        return expr
    if expr.has(sp.nan, sp.oo, -sp.oo, sp.zoo):
        raise ModelDefinitionError(f"{where}: {expr} holds a non-finite number")
    floats = expr.atoms(sp.Float)
    if not floats:
        return expr
    return expr.xreplace({f: sp.Rational(f) for f in floats})


def _assumptions(sym) -> str:
    a = {k: v for k, v in sym.assumptions0.items() if k in ("positive", "nonnegative", "integer", "real")
         and v is not None}
    return ", ".join(f"{k}={v}" for k, v in sorted(a.items())) or "no assumptions"


def unknown_symbols_message(extra, allowed) -> str:
    """The end of an error about symbols a definition does not know: each unknown symbol is named; one
    that has the *name* of an allowed symbol but other SymPy assumptions (SymPy treats them as
    different symbols) is told apart, with both sets of assumptions; free parameters are pointed to
    the keyword that binds them (``define_model(..., parameters={...})`` or the class attribute
    ``parameter_values``).

    Parameters
    ----------
    extra : set of sympy.Symbol
        The unknown symbols.
    allowed : set of sympy.Symbol
        The symbols the expression may use.

    Returns
    -------
    str
    """
    by_name = {str(a): a for a in allowed}
    parts, free = [], []
    for e in sorted(extra, key=str):
        twin = by_name.get(str(e))
        if twin is not None:
            parts.append(f"'{e}' ({_assumptions(e)}), which is not the model's '{twin}' ({_assumptions(twin)}): "
                         f"SymPy symbols with the same name and other assumptions are different symbols; use the "
                         f"model's own symbol" + (" (symloss.RHO)" if twin == RHO else
                                                  " (model.variables / model.count_symbols())"))
        else:
            free.append(str(e))
    if free:
        parts.append(f"{free}, which are neither the symbols {sorted(map(str, allowed))} nor bound parameters: bind a "
                     f"parameter to an exact value with define_model(..., parameters={{symbol: value}}) or the class "
                     f"attribute parameter_values")
    return "uses " + "; and ".join(parts)


def is_model(obj) -> bool:
    """Whether ``obj`` is a mean-field model (an instance of the base type that
    :mod:`symloss.core.model` declares for the ``"meanfield"`` family of :mod:`symloss.core.registry`),
    decided without importing :mod:`symloss.core.model` (which imports the solvers that ask).

    Parameters
    ----------
    obj : object
        Anything.

    Returns
    -------
    bool
        ``True`` for a :class:`~symloss.MeanFieldModel` (``False`` when no model class is loaded).

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.core.definition import is_model
    >>> is_model(PowerOfD(2, 2)), is_model("PowerOfD(2, 2)")
    (True, False)
    """
    base = FAMILIES.get("meanfield")
    return base is not None and isinstance(obj, base)
