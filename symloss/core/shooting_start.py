r"""A banded shooting start for tail models (issue 23, item 2: user models at large ``C``).

When the stationary equations of a tail model ``u_1..u_C`` are *banded* -- drift row ``k`` involves
only :math:`u_{k-1}, u_k, u_{k+1}` and possibly :math:`u_C` (power-of-d, the docs' ``hybrid``,
retrial-like tails), read from the free symbols of the SymPy drift, never assumed -- the fixed point
is a function of :math:`t = \log u_C` alone: row ``k`` (``k = C, ..., 2``) is solved for
:math:`y_{k-1} = \log u_{k-1}` given the rows above it, a 1-D equation in the compiled terms form

.. math:: \sum_t c_t\, e^{L_t}\, e^{a_t y_{k-1}} = 0

(:math:`L_t` the known part of each term's exponent), of which the unique root is taken when the
non-constant terms all move the row the same way (a monotone row). Row 1 is then the outer equation
:math:`F(t) = 0` (the boundary value :math:`u_0 = 1` enters there): bracketed on a doubling grid in
:math:`v = \log(-t)`, then safeguarded Newton in :math:`t` with the derivative carried down the rows
(:math:`dy_{k-1}/dt` by implicit differentiation of row ``k``); float64 shots first, their bracket
confirmed by float shots (by ball shots when the start it gives fails its residual check).

Doubly exponential tails (:math:`u_k \sim \rho^{(d^k - 1)/(d - 1)}`: :math:`|t| \approx 10^{30}` for
power-of-2 at ``C = 100``, :math:`\rho = 1/2`) are no obstacle: every quantity is a python-flint
``arb`` midpoint at a precision of :math:`\log_2(1 + |t|)` bits plus a fixed number of fractional
bits (``_prec_of``), so the start carries ``y`` to an absolute accuracy the ball Newton
iteration refines. The result is only a start: the certificate is the unchanged Krawczyk test on
the model's own stationary equations (:mod:`symloss.core.krawczyk`). Where the structure is not
banded, a row is not monotone, or the outer equation does not bracket, :func:`shooting_start`
returns ``None`` and the caller keeps the continuation start (:mod:`symloss.core.float_start`).

Size: one search over one data layout (the plan's rows): the row solvers in balls (one exponent, the
log-sum Newton of rows with several exponents of one sign, the bracketing Newton otherwise), the same
descent in float64, and the outer bracket and safeguarded Newton in both arithmetics; the float and
ball versions of each step are kept side by side so that they stay the same algorithm.
"""
from __future__ import annotations

import math
import weakref

from flint import arb

from .definition import RHO
from .precision import flint_prec, to_arb

__all__ = ["banded_plan", "shooting_start"]

#: fractional bits carried on top of ``log2(1 + |t|)`` (the start's absolute accuracy in ``y``)
_FRACTION_BITS = 96
#: the doubling grid of ``v = log(-t)`` searched for a sign change of the outer equation
_V_BELOW = (-1.0, -2.0, -4.0, -8.0, -16.0, -32.0, -48.0)
#: largest residual (rows divided by ``u_k``: O(1) terms) accepted for the returned start
_START_RESIDUAL = 2.0 ** -40

_PLANS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class _NoRoot(ArithmeticError):
    """A row has no monotone root at this ``t`` (or a value is not finite)."""


