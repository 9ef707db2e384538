r"""Certified global convergence of a mean-field ODE, for every load, from the model's own definition.

A certificate kind any :class:`~symloss.MeanFieldModel` with an order structure can ask for
(``state_kind`` ``"tail"`` or ``"occupancy"``): :func:`certify_global_convergence` proves, with exact
rational polynomial arithmetic (python-flint ``fmpq_mpoly``) and for symbolic :math:`\rho > 0` (or one
rational load, or a load interval), that every solution of the fluid ODE in the state space converges
to one equilibrium; :func:`verify_global_convergence` re-checks a stored certificate.

Coordinates and domain
----------------------
The state is written in tails :math:`u_1, \dots, u_C` (fraction of servers holding at least ``k``
jobs): for an occupancy state :math:`u_k = x_k + \dots + x_C` (so :math:`x_0 = 1 - u_1` by the
invariant :math:`\sum_k x_k = 1`, which the definition must declare, and :math:`x_k = u_k - u_{k+1}`),
the identity for a tail state. The tail drift is :math:`g_k = \sum_{j \ge k} f_j` (occupancy) or the
drift itself (tail). The state space is the ordered set

.. math:: D = \{1 = u_0 \ge u_1 \ge \dots \ge u_C \ge u_{C+1} = 0\},

a simplex in the gaps :math:`t_k = u_k - u_{k+1} \ge 0`, :math:`\sum_{k=0}^C t_k = 1` (for an
occupancy state :math:`t_k = x_k`).

The three conditions (each a sign statement about polynomials in :math:`(u, \rho)` on
:math:`D \times (0, \infty)`):

(a) *cooperative*: every off-diagonal entry :math:`\partial g_i / \partial u_j` is :math:`\ge 0` on
    :math:`D`;
(b) *D forward invariant*: on each face :math:`t_k = 0` of :math:`D` the drift of the gap,
    :math:`\dot t_k` (:math:`-g_1`, :math:`g_k - g_{k+1}`, :math:`g_C`), is :math:`\ge 0` (Nagumo's
    tangency condition for a closed convex polyhedron and a locally Lipschitz field);
(c) *unique equilibrium*: every column sum of the Jacobian is negative,
    :math:`-\sum_i \partial g_i / \partial u_k \ge m_k(\rho) > 0` on :math:`D` (with (a) this is the
    :math:`\ell^1` logarithmic norm of the Jacobian, so the flow contracts the :math:`\ell^1` distance of
    tails, i.e. the Wasserstein-1 distance of the occupancy distributions).

How a sign is certified: a polynomial ``P(u, rho) >= 0`` on ``D`` is homogenised in ``u`` with
``u_0 = 1``, restricted to the face (``u_{k+1} -> u_k``, ``u_C -> 0``), and a set ``S`` of levels is
written in gaps, ``u_j = t_j + u_{j'}`` (``j'`` the next level not in the face's equation, ``t_j >= 0``
on ``D``, applied recursively for consecutive levels of ``S``); when every coefficient of the result is
``>= 0`` in the non-negative variables ``u``, ``t`` and ``rho``, ``P >= 0`` on ``D`` for every load.
The certificate stores each polynomial and its set ``S``; the re-check recomputes the polynomials from
the definition and expands again (no search). For (c) the part of degree 0 in ``u``, ``m_k(rho)``, must
be positive on the loads and the rest non-negative on ``D``. A single load ``rho`` is substituted
exactly; an interval ``[lo, hi]`` is written ``rho = (lo + hi y)/(1 + y)`` (``rho = lo + y`` without
``hi``), ``y >= 0``, and the denominators cleared by positive factors.

When a sign fails to certify, the function looks for an exact rational point of ``D`` (and a load)
where the polynomial is negative: then the condition *fails* (status ``FAILED``, the witness is part of
the certificate); otherwise it is *not certified* (status ``UNDECIDED``). A failure of (c) (a column
sum that can be positive) does not refute uniqueness, so (c) is only ever certified or not.

The theorem (:data:`THEOREM`): with (a), (b), (c) the fluid ODE on ``D`` contracts the weighted
:math:`\ell^1` distance at rate :math:`m(\rho) = \min_k m_k(\rho)`; ``D`` is compact, convex and forward
invariant, so it holds an equilibrium (Brouwer), which is unique and attracts every solution starting
in ``D`` exponentially fast. (With (a) and (b) the system is monotone on ``D``, which has a least and a
greatest element, and Kamke's comparison gives the same conclusion from uniqueness alone: H. L. Smith,
*Monotone Dynamical Systems*, AMS 1995, ch. 3.)

For the shipped policies (``/work/shared/MATH.md`` section 6) in tails: retrial-of-d,
:math:`g_k = \rho\,r(u_C)(u_{k-1} - u_k) - k(u_k - u_{k+1})` with :math:`r(s) = 1 + \dots + s^{d-1}`
(the entry :math:`\partial g_k / \partial u_C = \rho r'(u_C)(u_{k-1} - u_k)` is non-negative only by
the order), column sums :math:`-1` and :math:`-1 - \rho d u_C^{d-1}`; power-of-d,
:math:`g_k = \rho(u_{k-1}^d - u_k^d) - k(u_k - u_{k+1})`, the same column sums.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction

from flint import fmpq, fmpq_mpoly_ctx

from .model import MeanFieldModel
from .validation import real

__all__ = ["certify_global_convergence", "verify_global_convergence", "GlobalConvergenceResult",
           "ConditionResult", "GlobalConvergenceCertificateError", "THEOREM", "METHOD"]

#: the format of the certificate data
METHOD = "tails/monotone-contraction v1"

#: the theorem the certificate uses
THEOREM = ("Let D = {1 >= u_1 >= ... >= u_C >= 0} (compact, convex) and g the tail drift (a polynomial, so C^1). "
           "(b) on each face t_k = 0 of D the gap drift dt_k/dt >= 0, so D is forward invariant (Nagumo's tangency "
           "theorem for a closed convex set and a locally Lipschitz field); (a) every off-diagonal entry of Dg is >= 0 "
           "on D, so the l1 logarithmic norm of Dg(z) is its largest column sum; (c) every column sum is "
           "<= -m(rho) < 0 "
           "on D. Then for two solutions in D, |x(t) - y(t)|_1 <= exp(-m t) |x(0) - y(0)|_1 (Coppel's inequality along "
           "the segment [x, y], which lies in the convex D); D holds an equilibrium (Brouwer), which is therefore "
           "unique and attracts every solution starting in D exponentially. (With (a), (b) and a unique equilibrium, "
           "Kamke's comparison gives convergence too: H. L. Smith, Monotone Dynamical Systems, AMS 1995, ch. 3.)")

_TITLES = {"a": "(a) cooperative on D (off-diagonal Jacobian entries >= 0)",
           "b": "(b) D forward invariant (inward drift on every face)",
           "c": "(c) unique equilibrium (every Jacobian column sum <= -m(rho) < 0: l1 contraction)"}

_EVERY_RHO = (Fraction(1, 100), Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(10),
              Fraction(100))


class GlobalConvergenceCertificateError(ValueError):
    """A stored global-convergence certificate does not verify for the model it is checked against."""


class _NotApplicable(Exception):
    def __init__(self, condition: str, reason: str):
        super().__init__(reason)
        self.condition, self.reason = condition, reason


# ==================================================================================================
# results
# ==================================================================================================

@dataclass(frozen=True)
class ConditionResult:
    """One condition of the certificate.

    Attributes
    ----------
    name : str
        ``"a"``, ``"b"`` or ``"c"``.
    title : str
        What the condition says.
    status : str
        ``"holds"`` (certified), ``"fails"`` (an exact witness), ``"not certified"``.
    detail : str
        One line: how many polynomials were certified, or the witness.
    """
    name: str
    title: str
    status: str
    detail: str

    def to_dict(self) -> dict:
        """Plain data: the four fields.

        Returns
        -------
        dict
        """
        return {"name": self.name, "title": self.title, "status": self.status, "detail": self.detail}


@dataclass(frozen=True)
class GlobalConvergenceResult:
    """The answer of :func:`certify_global_convergence`.

    Attributes
    ----------
    status : str
        ``"PROVED"`` (all three conditions certified), ``"FAILED"`` (a condition fails: exact witness;
        ``failed_condition`` names it) or ``"UNDECIDED"`` (a condition is not certified, or the
        method does not apply: ``failed_condition`` is ``"a"``, ``"b"``, ``"c"``, ``"order"`` or
        ``"polynomial"``).
    model : str
        ``repr`` of the model.
    fingerprint : str
        The model's :meth:`~symloss.MeanFieldModel.fingerprint`.
    load : str
        The loads covered: ``"every rho > 0"``, ``"rho = 3/2"``, ``"rho in [1/2, 2]"``.
    failed_condition : str or None
        The first condition that fails or is not certified.
    conditions : tuple of ConditionResult
        The conditions checked (empty when the method does not apply).
    reason : str
        One line: why the status is what it is.
    theorem : str
        The theorem the certificate uses (:data:`THEOREM`).
    certificate : dict
        The JSON data :func:`verify_global_convergence` re-checks.
    """
    status: str
    model: str
    fingerprint: str
    load: str
    failed_condition: str | None
    conditions: tuple
    reason: str
    theorem: str = THEOREM
    certificate: dict = field(default_factory=dict, repr=False)

    @property
    def proved(self) -> bool:
        """``True`` when global convergence is certified."""
        return self.status == "PROVED"

    def to_dict(self) -> dict:
        """Plain data (JSON-serialisable), the certificate included.

        Returns
        -------
        dict
        """
        return {"status": self.status, "model": self.model, "fingerprint": self.fingerprint, "load": self.load,
                "failed_condition": self.failed_condition, "conditions": [c.to_dict() for c in self.conditions],
                "reason": self.reason, "theorem": self.theorem, "certificate": self.certificate}

    def __repr__(self) -> str:
        st = self.status if self.failed_condition is None else f"{self.status}({self.failed_condition})"
        conds = ", ".join(f"({c.name}) {c.status}" for c in self.conditions) or self.reason
        return f"GlobalConvergenceResult({st}, {self.model}, {self.load}: {conds})"

    def _repr_html_(self) -> str:  # pragma: no cover - notebook cosmetics
        rows = "".join(f"<tr><td>{c.title}</td><td>{c.status}</td><td>{c.detail}</td></tr>" for c in self.conditions)
        return (f"<b>global convergence of {self.model}, {self.load}: {self.status}</b>"
                f"<table>{rows}</table><p>{self.reason}</p>")


# ==================================================================================================
# loads
# ==================================================================================================

def _fraction(v) -> Fraction:
    if isinstance(v, (int, Fraction)):
        return Fraction(v)
    if isinstance(v, float):
        return Fraction(v)
    man, exp = v.man_exp()                      # mpmath mpf (exact)
    man, exp = int(man), int(exp)
    return Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)


def _load_spec(rho, rho_lo, rho_hi) -> dict:
    if rho is not None and (rho_lo is not None or rho_hi is not None):
        raise ValueError("give either rho (one load) or rho_lo/rho_hi (an interval), not both; "
                         f"got rho={rho!r}, rho_lo={rho_lo!r}, rho_hi={rho_hi!r}")
    if rho is not None:
        r = _fraction(real(rho, "rho", lower=0, lower_open=True))
        return {"kind": "point", "rho": str(r)}
    if rho_lo is None and rho_hi is None:
        return {"kind": "every"}
    if rho_lo is None:
        raise ValueError(f"rho_lo must be given with rho_hi (the interval [rho_lo, rho_hi]), got rho_hi={rho_hi!r}")
    lo = _fraction(real(rho_lo, "rho_lo", lower=0, lower_open=True))
    if rho_hi is None:
        return {"kind": "interval", "lo": str(lo), "hi": None}
    hi = _fraction(real(rho_hi, "rho_hi", lower=lo, lower_open=True))
    return {"kind": "interval", "lo": str(lo), "hi": str(hi)}


def _load_text(load: dict) -> str:
    if load["kind"] == "every":
        return "every rho > 0"
    if load["kind"] == "point":
        return f"rho = {load['rho']}"
    return f"rho in [{load['lo']}, {load['hi']}]" if load["hi"] is not None else f"rho >= {load['lo']}"


def _parse_load(load) -> dict:
    """Validate stored load data (re-check)."""
    if not isinstance(load, dict):
        raise GlobalConvergenceCertificateError("the load must be an object")
    kind = load["kind"]
    try:
        if kind == "every":
            if set(load) != {"kind"}:
                raise GlobalConvergenceCertificateError("load fields differ")
            return {"kind": "every"}
        if kind == "point":
            if set(load) != {"kind", "rho"} or not Fraction(load["rho"]) > 0:
                raise GlobalConvergenceCertificateError("a point load must be one rational rho > 0")
            return {"kind": "point", "rho": str(Fraction(load["rho"]))}
        if kind == "interval":
            lo, hi = load["lo"], load["hi"]
            if (set(load) != {"kind", "lo", "hi"} or not Fraction(lo) > 0
                    or (hi is not None and not Fraction(hi) > Fraction(lo))):
                raise GlobalConvergenceCertificateError("an interval load needs 0 < lo < hi (or hi = null)")
            return {"kind": "interval", "lo": str(Fraction(lo)), "hi": None if hi is None else str(Fraction(hi))}
    except (TypeError, ValueError, ZeroDivisionError) as exc:
        if isinstance(exc, GlobalConvergenceCertificateError):
            raise
        raise GlobalConvergenceCertificateError(f"unreadable load {load!r}") from None
    raise GlobalConvergenceCertificateError(f"unknown load kind {kind!r}")


def _rho_samples(load: dict) -> list:
    if load["kind"] == "every":
        return list(_EVERY_RHO)
    if load["kind"] == "point":
        return [Fraction(load["rho"])]
    lo = Fraction(load["lo"])
    if load["hi"] is None:
        return [lo, lo + 1, 2 * lo + 10, 100 * lo + 100]
    hi = Fraction(load["hi"])
    return [lo, (3 * lo + hi) / 4, (lo + hi) / 2, (lo + 3 * hi) / 4, hi]


def _in_load(r: Fraction, load: dict) -> bool:
    if load["kind"] == "every":
        return r > 0
    if load["kind"] == "point":
        return r == Fraction(load["rho"])
    return r >= Fraction(load["lo"]) and (load["hi"] is None or r <= Fraction(load["hi"]))


def _q(x: Fraction):
    return fmpq(x.numerator, x.denominator)


# ==================================================================================================
# the tail system of a model
# ==================================================================================================

class _TailSystem:
    """The model's drift in tails, as exact polynomials in ``u_0 (= 1), u_1..u_C, t_0..t_C, rho``."""

    def __init__(self, model: MeanFieldModel):
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


