r"""Erlang-B identities, proved by exact algebra in SymPy.

Notation: :math:`f_k = a^k/k!`, :math:`S_C = \sum_{k=0}^C f_k`, :math:`E(C,a) = f_C / S_C`.
The general-``C`` proofs reduce to rational-function identities in the symbols
:math:`T = S_{C-1}`, :math:`p = f_C`, using two summand-level lemmas that SymPy checks:

* L1 (telescoping): :math:`S_C = S_{C-1} + f_C` (definition of a finite sum; checked as
  ``f_C = a^C/C!`` matching the summand at ``k = C``);
* L2 (termwise derivative): :math:`\partial_a f_k = f_{k-1}` for ``k >= 1`` and :math:`\partial_a f_0 = 0`,
  hence :math:`\partial_a S_C = S_{C-1}`; also :math:`\partial_a f_C = (C/a) f_C`.

Each certificate stores the identities as SymPy ``srepr`` strings with the simplified residual; the
re-check rebuilds the identities from :func:`symloss.erlang_b_expr`'s definition, checks that the stored
strings are exactly those, and re-simplifies each residual to zero. An exact check at every integer
``C`` in a range (``erlang_b_expr`` expanded, no lemma) is stored and re-checked too.
"""
from __future__ import annotations

import sympy as sp

from proofs_check.core import Certificate, CertificateError, Status, claim
from symloss import erlang_b_expr

SOURCE = "Erlang-B formula (A. K. Erlang, 1917)"
a = sp.Symbol("a", positive=True)
C = sp.Symbol("C", integer=True, positive=True)
k = sp.Symbol("k", integer=True, nonnegative=True)
T = sp.Symbol("T", positive=True)   # S_{C-1}
p = sp.Symbol("p", positive=True)   # f_C = a^C / C!
INT_RANGE = range(1, 21)


def _E_expr(c, x):
    return erlang_b_expr(c, x)


def _residual(expr):
    """Expanded numerator of ``expr`` over a common denominator (in a, T, p, C and exp(-a)).

    Every denominator here is a sum of positive terms (a, T, p > 0), so the identity holds iff this
    polynomial is identically 0."""
    num, _den = sp.fraction(sp.together(expr))
    return sp.expand(num)


def _zero(expr) -> bool:
    return _residual(expr) == 0


def _lemmas():
    f = a ** k / sp.factorial(k)
    return {
        "L1: summand at k=C equals p": sp.simplify(f.subs(k, C) - a ** C / sp.factorial(C)),
        "L2: d/da f_k - f_{k-1} (k>=1)": sp.simplify(sp.diff(f, a) - a ** (k - 1) / sp.factorial(k - 1)),
        "L2': d/da f_C - (C/a) f_C": sp.simplify(sp.diff(a ** C / sp.factorial(C), a) - C / a * a ** C / sp.factorial(C)),
    }


def _recursion_identities():
    # E(C) = p/(T+p), E(C-1) = f_{C-1}/T with f_{C-1} = p C / a
    E_C = p / (T + p)
    E_Cm1 = (p * C / a) / T
    return {"general C (lemma L1)": E_C - a * E_Cm1 / (C + a * E_Cm1)}


def _derivative_identities():
    # E = p/S, S = T + p, dS/da = T (L2), dp/da = C p / a (L2')
    S = T + p
    dE = ((C * p / a) * S - p * T) / S ** 2
    E = p / S
    return {"general C (lemmas L2, L2')": dE - E * (C / a - 1 + E)}


def _integer_identities(kind: str):
    out = {}
    for c in INT_RANGE:
        E = _E_expr(c, a)
        if kind == "recursion":
            Em = _E_expr(c - 1, a)
            out[f"C={c}"] = E - a * Em / (c + a * Em)
        elif kind == "derivative":
            out[f"C={c}"] = sp.diff(E, a) - E * (sp.Integer(c) / a - 1 + E)
        else:  # incomplete-gamma form
            out[f"C={c}"] = E - a ** c * sp.exp(-a) / sp.expand_func(sp.uppergamma(c + 1, a))
    return out


