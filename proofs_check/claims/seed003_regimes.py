r"""Claims of seed 003: the asymptotic regimes of the JSQ loss model, with explicit error bounds.

Blocking (:math:`p(N, N) = E(2N, \rho)` exactly, claim ``seed003.blocking_equals_erlang``), with
``C = 2N``, ``c = C/rho``, :math:`h(c) = c\log c - c + 1`:

* ``seed003.blocking_regime.a_gt_half`` (PROVED): for every ``C >= 1``, ``rho > 0`` with ``c > 1``,
  :math:`L \le -\rho^{-1}\log p(N,N) - h(c) \le U` with
  :math:`U = [\tfrac12\log(2\pi C) + 1/(12C)]/\rho`,
  :math:`L = [\tfrac12\log(2\pi C) + 1/(12C+1) + \log(1 - e^{-\rho h(c)})]/\rho` (Robbins' Stirling
  bounds and the Chernoff bound for the Poisson tail);
* ``seed003.blocking_regime.a_lt_half`` (PROVED): ``c < 1``:
  :math:`0 \le p(N,N) - (1 - c) \le c/(\rho(1-c))` (integral representation, two elementary log bounds,
  Gordon's inequality for the Mills ratio);
* ``seed003.blocking_regime.halfin_whitt`` (PROVED): any ``C``, :math:`\beta = (C-\rho)/\sqrt\rho`:
  :math:`B_- \le \sqrt\rho\,p(N,N) \le B_+` with explicit :math:`B_\pm \to \varphi(\beta)/\Phi(\beta)`.

Imbalance (``seed003.imbalance_regime.*``, PROVED): :math:`|P(|m-n| = i) - \ell_i| \le e_i` for every
``N``, ``rho``, with :math:`\ell` the limit law and :math:`e_i` explicit, from the exact cut equations
of the imbalance, an exact second-moment identity and the blocking bounds.

Boundaries: ``seed003.regime_boundary.half`` (PROVED: the limit laws change analyticity at a = 1/2),
``seed003.regime_boundary.quarter`` (PROVED for the corner limit law: its generating function of
``N - min(m, n)`` has the poles ``1/a`` and ``1/(4a^2)``, which exchange dominance at a = 1/4 where they
merge), ``seed003.corner_law.closed_form`` (PROVED: the kernel-method generating function is the
stationary law of the limiting longer-queue walk generated from the rules), and
``seed003.corner_law.limit`` (EVIDENCE: the finite system's corner law converges to it).

Every re-check verifies the stored data (symbolic identities re-derived, bound formulas compared with the
claim's own, arb enclosures recomputed) without repeating a search, and rejects tampered data.

The machinery lives in :mod:`proofs_check.support` (one module a subsystem: ``seed003`` shared
pieces, ``seed003_blocking``, ``seed003_imbalance``, ``seed003_corner``); this module holds the
claims (statements and searches), registered in the order of the list above.
"""
from __future__ import annotations

from proofs_check.core import Certificate, CertificateError, Status, claim
from proofs_check.support.seed003 import _aggregation_recheck
from proofs_check.support.seed003_blocking import (
    GT_FORMULAS,
    GT_INSTANCES,
    HW_BETAS,
    HW_RHOS,
    HW_RULE,
    LT_FORMULAS,
    LT_INSTANCES,
    _gt_instance,
    _gt_symbolic,
    _hw_instance,
    _hw_symbolic,
    _lt_instance,
    _lt_symbolic,
    _recheck_gt,
    _recheck_hw,
    _recheck_lt,
)
from proofs_check.support.seed003_corner import (
    CORNER_CHECK,
    HALF_DEPS,
    LIM_A,
    LIM_RHO,
    _corner_numeric,
    _corner_symbolic,
    _corner_tv,
    _half_symbolic,
    _quarter_symbolic,
    _recheck_corner,
    _recheck_half,
    _recheck_limit,
    _recheck_quarter,
)
from proofs_check.support.seed003_imbalance import (
    IMB_I,
    _exact_identities,
    _imb_table,
    _imbalance_symbolic,
    _limit_consistency,
    _recheck_imb,
)
from symloss.twoqueue import derivation as dv

