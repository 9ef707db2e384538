r"""Display and export for result objects: one mixin for every result dataclass, one table type.

:class:`ResultMixin` gives a result (a dataclass with ``to_dict()``) a readable ``str()`` that shows
every digit ``to_dict()`` carries (so a 40-digit fixed point prints 40 digits, not the 15 of the
ambient ``mpmath.mp``), ``to_latex()`` (a ``booktabs`` table that compiles), ``to_frame()`` (pandas),
and ``_repr_html_`` / ``_repr_latex_`` for notebooks. A class keeps any of these it defines itself.

:class:`ResultTable` is a table of rows (e.g. :func:`symloss.sweeps.tables.threshold_table`) with the same
methods plus ``to_csv`` (a plain CSV file, the provenance in a sidecar ``<name>.csv.provenance.json``)
and ``to_json``.

The pieces they are built from live in modules of their own, all re-exported here:
:mod:`~symloss.core.result_data` (plain data and text of values), :mod:`~symloss.core.paper_numbers`
(key quantities, honest rounding, certified digits) and :mod:`~symloss.core.result_latex` (the
paper-mode table of one result).
"""
from __future__ import annotations

import dataclasses
import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .latex import escape_text
from .paper_numbers import (  # noqa: F401 - re-exported
    _KINDS,
    _MAX_PAPER_DIGITS,
    _MAX_TEXT,
    _STATUS_WORDS,
    BOOKTABS_COMMENT,
    INTERNAL_NAMES,
    MATH_NAMES,
    Quantity,
    _arb_bounds,
    _check_digits,
    _dec_text,
    _decimal,
    _enclosure_math,
    _exact_scaled,
    _looks_fraction,
    _num_math,
    _quantities,
    _round_dec,
    _sig_digits,
    _text_cell,
    certified_digits,
    format_quantity,
    round_significant,
    status_label,
)
from .provenance import write_csv
from .result_data import (  # noqa: F401 - re-exported
    _MAX_FRAME_LIST,
    _MAX_LIST,
    _is_scalar,
    _items,
    _lookup,
    _mpf_text,
    _plain,
    _result_dict,
    _result_dict_raw,
    _shape,
    flatten,
    format_value,
    to_jsonable,
)
from .result_latex import (  # noqa: F401 - re-exported
    _declared,
    _generic_quantities,
    _latex_value,
    _paper_rows,
    _select,
    _tabular,
    _value_of,
    _wrap_table,
    result_latex,
    result_repr_latex,
)

__all__ = ["ResultMixin", "ResultTable", "Quantity", "flatten", "format_value", "to_jsonable", "result_latex",
           "result_repr_latex", "round_significant", "certified_digits", "status_label", "format_quantity",
           "BOOKTABS_COMMENT", "MATH_NAMES", "INTERNAL_NAMES"]

#: the docstring examples of the names that moved to other modules still run with this module's (doctest)
__test__ = {name: globals()[name] for name in (
    "flatten", "format_value", "to_jsonable", "Quantity", "certified_digits", "format_quantity",
    "round_significant", "status_label", "result_latex", "result_repr_latex")}

