r"""Tidy tables of several mean-field models at several loads: :func:`evaluate`.

``symloss.evaluate(models, rhos)`` computes each model's certified fixed point at each load and returns
an :class:`Evaluation`, a table with one row per model and load: the model (its label, ``C`` and ``d``
where it has them), the load :math:`\rho`, the blocking :math:`B` with its certified enclosure, the
carried load :math:`\rho (1 - B)`, the mean number of jobs per server (for occupancy and tail states),
the certified digits and the status. ``.to_frame()`` is the tidy pandas frame (numbers as float64, the
enclosure as decimal text), ``.to_latex()`` a ``booktabs`` table whose blocking column prints only the
certified digits, ``str()`` an aligned text table, ``.to_csv(path)`` a plain CSV file with its provenance
sidecar.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence


import mpmath

from ..core.certified_results import outward_decimal_strings
from ..core.docstrings import fill_doc
from ..core.model import MeanFieldModel
from ..core.paper_numbers import Quantity, certified_digits
from ..core.precision import check_dps, to_mpf
from ..core.provenance import provenance
from ..core.results import ResultTable
from ..core.validation import check_real

__all__ = ["evaluate", "Evaluation", "model_label"]

#: The columns of an :class:`Evaluation`, in order.
COLUMNS = ("model", "C", "d", "rho", "blocking", "blocking_lo", "blocking_hi", "carried_load", "full_fraction",
           "digits", "status", "uniqueness")

_QUANTITIES = (Quantity("model", None, "text"), Quantity("C", "C", "integer"), Quantity("rho", r"\rho", "number"),
               Quantity("blocking", "B", "enclosure", bounds=("blocking_lo", "blocking_hi")),
               Quantity("carried_load", r"\rho(1-B)", "number"), Quantity("status", None, "status"))

_STATUS_NOTE = ("certified: the blocking lies in [blocking_lo, blocking_hi], a ball-arithmetic enclosure on the "
                "model's own stationary equations at the fixed point found; digits counts the digits that "
                "enclosure certifies. Uniqueness of the fixed point is checked only with uniqueness=True.")


def model_label(model) -> str:
    """A short name of a model for tables and legends: ``retrial-of-2``, ``power-of-3``, else its ``name``.

    Parameters
    ----------
    model : MeanFieldModel

    Returns
    -------
    str

    Examples
    --------
    >>> import symloss
    >>> model_label(symloss.RetrialOfD(2, 3)), model_label(symloss.RandomRouting(2)), model_label(symloss.JSQ(2))
    ('retrial-of-3', 'random routing', 'JSQ')
    """
    name = str(getattr(model, "name", "") or type(model).__name__)
    d = getattr(model, "d", None)
    low = name.lower()
    if low in ("retrial", "power") and isinstance(d, int):
        return f"{low}-of-{d}"
    if low in ("random", "random routing", "random_routing"):
        return "random routing"
    if low == "jsq":
        return "JSQ"
    return name


@dataclasses.dataclass
class Evaluation(ResultTable):
    """Several models at several loads: a :class:`~symloss.core.results.ResultTable` with one row per
    model and load, and the fixed points behind the rows.

    Made by :func:`evaluate`; ``to_frame()`` is tidy (one row per model x load, float64 numbers, the
    enclosure as decimal text); ``to_latex()``, ``str()``, ``to_csv()`` as for every table.

    Parameters
    ----------
    columns, rows_, title, meta, quantities
        As in :class:`~symloss.core.results.ResultTable`.
    fixed_points : list
        The :class:`~symloss.FixedPointResult` of each row, in row order.
    """

    fixed_points: list = dataclasses.field(default_factory=list, repr=False)

    def to_frame(self):
        """The tidy frame: one row per model and load.

        Columns ``model``, ``C``, ``d`` (None where a model has none), ``rho``, ``blocking`` (float64:
        0.0 below about 1e-308; ``log10_blocking`` keeps such values), ``log10_blocking``,
        ``blocking_lo``, ``blocking_hi`` (the certified enclosure, outward-rounded decimal text),
        ``carried_load``, ``full_fraction``, ``digits``, ``status``, ``uniqueness``.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd
        out = []
        for r in self.rows_:
            b = r["blocking"]
            row = {"model": r["model"], "C": r["C"], "d": r["d"], "rho": float(r["rho"]), "blocking": float(b),
                   "log10_blocking": float(mpmath.log10(b)) if b > 0 else -math.inf,
                   "blocking_lo": r["blocking_lo"], "blocking_hi": r["blocking_hi"],
                   "carried_load": float(r["carried_load"]),
                   "full_fraction": None if r["full_fraction"] is None else float(r["full_fraction"]),
                   "digits": r["digits"], "status": r["status"], "uniqueness": r["uniqueness"]}
            out.append(row)
        cols = ["model", "C", "d", "rho", "blocking", "log10_blocking", "blocking_lo", "blocking_hi", "carried_load",
                "full_fraction", "digits", "status", "uniqueness"]
        return pd.DataFrame(out, columns=cols)


