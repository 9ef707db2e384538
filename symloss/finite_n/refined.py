r"""Refined mean field of any model: the :math:`1/N` and :math:`1/N^2` terms of the stationary blocking
(Gast & Van Houdt 2017; Gast, Bortolussi & Tribastone 2019), generated from the model's definition.

Size: a little over 600 lines because :func:`refined_mean_field` documents its whole method (the
moment equations, the precision, the levels dropped far below it: about 110 lines of docstring) next to
the refusals that say which assumption of the expansion a model breaks; the tables and the moment
equations are already in ``refined_tables`` and ``refined_moments``.
"""
from __future__ import annotations

from dataclasses import dataclass, field


import mpmath
import numpy as np
import sympy as sp

from ..core.model import RHO, define_model
from ..core.piecewise_pieces import switching_functions
from ..core.precision import GUARD_DPS, PrecisionError, agree_at_two_precisions, check_dps, dps_to_prec
from ..core.results import ResultMixin
from ..core.validation import check_choice, check_int, check_real
from ..meanfield.policies import policy_model
from .common import POLICIES, SAMPLINGS, _to_float

# the derivative tables and the moment equations, re-exported here (their old home)
from .refined_moments import (  # noqa: F401
    _expand,
    _expansion_float,
    _first_order_arb,
    _kron_sum_solve,
    _mp_real,
    _Point,
    _reduce,
    _second_order,
    _sym,
)
from .refined_tables import (  # noqa: F401
    _NONSMOOTH,
    _REFINED_CACHE,
    MAX_ORDER,
    _arb_matrix,
    _derivatives,
    _multiplicity,
    _Tables,
    _tables,
)

__all__ = ["RefinedMeanFieldResult", "refined_mean_field"]


_METHOD = ("refined mean field (Gast & Van Houdt 2017; Gast, Bortolussi & Tribastone 2019), moment "
           "equations of the generator expanded in 1/N, float64")


