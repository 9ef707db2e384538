r"""The imbalance regimes of seed 003 (``seed003.imbalance_regime.*``): cut equations of
``d = |m - n|`` generated from the rules, exact identities on fmpq laws, the bound recursion in arb and
the re-check; registers no claim (the claims are in ``proofs_check.claims.seed003_regimes``).
"""
from __future__ import annotations

from fractions import Fraction

import sympy
from flint import arb, fmpq

from proofs_check.core import CertificateError, Status
from proofs_check.support.seed003 import PREC, _aggregation_recheck, _arb, _ball_str, _q, _same_ball, arb_mid
from proofs_check.support.seed003_blocking import _gt_bracket, _hw_bracket
from symloss.core.precision import flint_prec
from symloss.twoqueue import TwoQueueJSQ, definition as D, derivation as dv

IMB_I = 4


def _imbalance_symbolic() -> dict:
    r"""From the rules at generic states: the rates by which ``d = |m - n|`` moves (only by +-1), the
    cut equations they imply, and the drift of ``d^2``."""
    comp = D.compile_rules(D.RULES)
    K, dd, rho = sympy.symbols("K d rho", positive=True)
    out = {}
    for name, dval, sub, params in dv._outer_types():
        up = dn = sympy.Integer(0)
        mm, nn = sub[D.m], sub[D.n]
        for rule in comp.rules:
            if not dv._decide(rule.when, sub, params):
                continue
            dm, dn_ = rule.jump
            diff0 = nn - mm
            diff1 = sympy.expand((nn + dn_) - (mm + dm))
            sg = dv._sign(diff1, params)
            new = diff1 if sg >= 0 else -diff1
            step = sympy.expand(new - diff0)
            rate = rule.rate.subs(sub)
            if step == 1:
                up += rate
            elif step == -1:
                dn += rate
            elif step != 0:
                raise CertificateError(f"rule {rule.jump} changes |m-n| by {step}")
        target = {}
        Kx, dx = sympy.expand(mm + nn), sympy.expand(nn - mm)
        if dval is None:
            target = sympy.solve([sympy.Eq(Kx, K), sympy.Eq(dx, dd)], list(params[:2]), dict=True)[0]
        else:
            target = {params[0]: sympy.solve(sympy.Eq(Kx, K), params[0])[0]}
        up_e = sympy.simplify(up.subs(target).subs(D.rho, rho))
        dn_e = sympy.simplify(dn.subs(target).subs(D.rho, rho))
        dv_ = dd if dval is None else sympy.Integer(dval)
        out[name] = {"up": str(up_e), "down": str(dn_e),
                     "drift_d2": str(sympy.simplify(up_e * (2 * dv_ + 1) + dn_e * (1 - 2 * dv_)))}
    want = {"d>=2": ("K/2 - d/2", "K/2 + d/2 + rho", "K - 2*d**2 - 2*d*rho + rho"),
            "d=1": ("K/2 - 1/2", "K/2 + rho + 1/2", "K + rho - 2*rho - 2"),
            "d=0": ("K + rho", "0", "K + rho")}
    for name, (u, dn_, dr) in want.items():
        loc = {"K": K, "d": dd, "rho": rho}
        if sympy.simplify(sympy.sympify(out[name]["up"], locals=loc) - sympy.sympify(u, locals=loc)) != 0 or \
                sympy.simplify(sympy.sympify(out[name]["down"], locals=loc) - sympy.sympify(dn_, locals=loc)) != 0 or \
                sympy.simplify(sympy.sympify(out[name]["drift_d2"], locals=loc) - sympy.sympify(dr, locals=loc)) != 0:
            raise CertificateError(f"d-rates at type {name}: {out[name]} differ from the cut equations used")
    return out


