r"""Finite-N blocking as an exact rational function of the load, and the finite-N threshold proved.

For a model whose finite-N rates are polynomials in :math:`\rho` with coefficients :math:`\ge 0` at
every state (arrivals proportional to :math:`\rho`, departures free of it: every shipped policy), the
stationary blocking of the count chain (:func:`symloss.finite_n_chain`) is a rational function

.. math::

    B_N(\rho) = \frac{P(\rho)}{Q(\rho)}, \qquad P, Q \in \mathbb{Z}[\rho].

**Why, and the degree bound.** Write the balance equations :math:`\pi G(\rho) = 0` (``G`` the
generator, ``M`` states), fix one reference state ``r`` and let ``A`` be :math:`G^T` without row and
column ``r`` and ``c = -G^T[\cdot, r]`` without row ``r``. Every entry of ``A`` and ``c`` is a polynomial
of degree :math:`\le k` in :math:`\rho` (``k`` the largest degree of a rate, 1 for the shipped models).
By Cramer's rule the vector :math:`(\det A,\ \mathrm{adj}(A)\,c)` is a stationary measure, so with the
matrix determinant lemma

.. math::

    S(\rho) = \det(A + c\,\mathbf 1^T), \qquad
    T(\rho) = b_r \det A + \det(A + c\,w^T) - \det A, \qquad B_N = T/S,

(``w`` the loss probabilities of the other states, ``b_r`` that of ``r``), and
:math:`\deg S, \deg T \le D = (M-1)k`. ``S`` and ``T`` are therefore determined by their values at
``D + 1`` points: they are evaluated exactly (integer determinants, python-flint ``fmpz_mat.det``, after
scaling the generator by the common denominator ``L`` of its coefficients) at
:math:`\rho = 1, \dots, D + 1`, interpolated exactly (Newton's forward differences over the integers),
checked at one more point, and the fraction is reduced (``gcd``). The chain is irreducible for every
:math:`\rho > 0` when :math:`\det A(1) \ne 0`: by the matrix-tree theorem :math:`\det A` is a sum of
products of rates, polynomials with non-negative coefficients, so it does not vanish on
:math:`(0, \infty)` once it does not vanish at 1; the same holds for ``S``, so ``Q > 0`` on
:math:`(0, \infty)` (``Q`` divides ``S`` up to a constant and is normalised to a positive leading
coefficient).

**What the re-check proves.** :func:`recheck_blocking_rational_function` re-evaluates the chain at
fresh rational points (half-integers, never interpolation points) by a different algorithm (the
generator built from the definition's exact rates and solved by ``fmpq_mat.solve``, no determinant,
no interpolation) and compares with ``P/Q`` exactly. If ``P/Q`` agrees with ``T/S`` at ``K`` points then
:math:`F = P S - Q T` (degree :math:`\le \max(\deg P, \deg Q) + D`) has ``K`` roots, so with
:math:`K \ge \max(\deg P, \deg Q) + D + 1` points the identity :math:`B_N = P/Q` is *proved* (``D``
recomputed by the re-check from the definition, not read from the data); fewer points are a spot check
(a wrong ``P/Q`` agrees with the chain at no more than that many points, but a spot check is no proof).

**The threshold.** :func:`certified_finite_n_threshold` takes two models, the numerator
:math:`R = P_a Q_b - P_b Q_a` of :math:`B_a - B_b` (whose sign it is on :math:`(0, \infty)`, as
:math:`Q_a Q_b > 0` there), removes the factor :math:`\rho^m`, takes the square-free part and isolates its real roots on
:math:`(0, \infty)` exactly: below a Cauchy bound ``H``, :math:`(0, H)` is cut into tiles on which
Descartes' rule of signs (after a Möbius map of the tile onto :math:`(0, \infty)`) counts 0 or 1
root (Vincent-Collins-Akritas, integer arithmetic). Each root is refined by exact sign evaluations to
the requested relative width; a root is a *crossing* when ``R`` changes sign across it (odd
multiplicity). (A Sturm sequence, :func:`sturm_count`, gives the same counts but its remainders grow
to hundreds of thousands of bits at degree 130, ``N = 10``: 100 s against well under a second.) The
certificate (:meth:`CertifiedFiniteNThreshold.certificate`) stores the polynomials, the tiles with
their counts, the refined intervals and the signs; :func:`recheck_threshold_certificate` re-verifies it from the stored data
alone and rejects tampered data.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import sympy as sp

from ..core.model import RHO, MeanFieldModel
from ..core.polyroots import sign_variations, squarefree_part, sturm_sequence
from ..core.results import ResultMixin
from ..core.validation import check_choice, check_int
from .chain import NSYM, FiniteNModelError, StateIndex, enumerate_states, exact_lambdify, finite_n_chain
from .common import SAMPLINGS

__all__ = ["BlockingRationalFunction", "CertifiedFiniteNThreshold", "RationalCertificateError", "chain_blocking_exact",
           "blocking_rational_function", "certified_finite_n_threshold", "recheck_blocking_rational_function",
           "recheck_threshold_certificate", "sturm_count", "count_positive_roots", "descartes_variations"]

#: largest chain handled (states); the interpolation needs (M - 1) k + 2 determinants of size M - 1, three per point
MAX_STATES = 500


class RationalCertificateError(ValueError):
    """A stored rational-function or threshold certificate does not verify (the message says which part)."""


# --------------------------------------------------------------------------------------------------
# polynomials: text form, Sturm sequences, exact signs
# --------------------------------------------------------------------------------------------------

def _poly_text(p) -> list[str]:
    """Integer coefficients (constant first) as decimal strings (python-flint prints big integers)."""
    return [str(c) for c in p.coeffs()]


def _poly_from_text(coeffs, what: str):
    from flint import fmpz, fmpz_poly
    if not isinstance(coeffs, (list, tuple)) or not coeffs:
        raise RationalCertificateError(f"{what}: expected a non-empty list of integer coefficients, got {coeffs!r}")
    out = []
    for c in coeffs:
        if not isinstance(c, str) or not c.lstrip("-").isdigit():
            raise RationalCertificateError(f"{what}: coefficient {c!r} is not a decimal integer string")
        out.append(fmpz(c))
    p = fmpz_poly(out)
    if p.is_zero():
        raise RationalCertificateError(f"{what}: the polynomial is zero")
    if len(out) != p.degree() + 1:
        raise RationalCertificateError(f"{what}: trailing zero coefficients (not in normal form)")
    return p


def _q(x):
    """An exact rational (int, Fraction, fmpq, or a ``"p/q"`` string) as ``fmpq``."""
    from flint import fmpq
    if isinstance(x, fmpq):
        return x
    if isinstance(x, bool):
        raise TypeError(f"expected an exact rational, got {x!r}")
    if isinstance(x, int):
        return fmpq(x)
    if isinstance(x, Fraction):
        return fmpq(x.numerator, x.denominator)
    if isinstance(x, str):
        try:
            f = Fraction(x)
        except ValueError:
            raise RationalCertificateError(f"{x!r} is not an exact rational 'p/q'") from None
        return fmpq(f.numerator, f.denominator)
    raise TypeError(f"expected an exact rational, got {type(x).__name__} {x!r}")


def _qtext(x) -> str:
    from flint import fmpq
    x = x if isinstance(x, fmpq) else fmpq(x)
    return str(x.p) if x.q == 1 else f"{x.p}/{x.q}"


def _sign(v) -> int:
    return (v > 0) - (v < 0)


def _strip_zero_roots(p):
    """``(p / rho^m, m)`` with the largest ``m``."""
    from flint import fmpz_poly
    cs = p.coeffs()
    m = 0
    while m < len(cs) and cs[m] == 0:
        m += 1
    return fmpz_poly(cs[m:]), m


def _sign_at(p, x) -> int:
    """Sign of the integer polynomial ``p`` at the rational ``x`` (fmpq), exactly."""
    return _sign(p(x))


def _variations_at(seq, x) -> int:
    if x == "inf":
        return sign_variations([_sign(q.leading_coefficient()) for q in seq])
    return sign_variations([_sign_at(q, x) for q in seq])


def sturm_count(seq, lo, hi) -> int:
    r"""Number of distinct real roots in :math:`(lo, hi]` of the first member of the Sturm sequence
    ``seq``: :math:`V(lo) - V(hi)` (``hi = "inf"`` for :math:`+\infty`).

    Parameters
    ----------
    seq : list of flint.fmpz_poly
        From ``sturm_sequence``.
    lo : flint.fmpq
        Left end (the polynomial must not vanish there).
    hi : flint.fmpq or "inf"
        Right end.

    Returns
    -------
    int
    """
    return _variations_at(seq, lo) - _variations_at(seq, hi)


def _positive_on_halfline(p) -> bool:
    """True when the integer polynomial ``p`` is > 0 on (0, oo) (exact: non-negative coefficients, or no
    root there by a Sturm count and p(1) > 0)."""
    from flint import fmpq
    cs = p.coeffs()
    if all(c >= 0 for c in cs):
        return any(c > 0 for c in cs)
    return count_positive_roots(p) == 0 and p(fmpq(1)) > 0


# --------------------------------------------------------------------------------------------------
# the chain as polynomial matrices in rho
# --------------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------------
# the rational function
# --------------------------------------------------------------------------------------------------

@dataclass
class BlockingRationalFunction(ResultMixin):
    r"""The exact blocking :math:`B_N(\rho) = P(\rho)/Q(\rho)` of a finite-N chain
    (:func:`blocking_rational_function`).

    Attributes
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

    References
    ----------
    .. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
       Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026) (the finite-N study).

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


