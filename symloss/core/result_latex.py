r"""Paper-mode LaTeX of one result (:func:`result_latex`, a ``quantity & value`` table; :func:`result_repr_latex`,
the notebook ``array``) and the ``tabular``/``table`` builders shared with :class:`~symloss.core.results.ResultTable`.

Split out of :mod:`symloss.core.results` (which re-exports every name).
"""
from __future__ import annotations

import math
from collections.abc import Mapping

from .latex import escape_text, number_latex
from .paper_numbers import (
    _MAX_TEXT,
    BOOKTABS_COMMENT,
    INTERNAL_NAMES,
    MATH_NAMES,
    Quantity,
    _arb_bounds,
    _check_digits,
    _decimal,
    _looks_fraction,
    _quantities,
    format_quantity,
    status_label,
)
from .result_data import _MAX_LIST, _lookup, _result_dict_raw, format_value


def _latex_value(v) -> str:
    if isinstance(v, bool) or v is None:
        return escape_text(v)
    if isinstance(v, (int, float)):
        return f"${number_latex(repr(v) if isinstance(v, float) else v)}$"
    if isinstance(v, str):
        nl = number_latex(v)
        if not nl.startswith(r"\text{"):
            return f"${nl}$"
        return escape_text(v)
    return escape_text(format_value(v))


def _tabular(header: list[str], rows: list[list[str]], align: str, *, booktabs: bool) -> list[str]:
    top, mid, bot = (r"\toprule", r"\midrule", r"\bottomrule") if booktabs else (r"\hline", r"\hline", r"\hline")
    out = [f"\\begin{{tabular}}{{{align}}}", top, " & ".join(header) + r" \\", mid]
    out.extend(" & ".join(r) + r" \\" for r in rows)
    out += [bot, r"\end{tabular}"]
    return out


def _wrap_table(lines: list[str], caption, label, placement: str = "htbp") -> str:
    if caption is None and label is None:
        return "\n".join(lines)
    out = [f"\\begin{{table}}[{placement}]", r"\centering"]
    if caption is not None:
        out.append(r"\caption{" + escape_text(caption) + "}")
    if label is not None:
        out.append(r"\label{" + str(label) + "}")
    out.extend(lines)
    out.append(r"\end{table}")
    return "\n".join(out)


# ------------------------------------------------------------------------------------------------


def _generic_quantities(obj) -> list[Quantity]:
    """Key quantities of a result that declares none: the scalar, short entries of ``to_dict()`` that are
    not internals, named in the papers' notation where it is known."""
    out = []
    for k, v in _result_dict_raw(obj).items():
        k = str(k)
        if k in INTERNAL_NAMES or k.endswith(("_seconds", "_time", "_key", "_record")):
            continue
        name = MATH_NAMES.get(k)
        if k == "threshold" and (isinstance(v, Mapping) or _decimal(v) is not None):
            out.append(Quantity(k, name, "threshold"))
        elif k in ("models", "model_a", "model_b", "model") and (isinstance(v, str) or (
                isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v))) and len(str(v)) <= 2 * _MAX_TEXT:
            out.append(Quantity(k, None, "text"))
        elif status_label(v) is not None:
            out.append(Quantity(k, None, "status"))
        elif isinstance(v, bool):
            out.append(Quantity(k, name, "bool"))
        elif isinstance(v, (list, tuple)) and len(v) == 2 and any(w in k for w in ("bracket", "enclosure", "interval")):
            out.append(Quantity(k, name, "enclosure"))
        elif isinstance(v, (list, tuple)) and len(v) == 2 and k in ("ci", "confidence_interval"):
            out.append(Quantity(k, name or r"\text{95\% CI}", "interval"))
        elif isinstance(v, (list, tuple)) and 0 < len(v) <= _MAX_LIST and all(_decimal(x) is not None for x in v):
            out.append(Quantity(k, name, "vector"))
        elif _arb_bounds(v) is not None:
            out.append(Quantity(k, name, "enclosure"))
        elif isinstance(v, int) or (isinstance(v, float) and math.isfinite(v)):
            out.append(Quantity(k, name, "integer" if isinstance(v, int) else "number"))
        elif isinstance(v, str) and (_decimal(v) is not None or _looks_fraction(v)):
            out.append(Quantity(k, name, "number"))
        elif isinstance(v, str) and 0 < len(v) <= _MAX_TEXT and "<" not in v and "\n" not in v:
            out.append(Quantity(k, None, "text"))
    return out


def _declared(obj, quantities) -> list[Quantity]:
    if quantities is not None:
        return _quantities(quantities)
    spec = getattr(type(obj), "latex_quantities", None)
    return _quantities(spec) if spec else _generic_quantities(obj)


def _select(qs: list[Quantity], columns, where: str) -> list[Quantity]:
    if columns is None:
        return qs
    if isinstance(columns, str):
        columns = [columns]
    by = {q.key: q for q in qs}
    out = []
    for c in columns:
        if c not in by:
            raise ValueError(f"{where}: columns has {c!r}, which is not a quantity of it; "
                             f"valid: {', '.join(by) or '(none)'}")
        out.append(by[c])
    return out


