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

References
----------
H. Yao, C. Knessl, "On the shortest queue version of the Erlang loss model", Stud. Appl. Math. 120(2),
2008. Y.-S. Zheng, P. Zipkin, "A queueing model to analyze the value of centralized inventory
information", Oper. Res. 38(2), 1990. L. Flatto, "The longer queue model", Prob. Eng. Inf. Sci. 3,
1989. C. Knessl, H. Yao, "On the nonsymmetric longer queue model", Adv. Oper. Res. 2013, 680539.
D. L. Jagerman, "Some properties of the Erlang loss function", Bell Syst. Tech. J. 53, 1974.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import sympy
from sympy.core.relational import Relational

from .definition import RULES, N as Nsym, compile_rules, m as msym, n as nsym, rho as rsym

__all__ = ["K", "d", "j", "a", "r", "eps", "theta", "X", "Z", "beta", "zeta",
           "DerivationError", "CForm", "lumped_equations", "level_rates", "outer_solution",
           "corner_walk", "corner_law", "corner_equations", "blocking_expansion", "tail_poles",
           "imbalance_expansion", "imbalance_limit_law"]

K = sympy.Symbol("K", positive=True)
d = sympy.Symbol("d", integer=True, nonnegative=True)
j = sympy.Symbol("j", integer=True, nonnegative=True)
a = sympy.Symbol("a", positive=True)
r = sympy.Symbol("r", positive=True)
eps = sympy.Symbol("varepsilon", positive=True)
theta = sympy.Symbol("theta", positive=True)
X = sympy.Symbol("X")
Z = sympy.Symbol("Z")
zeta = sympy.Symbol("zeta", positive=True)
beta = sympy.Symbol("beta", real=True)
S_ = sympy.Symbol("S", integer=True, nonnegative=True)
D_ = sympy.Symbol("D", integer=True, nonnegative=True)


class DerivationError(ValueError):
    """The symbolic derivation does not apply to this definition (the message says which step)."""


# --------------------------------------------------------------------------------------------------
# deciding guards on generic states
# --------------------------------------------------------------------------------------------------

_P = sympy.symbols("s1:6", integer=True, nonnegative=True)


def _coeffs(expr, params):
    e = sympy.expand(expr)
    try:
        p = sympy.Poly(e, *params)
    except sympy.PolynomialError:
        return None
    coeffs = dict(p.terms())
    const = sympy.sympify(coeffs.pop((0,) * len(params), 0))
    rest = list(coeffs.values())
    if not const.is_number or not all(sympy.sympify(c).is_number for c in rest):
        return None
    return const, rest


def _nonneg(expr, params) -> bool:
    """``expr >= 0`` for all nonnegative integer params (sufficient test: no negative coefficient)."""
    cr = _coeffs(expr, params)
    return cr is not None and cr[0] >= 0 and all(c >= 0 for c in cr[1])


def _pos(expr, params) -> bool:
    cr = _coeffs(expr, params)
    return cr is not None and cr[0] > 0 and all(c >= 0 for c in cr[1])


def _sign(expr, params):
    """+1 / 0 / -1 if ``expr`` is certainly positive / identically zero / certainly negative for all
    nonnegative integer params; None if undecided."""
    if sympy.expand(expr) == 0:
        return 0
    if _pos(expr, params):
        return 1
    if _pos(-expr, params):
        return -1
    return None


