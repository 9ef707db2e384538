r"""Re-check of a stored global-convergence certificate (:func:`verify_global_convergence`): the
polynomials are derived again from the definition and compared with the stored ones, each stored gap
substitution is expanded again, margins and witnesses are evaluated exactly; nothing is searched.

Split out of :mod:`symloss.core.convergence` (which re-exports every name).
"""
from __future__ import annotations

from fractions import Fraction

from .convergence_records import (
    METHOD,
    THEOREM,
    GlobalConvergenceCertificateError,
    _in_load,
    _NotApplicable,
    _overall,
    _parse_load,
)
from .definition import is_model
from .tail_system import _items, _margin, _margin_positive, _nonneg, _TailSystem

# ==================================================================================================
# re-check
# ==================================================================================================

def _err(msg):
    raise GlobalConvergenceCertificateError(msg)


def _check_gaps(ts, gaps, live):
    if not isinstance(gaps, list) or any(isinstance(j, bool) or not isinstance(j, int) for j in gaps):
        _err(f"gap levels must be a list of integers, got {gaps!r}")
    if len(set(gaps)) != len(gaps) or any(j not in live for j in gaps):
        _err(f"gap levels {gaps!r} are not distinct free levels {live}")


def _recheck_condition(ts, name, stored, load):
    items = _items(ts, name)
    key = {"a": "entry", "b": "face", "c": "column"}[name]
    if not isinstance(stored, dict) or set(stored) != {"status", "items", "witness"}:
        _err(f"condition ({name}) must have exactly the fields status, items, witness")
    recs = stored["items"]
    if len(recs) != len(items):
        _err(f"condition ({name}) lists {len(recs)} polynomials, the definition has {len(items)}")
    bad = []
    for rec, (label, p, face) in zip(recs, items):
        want = {key, "poly", "gaps"} | ({"margin"} if name == "c" else set())
        if not isinstance(rec, dict) or set(rec) != want:
            _err(f"condition ({name}): an item must have exactly the fields {sorted(want)}")
        if rec[key] != label:
            _err(f"condition ({name}): stored {key} {rec[key]!r}, the definition has {label!r}")
        if rec["poly"] != str(p):
            _err(f"condition ({name}) {key} {label}: the stored polynomial is not the one derived from the definition")
        q = ts.load(p, load)
        if name == "c":
            m, q = _margin(ts, q)
            if rec["margin"] != str(m):
                _err(f"condition (c) column {label}: stored margin differs from the recomputed one")
        gaps = rec["gaps"]
        if gaps is None:
            bad.append((label, p, face))
            continue
        if name == "c" and not _margin_positive(ts, m, load, p.degrees()[ts.R] if not p.is_zero() else 0):
            _err(f"condition (c) column {label}: the margin {rec['margin']} is not positive on the loads")
        h, live = ts.on_face(ts.homogenize(q), face)
        _check_gaps(ts, gaps, live)
        if not _nonneg(ts.gaps(h, gaps, live)):
            _err(f"condition ({name}) {key} {label}: a coefficient is negative after writing levels {gaps} in gaps")
    w = stored["witness"]
    if not bad:
        status = "holds"
        if w is not None:
            _err(f"condition ({name}) holds but stores a witness")
    elif w is None:
        status = "not certified"
    else:
        if name == "c":
            _err("condition (c) cannot fail by a witness (a positive column sum does not refute uniqueness)")
        if not isinstance(w, dict) or set(w) != {"item", "u", "rho", "value"}:
            _err(f"condition ({name}): the witness must have exactly the fields item, u, rho, value")
        match = [x for x in bad if x[0] == w["item"]]
        if not match:
            _err(f"condition ({name}): the witness names {w['item']!r}, which is not an uncertified item")
        _label, p, face = match[0]
        try:
            u = [Fraction(x) for x in w["u"]]
            r = Fraction(w["rho"])
            value = Fraction(w["value"])
        except (TypeError, ValueError, ZeroDivisionError):
            _err(f"condition ({name}): unreadable witness")
        chain = [Fraction(1)] + u + [Fraction(0)]
        if len(u) != ts.C or any(chain[k] < chain[k + 1] for k in range(ts.C + 1)):
            _err(f"condition ({name}): the witness point is not in D")
        if face is not None and chain[face] != chain[face + 1]:
            _err(f"condition (b): the witness point is not on the face t_{face} = 0")
        if not _in_load(r, load):
            _err(f"condition ({name}): the witness load {r} is not among the loads of the certificate")
        v = ts.evaluate(p, u, r)
        if v != value or not v < 0:
            _err(f"condition ({name}): at the witness the value is {v}, stored {value} (must be < 0)")
        status = "fails"
    if stored["status"] != status:
        _err(f"condition ({name}): stored status {stored['status']!r}, the re-check finds {status!r}")
    return status


