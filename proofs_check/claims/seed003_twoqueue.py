"""Claims of seed 003 (Yao & Knessl, the shortest-queue version of the Erlang loss model).

* ``seed003.blocking_equals_erlang`` (PROVED): the blocking of two M/M/N/N queues under JSQ equals
  the Erlang loss of one 2N-server station, p(N,N) = E(2N, rho), for every N and rho > 0. Proof:
  (i) aggregation lemma: from every state the rate of K = m+n -> K+1 is rho [K < 2N] and of
  K -> K-1 is K; checked symbolically on the (finite) case table of the transition rules, the table
  being checked against the model's own rule function on every state for N <= 30; so K is an
  M/M/2N/2N birth-death chain and pi_K = (rho^K/K!)/sum_j rho^j/j!, and K = 2N iff (m,n) = (N,N).
  (ii) independent symbolic check for N <= 5: the full stationary law, rational functions of rho,
  satisfies every balance equation of the (N+1)^2-state chain identically, sums to one, the chain is
  irreducible, and p(N,N) is identically E(2N, rho).
* ``seed003.imbalance_limit`` (EVIDENCE): P(|m-n| = i) -> 2 ah^i/(1+ah)^(i+1) (i >= 1) and
  P(m = n) -> (1-ah)/(1+ah), ah = min(a, 1/2), as rho -> infinity with N = a rho.
"""
from __future__ import annotations

import math
from collections import deque

from flint import fmpq, fmpq_poly

from proofs_check.core import Certificate, CertificateError, Status, claim
from proofs_check.support.seed003 import (CASES, DEPARTURES, _case_of,  # noqa: F401 - _case_of re-exported
                                          _lumpability_symbolic, _table_matches_model)
from symloss.twoqueue import TwoQueueJSQ, transitions

SOURCE = "Yao, Knessl, On the Shortest Queue Version of the Erlang Loss Model (2008; paper 4 in docs/papers.md), abstract (blocking of the JSQ loss model)"

# ---- exact symbolic stationary laws for small N (fmpq_poly) ---------------------------------------------

def _poly_to_list(p):
    return [str(c) for c in p.coeffs()]


def _list_to_poly(lst):
    return fmpq_poly([fmpq(*map(int, s.split("/"))) if "/" in s else fmpq(int(s)) for s in lst])


def _symbolic_law(N: int):
    """Common denominator D(rho) and numerators n_{m,n}(rho), from the package's level reduction over
    Q(rho) (the result is then verified independently by :func:`_check_law`)."""
    Pf = TwoQueueJSQ(N, 1)._solve_symbolic_field()

    def conv(poly):
        deg = max((mon[0] for mon in poly.monoms()), default=0)
        cs = [fmpq(0)] * (deg + 1)
        for mon, c in poly.terms():
            cs[mon[0]] = fmpq(int(c.numerator), int(c.denominator))
        return fmpq_poly(cs)
    D = None
    for row in Pf:
        for x in row:
            D = x.denom if D is None else D.lcm(x.denom)
    nums = [[conv(x.numer * (D.exquo(x.denom))) for x in row] for row in Pf]
    return conv(D), nums


