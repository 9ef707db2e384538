"""Numba kernels of the admission-control model: the offline dynamic programme and the policy
simulator (module level, so numba's disk cache is reused)."""
from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, fastmath=True)
def offline_dp(kinds, marks, N, rH, rL, n0):
    # V(n) = A[off + n] + C.  Lemma (backward induction, see offline_optimal): V(n) - V(n+1) <= r_H,
    # so at an H arrival max(V(n), r_H + V(n+1)) = r_H + V(n+1): a shift of the window by one
    # (O(1)) with V'(N) = V(N).  L arrival: one vectorised max pass into the second buffer.
    # Departure with s = floor(UN) + 1: V'(x) = V(x - 1) for x >= s; move whichever part
    # (below or above s) is shorter.  Slices keep the loop indices non-negative, so LLVM vectorises.
    M = max(N + 1, 1024)
    size = N + 1 + 2 * M
    A = np.zeros(size)
    B = np.zeros(size)
    off = M
    C = 0.0
    for j in range(kinds.size - 1, -1, -1):
        k = kinds[j]
        if k == 0:
            vN = A[off + N]
            off += 1
            C += rH
            A[off + N] = vN - rH
        elif k == 1:
            a = A[off:off + N + 1]
            b = B[off:off + N + 1]
            for n in range(N):
                b[n] = max(a[n], a[n + 1] + rL)
            b[N] = a[N]
            A, B = B, A
        else:
            s = int(math.floor(marks[j] * N)) + 1
            if s <= N + 1 - s:
                a = A[off - 1:off + s]
                for x in range(s):
                    a[x] = a[x + 1]
                off -= 1
            else:
                a = A[off + s - 1:off + N + 1]
                for x in range(N + 1 - s, 0, -1):
                    a[x] = a[x - 1]
        if off < 1 or off + N + 2 > size:
            B[M:M + N + 1] = A[off:off + N + 1]
            off = M
            A, B = B, A
    return A[off + n0] + C

@njit(cache=True, fastmath=True)
def offline_dp_plain(kinds, marks, N, rH, rL, n0):
    # the textbook recursion (max at every arrival, full copies); kept as an independent check
    A = np.zeros(N + 1)
    B = np.zeros(N + 1)
    for j in range(kinds.size - 1, -1, -1):
        k = kinds[j]
        if k != 2:
            r = rH if k == 0 else rL
            for n in range(N):
                B[n] = max(A[n], A[n + 1] + r)
            B[N] = A[N]
        else:
            s = int(math.floor(marks[j] * N)) + 1
            B[:s] = A[:s]
            B[s:] = A[s - 1:N]
        A, B = B, A
    return A[n0]

@njit(cache=True)
def _idle_after(kind, mark, N, idle):
    # idle servers after one event of a uniformised path when the scanned continuation accepts every
    # H job and no L job: an H arrival takes a server, a potential departure frees one iff its mark
    # falls on a busy server (U N < busy), an L arrival changes nothing
    if kind == 0:
        return idle - 1
    if kind == 2 and mark * N < N - idle:
        return idle + 1
    return idle


@njit(cache=True)
def _cont_ok_window(times, kinds, marks, N, j, idle, tend):
    # continuation after accepting the L job at event j: idle >= 1 on [t_j, tend] ?
    # returns (ok, events scanned)
    if idle < 1:
        return False, 0
    m = kinds.size
    i = j + 1
    while i < m and times[i] <= tend:
        idle = _idle_after(kinds[i], marks[i], N, idle)
        if idle < 1:
            return False, i - j
        i += 1
    return True, i - j


@njit(cache=True)
def _cont_ok_pfi(kinds, marks, N, j, idle, level):
    # returns (ok, events scanned)
    if idle < 1:
        return False, 0
    if idle >= level:
        return True, 0
    m = kinds.size
    i = j + 1
    while i < m:
        idle = _idle_after(kinds[i], marks[i], N, idle)
        if idle < 1:
            return False, i - j
        if idle >= level:
            return True, i - j
        i += 1
    return True, i - j


