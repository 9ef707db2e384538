"""The option values of both command lines read and checked (re-exported by
:mod:`symloss.core.cli_grammar`): integers (:func:`parse_int`, with :func:`parse_dps`,
:func:`parse_seed`, :func:`parse_events`), exact reals (:func:`parse_real`, :func:`parse_load`), and
:class:`CliError`, the one-line user error that these and every other check of the command line raise,
naming the option.
"""
from __future__ import annotations

import re
from fractions import Fraction

from ._docfragments import CORE_DOCS
from .docstrings import fill_doc


class CliError(ValueError):
    """A user error at the command line (bad option value, unwritable output, ...)."""


_MAX_EXPONENT = 400


def _decimal_exponent(s: str) -> int | None:
    m = re.fullmatch(r"[+-]?(\d*)(?:\.(\d*))?[eE]([+-]?\d+)", s)
    if not m:
        return None
    return int(m.group(3))


def parse_int(text, name: str, *, min_value: int | None = 1, max_value: int | None = None) -> int:
    """An integer option such as ``--C 3``; ``3.0`` and ``2e6`` are accepted, ``2.5``/``nan``/``x`` are not.

    Parameters
    ----------
    text : str
        The value as typed.
    name : str
        The option (``"--C"``), for the message.
    min_value : int or None, optional
        Smallest accepted value (default 1; ``None``: no lower bound).
    max_value : int or None, optional
        Largest accepted value (``None``: no upper bound).

    Returns
    -------
    int
        The value, within the bounds.

    Raises
    ------
    CliError
        When ``text`` is not an integer (exponents beyond 400 are refused without evaluation) or
        lies outside the bounds.
    """
    if min_value is None and max_value is None:
        rng = ""
    elif max_value is None:
        rng = f" >= {min_value}"
    elif min_value is None:
        rng = f" <= {max_value}"
    else:
        rng = f" in [{min_value}, {max_value}]"
    s = str(text).strip()
    try:
        v = int(s)
    except ValueError:
        exp = _decimal_exponent(s)
        if exp is not None and abs(exp) > _MAX_EXPONENT:
            raise CliError(f"{name} must be an integer{rng}, got {text!r} (out of range)") from None
        try:
            f = Fraction(s)
        except (ValueError, ZeroDivisionError):
            raise CliError(f"{name} must be an integer{rng}, got {text!r}") from None
        if f.denominator != 1:
            raise CliError(f"{name} must be an integer{rng}, got {text!r} (not an integer)") from None
        v = int(f)
    if (min_value is not None and v < min_value) or (max_value is not None and v > max_value):
        raise CliError(f"{name} must be an integer{rng}, got {v}")
    return v


def _g(x) -> str:
    if isinstance(x, int) and x > 10 ** 300:       # beyond float: an exact power-of-ten bound
        s = str(x)
        return f"1e{len(s) - 1}" if s.strip("0") == "1" else s
    if isinstance(x, Fraction) and x.numerator == 1 and x.denominator > 10 ** 300:
        return "1e-" + str(len(str(x.denominator)) - 1)
    return re.sub(r"e([+-]?)0+(\d)", r"e\1\2", f"{x:g}".replace("e+", "e"))     # 1e9, 1e-9 (not 1e09)