def _build(kind: str) -> dict:
    ids = {}
    if kind == "recursion":
        ids.update(_recursion_identities())
    elif kind == "derivative":
        ids.update(_derivative_identities())
    ids.update(_integer_identities(kind))
    return ids


def _certify(kind: str) -> Certificate:
    lemmas = _lemmas()
    ids = _build(kind)
    residuals = {name: _residual(e) for name, e in ids.items()}
    ok = all(v == 0 for v in lemmas.values()) and all(v == 0 for v in residuals.values())
    data = {
        "lemmas": {n: sp.srepr(v) for n, v in lemmas.items()},
        "identities": {n: sp.srepr(e) for n, e in ids.items()},
        "residuals": {n: str(v) for n, v in residuals.items()},
        "integer_range": [INT_RANGE.start, INT_RANGE.stop - 1],
    }
    status = Status.PROVED if ok else Status.REFUTED
    bad = [n for n, v in residuals.items() if v != 0]
    del bad
    return Certificate(status, data, _summarize(data, status))


def _recheck_factory(kind: str):
    def recheck(data: dict) -> Status:
        ids = _build(kind)
        stored = data.get("identities", {})
        if set(stored) != set(ids):
            raise CertificateError("the stored identities are not the ones the model produces")
        for name, e in ids.items():
            if stored[name] != sp.srepr(e):
                raise CertificateError(f"identity {name!r} differs from the model's")
            if not _zero(e):
                raise CertificateError(f"identity {name!r} does not simplify to 0")
            if data.get("residuals", {}).get(name) != "0":
                raise CertificateError(f"stored residual of {name!r} is not 0")
        for name, v in _lemmas().items():
            if v != 0 or data.get("lemmas", {}).get(name) != sp.srepr(v):
                raise CertificateError(f"lemma {name!r} does not check")
        if data.get("integer_range") != [INT_RANGE.start, INT_RANGE.stop - 1]:
            raise CertificateError(f"stored integer_range {data.get('integer_range')!r} is not the range of the "
                                   f"identities [{INT_RANGE.start}, {INT_RANGE.stop - 1}]")
        return Status.PROVED
    return recheck


def _summarize(data: dict, status: Status) -> str:
    """The one-line summary, rebuilt from the (verified) residuals."""
    bad = [n for n, v in data["residuals"].items() if v != "0"]
    return "every identity simplifies to 0" if status == Status.PROVED and not bad else f"non-zero residual: {bad}"


claim("erlang.recursion",
      statement=r"E(C,a) = \frac{a\,E(C-1,a)}{C + a\,E(C-1,a)}\ \text{for all integers } C \ge 1,\ a > 0",
      source=SOURCE, method="exact algebra (SymPy), general C via telescoping lemma; C = 1..20 expanded",
      expected="PROVED", recheck=_recheck_factory("recursion"), summarize=_summarize)(lambda: _certify("recursion"))

claim("erlang.derivative",
      statement=r"\partial_a E(C,a) = E(C,a)\left(\frac{C}{a} - 1 + E(C,a)\right)\ \text{for all integers } C \ge 0,\ a > 0",
      source=SOURCE, method="exact algebra (SymPy), general C via termwise-derivative lemma; C = 1..20 expanded",
      expected="PROVED", recheck=_recheck_factory("derivative"), summarize=_summarize)(lambda: _certify("derivative"))

claim("erlang.incomplete_gamma",
      statement=r"\frac{a^C/C!}{\sum_{k=0}^C a^k/k!} = \frac{a^C e^{-a}}{\Gamma(C+1,a)}\ \text{for } C = 1,\dots,20",
      source=SOURCE, method="exact algebra (SymPy expand_func of uppergamma)",
      expected="PROVED", recheck=_recheck_factory("gamma"), summarize=_summarize)(lambda: _certify("gamma"))
