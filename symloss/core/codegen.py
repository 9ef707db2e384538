r"""Code generation: the stationary system of a :class:`~symloss.core.model.MeanFieldModel`, compiled
to numpy (float64) and python-flint ``arb`` evaluators, in logarithmic variables.

Change of variables (derived symbolically, once per definition). The solvers work in
:math:`y_j = \log x_j` and :math:`r = \log\rho`, so that fixed points far below the float range
(power-of-d blocking :math:`10^{-160}` at ``C = 5, d = 3, rho = 0.5``, or :math:`10^{-5.6 \cdot 10^{11}}`
at ``C = 50``) are ordinary numbers. Each drift row ``i`` of the square stationary system is divided
by :math:`x_i` (a positive factor, so the zeros are unchanged): for the birth-death-like rows of
load-balancing models the result is a sum of O(1) terms at the fixed point. Invariant rows
:math:`c \cdot x - v` are kept as they are.

*Terms form.* When every row is a Laurent polynomial in the state and :math:`\rho` with rational
coefficients (every shipped model and most user models), row ``i`` is stored as a table of terms
:math:`c_t \exp(a_t \cdot y + p_t r)`. The float evaluator computes every term as one ``exp`` of a
linear form (no intermediate underflow: a term below the float range is negligible, not a 0/0), and
the Jacobian :math:`\partial G_i/\partial y_j = \sum_t c_t a_{tj} \exp(\cdot)` from the same table. The
``arb`` evaluator computes the same terms in ball arithmetic (any exponent range). *Direct form.*
Other rates (rational functions, ``exp``, ...) are lambdified after the substitution
:math:`x = e^y, \rho = e^r` (SymPy differentiates the substituted rows for the Jacobian).

Printers: ``numpy_lambdify`` (SymPy's NumPy printer; ``Heaviside(x, 1)`` as ``numpy.heaviside``)
and :class:`ArbPrinter` (rationals as exact ``arb`` balls, ``exp``/``log``/``sqrt`` as ball
functions). As in SymPy's ``MpmathPrinter``, the printers do not set precision: the caller does
(:func:`symloss.core.precision.flint_prec`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import sympy as sp
from flint import arb, arb_mat, fmpq
from sympy.printing.pycode import PythonCodePrinter

from .model import RHO, ModelDefinitionError

__all__ = ["CompiledModel", "compile_model", "numpy_lambdify", "arb_lambdify", "ArbPrinter", "laurent_terms",
           "NumbaPrinter", "numba_statements"]


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
        return f"_exp({self._print(expr.args[0])})"

    def _print_log(self, expr):
        return f"_log({self._print(expr.args[0])})"

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
    is one flat tuple summed (no deeply nested expression for long rows)."""
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


_ARB_NS = {"_Z": arb, "_Q": _arb_q, "_exp": lambda x: x.exp(), "_log": lambda x: x.log(),
           "_sqrt": lambda x: x.sqrt(), "_pi": arb.pi}
_ARB_NS.update({f"_fn_{_n}": (lambda m: (lambda x: getattr(arb(x), m)()))(_ARB_METHOD.get(_n, _n))
                for _n in ARB_FUNCTIONS})