def _exact_identities(N: int, rho_s: str) -> dict:
    """The cut equations, the first-moment and the second-moment identity, exactly (fmpq) on the
    exact stationary law of the rules."""
    rho = _q(rho_s)
    res = TwoQueueJSQ(N, Fraction(int(rho.p), int(rho.q))).stationary_distribution("exact")
    p = res.p
    u = [fmpq(0)] * (N + 1)
    w = [fmpq(0)] * (N + 1)      # E[K 1{d = i}]
    Ed = Ed2 = fmpq(0)
    for m in range(N + 1):
        for n in range(N + 1):
            d = abs(m - n)
            u[d] += p[m][n]
            w[d] += p[m][n] * (m + n)
            Ed += p[m][n] * d
            Ed2 += p[m][n] * d * d
    b = p[N][N]
    ok = []
    # cut 0|1: sum_{d=0} p (rho [K<2N] + K) = sum_{d=1} p (rho + (K+1)/2)
    lhs0 = rho * (u[0] - b) + w[0]
    rhs0 = rho * u[1] + (w[1] + u[1]) / 2
    ok.append(lhs0 == rhs0)
    for i in range(1, N):
        lhs = (w[i] - i * u[i]) / 2
        rhs = rho * u[i + 1] + (w[i + 1] + (i + 1) * u[i + 1]) / 2
        ok.append(lhs == rhs)
    ok.append(rho * Ed + Ed2 == rho * (1 - b))                       # second moment
    EK = sum((wi for wi in w), fmpq(0))
    ok.append(EK == rho * (1 - b))                                    # carried load
    if not all(ok):
        raise CertificateError(f"exact identities fail at N={N}, rho={rho_s}: {ok}")
    return {"N": N, "rho": rho_s, "identities": len(ok)}


def _imbalance_bound(kappa, b_err, delta, rho, I=IMB_I):
    r"""Bounds :math:`e_i \ge |P(d = i) - \ell_i|`, ``i = 0..I``, in arb, from the cut equations:
    :math:`u_0 = (1 + b + D_1 - w_0)/(2+\kappa)`, :math:`0 \le D_1 = E[d]/\rho \le 1/\rho`,
    :math:`|b - b_\infty| \le` ``b_err``, :math:`\sum|w_i| \le \delta`."""
    A = 1 + kappa / 2
    q = kappa / (2 + kappa)
    e = [(b_err + 1 / rho + delta) / (2 + kappa)]
    e.append(((1 + kappa) * e[0] + b_err + delta) / A + 1 / (2 * rho * A))
    acc = arb(0)
    for i in range(1, I):
        T = (arb(i) / (2 * rho) + kappa * (i + 1) / (4 * rho * A)) / A
        acc = q * acc + T
        e.append(q ** i * e[1] + acc + delta / A)
    return e


def _limit_law(ah, I=IMB_I):
    ah = arb(ah) if not isinstance(ah, arb) else ah
    return [(1 - ah) / (1 + ah)] + [2 * ah ** i / (1 + ah) ** (i + 1) for i in range(1, I + 1)]


def _imb_inputs(regime, N, rho):
    """(kappa, b_inf, bound on |b - b_inf|, bound on delta, a-hat) for one (N, rho) in arb."""
    rho = _arb(rho)
    C = arb(2 * N)
    c = C / rho
    if regime == "a_lt_half":
        if not c < 1:
            raise CertificateError("a_lt_half needs 2N < rho")
        berr = c / (rho * (1 - c))
        return c, 1 - c, berr, berr, c / 2
    if regime == "a_gt_half":
        if not c > 1:
            raise CertificateError("a_gt_half needs 2N > rho")
        L, U, h = _gt_bracket(2 * N, rho)
        tail = (-rho * h).exp()
        berr = (-rho * (h + L)).exp()                    # E = exp(-rho (h + e)), e >= L
        delta = 1 / (rho * (1 - tail)).sqrt()
        return arb(1), arb(0), berr, delta, arb(1) / 2
    # halfin_whitt: the cut-equation limit is l(kappa/2) with kappa = min(1, c); the statement's limit
    # l(1/2) differs by |l(kappa/2) - l(1/2)| = O(rho^-1/2), added by _imb_total
    lo, up, beta, lim = _hw_bracket(2 * N, rho)
    b_up = up / rho.sqrt()
    if c < 1:
        berr = c / (rho * (1 - c))
        alt = b_up + (1 - c)
        berr = berr if berr < alt else alt
        return c, 1 - c, berr, berr, c / 2
    # P(X <= C) >= pmf(C)/E >= exp(-rho h - 1/(12C))/(sqrt(2 pi C) E_up) (Robbins, and E <= b_up)
    h = c * c.log() - c + 1
    pmf_lo = (-rho * h - 1 / (12 * C)).exp() / (2 * arb.pi() * C).sqrt()
    p_le = pmf_lo / b_up
    p2 = 1 - (-rho * h).exp()
    p_le = p_le if p_le > p2 else p2
    delta = 1 / (rho * p_le).sqrt()
    return arb(1), arb(0), b_up, delta, arb(1) / 2


