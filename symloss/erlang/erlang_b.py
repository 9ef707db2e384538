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
* :func:`log_erlang_b` and :func:`erlang_b_float` - numpy-broadcasting float64 (numba kernel) for
  ``0 <= C <= 1e300`` and every positive float ``a``: Temme's uniform asymptotic expansion in the
  transition region (``C >= 50``, ``0.6 (C+1) <= a <= C + 1 + 4 sqrt(C+1)``), a Legendre continued fraction
  for :math:`\Gamma(x+1, a)` when :math:`a > x + 1`, and the Poisson-tail series with Loader's
  saddle-point form of the Poisson mass when :math:`a \le x + 1`. The log form never underflows or
  overflows and is never ``-inf``.
* :func:`erlang_b_expr` - the SymPy expression, from which the identities are proved.

References
----------
A. K. Erlang (1917); D. L. Jagerman, "Some properties of the Erlang loss function", Bell Syst. Tech.
J. 53 (1974); C. Loader, "Fast and accurate computation of binomial probabilities" (2000).

Size: four evaluators of one definition and the argument checks they share.
"""
from __future__ import annotations

import math
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
    BudgetError,
    Deadline,
    choice,
    exact_real,
    integer,
    real,
    real_float,
)
from . import floats as _floats
from .balls import (  # noqa: F401  (re-exported: the ball machinery moved to .balls)
    _MAX_PREC,
    _ball,
    _certified_ball,
    _magnitude_bits,
    _not_certifiable,
    _refine,
    _rel_width,
)
from .capacity import (  # noqa: F401  (re-exported: moved to .capacity)
    _ball_cmp_eps,
    _certify_capacity,
    _exact_erlang_b,
    _fraction,
    _sqrt_staffing_guess,
)
from .floats import (  # noqa: F401  (re-exported: the float kernel's plumbing moved to .floats)
    C_MAX_FLOAT,
    _is_array_like,
    _kernels,
    _log_eb_any,
    _log_erlang_b_scalar,
    _not_converged,
    _scalar_C_a,
)

__all__ = ["erlang_b", "erlang_b_ball", "erlang_b_float", "log_erlang_b", "erlang_b_expr",
           "erlang_b_derivative", "erlang_b_capacity", "erlang_b_load", "erlang_b_recursion"]


# --------------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------------

def _check_C(C, *, allow_ball=False):
    return real(C, "C", lower=0, allow_ball=allow_ball)


def _check_a(a, name="a", *, allow_ball=False):
    return real(a, name, lower=0, lower_open=True, allow_ball=allow_ball)


def _check_eps(eps):
    return real(eps, "eps", lower=0, upper=1, lower_open=True, upper_open=True)



_FLOAT_MAX = 1.7976931348623157e308

def erlang_b_ball(C, a, *, prec: int = 128) -> arb:
    r"""Rigorous enclosure of :math:`E(C, a)` as a python-flint ``arb`` ball.

    Parameters
    ----------
    C : real, ``C >= 0`` (int, float, Fraction, mpmath.mpf, numpy or flint number; converted exactly).
        A python-flint ``arb`` ball with a radius is used as the ball (the result encloses ``E``
        over it).
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
    C, a = _check_C(C, allow_ball=True), _check_a(a, allow_ball=True)
    prec = integer(prec, "prec", min_value=16, max_value=_MAX_PREC)
    return _ball(C, a, prec + _magnitude_bits(C, a))



