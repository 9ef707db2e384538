r"""Erlang-B in ball arithmetic (python-flint ``arb``): the one place where :math:`E(C, a)` is
evaluated on balls, for :mod:`symloss.erlang.erlang_b` and for the mean-field code
(:mod:`symloss.meanfield.accelerators`, :mod:`symloss.meanfield.enclosures`).

* ``_ball`` - the incomplete-gamma form :math:`a^x e^{-a} / \Gamma(x + 1, a)` (any real
  ``x = C >= 0``), and ``_refine`` / ``_certified_ball``, the precision loop that certifies it
  to ``dps`` digits;
* the exact polynomial forms for integer ``C``: :func:`erlang_coefficients` (:math:`C!/k!`),
  :func:`tail_poly` (:math:`Q(a) = \sum_{k<C} C!/k!\, a^k`), :func:`erlang_b_parts_ball`
  (:math:`E = a^C/(a^C + Q(a))` and :math:`1 - E = Q(a)/(a^C + Q(a))`, both without cancellation) and
  :func:`erlang_b_reciprocal_ball` (:math:`E = 1/\sum_j C!/(C-j)!\, a^{-j}`, every term positive
  and decreasing in ``a``: tight on wide balls).
"""
from __future__ import annotations

import functools
import math
import time

import mpmath
from flint import arb, fmpz_poly

from ..core.docstrings import fill_doc
from ..core.precision import PrecisionError, arb_relative_accuracy_ok, dps_to_prec, flint_prec, to_arb, to_mpf
from ..core.validation import TimeLimitExceeded
from ._docfragments import ERLANG_DOCS

_MAX_PREC = 1 << 20  # bits; beyond this a result is reported as not certifiable
#: ``E(C, a)`` from the exact polynomial up to this ``C`` in :func:`erlang_b_parts_ball` (the incomplete
#: gamma beyond)
POLY_MAX_C = 256


def _magnitude_bits(C, a) -> int:
    """Extra bits lost to cancellation in C*log(a) - a (the size of the exponent); any size."""
    tc, ta = type(C), type(a)
    if (tc is int or tc is float) and (ta is int or ta is float):
        # float arithmetic where it holds (10x cheaper than the mpmath path below, which erlang_b
        # paid on every call); math.log takes an int of any size
        try:
            x = abs(float(C)) * (abs(math.log(a)) + 1.0) + float(a)
        except (OverflowError, ValueError):
            x = math.inf
        if x < 1e300:
            return int(math.log2(x + 2.0)) + 8
    with mpmath.workprec(64):
        Cm, am = abs(to_mpf(C)), to_mpf(a)
        x = Cm * (abs(mpmath.log(am)) + 1) + am
        return int(mpmath.log(x + 2, 2)) + 8


# --------------------------------------------------------------------------------------------------
# rigorous / arbitrary precision
# --------------------------------------------------------------------------------------------------



def _gamma_ratio(x, z: arb) -> arb:
    r""":math:`z^x e^{-z} / \Gamma(x + 1, z)` for balls ``x``, ``z`` (the incomplete-gamma form of ``E``)."""
    return z ** x * (-z).exp() / z.gamma_upper(x + 1)


def _ball(C, a, prec: int) -> arb:
    with flint_prec(prec):
        x = to_arb(C)
        z = to_arb(a)
        if x == 0:
            return arb(1)
        return _gamma_ratio(x, z)



def _rel_width(b: arb) -> float:
    """Relative radius of a ball as a float (inf for a non-finite ball or one containing 0)."""
    if not b.is_finite():
        return math.inf
    lo = b.abs_lower()
    if not lo > 0:
        return 0.0 if b.is_exact() and b.is_zero() else math.inf
    return float((b.rad() / lo).mid())


def _not_certifiable(what: str, widths, prec) -> PrecisionError:
    shown = "no finite enclosure" if math.isinf(widths[-1]) else f"relative width {widths[-1]:.2g}"
    return PrecisionError(
        f"{what}: the ball enclosure does not tighten when the precision is doubled ({shown} at {prec} "
        f"bits). python-flint's incomplete gamma cannot certify E at this size (certified range: see "
        f"docs/accuracy_and_limits.md; about C <= 1e18; beyond C ~ 1e19 it fails); "
        f"log_erlang_b / erlang_b_float give a float value to ~1e-14 for C <= 1e300")


def _refine(evaluate, ok, what: str, prec: int, deadline=None):
    """Evaluate ``evaluate(prec)`` at doubling precisions until ``ok(ball)``; give up (PrecisionError)
    when two doublings in a row leave the relative width above a quarter of its previous value (the
    algorithm has stopped gaining accuracy) or when ``_MAX_PREC`` is passed."""
    widths = []
    stalls = 0
    last = None                         # (precision, seconds) of the previous evaluation
    if deadline is not None and deadline.limit is not None and prec > 512:
        # calibrate: one evaluation at low precision predicts the cost of the first real one (the
        # incomplete gamma costs about prec^2.5 at large C; one flint call cannot be interrupted)
        p0 = 256
        t0 = time.perf_counter()
        evaluate(p0)
        last = (p0, time.perf_counter() - t0)
    while prec <= _MAX_PREC:
        if deadline is not None and deadline.limit is not None and last is not None:
            predicted = last[1] * (prec / last[0]) ** 3
            left = deadline.limit - deadline.elapsed
            if predicted > left:
                raise TimeLimitExceeded(
                    f"{what}: the evaluation at {prec} bits is predicted to take {predicted:.3g} s (from "
                    f"{last[1]:.3g} s at {last[0]} bits), more than the {max(left, 0.0):.3g} s left of "
                    f"max_seconds={deadline.limit:g}; not begun")
        t0 = time.perf_counter()
        b = evaluate(prec)
        last = (prec, time.perf_counter() - t0)
        if ok(b):
            return b
        w = _rel_width(b)
        if widths and not (w < 0.25 * widths[-1]):
            stalls += 1
            if stalls >= 2:
                widths.append(w)
                raise _not_certifiable(what, widths, prec)
        else:
            stalls = 0
        widths.append(w)
        if deadline is not None:
            deadline.check(f"{what} at {prec} bits")
        prec *= 2
    raise PrecisionError(f"{what} could not be certified below {_MAX_PREC} bits of working precision")


