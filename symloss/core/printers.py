r"""Printers of SymPy expressions for the evaluators: :func:`numpy_lambdify` (SymPy's NumPy printer;
``Heaviside(x, 1)`` as ``numpy.heaviside``), :class:`ArbPrinter` and :func:`arb_lambdify` (rationals as
exact ``arb`` balls, ``exp``/``log``/``sqrt`` as ball functions), :class:`NumbaPrinter` and
:func:`numba_statements` (straight-line float64 code for generated numba kernels).

As in SymPy's ``MpmathPrinter``, the printers do not set precision: the caller does
(:func:`symloss.core.precision.flint_prec`). Split out of :mod:`symloss.core.codegen` (which re-exports
every name).
"""
from __future__ import annotations

import numpy as np
import sympy as sp
from flint import arb, fmpq
from sympy.printing.pycode import PythonCodePrinter

from ._docfragments import CORE_DOCS
from .definition import ModelDefinitionError
from .docstrings import fill_doc

# --------------------------------------------------------------------------------------------------
# printers
# --------------------------------------------------------------------------------------------------

class ArbPrinter(PythonCodePrinter):
    """Prints SymPy expressions as Python code on python-flint ``arb`` balls.

    Parameters
    ----------
    settings : dict, optional
        SymPy printer settings.
    """

    def _print_Integer(self, expr):
        return f"_Z({int(expr)})"

    def _print_Rational(self, expr):
        return f"_Q({int(expr.p)}, {int(expr.q)})"

    def _print_Half(self, expr):
        return "_Q(1, 2)"

    def _print_Float(self, expr):
        m, e = float(expr).as_integer_ratio()
        return f"_Q({m}, {e})"

    def _print_Pow(self, expr, rational=False):
        b, e = expr.as_base_exp()
        if e == sp.Rational(1, 2):
            return f"_sqrt({self._print(b)})"
        if e.is_Integer:
            return f"({self._print(b)})**{int(e)}"
        return f"({self._print(b)})**({self._print(e)})"

    def _print_exp(self, expr):
        """``exp`` and ``log`` as the ball functions ``_exp`` and ``_log`` of the namespace."""
        return f"_{type(expr).__name__}({self._print(expr.args[0])})"

    _print_log = _print_exp

    def _print_Exp1(self, expr):
        return "_exp(_Z(1))"

    def _print_Pi(self, expr):
        return "_pi()"

    def _print_Heaviside(self, expr):  # pragma: no cover - rejected before printing
        raise ModelDefinitionError("Heaviside rates are not differentiable: no ball evaluation")

    _print_Max = _print_Min = _print_Heaviside

    def _print_Function(self, expr):
        """A smooth function of :data:`ARB_FUNCTIONS` as the arb method of that name; any other
        function is refused with its name (never printed as ``math.f``, which fails on balls)."""
        name = type(expr).__name__
        if name in ARB_FUNCTIONS and len(expr.args) == 1:
            return f"_fn_{name}({self._print(expr.args[0])})"
        raise ModelDefinitionError(f"the function {name}(...) (in {expr}) has no ball (arb) evaluation; "
                                   f"smooth rates may use {', '.join(sorted(ARB_FUNCTIONS))}, exp, log, sqrt "
                                   f"and powers")


#: smooth one-argument SymPy functions evaluated on arb balls (the python-flint method of the same name)
ARB_FUNCTIONS = ("sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh",
                 "atanh", "erf", "erfc", "gamma", "loggamma")
_ARB_METHOD = {"loggamma": "lgamma"}
for _name in ARB_FUNCTIONS:
    setattr(ArbPrinter, f"_print_{_name}", ArbPrinter._print_Function)


def _arb_q(p, q):
    return arb(fmpq(p, q))


