r"""The blocking regimes of seed 003 (``seed003.blocking_regime.*``): bound formulas, their SymPy
derivations, arb brackets at the claims' instances and the re-checks; registers no claim.

The claims (statements and searches) are in ``proofs_check.claims.seed003_regimes``; see its
docstring for the three regimes ``a > 1/2``, ``a < 1/2`` and Halfin-Whitt.
"""
from __future__ import annotations

import math

import sympy
from flint import arb

from proofs_check.core import CertificateError, Status
from proofs_check.support.seed003 import PREC, _aggregation_recheck, _arb, _ball_str, _check_instances, _q, _sym_zero
from symloss.core.precision import flint_prec
from symloss.erlang import erlang_b_ball

# --------------------------------------------------------------------------------------------------
# a > 1/2
# --------------------------------------------------------------------------------------------------

GT_INSTANCES = [(3, "5"), (6, "10"), (60, "100"), (100, "100"), (1000, "1000"), (30000, "10000"),
                (600, "1000"), (550, "1000")]

GT_FORMULAS = {
    "U": "(log(2*pi*C)/2 + 1/(12*C))/rho",
    "L": "(log(2*pi*C)/2 + 1/(12*C + 1) + log(1 - exp(-rho*(c*log(c) - c + 1))))/rho",
}


def _gt_symbolic() -> dict:
    C, rho, r, P, c, s, k = sympy.symbols("C rho r P c s k", positive=True)
    logfact = (C + sympy.Rational(1, 2)) * sympy.log(C) - C + sympy.log(2 * sympy.pi) / 2 + r
    minus_logE = -C * sympy.log(rho) + rho + logfact + sympy.log(P)      # E = rho^C e^-rho / (C! P)
    h = c * sympy.log(c) - c + 1
    rhs = rho * h + sympy.log(2 * sympy.pi * C) / 2 + r + sympy.log(P)
    identity = str((minus_logE - rhs).subs(c, C / rho))
    # Chernoff: P(X >= k) <= e^{rho(s-1)} s^{-k} (s >= 1), minimised at s = k/rho, value exp(-rho h(k/rho))
    logbound = rho * (s - 1) - k * sympy.log(s)
    crit = sympy.solve(sympy.diff(logbound, s), s)
    chern = str(sympy.simplify(logbound.subs(s, crit[0]) + rho * h.subs(c, k / rho)))
    dh = str(sympy.simplify(sympy.diff(h, c) - sympy.log(c)))
    return {"identity": identity, "chernoff_value": chern, "chernoff_argmin": str(crit[0]),
            "h_derivative_minus_log": dh}


def _gt_bracket(C, rho):
    C = arb(C)
    rho = _arb(rho)
    c = C / rho
    h = c * c.log() - c + 1
    U = ((2 * arb.pi() * C).log() / 2 + 1 / (12 * C)) / rho
    L = ((2 * arb.pi() * C).log() / 2 + 1 / (12 * C + 1) + (1 - (-rho * h).exp()).log()) / rho
    return L, U, h


def _gt_instance(N, rho_s):
    with flint_prec(PREC):
        rho = _q(rho_s)
        E = erlang_b_ball(2 * N, rho, prec=PREC)
        L, U, h = _gt_bracket(2 * N, rho)
        e = -E.log() / _arb(rho) - h
        if not (L <= e and e <= U):
            raise CertificateError(f"N={N}, rho={rho_s}: -log(E)/rho - h = {e} outside [{L}, {U}]")
        return {"N": N, "rho": rho_s, "e": _ball_str(e), "L": _ball_str(L), "U": _ball_str(U)}


def _recheck_start(data: dict, field: str, expected, what: str, symbolic, sym_what: str) -> dict:
    """The first steps of every blocking re-check: the aggregation lemma re-derived, the stored
    ``field`` compared with the claim's ``expected`` and the stored ``symbolic`` part with a fresh
    derivation ``symbolic()``, which is returned; ``what`` and ``sym_what`` name the two in the errors
    ("stored <what> from the claim's", "stored <sym_what> from a fresh derivation")."""
    _aggregation_recheck()
    if data.get(field) != expected:
        raise CertificateError(f"stored {what} from the claim's")
    sym = symbolic()
    if data.get("symbolic") != sym:
        raise CertificateError(f"stored {sym_what} from a fresh derivation")
    return sym


def _recheck_gt(data: dict) -> Status:
    data = dict(data)
    sym = _recheck_start(data, "formulas", GT_FORMULAS, "bound formulas differ", _gt_symbolic,
                         "symbolic derivation differs")
    C, rho, r, P, k = sympy.symbols("C rho r P k", positive=True)
    if not _sym_zero(sym["identity"], {"C": C, "rho": rho, "r": r, "P": P}):
        raise CertificateError("identity -log E = rho h + log(2 pi C)/2 + r_C + log P does not hold")
    if not _sym_zero(sym["chernoff_value"], {"rho": rho, "k": k}) or not _sym_zero(sym["h_derivative_minus_log"], {}):
        raise CertificateError("Chernoff step does not verify")
    inst = data.get("instances") or []
    if [(x["N"], x["rho"]) for x in inst] != [(n_, r_) for n_, r_ in GT_INSTANCES]:
        raise CertificateError("instances differ from the claim's list")
    _check_instances(inst, lambda x: _gt_instance(x["N"], x["rho"]), ("e", "L", "U"), "a>1/2")
    return Status.PROVED