def _imb_total(regime, N, rho):
    """(bounds e_i, limit law of the statement) for one instance, in arb."""
    kap, binf, berr, delta, ah = _imb_inputs(regime, N, rho)
    e = _imbalance_bound(kap, berr, delta, _arb(rho))
    if regime == "halfin_whitt":
        ell = _limit_law(arb(1) / 2)
        shift = _limit_law(ah)
        e = [x + abs(u - v) for x, u, v in zip(e, shift, ell)]
        return e, ell
    return e, _limit_law(ah)


IMB_INSTANCES = {
    "a_gt_half": [(100, "100"), (400, "400"), (1000, "1000"), (750, "1000")],
    "a_lt_half": [(35, "100"), (140, "400"), (350, "1000"), (150, "1000")],
    "halfin_whitt": [(50, "100"), (200, "400"), (500, "1000"), (1000, "2000"), (490, "1000"), (516, "1000")],
}


def _imb_table(regime):
    """Per instance: the bound e_i, the limit l_i, and the float solver's P(d = i) (a sanity check of the
    theorem on exact numbers; the float solution is accurate to ~1e-13, far below the bounds)."""
    with flint_prec(PREC):
        rows = []
        for N, rho_s in IMB_INSTANCES[regime]:
            # the limit law l(kappa, b_inf) = l(a-hat): (1 + b_inf)/(2 + kappa) = (1 - ah)/(1 + ah)
            e, ell = _imb_total(regime, N, _q(rho_s))
            exact = TwoQueueJSQ(N, float(_q(rho_s).p) / float(_q(rho_s).q)).stationary_distribution().imbalance()
            for i in range(IMB_I + 1):
                if not abs(arb(float(exact[i])) - ell[i]) <= e[i] + arb(1e-12):
                    raise CertificateError(f"{regime}, N={N}, rho={rho_s}: |P(d={i}) - l_i| exceeds the bound")
            rows.append({"N": N, "rho": rho_s, "bound": [_ball_str(x) for x in e],
                         "limit": [_ball_str(x) for x in ell],
                         "observed_error": [abs(float(exact[i]) - float(ell[i].mid())) for i in range(IMB_I + 1)]})
        return rows


def _limit_consistency():
    """l(kappa, b_inf) of the cut equations equals l(a-hat) of the statement, symbolically."""
    a = sympy.Symbol("a", positive=True)
    out = {}
    for name, kap, binf, ah in (("a<1/2", 2 * a, 1 - 2 * a, a), ("a>=1/2", 1, 0, sympy.Rational(1, 2))):
        l0 = (1 + binf) / (2 + kap)
        l1 = (l0 * (1 + kap) - binf) / (1 + sympy.Rational(kap, 1) / 2 if kap == 1 else 1 + kap / 2)
        q = kap / (2 + kap)
        t0 = sympy.simplify(l0 - (1 - ah) / (1 + ah))
        t1 = sympy.simplify(l1 - 2 * ah / (1 + ah) ** 2)
        tq = sympy.simplify(q - ah / (1 + ah))
        if (t0, t1, tq) != (0, 0, 0):
            raise CertificateError(f"{name}: limit of the cut equations differs from the claimed law")
        out[name] = "l_0, l_1 and the ratio q match (1-ah)/(1+ah), 2ah/(1+ah)^2, ah/(1+ah)"
    return out


def _recheck_imb(regime):
    def rc(data: dict) -> Status:
        _aggregation_recheck()
        if data.get("d_rates") != _imbalance_symbolic():
            raise CertificateError("stored d-rates differ from the ones generated from the rules")
        if data.get("limit_consistency") != _limit_consistency():
            raise CertificateError("stored limit consistency differs")
        ex = data.get("exact_identities") or []
        if [(x["N"], x["rho"]) for x in ex] != [(2, "3/2"), (4, "7/3"), (5, "5")]:
            raise CertificateError("exact identity instances differ")
        for x in ex:
            _exact_identities(x["N"], x["rho"])
        rows = data.get("table") or []
        if [(x["N"], x["rho"]) for x in rows] != IMB_INSTANCES[regime]:
            raise CertificateError("bound table instances differ")
        with flint_prec(PREC):
            for x in rows:
                e, _ = _imb_total(regime, x["N"], _q(x["rho"]))
                for i, sv in enumerate(x["bound"]):
                    if not _same_ball(sv, _ball_str(e[i])):
                        raise CertificateError(f"N={x['N']} rho={x['rho']}: stored bound e_{i} does not match")
                if any(o > float(arb_mid(sv)) + 1e-12 for o, sv in zip(x["observed_error"], x["bound"])):
                    raise CertificateError("an observed error exceeds its bound")
        return Status.PROVED
    return rc