def straight_line_residual(terms, rows, n_rows: int):
    """A straight-line function ``fn(z, c) -> (values, magnitudes)`` of a sparse system, generated
    once: term ``t`` is ``c[t] * prod z[j]^a`` over its ``(j, a)`` pairs in ``terms[t]`` (``a`` an
    int, or an ``fmpq`` evaluated as ``exp(a log z_j)``) and belongs to row ``rows[t]``; a row's
    magnitude is the sum of the absolute values of its terms. Every power is computed once; each row
    is one flat tuple summed (no deeply nested expression for long rows).

    Parameters
    ----------
    terms : list of list of (int, int or flint.fmpq)
        The ``(variable index, exponent)`` pairs of each term.
    rows : list of int
        The row of each term.
    n_rows : int
        The number of rows.

    Returns
    -------
    callable
        ``fn(z, c)``: ``z`` the variables (balls), ``c`` the coefficient of each term; returns the row
        values and magnitudes (two lists of length ``n_rows``).

    Examples
    --------
    >>> from flint import arb
    >>> fn = straight_line_residual([[(0, 2)], [(1, 1)]], [0, 0], 1)
    >>> vals, mags = fn([arb(3), arb(-1)], [arb(1), arb(1)])
    >>> vals[0].mid(), mags[0].mid()
    (8.00000000000000, 10.0000000000000)
    """
    powers: dict = {}
    lines = ["def _residual(z, c):"]
    for e in terms:
        for j, a in e:
            if (j, a) not in powers:
                name = f"p{len(powers)}"
                powers[(j, a)] = name
                if isinstance(a, int):
                    lines.append(f"    {name} = z[{j}] if {a} == 1 else z[{j}] ** {a}")
                else:
                    lines.append(f"    {name} = (z[{j}].log() * _Q({int(a.p)}, {int(a.q)})).exp()")
    by_row: dict = {}
    for t, e in enumerate(terms):
        factors = [f"c[{t}]"] + [powers[(j, a)] for j, a in e]
        lines.append(f"    t{t} = {' * '.join(factors)}")
        by_row.setdefault(int(rows[t]), []).append(f"t{t}")
    lines.append("    vals = []")
    lines.append("    mags = []")
    for i in range(n_rows):
        ts = by_row.get(i, ["_zero"])
        lines.append(f"    row = ({', '.join(ts)},)")
        lines.append("    vals.append(sum(row, _zero))")
        lines.append("    mags.append(sum(map(abs, row), _zero))")
    lines.append("    return vals, mags")
    ns = {"_Q": _arb_q, "_zero": arb(0)}
    exec(compile("\n".join(lines), "<symloss residual>", "exec"), ns)
    return ns["_residual"]


