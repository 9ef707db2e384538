r"""The outer solution (``a > 1/2``; step 2 of :mod:`symloss.twoqueue.derivation`, which re-exports it):
:math:`c_K(d) = g(d; r) + \varepsilon h(d; r) + O(\varepsilon^2)`, :math:`K = r\rho`, :math:`\varepsilon = 1/\rho`,
derived from the lumped equations of a rule table.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import sympy

from ._public import public_home
from .definition import RULES, rho as rsym
from .derive_lumped import DerivationError, K, d, eps, lumped_equations, r

__all__ = ["OuterSolution", "outer_solution"]


# --------------------------------------------------------------------------------------------------
# outer solution: K = r rho, epsilon = 1/rho
# --------------------------------------------------------------------------------------------------

def _geo_sums(x):
    """sum_{k>=0} k^p x^k for p = 0, 1, 2."""
    return 1 / (1 - x), x / (1 - x) ** 2, x * (1 + x) / (1 - x) ** 3


@public_home("symloss.twoqueue.derivation")
@dataclass(frozen=True)
class OuterSolution:
    r"""Outer expansion of the conditional law of the imbalance given the level,
    :math:`c_K(d) = g(d; r) + \varepsilon h(d; r) + O(\varepsilon^2)`, :math:`r = K/\rho`,
    :math:`\varepsilon = 1/\rho`, ``d = K mod 2, K mod 2 + 2, ...``.

    ``g0``/``h0`` are the values at ``d = 0``; ``g``/``h`` expressions in ``d`` for ``d >= 1``;
    ``theta`` the geometric ratio. ``checks`` lists the residuals that were verified to vanish."""
    theta: sympy.Expr
    g0: sympy.Expr
    g: sympy.Expr
    h0: sympy.Expr
    h: sympy.Expr
    checks: tuple
    amplitude: sympy.Expr = sympy.Integer(0)   # g(d) = amplitude * theta^(d-1), d >= 1
    hpoly: tuple = ()                          # h(d) = (hpoly[0] + hpoly[1] d + hpoly[2] d^2) theta^(d-1)

    def conditional(self, order: int = 1, dval=None):
        """``c_K(d)`` to the given order (0 or 1) as an expression in ``r``, ``varepsilon`` (and ``d``
        unless ``dval`` is given); Piecewise in ``d`` otherwise."""
        if order not in (0, 1):
            raise ValueError(f"order must be 0 or 1, got {order!r}")
        c0 = self.g0 + (eps * self.h0 if order else 0)
        c1 = self.g + (eps * self.h if order else 0)
        if dval is None:
            return sympy.Piecewise((c0, sympy.Eq(d, 0)), (c1, True))
        return c0 if dval == 0 else c1.subs(d, dval)


@public_home("symloss.twoqueue.derivation")
@functools.lru_cache(maxsize=16)
def outer_solution(rules=RULES) -> OuterSolution:
    r"""Derive the outer solution (orders 1 and :math:`\varepsilon`) from the generated equations.

    Examples
    --------
    >>> sol = outer_solution()
    >>> sol.theta
    1/(2*r + 1)
    >>> sympy.factor(sol.g0), sympy.factor(sol.g.subs(d, 1))
    (2*r/(2*r + 1), 4*r*(r + 1)/(2*r + 1)**2)
    """
    eqs = lumped_equations(tuple(rules))
    G0, G1, th = sympy.symbols("G0 G1 theta_", positive=True)
    H = sympy.symbols("H0:4")

    def scaled(cf):
        """(out/rho, [(dK, dp, coef/rho)]) with K = r/eps, rho = 1/eps, as series to O(eps^2)."""
        sub = {K: r / eps, rsym: 1 / eps}
        o = sympy.series(sympy.simplify((cf.out / rsym).subs(sub)), eps, 0, 2).removeO()
        ts = [(dK, dp, sympy.series(sympy.simplify((c / rsym).subs(sub)), eps, 0, 2).removeO())
              for dK, dp, c in cf.terms]
        return o, ts

    sc = {k: scaled(v) for k, v in eqs.items()}

    # ---- order 1 ----
    def gfun(dp, g0=G0, g1=G1, t=th):
        return g0 if dp == 0 else g1 * t ** (dp - 1)
    o, ts = sc["d>=2"]
    E = o.subs(eps, 0) * gfun(d) - sum(c.subs(eps, 0) * gfun(dp) for dK, dp, c in ts)
    poly = sympy.simplify(sympy.powsimp(sympy.expand(E * th ** (2 - d) / G1), force=True))
    if d in poly.free_symbols:
        raise DerivationError(f"outer order 1: the geometric ansatz does not solve the generic equation ({poly})")
    roots = [sympy.simplify(x) for x in sympy.solve(poly, th)]
    good = [x for x in roots if all(0 < float(x.subs(r, rv)) < 1 for rv in (0.25, 1, 3))]
    if len(good) != 1:
        raise DerivationError(f"outer order 1: roots {roots}; no unique geometric ratio in (0, 1)")
    thv = good[0]
    od, ev = _geo_sums(thv ** 2)[0], thv * _geo_sums(thv ** 2)[0]
    norm = [sympy.Eq(G1 * od, 1), sympy.Eq(G0 + G1 * ev, 1)]
    sol0 = sympy.solve(norm, [G0, G1], dict=True)[0]
    g0v, g1v = sympy.simplify(sol0[G0]), sympy.simplify(sol0[G1])
    checks = []
    for name in ("d>=2", "d=1", "d=0"):
        o, ts = sc[name]
        dv = d if eqs[name].dval is None else eqs[name].dval
        res = o.subs(eps, 0) * gfun(dv, g0v, g1v, thv) - sum(c.subs(eps, 0) * gfun(dp, g0v, g1v, thv)
                                                               for dK, dp, c in ts)
        res = sympy.simplify(sympy.powsimp(sympy.expand(res), force=True))
        if res != 0:
            raise DerivationError(f"outer order 1: equation {name} not satisfied (residual {res})")
        checks.append(f"order 1, {name}")

    # ---- order epsilon ----
    def gr(dp):
        return sympy.diff(gfun(dp, g0v, g1v, thv), r)

    def hfun(dp):
        return H[0] if dp == 0 else (H[1] + H[2] * dp + H[3] * dp ** 2) * thv ** (dp - 1)
    lin = []
    for name in ("d>=2", "d=1", "d=0"):
        o, ts = sc[name]
        dv = d if eqs[name].dval is None else eqs[name].dval
        o0, o1 = o.subs(eps, 0), sympy.diff(o, eps).subs(eps, 0)
        E1 = o1 * gfun(dv, g0v, g1v, thv) + o0 * hfun(dv)
        for dK, dp, c in ts:
            c0, c1 = c.subs(eps, 0), sympy.diff(c, eps).subs(eps, 0)
            E1 -= c1 * gfun(dp, g0v, g1v, thv) + c0 * (dK * gr(dp) + hfun(dp))
        if name == "d>=2":
            P = sympy.simplify(sympy.powsimp(sympy.expand(E1 * thv ** (2 - d)), force=True))
            P = sympy.Poly(sympy.together(P).as_numer_denom()[0], d)
            lin += [sympy.Eq(cf, 0) for cf in P.all_coeffs()]
        else:
            lin.append(sympy.Eq(sympy.simplify(E1), 0))
    s0, s1, s2 = _geo_sums(thv ** 2)
    # odd d = 2k+1: sum (H1 + H2 d + H3 d^2) theta^(2k); even d = 2k >= 2: theta^(2k-1)
    odd = H[1] * s0 + H[2] * (2 * s1 + s0) + H[3] * (4 * s2 + 4 * s1 + s0)
    even = H[0] + (H[1] * (s0 - 1) + H[2] * 2 * s1 + H[3] * 4 * s2) / thv
    lin += [sympy.Eq(odd, 0), sympy.Eq(even, 0)]
    solh = sympy.solve(lin, H, dict=True)
    if len(solh) != 1 or set(solh[0]) != set(H):
        raise DerivationError(f"outer order epsilon: the polynomial-geometric ansatz has no unique solution ({solh})")
    hv = {k: sympy.factor(v) for k, v in solh[0].items()}
    checks.append("order epsilon, all equations and both parity normalisations")
    h0 = hv[H[0]]
    h = sympy.factor(hv[H[1]] + hv[H[2]] * d + hv[H[3]] * d ** 2) * thv ** (d - 1)
    return OuterSolution(theta=thv, g0=g0v, g=sympy.factor(g1v) * thv ** (d - 1), h0=h0, h=h, checks=tuple(checks),
                         amplitude=sympy.factor(g1v), hpoly=(hv[H[1]], hv[H[2]], hv[H[3]]))
