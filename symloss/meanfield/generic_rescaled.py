r"""Rescaled coordinates for the middle cells of the generic certified comparison
(:mod:`symloss.meanfield.generic_search`).

A component of a tail model may vary like a high power of the load (``u_10 ~ rho^29524`` for
power-of-3 at ``C = 10``): in ``y = log x`` the tube over a cell then has a slope of that size, its
hull over a sub-interval is wide and the Krawczyk test needs cells of relative width about
``1 / max |dy/d log rho|``. With an invertible rational matrix ``L`` and a rational vector ``b``
the tube is built in

.. math::

   v = L y + b\, r, \qquad r = \log\rho,

(row ``i`` of ``L``, ``b`` is the log-ratio of the two largest terms of a stationary row, which
balance along the branch, so ``v_i`` varies slowly), and row ``i`` of the stationary system is
divided by :math:`\rho^{m_i}` (``m_i`` the power of ``rho`` of the row's largest term at the middle
of the cell). With ``P = L^{-1}`` and ``e = -P b`` every term :math:`c\,\rho^{a_r} x^a` becomes
:math:`c\,\exp(a^\top P v + (a_r + a\cdot e - m_i) r)`: one linear form in ``(v, r)`` (no
cancellation of large exponents in ball arithmetic). The zeros of the rescaled system are those of
the original one (each row is multiplied by a positive factor, the change of variables is affine and
invertible for each load), so a Krawczyk test of the rescaled system certifies the same branch, for
any invertible ``L`` and any rationals ``b``, ``m``: the certificate stores them, and the re-check
rebuilds the rescaled term tables from the model's equations and the stored ``L``, ``b``, ``m`` (no
search). A wrong ``b`` moves the stored tube away from the branch: its Krawczyk test fails; a
singular ``L`` is refused. The blocking is rescaled without a row factor, so :math:`\log B` and
:math:`d\log B/d\log\rho` along the branch are unchanged.
"""
from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import sympy as sp
from flint import arb

from ..core.term_tables import _TermTable
from .enclosures import q_arb

__all__ = ["RescaledModel", "choose_rescaling", "parse_rescaling", "rescaled_compiled"]

#: Largest ``|e_k|`` and ``|m_i|`` a certificate may use (``(3^20 - 1) / 2`` is about 1.7e9).
_MAX_EXPONENT = 1 << 40

_CACHE: dict = {}
_CHOICE: dict = {}


def _rational(v) -> sp.Rational:
    f = Fraction(v)
    return sp.Rational(f.numerator, f.denominator)


def _q(v) -> Fraction:
    return Fraction(int(sp.Rational(v).p), int(sp.Rational(v).q))


def _inverse(L):
    """The exact inverse of the square rational matrix ``L`` (Gauss-Jordan in Fractions); ``None``
    when it is singular."""
    n = len(L)
    A = [[Fraction(v) for v in row] + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(L)]
    for k in range(n):
        p = next((i for i in range(k, n) if A[i][k] != 0), None)
        if p is None:
            return None
        A[k], A[p] = A[p], A[k]
        piv = A[k][k]
        A[k] = [v / piv for v in A[k]]
        for i in range(n):
            if i != k and A[i][k] != 0:
                f = A[i][k]
                A[i] = [u - f * w for u, w in zip(A[i], A[k])]
    return [row[n:] for row in A]


def _table_data(tab, n):
    """Per term ``(row, {column: Fraction exponent}, r exponent)`` of a term table (cached on it)."""
    d = getattr(tab, "_rescale_data", None)
    if d is None:
        d = [(int(tab.row[t]), {j: _q(a) for j, a in ex.items() if j < n}, _q(ex.get(n, 0)))
             for t, ex in enumerate(tab.A_q)]
        tab._rescale_data = d
    return d