SOURCE = ("Yao, Knessl, On the Shortest Queue Version of the Erlang Loss Model (2008; paper 4 in docs/papers.md): asymptotic regimes a > 1/2, a ~ 1/2, 1/4 < a < 1/2, a ~ 1/4, "
          "a < 1/4 of the JSQ loss model")

#: what every claim on the aggregation lemma stores unchecked: the lemma's record (``aggregation``, from
#: ``_aggregation_recheck``: re-derived by the re-check itself, not compared field by field) and the
#: prose ``argument``
_UNCHECKED_AGGREGATION = ('aggregation/level_rates', 'aggregation/lumpability/*/case',
                          'aggregation/lumpability/*/down', 'aggregation/lumpability/*/up',
                          'aggregation/states_checked', 'argument')

# --------------------------------------------------------------------------------------------------
# the blocking regimes (machinery: proofs_check.support.seed003_blocking)
# --------------------------------------------------------------------------------------------------

def _proved(aggregation, symbolic, rules: dict, instances, argument: str, summary: str) -> Certificate:
    """The PROVED certificate of a regime bracket: the aggregation re-check, the symbolic steps, the
    bracket's own rules (``formulas`` or ``U_rule``), the arb instances and the argument, in this order."""
    return Certificate(Status.PROVED, data={"aggregation": aggregation, "symbolic": symbolic, **rules,
                                            "instances": instances, "argument": argument}, summary=summary)


@claim("seed003.blocking_regime.a_gt_half",
       statement=r"For every integer $N\ge1$ and real $\rho>0$ with $c=2N/\rho>1$ (i.e. $a=N/\rho>1/2$), "
                 r"$L\le-\frac1\rho\log p(N,N)-h(c)\le U$, $h(c)=c\log c-c+1$, "
                 r"$U=\frac{\frac12\log(2\pi\cdot2N)+\frac1{24N}}{\rho}$, "
                 r"$L=\frac{\frac12\log(2\pi\cdot2N)+\frac1{24N+1}+\log(1-e^{-\rho h(c)})}{\rho}$; "
                 r"hence $-\frac1\rho\log p(N,N)\to2a\log(2a)-2a+1$ as $\rho\to\infty$, $N=a\rho$, with "
                 r"error at most $\max(|L|,U)=O(\log\rho/\rho)$ for every $\rho\ge1$.",
       source=SOURCE, expected="PROVED", unchecked=_UNCHECKED_AGGREGATION + ('formulas/L', 'formulas/U', 'instances/*/L', 'instances/*/N', 'instances/*/U', 'instances/*/e', 'instances/*/rho', 'symbolic/chernoff_argmin', 'symbolic/chernoff_value', 'symbolic/h_derivative_minus_log', 'symbolic/identity',), recheck=_recheck_gt,
       method="p(N,N)=E(2N,rho) (aggregation lemma, re-checked on the rules); E = Poisson(rho) pmf at C "
              "over P(X<=C); Robbins' bounds 1/(12C+1) < log C! - (C+1/2)log C + C - log(2 pi)/2 < 1/(12C) "
              "(H. Robbins, Amer. Math. Monthly 62, 1955); Chernoff P(X>C) <= exp(-rho h(c)) for c > 1 "
              "(derived symbolically); identity checked by SymPy; instances enclosed in arb")
def _prove_gt() -> Certificate:
    agg = _aggregation_recheck()
    sym = _gt_symbolic()
    inst = [_gt_instance(N, r) for N, r in GT_INSTANCES]
    return _proved(agg, sym, {"formulas": GT_FORMULAS}, inst,
                   "-log E = rho h(c) + log(2 pi C)/2 + r_C + log P(X<=C) exactly; Robbins bounds r_C; "
                   "0 >= log P(X<=C) >= log(1 - P(X>C)) >= log(1 - exp(-rho h(c))) (Chernoff, h increasing "
                   "on c>1); divide by rho.",
                   "explicit bracket of -log p(N,N)/rho - h(2a) valid for all rho, O(log rho / rho); "
                   f"{len(inst)} instances enclosed in arb")


