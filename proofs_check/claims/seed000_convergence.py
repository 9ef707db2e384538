r"""Seed 000, claim 1 (the convergence part): the fluid ODE converges to the unique fixed point from every
initial state, for every load.

``seed000.global_convergence.retrial.C{C}_d{d}`` and ``seed000.global_convergence.power.C{C}_d{d}``
(PROVED, ``1 <= C <= 20``, ``1 <= d <= 6``): for every :math:`\rho > 0`, every solution of the
mean-field ODE of ``RetrialOfD(C, d)`` (occupancies, on the simplex) and of ``PowerOfD(C, d)``
(tails, on :math:`D = \{1 \ge u_1 \ge \dots \ge u_C \ge 0\}`) converges, exponentially, to the unique
fixed point.

Certificate (:func:`symloss.core.convergence.certify_global_convergence`, on the definition's own
drift, written in tails :math:`u_k = x_k + \dots + x_C` for retrial-of-d): for symbolic
:math:`\rho > 0`, exact polynomial sign certificates (non-negative coefficients after writing chosen
levels in gap coordinates :math:`t_k = u_k - u_{k+1} \ge 0`, with :math:`u_0 = 1` as homogeniser) of
(a) every off-diagonal Jacobian entry :math:`\ge 0` on ``D`` (cooperative), (b) the drift of every gap
:math:`\ge 0` on its face (``D`` forward invariant), (c) every Jacobian column sum
:math:`\le -m_k(\rho) < 0` on ``D`` (here :math:`-1` and :math:`-1 - \rho d u_C^{d-1}`: the flow
contracts the :math:`\ell^1` distance of tails at rate 1). The theorem
(:data:`symloss.core.convergence.THEOREM`): Coppel's inequality on the convex forward-invariant
``D`` gives :math:`|x(t) - y(t)|_1 \le e^{-t}|x(0) - y(0)|_1`, so the equilibrium (Brouwer) is unique
and globally attracting on ``D`` (the monotone-systems view: Kamke's comparison, H. L. Smith,
*Monotone Dynamical Systems*, 1995, ch. 3). The re-check derives every polynomial again from the
model, compares it with the stored one and expands the stored gap substitutions again (no search);
the stamp refuses a certificate made from another definition.
"""
from __future__ import annotations

from proofs_check.core import Certificate, CertificateError, Status, claim
from proofs_check.support import seed000 as com
from symloss.core.convergence import (GlobalConvergenceCertificateError, certify_global_convergence,
                                      verify_global_convergence)

C_RANGE = range(1, 21)
D_RANGE = range(1, 7)
POLICIES = ("retrial", "power")
SOURCE = ("Cuesta, Jonckheere, Prabhu, Brun, Retrials in Loss Systems (2026; paper 1 in docs/papers.md), claim 1 "
          "(the fluid ODE converges to the fixed point from every initial state)")
METHOD = ("exact polynomial sign certificates (flint) on the model's drift in tails, for symbolic rho > 0: "
          "(a) cooperative, (b) D forward invariant, (c) l1 contraction (column sums < 0) => unique, globally "
          "attracting equilibrium")
_NAMES = {"retrial": "retrial-of-d", "power": "power-of-d"}


def _statement(kind, C, d):
    space = r"\text{the simplex}" if kind == "retrial" else r"D = \{1 \ge u_1 \ge \dots \ge u_C \ge 0\}"
    return (rf"C = {C},\ d = {d}:\ \text{{every solution of the {_NAMES[kind]} fluid ODE in }} {space}"
            rf"\ \text{{converges to the unique fixed point, for every }} \rho > 0")


def _summary(data: dict, status: Status) -> str:
    """The one-line summary, rebuilt from the stored (re-checked) certificate."""
    cert = data["certificate"]
    if status != Status.PROVED:
        return f"global convergence not certified: condition {cert['failed_condition']} ({cert['status']})"
    n = {k: len(cert["conditions"][k]["items"]) for k in ("a", "b", "c")}
    return (f"every rho > 0: (a) {n['a']} off-diagonal entries >= 0, (b) {n['b']} faces inward, (c) {n['c']} column "
            "sums < 0 on D: l1 contraction, unique globally attracting equilibrium")


def _make(kind, C, d):
    def prove():
        m = com._model(kind, C, d)
        res = certify_global_convergence(m)
        data = {"policy": kind, "C": C, "d": d, "stamp": com.stamp(m), "certificate": res.certificate}
        st = Status.PROVED if res.status == "PROVED" else Status.UNDECIDED
        return Certificate(st, data, _summary(data, st))

    def recheck(data):
        if (data["policy"], data["C"], data["d"]) != (kind, C, d):
            raise CertificateError("parameters differ")
        m = com._model(kind, C, d)
        com.check_stamp(data, m)
        if data["certificate"]["load"] != {"kind": "every"}:
            raise CertificateError("the certificate does not cover every load rho > 0")
        try:
            st = verify_global_convergence(m, data["certificate"])
        except GlobalConvergenceCertificateError as exc:
            raise CertificateError(str(exc)) from None
        return Status.PROVED if st == "PROVED" else Status.UNDECIDED
    return prove, recheck


for _kind in POLICIES:
    for _C in C_RANGE:
        for _d in D_RANGE:
            _p, _r = _make(_kind, _C, _d)
            claim(f"seed000.global_convergence.{_kind}.C{_C}_d{_d}", statement=_statement(_kind, _C, _d),
                  source=SOURCE, method=METHOD, expected="PROVED", recheck=_r,
                  tags=("seed000", "global_convergence"), summarize=_summary)(_p)