def banded_plan(model):
    """The shooting plan of a banded tail model, or ``None`` when the structure does not allow it.

    Banded means: the model is a tail model with ``C`` variables, no invariants and smooth rates in
    the terms form, and drift row ``i`` (0-based, variable ``u_{i+1}``) has free symbols among
    ``u_i, u_{i+1}, u_{i+2}, u_C`` and ``RHO``, with ``u_i`` present for ``i >= 1`` (the variable row
    ``i`` is solved for).

    Parameters
    ----------
    model : MeanFieldModel
        The definition.

    Returns
    -------
    dict or None
        ``{"n": n, "rows": rows}``: for each row ``i`` the list of its terms ``(coefficient, a,
        others)``, ``a`` the exponent of the unknown ``y_{i-1}`` and ``others`` the pairs ``(index,
        exponent)`` of the known variables (index ``n`` is ``log rho``).

    Examples
    --------
    >>> from symloss import PowerOfD, RandomRouting
    >>> from symloss.core.shooting_start import banded_plan
    >>> banded_plan(PowerOfD(4, 2))["n"], banded_plan(RandomRouting(2)) is None
    (4, True)
    """
    comp = model.compiled
    if comp in _PLANS:
        return _PLANS[comp]
    plan = _make_plan(model, comp)
    _PLANS[comp] = plan
    return plan


def _make_plan(model, comp):
    n = comp.n
    if (getattr(model, "state_kind", "custom") != "tail" or getattr(model, "C", None) != n or n < 2
            or comp.m != 0 or comp.mode != "terms" or not comp.smooth):
        return None
    V = list(model.variables)
    drift = list(model._drift)
    for i, row in enumerate(drift):
        allowed = {V[j] for j in (i - 1, i, i + 1, n - 1) if 0 <= j < n} | {RHO}
        syms = row.free_symbols
        if not syms <= allowed:
            return None
        if i >= 1 and V[i - 1] not in syms:
            return None
    tab = comp.table
    rows: list = [[] for _ in range(n)]
    for t in range(len(tab.coef_fmpq)):
        i = int(tab.row[t])
        if i >= n:                       # pragma: no cover - no invariant rows (m == 0)
            return None
        a, others = 0, []
        for j, e in tab.terms_arb[t]:
            if i >= 1 and j == i - 1:
                a = e
            else:
                others.append((j, e))
        rows[i].append((tab.coef_fmpq[t], a, tuple(others)))
    if any(not r for r in rows) or any(all(a == 0 for _c, a, _o in rows[i]) for i in range(1, n)):
        return None
    return {"n": n, "rows": rows}


def _term(c, others, z, dz, want_d):
    """``(c e^{L}, dL)``: one term at the known log variables, ``L = sum e z[j]`` over its pairs
    ``(j, e)`` in ``others`` and ``dL`` its derivative along ``dz`` (``0`` unless ``want_d``)."""
    L, dL = arb(0), arb(0)
    for j, e in others:
        L += z[j] * e
        if want_d:
            dL += dz[j] * e
    return c * L.exp(), dL


def _solve_row(terms, z, dz, want_d):
    """Root ``s`` (and ``ds/dt``) of one monotone row ``sum c e^{L} e^{a s} = 0``."""
    K, dK = arb(0), arb(0)
    groups: dict = {}
    for c, a, others in terms:
        v, dL = _term(c, others, z, dz, want_d)
        if a == 0:
            K += v
            if want_d:
                dK += v * dL
        else:
            W, dW = groups.get(a, (arb(0), arb(0)))
            groups[a] = (W + v, dW + v * dL if want_d else dW)
    if len(groups) == 1:
        (a, (W, dW)), = groups.items()
        ratio = -K / W
        if not ratio.mid() > 0:
            raise _NoRoot("no root")
        s = ratio.log() / a
        ds = (dK - dW * K / W) / (a * K) if want_d else arb(0)
        return arb(s.mid()), arb(ds.mid())
    return _solve_row_newton(K, dK, groups, want_d)