@claim("seed003.blocking_regime.a_lt_half",
       statement=r"For every integer $N\ge1$ and real $\rho>0$ with $c=2N/\rho<1$ (i.e. $a<1/2$): "
                 r"$0\le p(N,N)-(1-c)\le\frac{c}{\rho(1-c)}$. Hence $p(N,N)\to1-2a$ with error at most "
                 r"$\frac{2a}{\rho(1-2a)}$ for every $\rho>0$.",
       source=SOURCE, expected="PROVED", unchecked=_UNCHECKED_AGGREGATION + ('instances/*/rho_times_excess', 'integral_identity_checked_C',), recheck=_recheck_lt,
       method="p(N,N)=E(2N,rho) (aggregation lemma); 1/E = rho int_0^oo e^{-rho t}(1+t)^C dt; "
              "t - t^2/2 <= log(1+t) <= t; Gordon's inequality R(x) >= x/(1+x^2) for the Mills ratio "
              "(proof by derivative, checked by SymPy); Gaussian integral by SymPy; instances in arb")
def _prove_lt() -> Certificate:
    agg = _aggregation_recheck()
    ident = [Cv for Cv in range(1, 9) if dv.erlang_integral_identity(Cv)]
    if ident != list(range(1, 9)):
        raise CertificateError("integral representation fails")
    sym = _lt_symbolic()
    inst = [_lt_instance(N, r) for N, r in LT_INSTANCES]
    return Certificate(Status.PROVED, data={
        "aggregation": agg, "integral_identity_checked_C": ident, "symbolic": sym,
        "formulas": LT_FORMULAS, "instances": inst,
        "argument": "upper exponent c log(1+t) - t <= -(1-c)t gives E >= 1-c; lower exponent "
                    ">= -(1-c)t - c t^2/2 gives 1/E >= rho R(x)/sqrt(rho c), x = (1-c)sqrt(rho/c), and "
                    "Gordon's R(x) >= x/(1+x^2) gives E <= 1 - c + c/(rho(1-c)). The integral "
                    "representation holds for every C by the binomial expansion (checked for C <= 8).",
    }, summary="0 <= p(N,N) - (1-2a) <= 2a/(rho(1-2a)) for all rho; " f"{len(inst)} arb instances")


@claim("seed003.blocking_regime.halfin_whitt",
       statement=r"For every real $\rho>1$ and integer $C=2N\ge1$, with $\beta=(C-\rho)/\sqrt\rho$, "
                 r"$\kappa=C/\rho$, $U=\max(\beta,0)+1+\sqrt{2\log\rho}$, $M_0(x)=\Phi(x)/\varphi(x)$, "
                 r"$M_3(x)=x^2+2+(x^3+3x)M_0(x)$, $x=\beta/\sqrt\kappa$, "
                 r"$\bar F=\beta U-\kappa U^2/2+\kappa U^3/(3\sqrt\rho)$: "
                 r"$\Big[\frac{M_0(x)}{\sqrt\kappa}+\frac{M_3(x)e^{\kappa U^3/(3\sqrt\rho)}}{3\sqrt\rho\,\kappa}"
                 r"+\frac{e^{\bar F}(\sqrt\rho+U)}{\sqrt\rho(U-\beta)}\Big]^{-1}\le\sqrt\rho\,p(N,N)\le"
                 r"\frac{\sqrt\kappa}{M_0(x)}$. Both bounds tend to $\varphi(\beta)/\Phi(\beta)$ as "
                 r"$\rho\to\infty$ with $\beta$ fixed (Jagerman's limit at $2N=\rho+\beta\sqrt\rho$), the "
                 r"gap being $O(\log(\rho)^{3/2}/\sqrt\rho)$.",
       source=SOURCE, expected="PROVED", unchecked=_UNCHECKED_AGGREGATION + ('instances/*/C', 'instances/*/beta', 'instances/*/limit', 'instances/*/sqrt_rho_times_width',), recheck=_recheck_hw,
       method="1/E = sqrt(rho) int_0^oo exp(F(u)) du, F = C log(1+u/sqrt(rho)) - sqrt(rho) u; "
              "v - v^2/2 <= log(1+v) <= v - v^2/2 + v^3/3; e^y <= 1 + y e^y (y >= 0) on [0,U]; concavity "
              "of F on [U, oo); Gaussian moments M0, M3 in closed form (SymPy); instances in arb")
