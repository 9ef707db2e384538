"""Graph families for the supermarket model: CSR adjacency, generators and user graphs.

The numba kernels (``symloss.supermarket._kernels``: CSR build, symmetry check) are imported inside the functions
that use them, so ``import symloss.supermarket`` does not load numba.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..core.random import seed_sequence
from ..core.validation import check_budget, check_choice, check_int, check_max_bytes, real_float
from .meanfield import GRAPH_FAMILIES

# bytes per undirected edge while a graph is built (edge lists, keys, sort buffers, CSR), measured
# generously from the generators below; used to refuse a graph before its arrays are allocated
_BYTES_PER_EDGE = {"random_regular": 64.0, "erdos_renyi": 96.0, "ring": 40.0, "torus": 40.0}

# --------------------------------------------------------------------------------------------------
# graphs
# --------------------------------------------------------------------------------------------------

@dataclass(eq=False)
class Graph:
    """An undirected simple graph in CSR form, as the simulator needs it.

    ``indptr`` (int64, length ``N + 1``) and ``indices`` (int32) list the neighbours of each vertex
    (rows sorted). The complete graph is special-cased: ``complete=True`` and no edge arrays
    (``N^2`` edges are never materialised; the simulator draws neighbours from the other ``N - 1``
    vertices directly).

    Parameters
    ----------
    N : int
        Number of vertices.
    indptr, indices : numpy.ndarray or None
        The CSR arrays (None for the complete graph).
    family : str
        The family the graph was built from, e.g. ``"complete"`` or ``"random_regular"``.
    params : dict, optional
        The family's parameters.
    complete : bool, optional
        The complete graph, with no edge arrays.
    """
    N: int
    indptr: np.ndarray | None
    indices: np.ndarray | None
    family: str
    params: dict = field(default_factory=dict)
    complete: bool = False

    @property
    def degrees(self) -> np.ndarray:
        if self.complete:
            return np.full(self.N, self.N - 1, dtype=np.int64)
        return np.diff(self.indptr)

    @property
    def min_degree(self) -> int:
        return int(self.degrees.min()) if self.N else 0

    @property
    def max_degree(self) -> int:
        return int(self.degrees.max()) if self.N else 0

    @property
    def mean_degree(self) -> float:
        return float(self.degrees.mean()) if self.N else 0.0

    @property
    def n_edges(self) -> int:
        if self.complete:
            return self.N * (self.N - 1) // 2
        return int(self.indptr[-1]) // 2

    @property
    def nbytes(self) -> int:
        return 0 if self.complete else int(self.indptr.nbytes + self.indices.nbytes)

    def neighbors(self, v: int) -> np.ndarray:
        """Neighbours of vertex ``v`` (all other vertices for the complete graph).

        Parameters
        ----------
        v : int
            A vertex, ``0 <= v < N``.

        Returns
        -------
        numpy.ndarray
        """
        v = check_int(v, "v", min_value=0, max_value=self.N - 1)
        if self.complete:
            return np.concatenate([np.arange(v), np.arange(v + 1, self.N)])
        return self.indices[self.indptr[v]:self.indptr[v + 1]]

    def to_networkx(self):
        """The graph as a ``networkx.Graph`` (for small graphs: this builds Python objects)."""
        import networkx as nx
        if self.complete:
            return nx.complete_graph(self.N)
        g = nx.Graph()
        g.add_nodes_from(range(self.N))
        src = np.repeat(np.arange(self.N), np.diff(self.indptr))
        mask = src < self.indices
        g.add_edges_from(zip(src[mask].tolist(), self.indices[mask].tolist()))
        return g

    def to_scipy(self):
        """The adjacency matrix as ``scipy.sparse.csr_matrix`` (not for the complete graph at large N)."""
        import scipy.sparse as sps
        if self.complete:
            a = np.ones((self.N, self.N), dtype=np.int8) - np.eye(self.N, dtype=np.int8)
            return sps.csr_matrix(a)
        return sps.csr_matrix((np.ones(len(self.indices), dtype=np.int8), self.indices, self.indptr),
                              shape=(self.N, self.N))

    def to_dict(self) -> dict:
        return {"N": self.N, "family": self.family, "params": dict(self.params), "complete": self.complete,
                "n_edges": self.n_edges, "min_degree": self.min_degree, "max_degree": self.max_degree,
                "mean_degree": self.mean_degree}

    def __repr__(self) -> str:
        return (f"Graph({self.family}, N={self.N}, edges={self.n_edges}, degree {self.min_degree}"
                f"..{self.max_degree}, params={self.params})")


def _rng(seed, name: str = "seed") -> np.random.Generator:
    """A Generator from ``seed`` (None, int, sequence of ints, SeedSequence — not changed — or a
    Generator, used as is); bad seeds get an error naming ``name``."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed_sequence(seed, name))