def verify_global_convergence(model, data) -> str:
    """Re-check a certificate of :func:`certify_global_convergence` against ``model``'s definition,
    without searching: the polynomials are derived again from the definition and compared with the
    stored ones, each stored gap substitution is expanded again and its coefficients checked, the
    margins and witnesses are evaluated exactly.

    Parameters
    ----------
    model : MeanFieldModel
        The model the certificate claims to be about.
    data : dict
        ``GlobalConvergenceResult.certificate`` (e.g. read back from JSON).

    Returns
    -------
    str
        The status the data supports: ``"PROVED"``, ``"FAILED"`` or ``"UNDECIDED"``.

    Raises
    ------
    GlobalConvergenceCertificateError
        If a stored field does not verify (another definition, an edited polynomial, a gap set that
        does not give non-negative coefficients, a witness that is not negative, a wrong status).
    TypeError
        If ``model`` is not a :class:`~symloss.MeanFieldModel`.

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.core.convergence import certify_global_convergence, verify_global_convergence
    >>> verify_global_convergence(PowerOfD(3, 2), certify_global_convergence(PowerOfD(3, 2)).certificate)
    'PROVED'
    """
    if not is_model(model):
        raise TypeError(f"model must be a symloss MeanFieldModel, got {type(model).__name__}")
    if not isinstance(data, dict):
        _err("the certificate must be an object")
    try:
        return _verify_global_convergence(model, data)
    except GlobalConvergenceCertificateError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ZeroDivisionError) as exc:
        raise GlobalConvergenceCertificateError(f"malformed certificate ({type(exc).__name__}: {exc})") from None


def _verify_global_convergence(model, data) -> str:
    if data["method"] != METHOD:
        _err(f"unknown certificate method {data['method']!r} (this version writes {METHOD!r})")
    if data["model"] != repr(model):
        _err(f"the certificate is about {data['model']!r}, the re-check has {model!r}")
    if data["fingerprint"] != model.fingerprint():
        _err("the certificate was made from another definition (fingerprints differ)")
    load = _parse_load(data["load"])
    if load != data["load"]:
        _err("the stored load is not in canonical form")
    try:
        ts = _TailSystem(model)
    except _NotApplicable as exc:
        if set(data) != {"method", "model", "fingerprint", "load", "status", "failed_condition", "reason"}:
            _err("fields of a not-applicable certificate differ")
        if (data["status"], data["failed_condition"], data["reason"]) != ("UNDECIDED", exc.condition, exc.reason):
            _err("stored status or reason differs from the re-check's")
        return "UNDECIDED"
    want = {"method", "model", "fingerprint", "load", "state_kind", "C", "rho_shift", "conditions", "status",
            "failed_condition", "theorem"}
    if set(data) != want:
        _err(f"certificate fields must be {sorted(want)}, got {sorted(data)}")
    if (data["state_kind"], data["C"], data["rho_shift"]) != (ts.kind, ts.C, ts.rho_shift):
        _err("stored state kind, capacity or rho shift differ from the definition's")
    if data["theorem"] != THEOREM:
        _err("the stored theorem differs from the one this version proves with")
    conds = data["conditions"]
    if not isinstance(conds, dict) or set(conds) != {"a", "b", "c"}:
        _err("conditions must be exactly a, b, c")
    checked = {name: {"status": _recheck_condition(ts, name, conds[name], load)} for name in ("a", "b", "c")}
    status, failed = _overall(checked)
    if data["status"] != status or data["failed_condition"] != failed:
        _err(f"stored status {data['status']}({data['failed_condition']}), the re-check finds {status}({failed})")
    return status