@dataclass
class RefinedMeanFieldResult(ResultMixin):
    r"""The expansion :math:`B_N = B + V/N + W/N^2 + o(N^{-2})` of the stationary blocking
    (:func:`refined_mean_field`).

    Parameters
    ----------
    blocking_mf : float
        Mean-field blocking :math:`B = h(x^*)` (``blocking_mf_mp``: at ``dps`` digits).
    V : float
        First-order coefficient (``V_mp``: at ``dps`` digits, checked at two working precisions).
    W : float or None
        Second-order coefficient (``None`` when ``order=1`` or where it is not defined; see
        ``note``).
    x_star : numpy.ndarray
        Fixed point (order of ``variables``; ``x_star_mp`` at ``dps`` digits).
    x_correction, x_correction2 : numpy.ndarray
        :math:`a_1, a_2` in :math:`E[X_N] = x^* + a_1/N + a_2/N^2 + o(N^{-2})`.
    covariance, covariance2 : numpy.ndarray
        :math:`\Sigma_1, \Sigma_2` in :math:`E[(X_N - x^*)(X_N - x^*)^T] = \Sigma_1/N + \Sigma_2/N^2 + \dots`
        (:math:`\Sigma_1` solves the Lyapunov equation).
    N : int or None
        When given, ``blocking_refined = B + V/N`` and ``blocking_refined2 = B + V/N + W/N^2``.
    model : str
        The model's repr.
    C, d : int or None
        Capacity and parameter of the model.
    rho : float
        Load per server.
    variables : tuple of sympy.Symbol
        The state variables.
    conserved : int
        Number of linear invariants removed.
    order : int
        ``1`` or ``2``.
    dps : int or None
        Digits of the multi-precision values (``None``: float64 only).
    V_mp, blocking_mf_mp : mpmath.mpf or None
        ``V`` and ``B`` at ``dps`` digits.
    x_star_mp : list of mpmath.mpf
        The fixed point at ``dps`` digits.
    method, note : str
        How the expansion was computed; why ``W`` is missing, if it is.
    """

    model: str
    C: int | None
    d: int | None
    rho: float
    variables: tuple
    blocking_mf: float
    V: float
    x_star: np.ndarray
    x_correction: np.ndarray
    covariance: np.ndarray
    conserved: int
    N: int | None = None
    method: str = _METHOD
    W: float | None = None
    x_correction2: np.ndarray | None = None
    covariance2: np.ndarray | None = None
    order: int = 1
    dps: int | None = None
    V_mp: object = None
    blocking_mf_mp: object = None
    x_star_mp: list = field(default_factory=list)
    note: str = ""

    def at(self, N, order: int = 1) -> float:
        """Refined approximation for ``N`` servers.

        Parameters
        ----------
        N : int
            Number of servers, ``>= 1``.
        order : {0, 1, 2}
            ``0``: the mean field :math:`B`; ``1``: :math:`B + V/N`; ``2``: :math:`B + V/N + W/N^2`.

        Returns
        -------
        float

        Raises
        ------
        ValueError
            If ``order=2`` and there is no second-order term.

        Examples
        --------
        >>> from symloss import PowerOfD, refined_mean_field
        >>> r = refined_mean_field(PowerOfD(2, 2), rho=1.0, dps=None)
        >>> round(r.at(10, order=2), 6)
        0.073657
        """
        N = check_int(N, "N", min_value=1)
        order = check_int(order, "order", min_value=0, max_value=2)
        if order == 0:
            return self.blocking_mf
        if order == 2:
            if self.W is None:
                raise ValueError(f"no second-order term: {self.note or 'computed with order=1'}")
            return self.blocking_mf + self.V / N + self.W / N ** 2
        return self.blocking_mf + self.V / N

    @property
    def blocking_refined(self):
        """:math:`B + V/N` at the ``N`` given to :func:`refined_mean_field` (``None`` without one)."""
        return None if self.N is None else self.at(self.N)

    @property
    def blocking_refined2(self):
        """:math:`B + V/N + W/N^2` at the ``N`` given (``None`` without ``N`` or ``W``)."""
        return None if (self.N is None or self.W is None) else self.at(self.N, 2)

    def to_dict(self) -> dict:
        """Plain data (the multi-precision values as ``dps``-digit strings), for JSON.

        Returns
        -------
        dict
        """
        n = self.dps or 17

        def mp(v):
            return None if v is None else mpmath.nstr(v, n)
        return {"model": self.model, "C": self.C, "d": self.d, "rho": self.rho,
                "variables": [str(v) for v in self.variables], "blocking_mf": self.blocking_mf,
                "V": self.V, "W": self.W, "order": self.order, "x_star": self.x_star.tolist(),
                "x_correction": self.x_correction.tolist(), "covariance": self.covariance.tolist(),
                "x_correction2": None if self.x_correction2 is None else self.x_correction2.tolist(),
                "covariance2": None if self.covariance2 is None else self.covariance2.tolist(),
                "conserved": self.conserved, "N": self.N, "blocking_refined": self.blocking_refined,
                "blocking_refined2": self.blocking_refined2, "dps": self.dps, "V_mp": mp(self.V_mp),
                "blocking_mf_mp": mp(self.blocking_mf_mp), "x_star_mp": [mp(v) for v in self.x_star_mp],
                "method": self.method, "note": self.note}


def _model_from_policy(policy, C, d):
    """The shipped model of a policy name (:func:`symloss.meanfield.policies.policy_model`), after this
    function's own checks (``d`` must be ``None`` for ``"random"`` and ``"jsq"``)."""
    check_choice(policy, "policy", POLICIES)
    C = check_int(C, "C", min_value=1)
    if policy in ("random", "jsq"):
        if d is not None:
            raise ValueError(f"d must be None for policy {policy!r}, got {d!r}")
        return policy_model(policy, C)
    if d is None:
        raise ValueError(f"d is required for policy {policy!r}")
    return policy_model(policy, C, check_int(d, "d", min_value=1))


