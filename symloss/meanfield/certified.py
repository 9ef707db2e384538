r"""Certified comparisons of two mean-field models for **every** load :math:`\rho \in (0, \infty)`.

:func:`certified_comparison` proves the sign of :math:`B_a(\rho) - B_b(\rho)` on the whole half-line,
or finds and isolates every crossing, each as an interval of loads of width at most
:math:`10^{-\mathrm{dps}}` that provably holds exactly one crossing. It returns the sign pattern, the
crossings, their count, the threshold (the load above which ``a`` blocks strictly less than ``b``
at every larger load, if that is the behaviour at large load), and a **certificate**: plain JSON
data that :func:`verify_comparison` re-checks cell by cell from the stored numbers and the models'
own equations, without repeating the search.

Two paths:

* **fast path** (retrial-of-:math:`\tilde d` against power-of-:math:`d`, any ``C``; models whose
  definitions are identical to those templates, checked): the one-dimensional reduction of
  :mod:`symloss.meanfield.enclosures`: the comparison function :math:`\Psi(a)` of the retrial
  per-server load ``a`` has the sign of :math:`B_{ret} - B_{pod}` at :math:`\rho(a)`; a branch and
  bound over dyadic cells of ``a`` proves its sign cell by cell (mixed-monotone bounds, Taylor
  models), isolates each zero with a Taylor model of :math:`\Psi'` that excludes 0, and the two end
  pieces (elementary inequalities at small load, an exact-coefficient Taylor model in :math:`1/a` at
  large load) cover :math:`(0, \rho(a_{lo})]` and :math:`[\rho(a_{hi}), \infty)`;
* **generic path** (:mod:`symloss.meanfield.certified_generic`, any two smooth models): parametric
  Krawczyk enclosures of each model's own stationary equations over intervals of loads, with
  derivative enclosures.

Every certificate records the symloss version and each model's ``fingerprint()``; the re-check
refuses a certificate made from another definition.
"""
from __future__ import annotations

import time
from fractions import Fraction

import sympy as sp

from ..core.docstrings import fill_doc
from ..core.model import MeanFieldModel
from ..core.precision import check_dps
from ..core.validation import check_int
from ._docfragments import MEANFIELD_DOCS
from .certified_generic import FORMAT_GENERIC, generic_comparison, verify_generic
from .certified_recheck import UNCHECKED_FAST, _check_models, _verify_fast
from .certified_search import (
    _DEFAULT_K,
    _DEFAULT_K_END,
    _DEFAULT_PREC,
    FORMAT_FAST,
    _fast_models,
    _lemmas,
    _model_record,
    _orient,
    _result,
    _Search,
    _summary,
)
from ..core.piecewise import is_piecewise_model
from .compare import _equal_at_sample_loads
from .compare_piecewise import FORMAT_PIECEWISE, piecewise_comparison, verify_piecewise_comparison
from .comparison_types import CertificateMismatch, CertifiedComparison, Crossing, _version
from .enclosures import _dec
from .models import PowerOfD, RetrialOfD

__all__ = [
    "FORMAT_FAST",
    "CertificateMismatch",
    "CertifiedComparison",
    "Crossing",
    "certified_comparison",
    "certified_threshold",
    "verify_comparison",
]

# the split of this module (issue 22): the result types are in .comparison_types, the fast path's search
# in .certified_search and its re-check in .certified_recheck; these names stay importable from here
_REEXPORTED = (UNCHECKED_FAST, _check_models, _orient, _summary)


