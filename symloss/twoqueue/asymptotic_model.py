r"""The asymptotic methods of :class:`~symloss.twoqueue.jsq.TwoQueueJSQ` (:meth:`~.TwoQueueJSQ.asymptotic`,
:meth:`~.TwoQueueJSQ.asymptotic_expr`), as functions of the model: the numbers come from
:mod:`symloss.twoqueue.asymptotic`, the expressions from :mod:`symloss.twoqueue.derivation`, both
derived from the model's rule table (:func:`check_derivable` refuses a definition they do not apply to).
The arguments are validated by the methods.
"""
from __future__ import annotations

import sympy

from . import asymptotic as asy, derivation as dv
from .definition import rho as rho_sym
from .derivation import DerivationError, K as K_sym, level_rates
from .summaries import blocking_key

__all__ = ["ASYMPTOTIC_QUANTITIES", "EXPR_QUANTITIES", "check_derivable", "asymptotic", "asymptotic_expr"]

#: the quantities of :meth:`TwoQueueJSQ.asymptotic <symloss.twoqueue.jsq.TwoQueueJSQ.asymptotic>`
ASYMPTOTIC_QUANTITIES = ("distribution", "joint", "total", "marginal", "marginal_min", "marginal_max",
                         "conditional", "imbalance", "imbalance_limit", "blocking", "log_blocking",
                         "tail_rate", "marginal_min_tail")
#: the quantities of :meth:`TwoQueueJSQ.asymptotic_expr <symloss.twoqueue.jsq.TwoQueueJSQ.asymptotic_expr>`
EXPR_QUANTITIES = ("blocking", "conditional", "corner_generating_function", "level", "joint", "imbalance",
                   "imbalance_limit", "tail_rate", "equations")


def check_derivable(model) -> None:
    """The asymptotics are derived from the rule table: refuse an overridden ``transitions`` and
    definitions whose level law is not the truncated Poisson law of the Yao-Knessl model.

    Parameters
    ----------
    model : TwoQueueJSQ
        The model.

    Raises
    ------
    DerivationError
        If the derivations do not apply to the definition.
    """
    if not model._rule_based():
        raise DerivationError("asymptotic: the derivations start from a rule table (TwoQueueJSQ.rules); "
                              "this model overrides transitions()")
    lam, mu = level_rates(tuple(model.rules))
    if sympy.simplify(lam - rho_sym) != 0 or sympy.simplify(mu - K_sym) != 0:
        raise DerivationError(f"asymptotic: implemented for the level rates (rho, K) of the Yao-Knessl model; "
                              f"this definition has ({lam}, {mu})")


def asymptotic(model, quantity: str, reg: str, order: int, n=None, total=None, of: str = "queue",
               J: int | None = None):
    """The asymptotic approximation of one quantity (validated arguments; see
    :meth:`TwoQueueJSQ.asymptotic <symloss.twoqueue.jsq.TwoQueueJSQ.asymptotic>`). The law is cached on
    the model per ``(regime, order, J)``.

    Parameters
    ----------
    model : TwoQueueJSQ
        A model the derivations apply to (:func:`check_derivable`).
    quantity, reg, order : str, str, {0, 1}
        One of :data:`ASYMPTOTIC_QUANTITIES`, the regime and the order (validated by the method).
    n, total, of
        For ``quantity="conditional"``.
    J : int, optional
        Corner levels of the inner problem.

    Returns
    -------
    AsymptoticLaw, numpy.ndarray or float
    """
    check_derivable(model)
    rules = tuple(model.rules)
    N, rho = model.N, float(model.rho)
    if quantity == "blocking":
        return asy.blocking_asymptotic(N, rho, reg, order)
    if quantity == "log_blocking":
        return asy.log_blocking_asymptotic(N, rho, reg, order)
    if quantity == "imbalance_limit":
        return asy.imbalance_limit(N / rho, N)
    if quantity == "tail_rate":
        if N / rho >= 0.5:
            raise ValueError(f"tail_rate is defined for a = N/rho < 1/2, got a = {N / rho}")
        return asy.tail_rate(N / rho)
    if quantity == "marginal_min_tail":
        level, _ = model.level_probabilities("float")
        return asy.marginal_min_tail(N, rho, level, J)
    cache = model.__dict__.setdefault("_cache", {})
    key = ("asymptotic", reg, order, J)
    if key not in cache:
        cache[key] = asy.asymptotic_law(N, rho, reg, order=order, J=J, rules=rules)
    law = cache[key]
    if quantity == "distribution":
        return law
    if quantity == "joint":
        return law.p
    if quantity == "conditional":
        return law.conditional(n, total=total, of=of)
    return getattr(law, quantity)()


def asymptotic_expr(model, quantity: str, reg: str, order: int):
    """The SymPy expression behind :func:`asymptotic` (validated arguments; see
    :meth:`TwoQueueJSQ.asymptotic_expr <symloss.twoqueue.jsq.TwoQueueJSQ.asymptotic_expr>`).

    Parameters
    ----------
    model, quantity, reg, order : TwoQueueJSQ, str, str, {0, 1}
        As in :func:`asymptotic`, ``quantity`` one of :data:`EXPR_QUANTITIES`.

    Returns
    -------
    sympy.Expr or dict
    """
    check_derivable(model)
    rules = tuple(model.rules)
    corner = reg in ("1/4<a<1/2", "a~1/4", "a<1/4")
    if quantity == "blocking":
        return dv.blocking_expansion(blocking_key(reg), order)
    if quantity == "equations":
        out = {}
        for name, cf in dv.lumped_equations(rules).items():
            lhs = cf.out * sympy.Function("c")(dv.K, cf.dval if cf.dval is not None else dv.d)
            rhs = sum(c * sympy.Function("c")(dv.K + dK, dp) for dK, dp, c in cf.terms)
            out[name] = sympy.Eq(lhs, rhs)
        return out
    if quantity == "level":
        k = sympy.Symbol("k", integer=True, nonnegative=True)
        return (dv.rsym ** dv.K / sympy.factorial(dv.K)) / sympy.Sum(dv.rsym ** k / sympy.factorial(k),
                                                                     (k, 0, 2 * model.N))
    if quantity == "corner_generating_function" or (quantity == "conditional" and corner):
        return dv.corner_law(rules).gf
    if quantity == "conditional":
        sol = dv.outer_solution(rules)
        return sol.conditional(order)
    if quantity == "joint":
        if corner:
            raise ValueError("joint: for the corner regimes the law is the generating function "
                             "'corner_generating_function' times the level law")
        sol = dv.outer_solution(rules)
        c = sol.conditional(order).subs({dv.r: dv.K / dv.rsym, dv.eps: 1 / dv.rsym})
        w = sympy.Piecewise((1, sympy.Eq(dv.d, 0)), (sympy.Rational(1, 2), True))
        return model.asymptotic_expr("level", reg) * c * w
    if quantity == "imbalance":
        if reg == "a>1/2":
            return dv.imbalance_expansion(rules) if order else dv.imbalance_limit_law(rules).subs(
                dv.a, sympy.Rational(1, 2))
        return dv.imbalance_limit_law(rules)
    if quantity == "imbalance_limit":
        e = dv.imbalance_limit_law(rules)
        return e.subs(dv.a, sympy.Rational(1, 2)) if reg == "a>1/2" else e
    return dv.tail_poles(rules)
