r"""The tail system of a mean-field model (``_TailSystem``): the drift in tails
:math:`u_1, \dots, u_C` as exact rational polynomials (python-flint ``fmpq_mpoly``) in :math:`(u, \rho)`,
the polynomials of the three conditions (cooperative, forward-invariant faces, column sums), and the
sign check by gap substitutions (``u_j = t_j + u_{j'}``, every coefficient ``>= 0``).

Shared by the search (:mod:`symloss.core.convergence`) and the re-check
(:mod:`symloss.core.convergence_recheck`). Split out of :mod:`symloss.core.convergence` (which
re-exports every name).
"""
from __future__ import annotations

from fractions import Fraction

from flint import fmpq, fmpq_mpoly_ctx

from .convergence_records import _NotApplicable, _q

# ==================================================================================================
# the tail system of a model
# ==================================================================================================

class _TailSystem:
    """The model's drift in tails, as exact polynomials in ``u_0 (= 1), u_1..u_C, t_0..t_C, rho``."""

    def __init__(self, model):
        kind = getattr(model, "state_kind", "custom")
        C = getattr(model, "C", None)
        V = tuple(model.variables)
        if kind not in ("tail", "occupancy"):
            raise _NotApplicable("order", f"state_kind {kind!r}: no order structure (the certificate needs tails "
                                          "u_1 >= ... >= u_C, state_kind 'tail', or occupancies x_0..x_C, "
                                          "state_kind 'occupancy')")
        if isinstance(C, bool) or not isinstance(C, int) or C < 1:
            raise _NotApplicable("order", f"state_kind {kind!r} needs the capacity C (an integer >= 1), got {C!r}")
        n = C + 1 if kind == "occupancy" else C
        if len(V) != n:
            raise _NotApplicable("order", f"state_kind {kind!r} with C = {C} needs {n} variables, got {len(V)}")
        if kind == "occupancy" and not any(all(ci == 1 for ci in c) and val == 1 for c, val in model._invariants):
            raise _NotApplicable("order", "an occupancy state needs the declared invariant x_0 + ... + x_C = 1 "
                                          "(the tails u_k = x_k + ... + x_C then describe the state)")
        rows = model._drift_poly
        if rows is None:
            raise _NotApplicable("polynomial", "the drift is not a polynomial in the state and rho (e.g. Heaviside or "
                                               "non-rational rates): the sign certificates need polynomials")
        self.C, self.kind = C, kind
        names = tuple(f"u{k}" for k in range(C + 1)) + tuple(f"t{k}" for k in range(C + 1)) + ("rho",)
        self.ctx = ctx = fmpq_mpoly_ctx.get(names, "lex")
        gens = ctx.gens()
        self.u = gens[:C + 1]
        self.t = gens[C + 1:2 * C + 2]
        self.rho = gens[-1]
        self.R = 2 * C + 2                      # index of rho
        one = ctx.from_dict({(0,) * len(names): 1})
        self.one = one
        u = list(self.u[1:]) + [ctx.from_dict({})]          # u_1..u_C, u_{C+1} = 0
        if kind == "occupancy":
            images = [one - u[0]] + [u[k - 1] - u[k] for k in range(1, C + 1)]
        else:
            images = list(u[:C])
        nv = len(V)
        shift = 0
        for row in rows:
            for key in row:
                for i, e in key:
                    if i < nv and e < 0:
                        raise _NotApplicable("polynomial", f"the drift has a negative power of {V[i]}: the sign "
                                                           "certificates need polynomials in the state")
                    if i == nv and e < 0:
                        shift = max(shift, -e)
        pw: dict = {}

        def power(i, e):
            k = (i, e)
            if k not in pw:
                pw[k] = (self.rho if i == nv else images[i]) ** e
            return pw[k]
        f = []
        for row in rows:
            acc = ctx.from_dict({})
            for key, c in row.items():
                term = one * fmpq(c.numerator, c.denominator)
                er = shift
                for i, e in key:
                    if i == nv:
                        er += e
                    else:
                        term = term * power(i, e)
                if er:
                    term = term * power(nv, er)
                acc = acc + term
            f.append(acc)
        #: every row was multiplied by rho^shift > 0 (a Laurent drift in rho): signs are unchanged
        self.rho_shift = shift
        if kind == "occupancy":
            g, acc = [None] * C, ctx.from_dict({})
            for k in range(C, 0, -1):
                acc = acc + f[k]
                g[k - 1] = acc
        else:
            g = f
        self.g = g                              # g[k-1] = d u_k / dt
        self.J = [[g[i].derivative(f"u{k + 1}") for k in range(C)] for i in range(C)]

    # ---- the polynomials of the three conditions ------------------------------------------------------
    def entries(self):
        """``[((i, j), P)]`` for the non-zero off-diagonal entries (1-based levels)."""
        C = self.C
        return [((i + 1, k + 1), self.J[i][k]) for i in range(C) for k in range(C)
                if i != k and not self.J[i][k].is_zero()]

    def faces(self):
        """``[(k, P)]``: the drift of the gap ``t_k`` (to be checked on the face ``t_k = 0``)."""
        C, g = self.C, self.g
        out = [(0, -g[0])]
        out += [(k, g[k - 1] - g[k]) for k in range(1, C)]
        out.append((C, g[C - 1]))
        return out

    def columns(self):
        """``[(k, P)]``: minus the column sums of the Jacobian."""
        C = self.C
        out = []
        for k in range(C):
            acc = self.ctx.from_dict({})
            for i in range(C):
                acc = acc - self.J[i][k]
            out.append((k + 1, acc))
        return out

    # ---- transformations ----------------------------------------------------------------------------------
    def load(self, p, load: dict):
        """``p`` with the load substituted: a rational number, or ``rho = lo + y`` /
        ``rho = (lo + hi y)/(1 + y)`` times ``(1 + y)^deg`` (``y`` in the ``rho`` slot)."""
        if load["kind"] == "every" or p.is_zero():
            return p
        ctx, R = self.ctx, self.R
        if load["kind"] == "point":
            return p.subs({"rho": _q(Fraction(load["rho"]))})
        lo = _q(Fraction(load["lo"]))
        y = self.rho
        if load["hi"] is None:
            return p.compose(*(list(ctx.gens()[:R]) + [y + lo]))
        hi = _q(Fraction(load["hi"]))
        D = p.degrees()[R]
        parts: dict = {}
        for m, c in zip(p.monoms(), p.coeffs()):
            e = m[R]
            mm = list(m)
            mm[R] = 0
            parts.setdefault(e, {})[tuple(mm)] = c
        out = ctx.from_dict({})
        num, den = self.one * lo + y * hi, self.one + y
        for e, terms in parts.items():
            out = out + ctx.from_dict(terms) * num ** e * den ** (D - e)
        return out

    def homogenize(self, p):
        """``p`` homogeneous in ``u_0, ..., u_C`` (``u_0 = 1`` on ``D``)."""
        if p.is_zero():
            return p
        C = self.C
        degs = [sum(m[1:C + 1]) for m in p.monoms()]
        M = max(degs)
        terms = {}
        for m, c, dg in zip(p.monoms(), p.coeffs(), degs):
            mm = list(m)
            mm[0] += M - dg
            terms[tuple(mm)] = c
        return self.ctx.from_dict(terms)

    def on_face(self, p, face):
        """``p`` on the face ``t_face = 0`` (``u_{k+1} -> u_k``; ``u_C -> 0`` for ``k = C``), and the levels
        still free there."""
        C = self.C
        if face is None:
            return p, list(range(C + 1))
        gens = list(self.ctx.gens())
        if face == C:
            gens[C] = self.ctx.from_dict({})
        else:
            gens[face + 1] = self.u[face]
        live = [j for j in range(C + 1) if j != (face + 1 if face < C else C)]
        return p.compose(*gens), live

    def gaps(self, p, S, live):
        """``p`` with ``u_j = t_j + u_{j'}`` for ``j`` in ``S`` (``j'`` the next free level, recursively)."""
        if not S:
            return p
        C = self.C
        gens = list(self.ctx.gens())
        zero = self.ctx.from_dict({})
        expr = {}
        for j in sorted(S, reverse=True):
            nxt = next((i for i in live if i > j), None)
            rest = zero if nxt is None else (expr[nxt] if nxt in expr else self.u[nxt])
            expr[j] = self.t[j] + rest
        for j, e in expr.items():
            gens[j] = e
        assert len(gens) == 2 * C + 3
        return p.compose(*gens)

    def evaluate(self, p, uvals, r: Fraction) -> Fraction:
        vals = [fmpq(1)] + [_q(v) for v in uvals] + [fmpq(0)] * (self.C + 1) + [_q(r)]
        v = p(*vals)
        return Fraction(int(v.p), int(v.q))


