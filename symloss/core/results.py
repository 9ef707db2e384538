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

__all__ = ["ResultMixin", "ResultTable", "Quantity", "flatten", "format_value", "to_jsonable", "result_latex",
           "result_repr_latex", "round_significant", "certified_digits", "status_label", "format_quantity",
           "BOOKTABS_COMMENT", "MATH_NAMES", "INTERNAL_NAMES"]

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


# ------------------------------------------------------------------------------------------------
# paper mode: key quantities with math names, honest rounding, no internals
# ------------------------------------------------------------------------------------------------

#: The comment that opens every paper-mode table: the packages it needs.
BOOKTABS_COMMENT = r"% needs \usepackage{booktabs} (rules) and \usepackage{amsmath} (\text, \tfrac)"

_STATUS_WORDS = ("PROVED", "REFUTED", "UNDECIDED", "EVIDENCE", "NOT UNIQUE", "NOT CHECKED", "certified")
_KINDS = ("number", "integer", "enclosure", "exact", "text", "status", "vector", "bool", "threshold", "interval")
_MAX_PAPER_DIGITS = 50     # default cap: a 50-digit number is about 250 pt wide, within \textwidth
_MAX_TEXT = 60             # longer free text is not a key quantity (it stays in to_dict())

#: Math names of the quantities that keep the papers' notation, for results that declare nothing.
MATH_NAMES = {"rho": r"\rho", "blocking": "B", "B": "B", "C": "C", "d": "d", "dt": r"\tilde d", "N": "N",
              "threshold": r"\rho^*", "x": "x", "u": "u", "lam_H": r"\lambda_H", "lam_L": r"\lambda_L",
              "r_H": "r_H", "r_L": "r_L", "lam": r"\lambda", "mu": r"\mu", "a": "a", "n": "n", "k": "k",
              "rho_min": r"\rho_{\min}", "rho_max": r"\rho_{\max}", "rho_lo": r"\rho_{\mathrm{lo}}",
              "rho_hi": r"\rho_{\mathrm{hi}}", "log_blocking": r"\log B", "slope": r"\text{slope}"}

#: Names that are how a result was obtained, not what it is: left out of a paper table unless declared.
INTERNAL_NAMES = frozenset({
    "seconds", "wall_time", "elapsed", "time", "times", "iterations", "evaluations", "prec", "dps", "fingerprint",
    "provenance", "certificate", "identity", "key", "hash", "box", "residual", "error", "margin", "log_p", "p",
    "method", "seed", "seeds", "extra", "verification", "uniqueness_record", "records", "samples", "roots",
    "cells", "pieces", "summary", "definition", "message", "format", "unchecked_fields", "t", "trajectory",
    "delta", "center", "sel", "dy_dr", "events", "loads", "log_ratio", "log_ratio_se", "expr", "terms",
    "next_term", "leading_exponents", "order", "run", "store"})


@dataclasses.dataclass(frozen=True)
class Quantity:
    r"""One key quantity of a result: where its value is, its LaTeX name and how it is printed.

    Parameters
    ----------
    key : str
        An attribute of the result or a key of its ``to_dict()`` (dotted for nested keys).
    latex : str
        The math name (math mode, without ``$``), e.g. ``r"\rho"``; ``None``: the key as text.
    kind : str
        ``"number"`` (``digits`` significant digits), ``"integer"``, ``"enclosure"`` (``[lo, hi]``
        or an ``arb`` ball: only the certified digits), ``"interval"`` (``[lo, hi]`` printed as an
        interval, e.g. a confidence interval), ``"exact"`` (a fraction or SymPy number, exact),
        ``"text"``, ``"status"`` (the label PROVED / EVIDENCE / ... of a status text), ``"vector"``
        (one row per component), ``"bool"`` or ``"threshold"`` (a load; 0 is "better at every load").
    bounds : (str, str), optional
        Keys of a certified enclosure of the value (in a table row or the result): printed instead
        of the value, with its certified digits only.

    Raises
    ------
    ValueError
        For an unknown ``kind``.

    Examples
    --------
    >>> Quantity("rho", r"\rho").kind
    'number'
    """
    key: str
    latex: str | None = None
    kind: str = "number"
    bounds: tuple | None = None

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"Quantity {self.key!r}: kind must be one of {', '.join(_KINDS)}, got {self.kind!r}")

    def header(self) -> str:
        """The LaTeX of the name (``$...$`` for a math name, escaped text otherwise).

        Returns
        -------
        str
        """
        if self.latex is None:
            return escape_text(self.key.replace("_", " "))
        return f"${self.latex}$"

    def math_header(self) -> str:
        """The name in math mode (``\\text{...}`` for a text name).

        Returns
        -------
        str
        """
        if self.latex is None:
            return r"\text{" + escape_text(self.key.replace("_", " ")) + "}"
        return self.latex


