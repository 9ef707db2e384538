r"""The float solvers of :class:`~symloss.twoqueue.jsq.TwoQueueJSQ` (``method="float"``), as functions of
the model.

* the fast path: the numba stencil of the Yao-Knessl model (:data:`STENCIL`, registered in the one
  fast-path registry, :mod:`symloss.core.registry`, family ``"twoqueue"``), used only when the model's
  rule table is the table the stencil declares (:func:`stencil_applies`: exact identity by
  :func:`~symloss.core.registry.same_system`, cached by the registry's binding cache), and its answer
  is verified on the balance equations generated from the model's own rules before it is returned
  (:func:`~symloss.core.registry.dispatch`; a rejected answer raises
  :class:`~symloss.core.precision.PrecisionError`, since the generic float solver stops at
  ``N =`` :data:`GENERIC_FLOAT_LIMIT`);
* any other definition: Gauss-Seidel on the generated kernels (adjacent, aggregated definitions) or the
  generic sparse LU (small ``N``) (:func:`solve_float_generic`);
* the unstructured chain: its generator (:func:`generator`), one sparse LU (:func:`generic_solve`) and
  the residual of an answer on the model's balance equations (:func:`chain_residual`), which every float
  answer must pass before it is returned (:func:`verify_float`).

The model is read through its public surface (``N``, ``rho``, ``rules``, ``transitions``, ``kernels``,
``generator``, ``residual``), so a subclass that overrides one of them is followed. The numba kernels
are loaded on first use (``symloss.twoqueue._numba``); SciPy's sparse modules likewise (they are not
needed by ``import symloss.twoqueue``).
"""
from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np

from ..core.precision import PrecisionError
from ..core.registry import FastPath, dispatch
from ._numba import kernels as numba_kernels
from .definition import _max_relative_gap, balance_residual, rules_equal
from .distribution import TwoQueueDistribution
from .kernels import StructureError
from .levels import level_law_float
from .solvers import float_generic

__all__ = ["GENERIC_FLOAT_LIMIT", "SPARSE_LU_LIMIT", "FLOAT_RESIDUAL_LIMIT", "STENCIL", "StencilFastPath",
           "stencil_applies", "generator", "generic_solve", "chain_residual", "level_probabilities", "solve_float",
           "solve_float_stencil", "solve_float_generic", "verify_float"]

#: largest N for the float solver of a definition other than the stencil's (generated CSR kernels)
GENERIC_FLOAT_LIMIT = 1000
#: largest N for the sparse-LU fallback (definitions that are not level-adjacent or not aggregated)
SPARSE_LU_LIMIT = 300
#: a float answer is returned only if its residual on the definition's balance equations is below this
FLOAT_RESIDUAL_LIMIT = 1e-9


def _dmax(N: int, K: int) -> int:
    return min(K, 2 * N - K)


