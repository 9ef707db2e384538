"""Numba kernel of the finite-N load-balancing simulator (private; see :mod:`symloss.simulation`).

Data structure (O(N) memory, O(1) work per event for "random", "retrial" and "power", O(C) for
"jsq" and for the choice of the departing job's level):

* ``occ[s]``   occupancy (number of jobs) of server ``s``;
* ``perm``     the server ids grouped by occupancy level: level ``k`` is ``perm[start[k]:start[k+1]]``;
* ``pos[s]``   position of server ``s`` in ``perm``.

Moving a server up one level swaps it with the last server of its block and shrinks the block by
one; moving down swaps it with the first one. A departure happens at total rate ``J`` (number of
busy jobs); the departing job is a uniformly chosen busy job, i.e. a uniform integer ``j < J``
mapped to level ``k`` (weight ``k n_k``) and to the server ``perm[start[k] + j // k]`` in that block.

Random numbers: xoshiro256** (Blackman & Vigna 2018) on a 4-word uint64 state taken from a
``numpy.random.SeedSequence`` and held in four local variables inside the event loop; uniform
integers by Lemire's multiply-shift on the top 32 bits with rejection (exactly uniform for
``n < 2**32``), uniform floats from the top 53 bits.
"""
from __future__ import annotations

import numpy as np
from numba import njit

POLICY_CODES = {"random": 0, "retrial": 1, "power": 2, "jsq": 3}

_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_TWO32 = np.uint64(1 << 32)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


@njit(inline="always", cache=True)
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(inline="always", cache=True)
def _next4(s0, s1, s2, s3):
    """xoshiro256** step on a state held in four local variables (kept in registers)."""
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@njit(inline="always", cache=True)
def _randint4(s0, s1, s2, s3, n):
    nn = np.uint64(n)
    r, s0, s1, s2, s3 = _next4(s0, s1, s2, s3)
    m = (r >> _S32) * nn
    low = m & _M32
    if low < nn:
        thr = (_TWO32 - nn) % nn
        while low < thr:
            r, s0, s1, s2, s3 = _next4(s0, s1, s2, s3)
            m = (r >> _S32) * nn
            low = m & _M32
    return np.int64(m >> _S32), s0, s1, s2, s3


@njit(inline="always", cache=True)
def _move_up(s, occ, perm, pos, start):
    k = occ[s]
    p = pos[s]
    last = start[k + 1] - 1
    t = perm[last]
    perm[last] = s
    perm[p] = t
    pos[t] = p
    pos[s] = last
    start[k + 1] = last
    occ[s] = k + 1


@njit(inline="always", cache=True)
def _move_down(s, occ, perm, pos, start):
    k = occ[s]
    p = pos[s]
    first = start[k]
    t = perm[first]
    perm[first] = s
    perm[p] = t
    pos[t] = p
    pos[s] = first
    start[k] = first + 1
    occ[s] = k - 1


@njit(inline="always", cache=True)
def _advance(k, clock, start, last, area):
    """The lazy time integral of level ``k`` (its number of servers times the time) brought up to
    ``clock``, before the level gains or loses a server."""
    area[k] += (start[k + 1] - start[k]) * (clock - last[k])
    last[k] = clock


@njit(cache=True)
def _pick_distinct4(s0, s1, s2, s3, N, tried, ntried):
    """A uniform server among those not in tried[:ntried] (rejection; ntried < N)."""
    while True:
        s, s0, s1, s2, s3 = _randint4(s0, s1, s2, s3, N)
        ok = True
        for i in range(ntried):
            if tried[i] == s:
                ok = False
                break
        if ok:
            return s, s0, s1, s2, s3


@njit(cache=True)
def _draw_server4(s0, s1, s2, s3, N, without, tried, a):
    """Sample ``a`` (0-based) of an arrival's ``d``: a uniform server, distinct from ``tried[:a]`` and
    recorded in ``tried[a]`` when sampling ``without`` replacement. Returns ``(server, state...)``."""
    if without:
        s, s0, s1, s2, s3 = _pick_distinct4(s0, s1, s2, s3, N, tried, a)
        tried[a] = s
        return s, s0, s1, s2, s3
    return _randint4(s0, s1, s2, s3, N)