def erlang_b(C, a, *, dps: int = DEFAULT_DPS, max_seconds=None):
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
        Significant decimal digits of the result (default 30), ``5 <= dps <= 100000``.
    max_seconds : float, optional
        Wall-clock budget: :class:`~symloss.core.validation.TimeLimitExceeded` once it is spent
        (checked between precision doublings). Default: no limit.

    Returns
    -------
    mpmath.mpf
        Relative error below :math:`10^{-dps}`, certified by ball arithmetic.

    Raises
    ------
    PrecisionError
        When the enclosure stops tightening as the precision doubles (python-flint's incomplete
        gamma reaches its limit: about ``C >= 1e19`` (``C = a = 1e18`` is still certified)).
        This is detected after two doublings, so the refusal is quick.

    Notes
    -----
    Values far below the float range are returned exactly as well, e.g.
    :math:`E(10^6, 9 \cdot 10^5) \approx 3.6 \cdot 10^{-2332}`. A python-flint ball with a radius
    is refused (``ValueError``): use :func:`erlang_b_ball` for balls.

    Examples
    --------
    >>> import mpmath
    >>> from symloss import erlang_b
    >>> mpmath.nstr(erlang_b(2, 1, dps=15), 15)
    '0.2'
    >>> mpmath.nstr(erlang_b(10**6, 9 * 10**5, dps=20), 20)
    '3.618592508023235066e-2332'
    """
    C, a = _check_C(C), _check_a(a)
    dps = check_dps(dps)
    deadline = Deadline(max_seconds, "erlang_b") if max_seconds is not None else None
    return rounded(arb_to_mpf(_certified_ball(C, a, dps, deadline)), dps)


def _erlang_b_mp(C, a):
    """E(C, a) at the current mpmath precision (internal: used by differentiation and root finding)."""
    dps = max(mpmath.mp.dps, 5)
    return arb_to_mpf(_certified_ball(C, a, dps))


# --------------------------------------------------------------------------------------------------
# float64 kernel (numba)


def log_erlang_b(C, a):
    r"""Natural logarithm of :math:`E(C, a)` in float64, broadcasting over numpy arrays.

    Range: ``0 <= C <= 1e300`` and every positive float ``a`` (up to ``1.8e308`` and down to the
    subnormals). Never underflows, overflows or returns ``-inf``: :math:`\log E(10^6, 1) \approx
    -1.28 \cdot 10^7` is returned as such. Error: at most :math:`10^{-14}\max(1, |\log E|)`
    (measured :math:`6 \cdot 10^{-15}`, see ``docs/accuracy_and_limits.md``).

    Inputs of every accepted type are converted exactly and rounded once to the nearest float64
    (an ``int`` above :math:`2^{53}`, a ``Fraction`` or a ``numpy.longdouble`` is rounded there).
    Scalars give a float, array-likes an ndarray (complex, boolean, string and object data are
    refused with a ``TypeError``).

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
    tc, ta = type(C), type(a)
    if (tc is float or tc is int) and (ta is float or ta is int) and _floats._LOG_EB is not None:
        if 0 <= C <= C_MAX_FLOAT and 0 < a <= _FLOAT_MAX:         # fast path (NaN fails both tests; an int a beyond: the layer)
            v = _floats._LOG_EB(float(C), float(a))
            if v == v:
                return v
    return _log_eb_any(C, a)[0]


def erlang_b_float(C, a):
    r""":math:`E(C, a)` in float64, broadcasting over numpy arrays.

    Same range and input rules as :func:`log_erlang_b`. Correct down to the subnormal range (0 only
    where the true value is below the smallest subnormal, about :math:`4.9 \cdot 10^{-324}`); never
    NaN, inf, negative or above 1. The relative error is at most :math:`10^{-14}(1 + |\ln E|)` (the
    conditioning of exp).

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
    >>> erlang_b_float(10**9, 10**9 + 10)    # doctest: +ELLIPSIS
    2.52372671...e-05
    """
    tc, ta = type(C), type(a)
    if (tc is float or tc is int) and (ta is float or ta is int) and _floats._LOG_EB is not None:
        if 0 <= C <= C_MAX_FLOAT and 0 < a <= _FLOAT_MAX:         # an int a beyond it: the layer refuses
            v = _floats._LOG_EB(float(C), float(a))
            if v == v:
                return math.exp(v)
    lg, scalar = _log_eb_any(C, a)
    return math.exp(lg) if scalar else np.exp(lg)


# --------------------------------------------------------------------------------------------------
# symbolic
# --------------------------------------------------------------------------------------------------

def _sympy_number(a):
    """An accepted real number as an exact SymPy number (floats and mpf by their binary value)."""
    v = exact_real(a, "a")
    if isinstance(v, int):
        return sp.Integer(v)
    if isinstance(v, Fraction):
        return sp.Rational(v.numerator, v.denominator)
    if isinstance(v, float):
        n, d = v.as_integer_ratio()
        return sp.Rational(n, d)
    sign, man, exp, _ = v._mpf_
    return (-1) ** sign * sp.Integer(man) * sp.Integer(2) ** exp