# ==================================================================================================
# certify
# ==================================================================================================

def _sample_points(C: int, face, n_random: int = 12) -> list:
    """Exact points of ``D`` (on the face ``t_face = 0``): vertices, the centre and pseudo-random points,
    as tails ``[u_1, ..., u_C]``."""
    rng = random.Random(20260 + C)
    gapsets = []
    for j in range(C + 1):
        t = [Fraction(0)] * (C + 1)
        t[j] = Fraction(1)
        gapsets.append(t)
    gapsets.append([Fraction(1)] * (C + 1))
    for _ in range(n_random):
        gapsets.append([Fraction(rng.randint(0, 9)) for _ in range(C + 1)])
    out = []
    for t in gapsets:
        if face is not None:
            t = list(t)
            t[face] = Fraction(0)
        s = sum(t)
        if s == 0:
            continue
        t = [x / s for x in t]
        u = [sum(t[k:]) for k in range(1, C + 1)]
        if u not in out:
            out.append(u)
    return out


def _find_witness(ts: _TailSystem, p, load: dict, face) -> dict | None:
    for r in _rho_samples(load):
        for u in _sample_points(ts.C, face):
            v = ts.evaluate(p, u, r)
            if v < 0:
                return {"u": [str(x) for x in u], "rho": str(r), "value": str(v)}
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