def _solve_row_newton(K, dK, groups, want_d):
    """Several exponents: f(s) = K + sum_a W_a e^{a s}, strictly monotone when every ``a W_a`` has
    one sign; safeguarded Newton on a bracket found by doubling."""
    signs = {(1 if (a * W).mid() > 0 else -1 if (a * W).mid() < 0 else 0) for a, (W, _dW) in groups.items()}
    if len(signs) != 1 or 0 in signs:
        raise _NoRoot("row not monotone")
    inc = signs.pop()
    s = _solve_row_logsum(K, groups)
    if s is not None:
        return _row_root_derivative(s, dK, groups, want_d)

    def f(s):
        val, der = K, arb(0)
        for a, (W, _dW) in groups.items():
            e = W * (s * a).exp()
            val += e
            der += e * a
        return val, der

    lo, hi, w = arb(-1), arb(1), arb(1)
    for _ in range(400):
        flo, fhi = f(lo)[0].mid() * inc, f(hi)[0].mid() * inc
        if flo < 0 < fhi:
            break
        if not flo < 0:
            lo -= w
        if not fhi > 0:
            hi += w
        w *= 2
    else:
        raise _NoRoot("row does not bracket")
    s = arb(((lo + hi) / 2).mid())
    for _ in range(400):
        val, der = f(s)
        if val.mid() * inc > 0:
            hi = s
        else:
            lo = s
        s_new = arb((s - val / der).mid()) if der.mid() != 0 else arb(((lo + hi) / 2).mid())
        if not (lo.mid() <= s_new.mid() <= hi.mid()):
            s_new = arb(((lo + hi) / 2).mid())
        if abs((s_new - s).mid()) <= arb(2) ** -(_FRACTION_BITS - 8) * (1 + abs(s.mid())) or hi.mid() == lo.mid():
            s = s_new
            break
        s = s_new
    return _row_root_derivative(s, dK, groups, want_d)


def _row_root_derivative(s, dK, groups, want_d):
    """``(s, ds/dt)`` at the root ``s`` of ``K + sum_a W_a e^{a s}`` (implicit differentiation)."""
    if not want_d:
        return s, arb(0)
    der = sum((W * a * (s * a).exp() for a, (W, _dW) in groups.items()), arb(0))
    dfdt = dK + sum((dW * (s * a).exp() for a, (_W, dW) in groups.items()), arb(0))
    return s, arb((-dfdt / der).mid())


def _solve_row_logsum(K, groups):
    """The root of ``K + sum_a W_a e^{a s}`` when every ``W_a`` has one sign, opposite to ``K``, and
    every ``a`` one sign: Newton on ``phi(s) = log(sum_a W_a e^{a s} / -K)``, convex and monotone with
    slope between the smallest and the largest ``|a|``, from the largest single-term root (a bound on
    the far side of the root, so the iterates approach it monotonically after the first step).
    ``None`` when the signs do not allow it (the caller brackets instead)."""
    sgn = {1 if W.mid() > 0 else -1 if W.mid() < 0 else 0 for W, _dW in groups.values()}
    if len(sgn) != 1 or 0 in sgn or not (K.mid() * next(iter(sgn)) < 0) or len({a > 0 for a in groups}) != 1:
        return None
    flip = -1 if next(iter(groups)) < 0 else 1          # a < 0: solve in -s
    negK = -K
    roots = [((negK / W).log() / a) for a, (W, _dW) in groups.items()]
    s = arb((max(roots, key=lambda v: v.mid() * flip)).mid())
    tol = arb(2) ** -(_FRACTION_BITS - 8)
    for _ in range(200):
        S, S1 = arb(0), arb(0)
        for a, (W, _dW) in groups.items():
            e = W * (s * a).exp()
            S += e
            S1 += e * a
        if not (S.is_finite() and S1.is_finite()) or S1.mid() == 0 or not (S / negK).mid() > 0:
            return None
        step = (S / negK).log() * S / S1
        s = arb((s - step).mid())
        if abs(step.mid()) <= tol * (1 + abs(s.mid())):
            return s
    return None


