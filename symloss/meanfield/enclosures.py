r"""Certified enclosures for the comparison of retrial-of-:math:`\tilde d` and power-of-:math:`d`
over *every* load, through a one-dimensional reduction whose monotone structure is itself proved.

The reduction (fast path of :mod:`symloss.meanfield.certified`)
----------------------------------------------------------------
Let ``R = RetrialOfD(C, dt)`` and ``P = PowerOfD(C, d)`` (or any models whose definitions are
identical to those templates: checked, :func:`retrial_binding`, :func:`power_binding`).

* **Retrial** (birth-death drift with arrival rate :math:`\Lambda = \rho\,\sigma(x_C)`,
  :math:`\sigma(p) = 1 + p + \dots + p^{\tilde d-1}`): every fixed point is truncated Poisson with load
  :math:`a = \Lambda`, so :math:`p = E(C, a)` and :math:`\rho = g(a) = a / \sigma(E(C, a))`. The map
  ``g`` is a strictly increasing bijection of :math:`(0, \infty)` (lemma :func:`retrial_g_lemma`:
  the numerator of ``g'`` has non-negative integer coefficients), so the retrial fixed point at load
  :math:`\rho(a)` is the one with per-server load ``a``, and ``a`` parametrises all loads.
* **Power-of-d** (:math:`\rho(u_{k-1}^d - u_k^d) = k(u_k - u_{k+1})`): summing the stationary
  equations ``k..C`` of the model's own drift (checked symbolically) gives the *telescoped recursion*

  .. math:: u_{k-1}^d = u_C^d + \frac{1}{\rho}\Big(k\,u_k + \sum_{j>k} u_j\Big), \qquad k = C, \dots, 1,

  whose right-hand side has only positive terms: from :math:`u_C = s`, every :math:`u_{k-1}` is an
  increasing function of ``s`` and a decreasing function of :math:`\rho`, and so is
  :math:`W_1(s, \rho) = u_0^d`. The fixed point is the unique ``s`` with :math:`W_1(s, \rho) = 1`
  (:math:`W_1 \to 0` as :math:`s \to 0`, :math:`W_1(1, \rho) > 1`).
* **The comparison function.** With :math:`s^*(a) = E(C, a)^{\tilde d/d}` (the full fraction a
  power-of-d system would need to block exactly as much as the retrial system),

  .. math:: \Psi(a) = W_1\big(s^*(a), \rho(a)\big) - 1,
            \qquad \operatorname{sign}\Psi(a) = \operatorname{sign}\big(B_{ret}(\tilde d) - B_{pod}(d)\big)(\rho(a)),

  because :math:`\Psi > 0 \iff s^* > s \iff B_{ret} = (s^*)^d > s^d = B_{pod}`. :math:`\Psi` is an
  *explicit* composition of elementary functions of ``a`` (no fixed point is solved anywhere), so it
  has Taylor models (:mod:`symloss.meanfield.taylor`) on intervals of ``a``.

Tests on a cell ``[a0, a1]`` (all in ball arithmetic)
-----------------------------------------------------
* **mixed monotone** (:func:`psi_mixed`): :math:`s^*` and :math:`\rho` increase with ``a`` (lemmas),
  :math:`W_1` increases in ``s`` and decreases in :math:`\rho`, so on the cell
  :math:`W_1(s^*(a_0), \rho(a_1)) - 1 \le \Psi \le W_1(s^*(a_1), \rho(a_0)) - 1`;
* **Taylor model** of :math:`\Psi` of order ``K`` (:func:`psi_tm`): the sign holds on the cell when
  :math:`|c_0|` exceeds the deviation bound;
* **one crossing**: opposite certified signs of :math:`\Psi(a_0)`, :math:`\Psi(a_1)` and a Taylor
  model of :math:`\Psi'` (:class:`~symloss.meanfield.taylor.DualBallTM`) that excludes 0: exactly one
  zero in the cell.

End pieces
----------
* **Small loads** (:func:`small_end_bound`, :math:`\rho \le \rho(a_{lo})`): elementary inequalities
  with explicit remainders. Retrial: :math:`\rho \le a \le \rho\,\sigma_{lo}`,
  :math:`\sigma_{lo} = a_{lo}/\rho(a_{lo})` (``p`` increases with the load) and
  :math:`a^C e^{-a}/C! \le E(C, a) \le a^C/C!`, so
  :math:`\log B_{ret} \in \tilde d (C \log\rho - \log C!) + [-\tilde d \rho_{lo}, \tilde d C \log\sigma_{lo}]`.
  Power-of-d: the telescoped recursion gives
  :math:`k u_k/\rho \le u_{k-1}^d \le (k u_k/\rho)(1 + H_k)` with
  :math:`H_k = \rho_{lo}^d (1/k + (C-k)/(k(k+1)))` (from :math:`s \le u_j \le u_{k+1} \le \rho u_k^d/(k+1)`,
  :math:`u_k \le u_1 \le \rho`), hence
  :math:`\log B_{pod} \in e \log\rho + c - [0, \varepsilon]`, :math:`e = d(d^C-1)/(d-1)`,
  :math:`c = -d\sum_k d^{C-k}\log k`, :math:`\varepsilon = d \sum_k d^{C-k}\log(1 + H_k)`.
* **Large loads** (:func:`large_end_tm`, :math:`a \ge a_{hi}`): in :math:`\tau = 1/a` everything is
  analytic at :math:`\tau = 0` (:math:`E(C, 1/\tau) = 1/Q(\tau)`,
  :math:`Q(\tau) = \sum_j C!/(C-j)!\,\tau^j`, :math:`1/\rho = \tau\sigma(p)`, all roots taken near 1):
  an exact-coefficient Taylor model :math:`\Psi(\tau) \in \sum_{n \le K} c_n\tau^n + \tau^{K+1} R`
  on :math:`[0, \tau_{hi}]`; with ``m`` the first non-zero exact coefficient, the sign of
  :math:`\Psi(\tau)/\tau^m` on :math:`(0, \tau_{hi}]` is certified (``m = 4`` for ``dt = d``: the
  blockings agree to order :math:`\rho^{-3}`; ``m = 2`` for ``dt > d``).

Everything here reads only exact inputs (rationals, integers) and the models' definitions.
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import sympy as sp
from flint import arb, arb_series, fmpq, fmpz_poly

from ..core.model import RHO
from .taylor import DualBallTM, ExactTM, analytic_tm, series_cap, series_coeffs

__all__ = [
    "BindingError",
    "ball_str",
    "dec_down",
    "dec_up",
    "erlang_ball",
    "erlang_increasing_lemma",
    "large_end_tm",
    "parse_ball",
    "parse_q",
    "power_binding",
    "psi_mixed",
    "psi_point",
    "psi_tm",
    "q_arb",
    "q_str",
    "retrial_binding",
    "retrial_g_lemma",
    "rho_of_a",
    "small_end_bound",
]


class BindingError(ValueError):
    """A model's definition is not the system a fast path assumes (the generic path applies)."""


