r"""LaTeX text and numbers: :func:`escape_text` (text mode) and :func:`number_latex` (a number, a fraction or
a decimal string as math), the leaf every LaTeX writer of symloss uses.

Split out of :mod:`symloss.core.latex` (which re-exports every name).
"""
from __future__ import annotations

import re

_TEXT_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                 "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def escape_text(text) -> str:
    r"""Escape ``text`` for LaTeX text mode (``&``, ``%``, ``$``, ``#``, ``_``, braces, ``~``, ``^``,
    backslash).

    Parameters
    ----------
    text : object
        Converted with ``str``.

    Returns
    -------
    str

    Examples
    --------
    >>> escape_text("C_vol & 95% of $x$")
    'C\\_vol \\& 95\\% of \\$x\\$'
    """
    return "".join(_TEXT_ESCAPES.get(ch, ch) for ch in str(text))


_NUM = re.compile(r"^\s*([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?\s*$")
_FRAC = re.compile(r"^\s*([+-]?\d+)\s*/\s*(\d+)\s*$")


def number_latex(value) -> str:
    r"""A number in LaTeX *math* notation: ``"3.6e-2332"`` -> ``3.6 \times 10^{-2332}``,
    ``"27/563"`` -> ``\tfrac{27}{563}``; an mpf/float/int/Fraction is formatted from its ``str``.
    Anything else is escaped and wrapped in ``\text{...}``.

    Parameters
    ----------
    value : object
        A number or the text of one (``"1.5e-7"``, ``"p/q"``).

    Returns
    -------
    str
        Math-mode LaTeX (without ``$``).

    Examples
    --------
    >>> number_latex("3.618592508023235066e-2332")
    '3.618592508023235066 \\times 10^{-2332}'
    >>> number_latex("27/563"), number_latex(-2)
    ('\\tfrac{27}{563}', '-2')
    """
    if isinstance(value, bool) or value is None:
        return r"\text{" + escape_text(value) + "}"
    text = str(value)
    m = _NUM.match(text)
    if m:
        sign, mant, exp = m.groups()
        if exp is None or int(exp) == 0:
            return f"{sign}{mant}"
        if mant.rstrip("0").rstrip(".") == "1" and "." not in mant.rstrip("0").rstrip("."):
            return f"{sign}10^{{{int(exp)}}}"
        return f"{sign}{mant} \\times 10^{{{int(exp)}}}"
    m = _FRAC.match(text)
    if m:
        p, q = m.groups()
        if q == "1":
            return p
        sign = "-" if p.startswith("-") else ""
        return f"{sign}\\tfrac{{{p.lstrip('+-')}}}{{{q}}}"
    low = text.strip().lower()
    if low in ("inf", "+inf", "infinity"):
        return r"\infty"
    if low in ("-inf", "-infinity"):
        return r"-\infty"
    return r"\text{" + escape_text(text) + "}"


#: Packages that every snippet symloss emits may use.
PACKAGES = ("amsmath", "amssymb", "booktabs")


def document(body: str, *, title: str | None = None, packages=PACKAGES, fontsize: str = "10pt",
             comment: str | None = None) -> str:
    r"""A whole LaTeX document (``article``) around ``body``.

    Parameters
    ----------
    body : str
        The content.
    title : str, optional
        A ``\section*`` title.
    packages : sequence of str
        Packages to load.
    fontsize : str
        Class option.
    comment : str, optional
        Lines (e.g. provenance) put at the top as ``%`` comments.

    Returns
    -------
    str

    Examples
    --------
    >>> print(document("$x$", packages=("amsmath",)).splitlines()[0])
    \documentclass[10pt]{article}
    """
    lines = []
    if comment:
        lines.extend("% " + ln for ln in str(comment).splitlines())
    lines.append(f"\\documentclass[{fontsize}]{{article}}")
    for p in packages:
        lines.append(f"\\usepackage{{{p}}}")
    lines.append(r"\begin{document}")
    if title:
        lines.append(r"\section*{" + escape_text(title) + "}")
    lines.append(body.rstrip())
    lines.append(r"\end{document}")
    return "\n".join(lines) + "\n"
