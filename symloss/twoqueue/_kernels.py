"""numba kernels of the float solver of :mod:`symloss.twoqueue` (Gauss-Seidel with exact level masses).

Unknowns: the conditional vectors ``c_K(d) = P(|m-n| = d | m+n = K)`` stored level after level,
``d = K mod 2, K mod 2 + 2, ..., min(K, 2N-K)`` at ``c[off[K] + (d - K mod 2)//2]``. One update of
level ``K`` evaluates ``(K A c_{K-1} + rho B c_{K+1}) / (rho + K)`` (positive terms only) and
renormalises it. A sweep goes up then down the levels.
"""
from __future__ import annotations

import numpy as np
import sympy
from numba import njit

from .definition import N as _N, Rule, m, n, rho

#: What the stencil below implements, declared as a rule table. The float fast path is used only for
#: a model whose rule table equals this one (``definition.rules_equal``), and its answer is verified
#: on the model's own balance equations; an edited definition gets the generated kernels instead.
STENCIL_RULES = (
    Rule((1, 0), rho, m < n),
    Rule((0, 1), rho, n < m),
    Rule((1, 0), rho / 2, sympy.Eq(m, n) & (m < _N)),
    Rule((0, 1), rho / 2, sympy.Eq(m, n) & (m < _N)),
    Rule((-1, 0), m, m > 0),
    Rule((0, -1), n, n > 0),
)

__all__ = ["FLUSH", "STENCIL_RULES", "gs_generic", "gs_solve", "layout", "residual"]


def layout(N: int) -> np.ndarray:
    """Offsets of the levels ``K = 0..2N`` in the flat storage (length ``2N + 2``)."""
    K = np.arange(2 * N + 1)
    sizes = (np.minimum(K, 2 * N - K) - K % 2) // 2 + 1
    off = np.zeros(2 * N + 2, dtype=np.int64)
    off[1:] = np.cumsum(sizes)
    return off