def straight_line_log_terms(terms, rows, n_vars: int, sel, *, jacobian: bool = True):
    r"""A straight-line function ``fn(z, c)`` of a sparse system in log variables, generated once:
    term ``t`` is ``c[t] * exp(sum_j a_j z_j)`` over its ``(j, a)`` pairs in ``terms[t]`` and belongs to
    row ``rows[t]``; ``z`` holds ``n_vars`` log variables and then the log load.

    The function returns ``(values, entries, d_dr)`` of the rows ``sel`` in that order: ``entries``
    the derivatives in the log variables at the positions ``(k, j)`` listed, in the same order, by the
    second item of the returned pair (``k`` the place of the row in ``sel``), ``d_dr`` the derivatives
    in the log load; with ``jacobian=False`` only the values (a list).

    The balls are those of the term-by-term loop (the same operations in the same order: every exponent
    form summed in the order of its pairs, each row and each derivative summed in the order of its
    terms); each distinct exponent vector is exponentiated once, and the interpreter's loops and
    lookups are gone (RetrialOfD(5, 4), 57 terms: values 2x, values and Jacobian 1.5x faster than the loop).

    Parameters
    ----------
    terms : list of list of (int, int or flint.fmpq)
        The ``(variable index, exponent)`` pairs of each term (index ``n_vars``: the log load).
    rows : list of int
        The row of each term.
    n_vars : int
        The number of log variables.
    sel : list of int
        The rows whose values (and derivatives) are returned, in that order.
    jacobian : bool
        Also return the derivatives.

    Returns
    -------
    tuple or callable
        ``(fn, positions)``; with ``jacobian=False`` the function ``fn(z, c) -> values`` only.

    Examples
    --------
    >>> from flint import arb
    >>> fn, pos = straight_line_log_terms([[(0, 2)], [(1, 1)]], [0, 0], 1, sel=[0])
    >>> vals, entries, dr = fn([arb(0), arb(0)], [arb(1), arb(3)])
    >>> pos, vals[0].mid(), entries[0].mid(), dr[0].mid()
    ([(0, 0)], 4.00000000000000, 2.00000000000000, 3.00000000000000)
    """
    consts: dict = {}

    def const(a):
        # the exponents as constants of the namespace (an fmpq has no literal); one name per value
        key = (type(a).__name__, str(a))
        if key not in consts:
            consts[key] = (f"_a{len(consts)}", a)
        return consts[key][0]

    def total(items):
        # left to right from the first item, as the loop's running sum (0 + x is x exactly); a long
        # sum as ``sum(tuple)``: no deeply nested expression for the compiler
        if not items:
            return "_zero"
        return " + ".join(items) if len(items) <= 16 else f"sum(({', '.join(items)},), _zero)"

    lines = ["def _log_terms(z, c):"]
    mons: dict = {}
    want = [int(i) for i in sel]
    wanted = set(want)
    vals: dict = {}
    ent: dict = {}
    drs: dict = {}
    for t, e in enumerate(terms):
        i = int(rows[t])
        if i not in wanted:
            continue
        key = tuple(e)
        if key not in mons:
            mons[key] = f"m{len(mons)}"
            form = total([f"z[{j}] * {const(a)}" for j, a in e]) if e else None
            lines.append(f"    {mons[key]} = ({form}).exp()" if e else f"    {mons[key]} = _one")
        lines.append(f"    t{t} = c[{t}] * {mons[key]}")
        vals.setdefault(i, []).append(f"t{t}")
        if jacobian:
            for j, a in e:
                (drs.setdefault(i, []) if j >= n_vars else ent.setdefault((i, j), [])).append(f"t{t} * {const(a)}")
    ns = {"_one": arb(1), "_zero": arb(0)}
    ns.update(dict(consts.values()))
    if not jacobian:
        lines.append(f"    return [{', '.join(total(vals.get(i, [])) for i in want)}]")
        exec(compile("\n".join(lines), "<symloss log terms>", "exec"), ns)
        return ns["_log_terms"]
    place = {i: k for k, i in enumerate(want)}
    positions = [(place[i], j) for (i, j) in ent]
    lines.append(f"    vals = [{', '.join(total(vals.get(i, [])) for i in want)}]")
    lines.append(f"    entries = [{', '.join(total(v) for v in ent.values())}]")
    lines.append(f"    dr = [{', '.join(total(drs.get(i, [])) for i in want)}]")
    lines.append("    return vals, entries, dr")
    exec(compile("\n".join(lines), "<symloss log terms>", "exec"), ns)
    return ns["_log_terms"], positions


_ARB_NS = {"_Z": arb, "_Q": _arb_q, "_exp": lambda x: x.exp(), "_log": lambda x: x.log(),
           "_sqrt": lambda x: x.sqrt(), "_pi": arb.pi}
_ARB_NS.update({f"_fn_{_n}": (lambda m: (lambda x: getattr(arb(x), m)()))(_ARB_METHOD.get(_n, _n))
                for _n in ARB_FUNCTIONS})


@fill_doc(CORE_DOCS)
def arb_lambdify(args, expr):
    """``sympy.lambdify`` to python-flint ``arb`` (exact rational constants).

    {{parameters_lambdify}}

    Returns
    -------
    callable
        Takes ``arb`` balls for ``args`` and returns a ball, or (nested) lists of balls for a list
        or matrix ``expr``.

    Examples
    --------
    >>> import sympy as sp
    >>> from flint import arb
    >>> from symloss.core.codegen import arb_lambdify
    >>> x = sp.Symbol("x")
    >>> arb_lambdify([x], x ** 2 / 3)(arb(2))        # 1/3 is an exact ball, not a float
    [1.33333333333333 +/- 3.49e-15]
    """
    if isinstance(expr, sp.MatrixBase):
        expr = expr.tolist()                 # nested lists of balls (no SymPy matrix of balls)
    return sp.lambdify(args, expr, modules=[_ARB_NS], printer=ArbPrinter)


