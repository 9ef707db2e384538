"""The finite-N threshold proved (:func:`certified_finite_n_threshold`, method in
:mod:`symloss.finite_n.rational`): the roots of :math:`B_N^a - B_N^b` on :math:`(0, \\infty)` isolated
exactly, the certificate, and its re-check from the stored data alone.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from ..core.docstrings import fill_doc
from ..core.model import MeanFieldModel
from ..core.results import ResultMixin
from ..core.validation import check_choice, check_int
from .common import SAMPLINGS
from .rational_blocking import MAX_STATES, BlockingRationalFunction, blocking_rational_function
from .rational_poly import (
    RationalCertificateError,
    _difference_numerator,
    _poly_from_text,
    _positive_on_halfline,
    _q,
    _qtext,
    _refine,
    _sign,
    _tiles,
    descartes_variations,
)

__all__ = ["CertifiedFiniteNThreshold", "certified_finite_n_threshold", "recheck_threshold_certificate"]


@dataclass
class CertifiedFiniteNThreshold(ResultMixin):
    r"""The sign structure of :math:`B_N^a - B_N^b` on :math:`(0, \infty)`, proved
    (:func:`certified_finite_n_threshold`).

    Parameters
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
    isolation : dict
        The root isolation as stored in ``certificate()`` (root bound, tiles, refined roots).
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


@fill_doc
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

    See Also
    --------
    recheck_threshold_certificate : the independent re-check of the certificate data.
    symloss.finite_n_threshold : the threshold from floats (exact chain, refined mean field or simulation).

    References
    ----------
    {{ref_retrial}}
       (The finite-N study.)
    .. [2] G. E. Collins, A. G. Akritas, "Polynomial real root isolation using Descartes' rule of signs",
       Proc. 1976 ACM Symposium on Symbolic and Algebraic Computation (SYMSAC '76), 272-275 (1976)
       (the tiles of the root isolation).

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
    ``recheck_blocking_rational_function``.

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
