r"""The terms form of a stationary system: a Laurent-polynomial row as a table of terms
:math:`c_t \exp(a_t \cdot y + p_t r)` with exact rational :math:`c_t` (:func:`laurent_terms`), and the
float64 and ``arb`` evaluators of the table (values, Jacobian in :math:`y`, derivative in :math:`r`),
every term one ``exp`` of a linear form, so nothing underflows.

Split out of :mod:`symloss.core.codegen` (which re-exports every name).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp
from flint import arb, arb_mat, fmpq

from .printers import straight_line_log_terms, straight_line_residual

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
        """The values of all rows as balls (z: list of n_vars + 1 balls), by a straight-line function
        generated once (:func:`~symloss.core.printers.straight_line_log_terms`; the balls of the
        term-by-term sum over ``_monomials``)."""
        if self._values_fn is None:
            self._values_fn = straight_line_log_terms(self.terms_arb, self.row, self.n_vars, range(self.n_rows),
                                                      jacobian=False)
        return self._values_fn(z, self.coef_arb)

    _values_fn = None

    def log_terms_jacobian(self, sel):
        """``(fn, positions)``: the generated evaluator of the values, Jacobian entries and load
        derivatives of the rows ``sel`` (:func:`~symloss.core.printers.straight_line_log_terms`), made
        once per selection and cached on this table (a rescaled copy of a compiled model has its own
        table, hence its own evaluators)."""
        key = tuple(int(i) for i in sel)
        cache = self.__dict__.setdefault("_log_terms_cache", {})
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = straight_line_log_terms(self.terms_arb, self.row, self.n_vars, key)
        return hit

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