class ResultMixin:
    """``str``, LaTeX, HTML and pandas views of a result dataclass, built from its ``to_dict()``.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class R(ResultMixin):
    ...     blocking: str
    ...     dps: int
    ...     def to_dict(self):
    ...         return {"blocking": self.blocking, "dps": self.dps}
    >>> print(R("0.0675589521295278837502145597291548", 34))
    R
      blocking: 0.0675589521295278837502145597291548
      dps: 34
    >>> R("1.5e-160", 5).to_frame().loc[0, "blocking"]
    '1.5e-160'
    """

    __slots__ = ()

    def _title(self) -> str:
        return type(self).__name__

    def __str__(self) -> str:
        lines = [self._title()]
        for k, v in _items(self):
            lines.append(f"  {k}: {format_value(v)}")
        return "\n".join(lines)

    def to_latex(self, digits: int | None = None, columns: Sequence[str] | None = None, *,
                 caption: str | None = None, label: str | None = None, booktabs: bool = True) -> str:
        r"""The result for a paper: a two-column table (quantity, value) of its key quantities.

        The key quantities are the class's ``latex_quantities`` declaration (name -> ``(LaTeX math name,
        kind)``, see :class:`~symloss.core.results.Quantity`), else the scalar results of ``to_dict()``
        without the internals (wall times, precisions, certificates, residuals, methods). Numbers are
        in math mode, rounded to ``digits`` significant digits (default: the digits the result
        carries); an enclosure prints only its certified digits; a status prints its label (PROVED,
        EVIDENCE, ...). The first line is a comment naming the packages (``booktabs``, ``amsmath``).

        Parameters
        ----------
        digits : int, optional
            Significant digits, ``1 <= digits <= 100000`` (never more than the result carries).
        columns : sequence of str, optional
            The quantities shown, in order (names of the declaration / of ``to_dict()``).
        caption : str, optional
            Caption of a ``table`` float (escaped).
        label : str, optional
            ``\label`` of the float.
        booktabs : bool
            ``\toprule``/``\midrule``/``\bottomrule`` (else ``\hline``).

        Returns
        -------
        str
            The two-column ``tabular`` (quantity, value), in a ``table`` float when ``caption``
            or ``label`` is given.

        Raises
        ------
        ValueError
            If ``digits`` is out of range or a name of ``columns`` is not a quantity of the result.
        """
        return result_latex(self, digits=digits, columns=columns, caption=caption, label=label,
                            booktabs=booktabs)

    def _repr_latex_(self) -> str:
        return result_repr_latex(self)

    def _repr_html_(self) -> str:
        cells = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
                        f"<td style='text-align:left'>{html.escape(format_value(v))}</td></tr>"
                        for k, v in _items(self))
        return f"<table><caption>{html.escape(self._title())}</caption>{cells}</table>"

    def to_frame(self):
        """A pandas DataFrame: one row per ``rows()`` entry when the result has ``rows()`` (tables,
        studies), else one row of its scalars (short lists become columns ``name[i]``).

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd
        rows = getattr(self, "rows", None)
        if callable(rows):
            return pd.DataFrame([dict(r) for r in rows()])
        row: dict = {}
        for k, v in _items(self):
            if _is_scalar(v):
                row[k] = v
            elif isinstance(v, list) and len(v) <= _MAX_FRAME_LIST and all(_is_scalar(x) for x in v):
                for i, x in enumerate(v):
                    row[f"{k}[{i}]"] = x
        return pd.DataFrame([row])


@dataclasses.dataclass
class ResultTable(ResultMixin):
    """A table of results: ``columns`` (names, in order) and ``rows`` (dicts), with metadata.

    ``meta`` holds what applies to every row (``dps``, a ``definition``, ``provenance``). ``str()`` is
    an aligned text table; ``to_latex()`` a ``booktabs`` table; ``to_csv()`` a plain CSV file (read with
    ``pandas.read_csv(path)``) and its provenance sidecar; ``to_frame()`` a DataFrame.

    Parameters
    ----------
    columns : list of str
        The column names, in order.
    rows_ : list of dict
        The rows (column name -> value).
    title : str, optional
        A title (``str()`` and captions).
    meta : dict, optional
        What applies to every row (``dps``, ``definition``, ``provenance``).
    quantities : sequence or mapping, optional
        Paper-mode declaration of the columns (see :class:`Quantity`); each must name a column.

    Raises
    ------
    ValueError
        If ``quantities`` names a column the table does not have.

    Examples
    --------
    >>> t = ResultTable(["C", "threshold"], [{"C": 2, "threshold": "0"}, {"C": 3, "threshold": "0.9496"}])
    >>> print(t)
    C  threshold
    2          0
    3     0.9496
    >>> t.to_frame().shape
    (2, 2)
    """

    columns: list
    rows_: list
    title: str = ""
    meta: dict = dataclasses.field(default_factory=dict)
    quantities: Any = None

    def __post_init__(self):
        self.columns = [str(c) for c in self.columns]
        self.rows_ = [dict(r) for r in self.rows_]
        qs = _quantities(self.quantities)
        unknown = [q.key for q in qs if q.key not in self.columns]
        if unknown:
            raise ValueError(f"ResultTable: quantities name {unknown[0]!r}, which is not a column; "
                             f"columns: {', '.join(self.columns)}")
        self.quantities = {q.key: q for q in qs}

    def _quantity(self, c: str) -> Quantity:
        return self.quantities.get(c) or Quantity(c, MATH_NAMES.get(c), "number")

    def _paper_columns(self, columns) -> list[str]:
        if columns is not None:
            cols = [columns] if isinstance(columns, str) else list(columns)
            bad = [c for c in cols if c not in self.columns]
            if bad:
                raise ValueError(f"ResultTable.to_latex: columns has {bad[0]!r}, which is not a column; "
                                 f"valid: {', '.join(self.columns)}")
            return cols
        if self.quantities:
            return [c for c in self.columns if c in self.quantities]
        return [c for c in self.columns if c not in INTERNAL_NAMES]

    def _notes(self) -> list[str]:
        """The status of the table and its notes (``meta["status"]``, ``meta["notes"]``)."""
        out = []
        if self.meta.get("status"):
            out.append(str(self.meta["status"]))
        notes = self.meta.get("notes") or []
        out.extend([notes] if isinstance(notes, str) else [str(n) for n in notes])
        return out

    def _paper_cell(self, r: dict, c: str, digits) -> tuple[str, bool] | None:
        q = self._quantity(c)
        v = r.get(c)
        plain = v if v is None or isinstance(v, (bool, int, str)) else self._p(v)
        return format_quantity(q, plain, digits, source=r)

    def _p(self, v):
        dps = self.meta.get("dps")
        return _plain(v, dps if isinstance(dps, int) else None)

    def rows(self) -> list[dict]:
        """The rows as dicts (copies).

        Returns
        -------
        list of dict
        """
        return [dict(r) for r in self.rows_]

    def __len__(self) -> int:
        return len(self.rows_)

    def to_dict(self) -> dict:
        """Plain data: title, columns, rows (numbers with the table's ``dps``) and ``meta``.

        Returns
        -------
        dict
        """
        return {"title": self.title, "columns": list(self.columns),
                "rows": [{c: self._p(r.get(c)) for c in self.columns} for r in self.rows_],
                **{k: _plain(v) for k, v in self.meta.items()}}

    def _cell(self, v, c: str | None = None) -> str:
        if v is None:
            return "-"
        q = self.quantities.get(c) if c is not None else None
        if q is not None and q.kind == "threshold" and _decimal(self._p(v)) == 0:
            return "better at every load"
        return format_value(self._p(v))

    def __str__(self) -> str:
        cells = [[self._cell(r.get(c), c) for c in self.columns] for r in self.rows_]
        widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(self.columns)]
        numeric = [all(_looks_numeric(row[i]) for row in cells) for i in range(len(self.columns))]

        def fmt(vals):
            return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(vals, widths, numeric)).rstrip()
        out = ([self.title] if self.title else []) + [fmt(list(self.columns))] + [fmt(r) for r in cells]
        return "\n".join(out + self._notes())

    def to_latex(self, digits: int | None = None, columns: Sequence[str] | None = None, *,
                 caption: str | None = None, label: str | None = None, booktabs: bool = True,
                 headers: Mapping[str, str] | None = None) -> str:
        r"""The table for a paper: a ``tabular`` of the key columns with math headers, numbers rounded
        to ``digits`` (enclosures to their certified digits), the status and notes (e.g. what a 0
        threshold means) in a footnote-size paragraph under it; the first line names the packages.

        Parameters
        ----------
        digits : int, optional
            Significant digits, ``1 <= digits <= 100000`` (default: the digits each value carries).
        columns : sequence of str, optional
            The columns shown (default: the declared ``quantities``, else every column that is not
            an internal such as ``seconds`` or ``error``).
        caption, label : str, optional
            Wrap the tabular in a ``table`` float with this caption / label.
        booktabs : bool
            ``booktabs`` rules (else ``\hline``).
        headers : mapping, optional
            Column name -> LaTeX header (default: the declared math name, else the escaped name).

        Returns
        -------
        str

        Raises
        ------
        ValueError, TypeError
            For a bad ``digits`` or a column that is not in the table.
        """
        digits = _check_digits(digits)
        cols = self._paper_columns(columns)
        headers = dict(headers or {})
        body, numeric = [], [True] * len(cols)
        for r in self.rows_:
            row = []
            for i, c in enumerate(cols):
                f = self._paper_cell(r, c, digits)
                if f is None:
                    row.append("--")
                else:
                    row.append(f"${f[0]}$" if f[1] else f[0])
                    numeric[i] = numeric[i] and f[1]
            body.append(row)
        align = "".join("r" if num else "l" for num in numeric)
        head = [headers.get(c, self._quantity(c).header()) for c in cols]
        lines = _tabular(head, body, align, booktabs=booktabs)
        notes = self._notes()
        if notes:
            lines += [r"\par\smallskip", r"{\footnotesize"] + [escape_text(n) + r"\par" for n in notes] + ["}"]
        return _wrap_table(([BOOKTABS_COMMENT] if booktabs else []) + lines, caption, label)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(self._cell(r.get(c), c))}</td>" for c in self.columns)
                       + "</tr>" for r in self.rows_)
        cap = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        notes = "".join(f"<p>{html.escape(n)}</p>" for n in self._notes())
        return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{notes}"

    def _repr_latex_(self) -> str:
        cols = self._paper_columns(None)
        head = " & ".join(self._quantity(c).math_header() for c in cols)
        rows = []
        for r in self.rows_:
            vals = []
            for c in cols:
                f = self._paper_cell(r, c, None)
                vals.append("--" if f is None else (f[0] if f[1] else r"\text{" + f[0] + "}"))
            rows.append(" & ".join(vals))
        notes = "".join(r" \\ \multicolumn{" + str(len(cols)) + r"}{l}{\text{" + escape_text(n) + "}}"
                        for n in self._notes())
        return r"$$\begin{array}{" + "r" * len(cols) + "}" + head + r" \\ \hline " + r" \\ ".join(rows) + notes + \
            r"\end{array}$$"

    def to_frame(self):
        import pandas as pd
        return pd.DataFrame([{c: r.get(c) for c in self.columns} for r in self.rows_], columns=self.columns)

    def to_csv(self, path, *, provenance: dict | None = None):
        """Write the rows as a plain CSV file and the provenance to its sidecar ``<path>.provenance.json``.

        The CSV is one header line and the rows (``pandas.read_csv(path)`` reads it as is); the sidecar
        (:func:`symloss.core.provenance.write_csv`) holds the provenance and the table's ``status`` and
        ``notes`` (e.g. what a 0 threshold means); read it with
        :func:`symloss.core.provenance.read_csv_provenance`.

        Parameters
        ----------
        path : str, pathlib.Path or text stream
            The file (a stream receives the CSV only).
        provenance : dict, optional
            The provenance record (default ``meta["provenance"]``, else a new record).

        Returns
        -------
        pathlib.Path or None
            The sidecar written (None for a stream).

        Examples
        --------
        >>> import os, tempfile, pandas as pd
        >>> t = ResultTable(["C", "threshold"], [{"C": 2, "threshold": 0}, {"C": 3, "threshold": 0.9496}],
        ...                 meta={"status": "EVIDENCE"})
        >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
        >>> t.to_csv(path).name
        't.csv.provenance.json'
        >>> pd.read_csv(path).shape
        (2, 2)
        """
        prov = provenance if provenance is not None else self.meta.get("provenance")
        meta = {k: _plain(self.meta[k]) for k in ("status", "notes") if self.meta.get(k)}
        if self.title:
            meta["title"] = self.title
        rows = [{c: (None if r.get(c) is None else _csv_value(self._p(r.get(c)))) for c in self.columns}
                for r in self.rows_]
        return write_csv(rows, path, prov, columns=self.columns, meta=meta)

    def to_json(self, path=None, *, indent: int = 2) -> str:
        """The table (and ``meta``) as JSON text; written to ``path`` when given.

        Parameters
        ----------
        path : str or pathlib.Path, optional
            The file.
        indent : int
            JSON indentation.

        Returns
        -------
        str
        """
        text = json.dumps(self.to_dict(), indent=indent, default=str)
        if path is not None:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
        return text


def _csv_value(p):
    return json.dumps(p, sort_keys=True) if isinstance(p, (list, dict)) else p


def _looks_numeric(text: str) -> bool:
    t = text.strip()
    if t in ("-", "--", ""):
        return True
    try:
        float(t)
        return True
    except ValueError:
        pass
    if "/" in t:
        p, _, q = t.partition("/")
        return p.strip().lstrip("+-").isdigit() and q.strip().isdigit()
    return False