def _certify_item(ts, p, load, face=None, margin=False, full=True):
    """``(gaps or None, margin text or None)`` for one polynomial."""
    q = ts.load(p, load)
    mtext = None
    if margin:
        m, q = _margin(ts, q)
        mtext = str(m)
        if not _margin_positive(ts, m, load, p.degrees()[ts.R] if not p.is_zero() else 0):
            return None, mtext
    h, live = ts.on_face(ts.homogenize(q), face)
    return _search_gaps(ts, h, live, full=full), mtext


def _condition(ts, name, items, load):
    """Certify every polynomial of a condition; returns (data, ConditionResult). An item the greedy
    search does not certify is first evaluated at sample points (a negative value: no certificate can
    exist, the witness is kept for (a) and (b)), then tried with every level in gaps."""
    out, bad = [], []
    witness = None
    for label, p, face in items:
        gaps, mtext = _certify_item(ts, p, load, face, margin=(name == "c"), full=False)
        if gaps is None:
            w = _find_witness(ts, p, load, face)
            if w is None:
                gaps, mtext = _certify_item(ts, p, load, face, margin=(name == "c"), full=True)
            elif witness is None and name in ("a", "b"):
                witness = {"item": label, **w}
        rec = {("entry" if name == "a" else "face" if name == "b" else "column"): label, "poly": str(p), "gaps": gaps}
        if name == "c":
            rec["margin"] = mtext
        out.append(rec)
        if gaps is None:
            bad.append((label, p, face))
    what = {"a": "off-diagonal entries", "b": "faces", "c": "columns"}[name]
    if not bad:
        status, detail = "holds", f"{len(out)} {what} certified (non-negative coefficients in gap coordinates)"
    elif witness is not None:
        status = "fails"
        detail = (f"{'entry' if name == 'a' else 'face'} {witness['item']} is {witness['value']} < 0 at u = "
                  f"({', '.join(witness['u'])}), rho = {witness['rho']}")
    else:
        status = "not certified"
        detail = (f"{len(bad)} of {len(out)} {what} not certified (first: {bad[0][0]}: {bad[0][1]})"
                  + ("; a positive column sum does not refute uniqueness" if name == "c"
                     else "; no negative sample found"))
    data = {"status": status, "items": out, "witness": witness}
    return data, ConditionResult(name, _TITLES[name], status, detail)