# ==================================================================================================
# exact numbers <-> strings
# ==================================================================================================

def parse_q(s) -> Fraction:
    """A rational from ``"p/q"`` or ``"p"`` (as stored in certificates); rejects floats."""
    if isinstance(s, Fraction):
        return s
    if isinstance(s, bool) or not isinstance(s, (str, int)):
        raise TypeError(f"expected a rational string 'p/q', got {s!r}")
    s = str(s).strip()
    if not s or any(ch not in "0123456789-/" for ch in s):
        raise ValueError(f"expected a rational string 'p/q', got {s!r}")
    return Fraction(s)


def q_str(x) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def q_arb(x) -> arb:
    """Exact ball of a rational."""
    x = Fraction(x)
    return arb(fmpq(x.numerator, x.denominator))


def ball_str(x: arb, digits: int = 20) -> str:
    """Outward-rounded decimal text of a ball (``arb`` parses it back to a ball containing ``x``)."""
    return x.str(digits, radius=True, more=True)


def parse_ball(s) -> arb:
    if not isinstance(s, str):
        raise TypeError(f"expected a ball string, got {s!r}")
    b = arb(s)
    if not b.is_finite():
        raise ValueError(f"stored ball {s!r} is not finite")
    return b


def _arb_exact_to_fraction(x: arb) -> Fraction:
    m, e = x.mid().man_exp()
    m, e = int(m), int(e)
    return Fraction(m) * (Fraction(2) ** e)