def _quantities(spec) -> list[Quantity]:
    """Normalise a declaration: a sequence of :class:`Quantity` or a mapping name -> (latex, kind[, bounds])."""
    if spec is None:
        return []
    if isinstance(spec, Mapping):
        out = []
        for k, v in spec.items():
            if isinstance(v, Quantity):
                out.append(v)
            elif isinstance(v, str):
                out.append(Quantity(str(k), v))
            else:
                out.append(Quantity(str(k), *tuple(v)))
        return out
    return [q if isinstance(q, Quantity) else Quantity(*q) for q in spec]


def _check_digits(digits):
    if digits is None:
        return None
    if isinstance(digits, bool) or not isinstance(digits, int):
        raise TypeError(f"digits must be an integer (significant digits) or None, got {digits!r}")
    if not 1 <= digits <= 100000:
        raise ValueError(f"digits must be in [1, 100000] (significant digits), got {digits}")
    return digits


# -- exact decimals of the number types ----------------------------------------------------------

def _decimal(value):
    """The exact value of a number as a ``Decimal`` (``None`` for anything else or a non-finite one)."""
    import decimal
    from decimal import Decimal
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(value) if math.isfinite(value) else None
    if isinstance(value, Decimal):
        return value if value.is_finite() else None
    if isinstance(value, str):
        t = value.strip()
        try:
            d = Decimal(t)
        except decimal.InvalidOperation:
            return None
        return d if d.is_finite() else None
    mod = type(value).__module__ or ""
    if mod.startswith("numpy"):
        try:
            return _decimal(value.item())
        except (AttributeError, ValueError):
            return None
    if mod.startswith("mpmath") and hasattr(value, "_mpf_"):
        sign, man, exp, bc = value._mpf_          # exact: no rounding to the ambient precision
        if not man:
            return Decimal(0) if bc == 0 and exp == 0 else None   # zero, or inf / nan
        return _exact_scaled(-int(man) if sign else int(man), exp)
    return None


def _exact_scaled(man: int, exp: int):
    """``man * 2**exp`` as an exact Decimal."""
    import decimal
    from decimal import Decimal
    man, exp = int(man), int(exp)
    if exp >= 0:
        return Decimal(man << exp)
    with decimal.localcontext() as ctx:
        ctx.prec = max(28, len(str(abs(man))) + int(-exp * 0.7) + 10)
        ctx.traps[decimal.Inexact] = True
        return Decimal(man) * (Decimal(5) ** (-exp)) / (Decimal(10) ** (-exp))


def _arb_bounds(value):
    """``(lo, hi)`` exact Decimals of a python-flint ``arb`` ball or its ``"[mid +/- rad]"`` text."""
    from decimal import Decimal
    mod = type(value).__module__ or ""
    if mod.startswith("flint") and type(value).__name__ == "arb":
        if not value.is_finite():
            return None
        mid, rad = value.mid(), value.rad()
        m = _exact_scaled(*mid.man_exp()) if mid != 0 else Decimal(0)
        r = _exact_scaled(*rad.man_exp()) if rad != 0 else Decimal(0)
        return m - r, m + r
    if isinstance(value, str):
        t = value.strip()
        if t.startswith("[") and t.endswith("]") and "+/-" in t:
            mid, _, rad = t[1:-1].partition("+/-")
            m, r = _decimal(mid), _decimal(rad)
            if m is not None and r is not None:
                return m - r, m + r
    return None


def _sig_digits(d) -> int:
    """Significant digits written in a Decimal (at least 1)."""
    return max(1, len(d.as_tuple().digits))


def round_significant(value, digits: int) -> str:
    """A number rounded to ``digits`` significant digits (half to even), as decimal text.

    A number with fewer digits is not padded: the printed digits are never more than the value has.

    Parameters
    ----------
    value : number or str
        int, float (its exact binary value), ``mpf``, ``Decimal`` or decimal text.
    digits : int
        Significant digits, ``>= 1``.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``value`` is not a finite number.

    Examples
    --------
    >>> round_significant("0.949635604002727", 6), round_significant(0.1, 3), round_significant("2.5", 9)
    ('0.949636', '0.100', '2.5')
    """
    d = _decimal(value)
    if d is None:
        raise ValueError(f"round_significant: {value!r} is not a finite number")
    digits = _check_digits(digits)
    return _dec_text(_round_dec(d, digits))


def _round_dec(d, digits: int):
    import decimal
    from decimal import Decimal
    if d == 0 or _sig_digits(d) <= digits:
        return d
    q = Decimal(1).scaleb(d.adjusted() - digits + 1)
    with decimal.localcontext() as ctx:
        ctx.prec = digits + 5
        r = d.quantize(q, rounding=decimal.ROUND_HALF_EVEN)
    if _sig_digits(r) > digits:   # 9.99 -> 10.0: one digit more; drop the trailing zero
        r = r.quantize(Decimal(1).scaleb(r.adjusted() - digits + 1), rounding=decimal.ROUND_HALF_EVEN)
    return r