def _decide(cond, sub, params):
    """Truth value of a guard at a generic state (``sub`` maps m, n, N to expressions in params)."""
    if cond is sympy.true or cond is True:
        return True
    if cond is sympy.false or cond is False:
        return False
    reps = {}
    for rel in cond.atoms(Relational):
        lhs = sympy.sympify(rel.lhs).subs(sub)
        rhs = sympy.sympify(rel.rhs).subs(sub)
        g = sympy.expand(rhs - lhs)          # the relation compares g with 0
        if isinstance(rel, sympy.StrictLessThan):      # g > 0
            val = True if _pos(g, params) else (False if _nonneg(-g, params) else None)
        elif isinstance(rel, sympy.LessThan):          # g >= 0
            val = True if _nonneg(g, params) else (False if _pos(-g, params) else None)
        elif isinstance(rel, sympy.StrictGreaterThan):  # g < 0
            val = True if _pos(-g, params) else (False if _nonneg(g, params) else None)
        elif isinstance(rel, sympy.GreaterThan):       # g <= 0
            val = True if _nonneg(-g, params) else (False if _pos(g, params) else None)
        elif isinstance(rel, (sympy.Eq, sympy.Ne)):
            sg = _sign(g, params)
            val = None if sg is None else ((sg == 0) == isinstance(rel, sympy.Eq))
        else:
            raise DerivationError(f"unsupported relation {rel}")
        if val is None:
            raise DerivationError(f"cannot decide the guard {rel} on a generic state ({sub})")
        reps[rel] = sympy.true if val else sympy.false
    out = cond.xreplace(reps)
    out = sympy.simplify_logic(out) if out not in (sympy.true, sympy.false) else out
    if out not in (sympy.true, sympy.false):
        raise DerivationError(f"cannot decide the guard {cond} on a generic state")
    return bool(out)


# generic states (m <= n representative) for the outer equations: (name, d value or None, sub)
def _outer_types():
    s1, s2, s3 = _P[:3]
    return [
        ("d>=2", None, {msym: 1 + s1, nsym: 3 + s1 + s2, Nsym: 4 + s1 + s2 + s3}, (s1, s2, s3)),
        ("d=1", 1, {msym: 1 + s1, nsym: 2 + s1, Nsym: 3 + s1 + s3}, (s1, s3)),
        ("d=0", 0, {msym: 1 + s1, nsym: 1 + s1, Nsym: 2 + s1 + s3}, (s1, s3)),
    ]


@dataclass(frozen=True)
class CForm:
    r"""Balance equation of one state type in conditional form:
    ``out * c_K(d) = sum(coef * c_{K + dK}(dprime))`` with ``terms = ((dK, dprime, coef), ...)``;
    expressions in ``K``, ``d`` (the imbalance), ``rho``."""
    name: str
    dval: object
    out: sympy.Expr
    terms: tuple

    def latex(self) -> str:
        """The equation as LaTeX (for a math environment).

        Returns
        -------
        str
        """
        dv_ = self.dval if self.dval is not None else d
        lhs = sympy.latex(sympy.factor(self.out)) + r"\,c_K(" + sympy.latex(dv_) + ")"
        parts = []
        for dK, dp, coef in self.terms:
            lvl = "K" if dK == 0 else (f"K{dK:+d}")
            parts.append(sympy.latex(sympy.factor(coef)) + rf"\,c_{{{lvl}}}(" + sympy.latex(dp) + ")")
        return lhs + " = " + " + ".join(parts)


def _state_flows(rules, sub, params):
    """Out-rate and in-flows (source offset, rate at the source) at a generic state."""
    comp = compile_rules(rules)
    out = sympy.Integer(0)
    flows = []
    mm, nn = sub[msym], sub[nsym]
    NN = sub[Nsym]
    for rule in comp.rules:
        dm, dn = rule.jump
        if _decide(rule.when, sub, params):
            out += rule.rate.subs(sub)
        src = {msym: mm - dm, nsym: nn - dn, Nsym: NN}
        edges = (mm - dm, nn - dn, NN - (mm - dm), NN - (nn - dn))
        if not all(_nonneg(v, params) for v in edges):
            if any(_pos(-v, params) for v in edges):
                continue               # the source is outside the state space
            raise DerivationError(f"cannot decide whether the source of rule {rule.jump} lies in the state space")
        if _decide(rule.when, src, params):
            flows.append((dm, dn, sympy.expand(rule.rate.subs(src))))
    return sympy.expand(out), flows


def _back(expr, sub, params, target):
    """Rewrite an expression in the params as one in (K, d) [target: dict param -> expression]."""
    return sympy.simplify(sympy.expand(expr).subs(target))