@fill_doc(CORE_DOCS)
def numpy_lambdify(args, expr):
    """``sympy.lambdify`` to numpy; ``Heaviside(x, H0)`` becomes ``numpy.heaviside(x, H0)`` (the
    default printer's piecewise form fails on arrays).

    {{parameters_lambdify}}

    Returns
    -------
    callable
        Takes floats or numpy arrays for ``args`` and returns the value(s) of ``expr``, elementwise
        on arrays.

    Examples
    --------
    >>> import numpy as np, sympy as sp
    >>> from symloss.core.codegen import numpy_lambdify
    >>> x = sp.Symbol("x")
    >>> numpy_lambdify([x], sp.Heaviside(x - 1, 1))(np.array([0.0, 1.0, 2.0])).tolist()
    [0.0, 1.0, 1.0]
    """
    ns = {"Heaviside": lambda x, h0=0.5: np.heaviside(x, h0)}
    return sp.lambdify(args, expr, modules=[ns, "numpy"])


# --------------------------------------------------------------------------------------------------
# numba: straight-line float64 code for expressions (used by generated kernels)
# --------------------------------------------------------------------------------------------------

class NumbaPrinter(PythonCodePrinter):
    """Prints SymPy expressions as float64 Python code that numba compiles well: numbers as float
    literals, small integer powers as products, ``Heaviside(x, h0)`` as a conditional expression,
    functions from ``math``.

    Parameters
    ----------
    settings : dict, optional
        SymPy printer settings.
    """

    def _print_Integer(self, expr):
        return repr(float(int(expr)))

    def _print_Rational(self, expr):
        return repr(float(expr.p) / float(expr.q))

    _print_Half = _print_Rational

    def _print_Float(self, expr):
        return repr(float(expr))

    def _print_Pow(self, expr, rational=False):
        b, e = expr.as_base_exp()
        base = self._print(b)
        if e.is_Integer:
            k = int(e)
            if k == 0:
                return "1.0"
            if 1 <= abs(k) <= 8:
                prod = "*".join([f"({base})"] * abs(k))
                return f"({prod})" if k > 0 else f"(1.0/({prod}))"
            return f"(({base})**{float(k)!r})"
        if e == sp.Rational(1, 2):
            return f"math.sqrt({base})"
        return f"(({base})**({self._print(e)}))"

    def _print_Heaviside(self, expr):
        h0 = expr.args[1] if len(expr.args) > 1 else sp.Rational(1, 2)
        a = self._print(expr.args[0])
        return f"(1.0 if ({a}) > 0.0 else ({self._print(h0)} if ({a}) == 0.0 else 0.0))"

    def _print_Max(self, expr):
        return "max(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Min(self, expr):
        return "min(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Symbol(self, expr):
        return self._names[expr] if expr in getattr(self, "_names", {}) else super()._print_Symbol(expr)


def numba_statements(exprs, names: dict, targets: list, *, indent: str = "", prefix: str = "_t") -> list:
    """Straight-line code computing ``targets[i] = exprs[i]`` (common subexpressions eliminated).

    Parameters
    ----------
    exprs : sequence of sympy.Expr
        The expressions.
    names : dict
        Maps the free symbols of ``exprs`` to the local variable names of the generated code.
    targets : list of str
        The variable assigned each expression.
    indent : str
        Prefix of every line.
    prefix : str
        Prefix of the temporaries.

    Returns
    -------
    list of str
        The lines.

    Raises
    ------
    ModelDefinitionError
        If an expression has a symbol that ``names`` does not map.

    Examples
    --------
    >>> import sympy as sp
    >>> from symloss.core.codegen import numba_statements
    >>> x, y = sp.symbols("x y")
    >>> numba_statements([x**2 + 1, (x**2 + 1) * y], {x: "c0", y: "c1"}, ["r0", "r1"])
    ['_t0 = ((c0)*(c0)) + 1.0', 'r0 = _t0', 'r1 = _t0*c1']
    """
    exprs = [sp.sympify(e) for e in exprs]
    extra = set().union(*(e.free_symbols for e in exprs)) - set(names) if exprs else set()
    if extra:
        raise ModelDefinitionError(f"numba code generation: unknown symbols {sorted(map(str, extra))}")
    repl, reduced = sp.cse(exprs, symbols=sp.numbered_symbols(prefix), optimizations="basic")
    printer = NumbaPrinter({"standard": "python3"})
    printer._names = dict(names)
    lines = []
    for sym, e in repl:
        printer._names[sym] = str(sym)
        lines.append(f"{indent}{sym} = {printer.doprint(e)}")
    for t, e in zip(targets, reduced):
        lines.append(f"{indent}{t} = {printer.doprint(e)}")
    return lines
