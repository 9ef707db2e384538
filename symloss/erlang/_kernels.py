r"""numba float64 kernels for Erlang-B (private; see :mod:`symloss.erlang`).

Module-level functions so that numba's on-disk cache (``cache=True``) is reused across processes.

``log_eb(x, z)`` is :math:`\log E(x, z)` for ``0 <= x <= 1e300`` and ``0 < z < inf`` (checked by the
callers), with ``a = x + 1`` in the incomplete-gamma form :math:`E = \text{pmf}(x, z) / Q(x+1, z)`:

* ``x >= 50`` and ``0.6 a <= z <= a + 4 sqrt(a)`` (the transition region, where the series and the
  continued fraction need ``O(sqrt(x))`` terms): Temme's uniform expansion (``_log_eb_temme``), 11
  terms in ``1/a`` with the exact coefficients of :mod:`._temme_table`;
* ``z > x + 1`` otherwise: Legendre's continued fraction (modified Lentz started at its first
  partial denominator, so nothing overflows for ``x`` up to ``1e300``);
* ``z <= x + 1`` otherwise: the Poisson-tail series with Loader's saddle-point Poisson mass.

Every loop has a cap far above the terms its region needs; a loop that hits it returns NaN, which
the public wrappers turn into a :class:`~symloss.PrecisionError` (it is never returned as a value).
"""
import math

from numba import njit

from ._temme_table import TEMME_D

X_TEMME = 50.0        # Temme's expansion for x >= X_TEMME ...
LAM_LO = 0.6          # ... and z >= LAM_LO * (x + 1) ...
T_HI = 4.0            # ... and z <= (x + 1) + T_HI * sqrt(x + 1)
MAX_ITER = 200000     # never reached inside the regions above (they need at most a few hundred)
_K = TEMME_D.shape[0]
_N = TEMME_D.shape[1]


@njit(cache=True)
def stirlerr(n):
    # log(n!) - log(sqrt(2 pi n) (n/e)^n)
    if n <= 15.0:
        return math.lgamma(n + 1.0) - (n + 0.5) * math.log(n) + n - 0.9189385332046727
    nn = n * n
    return (0.08333333333333333 - (0.002777777777777778 - (0.0007936507936507937 - (
        0.0005952380952380953 - 0.0008417508417508417 / nn) / nn) / nn) / nn) / n


@njit(cache=True)
def _log_ratio(x, m):
    r = x / m
    if r > 0.0 and r < math.inf:
        return math.log(r)
    return math.log(x) - math.log(m)          # x/m over- or underflows (e.g. m subnormal)


@njit(cache=True)
def bd0d(x, m, d):
    # x log(x/m) + m - x  with  d = x - m given accurately (Loader 2000, difference form)
    if abs(d) < 0.1 * (x + m):
        v = d / (x + m)
        s = d * v
        ej = 2.0 * x * v
        v2 = v * v
        for j in range(1, 1000):
            ej *= v2
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
        return s
    return x * _log_ratio(x, m) - d


@njit(cache=True)
def bd0(x, m):
    return bd0d(x, m, x - m)


@njit(cache=True)
def log_pmf(x, z):
    # log(z^x e^-z / Gamma(x+1)), x > 0
    if x < 1.0:
        return x * math.log(z) - z - math.lgamma(x + 1.0)
    return -stirlerr(x) - bd0(x, z) - 0.5 * math.log(6.283185307179586 * x)


@njit(cache=True)
def _temme_sum(eta, a):
    # sum_k c_k(eta) a^-k  with c_k(eta) = sum_n TEMME_D[k, n] eta^n
    s = 0.0
    ak = 1.0
    for k in range(_K):
        c = 0.0
        for n in range(_N - 1, -1, -1):
            c = c * eta + TEMME_D[k, n]
        s += c * ak
        ak /= a
        if ak == 0.0:
            break
    return s