def _ball_ends(x: arb):
    """The exact end points ``mid -+ rad`` of a ball as Fractions (independent of the precision)."""
    m = _arb_exact_to_fraction(arb(x.mid()))
    r = _arb_exact_to_fraction(arb(x.rad()))
    return m - r, m + r


def dec_down(x: arb, digits: int) -> str:
    """A decimal string ``<= every point of x`` with ``digits`` significant digits."""
    return _dec(_ball_ends(x)[0], digits, down=True)


def dec_up(x: arb, digits: int) -> str:
    """A decimal string ``>= every point of x`` with ``digits`` significant digits."""
    return _dec(_ball_ends(x)[1], digits, down=False)


def _dec(f: Fraction, digits: int, down: bool) -> str:
    if f == 0:
        return "0"
    e = len(str(abs(f.numerator))) - len(str(f.denominator))
    if abs(f) < Fraction(10) ** e:
        e -= 1
    scale = Fraction(10) ** (digits - 1 - e)
    v = f * scale
    n = math.floor(v) if down else math.ceil(v)
    out = Fraction(n) / scale
    assert (out <= f) if down else (out >= f)
    # render without exponent surprises: integer mantissa and power of ten
    k = digits - 1 - e
    s = str(abs(n))
    if k > 0:
        s = s.rjust(k + 1, "0")
        s = s[:-k] + "." + s[-k:]
    else:
        s = s + "0" * (-k)
    return ("-" if n < 0 else "") + s


# ==================================================================================================
# binding: the definitions must be the templates of the reduction
# ==================================================================================================

def _binding_key(model):
    return model._definition_key()


_BINDING_CACHE: dict = {}


def retrial_binding(model) -> dict:
    """Check that ``model``'s definition is the retrial-of-d template (exact SymPy identity of the
    drift, the invariant ``sum x = 1`` and the blocking ``x_C^d`` with the birth-death system of
    arrival rate ``rho (1 + x_C + ... + x_C^(d-1))``); returns ``{"C", "d", "identity"}``."""
    key = ("retrial", _binding_key(model))
    if key not in _BINDING_CACHE:
        from .accelerators import RETRIAL
        if not (hasattr(model, "C") and hasattr(model, "d")):
            raise BindingError(f"{model!r} has no (C, d): not a retrial-of-d definition")
        ok, reason = RETRIAL.applies(model)
        if not ok:
            raise BindingError(f"{model!r} is not the retrial-of-d template: {reason}")
        _BINDING_CACHE[key] = {"C": int(model.C), "d": int(model.d), "identity": reason}
    return dict(_BINDING_CACHE[key])


