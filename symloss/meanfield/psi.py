r"""The comparison function :math:`\Psi(a)` of the retrial-of-:math:`\tilde d` / power-of-:math:`d`
reduction (the mathematics is in :mod:`symloss.meanfield.enclosures`, which re-exports these names):
Erlang-B on balls and series in the retrial per-server load ``a``, :math:`\rho(a)`, point values,
mixed-monotone bounds and Taylor models of :math:`\Psi` on cells, the large-load Taylor model in
:math:`1/a` and the small-load bound.
"""
from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, arb_series, fmpq

from ..erlang.balls import erlang_b_reciprocal_ball, reciprocal_coefficients
from .ball_text import ball_str, q_arb, q_str
from .taylor import DualBallTM, ExactTM, analytic_tm, series_cap, series_coeffs

#: ``E(C, a) = 1/Q(1/a)`` in ball arithmetic (:func:`symloss.erlang.balls.erlang_b_reciprocal_ball`)
erlang_ball = erlang_b_reciprocal_ball


def _erlang_coeffs(C: int, x: arb, n: int) -> list:
    with series_cap(n):
        a = arb_series([x, arb(1)], prec=n)
        y = 1 / a
        Q = a * 0
        for c in reversed(reciprocal_coefficients(C)):
            Q = Q * y + c
        return series_coeffs(1 / Q, n)


def _inv_coeffs(x: arb, n: int) -> list:
    with series_cap(n):
        return series_coeffs(1 / arb_series([x, arb(1)], prec=n), n)


def _psi_formula(C: int, d: int, dt: int, p, inva, pw):
    """``Psi = W_1(s*, rho) - 1`` from ``p = E(C, a)`` and ``inva = 1/a``, generic over scalars,
    Taylor models and exact models (``pw(x, q)`` = ``x ** q`` for a rational ``q``)."""
    sig = p * 0 + 1
    pj = p * 0 + 1
    for _ in range(1, dt):
        pj = pj * p
        sig = sig + pj
    B = pj * p                      # p^dt = B_ret = (s*)^d
    t = sig * inva                  # 1/rho = sigma(p)/a
    s = p if dt == d else pw(p, fmpq(dt, d))
    u = s
    T = None
    for k in range(C, 0, -1):
        M = u * k if T is None else u * k + T
        W = B + t * M
        if k == 1:
            return W - 1
        T = u if T is None else T + u
        u = pw(W, fmpq(1, d)) if d > 1 else W
    raise AssertionError("unreachable")  # pragma: no cover


def _arb_pow(x, q):
    return x ** arb(q)


def psi_point(C: int, d: int, dt: int, a: arb) -> arb:
    """:math:`\\Psi(a)` as a ball (``a`` a ball, usually exact).

    Parameters
    ----------
    C, d, dt : int
        Capacity, samples of power-of-d, attempts of retrial-of-dt.
    a : flint.arb
        Retrial per-server load (a ball).

    Returns
    -------
    flint.arb
        A ball containing :math:`\\Psi(a)` for every point of ``a``.
    """
    p = erlang_ball(C, a)
    return _psi_formula(C, d, dt, p, 1 / a, _arb_pow)


def rho_of_a(C: int, dt: int, a: arb) -> arb:
    """The load :math:`\\rho(a) = a/\\sigma(E(C, a))` at which retrial-of-dt has per-server load ``a``.

    Parameters
    ----------
    C : int
        Capacity.
    dt : int
        Attempts of retrial-of-dt.
    a : flint.arb
        Retrial per-server load (a ball).

    Returns
    -------
    flint.arb
        A ball containing :math:`\\rho(a)`, with :math:`\\sigma(p) = 1 + p + \\dots + p^{\\tilde d - 1}`.
    """
    p = erlang_ball(C, a)
    sig = arb(0)
    pj = arb(1)
    for _ in range(dt):
        sig += pj
        pj *= p
    return a / sig


def _w1_mixed(C: int, d: int, dt: int, a_s: arb, a_r: arb) -> arb:
    """``W_1(s*(a_s), rho(a_r)) - 1``."""
    p = erlang_ball(C, a_s)
    B = p ** dt
    s = p if dt == d else p ** arb(fmpq(dt, d))
    t = 1 / rho_of_a(C, dt, a_r)
    u = s
    T = arb(0)
    for k in range(C, 0, -1):
        W = B + t * (k * u + T)
        if k == 1:
            return W - 1
        T += u
        u = W ** arb(fmpq(1, d)) if d > 1 else W
    raise AssertionError("unreachable")  # pragma: no cover


def psi_mixed(C: int, d: int, dt: int, a0: arb, a1: arb):
    """``(L, U)`` with ``L <= Psi(a) <= U`` for every ``a`` in ``[a0, a1]`` (mixed monotonicity:
    module docstring).

    Parameters
    ----------
    C, d, dt : int
        Capacity, samples of power-of-d, attempts of retrial-of-dt.
    a0, a1 : flint.arb
        End points of the cell of ``a``.

    Returns
    -------
    tuple of flint.arb
        ``(L, U)``: balls whose lower end of ``L`` and upper end of ``U`` bound :math:`\\Psi` on the cell.
    """
    return _w1_mixed(C, d, dt, a0, a1), _w1_mixed(C, d, dt, a1, a0)