def _value_of(obj, q: Quantity, raw: dict):
    """The value of a quantity: a numeric attribute for enclosures (exact ends), else ``to_dict()``'s
    entry (the digits the result claims), else the attribute."""
    attr = getattr(obj, q.key, None) if "." not in q.key and not callable(getattr(obj, q.key, None)) else None
    if q.kind == "enclosure" and attr is not None:
        return attr
    v = _lookup(raw, q.key)
    if v is None and attr is not None:
        return attr
    return v


def _paper_rows(obj, qs: list[Quantity], digits) -> list[tuple[str, str, bool]]:
    """``(math name, value latex, value is math)`` rows; a vector becomes one row per component."""
    raw = _result_dict_raw(obj)
    rows = []
    for q in qs:
        v = _value_of(obj, q, raw)
        if q.kind == "vector" and isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                f = format_quantity(Quantity(q.key, None, "number"), x, digits)
                if f is not None:
                    base = q.latex if q.latex is not None else r"\text{" + escape_text(q.key.replace("_", " ")) + "}"
                    rows.append((f"{base}_{{{i}}}", *f))
            continue
        f = format_quantity(q, v, digits, source=obj)
        if f is not None:
            rows.append((q.math_header(), *f))
    return rows


def result_latex(obj, *, digits=None, columns=None, quantities=None, caption=None, label=None,
                 booktabs: bool = True) -> str:
    r"""Paper-mode LaTeX of a result: a ``quantity & value`` table of its key quantities.

    The quantities are ``quantities`` (a ``Quantity`` sequence or a mapping name -> ``(latex,
    kind)``), else the class's ``latex_quantities``, else the scalar entries of ``to_dict()`` without
    internals. Names are math (``$\rho$``, ``$B$``); numbers are rounded to ``digits``; enclosures
    print their certified digits only; a status prints its label.

    Parameters
    ----------
    obj : object
        A result (``to_dict()`` or a dataclass).
    digits : int, optional
        Significant digits (default: what the result carries, at most 50; 6 for Python floats).
    columns : sequence of str, optional
        The quantities shown, in order.
    quantities : sequence or mapping, optional
        Overrides the declaration.
    caption, label : str, optional
        Wrap in a ``table`` float.
    booktabs : bool
        ``booktabs`` rules (else ``\hline``).

    Returns
    -------
    str
        Text-mode LaTeX; the first line is a comment naming the packages.

    Raises
    ------
    ValueError, TypeError
        For a bad ``digits`` or a ``columns`` name that is not a quantity.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class R:
    ...     rho: float
    ...     blocking: str
    ...     seconds: float
    >>> print(result_latex(R(1.5, "0.0675589521784531", 0.25), digits=4))
    % needs \usepackage{booktabs} (rules) and \usepackage{amsmath} (\text, \tfrac)
    \begin{tabular}{ll}
    \toprule
    quantity & value \\
    \midrule
    $\rho$ & $1.5$ \\
    $B$ & $0.06756$ \\
    \bottomrule
    \end{tabular}
    """
    digits = _check_digits(digits)
    qs = _select(_declared(obj, quantities), columns, f"{type(obj).__name__}.to_latex")
    rows = [[f"${n}$", f"${v}$" if is_math else v] for n, v, is_math in _paper_rows(obj, qs, digits)]
    body = _tabular(["quantity", "value"], rows, "ll", booktabs=booktabs)
    return _wrap_table(([BOOKTABS_COMMENT] if booktabs else []) + body, caption, label)


def result_repr_latex(obj, *, digits=None, columns=None, quantities=None) -> str:
    r"""Notebook display (``_repr_latex_``) of a result: the key quantities as a math ``array``.

    Parameters
    ----------
    obj : object
    digits : int, optional
    columns : sequence of str, optional
    quantities : sequence or mapping, optional

    Returns
    -------
    str
        ``$$\begin{array}{ll} ... \end{array}$$``.

    Examples
    --------
    >>> from symloss import RetrialOfD
    >>> result_repr_latex(RetrialOfD(2, 2).fixed_point(1, dps=20), columns=["blocking"])
    '$$\\begin{array}{ll}\\text{FixedPointResult} & \\\\ \\hline B & 0.067558952178453145217\\end{array}$$'
    """
    digits = _check_digits(digits)
    qs = _select(_declared(obj, quantities), columns, f"{type(obj).__name__}._repr_latex_")
    rows = [f"{n} & " + (v if is_math else r"\text{" + v + "}") for n, v, is_math in _paper_rows(obj, qs, digits)]
    title = r"\text{" + escape_text(type(obj).__name__) + r"} & \\ \hline "
    return r"$$\begin{array}{ll}" + title + r" \\ ".join(rows) + r"\end{array}$$"
