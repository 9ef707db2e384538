r"""The refined mean field's :math:`1/N` coefficient :math:`V`, **certified**: a rigorous enclosure at an
exact load, with a certificate that :func:`verify_refined_V` re-checks from its stored data and the
model's own equations (no search).

:func:`symloss.refined_mean_field` computes :math:`V = Dh\,a_1 + \tfrac12 D^2h{:}\Sigma_1` in float64
and, with ``dps``, its midpoint at ``dps`` digits (agreement of two working precisions: EVIDENCE).
Here every step is an enclosure:

1. the fixed point: a Krawczyk box (:func:`symloss.core.boxes.point_box`) of the model's square
   stationary system, holding exactly one zero (``y = log x``);
2. the reduced Jacobian :math:`A_r = L\,Df(x^*)\,P` and noise :math:`Q_r = L Q L^T`, balls over the box
   (derivatives generated from the definition, :mod:`symloss.finite_n.refined_tables`);
3. exponential stability: every eigenvalue of :math:`A_r` has a negative real part, from rigorous
   eigenvalue enclosures (``acb_mat.eig``, python-flint) — the assumption of the expansion
   (Gast & Van Houdt 2017, Theorem 3.1) that makes the Lyapunov equation's solution the covariance;
4. the Lyapunov equation :math:`A_r W + W A_r^T + Q_r = 0` as the :math:`r^2 \times r^2` Kronecker-sum
   system, and :math:`A a_1 = -\tfrac12 D^2 f{:}\Sigma_1`, both by ``arb_mat.solve`` (a ball that
   contains the exact solution, or an error);
5. :math:`V` as a ball; the certificate stores a decimal bracket of it.

The linear systems are exact in the sense of the issue: their entries are balls around the exact
algebraic fixed point, and nothing is iterated to a tolerance. The size grows as :math:`r^2` (``r``:
the number of free coordinates), so this is meant for small ``C`` (``C <= 10`` runs in well under a
second per load).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import numpy as np
from flint import acb_mat, arb

from .._version import __version__
from ..core.boxes import box_from_strings, box_to_strings, check_selection, exact_dyadic, point_box, verify_box
from ..core.certified_results import parse_exact
from ..core.precision import PrecisionError, arb_to_mpf, flint_prec
from ..core.real_numbers import exact_real
from ..core.validation import check_int
from ..meanfield.ball_text import parse_q, q_arb, q_str
from .refined_moments import _first_order_pieces, _first_order_V, _lyapunov_enclosure
from .refined_tables import _tables

__all__ = ["CertifiedRefinedV", "certified_refined_V", "verify_refined_V"]

PREC_MIN, PREC_MAX = 64, 1 << 14


@dataclass(frozen=True)
class CertifiedRefinedV:
    r"""A certified enclosure of the refined mean field's first-order coefficient :math:`V`
    (:func:`certified_refined_V`).

    Parameters
    ----------
    model : str
        The model's repr.
    rho : fractions.Fraction
        The exact load.
    V_lo, V_hi : fractions.Fraction
        The certified bracket: :math:`V_{lo} \le V \le V_{hi}` (exact dyadic numbers).
    V : mpmath.mpf
        The midpoint of the bracket.
    digits : int
        Correct significant digits of ``V`` guaranteed by the bracket (``accuracy="relative"``), or
        decimal places when the bracket contains 0 (``accuracy="absolute"``: ``V`` may be exactly 0, as
        for random routing, whose servers are independent).
    eigen_bound : str
        A certified upper bound of the real parts of the reduced Jacobian's eigenvalues (``< 0``).
    certificate : dict
        JSON data for :func:`verify_refined_V`.
    accuracy : str
        ``"relative"`` or ``"absolute"`` (see ``digits``).
    status : str
        ``"PROVED"``.
    """

    model: str
    rho: Fraction
    V_lo: Fraction
    V_hi: Fraction
    V: object
    digits: int
    eigen_bound: str
    certificate: dict = field(repr=False)
    accuracy: str = "relative"
    status: str = "PROVED"

    def __repr__(self) -> str:
        if self.V_lo == self.V_hi:
            return f"CertifiedRefinedV({self.model}, rho={q_str(self.rho)}: V = {self.certificate['V_text']} exactly, PROVED)"
        return (f"CertifiedRefinedV({self.model}, rho={q_str(self.rho)}: V = {self.certificate['V_text']} "
                f"({self.digits} certified {'digits' if self.accuracy == 'relative' else 'decimal places'}, PROVED))")

    def to_dict(self) -> dict:
        """JSON-ready fields (the bracket as exact decimal strings).

        Returns
        -------
        dict
        """
        return {"model": self.model, "rho": q_str(self.rho), "V": self.certificate["V_text"],
                "V_bracket": self.certificate["V"], "digits": self.digits, "accuracy": self.accuracy,
                "eigen_bound": self.eigen_bound,
                "status": self.status}


def _v_ball(model, box, rho: Fraction):
    """``(V ball, largest real part of the reduced Jacobian's eigenvalues)`` over the box (current
    precision)."""
    T = _tables(model)
    xb = [b.exp() for b in box]
    grp, Ar, Qr, P, L = _first_order_pieces(T, xb, q_arb(rho))
    try:
        eig = acb_mat(Ar).eig()
    except (ValueError, ArithmeticError) as exc:
        raise PrecisionError(f"the eigenvalues of the reduced Jacobian could not be enclosed ({exc})") from None
    top = max((e.real for e in eig), key=lambda z: z.upper()) if eig else arb(-1)
    if not top < 0:
        raise PrecisionError(f"the reduced Jacobian is not proved Hurwitz (largest real part {top.str(5)}): "
                             "the refined mean field needs an exponentially stable fixed point")
    try:
        W = _lyapunov_enclosure(Ar, Qr)
    except ZeroDivisionError:
        raise PrecisionError("the Lyapunov (Kronecker-sum) system could not be proved non-singular") from None
    S1 = P * W * P.transpose()
    V, _a1 = _first_order_V(T, grp, S1, Ar, P, L)
    if not V.is_finite():
        raise PrecisionError("V is not finite at this precision")
    return V, top


def _fraction(text: str) -> Fraction:
    man, exp = (int(t) for t in text.split("*2^"))
    return Fraction(man) * Fraction(2) ** exp


def _digits(lo: Fraction, hi: Fraction) -> tuple:
    """``(digits, accuracy)`` the bracket ``[lo, hi]`` guarantees: significant digits
    (``"relative"``), or, when it contains 0, decimal places (``"absolute"``)."""
    if lo == hi:
        return 1000, "relative" if lo else "absolute"
    with mpmath.workdps(30):
        q = lambda f: mpmath.mpf(f.numerator) / f.denominator  # noqa: E731
        if lo <= 0 <= hi:
            return max(0, int(mpmath.floor(-mpmath.log10(q(hi - lo))))), "absolute"
        rel = q(hi - lo) / abs(q(hi + lo) / 2)
        return max(0, int(mpmath.floor(-mpmath.log10(rel))) - 1), "relative"


def certified_refined_V(model, rho, *, prec: int = 192, digits: int = 30) -> CertifiedRefinedV:
    r"""Certify the refined mean field's :math:`1/N` coefficient :math:`V` of ``model`` at the exact
    load ``rho``.

    Parameters
    ----------
    model : MeanFieldModel
        Any mean-field model with smooth rates (shipped or user-written).
    rho : int, fractions.Fraction or str
        The load, exact and ``> 0`` (a float is refused: pass ``Fraction(x)`` to use its binary
        value).
    prec : int, optional
        Working precision in bits (``64 <= prec <= 16384``); raised automatically up to
        ``8 * prec`` until ``digits`` are certified.
    digits : int, optional
        The significant digits of ``V`` the bracket must guarantee (``1 <= digits <= 1000``); decimal
        places when ``V`` cannot be told from 0 (then the bracket contains 0).

    Returns
    -------
    CertifiedRefinedV
        The bracket of ``V``, its certified digits and the certificate.

    Raises
    ------
    TypeError
        If ``rho`` is a float or not a number, or ``prec``/``digits`` are not integers.
    ValueError
        If ``rho <= 0`` or ``prec``/``digits`` are out of range, or the model's rates are not smooth.
    PrecisionError
        If no Krawczyk box is found, the reduced Jacobian is not proved Hurwitz, or the bracket does
        not reach ``digits`` digits at ``8 * prec`` bits.

    References
    ----------
    .. [1] N. Gast, B. Van Houdt, "A refined mean field approximation", Proceedings of the ACM on
       Measurement and Analysis of Computing Systems 1(2), article 33 (2017).
    .. [2] S. M. Rump, "Verification methods: rigorous results using floating-point arithmetic",
       Acta Numerica 19 (2010) 287-449 (enclosures of linear systems and eigenvalues).

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> r = certified_refined_V(PowerOfD(2, 2), 1, digits=20)
    >>> r.status, r.digits >= 20, r.certificate["V_text"][:22]
    ('PROVED', True, '0.22250844019909291640')
    >>> verify_refined_V(r.certificate, PowerOfD(2, 2))[0] == r.V_lo
    True
    """
    if isinstance(rho, (float, np.floating)):
        raise TypeError(f"rho must be exact (int, Fraction or decimal string), got the float {rho!r}; "
                        "pass Fraction(rho) to use its binary value")
    if isinstance(rho, str):
        try:
            rho_q = parse_q(rho)
        except (TypeError, ValueError):
            raise TypeError(f"rho must be an int, Fraction or decimal string, got {rho!r}") from None
    else:
        v = exact_real(rho, "rho")          # numpy and flint integers, SymPy rationals, ...; TypeError names rho
        if isinstance(v, mpmath.mpf):
            man, exp = v.man_exp
            v = Fraction(int(man)) * Fraction(2) ** int(exp)
        rho_q = Fraction(v)
    if rho_q <= 0:
        raise ValueError(f"rho must be > 0, got rho={rho}")
    prec = check_int(prec, "prec", min_value=PREC_MIN, max_value=PREC_MAX)
    digits = check_int(digits, "digits", min_value=1, max_value=1000)
    _tables(model)                                    # smoothness checked (ValueError) before work starts
    p = max(prec, int(digits * 3.33) + 64)
    last = None
    while p <= 8 * max(prec, int(digits * 3.33) + 64):
        try:
            box, sel, _margin = point_box(model, rho_q, prec=p)
            with flint_prec(p):
                box = [arb(b.mid(), arb(b.rad())) for b in box]
                V, top = _v_ball(model, box, rho_q)
                # the re-check rebuilds the box from its exact strings; leave it a margin for rounding
                V = V + arb(0, V.rad() * arb(2) ** -20 + abs(V) * arb(2) ** (-(p - 24)))
                ends = [exact_dyadic(V.lower()), exact_dyadic(V.upper())]
                got, accuracy = _digits(_fraction(ends[0]), _fraction(ends[1]))
                text = V.str(max(got, 1), radius=False) if accuracy == "relative" else V.str(3)
                mid = arb_to_mpf(V.mid())
            if got >= digits:
                cert = {"kind": "refined-V", "rho": q_str(rho_q), "prec": p, "fingerprint": model.fingerprint(),
                        "symloss_version": __version__, **box_to_strings(box), "sel": list(sel), "V": ends, "V_text": text,
                        "eigen_bound": top.upper().str(8, radius=False), "digits": got, "accuracy": accuracy}
                return CertifiedRefinedV(model=repr(model), rho=rho_q, V_lo=_fraction(ends[0]),
                                         V_hi=_fraction(ends[1]), V=mid, digits=got, accuracy=accuracy,
                                         eigen_bound=cert["eigen_bound"], certificate=cert)
            last = f"{got} of {digits} digits at {p} bits"
        except PrecisionError as exc:
            last = str(exc)
        p *= 2
    raise PrecisionError(f"certified_refined_V: V of {model!r} at rho = {q_str(rho_q)} not certified to "
                         f"{digits} digits ({last})")


def verify_refined_V(certificate: dict, model) -> tuple:
    """Re-check a :func:`certified_refined_V` certificate from its stored box and the model's own
    equations (no search): the Krawczyk test of the stored box, the eigenvalue bound, the Lyapunov and
    linear systems in ball arithmetic, and the stored bracket enclosing the recomputed ``V``.

    Parameters
    ----------
    certificate : dict
        The ``certificate`` of a :class:`CertifiedRefinedV` (JSON data).
    model : MeanFieldModel
        The model it claims to be about.

    Returns
    -------
    tuple of fractions.Fraction
        The verified bracket ``(V_lo, V_hi)``.

    Raises
    ------
    ValueError
        On any mismatch: another definition (fingerprint), a box that fails the Krawczyk test, a
        Jacobian not proved Hurwitz, or a stored bracket that does not enclose the recomputed ``V``.

    References
    ----------
    Those of :func:`certified_refined_V` (the refined mean field of Gast and Van Houdt; Rump's
    enclosures), whose certificate this re-checks.

    Examples
    --------
    See :func:`certified_refined_V`.
    """
    if not isinstance(certificate, dict) or certificate.get("kind") != "refined-V":
        raise ValueError("not a refined-V certificate")
    if certificate.get("fingerprint") != model.fingerprint():
        raise ValueError("the certificate was made from another model definition (fingerprint differs)")
    rho = parse_q(certificate["rho"])
    if rho <= 0:
        raise ValueError("the stored load must be positive")
    prec = int(certificate["prec"])
    if not PREC_MIN <= prec <= 8 * PREC_MAX:
        raise ValueError("stored precision out of range")
    lo, hi = _fraction(certificate["V"][0]), _fraction(certificate["V"][1])
    if not lo <= hi:
        raise ValueError("the stored V bracket is empty")
    box = box_from_strings(certificate["center"], certificate["delta"], prec)
    verify_box(model, box, check_selection(model, certificate["sel"]), rho, prec=prec)
    with flint_prec(prec):
        try:
            V, top = _v_ball(model, box, rho)
        except PrecisionError as exc:
            raise ValueError(f"re-check failed: {exc}") from None
        if not (parse_exact(certificate["V"][0]) <= V <= parse_exact(certificate["V"][1])):
            raise ValueError("the stored V bracket does not enclose the recomputed V")
    if [certificate.get("digits"), certificate.get("accuracy")] != list(_digits(lo, hi)):
        raise ValueError("the stored digit count is not the one the stored bracket gives")
    if certificate.get("eigen_bound") != top.upper().str(8, radius=False):
        raise ValueError("the stored eigenvalue bound is not the one the stored box gives")
    try:
        shown = Fraction(certificate["V_text"])
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        raise ValueError("the stored V_text is not a decimal number") from None
    mid, width = (lo + hi) / 2, max(abs(lo + hi) / 2, hi - lo)
    if abs(shown - mid) > width * Fraction(10) ** (-max(certificate["digits"] - 1, 0)) + (hi - lo):
        raise ValueError("the stored V_text is not the bracket's midpoint to its certified digits")
    return lo, hi
