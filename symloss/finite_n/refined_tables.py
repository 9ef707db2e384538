"""Derivative tables of the refined mean field (:func:`symloss.refined_mean_field`), generated once per
definition: every derivative of every rate and of the blocking up to order ``MAX_ORDER``, with
respect to the variables each depends on, compiled to float64 (NumPy) and ``arb`` evaluators; the
linear invariants removed by a rational basis of the span of the jumps.
"""
from __future__ import annotations

import itertools
from math import factorial

import numpy as np
import sympy as sp

from ..core.codegen import arb_lambdify, numpy_lambdify
from ..core.model import RHO

__all__ = ["MAX_ORDER"]


_NONSMOOTH = (sp.Heaviside, sp.Max, sp.Min, sp.Abs, sp.Piecewise, sp.sign, sp.floor, sp.ceiling)


_REFINED_CACHE: dict = {}


MAX_ORDER = 4          # derivatives of the rates needed by the second-order term


class _Tables:
    """Sparse derivative tables of the rates and of the blocking (see :func:`_tables`)."""


def _multiplicity(ms) -> int:
    out = factorial(len(ms))
    for _, grp in itertools.groupby(sorted(ms)):
        out //= factorial(len(list(grp)))
    return out


def _derivatives(expr, xs, idx):
    """``[(multiset, derivative)]`` of ``expr`` up to order ``MAX_ORDER`` with respect to the
    variables it depends on (non-zero ones; order 0 first), each derivative obtained from its
    parent by one differentiation (polynomials through ``sympy.Poly``)."""
    dep = sorted(idx[v] for v in expr.free_symbols if v in idx)
    gens = [xs[i] for i in dep]
    try:
        top = sp.Poly(expr, *gens) if gens else None
    except (sp.PolynomialError, sp.GeneratorsNeeded):
        top = None
    out = [((), expr)]
    level = {(): top if top is not None else expr}
    for _p in range(MAX_ORDER):
        nxt = {}
        for ms, e in level.items():
            start = dep.index(ms[-1]) if ms else 0
            for i in dep[start:]:
                d = e.diff(xs[i]) if isinstance(e, sp.Poly) else sp.diff(e, xs[i])
                if (d.is_zero if isinstance(d, sp.Poly) else d == 0):
                    continue
                nxt[ms + (i,)] = d
        for ms, d in nxt.items():
            out.append((ms, d.as_expr() if isinstance(d, sp.Poly) else d))
        level = nxt
    return out


def _tables(model):
    key = model._definition_key() if hasattr(model, "_definition_key") else None
    if key is not None and key in _REFINED_CACHE:
        return _REFINED_CACHE[key]
    if key is None and "_refined_tables" in getattr(model, "__dict__", {}):
        return model.__dict__["_refined_tables"]
    xs = list(model.variables)
    rho = getattr(model, "rho", RHO)
    if hasattr(model, "_checked_transitions"):
        trs = model._checked_transitions
        h = model._blocking
    else:
        trs = [(j if isinstance(j, sp.MatrixBase) else sp.Matrix(j), sp.sympify(r)) for j, r in model.transitions()]
        h = sp.sympify(model.blocking_expr())
    for e in [r for _, r in trs] + [h]:
        if e.has(*_NONSMOOTH):
            raise ValueError(f"the refined mean field needs twice differentiable rates and blocking; model "
                             f"{model!r} is not smooth ({e})")
    n = len(xs)
    jumps = np.array([[float(v) for v in jump] for jump, _ in trs]).reshape(len(trs), n)
    # rational basis of the directions the chain moves in (span of the jumps) and a left inverse
    Jm = sp.Matrix([[sp.Integer(int(v)) for v in jump] for jump, _ in trs])
    cons = Jm.nullspace()                                   # conserved forms c: J c = 0
    if cons:
        P = sp.Matrix.hstack(*sp.Matrix.hstack(*cons).T.nullspace())
    else:
        P = sp.eye(n)
    Lq = (P.T * P).inv() * P.T
    T = _Tables()
    T.n, T.m, T.jumps, T.xs, T.rho = n, len(trs), jumps, xs, rho
    T.conserved = len(cons)
    T.P_q, T.L_q = P, Lq
    T.P = np.array(P.tolist(), dtype=float)
    T.P_arb = lambda: _arb_matrix(P)
    T.L_arb = lambda: _arb_matrix(Lq)
    T.L = np.array(Lq.tolist(), dtype=float)
    idx = {v: i for i, v in enumerate(xs)}
    exprs, meta = [], []          # meta: (order, transition or -1 for h, multiset)
    for t, (_, rate) in enumerate(trs):
        for ms, e in _derivatives(rate, xs, idx):
            exprs.append(e)
            meta.append((len(ms), t, ms))
    for ms, e in _derivatives(h, xs, idx):
        exprs.append(e)
        meta.append((len(ms), -1, ms))
    T.f_np = numpy_lambdify(xs + [rho], exprs)
    low = [k for k, (p, _t, _ms) in enumerate(meta) if p <= 2]
    T.low = np.array(low)
    T.f_arb = arb_lambdify(xs + [rho], [exprs[k] for k in low])
    T.meta = meta
    T.groups = {}
    for which in ("rate", "h"):
        for p in range(MAX_ORDER + 1):
            sel = [k for k, (pp, t, _ms) in enumerate(meta) if pp == p and ((t >= 0) == (which == "rate"))]
            ms = np.array([meta[k][2] for k in sel], dtype=np.int64).reshape(len(sel), p)
            tl = np.array([meta[k][1] for k in sel], dtype=np.int64)
            mult = np.array([_multiplicity(meta[k][2]) for k in sel], dtype=float)
            T.groups[(which, p)] = (np.array(sel, dtype=np.int64), tl, ms, mult)
    if key is not None:
        _REFINED_CACHE[key] = T
    else:
        model.__dict__["_refined_tables"] = T
    return T


def _arb_matrix(M):
    from flint import arb, arb_mat, fmpq
    return arb_mat([[arb(fmpq(int(v.p), int(v.q))) for v in row] for row in M.tolist()])
