r"""Asymptotic expansions of the mean-field blocking at small and at large load.

:func:`blocking_series` expands the stationary blocking :math:`B(\rho)` of a mean-field model of
:mod:`symloss.meanfield` (:class:`~symloss.RetrialOfD`, :class:`~symloss.RandomRouting`,
:class:`~symloss.PowerOfD`, :class:`~symloss.JSQ`) in powers of :math:`\rho` at :math:`\rho \to 0`
and in powers of :math:`1/\rho` at :math:`\rho \to \infty`, exactly (rational coefficients).

Method (Newton polygon, then a regular formal power series)
------------------------------------------------------------
The expansion is derived from the model's own stationary equations (``model.drift()``), not from
hand-written formulas:

1. **Newton-polygon / dominant-balance scaling.** Each state variable is written as
   :math:`X_k = \beta_k + \sigma_k t^{e_k} c_k (1 + v_k)` with the small parameter :math:`t = \rho`
   (at 0) or :math:`t = 1/\rho` (at infinity). The exponents :math:`e_k` are the valuations at which
   two terms of each stationary equation balance (the edges of the Newton polygon):

   * power-of-d at 0: :math:`u_k \sim \rho\,u_{k-1}^d/k`, so :math:`e_k = 1 + d e_{k-1}`,
     :math:`e_k = (d^k - 1)/(d - 1)` and :math:`B_{pod}(d) = u_C^d \sim c\,\rho^{d(d^C-1)/(d-1)}`;
   * retrial-of-d at 0: cut equations :math:`\Lambda x_{k-1} = k x_k` with :math:`\Lambda \sim \rho`,
     so :math:`x_k \sim \rho^k/k!` and :math:`B_{ret}(d) = x_C^d \sim (\rho^C/C!)^d`;
   * power-of-d at infinity: :math:`1 - u_k \sim c_k \rho^{-(C-k+1)}`;
   * retrial-of-d at infinity: :math:`x_{C-j} \sim c_{C-j} \rho^{-j}` and
     :math:`1 - x_C \sim c_C/\rho`.

   For retrial-of-d the drift (a birth-death flux balance) is replaced by its partial sums, the
   cut equations :math:`S_k = \sum_{j<k} f_j = k x_k - \Lambda x_{k-1} = 0`, which are equivalent
   to ``drift = 0`` because :math:`\sum_j f_j \equiv 0` (checked symbolically).
2. Each scaled equation is divided by its lowest power of ``t``. At ``t = 0`` (with ``v = 0``) the
   scaled system is triangular in the leading coefficients :math:`c_k`; it is solved exactly.
3. At the solution the Jacobian :math:`J_0` of the scaled system in ``v`` at ``t = 0`` is checked to
   be invertible, so by the implicit function theorem the corrections :math:`v_k(t)` are convergent
   power series in ``t`` with :math:`v_k(0) = 0`. They are computed by the iteration
   :math:`v \leftarrow v - J_0^{-1} G(v, t) \bmod t^M` in exact rational arithmetic (python-flint
   ``fmpq_poly``), which gains at least one order per step; the result is accepted only when
   :math:`G(v, t) \equiv 0 \bmod t^M` holds exactly.
4. The blocking expression (``model.blocking_expr()``) is expanded in the same way; ``M`` is
   doubled until ``n + 1`` non-zero terms are known, so the returned ``O`` term is the order of
   the first omitted non-zero term.

JSQ has the exact fluid blocking :math:`\max(0, 1 - C/\rho)`: its expansion at 0 is identically 0
and at infinity it is the two-term expression :math:`1 - C/\rho`.

Source: the small-load leading terms of D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in
Loss Systems: Mean-Field Analysis, Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026);
user-defined models get their scaling read off certified fixed points and verified exactly.

The expansion itself is generic and lives in :mod:`symloss.core.series` (re-exported here); this module
holds the hand-derived scalings of the shipped policies (section 1 above) and registers them
(:func:`symloss.core.series.register_scaling`) for the definitions their accelerators' templates are.
"""
from __future__ import annotations

import sympy as sp

from ..core.series import (  # noqa: F401
    BlockingSeries,
    _ansatz_generic,
    big_int_str,
    blocking_expansion,
    blocking_series,
    register_scaling,
)
from .accelerators import JSQ_CLOSED_FORM, POWER, RETRIAL
from .models import JSQ, PowerOfD, RandomRouting, RetrialOfD

__all__ = ["blocking_series", "blocking_expansion", "BlockingSeries", "big_int_str"]


class _ShippedScalings:
    """The hand-derived Newton-polygon scalings of the shipped policies (module docstring, section 1),
    used when the accelerator's template is the definition (registered with
    :func:`symloss.core.series.register_scaling`)."""

    def policy(self, model):
        """The shipped policy whose hand-derived scaling applies, else ``None``."""
        if isinstance(model, RetrialOfD) and RETRIAL.applies(model)[0]:
            return "random" if isinstance(model, RandomRouting) else "retrial"
        if isinstance(model, PowerOfD) and POWER.applies(model)[0]:
            return "power"
        if isinstance(model, JSQ) and JSQ_CLOSED_FORM.applies(model)[0]:
            return "jsq"
        return None

    def exact(self, model, policy, where, n):
        """JSQ's fluid blocking ``max(0, 1 - C/rho)`` expanded exactly; ``None`` for the other policies."""
        if policy != "jsq":
            return None
        C = getattr(model, "C", None)
        if where == "0":
            # B = max(0, 1 - C/rho) vanishes identically on (0, C]
            return BlockingSeries("jsq", C, 1, "0", [], None, None, 0,
                                  "exact: B = max(0, 1 - C/rho) = 0 for rho <= C")
        terms = [(sp.Integer(1), 0), (sp.Integer(-C), -1)][:n]
        nxt = (sp.Integer(-C), -1) if n == 1 else None
        return BlockingSeries("jsq", C, 1, "oo", terms, nxt, -1 if n == 1 else None, 0,
                              "exact: B = 1 - C/rho for rho >= C")

    def ansatz(self, model, policy, where):
        """``(equations, [(var, base, sign, exponent)], order_factor)`` for the scaling of section 1 of
        the module docstring. ``equations`` are SymPy expressions in the model variables and ``RHO``."""
        C, d = model.C, model.d
        V = list(model.variables)
        if policy in ("retrial", "random"):
            f = list(model.drift())
            total = sp.expand(sum(f))
            if total != 0:  # pragma: no cover - conservation of mass is a property of the model
                raise AssertionError("retrial drift does not conserve mass")
            cuts = [sp.expand(sum(f[:k])) for k in range(1, C + 1)]       # S_k = k x_k - Lambda x_{k-1}
            eqs = cuts + [sum(V) - 1]
            if where == "0":
                scal = [(V[k], 0, 1, k) for k in range(C + 1)]
            else:
                scal = [(V[k], 0, 1, C - k) for k in range(C)] + [(V[C], 1, -1, 1)]
        elif policy == "power":
            eqs = [sp.expand(e) for e in model.drift()]
            if where == "0":
                e = [0]
                for _k in range(1, C + 1):
                    e.append(1 + d * e[-1])
                scal = [(V[k - 1], 0, 1, e[k]) for k in range(1, C + 1)]
            else:
                scal = [(V[k - 1], 1, -1, C - k + 1) for k in range(1, C + 1)]
        else:  # pragma: no cover - every shipped policy with an expansion is handled above
            eqs, scal = _ansatz_generic(model, where)
        return eqs, scal, (d if policy == "power" and where == "0" else 1)


register_scaling(_ShippedScalings())
