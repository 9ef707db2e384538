"""numba float64 kernels for Erlang-B (private; see :mod:`symloss.erlang`).

Module-level functions so that numba's on-disk cache (``cache=True``) is reused across processes.
"""
import math

from numba import njit


@njit(cache=True)
def stirlerr(n):
    # log(n!) - log(sqrt(2 pi n) (n/e)^n)
    if n <= 15.0:
        return math.lgamma(n + 1.0) - (n + 0.5) * math.log(n) + n - 0.9189385332046727
    nn = n * n
    return (0.08333333333333333 - (0.002777777777777778 - (0.0007936507936507937 - (
        0.0005952380952380953 - 0.0008417508417508417 / nn) / nn) / nn) / nn) / n


@njit(cache=True)
def bd0(x, m):
    # x log(x/m) + m - x, without cancellation (Loader 2000)
    if abs(x - m) < 0.1 * (x + m):
        v = (x - m) / (x + m)
        s = (x - m) * v
        ej = 2.0 * x * v
        v2 = v * v
        for j in range(1, 1000):
            ej *= v2
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
        return s
    return x * math.log(x / m) + m - x


@njit(cache=True)
def log_pmf(x, z):
    # log(z^x e^-z / Gamma(x+1)), x > 0
    if x < 1.0:
        return x * math.log(z) - z - math.lgamma(x + 1.0)
    return -stirlerr(x) - bd0(x, z) - 0.5 * math.log(6.283185307179586 * x)


@njit(cache=True)
def log_eb(x, z):
    if x == 0.0:
        return 0.0
    if z > x + 1.0:
        # Legendre continued fraction: 1/E = z / T,
        # T = (z - x) + K,  K = K_{n>=1} n(x + 1 - n) / (z - x + 2n)   (modified Lentz on K)
        # log E = log(T / z) = log1p((K - x) / z): no cancellation when E is close to 1.
        tiny = 1e-300
        b0 = z - x
        f = tiny
        Cl = f
        D = 0.0
        n = 1
        while n < 100000000:
            an = n * (x + 1.0 - n)
            bn = b0 + 2.0 * n
            D = bn + an * D
            if D == 0.0:
                D = tiny
            Cl = bn + an / Cl
            if Cl == 0.0:
                Cl = tiny
            D = 1.0 / D
            delta = Cl * D
            f *= delta
            if abs(delta - 1.0) < 1e-16:
                break
            n += 1
        r = math.log1p((f - x) / z)
        return r if r < 0.0 else 0.0
    # z <= x + 1: E = pmf / (1 - pmf * S),  S = sum_{k>=1} z^k / ((x+1)...(x+k))
    lp = log_pmf(x, z)
    t = 1.0
    s = 0.0
    k = 1
    while k < 100000000:
        t *= z / (x + k)
        s += t
        if t < 1e-17 * s:
            break
        k += 1
    tail = math.exp(lp) * s if lp > -745.0 else 0.0
    r = lp - math.log1p(-tail)
    return r if r < 0.0 else 0.0


@njit(cache=True)
def log_eb_array(x, z, out):
    for i in range(x.size):
        out[i] = log_eb(x[i], z[i])