def psi_tm(C: int, d: int, dt: int, a0, a1, K: int, *, dual: bool = False):
    """Taylor model of order ``K`` of :math:`\\Psi` on ``[a0, a1]`` (exact rationals), or of
    :math:`(\\Psi, \\Psi')` with ``dual=True``.

    Parameters
    ----------
    C, d, dt : int
        Capacity, samples of power-of-d, attempts of retrial-of-dt.
    a0, a1 : Fraction
        End points of the cell of ``a`` (exact).
    K : int
        Order of the Taylor model.
    dual : bool, optional
        Also the Taylor model of the derivative.

    Returns
    -------
    BallTM or DualBallTM
        The model on ``m + [-h, h]`` with ``m, h`` the cell's midpoint and half-width (a
        :class:`~symloss.meanfield.taylor.DualBallTM` with ``dual=True``).

    Raises
    ------
    ValueError, ZeroDivisionError
        When a ball leaves a function's domain or the model is not finite (a too wide cell: bisect).
    """
    a0, a1 = Fraction(a0), Fraction(a1)
    m, h = q_arb((a0 + a1) / 2), q_arb((a1 - a0) / 2)
    if dual:
        p = DualBallTM.from_analytic(lambda x, n: _erlang_coeffs(C, x, n), m, h, K)
        inva = DualBallTM.from_analytic(_inv_coeffs, m, h, K)
    else:
        p = analytic_tm(lambda x, n: _erlang_coeffs(C, x, n), m, h, K)
        inva = analytic_tm(_inv_coeffs, m, h, K)
    out = _psi_formula(C, d, dt, p, inva, lambda x, q: x.pow(q))
    tms = (out.v, out.d) if dual else (out,)
    for tm in tms:
        if not all(c.is_finite() for c in tm.c) or not tm.r.is_finite():
            raise ValueError("Taylor model not finite on this cell")
    return out


# ==================================================================================================
# end pieces
# ==================================================================================================

def large_end_tm(C: int, d: int, dt: int, a_hi, K: int) -> ExactTM:
    """Exact-coefficient Taylor model of :math:`\\Psi` in :math:`\\tau = 1/a` on
    ``[0, 1/a_hi]`` (module docstring).

    Parameters
    ----------
    C, d, dt : int
        Capacity, samples of power-of-d, attempts of retrial-of-dt.
    a_hi : Fraction
        Start of the large-load end piece.
    K : int
        Order of the Taylor model.

    Returns
    -------
    ExactTM
        The model on ``[0, 1/a_hi]`` with exact coefficients and a ball remainder.

    Raises
    ------
    ValueError
        When the remainder is not finite (``a_hi`` too small).
    """
    a_hi = Fraction(a_hi)
    h = q_arb(1 / a_hi)
    tau = ExactTM.var(h, K)
    Q = tau.const(0)
    for c in reversed(reciprocal_coefficients(C)):         # Q(tau) = sum_j C!/(C-j)! tau^j, Horner
        Q = Q * tau + c
    p = Q.inv()                               # E(C, 1/tau)
    out = _psi_formula(C, d, dt, p, tau, lambda x, q: x.pow(q))
    if not out.R.is_finite():
        raise ValueError("large-load Taylor model not finite")
    return out


def small_end_bound(C: int, d: int, dt: int, a_lo) -> dict:
    """Enclosure of :math:`D(\\rho) = \\log B_{ret}(\\tilde d) - \\log B_{pod}(d)` on
    :math:`(0, \\rho(a_{lo})]` as ``Delta_e log(rho) + [lo, hi]`` (module docstring).

    Parameters
    ----------
    C, d, dt : int
        Capacity, samples of power-of-d, attempts of retrial-of-dt.
    a_lo : Fraction
        End of the small-load end piece (exact).

    Returns
    -------
    dict
        ``sign`` (+1 or -1 when :math:`D` has that sign on the whole end piece, 0 if undecided) and
        the ball data as text: ``a_lo``, ``rho_lo``, the exponents ``exponent_retrial`` and
        ``exponent_power``, ``constant``, ``ret_remainder``, ``power_remainder`` and ``bound``.
    """
    a_lo = Fraction(a_lo)
    A = q_arb(a_lo)
    rho_lo = rho_of_a(C, dt, A)
    sig_lo = A / rho_lo
    logfac = arb(math.factorial(C)).log()
    # retrial
    ret_lo = -dt * arb(rho_lo.upper())
    ret_hi = dt * C * sig_lo.log()
    c_ret = -dt * logfac
    e_ret = dt * C
    # power-of-d
    if d == 1:
        e_pod = C
    else:
        e_pod = d * (d ** C - 1) // (d - 1)
    c_pod = arb(0)
    eps = arb(0)
    rd = arb(rho_lo.upper()) ** d
    for k in range(1, C + 1):
        w = d * d ** (C - k)
        c_pod -= w * arb(k).log()
        Hk = rd * (arb(fmpq(1, k)) + arb(fmpq(C - k, k * (k + 1))))
        eps += w * (1 + Hk).log()
    de = e_ret - e_pod
    const = c_ret - c_pod
    lo = const + ret_lo - 0
    hi = const + ret_hi + eps
    L = rho_lo.log()
    if de > 0:        # D -> -oo: D <= de log(rho_lo) + hi
        v = de * L + hi
        sign = -1 if v < 0 else 0
    elif de < 0:      # D -> +oo: D >= de log(rho_lo) + lo
        v = de * L + lo
        sign = 1 if v > 0 else 0
    else:
        v = lo.union(hi)
        sign = 1 if lo > 0 else (-1 if hi < 0 else 0)
    return {"a_lo": q_str(a_lo), "rho_lo": ball_str(rho_lo), "exponent_retrial": str(e_ret),
            "exponent_power": str(e_pod), "constant": ball_str(const), "ret_remainder": [ball_str(ret_lo), ball_str(ret_hi)],
            "power_remainder": ball_str(eps), "bound": ball_str(v), "sign": sign}


