"""Claims of seed 001 (admission control with lookahead in the overloaded loss network).

* ``seed001.fluid_lp`` (PROVED): the fluid LP value is N (r_H lam_H + r_L (mu - lam_H)), by an LP
  duality certificate: a primal solution and a dual solution, feasible, with equal objectives -
  symbolically (every slack is a polynomial with non-negative coefficients in positive
  parameters) and in exact rationals at sample instances, bound to ``symloss``'s fluid_reward.
* ``seed001.online_regret_log`` (EVIDENCE): the regret R_fluid - R_on of the exact optimal online
  policy grows like r_L mu ln N / ln(mu / lam_H) (per-decade increments -> r_L mu ln 10 / ln(mu/lam_H)).
"""
from __future__ import annotations

import math
from fractions import Fraction

import sympy as sp

from proofs_check.core import Certificate, CertificateError, Status, claim
from symloss.admission import OverloadedLossNetwork

F = Fraction

# --------------------------------------------------------------------------------------------------
# seed001.fluid_lp
# --------------------------------------------------------------------------------------------------

_INSTANCES = [
    # N, lam_H, lam_L, mu, r_H, r_L   (the seed's parameters first)
    (1000, F(1, 2), F(1), F(1), F(2), F(1)),
    (1, F(1, 2), F(1), F(1), F(2), F(1)),
    (37, F(3, 10), F(9, 10), F(1), F(5), F(2)),
    (250, F(4, 5), F(3, 5), F(1), F(3), F(1)),
    (12, F(1, 3), F(7, 5), F(3, 2), F(11, 7), F(3, 2)),
    (10 ** 6, F(999, 1000), F(1, 500), F(1), F(1000001, 1000000), F(1, 10 ** 6)),
]