def _csr_from_edges(N: int, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric CSR (rows sorted) from an edge list with ``u != v`` and no duplicates."""
    from ._kernels import _csr_build
    return _csr_build(N, np.ascontiguousarray(u, dtype=np.int64), np.ascontiguousarray(v, dtype=np.int64))


def _random_regular(N: int, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int]:
    """Configuration model (random perfect matching of the ``N k`` half-edges) followed by random
    switchings that remove self-loops and multi-edges.

    Every bad pair ``{u, v}`` is replaced, with a uniformly chosen good edge ``{a, b}``, by
    ``{u, a}, {v, b}`` (or ``{u, b}, {v, a}``) when neither new edge is a loop or already present.
    The expected number of bad pairs is about ``(k - 1)/2 + (k - 1)^2/4``, independent of ``N``, so
    this costs one sort; the result is a simple ``k``-regular graph whose law is asymptotically
    uniform (the switching step is the McKay-Wormald device, here without the exact acceptance
    correction, so it is uniform only up to ``O(k^2/N)`` in total variation). Returns
    ``(indptr, indices, n_switches)``.
    """
    M = N * k // 2
    stubs = np.repeat(np.arange(N, dtype=np.int32), k)
    rng.shuffle(stubs)
    u = stubs[0::2].astype(np.int64)
    v = stubs[1::2].astype(np.int64)
    del stubs
    lo = np.minimum(u, v)
    hi = np.maximum(u, v)
    u, v = lo, hi
    keys = u * N + v
    sk = np.sort(keys)
    dvals = np.unique(sk[1:][sk[1:] == sk[:-1]])
    bad = u == v
    for key in dvals:                      # few: O(k^2) in expectation
        where = np.flatnonzero(keys == key)
        bad[where[1:]] = True
    present = set()       # keys added by switchings
    removed = {}          # key -> number of copies removed
    sorted_keys = sk      # multiset of the original keys, sorted

    def count_original(key):
        i = np.searchsorted(sorted_keys, key, side="left")
        j = np.searchsorted(sorted_keys, key, side="right")
        return int(j - i)

    def exists(a, b):
        key = min(a, b) * N + max(a, b)
        return key in present or count_original(key) - removed.get(key, 0) > 0

    def remove(key):
        if key in present:
            present.discard(key)
        else:
            removed[key] = removed.get(key, 0) + 1

    bad_idx = list(np.flatnonzero(bad))
    n_sw = 0
    tries = 0
    while bad_idx:
        tries += 1
        if tries > 1000 * (len(bad_idx) + 10) + 10 ** 6:  # pragma: no cover - practically impossible
            raise RuntimeError("random_regular: switching did not remove all loops/multi-edges")
        e = bad_idx[-1]
        x, y = int(u[e]), int(v[e])
        f = int(rng.integers(M))
        if bad[f]:
            continue
        a, b = int(u[f]), int(v[f])
        if rng.random() < 0.5:
            a, b = b, a
        if x == a or y == b or x == b and y == a:
            continue
        if exists(x, a) or exists(y, b) or (min(x, a), max(x, a)) == (min(y, b), max(y, b)):
            continue
        remove(x * N + y if x < y else y * N + x)
        remove(min(a, b) * N + max(a, b))
        present.add(min(x, a) * N + max(x, a))
        present.add(min(y, b) * N + max(y, b))
        u[e], v[e] = min(x, a), max(x, a)
        u[f], v[f] = min(y, b), max(y, b)
        bad[e] = False
        bad_idx.pop()
        n_sw += 1
    del keys, sk, lo, hi
    indptr, indices = _csr_from_edges(N, u, v)
    return indptr, indices, n_sw


def _erdos_renyi(N: int, p: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """G(N, p): the number of edges is Binomial(N(N-1)/2, p) and, given it, the edge set is a uniform
    subset (pairs drawn uniformly, duplicates and loops discarded, topped up, then a uniform subset
    of the exact size kept)."""
    total = N * (N - 1) // 2
    M = int(rng.binomial(total, p)) if total > 0 else 0
    if M == 0:
        return np.zeros(N + 1, dtype=np.int64), np.zeros(0, dtype=np.int32)
    if M > total // 2:  # dense: enumerate all pairs (only for small N)
        iu, ju = np.triu_indices(N, 1)
        keep = rng.random(len(iu)) < p
        return _csr_from_edges(N, iu[keep].astype(np.int64), ju[keep].astype(np.int64))
    keys = np.zeros(0, dtype=np.int64)
    while len(keys) < M:
        need = int((M - len(keys)) * 1.1) + 16
        a = rng.integers(0, N, size=need, dtype=np.int64)
        b = rng.integers(0, N, size=need, dtype=np.int64)
        m = a != b
        a, b = a[m], b[m]
        keys = np.unique(np.concatenate([keys, np.minimum(a, b) * N + np.maximum(a, b)]))
    if len(keys) > M:
        keys = rng.choice(keys, size=M, replace=False)
    return _csr_from_edges(N, keys // N, keys % N)


def _ring(N: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    offs = np.concatenate([np.arange(-(k // 2), 0), np.arange(1, k // 2 + 1)])
    idx = (np.arange(N, dtype=np.int64)[:, None] + offs[None, :]) % N
    idx.sort(axis=1)
    indptr = np.arange(0, N * k + 1, k, dtype=np.int64)
    return indptr, idx.ravel().astype(np.int32)


def _torus(L: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    N = L * L
    x, y = np.divmod(np.arange(N, dtype=np.int64), L)
    moves = [(1, 0), (-1, 0), (0, 1), (0, -1)]
    if k == 8:
        moves += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    cols = [((x + dx) % L) * L + (y + dy) % L for dx, dy in moves]
    idx = np.stack(cols, axis=1)
    idx.sort(axis=1)
    indptr = np.arange(0, N * k + 1, k, dtype=np.int64)
    return indptr, idx.ravel().astype(np.int32)


def _graph_from_user(g) -> Graph:
    """Convert a networkx graph or a scipy sparse matrix (adjacency pattern) to :class:`Graph`."""
    import scipy.sparse as sps
    if isinstance(g, Graph):
        return g
    if sps.issparse(g):
        a = sps.csr_matrix(g)
        if a.shape[0] != a.shape[1]:
            raise ValueError(f"graph: a sparse adjacency matrix must be square, got shape {a.shape}")
        N = a.shape[0]
        a.sum_duplicates()
        a.eliminate_zeros()
        a.sort_indices()
        family = "scipy"
    else:
        try:
            import networkx as nx
        except ImportError:  # pragma: no cover
            nx = None
        if nx is None or not isinstance(g, nx.Graph):
            raise TypeError("graph must be a family name, a symloss Graph, a networkx Graph or a scipy "
                            f"sparse adjacency matrix, got {type(g).__name__}")
        if g.is_directed():
            raise ValueError("graph: a directed networkx graph was given; the supermarket model needs an "
                             "undirected graph (use G.to_undirected())")
        N = g.number_of_nodes()
        if N == 0:
            raise ValueError("graph is empty (0 vertices)")
        a = nx.to_scipy_sparse_array(g, nodelist=list(g.nodes()), format="csr", weight=None)
        a = sps.csr_matrix(a)
        a.sort_indices()
        family = "networkx"
    if N == 0:
        raise ValueError("graph is empty (0 vertices)")
    from ._kernels import _check_simple_symmetric
    indptr = a.indptr.astype(np.int64)
    indices = a.indices.astype(np.int32)
    loop, multi, sym = _check_simple_symmetric(indptr, indices, N)
    if not sym:
        raise ValueError("graph: the adjacency matrix is not symmetric; the supermarket model needs an "
                         "undirected graph")
    if loop:
        warnings.warn("graph has self-loops; they are removed (a vertex is not its own neighbour)",
                      stacklevel=3)
        src = np.repeat(np.arange(N), np.diff(indptr))
        keep = src != indices
        counts = np.bincount(src[keep], minlength=N)
        indices = indices[keep]
        indptr = np.zeros(N + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
    return Graph(N, indptr, np.ascontiguousarray(indices), family, {})


def make_graph(family, N: int | None = None, *, k: int | None = None, c=None, seed=None,
               max_bytes=None) -> Graph:
    r"""Build a graph for the supermarket model.

    Parameters
    ----------
    family : str or graph
        ``"complete"`` (no edges stored), ``"random_regular"`` (``k``), ``"erdos_renyi"``
        (``c``: mean degree, edge probability ``c/(N-1)``; ``c`` may be a number, ``"ln"`` for
        :math:`\ln N` or ``"ln2"`` for :math:`(\ln N)^2`), ``"ring"`` (ring lattice, each vertex
        joined to the ``k/2`` nearest on each side; ``k`` even, default 2), ``"torus"``
        (2-dimensional ``L x L`` torus, ``N = L^2``, ``k = 4`` nearest or ``k = 8`` with
        diagonals). A networkx graph or a scipy sparse adjacency matrix is converted (it must be
        undirected; self-loops are dropped with a warning).
    N : int
        Number of vertices (not used for a user graph).
    k : int, optional
        Degree of ``random_regular``, ``ring`` and ``torus``.
    c : float, "ln" or "ln2", optional
        Mean degree of ``erdos_renyi``.
    seed : int, sequence of ints, SeedSequence or Generator, optional
        Randomness of the random families (a SeedSequence is not changed; a Generator is advanced).
    max_bytes : float, optional
        Memory budget for building the graph (default 4 GiB): the number of edges is estimated
        first (``N k / 2``, or the mean ``c N / 2`` for Erdos-Renyi) and a graph that would not fit is
        refused with a :class:`~symloss.core.validation.BudgetError` before anything is allocated.

    Returns
    -------
    Graph
        The graph in compressed sparse row form (``complete`` stores no edges).

    Examples
    --------
    >>> g = make_graph("random_regular", 1000, k=3, seed=1)
    >>> g.N, g.min_degree, g.max_degree, g.n_edges
    (1000, 3, 3, 1500)

    Notes
    -----
    ``random_regular`` uses the configuration model with switchings (see ``_random_regular``):
    linear time and memory, ``N = 10^6, k = 10`` in a few seconds. ``erdos_renyi`` draws the edge
    count from the binomial law and a uniform edge set of that size.
    """
    if not isinstance(family, str):
        if N is not None or k is not None or c is not None:
            raise TypeError("make_graph(graph) converts a user graph; N, k and c are only for families")
        return _graph_from_user(family)
    check_choice(family, "family", GRAPH_FAMILIES)
    if N is None:
        raise TypeError(f"make_graph({family!r}) needs N")
    N = check_int(N, "N", min_value=1, max_value=2 ** 31 - 1)
    max_bytes = check_max_bytes(max_bytes)
    rng = _rng(seed)

    def budget(edges: float) -> None:
        check_budget(_BYTES_PER_EDGE[family] * edges + 24.0 * N, max_bytes, "max_bytes",
                     what=f"make_graph({family!r}, N={N}): about {edges:.3g} edges", unit="bytes",
                     hint="lower N or the degree, or raise max_bytes")
    if family == "complete":
        if k is not None or c is not None:
            raise TypeError("the complete graph takes no k or c")
        return Graph(N, None, None, "complete", {}, complete=True)
    if family == "random_regular":
        if k is None:
            raise TypeError("random_regular needs the degree k")
        k = check_int(k, "k", min_value=1, max_value=N - 1)
        if (N * k) % 2:
            raise ValueError(f"random_regular: N*k must be even, got N={N}, k={k}")
        budget(N * k / 2)
        indptr, indices, nsw = _random_regular(N, k, rng)
        return Graph(N, indptr, indices, "random_regular", {"k": k, "switchings": nsw})
    if family == "erdos_renyi":
        if c is None:
            raise TypeError("erdos_renyi needs the mean degree c (a number, 'ln' or 'ln2')")
        if isinstance(c, str):
            check_choice(c, "c", ("ln", "ln2"))
            cval = math.log(N) if c == "ln" else math.log(N) ** 2
        else:
            cval = real_float(c, "c", lower=0, upper=max(N - 1, 0))
        if N < 2:
            raise ValueError("erdos_renyi needs N >= 2")
        p = min(1.0, cval / (N - 1))
        total = N * (N - 1) / 2
        budget(p * total + 6 * math.sqrt(p * total + 1) + (3.0 * total if p * total > total / 2 else 0.0))
        indptr, indices = _erdos_renyi(N, p, rng)
        return Graph(N, indptr, indices, "erdos_renyi", {"c": c, "c_value": cval, "p": p})
    if family == "ring":
        k = 2 if k is None else check_int(k, "k", min_value=2)
        if k % 2 or k >= N:
            raise ValueError(f"ring: k must be even and < N, got k={k}, N={N}")
        budget(N * k / 2)
        indptr, indices = _ring(N, k)
        return Graph(N, indptr, indices, "ring", {"k": k})
    # torus
    k = 4 if k is None else check_int(k, "k")
    if k not in (4, 8):
        raise ValueError(f"torus: k must be 4 (nearest neighbours) or 8 (with diagonals), got {k}")
    L = math.isqrt(N)
    if L * L != N or L < 3:
        raise ValueError(f"torus: N must be a perfect square L*L with L >= 3, got N={N}")
    budget(N * k / 2)
    indptr, indices = _torus(L, k)
    return Graph(N, indptr, indices, "torus", {"k": k, "L": L})