# --------------------------------------------------------------------------------------------------
# a < 1/2
# --------------------------------------------------------------------------------------------------

LT_INSTANCES = [(1, "5"), (3, "10"), (35, "100"), (300, "1000"), (1500, "10000"), (49, "100"), (5, "100")]

LT_FORMULAS = {"lower": "1 - c", "upper": "1 - c + c/(rho*(1 - c))"}


def _lt_symbolic() -> dict:
    t, x, al, ga, rho, c = sympy.symbols("t x A_ G_ rho c", positive=True)
    out = {}
    # log(1+t) <= t and log(1+t) >= t - t^2/2 for t >= 0: both differences vanish at 0, derivatives >= 0
    out["d_upper"] = str(sympy.simplify(sympy.diff(t - sympy.log(1 + t), t) - t / (1 + t)))
    out["d_lower"] = str(sympy.simplify(sympy.diff(sympy.log(1 + t) - t + t ** 2 / 2, t) - t ** 2 / (1 + t)))
    # Gordon: g(x) = int_x^oo e^{-u^2/2} du - x e^{-x^2/2}/(1+x^2) has g' = -2 e^{-x^2/2}/(1+x^2)^2, g(oo) = 0
    tail = sympy.sqrt(sympy.pi / 2) * sympy.erfc(x / sympy.sqrt(2))
    g = tail - x * sympy.exp(-x ** 2 / 2) / (1 + x ** 2)
    out["gordon_derivative"] = str(sympy.simplify(sympy.diff(g, x) + 2 * sympy.exp(-x ** 2 / 2) / (1 + x ** 2) ** 2))
    out["gordon_limit"] = str(sympy.limit(g, x, sympy.oo))
    # int_0^oo exp(-alpha t - gamma t^2/2) dt = R(alpha/sqrt(gamma))/sqrt(gamma), R(x) = e^{x^2/2} tail(x)
    I = sympy.integrate(sympy.exp(-al * t - ga * t ** 2 / 2), (t, 0, sympy.oo))
    R = lambda y: sympy.exp(y ** 2 / 2) * tail.subs(x, y)  # noqa: E731
    out["gauss_integral"] = str(sympy.simplify((I - R(al / sympy.sqrt(ga)) / sympy.sqrt(ga)).rewrite(sympy.erf)))
    # with R >= x/(1+x^2): 1/E >= rho alpha/(gamma + alpha^2), alpha = rho(1-c), gamma = rho c
    lower_inv = rho * al / (ga + al ** 2)
    out["upper_bound"] = str(sympy.simplify(1 / lower_inv.subs({al: rho * (1 - c), ga: rho * c})
                                            - sympy.sympify(LT_FORMULAS["upper"], locals={"c": c, "rho": rho})))
    out["bracket_lower"] = "1/E <= rho int_0^oo exp(-rho(1-c)t) dt = 1/(1-c)"
    return out


def _lt_instance(N, rho_s):
    with flint_prec(PREC):
        rho = _q(rho_s)
        E = erlang_b_ball(2 * N, rho, prec=PREC)
        c = arb(2 * N) / _arb(rho)
        lo, hi = 1 - c, 1 - c + c / (_arb(rho) * (1 - c))
        if not (lo <= E and E <= hi):
            raise CertificateError(f"N={N}, rho={rho_s}: E = {E} outside [{lo}, {hi}]")
        return {"N": N, "rho": rho_s, "E": _ball_str(E), "rho_times_excess": _ball_str((E - lo) * _arb(rho))}


def _recheck_lt(data: dict) -> Status:
    sym = _recheck_start(data, "formulas", LT_FORMULAS, "bound formulas differ", _lt_symbolic,
                         "symbolic lemmas differ")
    for key in ("d_upper", "d_lower", "gordon_derivative", "gordon_limit", "gauss_integral", "upper_bound"):
        if not _sym_zero(sym[key], {}):
            raise CertificateError(f"lemma {key} does not verify: {sym[key]}")
    inst = data.get("instances") or []
    if [(x["N"], x["rho"]) for x in inst] != [(n_, r_) for n_, r_ in LT_INSTANCES]:
        raise CertificateError("instances differ from the claim's list")
    _check_instances(inst, lambda x: _lt_instance(x["N"], x["rho"]), ("E",), "a<1/2")
    return Status.PROVED


# --------------------------------------------------------------------------------------------------
# Halfin-Whitt
# --------------------------------------------------------------------------------------------------