def _shoot(plan, t, r, want_d=True, with_dz=False):
    """``(F, dF/dt, z)``: the rows solved downwards from ``y_C = t``; ``F`` is row 1 (the outer
    equation) at the result, ``z`` the log state (``z[n]`` is ``log rho``); ``with_dz`` appends
    ``dz/dt``."""
    n, rows = plan["n"], plan["rows"]
    z = [arb(0)] * n + [r]
    dz = [arb(0)] * (n + 1)
    z[n - 1], dz[n - 1] = t, arb(1)
    for i in range(n - 1, 0, -1):
        z[i - 1], dz[i - 1] = _solve_row(rows[i], z, dz, want_d)
    # the outer equation as log P - log N (P, N the sums of its positive and negative terms): the same
    # sign as row 1 and much closer to affine in t (Newton takes no steps of a constant size on an
    # exponential flank); row 1 itself where one of the sums vanishes
    P, dP, N, dN = arb(0), arb(0), arb(0), arb(0)
    for c, _a, others in rows[0]:
        v, dL = _term(c, others, z, dz, want_d)
        if c > 0:
            P += v
            dP += v * dL
        else:
            N -= v
            dN -= v * dL
    if P.mid() > 0 and N.mid() > 0:
        F = P.log() - N.log()
        dF = dP / P - dN / N if want_d else arb(0)
    else:
        F, dF = P - N, dP - dN
    if not (F.is_finite() and dF.is_finite()):
        raise _NoRoot("not finite")
    return (arb(F.mid()), arb(dF.mid()), z) + ((dz,) if with_dz else ())


def _t_of_v(v: float, n: int):
    """``t = -e^v`` as an arb midpoint at the precision of its size."""
    with flint_prec(_FRACTION_BITS + max(0, int(v / math.log(2)) + 1) + 2 * int(math.log2(n + 2)) + 8):
        return arb((-(arb(v).exp())).mid())


def _sign_at(plan, v: float, rho_arb_fn):
    """Sign of the outer equation at ``t = -e^v`` (``None`` where a row has no root)."""
    n = plan["n"]
    t = _t_of_v(v, n)
    with flint_prec(_prec_of(n, t)):
        try:
            F, _dF, _z = _shoot(plan, t, rho_arb_fn(), want_d=False)
        except _NoRoot:
            return None, t
    m = F.mid()
    return (1 if m > 0 else -1 if m < 0 else 0), t


def _prec_of(n: int, t) -> int:
    mag = abs(t.mid())
    bits = int(float(mag.log().mid()) / math.log(2)) + 1 if mag > 1 else 0
    return _FRACTION_BITS + bits + 2 * int(math.log2(n + 2)) + 8


def _v_max(plan, lr: float) -> float:
    """An upper end of the grid in ``v``: the largest exponent amplification per level, to the
    power ``n``, times the size of ``log rho``."""
    if "amp" not in plan:                # (once per plan)
        plan["amp"] = max([1.0] + [max(abs(float(a)), *(abs(float(e)) for _j, e in others), 0.0)
                                   for terms in plan["rows"] for _c, a, others in terms])
    return plan["n"] * math.log(plan["amp"] + 1.0) + math.log(1.0 + abs(lr) + plan["n"]) + 8.0


def shooting_start(model, rho):
    """The banded shooting start ``y = log u`` at load ``rho`` (module docstring), or ``None`` when
    the model is not banded or the shooting does not bracket (the caller then keeps today's start).

    Parameters
    ----------
    model : MeanFieldModel
        A model with smooth rates.
    rho : float, int, Fraction or mpmath.mpf
        The load.

    Returns
    -------
    list of flint.arb or None
        Midpoints of ``y = log u`` (not certified: a start for the ball Newton iteration).

    Examples
    --------
    >>> import math
    >>> from symloss import PowerOfD
    >>> from symloss.core.shooting_start import shooting_start
    >>> y = shooting_start(PowerOfD(2, 2), 1)
    >>> round(math.exp(float(y[1].mid())), 12)            # u_2 at rho = 1 (the shipped shooting agrees)
    0.230292578846
    """
    plan = banded_plan(model)
    if plan is None:
        return None
    with flint_prec(128):
        lr = float(to_arb(rho).log().mid())
    if not math.isfinite(lr):
        return None

    def rho_arb():
        return to_arb(rho).log()

    for confirm in ("float", "ball"):    # the float bracket confirmed by float shots, then by ball shots
        found = _bracket_float(plan, lr, rho_arb, confirm)
        t = None if found is None else _newton_t(plan, found[0], rho_arb, s_lo=found[1])
        y = None if t is None else _finish(model, plan, t, rho_arb)
        if y is not None or found is None:
            if y is not None:
                return y
            break
    # the same search with every shot in ball arithmetic (beyond the float range of t or of a term)
    s0, t0 = _sign_at(plan, 0.0, rho_arb)
    if s0 is None or s0 == 0:
        return None if s0 is None else _finish(model, plan, t0, rho_arb)
    return _search_arb(model, plan, lr, rho_arb, s0, t0)


