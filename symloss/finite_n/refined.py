r"""Refined mean field of any model: the :math:`1/N` and :math:`1/N^2` terms of the stationary blocking
(Gast & Van Houdt 2017; Gast, Bortolussi & Tribastone 2019), generated from the model's definition.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np

from ..core.precision import GUARD_DPS, agree_at_two_precisions, check_dps, dps_to_prec
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
    ``h(n/N)``): refuse models whose finite-N rates differ (sampling without replacement)."""
    if not hasattr(model, "finite_n_transitions"):
        return
    probe = N if N is not None else 1000
    d = getattr(model, "d", None)
    if sampling == "without_replacement" and isinstance(d, int) and probe < d:
        probe = max(d, 1000)
    if model.finite_n_transitions(probe, sampling) is not None or \
            model.finite_n_blocking_expr(probe, sampling) is not None:
        raise ValueError(f"refined_mean_field: the finite-N chain of {model!r} with sampling={sampling!r} is not the "
                         "mean-field rates times N (finite_n_transitions gives other rates), so the density-dependent "
                         "expansion does not describe it; use sampling='with_replacement'")


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
    :func:`exact_finite_n` / :func:`simulate`. JSQ (non-smooth drift) is refused. The expansion is
    not uniform in the load: where ``B`` is tiny compared with ``V/N`` it is no approximation.

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
        not density dependent (sampling without replacement), or the drift is not smooth (JSQ).

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
    r = _to_float(rho)
    fp_dps = 15 if dps is None else dps + 2 * GUARD_DPS
    fp = model.fixed_point(rho, dps=fp_dps)
    x = np.array([float(v) for v in fp.x])
    res = _expansion_float(T, x, r, order)
    V_mp = B_mp = None
    x_mp = []
    if dps is not None:
        x_mp = list(fp.x)

        def compute(work):
            with mpmath.workdps(work):
                return _first_order_arb(T, [mpmath.mpf(v) for v in fp.x], _mp_real(rho), dps_to_prec(work))
        V_mp = agree_at_two_precisions(compute, dps, what="refined_mean_field V")
        with mpmath.workdps(dps):
            B_mp = +mpmath.mpf(fp.blocking)
            x_mp = [+mpmath.mpf(v) for v in fp.x]
    d_attr = getattr(model, "d", None)
    method = RefinedMeanFieldResult.method
    if dps is not None:
        method += f"; fixed point (certified) and V at {dps} digits (mpmath)"
    return RefinedMeanFieldResult(
        model=getattr(model, "name", type(model).__name__), C=getattr(model, "C", None), d=d_attr, rho=r,
        variables=tuple(model.variables), blocking_mf=float(fp.blocking), V=res["V"], x_star=x,
        x_correction=res["a1"], covariance=res["S1"], conserved=T.conserved, N=N, method=method,
        W=res["W"], x_correction2=res["a2"], covariance2=res["S2"], order=order, dps=dps, V_mp=V_mp,
        blocking_mf_mp=B_mp, x_star_mp=x_mp, note=res["note"])