class StencilFastPath(FastPath):
    """The numba stencil of the Yao-Knessl model as a fast path of the one registry (family
    ``"twoqueue"``, registered for :class:`~symloss.twoqueue.jsq.TwoQueueJSQ`; the instance
    :data:`STENCIL`; the protocol is :class:`symloss.core.registry.FastPath`).

    * ``decide``: the model's :meth:`transitions <symloss.twoqueue.jsq.TwoQueueJSQ.transitions>` is the
      evaluator of its rule table (not overridden) and the table is, rule by rule, the one the stencil
      declares (``STENCIL_RULES`` of the private ``symloss.twoqueue._kernels``): same jumps, rates
      identical by :func:`~symloss.core.registry.same_system`, guards equivalent
      (:func:`~symloss.twoqueue.definition.rules_equal`); ``binding_key``: those two rule tables by value;
    * ``solve(model, tol, maxiter)``: Gauss-Seidel with exact level masses on the stencil;
    * ``verify``: the answer's residual on the balance equations generated from the model's own rules
      (``model.residual``) is at most :data:`FLOAT_RESIDUAL_LIMIT`.

    Examples
    --------
    >>> from symloss import TwoQueueJSQ
    >>> STENCIL.applies(TwoQueueJSQ(2, 1))         # (applies, the reason)
    (True, "the rule table is the stencil's (exact identity of jumps, rates and guards)")
    """
    name = "Yao-Knessl stencil"

    def binding_key(self, model):
        try:
            key = (model._rule_based(), tuple(model.rules), tuple(numba_kernels().STENCIL_RULES))
            hash(key)
        except TypeError:
            return None
        return key

    def decide(self, model):
        if not model._rule_based():
            return False, "transitions() is overridden: the definition is not a rule table"
        if not rules_equal(model.rules, numba_kernels().STENCIL_RULES):
            return False, "the rule table differs from the one the stencil implements"
        return True, "the rule table is the stencil's (exact identity of jumps, rates and guards)"

    def solve(self, model, tol, maxiter):
        return _stencil_solve(model, tol, maxiter)

    def verify(self, model, res, tol=None, maxiter=None):
        r = model.residual(res.p)
        if not r <= FLOAT_RESIDUAL_LIMIT:
            return False, (f"the answer's residual on the model's balance equations is {r:.2e} > "
                           f"{FLOAT_RESIDUAL_LIMIT:.0e}")
        return True, f"residual on the model's balance equations {r:.2e} <= {FLOAT_RESIDUAL_LIMIT:.0e}"


#: the two-queue fast path (registered for :class:`~symloss.twoqueue.jsq.TwoQueueJSQ` by :mod:`.jsq`)
STENCIL = StencilFastPath()


def stencil_applies(model) -> bool:
    """The numba stencil (Yao-Knessl model) may be used: the definition is the rule table the stencil
    declares (content, not identity: an edited table fails this; ``StencilFastPath.applies``).

    Parameters
    ----------
    model : TwoQueueJSQ
        The model.

    Returns
    -------
    bool
        True when the model's rules are the stencil's rules (same jumps, rates and guards).

    Examples
    --------
    >>> from symloss import TwoQueueJSQ
    >>> from symloss.twoqueue.float_solve import stencil_applies
    >>> stencil_applies(TwoQueueJSQ(2, 1))
    True
    """
    return STENCIL.applies(model)[0]


def generator(model):
    """The generator of ``model``'s ``(m, n)`` chain (float CSR, rows summing to 0), generated from
    ``model.transitions``: :meth:`TwoQueueJSQ.generator <symloss.twoqueue.jsq.TwoQueueJSQ.generator>`.

    Parameters
    ----------
    model : TwoQueueJSQ
        The model.
    """
    import scipy.sparse as sp
    N = model.N
    rho = float(model.rho)
    rows, cols, vals = [], [], []
    for m in range(N + 1):
        for n in range(N + 1):
            i = m * (N + 1) + n
            tot = 0.0
            for (m2, n2, c, k) in model.transitions(m, n):
                r = float(c) * rho + float(k)
                rows.append(i)
                cols.append(m2 * (N + 1) + n2)
                vals.append(r)
                tot += r
            rows.append(i)
            cols.append(i)
            vals.append(-tot)
    S = (N + 1) ** 2
    return sp.csr_matrix((vals, (rows, cols)), shape=(S, S))


def generic_solve(model) -> np.ndarray:
    """One sparse LU on ``model.generator()``, not verified:
    :meth:`TwoQueueJSQ.generic_solve <symloss.twoqueue.jsq.TwoQueueJSQ.generic_solve>`.

    Parameters
    ----------
    model : TwoQueueJSQ
        The model.
    """
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla
    Q = model.generator().T.tocsr().tolil()
    S = Q.shape[0]
    Q[S - 1, :] = np.ones(S)
    b = np.zeros(S)
    b[-1] = 1.0
    x = spla.spsolve(sp.csc_matrix(Q), b)
    return x.reshape(model.N + 1, model.N + 1)