def erlang_b_expr(C, a, *, max_terms: int = 5000):
    r"""The SymPy expression :math:`\frac{a^C/C!}{\sum_{k=0}^C a^k/k!}`.

    ``C`` is a non-negative integer (expanded sum, at most ``max_terms`` terms: a larger ``C`` is
    refused with a :class:`~symloss.core.validation.BudgetError` before SymPy builds anything) or an
    integer SymPy symbol (unevaluated ``Sum``); ``a`` is a SymPy expression or an accepted real
    number (converted exactly: a float becomes the rational of its binary value).

    Parameters
    ----------
    C : int >= 0 or sympy.Symbol
        Number of channels (an integer symbol gives the unevaluated ``Sum``).
    a : sympy expression or number
        Offered load.
    max_terms : int >= 1, optional
        Largest number of terms of the expanded sum (default 5000); an integer ``C`` with
        ``C + 1 > max_terms`` is refused before SymPy builds anything.

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
        try:
            Ci = integer(C, "C", min_value=0)
        except TypeError:
            raise TypeError(f"C must be a non-negative integer or an integer SymPy symbol, got "
                            f"{type(C).__name__} {C!r}") from None
        max_terms = integer(max_terms, "max_terms", min_value=1)
        if Ci + 1 > max_terms:
            raise BudgetError(f"erlang_b_expr: the expanded sum for C={Ci} has {Ci + 1} terms, more than "
                              f"max_terms={max_terms}; pass a SymPy symbol C (integer=True) for the "
                              f"unevaluated Sum, or raise max_terms")
        Cs = sp.Integer(Ci)
    if isinstance(a, sp.Basic) and not a.is_Number:
        if a.is_number and a.is_real is False:
            raise TypeError(f"a must be real, got {a}")
    elif isinstance(a, sp.Basic) and a.is_Number:
        a = _sympy_number(a) if a.is_finite else a
    else:
        a = _sympy_number(a)
    if a.is_number and not a.is_positive:
        raise ValueError(f"a must be positive, got {a}")
    k = sp.Dummy("k", integer=True, nonnegative=True)
    s = sp.Sum(a ** k / sp.factorial(k), (k, 0, Cs))
    if Cs.is_Integer:
        s = s.doit()
    return a ** Cs / sp.factorial(Cs) / s


def erlang_b_recursion(C: int, a, *, dps: int = DEFAULT_DPS, max_terms: int = 10 ** 7):
    r"""Plain recursion :math:`E(n) = a E(n-1) / (n + a E(n-1))`, :math:`E(0)=1`, in mpmath.

    O(C) operations: the textbook baseline (used by the benchmark and as an independent check), not
    the fast path. Integer ``C`` only; ``C > max_terms`` (default ``10**7``, about 20 s) is refused
    with a :class:`~symloss.core.validation.BudgetError` before the loop starts.

    Parameters
    ----------
    C : int
        Number of channels, ``C >= 0``.
    a : real, ``a > 0``
        Offered load.
    dps : int, optional
        Significant digits of the result.
    max_terms : int, optional
        The largest ``C`` the loop may run to.

    Returns
    -------
    mpmath.mpf
    """
    try:
        C = integer(C, "C", min_value=0)
    except TypeError:
        raise ValueError(f"C must be a non-negative integer, got {C!r}") from None
    a = _check_a(a)
    dps = check_dps(dps)
    max_terms = integer(max_terms, "max_terms", min_value=1)
    if C > max_terms:
        raise BudgetError(f"erlang_b_recursion: C={C} steps, more than max_terms={max_terms}; "
                          f"erlang_b(C, a) needs no loop over C")
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
    (raises :class:`~symloss.PrecisionError` when they disagree). At ``C = 0``,
    :math:`\partial E/\partial C = -e^{a} E_1(a)`.

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
    >>> import mpmath
    >>> mpmath.nstr(erlang_b_derivative(0, 1, wrt="C", dps=15), 15)    # -e E1(1)
    '-0.596347362323194'
    """
    C, a = _check_C(C), _check_a(a)
    dps = check_dps(dps)
    wrt = choice(wrt, "wrt", ("a", "C"))
    if wrt == "a":
        def ev(prec):
            with flint_prec(prec):
                e = _ball(C, a, prec)
                return e * (to_arb(C) / to_arb(a) - 1 + e)
        d = _refine(ev, lambda b: arb_relative_accuracy_ok(b, dps), f"dE/da at C={C}, a={a} to {dps} digits",
                    dps_to_prec(dps) + 32 + _magnitude_bits(C, a))
        return rounded(arb_to_mpf(d), dps)

    def compute(w):
        with mpmath.workdps(w):
            c0 = to_mpf(C)
            # E is analytic in C for C > -1: a central difference is valid also at C = 0
            return mpmath.diff(lambda c: _erlang_b_mp(c, a), c0)

    return agree_at_two_precisions(compute, dps, what=f"dE/dC at C={C}, a={a}")


def _log_mpf(x) -> float:
    """log(x) as a float for any accepted positive x (also below the float range)."""
    with mpmath.workdps(30):
        return float(mpmath.log(to_mpf(x)))