HW_BETAS = [-1, 0, 1, 2]

HW_RHOS = ["100", "10000", "1000000"]

HW_RULE = "U = max(beta, 0) + 1 + sqrt(2 log(max(rho, e)))"


def _hw_symbolic() -> dict:
    v, x, w, u, rho, C, kap, b = sympy.symbols("v x w u rho C kappa beta", positive=True)
    out = {}
    cubic = v - v ** 2 / 2 + v ** 3 / 3 - sympy.log(1 + v)
    out["log_upper"] = str(sympy.simplify(sympy.diff(cubic, v) - v ** 3 / (1 + v)))
    out["log_lower"] = str(sympy.simplify(sympy.diff(sympy.log(1 + v) - v + v ** 2 / 2, v) - v ** 2 / (1 + v)))
    out["exp_bound"] = str(sympy.simplify(sympy.diff(1 + x * sympy.exp(x) - sympy.exp(x), x) - x * sympy.exp(x)))
    F = C * sympy.log(1 + u / sympy.sqrt(rho)) - sympy.sqrt(rho) * u
    out["concavity"] = str(sympy.simplify(sympy.diff(F, u, 2) + C / (sympy.sqrt(rho) + u) ** 2))
    xb = sympy.Symbol("xb", real=True)
    M0 = sympy.integrate(sympy.exp(xb * w - w ** 2 / 2), (w, 0, sympy.oo))
    Phi = (1 + sympy.erf(xb / sympy.sqrt(2))) / 2
    out["M0"] = str(sympy.simplify((M0 - sympy.sqrt(2 * sympy.pi) * sympy.exp(xb ** 2 / 2) * Phi).rewrite(sympy.erf)))
    M3 = sympy.integrate(w ** 3 * sympy.exp(xb * w - w ** 2 / 2), (w, 0, sympy.oo))
    out["M3"] = str(sympy.simplify(M3 - ((xb ** 2 + 2) + (xb ** 3 + 3 * xb) * M0)))
    return out


def _hw_bracket(C, rho):
    """(B_lo, B_up, beta, phi/Phi(beta)) in arb for sqrt(rho) E(C, rho)."""
    rho = _arb(rho)
    C = arb(C)
    sr = rho.sqrt()
    beta = (C - rho) / sr
    kap = C / rho
    xb = beta / kap.sqrt()
    two_pi = 2 * arb.pi()

    def M0(y):
        return two_pi.sqrt() * (y * y / 2).exp() * (1 + (y / arb(2).sqrt()).erf()) / 2
    m0 = M0(xb)
    m3 = (xb * xb + 2) + (xb ** 3 + 3 * xb) * m0
    up = kap.sqrt() / m0
    bmax = beta if beta > 0 else arb(0)
    lr = rho.log() if rho > arb(1).exp() else arb(1)
    U = bmax + 1 + (2 * lr).sqrt()
    Fbar = beta * U - kap * U * U / 2 + kap * U ** 3 / (3 * sr)
    inv_lo = m0 / kap.sqrt() + m3 * (kap * U ** 3 / (3 * sr)).exp() / (3 * sr * kap) \
        + Fbar.exp() * (sr + U) / (sr * (U - beta))
    lo = 1 / inv_lo
    lim = 1 / M0(beta)
    return lo, up, beta, lim


def _hw_instance(beta_int, rho_s):
    with flint_prec(PREC):
        rho = _q(rho_s)
        C = int(round(float(rho_s) + beta_int * math.sqrt(float(rho_s))))
        E = erlang_b_ball(C, rho, prec=PREC)
        lo, up, beta, lim = _hw_bracket(C, rho)
        val = E * _arb(rho).sqrt()
        if not (lo <= val and val <= up):
            raise CertificateError(f"C={C}, rho={rho_s}: sqrt(rho) E = {val} outside [{lo}, {up}]")
        width = (up - lo) * _arb(rho).sqrt()
        return {"C": C, "rho": rho_s, "beta": _ball_str(beta), "sqrt_rho_E": _ball_str(val),
                "lower": _ball_str(lo), "upper": _ball_str(up), "limit": _ball_str(lim),
                "sqrt_rho_times_width": _ball_str(width)}


def _recheck_hw(data: dict) -> Status:
    sym = _recheck_start(data, "U_rule", HW_RULE, "choice of U differs", _hw_symbolic, "symbolic lemmas differ")
    for key, val in sym.items():
        if not _sym_zero(val, {}):
            raise CertificateError(f"lemma {key} does not verify: {val}")
    inst = data.get("instances") or []
    want = [(b, r) for b in HW_BETAS for r in HW_RHOS]
    if [(x["beta_target"], x["rho"]) for x in inst] != want:
        raise CertificateError("instances differ from the claim's list")
    _check_instances(inst, lambda x: _hw_instance(x["beta_target"], x["rho"]), ("sqrt_rho_E", "lower", "upper"),
                     "Halfin-Whitt")
    return Status.PROVED