def chain_residual(model, p) -> float:
    """:meth:`TwoQueueJSQ.residual <symloss.twoqueue.jsq.TwoQueueJSQ.residual>`: from ``model.rules``
    (vectorised), or through
    ``model.generator()`` when ``transitions`` is overridden.

    Parameters
    ----------
    model : TwoQueueJSQ
        The model.
    p : array_like
        The float answer (its shape is checked).
    """
    p = np.asarray(p, dtype=float)
    if p.shape != (model.N + 1, model.N + 1):
        raise ValueError(f"p must have shape {(model.N + 1, model.N + 1)}, got {p.shape}")
    if model._rule_based():
        return balance_residual(p, float(model.rho), model.rules)
    Q = model.generator()
    x = p.ravel()
    out = -Q.diagonal() * x
    inflow = Q.T.dot(x) + out
    return _max_relative_gap(inflow, out, (x >= 1e-200) & (out > 0))


def level_probabilities(model):
    """The level law of :meth:`TwoQueueJSQ.level_probabilities <symloss.twoqueue.jsq.TwoQueueJSQ.level_probabilities>`,
    after checking
    that the level totals generated from ``model`` are ``(rho, K)`` (unless the stencil applies).

    Parameters
    ----------
    model : TwoQueueJSQ
        The model.
    """
    if not stencil_applies(model):
        k = model.kernels()
        k.require("aggregated", solver="level_probabilities")
        want_up = [(Fraction(1), Fraction(0))] * (2 * model.N) + [(Fraction(0), Fraction(0))]
        want_dn = [(Fraction(0), Fraction(K)) for K in range(2 * model.N + 1)]
        if k.up_total != want_up or k.down_total != want_dn:
            raise StructureError("level_probabilities: this definition's level totals are not "
                                 "(rho, K); its level law is not truncated Poisson")
    return level_law_float(model.N, model.rho)


def verify_float(model, P, how: str) -> float:
    """Raise :class:`~symloss.core.precision.PrecisionError` unless ``model.residual(P)`` is at most
    :data:`FLOAT_RESIDUAL_LIMIT`; return the residual.

    Parameters
    ----------
    model : TwoQueueJSQ
        The model whose balance equations are checked.
    P : numpy.ndarray
        The answer, ``(N + 1, N + 1)``.
    how : str
        Which solver produced it (for the message).
    """
    r = model.residual(P)
    if not r <= FLOAT_RESIDUAL_LIMIT:
        raise PrecisionError(f"float solver ({how}): the answer's residual on the model's balance "
                             f"equations is {r:.2e} > {FLOAT_RESIDUAL_LIMIT:.0e}; not returned")
    return r


def _contraction_error(diff: float, rate: float, its: int) -> float:
    """Error estimate of a converged sweep iteration from its last change and contraction rate."""
    err = 0.0 if diff == 0 else (diff * rate / (1.0 - rate) if rate < 1 else diff * its)
    return float(max(err, 0.0))


_REJECTED = "float solver (the numba stencil of the Yao-Knessl model): {reason}; not returned"


def solve_float(model, tol: float, maxiter: int) -> TwoQueueDistribution:
    """``method="float"`` of
    :meth:`TwoQueueJSQ.stationary_distribution <symloss.twoqueue.jsq.TwoQueueJSQ.stationary_distribution>`:
    the registry's flow (:func:`symloss.core.registry.dispatch`): the stencil (:data:`STENCIL`) when it
    applies, its answer verified on the model's balance equations, else :func:`solve_float_generic`.

    Parameters
    ----------
    model : TwoQueueJSQ
        The model.
    tol : float
        Max relative change per sweep at which the iteration stops.
    maxiter : int
        Largest number of sweeps.

    Returns
    -------
    TwoQueueDistribution
        The float64 joint law (``method="float"``), from the solver the registry picked.

    Raises
    ------
    PrecisionError
        If the iteration does not converge, or the stencil's answer fails its check on the model's
        balance equations (it is not returned).
    StructureError
        If no solver covers this definition (:func:`solve_float_generic`).
    """
    res, _ = dispatch("twoqueue", model, solve_float_generic, args=(tol, maxiter), rejected=_REJECTED,
                      on_reject=PrecisionError)
    return res