def power_binding(model) -> dict:
    """Check that ``model``'s definition is the power-of-d template and that its own drift
    telescopes: for every ``k``, ``sum_{j=k}^{C} f_j = rho (u_{k-1}^d - u_C^d) - (k u_k + sum_{j>k} u_j)``
    (exact SymPy identity, ``u_0 = 1``); returns ``{"C", "d", "identity", "telescoped"}``."""
    key = ("power", _binding_key(model))
    if key not in _BINDING_CACHE:
        from .accelerators import POWER
        if not (hasattr(model, "C") and hasattr(model, "d")):
            raise BindingError(f"{model!r} has no (C, d): not a power-of-d definition")
        ok, reason = POWER.applies(model)
        if not ok:
            raise BindingError(f"{model!r} is not the power-of-d template: {reason}")
        C, d = int(model.C), int(model.d)
        u = [sp.Integer(1)] + list(model.variables)
        f = list(model.drift())
        acc = sp.Integer(0)
        tail = sp.Integer(0)
        for k in range(C, 0, -1):
            acc = acc + f[k - 1]
            expect = RHO * (u[k - 1] ** d - u[C] ** d) - (k * u[k] + tail)
            if sp.expand(acc - expect) != 0:
                raise BindingError(f"{model!r}: the sum of drift rows {k}..{C} is not the telescoped form")
            tail = tail + u[k]
        if sp.expand(model._blocking - u[C] ** d) != 0:
            raise BindingError(f"{model!r}: blocking is not u_C^d")
        _BINDING_CACHE[key] = {"C": C, "d": d, "identity": reason,
                               "telescoped": "sum_{j=k..C} f_j = rho (u_{k-1}^d - u_C^d) - (k u_k + sum_{j>k} u_j), "
                                             "k = 1..C (SymPy, the model's drift)"}
    return dict(_BINDING_CACHE[key])


# ==================================================================================================
# exact lemmas (integer polynomials with non-negative coefficients)
# ==================================================================================================

