r"""The lumped balance equations of the two-queue JSQ model, derived by SymPy from a rule table: the symbols
of the derivations, the guard decisions on generic states and :func:`lumped_equations` (step 1 of
:mod:`symloss.twoqueue.derivation`, which re-exports everything here).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import sympy
from sympy.core.relational import Relational

from ._public import public_home
from .definition import RULES, N as Nsym, compile_rules, m as msym, n as nsym

__all__ = ["K", "d", "j", "a", "r", "eps", "theta", "X", "Z", "beta", "zeta", "DerivationError", "CForm",
           "lumped_equations", "level_rates"]


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


@public_home("symloss.twoqueue.derivation")
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


@public_home("symloss.twoqueue.derivation")
@dataclass(frozen=True)
class CForm:
    r"""Balance equation of one state type in conditional form:
    ``out * c_K(d) = sum(coef * c_{K + dK}(dprime))`` with ``terms = ((dK, dprime, coef), ...)``;
    expressions in ``K``, ``d`` (the imbalance), ``rho``.

    Parameters
    ----------
    name : str
        The state type (``"d>=2"``, ``"d=1"``, ``"d=0"``).
    dval : int or None
        The imbalance of the type (``None``: a generic ``d``).
    out : sympy.Expr
        The out-rate.
    terms : tuple
        ``(dK, dprime, coef)`` per inflow.
    """
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


@public_home("symloss.twoqueue.derivation")
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


@public_home("symloss.twoqueue.derivation")
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