# --------------------------------------------------------------------------------------------------
# the public function
# --------------------------------------------------------------------------------------------------

def _check_density_dependent(model, sampling, N):
    """The expansion is that of a density-dependent chain (rates ``N beta(n/N)``, loss probability
    ``h(n/N)``, ``beta`` and ``h`` twice differentiable): refuse, naming what fails, a switching model,
    other finite-N rates (sampling without replacement) or a loss probability declared apart."""
    probe = N if N is not None else 1000
    d = getattr(model, "d", None)
    if sampling == "without_replacement" and isinstance(d, int) and probe < d:
        probe = max(d, 1000)
    trs = model.finite_n_transitions(probe, sampling) if hasattr(model, "finite_n_transitions") else None
    blk = model.finite_n_blocking_expr(probe, sampling) if hasattr(model, "finite_n_blocking_expr") else None
    surf = switching_functions([sp.sympify(r) for _j, r in model.transitions()] + [sp.sympify(model.blocking_expr())],
                               list(model.variables))
    if surf:
        raise ValueError(
            f"refined_mean_field: {model!r} switches (its rates or blocking are not smooth across "
            f"{', '.join(f'{s} = 0' for s in surf)}): the expansion in 1/N needs twice differentiable rates and "
            "blocking at the fixed point, whatever the sampling" + (
                "; its finite_n_blocking is the per-state loss indicator of the finite-N chain, not a smooth "
                "function of the state" if blk is not None else "") + "; for finite N use exact_finite_n or simulate")
    if trs is not None:
        other = [s for s in SAMPLINGS if s != sampling and model.finite_n_transitions(probe, s) is None]
        raise ValueError(
            f"refined_mean_field: the finite-N chain of {model!r} with sampling={sampling!r} is not the mean-field "
            "rates times N (finite_n_transitions gives other rates), so the density-dependent expansion does not "
            "describe it; " + (f"use sampling={other[0]!r}" if other else
                               "for finite N use exact_finite_n or simulate"))
    if blk is not None:
        raise ValueError(
            f"refined_mean_field: {model!r} declares its finite-N loss probability apart from its blocking "
            "(finite_n_blocking), and the expansion gives E[blocking_expr(X_N / N)], not that loss; define the model "
            "without finite_n_blocking if blocking_expr at n / N is the loss, else use exact_finite_n or simulate")


# --------------------------------------------------------------------------------------------------
# levels far below the working precision (unbounded queues truncated at a large buffer)
# --------------------------------------------------------------------------------------------------

#: the second-order Kronecker-sum system is solved densely (no eigenvectors) up to this many reduced
#: coordinates (``r^3`` unknowns)
DENSE_KRONECKER_MAX = 16


def _kron_sum_dense(Ar, B, k):
    """Solve :math:`(A \\oplus \\dots \\oplus A) X = B` for a ``k``-tensor as one dense linear system
    (LU, no diagonalisation: a Jacobian with nearly equal eigenvalues, e.g. the deep levels of a
    supermarket tail where every diagonal entry is ``-1``, has ill-conditioned eigenvectors but a
    well-conditioned Kronecker sum); the residual is checked."""
    r = Ar.shape[0]
    M = np.zeros((r ** k, r ** k))
    eye = np.eye(r)
    for ax in range(k):
        term = np.ones((1, 1))
        for j in range(k):
            term = np.kron(term, Ar if j == ax else eye)
        M += term
    X = np.linalg.solve(M, B.reshape(-1)).reshape(B.shape)
    res = sum(np.moveaxis(np.tensordot(Ar, X, axes=(1, ax)), 0, ax) for ax in range(k)) - B
    if np.max(np.abs(res)) > 1e-9 * max(1.0, np.max(np.abs(B))):
        raise ArithmeticError("the dense Kronecker-sum solve left a large residual")
    return X


