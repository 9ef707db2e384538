r"""Which drift rows the invariants replace: elimination with column pivoting, written once.

A square stationary system replaces one drift row per invariant :math:`c_k \cdot x = v_k`. The rows
are chosen so that the invariants' coefficients on the replaced columns form an invertible block, even
when invariants overlap: each invariant is reduced by the earlier pivot rows before its own pivot
column is chosen (a greedy largest-entry choice could take two columns of one group and leave a
dependent pair of drift rows). :func:`pivot_columns` is that elimination; the caller supplies the
entries (exact rationals for the model's static choice, :meth:`MeanFieldModel._replaced_rows
<symloss.core.model.MeanFieldModel>`; the float weights :math:`c_{ki} x_i` at a state for the dynamic
choice, :meth:`symloss.core.codegen.CompiledModel.selection`) and the rule that picks a column.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import sympy as sp

from .definition import ModelDefinitionError

__all__ = ["largest_exact_pivot", "largest_float_pivot", "pivot_columns", "replaced_rows"]


def pivot_columns(rows: Sequence[Sequence], choose: Callable) -> list[int]:
    """Elimination with column pivoting: one pivot column per row, in order.

    Row ``k`` is first reduced by the earlier pivot rows (``row - (row[j] / prow[j]) * prow`` for each
    earlier pivot ``(j, prow)`` with ``row[j] != 0``); then ``choose(reduced_row, used)`` picks its
    pivot column among those not in ``used`` (the earlier pivot columns, in order), or returns
    ``None`` when the reduced row has no admissible entry (the row depends on the earlier ones).

    Parameters
    ----------
    rows : sequence of sequence
        The rows (exact rationals or floats), all of one length.
    choose : callable
        ``choose(row, used) -> int | None``: the pivot column of a reduced row (a list), ``used`` the
        list of the pivot columns chosen so far.

    Returns
    -------
    list of int
        The pivot columns, one per row; shorter than ``rows`` when a row is dependent (its index is
        the length of the list: the elimination stops there).

    Examples
    --------
    >>> from fractions import Fraction
    >>> pivot_columns([[Fraction(1), Fraction(1), Fraction(0)], [Fraction(1), Fraction(1), Fraction(1)]],
    ...               largest_exact_pivot)
    [1, 2]
    >>> pivot_columns([[1, 1], [2, 2]], largest_exact_pivot)
    [1]
    >>> pivot_columns([[1.0, 1.0], [1.0, 3.0]], largest_float_pivot)
    [0, 1]
    """
    pivots: list = []                                 # (column, reduced row)
    for row in rows:
        row = list(row)
        for j, prow in pivots:
            if row[j] != 0:
                f = row[j] / prow[j]
                row = [a - f * b for a, b in zip(row, prow)]
        j = choose(row, [p for p, _ in pivots])
        if j is None:
            break
        pivots.append((j, row))
    return [j for j, _ in pivots]


def largest_exact_pivot(row, used):
    """The pivot of an exact row: its largest ``|entry|`` among the non-zero entries off ``used``, the
    largest index on a tie (with one invariant: its largest coefficient).

    Parameters
    ----------
    row : sequence
        Exact entries (rationals).
    used : collection of int
        Columns already pivots.

    Returns
    -------
    int or None
        The column, or ``None`` when every entry off ``used`` is 0.

    Examples
    --------
    >>> largest_exact_pivot([1, -2, 2], [])
    2
    >>> largest_exact_pivot([0, 1], [1]) is None
    True
    """
    cand = [i for i in range(len(row)) if row[i] != 0 and i not in used]
    return max(cand, key=lambda i: (abs(row[i]), i)) if cand else None


def largest_float_pivot(row, used):
    """The pivot of a float row: its largest ``|entry|`` off ``used`` (the first index on a tie, as
    ``numpy.argmax``), ``None`` when that is not positive.

    Parameters
    ----------
    row : sequence of float
        Float entries (e.g. ``c_i x_i`` at a state).
    used : collection of int
        Columns already pivots.

    Returns
    -------
    int or None
        The column, or ``None`` when no entry off ``used`` is positive in absolute value.

    Examples
    --------
    >>> largest_float_pivot([1.0, -3.0, 3.0], [])
    1
    >>> largest_float_pivot([1.0, 0.0], [0]) is None
    True
    """
    a = np.abs(np.asarray(row, dtype=np.float64))
    for j in used:
        a[j] = -1.0
    j = int(np.argmax(a))
    return None if a[j] <= 0.0 else j


def replaced_rows(model):
    """``{drift row index: invariant index}``: the rows the square system of ``model`` replaces by its
    invariants (the static choice; what ``MeanFieldModel._replaced_rows`` caches).

    Parameters
    ----------
    model : MeanFieldModel
        Its declared invariants and conserved forms are read.

    Returns
    -------
    dict
        Drift row index -> invariant index.

    Raises
    ------
    ModelDefinitionError
        When the drift conserves a form whose value is not declared (the stationary system would be
        singular), or an invariant is a combination of the others.
    """
    n = len(model.variables)
    forms = model.conserved_forms()
    inv = model._invariants
    if len(forms) > len(inv):
        declared = sp.Matrix([c for c, _ in inv]) if inv else sp.zeros(0, n)
        r0 = declared.rank() if inv else 0
        missing = next((f for f in forms if sp.Matrix.vstack(declared, sp.Matrix([f])).rank() > r0), forms[0])
        raise ModelDefinitionError(
            f"{type(model).__name__}: every jump conserves {len(forms)} linear form(s) of the state "
            f"(e.g. {sp.Add(*[ci * v for ci, v in zip(missing, model.variables)])}) but {len(inv)} invariant(s) "
            "are declared; declare their values in invariants() (e.g. Eq(x0 + ... + xC, 1))")
    # one row per invariant, chosen so that the invariants' coefficients on the replaced rows form an
    # invertible matrix (then the dropped drift rows follow from the kept ones through the conserved
    # forms, and the square system is regular): elimination with column pivoting over the rationals,
    # each invariant reduced by the earlier pivots before its pivot is chosen (largest entry, then
    # largest index; with one invariant this is its largest coefficient)
    cols = pivot_columns([[sp.Rational(ci) for ci in c] for c, _val in inv], largest_exact_pivot)
    if len(cols) < len(inv):
        k = len(cols)
        c = inv[k][0]
        raise ModelDefinitionError(
            f"{type(model).__name__}: invariant {k} ({sp.Add(*[ci * v for ci, v in zip(c, model.variables)])}) "
            "is a combination of the other invariants; declare independent invariants")
    replaced = {j: k for k, j in enumerate(cols)}
    # the rows are fixed; pair each with an invariant that involves its variable (a perfect matching
    # exists because the submatrix is invertible), so row j of the square system stays about x_j
    cols = sorted(replaced)

    def match(k, used):
        if k == len(inv):
            return {}
        c = inv[k][0]
        for j in sorted(cols, key=lambda i: (-abs(c[i]), -i)):
            if j not in used and c[j] != 0:
                rest = match(k + 1, used | {j})
                if rest is not None:
                    rest[j] = k
                    return rest
        return None
    paired = match(0, frozenset()) if len(inv) <= 12 else None
    return paired if paired is not None else replaced