@functools.lru_cache(maxsize=16)
def level_rates(rules=RULES):
    r"""Total up-rate :math:`\lambda(K)` and down-rate :math:`\mu(K)` of a level, derived from the rules on
    every generic state type and checked to depend on ``K`` only (the aggregation lemma); for the Yao-Knessl
    model :math:`(\rho, K)`."""
    rules = tuple(rules)
    comp = compile_rules(rules)
    lam = mu = None
    for name, dval, sub, params in _outer_types():
        up = dn = sympy.Integer(0)
        for rule in comp.rules:
            if _decide(rule.when, sub, params):
                step = rule.jump[0] + rule.jump[1]
                if step == 1:
                    up += rule.rate.subs(sub)
                elif step == -1:
                    dn += rule.rate.subs(sub)
                elif step != 0:
                    raise DerivationError(f"rule {rule.jump} changes m+n by {step}: not level-adjacent")
        Kexpr = sub[msym] + sub[nsym]
        up_K = _in_K(up, Kexpr, params)
        dn_K = _in_K(dn, Kexpr, params)
        if up_K is None or dn_K is None:
            raise DerivationError(f"state type {name}: the level rates {up}, {dn} are not functions of m+n alone; "
                                  "m+n is not a birth-death chain")
        if lam is None:
            lam, mu = up_K, dn_K
        elif sympy.simplify(lam - up_K) != 0 or sympy.simplify(mu - dn_K) != 0:
            raise DerivationError(f"state type {name}: level rates ({up_K}, {dn_K}) differ from ({lam}, {mu})")
    return lam, mu


def _in_K(expr, Kexpr, params):
    """Write ``expr`` (in the params) as a function of ``K = Kexpr``, or None."""
    e = sympy.expand(expr)
    if e.free_symbols & set(params) == set():
        return e
    # solve Kexpr = K for one param and substitute; then the others must disappear
    for p in params:
        sol = sympy.solve(sympy.Eq(Kexpr, K), p)
        if sol:
            f = sympy.expand(e.subs(p, sol[0]))
            if not (f.free_symbols & set(params)):
                return f
    return None


@functools.lru_cache(maxsize=16)
def lumped_equations(rules=RULES):
    r"""The conditional-form balance equations of the three generic state types, generated from the
    rules. Returns ``{"d>=2": CForm, "d=1": CForm, "d=0": CForm}``.

    Raises :class:`DerivationError` when a guard cannot be decided, the definition is not symmetric,
    not level-adjacent, or not aggregated.

    Examples
    --------
    >>> from symloss.twoqueue.definition import rho as rho_
    >>> eq = lumped_equations()["d>=2"]
    >>> eq.out
    K + rho
    >>> for dK, dp, c in sorted(eq.terms, key=str):
    ...     print(dK, dp, sympy.simplify(c - rho_ * (K + 2 + (dp - d) * d) / (2 * (K + 1))) == 0 if dK == 1 else c)
    -1 d + 1 K
    1 d + 1 True
    1 d - 1 True
    """
    rules = tuple(rules)
    lam, mu = level_rates(rules)
    out = {}
    for name, dval, sub, params in _outer_types():
        tot, flows = _state_flows(rules, sub, params)
        # symmetry: the mirrored state has the mirrored flows
        mir = {msym: sub[nsym], nsym: sub[msym], Nsym: sub[Nsym]}
        tot2, flows2 = _state_flows(rules, mir, params)
        mirrored = sorted((dn, dm, str(sympy.expand(rt.subs({}, simultaneous=True)))) for dm, dn, rt in flows2)
        direct = sorted((dm, dn, str(sympy.expand(rt))) for dm, dn, rt in flows)
        if sympy.expand(tot - tot2) != 0 or mirrored != direct:
            raise DerivationError(f"the definition is not symmetric at the generic state type {name}: "
                                  "the lumped (K, d) equations do not apply")
        # representative: m = (K - d)/2, n = (K + d)/2, in terms of the params
        mm, nn = sub[msym], sub[nsym]
        dd = sympy.expand(nn - mm)
        Kexpr = sympy.expand(mm + nn)
        # express params through K and d (s1 from K, the next from d where d is free)
        target = {}
        if dval is None:
            s1, s2 = params[0], params[1]
            sol = sympy.solve([sympy.Eq(Kexpr, K), sympy.Eq(dd, d)], [s1, s2], dict=True)[0]
            target = sol
        else:
            s1 = params[0]
            target = {s1: sympy.solve(sympy.Eq(Kexpr, K), s1)[0]}
        w = sympy.Rational(1, 2) if (dval is None or dval > 0) else sympy.Integer(1)
        terms = {}
        for dm, dn, rt in flows:
            dK = -(dm + dn)
            dsrc = sympy.expand(dd - dn + dm)
            sg = _sign(dsrc, params)
            if sg is None:
                raise DerivationError(f"state type {name}: sign of the source imbalance {dsrc} undecided")
            dprime = sympy.expand((dsrc if sg >= 0 else -dsrc).subs(target))
            wsrc = sympy.Integer(1) if sg == 0 else sympy.Rational(1, 2)
            if dK == -1:
                ratio = mu.subs(K, K) / lam.subs(K, K - 1)
            elif dK == 1:
                ratio = lam / mu.subs(K, K + 1)
            else:
                ratio = sympy.Integer(1)
            coef = sympy.simplify(rt.subs(target) * ratio * wsrc / w)
            key = (dK, dprime)
            terms[key] = sympy.simplify(terms.get(key, 0) + coef)
        outK = sympy.simplify(tot.subs(target))
        out[name] = CForm(name, dval, outK, tuple((k[0], k[1], v) for k, v in sorted(terms.items(), key=str)))
    return out


