r"""The corner solution (``a < 1/2``; step 3 of :mod:`symloss.twoqueue.derivation`, which re-exports it): the
deficit walk, the corner law in closed form by the kernel method, the corner equations to first order,
and what follows from the corner law (the limit law of the imbalance, the tail poles of the less
occupied queue; step 4).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import sympy

from ._public import public_home
from .definition import RULES, N as Nsym, compile_rules, m as msym, n as nsym, rho as rsym
from .derive_lumped import _P, DerivationError, K, X, Z, _decide, _sign, a, d, eps, j, lumped_equations, r, zeta
from .derive_outer import outer_solution

__all__ = ["CornerWalk", "CornerLaw", "CornerEquations", "corner_walk", "corner_law", "corner_equations",
           "imbalance_limit_law", "imbalance_expansion", "tail_poles"]


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


@public_home("symloss.twoqueue.derivation")
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


@public_home("symloss.twoqueue.derivation")
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


@public_home("symloss.twoqueue.derivation")
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


@public_home("symloss.twoqueue.derivation")
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


@public_home("symloss.twoqueue.derivation")
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


@public_home("symloss.twoqueue.derivation")
@functools.lru_cache(maxsize=16)
def corner_equations(rules=RULES) -> CornerEquations:
    r"""Corner equations to first order, derived from ``lumped_equations``.

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
# imbalance and tails
# --------------------------------------------------------------------------------------------------

@public_home("symloss.twoqueue.derivation")
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


@public_home("symloss.twoqueue.derivation")
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


@public_home("symloss.twoqueue.derivation")
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
