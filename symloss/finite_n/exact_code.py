"""Exact rational evaluation of the finite-N definitions (``method="exact"``): SymPy expressions
printed as Python code on python-flint ``fmpq`` rationals, and the exact load.
"""
from __future__ import annotations

import numbers
from fractions import Fraction

import mpmath
import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

from ..core.model import ModelDefinitionError
from ..core.validation import exact_real

__all__ = ["as_exact_rho", "exact_lambdify"]


class _FmpqPrinter(PythonCodePrinter):
    """Prints SymPy expressions as Python code on exact rationals (integers and rationals become
    ``fmpq``; powers with integer exponents stay exact)."""

    def _print_Rational(self, expr):
        return f"_Q({int(expr.p)}, {int(expr.q)})"

    _print_Integer = _print_Half = _print_Rational      # integers and 1/2 are rationals: fmpq(p, q)

    def _print_Pow(self, expr, rational=False):
        b, e = expr.as_base_exp()
        if e.is_Integer:
            return f"({self._print(b)})**({int(e)})"
        raise ModelDefinitionError(f"method='exact' needs rational rates; {expr} is not rational")

    def _print_Heaviside(self, expr):
        h0 = expr.args[1] if len(expr.args) > 1 else sp.Rational(1, 2)
        return f"_H({self._print(expr.args[0])}, {self._print(h0)})"

    def _print_Float(self, expr):
        raise ModelDefinitionError(f"method='exact' needs exact rates; the definition has a float {expr}")

    def _print_Function(self, expr):  # exp, log, sqrt ...
        raise ModelDefinitionError(f"method='exact' needs rational rates; {expr} is not rational")

    _print_exp = _print_log = _print_Function


def _heaviside_exact(x, h0):
    from flint import fmpq
    return fmpq(1) if x > 0 else (fmpq(0) if x < 0 else h0)


def exact_lambdify(args, expr):
    """``sympy.lambdify`` to exact rationals (python-flint ``fmpq``).

    Parameters
    ----------
    args : list of sympy.Symbol
        The arguments of the function.
    expr : sympy.Expr or list of sympy.Expr
        Rational in ``args`` (integer powers, Heaviside); floats and transcendental functions are refused.

    Returns
    -------
    callable
        Evaluates ``expr`` on ``fmpq`` arguments exactly.

    Raises
    ------
    ModelDefinitionError
        If ``expr`` is not rational in ``args``: a float, a power with a non-integer exponent, or a
        function such as ``exp``, ``log`` or ``sqrt``.

    Examples
    --------
    >>> import sympy as sp
    >>> from flint import fmpq
    >>> x = sp.Symbol("x")
    >>> exact_lambdify([x], x ** 2 / 3)(fmpq(1, 2))
    1/12
    """
    from flint import fmpq
    return sp.lambdify(args, expr, modules=[{"_Q": fmpq, "_H": _heaviside_exact}], printer=_FmpqPrinter)


def as_exact_rho(rho):
    """``rho`` as an exact rational (``fmpq``) for ``method="exact"``: int, Fraction, sympy Rational,
    fmpq or a decimal string; floats are refused (their binary value is rarely what is meant).

    Parameters
    ----------
    rho : int, fractions.Fraction, sympy.Rational, flint.fmpq, decimal.Decimal or str
        The load, ``> 0``.

    Returns
    -------
    tuple of (flint.fmpq, fractions.Fraction)
        The load in both forms.

    Raises
    ------
    TypeError
        For a float, a bool or a type that is not an exact rational.
    ValueError
        If ``rho`` is not a rational number in ``(0, inf)``.

    Examples
    --------
    >>> as_exact_rho("1.3")
    (13/10, Fraction(13, 10))
    """
    from flint import fmpq
    if isinstance(rho, bool):
        raise TypeError(f"rho must be an exact rational for method='exact', got {rho!r}")
    if isinstance(rho, (float, mpmath.mpf)) or type(rho).__module__ == "numpy" and not isinstance(rho, numbers.Integral):
        raise TypeError(f"method='exact' needs an exact rational rho (int, fractions.Fraction, sympy Rational, "
                        f"flint fmpq, Decimal or a decimal string such as '1.3'), got {type(rho).__name__} {rho!r}")
    try:
        q = exact_real(rho, "rho", allow_str=True)       # the input layer: exact, names the argument
    except TypeError:
        raise TypeError(f"method='exact' needs an exact rational rho (int, fractions.Fraction, sympy Rational, "
                        f"flint fmpq, Decimal or a decimal string such as '1.3'), got {type(rho).__name__} "
                        f"{rho!r}") from None
    except ValueError:
        raise ValueError(f"rho must be a rational number for method='exact', got {rho!r}") from None
    if not isinstance(q, (int, Fraction)):
        raise TypeError(f"method='exact' needs an exact rational rho, got {type(rho).__name__} {rho!r}")
    q = Fraction(q)
    if q <= 0:
        raise ValueError(f"rho must be a rational number in (0, inf), got {rho!r}")
    return fmpq(q.numerator, q.denominator), q
