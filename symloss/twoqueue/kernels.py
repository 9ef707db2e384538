r"""Level kernels of a two-queue model, generated from its transition function.

The state space ``[0, N]^2`` is cut into the levels :math:`K = m + n`. :func:`level_kernels` calls the
model's ``transitions(m, n)`` on every state and records, level by level, the rates into level ``K``
from levels ``K - 1`` (matrix :math:`U_K`), ``K + 1`` (:math:`D_K`) and ``K`` itself (:math:`I_K`),
as exact affine functions ``c1 * rho + c0`` of the load. It also checks the structure every fast
solver relies on, and says which one fails:

* ``adjacent``: every transition changes ``K`` by -1, 0 or +1 (block-tridiagonal generator: the level
  reductions apply);
* ``symmetric``: the rates commute with the exchange :math:`(m, n) \mapsto (n, m)`; then the stationary
  law is symmetric and the chain is *exactly* lumpable to the unordered pairs ``(K, d)``,
  ``d = |m - n|`` (one class per pair; the kernels are then built on the classes);
* ``aggregated``: every state of a level has the same total up-rate :math:`\lambda_K` and down-rate
  :math:`\mu_K`; then ``K`` is a birth-death chain and :math:`\pi_K \propto \prod \lambda_{i-1}/\mu_i`
  exactly (for the Yao-Knessl model :math:`\lambda_K = \rho`, :math:`\mu_K = K`: truncated Poisson);
* ``irreducible``: one communicating class (checked on the generated graph).

Examples
--------
>>> from symloss.twoqueue.definition import transitions
>>> k = level_kernels(2, lambda i, j: transitions(2, i, j))
>>> k.symmetric, k.adjacent, k.aggregated, k.irreducible, k.sizes
(True, True, True, True, [1, 1, 2, 1, 1])
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction

from ..core.validation import check_int

__all__ = ["LevelKernels", "level_kernels", "StructureError"]


class StructureError(ValueError):
    """The model does not have the structure a solver relies on (the message says which)."""


@dataclass
class LevelKernels:
    r"""Generated kernels (exact rates ``(c1, c0)``, rate = ``c1 * rho + c0``).

    ``states[K]`` lists the representatives of level ``K`` (lumped: ``(m, n)`` with ``m <= n``, one per
    class ``d = n - m``; unlumped: every state, ordered by ``m``). ``U[K]``, ``D[K]``, ``I[K]`` map
    ``(i_to, j_from)`` to the rate from state ``j`` of level ``K-1``, ``K+1``, ``K`` into state ``i`` of
    level ``K``; ``out[K][i]`` is the total out-rate, ``down[K][i]`` the out-rate to level ``K-1``.

    Parameters
    ----------
    N : int
        Servers per station.
    lumped : bool
        Built on the classes ``(K, |m - n|)``.
    symmetric, adjacent, aggregated, irreducible : bool
        The structure checks (module docstring).
    states, index : list
        Representatives of each level and their index maps.
    U, D, I : list of dict
        The kernels (see above).
    out, down : list of list
        Total and downward out-rates of each representative.
    up_total, down_total : list
        :math:`\lambda_K`, :math:`\mu_K` (aggregated definitions only).
    problems : list of str
        Why a structure check failed.

    Examples
    --------
    >>> from symloss import TwoQueueJSQ
    >>> k = TwoQueueJSQ(2, 1).kernels()
    >>> k.U[1]                  # level 0 -> level 1 at rate 1 * rho + 0
    {(0, 0): (Fraction(1, 1), Fraction(0, 1))}
    """
    N: int
    lumped: bool
    symmetric: bool
    adjacent: bool
    aggregated: bool
    irreducible: bool
    states: list
    index: list
    U: list
    D: list
    I: list
    out: list
    down: list
    up_total: list = field(default_factory=list)      # lambda_K (aggregated only)
    down_total: list = field(default_factory=list)    # mu_K (aggregated only)
    problems: list = field(default_factory=list)

    @property
    def sizes(self):
        """Number of representatives of each level ``K = 0..2N``."""
        return [len(s) for s in self.states]

    def require(self, *what: str, solver: str = "this solver") -> None:
        """Raise :class:`StructureError` unless every named property holds.

        Parameters
        ----------
        *what : str
            Names of the properties (``"symmetric"``, ``"adjacent"``, ``"aggregated"``,
            ``"irreducible"``).
        solver : str
            The solver named in the message.

        Raises
        ------
        StructureError
            Naming the properties that fail and why.
        """
        missing = [w for w in what if not getattr(self, w)]
        if missing:
            why = "; ".join(self.problems) or ", ".join(missing)
            raise StructureError(f"{solver} needs a model that is {' and '.join(what)}; this definition is "
                                 f"not ({why}). Use TwoQueueJSQ.generic_solve() for small N.")

    def value(self, pair, rho):
        """The rate ``c1 * rho + c0`` of a kernel entry.

        Parameters
        ----------
        pair : tuple
            ``(c1, c0)`` (exact ``Fraction``).
        rho : number
            The load, in any number type.

        Returns
        -------
        number
        """
        c1, c0 = pair
        return c1 * rho + c0


def _fr(x) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int) and not isinstance(x, bool):
        return Fraction(x)
    try:
        return Fraction(x)
    except (TypeError, ValueError):
        raise TypeError(f"transition rates must be exact rationals (int/Fraction), got {type(x).__name__} {x!r}")


def _add(d, key, c1, c0):
    a, b = d.get(key, (Fraction(0), Fraction(0)))
    d[key] = (a + c1, b + c0)


def level_kernels(N: int, transitions_fn, *, lump: bool | None = None) -> LevelKernels:
    """Generate the level kernels of the chain ``transitions_fn(m, n)`` on ``[0, N]^2``.

    Parameters
    ----------
    N : int
        Servers per station.
    transitions_fn : callable
        ``(m, n) -> [(m2, n2, rho_coeff, const), ...]`` (contract of
        :func:`symloss.twoqueue.definition.transitions`).
    lump : bool, optional
        Build the kernels on the classes ``(K, |m - n|)``; default: when the definition is symmetric.
        ``lump=True`` on an asymmetric definition raises :class:`StructureError`.

    Returns
    -------
    LevelKernels
        The kernels and the structure flags.

    Raises
    ------
    TypeError
        If ``N`` is not an integer, ``transitions_fn`` not callable or ``lump`` not a bool.
    StructureError
        If a transition leaves ``[0, N]^2`` or has a negative rate, or ``lump=True`` on an
        asymmetric definition.

    Examples
    --------
    >>> from symloss.twoqueue.definition import transitions
    >>> from symloss.twoqueue.kernels import level_kernels
    >>> level_kernels(2, lambda i, j: transitions(2, i, j), lump=False).sizes     # every state
    [1, 2, 3, 2, 1]
    """
    N = check_int(N, "N", min_value=1)
    if not callable(transitions_fn):
        raise TypeError(f"transitions_fn must be callable (m, n) -> list, got {type(transitions_fn).__name__}")
    if lump not in (None, True, False):
        raise TypeError(f"lump must be None, True or False, got {lump!r}")
    T = {}
    for i in range(N + 1):
        for j in range(N + 1):
            lst = []
            for (i2, j2, c1, c0) in transitions_fn(i, j):
                if not (0 <= i2 <= N and 0 <= j2 <= N):
                    raise StructureError(f"transition {(i, j)} -> {(i2, j2)} leaves [0, N]^2 (N={N})")
                c1, c0 = _fr(c1), _fr(c0)
                if c1 < 0 or c0 < 0:
                    raise StructureError(f"negative rate {c1}*rho + {c0} at {(i, j)} -> {(i2, j2)}")
                if (i2, j2) == (i, j) or (c1 == 0 and c0 == 0):
                    continue
                lst.append((i2, j2, c1, c0))
            T[(i, j)] = lst
    problems = []
    # symmetry: rates commute with the exchange (m, n) -> (n, m)
    symmetric = True
    for (i, j), lst in T.items():
        if i > j:
            continue
        a = {}
        for (i2, j2, c1, c0) in lst:
            _add(a, (j2, i2), c1, c0)
        b = {}
        for (i2, j2, c1, c0) in T[(j, i)]:
            _add(b, (i2, j2), c1, c0)
        if a != b:
            symmetric = False
            problems.append(f"not symmetric: the rates out of {(i, j)} and {(j, i)} are not mirror images")
            break
    if lump is None:
        lump = symmetric
    if lump and not symmetric:
        raise StructureError("lump=True needs a symmetric definition: " + problems[-1])
    adjacent = True
    for (i, j), lst in T.items():
        for (i2, j2, _, _) in lst:
            if abs((i2 + j2) - (i + j)) > 1:
                adjacent = False
                problems.append(f"not level-adjacent: {(i, j)} -> {(i2, j2)} changes m+n by {(i2 + j2) - (i + j)}")
                break
        if not adjacent:
            break
    # states per level
    states, index = [], []
    for K in range(2 * N + 1):
        if lump:
            reps = [((K - d) // 2, (K + d) // 2) for d in range(K % 2, min(K, 2 * N - K) + 1, 2)]
        else:
            reps = [(i, K - i) for i in range(max(0, K - N), min(K, N) + 1)]
        states.append(reps)
        index.append({s: t for t, s in enumerate(reps)})

    def cls(i, j):
        K = i + j
        if lump:
            d = abs(i - j)
            return K, index[K][((K - d) // 2, (K + d) // 2)]
        return K, index[K][(i, j)]

    L = 2 * N + 1
    U = [dict() for _ in range(L)]
    D = [dict() for _ in range(L)]
    I_ = [dict() for _ in range(L)]
    out = [[(Fraction(0), Fraction(0))] * len(states[K]) for K in range(L)]
    down = [[(Fraction(0), Fraction(0))] * len(states[K]) for K in range(L)]
    up = [[(Fraction(0), Fraction(0))] * len(states[K]) for K in range(L)]
    for K in range(L):
        for t, (i, j) in enumerate(states[K]):
            o1 = o0 = d1 = d0 = u1 = u0 = Fraction(0)
            for (i2, j2, c1, c0) in T[(i, j)]:
                K2, t2 = cls(i2, j2)
                if K2 == K and t2 == t:
                    continue            # stays in its class (lumped self-loop): not a transition
                o1 += c1
                o0 += c0
                if K2 == K + 1:
                    _add(U[K2], (t2, t), c1, c0)
                    u1 += c1
                    u0 += c0
                elif K2 == K - 1:
                    _add(D[K2], (t2, t), c1, c0)
                    d1 += c1
                    d0 += c0
                elif K2 == K:
                    _add(I_[K], (t2, t), c1, c0)
                else:
                    pass  # not adjacent: recorded above; level solvers refuse such a model
            out[K][t] = (o1, o0)
            down[K][t] = (d1, d0)
            up[K][t] = (u1, u0)
    aggregated = adjacent
    up_total, down_total = [], []
    if adjacent:
        for K in range(L):
            us, ds = set(up[K]), set(down[K])
            if len(us) != 1 or len(ds) != 1:
                aggregated = False
                problems.append(f"not aggregated: the states of level K={K} have different total up- or "
                                f"down-rates, so m+n is not a birth-death chain")
                break
            up_total.append(next(iter(us)))
            down_total.append(next(iter(ds)))
    # irreducibility of the generated (lumped or full) chain
    adj = {}
    for K in range(L):
        for t in range(len(states[K])):
            adj[(K, t)] = []
    for K in range(L):
        for M in (U, D, I_):
            for (t2, t) in M[K]:
                src_K = K - 1 if M is U else (K + 1 if M is D else K)
                adj[(src_K, t)].append((K, t2))
    irreducible = _strongly_connected(adj)
    if not irreducible:
        problems.append("not irreducible: some states do not communicate")
    return LevelKernels(N=N, lumped=lump, symmetric=symmetric, adjacent=adjacent, aggregated=aggregated,
                        irreducible=irreducible, states=states, index=index, U=U, D=D, I=I_, out=out,
                        down=down, up_total=up_total, down_total=down_total, problems=problems)


def _strongly_connected(adj) -> bool:
    nodes = list(adj)
    if not nodes:
        return True
    rev = {v: [] for v in adj}
    for v, ws in adj.items():
        for w in ws:
            rev[w].append(v)
    for g in (adj, rev):
        seen = {nodes[0]}
        q = deque([nodes[0]])
        while q:
            for w in g[q.popleft()]:
                if w not in seen:
                    seen.add(w)
                    q.append(w)
        if len(seen) != len(nodes):
            return False
    return True
