r"""The closed-form fast path of :meth:`Supermarket.fixed_point <symloss.supermarket.meanfield.Supermarket.fixed_point>`
in the one fast-path registry (:mod:`symloss.core.registry`, family ``"supermarket"``; registered for
:class:`~symloss.supermarket.meanfield.Supermarket` by :mod:`symloss.supermarket.meanfield`).

* ``applies``: the definition's :meth:`drift` is the shipped one (exact identity,
  :func:`symloss.supermarket.drift.definition_is_shipped`, decided by
  :func:`~symloss.core.registry.same_system`; cached by the registry's binding cache on the instance
  state);
* ``solve``: :math:`s_k = \lambda^{(d^k-1)/(d-1)}` at the working precision;
* ``verify``: the lambdified ``drift(K)`` of the definition itself vanishes at it: every row
  :math:`k < K` to :math:`10^{-(dps+2)} s_k`, row ``K`` (where the truncation sets
  :math:`s_{K+1} = 0`) to the closed-form tail :math:`s_{K+1}`.
"""
from __future__ import annotations

import mpmath

from ..core.precision import working
from ..core.registry import FastPath
from . import drift as _drift
from .params import _lam_mpf

__all__ = ["CLOSED_FORM", "ClosedFormFastPath", "IDENTITY_LEVELS"]

#: the truncation at which the definition's drift is compared with the shipped one
IDENTITY_LEVELS = 6


class ClosedFormFastPath(FastPath):
    """The closed form of the supermarket fixed point as a fast path (the instance :data:`CLOSED_FORM`;
    the protocol is :class:`symloss.core.registry.FastPath`; module docstring).
    ``solve(m, K, dps, tol)`` returns ``{"s", "s_next", "K", "tail_bound", "mean_queue_length"}`` and
    ``verify`` adds ``"residual"``.

    Examples
    --------
    >>> from symloss import Supermarket
    >>> CLOSED_FORM.applies(Supermarket(2, 0.5))[0]
    True
    """
    name = "closed form"

    def decide(self, m):
        if _drift.definition_is_shipped(m, min(m.K, IDENTITY_LEVELS)):
            return True, "drift() is the shipped drift (exact SymPy identity)"
        return False, f"drift() differs from the shipped drift at truncation K={min(m.K, IDENTITY_LEVELS)}"

    def warn_on_mismatch(self, m) -> bool:
        return True                       # an edited drift: its own truncated equations are solved

    def solve(self, m, K, dps, tol=None):
        with working(dps), m._lam_precision():
            lam = _lam_mpf(m.lam)
            s = [lam ** m.exponent(k) for k in range(K + 2)]
            return {"s": s[:K + 1], "s_next": s[K + 1], "K": K, "tail_bound": m.tail_bound(K),
                    "mean_queue_length": mpmath.fsum(s[1:K + 1])}

    def verify(self, m, ans, K, dps, tol=None):
        with working(dps), m._lam_precision():
            s, s_next = ans["s"], ans["s_next"]
            F = _drift.definition_drift(m, K, "mpmath")
            rows = list(F(*s[1:]))
            eps = mpmath.mpf(10) ** (-(dps + 2))
            worst = max(abs(r) for r in rows)
            ok = all(abs(rows[k - 1]) <= eps * s[k] for k in range(1, K)) and \
                abs(rows[K - 1]) <= s_next * (1 + eps) + eps * s[K]
            ans["residual"] = worst
        if not ok:
            return False, f"residual {mpmath.nstr(worst, 3)} of the definition's drift({K})"
        return True, "the definition's drift vanishes at the closed form"


#: the supermarket fast path
CLOSED_FORM = ClosedFormFastPath()
