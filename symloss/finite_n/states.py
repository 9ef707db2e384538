r"""State spaces of the finite-N count chains (:mod:`symloss.finite_n.chain`): enumeration of the
occupancy and tail spaces, an index of integer states, the custom space by breadth-first search, and
the conversions between occupancies and tails.

``state_kind="occupancy"``: the compositions :math:`n_0 + \dots + n_C = N`; ``"tail"``: the monotone
tails :math:`N \ge U_1 \ge \dots \ge U_C \ge 0`; ``"custom"``: the integer points with
:math:`0 \le n_i \le N` that satisfy the model's invariants and are reachable from an initial state.
The functions take a :class:`~symloss.finite_n.chain.FiniteNChain` (this module does not import it:
the chain module re-exports these names).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = ["StateIndex", "custom_in_space", "default_start", "enumerate_states", "explore_states",
           "n_states_estimate", "tails_from_occupancy"]


def tails_from_occupancy(occ):
    """The tails :math:`U_k = \\sum_{j \\ge k} n_j`, ``k = 1..C``, of occupancies ``n_0..n_C`` (last axis).

    Parameters
    ----------
    occ : numpy.ndarray
        Occupancy counts or fractions ``(..., C + 1)``.

    Returns
    -------
    numpy.ndarray
        ``(..., C)``, a new array.

    Examples
    --------
    >>> import numpy as np
    >>> tails_from_occupancy(np.array([1, 2, 3])).tolist()
    [5, 3]
    """
    occ = np.asarray(occ)
    return np.cumsum(occ[..., ::-1], axis=-1)[..., ::-1][..., 1:].copy()


def n_states_estimate(kind: str, N: int, C: int) -> float:
    """Number of states of an occupancy / tail chain, ``C(N + C, C)``, as a float computed from
    log-gamma (no huge integer is formed for absurd sizes).

    Parameters
    ----------
    kind : {"occupancy", "tail"}
        The state kind (both spaces have the same size).
    N : int
        Number of servers.
    C : int
        Capacity of a server.

    Returns
    -------
    float
        ``binom(N + C, C)`` (capped near ``e^700``).

    Examples
    --------
    >>> round(n_states_estimate("tail", 10, 2))          # binom(12, 2)
    66
    """
    lg = math.lgamma(N + C + 1) - math.lgamma(N + 1) - math.lgamma(C + 1)
    return math.exp(min(lg, 700.0))


def _compositions(N: int, parts: int) -> np.ndarray:
    """All (n_0, ..., n_{parts-1}) >= 0 with sum N (stars and bars), one per row."""
    C = parts - 1
    M = math.comb(N + C, C)
    if C == 0:
        return np.full((1, 1), N, np.int64)
    bars = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(N + C), C)),
                       dtype=np.int64, count=M * C).reshape(M, C)
    ext = np.concatenate([np.full((M, 1), -1, np.int64), bars, np.full((M, 1), N + C, np.int64)], axis=1)
    return np.diff(ext, axis=1) - 1


def enumerate_states(chain) -> np.ndarray:
    """The states of an occupancy or tail chain (rows, in the order of ``chain.symbols``).

    Parameters
    ----------
    chain : FiniteNChain
        A chain of a model with ``state_kind`` ``"occupancy"`` or ``"tail"``.

    Returns
    -------
    numpy.ndarray
        ``(binom(N + C, C), n)`` int64: the compositions ``n_0 + ... + n_C = N`` or the monotone
        tails ``N >= U_1 >= ... >= U_C >= 0``.

    Examples
    --------
    >>> from symloss import PowerOfD, finite_n_chain
    >>> from symloss.finite_n.chain import enumerate_states
    >>> enumerate_states(finite_n_chain(PowerOfD(2, 2), 2)).tolist()
    [[2, 2], [2, 1], [2, 0], [1, 1], [1, 0], [0, 0]]
    """
    C, N = chain.C, chain.N
    occ = _compositions(N, C + 1)
    if chain.state_kind == "occupancy":
        return occ
    return tails_from_occupancy(occ)      # U_k = sum_{j >= k} n_j


class StateIndex:
    """Index of a set of integer states (rows): mixed-radix int64 keys when they fit, byte keys
    otherwise; ``lookup(T)`` gives the row index of each row of ``T`` or -1.

    Parameters
    ----------
    S : numpy.ndarray
        ``(M, n)`` integer states with entries in ``[0, N]``.
    N : int
        Largest entry (number of servers).
    """

    def __init__(self, S: np.ndarray, N: int):
        self.n = S.shape[1]
        self.radix = N + 1
        self.int_keys = self.n * math.log2(self.radix) < 62
        keys = self._keys(S)
        self.order = np.argsort(keys, kind="stable")
        self.sorted = keys[self.order]

    def _keys(self, T):
        T = np.ascontiguousarray(T, dtype=np.int64)
        if self.int_keys:
            w = self.radix ** np.arange(self.n, dtype=np.int64)
            return T @ w
        return T.view(np.dtype((np.void, 8 * self.n))).ravel()

    def lookup(self, T: np.ndarray) -> np.ndarray:
        """The row index in ``S`` of each row of ``T``.

        Parameters
        ----------
        T : numpy.ndarray
            ``(K, n)`` integer states (any entries).

        Returns
        -------
        numpy.ndarray
            ``(K,)`` int64: the index, or -1 for a state not in ``S``.
        """
        inside = np.all((T >= 0) & (T < self.radix), axis=1)
        out = np.full(T.shape[0], -1, np.int64)
        if not inside.any():
            return out
        k = self._keys(T[inside])
        pos = np.searchsorted(self.sorted, k)
        pos = np.minimum(pos, self.sorted.size - 1)
        hit = self.sorted[pos] == k
        res = np.where(hit, self.order[pos], -1)
        out[inside] = res
        return out


def custom_in_space(chain):
    """Membership test of the custom state space: ``0 <= n_i <= N`` and the model's invariants
    (``c . n = N * value``).

    Parameters
    ----------
    chain : FiniteNChain
        The chain (its ``N`` and its model's invariants).

    Returns
    -------
    callable
        ``in_space(T) -> numpy.ndarray`` of bool, one per row of ``T``.
    """
    N = chain.N
    inv = [(np.array([float(c) for c in cc]), float(v) * N) for cc, v in chain.model._invariants]

    def in_space(T):
        ok = np.all((T >= 0) & (T <= N), axis=1)
        for c, v in inv:
            ok &= np.abs(T @ c - v) <= 1e-9 * max(1.0, abs(v))
        return ok
    return in_space


def explore_states(chain, start: np.ndarray, rho: float, max_states: int):
    """Breadth-first search of the states reachable from ``start`` through transitions of positive
    rate (vectorised by frontier). Checks every rate on the way.

    Parameters
    ----------
    chain : FiniteNChain
        A chain of a custom state space.
    start : array_like of int
        The initial counts.
    rho : float
        Load per server.
    max_states : int
        Stop (and raise) beyond this many reachable states.

    Returns
    -------
    numpy.ndarray
        ``(M, n)`` int64: the reachable states (rows), ``start`` first.

    Raises
    ------
    ValueError
        If ``start`` is not in the state space or more than ``max_states`` states are reachable.
    FiniteNModelError
        If a rate is undefined or negative at a visited state, or a transition leaves the space.
    """
    in_space = custom_in_space(chain)
    start = np.asarray(start, dtype=np.int64).reshape(1, -1)
    if not in_space(start)[0]:
        raise ValueError(f"initial state {chain.state_text(start[0])} is not in the state space "
                         f"({chain.space_text()})")
    seen = {tuple(start[0])}
    states = [start]
    frontier = start
    total = 1
    while frontier.shape[0]:
        R = chain.rate_matrix(frontier, rho)
        R = chain.check_rates(frontier, R, rho, in_space)
        new = []
        for j in range(R.shape[1]):
            pos = R[:, j] > 0
            if pos.any():
                new.append(frontier[pos] + chain.jumps[j])
        if not new:
            break
        cand = np.unique(np.concatenate(new), axis=0)
        fresh = [row for row in cand if tuple(row) not in seen]
        if not fresh:
            break
        for row in fresh:
            seen.add(tuple(row))
        total += len(fresh)
        if total > max_states:
            raise ValueError(f"the finite-N chain of {chain.model!r} at N = {chain.N} has more than "
                             f"max_states = {max_states} reachable states (breadth-first search stopped); "
                             "raise max_states or use simulate()")
        frontier = np.array(fresh, dtype=np.int64)
        states.append(frontier)
    return np.concatenate(states)


def default_start(chain, rho: float) -> np.ndarray:
    """A count state for the search / simulation of a custom chain: ``N`` times the model's
    ``initial_state(rho)`` (or its mean-field fixed point), rounded so that integer invariants hold
    where they can (largest remainders).

    Parameters
    ----------
    chain : FiniteNChain
        The chain.
    rho : float
        Load per server.

    Returns
    -------
    numpy.ndarray
        int64 counts, one per count variable.
    """
    model, N = chain.model, chain.N
    x = model.initial_state(rho)
    if x is None:
        fp = model.fixed_point(rho, dps=15)
        x = [float(v) for v in fp.x]
    x = np.clip(np.asarray([float(v) for v in x]), 0.0, 1.0)
    n = np.floor(N * x).astype(np.int64)
    inv = model._invariants
    if len(inv) == 1 and all(c == 1 for c in inv[0][0]):
        target = int(round(float(inv[0][1]) * N))
        frac = N * x - n
        for i in np.argsort(-frac)[: max(0, target - int(n.sum()))]:
            n[i] += 1
    return n