def _float_rows(plan):
    if "float_rows" not in plan:
        plan["float_rows"] = [[(float(c), float(a), tuple((j, float(e)) for j, e in o)) for c, a, o in terms]
                              for terms in plan["rows"]]
    return plan["float_rows"]


def _shoot_float(rows, n, t: float, r: float):
    """``(F, dF/dt)`` of :func:`_shoot` in float64, both scaled by one positive factor (the sign of
    ``F`` and the Newton step ``F / F'`` are what the search uses); one exponent per row only
    (raises otherwise). Every sum of terms is formed relative to its largest exponent, so nothing
    overflows. The descent is accurate to a few units in the last place relative to ``|t|``,
    enough to place the root of the outer equation to ~1e-14 relative before the ball shots refine
    it."""
    z = [0.0] * n + [r]
    dz = [0.0] * (n + 1)
    z[n - 1], dz[n - 1] = t, 1.0
    exp, log = math.exp, math.log

    def shifted(items):
        # items: (c, L, dL) -> (sum c e^(L - m), sum c e^(L - m) dL, m)
        m = max(L for _c, L, _dL in items)
        S = dS = 0.0
        for c, L, dL in items:
            v = c * exp(L - m)
            S += v
            dS += v * dL
        return S, dS, m

    for i in range(n - 1, 0, -1):
        konst, var = [], []
        a0 = None
        for c, a, others in rows[i]:
            L = dL = 0.0
            for j, e in others:
                L += z[j] * e
                dL += dz[j] * e
            if a == 0:
                konst.append((c, L, dL))
            else:
                if a0 is not None and a != a0:
                    raise _NoRoot("several exponents")
                a0 = a
                var.append((c, L, dL))
        if not konst or not var:
            raise _NoRoot("no root")
        Ks, dKs, mK = shifted(konst)
        Ws, dWs, mW = shifted(var)
        if Ws == 0.0 or Ks == 0.0 or not -Ks / Ws > 0:
            raise _NoRoot("no root")
        z[i - 1] = (log(-Ks / Ws) + mK - mW) / a0
        dz[i - 1] = (dKs / Ks - dWs / Ws) / a0
    pos, neg = [], []
    for c, _a, others in rows[0]:
        L = dL = 0.0
        for j, e in others:
            L += z[j] * e
            dL += dz[j] * e
        (pos if c > 0 else neg).append((abs(c), L, dL))
    if pos and neg:                      # log P - log N (see _shoot)
        P, dP, mP = shifted(pos)
        N, dN, mN = shifted(neg)
        if P > 0 and N > 0:
            F, dF = log(P) - log(N) + mP - mN, dP / P - dN / N
        else:
            raise _NoRoot("not finite")
    else:
        F, dF, _m = shifted(pos or neg)
        F, dF = (F, dF) if pos else (-F, -dF)
    if not (math.isfinite(F) and math.isfinite(dF)):
        raise _NoRoot("not finite")
    return F, dF