@fill_doc(MEANFIELD_DOCS)
def certified_comparison(model_a, model_b, *, dps: int = 30, prec: int | None = None, K: int | None = None,
                         K_end: int | None = None, K_end_max: int | None = None,
                         method: str = "auto", rho_min=None, rho_max=None) -> CertifiedComparison:
    r"""Certified sign of :math:`B_a(\rho) - B_b(\rho)` for every load :math:`\rho > 0`: every
    crossing isolated (exactly one in each interval, width :math:`\le 10^{-dps}`), their number, the
    sign on each piece, the threshold, and a certificate for :func:`verify_comparison`.

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        Two models of the same capacity. Retrial-of-d against power-of-d (definitions identical to
        the shipped templates, in either order) uses the one-dimensional fast path; any other pair
        the generic path.
    dps : int
        Width of each crossing interval: at most ``10^-dps`` (default 30).
    prec : int, optional
        Working precision in bits of the cell tests (default 160 on the fast path, 128 on the generic
        one).
    K, K_end : int, optional
        Fast path: orders of the Taylor models in the middle cells and at the large-load end (default
        8). Generic path: ``K`` does not apply (refused), ``K_end`` is the first number of exact series
        terms of the end pieces (default 12).
    K_end_max : int, optional
        Generic path: the most exact series terms an end piece may take when the two blockings agree
        to high order at rho -> 0 or oo (default 48, at most 64; the budget's error names it). Refused
        on the fast path.
    method : {"auto", "fast", "generic"}
        ``"auto"``: the fast path when it applies, else the generic one; ``"generic"`` forces the
        generic path (small models only: it is much slower); ``"fast"`` raises ``ValueError`` when
        the pair is not retrial-of-d / power-of-d.
    rho_min, rho_max : int, Fraction, str or float, optional
        Only when a model is piecewise smooth (JSQ, join-the-idle-queue, threshold policies;
        :func:`symloss.core.piecewise.is_piecewise_model`), and then required: the bounded load range
        of :func:`symloss.meanfield.compare_piecewise.piecewise_comparison` (outside it nothing is
        certified; the certificate's ``parts`` and ``assumptions`` say so).

    Returns
    -------
    CertifiedComparison
        The sign of ``B_a - B_b`` on every piece of ``(0, oo)``, the crossings, the threshold and
        the certificate that :func:`verify_comparison` re-checks.

    Raises
    ------
    ValueError
        When ``dps``, ``prec``, ``K``, ``K_end`` or ``method`` is out of range, or ``method="fast"``
        for a pair that is not retrial-of-d / power-of-d.
    TypeError
        When ``model_a`` or ``model_b`` is not a :class:`~symloss.core.model.MeanFieldModel`.
    ArithmeticError
        When a piece cannot be certified (e.g. a tangency of the two blockings): nothing is returned
        unchecked.

    {{references_retrial}}

    Examples
    --------
    >>> from symloss import RetrialOfD, PowerOfD
    >>> from symloss.meanfield.certified import certified_comparison
    >>> res = certified_comparison(RetrialOfD(3, 3), PowerOfD(3, 2), dps=20)
    >>> res.count, res.sign_at_zero, res.sign_at_infinity
    (1, 1, -1)
    >>> res.crossings[0].rho_lo[:12]
    '0.9496356040'
    """
    t0 = time.perf_counter()
    dps = check_dps(dps)
    given = {"prec": prec, "K": K, "K_end": K_end, "K_end_max": K_end_max}
    for name, v, lo in (("prec", prec, 64), ("K", K, 2), ("K_end", K_end, 2), ("K_end_max", K_end_max, 2)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < lo):
            raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    if method not in ("auto", "fast", "generic"):
        raise ValueError(f"method must be 'auto', 'fast' or 'generic', got {method!r}")
    for name, m in (("model_a", model_a), ("model_b", model_b)):
        if not isinstance(m, MeanFieldModel):
            raise TypeError(f"{name} must be a MeanFieldModel, got {type(m).__name__}")
    if is_piecewise_model(model_a) or is_piecewise_model(model_b):
        if model_a._definition_key() == model_b._definition_key():
            raise ValueError(f"{model_a!r} and {model_b!r} coincide (the same definition: transitions, blocking "
                             "and invariants): there is nothing to compare")
        if method == "fast" or K is not None or K_end is not None or K_end_max is not None:
            raise ValueError("a piecewise-smooth model takes the piecewise path: method='fast', K, K_end and "
                             "K_end_max do not apply")
        if rho_min is None or rho_max is None:
            raise ValueError(f"{model_a!r} / {model_b!r}: a comparison with a piecewise-smooth model is certified on a "
                             f"bounded load range only: give rho_min and rho_max (got {rho_min!r}, {rho_max!r})")
        return piecewise_comparison(model_a, model_b, rho_min=rho_min, rho_max=rho_max, dps=dps, prec=prec, t0=t0)
    if rho_min is not None or rho_max is not None:
        raise ValueError(f"rho_min / rho_max apply to a comparison with a piecewise-smooth model only; {model_a!r} "
                         f"and {model_b!r} are compared on the whole half-line")
    if _same_definition(model_a, model_b):
        raise ValueError(f"{model_a!r} and {model_b!r} coincide (identical stationary equations and blocking): "
                         "there is nothing to compare")
    fast = None if method == "generic" else _fast_models(model_a, model_b)
    if fast is None:
        if method == "fast":
            raise ValueError(f"{model_a!r} and {model_b!r} are not a retrial-of-d / power-of-d pair (fast path)")
        if K is not None:
            raise ValueError(f"K={K!r} applies to the retrial-of-d / power-of-d fast path only; {model_a!r} and "
                             f"{model_b!r} take the generic path (use K_end / K_end_max for its end pieces)")
        kw = {k: v for k, v in given.items() if v is not None and k != "K"}
        try:
            return generic_comparison(model_a, model_b, dps=dps, t0=t0, **kw)
        except ArithmeticError as exc:
            _raise_if_coincide(model_a, model_b, exc)
            raise
    if K_end_max is not None:
        raise ValueError(f"K_end_max={K_end_max!r} applies to the generic path only (its end series); the "
                         f"retrial-of-d / power-of-d fast path has closed-form end pieces")
    prec = _DEFAULT_PREC if prec is None else prec
    K = _DEFAULT_K if K is None else K
    K_end = _DEFAULT_K_END if K_end is None else K_end
    ret, pod, orient, rb, pb = fast
    C, dt, d = rb["C"], rb["d"], pb["d"]
    if C == 1 and d == dt:
        raise ValueError(f"{model_a!r} and {model_b!r} coincide: at C = 1 retrial-of-{d} and power-of-{d} solve the "
                         f"same equation rho (1 - u^{d}) = u (there is nothing to compare)")
    lemmas = _lemmas(C, d, dt)
    search = _Search(C, d, dt, dps, prec, K, K_end)
    try:
        found = search.run()
    except ArithmeticError as exc:
        _raise_if_coincide(model_a, model_b, exc)
        raise
    summary = _summary(found["small_end"], found["large_end"], found["cells"], dps)
    data = {"format": FORMAT_FAST, "symloss_version": _version(),
            "models": {"retrial": _model_record(ret), "power": _model_record(pod)},
            "a_is": "retrial" if orient == 1 else "power",
            "binding": {"retrial": rb["identity"], "power": pb["identity"], "telescoped": pb["telescoped"]},
            "lemmas": lemmas, "dps": dps, "prec": prec, "K": K,
            "small_end": found["small_end"], "large_end": found["large_end"], "cells": found["cells"],
            "summary_psi": summary, "unchecked_fields": list(UNCHECKED_FAST)}
    return _result(model_a, model_b, data, orient, time.perf_counter() - t0)