def _prove_hw() -> Certificate:
    agg = _aggregation_recheck()
    sym = _hw_symbolic()
    inst = []
    for b in HW_BETAS:
        for r in HW_RHOS:
            x = _hw_instance(b, r)
            x["beta_target"] = b
            inst.append(x)
    return _proved(agg, sym, {"U_rule": HW_RULE}, inst,
                   "lower bound of F gives int e^F >= M0(x)/sqrt(kappa) (upper bound on E); on [0, U] "
                   "e^F <= e^{beta u - kappa u^2/2}(1 + kappa u^3/(3 sqrt rho) e^{kappa U^3/(3 sqrt rho)}); "
                   "on [U, oo) F <= F(U) + F'(U)(u - U) with F'(U) = sqrt(rho)(beta - U)/(sqrt(rho) + U) < 0",
                   "explicit two-sided bracket of sqrt(rho) E(2N, rho) around phi(beta)/Phi(beta), valid for "
                   f"every rho > 1; {len(inst)} arb instances")


# --------------------------------------------------------------------------------------------------
# imbalance (machinery: proofs_check.support.seed003_imbalance)
# --------------------------------------------------------------------------------------------------

def _prove_imb(regime):
    def pr() -> Certificate:
        agg = _aggregation_recheck()
        rates = _imbalance_symbolic()
        cons = _limit_consistency()
        ex = [_exact_identities(N, r) for N, r in ((2, "3/2"), (4, "7/3"), (5, "5"))]
        table = _imb_table(regime)
        return Certificate(Status.PROVED, data={
            "aggregation": agg, "d_rates": rates, "limit_consistency": cons, "exact_identities": ex,
            "table": table,
            "argument": "u_i = P(|m-n|=i), w_i = E[(K/rho - kappa)1{d=i}], delta = E|K/rho - kappa| >= sum|w_i|. "
                        "Cut equations (stationary flow across {d<=i}|{d>=i+1}; d moves by +-1 at the rates "
                        "generated from the rules): (E0) u0(1+kappa) - b + w0 = u1(1+kappa/2+1/(2rho)) + w1/2, "
                        "(Ei) (kappa u_i + w_i)/2 - i u_i/(2rho) = u_{i+1}(1+kappa/2+(i+1)/(2rho)) + w_{i+1}/2; "
                        "their sum gives E[d]/rho = u0(2+kappa) - 1 - b + w0; the drift of d^2 gives "
                        "rho E[d] + E[d^2] = rho(1-b), so 0 <= E[d]/rho <= 1/rho. Hence "
                        "|u0 - l0| <= (|b-b_inf| + 1/rho + delta)/(2+kappa) and the recursion propagates the "
                        "error with factor q = kappa/(2+kappa) <= 1/3 (bound e_i). delta: a<1/2: "
                        "E[2a - K/rho] = b - (1-2a) <= 2a/(rho(1-2a)); a>1/2: <= 1/sqrt(rho P(X<=2N)) "
                        "(variance of the truncated Poisson) with the Chernoff bound; b from the blocking claims.",
        }, summary=f"|P(|m-n|=i) - l_i| <= e_i (i <= {IMB_I}) for every N, rho; explicit e_i tabulated for "
                   f"{len(table)} instances and checked against the exact laws")
    return pr


_IMB_STATEMENTS = {
    "a_gt_half": (r"For every $N\ge1$ and $\rho<2N$ ($a>1/2$): $|P(|m-n|=i)-\ell_i(1/2)|\le e_i(N,\rho)$ for "
                  r"$i\le4$, with $\ell_0(\hat a)=\frac{1-\hat a}{1+\hat a}$, "
                  r"$\ell_i(\hat a)=\frac{2\hat a^i}{(1+\hat a)^{i+1}}$ and explicit $e_i=O(\rho^{-1/2})$; "
                  r"so $P(|m-n|=i)\to\ell_i(1/2)$."),
    "a_lt_half": (r"For every $N\ge1$ and $\rho>2N$ ($a<1/2$, the regimes $1/4<a<1/2$, $a\sim1/4$, $a<1/4$): "
                  r"$|P(|m-n|=i)-\ell_i(a)|\le e_i(N,\rho)$ for $i\le4$ with explicit $e_i=O(\rho^{-1})$; "
                  r"so $P(|m-n|=i)\to\ell_i(a)=\frac{2a^i}{(1+a)^{i+1}}$, $P(m=n)\to\frac{1-a}{1+a}$."),
    "halfin_whitt": (r"For every $N\ge1$, $\rho>1$ ($2N=\rho+\beta\sqrt\rho$, any $\beta$): "
                     r"$|P(|m-n|=i)-\ell_i(1/2)|\le e_i(N,\rho)$ for $i\le4$ with explicit "
                     r"$e_i=O(\rho^{-1/2})$ at fixed $\beta$; so the limit law at $a\sim1/2$ is $\ell(1/2)$."),
}