def _float_shot(plan):
    """:func:`_shoot_float` for this plan as one generated straight-line function ``f(t, r)`` (the same
    operations in the same order, so the same floats; built once per plan), or ``None`` when every
    float shot raises (a row with several exponents, or without a constant or a variable term)."""
    if "float_shot" in plan:
        return plan["float_shot"]
    rows, n = _float_rows(plan), plan["n"]
    lines = ["def shot(t, r):", f"    z = [0.0] * {n + 1}", f"    dz = [0.0] * {n + 1}",
             f"    z[{n - 1}] = t", f"    dz[{n - 1}] = 1.0", f"    z[{n}] = r"]

    def lin(others, arr):
        return " + ".join([f"{arr}[{j}] * {e!r}" for j, e in others]) or "0.0"

    def sums(items, tag):
        # items: (coefficient, others); -> lines computing S<tag>, dS<tag>, m<tag> as ``shifted`` does
        out = []
        for k, (c, o) in enumerate(items):
            out += [f"    L{tag}{k} = 0.0 + {lin(o, 'z')}" if o else f"    L{tag}{k} = 0.0",
                    f"    dL{tag}{k} = 0.0 + {lin(o, 'dz')}" if o else f"    dL{tag}{k} = 0.0"]
        ls = ", ".join(f"L{tag}{k}" for k in range(len(items)))
        out.append(f"    m{tag} = max(({ls},))")
        out.append(f"    S{tag} = 0.0")
        out.append(f"    dS{tag} = 0.0")
        for k, (c, _o) in enumerate(items):
            out += [f"    v = {c!r} * exp(L{tag}{k} - m{tag})", f"    S{tag} += v", f"    dS{tag} += v * dL{tag}{k}"]
        return out

    for i in range(n - 1, 0, -1):
        konst = [(c, o) for c, a, o in rows[i] if a == 0]
        var = [(c, o) for c, a, o in rows[i] if a != 0]
        if not konst or not var or len({a for _c, a, _o in rows[i] if a != 0}) != 1:
            plan["float_shot"] = None
            return None
        a0 = next(a for _c, a, _o in rows[i] if a != 0)
        lines += sums(konst, "K") + sums(var, "W")
        lines += ["    if SW == 0.0 or SK == 0.0 or not -SK / SW > 0:", "        raise _NoRoot('no root')",
                  f"    z[{i - 1}] = (log(-SK / SW) + mK - mW) / {a0!r}",
                  f"    dz[{i - 1}] = (dSK / SK - dSW / SW) / {a0!r}"]
    pos = [(abs(c), o) for c, _a, o in rows[0] if c > 0]
    neg = [(abs(c), o) for c, _a, o in rows[0] if not c > 0]
    if pos and neg:
        lines += sums(pos, "P") + sums(neg, "N")
        lines += ["    if not (SP > 0 and SN > 0):", "        raise _NoRoot('not finite')",
                  "    F, dF = log(SP) - log(SN) + mP - mN, dSP / SP - dSN / SN"]
    else:
        lines += sums(pos or neg, "P")
        lines.append("    F, dF = (SP, dSP)" if pos else "    F, dF = (-SP, -dSP)")
    lines += ["    if not (isfinite(F) and isfinite(dF)):", "        raise _NoRoot('not finite')", "    return F, dF"]
    ns = {"exp": math.exp, "log": math.log, "isfinite": math.isfinite, "_NoRoot": _NoRoot}
    exec(compile("\n".join(lines), f"<float shot of a {n}-row plan>", "exec"), ns)   # noqa: S102 - generated from the plan's numbers
    plan["float_shot"] = ns["shot"]
    return plan["float_shot"]


_UNDECIDED = "undecided"


def _v_grid(v_top: float) -> list:
    """``v = 1, 2, 4, ...`` up to and including ``v_top`` (the grid in ``v = log(-t)``)."""
    grid, v = [], 1.0
    while True:
        grid.append(v)
        if v >= v_top:
            return grid
        v = min(2 * v, v_top)


def _scan(vs, sign_at, s0, t_start):
    """Walk ``vs`` (values of ``v = log(-t)``; ``sign_at(v)`` gives ``(sign of F, t)``): the pair
    ``(t before, t)`` at the first ``v`` where the sign differs from ``s0``; :data:`_UNDECIDED` when a
    sign cannot be decided before that; ``None`` when the sign never changes."""
    t_prev = t_start
    for v in vs:
        s, t = sign_at(v)
        if s is None:
            return _UNDECIDED
        if s != s0:
            return t_prev, t
        t_prev = t
    return None