# --------------------------------------------------------------------------------------------------
# outer solution: K = r rho, epsilon = 1/rho
# --------------------------------------------------------------------------------------------------

def _geo_sums(x):
    """sum_{k>=0} k^p x^k for p = 0, 1, 2."""
    return 1 / (1 - x), x / (1 - x) ** 2, x * (1 + x) / (1 - x) ** 3


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


# --------------------------------------------------------------------------------------------------
# corner: deficits S = N - max(m, n), D = |m - n|, time scaled by rho, N = a rho
# --------------------------------------------------------------------------------------------------

def _corner_types():
    s1, s2, s3 = _P[:3]
    return [
        ("D>=2", {"S": s1, "D": 2 + s2}, s1 + s2 + 3 + s3, (s1, s2, s3)),
        ("D=1", {"S": s1, "D": sympy.Integer(1)}, s1 + 2 + s3, (s1, s3)),
        ("D=0", {"S": 1 + s1, "D": sympy.Integer(0)}, s1 + 2 + s3, (s1, s3)),
        ("J=0", {"S": sympy.Integer(0), "D": sympy.Integer(0)}, 1 + s3, (s3,)),
    ]


@dataclass(frozen=True)
class CornerWalk:
    r"""Leading-order deficit walk of the corner: per state type, ``((dS, dD), rate)`` jumps;
    ``phi``, ``phi0``, ``phi00`` the jump polynomials :math:`\sum \text{rate}\,(X^{dS}Z^{dD} - 1)` of the
    interior (``D >= 1``), the tie line (``D = 0``, ``S >= 1``) and the corner state; ``load`` the ratio
    :math:`\lambda_J/\mu_J` of the total deficit ``J = 2S + D`` (an M/M/1 queue: ``2a`` for the Yao-Knessl
    model)."""
    jumps: dict
    phi: sympy.Expr
    phi0: sympy.Expr
    phi00: sympy.Expr
    load: sympy.Expr


