r"""Excluding roots of the crossing resultant ``R_v`` that are not physical crossings (seed 000); registers
no claim. Used by :func:`proofs_check.support.seed000.prove_no_crossing` and its re-check.

A physical crossing with ``p = v^alpha`` has ``rho = a(p)/sigma(p)`` (retrial: ``a = E^{-1}(C, p)``,
``sigma = 1 + p + ... + p^{d-1}``); an arb evaluation of ``Q_pod`` over the box of ``(v^beta, rho)`` that
excludes 0 proves there is no crossing with ``v`` in a refined isolating interval (:func:`exclude_root`).
"""
from __future__ import annotations

from math import factorial

from flint import arb, fmpq, fmpz_poly

from proofs_check import algebra as alg
from proofs_check.core import CertificateError
from symloss.core.precision import flint_prec


def _erlang_inverse_poly(C: int, p: fmpq):
    """Integer polynomial in ``a`` whose unique positive root is ``E^{-1}(C, p)``:
    ``den a^C - num sum_k C!/k! a^k`` (``p = num/den``; one sign variation, so one positive root)."""
    num, den = int(p.p), int(p.q)
    cs = [-num * (factorial(C) // factorial(k)) for k in range(C + 1)]
    cs[C] += den
    return fmpz_poly(cs)


def _positive_root_interval(h, width):
    """Rational interval around the unique positive root of ``h`` (one Descartes variation on (0, oo),
    ``h(0) < 0``), of width <= ``width``."""
    if alg.descartes_variations(h, 0, None) != 1 or not h(0) < 0:
        raise CertificateError("Erlang inverse polynomial does not have exactly one positive root")
    hi = fmpq(1)
    while h(hi) <= 0:
        hi *= 2
    return alg.refine_root(h, (fmpq(0), hi), width)


def _sigma(p, d):
    return sum((p ** j for j in range(d)), fmpq(0))


def _arb_box_eval(Qdata: dict, s_lo, s_hi, r_lo, r_hi, prec: int = 512) -> tuple:
    """Ball enclosure of ``Q(s, rho)`` over the box (python-flint arb, rigorous)."""
    with flint_prec(prec):
        S = arb(s_lo).union(arb(s_hi))
        R = arb(r_lo).union(arb(r_hi))
        val = arb(0)
        for i, j, c in Qdata["terms"]:
            val += arb(c) * S ** i * R ** j
        return val, (val > 0 or val < 0)


def exclude_root(Qpod: dict, Rv, interval, C: int, d_ret: int, alpha: int, beta: int,
                 width_exp: int = 30) -> dict:
    r"""Show that the root ``v*`` of ``R_v`` in ``interval`` is not a physical crossing.

    A physical crossing with ``p = v^alpha`` has ``rho = a(p)/sigma(p)`` (retrial: ``a = E^{-1}(C, p)``,
    ``sigma = 1 + p + ... + p^{d-1}``; both increasing in ``p``, lemma L1 of
    ``seed000.erlang_bounds.retrial_sandwich``) and then ``Q_pod(v^beta, rho) = 0``. With ``v`` in a
    refined interval ``[v1, v2]``, ``rho`` lies in ``[a_lo(p1)/sigma(p2), a_hi(p2)/sigma(p1)]``; an arb
    evaluation of ``Q_pod`` over the box that excludes 0 proves there is no crossing with ``v`` there.
    """
    p0 = alg.squarefree_part(Rv)
    v1, v2 = alg.refine_root(p0, (alg.q(interval[0]), alg.q(interval[1])), fmpq(1, 10 ** width_exp))
    p1, p2 = v1 ** alpha, v2 ** alpha
    w = fmpq(1, 10 ** (width_exp + 5))
    a1 = _positive_root_interval(_erlang_inverse_poly(C, p1), w)
    a2 = _positive_root_interval(_erlang_inverse_poly(C, p2), w)
    r_lo, r_hi = a1[0] / _sigma(p2, d_ret), a2[1] / _sigma(p1, d_ret)
    val, ok = _arb_box_eval(Qpod, v1 ** beta, v2 ** beta, r_lo, r_hi)
    return {"v": [alg.qstr(v1), alg.qstr(v2)], "a_at_p1": [alg.qstr(x) for x in a1],
            "a_at_p2": [alg.qstr(x) for x in a2], "rho": [alg.qstr(r_lo), alg.qstr(r_hi)],
            "Q_pod_box": val.str(10, radius=True), "excluded": bool(ok)}


def recheck_exclusion(ex: dict, Qpod: dict, Rv, interval, C: int, d_ret: int, alpha: int, beta: int) -> None:
    p0 = alg.squarefree_part(Rv)
    v1, v2 = alg.q(ex["v"][0]), alg.q(ex["v"][1])
    lo, hi = alg.q(interval[0]), alg.q(interval[1])
    if not (lo <= v1 < v2 <= hi) or not alg.sign_at(p0, v1) * alg.sign_at(p0, v2) < 0:
        raise CertificateError("refined interval does not isolate the root of R_v")
    p1, p2 = v1 ** alpha, v2 ** alpha
    for key, p in (("a_at_p1", p1), ("a_at_p2", p2)):
        h = _erlang_inverse_poly(C, p)
        x, y = alg.q(ex[key][0]), alg.q(ex[key][1])
        if alg.descartes_variations(h, 0, None) != 1 or not h(0) < 0:
            raise CertificateError("Erlang inverse polynomial does not have one positive root")
        if not (0 <= x < y) or not (alg.sign_at(h, x) <= 0 < alg.sign_at(h, y)):
            raise CertificateError(f"{key} does not enclose E^-1(C, p)")
    r_lo = alg.q(ex["a_at_p1"][0]) / _sigma(p2, d_ret)
    r_hi = alg.q(ex["a_at_p2"][1]) / _sigma(p1, d_ret)
    if [alg.qstr(r_lo), alg.qstr(r_hi)] != ex["rho"]:
        raise CertificateError("stored rho box differs from the recomputed one")
    _val, ok = _arb_box_eval(Qpod, v1 ** beta, v2 ** beta, r_lo, r_hi)
    if not ok or not ex.get("excluded"):
        raise CertificateError("Q_pod does not exclude 0 on the box")
