r"""The fluid benchmark of the admission network and the SymPy closed forms (the solvers behind
:meth:`~symloss.admission.network.OverloadedLossNetwork.fluid_reward`, ``fluid_expr`` and
``trunk_reservation_expr``; the class validates its arguments and delegates here).

:func:`fluid_exact` is generated from the network's rules (exact rationals); the closed forms are
written for the shipped rules (the class refuses an edited table before calling them).
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from . import definition as _definition
from .values import exact_fraction

__all__ = ["fluid_exact", "fluid_expr", "trunk_reservation_expr"]


def fluid_exact(net) -> Fraction:
    """The fluid LP value of ``net`` as an exact ``Fraction`` of its exact inputs.

    Parameters
    ----------
    net : OverloadedLossNetwork
        The network (its class's ``rules`` are read).

    Returns
    -------
    Fraction
        ``N (r_H lam_H + r_L (mu - lam_H))`` for the shipped rules, else generated from the rules
        (offered rates and capacity at ``n = N``).

    Raises
    ------
    ValueError
        When edited rules are not overloaded at these parameters.
    """
    vals = (net.lam_H, net.mu, net.r_H, net.r_L)
    lH, mu, rH, rL = (exact_fraction(v) for v in vals)
    if net._rules_shipped():
        value = net.N * (rH * lH + rL * (mu - lH))
    else:
        # generated from the rules: offered rates aH, aL at the full state, service capacity dep(N);
        # in overload (aH < dep(N) < aH + aL) the LP takes all H and fills the rest with L
        lL = exact_fraction(net.lam_L)
        args = (net.N, net.N, lH, lL, mu)
        rules = tuple(type(net).rules)
        aH = _definition.exact_rate(rules, "H", *args)
        aL = _definition.exact_rate(rules, "L", *args)
        cap = _definition.exact_rate(rules, None, *args)
        if not (aH < cap < aH + aL):
            raise ValueError(f"the rules of {type(net).__name__} are not overloaded at these parameters: "
                             f"offered H {aH}, offered L {aL}, capacity {cap} (need H < capacity < H + L)")
        value = rH * aH + rL * (cap - aH)
    return value


def _sympy_value(x):
    """An exact SymPy number of a parameter (a ``Fraction`` or ``int`` exactly, a float as ``Float``)."""
    if isinstance(x, Fraction):
        return sp.Rational(x.numerator, x.denominator)
    return sp.Integer(x) if isinstance(x, int) else sp.Float(x)


def fluid_expr(net, evaluate: bool = False):
    """SymPy closed form of the fluid reward (see ``OverloadedLossNetwork.fluid_expr``).

    Parameters
    ----------
    net : OverloadedLossNetwork
        The network (shipped rules).
    evaluate : bool, optional
        Substitute the network's parameters (exactly).

    Returns
    -------
    sympy.Expr
    """
    N, lH, mu, rH, rL = sp.symbols("N lambda_H mu r_H r_L", positive=True)
    expr = N * (rH * lH + rL * (mu - lH))
    if not evaluate:
        return expr
    S = _sympy_value
    return expr.subs({N: net.N, lH: S(net.lam_H), mu: S(net.mu), rH: S(net.r_H), rL: S(net.r_L)})


def trunk_reservation_expr(net, evaluate: bool = False):
    """SymPy closed form of the trunk-reservation reward rate (see
    ``OverloadedLossNetwork.trunk_reservation_expr``).

    Parameters
    ----------
    net : OverloadedLossNetwork
        The network (shipped rules).
    evaluate : bool, optional
        Substitute the network's parameters (``K`` stays a symbol).

    Returns
    -------
    sympy.Expr
    """
    N, K = sp.symbols("N K", integer=True, nonnegative=True)
    n = sp.Symbol("n", integer=True, nonnegative=True)
    lH, lL, mu, rH, rL = sp.symbols("lambda_H lambda_L mu r_H r_L", positive=True)
    a, b = N * (lH + lL) / mu, N * lH / mu
    m = N - K
    below = sp.Sum(a ** n / sp.factorial(n), (n, 0, m - 1))
    Z = below + sp.Sum(a ** m * b ** (n - m) / sp.factorial(n), (n, m, N))
    wN = a ** m * b ** (N - m) / sp.factorial(N)
    expr = (rH * N * lH * (Z - wN) + rL * N * lL * below) / Z
    if not evaluate:
        return expr
    S = _sympy_value
    return expr.subs({N: net.N, lH: S(net.lam_H), lL: S(net.lam_L), mu: S(net.mu), rH: S(net.r_H),
                      rL: S(net.r_L)})

