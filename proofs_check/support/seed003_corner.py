r"""The corner law of seed 003 and the regime boundaries (``seed003.corner_law.*``,
``seed003.regime_boundary.*``): the kernel-method closed form derived from the rules, its check against
an independent level reduction, the pole analysis at ``a = 1/4``, the kinks at ``a = 1/2``, the
finite-system convergence (EVIDENCE) and the re-checks; registers no claim (the claims are in
``proofs_check.claims.seed003_regimes``).
"""
from __future__ import annotations

import mpmath
import numpy as np
import sympy
from flint import arb, arb_mat

from proofs_check.core import CertificateError, Status, all_claims
from proofs_check.support.seed003 import _arb, _dec_to_q, _q
from symloss.core.precision import flint_prec
from symloss.twoqueue import TwoQueueJSQ, derivation as dv
from symloss.twoqueue.series import corner_conditional_laws

# --------------------------------------------------------------------------------------------------
# the corner law in closed form (kernel method)
# --------------------------------------------------------------------------------------------------

def _corner_symbolic() -> dict:
    law = dv.corner_law()
    a = dv.a
    z0 = sympy.simplify(law.kernel_root.subs(dv.X, 0))
    out = {"walk": {k: [[list(j), str(r)] for j, r in v] for k, v in law.walk.jumps.items()},
           "load": str(law.load), "kernel_root": str(law.kernel_root), "G0": str(law.G0),
           "base": str(law.base), "w": str(law.w), "X_of_zeta": str(law.X_of_zeta)}
    # functional equation identity (in zeta, Z)
    phi, phi0, phi00 = law.walk.phi, law.walk.phi0, law.walk.phi00
    Gz = law.G0 + sum(0 for _ in ())
    G = (law.G0 * (phi - phi0) - (phi00 - phi0)) / phi
    fe = sympy.cancel((phi * G - law.G0 * (phi - phi0) + (phi00 - phi0)).subs(dv.X, law.X_of_zeta))
    out["functional_equation_residual"] = str(fe)
    # the kernel root solves the kernel and lies in (0, 1) at X = 0 for 0 < a < 1/2:
    out["kernel_residual"] = str(sympy.simplify(sympy.numer(sympy.together(phi)).subs(dv.Z, law.kernel_root)))
    out["zeta0"] = str(z0)
    t = sympy.Symbol("t", positive=True)
    # 0 < zeta0 <=> 2a + 1 > sqrt(1 + 4a^2) <=> 4a > 0; zeta0 < 1 <=> sqrt(1+4a^2) > 1
    out["zeta0_pos"] = str(sympy.expand((2 * a + 1) ** 2 - (1 + 4 * a ** 2)))          # = 4a > 0
    out["zeta0_lt1"] = str(sympy.expand((1 + 4 * a ** 2) - 1))                         # = 4a^2 > 0
    # X(zeta) inverts the kernel root: X(zeta(X)) = X
    out["uniformisation"] = str(sympy.simplify(law.X_of_zeta.subs(dv.zeta, law.kernel_root) - dv.X))
    del Gz, t
    return out


CORNER_CHECK = [("0.15", 40), ("0.3", 40), ("0.45", 60)]


