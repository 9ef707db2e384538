r"""**Ball samples** of the blocking at one rational load (:func:`point_certificate`), re-checkable from the
stored bracket or box and the model's own equations (:func:`verify_point_certificate`); both re-exported
by :mod:`symloss.meanfield.enclosures`.
"""
from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, arb_series, fmpq

from .._version import __version__
from ..core.boxes import box_from_strings, box_to_strings
from ..core.certify import check_selection, point_box, verify_box
from ..core.precision import flint_prec
from .accel_base import BindingError
from .accel_power import POWER, power_binding
from .accelerators import RETRIAL, retrial_binding
from .ball_text import _arb_exact_to_fraction, dec_down, dec_up, parse_q, q_arb, q_str
from .psi import _erlang_coeffs, erlang_ball
from .taylor import series_coeffs


def _erlang_powers_sum(E, d: int, zero, one):
    """``E + E^2 + ... + E^(d-1)`` (balls or series; ``zero``/``one`` of the same kind)."""
    s = zero
    p = one
    for _ in range(1, d):
        p = p * E
        s = s + p
    return s


def _retrial_F(C: int, d: int, theta: arb, rho: arb) -> arb:
    """``F(theta) = theta - (E + E^2 + ... + E^(d-1))`` at ``a = rho (1 + theta)``: its sign is the
    sign of ``g(a) - rho`` (``g`` increasing), so a sign change brackets the retrial fixed point."""
    E = erlang_ball(C, rho * (1 + theta))
    return theta - _erlang_powers_sum(E, d, arb(0), arb(1))


def _telescoped_W1(C: int, d: int, s, rho, zero, root):
    """``W_1(s, rho)`` by the telescoped recursion ``W_k = s^d + (k u_k + sum_{j>k} u_j)/rho``,
    ``u_{k-1} = root(W_k)`` downwards from ``u_C = s`` (balls or series; ``zero`` of the same kind)."""
    B = s ** d
    u = s
    T = zero
    for k in range(C, 0, -1):
        W = B + (k * u + T) / rho
        if k == 1:
            return W
        T = T + u
        u = root(W) if d > 1 else W
    raise AssertionError("unreachable")  # pragma: no cover


def _power_W1(C: int, d: int, t: arb, rho: arb) -> arb:
    """``W_1(e^t, rho) - 1`` by the telescoped recursion (increasing in ``t``)."""
    return _telescoped_W1(C, d, t.exp(), rho, arb(0), lambda W: W.root(d)) - 1


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

    Parameters
    ----------
    model : MeanFieldModel
        The model.
    rho : rational
        The load (exact, ``> 0``).
    prec : int, optional
        Working precision in bits.
    dps : int, optional
        Digits of the stored log-blocking bracket (``dps + 8`` are stored).

    Returns
    -------
    dict
        The ball sample (JSON data): ``rho``, ``fingerprint``, ``symloss_version``, ``prec``,
        ``kind`` (``"retrial-theta"``, ``"power-log-s"`` or ``"krawczyk-box"``), the bracket or box
        of that kind and ``log_blocking``, the decimal bracket ``[lo, hi]`` of ``log B``.

    Raises
    ------
    ValueError
        When ``rho <= 0``.
    ArithmeticError
        When the retrial or power-of-d fixed point cannot be bracketed (or, for power-of-d, has no
        float start at this load); :class:`~symloss.PrecisionError` (an ``ArithmeticError``) when
        no Krawczyk box is found for another model.

    Notes
    -----
    What is stored depends on the model:

    * retrial-of-d (binding checked): a bracket ``[theta_lo, theta_hi]`` of exact rationals with
      :math:`F(\theta_{lo}) < 0 < F(\theta_{hi})`, ``a = rho (1 + theta)`` (the retrial fixed point
      is the unique sign change, lemma ``g`` increasing);
    * power-of-d (binding checked): a bracket ``[t_lo, t_hi]`` of ``t = log u_C`` with
      :math:`W_1(e^{t_{lo}}, \rho) < 1 < W_1(e^{t_{hi}}, \rho)` (telescoped recursion);
    * any other model: a Krawczyk box (``y = log x``) of its compiled square system.

    The certificate stores ``log B`` as a rigorous decimal bracket (``log_blocking``), the
    fingerprint of the model and the symloss version."""
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
                af = RETRIAL.float_start(C, d, float(rho))
                th0 = max(Fraction(af / float(rho) - 1), Fraction(0))

                def f(x):
                    return _retrial_F(C, d, q_arb(x), r)

                def df(x):
                    xs = arb_series([q_arb(x), arb(1)], prec=2)
                    Ec = _erlang_coeffs(C, r * (1 + q_arb(x)), 2)
                    E = arb_series([Ec[0], Ec[1] * r], prec=2)      # d/dtheta = rho d/da
                    return series_coeffs(xs - _erlang_powers_sum(E, d, xs * 0, xs * 0 + 1), 2)[1]
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
                W = _telescoped_W1(C, d, ts.exp(), r, ts * 0, lambda W: W ** arb(fmpq(1, d)))
                return series_coeffs(W, 2)[1]
            wd = width * max(1, abs(Fraction(t0)))
            tb = _newton_bracket(f, df, Fraction(t0), Fraction(-10) ** 0 * Fraction(-(abs(int(t0)) + 2) * 4),
                                 Fraction(0), p - 8, wd)
            if tb is None:
                raise ArithmeticError(f"{model!r}: power-of-d fixed point at rho = {rho} not bracketed")
            L = (d * q_arb(tb[0])).union(d * q_arb(tb[1]))
        rec.update({"kind": "power-log-s", "t": [q_str(tb[0]), q_str(tb[1])], "prec": p,
                    "log_blocking": [dec_down(L, digits), dec_up(L, digits)]})
        return rec
    box, sel, _mg = point_box(model, rho, prec=prec)
    with flint_prec(prec):
        box = [arb(b.mid(), arb(b.rad())) for b in box]
        L = model.compiled.log_blocking_arb(box, q_arb(rho).log())
        # the re-check rebuilds the box from its exact strings and evaluates again: its ball may differ
        # from this one by rounding (radii are 30-bit magnitudes): store a bracket with that margin
        L = L + arb(0, L.rad() * arb(2) ** -20 + arb(2) ** (-(prec - 24)) * (1 + abs(L)))
    rec.update({"kind": "krawczyk-box", **box_to_strings(box), "sel": list(sel),
                "log_blocking": [dec_down(L, digits), dec_up(L, digits)]})
    return rec


def verify_point_certificate(rec: dict, model):
    """Re-check a ball sample of :func:`point_certificate` from its stored bracket (or box) and the
    model's own equations.

    Parameters
    ----------
    rec : dict
        A ball sample of :func:`point_certificate` (JSON data).
    model : MeanFieldModel
        The model it claims to sample.

    Returns
    -------
    tuple of fractions.Fraction
        The verified ``(log_B_lo, log_B_hi)``.

    Raises
    ------
    ValueError
        On any mismatch (another definition, a wrong bracket, a bound that does not hold).
    """
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
            box = box_from_strings(rec["center"], rec["delta"], prec)   # exactly, whatever the stored bits
            verify_box(model, box, check_selection(model, rec["sel"]), rho, prec=prec)
            L = model.compiled.log_blocking_arb(box, r.log())
        else:
            raise ValueError(f"unknown ball-sample kind {kind!r}")
        if not (q_arb(Llo) <= L <= q_arb(Lhi)):
            raise ValueError(f"the stored log-blocking bracket at rho = {rho} does not enclose the recomputed one")
    return Llo, Lhi

