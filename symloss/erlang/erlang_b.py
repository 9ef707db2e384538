r"""The Erlang-B loss function at any size and precision.

.. math::

    E(C, a) = \frac{a^C / C!}{\sum_{k=0}^{C} a^k / k!}
            = \frac{a^C e^{-a}}{\Gamma(C + 1, a)},
    \qquad \frac{1}{E(x, a)} = a \int_0^\infty e^{-a t} (1 + t)^x \, dt,

the blocking probability of an M/M/C/C loss station with offered load ``a``; the incomplete-gamma
form extends it to real ``C = x >= 0``.

Four evaluators share the definition:

* :func:`erlang_b` - ``mpmath.mpf`` correct to ``dps`` significant digits at every size. It is the
  midpoint of a python-flint ``arb`` ball of :math:`a^x e^{-a} / \Gamma(x+1, a)` whose relative radius
  is certified below :math:`10^{-dps-1}` (the working precision is doubled until it is).
* :func:`erlang_b_ball` - the rigorous enclosure itself.
* :func:`log_erlang_b` and :func:`erlang_b_float` - numpy-broadcasting float64 (numba kernel): a
  Legendre continued fraction for :math:`\Gamma(x+1, a)` when :math:`a > x + 1`, and the Poisson-tail
  series with Loader's saddle-point form of the Poisson mass when :math:`a \le x + 1`. The log form never
  underflows or overflows.
* :func:`erlang_b_expr` - the SymPy expression, from which the identities are proved.

References
----------
A. K. Erlang (1917); D. L. Jagerman, "Some properties of the Erlang loss function", Bell Syst. Tech.
J. 53 (1974); C. Loader, "Fast and accurate computation of binomial probabilities" (2000).
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp
from flint import arb

from ..core.precision import (
    DEFAULT_DPS,
    PrecisionError,
    agree_at_two_precisions,
    arb_relative_accuracy_ok,
    arb_to_mpf,
    check_dps,
    dps_to_prec,
    flint_prec,
    rounded,
    to_arb,
    to_mpf,
    working,
)
from ..core.validation import (
    as_float_array,
    check_probability,
    check_real,
    real_to_float,
)

__all__ = ["erlang_b", "erlang_b_ball", "erlang_b_float", "log_erlang_b", "erlang_b_expr",
           "erlang_b_derivative", "erlang_b_capacity", "erlang_b_load", "erlang_b_recursion"]

_MAX_PREC = 1 << 20  # bits; beyond this a result is reported as not certifiable


# --------------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------------

def _check_C(C):
    return check_real(C, "C", lower=0)


def _check_a(a, name="a"):
    return check_real(a, name, lower=0, lower_open=True)


def _magnitude_bits(C, a) -> int:
    """Extra bits lost to cancellation in C*log(a) - a (the size of the exponent)."""
    af = real_to_float(a)
    x = abs(real_to_float(C)) * (abs(math.log(max(af, 1e-300))) + 1.0) + af
    if not math.isfinite(x):  # an mpf beyond the float range
        x = float(abs(mpmath.mpf(C)) * (abs(mpmath.log(mpmath.mpf(a))) + 1) + mpmath.mpf(a))
    return int(math.log2(x + 2.0)) + 8


# --------------------------------------------------------------------------------------------------
# rigorous / arbitrary precision
# --------------------------------------------------------------------------------------------------

def _ball(C, a, prec: int) -> arb:
    with flint_prec(prec):
        x = to_arb(C)
        z = to_arb(a)
        if x == 0:
            return arb(1)
        return z ** x * (-z).exp() / z.gamma_upper(x + 1)


def erlang_b_ball(C, a, *, prec: int = 128) -> arb:
    r"""Rigorous enclosure of :math:`E(C, a)` as a python-flint ``arb`` ball.

    Parameters
    ----------
    C : real, ``C >= 0`` (int, float, Fraction, mpmath.mpf or flint number; converted exactly)
    a : real, ``a > 0``
    prec : int
        Target precision in bits. The working precision adds the bits lost to the size of
        :math:`C \log a`, so the returned ball is normally accurate to about ``prec`` bits.

    Returns
    -------
    flint.arb
        A ball certainly containing :math:`a^C e^{-a} / \Gamma(C+1, a)`.

    Examples
    --------
    >>> from symloss import erlang_b_ball
    >>> b = erlang_b_ball(2, 1)                 # E(2, 1) = 1/5
    >>> b.str(30, radius=False), b.rad() < 1e-35
    ('0.200000000000000000000000000000', True)
    """
    _check_C(C), _check_a(a)
    if isinstance(prec, bool) or not isinstance(prec, numbers.Integral) or not 16 <= prec <= _MAX_PREC:
        raise ValueError(f"prec must be an integer number of bits in [16, {_MAX_PREC}], got {prec!r}")
    return _ball(C, a, int(prec) + _magnitude_bits(C, a))


def _certified_ball(C, a, dps: int) -> arb:
    prec = dps_to_prec(dps) + 16 + _magnitude_bits(C, a)
    while prec <= _MAX_PREC:
        b = _ball(C, a, prec)
        if arb_relative_accuracy_ok(b, dps):
            return b
        prec *= 2
    raise PrecisionError(f"E(C={C}, a={a}) could not be certified to {dps} digits")


def erlang_b(C, a, *, dps: int = DEFAULT_DPS):
    r"""Erlang-B blocking probability :math:`E(C, a)` to ``dps`` significant digits.

    .. math:: E(C, a) = \frac{a^C e^{-a}}{\Gamma(C+1, a)}

    Parameters
    ----------
    C : real, ``C >= 0``
        Number of channels; non-integer values use the continuous extension.
    a : real, ``a > 0``
        Offered load. Inputs are taken exactly (a float is its binary value; use a ``Fraction`` or
        ``mpmath.mpf`` for other values).
    dps : int, optional
        Significant decimal digits of the result (default 30).

    Returns
    -------
    mpmath.mpf
        Relative error below :math:`10^{-dps}` at every size, certified by ball arithmetic.

    Notes
    -----
    Values far below the float range are returned exactly as well, e.g.
    :math:`E(10^6, 9 \cdot 10^5) \approx 3.6 \cdot 10^{-2332}`.

    Examples
    --------
    >>> import mpmath
    >>> from symloss import erlang_b
    >>> mpmath.nstr(erlang_b(2, 1, dps=15), 15)
    '0.2'
    >>> mpmath.nstr(erlang_b(10**6, 9 * 10**5, dps=20), 20)
    '3.618592508023235066e-2332'
    """
    _check_C(C), _check_a(a)
    dps = check_dps(dps)
    return rounded(arb_to_mpf(_certified_ball(C, a, dps)), dps)


def _erlang_b_mp(C, a):
    """E(C, a) at the current mpmath precision (internal: used by differentiation and root finding)."""
    dps = max(mpmath.mp.dps, 5)
    return arb_to_mpf(_certified_ball(C, a, dps))


# --------------------------------------------------------------------------------------------------
# float64 kernel (numba)
# --------------------------------------------------------------------------------------------------

def _build_kernels():
    from . import _kernels as k
    return k.log_eb, k.log_eb_array


_KERNELS = None


def _kernels():
    global _KERNELS
    if _KERNELS is None:
        _KERNELS = _build_kernels()
    return _KERNELS


def _log_erlang_b_scalar(C: float, a: float) -> float:
    """Unchecked scalar float kernel (internal fast path for solvers that validated their input)."""
    return _kernels()[0](float(C), float(a))


def _float_args(C, a):
    Cf = as_float_array(C, "C", lower=0)
    af = as_float_array(a, "a", lower=0, lower_open=True)
    try:
        Cb, ab = np.broadcast_arrays(Cf, af)
    except ValueError as exc:
        raise ValueError(f"C and a cannot be broadcast together: shapes {Cf.shape} and {af.shape}") from exc
    return Cb, ab, (Cf.ndim == 0 and af.ndim == 0)


def log_erlang_b(C, a):
    r"""Natural logarithm of :math:`E(C, a)` in float64, broadcasting over numpy arrays.

    Never underflows or overflows: :math:`\log E(10^6, 1) \approx -1.28 \cdot 10^7` is returned as
    such. Relative error of the logarithm is a few units in the last place.

    Parameters
    ----------
    C : real >= 0 or array_like
        Number of channels (real ``C`` uses the incomplete-gamma form).
    a : real > 0 or array_like
        Offered load; ``C`` and ``a`` broadcast against each other.

    Returns
    -------
    float or numpy.ndarray
        :math:`\ln E(C, a)` (natural logarithm), a float for scalar input.

    Examples
    --------
    >>> from symloss import log_erlang_b
    >>> round(float(log_erlang_b(10**6, 9 * 10**5)), 6)
    -5368.342352
    """
    Cb, ab, scalar = _float_args(C, a)
    out = np.empty(Cb.size, dtype=np.float64)
    _kernels()[1](np.ascontiguousarray(Cb).ravel(), np.ascontiguousarray(ab).ravel(), out)
    out = out.reshape(Cb.shape)
    return float(out) if scalar else out


def erlang_b_float(C, a):
    r""":math:`E(C, a)` in float64, broadcasting over numpy arrays.

    Correct down to the subnormal range (0 only where the true value is below the smallest
    subnormal, about :math:`4.9 \cdot 10^{-324}`); never NaN, inf, negative or above 1 for valid
    input. The relative error is about :math:`4 \epsilon (1 + |\ln E|)` (the conditioning of exp).

    Parameters
    ----------
    C : real >= 0 or array_like
        Number of channels.
    a : real > 0 or array_like
        Offered load; ``C`` and ``a`` broadcast against each other.

    Returns
    -------
    float or numpy.ndarray
        :math:`E(C, a)`, a float for scalar input.

    Examples
    --------
    >>> from symloss import erlang_b_float
    >>> erlang_b_float([1, 2, 3], 1.0).round(6).tolist()
    [0.5, 0.2, 0.0625]
    """
    lg = log_erlang_b(C, a)
    return float(math.exp(lg)) if isinstance(lg, float) else np.exp(lg)


# --------------------------------------------------------------------------------------------------
# symbolic
# --------------------------------------------------------------------------------------------------

def erlang_b_expr(C, a):
    r"""The SymPy expression :math:`\frac{a^C/C!}{\sum_{k=0}^C a^k/k!}`.

    ``C`` is a non-negative integer (expanded sum) or an integer SymPy symbol (unevaluated
    ``Sum``); ``a`` is a SymPy symbol or number (numbers become exact rationals).

    Parameters
    ----------
    C : int >= 0 or sympy.Symbol
        Number of channels (an integer symbol gives the unevaluated ``Sum``).
    a : sympy expression or number
        Offered load.

    Returns
    -------
    sympy.Expr
        The Erlang-B formula.

    Examples
    --------
    >>> import sympy as sp
    >>> from symloss import erlang_b_expr
    >>> a = sp.Symbol("a", positive=True)
    >>> erlang_b_expr(2, a)
    a**2/(2*(a**2/2 + a + 1))
    >>> erlang_b_expr(2, 1)
    1/5
    """
    if isinstance(C, sp.Symbol):
        if not C.is_integer:
            raise ValueError("a symbolic C must be declared integer (sympy.Symbol(..., integer=True))")
        Cs = C
    else:
        if isinstance(C, bool) or not isinstance(C, (numbers.Integral, sp.Integer)) or int(C) < 0:
            raise ValueError(f"C must be a non-negative integer or an integer SymPy symbol, got {C!r}")
        Cs = sp.Integer(int(C))
    if isinstance(a, float):
        a = sp.Rational(Fraction(a).numerator, Fraction(a).denominator)
    a = sp.sympify(a)
    if a.is_number and not (a.is_positive):
        raise ValueError(f"a must be positive, got {a}")
    k = sp.Dummy("k", integer=True, nonnegative=True)
    s = sp.Sum(a ** k / sp.factorial(k), (k, 0, Cs))
    if Cs.is_Integer:
        s = s.doit()
    return a ** Cs / sp.factorial(Cs) / s


def erlang_b_recursion(C: int, a, *, dps: int = DEFAULT_DPS):
    r"""Plain recursion :math:`E(n) = a E(n-1) / (n + a E(n-1))`, :math:`E(0)=1`, in mpmath.

    O(C) operations: the textbook baseline (used by the benchmark and as an independent check), not
    the fast path. Integer ``C`` only.
    """
    if isinstance(C, bool) or not isinstance(C, numbers.Integral) or C < 0:
        raise ValueError(f"C must be a non-negative integer, got {C!r}")
    _check_a(a)
    dps = check_dps(dps)
    with working(dps, guard=10 + len(str(int(C)))):
        am = to_mpf(a)
        e = mpmath.mpf(1)
        for n in range(1, int(C) + 1):
            e = am * e / (n + am * e)
        return rounded(e, dps)


# --------------------------------------------------------------------------------------------------
# derivatives, capacity, load
# --------------------------------------------------------------------------------------------------

def erlang_b_derivative(C, a, *, wrt: str = "a", dps: int = DEFAULT_DPS):
    r"""Partial derivative of :math:`E(C, a)` with respect to ``a`` or ``C``.

    .. math:: \frac{\partial E}{\partial a} = E \left(\frac{C}{a} - 1 + E\right), \qquad
              \frac{\partial E}{\partial C} = E \left(\log a
              - \frac{\partial_s \Gamma(s, a)|_{s=C+1}}{\Gamma(C+1, a)}\right).

    ``wrt="a"`` is evaluated in ball arithmetic (certified, also where ``C/a - 1 + E`` cancels);
    ``wrt="C"`` by mpmath numerical differentiation of the certified ``E`` at two precisions
    (raises :class:`~symloss.PrecisionError` when they disagree).

    Parameters
    ----------
    C : real >= 0
        Number of channels.
    a : real > 0
        Offered load.
    wrt : {"a", "C"}
        The variable of the derivative.
    dps : int
        Significant digits of the result.

    Returns
    -------
    mpmath.mpf
        The derivative to ``dps`` digits.

    Examples
    --------
    >>> from symloss import erlang_b_derivative
    >>> erlang_b_derivative(1, 1, dps=15)     # d/da a/(1+a) = 1/(1+a)^2
    mpf('0.25')
    """
    _check_C(C), _check_a(a)
    dps = check_dps(dps)
    if wrt not in ("a", "C"):
        raise ValueError(f"wrt must be 'a' or 'C', got {wrt!r}")
    if wrt == "a":
        prec = dps_to_prec(dps) + 32 + _magnitude_bits(C, a)
        while prec <= _MAX_PREC:
            with flint_prec(prec):
                e = _ball(C, a, prec)
                d = e * (to_arb(C) / to_arb(a) - 1 + e)
            if arb_relative_accuracy_ok(d, dps):
                return rounded(arb_to_mpf(d), dps)
            prec *= 2
        raise PrecisionError(f"dE/da at C={C}, a={a} could not be certified to {dps} digits")

    def compute(w):
        with mpmath.workdps(w):
            c0 = to_mpf(C)
            # E is analytic in C for C > -1: a central difference is valid also at C = 0
            return mpmath.diff(lambda c: _erlang_b_mp(c, a), c0)

    return agree_at_two_precisions(compute, dps, what=f"dE/dC at C={C}, a={a}")


def erlang_b_capacity(a, eps) -> int:
    r"""Smallest integer ``C`` with :math:`E(C, a) \le \varepsilon`.

    The bracket comes from square-root staffing (:math:`C \approx a + \beta\sqrt{a}` with
    :math:`\varphi(\beta)/\Phi(\beta) = \varepsilon\sqrt{a}`), widened by doubling steps, then
    bisection on the float log form; the final answer is certified with balls:
    :math:`E(C, a) \le \varepsilon < E(C-1, a)`.

    Parameters
    ----------
    a : real > 0
        Offered load.
    eps : real in (0, 1)
        Target blocking probability.

    Returns
    -------
    int
        The smallest number of channels ``C`` with :math:`E(C, a) \le \varepsilon`.

    Examples
    --------
    >>> from symloss import erlang_b_capacity
    >>> erlang_b_capacity(1000, 1e-3)
    1072
    """
    _check_a(a)
    check_probability(eps, "eps")
    af = real_to_float(a)
    leps = math.log(real_to_float(eps)) if real_to_float(eps) > 0 else float(mpmath.log(mpmath.mpf(eps)))

    def above(c: int) -> bool:  # E(c, a) > eps  (float decision)
        return c == 0 or log_erlang_b(c, af) > leps

    g = _sqrt_staffing_guess(af, float(eps))
    step = max(1, int(math.sqrt(af)) + 1)
    lo, hi = g, g
    while lo > 0 and not above(lo):
        lo = max(0, lo - step)
        step *= 2
    step = max(1, int(math.sqrt(af)) + 1)
    while above(hi):
        hi += step
        step *= 2
    # invariant: above(lo) (or lo == 0), not above(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if above(mid):
            lo = mid
        else:
            hi = mid
    return _certify_capacity(a, eps, hi)


def _sqrt_staffing_guess(a: float, eps: float) -> int:
    from scipy.optimize import brentq
    from scipy.stats import norm
    target = eps * math.sqrt(a)

    def h(beta):
        return norm.logpdf(beta) - norm.logcdf(beta) - math.log(target)
    try:
        beta = brentq(h, -30.0, 60.0)
    except ValueError:
        beta = 0.0
    return max(1, int(math.ceil(a + beta * math.sqrt(a))))


def _ball_cmp_eps(C: int, a, eps) -> int:
    """Sign of E(C, a) - eps, decided with balls (raises when undecidable)."""
    prec = 64 + _magnitude_bits(C, a)
    while prec <= _MAX_PREC:
        with flint_prec(prec):
            d = _ball(C, a, prec) - to_arb(eps)
        if d > 0:
            return 1
        if d < 0:
            return -1
        if d.is_exact() and d.is_zero():
            return 0
        prec *= 2
    raise PrecisionError(f"cannot decide the sign of E({C}, {a}) - {eps}")


def _certify_capacity(a, eps, C: int) -> int:
    # walk until E(C) <= eps < E(C-1) holds certainly
    for _ in range(1000):
        if _ball_cmp_eps(C, a, eps) > 0:
            C += 1
            continue
        if C > 0 and _ball_cmp_eps(C - 1, a, eps) <= 0:
            C -= 1
            continue
        return C
    raise PrecisionError("capacity search did not settle")  # pragma: no cover


def erlang_b_load(C, eps, *, dps: int = DEFAULT_DPS):
    r"""The offered load ``a`` with :math:`E(C, a) = \varepsilon`, to ``dps`` digits.

    Newton's method on :math:`\log E(C, a) - \log\varepsilon` (derivative
    :math:`C/a - 1 + E`) from a float start, then a certificate: ball evaluations show
    :math:`E(C, a(1 - \delta)) < \varepsilon < E(C, a(1 + \delta))` with
    :math:`\delta = 10^{-dps-1}`, so the root lies within the returned digits (E is increasing in a).

    Parameters
    ----------
    C : int >= 1
        Number of channels.
    eps : real in (0, 1)
        Target blocking probability (a float is taken as its binary value).
    dps : int
        Significant digits of the result.

    Returns
    -------
    mpmath.mpf
        The load ``a`` with :math:`E(C, a) = \varepsilon`, ``dps`` certified digits.

    Examples
    --------
    >>> import mpmath
    >>> from symloss import erlang_b_load
    >>> mpmath.nstr(erlang_b_load(10, 0.01, dps=20), 20)   # 0.01 is taken as its binary value
    '4.4611768575776915285'
    """
    _check_C(C)
    check_probability(eps, "eps")
    dps = check_dps(dps)
    if C == 0:
        raise ValueError("C must be > 0 for erlang_b_load: E(0, a) = 1 for every a")
    leps_f = math.log(real_to_float(eps))
    Cf = real_to_float(C)

    def f(la):
        return log_erlang_b(Cf, math.exp(la)) - leps_f
    lo, hi = math.log(max(Cf, 1e-3)), math.log(max(Cf, 1e-3))
    while f(lo) > 0:
        lo -= 1.0
    while f(hi) < 0:
        hi += 1.0
    from scipy.optimize import brentq
    a0 = math.exp(brentq(f, lo, hi, xtol=1e-14, rtol=1e-14))

    with working(dps, guard=20) as w:
        eps_m, Cm = to_mpf(eps), to_mpf(C)
        la = mpmath.log(a0)
        leps = mpmath.log(eps_m)
        for _ in range(100):
            aa = mpmath.exp(la)
            e = _erlang_b_mp(Cm, aa)
            step = (mpmath.log(e) - leps) / (Cm - aa + aa * e)  # d log E / d log a = C - a + a E
            la -= step
            if abs(step) < mpmath.mpf(10) ** (-(w - 3)):
                break
        else:
            raise PrecisionError(f"Newton iteration for erlang_b_load(C={C}, eps={eps}) did not converge")
        root = mpmath.exp(la)
        delta = mpmath.mpf(10) ** (-(dps + 1))
        lo_a, hi_a = root * (1 - delta), root * (1 + delta)
    if not (_ball_cmp_eps(Cm, lo_a, eps_m) < 0 < _ball_cmp_eps(Cm, hi_a, eps_m)):
        raise PrecisionError(f"could not certify the root of E(C={C}, a) = {eps} to {dps} digits")
    return rounded(root, dps)