@functools.lru_cache(maxsize=16)
def corner_walk(rules=RULES) -> CornerWalk:
    r"""The corner's deficit walk, derived from the rules at leading order in :math:`1/\rho`.

    Examples
    --------
    >>> w = corner_walk()
    >>> sorted(w.jumps["D>=2"])
    [((0, -1), 1), ((0, 1), a), ((1, -1), a)]
    >>> w.load
    2*a
    """
    rules = tuple(rules)
    comp = compile_rules(rules)
    jumps = {}
    for name, sd, Nexpr, params in _corner_types():
        S, D = sd["S"], sd["D"]
        mm, nn = Nexpr - S - D, Nexpr - S
        sub = {msym: mm, nsym: nn, Nsym: Nexpr}
        acc = {}
        for rule in comp.rules:
            if not _decide(rule.when, sub, params):
                continue
            dm, dn = rule.jump
            m2, n2 = mm + dm, nn + dn
            diff = sympy.expand(n2 - m2)
            sg = _sign(diff, params)
            if sg is None:
                raise DerivationError(f"corner type {name}: the ordering after rule {rule.jump} is undecided")
            mx = n2 if sg >= 0 else m2
            S2, D2 = sympy.expand(Nexpr - mx), sympy.expand(diff if sg >= 0 else -diff)
            dS, dD = sympy.expand(S2 - S), sympy.expand(D2 - D)
            if not (dS.is_Integer and dD.is_Integer):
                raise DerivationError(f"corner type {name}: rule {rule.jump} gives a state-dependent jump")
            # leading order of rate/rho with N = a rho (S, D fixed): c1 + lim_{rho->oo} c0(N-S-D, N-S, N)/rho
            c1 = sympy.expand(rule.rate).coeff(rsym, 1)
            c0 = sympy.expand(rule.rate - c1 * rsym)
            if c1.free_symbols & {msym, nsym, Nsym}:
                raise DerivationError(f"rule {rule.jump}: the rho-coefficient depends on the state; no corner scaling")
            lam = sympy.Symbol("lambda_", positive=True)       # 1/rho
            c0N = sympy.expand(c0.subs({msym: Nsym - S - D, nsym: Nsym - S}, simultaneous=True))
            lead = sympy.limit(sympy.expand(c0N.subs(Nsym, a / lam)) * lam, lam, 0)
            if not lead.is_finite:
                raise DerivationError(f"rule {rule.jump}: rate {rule.rate} grows faster than rho in the corner")
            rate = sympy.simplify(c1 + lead)
            if rate != 0:
                acc[(int(dS), int(dD))] = sympy.simplify(acc.get((int(dS), int(dD)), 0) + rate)
        jumps[name] = tuple(sorted(acc.items()))
    if dict(jumps["D>=2"]) != dict(jumps["D=1"]):
        raise DerivationError("corner walk: the states D = 1 and D >= 2 have different jumps; "
                              "the one-boundary kernel method does not apply")

    def poly(js):
        return sympy.expand(sum(rt * (X ** dS * Z ** dD - 1) for (dS, dD), rt in js))
    # aggregation of J = 2S + D: up-rate and down-rate equal on every type (down 0 at J = 0)
    ups, downs = set(), set()
    for name, js in jumps.items():
        up = sympy.simplify(sum(rt for (dS, dD), rt in js if 2 * dS + dD == 1))
        dn = sympy.simplify(sum(rt for (dS, dD), rt in js if 2 * dS + dD == -1))
        if any(2 * dS + dD not in (1, -1) for (dS, dD), rt in js):
            raise DerivationError("corner walk: a jump changes the total deficit by more than 1")
        ups.add(up)
        if name != "J=0":
            downs.add(dn)
    if len(ups) != 1 or len(downs) != 1:
        raise DerivationError(f"corner walk: the total deficit is not a birth-death chain (up {ups}, down {downs})")
    load = sympy.simplify(ups.pop() / downs.pop())
    return CornerWalk(jumps=jumps, phi=poly(jumps["D>=2"]), phi0=poly(jumps["D=0"]),
                      phi00=poly(jumps["J=0"]), load=load)


@dataclass(frozen=True)
class CornerLaw:
    r"""Closed form of the corner (longer-queue) law by the kernel method.

    ``kernel_root`` :math:`\zeta(X)`; ``X_of_zeta`` the uniformisation; ``G0`` :math:`G_0(X)/p_{00}` as a
    function of :math:`\zeta`; ``gf`` :math:`G(X, Z)/p_{00}` (in ``X``, ``Z``); for ``D >= 1``,
    :math:`[Z^D]\,G/p_{00} = B(\zeta)\,w(\zeta)^{D}` with ``base`` = :math:`B`, ``w`` = :math:`1/\bar\zeta`;
    ``load`` the ratio of the total deficit's M/M/1 law. The conditional law of the imbalance given
    the total deficit ``j = 2S + D`` is :math:`c^{(0)}_j(D) = [X^S]\,(\dots)/\text{load}^j`."""
    walk: CornerWalk
    kernel_root: sympy.Expr
    X_of_zeta: sympy.Expr
    G0: sympy.Expr
    base: sympy.Expr
    w: sympy.Expr
    gf: sympy.Expr
    load: sympy.Expr
    checks: tuple

    def latex(self) -> str:
        return (r"G(X,Z) = p_{00}\left[" + sympy.latex(self.G0) + r" + \sum_{D\ge1} Z^D\,"
                + sympy.latex(self.base) + r"\left(" + sympy.latex(self.w) + r"\right)^{D}\right],\quad \zeta = "
                + sympy.latex(self.kernel_root))