def _second_order_dense(T, x, r, out):
    """The second-order term of :func:`_expansion_float` (:func:`_second_order`, the same equations,
    with the order-3 system solved by :func:`_kron_sum_dense`), from the first-order moments in
    ``out``; fills ``W``, ``a2``, ``S2``."""
    vals = np.asarray(T.f_np(*x, r), dtype=float).ravel()
    pt = _Point(T, vals)
    Ar = T.L @ pt.jacobian() @ T.P
    tl, _ms, beta = pt.group("rate", 0)
    Q = np.einsum("t,ta,tb->ab", beta, T.jumps[tl], T.jumps[tl])
    W, a2, S2 = _second_order(T, pt, Ar, Q, out["a1"], out["S1"], _kron_sum_dense)
    out.update(W=W, a2=a2, S2=S2, note="")


def _expansion(T, x, r, order):
    """:func:`_expansion_float`, with the second order solved densely where the reduced Jacobian's
    eigenvectors are too ill-conditioned for the diagonalising solver."""
    out = _expansion_float(T, x, r, order)
    if order == 2 and out["W"] is None and "ill-conditioned" in out["note"]:
        if T.P.shape[1] > DENSE_KRONECKER_MAX:
            out["note"] += (f"; the dense Kronecker-sum solve is limited to {DENSE_KRONECKER_MAX} reduced "
                            f"coordinates (here {T.P.shape[1]})")
            return out
        try:
            _second_order_dense(T, x, r, out)
        except (ArithmeticError, np.linalg.LinAlgError) as exc:
            out["note"] = f"second-order term not computed: {exc}"
    return out


def negligible_level_threshold(digits: int):
    """The state values below which a coordinate of the fixed point is dropped by
    :func:`refined_mean_field`: :math:`10^{-(2\\,digits + 10)}` (``digits``: ``dps``, or 17 for float64).

    Parameters
    ----------
    digits : int
        The digits of ``V`` and ``W`` aimed at.

    Returns
    -------
    mpmath.mpf

    Examples
    --------
    >>> import mpmath; mpmath.nstr(negligible_level_threshold(17), 3)
    '1.0e-44'
    """
    return mpmath.mpf(10) ** (-(2 * digits + 10))


def _drop_levels(model, x, tau, rho, keep_extra: int = 0):
    """The sub-model on the coordinates whose fixed-point value is not negligible (see
    :func:`refined_mean_field`), or ``None`` when nothing can be dropped.

    ``x`` are the fixed point's values (mpf), ``tau`` the threshold, ``rho`` the load; ``keep_extra``
    keeps that many of the largest negligible coordinates too (the a-posteriori check)."""
    if model.invariants() or not hasattr(model, "_checked_transitions"):
        return None
    vars_ = list(model.variables)
    tiny = [i for i, v in enumerate(x) if abs(v) < tau]
    tiny = sorted(tiny, key=lambda i: -abs(x[i]))[keep_extra:]
    if not tiny:
        return None
    drop = set(tiny)
    keep = [i for i in range(len(vars_)) if i not in drop]
    if not keep:
        return None
    zero = {vars_[i]: 0 for i in drop}
    at = {v: sp.Float(x[i], 30) for i, v in enumerate(vars_)}
    at[RHO] = sp.Float(_mp_real(rho), 30)
    trs = []
    for jump, rate in model._checked_transitions:
        on_d = any(jump[i] != 0 for i in drop)
        on_s = any(jump[i] != 0 for i in keep)
        if on_d and on_s:
            return None          # a transition moves both kinds of coordinates: the reduction is not exact
        free = rate.free_symbols
        if on_d:
            value = rate.xreplace({v: at[v] for v in free if v in at})
            if not (value.is_number and bool(abs(value) < sp.Float(tau, 30))):
                return None      # a transition that moves a dropped coordinate is not negligible at x*
        if on_s:
            rt = rate.xreplace({v: 0 for v in free if v in zero})
            if rt != 0:
                trs.append((sp.Matrix([jump[i] for i in keep]), rt))
    S = [vars_[i] for i in keep]
    h = model._blocking.xreplace({v: 0 for v in model._blocking.free_symbols if v in zero})
    tail_prefix = getattr(model, "state_kind", "custom") == "tail" and keep == list(range(len(keep)))
    sub = define_model(f"{getattr(model, 'name', type(model).__name__)} (levels > {len(keep)} dropped)"
                       if tail_prefix else f"{getattr(model, 'name', type(model).__name__)} (reduced)",
                       S, trs, blocking=h,
                       state_kind="tail" if tail_prefix else "custom", C=len(keep) if tail_prefix else None)
    return sub, keep