def _same_definition(a, b) -> bool:
    """Exactly the same system: equal sparse drifts (same variables), invariants and blocking."""
    if tuple(a.variables) != tuple(b.variables):
        return False
    pa, pb = a._drift_poly, b._drift_poly
    if pa is None or pb is None or pa != pb:
        return False
    inv_a = [(list(c), v) for c, v in a._invariants]
    inv_b = [(list(c), v) for c, v in b._invariants]
    return inv_a == inv_b and sp.expand(a._blocking - b._blocking) == 0


def _raise_if_coincide(a, b, exc) -> None:
    """After a failed search: a ValueError when the two blockings agree to 25 digits at three loads
    (the models coincide in different coordinates; evidence, said so), else nothing."""
    try:
        same = _equal_at_sample_loads(a, b, 0.01, 100)
    except (ArithmeticError, ValueError):
        return
    if same:
        raise ValueError(f"{a!r} and {b!r} appear to coincide: their blockings agree to 25 digits at the loads "
                         f"0.1, 1 and 10 (sampled; the certified search failed with: {exc})") from exc



@fill_doc(MEANFIELD_DOCS)
def certified_threshold(C, d=None, dt=None, *, dps: int = 30, rho_min=None, rho_max=None) -> CertifiedComparison:
    r""":func:`certified_comparison` of ``RetrialOfD(C, dt)`` against ``PowerOfD(C, d)`` (power-of-1
    is random routing in tail variables); or, as ``certified_threshold(model_a, model_b)``, of any two
    models (shipped or user-written; the threshold is then the load above which ``model_a`` blocks
    strictly less than ``model_b`` at every larger load).

    Parameters
    ----------
    C : int in [1, 1000], or MeanFieldModel
        Capacity of each server (the same for both models); or the first model ``model_a``.
    d : int in [1, 64], or MeanFieldModel
        Number of servers sampled by power-of-d; or the second model ``model_b`` (then ``dt`` must be
        omitted).
    dt : int in [1, 64]
        Number of attempts of retrial-of-d.
    dps : int, optional
        Width of each crossing interval: at most ``10^-dps`` (default 30).
    rho_min, rho_max : optional
        Two models only, one of them piecewise smooth: the load range of :func:`certified_comparison`.

    Returns
    -------
    CertifiedComparison
        The certified sign pattern of :math:`B_{retrial}(\rho) - B_{power}(\rho)` on
        :math:`(0, \infty)`, its crossings and threshold, and the certificate for
        :func:`verify_comparison`.

    Raises
    ------
    ValueError
        When ``C``, ``d``, ``dt`` or ``dps`` is out of range.
    TypeError
        When ``C``, ``d`` or ``dt`` is not an integer, or two models are given with ``dt`` or one model
        with an integer.
    ArithmeticError
        When a piece cannot be certified (see :func:`certified_comparison`).

    {{references_retrial}}

    Examples
    --------
    >>> from symloss.meanfield.certified import certified_threshold
    >>> res = certified_threshold(3, 2, 3, dps=20)
    >>> res.count, res.sign_at_zero, res.sign_at_infinity
    (1, 1, -1)
    >>> res.threshold["rho"][0][:12]
    '0.9496356040'
    >>> from symloss import PowerOfD, RetrialOfD
    >>> certified_threshold(RetrialOfD(3, 3), PowerOfD(3, 2), dps=20).threshold["rho"][0][:12]
    '0.9496356040'
    """
    if isinstance(C, MeanFieldModel) or isinstance(d, MeanFieldModel):
        if not (isinstance(C, MeanFieldModel) and isinstance(d, MeanFieldModel)) or dt is not None:
            raise TypeError("certified_threshold takes (C, d, dt) or (model_a, model_b); got "
                            f"({type(C).__name__}, {type(d).__name__}, {type(dt).__name__})")
        return certified_comparison(C, d, dps=dps, rho_min=rho_min, rho_max=rho_max)
    if rho_min is not None or rho_max is not None:
        raise ValueError("rho_min / rho_max apply to certified_threshold(model_a, model_b) with a piecewise-smooth "
                         f"model only, not to certified_threshold(C, d, dt) (got {rho_min!r}, {rho_max!r})")
    if d is None or dt is None:
        raise TypeError("certified_threshold(C, d, dt) needs d and dt (or pass two models)")
    C = check_int(C, "C", min_value=1, max_value=1000)
    d = check_int(d, "d", min_value=1, max_value=64)
    dt = check_int(dt, "dt", min_value=1, max_value=64)
    return certified_comparison(RetrialOfD(C, dt), PowerOfD(C, d), dps=dps)