def _models_arg(models) -> list:
    if isinstance(models, MeanFieldModel):
        return [models]
    if isinstance(models, (str, bytes)) or not isinstance(models, (Sequence, Mapping)) and not hasattr(models, "__iter__"):
        raise TypeError(f"models must be a MeanFieldModel or a non-empty sequence of them, got "
                        f"{type(models).__name__} {models!r}")
    items = list(models.values()) if isinstance(models, Mapping) else list(models)
    if not items:
        raise ValueError("models must be a non-empty sequence of MeanFieldModel, got an empty sequence")
    for i, m in enumerate(items):
        if not isinstance(m, MeanFieldModel):
            raise TypeError(f"models[{i}] must be a MeanFieldModel (e.g. symloss.PowerOfD(2, 2) or "
                            f"symloss.define_model(...)), got {type(m).__name__} {m!r}")
    return items


def _rhos_arg(rhos) -> list:
    if isinstance(rhos, (str, bytes)):
        raise TypeError(f"rhos must be a load > 0 or a non-empty sequence of loads, got the string {rhos!r}")
    try:
        items = list(rhos)
    except TypeError:
        items = [rhos]
    if not items:
        raise ValueError("rhos must be a non-empty sequence of loads > 0, got an empty sequence")
    return [check_real(r, f"rhos[{i}]", lower=0, lower_open=True) for i, r in enumerate(items)]


def _full_fraction(model, x):
    """The fraction of servers holding ``C`` jobs: ``x_C`` (occupancy) or ``u_C`` (tail), else None."""
    kind = getattr(model, "state_kind", "custom")
    if kind in ("occupancy", "tail") and len(x):
        return x[-1]
    return None