def erlang_b_capacity(a, eps) -> int:
    r"""Smallest integer ``C`` with :math:`E(C, a) \le \varepsilon`.

    The bracket comes from square-root staffing (:math:`C \approx a + \beta\sqrt{a}` with
    :math:`\varphi(\beta)/\Phi(\beta) = \varepsilon\sqrt{a}`), widened by doubling steps, then
    bisection on the float log form; the final answer is certified: :math:`E(C, a) \le \varepsilon <
    E(C-1, a)`, decided exactly in rational arithmetic for integer ``C <= 5000`` and rational ``a``
    (so :math:`E = \varepsilon` exactly is settled), with balls otherwise.

    Range: ``0 < a <= 1e15`` (the ball certificate; larger loads are refused by a
    :class:`~symloss.PrecisionError` after two precision doublings), any ``eps`` in ``(0, 1)``.

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
    >>> erlang_b_capacity(1, 0.5)        # E(1, 1) = 1/2 exactly
    1
    """
    a = _check_a(a)
    eps = _check_eps(eps)
    af = real_float(a, "a", lower=0, lower_open=True, upper=C_MAX_FLOAT / 4)
    leps = _log_mpf(eps)

    def above(c: int) -> bool:  # E(c, a) > eps  (float decision)
        return c == 0 or log_erlang_b(float(c), af) > leps

    g = _sqrt_staffing_guess(af, leps)
    step = max(1, int(math.sqrt(af)) + 1)
    lo, hi = g, g
    while lo > 0 and not above(lo):
        lo = max(0, lo - step)
        step *= 2
    step = max(1, int(math.sqrt(af)) + 1)
    while above(hi):
        hi += step
        step *= 2
        if hi > C_MAX_FLOAT:  # pragma: no cover - E(C, a) -> 0 as C grows
            raise PrecisionError(f"erlang_b_capacity(a={a}, eps={eps}): no capacity below 1e300")
    # invariant: above(lo) (or lo == 0), not above(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if above(mid):
            lo = mid
        else:
            hi = mid
    return _certify_capacity(a, eps, hi)


def erlang_b_load(C, eps, *, dps: int = DEFAULT_DPS):
    r"""The offered load ``a`` with :math:`E(C, a) = \varepsilon`, to ``dps`` digits.

    Newton's method on :math:`\log E(C, a) - \log\varepsilon` (derivative
    :math:`C/a - 1 + E`) from a float start, then a certificate: ball evaluations show
    :math:`E(C, a(1 - \delta)) < \varepsilon < E(C, a(1 + \delta))` with
    :math:`\delta = 10^{-dps-1}`, so the root lies within the returned digits (E is increasing in a).

    Range: ``0 < C <= 1e300`` (float start) with the root in ``[1e-300, 1e300]``: a root outside is
    refused with a ``ValueError`` at once (e.g. ``C = 1e-300``, where :math:`E(C, a) = 1/2` needs
    :math:`\log a \approx -10^{300}`). The certificate needs the ball evaluation of ``E`` (about
    ``C <= 1e18``).

    Parameters
    ----------
    C : real in (0, 1e300]
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
    C = _check_C(C)
    eps = _check_eps(eps)
    dps = check_dps(dps)
    if C == 0:
        raise ValueError("C must be > 0 for erlang_b_load: E(0, a) = 1 for every a")
    Cf = real_float(C, "C", lower=0, lower_open=True, upper=C_MAX_FLOAT)
    leps_f = _log_mpf(eps)

    def f(la):
        return log_erlang_b(Cf, math.exp(la)) - leps_f
    la_min, la_max = math.log(1e-300), math.log(1e300)
    if f(la_min) > 0:
        raise ValueError(f"erlang_b_load(C={C}, eps={eps}): the load with E(C, a) = eps is below 1e-300 "
                         f"(E(C, 1e-300) > eps), outside the range of this function")
    if f(la_max) < 0:
        raise ValueError(f"erlang_b_load(C={C}, eps={eps}): the load with E(C, a) = eps is above 1e300 "
                         f"(E(C, 1e300) < eps), outside the range of this function")
    lo = hi = min(max(math.log(max(Cf, 1e-300)), la_min), la_max)
    step = 1.0
    while f(lo) > 0:
        lo = max(la_min, lo - step)
        step *= 2
    step = 1.0
    while f(hi) < 0:
        hi = min(la_max, hi + step)
        step *= 2
    from scipy.optimize import brentq
    a0 = math.exp(brentq(f, lo, hi, xtol=1e-14, rtol=1e-14)) if lo < hi else math.exp(lo)

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