@njit(cache=True)
def _close_batch(batch, clock, t_batch0, sum_b, n_arr, n_lost, C, start, last, area,
                 b_sum, b_arr, b_lost, b_time, b_area):
    """Bring the time integrals of ``n_k`` up to ``clock``; if ``batch >= 0``, store its statistics
    (sum of ``btable[n_C]``, arrivals, lost arrivals, elapsed time, the integrals) in row ``batch``."""
    for k in range(C + 1):
        _advance(k, clock, start, last, area)
    if batch >= 0:
        b_sum[batch] = sum_b
        b_arr[batch] = n_arr
        b_lost[batch] = n_lost
        b_time[batch] = clock - t_batch0
        for k in range(C + 1):
            b_area[batch, k] = area[k]


@njit(cache=True)
def run_kernel(policy, N, C, d, lam, without, events, warmup, occ, st, btable,
               b_sum, b_arr, b_lost, b_time, b_area):
    """Simulate ``warmup + events`` events of the jump chain; write per-batch statistics.

    ``occ`` (int32, length N) is the initial occupancy, modified in place to the final one.
    ``btable[m]`` is the conditional blocking probability when ``m`` servers are full.
    Batch ``i`` covers measured events ``[i*events//nb, (i+1)*events//nb)``; for it the kernel
    accumulates: sum of ``btable[n_C]`` over arrivals, number of arrivals, number of lost arrivals,
    elapsed time (sum of expected holding times ``1/(lam + J)``) and the time integral of ``n_k``.
    Returns the final number of busy jobs. One call of :func:`run_kernel_range` over every event.
    """
    perm, pos, start, last, area, fstate, istate = kernel_state(N, C)
    return run_kernel_range(policy, N, C, d, lam, without, events, warmup, occ, st, btable,
                            b_sum, b_arr, b_lost, b_time, b_area, perm, pos, start, last, area, fstate, istate,
                            0, warmup + events)


@njit(cache=True)
def kernel_state(N, C):
    """Fresh state arrays of :func:`run_kernel_range`: ``perm, pos, start`` (servers sorted by level),
    ``last, area`` (lazy time integrals), ``fstate = [clock, t_batch0, sum_b]``,
    ``istate = [J, batch, next_boundary, n_arr, n_lost, initialised]``."""
    return (np.empty(N, np.int32), np.empty(N, np.int32), np.zeros(C + 2, np.int64), np.zeros(C + 1),
            np.zeros(C + 1), np.zeros(3), np.zeros(6, np.int64))