def _dec_text(d) -> str:
    """Plain decimal text (no exponent for moderate magnitudes, else ``m.mmmE+k``)."""
    if d == 0:
        return "0"
    adj = d.adjusted()
    if -4 <= adj < 7 and d.as_tuple().exponent <= 0:   # "5700" would claim 4 digits of 5.7e3
        return format(d, "f")
    return format(d, "E").replace("E", "e")


def certified_digits(lo, hi, digits: int | None = None) -> str | None:
    r"""The digits of a number known only to lie in ``[lo, hi]``: the correctly rounded value to the
    most significant digits (at most ``digits``) on which both ends agree, else ``None``.

    Rounding at a fixed place is monotone, so when ``lo`` and ``hi`` round to the same decimal every
    number between them does: the text is the correct rounding of the enclosed number, never more
    digits than the enclosure certifies.

    Parameters
    ----------
    lo, hi : number or str
        The ends (exact values: ``mpf``, ``float``, ``Decimal``, decimal text), ``lo <= hi``.
    digits : int, optional
        At most this many significant digits.

    Returns
    -------
    str or None
        Decimal text, or ``None`` when not even one digit is certified (e.g. ``lo < 0 < hi``).

    Raises
    ------
    ValueError
        If an end is not a finite number or ``lo > hi``.

    Examples
    --------
    >>> certified_digits("0.94963560400272693931472", "0.94963560400272693931972")
    '0.9496356040027269393'
    >>> certified_digits("0.949635604002727", "0.949635604002728", digits=6)
    '0.949636'
    >>> certified_digits("-1e-3", "1e-3") is None
    True
    """
    import decimal
    from decimal import Decimal
    a, b = _decimal(lo), _decimal(hi)
    if a is None or b is None:
        raise ValueError(f"certified_digits: the ends must be finite numbers, got {lo!r}, {hi!r}")
    if a > b:
        raise ValueError(f"certified_digits: lo = {lo} > hi = {hi}")
    digits = _check_digits(digits)
    if a == b:
        return _dec_text(a if digits is None else _round_dec(a, digits))
    if a <= 0 <= b:
        return None
    top = max(a.copy_abs().adjusted(), b.copy_abs().adjusted())
    most = max(_sig_digits(a), _sig_digits(b)) + 1
    if digits is not None:
        most = min(most, digits)
    for k in range(most, 0, -1):
        q = Decimal(1).scaleb(top - k + 1)
        with decimal.localcontext() as ctx:
            ctx.prec = max(most, k) + 40
            ra = a.quantize(q, rounding=decimal.ROUND_HALF_EVEN)
            rb = b.quantize(q, rounding=decimal.ROUND_HALF_EVEN)
        if ra == rb and ra != 0:
            return _dec_text(ra)
    return None


def status_label(text) -> str | None:
    """The label that opens a status text (``"PROVED"``, ``"EVIDENCE"``, ``"UNDECIDED"``, ``"REFUTED"``,
    ``"NOT UNIQUE"``, ``"NOT CHECKED"``, ``"certified"``), else ``None``.

    Parameters
    ----------
    text : object

    Returns
    -------
    str or None

    Examples
    --------
    >>> status_label("EVIDENCE over the range: ..."), status_label("no label")
    ('EVIDENCE', None)
    """
    if not isinstance(text, str):
        return None
    t = text.strip()
    for w in _STATUS_WORDS:
        if t.startswith(w) and (len(t) == len(w) or not t[len(w)].isalnum()):
            return w
    return None


# -- one value in LaTeX ---------------------------------------------------------------------------

def _num_math(value, digits) -> str | None:
    """Math LaTeX of a number rounded to ``digits`` (default: its own digits, at most 50), else None."""
    from fractions import Fraction
    if isinstance(value, str) and _looks_fraction(value):
        p, _, q = value.partition("/")
        return _num_math(Fraction(int(p), int(q)), digits)
    if isinstance(value, Fraction) or type(value).__name__ in ("fmpq", "Rational", "Integer"):
        fr = Fraction(int(getattr(value, "p", getattr(value, "numerator", 0))),
                      int(getattr(value, "q", getattr(value, "denominator", 1))))
        if len(str(fr.numerator)) + len(str(fr.denominator)) <= 30 and digits is None:
            return number_latex(f"{fr.numerator}/{fr.denominator}")
        import mpmath
        n = digits or 15
        with mpmath.workdps(n + 20):
            return _num_math(mpmath.mpf(fr.numerator) / fr.denominator, n)
    if isinstance(value, float) and math.isinf(value) or (isinstance(value, str) and value.strip() in ("inf", "oo")):
        return r"\infty"
    d = _decimal(value)
    if d is None:
        return None
    if isinstance(value, float) and digits is None:
        digits = 6            # a float's exact binary expansion is not its precision
    if digits is None:
        digits = _MAX_PAPER_DIGITS
    return number_latex(_dec_text(_round_dec(d, digits)))