def arb_lambdify(args, expr):
    """``sympy.lambdify`` to python-flint ``arb`` (exact rational constants).

    Parameters
    ----------
    args : sequence of sympy.Symbol
        The arguments.
    expr : sympy.Expr or list
        The expression(s).

    Returns
    -------
    callable

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


def numpy_lambdify(args, expr):
    """``sympy.lambdify`` to numpy; ``Heaviside(x, H0)`` becomes ``numpy.heaviside(x, H0)`` (the
    default printer's piecewise form fails on arrays).

    Parameters
    ----------
    args : sequence of sympy.Symbol
        The arguments.
    expr : sympy.Expr or list
        The expression(s).

    Returns
    -------
    callable

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
# terms form
# --------------------------------------------------------------------------------------------------

def laurent_terms(expr, symbols):
    """``expr`` (expanded) as a list of ``(coefficient, exponents)`` with a rational coefficient and
    the non-zero rational exponents as a dict ``{symbol index: exponent}``, or ``None`` when it is not
    such a Laurent polynomial.

    Parameters
    ----------
    expr : sympy.Expr
        The expression.
    symbols : sequence of sympy.Symbol
        The variables (their positions are the indices).

    Returns
    -------
    list of (sympy.Rational, dict) or None

    Examples
    --------
    >>> import sympy as sp
    >>> from symloss.core.codegen import laurent_terms
    >>> x, y = sp.symbols("x y")
    >>> laurent_terms(3 * x**2 / y + 1, [x, y])
    [(1, {}), (3, {0: 2, 1: -1})]
    >>> laurent_terms(sp.exp(x), [x]) is None
    True
    """
    expr = sp.expand(expr)
    out = []
    idx = {s: i for i, s in enumerate(symbols)}
    for term in sp.Add.make_args(expr):
        if term == 0:
            continue
        coeff, rest = term.as_coeff_Mul()
        if not (coeff.is_Rational or coeff.is_Float):
            return None
        exps: dict = {}
        for base, e in rest.as_powers_dict().items():
            if base == 1:
                continue
            if base.is_number:
                if base.is_Rational and e.is_Integer:
                    coeff = coeff * base ** e
                    continue
                return None
            if base not in idx or not e.is_Rational:
                return None
            j = idx[base]
            exps[j] = exps.get(j, sp.Integer(0)) + e
        coeff = sp.nsimplify(coeff) if coeff.is_Float else coeff
        out.append((sp.Rational(coeff), {j: e for j, e in exps.items() if e != 0}))
    return out


@dataclass
class _TermTable:
    """Terms c_t exp(A_t . z) scattered into rows; z = (y_0..y_{n-1}, r)."""
    row: np.ndarray           # (T,) int
    coef_q: list              # (T,) sympy Rational (exact)
    A_q: list                 # (T,) dicts {variable index (n_vars: r): exponent} (sympy Rational)
    n_rows: int
    n_vars: int
    coef: np.ndarray = field(init=False)
    A: np.ndarray = field(init=False)

    def __post_init__(self):
        import scipy.sparse as sps
        T = len(self.A_q)
        self.coef = np.array([float(c) for c in self.coef_q], dtype=np.float64)
        ti = [t for t in range(T) for j in self.A_q[t]]
        tj = [j for t in range(T) for j in self.A_q[t]]
        tv = [float(self.A_q[t][j]) for t in range(T) for j in self.A_q[t]]
        self.A = sps.csr_matrix((tv, (ti, tj)), shape=(T, self.n_vars + 1))
        self.A_r = np.zeros(T)
        for t in range(T):
            if self.n_vars in self.A_q[t]:
                self.A_r[t] = float(self.A_q[t][self.n_vars])
        nz = [(t, j, a) for t, j, a in zip(ti, tj, tv) if j < self.n_vars]
        self.jt = np.array([t for t, _, _ in nz], dtype=np.int64)
        self.jc = np.array([j for _, j, _ in nz], dtype=np.int64)
        self.jr = self.row[self.jt] if nz else np.zeros(0, np.int64)
        self.ja = np.array([a for _, _, a in nz], dtype=np.float64)
        # arb data: exact coefficient balls and integer/rational exponents per term
        self.coef_fmpq = [fmpq(int(c.p), int(c.q)) for c in self.coef_q]
        self._coef_arb_cache: dict = {}
        self.terms_arb = [[(j, int(a) if a.is_Integer else fmpq(int(a.p), int(a.q))) for j, a in sorted(e.items())]
                          for e in self.A_q]

    @property
    def coef_arb(self) -> list:
        """The exact rational coefficients as balls at the current python-flint precision (a
        non-dyadic coefficient such as 1/3 is a ball of radius 2^-prec, so it is rebuilt when the
        precision changes)."""
        from flint import ctx
        prec = ctx.prec
        out = self._coef_arb_cache.get(prec)
        if out is None:
            out = [arb(q) for q in self.coef_fmpq]
            self._coef_arb_cache[prec] = out
        return out

    # float64 ------------------------------------------------------------------------------------
    def exps(self, z):
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            return np.exp(self.A @ z)

    def values(self, z):
        E = self.exps(z)
        with np.errstate(over="ignore", invalid="ignore"):
            return np.bincount(self.row, weights=self.coef * E, minlength=self.n_rows)

    def jacobian(self, z):
        """(n_rows, n_vars + 1): derivatives in y and (last column) r."""
        E = self.exps(z)
        J = np.zeros((self.n_rows, self.n_vars + 1))
        with np.errstate(over="ignore", invalid="ignore"):
            np.add.at(J, (self.jr, self.jc), self.coef[self.jt] * self.ja * E[self.jt])
            J[:, self.n_vars] = np.bincount(self.row, weights=self.coef * self.A_r * E, minlength=self.n_rows)
        return J

    # arb ----------------------------------------------------------------------------------------
    def _monomials(self, z):
        """exp(A_t . z) for each term, as balls (z: list of n_vars + 1 balls)."""
        out = []
        for e in self.terms_arb:
            L = arb(0)
            for j, a in e:
                L += z[j] * a
            out.append(L.exp())
        return out

    def residual_from_x(self, x, rho):
        """``(values, magnitudes)`` per row at the state ``x`` and the load ``rho`` (balls; no logs):
        every term ``c * prod x_j^a_j * rho^p`` by products of powers, ``magnitudes`` the sum of the
        absolute values of a row's terms (what a relative residual is measured against). Runs a
        straight-line function generated once from the term table."""
        if self._residual_fn is None:
            self._residual_fn = self._generate_residual()
        return self._residual_fn(list(x) + [rho], self.coef_arb)

    _residual_fn = None

    def _generate_residual(self):
        return straight_line_residual(self.terms_arb, self.row, self.n_rows)

    def values_arb(self, z):
        M = self._monomials(z)
        coef = self.coef_arb
        vals = [arb(0)] * self.n_rows
        for t, m in enumerate(M):
            i = int(self.row[t])
            vals[i] = vals[i] + coef[t] * m
        return vals

    def jacobian_arb(self, z, rows=None):
        """(values, Jacobian in y as arb_mat, derivative in r as list) of the given rows."""
        M = self._monomials(z)
        n = self.n_vars
        vals = [arb(0)] * self.n_rows
        J = [[arb(0)] * n for _ in range(self.n_rows)]
        dr = [arb(0)] * self.n_rows
        coef = self.coef_arb
        for t, m in enumerate(M):
            i = int(self.row[t])
            cm = coef[t] * m
            vals[i] += cm
            for j, a in self.terms_arb[t]:
                if j < n:
                    J[i][j] += cm * a
                else:
                    dr[i] += cm * a
        rows = range(self.n_rows) if rows is None else rows
        return [vals[i] for i in rows], arb_mat([J[i] for i in rows]), [dr[i] for i in rows]


# --------------------------------------------------------------------------------------------------
# the compiled model
# --------------------------------------------------------------------------------------------------

class CompiledModel:
    r"""The stationary system of a model in log variables, with float and ball evaluators and the
    blocking (see the module docstring).

    All ``n`` drift rows (row ``i`` divided by :math:`x_i`) and the ``m`` invariant rows are compiled
    (rows ``0..n-1`` and ``n..n+m-1``). A square system is a *selection* of ``n`` of them: for each
    invariant one drift row is left out (the sum of the drift rows that the invariant's coefficients
    weight is identically zero, so that row is redundant). :meth:`selection` leaves out, for each
    invariant, the drift row of the largest weighted component of the current state: replacing the
    balance of a bulk component keeps the system well conditioned at every load (replacing the
    balance of a component of size :math:`10^{-15}` would leave that component almost undetermined).

    Parameters
    ----------
    model : MeanFieldModel
        The definition (use :func:`compile_model` or ``model.compiled``, which cache it).

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> comp = RandomRouting(2).compiled
    >>> comp.n, comp.m, comp.mode, comp.selection()     # 3 drift rows + 1 invariant; rows 0, 1, 3
    (3, 1, 'terms', [0, 1, 3])
    """

    def __init__(self, model):
        V = list(model.variables)
        n = len(V)
        self.n = n
        self.variables = tuple(V)
        inv = model._invariants
        self.invariants = [([float(c) for c in cc], float(v)) for cc, v in inv]
        self.m = len(inv)
        inv_rows = [sp.Add(*[ci * v for ci, v in zip(cc, V) if ci != 0], -val) for cc, val in inv]
        self._model_ref = model
        self._inv_rows = inv_rows
        self.n_rows = n + self.m
        replaced = model._replaced_rows
        self.default_selection = [n + replaced[i] if i in replaced else i for i in range(n)]
        syms = V + [RHO]
        poly = model._drift_poly
        if poly is not None:
            # the scaled rows straight from the sparse drift (row i divided by x_i: exponent of i - 1)
            tabs = []
            for i, row in enumerate(poly):
                t = []
                for key, c in row.items():
                    e = dict(key)
                    e[i] = e.get(i, 0) - 1
                    t.append((sp.Rational(c.numerator, c.denominator),
                              {j: sp.Integer(a) for j, a in e.items() if a != 0}))
                tabs.append(t)
            tabs += [laurent_terms(e, syms) for e in inv_rows]
        else:
            tabs = [laurent_terms(e, syms) for e in self.rows_expr]
        B = model._blocking
        btab = laurent_terms(B, syms)
        self.mode = "terms" if all(t is not None for t in tabs) and btab is not None and btab else "direct"
        self.smooth = poly is not None or not any(e.has(sp.Heaviside, sp.Max, sp.Min, sp.Abs, sp.Piecewise)
                                                  for e in list(model._drift) + [B])
        if B.has(sp.Heaviside, sp.Max, sp.Min, sp.Abs, sp.Piecewise):
            self.smooth = False
        if self.mode == "terms":
            row, cq, aq = [], [], []
            for i, t in enumerate(tabs):
                for c, e in t:
                    row.append(i)
                    cq.append(c)
                    aq.append(e)
            self.table = _TermTable(np.array(row, dtype=np.int64), cq, aq, self.n_rows, n)
            brow = np.zeros(len(btab), dtype=np.int64)
            self.btable = _TermTable(brow, [c for c, _ in btab], [e for _, e in btab], 1, n)
            self.blocking_monomial = len(btab) == 1 and btab[0][0] > 0
            self.blocking_positive = all(c > 0 for c, _ in btab)
        else:
            self._direct = None
            if self.smooth:
                scaled = self.rows_expr
                ys = sp.symbols(f"_y0:{n}", real=True)
                rs = sp.Symbol("_r", real=True)
                sub = {V[j]: sp.exp(ys[j]) for j in range(n)}
                sub[RHO] = sp.exp(rs)
                G = [sp.simplify(e.subs(sub)) for e in scaled]
                Jy = [[sp.diff(g, yj) for yj in ys] for g in G]
                Jr = [sp.diff(g, rs) for g in G]
                Bz = B.subs(sub)
                args = list(ys) + [rs]
                self._direct = {
                    "G_np": numpy_lambdify(args, G),
                    "J_np": numpy_lambdify(args, sp.Matrix(Jy).row_join(sp.Matrix(Jr))),
                    "G_arb": arb_lambdify(args, G), "J_arb": arb_lambdify(args, Jy), "Jr_arb": arb_lambdify(args, Jr),
                    "B_np": numpy_lambdify(args, Bz), "B_arb": arb_lambdify(args, Bz)}
            self.blocking_monomial = False
            self.blocking_positive = False

    @property
    def rows_expr(self) -> list:
        """The compiled rows as SymPy expressions (drift row i divided by x_i, then the invariants)."""
        V = list(self.variables)
        drift = list(self._model_ref._drift)
        return [sp.expand(drift[i] / V[i]) for i in range(self.n)] + list(self._inv_rows)

    def selection(self, y=None) -> list:
        """The ``n`` rows of a well-conditioned square system at the state ``exp(y)`` (see the class
        docstring); the model's static choice without ``y``.

        Parameters
        ----------
        y : array_like, optional
            ``log x``.

        Returns
        -------
        list of int
            Row indices (drift rows ``< n``, invariant rows ``>= n``).
        """
        if y is None or self.m == 0:
            return list(self.default_selection)
        x = np.exp(np.asarray(y, dtype=np.float64))
        sel = list(range(self.n))
        # the invariant rows in log variables have entries c_i x_i; replace one drift row per invariant,
        # chosen by elimination with column pivoting on these entries (each invariant reduced by the
        # earlier pivot rows first), so that the replaced columns of the invariants are a regular
        # block even when invariants overlap (a greedy largest-entry choice could take two rows of one
        # group and leave a dependent pair of drift rows)
        pivots = []
        for k, (c, _v) in enumerate(self.invariants):
            w = np.array([float(c[i]) for i in range(self.n)]) * x
            for j, prow in pivots:
                if w[j] != 0.0:
                    w = w - (w[j] / prow[j]) * prow
            a = np.abs(w)
            for j, _p in pivots:
                a[j] = -1.0
            j = int(np.argmax(a))
            if a[j] <= 0.0:             # dependent invariants: keep the static choice
                return list(self.default_selection)
            pivots.append((j, w))
            sel[j] = self.n + k
        return sel

    def dynamic(self, sel) -> np.ndarray:
        """1 for the drift rows of a selection, 0 for its invariant rows (algebraic in the PTC).

        Parameters
        ----------
        sel : list of int
            A selection of rows.

        Returns
        -------
        numpy.ndarray
        """
        return np.array([1.0 if i < self.n else 0.0 for i in sel])

    def require_smooth(self):
        """Raise unless the stationary system is differentiable (the generic solver needs it).

        Raises
        ------
        ModelDefinitionError
            For Heaviside/Max/Min/Abs/Piecewise rates (a non-smooth fluid limit such as full JSQ).
        """
        if not self.smooth or (self.mode == "direct" and self._direct is None):
            raise ModelDefinitionError(
                "the generic certified solver needs differentiable rates; this model's stationary system "
                "contains Heaviside/Max/Min/Abs/Piecewise (a non-smooth fluid limit such as full JSQ)")

    # float64 ------------------------------------------------------------------------------------
    def G(self, y, r, sel=None):
        """The selected rows (default: the static square system) at ``(y, r)``, float64.

        Parameters
        ----------
        y : array_like
            ``log x``.
        r : float
            ``log rho``.
        sel : list of int, optional
            The rows (default :meth:`selection` without ``y``).

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> import numpy as np
        >>> from symloss import RandomRouting
        >>> comp = RandomRouting(2).compiled
        >>> bool(np.all(np.abs(comp.G(np.log([0.4, 0.4, 0.2]), 0.0)) < 1e-15))    # the fixed point at rho = 1
        True
        """
        z = np.append(np.asarray(y, dtype=np.float64), r)
        if self.mode == "terms":
            out = self.table.values(z)
        else:
            out = np.asarray(self._direct["G_np"](*z), dtype=np.float64)
        return out[self.default_selection if sel is None else sel]

    def J(self, y, r, sel=None):
        """(n, n + 1): Jacobian of the selected rows in y, last column the derivative in r.

        Parameters
        ----------
        y : array_like
            ``log x``.
        r : float
            ``log rho``.
        sel : list of int, optional
            The rows.

        Returns
        -------
        numpy.ndarray
        """
        z = np.append(np.asarray(y, dtype=np.float64), r)
        if self.mode == "terms":
            out = self.table.jacobian(z)
        else:
            out = np.asarray(self._direct["J_np"](*z), dtype=np.float64).reshape(self.n_rows, self.n + 1)
        return out[self.default_selection if sel is None else sel]

    def log_blocking(self, y, r) -> float:
        """``log B`` at ``(y, r)`` in float64 (no underflow).

        Parameters
        ----------
        y : array_like
            ``log x``.
        r : float
            ``log rho``.

        Returns
        -------
        float
        """
        z = np.append(np.asarray(y, dtype=np.float64), r)
        if self.mode == "terms":
            L = self.btable.A @ z
            if self.blocking_positive:
                m = L.max()
                return float(m + math.log(float(np.sum(self.btable.coef * np.exp(L - m)))))
            v = float(np.sum(self.btable.coef * np.exp(L)))
            return math.log(v) if v > 0 else -math.inf
        v = float(self._direct["B_np"](*z))
        return math.log(v) if v > 0 else -math.inf

    def grad_log_blocking(self, y, r) -> np.ndarray:
        """d log B / d y (float64).

        Parameters
        ----------
        y : array_like
            ``log x``.
        r : float
            ``log rho``.

        Returns
        -------
        numpy.ndarray
        """
        z = np.append(np.asarray(y, dtype=np.float64), r)
        if self.mode == "terms":
            L = self.btable.A @ z
            w = self.btable.coef * np.exp(L - L.max())
            return np.asarray(self.btable.A[:, :self.n].T @ w).ravel() / w.sum()
        h = 1e-7
        base = self.log_blocking(y, r)
        g = np.zeros(self.n)
        for j in range(self.n):
            yy = np.array(y, dtype=float)
            yy[j] += h
            g[j] = (self.log_blocking(yy, r) - base) / h
        return g

    # arb ----------------------------------------------------------------------------------------
    def G_arb(self, y, r, sel=None):
        """The selected rows in ball arithmetic.

        Parameters
        ----------
        y : sequence of flint.arb
            ``log x`` (balls).
        r : flint.arb
            ``log rho`` (a ball).
        sel : list of int, optional
            The rows.

        Returns
        -------
        list of flint.arb
        """
        z = list(y) + [r]
        sel = self.default_selection if sel is None else sel
        if self.mode == "terms":
            vals = self.table.values_arb(z)
        else:
            vals = list(self._direct["G_arb"](*z))
        return [vals[i] for i in sel]

    def GJ_arb(self, y, r, sel=None):
        """(G, J_y as arb_mat, dG/dr) of the selected rows in ball arithmetic at the balls ``y``, ``r``.

        Parameters
        ----------
        y : sequence of flint.arb
            ``log x``.
        r : flint.arb
            ``log rho``.
        sel : list of int, optional
            The rows.

        Returns
        -------
        tuple
            ``(values, jacobian, d/dr)``.
        """
        z = list(y) + [r]
        sel = self.default_selection if sel is None else sel
        if self.mode == "terms":
            vals, J, dr = self.table.jacobian_arb(z, rows=sel)
            return vals, J, dr
        d = self._direct
        Jy = d["J_arb"](*z)
        vals, dr = list(d["G_arb"](*z)), list(d["Jr_arb"](*z))
        return [vals[i] for i in sel], arb_mat([list(Jy[i]) for i in sel]), [dr[i] for i in sel]

    def blocking_arb(self, y, r):
        """The blocking in ball arithmetic.

        Parameters
        ----------
        y : sequence of flint.arb
            ``log x``.
        r : flint.arb
            ``log rho``.

        Returns
        -------
        flint.arb
        """
        z = list(y) + [r]
        if self.mode == "terms":
            return self.btable.values_arb(z)[0]
        return self._direct["B_arb"](*z)

    def log_blocking_arb(self, y, r):
        """log B as a ball; exact linear form when B is a positive monomial (no overestimation).

        Parameters
        ----------
        y : sequence of flint.arb
            ``log x``.
        r : flint.arb
            ``log rho``.

        Returns
        -------
        flint.arb
        """
        if self.mode == "terms" and self.blocking_monomial:
            z = list(y) + [r]
            L = self.btable.coef_arb[0].log()
            for j, a in self.btable.terms_arb[0]:
                L += z[j] * a
            return L
        return self.blocking_arb(y, r).log()


def compile_model(model) -> CompiledModel:
    """Compile ``model``'s square stationary system (see :class:`CompiledModel`).

    Parameters
    ----------
    model : MeanFieldModel
        The definition.

    Returns
    -------
    CompiledModel

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.core.codegen import compile_model
    >>> compile_model(PowerOfD(2, 2)).n
    2
    """
    return CompiledModel(model)


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
