r"""Display and export for result objects: one mixin for every result dataclass, one table type.

:class:`ResultMixin` gives a result (a dataclass with ``to_dict()``) a readable ``str()`` that shows
every digit ``to_dict()`` carries (so a 40-digit fixed point prints 40 digits, not the 15 of the
ambient ``mpmath.mp``), ``to_latex()`` (a ``booktabs`` table that compiles), ``to_frame()`` (pandas),
and ``_repr_html_`` / ``_repr_latex_`` for notebooks. A class keeps any of these it defines itself.

:class:`ResultTable` is a table of rows (e.g. :func:`symloss.sweeps.tables.threshold_table`) with the same
methods plus ``to_csv`` (provenance as ``#`` comment lines) and ``to_json``.
"""
from __future__ import annotations

import dataclasses
import html
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from .latex import escape_text, number_latex

__all__ = ["ResultMixin", "ResultTable", "flatten", "format_value", "to_jsonable"]

_MAX_LIST = 8        # lists longer than this are summarised in str() / tables
_MAX_FRAME_LIST = 64  # lists up to this length become columns name[i] of to_frame()


def to_jsonable(value, *, dps: int | None = None):
    """Convert a result to plain JSON data.

    ``mpmath.mpf`` becomes a decimal string (``dps`` significant digits when given, otherwise enough
    digits to round-trip its binary value), ``Fraction`` / ``fmpq`` a ``"p/q"`` string, ``arb`` and
    ``Decimal`` their text, ``complex`` / ``mpc`` ``{"re", "im"}``, numpy scalars and arrays Python
    numbers and lists, SymPy objects their ``str``; objects with ``to_dict()`` (dataclasses) go through it
    (else ``dataclasses.asdict``). Anything else raises ``TypeError``. Non-finite floats are kept.

    Parameters
    ----------
    value : object
        A result.
    dps : int, optional
        Significant digits of ``mpf`` values (default: enough to round-trip the binary value).

    Returns
    -------
    object
        JSON data (None, bool, int, float, str, list, dict).

    Raises
    ------
    TypeError
        For a value with no JSON form.

    Examples
    --------
    >>> import mpmath
    >>> to_jsonable({"x": mpmath.mpf(1) / 3, "n": [1, 2]}, dps=10)
    {'x': '0.3333333333', 'n': [1, 2]}
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, complex):
        return {"re": value.real, "im": value.imag}
    mod = type(value).__module__ or ""
    name = type(value).__name__
    if mod.startswith("numpy"):
        if hasattr(value, "dtype") and value.dtype == object:
            return [to_jsonable(v, dps=dps) for v in value.tolist()]
        return value.tolist()
    if mod.startswith("mpmath"):
        import mpmath
        if isinstance(value, mpmath.mpf):
            return _mpf_text(value, dps)
        if hasattr(value, "_mpf_"):  # a constant such as mpmath.pi, at the current precision
            return _mpf_text(mpmath.mpf(value), dps)
        if isinstance(value, mpmath.mpc):
            return {"re": _mpf_text(value.real, dps), "im": _mpf_text(value.imag, dps)}
        if isinstance(value, mpmath.matrix):
            return [[to_jsonable(value[i, j], dps=dps) for j in range(value.cols)] for i in range(value.rows)]
        return str(value)  # interval types and the like
    if name == "Fraction" and mod == "fractions":
        return f"{value.numerator}/{value.denominator}"
    if name == "Decimal" and mod == "decimal":
        return str(value)
    if mod.startswith("flint"):
        if name == "fmpz":
            return int(value)
        if name == "fmpq":
            return f"{int(value.p)}/{int(value.q)}"
        return str(value)
    if mod.startswith("sympy"):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v, dps=dps) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v, dps=dps) for v in value]
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_jsonable(to_dict(), dps=dps)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_jsonable({f.name: getattr(value, f.name) for f in dataclasses.fields(value)}, dps=dps)
    raise TypeError(f"result of type {mod}.{name} is not JSON-serialisable: return numbers, strings, "
                    f"lists, dicts, mpf, numpy values or an object with to_dict()")


def _mpf_text(x, dps: int | None) -> str:
    import mpmath
    from mpmath import libmp
    if not mpmath.isfinite(x):
        return str(x)
    if dps is None:
        bc = x._mpf_[3]
        dps = max(1, libmp.prec_to_dps(max(bc, 1)) + 3)  # enough to round-trip bc bits
    return libmp.to_str(x._mpf_, int(dps))


def _plain(value, dps: int | None = None):
    """JSON-like plain data of a value (mpf -> its digits, numpy -> Python, Fraction -> p/q)."""
    try:
        return to_jsonable(value, dps=dps)
    except TypeError:
        return str(value)


def _result_dict(obj) -> dict:
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        d = to_dict()
    elif dataclasses.is_dataclass(obj):
        d = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.repr}
    else:  # pragma: no cover - the mixin is for dataclasses
        d = dict(vars(obj))
    return {str(k): _plain(v) for k, v in d.items()}


def flatten(d: Mapping, prefix: str = "") -> dict:
    """Nested dicts as one level with dotted keys.

    Parameters
    ----------
    d : mapping
    prefix : str
        Prepended to every key.

    Returns
    -------
    dict

    Examples
    --------
    >>> flatten({"a": {"b": 1}, "c": 2})
    {'a.b': 1, 'c': 2}
    """
    out: dict = {}
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, Mapping) and v:
            out.update(flatten(v, name + "."))
        else:
            out[name] = v
    return out


def _is_scalar(v) -> bool:
    return v is None or isinstance(v, (bool, int, float, str))


def _shape(v) -> tuple:
    if isinstance(v, list) and v and isinstance(v[0], list):
        return (len(v),) + _shape(v[0])
    return (len(v),) if isinstance(v, list) else ()


def format_value(v) -> str:
    """Text for one value: numbers and number strings in full, long lists summarised.

    Parameters
    ----------
    v : object
        A JSON-like value.

    Returns
    -------
    str

    Examples
    --------
    >>> format_value(list(range(20)))
    '[20 values: 0, 1, ..., 19]'
    """
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else str(v)
    if isinstance(v, list):
        if all(_is_scalar(x) for x in v):
            if len(v) <= _MAX_LIST:
                return "[" + ", ".join(format_value(x) for x in v) + "]"
            return (f"[{len(v)} values: {format_value(v[0])}, {format_value(v[1])}, ..., "
                    f"{format_value(v[-1])}]")
        return f"<array of shape {' x '.join(map(str, _shape(v)))}>"
    if isinstance(v, Mapping):
        return json.dumps(v, sort_keys=True, default=str)
    return str(v)


def _items(obj) -> list[tuple[str, Any]]:
    return list(flatten(_result_dict(obj)).items())


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

    def to_latex(self, *, caption: str | None = None, label: str | None = None, booktabs: bool = True) -> str:
        r"""The result as a two-column LaTeX table (``quantity``, ``value``); numbers in math mode
        (``3.6 \times 10^{-2332}``), long lists summarised. With ``caption``/``label`` it is wrapped
        in a ``table`` float. Needs ``\usepackage{booktabs}`` unless ``booktabs=False``.

        Parameters
        ----------
        caption : str, optional
            Caption of the ``table`` float (escaped).
        label : str, optional
            ``\label`` of the float.
        booktabs : bool
            ``\toprule``/``\midrule``/``\bottomrule`` (else ``\hline``).

        Returns
        -------
        str
        """
        rows = [[escape_text(k), _latex_value(v)] for k, v in _items(self)]
        return _wrap_table(_tabular(["quantity", "value"], rows, "ll", booktabs=booktabs), caption, label)

    def _repr_latex_(self) -> str:
        rows = []
        for k, v in _items(self):
            val = _latex_value(v)
            val = val[1:-1] if val.startswith("$") and val.endswith("$") else r"\text{" + val + "}"
            rows.append(r"\text{" + escape_text(k) + "} & " + val)
        body = r" \\ ".join(rows)
        return r"$$\begin{array}{ll}" + body + r"\end{array}$$"

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
    an aligned text table; ``to_latex()`` a ``booktabs`` table; ``to_csv()`` writes provenance as
    ``#`` lines (read with ``pandas.read_csv(path, comment="#")``); ``to_frame()`` a DataFrame.

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

    def __post_init__(self):
        self.columns = [str(c) for c in self.columns]
        self.rows_ = [dict(r) for r in self.rows_]

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

    def _cell(self, v) -> str:
        return "-" if v is None else format_value(self._p(v))

    def __str__(self) -> str:
        cells = [[self._cell(r.get(c)) for c in self.columns] for r in self.rows_]
        widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(self.columns)]
        numeric = [all(_looks_numeric(row[i]) for row in cells) for i in range(len(self.columns))]

        def fmt(vals):
            return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(vals, widths, numeric)).rstrip()
        out = ([self.title] if self.title else []) + [fmt(list(self.columns))] + [fmt(r) for r in cells]
        return "\n".join(out)

    def to_latex(self, *, caption: str | None = None, label: str | None = None, booktabs: bool = True,
                 columns: Sequence[str] | None = None, headers: Mapping[str, str] | None = None) -> str:
        r"""A LaTeX ``tabular`` of the rows (numbers in math mode, right-aligned numeric columns);
        ``headers`` maps column names to LaTeX headers (default: the escaped names).

        Parameters
        ----------
        caption, label : str, optional
            Wrap the tabular in a ``table`` float with this caption / label.
        booktabs : bool
            ``booktabs`` rules (else ``\hline``).
        columns : sequence of str, optional
            The columns shown (default all).
        headers : mapping, optional
            Column name -> LaTeX header.

        Returns
        -------
        str
        """
        cols = list(columns) if columns is not None else list(self.columns)
        headers = dict(headers or {})
        body = [[_latex_value(self._p(r.get(c))) if r.get(c) is not None else "--" for c in cols]
                for r in self.rows_]
        align = "".join("r" if all(_looks_numeric(self._cell(r.get(c))) for r in self.rows_) else "l"
                        for c in cols)
        head = [headers.get(c, escape_text(c)) for c in cols]
        return _wrap_table(_tabular(head, body, align, booktabs=booktabs), caption, label)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(self._cell(r.get(c)))}</td>" for c in self.columns)
                       + "</tr>" for r in self.rows_)
        cap = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def _repr_latex_(self) -> str:
        cols = self.columns
        head = " & ".join(r"\text{" + escape_text(c) + "}" for c in cols)
        rows = []
        for r in self.rows_:
            vals = []
            for c in cols:
                v = _latex_value(self._p(r.get(c))) if r.get(c) is not None else "--"
                vals.append(v[1:-1] if v.startswith("$") else r"\text{" + v + "}")
            rows.append(" & ".join(vals))
        return r"$$\begin{array}{" + "r" * len(cols) + "}" + head + r" \\ \hline " + r" \\ ".join(rows) + \
            r"\end{array}$$"

    def to_frame(self):
        import pandas as pd
        return pd.DataFrame([{c: r.get(c) for c in self.columns} for r in self.rows_], columns=self.columns)

    def to_csv(self, path, *, provenance: dict | None = None) -> None:
        """Write the rows as CSV; ``provenance`` (default ``meta["provenance"]``) as leading ``#`` lines.

        Parameters
        ----------
        path : str or pathlib.Path
            The file.
        provenance : dict, optional
            Written as ``#`` comment lines (read back with ``pandas.read_csv(path, comment="#")``).
        """
        import csv

        from .provenance import provenance_lines
        prov = provenance if provenance is not None else self.meta.get("provenance")
        with open(path, "w", newline="", encoding="utf-8") as fh:
            if prov:
                for line in provenance_lines(prov):
                    fh.write(line + "\n")
            w = csv.DictWriter(fh, fieldnames=self.columns, extrasaction="ignore")
            w.writeheader()
            for r in self.rows_:
                w.writerow({c: ("" if r.get(c) is None else _csv_value(self._p(r.get(c)))) for c in self.columns})

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