@njit(cache=True)
def _rhs(c, off, N, rho, K, d):
    """K (A c_{K-1})(d) + rho (B c_{K+1})(d) and the outflow factor rho*[K<2N] + K."""
    v = 0.0
    if K > 0:
        e = d + 1
        emax = min(K - 1, 2 * N - K + 1)
        if e <= emax:
            v += K * c[off[K - 1] + (e - (K - 1) % 2) // 2]
        if d == 1:
            v += K * c[off[K - 1]]
    if K < 2 * N:
        w = 0.0
        e = d + 1
        emax = min(K + 1, 2 * N - K - 1)
        if e <= emax:
            w += c[off[K + 1] + (e - (K + 1) % 2) // 2] * (K + d + 2)
        if d >= 2:
            e = d - 1
            w += c[off[K + 1] + (e - (K + 1) % 2) // 2] * (K - d + 2)
        if d == 1:
            w += c[off[K + 1]] * (2 * K + 2)
        v += rho * w / (2.0 * (K + 1))
        return v, rho + K
    return v, float(K)


#: entries of a conditional vector below this value are set to exactly 0 (they are below the float
#: range of every probability they enter, ``pi_K <= 1``); keeps the sweeps out of the subnormal range
FLUSH = 1e-300


@njit(cache=True)
def _update(c, off, N, rho, K, buf, top):
    """Recompute level K (0 < K < 2N) in place; returns the max relative change.

    With d = d0 + 2j (d0 = K mod 2), the state e = d + 1 sits at index j + d0 of levels K -+ 1 and
    e = d - 1 at index j + d0 - 1 of level K + 1. ``top[L]`` bounds the nonzero entries of level L
    (indices >= top[L] are exactly 0), so only the band that can be nonzero is visited."""
    d0 = K % 2
    base = off[K]
    nK = off[K + 1] - base
    bm = off[K - 1]
    nm = off[K] - bm
    bp = off[K + 1]
    npl = off[K + 2] - bp
    fK = float(K)
    g = rho / (2.0 * (K + 1))
    jmax = max(top[K - 1] - d0, top[K + 1] - d0 + 1, 1)
    if jmax > nK:
        jmax = nK
    s = 0.0
    for j in range(jmax):
        d = d0 + 2 * j
        v = 0.0
        i = j + d0
        if i < nm:
            v += fK * c[bm + i]
        if i < npl:
            v += g * (K + d + 2) * c[bp + i]
        if d >= 2:
            v += g * (K - d + 2) * c[bp + i - 1]
        elif d == 1:
            v += fK * c[bm] + g * (2 * K + 2) * c[bp]
        buf[j] = v
        s += v
    diff = 0.0
    inv = 1.0 / s
    last = 0
    for j in range(jmax):
        x = buf[j] * inv
        if x < FLUSH:
            x = 0.0
        else:
            last = j + 1
        old = c[base + j]
        if x > 1e-280:
            r = abs(x - old) / x
            if r > diff:
                diff = r
        c[base + j] = x
    for j in range(jmax, top[K]):
        c[base + j] = 0.0
    top[K] = last
    return diff


@njit(cache=True)
def _contraction_rate(it, diff, prev, rate):
    """Contraction rate estimate after sweep ``it``: ``min(diff / prev, 1)`` from the third sweep on
    (while ``prev > 0``), else the previous estimate ``rate``."""
    if it > 2 and prev > 0:
        r = diff / prev
        return r if r < 1.0 else 1.0
    return rate


@njit(cache=True)
def gs_solve(c, off, N, rho, tol, maxiter):
    """Symmetric Gauss-Seidel sweeps until the max relative change of a sweep is below ``tol``.

    Returns ``(sweeps, last change, contraction rate estimate)``."""
    buf = np.zeros(N + 2)
    L = 2 * N + 1
    top = np.zeros(L, dtype=np.int64)
    for K in range(L):
        t = 0
        for j in range(off[K + 1] - off[K]):
            if c[off[K] + j] >= FLUSH:
                t = j + 1
            else:
                c[off[K] + j] = 0.0
        top[K] = t
    prev = 1.0
    rate = 1.0
    diff = 1.0
    it = 0
    while it < maxiter:
        it += 1
        diff = 0.0
        for K in range(1, 2 * N):
            diff = max(diff, _update(c, off, N, rho, K, buf, top))
        for K in range(2 * N - 1, 0, -1):
            diff = max(diff, _update(c, off, N, rho, K, buf, top))
        rate = _contraction_rate(it, diff, prev, rate)
        prev = diff
        if diff < tol:
            break
    return it, diff, rate


@njit(cache=True)
def gs_generic(c, off, ptr, src, w, outr, tol, maxiter):
    """Gauss-Seidel with exact level masses for a generated kernel (any adjacent, aggregated chain).

    ``c`` holds the conditional vectors level after level (offsets ``off``); state ``s`` (global index)
    is updated to ``sum_k w[k] c[src[k]] / outr[s]`` over ``k = ptr[s] .. ptr[s+1]-1`` (the weights
    carry the exact level-mass ratios), then each level is renormalised. Returns
    ``(sweeps, last change, contraction rate estimate)``."""
    L = off.shape[0] - 1
    width = 1
    for K in range(L):
        if off[K + 1] - off[K] > width:
            width = off[K + 1] - off[K]
    buf = np.zeros(width)
    prev = 1.0
    rate = 1.0
    diff = 1.0
    it = 0
    while it < maxiter:
        it += 1
        diff = 0.0
        for sweep in range(2):
            for kk in range(1, L - 1):
                K = kk if sweep == 0 else L - 1 - kk
                a0 = off[K]
                a1 = off[K + 1]
                tot = 0.0
                for s in range(a0, a1):
                    buf[s - a0] = c[s]
                    v = 0.0
                    for k in range(ptr[s], ptr[s + 1]):
                        v += w[k] * c[src[k]]
                    v /= outr[s]
                    c[s] = v
                    tot += v
                for s in range(a0, a1):
                    x = c[s] / tot
                    if x < FLUSH:
                        x = 0.0
                    if x > 1e-280:
                        r = abs(x - buf[s - a0]) / x
                        if r > diff:
                            diff = r
                    c[s] = x
        rate = _contraction_rate(it, diff, prev, rate)
        prev = diff
        if diff < tol:
            break
    return it, diff, rate


@njit(cache=True)
def residual(c, off, N, rho):
    """Max over states with c > 1e-280 of |rhs - lhs| / lhs of the conditional balance equations."""
    worst = 0.0
    for K in range(0, 2 * N + 1):
        d0 = K % 2
        for j in range(off[K + 1] - off[K]):
            x = c[off[K] + j]
            if x <= 1e-280:
                continue
            v, out = _rhs(c, off, N, rho, K, d0 + 2 * j)
            if K == 0:
                continue  # c_0 = 1 by definition
            r = abs(v - out * x) / (out * x)
            if r > worst:
                worst = r
    return worst


# --------------------------------------------------------------------------------------------------
# band evaluation of the asymptotic outer law (symloss.twoqueue.asymptotic)
# --------------------------------------------------------------------------------------------------

@njit(cache=True)
def outer_band_values(counts, par, lA, lth, cB0, cB1, cB2, lz0, out):
    """Fill ``out`` level after level with ``exp(log A + (d-1) log theta + (cB2 d + cB1) d + cB0)``
    (``d >= 1``) or ``exp(lz0)`` (``d = 0``), ``d = par + 2t``: the outer law ``g exp(h/(rho g))`` with
    per-level coefficients computed from the derived expressions."""
    pos = 0
    for i in range(counts.shape[0]):
        for t in range(counts[i]):
            d = par[i] + 2 * t
            if d == 0:
                out[pos] = np.exp(lz0[i])
            else:
                fd = float(d)
                out[pos] = np.exp(lA[i] + (fd - 1.0) * lth[i] + (cB2[i] * fd + cB1[i]) * fd + cB0[i])
            pos += 1


@njit(cache=True)
def normalise_trim(vals, off, tiny, out_len):
    """Per level (``off``): clip at 0, renormalise, and set ``out_len[K]`` to one past the last entry
    >= ``tiny``; compacts ``vals`` in place and returns the new total length."""
    L = off.shape[0] - 1
    pos = 0
    for K in range(L):
        a0, a1 = off[K], off[K + 1]
        s = 0.0
        for i in range(a0, a1):
            if vals[i] < 0.0:
                vals[i] = 0.0
            s += vals[i]
        last = 0
        if s > 0.0:
            for i in range(a0, a1):
                x = vals[i] / s
                vals[i] = x
                if x >= tiny:
                    last = i - a0 + 1
        for t in range(last):
            x = vals[a0 + t]
            vals[pos + t] = x if x >= tiny else 0.0
        pos += last
        out_len[K] = last
    return pos


@njit(cache=True)
def band_marginals(level, off, vals, out_min, out_max, out_imb):
    """One pass over a band-form law: the laws of min(m, n), max(m, n) and |m - n|."""
    L = off.shape[0] - 1
    for K in range(L):
        pk = level[K]
        d0 = K % 2
        for t in range(off[K + 1] - off[K]):
            q = pk * vals[off[K] + t]
            d = d0 + 2 * t
            out_min[(K - d) // 2] += q
            out_max[(K + d) // 2] += q
            out_imb[d] += q