# ==================================================================================================
# re-check (no search; the fast path's is in .certified_recheck)
# ==================================================================================================

@fill_doc(MEANFIELD_DOCS)
def verify_comparison(certificate: dict, model_a, model_b) -> CertifiedComparison:
    """Re-check a certificate of :func:`certified_comparison` for ``(model_a, model_b)``: the
    models' fingerprints and bindings, the lemmas, both end pieces, every cell (its stored bounds
    recomputed from the models' equations and checked to enclose the recomputed values, its sign
    re-derived from the stored numbers), the tiling of the load axis, every crossing bracket and
    the summary. Raises :class:`CertificateMismatch` on any difference; returns the verified result.

    No search is redone: the check costs a fraction of :func:`certified_comparison`.

    Parameters
    ----------
    certificate : dict
        The ``certificate`` of a :class:`CertifiedComparison` (JSON data, e.g. read back from a file).
    model_a, model_b : MeanFieldModel
        The models the certificate claims to compare, in the same order.

    Returns
    -------
    CertifiedComparison
        The result rebuilt from the verified certificate.

    Raises
    ------
    CertificateMismatch
        (a :class:`ValueError`) When the certificate is not a dict, has an unknown format, is
        malformed, was made from other model definitions, or any stored number, cell, crossing or
        summary fails its re-check.

    {{references_retrial}}

    Examples
    --------
    >>> from symloss import RetrialOfD, PowerOfD
    >>> from symloss.meanfield.certified import certified_comparison, verify_comparison
    >>> a, b = RetrialOfD(3, 3), PowerOfD(3, 2)
    >>> res = certified_comparison(a, b, dps=20)
    >>> verify_comparison(res.certificate, a, b).count
    1
    >>> verify_comparison({"format": "nonsense"}, a, b)
    Traceback (most recent call last):
        ...
    symloss.meanfield.certified.CertificateMismatch: unknown certificate format 'nonsense'
    """
    t0 = time.perf_counter()
    if not isinstance(certificate, dict):
        raise CertificateMismatch("certificate must be a dict")
    fmt = certificate.get("format")
    if fmt != FORMAT_FAST:
        if fmt == FORMAT_GENERIC:
            return verify_generic(certificate, model_a, model_b, t0=t0)
        if fmt == FORMAT_PIECEWISE:
            return verify_piecewise_comparison(certificate, model_a, model_b, t0=t0)
        raise CertificateMismatch(f"unknown certificate format {fmt!r}")
    try:
        return _verify_fast(certificate, model_a, model_b, t0)
    except CertificateMismatch:
        raise
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, ArithmeticError) as exc:
        raise CertificateMismatch(f"malformed certificate ({type(exc).__name__}: {exc})") from None