@njit(cache=True)
def _log_eb_temme(x, z, d):
    # d = z - a accurately, a = x + 1 (rounded; only ever used in ratios and in bd0d with d).
    a = x + 1.0
    b = bd0d(a, z, -d)                   # a (lam - 1 - log lam) = a eta^2 / 2 >= 0
    if b < 0.0:
        b = 0.0
    eta = math.sqrt(2.0 * b / a)
    if d < 0.0:
        eta = -eta
    y = eta * math.sqrt(0.5 * a)
    r = math.exp(-b) / math.sqrt(6.283185307179586 * a) * _temme_sum(eta, a)
    lp = log_pmf(x, z)
    if d > 0.0:
        q = 0.5 * math.erfc(y) + r       # Q(a, z) in [3e-5, 1/2] here: no cancellation
        out = lp - math.log(q)
    else:
        p = 0.5 * math.erfc(-y) - r      # P(a, z) = P(X >= x + 1) in (0, 1/2]
        out = lp - math.log1p(-p)
    return out if out < 0.0 else 0.0


@njit(cache=True)
def _log_eb_cf(x, z):
    # Legendre continued fraction: 1/E = z / T,  T = (z - x) + K,
    # K = K_{n>=1} n(x + 1 - n) / (z - x + 2n) = x / T',  T' = (z - x + 2) + K_{n>=2} ...
    # Modified Lentz on T' scaled by b0 = z - x > 1 (partial denominators 1 + 2n/b0, numerators
    # a_n/b0^2), started at its first partial denominator: no 1/tiny overflow and no subnormal D
    # for z up to the float maximum.
    tiny = 1e-300
    b0 = z - x
    s2 = 1.0 / b0
    f = 1.0 + 2.0 * s2
    Cl = f
    D = 0.0
    n = 2
    while True:
        an = (n * s2) * ((x + 1.0 - n) * s2)
        bn = 1.0 + (2.0 * n) * s2
        D = bn + an * D
        if D == 0.0:
            D = tiny
        Cl = bn + an / Cl
        if Cl == 0.0:
            Cl = tiny
        D = 1.0 / D
        delta = Cl * D
        f *= delta
        if abs(delta - 1.0) < 3e-16:
            break
        n += 1
        if n > MAX_ITER:
            return math.nan
    K = (x * s2) / f                      # K = x / (b0 f)
    u = (K - x) / z                       # T/z - 1
    if u > -0.5:
        r = math.log1p(u)                 # E close to 1: no cancellation
    else:
        ratio = (b0 + K) / z              # = E, one rounding
        r = math.log(ratio) if ratio > 1e-300 else math.log(b0 + K) - math.log(z)
    return r if r < 0.0 else 0.0


@njit(cache=True)
def _log_eb_series(x, z):
    # E = pmf / (1 - pmf * S),  S = sum_{k>=1} z^k / ((x+1)...(x+k))   (pmf * S = P(X >= x + 1))
    lp = log_pmf(x, z)
    t = 1.0
    s = 0.0
    k = 1
    while True:
        t *= z / (x + k)
        s += t
        if t <= 1e-17 * s:                # also ends when t underflows to 0
            break
        k += 1
        if k > MAX_ITER:
            return math.nan
    tail = math.exp(lp) * s if lp > -745.0 else 0.0
    r = lp - math.log1p(-tail)
    return r if r < 0.0 else 0.0


@njit(cache=True)
def log_eb(x, z):
    if x == 0.0:
        return 0.0
    if x >= X_TEMME:
        a = x + 1.0
        d = (z - x) - 1.0                 # z - a (z - x is exact here by Sterbenz' lemma)
        if z >= LAM_LO * a and d <= T_HI * math.sqrt(a):
            return _log_eb_temme(x, z, d)
    if z > x + 1.0:
        return _log_eb_cf(x, z)
    return _log_eb_series(x, z)


@njit(cache=True)
def log_eb_array(x, z, out):
    for i in range(x.size):
        out[i] = log_eb(x[i], z[i])


@njit(cache=True)
def log_eb_scalar_checked(x, z):
    # the scalar entry point of the public wrappers: range checks inline (NaN-safe), then log_eb;
    # returns (status, value): status 0 ok, 1 bad C, 2 bad a, 3 not converged
    if not (x >= 0.0 and x <= 1e300):
        return 1, 0.0
    if not (z > 0.0 and z < math.inf):
        return 2, 0.0
    v = log_eb(x, z)
    if v != v:
        return 3, 0.0
    return 0, v
