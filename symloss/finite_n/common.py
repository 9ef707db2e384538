"""Finite-N loss systems: policy names, sampling conventions and argument checks shared by the
simulator, the exact chain, the refined mean field and the finite-N threshold.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.docstrings import fill_doc
from ..core.model import MeanFieldModel
from ..core.validation import check_choice, check_int, check_real, integer, real_array, real_float
from ..meanfield.policies import POLICIES, policy_model
from .chain import SAMPLINGS, finite_n_chain

__all__ = ["N_BATCHES", "POLICIES", "SAMPLINGS", "conditional_blocking", "policy_model"]

N_BATCHES = 20


# --------------------------------------------------------------------------------------------------
# validation shared by the public functions
# --------------------------------------------------------------------------------------------------

def _to_float(x) -> float:
    """The load as float64: its exact value (the input layer) rounded once."""
    return real_float(x, "rho")


def _check_rho(rho) -> float:
    """The load as float64, refused unless a finite real number in ``(0, inf)`` (also after rounding)."""
    check_real(rho, "rho", lower=0, lower_open=True)
    rho_f = _to_float(rho)
    if not math.isfinite(rho_f) or rho_f <= 0:
        raise ValueError(f"rho must be a finite real number in (0, inf), got {rho!r}")
    return rho_f


def _check_common(policy, N, C, rho, d, sampling, *, max_N=None):
    check_choice(policy, "policy", POLICIES)
    check_choice(sampling, "sampling", SAMPLINGS)
    N = check_int(N, "N", min_value=1, max_value=max_N)
    C = check_int(C, "C", min_value=1)
    rho_f = _check_rho(rho)
    if policy in ("retrial", "power"):
        if d is None:
            raise ValueError(f"d is required for policy {policy!r} (number of attempts / samples, "
                             f"an integer >= 1)")
        d = check_int(d, "d", min_value=1)
        if sampling == "without_replacement" and d > N:
            raise ValueError(f"d must be an integer in [1, N] = [1, {N}] when sampling "
                             f"'without_replacement', got d = {d}")
    else:
        if d is not None:
            raise ValueError(f"d must be None for policy {policy!r}, got {d!r}")
        d = 1
    return policy, N, C, rho_f, d, sampling


def _check_nfull(nfull, N: int) -> np.ndarray:
    """``nfull`` as a float array of integers in ``[0, N]`` (a scalar as a 0-d array), or an error naming it."""
    if np.ndim(nfull) == 0 and not isinstance(nfull, np.ndarray):
        return np.asarray(float(integer(nfull, "nfull", min_value=0, max_value=N)))
    m = real_array(nfull, "nfull", lower=0, upper=N)
    if not np.all(m == np.floor(m)):
        raise ValueError(f"nfull must hold integers (numbers of full servers) in [0, N={N}], got {nfull!r}")
    return np.asarray(m, dtype=np.float64)


@fill_doc
def conditional_blocking(policy: str, N: int, d: int, nfull, sampling: str = "with_replacement"):
    r"""Probability that an arrival is lost when ``nfull`` of the ``N`` servers are full.

    .. math::

        b(n) = (n_C/N)^d \ \text{(with replacement)}, \qquad
        b(n) = \prod_{i=0}^{d-1} \frac{n_C - i}{N - i} \ \text{(without replacement)},

    ``n_C/N`` for ``"random"`` and :math:`1\{n_C = N\}` for ``"jsq"``. Evaluated from the shipped
    model's finite-N loss probability (:func:`symloss.finite_n.chain.finite_n_chain`), which depends on
    the number of full servers only. Vectorised over ``nfull``.

    Parameters
    ----------
    policy : {"random", "retrial", "power", "jsq"}
        The shipped policy.
    N : int
        Number of servers, ``>= 1``.
    d : int or None
        Attempts (retrial) or samples (power), ``>= 1``; ignored for ``"random"`` and ``"jsq"``.
    nfull : int or array_like
        Number(s) of full servers, ``0 <= nfull <= N``.
    sampling : {"with_replacement", "without_replacement"}
        How the ``d`` servers are drawn (``"random"`` and ``"jsq"`` have one convention).

    Returns
    -------
    float or numpy.ndarray
        ``b(n)`` (an array of the shape of ``nfull`` when it is an array).

    Raises
    ------
    TypeError
        If ``N`` or ``d`` is not an integer.
    ValueError
        If ``policy`` or ``sampling`` is unknown, or ``N``, ``d`` is out of range.

    See Also
    --------
    finite_n_chain, symloss.exact_finite_n

    {{references_retrial}}

    Examples
    --------
    >>> from symloss import conditional_blocking
    >>> conditional_blocking("power", 10, 2, [0, 5, 10]).tolist()
    [0.0, 0.25, 1.0]
    >>> round(conditional_blocking("power", 10, 2, 5, "without_replacement"), 12)     # (5/10)(4/9)
    0.222222222222
    """
    check_choice(policy, "policy", POLICIES)
    check_choice(sampling, "sampling", SAMPLINGS)
    N = check_int(N, "N", min_value=1)
    d = 1 if policy in ("random", "jsq") else check_int(d, "d", min_value=1)
    if policy in ("random", "jsq"):
        sampling = "with_replacement"
    m = _check_nfull(nfull, N)
    chain = finite_n_chain(policy_model(policy, 1, d), N, sampling)
    cols = [N - m, m] if chain.state_kind == "occupancy" else [m]
    with np.errstate(all="ignore"):
        vals = np.asarray(chain._np_rates()[1](*cols, 1.0, float(N)), dtype=np.float64)
    return np.clip(np.broadcast_to(vals, m.shape).copy(), 0.0, None) if m.ndim else float(max(vals, 0.0))


# --------------------------------------------------------------------------------------------------
# checks of the model call forms (policy names -> models: symloss.meanfield.policies, re-exported here)
# --------------------------------------------------------------------------------------------------

def _check_model_rho(model, N, rho, sampling, *, max_N=None):
    """Checks of the ``(model, N, rho)`` call form; returns ``(model, N, rho_float, sampling)``."""
    if not isinstance(model, MeanFieldModel):
        raise TypeError(f"model must be a symloss.MeanFieldModel or one of the policy names {list(POLICIES)}, "
                        f"got {type(model).__name__} {model!r}")
    check_choice(sampling, "sampling", SAMPLINGS)
    N = check_int(N, "N", min_value=1, max_value=max_N)
    rho_f = _check_rho(rho)
    d = getattr(model, "d", None)
    if sampling == "without_replacement" and isinstance(d, int) and d > N:
        raise ValueError(f"d must be an integer in [1, N] = [1, {N}] when sampling 'without_replacement', "
                         f"got d = {d} (model {model!r})")
    return model, N, rho_f, sampling
