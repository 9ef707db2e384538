r"""The one definition of the overloaded two-class loss network (Bray 2026): its transition rules.

The busy count ``n`` (``0 <= n <= N``) of ``N`` servers moves by the rules below. An arrival of class
``c`` is *offered* at rate ``rate``; the admission policy decides whether it is taken (then ``n -> n + 1``
and the reward ``r_c`` is earned). A departure happens at rate ``rate`` and is never controlled.

=========  ======  ============================  =========
rule       jump    rate                          class
=========  ======  ============================  =========
arrival H  ``+1``  :math:`N \lambda_H`           ``"H"``
arrival L  ``+1``  :math:`N \lambda_L`           ``"L"``
departure  ``-1``  :math:`n \mu`                 ``None``
=========  ======  ============================  =========

:class:`~symloss.admission.network.OverloadedLossNetwork` reads its rules from the class attribute
``rules`` (this table by default). The exact trunk-reservation solver and the fluid bound are
generated from the rules (lambdified to mpmath and to exact rationals); the hand-written fast paths
(the online MDP in log space, the numba sample-path and offline kernels, the interval LP) assume the
shipped table and refuse, with :class:`~symloss.core.model.ModelDefinitionError`, a network whose
rules differ from it (an exact SymPy comparison). Mutation tests: ``tests/admission/test_admission_definition.py``.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import sympy as sp

from ..core.model import ModelDefinitionError
from ..core.registry import same_system

__all__ = ["Rule", "RULES", "n", "N", "lam_H", "lam_L", "mu", "is_shipped", "rates"]

n, N = sp.symbols("n N", nonnegative=True, integer=True)
lam_H, lam_L, mu = sp.symbols("lambda_H lambda_L mu", positive=True)


@dataclass(frozen=True)
class Rule:
    """One transition: ``jump`` of the busy count at ``rate`` (SymPy, in ``n, N, lam_H, lam_L, mu``);
    ``cls`` is ``"H"``/``"L"`` for an arrival the policy may admit, ``None`` for a departure.

    Parameters
    ----------
    name : str
        The rule's name.
    jump : int
        Change of the busy count (+1 or -1).
    rate : sympy.Expr
        The rate, in ``n, N, lam_H, lam_L, mu``.
    cls : {"H", "L"} or None
        The class of an arrival, None for a departure.
    """
    name: str
    jump: int
    rate: sp.Expr
    cls: str | None


RULES = (
    Rule("arrival H", +1, N * lam_H, "H"),
    Rule("arrival L", +1, N * lam_L, "L"),
    Rule("departure", -1, n * mu, None),
)


def _check(rules) -> None:
    classes = [r.cls for r in rules]
    if sorted(c for c in classes if c is not None) != ["H", "L"] or classes.count(None) != 1:
        raise ModelDefinitionError("admission rules need exactly one arrival rule of class 'H', one of class 'L' "
                                   f"and one departure (cls=None), got classes {classes}")
    for r in rules:
        if r.jump != (1 if r.cls is not None else -1):
            raise ModelDefinitionError(f"rule {r.name!r}: an arrival jumps by +1 and a departure by -1, got {r.jump}")
        extra = sp.sympify(r.rate).free_symbols - {n, N, lam_H, lam_L, mu}
        if extra:
            raise ModelDefinitionError(f"rule {r.name!r}: rate {r.rate} uses unknown symbols {sorted(map(str, extra))}")


def is_shipped(rules) -> bool:
    """Exact identity of ``rules`` with ``RULES`` (same classes, jumps and rates; the rates decided by
    :func:`symloss.core.registry.same_system`). Not cached here: the network's fast paths ask it through
    the registry's one binding cache (``symloss.admission.fast_path.ONLINE_MDP``).

    Parameters
    ----------
    rules : sequence of Rule
        A rule table.

    Returns
    -------
    bool

    Raises
    ------
    ModelDefinitionError
        If the table is malformed (not one arrival rule of each class and one departure, a wrong
        jump, an unknown symbol).

    Examples
    --------
    >>> is_shipped(RULES), is_shipped(RULES[:2] + (Rule("departure", -1, 2 * n * mu, None),))
    (True, False)
    """
    if rules is RULES:
        return True
    _check(rules)
    by = {r.cls: r for r in rules}
    return all(by[s.cls].jump == s.jump and same_system(sp.sympify(by[s.cls].rate), s.rate) for s in RULES)


@lru_cache(maxsize=32)
def rates(rules):
    """``(arrival_H, arrival_L, departure)``: functions ``f(n, N, lam_H, lam_L, mu)`` lambdified from the
    rules (mpmath, so exact ``Fraction``/mpf inputs stay exact or at the working precision)."""
    _check(rules)
    by = {r.cls: r for r in rules}
    args = (n, N, lam_H, lam_L, mu)
    return tuple(sp.lambdify(args, sp.sympify(by[c].rate), modules="mpmath") for c in ("H", "L", None))


def exact_rate(rules, cls, n_value, N_value, lam_H_value, lam_L_value, mu_value) -> Fraction:
    """The rate of the rule of class ``cls`` (``"H"``, ``"L"`` or ``None``) at exact rational values."""
    _check(rules)
    rule = next(r for r in rules if r.cls == cls)
    sub = {n: n_value, N: N_value, lam_H: lam_H_value, lam_L: lam_L_value, mu: mu_value}
    v = sp.nsimplify(sp.sympify(rule.rate).subs({k: sp.Rational(Fraction(x).numerator, Fraction(x).denominator)
                                                 for k, x in sub.items()}))
    if not v.is_Rational:
        raise ValueError(f"rule {rule.name!r}: rate {rule.rate} is not rational at rational parameters ({v})")
    return Fraction(int(v.p), int(v.q))