def parse_real(text, name: str, *, lower=None, upper=None, lower_open: bool = False, upper_open: bool = False,
               max_magnitude: float = 1e300, example: str = "1.5, 3/2 or 1e-3") -> Fraction:
    """A real option read exactly (``1.5``, ``3/2``, ``1e-3``) as a Fraction; ``nan``/``inf`` and values
    outside the interval (or beyond ``max_magnitude``, the range the numerics accept) are rejected.

    Parameters
    ----------
    text : str
        The value as typed.
    name : str
        The option, for the message.
    lower, upper : number, optional
        Bounds of the accepted interval (``None``: unbounded on that side).
    lower_open, upper_open : bool, optional
        Whether the bound itself is excluded.
    max_magnitude : float, optional
        Largest accepted ``|value|``.
    example : str, optional
        Example spellings shown in the message for an unreadable value.

    Returns
    -------
    fractions.Fraction
        The value, exactly.

    Raises
    ------
    CliError
        For ``nan``/``inf``, an unreadable value, a value beyond ``max_magnitude`` (or with a
        decimal exponent beyond 400 either way) or outside the interval.
    """
    s = str(text).strip()
    low = s.lower()
    if low in ("nan", "+nan", "-nan") or "inf" in low:
        raise CliError(f"{name} must be a finite real number, got {text!r}")
    exp = _decimal_exponent(s)
    if exp is not None and exp > _MAX_EXPONENT:
        raise CliError(f"{name} = {text} is out of range (at most {_g(max_magnitude)})")
    if exp is not None and exp < -_MAX_EXPONENT:
        raise CliError(f"{name} = {text} is out of range (at least {_g(1 / max_magnitude) if max_magnitude <= 1e300 else _g(Fraction(1, int(max_magnitude)))} in magnitude, or 0)")
    try:
        v = Fraction(s)
    except (ValueError, ZeroDivisionError):
        raise CliError(f"{name} must be a real number such as {example}, got {text!r}") from None
    if abs(v) > max_magnitude:
        raise CliError(f"{name} = {text} is out of range (at most {_g(max_magnitude)} in magnitude)")
    left = "(" if lower_open or lower is None else "["
    right = ")" if upper_open or upper is None else "]"
    rng = f" in {left}{'-inf' if lower is None else lower}, {'inf' if upper is None else upper}{right}"
    if lower is not None and (v < lower or (lower_open and v == lower)):
        raise CliError(f"{name} must be a real number{rng}, got {text!r}")
    if upper is not None and (v > upper or (upper_open and v == upper)):
        raise CliError(f"{name} must be a real number{rng}, got {text!r}")
    return v


def parse_load(text, name: str = "--rho") -> Fraction:
    """A load ``rho > 0`` read exactly: ``1.5``, ``3/2``, ``1e-3``. ``nan``, ``inf``, ``0`` and
    negative values are rejected.

    Parameters
    ----------
    text : str
        The value as typed.
    name : str, optional
        The option, for the message.

    Returns
    -------
    fractions.Fraction

    Raises
    ------
    CliError
        When the value is not a finite real number > 0 (or is out of :func:`parse_real`'s range).
    """
    s = str(text).strip()
    low = s.lower()
    if low in ("nan", "+nan", "-nan") or "inf" in low:
        raise CliError(f"{name} must be a finite real number > 0, got {text!r}")
    try:
        v = parse_real(s, name)
    except CliError as exc:
        if "out of range" in str(exc):
            raise
        raise CliError(f"{name} must be a real number > 0 such as 1.5, 3/2 or 1e-3, got {text!r}") from None
    if v <= 0:
        raise CliError(f"{name} must be a real number > 0, got {text!r}")
    return v


@fill_doc(CORE_DOCS)
def parse_dps(text, name: str = "--dps") -> int:
    """A precision option: an integer number of decimal digits in ``[5, 100000]`` (:func:`parse_int`).

    {{parameters_int_option}}

    Returns
    -------
    int
        The number of digits.

    Raises
    ------
    CliError
        When the value is not an integer in ``[5, 100000]``.
    """
    return parse_int(text, name, min_value=5, max_value=100_000)


@fill_doc(CORE_DOCS)
def parse_seed(text, name: str = "--seed") -> int:
    """A random seed: an integer in ``[0, 2**128 - 1]`` (:func:`parse_int`).

    {{parameters_int_option}}

    Returns
    -------
    int
        The seed.

    Raises
    ------
    CliError
        Outside ``[0, 2**128 - 1]`` or not an integer.
    """
    return parse_int(text, name, min_value=0, max_value=2 ** 128 - 1)


@fill_doc(CORE_DOCS)
def parse_events(text, name: str = "--events") -> int:
    """A number of simulated events: an integer in ``[1, 10**13]`` (:func:`parse_int`).

    {{parameters_int_option}}

    Returns
    -------
    int
        The number of events, at least 1.

    Raises
    ------
    CliError
        Outside ``[1, 10**13]`` or not an integer.
    """
    return parse_int(text, name, min_value=1, max_value=10 ** 13)