@functools.lru_cache(maxsize=16)
def corner_law(rules=RULES) -> CornerLaw:
    r"""Derive the corner law in closed form (kernel method on the generated deficit walk).

    Examples
    --------
    >>> law = corner_law()
    >>> sympy.factor(law.G0)
    -(a*zeta - 1)/((2*a*zeta - 1)*(a*zeta - 2*a - 1))
    >>> sympy.factor(law.w)
    -a/(a*zeta - 2*a - 1)
    """
    walk = corner_walk(tuple(rules))
    phi, phi0, phi00 = walk.phi, walk.phi0, walk.phi00
    num = sympy.numer(sympy.together(phi))
    roots = sympy.solve(num, Z)
    cand = []
    for rt in roots:
        try:
            vals = [complex(rt.subs({X: 0, a: av})) for av in (0.1, 0.3, 0.45)]
        except (TypeError, ValueError):
            continue
        if all(abs(v.imag) < 1e-12 and 0 < v.real < 1 for v in vals):
            cand.append(rt)
    if len(cand) != 1:
        raise DerivationError(f"corner law: kernel roots {roots}; no unique root in (0, 1) at X = 0")
    zr = sympy.simplify(cand[0])
    xs = sympy.solve(sympy.numer(sympy.together(phi.subs(Z, zeta))), X)
    if len(xs) != 1:
        raise DerivationError(f"corner law: the kernel is not linear in X ({xs}); no uniformisation")
    Xz = sympy.factor(xs[0])
    # kernel method: G0/p00 = (phi00 - phi0)/(phi - phi0) at Z = zeta(X)
    G0z = sympy.factor(sympy.cancel(((phi00 - phi0) / (phi - phi0)).subs({Z: zeta}).subs({X: Xz})))
    G = (G0z * (phi - phi0) - (phi00 - phi0)) / phi
    Gz = sympy.factor(sympy.cancel(G.subs(X, Xz)))
    parts = sympy.apart(Gz, Z)
    terms = sympy.Add.make_args(sympy.expand(parts)) if not isinstance(parts, sympy.Add) else parts.args
    pole_terms, poly_terms = [], []
    for t in terms:
        nd, dd = sympy.fraction(sympy.factor(t))
        if dd.has(Z):
            pole_terms.append(sympy.factor(t))
        else:
            poly_terms.append(t)
    if len(pole_terms) != 1:
        raise DerivationError(f"corner law: expected one simple pole in Z, got {pole_terms}")
    nd, dd = sympy.fraction(pole_terms[0])
    pz = sympy.Poly(dd, Z)
    if pz.degree() != 1:
        raise DerivationError(f"corner law: the pole term {pole_terms[0]} is not simple")
    c1, c0 = pz.all_coeffs()
    zbar = sympy.factor(-c0 / c1)                  # pole Z = zbar(zeta)
    Bnum = sympy.factor(nd / c1)                   # term = Bnum/(Z - zbar) = -(Bnum/zbar) sum (Z/zbar)^D
    base = sympy.factor(-Bnum / zbar)
    w = sympy.factor(1 / zbar)
    polyZ = sympy.expand(sum(poly_terms))
    if sympy.Poly(polyZ, Z).degree() > 0:
        raise DerivationError("corner law: the polynomial part in Z has positive degree")
    # D = 0: constant + base * w^0 must equal G0
    if sympy.simplify(polyZ + base - G0z) != 0:
        raise DerivationError("corner law: the D = 0 coefficient does not reproduce G0")
    checks = ["G0 from the kernel method reproduces the D = 0 line of G"]
    # verify the functional equation symbolically: phi*G - G0*(phi - phi0) + (phi00 - phi0) == 0
    fe = sympy.cancel((phi * G - G0z * (phi - phi0) + (phi00 - phi0)).subs(X, Xz))
    if fe != 0:
        raise DerivationError(f"corner law: functional equation residual {fe}")
    checks.append("functional equation phi G = G0 (phi - phi0) - p00 (phi00 - phi0) (identity in zeta, Z)")
    checks.append("total deficit J = 2S + D is M/M/1 with load " + str(walk.load) + " (aggregation on every type)")
    return CornerLaw(walk=walk, kernel_root=zr, X_of_zeta=Xz, G0=G0z, base=base, w=w,
                     gf=sympy.simplify(G.subs(zeta, zr)), load=walk.load, checks=tuple(checks))