def _items(ts, name):
    if name == "a":
        return [(list(ij), p, None) for ij, p in ts.entries()]
    if name == "b":
        return [(k, p, k) for k, p in ts.faces()]
    return [(k, p, None) for k, p in ts.columns()]


def _overall(conds: dict) -> tuple:
    for name in ("a", "b", "c"):
        if conds[name]["status"] == "fails":
            return "FAILED", name
    for name in ("a", "b", "c"):
        if conds[name]["status"] != "holds":
            return "UNDECIDED", name
    return "PROVED", None


def _reason(status, failed, load_text, conds_text) -> str:
    if status == "PROVED":
        return f"(a), (b), (c) certified for {load_text}: every solution in D converges to the unique equilibrium"
    if status == "FAILED":
        return f"condition {_TITLES[failed]} fails ({conds_text[failed]}): the certificate does not apply"
    return f"condition {_TITLES[failed]} not certified ({conds_text[failed]})"


def certify_global_convergence(model, rho=None, *, rho_lo=None, rho_hi=None) -> GlobalConvergenceResult:
    r"""Certify that the fluid ODE of ``model`` converges globally to a unique equilibrium.

    The three conditions of the module docstring — (a) cooperative on the ordered set ``D`` of tails,
    (b) ``D`` forward invariant, (c) every Jacobian column sum negative (:math:`\ell^1` contraction,
    hence a unique equilibrium) — are certified on the definition's own drift by exact polynomial
    sign certificates, for every load :math:`\rho > 0` (default), one load, or a load interval.

    Parameters
    ----------
    model : MeanFieldModel
        Any model; ``state_kind`` ``"tail"`` (variables ``u_1..u_C``) or ``"occupancy"`` (``x_0..x_C``
        with the invariant ``sum x_k = 1``) with a polynomial drift. Other models give ``UNDECIDED``
        with the reason (``failed_condition`` ``"order"`` or ``"polynomial"``).
    rho : real, optional
        One load (``> 0``, used exactly: a float is its binary value). Default: every load.
    rho_lo, rho_hi : real, optional
        A load interval ``[rho_lo, rho_hi]`` (``0 < rho_lo < rho_hi``; ``rho_hi=None``: ``[rho_lo, oo)``).

    Returns
    -------
    GlobalConvergenceResult
        ``PROVED``, ``FAILED`` (a condition fails at an exact rational point of ``D``: the witness is in
        the certificate) or ``UNDECIDED`` (a condition is not certified); ``certificate`` is the data
        :func:`verify_global_convergence` re-checks.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`~symloss.MeanFieldModel` or a load is not a real number.
    ValueError
        If a load is out of range, or both ``rho`` and an interval are given.
    ModelDefinitionError
        If the definition is inconsistent.

    See Also
    --------
    verify_global_convergence

    Notes
    -----
    The theorem used is :data:`THEOREM`; the mathematics is in ``MATH.md`` section 6 (monotone
    dynamical systems, H. L. Smith, *Monotone Dynamical Systems*, AMS 1995, ch. 3).

    Examples
    --------
    >>> from symloss import PowerOfD, RetrialOfD
    >>> from symloss.core.convergence import certify_global_convergence
    >>> certify_global_convergence(RetrialOfD(3, 2))
    GlobalConvergenceResult(PROVED, RetrialOfD(C=3, d=2), every rho > 0: (a) holds, (b) holds, (c) holds)
    >>> certify_global_convergence(PowerOfD(2, 2), rho_lo=1, rho_hi=2).status
    'PROVED'
    """
    if not isinstance(model, MeanFieldModel):
        raise TypeError(f"model must be a symloss MeanFieldModel, got {type(model).__name__}")
    load = _load_spec(rho, rho_lo, rho_hi)
    load_text = _load_text(load)
    fp = model.fingerprint()
    base = {"method": METHOD, "model": repr(model), "fingerprint": fp, "load": load}
    try:
        ts = _TailSystem(model)
    except _NotApplicable as exc:
        data = {**base, "status": "UNDECIDED", "failed_condition": exc.condition, "reason": exc.reason}
        return GlobalConvergenceResult("UNDECIDED", repr(model), fp, load_text, exc.condition, (), exc.reason,
                                       certificate=data)
    conds, results = {}, []
    for name in ("a", "b", "c"):
        conds[name], res = _condition(ts, name, _items(ts, name), load)
        results.append(res)
    status, failed = _overall(conds)
    data = {**base, "state_kind": ts.kind, "C": ts.C, "rho_shift": ts.rho_shift, "conditions": conds,
            "status": status, "failed_condition": failed, "theorem": THEOREM}
    reason = _reason(status, failed, load_text, {r.name: r.detail for r in results})
    return GlobalConvergenceResult(status, repr(model), fp, load_text, failed, tuple(results), reason, certificate=data)


