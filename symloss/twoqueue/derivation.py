r"""Asymptotic regimes of the two-queue JSQ loss model, derived by SymPy from the model's rules.

Everything below starts from a rule table (:mod:`symloss.twoqueue.definition`; the Yao-Knessl model by default) and is
derived, not typed:

1. **Lumped balance equations** (:func:`lumped_equations`). The rules are evaluated *symbolically*
   at a generic state of each type (imbalance ``d >= 2``, ``d = 1``, ``d = 0``, away from the edges),
   the guards decided by a sign test on the state parameters; the balance equation of the full chain
   at that state is rewritten in the lumped variables ``(K, d)`` with
   :math:`p(m, n) = \pi_K c_K(d) / (1 + [d > 0])` and the level-mass ratios of the aggregated chain
   (:math:`\pi_{K-1}/\pi_K = \mu_K/\lambda_{K-1}`, both rates derived from the rules and checked to
   depend on ``K`` only). For the Yao-Knessl model this gives
   :math:`(\rho+K)c_K = K A c_{K-1} + \rho B_K c_{K+1}` (``docs/twoqueue.md``, (1)).
   The symmetry of the definition is checked on the same generic states.

2. **Outer solution** (``a > 1/2``; :func:`outer_solution`). :math:`K = r\rho`,
   :math:`\varepsilon = 1/\rho`, :math:`c_K(d) = g(d; r) + \varepsilon h(d; r) + O(\varepsilon^2)`,
   :math:`c_{K\pm1}(d) = g(d; r\pm\varepsilon) + \dots` Order 1: geometric ansatz
   :math:`g(0) = G_0`, :math:`g(d) = G_1\theta^{d-1}`; the generic equation fixes :math:`\theta(r)`,
   the others and the parity normalisations fix :math:`G_0, G_1`. Order :math:`\varepsilon`: ansatz
   :math:`h(d) = (H_1 + H_2 d + H_3 d^2)\theta^{d-1}`, :math:`h(0) = H_0`, solved by coefficient
   matching. Both orders are verified by substitution.

3. **Corner solution** (``a < 1/2``; :func:`corner_walk`, :func:`corner_law`). In the deficits
   ``S = N - max(m, n)``, ``D = |m - n|`` with time scaled by :math:`\rho` and ``N = a rho``, the
   leading-order rates of the rules define a random walk in the quarter plane with one boundary line
   ``D = 0`` (for the Yao-Knessl model: the symmetric *longer-queue* model, two Poisson(a) streams and one
   server that serves the longer queue). Its generating function
   :math:`G(X, Z) = \sum_{S,D} p(S, D) X^S Z^D` satisfies
   :math:`G\varphi = G_0(\varphi - \varphi_0) - p_{00}(\varphi_{00} - \varphi_0)` with the jump
   polynomials :math:`\varphi` (interior), :math:`\varphi_0` (``D = 0``), :math:`\varphi_{00}` (the
   corner state). The kernel method (the root :math:`Z = \zeta(X)` of :math:`\varphi`) gives
   :math:`G_0` and hence :math:`G` in closed form; with the uniformising variable :math:`\zeta`
   (``X`` is rational in :math:`\zeta` on the kernel) every coefficient generating function is a
   rational function of :math:`\zeta(X)` (Zheng & Zipkin 1990, Flatto 1989 for the longer-queue model;
   derived here from the rules). For the Yao-Knessl model, with :math:`j = 2S + D` the total deficit,

   .. math::

       c^{(0)}_j(0) = (2a)^{-j}[X^{j/2}]\,\frac{1 - a\zeta}{(2a + 1 - a\zeta)(1 - 2a\zeta)}, \quad
       c^{(0)}_j(d) = (2a)^{-j}[X^{(j-d)/2}]\,\frac{2}{a}\frac{1 + a - a\zeta}{1 - 2a\zeta}
       \Big(\frac{a}{2a + 1 - a\zeta}\Big)^{d+1},

   :math:`\zeta(X) = (2a + 1 - \sqrt{1 + 4a^2 - 4a^2X})/(2a)`. The O(1/rho) correction
   :math:`c^{(1)}` solves the order-:math:`\varepsilon` corner equations (derived here); it is computed
   numerically (block level reduction, matched to the outer expansion), no closed form.

4. **Layers.** ``a ~ 1/2`` (:math:`2N = \rho + \beta\sqrt\rho`): the corner law at the critical value
   ``a = 1/2`` and its ``a``-derivative (closed form), at the local value
   :math:`a_j = (2N - j)/(2\rho)`, added to the outer law as a composite. ``a ~ 1/4``: the exchange of
   the two decay rates of the less occupied queue, :math:`\max(a, 4a^2)` — the two poles
   :math:`t = 1/a` and :math:`t = 1/(4a^2)` of the generating function of :math:`N - \min(m, n)` in the
   corner law (:func:`tail_poles`), which merge into a double pole at ``a = 1/4``.

5. **Blocking** :math:`p(N, N) = E(2N, \rho)` (claim ``seed003.blocking_equals_erlang``) from
   :math:`1/E(C, \rho) = \rho\int_0^\infty e^{-\rho t}(1+t)^C dt` by Laplace's method (``a > 1/2``,
   interior maximum), Watson's lemma (``a < 1/2``, endpoint) and the Halfin-Whitt scaling
   (``C = rho + beta sqrt(rho)``), :func:`blocking_expansion`.

The steps live in modules by subsystem, re-exported here: ``derive_lumped`` (the symbols, the guard
decisions, step 1), ``derive_outer`` (step 2), ``derive_corner`` (steps 3 and 4), ``derive_blocking``
(step 5).

References
----------
H. Yao, C. Knessl, "On the shortest queue version of the Erlang loss model", Stud. Appl. Math. 120(2),
2008. Y.-S. Zheng, P. Zipkin, "A queueing model to analyze the value of centralized inventory
information", Oper. Res. 38(2), 1990. L. Flatto, "The longer queue model", Prob. Eng. Inf. Sci. 3,
1989. C. Knessl, H. Yao, "On the nonsymmetric longer queue model", Adv. Oper. Res. 2013, 680539.
D. L. Jagerman, "Some properties of the Erlang loss function", Bell Syst. Tech. J. 53, 1974.
"""
from __future__ import annotations

# ruff: noqa: F401  (this module is the public face of the derivations: everything below is re-exported)
import sympy  # noqa: F401  (the doctests of the re-exported derivations run in this namespace)

from .definition import RULES, N as Nsym, m as msym, n as nsym, rho as rsym
from .derive_blocking import blocking_expansion, erlang_integral_identity
from .derive_corner import (
    CornerEquations,
    CornerLaw,
    CornerWalk,
    corner_equations,
    corner_law,
    corner_walk,
    imbalance_expansion,
    imbalance_limit_law,
    tail_poles,
)
from .derive_lumped import (
    _P,
    D_,
    S_,
    CForm,
    DerivationError,
    K,
    X,
    Z,
    _decide,
    _outer_types,
    _sign,
    a,
    beta,
    d,
    eps,
    j,
    level_rates,
    lumped_equations,
    r,
    theta,
    zeta,
)
from .derive_outer import OuterSolution, outer_solution

__all__ = ["K", "d", "j", "a", "r", "eps", "theta", "X", "Z", "beta", "zeta",
           "DerivationError", "CForm", "lumped_equations", "level_rates", "outer_solution",
           "corner_walk", "corner_law", "corner_equations", "blocking_expansion", "tail_poles",
           "imbalance_expansion", "imbalance_limit_law"]
