"""The count-level simulator of :func:`symloss.simulate`: the numba kernel generated from the model's
definition (:mod:`symloss.finite_n.generated`) run over replications, with its error codes turned
into :class:`~symloss.finite_n.chain.FiniteNModelError` naming the state and the transition.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ..core.random import spawn
from ..core.stats import truncated_poisson_weights
from .chain import FiniteNModelError, finite_n_chain
from .common import N_BATCHES
from .generated import ERR_ABSORBING, ERR_LEAVES, ERR_NEGATIVE, ERR_UNDEFINED, count_kernel
from .sim_result import SimulationResult, _check_total, _default_warmup, _intervals
from .states import default_start, tails_from_occupancy

__all__: list = []


def _initial_counts(chain, rng, rho):
    kind, N = chain.state_kind, chain.N
    if kind in ("occupancy", "tail"):
        occ = rng.multinomial(N, truncated_poisson_weights(chain.C, rho)).astype(np.int64)
        if kind == "occupancy":
            return occ
        return tails_from_occupancy(occ)
    return default_start(chain, rho)


def _occupancy_from_counts(chain, mean_counts):
    N = chain.N
    if chain.state_kind == "occupancy":
        return mean_counts / N
    if chain.state_kind == "tail":
        u = np.concatenate([[float(N)], mean_counts, [0.0]]) / N
        return u[:-1] - u[1:]
    return mean_counts / N


#: The warm-up of a replication runs in this many pieces (each a call of the kernel), so that progress
#: is reported during it too; the measured events run one batch (of ``N_BATCHES``) per call.
WARMUP_PIECES = 4


def _run_in_chunks(mod, s, rho_f, N, events, w, st, b_time, b_bsum, b_area, b_ev, err, advance):
    """Run the kernel ``mod.run`` over ``w`` warm-up and ``events`` measured events in pieces, calling
    ``advance(k)`` after each piece of ``k`` events.

    Bit-identical to one call ``mod.run(s, ..., events, w, ...)``: the kernel's whole state between
    events is the counts ``s`` and the generator state ``st`` (both carried in place from call to call);
    its accumulators restart at each batch boundary, and the pieces end exactly at those boundaries
    (batch ``i`` covers the measured events ``[i*events//nb, (i+1)*events//nb)``, one call per batch,
    as the kernel numbers them). The warm-up pieces accumulate nothing (``events=0``). The event index
    of an error (``err[2]``) is made global again.
    """
    nb = b_time.shape[0]
    scratch_t, scratch_b = np.zeros(1), np.zeros(1)
    scratch_area, scratch_ev = np.zeros((1, b_area.shape[1])), np.zeros(1, np.int64)
    piece = max(1, -(-w // WARMUP_PIECES))
    done = 0
    while done < w:
        k = min(piece, w - done)
        mod.run(s, rho_f, float(N), N, 0, k, st, scratch_t, scratch_b, scratch_area, scratch_ev, err)
        if err[0]:
            err[2] += done
            return
        done += k
        advance(k)
    for i in range(nb):
        lo, hi = (i * events) // nb, ((i + 1) * events) // nb
        mod.run(s, rho_f, float(N), N, hi - lo, 0, st, b_time[i:i + 1], b_bsum[i:i + 1], b_area[i:i + 1],
                b_ev[i:i + 1], err)
        if err[0]:
            err[2] += w + lo
            return
        advance(hi - lo)


def _simulate_count(model, N, rho_f, events, warmup, replications, ss, sampling, initial, progress=None):
    """The count-level run of :func:`symloss.simulate` (see there); ``progress(done, total)`` is called
    with the simulated events (warm-up included) after each piece when given, and the kernel then runs
    in pieces (:func:`_run_in_chunks`, bit-identical to one call)."""
    chain = finite_n_chain(model, N, sampling)
    if chain.state_kind == "occupancy":
        bad = np.nonzero(chain.jumps.sum(axis=1) != 0)[0]
        if bad.size:
            raise FiniteNModelError(f"{model!r}: {chain.transition_text(int(bad[0]))} changes the number of "
                                    f"servers n_0 + ... + n_C, so it leaves the state space ({chain.space_text()})")
    if initial is not None:
        initial = np.asarray(initial, dtype=np.int64)
        if initial.shape != (chain.n,):
            raise ValueError(f"initial must be a count state of length {chain.n} (symbols {chain.symbols}), "
                             f"got {initial!r}")
    mod, compile_time = count_kernel(chain)
    nb = N_BATCHES if events >= N_BATCHES else 1
    n = chain.n
    rep_sum = np.zeros(replications)
    rep_time = np.zeros(replications)
    rep_ev = np.zeros(replications, np.int64)
    rep_area = np.zeros((replications, n))
    batches = []
    wall = 0.0
    warm_used = None
    done_events = 0
    planned = []            # warm-up + events of each replication started so far
    for r, rep_ss in enumerate(spawn(ss, replications)):
        init_ss, kern_ss = spawn(rep_ss, 2)
        s = (initial.copy() if initial is not None else _initial_counts(chain, np.random.default_rng(init_ss), rho_f))
        rates0 = np.zeros(len(chain.rates))
        mod.rates_at(s, rho_f, float(N), rates0)
        if warmup is None:
            R0 = float(np.sum(np.clip(rates0, 0, None)))
            w = _default_warmup(max(events // 10, int(math.ceil(10 * R0)) if math.isfinite(R0) else events), events)
        else:
            w = warmup
        if warm_used is None:
            warm_used = w
            _check_total(events, w, replications)
        st = kern_ss.generate_state(4, np.uint64)
        if not st.any():  # pragma: no cover
            st[0] = 1
        b_time = np.zeros(nb)
        b_bsum = np.zeros(nb)
        b_area = np.zeros((nb, n))
        b_ev = np.zeros(nb, np.int64)
        err = np.zeros(3, np.int64)
        t0 = time.perf_counter()
        if progress is None:
            mod.run(s, rho_f, float(N), N, events, w, st, b_time, b_bsum, b_area, b_ev, err)
        else:
            planned.append(w + events)
            total = sum(planned) + (replications - r - 1) * (warm_used + events)

            def advance(k, total=total):
                nonlocal done_events
                done_events += k
                progress(done_events, total)
            _run_in_chunks(mod, s, rho_f, N, events, w, st, b_time, b_bsum, b_area, b_ev, err, advance)
        wall += time.perf_counter() - t0
        if err[0]:
            j = int(err[1])
            where = f"at the state {chain.state_text(s)} (N = {N}, rho = {rho_f:g}, event {int(err[2])})"
            what = chain.transition_text(j) if j >= 0 else "the loss probability b(n)"
            if err[0] == ERR_NEGATIVE:
                raise FiniteNModelError(f"{model!r}: the rate of {what} is negative {where}")
            if err[0] == ERR_UNDEFINED:
                raise FiniteNModelError(f"{model!r}: {what} is undefined (NaN or infinite) {where}")
            if err[0] == ERR_LEAVES:
                raise FiniteNModelError(f"{model!r}: {what} leaves the state space {where}; {chain.space_text()}")
            if err[0] == ERR_ABSORBING:
                raise FiniteNModelError(f"{model!r}: every rate is zero {where} (an absorbing state)")
        rep_sum[r] = b_bsum.sum()
        rep_time[r] = b_time.sum()
        rep_ev[r] = b_ev.sum()
        rep_area[r] = b_area.sum(axis=0)
        batches.append((b_bsum, b_time, np.zeros(nb), b_time, b_area))
    T = rep_time.sum()
    blocking = float(rep_sum.sum() / T) if T > 0 else float("nan")
    mean_counts = rep_area.sum(axis=0) / T
    occupancy = _occupancy_from_counts(chain, mean_counts)

    def norm(area, t):
        return np.array([_occupancy_from_counts(chain, area[i] / t[i]) for i in range(area.shape[0])])
    method, est, ci, se, _lost_ci, occ_ci, one_sided = _intervals(
        rep_sum, rep_time, np.zeros(replications), rep_time, rep_area, batches, replications, N, blocking,
        float("nan"), occupancy, norm, lost_observed=False)
    return SimulationResult(
        policy=getattr(model, "name", type(model).__name__), N=N, C=getattr(model, "C", None), rho=rho_f,
        d=getattr(model, "d", None) if getattr(model, "name", "") in ("retrial", "power") else None,
        sampling=sampling, blocking=blocking, ci=ci, std_error=se, ci_method=method,
        lost_fraction=float("nan"), lost_ci=(float("nan"), float("nan")), occupancy=occupancy,
        occupancy_ci=occ_ci, estimates=np.asarray(est), events=events, warmup=warm_used,
        replications=replications, arrivals=0, simulated_time=float(T), wall_time=wall,
        compile_time=compile_time, seed_entropy=ss.entropy,
        method=("count-level simulation of the finite-N chain, numba kernel generated from the definition "
                f"({chain.source}); blocking = time average of b(n), expected holding times (xoshiro256**)"),
        model=repr(model), kernel="count", state_mean=mean_counts / N, symbols=chain.symbols,
        ci_one_sided=one_sided)