@fill_doc
def evaluate(models, rhos, *, dps: int = 15, uniqueness: bool = False) -> Evaluation:
    r"""Each model's certified mean-field fixed point at each load, as one tidy table.

    For every model and load: :meth:`MeanFieldModel.fixed_point` (its verified fast path or the
    generic Krawczyk solver), the blocking :math:`B` and its certified enclosure, the carried load
    :math:`\rho (1 - B)` per server (with unit service rate also the mean number of jobs per server),
    the fraction of full servers (:math:`x_C` of an occupancy state, :math:`u_C` of a tail state, else
    None) and the digits the enclosure certifies.

    Parameters
    ----------
    models : MeanFieldModel, or a non-empty sequence (or mapping label -> model) of them
        The models (shipped or :func:`symloss.define_model`).
    rhos : float or non-empty sequence of float
        The loads, each finite and ``> 0``.
    dps : int
        Digits of the fixed points, ``5 <= dps <= 100000``.
    uniqueness : bool
        Also decide whether each fixed point is the only one (slower; column ``uniqueness``).

    Returns
    -------
    Evaluation
        One row per model and load (models outer, loads inner); ``.to_frame()``, ``.to_latex()``,
        ``str()``, ``.to_csv()``; ``.fixed_points`` holds the fixed-point results.

    Raises
    ------
    TypeError
        If ``models`` or one of its entries is not a :class:`~symloss.MeanFieldModel`, or a load is
        not a real number (naming ``models[i]`` / ``rhos[i]``).
    ValueError
        If ``models`` or ``rhos`` is empty, a load is not finite and ``> 0``, or ``dps`` is out of
        range.

    See Also
    --------
    symloss.MeanFieldModel.fixed_point, symloss.plot.blocking_curves

    {{references_retrial}}

    Examples
    --------
    >>> import symloss
    >>> ev = symloss.evaluate([symloss.RetrialOfD(2, 2), symloss.PowerOfD(2, 2)], [0.5, 1.0])
    >>> ev.to_frame()[["model", "rho", "blocking", "status"]]
              model  rho  blocking     status
    0  retrial-of-2  0.5  0.007635  certified
    1  retrial-of-2  1.0  0.067559  certified
    2    power-of-2  0.5  0.002478  certified
    3    power-of-2  1.0  0.053035  certified
    >>> symloss.evaluate([], [1.0])
    Traceback (most recent call last):
    ...
    ValueError: models must be a non-empty sequence of MeanFieldModel, got an empty sequence
    >>> symloss.evaluate(symloss.PowerOfD(2, 2), [-1])
    Traceback (most recent call last):
    ...
    ValueError: rhos[0] must be a real number in (0, inf), got -1
    """
    items = _models_arg(models)
    loads = _rhos_arg(rhos)
    dps = check_dps(dps)
    if not isinstance(uniqueness, bool):
        raise TypeError(f"uniqueness must be True or False, got {uniqueness!r}")
    rows, fps = [], []
    for model in items:
        label = model_label(model)
        C, d = getattr(model, "C", None), getattr(model, "d", None)
        if label == "JSQ":
            d = None                       # JSQ samples every server; its d attribute is not a choice count
        for rho in loads:
            fp = model.fixed_point(rho, dps=dps, uniqueness=uniqueness)
            lo, hi = fp.blocking_bracket
            with mpmath.workdps(dps + 10):
                b = fp.blocking
                carried = to_mpf(rho) * (1 - b)
                full = _full_fraction(model, fp.x)
            bits = max(lo._mpf_[3], hi._mpf_[3], 53)
            with mpmath.workprec(bits + 10):     # (outward_decimal_strings converts through the ambient precision)
                lo_t, hi_t = outward_decimal_strings(lo, hi, dps + 3)
            rows.append({"model": label, "C": C if isinstance(C, int) else None, "d": d if isinstance(d, int) else None,
                         "rho": rho, "blocking": b, "blocking_lo": lo_t, "blocking_hi": hi_t,
                         "carried_load": carried, "full_fraction": full, "digits": _count_digits(certified_digits(lo_t, hi_t)),
                         "status": "certified", "uniqueness": _uniqueness_label(fp.uniqueness)})
            fps.append(fp)
    names = sorted({r["model"] for r in rows}, key=[r["model"] for r in rows].index)
    return Evaluation(list(COLUMNS), rows, title=f"mean-field fixed points of {', '.join(names)}",
                      meta={"dps": dps, "status": _STATUS_NOTE, "provenance": provenance(dps=dps)},
                      quantities=_QUANTITIES, fixed_points=fps)


def _count_digits(text) -> int:
    """Significant digits of a decimal text (0 for None)."""
    if not text:
        return 0
    mant = text.lower().split("e")[0].lstrip("+-").replace(".", "").lstrip("0")
    return len(mant)


def _uniqueness_label(text) -> str:
    from ..core.paper_numbers import status_label
    return status_label(text) or str(text)