@dataclass(frozen=True)
class CornerEquations:
    r"""The conditional-form equations near the corner, ``K = 2N - j``, ``N = a rho``, divided by
    :math:`\rho` and expanded to first order in :math:`\varepsilon = 1/\rho`:
    ``(out0 + eps*out1) c_j(d) = sum (c0 + eps*c1) c_{j + dj}(dprime)``; per state type
    (``d>=2``, ``d=1``, ``d=0``) a tuple ``(out0, out1, ((dj, dprime, c0, c1), ...))`` of
    expressions in ``j``, ``d``, ``a``."""
    types: dict

    def order(self, k: int):
        """The equations of order ``k`` (0 or 1) as ``{type: (out, ((dj, dprime, coef), ...))}``."""
        return {name: (t[k], tuple((dj, dp, (c0, c1)[k]) for dj, dp, c0, c1 in t[2]))
                for name, t in self.types.items()}


@functools.lru_cache(maxsize=16)
def corner_equations(rules=RULES) -> CornerEquations:
    r"""Corner equations to first order, derived from :func:`lumped_equations`.

    Examples
    --------
    >>> eq = corner_equations().order(0)["d>=2"]
    >>> eq[0], sorted((dj, str(dp), str(c)) for dj, dp, c in eq[1])
    (2*a + 1, [(-1, 'd + 1', '1/2'), (-1, 'd - 1', '1/2'), (1, 'd + 1', '2*a')])
    """
    eqs = lumped_equations(tuple(rules))
    sub = {K: 2 * a / eps - j, rsym: 1 / eps}
    types = {}
    for name, cf in eqs.items():
        o = sympy.series(sympy.simplify((cf.out / rsym).subs(sub)), eps, 0, 2).removeO()
        terms = []
        for dK, dp, c in cf.terms:
            s = sympy.series(sympy.simplify((c / rsym).subs(sub)), eps, 0, 2).removeO()
            terms.append((-dK, dp, sympy.simplify(s.subs(eps, 0)), sympy.simplify(sympy.diff(s, eps).subs(eps, 0))))
        types[name] = (sympy.simplify(o.subs(eps, 0)), sympy.simplify(sympy.diff(o, eps).subs(eps, 0)), tuple(terms))
    return CornerEquations(types)


# --------------------------------------------------------------------------------------------------
# blocking: 1/E(C, rho) = rho int_0^oo exp(-rho t) (1 + t)^C dt, C = 2N
# --------------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------------
# imbalance and tails
# --------------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=8)
def imbalance_limit_law(rules=RULES):
    r"""The limit law of :math:`|m - n|` as an expression in ``d`` and ``a`` (valid for
    :math:`a \le 1/2`; for ``a > 1/2`` substitute ``a = 1/2``): the ``D``-marginal of the corner law,
    :math:`p_{00}\,[Z^D]\,G(1, Z)` (``X = 1``, where the kernel root is :math:`\zeta = 1`), and the
    outer law at ``r = 1`` for ``a = 1/2``; both give :math:`2a^d/(1+a)^{d+1}` (``d >= 1``),
    :math:`(1-a)/(1+a)` (``d = 0``), and they agree at ``a = 1/2`` (checked)."""
    law = corner_law(tuple(rules))
    # kernel root at X = 1 for a < 1/2
    cands = [sympy.simplify(z) for z in sympy.solve(sympy.numer(sympy.together(law.walk.phi.subs(X, 1))), Z)]
    z1 = [z for z in cands if abs(float(z.subs(a, 0.3)) - float(law.kernel_root.subs({X: 1, a: 0.3}))) < 1e-12]
    if len(z1) != 1:
        raise DerivationError(f"imbalance limit: kernel roots at X = 1: {cands}")
    z1 = z1[0]
    p00 = 1 - law.load                            # P(J = 0) of the M/M/1 total deficit
    P0 = sympy.factor(p00 * law.G0.subs(zeta, z1))
    Pd = sympy.factor(p00 * law.base.subs(zeta, z1)) * sympy.factor(law.w.subs(zeta, z1)) ** d
    # outer law at r = 1: P(d) = c(d; 1)/2 (each parity class carries half the levels)
    out = outer_solution(tuple(rules))
    o0, od = out.g0.subs(r, 1) / 2, sympy.factor(out.g.subs(r, 1) / 2)
    if sympy.simplify(P0.subs(a, sympy.Rational(1, 2)) - o0) != 0 or \
            sympy.simplify((Pd - od).subs(a, sympy.Rational(1, 2)).subs(d, 3)) != 0:
        raise DerivationError("imbalance limit: corner and outer laws disagree at a = 1/2")
    return sympy.Piecewise((P0, sympy.Eq(d, 0)), (Pd, True))


