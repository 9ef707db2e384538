r"""The numerics of :mod:`symloss.core.unbounded`: the orbit :math:`u_k = \varphi(u_{k-1})` in
python-flint ``arb`` balls, the choice of the truncation ``K`` with its tail bound
:math:`\sum_{k>K} u_k \le u_{K+1}/(1 - r)`, the returned values and their result type
(:class:`UnboundedValues`). The mathematics is in :mod:`symloss.core.unbounded`; the functions here take
any object with the checked ``G`` (coefficients), ``mu`` and ``name`` of an
:class:`~symloss.core.unbounded.UnboundedTailModel`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
from flint import arb, fmpq

from .._version import __version__
from .boxes import exact_dyadic
from .precision import PrecisionError

__all__ = ["MAX_LEVELS", "UnboundedValues"]

#: the largest number of levels the orbit is followed (random routing at a load close to 1 needs many)
MAX_LEVELS = 200_000

KIND = "unbounded-tail"


def _q_str(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _q_show(q: Fraction) -> str:
    """``q`` for a message or a repr: an integer as itself, a non-integer that is a float exactly by the
    float's shortest repr (which reads back to the same binary value, e.g. ``0.9``), another value
    exactly where it is short, else by 15 significant digits marked as rounded."""
    if q.denominator != 1 and q.denominator & (q.denominator - 1) == 0 and abs(q) < 2 ** 1000:
        f = float(q)
        if Fraction(f) == q:
            return repr(f)
    if max(q.numerator.bit_length(), q.denominator.bit_length()) <= 200:
        return _q_str(q)
    with mpmath.workdps(20):
        value = mpmath.mpf(q.numerator) / q.denominator
        return f"{mpmath.nstr(value, 15)} (rounded)"


def _q_parse(text) -> Fraction:
    if not isinstance(text, str):
        raise ValueError(f"expected an exact rational string, got {text!r}")
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"expected an exact rational string, got {text!r}") from None


def _phi_parts(model, rho_q):
    """The balls of ``(rho / mu)`` and of the coefficients of ``G`` (current precision)."""
    return arb(fmpq(rho_q.numerator, rho_q.denominator)) / arb(fmpq(model.mu.numerator, model.mu.denominator)), \
        [arb(fmpq(g.numerator, g.denominator)) for g in model.G]


def _horner(coeffs, x):
    s = arb(0)
    for g in reversed(coeffs):
        s = s * x + g
    return s


def _phi(lam_mu, coeffs, x):
    return lam_mu * _horner(coeffs, x)


def _ratio(lam_mu, coeffs, x):
    """:math:`\\varphi(x)/x` as the polynomial ``(rho/mu) sum g_j x^(j-1)`` (no division by a ball)."""
    return lam_mu * _horner(coeffs[1:], x)


def _orbit(model, rho_q, dps):
    """``(tails u_1..u_{K+1}, r, bound, K)``: the first ``K`` whose tail bound is below
    ``10^-(dps+1) * min(1, sum_{k<=K} u_k)`` (current precision)."""
    lam_mu, coeffs = _phi_parts(model, rho_q)
    eps = arb(10) ** (-(dps + 1))
    tails = [_phi(lam_mu, coeffs, arb(1))]
    partial = tails[0]
    for K in range(1, MAX_LEVELS + 1):
        tails.append(_phi(lam_mu, coeffs, tails[-1]))      # u_{K+1}
        r = _ratio(lam_mu, coeffs, tails[K - 1])           # phi(u_K) / u_K
        if r < 1:
            bound = arb(tails[K].upper()) / (1 - arb(r.upper()))
            bound = arb(bound.upper())
            ref = partial if partial < 1 else arb(1)
            if bound < eps * arb(ref.lower()):
                return tails, r, bound, K
        partial = partial + tails[K]
    raise PrecisionError(f"{model.name}: the tail bound at rho = {_q_str(rho_q)} is not below 10^-{dps + 1} within "
                         f"{MAX_LEVELS} levels")


def _values(model, rho_q, tails, bound, K):
    """The balls of the mean queue length, the delay probability and the mean sojourn time."""
    lam_mu, coeffs = _phi_parts(model, rho_q)
    s = arb(0)
    for t in tails[:K]:
        s += t
    L = s.union(s + bound)                                  # sum_{k <= K} u_k + [0, bound]
    G1 = _horner(coeffs, arb(1))
    delay = _horner(coeffs, tails[0]) / G1
    rate = arb(fmpq(rho_q.numerator, rho_q.denominator)) * G1   # arrivals per queue (Little's law)
    return L, delay, L / rate


def _ball_str(x):
    return [exact_dyadic(x), exact_dyadic(arb(x.rad()))]


def _bracket(x):
    return [exact_dyadic(arb(x.lower())), exact_dyadic(arb(x.upper()))]


def _result(model, rho_q, load, dps, prec, tails, r, bound, K, vals):
    L, delay, sojourn = vals
    cert = {"kind": KIND, "fingerprint": model.fingerprint(), "symloss_version": __version__,
            "rho": _q_str(rho_q), "dps": dps, "prec": prec, "K": K,
            "G": [_q_str(g) for g in model.G], "mu": _q_str(model.mu),
            "tails": [_ball_str(t) for t in tails], "ratio": _ball_str(r), "tail_bound": exact_dyadic(bound),
            "mean_queue_length": _bracket(L), "delay_probability": _bracket(delay),
            "mean_sojourn_time": _bracket(sojourn)}
    return UnboundedValues(model=model.name, rho=rho_q, load=load, K=K, tails=tuple(tails[:K]),
                           mean_queue_length=L, delay_probability=delay, mean_sojourn_time=sojourn,
                           truncation_bound=bound, dps=dps, certificate=cert)


@dataclass(frozen=True)
class UnboundedValues:
    r"""Certified stationary values of an unbounded tail model
    (:meth:`symloss.core.unbounded.UnboundedTailModel.certified_values`).

    Parameters
    ----------
    model : str
        The model's name.
    rho : fractions.Fraction
        The exact arrival rate per queue.
    load : fractions.Fraction
        :math:`\lambda G(1)/\mu` (``< 1``).
    K : int
        The truncation chosen: the tails beyond ``K`` enter only through ``truncation_bound``.
    tails : tuple of flint.arb
        Balls of :math:`u_1, \dots, u_K` (exact values inside; no truncation error).
    mean_queue_length, delay_probability, mean_sojourn_time : flint.arb
        Balls containing :math:`\sum_{k \ge 1} u_k`, :math:`G(u_1)/G(1)` and the mean queue length
        over the arrival rate (Little's law); the first and the last include the truncation bound.
    truncation_bound : flint.arb
        A rigorous upper bound of :math:`\sum_{k > K} u_k`.
    dps : int
        Significant digits certified.
    certificate : dict
        JSON data for :func:`verify_unbounded`.
    status : str
        ``"PROVED"``.
    """

    model: str
    rho: Fraction
    load: Fraction
    K: int
    tails: tuple
    mean_queue_length: object
    delay_probability: object
    mean_sojourn_time: object
    truncation_bound: object
    dps: int
    certificate: dict = field(repr=False)
    status: str = "PROVED"

    def __repr__(self) -> str:
        n = min(self.dps, 20)
        return (f"UnboundedValues({self.model}, rho={_q_show(self.rho)}: mean queue length "
                f"{self.mean_queue_length.str(n, radius=False)}, delay probability "
                f"{self.delay_probability.str(n, radius=False)}, K={self.K}, truncation bound "
                f"{self.truncation_bound.str(3, radius=False)}, {self.status})")

    def to_dict(self) -> dict:
        """Plain data: the values as ``dps``-digit decimal strings, and the certificate.

        Returns
        -------
        dict
        """
        s = lambda x: x.str(self.dps, radius=False)  # noqa: E731
        return {"model": self.model, "rho": _q_str(self.rho), "load": _q_str(self.load), "K": self.K,
                "tails": [s(t) for t in self.tails], "mean_queue_length": s(self.mean_queue_length),
                "delay_probability": s(self.delay_probability), "mean_sojourn_time": s(self.mean_sojourn_time),
                "truncation_bound": self.truncation_bound.str(5, radius=False), "dps": self.dps,
                "status": self.status, "certificate": self.certificate}
