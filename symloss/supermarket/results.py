"""Result types of the supermarket mean field: the fixed point and the solution of the ODE
(re-exported by :mod:`symloss.supermarket.meanfield`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np

from ..core.results import ResultMixin

__all__ = ["SupermarketFixedPoint", "OdeSolution"]


@dataclass
class SupermarketFixedPoint(ResultMixin):
    """Fixed point of the mean-field ODE.

    Attributes
    ----------
    s : tuple of mpf
        ``s_0 = 1, s_1, ..., s_K`` rounded to ``dps`` digits.
    K : int
        Last level kept; ``sum_{k > K} s_k <= tail_bound``.
    tail_bound : mpf
        Rigorous bound on the neglected tail ``sum_{k>K} s_k``.
    residual : mpf
        ``max_k |drift_k(s)|`` of the truncated ODE at ``s`` (evaluated at working precision).
    mean_queue_length : mpf
        ``sum_{k>=1} s_k`` (tail included up to ``tail_bound``).
    symbolic_check : bool
        True when SymPy confirmed that the closed form solves the stationary equations for
        symbolic ``k`` and ``d`` (see :meth:`Supermarket.symbolic_check`).

    Parameters
    ----------
    d, lam, s, K, tail_bound, residual, mean_queue_length, symbolic_check :
        The attributes above.
    dps : int
        Significant digits of ``s`` and ``mean_queue_length``.
    method : str, optional
        How the fixed point was obtained.
    """
    d: int
    lam: Any
    s: tuple
    K: int
    tail_bound: Any
    residual: Any
    mean_queue_length: Any
    symbolic_check: bool
    dps: int
    method: str = "closed form s_k = lam^((d^k-1)/(d-1)), checked symbolically"

    def to_dict(self) -> dict:
        return {"d": self.d, "lam": str(self.lam), "s": [str(x) for x in self.s], "K": self.K,
                "tail_bound": mpmath.nstr(self.tail_bound, 5), "residual": mpmath.nstr(self.residual, 5),
                "mean_queue_length": str(self.mean_queue_length), "symbolic_check": self.symbolic_check,
                "dps": self.dps, "method": self.method}



@dataclass
class OdeSolution(ResultMixin):
    """Solution of the truncated mean-field ODE.

    ``s[i, k]`` is ``s_k(t[i])`` for ``k = 0..K`` (column 0 is ``s_0 = 1``). ``tail_max`` is the
    largest value of ``s_K`` seen: the truncation sets ``s_{K+1} = 0``, so a small ``tail_max``
    (below ``tail_tol``) means the neglected levels carry negligible mass.

    Parameters
    ----------
    t : numpy.ndarray
        Output times.
    s : numpy.ndarray
        ``s[i, k] = s_k(t[i])``, ``k = 0..K``.
    K : int
        Truncation level.
    tail_max : float
        Largest ``s_K`` over the times.
    tail_tol : float
        The tail tolerance it was checked against.
    method : str
        The integrator.
    dps : int, optional
        Digits of the mpmath integrator (``None``: float64).
    s_mp : list of list of mpf, optional
        The values at ``dps`` digits.
    tail_max_exact : mpf or float, optional
        ``tail_max`` without float underflow.
    """
    t: np.ndarray
    s: np.ndarray
    K: int
    tail_max: float
    tail_tol: float
    method: str
    dps: int | None = None
    s_mp: list | None = None   # list of lists of mpf when dps was given
    tail_max_exact: Any = field(default=None, repr=False)   # mpf with dps (no float underflow)

    @property
    def mean_queue_length(self) -> np.ndarray:
        """``sum_{k>=1} s_k(t)`` for every ``t``."""
        return self.s[:, 1:].sum(axis=1)

    def to_dict(self) -> dict:
        return {"t": self.t.tolist(), "s": self.s.tolist(), "K": self.K, "tail_max": self.tail_max,
                "tail_tol": self.tail_tol, "method": self.method, "dps": self.dps}
