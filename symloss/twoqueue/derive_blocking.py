r"""The blocking :math:`p(N, N) = E(2N, \rho)` expanded from its integral representation (step 5 of
:mod:`symloss.twoqueue.derivation`, which re-exports it): Laplace (``a > 1/2``), Watson (``a < 1/2``),
Halfin-Whitt (``a ~ 1/2``).
"""
from __future__ import annotations

import functools

import sympy

from ._public import public_home
from .definition import rho as rsym
from .derive_lumped import a, beta

__all__ = ["erlang_integral_identity", "blocking_expansion"]


# --------------------------------------------------------------------------------------------------
# blocking: 1/E(C, rho) = rho int_0^oo exp(-rho t) (1 + t)^C dt, C = 2N
# --------------------------------------------------------------------------------------------------

@public_home("symloss.twoqueue.derivation")
def erlang_integral_identity(Cv: int) -> bool:
    r"""Check :math:`1/E(C, \rho) = \rho\int_0^\infty e^{-\rho t}(1+t)^C\,dt` symbolically for one
    integer ``C`` (binomial expansion and :math:`\rho\int_0^\infty e^{-\rho t}t^k dt = k!/\rho^k`)."""
    t = sympy.Symbol("t", positive=True)
    lhs = sympy.expand(rsym * sympy.integrate(sympy.exp(-rsym * t) * (1 + t) ** Cv, (t, 0, sympy.oo)))
    E = (rsym ** Cv / sympy.factorial(Cv)) / sum(rsym ** k / sympy.factorial(k) for k in range(Cv + 1))
    return sympy.simplify(lhs - 1 / E) == 0


def _mills_moments(n):
    r""":math:`M_k(\beta) = \int_0^\infty u^k e^{\beta u - u^2/2} du`, ``k = 0..n``:
    :math:`M_0 = \Phi(\beta)/\varphi(\beta)`, :math:`M_1 = 1 + \beta M_0`,
    :math:`M_k = \beta M_{k-1} + (k-1) M_{k-2}` (integration by parts)."""
    Phi = (1 + sympy.erf(beta / sympy.sqrt(2))) / 2
    phi = sympy.exp(-beta ** 2 / 2) / sympy.sqrt(2 * sympy.pi)
    M = [Phi / phi, 1 + beta * Phi / phi]
    for k in range(2, n + 1):
        M.append(beta * M[k - 1] + (k - 1) * M[k - 2])
    return M