def rescaled_compiled(comp, L, b, m):
    """A copy of the compiled model ``comp`` (terms form) whose term tables are those of the
    rescaled system (module docstring): state ``v = L y + b r`` (``L`` an invertible rational
    matrix, ``b`` a rational vector), row ``i`` divided by ``rho^m[i]``.

    Parameters
    ----------
    comp : CompiledModel
        Terms form.
    L : list of lists of Fraction
        ``n x n``, invertible.
    b : list of Fraction
        Length ``n``.
    m : sequence of Fraction
        One rational per row of ``comp`` (``comp.n_rows``).

    Returns
    -------
    CompiledModel
        A shallow copy of ``comp`` with rescaled ``table`` and ``btable`` (cached on ``comp``,
        ``L``, ``b``, ``m``).

    Raises
    ------
    ValueError
        ``comp`` is not in terms form, or ``L`` is not an invertible ``n x n`` matrix.
    """
    if comp.mode != "terms":
        raise ValueError("the rescaled system needs a Laurent-polynomial (terms-form) model")
    key = (id(comp), tuple(tuple(Fraction(v) for v in row) for row in L), tuple(Fraction(v) for v in b),
           tuple(Fraction(v) for v in m))
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is comp:
        return hit[1]
    n = comp.n
    P = _inverse(key[1]) if len(key[1]) == n and all(len(row) == n for row in key[1]) else None
    if P is None:
        raise ValueError(f"the rescaling matrix L must be an invertible {n} x {n} matrix")
    e = [-sum((P[i][j] * key[2][j] for j in range(n)), Fraction(0)) for i in range(n)]
    ms = key[3]

    def shift(tab, rowfac):
        A = []
        for i, a, ar in _table_data(tab, n):
            aP = [Fraction(0)] * n
            for j, aj in a.items():
                for k in range(n):
                    if P[j][k]:
                        aP[k] += aj * P[j][k]
            ar = ar + sum((aj * e[j] for j, aj in a.items()), Fraction(0))
            if rowfac:
                ar -= ms[i]
            new = {k: sp.Rational(v.numerator, v.denominator) for k, v in enumerate(aP) if v != 0}
            if ar != 0:
                new[n] = sp.Rational(ar.numerator, ar.denominator)
            A.append(new)
        return _TermTable(np.array(tab.row, dtype=np.int64), list(tab.coef_q), A, tab.n_rows, tab.n_vars)

    out = copy.copy(comp)
    out.table = shift(comp.table, True)
    out.btable = shift(comp.btable, False)
    out._sparse = None
    _CACHE[key] = (comp, out)
    if len(_CACHE) > 256:
        _CACHE.pop(next(iter(_CACHE)))
    return out


class RescaledModel:
    """The model seen through the rescaled compiled system (what the tube test and
    :func:`symloss.core.certify.box_derivative` read: ``compiled``); ``L``, ``b``, ``m`` as stored.

    Parameters
    ----------
    model : Model
        A tail model whose compiled form is in terms form.
    L : list of lists of rationals
        ``n x n``, invertible: ``v = L y + b log(rho)``.
    b : list of rationals
        Length ``n``.
    m : list of rationals
        Power of ``rho`` each stationary row is divided by (length ``compiled.n_rows``).
    """

    def __init__(self, model, L, b, m):
        self.model = model
        self.L = [[Fraction(v) for v in row] for row in L]
        self.b = [Fraction(v) for v in b]
        self.m = [Fraction(v) for v in m]
        self.compiled = rescaled_compiled(model.compiled, self.L, self.b, self.m)

    def __repr__(self):
        return f"{self.model!r} (rescaled)"

    def to_v(self, y, r):
        """``L y + b r`` in ball arithmetic.

        Parameters
        ----------
        y : sequence of arb
            The log state.
        r : arb
            ``log(rho)``.

        Returns
        -------
        list of arb
            ``v``, one ball per component.
        """
        n = len(self.b)
        L = [[q_arb(v) for v in row] for row in self.L]
        return [sum((L[i][j] * y[j] for j in range(n) if self.L[i][j]), arb(0)) + q_arb(self.b[i]) * r
                for i in range(n)]

    def record(self) -> dict:
        """The stored form of the rescaling.

        Returns
        -------
        dict
            ``{"L": [[...]], "b": [...], "m": [...]}``, rationals as text (read by
            :func:`parse_rescaling`).
        """
        return {"L": [[str(v) for v in row] for row in self.L], "b": [str(v) for v in self.b],
                "m": [str(v) for v in self.m]}