# ==================================================================================================
# threshold reports (the command line's --certified, the notebook, the docs table)
# ==================================================================================================

def claim_id(C: int, d: int, dt: int):
    """The ``symloss verify`` claim that carries the same certificate, when ``(C, d, dt)`` is in the
    registry's range (``C <= 20``, ``1 <= d < dt <= 6``), else ``None``."""
    if 1 <= C <= 20 and 1 <= d < dt <= 6:
        return f"seed000.eventually.C{C}_d{d}_dt{dt}"
    return None


def threshold_report(C: int, d: int, dt: int, *, dps: int = 30) -> dict:
    """Certified threshold of retrial-of-dt against power-of-d as a JSON-ready dict: ``threshold``
    (``{"value": "0"}`` or ``{"rho": [lo, hi]}`` of width <= 10^-dps, ``None`` if retrial-of-dt is not
    lower at large load), ``crossings`` (their number on ``(0, oo)``) and their intervals, the sign
    pattern, the claim id of ``symloss verify`` with the same certificate, and the certificate."""
    t0 = time.perf_counter()
    res = certified_threshold(C, d, dt, dps=dps)
    return {"C": C, "d": d, "dt": dt, "dps": dps, "threshold": res.threshold, "crossings": res.count,
            "crossing_intervals": [c.to_dict() for c in res.crossings], "pieces": res.pieces,
            "claim": claim_id(C, d, dt), "seconds": round(time.perf_counter() - t0, 3),
            "certificate": res.certificate}


def format_threshold(report: dict, digits: int | None = None) -> str:
    """One line: the threshold interval (or 0), the crossing count and the certificate pointer."""
    thr = report["threshold"]
    if thr is None:
        t = "none (retrial-of-dt is not lower at large load)"
    elif thr == {"value": "0"}:
        t = "0 (retrial-of-dt lower at every load)"
    else:
        lo, hi = thr["rho"]
        if digits is not None:
            lo, hi = _trim(lo, digits, down=True), _trim(hi, digits, down=False)
        t = f"[{lo}, {hi}]"
    ptr = (f"symloss verify --claim {report['claim']}" if report.get("claim") else "--certificate PATH to write it")
    return f"{t}  crossings: {report['crossings']}  certificate: {ptr}"


def _trim(s: str, digits: int, down: bool) -> str:
    """A decimal string rounded outward to ``digits`` significant digits."""
    return _dec(Fraction(s), digits, down=down)
