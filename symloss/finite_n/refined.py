"""Refined mean field (Gast & Van Houdt 2017): the 1/N expansion of the stationary blocking.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.results import ResultMixin
from ..core.validation import check_choice, check_int, check_real
from .common import POLICIES, _to_float

# --------------------------------------------------------------------------------------------------
# refined mean field (Gast & Van Houdt 2017)
# --------------------------------------------------------------------------------------------------

@dataclass
class RefinedMeanFieldResult(ResultMixin):
    r"""The 1/N expansion :math:`B_N = B + V/N + O(1/N^2)` of the stationary blocking
    (:func:`refined_mean_field`).

    Attributes
    ----------
    blocking_mf : float
        Mean-field blocking :math:`B = h(x^*)`.
    V : float
        First-order coefficient.
    x_star : numpy.ndarray
        Fixed point (order of ``variables``).
    x_correction : numpy.ndarray
        :math:`c` in :math:`E[X_N] = x^* + c/N + O(1/N^2)`.
    covariance : numpy.ndarray
        :math:`W`, the limit of :math:`N\,\mathrm{Cov}(X_N)` (Lyapunov solution).
    N : int or None
        When given, ``blocking_refined = B + V/N``.
    """

    model: str
    C: int
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
    method: str = ("refined mean field (Gast & Van Houdt 2017): linear-noise Lyapunov equation and "
                   "second-order drift expansion, float64")

    def at(self, N) -> float:
        """Refined approximation :math:`B + V/N` for ``N`` servers."""
        N = check_int(N, "N", min_value=1)
        return self.blocking_mf + self.V / N

    @property
    def blocking_refined(self):
        return None if self.N is None else self.at(self.N)

    def to_dict(self) -> dict:
        return {"model": self.model, "C": self.C, "d": self.d, "rho": self.rho,
                "variables": [str(v) for v in self.variables], "blocking_mf": self.blocking_mf,
                "V": self.V, "x_star": self.x_star.tolist(),
                "x_correction": self.x_correction.tolist(), "covariance": self.covariance.tolist(),
                "conserved": self.conserved, "N": self.N, "blocking_refined": self.blocking_refined,
                "method": self.method}


_REFINED_CACHE: dict = {}


def _model_from_policy(policy, C, d):
    from .. import meanfield
    check_choice(policy, "policy", POLICIES)
    C = check_int(C, "C", min_value=1)
    if policy == "random":
        if d is not None:
            raise ValueError(f"d must be None for policy 'random', got {d!r}")
        return meanfield.RandomRouting(C)
    if policy == "jsq":
        if d is not None:
            raise ValueError(f"d must be None for policy 'jsq', got {d!r}")
        return meanfield.JSQ(C)
    if d is None:
        raise ValueError(f"d is required for policy {policy!r}")
    d = check_int(d, "d", min_value=1)
    return meanfield.RetrialOfD(C, d) if policy == "retrial" else meanfield.PowerOfD(C, d)


def _refined_evaluators(model):
    """Lambdified Jacobian, second derivatives of the drift, transition covariance and the
    derivatives of the blocking, built once per model (key: class, C, d, variables)."""
    import sympy as sp
    key = (type(model).__module__, type(model).__qualname__, getattr(model, "C", None),
           getattr(model, "d", None), tuple(str(v) for v in model.variables))
    if key in _REFINED_CACHE:
        return _REFINED_CACHE[key]
    xs = list(model.variables)
    rho = model.rho
    f = sp.Matrix(model.drift())
    n = len(xs)
    exprs = [f] + [f.jacobian(xs)]
    for e in list(f) + [model.blocking_expr()]:
        if e.has(sp.Heaviside, sp.Max, sp.Min, sp.Abs, sp.Piecewise, sp.sign):
            raise ValueError(f"the refined mean field needs a twice differentiable drift and "
                             f"blocking; model {model!r} is not smooth ({e})")
    hess = [sp.hessian(fi, xs) for fi in f]
    trans = model.transitions()
    jumps = np.array([[float(v) for v in jump] for jump, _ in trans])     # (m, n)
    rates = [rate for _, rate in trans]
    h = model.blocking_expr()
    gh = sp.Matrix([h]).jacobian(xs)
    hh = sp.hessian(h, xs)
    args = xs + [rho]
    ev = {
        "f": sp.lambdify(args, f, "numpy"),
        "A": sp.lambdify(args, exprs[1], "numpy"),
        "B": sp.lambdify(args, hess, "numpy"),
        "rates": sp.lambdify(args, rates, "numpy"),
        "h": sp.lambdify(args, h, "numpy"),
        "gh": sp.lambdify(args, gh, "numpy"),
        "hh": sp.lambdify(args, hh, "numpy"),
        "jumps": jumps,
        "n": n,
    }
    _REFINED_CACHE[key] = ev
    return ev


def refined_mean_field(policy, *, rho, C=None, d=None, N=None, dps: int = 30) -> RefinedMeanFieldResult:
    r"""First-order 1/N correction of the mean-field blocking (refined mean field).

    For a density-dependent population process (state :math:`x = n/N`, jumps :math:`x \to x + \ell/N`
    at rate :math:`N \beta_\ell(x)`, drift :math:`f = \sum_\ell \ell \beta_\ell`) with an exponentially
    stable fixed point :math:`x^*`, Gast & Van Houdt (2017, Theorem 3.1) show that for smooth ``h``

    .. math::

        E[h(X_N)] = h(x^*) + \frac{V}{N} + O(N^{-2}), \qquad
        V = \sum_i \partial_i h\, c_i + \tfrac12 \sum_{j,k} \partial^2_{jk} h\, W_{jk},

    where :math:`A = Df(x^*)`, :math:`Q = \sum_\ell \ell \ell^T \beta_\ell(x^*)`, ``W`` solves the
    Lyapunov equation :math:`A W + W A^T + Q = 0` and
    :math:`c = -A^{-1} \tfrac12 \sum_{j,k} \partial^2_{jk} f\, W_{jk}`. Linear invariants
    (e.g. :math:`\sum_k x_k = 1`) are removed first: with ``P`` an orthonormal basis of the space
    orthogonal to every vector annihilating all jumps, ``A``, ``Q`` are replaced by
    :math:`P^T A P`, :math:`P^T Q P`.

    Here ``h`` is the model's ``blocking_expr()``. For "retrial" and "power" with sampling **with
    replacement** the finite-N chain has exactly the mean-field rates, so :math:`B_N = E[h(X_N)]`
    and ``B + V/N`` approximates the finite-N blocking of :func:`simulate` / :func:`exact_finite_n`
    (``sampling="with_replacement"``) with an :math:`O(N^{-2})` error. JSQ has a discontinuous
    drift: not covered (ValueError).

    Parameters
    ----------
    policy : str or model
        "random", "retrial", "power" (with ``C``, ``d``), or any object with the mean-field model
        interface of :mod:`symloss.meanfield` (``variables``, ``rho``, ``drift()``,
        ``transitions()``, ``blocking_expr()``, ``fixed_point(rho, dps=)``).
    rho : float
        Load.
    C, d : int
        Capacity and attempts / samples (only with a policy name).
    N : int, optional
        If given, ``blocking_refined = B + V/N`` is filled in.
    dps : int
        Digits of the fixed point (the expansion itself is computed in float64).

    Returns
    -------
    RefinedMeanFieldResult

    References
    ----------
    N. Gast, B. Van Houdt, "A refined mean field approximation", Proc. ACM Meas. Anal. Comput. Syst.
    1(2), 33 (2017).
    """
    from scipy.linalg import null_space, solve_continuous_lyapunov
    if isinstance(policy, str):
        model = _model_from_policy(policy, C, d)
    else:
        model = policy
        if C is not None or d is not None:
            raise ValueError("C and d are given by the model object; pass them only with a policy name")
    check_real(rho, "rho", lower=0, lower_open=True)
    if N is not None:
        N = check_int(N, "N", min_value=1)
    ev = _refined_evaluators(model)
    fp = model.fixed_point(rho, dps=dps)
    x = np.array([float(v) for v in fp.x])
    r = _to_float(rho)
    args = list(x) + [r]
    n = ev["n"]
    A = np.array(ev["A"](*args), dtype=float).reshape(n, n)
    Bt = np.array(ev["B"](*args), dtype=float).reshape(n, n, n)       # B[i, j, k] = d2 f_i / dx_j dx_k
    rates = np.array(ev["rates"](*args), dtype=float).ravel()
    L = ev["jumps"]
    Qm = (L.T * rates) @ L
    drift = np.array(ev["f"](*args), dtype=float).ravel()
    if np.max(np.abs(drift)) > 1e-8 * max(1.0, np.max(np.abs(L.T @ np.abs(rates)))):
        raise ArithmeticError(f"refined_mean_field: the drift at the fixed point is not zero "
                              f"(max {np.max(np.abs(drift)):.3g})")
    # linear invariants: c with c . jump = 0 for every jump
    Cons = null_space(L) if L.shape[0] else np.eye(n)
    P = null_space(Cons.T) if Cons.shape[1] else np.eye(n)
    Ar = P.T @ A @ P
    eig = np.linalg.eigvals(Ar)
    if not np.all(eig.real < 0):
        raise ArithmeticError(f"refined_mean_field: the fixed point is not exponentially stable "
                              f"(Jacobian eigenvalues {eig})")
    Wr = solve_continuous_lyapunov(Ar, -(P.T @ Qm @ P))
    W = P @ Wr @ P.T
    W = 0.5 * (W + W.T)
    BW = np.einsum("ijk,jk->i", Bt, W)
    c = -P @ np.linalg.solve(Ar, P.T @ (0.5 * BW))
    gh = np.array(ev["gh"](*args), dtype=float).ravel()
    hh = np.array(ev["hh"](*args), dtype=float).reshape(n, n)
    V = float(gh @ c + 0.5 * np.sum(hh * W))
    Bmf = float(fp.blocking)
    d_attr = getattr(model, "d", None)
    return RefinedMeanFieldResult(model=getattr(model, "name", type(model).__name__),
                                  C=getattr(model, "C", None),
                                  d=d_attr if getattr(model, "name", "") in ("retrial", "power") else d_attr,
                                  rho=r, variables=tuple(model.variables), blocking_mf=Bmf, V=V,
                                  x_star=x, x_correction=c, covariance=W, conserved=Cons.shape[1], N=N)


