r"""Paper mode: the key quantities of a result with math names, honestly rounded (:class:`Quantity`,
:func:`round_significant`, :func:`certified_digits`, :func:`status_label`, :func:`format_quantity`).

An enclosure prints only the digits both of its ends share; a number is rounded to the significant
digits it carries (never more). Split out of :mod:`symloss.core.results` (which re-exports every name).
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

from .latex import escape_text, number_latex
from .result_data import _lookup

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
        The rounded value as decimal text, trailing zeros written up to ``digits`` (exponent
        notation, ``1.00e-20``, for large and small magnitudes).

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