def _erlang_polys(C: int):
    S = fmpz_poly([math.factorial(C) // math.factorial(k) for k in range(C + 1)])   # C! S_C(a)
    f = fmpz_poly([0] * C + [1])                                                   # a^C
    return S, f


def _nonneg_positive_constant(p) -> bool:
    cs = [int(c) for c in p.coeffs()]
    return bool(cs) and cs[0] > 0 and all(c >= 0 for c in cs)


@cache
def retrial_g_lemma(C: int, d: int) -> dict:
    r"""``g(a) = a(1 - E(C,a))/(1 - E(C,a)^d) = A/B`` with ``A = a S^{d-1}``,
    ``B = sum_{j<d} S^{d-1-j} f^j`` (``S = C! S_C(a)``, ``f = a^C``): the numerator ``A'B - AB'`` of
    ``g'`` has non-negative coefficients and a positive constant term, ``g(0) = 0`` and
    ``deg A = deg B + 1`` with positive leading coefficients; so ``g`` increases strictly from 0 to
    infinity. Returns the facts (recomputed exactly; ``holds`` is their conjunction)."""
    S, f = _erlang_polys(C)
    A = fmpz_poly([0, 1]) * S ** (d - 1)
    B = fmpz_poly([0])
    for j in range(d):
        B += S ** (d - 1 - j) * f ** j
    N = A.derivative() * B - A * B.derivative()
    facts = {"A(0)": int(A(0)), "B(0)": int(B(0)), "deg A - deg B": A.degree() - B.degree(),
             "lc A > 0": int(A.leading_coefficient()) > 0, "lc B > 0": int(B.leading_coefficient()) > 0,
             "N = A'B - AB' non-negative": _nonneg_positive_constant(N), "deg N": N.degree()}
    holds = (facts["A(0)"] == 0 and facts["B(0)"] > 0 and facts["deg A - deg B"] == 1 and facts["lc A > 0"]
             and facts["lc B > 0"] and facts["N = A'B - AB' non-negative"])
    return {"C": C, "d": d, "facts": facts, "holds": bool(holds)}


@cache
def erlang_increasing_lemma(C: int) -> dict:
    r"""``E(C, a)`` increases in ``a``: ``dE/da = f (C S - a S')/(a S^2)`` and ``C S - a S'`` has the
    coefficients ``(C - j) C!/j! >= 0`` with constant term ``C C! > 0`` (``C >= 1``)."""
    S, _f = _erlang_polys(C)
    L = C * S - fmpz_poly([0, 1]) * S.derivative()
    return {"C": C, "C S - a S' non-negative": _nonneg_positive_constant(L),
            "holds": bool(_nonneg_positive_constant(L))}


# ==================================================================================================
# Erlang-B and the comparison function Psi
# ==================================================================================================

@cache
def _q_coeffs(C: int) -> tuple:
    """Coefficients of ``Q(y) = sum_j C!/(C-j)! y^j``, ``E(C, a) = 1/Q(1/a)``."""
    out = [1]
    c = 1
    for j in range(1, C + 1):
        c *= C - j + 1
        out.append(c)
    return tuple(out)


def erlang_ball(C: int, a: arb) -> arb:
    """``E(C, a) = 1/Q(1/a)`` in ball arithmetic (all terms of ``Q`` positive and decreasing in ``a``:
    tight on balls)."""
    y = 1 / a
    Q = arb(0)
    for c in reversed(_q_coeffs(C)):
        Q = Q * y + c
    return 1 / Q


def _erlang_coeffs(C: int, x: arb, n: int) -> list:
    with series_cap(n):
        a = arb_series([x, arb(1)], prec=n)
        y = 1 / a
        Q = a * 0
        for c in reversed(_q_coeffs(C)):
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
    """:math:`\\Psi(a)` as a ball (``a`` a ball, usually exact)."""
    p = erlang_ball(C, a)
    return _psi_formula(C, d, dt, p, 1 / a, _arb_pow)


def rho_of_a(C: int, dt: int, a: arb) -> arb:
    """The load :math:`\\rho(a) = a/\\sigma(E(C, a))` at which retrial-of-dt has per-server load ``a``."""
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
    module docstring)."""
    return _w1_mixed(C, d, dt, a0, a1), _w1_mixed(C, d, dt, a1, a0)


def psi_tm(C: int, d: int, dt: int, a0, a1, K: int, *, dual: bool = False):
    """Taylor model of order ``K`` of :math:`\\Psi` on ``[a0, a1]`` (exact rationals), or of
    :math:`(\\Psi, \\Psi')` with ``dual=True``. Raises ``ValueError``/``ZeroDivisionError`` when a
    ball leaves a function's domain (a too wide cell: bisect)."""
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
    ``[0, 1/a_hi]`` (module docstring)."""
    a_hi = Fraction(a_hi)
    h = q_arb(1 / a_hi)
    tau = ExactTM.var(h, K)
    Q = tau.const(0)
    for c in reversed(_q_coeffs(C)):         # Q(tau) = sum_j C!/(C-j)! tau^j, Horner
        Q = Q * tau + c
    p = Q.inv()                               # E(C, 1/tau)
    out = _psi_formula(C, d, dt, p, tau, lambda x, q: x.pow(q))
    if not out.R.is_finite():
        raise ValueError("large-load Taylor model not finite")
    return out


def small_end_bound(C: int, d: int, dt: int, a_lo) -> dict:
    """Enclosure of :math:`D(\\rho) = \\log B_{ret}(\\tilde d) - \\log B_{pod}(d)` on
    :math:`(0, \\rho(a_{lo})]` as ``Delta_e log(rho) + [lo, hi]`` (module docstring). Returns a dict
    with ``sign`` (+1, -1 or 0 if undecided) and the ball data."""
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


# ==================================================================================================
# ball samples: certified blocking at one rational load, re-checkable from the stored bracket
# ==================================================================================================

def _retrial_F(C: int, d: int, theta: arb, rho: arb) -> arb:
    """``F(theta) = theta - (E + E^2 + ... + E^(d-1))`` at ``a = rho (1 + theta)``: its sign is the
    sign of ``g(a) - rho`` (``g`` increasing), so a sign change brackets the retrial fixed point."""
    E = erlang_ball(C, rho * (1 + theta))
    s = arb(0)
    p = arb(1)
    for _ in range(1, d):
        p *= E
        s += p
    return theta - s


def _power_W1(C: int, d: int, t: arb, rho: arb) -> arb:
    """``W_1(e^t, rho) - 1`` by the telescoped recursion (increasing in ``t``)."""
    s = t.exp()
    B = s ** d
    u = s
    T = arb(0)
    for k in range(C, 0, -1):
        W = B + (k * u + T) / rho
        if k == 1:
            return W - 1
        T += u
        u = W.root(d) if d > 1 else W
    raise AssertionError("unreachable")  # pragma: no cover


def _round_q(x: Fraction, bits: int, down: bool) -> Fraction:
    if x == 0:
        return x
    e = (abs(x.numerator).bit_length() - x.denominator.bit_length()) - bits
    sc = Fraction(2) ** (-e)
    v = x * sc
    return Fraction(math.floor(v) if down else math.ceil(v)) / sc


def _newton_bracket(f, df, x0: Fraction, lo: Fraction, hi: Fraction, bits: int, width: Fraction):
    """Newton from ``x0`` (midpoint arithmetic), then a bracket ``x -+ width`` with certified
    opposite signs (``f`` increasing); widened until the signs are certified. Returns ``(lo, hi)``
    or ``None``."""
    x = x0
    for _ in range(80):
        v, dv = f(x), df(x)
        if not (v.is_finite() and dv.is_finite()) or dv == 0:
            break
        step = _arb_exact_to_fraction(arb(v.mid())) / _arb_exact_to_fraction(arb(dv.mid()))
        xn = _round_q(x - step, bits, down=True)
        if not lo <= xn <= hi:
            xn = (lo + hi) / 2
        done = abs(xn - x) <= width / 8
        x = xn
        if done:
            break
    w = width
    for _ in range(60):
        a, b = _round_q(x - w, bits, True), _round_q(x + w, bits, False)
        fa, fb = f(a), f(b)
        if fa < 0 and fb > 0:
            return a, b
        if fa > 0 or fb < 0:      # decided, wrong side: move the centre
            x = a if fa > 0 else b
        w *= 4
    return None


def point_certificate(model, rho, *, prec: int = 160, dps: int = 30) -> dict:
    r"""A **ball sample**: the blocking of ``model`` at the rational load ``rho``, certified and
    stored so that :func:`verify_point_certificate` re-checks it from the stored numbers and the
    model's equations (no search).

    * retrial-of-d (binding checked): a bracket ``[theta_lo, theta_hi]`` of exact rationals with
      :math:`F(\theta_{lo}) < 0 < F(\theta_{hi})`, ``a = rho (1 + theta)`` (the retrial fixed point
      is the unique sign change, lemma ``g`` increasing);
    * power-of-d (binding checked): a bracket ``[t_lo, t_hi]`` of ``t = log u_C`` with
      :math:`W_1(e^{t_{lo}}, \rho) < 1 < W_1(e^{t_{hi}}, \rho)` (telescoped recursion);
    * any other model: a Krawczyk box (``y = log x``) of its compiled square system.

    The certificate stores ``log B`` as a rigorous decimal bracket (``log_blocking``), the
    fingerprint of the model and the symloss version."""
    from .. import __version__
    from ..core.precision import flint_prec
    rho = Fraction(rho)
    if rho <= 0:
        raise ValueError(f"rho must be > 0, got {rho}")
    rec = {"rho": q_str(rho), "fingerprint": model.fingerprint(), "symloss_version": __version__, "prec": prec}
    digits = dps + 8
    width = Fraction(1, 2 ** (prec - 20))
    try:
        rb = retrial_binding(model)
    except BindingError:
        rb = None
    if rb is not None:
        C, d = rb["C"], rb["d"]
        with flint_prec(prec):
            r = q_arb(rho)
            if d == 1:
                th = (Fraction(0), Fraction(0))
            else:
                from .accelerators import RETRIAL
                af = RETRIAL.float_start(C, d, float(rho))
                th0 = max(Fraction(af / float(rho) - 1), Fraction(0))

                def f(x):
                    return _retrial_F(C, d, q_arb(x), r)

                def df(x):
                    xs = arb_series([q_arb(x), arb(1)], prec=2)
                    Ec = _erlang_coeffs(C, r * (1 + q_arb(x)), 2)
                    E = arb_series([Ec[0], Ec[1] * r], prec=2)      # d/dtheta = rho d/da
                    s = xs * 0
                    p = xs * 0 + 1
                    for _ in range(1, d):
                        p = p * E
                        s = s + p
                    return series_coeffs(xs - s, 2)[1]
                th = _newton_bracket(f, df, th0, Fraction(0), Fraction(d - 1), prec - 8, width)
                if th is None:
                    raise ArithmeticError(f"{model!r}: retrial fixed point at rho = {rho} not bracketed")
            a_lo, a_hi = r * (1 + q_arb(th[0])), r * (1 + q_arb(th[1]))
            L = (d * erlang_ball(C, a_lo).log()).union(d * erlang_ball(C, a_hi).log())
        rec.update({"kind": "retrial-theta", "theta": [q_str(th[0]), q_str(th[1])],
                    "log_blocking": [dec_down(L, digits), dec_up(L, digits)]})
        return rec
    try:
        pb = power_binding(model)
    except BindingError:
        pb = None
    if pb is not None:
        C, d = pb["C"], pb["d"]
        from .accelerators import POWER
        t0 = POWER.float_start(C, d, float(rho)) if 1e-300 < float(rho) < 1e300 else None
        if t0 is None:
            raise ArithmeticError(f"{model!r}: no float start at rho = {rho}")
        p = prec + 2 * int(math.log2(1 + abs(t0)))
        with flint_prec(p):
            r = q_arb(rho)

            def f(x):
                return _power_W1(C, d, q_arb(x), r)

            def df(x):
                ts = arb_series([q_arb(x), arb(1)], prec=2)
                s = ts.exp()
                B = s ** d
                u = s
                T = ts * 0
                for k in range(C, 0, -1):
                    W = B + (u * k + T) / r
                    if k == 1:
                        return series_coeffs(W, 2)[1]
                    T = T + u
                    u = W ** arb(fmpq(1, d)) if d > 1 else W
            wd = width * max(1, abs(Fraction(t0)))
            tb = _newton_bracket(f, df, Fraction(t0), Fraction(-10) ** 0 * Fraction(-(abs(int(t0)) + 2) * 4),
                                 Fraction(0), p - 8, wd)
            if tb is None:
                raise ArithmeticError(f"{model!r}: power-of-d fixed point at rho = {rho} not bracketed")
            L = (d * q_arb(tb[0])).union(d * q_arb(tb[1]))
        rec.update({"kind": "power-log-s", "t": [q_str(tb[0]), q_str(tb[1])], "prec": p,
                    "log_blocking": [dec_down(L, digits), dec_up(L, digits)]})
        return rec
    from ..core.certify import point_box
    box, sel, _mg = point_box(model, rho, prec=prec)
    with flint_prec(prec):
        box = [arb(b.mid(), arb(b.rad())) for b in box]
        L = model.compiled.log_blocking_arb(box, q_arb(rho).log())
        # the re-check rebuilds the box from its exact strings and evaluates again: its ball may differ
        # from this one by rounding (radii are 30-bit magnitudes): store a bracket with that margin
        L = L + arb(0, L.rad() * arb(2) ** -20 + arb(2) ** (-(prec - 24)) * (1 + abs(L)))
    rec.update({"kind": "krawczyk-box", "center": [_exact_dyadic(arb(b.mid())) for b in box],
                "delta": [_exact_dyadic(arb(b.rad())) for b in box], "sel": list(sel),
                "log_blocking": [dec_down(L, digits), dec_up(L, digits)]})
    return rec


def _exact_dyadic(x: arb) -> str:
    man, exp = x.mid().man_exp()
    return f"{int(man)}*2^{int(exp)}"


def verify_point_certificate(rec: dict, model):
    """Re-check a ball sample of :func:`point_certificate` from its stored bracket (or box) and the
    model's own equations; returns the verified ``(log_B_lo, log_B_hi)`` as Fractions. Raises
    ``ValueError`` on any mismatch (another definition, a wrong bracket, a bound that does not
    hold)."""
    from ..core.precision import flint_prec
    if rec.get("fingerprint") != model.fingerprint():
        raise ValueError("the ball sample was made from another model definition (fingerprint differs)")
    rho = parse_q(rec["rho"])
    if rho <= 0:
        raise ValueError("sample load must be positive")
    prec = int(rec["prec"])
    if not 64 <= prec <= 1 << 16:
        raise ValueError("sample precision out of range")
    Llo, Lhi = Fraction(rec["log_blocking"][0]), Fraction(rec["log_blocking"][1])
    kind = rec.get("kind")
    with flint_prec(prec):
        r = q_arb(rho)
        if kind == "retrial-theta":
            rb = retrial_binding(model)
            C, d = rb["C"], rb["d"]
            t0, t1 = parse_q(rec["theta"][0]), parse_q(rec["theta"][1])
            if d == 1:
                if not t0 == t1 == 0:
                    raise ValueError("random routing has theta = 0")
            else:
                if not (0 <= t0 < t1 <= d - 1):
                    raise ValueError("theta bracket out of range")
                if not (_retrial_F(C, d, q_arb(t0), r) < 0 and _retrial_F(C, d, q_arb(t1), r) > 0):
                    raise ValueError(f"the stored theta bracket does not bracket the retrial fixed point at rho = {rho}")
            L = (d * erlang_ball(C, r * (1 + q_arb(t0))).log()).union(d * erlang_ball(C, r * (1 + q_arb(t1))).log())
        elif kind == "power-log-s":
            pb = power_binding(model)
            C, d = pb["C"], pb["d"]
            t0, t1 = parse_q(rec["t"][0]), parse_q(rec["t"][1])
            if not t0 < t1 <= 0:
                raise ValueError("log u_C bracket out of range")
            if not (_power_W1(C, d, q_arb(t0), r) < 0 and _power_W1(C, d, q_arb(t1), r) > 0):
                raise ValueError(f"the stored bracket does not bracket the power-of-d fixed point at rho = {rho}")
            L = (d * q_arb(t0)).union(d * q_arb(t1))
        elif kind == "krawczyk-box":
            from ..core.certify import check_selection, parse_exact, verify_box
            # the stored centres may carry more bits than the working precision: build the balls exactly
            bits = max(int(c.split("*2^")[0]).bit_length() for c in rec["center"]) + 16
            with flint_prec(max(prec, bits)):
                box = [arb(parse_exact(c), parse_exact(dl)) for c, dl in zip(rec["center"], rec["delta"])]
            verify_box(model, box, check_selection(model, rec["sel"]), rho, prec=prec)
            L = model.compiled.log_blocking_arb(box, r.log())
        else:
            raise ValueError(f"unknown ball-sample kind {kind!r}")
        if not (q_arb(Llo) <= L <= q_arb(Lhi)):
            raise ValueError(f"the stored log-blocking bracket at rho = {rho} does not enclose the recomputed one")
    return Llo, Lhi


@cache
def carried_load_lemma(C: int) -> dict:
    r"""The carried load :math:`c(a) = a(1 - E(C, a)) = a S_{C-1}(a)/S_C(a)` increases strictly in
    ``a``: the numerator :math:`(a S_{C-1})' S_C - a S_{C-1} S_C'` of :math:`c'` has non-negative
    integer coefficients (scaled by :math:`C!^2`) and a positive constant term."""
    S, _f = _erlang_polys(C)
    Sm = fmpz_poly([math.factorial(C) // math.factorial(k) for k in range(C)])
    num = fmpz_poly([0, 1]) * Sm
    L = num.derivative() * S - num * S.derivative()
    return {"C": C, "numerator of c' non-negative": _nonneg_positive_constant(L),
            "holds": bool(_nonneg_positive_constant(L))}


def clear_caches() -> None:
    """Forget the binding checks and lemmas (so that a re-check recomputes them)."""
    _BINDING_CACHE.clear()
    retrial_g_lemma.cache_clear()
    erlang_increasing_lemma.cache_clear()
    carried_load_lemma.cache_clear()
