"""The hybrid policy of the model-definition notebook at finite N, and an independent server-level reference.

Hybrid policy ("sample d servers, join the least loaded; if all d are full, draw a fresh sample, at
most r rounds"), tails u_1..u_C, samples with replacement (MODEL_API.md):

* up-jump at level k (u_k += 1/N) at rate rho (1 + s + ... + s^(r-1)) (u_{k-1}^d - u_k^d), s = u_C^d;
* down-jump at level k at rate k (u_k - u_{k+1});
* blocking u_C^(d r).

r = 1 is power-of-d, d = 1 is retrial-of-r. These helpers are what a user writes: the model in a few
lines, then its exact finite-N blocking, a simulation and the refined mean field from the generic
solvers of symloss.finite_n (the lead engineer copies them into notebooks/define_your_own_policy.ipynb).

``server_level_exact`` is the independent reference used by the tests: the CTMC of the N individual
server occupancies ((C+1)^N states) with the routing written operationally (enumerate the N^d
equally likely samples of a round), solved in exact rationals. It shares no code with the count
chain generated from the definition.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

import sympy as sp

from symloss import RHO, define_model, exact_finite_n, refined_mean_field, simulate


def hybrid_model(C: int, d: int, r: int):
    """The hybrid policy as a symloss model (tail state, sampling with replacement)."""
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + tuple(u) + (sp.Integer(0),)
    s = U[C] ** d
    rounds = sum(s ** j for j in range(r))
    trs = []
    for k in range(1, C + 1):
        trs.append(({u[k - 1]: 1}, RHO * rounds * (U[k - 1] ** d - U[k] ** d)))
        trs.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"hybrid(d={d}, r={r})", u, trs, blocking=U[C] ** (d * r), state_kind="tail", C=C)


def hybrid_finite_n_blocking(C, d, r, N, rho, **kw):
    """Exact finite-N blocking of the hybrid policy (the count chain generated from the definition)."""
    return exact_finite_n(hybrid_model(C, d, r), N, rho, **kw)


def hybrid_simulation(C, d, r, N, rho, *, events, replications=4, seed=0):
    """Count-level simulation of the hybrid policy (numba kernel generated from the definition)."""
    return simulate(hybrid_model(C, d, r), N=N, rho=rho, events=events, replications=replications, seed=seed)


def hybrid_refined(C, d, r, rho, N=None, dps=30):
    """Refined mean field B + V/N + W/N^2 of the hybrid policy."""
    return refined_mean_field(hybrid_model(C, d, r), rho=rho, N=N, dps=dps)


# --------------------------------------------------------------------------------------------------
# independent reference: the server-level chain
# --------------------------------------------------------------------------------------------------

def hybrid_routing(d: int, r: int):
    """Routing of the hybrid policy on a vector of occupancies: returns (join probability of each
    server, probability that the arrival is lost), by enumerating the N^d samples of a round."""
    def route(occ, C):
        N = len(occ)
        join = [Fraction(0)] * N
        full = 0
        for sample in itertools.product(range(N), repeat=d):
            best = min(sample, key=lambda i: occ[i])          # first sampled among the least loaded
            if occ[best] >= C:
                full += 1
            else:
                join[best] += 1
        p_full = Fraction(full, N ** d)
        rounds = sum(p_full ** j for j in range(r))
        return [Fraction(j, N ** d) * rounds for j in join], p_full ** r
    return route


def server_level_exact(N: int, C: int, rho: Fraction, route, mu=Fraction(1)) -> Fraction:
    """Exact stationary blocking of the chain of the N server occupancies (exact rationals)."""
    from flint import fmpq, fmpq_mat
    states = list(itertools.product(range(C + 1), repeat=N))
    index = {s: i for i, s in enumerate(states)}
    M = len(states)
    Q = {}
    out = [Fraction(0)] * M
    loss = []
    for i, s in enumerate(states):
        join, lost = route(s, C)
        loss.append(lost)
        for k in range(N):
            if join[k]:
                t = list(s)
                t[k] += 1
                j = index[tuple(t)]
                Q[(i, j)] = Q.get((i, j), 0) + N * rho * join[k]
                out[i] += N * rho * join[k]
            if s[k]:
                t = list(s)
                t[k] -= 1
                j = index[tuple(t)]
                Q[(i, j)] = Q.get((i, j), 0) + mu * s[k]
                out[i] += mu * s[k]
    A = fmpq_mat(M, M)
    for (i, j), v in Q.items():
        A[j, i] += fmpq(v.numerator, v.denominator)
    for i in range(M):
        A[i, i] -= fmpq(out[i].numerator, out[i].denominator)
    for i in range(M):               # replace the last balance equation by the normalisation
        A[M - 1, i] = 1
    b = fmpq_mat(M, 1)
    b[M - 1, 0] = 1
    pi = A.solve(b)
    B = sum((Fraction(int(pi[i, 0].p), int(pi[i, 0].q)) * loss[i] for i in range(M)), Fraction(0))
    return B
