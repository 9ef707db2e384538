r"""Exact asymptotic expansions of the mean-field blocking of any model at small and at large load.

:func:`blocking_series` / :func:`blocking_expansion` expand the stationary blocking :math:`B(\rho)` of a
:class:`~symloss.MeanFieldModel` in powers of :math:`\rho` (at 0) or :math:`1/\rho` (at infinity) with
exact rational coefficients, from the model's own stationary equations: a Newton-polygon scaling of
the state, an exact triangular leading system, an invertible Jacobian and a formal power series with
an exact residual check (the method is described in :mod:`symloss.meanfield.series`). A family may
register hand-derived scalings of its own policies (:func:`register_scaling`;
:mod:`symloss.meanfield.series` does for the shipped policies); any other model gets its scaling read
off certified fixed points near the expansion point and verified exactly.
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction as _F

import mpmath
import sympy as sp
from flint import fmpq, fmpq_poly

from .definition import RHO, is_model
from .docstrings import fill_doc
from .series_result import BlockingSeries, _rat_mpf, big_int_str  # noqa: F401  (re-exported)
from .validation import Deadline, TimeLimitExceeded, check_int

__all__ = ["blocking_series", "blocking_expansion", "BlockingSeries", "big_int_str", "register_scaling"]

_T = sp.Symbol("t", positive=True)
_MAX_ORDER = 1024
_MAX_TERMS = 64


# ==================================================================================================
# public functions
# ==================================================================================================

@fill_doc
def blocking_series(model, at=0, n: int = 3, *, max_seconds=None) -> sp.Expr:
    r"""Asymptotic expansion of the mean-field blocking of ``model`` in ``rho``.

    Parameters
    ----------
    model : MeanFieldModel
        A shipped policy (:class:`~symloss.RetrialOfD`, :class:`~symloss.RandomRouting`,
        :class:`~symloss.PowerOfD`, :class:`~symloss.JSQ`: hand-derived scalings, used when the
        accelerator's template is the definition) or any other definition (scaling read off
        certified fixed points near the expansion point, then verified exactly).
    at : 0 or sympy.oo
        Expansion point: ``0`` gives a series in increasing powers of ``rho``, ``sympy.oo``
        (also accepted: ``"oo"``, ``"inf"``, ``math.inf``) a series in powers of ``1/rho``.
    n : int
        Number of non-zero terms kept (1 to 64).
    max_seconds : float, optional
        Wall-clock budget: :class:`~symloss.core.validation.TimeLimitExceeded` is raised between the
        symbolic steps once it is spent (the expansion of a large model, e.g. ``PowerOfD(50, 10)``,
        takes minutes). ``None``: no limit.

    Returns
    -------
    sympy.Expr
        ``a_1 rho^k_1 + ... + a_n rho^k_n + O(rho^k_{n+1})`` with exact rational coefficients.
        The ``O`` term is the order of the first omitted non-zero term.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`~symloss.MeanFieldModel` or ``n`` is not an integer.
    ValueError
        If ``at`` is not 0 or infinity, ``n`` is out of range, or no power-law scaling of the state
        is found near the expansion point (user models).

    See Also
    --------
    blocking_expansion, symloss.MeanFieldModel.series

    Notes
    -----
    Small load (the leading terms of [1]_):

    .. math:: B_{ret}(d) = \left(\frac{\rho^C}{C!}\right)^d (1 + O(\rho)), \qquad
              B_{pod}(d) = c\,\rho^{d (d^C - 1)/(d - 1)} (1 + O(\rho^d)),
              \quad c = c_C^d,\ c_k = c_{k-1}^d / k,\ c_0 = 1.

    Large load: :math:`B = 1 - C/\rho + O(\rho^{-2})` for every policy. The coefficients come from
    the model's stationary equations by Newton-polygon scaling and an exact formal power series
    (see the module docstring); the expansion is exact to the stated order, not an estimate.

    {{references_retrial}}

    Examples
    --------
    >>> from symloss import PowerOfD, RetrialOfD
    >>> from symloss.meanfield.series import blocking_series
    >>> blocking_series(PowerOfD(2, 2), 0, n=2)
    rho**6/4 - rho**8/2 + O(rho**10)
    >>> blocking_series(RetrialOfD(2, 3), 0, n=1)
    rho**6/8 + O(rho**7)
    >>> blocking_series(RetrialOfD(2, 2), "oo", n=3)
    rho**(-2) - 2/rho + 1 + O(rho**(-3), (rho, oo))
    """
    return blocking_expansion(model, at, n, max_seconds=max_seconds).expr


@fill_doc
def blocking_expansion(model, at=0, n: int = 3, *, max_seconds=None) -> BlockingSeries:
    """Like :func:`blocking_series`, but returns the :class:`BlockingSeries` (terms, next term,
    truncation order) that the tests and the notebook use to check the expansion numerically.

    Parameters
    ----------
    model : MeanFieldModel
        The model (as for :func:`blocking_series`).
    at : 0 or sympy.oo
        Expansion point (``"oo"``, ``"inf"`` and ``math.inf`` are accepted for infinity).
    n : int
        Number of non-zero terms kept (1 to 64).
    max_seconds : float, optional
        Wall-clock budget (see :func:`blocking_series`).

    Returns
    -------
    BlockingSeries
        The exact terms, the first omitted term and the truncation order.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`~symloss.MeanFieldModel` or ``n`` is not an integer.
    ValueError
        If ``at`` or ``n`` is out of range, or no power-law scaling is found (user models).
    TimeLimitExceeded
        When ``max_seconds`` is spent.

    See Also
    --------
    blocking_series

    {{references_retrial}}

    Examples
    --------
    >>> from symloss import PowerOfD, blocking_expansion
    >>> e = blocking_expansion(PowerOfD(2, 2), 0, n=2)
    >>> e.terms, e.next_term
    ([(1/4, 6), (-1/2, 8)], (3/4, 10))
    """
    where = _check_at(at)
    n = check_int(n, "n", min_value=1, max_value=_MAX_TERMS)
    deadline = Deadline(max_seconds, "blocking_expansion")
    policy, scaling = _policy(model)
    key = (policy, model._definition_key(), where, n)       # the definition itself, never (class, C, d)
    if key in _CACHE:
        return _CACHE[key]
    res = None if scaling is None else scaling.exact(model, policy, where, n)
    if res is None:
        res = _expand(model, policy, where, n, deadline, scaling)
    _CACHE[key] = res
    return res


_CACHE: dict = {}


def _check_at(at) -> str:
    if isinstance(at, str):
        s = at.strip().lower()
        if s in ("0", "zero"):
            return "0"
        if s in ("oo", "inf", "infinity", "+inf", "+oo"):
            return "oo"
        raise ValueError(f"at must be 0 or sympy.oo (or 'oo'/'inf'), got {at!r}")
    if at is sp.oo:
        return "oo"
    if isinstance(at, bool):
        raise TypeError(f"at must be 0 or sympy.oo, got {at!r}")
    if isinstance(at, (numbers.Real, sp.Basic)):
        try:
            f = float(at)
        except (TypeError, ValueError):
            f = None
        if f == 0:
            return "0"
        if f == math.inf:
            return "oo"
    raise ValueError(f"at must be 0 or sympy.oo (or 'oo'/'inf'), got {at!r}")

# ==================================================================================================
# scalings registered by a family (hand-derived for its own policies)
# ==================================================================================================

#: the hand-derived scalings families register (:func:`register_scaling`), tried in order
_SCALINGS: list = []


def register_scaling(scaling) -> None:
    """Register hand-derived scalings for a family's own models (done once by the family, e.g.
    :mod:`symloss.meanfield.series` for the shipped policies), so that core never imports a family.

    Parameters
    ----------
    scaling : object
        With ``policy(model) -> str or None`` (the name of a scaling that applies to this *definition*,
        e.g. because an accelerator's template is the definition; ``None`` otherwise),
        ``exact(model, policy, where, n) -> BlockingSeries or None`` (an exact expansion, e.g. of a
        closed form; ``None``: expand) and ``ansatz(model, policy, where) -> (equations, scaling,
        order_factor)`` (the equations in the state and ``RHO``, ``(var, base, sign, exponent)`` per
        variable, and the factor of the first truncation order). ``where`` is ``"0"`` or ``"oo"``.

    Returns
    -------
    None
        ``scaling`` is appended (once) to the scalings that :func:`blocking_expansion` tries, in order.

    Raises
    ------
    TypeError
        If ``scaling`` lacks one of the three methods.

    Examples
    --------
    >>> import symloss.meanfield.series                  # registers the shipped policies' scalings
    >>> from symloss.core.series import _SCALINGS
    >>> len(_SCALINGS) >= 1
    True
    """
    missing = [m for m in ("policy", "exact", "ansatz") if not callable(getattr(scaling, m, None))]
    if missing:
        raise TypeError(f"a scaling needs the methods policy, exact and ansatz; {scaling!r} lacks {missing}")
    if scaling not in _SCALINGS:
        _SCALINGS.append(scaling)


def _policy(model) -> tuple:
    """``(policy, scaling)``: the registered hand-derived scaling that applies to the definition, else
    ``("generic", None)`` (scaling found numerically and then verified exactly)."""
    if not is_model(model):
        raise TypeError(f"model must be a MeanFieldModel, got {type(model).__name__}")
    for scaling in _SCALINGS:
        policy = scaling.policy(model)
        if policy is not None:
            return policy, scaling
    return "generic", None


# ==================================================================================================
# the generic ansatz and the exact expansion
# ==================================================================================================

def _numeric_scaling(model, where):
    """Scaling ``(var, base, sign, exponent)`` of every state variable, read off certified fixed points
    at two loads near the expansion point: ``base`` (0 or 1) is the limit, ``exponent`` the slope of
    ``log|x - base|`` in ``log t`` rounded to a rational of small denominator. This is only a guess:
    :func:`_expand` then verifies exactly that it is a dominant balance (leading system solved
    exactly, scaled equations polynomial in ``t``, invertible Jacobian, exact series residual)."""
    scale = float(getattr(model, "C", None) or 1)
    if where == "0":
        loads = [_F(scale) * _F(1, 10 ** 3), _F(scale) * _F(1, 10 ** 4)]
    else:
        loads = [_F(scale) * 10 ** 3, _F(scale) * 10 ** 4]
    fps = [model.fixed_point(r, dps=30) for r in loads]
    out = []
    with mpmath.workdps(40):
        lt = [mpmath.log(mpmath.mpf(r.numerator) / r.denominator) * (1 if where == "0" else -1) for r in loads]
        for k, var in enumerate(model.variables):
            xs = [fp.x[k] for fp in fps]
            base = 1 if abs(xs[1] - 1) < mpmath.mpf("0.5") else 0
            devs = [x - base for x in xs]
            if any(dv == 0 for dv in devs) or (devs[0] > 0) != (devs[1] > 0):
                raise ValueError(f"no power-law scaling of {var} near rho = {'0' if where == '0' else 'oo'}")
            e = (mpmath.log(abs(devs[1])) - mpmath.log(abs(devs[0]))) / (lt[1] - lt[0])
            q = round(float(e))
            if abs(float(e) - q) > 0.05 or q <= 0:
                raise ValueError(f"the scaling exponent of {var} near rho = {'0' if where == '0' else 'oo'} "
                                 f"({mpmath.nstr(e, 6)}) is not a positive integer: no power series in "
                                 f"{'rho' if where == '0' else '1/rho'}")
            out.append((var, base, 1 if devs[1] > 0 else -1, int(q)))
    return out


def _ansatz_generic(model, where):
    """Equations and scaling for any model: the square stationary system (drift rows, one per
    invariant replaced by the invariant) and the numerically detected scaling. Where the drift
    conserves the total mass, the cut equations (partial sums of the drift rows, as for retrial) are
    tried when the plain rows do not give a triangular leading system."""
    scal = _numeric_scaling(model, where)
    rows, _ = model._square_system
    return [sp.expand(e) for e in rows], scal


def _cut_equations(model):
    f = list(model.drift())
    if sp.expand(sum(f)) != 0 or len(model._invariants) != 1:
        return None
    c, v = model._invariants[0]
    V = list(model.variables)
    cuts = [sp.expand(sum(f[:k])) for k in range(1, len(V))]
    return cuts + [sp.expand(sum(ci * x for ci, x in zip(c, V)) - v)]


def _laurent_terms(expr, t):
    """Terms of an expanded Laurent polynomial in ``t`` as a dict exponent -> coefficient expr."""
    out: dict = {}
    for term in sp.Add.make_args(sp.expand(expr)):
        c, e = term.as_coeff_exponent(t)
        if c.has(t):  # pragma: no cover
            raise ValueError("not a Laurent polynomial in t")
        e = int(e)
        out[e] = out.get(e, 0) + c
    return {e: c for e, c in out.items() if c != 0}


def _substitute(expr, scal, cs, vs, where):
    sub = {RHO: _T if where == "0" else 1 / _T}
    for (var, base, sign, e), c, v in zip(scal, cs, vs):
        sub[var] = base + sign * _T ** e * c * (1 + v)
    return sp.expand(expr.xreplace(sub))


def _solve_leading(lead_eqs, cs, deadline):
    """Solve the triangular leading system: repeatedly pick an equation linear in exactly one
    unknown coefficient (the others being known)."""
    known: dict = {}
    pivots: dict = {}
    eqs = list(lead_eqs)
    while len(known) < len(cs):
        progress = False
        for i, e in enumerate(eqs):
            if e is None:
                continue
            deadline.check("leading system")
            e2 = sp.expand(e.xreplace(known))
            free = [c for c in cs if c not in known and e2.has(c)]
            if not free:
                if e2 != 0:
                    raise ValueError("inconsistent leading system (wrong dominant balance)")
                eqs[i] = None
                continue
            if len(free) == 1:
                c = free[0]
                P = sp.Poly(e2, c)
                if P.degree() != 1:
                    continue
                val = sp.Rational(-P.nth(0) / P.nth(1))
                if val == 0:
                    raise ValueError("leading coefficient 0: wrong dominant balance")
                known[c] = val
                pivots[i] = c
                eqs[i] = None
                progress = True
        if not progress:
            raise ValueError("leading system of the scaled stationary equations is not triangular")
    for e in eqs:
        if e is not None and sp.expand(e.xreplace(known)) != 0:
            raise ValueError("leading system inconsistent")
    return [known[c] for c in cs], pivots


def _to_fmpq(x) -> fmpq:
    x = sp.Rational(x)
    return fmpq(int(x.p), int(x.q))


class _SeriesPoly:
    """A polynomial in the unknown series ``v`` and in ``t`` (terms with t-degree >= M dropped),
    evaluated on truncated power series (fmpq_poly) modulo t^M. Coefficients may contain the
    leading-coefficient symbols; ``cmap`` gives their values, substituted only in the kept terms
    (for power-of-d at small load the values have ~d^C digits while the kept ratios are small)."""

    def __init__(self, expr, vs, M, cmap=None):
        self.terms = []
        for e, coeff in _laurent_terms(expr, _T).items():
            if e < 0:
                raise ValueError("negative power of t after scaling")
            if e >= M:
                continue
            if cmap:
                coeff = sp.expand(coeff.xreplace(cmap))
            P = sp.Poly(coeff, *vs)
            for mon, c in P.terms():
                self.terms.append((e, mon, _to_fmpq(c)))

    def __call__(self, v, M, cache):
        acc = fmpq_poly([])
        for e, mon, c in self.terms:
            p = fmpq_poly([c])
            for j, a in enumerate(mon):
                if a:
                    key = (j, a)
                    if key not in cache:
                        cache[key] = v[j].pow_trunc(a, M) if a > 1 else v[j]
                    p = p.mul_low(cache[key], M)
            if e:
                p = p.left_shift(e).truncate(M)
            acc += p
        return acc.truncate(M)


def _expand(model, policy, where, n, deadline, scaling=None):
    if scaling is None:
        eqs, scal = _ansatz_generic(model, where)
        try:
            return _expand_with(model, policy, where, n, eqs, scal, deadline)
        except TimeLimitExceeded:
            raise
        except ValueError:
            cuts = _cut_equations(model)
            if cuts is None:
                raise
            return _expand_with(model, policy, where, n, cuts, scal, deadline)
    eqs, scal, factor = scaling.ansatz(model, policy, where)
    return _expand_with(model, policy, where, n, eqs, scal, deadline, factor)


def _expand_with(model, policy, where, n, eqs, scal, deadline, order_factor=1):
    C, d = getattr(model, "C", None), getattr(model, "d", 1)
    m = len(scal)
    cs = list(sp.symbols(f"c0:{m}"))
    vs = list(sp.symbols(f"v0:{m}"))
    zero_v = [sp.Integer(0)] * m
    # 1. dominant balance: lowest power of t of each equation with symbolic leading coefficients
    scaled_lead, shifts = [], []
    for eq in eqs:
        deadline.check("dominant balance")
        terms = _laurent_terms(_substitute(eq, scal, cs, zero_v, where), _T)
        if not terms:
            raise ValueError("an equation vanishes identically under the scaling")
        low = min(terms)
        shifts.append(low)
        scaled_lead.append(terms[low])
    cvals, pivots = _solve_leading(scaled_lead, cs, deadline)
    cmap = dict(zip(cs, cvals))
    # 2. scaled system in v, kept symbolic in the c_k and divided by the pivot coefficient of each
    #    equation, so that the (possibly enormous) values c_k enter only through small ratios
    G_exprs = []
    for i, (eq, low) in enumerate(zip(eqs, shifts)):
        deadline.check("scaled system")
        g = sp.expand(_substitute(eq, scal, cs, vs, where) * _T ** (-low))
        if i in pivots:
            g = sp.expand(g / pivots[i])
        if any(e < 0 for e in _laurent_terms(g, _T)):
            raise ValueError("scaled equations are not polynomial in t (wrong dominant balance)")
        G_exprs.append(g)
    # Jacobian at (v, t) = (0, 0) and G(0, 0) = 0
    at0 = [sp.expand(_laurent_terms(g, _T).get(0, sp.Integer(0)).xreplace(cmap)) for g in G_exprs]
    if any(a.xreplace({v: 0 for v in vs}) != 0 for a in at0):
        raise ValueError("leading coefficients do not solve the scaled system")
    deadline.check("Jacobian")
    J0 = sp.Matrix([[sp.diff(a, v).xreplace({w: 0 for w in vs}) for v in vs] for a in at0])
    if J0.det() == 0:
        raise ValueError("singular Jacobian of the scaled system: the expansion is not a regular power series")
    J0inv = J0.inv()
    Jinv = [[_to_fmpq(J0inv[i, j]) for j in range(m)] for i in range(m)]
    # blocking expression: B = K t^low_B * (polynomial in v, t), K the leading constant
    B_expr = _substitute(model._blocking, scal, cs, vs, where)
    B_terms = _laurent_terms(B_expr, _T)
    low_B = min(B_terms)
    B_scaled = sp.expand(B_expr * _T ** (-low_B))
    K = sp.expand(B_terms[low_B].xreplace({v: 0 for v in vs}))
    if K != 0 and not K.is_Add:
        B_scaled = sp.expand(B_scaled / K)
        Kval = sp.Rational(K.xreplace(cmap))
    else:
        Kval = sp.Integer(1)
    sign_t = 1 if where == "0" else -1   # rho exponent = sign_t * t exponent

    M = max(8, 2 * (n + 1) * order_factor + 2)
    while True:
        deadline.check("power series")
        v = _solve_series(G_exprs, vs, Jinv, M, cmap, deadline)
        Bs = _SeriesPoly(B_scaled, vs, M, cmap)(v, M, {})
        coeffs = Bs.coeffs()
        nz = [(j, coeffs[j]) for j in range(len(coeffs)) if coeffs[j] != 0]
        if len(nz) >= n + 1 or M >= _MAX_ORDER:
            break
        M *= 2
    kept = nz[:n]
    terms = [(Kval * sp.Rational(int(c.p), int(c.q)), sign_t * (low_B + j)) for j, c in kept]
    if len(nz) > n:
        j, c = nz[n]
        nxt = (Kval * sp.Rational(int(c.p), int(c.q)), sign_t * (low_B + j))
        rem = nxt[1]
    else:
        nxt = None
        rem = sign_t * (low_B + M)
    method = ("Newton-polygon scaling X_k = base + sign t^e_k c_k (1 + v_k) of the stationary equations "
              f"(t = {'rho' if where == '0' else '1/rho'}), exact triangular leading system, "
              f"formal power series mod t^{M} with exact residual check")
    exps = {str(var): (sign_t * e if base == 0 else f"1 - x with x ~ rho^{sign_t * e}") for var, base, _s, e in scal}
    return BlockingSeries(policy if policy != "generic" else model.name, C, d, where, terms, nxt, rem, M,
                          method, exps)


def _solve_series(G_exprs, vs, Jinv, M, cmap, deadline):
    m = len(vs)
    G = [_SeriesPoly(g, vs, M, cmap) for g in G_exprs]
    v = [fmpq_poly([]) for _ in range(m)]
    for _it in range(M + 3):
        deadline.check("power series iteration")
        cache: dict = {}
        r = [g(v, M, cache) for g in G]
        if all(x.is_zero() for x in r):
            return v
        for i in range(m):
            delta = fmpq_poly([])
            for j in range(m):
                if Jinv[i][j] != 0 and not r[j].is_zero():
                    delta += r[j] * Jinv[i][j]
            v[i] = (v[i] - delta).truncate(M)
    raise ArithmeticError("formal power series iteration did not converge")  # pragma: no cover