def _bracket_float(plan, lr: float, rho_arb, confirm: str = "ball"):
    """A narrow bracket ``((t_lo, t_hi), sign of F at t_lo)`` of the outer root, found with float
    shots (grid in ``v``, then safeguarded Newton) and confirmed by two ball shots; ``None`` where
    float64 cannot do it (``confirm="float"``: by two float shots where they decide)."""
    n = plan["n"]
    shot = _float_shot(plan)
    if shot is None:                     # every float shot raises: the ball shots answer
        return None

    seen: dict = {}                      # each point once (the Newton revisits the scan's last two)

    def F(t):
        if t not in seen:
            try:
                seen[t] = shot(t, lr)
            except (_NoRoot, OverflowError, ValueError, ZeroDivisionError):
                seen[t] = None
        return seen[t]

    def sign(t):
        f = F(t)
        return None if f is None else (1 if f[0] > 0 else -1 if f[0] < 0 else 0)

    s0 = sign(-1.0)
    if not s0:
        return None

    def sign_at(v):
        t = -math.exp(v)
        return sign(t), t

    up = _scan(_v_grid(min(_v_max(plan, lr), 700.0)), sign_at, s0, -1.0)
    if up == _UNDECIDED:
        return None
    if up is not None:
        hi, lo = up                        # t = -e^v decreases in v
    else:
        down = _scan(_V_BELOW, sign_at, s0, -1.0)
        if not isinstance(down, tuple):
            return None
        lo, hi = down
    s_lo = sign(lo)
    t = hi
    prev_pt = None
    for _ in range(200):
        f = F(t)
        if f is None:
            return None
        g, dg = f
        if g == 0:
            break
        if (g > 0) == (s_lo > 0):
            lo = t
        else:
            hi = t
        if dg == 0:
            t_new = 0.5 * (lo + hi)
        else:
            t_new = t - g / dg
            # Newton in v = log(-t) where F is closer to affine in v than in t (on the flank of a
            # doubly exponential tail F changes by O(1) per unit of log|t|): the variable whose
            # linear model from the previous point predicted F here better
            if t < -1 and lo < -1 and hi < -1 and prev_pt is not None and prev_pt[0] < -1:
                tp, gp, dgp = prev_pt
                err_t = abs(gp + dgp * (t - tp) - g)
                err_v = abs(gp + dgp * tp * (math.log(-t) - math.log(-tp)) - g)
                if err_v < err_t:
                    t_new = -math.exp(min(math.log(-t) - g / (dg * t), 709.0))
        prev_pt = (t, g, dg)
        if dg != 0 and abs(g / dg) <= 1e-15 * abs(t) + 1e-300:
            break                        # at the rounding level of F (the bracket test would bisect on noise)
        if not (min(lo, hi) < t_new < max(lo, hi)):
            t_new = -math.sqrt(lo * hi) if lo < -1 and hi < -1 else 0.5 * (lo + hi)
        if abs(t_new - t) <= 1e-15 * abs(t) + 1e-300 or abs(hi - lo) <= 1e-15 * abs(t):
            t = t_new
            break
        t = t_new
    w = 1e-12 * abs(t) + 1e-12
    if confirm == "float":
        f_lo, f_hi = F(t - w), F(t + w)  # F there ~1e-12 |t F'|, far above its rounding level
        if f_lo is not None and f_hi is not None and f_lo[0] * f_hi[0] < 0:
            return (arb(t - w), arb(t + w)), (1 if f_lo[0] > 0 else -1)
    # confirm with ball shots: a sign change around the float root
    for _ in range(4):
        a_lo, a_hi = arb(t - w), arb(t + w)
        with flint_prec(_prec_of(n, a_lo)):
            try:
                f_lo = _shoot(plan, a_lo, rho_arb(), want_d=False)[0].mid()
                f_hi = _shoot(plan, a_hi, rho_arb(), want_d=False)[0].mid()
            except _NoRoot:
                return None
        if (f_lo > 0 and f_hi < 0) or (f_lo < 0 and f_hi > 0):
            return (a_lo, a_hi), (1 if f_lo > 0 else -1)
        w *= 1000
    return None


