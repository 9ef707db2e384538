r"""Tables of results computed in this process (``symloss table``): rows over a small grid, returned as a
:class:`~symloss.core.results.ResultTable` (``str``, ``to_latex``, ``to_csv``, ``to_frame``).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import mpmath

from ..core.precision import check_dps
from ..core.provenance import provenance
from ..core.results import ResultTable
from ..core.validation import check_int
from ..meanfield import certified as _certified   # looked up at call time: a re-check replaced in a test is the one used
from ..meanfield.certified import CertificateMismatch
from ..meanfield.compare import threshold_load
from ..meanfield.models import PowerOfD, RetrialOfD

__all__ = ["threshold_table", "THRESHOLD_DEFINITION", "THRESHOLD_HEADERS", "ZERO_NOTE", "EVIDENCE_STATUS",
           "PROVED_STATUS"]

THRESHOLD_DEFINITION = ("threshold_load(C, d, dt): the load above which retrial-of-dt blocks strictly less than "
                        "power-of-d at every larger load (mean field); 0 if at every load")

#: LaTeX column headers of a threshold table.
THRESHOLD_HEADERS = {"C": "$C$", "d": "$d$", "dt": r"$\tilde d$", "threshold": r"threshold $\rho^*$",
                     "status": "status", "seconds": "seconds", "error": "error"}

#: What a 0 in the threshold column means (written into every output of a threshold table).
ZERO_NOTE = "threshold 0: retrial-of-dt blocks less than power-of-d at every load (better at every load)"

#: Status of a threshold computed by :func:`symloss.threshold_load` (no certificate).
EVIDENCE_STATUS = ("EVIDENCE: threshold_load values (the largest crossing of a scan of [0.01, rho_max], each "
                   "crossing certified by ball-bracketed sign changes; the sign beyond the range from the "
                   "expansions, not proved); certified=True gives PROVED values")

#: Status of a row certified by :func:`symloss.meanfield.certified.certified_threshold`.
PROVED_STATUS = "PROVED: certified_threshold, its certificate re-checked by verify_comparison"

_QUANTITIES = {"C": ("C", "integer"), "d": ("d", "integer"), "dt": (r"\tilde d", "integer"),
               "threshold": (r"\rho^*", "threshold")}


def _ints(values, name: str, lo: int, hi: int) -> list[int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        values = [values]
    out = [check_int(v, name, min_value=lo, max_value=hi) for v in values]
    if not out:
        raise ValueError(f"{name} must contain at least one value")
    return list(dict.fromkeys(out))


def threshold_table(C, d, dt, *, dps: int = 20, progress: bool | Callable = False,
                    certified: bool = False) -> ResultTable:
    r"""Threshold loads :func:`symloss.threshold_load` for every ``(C, d, dt)`` of a grid.

    Every output says what the numbers are: without ``certified`` the values are EVIDENCE (the
    table's ``meta["status"]``, printed under ``str()`` and ``to_latex()`` and written into the CSV
    header); with ``certified=True`` each row is computed by
    :func:`~symloss.meanfield.certified.certified_threshold` and is PROVED only when its certificate is
    re-checked by :func:`~symloss.meanfield.certified.verify_comparison` (column ``status``; the
    enclosure in ``threshold_lo``/``threshold_hi``, of width at most ``10^-dps``, and ``to_latex()``
    prints its certified digits only); a row whose certification fails falls back to
    :func:`symloss.threshold_load`, marked EVIDENCE. A 0 threshold is written "better at every load".

    Parameters
    ----------
    C, d : int or iterable of int
        Capacities (``1 <= C <= 1000``) and power-of-d sample counts (``1 <= d <= 64``).
    dt : int, iterable of int, or callable
        Retrial attempts; a callable ``dt(d)`` gives them relative to ``d`` (e.g. ``lambda d: [d + 1]``).
        Every ``dt`` must exceed its ``d``.
    dps : int
        Significant digits of each threshold.
    progress : bool or callable
        True: progress on stderr by symloss's one policy (:func:`symloss.core.cli_grammar.progress_bar`:
        a tqdm bar on a terminal, plain periodic lines otherwise); a callable is called as
        ``progress(i, n, row)`` after each row.
    certified : bool
        Certify each threshold (see above); adds the columns ``threshold_lo``, ``threshold_hi`` and
        ``status``.

    Returns
    -------
    ResultTable
        Columns ``C, d, dt, threshold, seconds, error`` (``threshold`` an ``mpf``; a failed entry has
        ``threshold=None`` and the error text; with ``certified`` also ``threshold_lo``,
        ``threshold_hi``, ``status`` after ``threshold``); ``meta`` holds ``dps``, the
        ``definition``, the ``status``, the ``notes`` and the provenance.

    Raises
    ------
    ValueError, TypeError
        For a bad grid (checked before the first threshold is computed).

    Examples
    --------
    >>> t = threshold_table([1, 2], 2, lambda d: [d + 1], dps=10)
    >>> [(r["C"], r["d"], r["dt"], float(r["threshold"])) for r in t.rows()]
    [(1, 2, 3, 0.0), (2, 2, 3, 0.0)]
    >>> "EVIDENCE" in repr(t.rows()[0]["threshold"])          # a float scan, labelled so
    True
    >>> "better at every load" in str(t).splitlines()[2]     # a 0 threshold is written out
    True
    """
    dps = check_dps(dps)
    if not (isinstance(progress, bool) or callable(progress)):
        raise TypeError(f"progress must be True, False or a callable progress(i, n, row), got {progress!r}")
    if not isinstance(certified, bool):
        raise TypeError(f"certified must be True or False, got {certified!r}")
    Cs = _ints(C, "C", 1, 1000)
    ds = _ints(d, "d", 1, 64)
    jobs = []
    for dd in ds:
        dts = _ints(dt(dd) if callable(dt) else dt, "dt", 1, 64)
        for t in dts:
            if t <= dd:
                raise ValueError(f"dt must be > d: got dt = {t} for d = {dd} (for dt <= d power-of-d never blocks "
                                 "more than retrial-of-dt, so there is no threshold)")
            jobs.extend((c, dd, t) for c in Cs)
    jobs.sort()
    bar = None
    if progress is True:        # the one progress policy (a bar on a terminal, plain lines otherwise)
        from ..core.cli_grammar import progress_bar
        bar = progress_bar(True, total=len(jobs), desc="thresholds", unit="load")
    rows = []
    try:
        for i, (c, dd, t) in enumerate(jobs):
            if bar is not None:
                bar.set_postfix_str(f"C={c} d={dd} dt={t}")
            t0 = time.perf_counter()
            row = {"C": c, "d": dd, "dt": t, "threshold": None, "seconds": None, "error": None}
            if certified:
                row.update(threshold_lo=None, threshold_hi=None, status=None)
                why = _certify_row(row, c, dd, t, dps)
            if not certified or row["status"] is None:
                try:
                    row["threshold"] = threshold_load(c, dd, t, dps=dps)
                    if certified:
                        row["status"] = "EVIDENCE"
                        row["error"] = f"not certified ({why}); threshold_load value"
                except (ValueError, ArithmeticError) as exc:
                    row["error"] = f"{type(exc).__name__}: {exc}"
            row["seconds"] = round(time.perf_counter() - t0, 3)
            rows.append(row)
            if bar is not None:
                bar.update(1)
            elif callable(progress):
                progress(i, len(jobs), row)
    finally:
        if bar is not None:
            bar.close()
    cols = ["C", "d", "dt", "threshold"] + (["threshold_lo", "threshold_hi", "status"] if certified else [])
    quantities = dict(_QUANTITIES)
    if certified:
        quantities["threshold"] = (r"\rho^*", "threshold", ("threshold_lo", "threshold_hi"))
        quantities["status"] = (None, "status")
    if certified and all(r.get("status") == "PROVED" for r in rows):
        status = PROVED_STATUS
    elif certified:
        status = (PROVED_STATUS + "; rows marked EVIDENCE: " + EVIDENCE_STATUS.partition(": ")[2])
    else:
        status = EVIDENCE_STATUS
    return ResultTable(cols + ["seconds", "error"], rows,
                       title="threshold loads of retrial-of-dt against power-of-d",
                       meta={"dps": dps, "definition": THRESHOLD_DEFINITION, "status": status,
                             "notes": [ZERO_NOTE], "provenance": provenance(dps=dps)},
                       quantities=quantities)


def _certify_row(row: dict, C: int, d: int, dt: int, dps: int) -> str | None:
    """Fill ``row`` from a re-checked certificate (status PROVED); the reason when that fails."""
    try:
        res = _certified.certified_threshold(C, d, dt, dps=dps)
        _certified.verify_comparison(res.certificate, RetrialOfD(C, dt), PowerOfD(C, d))
    except (ValueError, ArithmeticError, CertificateMismatch) as exc:
        return f"{type(exc).__name__}: {exc}"
    thr = res.threshold
    if thr is None:
        row["status"] = "PROVED"
        row["error"] = "retrial-of-dt does not block less than power-of-d at large load: no threshold"
        return None
    lo, hi = ("0", "0") if thr == {"value": "0"} else thr["rho"]
    with mpmath.workdps(dps + 10):
        mid = (mpmath.mpf(lo) + mpmath.mpf(hi)) / 2
    row.update(threshold=mpmath.mpf(0) if lo == hi == "0" else mid, threshold_lo=lo, threshold_hi=hi,
               status="PROVED")
    return None
