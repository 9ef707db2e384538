"""The one exact "same system" check of the fast-path registry (:mod:`symloss.core.registry`, which
re-exports :func:`same_system`): whether two pieces of a definition are the same mathematical object,
decided exactly (SymPy expansion or cancellation of differences, floats by their binary value).
"""
from __future__ import annotations

import numbers
from fractions import Fraction

import sympy as sp

__all__ = ["same_system"]


def _exact_number(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, numbers.Integral):
        return Fraction(int(v))
    if isinstance(v, (Fraction, float)):
        return Fraction(v)                       # a float as its exact binary value
    if isinstance(v, sp.Rational):
        return Fraction(int(v.p), int(v.q))
    return None


def _expr_identical(a, b) -> bool:
    d = a - b              # both sides expanded: like terms combine when the Add is built
    if d == 0:
        return True
    d = sp.expand(d)
    if d == 0:
        return True
    try:
        return sp.cancel(sp.together(d)) == 0
    except (sp.PolynomialError, TypeError, ValueError):
        return False


def same_system(a, b) -> bool:
    """Whether two pieces of a definition are the same mathematical object, decided exactly.

    SymPy expressions are identical when their difference expands (or, for rational functions,
    cancels) to zero; matrices, sequences and mappings compare element by element; numbers compare
    exactly (a float by its binary value, so ``0.1`` is not ``1/10``); objects with a
    ``_definition_key()`` compare by it; anything else by ``==``. A ``False`` answer means "not
    proved identical": the caller uses its generic solver, which is always right.

    Parameters
    ----------
    a, b : object
        Expressions, matrices, numbers, sequences, mappings or definitions.

    Returns
    -------
    bool
        ``True`` only when the identity is proved.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> same_system((x + 1) ** 2, x ** 2 + 2 * x + 1)
    True
    >>> same_system([0.1 * x], [x / 10])           # 0.1 is its binary value, not 1/10
    False
    """
    if a is b:
        return True
    ka, kb = getattr(a, "_definition_key", None), getattr(b, "_definition_key", None)
    if callable(ka) and callable(kb):
        return ka() == kb()
    na, nb = _exact_number(a), _exact_number(b)
    if na is not None or nb is not None:
        if na is not None and nb is not None:
            return na == nb
        if isinstance(a, sp.Basic) or isinstance(b, sp.Basic):
            return _expr_identical(sp.sympify(a), sp.sympify(b)) if not isinstance(a, float) and \
                not isinstance(b, float) else False
        return False
    if isinstance(a, sp.MatrixBase) or isinstance(b, sp.MatrixBase):
        if not (isinstance(a, sp.MatrixBase) and isinstance(b, sp.MatrixBase)) or a.shape != b.shape:
            return False
        return all(same_system(u, v) for u, v in zip(a, b))
    if isinstance(a, sp.Basic) and isinstance(b, sp.Basic):
        if a.has(sp.Float) or b.has(sp.Float):
            a, b = _floats_exact(a), _floats_exact(b)
        return _expr_identical(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_system(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_system(u, v) for u, v in zip(a, b))
    if isinstance(a, sp.Basic) or isinstance(b, sp.Basic):
        return False
    return bool(a == b)


def _floats_exact(e):
    return e.xreplace({f: sp.Rational(*Fraction(float(f)).as_integer_ratio()) for f in e.atoms(sp.Float)})