def choose_rescaling(comp, y, r: float, t, sel):
    """``(L, b, m)`` for a cell at the float state ``y``, log load ``r``, tangent ``t``: row ``i`` of
    ``L``, ``b`` is the log-ratio of the two largest terms of the selected row ``sel[i]`` (they
    balance: ``v_i`` varies slowly along the branch) when these ``n`` ratios are independent, else
    ``L = I``, ``b = -round(t)``; ``m_i`` the power of ``rho`` (in the new variables) of the largest
    term of row ``i``. A choice only: any invertible ``L`` and any ``b``, ``m`` give a valid test.

    Parameters
    ----------
    comp : CompiledModel
        Terms form.
    y : sequence of float
        Float log state at the middle of the cell.
    r : float
        ``log(rho)`` at the middle of the cell.
    t : sequence of float
        Tangent ``dy/dr`` there (used when the balances are dependent).
    sel : sequence of int
        The ``n`` stationary rows whose balances define ``L``.

    Returns
    -------
    tuple
        ``(L, b, m)``: lists of ``Fraction``.
    """
    n = comp.n
    tab = comp.table
    data = _table_data(tab, n)
    z = np.asarray(list(y) + [r], dtype=float)
    with np.errstate(divide="ignore"):
        Lv = np.log(np.abs(tab.coef)) + tab.A @ z
    top: dict = {}
    for tt, (i, _a, _ar) in enumerate(data):
        lst = top.setdefault(i, [])
        lst.append((Lv[tt], tt))
    for i in top:
        top[i].sort(key=lambda u: -u[0])
    key = (id(comp), tuple(tuple(u[1] for u in top.get(i, [])[:2]) for i in range(comp.n_rows)),
           tuple(sel), tuple(int(round(float(v))) for v in t))
    hit = _CHOICE.get(key)
    if hit is not None and hit[0] is comp:
        return hit[1]
    L = b = None
    rows, rb = [], []
    for i in sel:
        ts = top.get(i, [])
        if len(ts) < 2:
            break
        (_i, ap, arp), (_i, aq, arq) = data[ts[0][1]], data[ts[1][1]]
        rows.append([ap.get(j, Fraction(0)) - aq.get(j, Fraction(0)) for j in range(n)])
        rb.append(arp - arq)
    P = _inverse(rows) if len(rows) == n else None
    if P is not None:
        L, b = rows, rb
    else:
        L = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
        b = [Fraction(-int(round(float(v)))) for v in t]
        P = L
    e = [-sum((P[i][j] * b[j] for j in range(n)), Fraction(0)) for i in range(n)]
    m = []
    for i in range(comp.n_rows):
        ts = top.get(i, [])
        if not ts:
            m.append(Fraction(0))
            continue
        _i, a, ar = data[ts[0][1]]
        m.append(ar + sum((aj * e[j] for j, aj in a.items()), Fraction(0)))
    out = (L, b, m)
    _CHOICE[key] = (comp, out)
    if len(_CHOICE) > 1024:
        _CHOICE.pop(next(iter(_CHOICE)))
    return out


def parse_rescaling(rec, comp):
    """``(L, b, m)`` from a stored record ``{"L": [[...]], "b": [...], "m": [...]}`` (rationals as
    text), checked: ``L`` an ``n x n`` matrix, ``b`` of length ``n``, ``m`` of length ``comp.n_rows``,
    every entry of absolute value below ``2^40`` (invertibility is checked by
    :func:`rescaled_compiled`).

    Parameters
    ----------
    rec : dict
        The stored record.
    comp : CompiledModel
        The model's compiled form (gives ``n`` and the number of rows).

    Returns
    -------
    tuple
        ``(L, b, m)``: lists of ``Fraction``.

    Raises
    ------
    ValueError
        A malformed record, a wrong length or an entry too large.
    """
    if not isinstance(rec, dict) or set(rec) != {"L", "b", "m"}:
        raise ValueError(f"rescaling record must be a dict with keys 'L', 'b' and 'm', got {rec!r}")
    n = comp.n

    def vec(v, k, name):
        if not (isinstance(v, list) and len(v) == k and all(isinstance(x, str) for x in v)):
            raise ValueError(f"rescaling {name} must be {k} rationals as text, got {v!r}")
        out = [Fraction(x) for x in v]
        if any(abs(x) >= _MAX_EXPONENT for x in out):
            raise ValueError(f"rescaling {name} must have entries of absolute value < 2^40, got {v!r}")
        return out
    L = rec["L"]
    if not (isinstance(L, list) and len(L) == n):
        raise ValueError(f"rescaling matrix L must have {n} rows, got {L!r}")
    return [vec(row, n, "matrix row") for row in L], vec(rec["b"], n, "offset b"), vec(rec["m"], comp.n_rows,
                                                                                          "row powers m")
