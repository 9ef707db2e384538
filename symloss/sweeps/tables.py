r"""Tables of results computed in this process (``symloss table``): rows over a small grid, returned as a
:class:`~symloss.core.results.ResultTable` (``str``, ``to_latex``, ``to_csv``, ``to_frame``).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from ..core.precision import check_dps
from ..core.provenance import provenance
from ..core.results import ResultTable
from ..core.validation import check_int

__all__ = ["threshold_table", "THRESHOLD_DEFINITION", "THRESHOLD_HEADERS"]

THRESHOLD_DEFINITION = ("threshold_load(C, d, dt): the load above which retrial-of-dt blocks strictly less than "
                        "power-of-d at every larger load (mean field); 0 if at every load")

#: LaTeX column headers of a threshold table.
THRESHOLD_HEADERS = {"C": "$C$", "d": "$d$", "dt": r"$\tilde d$", "threshold": r"threshold $\rho^*$",
                     "seconds": "seconds", "error": "error"}


def _ints(values, name: str, lo: int, hi: int) -> list[int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        values = [values]
    out = [check_int(v, name, min_value=lo, max_value=hi) for v in values]
    if not out:
        raise ValueError(f"{name} must contain at least one value")
    return list(dict.fromkeys(out))


def threshold_table(C, d, dt, *, dps: int = 20, progress: bool | Callable = False) -> ResultTable:
    r"""Threshold loads :func:`symloss.threshold_load` for every ``(C, d, dt)`` of a grid.

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
        True: a tqdm bar on stderr; a callable is called as ``progress(i, n, row)`` after each row.

    Returns
    -------
    ResultTable
        Columns ``C, d, dt, threshold, seconds, error`` (``threshold`` an ``mpf``; a failed entry has
        ``threshold=None`` and the error text); ``meta`` holds ``dps``, the ``definition`` and the
        provenance.

    Raises
    ------
    ValueError, TypeError
        For a bad grid (checked before the first threshold is computed).

    Examples
    --------
    >>> t = threshold_table([1, 2], 2, lambda d: [d + 1], dps=10)
    >>> [(r["C"], r["d"], r["dt"], str(r["threshold"])) for r in t.rows()]
    [(1, 2, 3, '0.0'), (2, 2, 3, '0.0')]
    """
    import symloss
    dps = check_dps(dps)
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
    if progress is True:
        import sys

        from tqdm import tqdm
        bar = tqdm(total=len(jobs), desc="thresholds", unit="load", file=sys.stderr)
    rows = []
    try:
        for i, (c, dd, t) in enumerate(jobs):
            if bar is not None:
                bar.set_postfix_str(f"C={c} d={dd} dt={t}")
            t0 = time.perf_counter()
            row = {"C": c, "d": dd, "dt": t, "threshold": None, "seconds": None, "error": None}
            try:
                row["threshold"] = symloss.threshold_load(c, dd, t, dps=dps)
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
    return ResultTable(["C", "d", "dt", "threshold", "seconds", "error"], rows,
                       title="threshold loads of retrial-of-dt against power-of-d",
                       meta={"dps": dps, "definition": THRESHOLD_DEFINITION, "provenance": provenance(dps=dps)})