# ==================================================================================================
# re-check
# ==================================================================================================

def _err(msg):
    raise GlobalConvergenceCertificateError(msg)


def _check_gaps(ts, gaps, live):
    if not isinstance(gaps, list) or any(isinstance(j, bool) or not isinstance(j, int) for j in gaps):
        _err(f"gap levels must be a list of integers, got {gaps!r}")
    if len(set(gaps)) != len(gaps) or any(j not in live for j in gaps):
        _err(f"gap levels {gaps!r} are not distinct free levels {live}")


def _recheck_condition(ts, name, stored, load):
    items = _items(ts, name)
    key = {"a": "entry", "b": "face", "c": "column"}[name]
    if not isinstance(stored, dict) or set(stored) != {"status", "items", "witness"}:
        _err(f"condition ({name}) must have exactly the fields status, items, witness")
    recs = stored["items"]
    if len(recs) != len(items):
        _err(f"condition ({name}) lists {len(recs)} polynomials, the definition has {len(items)}")
    bad = []
    for rec, (label, p, face) in zip(recs, items):
        want = {key, "poly", "gaps"} | ({"margin"} if name == "c" else set())
        if not isinstance(rec, dict) or set(rec) != want:
            _err(f"condition ({name}): an item must have exactly the fields {sorted(want)}")
        if rec[key] != label:
            _err(f"condition ({name}): stored {key} {rec[key]!r}, the definition has {label!r}")
        if rec["poly"] != str(p):
            _err(f"condition ({name}) {key} {label}: the stored polynomial is not the one derived from the definition")
        q = ts.load(p, load)
        if name == "c":
            m, q = _margin(ts, q)
            if rec["margin"] != str(m):
                _err(f"condition (c) column {label}: stored margin differs from the recomputed one")
        gaps = rec["gaps"]
        if gaps is None:
            bad.append((label, p, face))
            continue
        if name == "c" and not _margin_positive(ts, m, load, p.degrees()[ts.R] if not p.is_zero() else 0):
            _err(f"condition (c) column {label}: the margin {rec['margin']} is not positive on the loads")
        h, live = ts.on_face(ts.homogenize(q), face)
        _check_gaps(ts, gaps, live)
        if not _nonneg(ts.gaps(h, gaps, live)):
            _err(f"condition ({name}) {key} {label}: a coefficient is negative after writing levels {gaps} in gaps")
    w = stored["witness"]
    if not bad:
        status = "holds"
        if w is not None:
            _err(f"condition ({name}) holds but stores a witness")
    elif w is None:
        status = "not certified"
    else:
        if name == "c":
            _err("condition (c) cannot fail by a witness (a positive column sum does not refute uniqueness)")
        if not isinstance(w, dict) or set(w) != {"item", "u", "rho", "value"}:
            _err(f"condition ({name}): the witness must have exactly the fields item, u, rho, value")
        match = [x for x in bad if x[0] == w["item"]]
        if not match:
            _err(f"condition ({name}): the witness names {w['item']!r}, which is not an uncertified item")
        _label, p, face = match[0]
        try:
            u = [Fraction(x) for x in w["u"]]
            r = Fraction(w["rho"])
            value = Fraction(w["value"])
        except (TypeError, ValueError, ZeroDivisionError):
            _err(f"condition ({name}): unreadable witness")
        chain = [Fraction(1)] + u + [Fraction(0)]
        if len(u) != ts.C or any(chain[k] < chain[k + 1] for k in range(ts.C + 1)):
            _err(f"condition ({name}): the witness point is not in D")
        if face is not None and chain[face] != chain[face + 1]:
            _err(f"condition (b): the witness point is not on the face t_{face} = 0")
        if not _in_load(r, load):
            _err(f"condition ({name}): the witness load {r} is not among the loads of the certificate")
        v = ts.evaluate(p, u, r)
        if v != value or not v < 0:
            _err(f"condition ({name}): at the witness the value is {v}, stored {value} (must be < 0)")
        status = "fails"
    if stored["status"] != status:
        _err(f"condition ({name}): stored status {stored['status']!r}, the re-check finds {status!r}")
    return status