@functools.lru_cache(maxsize=8)
def imbalance_expansion(rules=RULES):
    r"""``a > 1/2``: :math:`P(|m-n| = d) = \tfrac12\big[g(d;1) + \rho^{-1}(h(d;1) + \tfrac12 g_{rr}(d;1))\big]
    + O(\rho^{-2})`: the outer law averaged over :math:`K/\rho` (Poisson: mean 1, variance
    :math:`1/\rho`, truncation and parity effects exponentially small)."""
    out = outer_solution(tuple(rules))
    e0 = (out.g0 + eps * (out.h0 + sympy.diff(out.g0, r, 2) / 2)) / 2
    e1 = (out.g + eps * (out.h + sympy.diff(out.g, r, 2) / 2)) / 2
    e0, e1 = (sympy.factor(x.subs(r, 1)) for x in (e0, e1))
    return sympy.Piecewise((e0.subs(eps, 1 / rsym), sympy.Eq(d, 0)), (e1.subs(eps, 1 / rsym), True))


@functools.lru_cache(maxsize=8)
def tail_poles(rules=RULES):
    r"""Poles (in ``t``) of :math:`\sum_k P(L = k)\,t^k`, ``L = N - min(m, n)`` the deficit of the less
    occupied queue in the corner law, :math:`= G(t, t)`. They come from the geometric sum over ``D``
    (:math:`t\,w(\zeta(t)) = 1`) and from the pole of the coefficient factor (``base``); for the Yao-Knessl
    model :math:`t = 1/a` and :math:`t = 1/(4a^2)`, so the tail decays like :math:`\max(a, 4a^2)^k` and
    the two merge into a double pole at ``a = 1/4`` (the ``a ~ 1/4`` boundary). Returns the poles that
    lie on the principal branch (checked numerically at two values of ``a``)."""
    law = corner_law(tuple(rules))
    Xz = law.X_of_zeta
    cands = set()
    for z in sympy.solve(sympy.numer(sympy.together(Xz * law.w - 1)), zeta):
        cands.add(sympy.simplify(Xz.subs(zeta, z)))
    nd, dd = sympy.fraction(sympy.factor(law.base))
    for z in sympy.solve(dd, zeta):
        cands.add(sympy.simplify(Xz.subs(zeta, z)))
    out = []
    for tp in cands:
        ok = True
        for av in (0.15, 0.35):
            tv = float(tp.subs(a, av))
            zt = complex(law.kernel_root.subs({X: tv, a: av}))
            on_branch = abs(zt.imag) < 1e-12 and tv > 1
            # the pole must be where the principal zeta(t) hits the singular value
            if not on_branch:
                ok = False
                break
            w_at = float(law.w.subs({zeta: zt.real, a: av}))
            base_den = float(dd.subs({zeta: zt.real, a: av}))
            if not (abs(tv * w_at - 1) < 1e-9 or abs(base_den) < 1e-9):
                ok = False
                break
        if ok:
            out.append(sympy.factor(tp))
    return tuple(sorted(out, key=lambda e: float(e.subs(a, 0.35))))
