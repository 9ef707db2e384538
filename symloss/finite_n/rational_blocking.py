"""The exact finite-N blocking as a rational function of the load (:func:`blocking_rational_function`,
method in :mod:`symloss.finite_n.rational`) and its re-check by another algorithm at fresh loads.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from ..core.docstrings import fill_doc
from ..core.model import RHO, MeanFieldModel
from ..core.results import ResultMixin
from ..core.validation import check_choice, check_int
from .chain import NSYM, FiniteNModelError, StateIndex, enumerate_states, exact_lambdify, finite_n_chain
from .common import SAMPLINGS
from .rational_poly import RationalCertificateError, _poly_from_text, _poly_text, _positive_on_halfline, _q

__all__ = ["MAX_STATES", "BlockingRationalFunction", "blocking_rational_function", "chain_blocking_exact",
           "recheck_blocking_rational_function"]


#: largest chain handled (states); the interpolation needs (M - 1) k + 2 determinants of size M - 1, three per point
MAX_STATES = 500


class _PolyChain:
    """States, exact coefficient tables of the rates in rho, loss probabilities (see module docstring)."""

    def __init__(self, model, N, sampling, max_states):
        from flint import fmpq
        chain = finite_n_chain(model, N, sampling)
        if chain.state_kind not in ("occupancy", "tail"):
            raise ValueError(f"blocking_rational_function needs an occupancy or tail model (enumerated state space); "
                             f"{model!r} has state_kind={chain.state_kind!r}")
        M = math.comb(N + chain.C, chain.C)
        if M > max_states:
            raise ValueError(f"the count chain of {model!r} has {M} states for N = {N}; blocking_rational_function "
                             f"handles at most max_states = {max_states} (the interpolation needs (M - 1) k + 2 "
                             "determinants of size M - 1)")
        self.chain, self.N, self.M = chain, N, M
        S = enumerate_states(chain)
        index = StateIndex(S, N)
        self.S = S
        args = list(chain.symbols) + [RHO]
        Nq = fmpq(N)
        zero = fmpq(0)
        self.k = 0
        entries = {}          # (i, t) -> list of fmpq coefficients of rho^0..rho^k (sum over transitions)
        for j, rate in enumerate(chain.rates):
            expr = sp.sympify(rate).subs(NSYM, N)
            try:
                poly = sp.Poly(expr, RHO)
            except sp.PolynomialError:
                raise ValueError(f"blocking_rational_function needs rates polynomial in rho; "
                                 f"{chain.transition_text(j)} is not") from None
            coeffs = poly.all_coeffs()[::-1]
            for c in coeffs:
                if c.has(RHO):
                    raise ValueError(f"blocking_rational_function needs rates polynomial in rho; "
                                     f"{chain.transition_text(j)} is not")
            self.k = max(self.k, len(coeffs) - 1)
            fns = [exact_lambdify(args + [NSYM], c) for c in coeffs]
            targets = index.lookup(S + chain.jumps[j])
            for i in range(S.shape[0]):
                st = [fmpq(int(v)) for v in S[i]]
                vals = [fmpq(f(*st, zero, Nq)) for f in fns]
                if any(v < 0 for v in vals):
                    raise ValueError(f"blocking_rational_function needs rates whose coefficients in rho are >= 0 "
                                     f"at every state; {chain.transition_text(j)} has coefficients "
                                     f"{[str(v) for v in vals]} at the state {chain.state_text(S[i])}")
                if all(v == 0 for v in vals):
                    continue
                t = int(targets[i])
                if t < 0:
                    raise FiniteNModelError(f"{model!r} at N = {N}: {chain.transition_text(j)} leaves the state space "
                                            f"from the state {chain.state_text(S[i])}; {chain.space_text()}")
                if t == i:
                    continue
                cur = entries.setdefault((i, t), [])
                for p, v in enumerate(vals):
                    if p < len(cur):
                        cur[p] += v
                    else:
                        cur.append(v)
        self.entries = entries
        if RHO in chain.blocking.free_symbols:
            raise ValueError(f"blocking_rational_function needs a loss probability b(n) free of rho; {model!r} has "
                             f"b(n) = {chain.blocking}")
        fb = exact_lambdify(args + [NSYM], chain.blocking)
        b = []
        for i in range(S.shape[0]):
            v = fmpq(fb(*[fmpq(int(x)) for x in S[i]], zero, Nq))
            if v < 0 or v > 1:
                raise ValueError(f"{model!r}: the loss probability b(n) = {chain.blocking} is {v} at the state "
                                 f"{chain.state_text(S[i])}, not a probability")
            b.append(v)
        self.b = b
        dens = [v.q for vals in entries.values() for v in vals]
        self.L = _lcm(dens)               # generator scale: L * G(rho) has integer coefficients
        self.Lb = _lcm([v.q for v in b])  # loss-probability scale
        zero_b = [i for i, v in enumerate(b) if v == 0]
        self.ref = zero_b[0] if zero_b else 0      # b_ref = 0 saves one determinant per point

    @property
    def degree_bound(self) -> int:
        return (self.M - 1) * self.k

    def integer_system(self, rho: int):
        """``(A, c, w_int, b_ref_int)`` at the integer point ``rho``: A, c of the scaled balance equations
        (fmpz_mat), the scaled loss probabilities (see the module docstring)."""
        from flint import fmpz, fmpz_mat
        M, ref, L = self.M, self.ref, self.L
        pos = {s: (s if s < ref else s - 1) for s in range(M) if s != ref}
        A = fmpz_mat(M - 1, M - 1)
        c = [fmpz(0)] * (M - 1)
        out = [fmpz(0)] * M
        for (i, t), coeffs in self.entries.items():
            v = sum((int((L * q).p) * rho ** p for p, q in enumerate(coeffs)), 0)   # (L q) is an integer
            out[i] += v
            if t == ref:
                continue
            if i == ref:
                c[pos[t]] -= v           # balance of t: A x = -rate(ref -> t) (pi_ref = 1)
                continue
            A[pos[t], pos[i]] += v
        for s in range(M):
            if s != ref:
                A[pos[s], pos[s]] -= out[s]
        w = [int((self.Lb * self.b[s]).p) for s in range(M) if s != ref]
        return A, c, w, int((self.Lb * self.b[ref]).p)

    def values(self, rho: int, *, with_det: bool = False):
        """``(S(rho), Lb * T(rho), det A(rho) or None)`` as integers (determinant formulas of the module
        docstring; with ``b_ref = 0``, ``T = det(A + c (1 + w)^T) - S``, two determinants)."""
        from flint import fmpz_mat
        A, c, w, bref = self.integer_system(rho)
        n = self.M - 1
        col = fmpz_mat(n, 1, c)
        S = (A + col * fmpz_mat(1, n, [1] * n)).det()
        if bref == 0:
            T = (A + col * fmpz_mat(1, n, [1 + v for v in w])).det() - S
            return S, T, (A.det() if with_det else None)
        detA = A.det()
        T = bref * detA + (A + col * fmpz_mat(1, n, w)).det() - detA
        return S, T, detA


def _lcm(values) -> int:
    out = 1
    for v in values:
        v = int(v)
        out = out * v // math.gcd(out, v)
    return out


def _interpolate_consecutive(values):
    """The polynomial of degree ``< len(values)`` through ``(1, values[0]), (2, values[1]), ...`` (Newton's
    forward differences, exact); returned as fmpz_poly (the data are integer-valued integer polynomials:
    integral coefficients are checked)."""
    from flint import fmpq, fmpq_poly, fmpz_poly
    diffs = [int(v) for v in values]
    coef = []
    while diffs:
        coef.append(diffs[0])
        diffs = [b - a for a, b in zip(diffs, diffs[1:])]
    # p(x) = sum_k coef[k] * C(x - 1, k)
    p = fmpq_poly([0])
    basis = fmpq_poly([1])
    for k, ck in enumerate(coef):
        if ck:
            p += fmpq_poly([fmpq(ck)]) * basis
        basis = basis * fmpq_poly([fmpq(-(k + 1), k + 1), fmpq(1, k + 1)])    # times (x - 1 - k)/(k + 1)
    if p.denom() != 1:
        raise ArithmeticError("interpolation: the polynomial has non-integer coefficients")   # pragma: no cover
    return fmpz_poly(p.numer().coeffs()) if not p.is_zero() else fmpz_poly([0])


@dataclass
class BlockingRationalFunction(ResultMixin):
    r"""The exact blocking :math:`B_N(\rho) = P(\rho)/Q(\rho)` of a finite-N chain
    (:func:`blocking_rational_function`).

    Parameters
    ----------
    model : str
        The model's repr.
    N : int
        Number of servers.
    sampling : str
        The finite-N convention.
    P, Q : flint.fmpz_poly
        Coprime integer polynomials, ``Q`` with positive leading coefficient and ``Q > 0`` on
        :math:`(0, \infty)`.
    n_states : int
        ``M``, the size of the chain.
    rate_degree : int
        ``k``, the largest degree in :math:`\rho` of a rate.
    degree_bound : int
        ``D = (M - 1) k``, the a-priori bound on the degrees of the unreduced numerator and denominator.
    points : list of int
        The interpolation points ``1..D+1`` and the check point ``D + 2``.
    justification : str
        Why ``D`` bounds the degrees.
    wall_time : float
        Seconds.
    """

    model: str
    N: int
    sampling: str
    P: object
    Q: object
    n_states: int
    rate_degree: int
    degree_bound: int
    points: list = field(default_factory=list)
    justification: str = ""
    wall_time: float = 0.0

    def __call__(self, rho):
        """:math:`B_N(\\rho)` exactly at a rational ``rho`` (int, Fraction, fmpq or ``"p/q"``).

        Parameters
        ----------
        rho : int, fractions.Fraction, flint.fmpq or str
            Load per server, exact, ``> 0``.

        Returns
        -------
        fractions.Fraction
        """
        x = _q(rho)
        if not x > 0:
            raise ValueError(f"rho must be a rational number in (0, inf), got {rho!r}")
        v = self.P(x) / self.Q(x)
        return Fraction(int(v.p), int(v.q))

    def certificate(self) -> dict:
        """Plain data: the polynomials (integer coefficients as strings, constant first), the degree
        bound and its justification, the interpolation points.

        Returns
        -------
        dict
        """
        return {"model": self.model, "N": self.N, "sampling": self.sampling, "P": _poly_text(self.P),
                "Q": _poly_text(self.Q), "n_states": self.n_states, "rate_degree": self.rate_degree,
                "degree_bound": self.degree_bound, "interpolation_points": [self.points[0], self.points[-1]],
                "justification": self.justification}

    def to_dict(self) -> dict:
        """Plain data, for JSON (:meth:`certificate` and the wall time).

        Returns
        -------
        dict
        """
        out = self.certificate()
        out["wall_time"] = self.wall_time
        return out


_JUSTIFICATION = ("Cramer's rule on the balance equations with the reference state removed: the (M-1)x(M-1) "
                  "matrix A and right-hand side c have entries of degree <= k in rho, so S = det(A + c 1^T) and "
                  "T = b_ref det A + det(A + c w^T) - det A (matrix determinant lemma; B_N = T/S) have degree <= "
                  "D = (M-1) k; both interpolated exactly at rho = 1..D+1 and checked at D+2")


@fill_doc
def blocking_rational_function(model, N, sampling="with_replacement", *, max_states=MAX_STATES):
    r"""The exact finite-N blocking :math:`B_N(\rho) = P(\rho)/Q(\rho)` as a reduced fraction of integer
    polynomials (see the module docstring for the method and the degree bound).

    Parameters
    ----------
    model : MeanFieldModel
        An occupancy or tail model whose finite-N rates are polynomials in :math:`\rho` with
        coefficients ``>= 0`` at every state and whose loss probability is free of :math:`\rho`
        (every shipped policy).
    N : int
        Number of servers, ``>= 1``.
    sampling : {"with_replacement", "without_replacement"}
        The finite-N convention (:func:`symloss.finite_n_chain`).
    max_states : int
        Largest chain accepted (default 500), checked before any work.

    Returns
    -------
    BlockingRationalFunction
        ``P``, ``Q``, the degree bound and its justification.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`~symloss.MeanFieldModel` or ``N`` not an integer.
    ValueError
        If ``N`` or ``sampling`` is out of range, the chain is too large, or the model is outside
        the method (custom state space, rates not polynomial in rho or with a negative coefficient,
        a loss probability depending on rho or outside [0, 1]), or the chain is not irreducible.
    FiniteNModelError
        If a transition of non-zero rate leaves the state space.
    ArithmeticError
        If the interpolated polynomials miss the check point (cannot happen when the degree bound holds).

    See Also
    --------
    chain_blocking_exact, recheck_blocking_rational_function, symloss.certified_finite_n_threshold

    References
    ----------
    {{ref_retrial}}
       (The finite-N study.)

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> f = blocking_rational_function(RandomRouting(1), 3)     # C = 1 random routing: Engset, rho/(1+rho)
    >>> f.P, f.Q
    (x, x + 1)
    """
    from flint import fmpz_poly
    if not isinstance(model, MeanFieldModel):
        raise TypeError(f"model must be a MeanFieldModel (see symloss.define_model), got {type(model).__name__}")
    N = check_int(N, "N", min_value=1)
    check_choice(sampling, "sampling", SAMPLINGS)
    max_states = check_int(max_states, "max_states", min_value=1)
    t0 = time.perf_counter()
    pc = _PolyChain(model, N, sampling, max_states)
    D = pc.degree_bound
    if pc.M == 1:
        b = pc.b[0]
        P, Q = fmpz_poly([int(b.p)]), fmpz_poly([int(b.q)])
        return BlockingRationalFunction(repr(model), N, sampling, P, Q, 1, pc.k, 0, [1, 1], _JUSTIFICATION,
                                        time.perf_counter() - t0)
    Svals, Tvals = [], []
    for x in range(1, D + 2):
        S, T, detA = pc.values(x, with_det=(x == 1))
        if x == 1 and detA == 0:
            raise ValueError(f"the count chain of {model!r} at N = {N} is not irreducible (the balance matrix "
                             f"without the reference state is singular at rho = 1)")
        Svals.append(S)
        Tvals.append(T)
    Sp = _interpolate_consecutive(Svals)
    Tp = _interpolate_consecutive(Tvals)
    xc = D + 2
    Sc, Tc, _ = pc.values(xc)
    if Sp(xc) != Sc or Tp(xc) != Tc:
        raise ArithmeticError(f"blocking_rational_function: the interpolants of degree <= {D} miss the check point "
                              f"rho = {xc} ({model!r}, N = {N})")
    Qraw = Sp * pc.Lb
    g = Tp.gcd(Qraw) if not Tp.is_zero() else Qraw
    P, r1 = divmod(Tp, g)
    Q, r2 = divmod(Qraw, g)
    if not (r1.is_zero() and r2.is_zero()):      # pragma: no cover
        raise ArithmeticError("blocking_rational_function: gcd does not divide")
    cont = math.gcd(int(P.content()) if not P.is_zero() else 0, int(Q.content()))
    if cont > 1:
        P = fmpz_poly([c // cont for c in P.coeffs()]) if not P.is_zero() else P
        Q = fmpz_poly([c // cont for c in Q.coeffs()])
    if Q.leading_coefficient() < 0:
        P, Q = -P, -Q
    if P.is_zero():
        Q = fmpz_poly([1])
    return BlockingRationalFunction(repr(model), N, sampling, P, Q, pc.M, pc.k, D, list(range(1, D + 3)),
                                    _JUSTIFICATION, time.perf_counter() - t0)


def chain_blocking_exact(model, N, rho, sampling="with_replacement"):
    """The exact stationary blocking at one rational load by a direct solve: the generator built from the
    definition's exact rates (:meth:`~symloss.finite_n.chain.FiniteNChain.exact_rate`) and solved by
    ``fmpq_mat.solve`` (no determinant, no interpolation; used by the re-check).

    Parameters
    ----------
    model : MeanFieldModel
        An occupancy or tail model.
    N : int
        Number of servers.
    rho : int, fractions.Fraction, flint.fmpq or str
        Exact load, ``> 0``.
    sampling : str
        The finite-N convention.

    Returns
    -------
    flint.fmpq
    """
    from flint import fmpq, fmpq_mat
    chain = finite_n_chain(model, N, sampling)
    x = _q(rho)
    S = enumerate_states(chain)
    index = StateIndex(S, N)
    M = S.shape[0]
    rates, tb = chain._exact_fns()
    Nq = fmpq(N)
    G = {}
    out = [fmpq(0)] * M
    for i in range(M):
        st = [fmpq(int(v)) for v in S[i]]
        for j, f in enumerate(rates):
            v = fmpq(f(*st, x, Nq))
            if v == 0:
                continue
            if v < 0:
                raise ValueError(f"{chain.transition_text(j)}: exact rate {v} < 0 at {chain.state_text(S[i])}")
            t = int(index.lookup((S[i] + chain.jumps[j])[None, :])[0])
            if t < 0:
                raise FiniteNModelError(f"{chain.transition_text(j)} leaves the state space from {chain.state_text(S[i])}")
            if t != i:
                G[(i, t)] = G.get((i, t), fmpq(0)) + v
                out[i] += v
    if M == 1:
        pi = [fmpq(1)]
    else:
        A = fmpq_mat(M, M)
        for (i, t), v in G.items():
            A[t, i] += v
        for s in range(M):
            A[s, s] -= out[s]
        for s in range(M):           # replace the last balance equation by the normalisation
            A[M - 1, s] = fmpq(1)
        rhs = fmpq_mat(M, 1)
        rhs[M - 1, 0] = fmpq(1)
        sol = A.solve(rhs)
        pi = [sol[s, 0] for s in range(M)]
    return sum((pi[i] * fmpq(tb(*[fmpq(int(v)) for v in S[i]], x, Nq)) for i in range(M)), fmpq(0))


def _fresh_points(n: int) -> list:
    """``n`` half-integer loads 1/2, 3/2, 5/2, ...: never an interpolation point (those are integers)."""
    return [Fraction(2 * i + 1, 2) for i in range(n)]


def recheck_blocking_rational_function(model, data, *, points="proof"):
    r"""Re-check a stored :meth:`BlockingRationalFunction.certificate` against the chain of ``model``.

    The chain is solved exactly (:func:`chain_blocking_exact`: another algorithm than the search) at
    fresh half-integer loads and compared with ``P/Q`` exactly. With ``points="proof"`` the number of
    points is :math:`\max(\deg P, \deg Q) + D + 1`, ``D = (M - 1) k`` recomputed from the definition:
    agreement then proves :math:`B_N = P/Q` for every load (module docstring). An integer ``points``
    is a spot check at that many loads (no proof).

    Parameters
    ----------
    model : MeanFieldModel
        The model the certificate claims to describe.
    data : dict
        The certificate (``N``, ``sampling``, ``P``, ``Q``, ``degree_bound``, ...).
    points : "proof" or int
        How many fresh loads.

    Returns
    -------
    dict
        ``{"proved": bool, "points": int, "degree_bound": int}``.

    Raises
    ------
    RationalCertificateError
        If the data are malformed, the stored degree bound or sizes differ from the definition's, ``Q``
        is not positive on :math:`(0, \infty)`, ``P/Q`` is not reduced, or ``P/Q`` differs from the chain
        at a load.
    """
    N, sampling = data["N"], data["sampling"]
    P = _poly_from_text(data["P"], "P")
    Q = _poly_from_text(data["Q"], "Q")
    pc = _PolyChain(model, int(N), sampling, MAX_STATES)
    D = pc.degree_bound
    if (data["n_states"], data["rate_degree"], data["degree_bound"]) != (pc.M, pc.k, D):
        raise RationalCertificateError(f"stored (n_states, rate_degree, degree_bound) = "
                                       f"{(data['n_states'], data['rate_degree'], data['degree_bound'])} but the "
                                       f"definition gives {(pc.M, pc.k, D)}")
    if list(data["interpolation_points"]) != [1, D + 2]:
        raise RationalCertificateError(f"stored interpolation points {data['interpolation_points']} are not 1..D+2")
    if data["justification"] != _JUSTIFICATION:
        raise RationalCertificateError("stored justification differs from the method's")
    if data["model"] != repr(model):
        raise RationalCertificateError(f"certificate is for {data['model']}, not {model!r}")
    if max(P.degree(), Q.degree()) > D + 1:
        raise RationalCertificateError(f"deg P = {P.degree()}, deg Q = {Q.degree()} exceed the degree bound {D}")
    if Q.leading_coefficient() <= 0 or not _positive_on_halfline(Q):
        raise RationalCertificateError("Q is not positive on (0, oo)")
    if not P.is_zero() and P.gcd(Q).degree() > 0:
        raise RationalCertificateError("P/Q is not reduced")
    n = max(P.degree(), Q.degree()) + D + 1 if points == "proof" else check_int(points, "points", min_value=1)
    for x in _fresh_points(n):
        xq = _q(x)
        want = chain_blocking_exact(model, int(N), xq, sampling)
        if P(xq) != want * Q(xq):
            raise RationalCertificateError(f"P/Q differs from the exact chain at rho = {x}: chain {want}, "
                                           f"P/Q = {P(xq) / Q(xq)}")
    return {"proved": points == "proof", "points": n, "degree_bound": D}