def _nonneg(p) -> bool:
    return all(c >= 0 for c in p.coeffs())


def _n_negative(p) -> int:
    return sum(c < 0 for c in p.coeffs())


#: the search gives up on a polynomial when a substitution would hold more terms than this
_MAX_TERMS = 40_000


def _search_gaps(ts: _TailSystem, q, live, *, full: bool = True):
    """A set of levels written in gaps after which ``q`` has only non-negative coefficients (greedy:
    the substitution that leaves the fewest negative coefficients; then, if ``full``, every level), or
    ``None``. Gives up when a trial holds more than ``_MAX_TERMS`` terms."""
    C = ts.C
    if _nonneg(q):
        return []
    S: list = []
    cur = q
    last = _n_negative(q)
    for _ in range(C + 1):
        degs = cur.degrees()
        present = {j for j in range(C + 1) if degs[j] > 0}
        neg = ts.ctx.from_dict({m: c for m, c in zip(cur.monoms(), cur.coeffs()) if c < 0}).degrees()
        cands = set()
        for i in {j for j in range(C + 1) if neg[j] > 0 or neg[C + 1 + j] > 0}:
            below = [j for j in live if j < i and j not in S and j in present]
            if below:
                cands.add(max(below))
        if not cands:
            break
        best = None
        for j in sorted(cands, reverse=True):
            trial = ts.gaps(q, S + [j], live)
            if len(trial) > _MAX_TERMS:
                continue
            score = _n_negative(trial)
            if best is None or score < best[0]:
                best = (score, j, trial)
        if best is None or best[0] > last:       # no trial fits the budget, or every one makes it worse
            break
        S.append(best[1])
        cur, last = best[2], best[0]
        if last == 0:
            return sorted(S)
    every = [j for j in live if j <= C]
    if full and sorted(S) != every:
        trial = ts.gaps(q, every, live)
        if _nonneg(trial):
            return every
    return None