@public_home("symloss.twoqueue.derivation")
@functools.lru_cache(maxsize=16)
def blocking_expansion(regime: str, order: int = 1):
    r"""Asymptotic expansion of the blocking :math:`p(N, N) = E(2N, \rho)` to relative order
    :math:`\rho^{-\text{order}}` (``a~1/2``: :math:`\rho^{-\text{order}/2}`), derived from the integral
    representation:

    * ``"a>1/2"`` (``c = 2a > 1``): Laplace's method at the interior maximum :math:`t^* = c - 1` of
      :math:`f(t) = c\log(1+t) - t`, :math:`f(t^*) = c\log c - c + 1`; the denominator
      :math:`P(X \le 2N) = 1 - O(e^{-\rho(c\log c - c + 1)})` is dropped (exponentially small);
    * ``"a<1/2"`` (``c < 1``): Watson's lemma at the endpoint ``t = 0``;
    * ``"a~1/2"`` (``C = rho + beta sqrt(rho)``): :math:`t = u/\sqrt\rho`, expansion of the exponent in
      :math:`\rho^{-1/2}`, moments :math:`\int_0^\infty u^k e^{\beta u - u^2/2}du` in closed form;
      order 0 is Jagerman's :math:`\varphi(\beta)/(\Phi(\beta)\sqrt\rho)`.

    Returns a SymPy expression in ``a`` and ``rho`` (``beta`` and ``rho`` for ``"a~1/2"``).

    Examples
    --------
    >>> blocking_expansion("a<1/2", 1)
    -2*a - 2*a/(rho*(2*a - 1)) + 1
    """
    if order not in (0, 1, 2):
        raise ValueError(f"order must be 0, 1 or 2, got {order!r}")
    de = sympy.Symbol("delta", positive=True)        # rho^(-1/2) or 1/rho
    t = sympy.Symbol("t", positive=True)
    u = sympy.Symbol("u", positive=True)
    c = 2 * a
    if regime == "a>1/2":
        # 1/E = rho e^{rho h} int exp(rho [f(t*+s) - f(t*)]) ds, s = v delta, delta = rho^(-1/2)
        v = sympy.Symbol("v", real=True)
        f = c * sympy.log(1 + t) - t
        ts = c - 1
        f2 = sympy.simplify(sympy.diff(f, t, 2).subs(t, ts))          # = -1/c
        expo = sympy.expand(sympy.series((f.subs(t, ts + v * de) - f.subs(t, ts)) / de ** 2 - f2 * v ** 2 / 2,
                                         de, 0, 2 * order + 1).removeO())
        ser = sympy.series(sympy.exp(expo), de, 0, 2 * order + 1).removeO()
        gauss = sympy.integrate(sympy.exp(f2 * v ** 2 / 2), (v, -sympy.oo, sympy.oo))
        terms = sympy.Poly(sympy.expand(ser), v)
        integral = 0
        for (k,), coef in terms.terms():
            mom = sympy.integrate(v ** k * sympy.exp(f2 * v ** 2 / 2), (v, -sympy.oo, sympy.oo))
            integral += coef * mom
        rel = sympy.series(sympy.simplify(integral / gauss), de, 0, 2 * order + 1).removeO()
        inv_rel = sympy.series(1 / rel, de, 0, 2 * order + 1).removeO()
        h = c * sympy.log(c) - c + 1
        lead = sympy.exp(-rsym * h) / sympy.simplify(rsym * gauss * de).subs(de, 1 / sympy.sqrt(rsym))
        corr = sympy.expand(inv_rel.subs(de, 1 / sympy.sqrt(rsym)))
        corr = sum(sympy.factor(corr.coeff(rsym, -k)) * rsym ** (-k) for k in range(order + 1))
        return lead * corr
    if regime == "a<1/2":
        # t = u/rho: 1/E = int_0^oo exp(-(1-c)u) exp(rho c [log(1 + u/rho) - u/rho]) du, delta = 1/rho
        g = sympy.series(c * (sympy.log(1 + u * de) - u * de) / de, de, 0, order + 1).removeO()
        ser = sympy.expand(sympy.series(sympy.exp(g), de, 0, order + 1).removeO())
        integral = 0
        for (k,), coef in sympy.Poly(ser, u).terms():
            integral += coef * sympy.factorial(k) / (1 - c) ** (k + 1)
        E = sympy.expand(sympy.series(1 / integral, de, 0, order + 1).removeO())
        return sum(sympy.factor(E.coeff(de, k)) * rsym ** (-k) for k in range(order + 1))
    if regime == "a~1/2":
        # C = rho + beta sqrt(rho), t = u delta, delta = rho^(-1/2):
        # 1/E = sqrt(rho) int_0^oo exp(F(u)) du, F = C log(1 + u delta) - u/delta
        C = 1 / de ** 2 + beta / de
        F = sympy.series(C * sympy.log(1 + u * de) - u / de, de, 0, order + 1).removeO()
        F0 = beta * u - u ** 2 / 2
        ser = sympy.expand(sympy.series(sympy.exp(sympy.expand(F - F0)), de, 0, order + 1).removeO())
        P = sympy.Poly(ser, u)
        R = sympy.Symbol("R", positive=True)          # Mills-type ratio Phi(beta)/phi(beta) = M_0
        M = [R, 1 + beta * R]
        for k in range(2, P.degree() + 1):
            M.append(sympy.expand(beta * M[k - 1] + (k - 1) * M[k - 2]))
        integral = sympy.expand(sum(coef * M[k] for (k,), coef in P.terms()))
        rel = sympy.expand(sympy.series(R / integral, de, 0, order + 1).removeO())   # = R sqrt(rho) E
        corr = sum(sympy.factor(rel.coeff(de, k)) * rsym ** (-sympy.Rational(k, 2)) for k in range(order + 1))
        Phi = (1 + sympy.erf(beta / sympy.sqrt(2))) / 2
        phi = sympy.exp(-beta ** 2 / 2) / sympy.sqrt(2 * sympy.pi)
        return (phi / (Phi * sympy.sqrt(rsym))) * corr.subs(R, Phi / phi)
    raise ValueError(f"regime must be 'a>1/2', 'a<1/2' or 'a~1/2', got {regime!r}")
