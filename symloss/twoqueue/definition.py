r"""The two-queue JSQ loss model, written once: a table of transition rules.

State ``(m, n)``, ``0 <= m, n <= N`` (busy servers in the two stations). A *rule* is a jump
``(dm, dn)``, a rate (a SymPy expression, affine in :math:`\rho`, with coefficients polynomial in
``m``, ``n``, ``N``) and a guard (a SymPy condition in ``m``, ``n``, ``N``). :data:`RULES` is the
model (H. Yao and C. Knessl, Stud. Appl. Math. 120(2), 2008): an arrival joins the station with
fewer busy servers, ties split 1/2-1/2, lost only at ``(N, N)``; each busy server completes at rate 1
(time in units of :math:`1/\mu`).

Everything in :mod:`symloss.twoqueue` is generated from a rule table (or, for a model that overrides
``TwoQueueJSQ.transitions``, from that function): the scalar evaluator :func:`transitions` (the public
contract: a list of ``(m2, n2, rho_coeff, const)``, the rate being ``rho_coeff * rho + const``), the
vectorised evaluator used by the large float solves (:func:`rule_arrays`), the SymPy balance equations
(:func:`balance_equations`), the residual check of every float answer (:func:`balance_residual`), the
lumped level kernels (:mod:`.kernels`) and the symbolic derivations of the asymptotics
(:mod:`symloss.twoqueue.derivation`).

Examples
--------
>>> transitions(2, 1, 1)
[(2, 1, Fraction(1, 2), 0), (1, 2, Fraction(1, 2), 0), (0, 1, Fraction(0, 1), 1), (1, 0, Fraction(0, 1), 1)]
>>> transitions(2, 2, 2)                   # both full: arrivals are lost
[(1, 2, Fraction(0, 1), 2), (2, 1, Fraction(0, 1), 2)]
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy

from ..core.docstrings import fill_doc
from ..core.registry import same_system
from ..core.validation import check_int, check_real
from ._docfragments import TWOQUEUE_DOCS

__all__ = ["m", "n", "N", "rho", "Rule", "RULES", "transitions", "compile_rules", "rule_arrays",
           "balance_equations", "balance_residual", "rules_equal", "rules_latex"]

#: SymPy symbols of the definition: the state ``(m, n)`` (busy servers of the two stations)
m, n = sympy.symbols("m n", integer=True, nonnegative=True)
#: SymPy symbol of the number of servers per station
N = sympy.Symbol("N", integer=True, positive=True)
#: SymPy symbol of the load :math:`\rho = \lambda/\mu`
rho = sympy.Symbol("rho", positive=True)


@dataclass(frozen=True)
class Rule:
    """One transition rule: from every state ``(m, n)`` where ``when`` holds, jump by ``jump`` at
    rate ``rate`` (SymPy, affine in ``rho``).

    Parameters
    ----------
    jump : tuple of int
        ``(dm, dn)``, not ``(0, 0)``.
    rate : sympy.Expr
        Affine in :data:`rho`, polynomial in :data:`m`, :data:`n`, :data:`N`.
    when : sympy.Basic or True
        Guard: a SymPy condition in ``m``, ``n``, ``N``.
    label : str
        A description (used in error messages).

    Raises
    ------
    ValueError
        If the jump is not a non-zero pair of integers, the rate uses other symbols or is not affine
        in ``rho``, or the guard uses other symbols.

    Examples
    --------
    >>> from symloss.twoqueue.definition import Rule, m, n, rho
    >>> Rule((1, 0), rho, m < n, "arrival joins the first station")
    Rule(jump=(1, 0), rate=rho, when=m < n, label='arrival joins the first station')
    """
    jump: tuple
    rate: sympy.Expr
    when: object
    label: str = ""

    def __post_init__(self):
        j = tuple(self.jump)
        if len(j) != 2 or not all(isinstance(x, int) and not isinstance(x, bool) for x in j) or j == (0, 0):
            raise ValueError(f"Rule.jump must be a pair of integers other than (0, 0), got {self.jump!r}")
        object.__setattr__(self, "jump", j)
        rate = sympy.sympify(self.rate)
        extra = rate.free_symbols - {m, n, N, rho}
        if extra:
            raise ValueError(f"Rule.rate may only use m, n, N, rho; got {sorted(map(str, extra))} in {rate}")
        if sympy.degree(sympy.expand(rate), rho) > 1:
            raise ValueError(f"Rule.rate must be affine in rho, got {rate}")
        object.__setattr__(self, "rate", rate)
        when = sympy.true if self.when is True else self.when
        when = sympy.sympify(when)
        extra = getattr(when, "free_symbols", set()) - {m, n, N}
        if extra:
            raise ValueError(f"Rule.when may only use m, n, N; got {sorted(map(str, extra))} in {when}")
        object.__setattr__(self, "when", when)


#: The Yao-Knessl model: two M/M/N/N stations, join-the-shortest-queue, ties 1/2-1/2, loss only at (N, N).
RULES = (
    Rule((1, 0), rho, m < n, "arrival joins the first station (fewer busy servers)"),
    Rule((0, 1), rho, n < m, "arrival joins the second station (fewer busy servers)"),
    Rule((1, 0), rho / 2, sympy.Eq(m, n) & (m < N), "tie: arrival joins the first station"),
    Rule((0, 1), rho / 2, sympy.Eq(m, n) & (m < N), "tie: arrival joins the second station"),
    Rule((-1, 0), m, m > 0, "service completion in the first station"),
    Rule((0, -1), n, n > 0, "service completion in the second station"),
)


def rules_equal(a, b) -> bool:
    """Equality of two rule tables, rule by rule in order: the same jumps, rates identical
    (:func:`symloss.core.registry.same_system`, exact) and equivalent guards.

    Parameters
    ----------
    a, b : sequence of Rule
        The two tables.

    Returns
    -------
    bool

    Examples
    --------
    >>> from symloss.twoqueue.definition import RULES, rules_equal
    >>> rules_equal(RULES, RULES), rules_equal(RULES, RULES[:-1])
    (True, False)
    """
    a, b = tuple(a), tuple(b)
    if len(a) != len(b):
        return False
    for r, s in zip(a, b):
        if r.jump != s.jump or not same_system(r.rate, s.rate):
            return False
        if r.when != s.when and sympy.simplify_logic(sympy.Xor(r.when, s.when)) is not sympy.false:
            return False
    return True


@fill_doc(TWOQUEUE_DOCS)
def rules_latex(rules=RULES) -> str:
    r"""The rule table as LaTeX (target, rate, guard; the cases of the generator).

    Parameters
    ----------
    {{rules_param}}

    Returns
    -------
    str
        An ``array`` block, for a math environment.

    Examples
    --------
    >>> from symloss.twoqueue.definition import rules_latex
    >>> print(rules_latex().splitlines()[1])
    (m+1, n) & \rho & \text{if } m < n \\
    """
    lines = []
    for r in rules:
        dm, dn = r.jump
        tgt = f"(m{dm:+d}, n{dn:+d})".replace("+0", "").replace("-0", "")
        lines.append(f"{tgt} & {sympy.latex(r.rate)} & \\text{{if }} {sympy.latex(r.when)}")
    return "\\begin{array}{lll}\n" + " \\\\\n".join(lines) + "\n\\end{array}"


# --------------------------------------------------------------------------------------------------
# compiled evaluators
# --------------------------------------------------------------------------------------------------

def _poly_fraction(expr):
    """``expr`` (polynomial in m, n, N with rational coefficients) as a list of
    ``(Fraction, i, j, k)`` monomials ``c m^i n^j N^k``."""
    p = sympy.Poly(sympy.expand(expr), m, n, N)
    out = []
    for (i, j, k), c in p.terms():
        c = sympy.Rational(c)
        out.append((Fraction(int(c.p), int(c.q)), i, j, k))
    return out


def _eval_poly(terms, mm, nn, NN):
    s = Fraction(0)
    for c, i, j, k in terms:
        s += c * (mm ** i) * (nn ** j) * (NN ** k)
    return s


@dataclass(frozen=True)
class _Compiled:
    rules: tuple
    guards: tuple           # python callables (m, n, N) -> bool
    guards_np: tuple        # numpy callables
    c1: tuple               # Fraction polynomials: coefficient of rho
    c0: tuple               # constant part
    c1_np: tuple
    c0_np: tuple


def _rate_parts(rate):
    e = sympy.expand(rate)
    c1 = e.coeff(rho, 1)
    c0 = sympy.expand(e - c1 * rho)
    return c1, c0


@functools.lru_cache(maxsize=64)
def _compile_cached(rules):
    guards, guards_np, c1s, c0s, c1n, c0n = [], [], [], [], [], []
    for r in rules:
        guards.append(sympy.lambdify((m, n, N), r.when, modules="math"))
        guards_np.append(sympy.lambdify((m, n, N), r.when, modules="numpy"))
        c1, c0 = _rate_parts(r.rate)
        c1s.append(_poly_fraction(c1))
        c0s.append(_poly_fraction(c0))
        c1n.append(sympy.lambdify((m, n, N), c1, modules="numpy"))
        c0n.append(sympy.lambdify((m, n, N), c0, modules="numpy"))
    return _Compiled(rules, tuple(guards), tuple(guards_np), tuple(c1s), tuple(c0s), tuple(c1n), tuple(c0n))


@fill_doc(TWOQUEUE_DOCS)
def compile_rules(rules=RULES) -> _Compiled:
    """Scalar (exact ``Fraction``) and numpy evaluators of a rule table (cached per table).

    Parameters
    ----------
    {{rules_param}}

    Returns
    -------
    object
        The compiled table: guards and the two rate parts (coefficient of ``rho``, constant) as exact
        polynomials and as numpy functions, one per rule.

    Raises
    ------
    TypeError
        If an entry is not a :class:`Rule`.

    Examples
    --------
    >>> from symloss.twoqueue.definition import compile_rules
    >>> len(compile_rules().rules)
    6
    """
    rules = tuple(rules)
    for r in rules:
        if not isinstance(r, Rule):
            raise TypeError(f"rules must be a sequence of Rule, got {type(r).__name__} {r!r}")
    return _compile_cached(rules)


def _as_int(x: Fraction):
    return int(x) if x.denominator == 1 else x


@fill_doc(TWOQUEUE_DOCS)
def transitions(N: int, m: int, n: int, rules=RULES):
    """Transitions out of state ``(m, n)``: a list of ``(m2, n2, rho_coeff, const)``, the rate being
    ``rho_coeff * rho + const`` (``rho_coeff`` a ``Fraction``, ``const`` an ``int`` or ``Fraction``).

    Generated from the rule table ``rules`` (default :data:`RULES`, the Yao-Knessl model). A target outside
    ``[0, N]^2`` or a negative rate is a definition error (``ValueError``).

    Parameters
    ----------
    N : int
        Servers per station, ``>= 1``.
    m, n : int
        The state, ``0 <= m, n <= N``.
    {{rules_param}}

    Returns
    -------
    list of tuple
        ``(m2, n2, rho_coeff, const)`` for every rule whose guard holds and whose rate is not 0.

    Raises
    ------
    TypeError
        If ``N``, ``m`` or ``n`` is not an integer.
    ValueError
        If the state is out of range, or a rule has a negative rate or leaves the state space there.

    Examples
    --------
    >>> from symloss.twoqueue.definition import transitions
    >>> transitions(2, 0, 1)                  # join the first station, or a departure
    [(1, 1, Fraction(1, 1), 0), (0, 0, Fraction(0, 1), 1)]
    """
    if not (isinstance(N, int) and isinstance(m, int) and isinstance(n, int)) or isinstance(N, bool):
        N = check_int(N, "N", min_value=1)
        m = check_int(m, "m", min_value=0, max_value=N)
        n = check_int(n, "n", min_value=0, max_value=N)
    if N < 1 or not (0 <= m <= N and 0 <= n <= N):
        raise ValueError(f"transitions: need N >= 1 and 0 <= m, n <= N; got N={N}, m={m}, n={n}")
    comp = compile_rules(rules)
    out = []
    for r, g, c1, c0 in zip(comp.rules, comp.guards, comp.c1, comp.c0):
        if not g(m, n, N):
            continue
        a = _eval_poly(c1, m, n, N)
        b = _eval_poly(c0, m, n, N)
        if a == 0 and b == 0:
            continue
        if a < 0 or b < 0:
            raise ValueError(f"rule {r.label or r.jump!r}: negative rate {a}*rho + {b} at state {(m, n)}, N={N}")
        m2, n2 = m + r.jump[0], n + r.jump[1]
        if not (0 <= m2 <= N and 0 <= n2 <= N):
            raise ValueError(f"rule {r.label or r.jump!r} leaves the state space at {(m, n)} -> {(m2, n2)}, N={N}")
        out.append((m2, n2, a, _as_int(b)))
    return out


def rule_arrays(rules, N: int, mm: np.ndarray, nn: np.ndarray):
    """Vectorised evaluation of a rule table on integer arrays of states.

    Parameters
    ----------
    rules : sequence of Rule
        The table.
    N : int
        Servers per station.
    mm, nn : numpy.ndarray
        Integer arrays of the same shape: the states.

    Returns
    -------
    list of tuple
        One entry per rule, ``(dm, dn, active, c1, c0)``: ``active`` a boolean array (the guard),
        ``c1``, ``c0`` float arrays (rate = ``c1 * rho + c0``, zero where inactive).

    Examples
    --------
    >>> import numpy as np
    >>> from symloss.twoqueue.definition import RULES, rule_arrays
    >>> mm, nn = np.meshgrid(np.arange(3), np.arange(3), indexing="ij")
    >>> dm, dn, active, c1, c0 = rule_arrays(RULES, 2, mm, nn)[0]     # m < n: join the first station
    >>> (dm, dn), active.tolist()
    ((1, 0), [[False, True, True], [False, False, True], [False, False, False]])
    """
    comp = compile_rules(rules)
    out = []
    for r, g, a, b in zip(comp.rules, comp.guards_np, comp.c1_np, comp.c0_np):
        act = np.broadcast_to(np.asarray(g(mm, nn, N), dtype=bool), mm.shape)
        c1 = np.where(act, np.broadcast_to(np.asarray(a(mm, nn, N), dtype=float), mm.shape), 0.0)
        c0 = np.where(act, np.broadcast_to(np.asarray(b(mm, nn, N), dtype=float), mm.shape), 0.0)
        out.append((r.jump[0], r.jump[1], act, c1, c0))
    return out


# --------------------------------------------------------------------------------------------------
# balance equations and the residual check of an answer
# --------------------------------------------------------------------------------------------------

def balance_equations(Nv: int, transitions_fn, rho_value=None):
    r"""Global balance equations (outflow = inflow, one ``sympy.Eq`` per state) of the chain whose
    transitions are ``transitions_fn(m, n)`` (contract of :func:`transitions`), in the unknowns
    ``p_m_n`` and :math:`\rho` (or the given value).

    Parameters
    ----------
    Nv : int
        Servers per station.
    transitions_fn : callable
        ``(m, n) -> list of (m2, n2, rho_coeff, const)``.
    rho_value : real, optional
        A value substituted for :math:`\rho` (exactly, by ``nsimplify``).

    Returns
    -------
    list of sympy.Eq
        ``(Nv + 1)^2`` equations.

    Examples
    --------
    >>> from symloss.twoqueue.definition import balance_equations, transitions
    >>> balance_equations(1, lambda a, b: transitions(1, a, b))[-1]
    Eq(2*p_1_1, p_0_1*rho + p_1_0*rho)
    """
    r = rho if rho_value is None else sympy.nsimplify(rho_value)
    P = {(i, j): sympy.Symbol(f"p_{i}_{j}") for i in range(Nv + 1) for j in range(Nv + 1)}
    inflow = {s: 0 for s in P}
    outrate = {s: 0 for s in P}
    for (i, j) in P:
        for (i2, j2, c, k) in transitions_fn(i, j):
            rate = sympy.Rational(c.numerator, c.denominator) * r + sympy.nsimplify(k)
            outrate[(i, j)] += rate
            inflow[(i2, j2)] += rate * P[(i, j)]
    return [sympy.Eq(sympy.expand(outrate[s]) * P[s], sympy.expand(inflow[s])) for s in P]


@fill_doc(TWOQUEUE_DOCS)
def balance_residual(p: np.ndarray, rho_value: float, rules=RULES, *, floor: float = 1e-200,
                     chunk: int = 256) -> float:
    r"""Max relative residual :math:`|{\rm in}(s) - {\rm out}(s)| / {\rm out}(s)` of the global balance
    equations of the *full* ``(m, n)`` chain of the rule table, at the states with ``p >= floor``,
    for a float answer ``p`` (array ``(N+1, N+1)``).

    Independent of any solver: the flows are evaluated from the rules (vectorised, row blocks of
    ``chunk`` so that the memory stays a few blocks of ``p``). Terms are all positive, so a correct
    answer gives a residual of a few units of rounding even in the deep tails.

    Parameters
    ----------
    p : numpy.ndarray
        ``(N+1, N+1)`` probabilities, ``N >= 1``.
    rho_value : float
        The load, ``> 0``.
    {{rules_param}}
    floor : float
        States with ``p < floor`` are not checked (their relative residual is rounding noise).
    chunk : int
        Rows per block.

    Returns
    -------
    float
        The largest relative residual over the checked states (0.0 for an exact answer).

    Raises
    ------
    ValueError
        If ``p`` is not square with ``N >= 1`` or ``rho_value`` is not positive.

    Examples
    --------
    >>> from symloss import TwoQueueJSQ
    >>> from symloss.twoqueue.definition import balance_residual
    >>> balance_residual(TwoQueueJSQ(2, 1).generic_solve(), 1.0) < 1e-12
    True
    """
    p = np.asarray(p, dtype=float)
    if p.ndim != 2 or p.shape[0] != p.shape[1] or p.shape[0] < 2:
        raise ValueError(f"p must be a square (N+1, N+1) array with N >= 1, got shape {p.shape}")
    rv = float(check_real(rho_value, "rho_value", lower=0, lower_open=True))
    Nv = p.shape[0] - 1
    comp = compile_rules(rules)
    jumps = [r.jump for r in comp.rules]
    reach = max(max(abs(j[0]) for j in jumps), 1)
    worst = 0.0
    cols = np.arange(Nv + 1)
    for r0 in range(0, Nv + 1, chunk):
        r1 = min(Nv + 1, r0 + chunk)
        s0, s1 = max(0, r0 - reach), min(Nv + 1, r1 + reach)   # source rows that can flow into [r0, r1)
        mm, nn = np.meshgrid(np.arange(s0, s1), cols, indexing="ij")
        src = p[s0:s1]
        inflow = np.zeros((r1 - r0, Nv + 1))
        outflow = np.zeros((s1 - s0, Nv + 1))
        for dm, dn, act, c1, c0 in rule_arrays(comp.rules, Nv, mm, nn):
            f = np.where(act, src * (c1 * rv + c0), 0.0)
            outflow += f
            # sources at rows i (s0 <= i < s1), cols j flow to (i + dm, j + dn): a shifted block
            t_lo, t_hi = max(r0, s0 + dm), min(r1, s1 + dm)
            c_lo, c_hi = max(0, dn), min(Nv + 1, Nv + 1 + dn)
            if t_lo < t_hi and c_lo < c_hi:
                inflow[t_lo - r0:t_hi - r0, c_lo:c_hi] += f[t_lo - dm - s0:t_hi - dm - s0, c_lo - dn:c_hi - dn]
        out = outflow[r0 - s0:r1 - s0]
        worst = max(worst, _max_relative_gap(inflow, out, (p[r0:r1] >= floor) & (out > 0)))
    return worst


def _max_relative_gap(inflow, out, mask) -> float:
    """``max |inflow - out| / out`` over the states of ``mask`` (0 when none is selected)."""
    return float(np.max(np.abs(inflow[mask] - out[mask]) / out[mask])) if mask.any() else 0.0