def _corner_numeric(a_s, J):
    """Closed-form conditional laws (50 digits) against an independent level reduction (python-flint
    ``arb_mat``, 300 bits) of the corner equations, entrywise relative difference."""
    cf = corner_conditional_laws(a_s, J, dps=50)
    with flint_prec(300):
        a = _arb(_q(_dec_to_q(a_s)))

        def Bm(jj):
            n_to, n_from = jj // 2 + 1, (jj - 1) // 2 + 1
            M = arb_mat(n_to, n_from)
            for tt in range(n_from):
                e = (jj - 1) % 2 + 2 * tt
                if e == 0:
                    M[0, tt] = 1
                    continue
                M[(e - 1 - jj % 2) // 2, tt] += arb(1) / 2
                if e + 1 <= jj:
                    M[(e + 1 - jj % 2) // 2, tt] += arb(1) / 2
            return M

        def Am(jj):
            n_to, n_from = jj // 2 + 1, (jj + 1) // 2 + 1
            M = arb_mat(n_to, n_from)
            for tt in range(n_from):
                e = (jj + 1) % 2 + 2 * tt
                dd = e - 1 if e >= 1 else 1
                if dd <= jj:
                    M[(dd - jj % 2) // 2, tt] += 1
            return M
        Jt = J + 120                       # the neglected mass (2a)^Jt is far below 1e-40
        U = {Jt: Bm(Jt)}
        for jj in range(Jt - 1, 0, -1):
            n = jj // 2 + 1
            Zm = arb_mat(n, n)
            for i in range(n):
                Zm[i, i] = 1 + 2 * a
            Zm = Zm - Am(jj) * U[jj + 1] * (2 * a)
            U[jj] = Zm.solve(Bm(jj), algorithm="approx").mid()
        c = [arb_mat([[1]])]
        for jj in range(1, J + 1):
            x = U[jj] * c[-1]
            tot = arb(0)
            for i in range(x.nrows()):
                tot += x[i, 0]
            c.append(x * (1 / tot))
        worst = mpmath.mpf(0)
        with mpmath.workdps(60):
            for jj in range(J + 1):
                for i, v in enumerate(cf[jj]):
                    ref = mpmath.mpf(c[jj][i, 0].mid().str(60, radius=False))
                    worst = max(worst, abs(v / ref - 1))
        return float(worst)


def _recheck_corner(data: dict) -> Status:
    sym = _corner_symbolic()
    if data.get("symbolic") != sym:
        raise CertificateError("stored closed form differs from a fresh kernel-method derivation from the rules")
    for key in ("functional_equation_residual", "kernel_residual", "uniformisation"):
        if sym[key] != "0":
            raise CertificateError(f"{key} is {sym[key]}, not 0")
    a = sympy.Symbol("a", positive=True)
    if sympy.simplify(sympy.sympify(sym["zeta0_pos"], locals={"a": a}) - 4 * a) != 0 or \
            sympy.simplify(sympy.sympify(sym["zeta0_lt1"], locals={"a": a}) - 4 * a ** 2) != 0:
        raise CertificateError("zeta(0) in (0, 1) does not verify")
    if sym["load"] != "2*a":
        raise CertificateError("the total deficit is not M/M/1 with load 2a")
    nums = data.get("numeric") or []
    if [(x["a"], x["J"]) for x in nums] != [list(t) if False else (t[0], t[1]) for t in CORNER_CHECK]:
        raise CertificateError("numeric check list differs")
    for x in nums:
        if not x["max_rel_diff"] < 1e-30:
            raise CertificateError(f"stored numeric agreement at a={x['a']} is not below 1e-30")
    # recompute the smallest check (cheap) to tie the numbers to the formula
    if not _corner_numeric(*CORNER_CHECK[0]) < 1e-30:
        raise CertificateError("closed form does not match the level reduction at 50 digits")
    return Status.PROVED


# --------------------------------------------------------------------------------------------------
# the a = 1/4 and a = 1/2 boundaries
# --------------------------------------------------------------------------------------------------

def _quarter_symbolic() -> dict:
    law = dv.corner_law()
    a, zeta = dv.a, dv.zeta
    t = sympy.Symbol("t", positive=True)
    poles = dv.tail_poles()
    out = {"poles": [str(p) for p in poles]}
    # branch point of zeta(t): 1 + 4a^2 - 4a^2 t = 0
    tb = (1 + 4 * a ** 2) / (4 * a ** 2)
    out["branch_point"] = str(tb)
    out["pole_1_before_branch"] = str(sympy.factor(tb - 1 / a))          # (2a - 1)^2/(4a^2) > 0
    out["pole_2_before_branch"] = str(sympy.factor(tb - 1 / (4 * a ** 2)))
    out["poles_equal_iff"] = [str(s) for s in sympy.solve(sympy.Eq(1 / a, 1 / (4 * a ** 2)), a)]
    # G_L(t)/p00 = G0(zeta) + base(zeta) * t w / (1 - t w), zeta = zeta(t); residues at the two poles
    GL = law.G0 + law.base * t * law.w / (1 - t * law.w)
    GLt = GL.subs(zeta, law.kernel_root.subs(dv.X, t))
    res = {}
    for p in poles:
        # simple pole for a != 1/4: residue = lim (t - p) G_L(t), evaluated at a sample a on each side
        r_exprs = []
        for av in (sympy.Rational(1, 5), sympy.Rational(1, 3)):
            r = sympy.limit(((t - p) * GLt).subs(a, av), t, p.subs(a, av))
            r_exprs.append(str(sympy.nsimplify(sympy.simplify(r))))
        res[str(p)] = r_exprs
    out["residues_at_a_1/5_and_1/3"] = res
    # at a = 1/4 the poles merge at t = 4: double pole, leading coefficient
    G14 = GLt.subs(a, sympy.Rational(1, 4))
    lead = sympy.limit((t - 4) ** 2 * G14, t, 4)
    out["double_pole_coefficient_a_1/4"] = str(sympy.nsimplify(sympy.simplify(lead)))
    return out


def _recheck_quarter(data: dict) -> Status:
    sym = _quarter_symbolic()
    if data.get("symbolic") != sym:
        raise CertificateError("stored pole analysis differs from a fresh derivation")
    if set(sym["poles"]) != {"1/a", "1/(4*a**2)"}:
        raise CertificateError(f"poles are {sym['poles']}")
    if sym["poles_equal_iff"] != ["1/4"]:
        raise CertificateError("the poles do not merge exactly at a = 1/4")
    for key, vals in sym["residues_at_a_1/5_and_1/3"].items():
        if any(v in ("0", "nan", "zoo") for v in vals):
            raise CertificateError(f"a residue at {key} vanishes")
    if sym["double_pole_coefficient_a_1/4"] in ("0", "nan", "zoo"):
        raise CertificateError("no double pole at a = 1/4")
    return Status.PROVED


def _half_symbolic() -> dict:
    a = sympy.Symbol("a", positive=True)
    h = 2 * a * sympy.log(2 * a) - 2 * a + 1
    out = {}
    out["blocking_limit_left"] = str(1 - 2 * a)
    out["blocking_rate_right"] = str(h)
    out["h_at_half"] = str(sympy.simplify(h.subs(a, sympy.Rational(1, 2))))
    out["h_second_order"] = str(sympy.series(h, a, sympy.Rational(1, 2), 3).removeO())  # 2(a - 1/2)^2
    l0 = (1 - a) / (1 + a)
    out["P_equal_left_derivative_at_half"] = str(sympy.diff(l0, a).subs(a, sympy.Rational(1, 2)))
    out["P_equal_right_derivative_at_half"] = "0"
    out["P_equal_at_half"] = str(l0.subs(a, sympy.Rational(1, 2)))
    out["blocking_left_derivative"] = str(sympy.diff(1 - 2 * a, a))
    return out


def _recheck_half(data: dict) -> Status:
    if data.get("symbolic") != _half_symbolic():
        raise CertificateError("stored boundary computation differs")
    reg = {c.id: c for c in all_claims()}
    for dep in data.get("depends_on", []):
        if dep not in reg or reg[dep].expected != Status.PROVED:
            raise CertificateError(f"dependency {dep} is not a registered PROVED claim")
    if sorted(data.get("depends_on", [])) != sorted(HALF_DEPS):
        raise CertificateError("dependency list differs")
    return Status.PROVED


HALF_DEPS = ["seed003.blocking_regime.a_gt_half", "seed003.blocking_regime.a_lt_half",
             "seed003.blocking_regime.halfin_whitt", "seed003.imbalance_regime.a_gt_half",
             "seed003.imbalance_regime.a_lt_half", "seed003.imbalance_regime.halfin_whitt"]


# --------------------------------------------------------------------------------------------------
# EVIDENCE: the finite system's corner law converges to the longer-queue law
# --------------------------------------------------------------------------------------------------

LIM_A = [0.15, 0.25, 0.35]

LIM_RHO = [100, 200, 400, 800]


def _corner_tv(a, rho):
    N = int(round(a * rho))
    res = TwoQueueJSQ(N, float(rho)).stationary_distribution()
    J = min(60, N)
    lq = corner_conditional_laws(a, J)
    tv = 0.0
    for jj in range(J + 1):
        K = 2 * N - jj
        pj = (1 - 2 * a) * (2 * a) ** jj
        tv += float(np.abs(res.level[K] * res.conditional_levels[K] - pj * lq[jj]).sum())
    return 0.5 * tv


def _recheck_limit(data: dict) -> Status:
    rows = data.get("rows") or []
    if [(x["a"], x["rho"]) for x in rows] != [(a, r) for a in LIM_A for r in LIM_RHO]:
        raise CertificateError("grid differs")
    fresh = _corner_tv(rows[0]["a"], rows[0]["rho"])
    if abs(fresh - rows[0]["tv"]) > 1e-10:
        raise CertificateError("stored TV at the smallest case differs from a fresh computation")
    for a in LIM_A:
        r = [x for x in rows if x["a"] == a]
        sc = [x["tv"] * x["rho"] for x in r]
        if not all(y["tv"] < x["tv"] for x, y in zip(r, r[1:])) or max(sc) > 2 * min(sc):
            raise CertificateError(f"a={a}: the TV does not decrease like 1/rho")
    return Status.EVIDENCE