def _expansion_on(model, rho, dps, order, fp=None):
    """``(fp, T, res, V_mp)`` of one model: the fixed point (computed unless given), the tables, the
    float expansion and, with ``dps``, ``V`` at ``dps`` digits."""
    T = _tables(model)
    if fp is None:
        fp = model.fixed_point(rho, dps=15 if dps is None else dps + 2 * GUARD_DPS)
    x = np.array([float(v) for v in fp.x])
    res = _expansion(T, x, _to_float(rho), order)
    V_mp = None
    if dps is not None:
        def compute(work):
            with mpmath.workdps(work):
                return _first_order_arb(T, [mpmath.mpf(v) for v in fp.x], _mp_real(rho), dps_to_prec(work))
        V_mp = agree_at_two_precisions(compute, dps, what="refined_mean_field V")
    return fp, T, res, V_mp


def _reduced_expansion(model, rho, dps, order, fp, reduced):
    """The expansion of the sub-model of :func:`_drop_levels`, checked against keeping one more
    coordinate: ``(res, V_mp, note)`` (moments padded with zeros), or a string saying why it is not
    used."""
    sub, keep = reduced
    n = len(model.variables)
    tau = negligible_level_threshold(17 if dps is None else dps)
    if sub.blocking_expr() == 0:
        return (f"the {n - len(keep)} coordinates below {mpmath.nstr(tau, 3)} at the fixed point carry the "
                "whole measure (it vanishes without them), so they cannot be dropped")
    _f, _t, res, V_mp = _expansion_on(sub, rho, dps, order)
    check = _drop_levels(model, list(fp.x), tau, rho, keep_extra=1)
    if check is not None:
        _f2, _t2, res2, V2 = _expansion_on(check[0], rho, dps, order)
        bad = abs(res2["V"] - res["V"]) > 1e-12 * (1.0 + abs(res["V"]))
        if V_mp is not None:
            bad = bad or abs(V2 - V_mp) > mpmath.mpf(10) ** (-dps) * abs(V_mp)
        if order == 2 and res["W"] is not None and res2["W"] is not None:
            bad = bad or abs(res2["W"] - res["W"]) > 1e-9 * (1.0 + abs(res["W"]))
        if bad:
            return (f"dropping the {n - len(keep)} coordinates below {mpmath.nstr(tau, 3)} changes V or W "
                    f"(V = {res['V']!r} vs {res2['V']!r} with one more kept)")
    for key in ("a1", "a2", "S1", "S2"):
        res[key] = _pad(res[key], keep, n)
    worst = max(abs(fp.x[i]) for i in range(n) if i not in keep)
    note = (f"{n - len(keep)} coordinates with fixed-point values <= {mpmath.nstr(worst, 3)} (below "
            f"{mpmath.nstr(tau, 3)}) dropped: V, W are those of the sub-model on the other {len(keep)} "
            "(agreeing with keeping one more)")
    return res, V_mp, note


def _pad(v, keep, n):
    if v is None:
        return None
    v = np.asarray(v)
    out = np.zeros((n,) * v.ndim)
    out[np.ix_(*([keep] * v.ndim))] = v
    return out

RHO_MAX = 1e12      # measured: V, W agree at two precisions up to 1e12; from ~1e15 they do not