def _search_arb(model, plan, lr, rho_arb, s0, t0):
    """The bracket search and Newton of :func:`shooting_start` with ball shots only."""
    def sign_at(v):
        return _sign_at(plan, v, rho_arb)

    up = _scan(_v_grid(_v_max(plan, lr)), sign_at, s0, t0)
    if isinstance(up, tuple):
        bracket = (up[1], up[0])           # t = -e^v decreases in v
    else:                                  # no change, or undecided: try the loads below
        down = _scan(_V_BELOW, sign_at, s0, t0)
        bracket = down if isinstance(down, tuple) else None
    if bracket is None:
        return None
    t = _newton_t(plan, bracket, rho_arb)
    if t is None:
        return None
    return _finish(model, plan, t, rho_arb)


def _newton_t(plan, bracket, rho_arb, s_lo=None):
    """Safeguarded Newton on ``F(t) = 0`` inside the bracket ``(t_lo, t_hi)`` (``F`` changes sign
    there; ``s_lo`` its sign at ``t_lo`` when known), the other step a bisection in ``log(-t)`` (a
    geometric mean) or in ``t`` near 0."""
    n = plan["n"]
    t_lo, t_hi = bracket
    if s_lo is None:
        with flint_prec(_prec_of(n, t_lo)):
            f_lo = _shoot(plan, t_lo, rho_arb(), want_d=False)[0].mid()
        s_lo = 1 if f_lo > 0 else -1
    t = t_hi
    prev = None
    dx = dxold = None
    for _ in range(300):
        with flint_prec(_prec_of(n, t_lo)):
            try:
                F, dF, _z = _shoot(plan, t, rho_arb())
            except _NoRoot:
                return None
            if F.mid() == 0:
                return t
            if (F.mid() > 0) == (s_lo > 0):
                t_lo = t
            else:
                t_hi = t
            step = F / dF if dF.mid() != 0 else None
            t_new = arb((t - step).mid()) if step is not None else None
            if step is not None and abs(step.mid()) <= arb(2) ** -64:
                return t_new             # converged (before the bracket test: t_new may round onto its end)
            # bisect when the Newton step leaves the bracket or does not shrink fast enough (|F| not
            # halving against the step before last: an exponential flank, Newton steps of a constant size)
            slow = step is not None and dxold is not None and abs(2 * F.mid()) > abs((dxold * dF).mid())
            if t_new is None or slow or not (min(t_lo.mid(), t_hi.mid()) < t_new.mid() < max(t_lo.mid(), t_hi.mid())):
                if t_lo.mid() < -1 and t_hi.mid() < -1:
                    t_new = arb(-(((-t_lo).log() + (-t_hi).log()) / 2).exp().mid())
                else:
                    t_new = arb(((t_lo + t_hi) / 2).mid())
                step = t - t_new
            size = abs(step.mid())
            if size <= arb(2) ** -64:
                return t_new
            if abs((t_hi - t_lo).mid()) <= arb(2) ** -64:
                return t_new
            if prev is not None and size >= prev and size <= arb(2) ** -24:
                return t_new             # the rounding floor of F: the ball Newton refines
            prev = size
            dxold, dx = dx, step
            t = t_new
    return None


def _finish(model, plan, t, rho_arb):
    """The log state of the shot from ``t``, or ``None`` unless the whole system's residual is small."""
    n = plan["n"]
    comp = model.compiled
    with flint_prec(_prec_of(n, t)):
        try:
            _F, _dF, z = _shoot(plan, t, rho_arb(), want_d=False)
        except _NoRoot:
            return None
        y = [arb(v.mid()) for v in z[:n]]
        G = comp.G_arb(y, rho_arb())
        if not all(g.is_finite() and abs(g.mid()) <= _START_RESIDUAL for g in G):
            return None
    return y