def solve_float_stencil(model, tol: float, maxiter: int) -> TwoQueueDistribution:
    """The fast path: Gauss-Seidel with exact level masses on the numba stencil of the Yao-Knessl model,
    verified on the model's balance equations (:func:`verify_float`).

    Parameters
    ----------
    model : TwoQueueJSQ
        A model whose rules are the stencil's (:func:`stencil_applies`).
    tol, maxiter : float, int
        The stopping rule, as in :func:`solve_float`.

    Returns
    -------
    TwoQueueDistribution
        The float64 joint law, its residual checked.
    """
    res = _stencil_solve(model, tol, maxiter)
    verify_float(model, res.p, "the numba stencil of the Yao-Knessl model")
    return res


def _stencil_solve(model, tol: float, maxiter: int) -> TwoQueueDistribution:
    kernels = numba_kernels()
    N = model.N
    rho = float(model.rho)
    off = kernels.layout(N)
    c = np.zeros(int(off[-1]))
    # start: the outer law c_K(d) ~ theta_K^d, theta_K = rho/(rho + 2K) (closed form (2) of
    # docs/twoqueue.md); it also sets the band of entries above the float range
    with np.errstate(under="ignore"):
        for K in range(2 * N + 1):
            d = np.arange(K % 2, _dmax(N, K) + 1, 2, dtype=float)
            th = rho / (rho + 2.0 * K) if K > 0 else 0.5
            lw = d * math.log(th)
            w = np.exp(lw - lw.max())
            c[off[K]:off[K + 1]] = w / w.sum()
    its, diff, rate = kernels.gs_solve(c, off, N, rho, tol, maxiter)
    if diff > tol:
        raise PrecisionError(f"float solver: no convergence to tol={tol} in {maxiter} sweeps "
                             f"(last change {diff:.2e}); use method='mp' (N <= 200)")
    res = kernels.residual(c, off, N, rho)
    level, logl = level_law_float(N, rho)
    P, LP = _assemble_lumped(N, c, off, level, logl)
    conds = [c[off[K]:off[K + 1]].copy() for K in range(2 * N + 1)]
    return TwoQueueDistribution(N=N, rho=model.rho, method="float", p=P, level=level,
                                conditional_levels=conds, residual=float(res),
                                error=_contraction_error(diff, rate, its), iterations=int(its), log_p=LP)


def _assemble_lumped(N, c, off, level, logl):
    """Joint law from lumped conditional vectors (symmetric definitions)."""
    P = np.zeros((N + 1, N + 1))
    LP = np.full((N + 1, N + 1), -np.inf)
    with np.errstate(divide="ignore", under="ignore"):
        for K in range(2 * N + 1):
            ds = np.arange(K % 2, _dmax(N, K) + 1, 2)
            cK = c[off[K]:off[K + 1]]
            half = np.where(ds > 0, 0.5, 1.0)
            lv = logl[K] + np.log(cK) + np.log(half)
            # a product of two accurate floats where pi_K is a normal number (exp of a float
            # log would lose |log p| * eps); the log form only where pi_K itself underflows
            v = level[K] * cK * half if level[K] > 1e-290 else np.exp(lv)
            ms = (K - ds) // 2
            ns = (K + ds) // 2
            LP[ms, ns] = lv
            LP[ns, ms] = lv
            P[ms, ns] = v
            P[ns, ms] = v
    return P, LP


def _assemble_generated(N, kern, c, off, level, logl):
    """Joint law from the level vectors of generated kernels (lumped or full states)."""
    P = np.zeros((N + 1, N + 1))
    LP = np.full((N + 1, N + 1), -np.inf)
    with np.errstate(divide="ignore", under="ignore"):
        for K, reps in enumerate(kern.states):
            cK = c[off[K]:off[K + 1]]
            for t, (i, j) in enumerate(reps):
                half = 0.5 if (kern.lumped and i != j) else 1.0
                lv = logl[K] + math.log(cK[t] * half) if cK[t] > 0 else -np.inf
                v = level[K] * cK[t] * half if level[K] > 1e-290 else math.exp(lv)
                P[i, j] = v
                LP[i, j] = lv
                if kern.lumped:
                    P[j, i] = v
                    LP[j, i] = lv
    return P, LP