for _reg in ("a_gt_half", "a_lt_half", "halfin_whitt"):
    claim(f"seed003.imbalance_regime.{_reg}", statement=_IMB_STATEMENTS[_reg], source=SOURCE + " (imbalance)",
          method="exact cut equations of |m-n| (rates generated from the rules), exact second-moment "
                 "identity, blocking brackets of the seed003.blocking_regime claims; bound recursion in arb; "
                 "identities verified exactly on fmpq laws for N <= 5",
          expected="PROVED", unchecked=_UNCHECKED_AGGREGATION + ('exact_identities/*/identities', 'table/*/limit',), recheck=_recheck_imb(_reg))(_prove_imb(_reg))


# --------------------------------------------------------------------------------------------------
# the corner law and the regime boundaries (machinery: proofs_check.support.seed003_corner)
# --------------------------------------------------------------------------------------------------

@claim("seed003.corner_law.closed_form",
       statement=r"For $0<a<1/2$ the deficits $(S,D)=(N-\max(m,n),|m-n|)$ of the rules, with time scaled by "
                 r"$\rho$ and $N=a\rho$, converge in their rates to the longer-queue walk (two Poisson($a$) "
                 r"streams, one unit server on the longer queue); its stationary law has the generating "
                 r"function $\sum p(S,D)X^SZ^D=(1-2a)\big[G_0(\zeta)+\sum_{D\ge1}Z^DB(\zeta)w(\zeta)^D\big]$ with "
                 r"$\zeta=\frac{2a+1-\sqrt{1+4a^2-4a^2X}}{2a}$, "
                 r"$G_0=\frac{1-a\zeta}{(2a+1-a\zeta)(1-2a\zeta)}$, "
                 r"$B=\frac{2(1+a-a\zeta)}{(1-2a\zeta)(2a+1-a\zeta)}$, $w=\frac{a}{2a+1-a\zeta}$.",
       source=SOURCE + "; Zheng & Zipkin (1990), Flatto (1989), Knessl & Yao (2013) for the longer-queue model",
       expected="PROVED", unchecked=('argument',), recheck=_recheck_corner,
       method="walk generated from the rules (symloss.twoqueue.derivation.corner_walk); kernel method: the "
              "stationary GF satisfies phi G = G0 (phi - phi0) - p00 (phi00 - phi0) (every balance equation, "
              "coefficientwise), is analytic on |X|,|Z| <= 1 and zeta(0) in (0,1), so G0(X) is forced by "
              "the kernel root; p00 = 1 - 2a (total deficit M/M/1); identity checked by SymPy; coefficients "
              "checked against an independent level reduction at 50 digits")
def _prove_corner() -> Certificate:
    sym = _corner_symbolic()
    nums = [{"a": a_s, "J": J, "max_rel_diff": _corner_numeric(a_s, J)} for a_s, J in CORNER_CHECK]
    status = Status.PROVED if all(x["max_rel_diff"] < 1e-30 for x in nums) else Status.UNDECIDED
    return Certificate(status, data={"symbolic": sym, "numeric": nums,
                                     "argument": "uniqueness of the stationary law of the positive recurrent "
                                                 "walk (load 2a < 1) + kernel method + identity"},
                       summary="kernel-method closed form of the corner (longer-queue) law, derived from the "
                               "rules, verified as the stationary law; coefficients match level reduction to "
                               + ", ".join(f"{x['max_rel_diff']:.0e}" for x in nums))


