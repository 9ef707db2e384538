r"""Seed 002 (supermarket model): the closed-form fixed point of the mean-field ODE.

Claim ``seed002.fixed_point``: for every integer ``d >= 1`` and ``0 < lam < 1``,
:math:`s_k = \lambda^{e_k}`, :math:`e_k = (d^k - 1)/(d - 1) = 1 + d + \dots + d^{k-1}`
(:math:`e_k = k` for ``d = 1``), solves the stationary equations
:math:`0 = \lambda (s_{k-1}^d - s_k^d) - (s_k - s_{k+1})`, ``k >= 1``, with ``s_0 = 1`` and
:math:`s_k \to 0`.

Proof (checked in SymPy with symbolic ``k``, ``d`` and ``lam > 0``):
(i) :math:`1 + d e_{k-1} - e_k = 0` identically, hence :math:`\lambda s_{k-1}^d = s_k` for all
``k >= 1`` (lam > 0, so powers combine); (ii) substituting it into the stationary equation at
``k`` (and at ``k + 1`` for :math:`\lambda s_k^d = s_{k+1}`) leaves
:math:`(s_k - s_{k+1}) - (s_k - s_{k+1}) = 0`; (iii) :math:`e_0 = 0` gives ``s_0 = 1``;
(iv) :math:`e_k \ge k \to \infty` and ``lam < 1`` give :math:`s_k \to 0`.

The certificate stores the SymPy ``srepr`` of the identities with their simplified values, plus an
exact check in rational arithmetic (for integer ``d`` the exponents are integers, so ``s_k`` is
rational for rational ``lam``) at several ``(d, lam)``: the values ``s_k`` as ``"p/q"`` strings
and the exact residuals (all zero). The re-check rebuilds the identities from the definition,
requires the stored strings to be exactly those and re-simplifies them, then recomputes every
stored ``s_k`` and residual with Python ``Fraction``.
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from proofs_check.core import Certificate, CertificateError, Status, claim
from symloss import Supermarket

SOURCE = "Budhiraja, Mukherjee, Wu, Supermarket model on graphs (2019; paper 3 in docs/papers.md) (abstract: Mitzenmacher / Vvedenskaya et al. ODE)"
EXACT_CASES = [(1, "1/2", 8), (2, "7/10", 6), (2, "1/3", 6), (3, "9/10", 4), (4, "1/2", 4), (5, "3/4", 3)]


def _identities() -> dict[str, sp.Expr]:
    lam = sp.Symbol("lambda", positive=True)
    d = sp.Symbol("d", positive=True, integer=True)
    k = sp.Symbol("k", positive=True, integer=True)

    def e(j):
        return (d ** j - 1) / (d - 1)

    sk, sk1 = sp.Symbol("s_k", positive=True), sp.Symbol("s_kp1", positive=True)
    # the equation proved below is the definition's own: the rows of Supermarket.drift (symbolic lam, d)
    # minus the template lam (s_{k-1}^d - s_k^d) - (s_k - s_{k+1}) for interior rows k = 1..3 (K = 4)
    model = Supermarket(2, Fraction(1, 2))
    rows = model.drift(4, symbolic_parameters=True)
    lam_d = sp.Symbol("lambda", positive=True)
    d_d = sp.Symbol("d", positive=True, integer=True)
    sv = (sp.Integer(1),) + tuple(model.symbols(4))
    template = {f"definition: Supermarket.drift row {j} - template":
                rows[j - 1] - (lam_d * (sv[j - 1] ** d_d - sv[j] ** d_d) - (sv[j] - sv[j + 1])) for j in (1, 2, 3)}
    return {**template,
        "exponent: 1 + d*e(k-1) - e(k)": 1 + d * e(k - 1) - e(k),
        "recursion: log(lam*s(k-1)**d) - log(s(k))":
            sp.expand_log(sp.log(lam * (lam ** e(k - 1)) ** d) - sp.log(lam ** e(k)), force=True),
        "stationary after lam*s(k-1)**d -> s_k, lam*s(k)**d -> s_(k+1)": (sk - sk1) - (sk - sk1),
        "boundary: s_0 - 1": lam ** e(0) - 1,
        "d = 1: 1 + (k-1) - k": 1 + (k - 1) - k,
    }


def _simplify(expr) -> sp.Expr:
    return sp.simplify(sp.factor(sp.simplify(expr)))


def _exact_case(d: int, lam: Fraction, K: int) -> tuple[list[Fraction], list[Fraction]]:
    """s_k = lam^e_k and the residuals of the definition's own truncated drift (Supermarket.drift(K),
    exact rationals) at it: rows 1..K-1 must vanish, row K equals -s_{K+1} (the truncation s_{K+1} = 0),
    so the residual reported for row K is drift_K + s_{K+1}."""
    e = [j if d == 1 else (d ** j - 1) // (d - 1) for j in range(K + 2)]
    s = [lam ** ej for ej in e]
    m = Supermarket(d, lam)
    rows = m.drift(K).subs({x: sp.Rational(v.numerator, v.denominator) for x, v in zip(m.symbols(K), s[1:K + 1])})
    res = []
    for r in rows:
        r = sp.Rational(r)                       # exact: the substitution of rationals into a polynomial
        res.append(Fraction(int(r.p), int(r.q)))
    res[-1] += s[K + 1]
    return s, res


def _recheck(data: dict) -> Status:
    ids = _identities()
    stored = data.get("identities")
    if not isinstance(stored, list) or len(stored) != len(ids):
        raise CertificateError("identities missing or of the wrong number")
    for (name, expr), rec in zip(ids.items(), stored):
        if rec.get("name") != name or rec.get("srepr") != sp.srepr(expr):
            raise CertificateError(f"identity {name!r}: stored expression is not the claim's expression")
        if rec.get("simplified") != "0" or _simplify(sp.sympify(rec["srepr"], evaluate=True)) != 0:
            raise CertificateError(f"identity {name!r} does not simplify to 0")
    cases = data.get("exact_cases")
    if not isinstance(cases, list) or [(c["d"], c["lam"], c["K"]) for c in cases] != [tuple(x) for x in EXACT_CASES]:
        raise CertificateError("exact cases differ from the claim's list")
    for c in cases:
        s, res = _exact_case(c["d"], Fraction(c["lam"]), c["K"])
        if [str(x) for x in s] != c["s"]:
            raise CertificateError(f"exact case d={c['d']}, lam={c['lam']}: stored s_k differ from lam^e_k")
        if any(r != 0 for r in res) or c["residuals"] != ["0"] * len(res):
            raise CertificateError(f"exact case d={c['d']}, lam={c['lam']}: nonzero residual")
    return Status.PROVED


@claim("seed002.fixed_point",
       statement=r"For integer $d\ge1$ and $0<\lambda<1$, $s_k=\lambda^{(d^k-1)/(d-1)}$ ($s_k=\lambda^k$ for "
                 r"$d=1$) solves $0=\lambda(s_{k-1}^d-s_k^d)-(s_k-s_{k+1})$, $k\ge1$, with $s_0=1$, "
                 r"$s_k\to0$.",
       source=SOURCE, method="symbolic algebra (SymPy), symbolic k and d; exact rational spot checks",
       expected="PROVED", recheck=_recheck, tags=("seed002", "supermarket"))
def _prove() -> Certificate:
    ids = _identities()
    recs = []
    ok = True
    for name, expr in ids.items():
        simp = _simplify(expr)
        ok &= simp == 0
        recs.append({"name": name, "srepr": sp.srepr(expr), "simplified": str(simp)})
    cases = []
    for d, lam, K in EXACT_CASES:
        s, res = _exact_case(d, Fraction(lam), K)
        ok &= all(r == 0 for r in res)
        cases.append({"d": d, "lam": lam, "K": K, "s": [str(x) for x in s], "residuals": [str(r) for r in res]})
    status = Status.PROVED if ok else Status.UNDECIDED
    return Certificate(status, {"identities": recs, "exact_cases": cases},
                       "lam*s_{k-1}^d = s_k from 1 + d e_{k-1} = e_k (symbolic k, d); exact residuals 0 at "
                       f"{len(cases)} rational cases")
