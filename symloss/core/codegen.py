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

The printers live in :mod:`~symloss.core.printers` and the terms form in :mod:`~symloss.core.term_tables`
(both re-exported here); this module keeps :class:`CompiledModel` and :func:`compile_model`.
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
from flint import arb, arb_mat
from flint import ctx as flint_ctx

from ._docfragments import CORE_DOCS
from .definition import RHO, ModelDefinitionError
from .docstrings import fill_doc
from .pivoting import largest_float_pivot, pivot_columns
from .printers import (  # noqa: F401 - re-exported
    _ARB_METHOD,
    _ARB_NS,
    ARB_FUNCTIONS,
    ArbPrinter,
    NumbaPrinter,
    _arb_q,
    arb_lambdify,
    numba_statements,
    numpy_lambdify,
    straight_line_log_terms,
    straight_line_residual,
)
from .term_tables import (  # noqa: F401 - re-exported
    _TermTable,
    laurent_terms,
)

__all__ = ["CompiledModel", "compile_model", "numpy_lambdify", "arb_lambdify", "ArbPrinter", "laurent_terms",
           "NumbaPrinter", "numba_statements"]

#: the docstring examples of the names that moved to other modules still run with this module's (doctest)
__test__ = {name: globals()[name] for name in ("arb_lambdify", "laurent_terms", "numba_statements",
                                               "numpy_lambdify", "straight_line_residual")}


# --------------------------------------------------------------------------------------------------
# the compiled model
# --------------------------------------------------------------------------------------------------