# --------------------------------------------------------------------------------------------------
# the re-check of a rational function: the chain solved exactly at fresh points (another algorithm)
# --------------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------------
# the certified threshold
# --------------------------------------------------------------------------------------------------

def _difference_numerator(a_P, a_Q, b_P, b_Q):
    """``R = P_a Q_b - P_b Q_a``, its order ``m`` at 0 and the square-free part of ``R / rho^m``."""
    R = a_P * b_Q - b_P * a_Q
    if R.is_zero():
        return R, 0, None
    R1, m = _strip_zero_roots(R)
    return R, m, squarefree_part(R1)


def _root_bound(p):
    """A power of two ``H`` above every positive root of ``p`` (Cauchy: ``1 + max |a_i / a_n|``)."""
    cs = p.coeffs()
    lc = abs(int(cs[-1]))
    mx = max(abs(int(c)) for c in cs[:-1]) if len(cs) > 1 else 0
    bound = 1 + -(-mx // lc)
    return 1 << max(1, bound.bit_length())


def descartes_variations(p, a, b) -> int:
    r"""Sign variations of :math:`(1+x)^d\, p\big((a + b x)/(1 + x)\big)`: an upper bound on the roots of
    ``p`` in :math:`(a, b)` with the same parity, exact when it is 0 or 1 (Descartes' rule of signs; the
    Möbius map sends :math:`(0, \infty)` onto :math:`(a, b)`). ``b = "inf"`` gives the variations of
    :math:`p(x + a)` (roots in :math:`(a, \infty)`).

    Parameters
    ----------
    p : flint.fmpz_poly
        Degree ``>= 1``.
    a : flint.fmpq
        Left end.
    b : flint.fmpq or "inf"
        Right end, ``> a``.

    Returns
    -------
    int
    """
    from flint import fmpq, fmpq_poly, fmpz_poly
    if b == "inf":
        q = fmpq_poly(p)(fmpq_poly([a, fmpq(1)]))
        return sign_variations([_sign(c) for c in q.numer().coeffs()])
    q = fmpq_poly(p)(fmpq_poly([a, b - a]))             # roots in (0, 1) <-> roots of p in (a, b)
    num = q.numer()
    d = p.degree()
    cs = num.coeffs() + [0] * (d + 1 - len(num.coeffs()))
    rev = fmpz_poly(cs[::-1])                            # z^d q(1/z): roots in (1, oo)
    t = rev(fmpz_poly([1, 1]))                           # (1 + x)^d q(1/(1 + x)): roots in (0, oo)
    return sign_variations([_sign(c) for c in t.coeffs()])


def _tiles(sq):
    """Vincent-Collins-Akritas bisection of ``(0, H)``: a list of open tiles ``(a, b, v)`` in order that
    cover ``(0, H)`` with ends that are not roots, ``v`` the exact root count (0 or 1) of ``(a, b)``
    (Descartes); a split point that is a root is moved to the nearest non-root dyadic point. Returns
    ``(H, tiles)``."""
    from flint import fmpq
    H = fmpq(_root_bound(sq))
    todo = [(fmpq(0), H)]
    tiles = []
    while todo:
        a, b = todo.pop()
        v = descartes_variations(sq, a, b)
        if v <= 1:
            tiles.append((a, b, v))
            continue
        m, j = (a + b) / 2, 3
        while sq(m) == 0:
            m, j = (a + b) / 2 + (b - a) / 2 ** j, j + 1
        todo += [(m, b), (a, m)]
    tiles.sort(key=lambda t: t[0])
    return H, tiles


def _refine(sq, a, b, tol):
    """``[lo, hi]`` inside the tile ``(a, b)`` (ends not roots, one simple root of ``sq`` inside) with
    ``hi - lo <= tol lo``, by exact sign bisection (``lo == hi`` when a bisection point is the root)."""
    lo, hi = a, b
    sl = _sign(sq(lo))
    while lo == 0 or hi - lo > tol * lo:
        mid = (lo + hi) / 2
        sm = _sign(sq(mid))
        if sm == 0:
            return mid, mid
        if sm == sl:
            lo = mid
        else:
            hi = mid
    return lo, hi


def count_positive_roots(p) -> int:
    """Number of distinct roots of the integer polynomial ``p`` on ``(0, oo)`` (exact: Descartes'
    rule on the Vincent-Collins-Akritas tiles of its square-free part).

    Parameters
    ----------
    p : flint.fmpz_poly
        Non-zero.

    Returns
    -------
    int
    """
    q, _m = _strip_zero_roots(p)
    sq = squarefree_part(q)
    if sq.degree() < 1:
        return 0
    return sum(v for _a, _b, v in _tiles(sq)[1])


@dataclass
class CertifiedFiniteNThreshold(ResultMixin):
    r"""The sign structure of :math:`B_N^a - B_N^b` on :math:`(0, \infty)`, proved
    (:func:`certified_finite_n_threshold`).

    Attributes
    ----------
    status : str
        ``"PROVED"``: the roots of the difference on :math:`(0, \infty)` are exactly those isolated.
    model_a, model_b : str
        The two models.
    N : int
        Number of servers.
    sampling : str
        The finite-N convention.
    n_roots : int
        Distinct roots of :math:`B^a - B^b` on :math:`(0, \infty)`.
    n_crossings : int
        Those where the sign changes.
    intervals : list of (fractions.Fraction, fractions.Fraction)
        Isolating intervals ``[lo, hi]`` of the roots, in increasing order (``lo == hi`` for an exact
        rational root).
    crossing : tuple or None
        The interval of the crossing when there is exactly one.
    threshold : float or None
        Its midpoint.
    sign_below, sign_above : int
        Sign of :math:`B^a - B^b` just above 0 and for large loads.
    digits : int
        Relative width of the intervals: ``hi - lo <= 10^-digits lo``.
    a, b : BlockingRationalFunction
        The two blockings.
    wall_time : float
        Seconds.
    """

    status: str
    model_a: str
    model_b: str
    N: int
    sampling: str
    n_roots: int
    n_crossings: int
    intervals: list
    crossing: tuple | None
    threshold: float | None
    sign_below: int
    sign_above: int
    digits: int
    a: BlockingRationalFunction = field(repr=False, default=None)
    b: BlockingRationalFunction = field(repr=False, default=None)
    isolation: dict = field(repr=False, default_factory=dict)
    wall_time: float = 0.0

    def certificate(self) -> dict:
        """Plain data a re-check verifies from the stored numbers alone
        (:func:`recheck_threshold_certificate`): both rational functions, the root bound ``H``, the tiles
        of ``(0, H)`` with their Descartes counts, and per root its refined interval and the signs of the
        difference at its ends.

        Returns
        -------
        dict
        """
        return {"N": self.N, "sampling": self.sampling, "digits": self.digits,
                "a": self.a.certificate(), "b": self.b.certificate(), **self.isolation,
                "n_roots": self.n_roots, "n_crossings": self.n_crossings,
                "sign_below": self.sign_below, "sign_above": self.sign_above}

    def to_dict(self) -> dict:
        """Plain data, for JSON.

        Returns
        -------
        dict
        """
        return {"status": self.status, "model_a": self.model_a, "model_b": self.model_b, "N": self.N,
                "sampling": self.sampling, "n_roots": self.n_roots, "n_crossings": self.n_crossings,
                "intervals": [[_qtext(_q(lo)), _qtext(_q(hi))] for lo, hi in self.intervals],
                "threshold": self.threshold, "sign_below": self.sign_below, "sign_above": self.sign_above,
                "digits": self.digits, "wall_time": self.wall_time}


def certified_finite_n_threshold(model_a, model_b, N, sampling="with_replacement", *, digits=12,
                                 max_states=MAX_STATES):
    r"""Prove where :math:`B_N^a(\rho) - B_N^b(\rho)` changes sign on :math:`(0, \infty)`.

    Both blockings are computed exactly (:func:`blocking_rational_function`); the sign of
    :math:`B^a - B^b` is that of :math:`R = P_a Q_b - P_b Q_a` (the denominators are positive on
    :math:`(0, \infty)`). With :math:`\rho^m` removed and ``R`` made square-free, its roots on
    :math:`(0, \infty)` lie below a Cauchy bound ``H``; :math:`(0, H)` is cut by bisection into tiles on
    which Descartes' rule of signs (after the Möbius map of the tile onto :math:`(0, \infty)`) counts 0
    or 1 root exactly (Vincent-Collins-Akritas; exact integer arithmetic). Each root is refined by
    exact sign evaluations until ``hi - lo <= 10^-digits lo``; it is a crossing when ``R`` changes sign
    across it (odd multiplicity).

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        The two models (see :func:`blocking_rational_function` for the models handled).
    N : int
        Number of servers, ``>= 1``.
    sampling : {"with_replacement", "without_replacement"}
        The finite-N convention of both chains.
    digits : int
        Relative width of the isolating intervals, ``1 <= digits <= 1000``.
    max_states : int
        Largest chain accepted.

    Returns
    -------
    CertifiedFiniteNThreshold
        Status ``"PROVED"``, the root count, the crossings, the isolating intervals, the signs below
        and above, and the certificate data.

    Raises
    ------
    TypeError, ValueError
        As :func:`blocking_rational_function`, or ``digits`` out of range.
    ValueError
        If the two blockings are identical (no sign structure to prove).

    References
    ----------
    .. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
       Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026) (the finite-N study).

    Examples
    --------
    >>> from symloss import PowerOfD, RetrialOfD
    >>> r = certified_finite_n_threshold(RetrialOfD(2, 4), PowerOfD(2, 3), 3, digits=8)
    >>> r.status, r.n_roots, r.n_crossings, round(r.threshold, 6), r.sign_below, r.sign_above
    ('PROVED', 1, 1, 0.262103, 1, -1)
    """
    for name, m in (("model_a", model_a), ("model_b", model_b)):
        if not isinstance(m, MeanFieldModel):
            raise TypeError(f"{name} must be a MeanFieldModel, got {type(m).__name__}")
    N = check_int(N, "N", min_value=1)
    check_choice(sampling, "sampling", SAMPLINGS)
    digits = check_int(digits, "digits", min_value=1, max_value=1000)
    max_states = check_int(max_states, "max_states", min_value=1)
    t0 = time.perf_counter()
    fa = blocking_rational_function(model_a, N, sampling, max_states=max_states)
    fb = blocking_rational_function(model_b, N, sampling, max_states=max_states)
    iso, roots, signs = _analyse(fa.P, fa.Q, fb.P, fb.Q, digits)
    crossings = [(lo, hi) for lo, hi, cr in roots if cr]
    cr = thr = None
    if len(crossings) == 1:
        lo, hi = crossings[0]
        cr = (Fraction(int(lo.p), int(lo.q)), Fraction(int(hi.p), int(hi.q)))
        thr = float((cr[0] + cr[1]) / 2)
    intervals = [(Fraction(int(lo.p), int(lo.q)), Fraction(int(hi.p), int(hi.q))) for lo, hi, _ in roots]
    return CertifiedFiniteNThreshold(
        status="PROVED", model_a=repr(model_a), model_b=repr(model_b), N=N, sampling=sampling,
        n_roots=len(roots), n_crossings=len(crossings), intervals=intervals, crossing=cr, threshold=thr,
        sign_below=signs[0], sign_above=signs[1], digits=digits, a=fa, b=fb, isolation=iso,
        wall_time=time.perf_counter() - t0)


def _analyse(aP, aQ, bP, bQ, digits):
    from flint import fmpq
    for name, Q in (("a", aQ), ("b", bQ)):
        if not _positive_on_halfline(Q):       # pragma: no cover - guaranteed by blocking_rational_function
            raise ArithmeticError(f"the denominator of {name} is not positive on (0, oo)")
    R, m, sq = _difference_numerator(aP, aQ, bP, bQ)
    if R.is_zero():
        raise ValueError("the two finite-N blockings are identical: no sign structure to prove")
    tol = fmpq(1, 10 ** digits)
    tiles, roots, stored = [], [], []
    H = fmpq(1)
    if sq.degree() >= 1:
        H, tiles = _tiles(sq)
    for a, b, v in tiles:
        if v != 1:
            continue
        lo, hi = _refine(sq, a, b, tol)
        if lo == hi:             # an exact rational root: signs at the tile's ends (no other root in it)
            s_lo, s_hi = _sign(R(a)), _sign(R(b))
            ends = (a, b)
        else:
            s_lo, s_hi = _sign(R(lo)), _sign(R(hi))
            ends = (lo, hi)
        roots.append((lo, hi, s_lo != s_hi))
        stored.append({"tile": [_qtext(a), _qtext(b)], "lo": _qtext(lo), "hi": _qtext(hi),
                       "sign_points": [_qtext(ends[0]), _qtext(ends[1])], "sign_left": s_lo, "sign_right": s_hi,
                       "crossing": s_lo != s_hi})
    iso = {"root_bound": _qtext(H), "tiles": [[_qtext(a), _qtext(b), v] for a, b, v in tiles], "roots": stored}
    return iso, roots, (_sign(R.coeffs()[m]), _sign(R.leading_coefficient()))


def recheck_threshold_certificate(data, *, digits=None):
    r"""Re-verify a stored :meth:`CertifiedFiniteNThreshold.certificate` from its data alone (no chain,
    no search).

    Checked: ``Q_a, Q_b > 0`` on :math:`(0, \infty)`; ``R = P_a Q_b - P_b Q_a``, its order at 0 and the
    square-free part recomputed; the stored root bound ``H`` has no root of the square-free part at or
    above it (``p(x + H)`` without sign variations); the stored open tiles cover :math:`(0, H)` in order,
    no tile end is a root, every tile's Descartes count is recomputed and equals the stored 0 or 1; per
    root the refined interval lies in its tile, has the stored
    width, the square-free part changes sign across it, and the stored signs of ``R`` at the stored
    points are recomputed (crossing = sign change); the signs just above 0 and at infinity recomputed.
    Whether ``P_a/Q_a`` and ``P_b/Q_b`` are the chains' blockings is checked by
    :func:`recheck_blocking_rational_function`.

    Parameters
    ----------
    data : dict
        The certificate.
    digits : int, optional
        Required width (default: the stored ``digits``).

    Returns
    -------
    dict
        ``{"n_roots", "n_crossings", "crossings": [(lo, hi), ...]}`` (fmpq ends).

    Raises
    ------
    RationalCertificateError
        If anything does not verify.
    """
    from flint import fmpq
    aP, aQ = _poly_from_text(data["a"]["P"], "a/P"), _poly_from_text(data["a"]["Q"], "a/Q")
    bP, bQ = _poly_from_text(data["b"]["P"], "b/P"), _poly_from_text(data["b"]["Q"], "b/Q")
    for name, Q in (("a/Q", aQ), ("b/Q", bQ)):
        if not _positive_on_halfline(Q):
            raise RationalCertificateError(f"{name} is not positive on (0, oo)")
    stored_digits = data["digits"]
    want = stored_digits if digits is None else digits
    if isinstance(stored_digits, bool) or not isinstance(stored_digits, int) or stored_digits < want:
        raise RationalCertificateError(f"stored digits {stored_digits!r} < required {want}")
    R, m, sq = _difference_numerator(aP, aQ, bP, bQ)
    if R.is_zero():
        raise RationalCertificateError("the two blockings are identical")
    H = _q(data["root_bound"])
    tiles = [(_q(a), _q(b), v) for a, b, v in data["tiles"]]
    if sq.degree() >= 1:
        if not H > 0 or sq(H) == 0 or descartes_variations(sq, H, "inf") != 0:
            raise RationalCertificateError(f"the stored root bound {data['root_bound']} is not above every root")
        # the tiles are open intervals covering (0, H) in order, their ends not roots
        pos = fmpq(0)
        for k, (a, b, v) in enumerate(tiles):
            if a != pos or not a < b or not b <= H:
                raise RationalCertificateError(f"tile {k}: ({a}, {b}) does not continue the cover of (0, H) at {pos}")
            if sq(b) == 0:
                raise RationalCertificateError(f"tile {k}: its end {b} is a root")
            if v not in (0, 1) or descartes_variations(sq, a, b) != v:
                raise RationalCertificateError(f"tile {k}: stored Descartes count {v!r}, the data give "
                                               f"{descartes_variations(sq, a, b)} (only 0 or 1 decide)")
            pos = b
        if pos != H or not tiles:
            raise RationalCertificateError(f"the tiles end at {pos}, not at the root bound {H}")
    counted = [(a, b) for a, b, v in tiles if v == 1]
    roots = data["roots"]
    if data["n_roots"] != len(counted) or len(roots) != len(counted):
        raise RationalCertificateError(f"stored {data['n_roots']} roots ({len(roots)} records) but the tiles count "
                                       f"{len(counted)}")
    tol = fmpq(1, 10 ** want)
    crossings = []
    for k, (r, (a, b)) in enumerate(zip(roots, counted)):
        if [_q(x) for x in r["tile"]] != [a, b]:
            raise RationalCertificateError(f"root {k}: stored tile {r['tile']} is not the {k}-th counted tile")
        lo, hi = _q(r["lo"]), _q(r["hi"])
        p0, p1 = _q(r["sign_points"][0]), _q(r["sign_points"][1])
        if lo == hi:
            if not (a < lo < b) or sq(lo) != 0 or (p0, p1) != (a, b):
                raise RationalCertificateError(f"root {k}: the stored exact root {r['lo']} is not a root in its tile "
                                               "with the signs taken at the tile's ends")
        else:
            if not (a <= lo < hi <= b) or hi - lo > tol * lo or not lo > 0:
                raise RationalCertificateError(f"root {k}: [{r['lo']}, {r['hi']}] is not inside its tile with "
                                               f"relative width 10^-{want}")
            if (p0, p1) != (lo, hi) or _sign(sq(lo)) * _sign(sq(hi)) != -1:
                raise RationalCertificateError(f"root {k}: the square-free part does not change sign on "
                                               f"[{r['lo']}, {r['hi']}]")
        s_lo, s_hi = _sign(R(p0)), _sign(R(p1))
        if (r["sign_left"], r["sign_right"], r["crossing"]) != (s_lo, s_hi, s_lo != s_hi):
            raise RationalCertificateError(f"root {k}: stored signs / crossing "
                                           f"{(r['sign_left'], r['sign_right'], r['crossing'])}, the data give "
                                           f"{(s_lo, s_hi, s_lo != s_hi)}")
        if s_lo != s_hi:
            crossings.append((lo, hi))
    if data["n_crossings"] != len(crossings):
        raise RationalCertificateError(f"stored {data['n_crossings']} crossings, the data give {len(crossings)}")
    sb, sa = _sign(R.coeffs()[m]), _sign(R.leading_coefficient())
    if (data["sign_below"], data["sign_above"]) != (sb, sa):
        raise RationalCertificateError(f"stored signs below/above {(data['sign_below'], data['sign_above'])}, "
                                       f"the data give {(sb, sa)}")
    if data["N"] != data["a"]["N"] or data["N"] != data["b"]["N"] or \
            not data["sampling"] == data["a"]["sampling"] == data["b"]["sampling"]:
        raise RationalCertificateError("N / sampling of the certificate and of its two blockings differ")
    return {"n_roots": len(counted), "n_crossings": len(crossings), "crossings": crossings}