def _check_law(N: int, D, nums) -> None:
    """Raise CertificateError unless nums/D is the stationary law of the full chain (identities)."""
    rho = fmpq_poly([0, 1])
    inflow = {(m, n): fmpq_poly([0]) for m in range(N + 1) for n in range(N + 1)}
    outrate = {s: fmpq_poly([0]) for s in inflow}
    for (m, n) in inflow:
        for (m2, n2, c, k) in transitions(N, m, n):
            rate = rho * fmpq(c.numerator, c.denominator) + k
            outrate[(m, n)] += rate
            inflow[(m2, n2)] += rate * nums[m][n]
    for s in inflow:
        if outrate[s] * nums[s[0]][s[1]] != inflow[s]:
            raise CertificateError(f"N={N}: balance equation at state {s} fails")
    total = fmpq_poly([0])
    for row in nums:
        for x in row:
            total += x
    if total != D:
        raise CertificateError(f"N={N}: probabilities do not sum to one")
    # irreducibility: every state reaches every other (BFS forward and backward from (0, 0))
    adj = {s: [(m2, n2) for (m2, n2, c, k) in transitions(N, *s)] for s in inflow}
    for graph in (adj, _reverse(adj)):
        seen, q = {(0, 0)}, deque([(0, 0)])
        while q:
            for t in graph[q.popleft()]:
                if t not in seen:
                    seen.add(t)
                    q.append(t)
        if len(seen) != len(adj):
            raise CertificateError(f"N={N}: chain not irreducible")
    # p(N, N) = E(2N, rho) = (rho^{2N}/(2N)!) / sum_k rho^k/k!  <=>  num * S = D * rho^{2N}/(2N)!
    S = fmpq_poly([fmpq(1, math.factorial(k)) for k in range(2 * N + 1)])
    if nums[N][N] * S != D * fmpq_poly([0] * (2 * N) + [fmpq(1, math.factorial(2 * N))]):
        raise CertificateError(f"N={N}: p(N,N) is not E(2N, rho)")


def _reverse(adj):
    rev = {s: [] for s in adj}
    for s, ts in adj.items():
        for t in ts:
            rev[t].append(s)
    return rev


NMAX_SYMBOLIC = 5
NMAX_TABLE = 30


def _recheck_blocking(data: dict) -> Status:
    if data.get("table") != CASES:
        raise CertificateError("stored case table differs from the claim's table")
    if _table_matches_model(8) != sum((N + 1) ** 2 for N in range(1, 9)):
        raise CertificateError("state count mismatch")
    if data.get("lumpability") != _lumpability_symbolic():
        raise CertificateError("stored lumpability sums differ")
    laws = data.get("laws") or {}
    if sorted(map(int, laws)) != list(range(1, NMAX_SYMBOLIC + 1)):
        raise CertificateError("symbolic laws for N = 1..5 missing")
    for key, law in laws.items():
        N = int(key)
        D = _list_to_poly(law["D"])
        nums = [[_list_to_poly(c) for c in row] for row in law["num"]]
        if len(nums) != N + 1 or any(len(r) != N + 1 for r in nums):
            raise CertificateError(f"N={N}: wrong shape")
        _check_law(N, D, nums)
    return Status.PROVED


@claim("seed003.blocking_equals_erlang",
       statement=r"For two M/M/N/N queues under join-the-shortest-queue (ties 1/2, loss only when all "
                 r"2N servers are busy) and every $N\ge1$, $\rho>0$: $m+n$ is an M/M/2N/2N birth-death "
                 r"chain, so $P(m+n=K)=\frac{\rho^K/K!}{\sum_{j\le 2N}\rho^j/j!}$ and the blocking is "
                 r"$p(N,N)=E(2N,\rho)$.",
       source=SOURCE,
       method="aggregation lemma checked symbolically on the case table of the rules (table checked "
              "against the model on all states, N <= 30); full stationary law as rational functions "
              "of rho verified against every balance equation for N <= 5 (python-flint fmpq_poly)",
       expected="PROVED", unchecked=('argument', 'departures/*', 'states_checked',), recheck=_recheck_blocking)
def _prove_blocking() -> Certificate:
    n_states = _table_matches_model(NMAX_TABLE)
    lump = _lumpability_symbolic()
    laws = {}
    for N in range(1, NMAX_SYMBOLIC + 1):
        D, nums = _symbolic_law(N)
        _check_law(N, D, nums)
        laws[str(N)] = {"D": _poly_to_list(D), "num": [[_poly_to_list(x) for x in row] for row in nums]}
    return Certificate(Status.PROVED, data={
        "table": CASES, "departures": DEPARTURES, "states_checked": n_states, "lumpability": lump,
        "laws": laws,
        "argument": "K=m+n moves up at rate rho*[K<2N] and down at rate K from every state (table), so K "
                    "is a birth-death chain with pi_K proportional to rho^K/K!; K=2N only at (N,N).",
    }, summary=f"aggregation lemma on all rule cases ({n_states} states cross-checked); "
               f"symbolic laws N<=5 satisfy all balance equations and p(N,N)=E(2N,rho)")