def _certified_ball(C, a, dps: int, deadline=None) -> arb:
    prec = dps_to_prec(dps) + 16 + _magnitude_bits(C, a)
    return _refine(lambda p: _ball(C, a, p), lambda b: arb_relative_accuracy_ok(b, dps),
                   f"E(C={C}, a={a}) to {dps} digits", prec, deadline)



# --------------------------------------------------------------------------------------------------
# exact polynomial forms (integer C)
# --------------------------------------------------------------------------------------------------

@functools.cache
@fill_doc(ERLANG_DOCS)
def erlang_coefficients(C: int) -> tuple:
    r"""The integers :math:`C!/k!`, ``k = 0, ..., C``: :math:`C!\, S_C(a) = \sum_k \frac{C!}{k!} a^k` and
    :math:`E(C, a) = a^C / (C!\, S_C(a))`.

    {{params_C0}}

    Returns
    -------
    tuple of int
        ``C!/k!`` for ``k = 0, ..., C``, lowest degree first (exact, cached per ``C``).

    Examples
    --------
    >>> erlang_coefficients(3)
    (6, 6, 3, 1)
    """
    c = [1] * (C + 1)
    v = 1
    for k in range(C - 1, -1, -1):
        v *= k + 1
        c[k] = v
    return tuple(c)


@functools.lru_cache(maxsize=64)
def tail_poly(C: int):
    r""":math:`Q(a) = \sum_{k=0}^{C-1} \frac{C!}{k!} a^k` (``fmpz_poly``, exact), so that
    :math:`E(C, a) = a^C / (a^C + Q(a))`.

    Parameters
    ----------
    C : int
        Capacity, ``C >= 1``.

    Returns
    -------
    flint.fmpz_poly
        The polynomial :math:`Q` with its exact integer coefficients.

    Examples
    --------
    >>> tail_poly(2)
    2*x + 2
    """
    return fmpz_poly(list(erlang_coefficients(C)[:C]))


def erlang_b_parts_ball(C: int, a: arb, tail=tail_poly):
    r"""``(E(C, a), 1 - E(C, a))`` as balls, both without cancellation.

    For ``C <= 256`` (:data:`POLY_MAX_C`): :math:`E = a^C / (a^C + Q(a))` and
    :math:`1 - E = Q(a) / (a^C + Q(a))` with :math:`Q` = ``tail(C)`` (:func:`tail_poly`: exact integer
    coefficients, positive terms, so the balls are a few ulps wide at every load; python-flint's
    incomplete gamma loses up to 60 bits for ``a`` of a few times ``C`` at small ``C``). Beyond,
    :math:`E = a^C e^{-a} / \Gamma(C + 1, a)` and ``1 - E`` by subtraction (it loses
    :math:`\log_2(a / C)` bits when ``a >> C``).

    Parameters
    ----------
    C : int
        Capacity, ``C >= 1``.
    a : flint.arb
        Offered load (a ball), at the current python-flint precision.
    tail : callable, optional
        ``tail(C) -> fmpz_poly``, the polynomial :math:`Q` (default :func:`tail_poly`).

    Returns
    -------
    tuple of flint.arb
        Balls containing :math:`E(C, a)` and :math:`1 - E(C, a)`.

    Examples
    --------
    >>> E, F = erlang_b_parts_ball(2, arb(1))        # E(2, 1) = 1/5
    >>> E.str(10, radius=False), F.str(10, radius=False)
    ('0.2000000000', '0.8000000000')
    """
    if C <= POLY_MAX_C:
        q = tail(C)(a)
        t = a ** C
        s = q + t
        return t / s, q / s
    E = _gamma_ratio(arb(C), a)
    return E, 1 - E


@functools.cache
@fill_doc(ERLANG_DOCS)
def reciprocal_coefficients(C: int) -> tuple:
    """Coefficients of ``Q(y) = sum_j C!/(C-j)! y^j``, ``E(C, a) = 1/Q(1/a)``.

    {{params_C0}}

    Returns
    -------
    tuple of int
        ``C!/(C-j)!`` for ``j = 0, ..., C``.

    Examples
    --------
    >>> reciprocal_coefficients(3)
    (1, 3, 6, 6)
    """
    return tuple(reversed(erlang_coefficients(C)))


def erlang_b_reciprocal_ball(C: int, a: arb) -> arb:
    r""":math:`E(C, a) = 1/Q(1/a)`, :math:`Q(y) = \sum_{j=0}^{C} \frac{C!}{(C-j)!} y^j`, in ball
    arithmetic (Horner; every term of ``Q`` is positive and decreasing in ``a``: tight on balls).

    Parameters
    ----------
    C : int
        Capacity, ``C >= 0``.
    a : flint.arb
        Offered load (a ball, ``a > 0``).

    Returns
    -------
    flint.arb
        A ball containing :math:`E(C, a)`.

    Examples
    --------
    >>> erlang_b_reciprocal_ball(2, arb(1)).str(10, radius=False)
    '0.2000000000'
    """
    y = 1 / a
    Q = arb(0)
    for c in reversed(reciprocal_coefficients(C)):
        Q = Q * y + c
    return 1 / Q