def _looks_fraction(t: str) -> bool:
    p, sep, q = t.strip().partition("/")
    return bool(sep) and p.strip().lstrip("+-").isdigit() and q.strip().isdigit()


def _enclosure_math(value, digits) -> str | None:
    b = _arb_bounds(value)
    if b is None and isinstance(value, (list, tuple)) and len(value) == 2:
        lo, hi = _decimal(value[0]), _decimal(value[1])
        b = None if lo is None or hi is None else (lo, hi)
    if b is None:
        return None
    text = certified_digits(b[0], b[1], digits)
    if text is None:   # not one digit certified: the interval, outward, 2 digits
        return r"\left[" + number_latex(_dec_text(_round_dec(b[0], 2))) + ", " + \
            number_latex(_dec_text(_round_dec(b[1], 2))) + r"\right]"
    return number_latex(text)


def _text_cell(text) -> str:
    return escape_text(text)


def format_quantity(q: Quantity, value, digits=None, *, source=None) -> tuple[str, bool] | None:
    """The LaTeX of one value of a quantity: ``(latex, is_math)``, or ``None`` when there is nothing
    to print (``None``, NaN, an object without a paper form).

    Parameters
    ----------
    q : Quantity
    value : object
    digits : int, optional
    source : mapping or object, optional
        Where ``q.bounds`` are looked up (a row, a result).

    Returns
    -------
    (str, bool) or None

    Examples
    --------
    >>> format_quantity(Quantity("blocking", "B", "number"), 0.123456789, 4)
    ('0.1235', True)
    """
    kind = q.kind
    if q.bounds is not None and source is not None:
        lo, hi = (_lookup(source, k) for k in q.bounds)
        if lo is not None and hi is not None:
            if kind == "threshold" and _decimal(lo) == 0 and _decimal(hi) == 0:
                return "better at every load", False
            enc = _enclosure_math([lo, hi], digits)
            if enc is not None:
                return enc, True
    if value is None:
        return None
    if kind == "status":
        lab = status_label(value)
        return (lab, False) if lab else ((_text_cell(value), False) if len(str(value)) <= _MAX_TEXT else None)
    if kind == "bool" or isinstance(value, bool):
        return ("yes" if value else "no"), False
    if kind == "text":
        if isinstance(value, (list, tuple)):
            value = (" vs. " if len(value) == 2 else ", ").join(map(str, value))
        return _text_cell(value), False
    if kind == "threshold" and isinstance(value, Mapping):    # {"value": "0"} or {"rho": [lo, hi]}
        if "rho" in value:
            m = _enclosure_math(list(value["rho"]), digits)
            return None if m is None else (m, True)
        value = value.get("value")
        if value is None:
            return None
    if kind == "threshold":
        d = _decimal(value)
        if d is not None and d == 0:
            return "better at every load", False
        m = _num_math(value, digits)
        return None if m is None else (m, True)
    if kind in ("enclosure", "interval"):
        if kind == "enclosure":
            m = _enclosure_math(value, digits)
            if m is not None:
                return m, True
        if isinstance(value, (list, tuple)) and len(value) == 2:
            a, b = (_num_math(v, digits or 6) for v in value)
            if a is not None and b is not None:
                return r"\left[" + a + ", " + b + r"\right]", True
        return None
    if kind == "exact":
        try:
            import sympy as sp
            e = sp.sympify(value) if isinstance(value, str) else value
            return sp.latex(e), True
        except Exception:  # noqa: BLE001 - no paper form
            return None
    if kind == "integer":
        d = _decimal(value)
        return None if d is None else (number_latex(_dec_text(d)), True)
    m = _num_math(value, digits)
    return None if m is None else (m, True)


def _lookup(source, key: str):
    if isinstance(source, Mapping):
        if key in source:
            return source[key]
        cur = source
        for part in key.split("."):
            if not isinstance(cur, Mapping) or part not in cur:
                return None
            cur = cur[part]
        return cur
    if "." not in key and hasattr(source, key) and not callable(getattr(source, key)):
        return getattr(source, key)
    return _lookup(_result_dict_raw(source), key)


def _result_dict_raw(obj) -> dict:
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        return dict(to_dict())
    if dataclasses.is_dataclass(obj):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.repr}
    return dict(vars(obj))


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

    The quantities are ``quantities`` (a :class:`Quantity` sequence or a mapping name -> ``(latex,
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
            extra = {k: self.meta[k] for k in ("status", "notes") if self.meta.get(k)}
            for line in provenance_lines(extra):
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
