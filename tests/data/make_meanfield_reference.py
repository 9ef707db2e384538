"""Regenerate tests/data/meanfield_reference.csv: mean-field blocking computed independently.

Methods (neither uses symloss's arb shooting / Newton code):
  * retrial-of-d and random routing: mpmath.findroot (secant, 80 digits) on
        p = E(C, rho (1 - p^d) / (1 - p)),  with E from the finite sum (a^C/C!) / sum_k a^k/k!,
    solved in q = log p so that tiny blockings are resolved; B = p^d.
  * power-of-d: the full stationary system rho (u_{k-1}^d - u_k^d) = k (u_k - u_{k+1}), k = 1..C, solved by
    multidimensional mpmath.findroot (Newton, 80 digits) in the variables l_k = log u_k, started from a
    float ODE integration (scipy LSODA) or, for tiny values, from the small-load recursion u_k = rho u_{k-1}^d / k;
    B = u_C^d.
Run:  python tests/data/make_meanfield_reference.py > tests/data/meanfield_reference.csv
"""
import sys

import mpmath
import numpy as np
from scipy.integrate import solve_ivp

CASES = [
    ("retrial", 2, 2, "1"), ("retrial", 2, 3, "1"), ("retrial", 3, 2, "0.5"), ("retrial", 5, 3, "0.5"),
    ("retrial", 10, 2, "8"), ("retrial", 20, 4, "30"), ("retrial", 50, 2, "0.1"), ("retrial", 4, 6, "3.25"),
    ("random", 3, 1, "2"), ("random", 30, 1, "25"),
    ("power", 2, 2, "1"), ("power", 2, 2, "0.01"), ("power", 3, 2, "2"), ("power", 5, 3, "0.5"),
    ("power", 4, 2, "10"), ("power", 8, 2, "6"), ("power", 10, 3, "12"), ("power", 6, 4, "1.5"),
    ("power", 3, 5, "100"),
]


def erlang(C, a):
    s = mpmath.fsum(a ** k / mpmath.factorial(k) for k in range(C + 1))
    return a ** C / mpmath.factorial(C) / s


def retrial(C, d, rho):
    if d == 1:
        return erlang(C, rho)

    def f(q):
        p = mpmath.exp(q)
        return q - mpmath.log(erlang(C, rho * (1 - p ** d) / (1 - p)))
    q0 = mpmath.log(erlang(C, rho))
    q = mpmath.findroot(f, (q0, q0 + mpmath.mpf("0.1")), solver="secant", tol=mpmath.mpf(10) ** -75)
    return mpmath.exp(q) ** d


def power(C, d, rho):
    rf = float(rho)

    def rhs(_t, u):
        uu = np.concatenate([[1.0], u, [0.0]])
        return np.array([rf * (uu[k - 1] ** d - uu[k] ** d) - k * (uu[k] - uu[k + 1]) for k in range(1, C + 1)])
    sol = solve_ivp(rhs, (0, 400), np.zeros(C), method="LSODA", rtol=1e-11, atol=1e-14)
    u0 = sol.y[:, -1]
    # where the ODE state is below its accuracy, continue with the small-load recursion u_k = rho u_{k-1}^d / k
    l0, prev = [], mpmath.mpf(1)
    for k in range(1, C + 1):
        v = mpmath.mpf(u0[k - 1]) if u0[k - 1] > 1e-9 else rho * prev ** d / k
        l0.append(mpmath.log(v))
        prev = v

    def F(*l):
        u = [mpmath.mpf(1)] + [mpmath.exp(x) for x in l] + [mpmath.mpf(0)]
        return [(rho * (u[k - 1] ** d - u[k] ** d) - k * (u[k] - u[k + 1])) / (k * u[k]) for k in range(1, C + 1)]
    l = mpmath.findroot(F, l0, tol=mpmath.mpf(10) ** -70, maxsteps=200)
    return mpmath.exp(l[C - 1] if C > 1 else l) ** d


def main():
    mpmath.mp.dps = 80
    out = sys.stdout
    out.write("# Mean-field stationary blocking, computed independently (see make_meanfield_reference.py).\n")
    out.write("policy,C,d,rho,blocking\n")
    for pol, C, d, rho in CASES:
        r = mpmath.mpf(rho)
        B = power(C, d, r) if pol == "power" else retrial(C, d, r)
        out.write(f"{pol},{C},{d},{rho},{mpmath.nstr(B, 50)}\n")
        out.flush()


if __name__ == "__main__":
    main()