@fill_doc(CORE_DOCS)
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
        # chosen by elimination with column pivoting on these entries (pivot_columns: each invariant
        # reduced by the earlier pivot rows first), so that the replaced columns of the invariants are a regular
        # block even when invariants overlap (a greedy largest-entry choice could take two rows of one
        # group and leave a dependent pair of drift rows)
        weights = [np.array([float(c[i]) for i in range(self.n)]) * x for c, _v in self.invariants]
        cols = pivot_columns(weights, largest_float_pivot)
        if len(cols) < self.m:          # dependent invariants: keep the static choice
            return list(self.default_selection)
        for k, j in enumerate(cols):
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
    def _float_rows(self, which, y, r, sel):
        """The rows ``sel`` of ``G`` (``which = "G"``) or of its Jacobian (``"J"``) in float64."""
        z = np.append(np.asarray(y, dtype=np.float64), r)
        if self.mode == "terms":
            out = self.table.values(z) if which == "G" else self.table.jacobian(z)
        else:
            out = np.asarray(self._direct[which + "_np"](*z), dtype=np.float64)
            if which == "J":
                out = out.reshape(self.n_rows, self.n + 1)
        return out[self.default_selection if sel is None else sel]

    def G(self, y, r, sel=None):
        """The selected rows (default: the static square system) at ``(y, r)``, float64.

        {{parameters_yr_sel_float}}

        Returns
        -------
        numpy.ndarray
            The values of the rows ``sel``, in that order (each drift row divided by its
            :math:`x_i`).

        Examples
        --------
        >>> import numpy as np
        >>> from symloss import RandomRouting
        >>> comp = RandomRouting(2).compiled
        >>> bool(np.all(np.abs(comp.G(np.log([0.4, 0.4, 0.2]), 0.0)) < 1e-15))    # the fixed point at rho = 1
        True
        """
        return self._float_rows("G", y, r, sel)

    def J(self, y, r, sel=None):
        """(n, n + 1): Jacobian of the selected rows in y, last column the derivative in r.

        {{parameters_yr_sel_float}}

        Returns
        -------
        numpy.ndarray
            Shape ``(len(sel), n + 1)``: :math:`\\partial G_i/\\partial y_j` in the first ``n`` columns,
            :math:`\\partial G_i/\\partial r` in the last.
        """
        return self._float_rows("J", y, r, sel)

    def log_blocking(self, y, r) -> float:
        """``log B`` at ``(y, r)`` in float64 (no underflow).

        {{parameters_yr_float}}

        Returns
        -------
        float
            :math:`\\log B`, ``-inf`` where the blocking evaluates to 0 or less.
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

        {{parameters_yr_float}}

        Returns
        -------
        numpy.ndarray
            Length ``n``: exact from the terms form, a forward difference (step ``1e-7``) in the
            direct form.
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

        {{parameters_yr_sel_arb}}

        Returns
        -------
        list of flint.arb
            The balls of the rows ``sel``, in that order.
        """
        z = list(y) + [r]
        sel = self.default_selection if sel is None else sel
        if self.mode == "terms":
            vals = self.table.values_arb(z)
        else:
            vals = list(self._direct["G_arb"](*z))
        return [vals[i] for i in sel]

    def GJ_arb(self, y, r, sel=None, *, floor=None):
        """(G, J_y as arb_mat, dG/dr) of the selected rows in ball arithmetic at the balls ``y``, ``r``.

        {{parameters_yr_sel_arb}}
        floor : flint.arb, optional
            Terms form: a Jacobian entry whose whole ball lies below ``floor`` in absolute value is
            replaced by ``[0 +/- floor]`` (a superset; default ``2^-(prec + 16)``).

        Returns
        -------
        tuple
            ``(values, jacobian, d/dr)``.
        """
        z = list(y) + [r]
        sel = self.default_selection if sel is None else sel
        if self.mode == "terms":
            return self._sparse_jacobian_arb(z, sel, floor)
        d = self._direct
        Jy = d["J_arb"](*z)
        vals, dr = list(d["G_arb"](*z)), list(d["Jr_arb"](*z))
        return [vals[i] for i in sel], arb_mat([list(Jy[i]) for i in sel]), [dr[i] for i in sel]

    def _sparse_terms(self):
        """Per term ``(row, coefficient index, [(column, exponent)], r exponent)`` with the Jacobian
        columns only (built once per compiled model: what :meth:`GJ_arb` accumulates)."""
        if self._sparse is None:
            n, tab = self.n, self.table
            self._sparse = [(int(tab.row[t]), [(j, a) for j, a in e if j < n], [a for j, a in e if j >= n])
                            for t, e in enumerate(tab.terms_arb)]
        return self._sparse

    _sparse = None

    def jacobian_pattern(self, sel=None):
        """The positions ``(k, j)`` (``k`` the place of the row in ``sel``) where the ball Jacobian of
        :meth:`GJ_arb` can be non-zero in the terms form (every other entry is an exact 0), ``None`` in
        the direct form.

        Parameters
        ----------
        sel : list of int, optional
            A selection of rows (default: the static square system).

        Returns
        -------
        list of tuple or None
        """
        if self.mode != "terms":
            return None
        sel = self.default_selection if sel is None else sel
        key = tuple(sel)
        # on the term table (as its evaluators): a rescaled copy of this model has its own table
        cache = self.table.__dict__.setdefault("_jacobian_patterns", {})
        if key not in cache:
            cache[key] = self._jacobian_pattern(sel)
        return list(cache[key])

    def _jacobian_pattern(self, sel):
        pos = {i: k for k, i in enumerate(sel)}
        seen: dict = {}
        for i, cols, _r in self._sparse_terms():
            k = pos.get(i)
            if k is not None:
                for j, _a in cols:
                    seen[(k, j)] = None
        return list(seen)

    def _sparse_jacobian_arb(self, z, sel, floor=None):
        """``(values, J_y, dG/dr)`` of the rows ``sel`` from the term table: only the terms of the
        selected rows are evaluated and only the non-zero entries of the Jacobian accumulated (the
        same balls as :meth:`_TermTable.jacobian_arb <symloss.core.term_tables._TermTable.jacobian_arb>`,
        term by term in the same order), by a straight-line function generated once per selection."""
        n = self.n
        fn, positions = self.table.log_terms_jacobian(sel)
        vals, entries, dr = fn(z, self.table.coef_arb)
        # an entry below 2^(-2 prec) in absolute value (all of its ball) is replaced by the ball
        # [0 +/- 2^(-2 prec)], which contains it: a superset, so every enclosure stays valid, and
        # negligible at the working precision; it keeps the exponents of the matrix in a moderate range
        # (terms such as u_k^(d-1) ~ exp(-10^30) of a doubly exponential tail make the matrix products
        # and solves of python-flint many times slower)
        tiny = arb(0, arb(2) ** (-(flint_ctx.prec + 16)) if floor is None else floor)
        if not sel:
            return vals, arb_mat(0, n), dr
        # a zero matrix filled at the non-zero entries (building the matrix from n^2 balls of Python
        # lists costs more than the whole evaluation at n = 100)
        J = arb_mat(len(sel), n)
        t_rad = tiny.rad()
        for (k, j), v in zip(positions, entries):
            J[k, j] = tiny if abs(v) < t_rad else v
        return vals, J, dr

    def blocking_arb(self, y, r):
        """The blocking in ball arithmetic.

        {{parameters_yr_arb}}

        Returns
        -------
        flint.arb
            A ball containing :math:`B` on the balls ``y``, ``r``.
        """
        z = list(y) + [r]
        if self.mode == "terms":
            return self.btable.values_arb(z)[0]
        return self._direct["B_arb"](*z)

    def log_blocking_arb(self, y, r):
        """log B as a ball; exact linear form when B is a positive monomial (no overestimation).

        {{parameters_yr_arb}}

        Returns
        -------
        flint.arb
            A ball containing :math:`\\log B`.
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
        The definition whose drift, invariants and blocking are compiled (each call compiles anew;
        ``model.compiled`` keeps the result of one call per model).

    Returns
    -------
    CompiledModel
        The float64 and ball evaluators of the square stationary system in log variables.

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.core.codegen import compile_model
    >>> compile_model(PowerOfD(2, 2)).n       # power-of-2 at C = 2: two state variables
    2
    """
    return CompiledModel(model)