@njit(cache=True)
def run_kernel_range(policy, N, C, d, lam, without, events, warmup, occ, st, btable,
                     b_sum, b_arr, b_lost, b_time, b_area, perm, pos, start, last, area, fstate, istate,
                     ev_begin, ev_end):
    """Events ``[ev_begin, ev_end)`` of the run of :func:`run_kernel`, resumable: every piece of state
    (occupancy, generator, server order, batch accumulators, clock) lives in the arrays passed in and
    out, so consecutive ranges give bit for bit the numbers of one call. The first call
    (``istate[5] == 0``) sorts the servers by level; the call that reaches ``warmup + events`` closes
    the last batch and stores the generator state in ``st``.
    """
    nb = b_sum.shape[0]
    total = warmup + events
    if istate[5] == 0:
        counts = np.zeros(C + 1, np.int64)
        J0 = 0
        for s in range(N):
            counts[occ[s]] += 1
            J0 += occ[s]
        acc = 0
        for k in range(C + 1):
            start[k] = acc
            acc += counts[k]
        start[C + 1] = N
        fill = start[:C + 1].copy()
        for s in range(N):
            k = occ[s]
            perm[fill[k]] = s
            pos[s] = fill[k]
            fill[k] += 1
        istate[0] = J0
        istate[1] = -1
        istate[2] = warmup
        istate[5] = 1
    tried = np.empty(max(d, 1), np.int64)
    s0 = st[0]
    s1 = st[1]
    s2 = st[2]
    s3 = st[3]
    clock = fstate[0]
    t_batch0 = fstate[1]
    sum_b = fstate[2]
    J = istate[0]
    batch = istate[1]
    next_boundary = istate[2]
    n_arr = istate[3]
    n_lost = istate[4]
    for ev in range(ev_begin, min(ev_end, total)):
        if ev == next_boundary:
            # close the previous batch (if any) and open the next one
            _close_batch(batch, clock, t_batch0, sum_b, n_arr, n_lost, C, start, last, area,
                         b_sum, b_arr, b_lost, b_time, b_area)
            batch += 1
            sum_b = 0.0
            n_arr = 0
            n_lost = 0
            t_batch0 = clock
            for k in range(C + 1):
                area[k] = 0.0
            next_boundary = warmup + ((batch + 1) * events) // nb
        rate = lam + J
        clock += 1.0 / rate
        r64, s0, s1, s2, s3 = _next4(s0, s1, s2, s3)
        u = float(r64 >> _S11) * _INV53 * rate
        if u < lam:
            # arrival: conditional blocking probability given the state (Rao-Blackwellised estimator)
            nfull = N - start[C]
            sum_b += btable[nfull]
            n_arr += 1
            target = -1
            if policy == 0:
                s, s0, s1, s2, s3 = _randint4(s0, s1, s2, s3, N)
                if occ[s] < C:
                    target = s
            elif policy == 1:
                for a in range(d):
                    s, s0, s1, s2, s3 = _draw_server4(s0, s1, s2, s3, N, without, tried, a)
                    if occ[s] < C:
                        target = s
                        break
            elif policy == 2:
                bestk = C
                for a in range(d):
                    s, s0, s1, s2, s3 = _draw_server4(s0, s1, s2, s3, N, without, tried, a)
                    k = occ[s]
                    if k < bestk:
                        bestk = k
                        target = s
                        if k == 0:
                            break
            else:
                for k in range(C):
                    nk = start[k + 1] - start[k]
                    if nk > 0:
                        jj, s0, s1, s2, s3 = _randint4(s0, s1, s2, s3, nk)
                        target = perm[start[k] + jj]
                        break
            if target < 0:
                n_lost += 1
            else:
                k = occ[target]
                _advance(k, clock, start, last, area)
                _advance(k + 1, clock, start, last, area)
                _move_up(target, occ, perm, pos, start)
                J += 1
        else:
            # level of the departing job: k with probability k n_k / J; then a uniform server
            # of that level (a second draw is cheaper than the integer division j // k)
            j, s0, s1, s2, s3 = _randint4(s0, s1, s2, s3, J)
            k = C
            while True:
                nk = start[k + 1] - start[k]
                w = k * nk
                if j < w:
                    break
                j -= w
                k -= 1
            jj, s0, s1, s2, s3 = _randint4(s0, s1, s2, s3, nk)
            s = perm[start[k] + jj]
            _advance(k, clock, start, last, area)
            _advance(k - 1, clock, start, last, area)
            _move_down(s, occ, perm, pos, start)
            J -= 1
    fstate[0] = clock
    fstate[1] = t_batch0
    fstate[2] = sum_b
    istate[0] = J
    istate[1] = batch
    istate[2] = next_boundary
    istate[3] = n_arr
    istate[4] = n_lost
    st[0] = s0
    st[1] = s1
    st[2] = s2
    st[3] = s3
    if ev_end >= total:
        # close the last batch
        _close_batch(batch, clock, t_batch0, sum_b, n_arr, n_lost, C, start, last, area,
                     b_sum, b_arr, b_lost, b_time, b_area)
    return J