# ---- imbalance limit -----------------------------------------------------------------------------

IMB_A = [1.0, 0.75, 0.35, 0.15]
IMB_RHO = [40, 80, 160, 320]   # a * rho is an integer on this grid
IMB_I = 5


def _limit(a, i):
    ah = min(a, 0.5)
    return (1 - ah) / (1 + ah) if i == 0 else 2 * ah ** i / (1 + ah) ** (i + 1)


def _imbalance(a, rho):
    N = int(round(a * rho))
    assert N == a * rho
    return [float(x) for x in TwoQueueJSQ(N, rho).stationary_distribution("float").imbalance()[:IMB_I]]


def _recheck_imbalance(data: dict) -> Status:
    if data.get("a") != IMB_A or data.get("rho") != IMB_RHO:
        raise CertificateError("grid differs from the claim's grid")
    rows = data["rows"]
    for a in IMB_A:
        r = [x for x in rows if x["a"] == a]
        if [x["rho"] for x in r] != IMB_RHO:
            raise CertificateError(f"a={a}: rows missing")
        # recompute the smallest case and the limit law
        fresh = _imbalance(a, IMB_RHO[0])
        if any(abs(u - v) > 1e-10 for u, v in zip(fresh, r[0]["imbalance"])):
            raise CertificateError(f"a={a}: stored imbalance at rho={IMB_RHO[0]} differs from a fresh solve")
        for x in r:
            err = max(abs(u - _limit(a, i)) for i, u in enumerate(x["imbalance"]))
            if abs(err - x["max_error"]) > 1e-12:
                raise CertificateError(f"a={a}, rho={x['rho']}: stored error inconsistent")
    if not _evidence_ok(rows):
        raise CertificateError("errors do not decrease like 1/rho")
    return Status.EVIDENCE


def _evidence_ok(rows) -> bool:
    """Errors strictly decreasing in rho, and rho*error within a factor 2 over the grid."""
    for a in IMB_A:
        errs = [x["max_error"] for x in rows if x["a"] == a]
        scaled = [e * rho for e, rho in zip(errs, IMB_RHO)]
        if not all(e2 < e1 for e1, e2 in zip(errs, errs[1:])):
            return False
        if max(scaled) > 2 * min(scaled):
            return False
    return True


@claim("seed003.imbalance_limit",
       statement=r"With $N=a\rho$, $\rho\to\infty$ and $\hat a=\min(a,1/2)$: "
                 r"$P(m=n)\to\frac{1-\hat a}{1+\hat a}$ "
                 r"and $P(|m-n|=i)\to\frac{2\hat a^i}{(1+\hat a)^{i+1}}$ for $i\ge1$.",
       source=SOURCE + " (imbalance facts)",
       method="exact stationary laws (float solver, residual < 1e-12) at rho = 40..320 for a in "
              "{1, 0.75, 0.35, 0.15}; errors decrease like 1/rho (numerical evidence, not a proof)",
       expected="EVIDENCE", unchecked=('rows/*/rho_times_error',), recheck=_recheck_imbalance)
def _prove_imbalance() -> Certificate:
    rows = []
    for a in IMB_A:
        for rho in IMB_RHO:
            im = _imbalance(a, rho)
            err = max(abs(u - _limit(a, i)) for i, u in enumerate(im))
            rows.append({"a": a, "rho": rho, "imbalance": im, "max_error": err,
                         "rho_times_error": err * rho})
    status = Status.EVIDENCE if _evidence_ok(rows) else Status.UNDECIDED
    return Certificate(status, data={"a": IMB_A, "rho": IMB_RHO, "rows": rows},
                       summary="max |P(|m-n|=i) - limit|, i<5, decreases like 1/rho for a in "
                               "{1, 0.75, 0.35, 0.15} (rho*error about constant)")