def _margin(ts: _TailSystem, q):
    """``(m, rest)``: the part of ``q`` of degree 0 in ``u`` and the remainder."""
    C = ts.C
    m_terms, r_terms = {}, {}
    for mono, c in zip(q.monoms(), q.coeffs()):
        (m_terms if sum(mono[1:C + 1]) == 0 else r_terms)[mono] = c
    return ts.ctx.from_dict(m_terms), ts.ctx.from_dict(r_terms)
def _margin_positive(ts: _TailSystem, m, load: dict, D: int) -> bool:
    """``m`` (a polynomial in the load variable only, after the load substitution) is > 0 on the loads."""
    if m.is_zero() or not _nonneg(m):
        return False
    if load["kind"] in ("every", "point"):
        return True
    R = ts.R
    coeff = {mono[R]: c for mono, c in zip(m.monoms(), m.coeffs())}
    if coeff.get(0, 0) <= 0:                       # at rho = lo
        return False
    if load["hi"] is not None and coeff.get(D, 0) <= 0:   # at rho = hi (y -> oo)
        return False
    return True
def _items(ts, name):
    if name == "a":
        return [(list(ij), p, None) for ij, p in ts.entries()]
    if name == "b":
        return [(k, p, k) for k, p in ts.faces()]
    return [(k, p, None) for k, p in ts.columns()]