def verify_global_convergence(model, data) -> str:
    """Re-check a certificate of :func:`certify_global_convergence` against ``model``'s definition,
    without searching: the polynomials are derived again from the definition and compared with the
    stored ones, each stored gap substitution is expanded again and its coefficients checked, the
    margins and witnesses are evaluated exactly.

    Parameters
    ----------
    model : MeanFieldModel
        The model the certificate claims to be about.
    data : dict
        ``GlobalConvergenceResult.certificate`` (e.g. read back from JSON).

    Returns
    -------
    str
        The status the data supports: ``"PROVED"``, ``"FAILED"`` or ``"UNDECIDED"``.

    Raises
    ------
    GlobalConvergenceCertificateError
        If a stored field does not verify (another definition, an edited polynomial, a gap set that
        does not give non-negative coefficients, a witness that is not negative, a wrong status).
    TypeError
        If ``model`` is not a :class:`~symloss.MeanFieldModel`.

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.core.convergence import certify_global_convergence, verify_global_convergence
    >>> verify_global_convergence(PowerOfD(3, 2), certify_global_convergence(PowerOfD(3, 2)).certificate)
    'PROVED'
    """
    if not isinstance(model, MeanFieldModel):
        raise TypeError(f"model must be a symloss MeanFieldModel, got {type(model).__name__}")
    if not isinstance(data, dict):
        _err("the certificate must be an object")
    try:
        return _verify_global_convergence(model, data)
    except GlobalConvergenceCertificateError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ZeroDivisionError) as exc:
        raise GlobalConvergenceCertificateError(f"malformed certificate ({type(exc).__name__}: {exc})") from None


