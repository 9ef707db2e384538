r"""Seed 000, claim 1 (retrial part): the retrial-of-d mean-field fixed point is unique.

``seed000.unique_fixed_point.C{C}_d{d}`` (PROVED, ``C <= 20``, ``2 <= d <= 6``): the model's drift is the birth-death drift with
arrival rate :math:`\Lambda = \rho(1 + p + \dots + p^{d-1})`, ``p = x_C`` (checked symbolically on
``RetrialOfD(C, d).drift()``), so a fixed point is an Erlang distribution with load ``a = Lambda``,
``p = E(C, a)``, and ``rho = g(a)`` with

.. math:: g(a) = \frac{a (1 - E)}{1 - E^d} = \frac{a}{1 + E + \dots + E^{d-1}}
          = \frac{A(a)}{B(a)},\quad A = a S^{d-1},\quad B = \sum_{j=0}^{d-1} S^{d-1-j} f^j,

``S = C! S_C(a)``, ``f = a^C`` (integer polynomials). ``N = A'B - AB'`` has only non-negative
coefficients and ``N(0) = B(0)^2 > 0``, so ``g' = N/B^2 > 0`` on ``(0, oo)``; ``g(0) = 0`` (``A(0) = 0 <
B(0)``) and ``g -> oo`` (``deg A = deg B + 1``, positive leading coefficients). So ``g`` is an increasing
bijection of ``(0, oo)`` and ``g(a) = rho`` has exactly one root for every ``rho > 0``. The
certificate stores ``N`` (recomputed and compared coefficient by coefficient by the re-check);
``A`` and ``B`` are recomputed from ``C`` and ``d``.
Convergence of the fluid ODE to it is not part of this claim.
"""
from __future__ import annotations

from flint import fmpz_poly

from proofs_check.core import Certificate, CertificateError, Status, claim
from proofs_check.support import seed000 as com

CASES = [(C, d) for C in range(1, com.REGISTRY_C_MAX + 1) for d in range(2, com.REGISTRY_D_MAX + 1)]


def _polys(C, d):
    S, _Sm, f = com.erlang_polys(C)
    A = fmpz_poly([0, 1]) * S ** (d - 1)
    B = fmpz_poly([0])
    for j in range(d):
        B += S ** (d - 1 - j) * f ** j
    N = A.derivative() * B - A * B.derivative()
    return A, B, N


def _facts(A, B):
    return {"A(0)": int(A(0)), "B(0)": int(B(0)), "deg A - deg B": A.degree() - B.degree(),
            "lc A": int(A.leading_coefficient()), "lc B": int(B.leading_coefficient())}


def _facts_ok(fa):
    return fa["A(0)"] == 0 and fa["B(0)"] > 0 and fa["deg A - deg B"] == 1 and fa["lc A"] > 0 and fa["lc B"] > 0


def _summarize(data: dict, status: Status) -> str:
    """The one-line summary, rebuilt from the stored (re-checked) numerator of g'."""
    if status != Status.PROVED:
        return "positivity of g' not certified"
    return (f"g' numerator (degree {len(data['N_positive']['poly']) - 1}) has non-negative coefficients; "
            "g(0)=0, g(oo)=oo")


def _make(C, d):
    def prove():
        binding = com.check_retrial_birth_death(C, d)
        A, B, N = _polys(C, d)
        data = {"C": C, "d": d, "model": binding, "stamp": com.stamp(com._model("retrial", C, d)),
                "N_positive": com.nonneg_certificate(N), "facts": _facts(A, B)}
        try:
            com.recheck_nonneg(data["N_positive"], N)
            ok = _facts_ok(data["facts"])
        except CertificateError:
            ok = False
        st = Status.PROVED if ok else Status.UNDECIDED
        return Certificate(st, data, _summarize(data, st))

    def recheck(data):
        if (data.get("C"), data.get("d")) != (C, d):
            raise CertificateError("parameters differ")
        com.check_stamp(data, com._model("retrial", C, d))
        if data.get("model") != com.check_retrial_birth_death(C, d):
            raise CertificateError("model binding text differs")
        A, B, N = _polys(C, d)
        com.recheck_nonneg(data["N_positive"], N)
        fa = _facts(A, B)
        if data.get("facts") != fa or not _facts_ok(fa):
            raise CertificateError("limits of g at 0 and oo not certified")
        return Status.PROVED
    return prove, recheck


for _C, _d in CASES:
    _p, _r = _make(_C, _d)
    claim(f"seed000.unique_fixed_point.C{_C}_d{_d}",
          statement=(rf"C = {_C},\ d = {_d}:\ g(a) = \frac{{a(1-E(C,a))}}{{1-E(C,a)^{{d}}}}\ \text{{increases strictly "
                     rf"from 0 to }}\infty,\ \text{{so the retrial-of-d fixed point is unique for every }}\rho > 0"),
          source="Cuesta, Jonckheere, Prabhu, Brun, Retrials in Loss Systems (2026; paper 1 in docs/papers.md), claim 1 (uniqueness of the fixed point)",
          method="exact polynomials (flint): non-negative coefficients of the numerator of g'; "
                 "model drift checked to be the birth-death form (SymPy)",
          expected="PROVED", recheck=_r, tags=com.scale_tags(_C, _d), summarize=_summarize,
          scope=com.scope_of(_C, (_d,)))(_p)