def _q(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _lp_instance(N, lH, lL, mu, rH, rL) -> dict:
    xH, xL = N * lH, N * (mu - lH)
    y, zH, zL = rL, rH - rL, F(0)
    return {"params": {"N": N, "lam_H": _q(lH), "lam_L": _q(lL), "mu": _q(mu), "r_H": _q(rH), "r_L": _q(rL)},
            "primal": {"x_H": _q(xH), "x_L": _q(xL)},
            "dual": {"y": _q(y), "z_H": _q(zH), "z_L": _q(zL)},
            "value": _q(rH * xH + rL * xL)}


def _check_instance(inst: dict) -> None:
    p = inst["params"]
    N = int(p["N"])
    lH, lL, mu, rH, rL = (F(p[k]) for k in ("lam_H", "lam_L", "mu", "r_H", "r_L"))
    if not (N >= 1 and 0 < lH < mu < lH + lL and rH > rL > 0):
        raise CertificateError(f"instance {p} is not an overloaded network")
    xH, xL = F(inst["primal"]["x_H"]), F(inst["primal"]["x_L"])
    y, zH, zL = (F(inst["dual"][k]) for k in ("y", "z_H", "z_L"))
    # primal: max rH xH + rL xL  s.t.  xH + xL <= N mu,  xH <= N lH,  xL <= N lL,  x >= 0
    if not (0 <= xH <= N * lH and 0 <= xL <= N * lL and xH + xL <= N * mu):
        raise CertificateError(f"primal solution infeasible at {p}")
    # dual: min N mu y + N lH zH + N lL zL  s.t.  y + zH >= rH,  y + zL >= rL,  y, z >= 0
    if not (y >= 0 and zH >= 0 and zL >= 0 and y + zH >= rH and y + zL >= rL):
        raise CertificateError(f"dual solution infeasible at {p}")
    primal = rH * xH + rL * xL
    dual = N * mu * y + N * lH * zH + N * lL * zL
    if primal != dual:
        raise CertificateError(f"objectives differ at {p}: {primal} vs {dual}")
    closed = N * (rH * lH + rL * (mu - lH))
    if F(inst["value"]) != primal or primal != closed:
        raise CertificateError(f"stored value {inst['value']} differs from the LP value {closed} at {p}")
    if OverloadedLossNetwork(N, lH, lL, rH, rL, mu).fluid_reward() != closed:
        raise CertificateError(f"symloss fluid_reward disagrees with the certified value at {p}")


def _symbolic_certificate() -> dict:
    """Slacks of the primal/dual pair in the positive parametrisation
    mu = lam_H + s, lam_L = s + t, r_H = r_L + u  (s, t, u, N, lam_H, r_L > 0)."""
    N, lH, rL, s, t, u = sp.symbols("N lambda_H r_L s t u", positive=True)
    mu, lL, rH = lH + s, s + t, rL + u
    xH, xL = N * lH, N * (mu - lH)
    y, zH, zL = rL, rH - rL, sp.Integer(0)
    slacks = {
        "x_H >= 0": xH, "x_L >= 0": xL, "N lam_H - x_H >= 0": N * lH - xH, "N lam_L - x_L >= 0": N * lL - xL,
        "N mu - x_H - x_L >= 0": N * mu - xH - xL, "y >= 0": y, "z_H >= 0": zH, "z_L >= 0": zL,
        "y + z_H - r_H >= 0": y + zH - rH, "y + z_L - r_L >= 0": y + zL - rL,
    }
    primal = rH * xH + rL * xL
    dual = N * mu * y + N * lH * zH + N * lL * zL
    closed = N * (rH * lH + rL * (mu - lH))
    return {"symbols": "N lambda_H r_L s t u (all positive); mu = lambda_H + s, lambda_L = s + t, r_H = r_L + u",
            "slacks": {k: sp.srepr(sp.expand(v)) for k, v in slacks.items()},
            "primal_minus_dual": sp.srepr(sp.expand(primal - dual)),
            "primal_minus_closed_form": sp.srepr(sp.expand(primal - closed))}


def _check_symbolic(data: dict) -> None:
    fresh = _symbolic_certificate()
    for key in ("slacks", "primal_minus_dual", "primal_minus_closed_form"):
        if data.get(key) != fresh[key]:
            raise CertificateError(f"symbolic certificate field {key!r} does not match the claim's LP")
    for name, rep in data["slacks"].items():
        e = sp.sympify(rep)  # srepr strings round-trip through sympify (assumptions included)
        poly = sp.Poly(sp.expand(e), *sorted(e.free_symbols, key=str)) if e.free_symbols else None
        if poly is None:
            if not e >= 0:
                raise CertificateError(f"slack {name} = {e} is negative")
            continue
        if any(c < 0 for c in poly.coeffs()):
            raise CertificateError(f"slack {name} = {e} is not a non-negative combination of positive monomials")
    for key in ("primal_minus_dual", "primal_minus_closed_form"):
        if sp.expand(sp.sympify(data[key])) != 0:
            raise CertificateError(f"{key} is not identically zero")


def _recheck_fluid(data: dict) -> Status:
    insts = data.get("instances")
    if not insts or len(insts) != len(_INSTANCES):
        raise CertificateError("the certificate must carry every sample instance of the claim")
    for inst, ref in zip(insts, _INSTANCES):
        if inst["params"] != _lp_instance(*ref)["params"]:
            raise CertificateError(f"instance {inst['params']} is not one of the claim's instances")
        _check_instance(inst)
    _check_symbolic(data["symbolic"])
    return Status.PROVED


@claim("seed001.fluid_lp",
       statement=r"For $\lambda_H<\mu<\lambda_H+\lambda_L$ and $r_H>r_L>0$: "
                 r"$R_{fluid}=\max\{r_Hx_H+r_Lx_L : x_H+x_L\le N\mu,\ 0\le x_c\le N\lambda_c\}"
                 r"=N\,(r_H\lambda_H+r_L(\mu-\lambda_H))$",
       source="Bray, An Omega(log(N)/N) Lookahead is Sufficient to Bound Costs in the Overloaded Loss Network (2026; paper 2 in docs/papers.md), benchmark R^N_fluid",
       method="LP duality certificate: primal (N lam_H, N(mu - lam_H)) and dual (y = r_L, z_H = r_H - r_L, "
              "z_L = 0), slacks polynomial with non-negative coefficients (SymPy) and exact rationals at "
              "sample instances",
       expected="PROVED", unchecked=('symbolic/symbols',), recheck=_recheck_fluid)
def _prove_fluid() -> Certificate:
    insts = [_lp_instance(*p) for p in _INSTANCES]
    for inst in insts:
        _check_instance(inst)
    sym = _symbolic_certificate()
    _check_symbolic(sym)
    return Certificate(Status.PROVED, {"instances": insts, "symbolic": sym},
                       "primal and dual feasible with equal objectives N(r_H lam_H + r_L(mu - lam_H)), "
                       "symbolically and at 6 rational instances")


# --------------------------------------------------------------------------------------------------
# seed001.online_regret_log
# --------------------------------------------------------------------------------------------------

_REGRET_SETS = [
    # lam_H, lam_L, r_H, r_L, mu
    (F(1, 2), F(1), F(2), F(1), F(1)),
    (F(4, 5), F(3, 5), F(3), F(1), F(1)),
    (F(1, 2), F(2), F(2), F(1), F(3, 2)),
]
_REGRET_NS = [10 ** k for k in range(2, 7)]
_TOL = 0.05     # last-decade increment within 5 % of r_L mu ln 10 / ln(mu / lam_H)


def _regret_table(rows_from=None):
    out = []
    for i, (lH, lL, rH, rL, mu) in enumerate(_REGRET_SETS):
        rows = []
        for j, N in enumerate(_REGRET_NS):
            net = OverloadedLossNetwork(N, lH, lL, rH, rL, mu)
            if rows_from is None:
                opt = net.online_optimal(dps=20)
                K, regret = opt.threshold, opt.regret
            else:
                K = int(rows_from[i]["rows"][j]["K"])
                regret = net.trunk_reservation(K, dps=20).regret
                # local optimality of the stored threshold (the full check is online_optimal)
                for k in (K - 1, K + 1):
                    if 0 <= k <= N and not net.trunk_reservation(k, dps=20).regret > regret:
                        raise CertificateError(f"threshold K={K} is not locally optimal at N={N}")
            rows.append({"N": N, "K": K, "regret": str(regret)})
        slope = float(rL * mu) * math.log(10) / math.log(float(mu / lH))
        incs = [float(F(str(rows[j + 1]["regret"])) - F(str(rows[j]["regret"]))) for j in range(len(rows) - 1)]
        out.append({"params": {"lam_H": _q(lH), "lam_L": _q(lL), "r_H": _q(rH), "r_L": _q(rL), "mu": _q(mu)},
                    "rows": rows, "predicted_increment": slope, "increments": incs,
                    "ratios": [x / slope for x in incs]})
    return out


def _regret_status(table) -> Status:
    ok = all(abs(t["ratios"][-1] - 1) < _TOL for t in table)
    return Status.EVIDENCE if ok else Status.UNDECIDED


def _recheck_regret(data: dict) -> Status:
    table = data.get("table")
    if not table or len(table) != len(_REGRET_SETS):
        raise CertificateError("the certificate must carry one table per parameter set")
    fresh = _regret_table(rows_from=table)
    for t, f in zip(table, fresh):
        if t["params"] != f["params"]:
            raise CertificateError("parameter set differs from the claim's")
        for a, b in zip(t["rows"], f["rows"]):
            if a["N"] != b["N"] or a["K"] != b["K"]:
                raise CertificateError("stored N or threshold differs")
            if abs(float(a["regret"]) - float(b["regret"])) > 1e-12 * max(1.0, abs(float(b["regret"]))):
                raise CertificateError(f"stored regret {a['regret']} differs from the recomputed {b['regret']}")
        for x, y in zip(t["ratios"], f["ratios"]):
            if abs(x - y) > 1e-9:
                raise CertificateError("stored increment ratios differ from the recomputed ones")
    return _regret_status(fresh)


@claim("seed001.online_regret_log",
       statement=r"$R_{fluid}-R_{on}\sim r_L\,\mu\,\ln N/\ln(\mu/\lambda_H)$ as $N\to\infty$ "
                 r"(the optimal online regret is $\Theta(\ln N)$, Xie-Gurvich-K\"u\c{c}\"ukyavuz 2025)",
       source="Bray, An Omega(log(N)/N) Lookahead is Sufficient to Bound Costs in the Overloaded Loss Network (2026; paper 2 in docs/papers.md), section 1 (Theta(log N) regret)",
       method="exact MDP optimum (verified trunk reservation) at N = 10^2..10^6 for three parameter sets; "
              "per-decade regret increments against r_L mu ln 10 / ln(mu/lam_H) (numerical evidence, not a proof)",
       expected="EVIDENCE", unchecked=('table/*/increments', 'table/*/predicted_increment', 'tolerance',), recheck=_recheck_regret)
def _prove_regret() -> Certificate:
    table = _regret_table()
    status = _regret_status(table)
    last = ", ".join(f"{t['ratios'][-1]:.3f}" for t in table)
    return Certificate(status, {"table": table, "tolerance": _TOL},
                       f"last-decade increment / (r_L mu ln10 / ln(mu/lam_H)) = {last}")