@claim("seed003.regime_boundary.quarter",
       statement=r"In the corner law (claim seed003.corner_law.closed_form, $0<a<1/2$), the deficit "
                 r"$L=N-\min(m,n)$ of the less occupied queue has a generating function with exactly two "
                 r"singularities before its branch point $t_b=(1+4a^2)/(4a^2)$: simple poles at $t=1/a$ and "
                 r"$t=1/(4a^2)$ (nonzero residues). Hence $P(L=k)=A(a)\,a^k+B(a)\,(4a^2)^k"
                 r"+O(k^{-3/2}t_b^{-k})$, the tail decays like $\max(a,4a^2)^k$, and the two rates exchange "
                 r"exactly at $a=1/4$, where the poles merge into a double pole: $P(L=k)\asymp k\,4^{-k}$.",
       source=SOURCE + " (the a ~ 1/4 regime)", expected="PROVED", recheck=_recheck_quarter,
       method="singularity analysis of the closed-form generating function G(t, t) (SymPy): poles from "
              "t w(zeta(t)) = 1 and 1 - 2a zeta(t) = 0, branch point of the square root, residues at two "
              "sample values of a on either side of 1/4, the double-pole coefficient at a = 1/4")
def _prove_quarter() -> Certificate:
    sym = _quarter_symbolic()
    return Certificate(Status.PROVED, data={"symbolic": sym},
                       summary="tail of N - min(m,n) in the corner law: poles 1/a and 1/(4a^2), merging at a = 1/4")


@claim("seed003.regime_boundary.half",
       statement=r"At $a=1/2$ the limit laws are continuous but not analytic in $a$: the blocking tends to "
                 r"$\max(0,1-2a)$ (slope $-2$ on the left, $0$ on the right; for $a>1/2$ it is "
                 r"$e^{-\rho(h(2a)+o(1))}$ with $h(2a)=2(a-\frac12)^2+O((a-\frac12)^3)$, the width "
                 r"$|2N-\rho|=O(\sqrt\rho)$ of the Halfin-Whitt layer), and $P(m=n)\to\frac{1-\min(a,1/2)}"
                 r"{1+\min(a,1/2)}$ (slope $-8/9$ on the left, $0$ on the right, value $1/3$).",
       source=SOURCE + " (the a ~ 1/2 regime)", expected="PROVED", recheck=_recheck_half,
       method="the limits of the seed003.blocking_regime and seed003.imbalance_regime claims (PROVED, with "
              "explicit bounds), one-sided derivatives and the expansion of h at 1/2 by SymPy")
def _prove_half() -> Certificate:
    return Certificate(Status.PROVED, data={"symbolic": _half_symbolic(), "depends_on": HALF_DEPS},
                       summary="limits change analyticity at a = 1/2 (kinks in blocking and P(m = n))")


@claim("seed003.corner_law.limit",
       statement=r"For $0<a<1/2$ the law of the deficits $(N-\max(m,n),|m-n|)$ converges to the longer-queue "
                 r"law of seed003.corner_law.closed_form as $\rho\to\infty$, $N=a\rho$, with total-variation "
                 r"error $O(1/\rho)$.",
       source=SOURCE, expected="EVIDENCE", unchecked=('rows/*/rho_times_tv',), recheck=_recheck_limit,
       method="exact float solutions (verified on the balance equations) at rho = 100..800 for a in "
              "{0.15, 0.25, 0.35}: TV decreases like 1/rho. EVIDENCE, not a proof: the convergence of the "
              "conditional law of |m-n| given m+n near the corner is not proved (its marginal over the levels "
              "is, claim seed003.imbalance_regime.a_lt_half, and the level law is exact)")
def _prove_limit() -> Certificate:
    rows = [{"a": a, "rho": r, "tv": _corner_tv(a, r)} for a in LIM_A for r in LIM_RHO]
    for x in rows:
        x["rho_times_tv"] = x["tv"] * x["rho"]
    ok = all(all(y["tv"] < x["tv"] for x, y in zip([z for z in rows if z["a"] == a],
                                                     [z for z in rows if z["a"] == a][1:])) for a in LIM_A)
    return Certificate(Status.EVIDENCE if ok else Status.UNDECIDED, data={"rows": rows},
                       summary="TV(finite corner law, longer-queue law) * rho about constant for "
                               "a in {0.15, 0.25, 0.35}")