def _sparse_lu_fallback(model, kern) -> TwoQueueDistribution:
    """A definition that is not level-adjacent and aggregated (small ``N``): one sparse LU."""
    N = model.N
    warnings.warn("TwoQueueJSQ: the definition is not level-adjacent and aggregated "
                  f"({'; '.join(kern.problems)}); method='float' uses the generic sparse LU",
                  RuntimeWarning, stacklevel=6)
    P = model.generic_solve()
    if (P < -1e-12).any():
        raise PrecisionError("generic sparse LU returned negative probabilities")
    P = np.maximum(P, 0.0)
    P /= P.sum()
    r = model.residual(P)
    level = np.bincount(np.add.outer(np.arange(N + 1), np.arange(N + 1)).ravel(),
                        weights=P.ravel(), minlength=2 * N + 1)
    return TwoQueueDistribution(N=N, rho=model.rho, method="float", p=P, level=level,
                                conditional_levels=None, residual=r, error=float("nan"),
                                iterations=1, log_p=None)


def solve_float_generic(model, tol: float, maxiter: int) -> TwoQueueDistribution:
    """``method="float"`` for a definition other than the stencil's: Gauss-Seidel on the generated kernels
    (adjacent, aggregated, irreducible definitions), else the sparse LU up to ``N =``
    :data:`SPARSE_LU_LIMIT` (a ``RuntimeWarning`` says so), else a
    :class:`~symloss.twoqueue.kernels.StructureError`; verified by :func:`verify_float`.

    Parameters
    ----------
    model : TwoQueueJSQ
        Any model up to ``N =`` :data:`GENERIC_FLOAT_LIMIT`.
    tol, maxiter : float, int
        The stopping rule, as in :func:`solve_float`.
    """
    N = model.N
    rho = float(model.rho)
    if N > GENERIC_FLOAT_LIMIT:
        raise StructureError(f"method='float' for a definition other than the Yao-Knessl stencil "
                             f"supports N <= {GENERIC_FLOAT_LIMIT}, got N={N}")
    if model._rule_based() and N > SPARSE_LU_LIMIT:
        far = [r.jump for r in model.rules if abs(r.jump[0] + r.jump[1]) > 1]
        if far:   # decided from the rule table alone, before generating (N+1)^2 states
            raise StructureError(f"method='float' for N > {SPARSE_LU_LIMIT} needs a level-adjacent "
                                 f"definition; the rules with jumps {far} change m+n by more than 1")
    kern = model.kernels()
    if not (kern.adjacent and kern.aggregated and kern.irreducible):
        if N > SPARSE_LU_LIMIT:
            kern.require("adjacent", "aggregated", "irreducible", solver="method='float'")
        if not kern.irreducible:
            kern.require("irreducible", solver="method='float'")
        return _sparse_lu_fallback(model, kern)
    c, off, level, logl, its, diff, rate = float_generic(kern, rho, tol, maxiter)
    if diff > tol:
        raise PrecisionError(f"float solver (generated kernels): no convergence to tol={tol} in "
                             f"{maxiter} sweeps (last change {diff:.2e})")
    P, LP = _assemble_generated(N, kern, c, off, level, logl)
    r = verify_float(model, P, "generated kernels")
    conds = [c[off[K]:off[K + 1]].copy() for K in range(2 * N + 1)] if kern.lumped else None
    return TwoQueueDistribution(N=N, rho=model.rho, method="float", p=P, level=level,
                                conditional_levels=conds, residual=float(r),
                                error=_contraction_error(diff, rate, its), iterations=int(its), log_p=LP)
