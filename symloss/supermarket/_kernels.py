"""Numba kernels of the supermarket-model simulator (private; see :mod:`symloss.supermarket`).

The public, validating wrapper is :func:`symloss.supermarket.simulate_supermarket`. The kernel
works on CSR arrays (``indptr`` int64, ``indices`` int32) or, for the complete graph, on no edge
array at all (``complete=True``: neighbours are drawn uniformly from the other ``N - 1`` vertices).

Event-driven simulation (no uniformisation): the total event rate is ``lam*N + B`` with ``B`` the
number of busy servers; the next event is an arrival with probability ``lam*N/(lam*N + B)`` (at a
uniform vertex), otherwise a departure from a uniformly chosen busy server (kept in an array with
O(1) insertion and removal). Random numbers come from numba's own generator, seeded inside the
kernel, so a given seed always gives the same path.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _grow(a, newlen):
    b = np.zeros(newlen, dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(cache=True)
def _grow2(a, newcols):
    b = np.zeros((a.shape[0], newcols), dtype=a.dtype)
    b[:, : a.shape[1]] = a
    return b


@njit(cache=True)
def _level_capacity(q, N):
    """``(max(q), kcap)``: the longest queue and the first length of the level arrays, the least
    ``kcap = 64 * 2**i >= 2 max(q) + 2``."""
    kcap = 64
    qmax0 = 0
    for v in range(N):
        if q[v] > qmax0:
            qmax0 = q[v]
    while kcap < 2 * qmax0 + 2:
        kcap *= 2
    return qmax0, kcap


@njit(inline="always")
def _drawn_before(buf, r, p):
    """True if ``p`` is among the ``r`` neighbour indices ``buf[:r]`` drawn already (sampling without replacement)."""
    for s in range(r):
        if buf[s] == p:
            return True
    return False


@njit(cache=True)
def _simulate_kernel(indptr, indices, complete, N, d, lam, replace, q, t_end, warmup, rec_dt,
                     n_batches, seed, max_kcap):
    """Run the supermarket model on one graph from the queue lengths ``q`` (modified in place).

    ``max_kcap``: the recorded level arrays may not grow beyond this many levels (the memory budget);
    a queue that would need more stops the run and is reported by ``kmax_seen = -1``.

    Returns ``(rec_t, rec_cnt, area, batch_area, n_arrivals, n_departures, kmax_seen)``:
    ``rec_cnt[i, j]`` = number of vertices with at least ``j`` tasks at time ``rec_t[i]``;
    ``area[j]`` = integral over ``[warmup, t_end]`` of that count; ``batch_area[b]`` = integral of
    the total number of tasks over batch ``b`` of ``[warmup, t_end]`` (equal lengths).
    """
    np.random.seed(seed)
    qmax0, kcap = _level_capacity(q, N)
    cnt = np.zeros(kcap, dtype=np.int64)           # cnt[j] = #{v : q[v] >= j}
    busy = np.empty(N, dtype=np.int32)
    pos = np.full(N, -1, dtype=np.int32)
    nb = 0
    total = 0
    for v in range(N):
        qv = q[v]
        total += qv
        for j in range(qv + 1):
            cnt[j] += 1
        if qv > 0:
            pos[v] = nb
            busy[nb] = v
            nb += 1
    area = np.zeros(kcap, dtype=np.float64)
    last = np.zeros(kcap, dtype=np.float64)
    n_rec = int(np.floor(t_end / rec_dt + 1e-9)) + 1
    rec_t = np.empty(n_rec, dtype=np.float64)
    rec_cnt = np.zeros((n_rec, kcap), dtype=np.int64)
    ri = 0
    next_rec = 0.0
    batch_area = np.zeros(n_batches, dtype=np.float64)
    blen = (t_end - warmup) / n_batches
    buf = np.empty(max(d - 1, 1), dtype=np.int64)
    lamN = lam * N
    t = 0.0
    n_arr = 0
    n_dep = 0
    kmax_seen = qmax0
    while True:
        R = lamN + nb
        tn = t - np.log(1.0 - np.random.random()) / R
        if tn > t_end:
            tn = t_end
        # recordings of the (constant) state on [t, tn); at the end every remaining grid time
        while ri < n_rec and (next_rec < tn or tn >= t_end):
            rec_t[ri] = next_rec if next_rec < t_end else t_end
            for j in range(kcap):
                rec_cnt[ri, j] = cnt[j]
            ri += 1
            next_rec = ri * rec_dt
        # total-queue integral split over the batches of [warmup, t_end]
        if tn > warmup:
            a = t if t > warmup else warmup
            b = int((a - warmup) / blen)
            if b >= n_batches:
                b = n_batches - 1
            while True:
                bend = warmup + (b + 1) * blen if b < n_batches - 1 else np.inf
                e = tn if tn < bend else bend
                if e > a:
                    batch_area[b] += total * (e - a)
                if tn <= bend:
                    break
                a = e
                b += 1
        if tn >= t_end:
            break
        t = tn
        if np.random.random() * R < lamN:
            # arrival at a uniform vertex v; JSQ among v and d - 1 neighbours, ties uniform
            v = int(np.random.random() * N)
            if v >= N:
                v = N - 1
            best = v
            bq = q[v]
            nties = 1
            if d > 1:
                if complete:
                    deg = N - 1
                else:
                    deg = indptr[v + 1] - indptr[v]
                if deg > 0:
                    for r in range(d - 1):
                        if replace:
                            p = int(np.random.random() * deg)
                        else:
                            while True:
                                p = int(np.random.random() * deg)
                                if not _drawn_before(buf, r, p):
                                    break
                            buf[r] = p
                        if complete:
                            w = p if p < v else p + 1
                        else:
                            w = indices[indptr[v] + p]
                        qw = q[w]
                        if qw < bq:
                            best = w
                            bq = qw
                            nties = 1
                        elif qw == bq:
                            nties += 1
                            if np.random.random() * nties < 1.0:
                                best = w
            # join best
            j = bq + 1
            if j >= kcap:
                newcap = 2 * kcap
                if newcap > max_kcap:
                    return rec_t[:ri], rec_cnt[:ri], area, batch_area, n_arr, n_dep, -1
                cnt = _grow(cnt, newcap)
                area = _grow(area, newcap)
                last = _grow(last, newcap)
                rec_cnt = _grow2(rec_cnt, newcap)
                kcap = newcap
            if t > warmup:
                lo = last[j] if last[j] > warmup else warmup
                area[j] += cnt[j] * (t - lo)
            last[j] = t
            cnt[j] += 1
            if j > kmax_seen:
                kmax_seen = j
            q[best] = j
            total += 1
            if bq == 0:
                pos[best] = nb
                busy[nb] = best
                nb += 1
            n_arr += 1
        else:
            i = int(np.random.random() * nb)
            if i >= nb:
                i = nb - 1
            v = busy[i]
            j = q[v]
            if t > warmup:
                lo = last[j] if last[j] > warmup else warmup
                area[j] += cnt[j] * (t - lo)
            last[j] = t
            cnt[j] -= 1
            q[v] = j - 1
            total -= 1
            if j == 1:
                u = busy[nb - 1]
                busy[i] = u
                pos[u] = i
                pos[v] = -1
                nb -= 1
            n_dep += 1
    t = t_end
    for j in range(kcap):
        lo = last[j] if last[j] > warmup else warmup
        if t_end > lo:
            area[j] += cnt[j] * (t_end - lo)
    return rec_t[:ri], rec_cnt[:ri], area, batch_area, n_arr, n_dep, kmax_seen


@njit(cache=True)
def _check_simple_symmetric(indptr, indices, N):
    """(has_self_loop, has_multi_edge, is_symmetric) for a CSR pattern with sorted rows."""
    loop = False
    multi = False
    for v in range(N):
        for p in range(indptr[v], indptr[v + 1]):
            w = indices[p]
            if w == v:
                loop = True
            if p > indptr[v] and indices[p - 1] == w:
                multi = True
    sym = True
    for v in range(N):
        for p in range(indptr[v], indptr[v + 1]):
            w = indices[p]
            # binary search v in row w
            lo = indptr[w]
            hi = indptr[w + 1]
            while lo < hi:
                mid = (lo + hi) // 2
                if indices[mid] < v:
                    lo = mid + 1
                else:
                    hi = mid
            if lo >= indptr[w + 1] or indices[lo] != v:
                sym = False
                return loop, multi, sym
    return loop, multi, sym


@njit(cache=True)
def _csr_build(N, u, v):
    """Symmetric CSR (int64 indptr, int32 indices, rows sorted) from an edge list (u[e], v[e])."""
    M = u.shape[0]
    indptr = np.zeros(N + 1, dtype=np.int64)
    for e in range(M):
        indptr[u[e] + 1] += 1
        indptr[v[e] + 1] += 1
    for i in range(N):
        indptr[i + 1] += indptr[i]
    fill = indptr[:-1].copy()
    indices = np.empty(2 * M, dtype=np.int32)
    for e in range(M):
        a = u[e]
        b = v[e]
        indices[fill[a]] = b
        fill[a] += 1
        indices[fill[b]] = a
        fill[b] += 1
    for i in range(N):
        _shell_sort(indices, indptr[i], indptr[i + 1])
    return indptr, indices


@njit(cache=True)
def _shell_sort(a, lo, hi):
    """Sort ``a[lo:hi]`` in place (Shell sort, Ciura gaps; rows are short, and this compiles fast)."""
    n = hi - lo
    gaps = (701, 301, 132, 57, 23, 10, 4, 1)
    for gi in range(len(gaps)):
        gap = gaps[gi]
        if gap >= n:
            continue
        for p in range(lo + gap, hi):
            x = a[p]
            r = p
            while r - gap >= lo and a[r - gap] > x:
                a[r] = a[r - gap]
                r -= gap
            a[r] = x


@njit(inline="always")
def _splitmix(state):
    """splitmix64 (Steele, Lea, Flood 2014): returns (new state, uniform double in [0, 1))."""
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return state, float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _uniformized_kernel(indptr, indices, kreg, complete, N, d, lam, replace, q, counts, h, warm_slots,
                        n_batches, seed, max_kcap):
    """Uniformised simulation: potential events at constant rate ``(1 + lam) N``.

    A potential event is an arrival at a uniform vertex (probability ``lam/(1 + lam)``) or a
    potential departure at a uniform vertex (a real departure iff that queue is non-empty). Time
    is cut into ``n_slots`` slots of length ``h``; the number of potential events in a slot is
    Poisson(``(1 + lam) N h``) (so no exponential is drawn per event), and the state at each slot
    end is recorded. Time integrals over a slot use the conditional expectation given the
    number ``n`` of events: each of the ``n + 1`` visited states holds for ``h/(n + 1)`` on
    average (uniform spacings), which is unbiased. Per-event random numbers come from an inline
    splitmix64 generator seeded from ``seed``.

    ``kreg > 0`` means every vertex has degree ``kreg`` and ``indices`` is read with stride ``kreg``.
    ``max_kcap`` bounds the level arrays (memory budget): a queue that would need more stops the run,
    reported by ``kmax_seen = -1``.
    Returns ``(rec_cnt, area, batch_area, n_arrivals, n_departures, n_dummy, kmax_seen)``.
    """
    n_slots = counts.shape[0]
    state = np.uint64(seed) * np.uint64(0x2545F4914F6CDD1D) + np.uint64(0x632BE59BD9B4E019)
    qmax0, kcap = _level_capacity(q, N)
    cnt = np.zeros(kcap, dtype=np.int64)
    total = 0
    for v in range(N):
        total += q[v]
        for j in range(q[v] + 1):
            cnt[j] += 1
    acc = np.zeros(kcap, dtype=np.float64)
    lasti = np.zeros(kcap, dtype=np.int64)
    area = np.zeros(kcap, dtype=np.float64)
    rec_cnt = np.zeros((n_slots + 1, kcap), dtype=np.int64)
    for j in range(kcap):
        rec_cnt[0, j] = cnt[j]
    batch_area = np.zeros(n_batches, dtype=np.float64)
    stat_slots = n_slots - warm_slots
    buf = np.empty(max(d - 1, 1), dtype=np.int64)
    lamN = lam * N
    Lam = lamN + N
    n_arr = 0
    n_dep = 0
    n_dummy = 0
    kmax_seen = qmax0
    CH = 512                                   # events per chunk (see below)
    dm1 = max(d - 1, 1)
    typ = np.empty(CH, dtype=np.uint8)
    vv = np.empty(CH, dtype=np.int64)
    ww = np.empty(CH * dm1, dtype=np.int64)
    for sl in range(n_slots):
        n = counts[sl]
        accQ = float(total)
        done = 0
        while done < n:
            m = n - done if n - done < CH else CH
            # phase 1 (independent of the queue state): event types, vertices, sampled neighbours.
            # The neighbour-list reads of different events do not depend on each other, so the CPU
            # overlaps their cache misses.
            for e in range(m):
                state, u = _splitmix(state)
                x = u * Lam
                if x < lamN:
                    v = int(x / lam)
                    if v >= N:
                        v = N - 1
                    typ[e] = 1
                    vv[e] = v
                    if d > 1:
                        if complete:
                            deg = N - 1
                            base = 0
                        elif kreg > 0:
                            deg = kreg
                            base = v * kreg
                        else:
                            base = indptr[v]
                            deg = indptr[v + 1] - base
                        for r in range(d - 1):
                            if deg == 0:
                                ww[e * dm1 + r] = v
                                continue
                            if replace or r == 0:
                                state, u2 = _splitmix(state)
                                p = int(u2 * deg)
                            else:
                                while True:
                                    state, u2 = _splitmix(state)
                                    p = int(u2 * deg)
                                    if not _drawn_before(buf, r, p):
                                        break
                            buf[r] = p
                            if complete:
                                ww[e * dm1 + r] = p if p < v else p + 1
                            else:
                                ww[e * dm1 + r] = indices[base + p]
                else:
                    v = int(x - lamN)
                    if v >= N:
                        v = N - 1
                    typ[e] = 0
                    vv[e] = v
            # phase 2: apply the events in order
            for e in range(m):
                i = done + e + 1
                v = vv[e]
                if typ[e] == 1:
                    best = v
                    bq = q[v]
                    nties = 1
                    for r in range(d - 1):
                        w = ww[e * dm1 + r]
                        if w == v:             # isolated vertex: no neighbour was drawn
                            continue
                        qw = q[w]
                        if qw < bq:
                            best = w
                            bq = qw
                            nties = 1
                        elif qw == bq:
                            nties += 1
                            state, u3 = _splitmix(state)
                            if u3 * nties < 1.0:
                                best = w
                    j = bq + 1
                    if j >= kcap:
                        newcap = 2 * kcap
                        if newcap > max_kcap:
                            return rec_cnt, area, batch_area, n_arr, n_dep, n_dummy, -1
                        cnt = _grow(cnt, newcap)
                        acc = _grow(acc, newcap)
                        lasti = _grow(lasti, newcap)
                        area = _grow(area, newcap)
                        rec_cnt = _grow2(rec_cnt, newcap)
                        kcap = newcap
                    acc[j] += cnt[j] * (i - lasti[j])
                    lasti[j] = i
                    cnt[j] += 1
                    if j > kmax_seen:
                        kmax_seen = j
                    q[best] = j
                    total += 1
                    n_arr += 1
                else:
                    j = q[v]
                    if j > 0:
                        acc[j] += cnt[j] * (i - lasti[j])
                        lasti[j] = i
                        cnt[j] -= 1
                        q[v] = j - 1
                        total -= 1
                        n_dep += 1
                    else:
                        n_dummy += 1
                accQ += total
            done += m
        # end of slot: flush the level integrals, weight h/(n+1) per visited state
        w = h / (n + 1)
        if sl >= warm_slots:
            b = ((sl - warm_slots) * n_batches) // stat_slots
            batch_area[b] += accQ * w
            for j in range(1, kmax_seen + 2):
                if j < kcap:
                    area[j] += (acc[j] + cnt[j] * (n + 1 - lasti[j])) * w
        for j in range(kmax_seen + 2):
            if j < kcap:
                acc[j] = 0.0
                lasti[j] = 0
        for j in range(kcap):
            rec_cnt[sl + 1, j] = cnt[j]
    return rec_cnt, area, batch_area, n_arr, n_dep, n_dummy, kmax_seen
