"""A grammar of routing policies for loss systems, and two independent builders of each policy."""
from __future__ import annotations
from dataclasses import dataclass
from fractions import Fraction
import numpy as np
import sympy as sp

# A policy term gives H_k(U) = P(the server one routing attempt joins has >= k jobs), k = 0..C
# (H_0 = 1; the attempt is blocked with probability H_C).
@dataclass(frozen=True)
class Sample:          # sample d servers, join the least loaded
    d: int
@dataclass(frozen=True)
class Threshold:       # sample d; join the least loaded if it has < T jobs, else a random server
    d: int
    T: int
@dataclass(frozen=True)
class Mix:             # with probability q the first policy, else the second
    q: Fraction
    a: object
    b: object

def H(term, U, k, C, pw=lambda x, n: x ** n):
    if isinstance(term, Sample):
        return pw(U[k], term.d)
    if isinstance(term, Threshold):
        T = min(term.T, C)
        low = pw(U[k], term.d) - pw(U[T], term.d) if k <= T else 0 * U[k]
        return low + pw(U[T], term.d) * U[k]
    if isinstance(term, Mix):
        return term.q * H(term.a, U, k, C, pw) + (1 - term.q) * H(term.b, U, k, C, pw)
    raise TypeError(term)

def describe(term) -> str:
    if isinstance(term, Sample):
        return f"sample{term.d}"
    if isinstance(term, Threshold):
        return f"thr{term.d},{term.T}"
    return f"mix({term.q},{describe(term.a)},{describe(term.b)})"

def build_model(term, C: int, r: int):
    from symloss import RHO, define_model
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + u + (sp.Integer(0),)
    h = [sp.expand(H(term, U, k, C)) for k in range(C + 1)]
    s = h[C]
    retry = sum(s ** j for j in range(r))
    tr = []
    for k in range(1, C + 1):
        tr.append(({u[k - 1]: +1}, RHO * retry * (h[k - 1] - h[k])))
        tr.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"{describe(term)}^r{r}", u, tr, blocking=s ** r, state_kind="tail", C=C)

def float_blocking(term, C: int, r: int, rho: float) -> float:
    """Independent solve: the tail ODE written in numpy from the grammar, integrated to equilibrium
    (scipy LSODA), then polished by Newton on the same numpy drift (finite-difference Jacobian)."""
    from scipy.integrate import solve_ivp
    from scipy.optimize import fsolve
    def drift(t, u):
        U = np.concatenate(([1.0], u, [0.0]))
        h = np.array([H(term, U, k, C, pw=lambda x, n: x ** n) for k in range(C + 1)], dtype=float)
        s = h[C]
        retry = sum(s ** j for j in range(r))
        up = rho * retry * (h[:-1] - h[1:])
        down = np.arange(1, C + 1) * (U[1:C + 1] - U[2:C + 2])
        return up - down
    sol = solve_ivp(drift, (0, 400.0), np.zeros(C), method="LSODA", rtol=1e-10, atol=1e-13)
    u = fsolve(lambda v: drift(0, v), sol.y[:, -1], xtol=1e-14)
    U = np.concatenate(([1.0], u, [0.0]))
    s = float(H(term, U, C, C))
    return s ** r