def _verify_global_convergence(model, data) -> str:
    if data["method"] != METHOD:
        _err(f"unknown certificate method {data['method']!r} (this version writes {METHOD!r})")
    if data["model"] != repr(model):
        _err(f"the certificate is about {data['model']!r}, the re-check has {model!r}")
    if data["fingerprint"] != model.fingerprint():
        _err("the certificate was made from another definition (fingerprints differ)")
    load = _parse_load(data["load"])
    if load != data["load"]:
        _err("the stored load is not in canonical form")
    try:
        ts = _TailSystem(model)
    except _NotApplicable as exc:
        if set(data) != {"method", "model", "fingerprint", "load", "status", "failed_condition", "reason"}:
            _err("fields of a not-applicable certificate differ")
        if (data["status"], data["failed_condition"], data["reason"]) != ("UNDECIDED", exc.condition, exc.reason):
            _err("stored status or reason differs from the re-check's")
        return "UNDECIDED"
    want = {"method", "model", "fingerprint", "load", "state_kind", "C", "rho_shift", "conditions", "status",
            "failed_condition", "theorem"}
    if set(data) != want:
        _err(f"certificate fields must be {sorted(want)}, got {sorted(data)}")
    if (data["state_kind"], data["C"], data["rho_shift"]) != (ts.kind, ts.C, ts.rho_shift):
        _err("stored state kind, capacity or rho shift differ from the definition's")
    if data["theorem"] != THEOREM:
        _err("the stored theorem differs from the one this version proves with")
    conds = data["conditions"]
    if not isinstance(conds, dict) or set(conds) != {"a", "b", "c"}:
        _err("conditions must be exactly a, b, c")
    checked = {name: {"status": _recheck_condition(ts, name, conds[name], load)} for name in ("a", "b", "c")}
    status, failed = _overall(checked)
    if data["status"] != status or data["failed_condition"] != failed:
        _err(f"stored status {data['status']}({data['failed_condition']}), the re-check finds {status}({failed})")
    return status