@njit(cache=True)
def simulate(times, kinds, marks, N, n0, mode, K, W, level, h, rH, rL, max_work):
    # mode 0: trunk reservation K; 1: SSS(W); 2: PFI(level); 3: window DP(W) with terminal h
    # max_work bounds the lookahead work (events scanned, DP cells); past it the run stops and
    # n_end = -1 is returned (the wrapper raises; nothing partial is reported)
    work = 0.0
    n = n0
    accH = 0
    accL = 0
    lostH = 0
    rejL = 0
    wasted = 0
    m = kinds.size
    buf = np.empty(N + 2)
    tmp_lo = np.empty(1024, dtype=np.int64)
    tmp_hi = np.empty(1024, dtype=np.int64)
    for j in range(m):
        k = kinds[j]
        if k == 0:
            if n < N:
                n += 1
                accH += 1
            else:
                lostH += 1
        elif k == 2:
            if marks[j] * N < n:
                n -= 1
            else:
                wasted += 1
        else:
            acc = False
            if n < N:
                if mode == 0:
                    acc = N - n > K
                elif mode == 1:
                    acc, steps = _cont_ok_window(times, kinds, marks, N, j, N - n - 1, times[j] + W)
                    work += steps
                elif mode == 2:
                    acc, steps = _cont_ok_pfi(kinds, marks, N, j, N - n - 1, level)
                    work += steps
                else:
                    # events of the window (t_j, t_j + W]; the states reachable i events
                    # after the decision (from n or n + 1) are [lo_i, hi_i] with
                    # lo_i = n - #potential departures, hi_i = n + 1 + #arrivals among them
                    e = j + 1
                    tend = times[j] + W
                    while e < m and times[e] <= tend:
                        e += 1
                    w = e - j - 1
                    work += e - j
                    if w + 1 > tmp_lo.size:
                        tmp_lo = np.empty(2 * (w + 1), dtype=np.int64)
                        tmp_hi = np.empty(2 * (w + 1), dtype=np.int64)
                    lo_i = tmp_lo
                    hi_i = tmp_hi
                    lo_i[0] = n
                    hi_i[0] = n + 1
                    for i in range(1, w + 1):
                        if kinds[j + i] == 2:
                            lo_i[i] = lo_i[i - 1] - 1 if lo_i[i - 1] > 0 else 0
                            hi_i[i] = hi_i[i - 1]
                        else:
                            lo_i[i] = lo_i[i - 1]
                            hi_i[i] = hi_i[i - 1] + 1 if hi_i[i - 1] < N else N
                    for x in range(lo_i[w], hi_i[w] + 1):
                        buf[x] = h[x]
                    for i in range(1, w + 1):
                        work += hi_i[i] - lo_i[i] + 1
                    if work > max_work:
                        return accH, accL, lostH, rejL, wasted, -1
                    for i in range(w, 0, -1):
                        ev = j + i
                        ki = kinds[ev]
                        a0 = lo_i[i - 1]
                        b0 = hi_i[i - 1]
                        if ki != 2:
                            r = rH if ki == 0 else rL
                            top = b0 if b0 < N else N - 1
                            for x in range(a0, top + 1):
                                v = buf[x + 1] + r
                                if v > buf[x]:
                                    buf[x] = v
                        else:
                            sx = int(math.floor(marks[ev] * N)) + 1
                            if sx < a0:
                                sx = a0
                            for x in range(b0, sx - 1, -1):
                                buf[x] = buf[x - 1]
                    acc = rL + buf[n + 1] >= buf[n]
            if work > max_work:
                return accH, accL, lostH, rejL, wasted, -1
            if acc:
                n += 1
                accL += 1
            else:
                rejL += 1
    return accH, accL, lostH, rejL, wasted, n



def kernels() -> dict:
    """The compiled kernels by name."""
    return {"offline_dp": offline_dp, "offline_dp_plain": offline_dp_plain, "simulate": simulate}