def refined_mean_field(policy, *, rho, C=None, d=None, N=None, dps: int | None = 30, order: int = 2,
                       sampling: str = "with_replacement") -> RefinedMeanFieldResult:
    r"""Refined mean field of any model: the :math:`1/N` and :math:`1/N^2` terms of the blocking.

    For a density-dependent population process (state :math:`x = n/N`, jumps :math:`x \to x + \ell/N`
    at rate :math:`N \beta_\ell(x)`, drift :math:`f = \sum_\ell \ell \beta_\ell`) with an exponentially
    stable fixed point :math:`x^*` and smooth rates and blocking ``h``,

    .. math::

        E[h(X_N)] = h(x^*) + \frac{V}{N} + \frac{W}{N^2} + o(N^{-2})

    (Gast & Van Houdt 2017, Theorem 3.1; Gast, Bortolussi & Tribastone 2019 for the second order).
    With :math:`Z = X_N - x^*`, the moments :math:`E[Z] = a_1/N + a_2/N^2`,
    :math:`E[Z^{\otimes 2}] = \Sigma_1/N + \Sigma_2/N^2`, :math:`E[Z^{\otimes 3}] = c/N^2`,
    :math:`E[Z^{\otimes 4}] = D/N^2` solve the stationarity equations :math:`E[L_N Z^{\otimes k}] = 0`
    of the generator expanded in :math:`1/N` (``A = Df(x^*)``, :math:`Q = \sum \ell\ell^T\beta_\ell`,
    :math:`R = \sum \ell^{\otimes 3}\beta_\ell`, :math:`\oplus^k A` = ``A`` acting on each index):

    .. math::

        A\Sigma_1 + \Sigma_1 A^T + Q = 0, \qquad A a_1 + \tfrac12 D^2f{:}\Sigma_1 = 0,
        \qquad D = 3\,\mathrm{sym}(\Sigma_1 \otimes \Sigma_1),

        (\oplus^3 A)\, c + \tfrac32 \mathrm{sym}(D^2 f{:}D) + 3\,\mathrm{sym}(a_1 \otimes Q)
            + 3\,\mathrm{sym}(\Sigma_1 \cdot DQ) + R = 0,

        A\Sigma_2 + \Sigma_2 A^T + U + U^T + DQ{\cdot}a_1 + \tfrac12 D^2Q{:}\Sigma_1 = 0, \quad
        U = \tfrac12 D^2f{:}c + \tfrac16 D^3f{:}D,

        A a_2 + \tfrac12 D^2f{:}\Sigma_2 + \tfrac16 D^3f{:}c + \tfrac1{24} D^4f{:}D = 0,

    and :math:`V = Dh\,a_1 + \tfrac12 D^2h{:}\Sigma_1`,
    :math:`W = Dh\,a_2 + \tfrac12 D^2h{:}\Sigma_2 + \tfrac16 D^3h{:}c + \tfrac1{24}D^4h{:}D`. Linear
    invariants are removed exactly: with ``P`` a rational basis of the span of the jumps and ``L``
    its left inverse, every equation is solved in the reduced coordinates (``L A P``; the
    Kronecker-sum system by diagonalisation, residual checked). All derivatives are generated from
    the definition (SymPy, only with respect to the variables each rate depends on).

    Precision: everything in float64; in addition, with ``dps``, the fixed point (certified, from
    ``model.fixed_point``) and ``V`` at ``dps`` digits (``V_mp``: mpmath, Lyapunov equation by
    mixed-precision iterative refinement, the value checked at two working precisions).

    The finite-N chain must be the mean-field rates times ``N`` (the shipped policies with
    ``sampling="with_replacement"``); then :math:`B_N = E[h(X_N)]` and the expansion approximates
    :func:`exact_finite_n` / :func:`simulate`. A switching model (JSQ, JIQ) is refused. The expansion is
    not uniform in the load: where ``B`` is tiny compared with ``V/N`` it is no approximation.

    Where the reduced Jacobian has nearly equal eigenvalues (the deep levels of a supermarket tail,
    every diagonal entry close to ``-1``), its eigenvectors are too ill-conditioned for the
    diagonalising solve of the order-3 system; that system is then solved as one dense linear system
    (up to ``DENSE_KRONECKER_MAX`` reduced coordinates).

    **Coordinates far below the working precision** (an unbounded queue truncated at a large buffer,
    :meth:`symloss.core.unbounded.UnboundedTailModel.truncated`: at buffer 40 and load 0.9 the power-of-2 tails reach
    :math:`10^{-5 \cdot 10^{10}}`). Only when the whole model fails (an error, or no ``W``), the set
    ``D`` of coordinates with :math:`x^*_i < \tau = 10^{-(2\,digits + 10)}` (``digits = dps``, 17 for
    float64) is dropped, if every transition that moves a coordinate of ``D`` moves only coordinates of
    ``D`` and has a rate below :math:`\tau` at :math:`x^*`: the expansion is computed on the sub-model
    (``x_D = 0``, those transitions removed). The argument: at :math:`x_D = 0` the moment equations of
    the other coordinates are those of the sub-model, and ``D`` enters them only through moments with
    an index in ``D``. The largest of these is the mean correction of the first dropped level, driven
    by the covariance of the last kept level through the second derivative of the rate into ``D``
    (supermarket: :math:`E[u_{k+1}] \approx \lambda E[u_k^d]` with :math:`\mathrm{Var}(u_k) \sim u_k/N`,
    so for d >= 2 it is of order :math:`u_K^{d-1} \le (\tau/\lambda)^{(d-1)/d} \le \sqrt{\tau/\lambda}`, about
    :math:`10^{-(digits+5)}`); the moments further down are smaller still. So ``V`` and ``W`` change by
    that order times the condition of the moment equations. The condition is not bounded here;
    instead the result is recomputed keeping the largest dropped coordinate (which measures the
    leading term) and must agree (``V`` to :math:`10^{-12}`, ``W`` to :math:`10^{-9}` relative, ``V_mp``
    to :math:`10^{-dps}` relative), else ``PrecisionError``. The same mechanism means a truncation
    whose *last kept* level is not negligible changes ``V`` at the order of that level (buffer 8 against
    9 at load 0.9: :math:`4 \cdot 10^{-11}` with :math:`u_8 = 2 \cdot 10^{-12}`): for the refined mean
    field take a buffer whose last levels are below :math:`10^{-digits}`, e.g. 40. The ``note`` says
    what was dropped; the moments are padded with zeros. A measure that vanishes without ``D`` (the
    loss probability of the buffer) is refused with that reason: its ``V`` is made of the dropped
    levels only.

    Parameters
    ----------
    policy : MeanFieldModel or str
        A model (any object with ``variables``, ``transitions()``, ``blocking_expr()``,
        ``fixed_point(rho, dps=)``), or "random", "retrial", "power" with ``C``, ``d``.
    rho : float
        Load per server, ``0 < rho <= 1e12`` (``RHO_MAX``; beyond it a ``ValueError``).
    C, d : int
        Only with a policy name.
    N : int, optional
        If given, ``blocking_refined`` and ``blocking_refined2`` are filled in.
    dps : int or None
        Digits of the fixed point and of ``V_mp``; ``None``: float64 only (fastest).
    order : {1, 2}
        ``2`` also computes ``W``.
    sampling : str
        Checked: the expansion needs the density-dependent chain.

    Returns
    -------
    RefinedMeanFieldResult
        ``B``, ``V``, ``W`` and the moments behind them.

    Raises
    ------
    TypeError
        If an integer argument is not an integer.
    ValueError
        If an argument is out of range, ``C``/``d`` are given with a model, the finite-N chain is
        not density dependent (sampling without replacement, a declared ``finite_n_blocking``), or the
        rates are not smooth (a switching model: JSQ, JIQ, threshold policies).

    See Also
    --------
    symloss.exact_finite_n, symloss.simulate

    References
    ----------
    .. [1] N. Gast, B. Van Houdt, "A refined mean field approximation", Proceedings of the ACM on
       Measurement and Analysis of Computing Systems 1(2), article 33 (2017).
    .. [2] N. Gast, L. Bortolussi, M. Tribastone, "Size expansions of mean field approximation:
       transient and steady-state analysis", Performance Evaluation 129 (2019).

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> r = refined_mean_field(PowerOfD(2, 2), rho=1.0, dps=20)
    >>> round(r.V, 6), round(r.W, 4)
    (0.222508, -0.1629)
    >>> import mpmath; mpmath.nstr(r.V_mp, 20)
    '0.22250844019909291641'
    """
    if isinstance(policy, str):
        model = _model_from_policy(policy, C, d)
    else:
        model = policy
        if C is not None or d is not None:
            raise ValueError("C and d are given by the model object; pass them only with a policy name")
    check_real(rho, "rho", lower=0, lower_open=True)
    if rho > RHO_MAX:
        raise ValueError(f"rho must be in (0, {RHO_MAX:.0e}] for refined_mean_field, got rho={float(rho):.3g}: beyond "
                         f"it the float64 expansion (rates of size rho against O(1) differences) loses the digits "
                         f"of V and W; the blocking there is 1 - O(1/rho) (use the mean-field blocking)")
    check_choice(sampling, "sampling", SAMPLINGS)
    order = check_int(order, "order", min_value=1, max_value=2)
    if dps is not None:
        dps = check_dps(dps)
    if N is not None:
        N = check_int(N, "N", min_value=1)
    _check_density_dependent(model, sampling, N)
    T = _tables(model)
    fp_dps = 15 if dps is None else dps + 2 * GUARD_DPS
    fp = model.fixed_point(rho, dps=fp_dps)
    note_drop = ""
    failure = None
    try:
        _fp, _T, res, V_mp = _expansion_on(model, rho, dps, order, fp)
        needed = order == 2 and res["W"] is None and "ill-conditioned" in res["note"]
    except (PrecisionError, ArithmeticError) as exc:
        failure, needed = exc, True
    # only where the whole model fails: drop the coordinates that are negligible at the fixed point
    tau = negligible_level_threshold(17 if dps is None else dps)
    reduced = _drop_levels(model, list(fp.x), tau, rho) if needed else None
    if reduced is not None:
        got = _reduced_expansion(model, rho, dps, order, fp, reduced)
        if isinstance(got, str):
            if failure is not None:
                raise type(failure)(f"{failure}; {got}") from None
            res["note"] += f"; {got}"
        else:
            res, V_mp, note_drop = got
    elif failure is not None:
        raise failure
    x = np.array([float(v) for v in fp.x])
    B_mp = None
    x_mp = []
    if dps is not None:
        with mpmath.workdps(dps):
            B_mp = +mpmath.mpf(fp.blocking)
            x_mp = [+mpmath.mpf(v) for v in fp.x]
    d_attr = getattr(model, "d", None)
    method = RefinedMeanFieldResult.method
    if dps is not None:
        method += f"; fixed point (certified) and V at {dps} digits (mpmath)"
    note = "; ".join(t for t in (res["note"], note_drop) if t)
    return RefinedMeanFieldResult(
        model=getattr(model, "name", type(model).__name__), C=getattr(model, "C", None), d=d_attr, rho=_to_float(rho),
        variables=tuple(model.variables), blocking_mf=float(fp.blocking), V=res["V"], x_star=x,
        x_correction=res["a1"], covariance=res["S1"], conserved=T.conserved, N=N, method=method,
        W=res["W"], x_correction2=res["a2"], covariance2=res["S2"], order=order, dps=dps, V_mp=V_mp,
        blocking_mf_mp=B_mp, x_star_mp=x_mp, note=note)
