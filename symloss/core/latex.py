r"""LaTeX that compiles: display environments with line breaking, documents, a checker and a compiler.

* :func:`math_block` typesets SymPy equations in a *complete* display environment: ``align*`` for a
  group, ``multline*`` for one long equation, long sums broken over lines by a width estimate
  (:func:`estimate_width`, in points at 10 pt) at ``+``/``-`` signs of any nesting depth;
  parentheses around a broken sum are ``\bigl( ... \bigr)``, which may span lines (``\left``/``\right``
  may not).
* :func:`document` wraps snippets into a whole document (``article``, ``amsmath``, ``booktabs``).
* :func:`check_latex` is a strict structural checker (braces, environments, math mode, alignment
  tabs, blank lines in math, ``\left``/``\right`` pairing per line); :func:`compile_latex` runs a real
  TeX engine (``pdflatex``) when one is installed and reports errors and overfull boxes.

Only ``amsmath`` (and ``booktabs`` for tables) is needed; no ``breqn``.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field

__all__ = ["escape_text", "number_latex", "math_block", "expression_lines", "estimate_width", "document",
           "check_latex", "compile_latex", "find_tex_engine", "LatexCompileResult", "LatexCheckError",
           "TEXTWIDTH_PT", "DEFAULT_WIDTH_PT", "PACKAGES", "model_repr_latex"]

#: ``\textwidth`` of the standard ``article`` class at 10 pt (points).
TEXTWIDTH_PT = 345.0
#: Default target width of a displayed line: the text width less the ``multline`` indent and a margin.
DEFAULT_WIDTH_PT = 300.0
#: Packages that every snippet symloss emits may use.
PACKAGES = ("amsmath", "amssymb", "booktabs")

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


# ------------------------------------------------------------------------------------------------
# width estimate (points, 10 pt Computer Modern, display style)
# ------------------------------------------------------------------------------------------------

_GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta", "vartheta",
          "iota", "kappa", "lambda", "mu", "nu", "xi", "pi", "varpi", "rho", "varrho", "sigma", "varsigma",
          "tau", "upsilon", "phi", "varphi", "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi",
          "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega", "ell"}
_BINARY = {"cdot", "times", "pm", "mp", "div", "circ", "ast", "star", "cup", "cap", "wedge", "vee"}
_RELATION = {"le", "ge", "leq", "geq", "neq", "ne", "approx", "sim", "simeq", "equiv", "to", "rightarrow",
             "leftarrow", "mapsto", "in", "subset", "subseteq", "gets", "propto", "ll", "gg"}
_SPACES = {",": 1.7, ":": 2.2, ";": 2.8, "!": -1.7, " ": 3.3, "quad": 10.0, "qquad": 20.0, "enspace": 5.0}
_DELIM_SIZES = {"bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr", "Biggl", "Biggr", "big", "Big", "bigg",
                "Bigg", "left", "right", "middle"}


def _group(s: str, i: int) -> tuple[str, int]:
    """The argument starting at ``s[i]`` (a braced group or one token) and the index after it."""
    n = len(s)
    while i < n and s[i] == " ":
        i += 1
    if i >= n:
        return "", i
    if s[i] == "{":
        depth, j = 0, i
        while j < n:
            if s[j] == "\\":
                j += 2
                continue
            if s[j] == "{":
                depth += 1
            elif s[j] == "}":
                depth -= 1
                if depth == 0:
                    return s[i + 1:j], j + 1
            j += 1
        return s[i + 1:], n
    if s[i] == "\\":
        j = i + 1
        while j < n and s[j].isalpha():
            j += 1
        if j == i + 1:
            j += 1
        return s[i:j], j
    return s[i], i + 1


def estimate_width(latex: str, scale: float = 1.0) -> float:
    r"""Estimated width in points of a math-mode LaTeX string at 10 pt (display style).

    A deliberate over-estimate (about 5 pt per glyph, binary operators and relations with their
    spaces, scripts at 70 %, fractions as their wider part); used to decide where to break lines.

    Parameters
    ----------
    latex : str
        Math-mode LaTeX.
    scale : float
        Size factor (0.7 for scripts).

    Returns
    -------
    float
        Points.

    Examples
    --------
    >>> estimate_width(r"\rho^{2} + 1") > estimate_width(r"\rho")
    True
    """
    s = latex
    i, n, w = 0, len(s), 0.0
    prev_operand = False  # is a binary sign here binary (True) or unary (False)?
    while i < n:
        c = s[i]
        if c == "\\":
            j = i + 1
            while j < n and s[j].isalpha():
                j += 1
            if j == i + 1:  # control symbol: \, \; \{ \\ ...
                sym = s[i + 1:i + 2]
                i += 2
                if sym in _SPACES:
                    w += _SPACES[sym] * scale
                elif sym in "{}":
                    w += 5.0 * scale
                    prev_operand = sym == "}"
                continue
            name = s[i + 1:j]
            i = j
            if name in ("frac", "dfrac", "tfrac", "binom"):
                a, i = _group(s, i)
                b, i = _group(s, i)
                f = 0.75 if name == "tfrac" else 1.0
                w += (max(estimate_width(a, scale * f), estimate_width(b, scale * f)) + 2.0) * 1.0
                prev_operand = True
            elif name == "sqrt":
                a, i = _group(s, i)
                w += estimate_width(a, scale) + 8.0 * scale
                prev_operand = True
            elif name in ("text", "mathrm", "operatorname", "textrm", "mathit", "mathbf", "mbox"):
                a, i = _group(s, i)
                w += 5.0 * scale * len(re.sub(r"\\[a-zA-Z]+|[{}]", "x", a))
                prev_operand = True
            elif name in _DELIM_SIZES:
                if name in ("left", "right", "middle"):
                    _, i = _group(s, i)
                    w += 4.5 * scale
                else:
                    _, i = _group(s, i)
                    w += 5.5 * scale
                prev_operand = name.endswith("r") or name == "right"
            elif name in _SPACES:
                w += _SPACES[name] * scale
            elif name in _BINARY:
                w += (7.8 + 4.4) * scale
                prev_operand = False
            elif name in _RELATION:
                w += (10.0 + 5.6) * scale
                prev_operand = False
            elif name in ("infty", "rightarrow", "ldots", "cdots", "dots"):
                w += 13.0 * scale
                prev_operand = True
            elif name in ("sum", "prod", "int"):
                w += 14.0 * scale
                prev_operand = False
            elif name in ("log", "ln", "exp", "sin", "cos", "max", "min", "lim"):
                w += 5.0 * len(name) * scale + 1.7 * scale
                prev_operand = False
            else:  # greek letters and other symbols
                w += (5.8 if name in _GREEK else 6.5) * scale
                prev_operand = True
            continue
        if c in "^_":
            a, i = _group(s, i + 1)
            w += estimate_width(a, scale * 0.7)
            prev_operand = True
            continue
        i += 1
        if c in "{} \n\t&":
            continue
        if c in "+-":
            w += (7.8 + (4.4 if prev_operand else 0.0)) * scale
            prev_operand = False
        elif c in "=<>":
            w += (7.8 + 5.6) * scale
            prev_operand = False
        elif c in "()[]|":
            w += 3.9 * scale
            prev_operand = c in ")]|"
        elif c in ",;":
            w += 4.5 * scale
            prev_operand = False
        elif c == "!":
            w += 2.8 * scale
            prev_operand = True
        elif c == ".":
            w += 2.8 * scale
        else:
            w += 5.3 * scale
            prev_operand = True
    return w


# ------------------------------------------------------------------------------------------------
# breaking SymPy expressions into lines
# ------------------------------------------------------------------------------------------------

def _latex(e) -> str:
    import sympy as sp
    return sp.latex(e)


def _is_negative(term) -> bool:
    try:
        return bool(term.could_extract_minus_sign())
    except AttributeError:  # pragma: no cover - non-SymPy
        return False


def _ordered_terms(expr):
    from sympy.printing.latex import LatexPrinter
    return LatexPrinter()._as_ordered_terms(expr, order=None)


def _pieces(expr, width: float, depth: int = 0) -> list[str]:
    """Pieces of ``expr`` whose concatenation is its LaTeX; a line may break before any piece that
    starts with a sign. Sums wider than ``width`` are split (recursively inside products)."""
    import sympy as sp
    text = _latex(expr)
    if estimate_width(text) <= width or depth > 6:
        return [text]
    if isinstance(expr, sp.Add):
        out: list[str] = []
        for k, term in enumerate(_ordered_terms(expr)):
            neg = _is_negative(term)
            body = -term if neg else term
            sub = _pieces(body, width - 15.0, depth + 1)
            if _needs_parens(body):
                sub = [r"\bigl(" + sub[0]] + sub[1:-1] + [sub[-1] + r"\bigr)"] if len(sub) > 1 else \
                      [r"\left(" + sub[0] + r"\right)"]
            sign = "- " if neg else ("+ " if k else "")
            out.append(sign + sub[0])
            out.extend(sub[1:])
        return out
    if isinstance(expr, sp.Mul):
        coeff, factors = expr.as_coeff_mul()
        sums = [f for f in factors if isinstance(f, sp.Add)]
        if sums:
            others = [f for f in factors if not isinstance(f, sp.Add)]
            rest = _latex(sp.Mul(*others)) if others else ""
            if coeff == 1:
                head = rest
            elif coeff == -1:
                head = "-" + (" " + rest if rest else "")
            else:
                head = (_latex(coeff) + (" " + rest if rest else "")).strip()
            out = []
            for f in sums:
                sub = _pieces(f, width - 15.0, depth + 1)
                if len(sub) == 1:
                    part = [r"\left(" + sub[0] + r"\right)"]
                else:
                    part = [r"\bigl(" + sub[0]] + sub[1:-1] + [sub[-1] + r"\bigr)"]
                out.extend(part)
            out[0] = (head + " " if head else "") + out[0]
            return out
    return [text]


def _needs_parens(expr) -> bool:
    import sympy as sp
    return isinstance(expr, sp.Add)


def _fill(pieces: list[str], width: float, first_width: float | None = None) -> list[str]:
    """Greedy filling of pieces into lines of at most ``width`` points (the first line may be given
    another width); breaks happen only before pieces that start with a sign."""
    lines: list[str] = []
    cur = ""
    limit = width if first_width is None else first_width
    for p in pieces:
        breakable = p.startswith(("+ ", "- "))
        cand = (cur + " " + p).strip() if cur else p
        if cur and breakable and estimate_width(cand) > limit:
            lines.append(cur)
            cur = p
            limit = width
        else:
            cur = cand
    if cur:
        lines.append(cur)
    return lines


def expression_lines(expr, width: float = DEFAULT_WIDTH_PT) -> list[str]:
    r"""The LaTeX of a SymPy expression split into lines of about ``width`` points; every line but the
    first starts with ``+`` or ``-``. One line when it fits.

    Parameters
    ----------
    expr : sympy.Expr
    width : float
        Target width in points.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> lines = expression_lines(sum(x ** k for k in range(40)), width=150)
    >>> len(lines) > 1 and all(l.startswith("+ ") for l in lines[1:])
    True
    """
    return _fill(_pieces(expr, width), width)


def _eq_sides(e):
    import sympy as sp
    if isinstance(e, sp.Equality):
        return e.lhs, e.rhs
    if isinstance(e, tuple) and len(e) == 2:
        return e
    return None, e


def math_block(equations, *, width: float = DEFAULT_WIDTH_PT, env: str | None = None) -> str:
    r"""A complete display-math environment for one or more SymPy equations (or expressions).

    One equation that does not fit on a line goes into ``multline*``; a group goes into ``align*``
    aligned at ``=``, long members continued on lines indented by ``\quad``.

    Parameters
    ----------
    equations : iterable of sympy.Equality, sympy.Expr or (lhs, rhs)
        The equations (an expression stands alone).
    width : float
        Target line width in points (345 pt is the article text width at 10 pt).
    env : {None, "align*", "multline*", "equation*"}
        Force an environment (``equation*`` only when it fits).

    Returns
    -------
    str
        ``\begin{env} ... \end{env}``.

    Examples
    --------
    >>> import sympy as sp
    >>> rho, B = sp.symbols("rho B")
    >>> print(math_block([sp.Eq(B, rho ** 2)]))
    \begin{equation*}
    B = \rho^{2}
    \end{equation*}
    """
    eqs = list(equations)
    if not eqs:
        raise ValueError("math_block needs at least one equation")
    rendered = []
    for e in eqs:
        lhs, rhs = _eq_sides(e)
        lt = None if lhs is None else _latex(lhs)
        lw = 0.0 if lt is None else estimate_width(lt + " = ")
        if lt is not None and rhs == 0 and not isinstance(lhs, (int, float)):
            # "P = 0": break P, then "= 0"
            lines = _fill(_pieces(lhs, width), width)
            rendered.append(("zero", lines))
        else:
            lines = _fill(_pieces(rhs, width), width, first_width=width - lw)
            rendered.append((lt, lines))
    fits = all(len(lines) == 1 for _, lines in rendered)
    if env is None:
        env = "equation*" if (len(eqs) == 1 and fits) else ("multline*" if len(eqs) == 1 else "align*")
    if env not in ("align*", "multline*", "equation*"):
        raise ValueError(f"env must be 'align*', 'multline*' or 'equation*', got {env!r}")
    if env == "equation*" and not (len(eqs) == 1 and fits):
        env = "multline*" if len(eqs) == 1 else "align*"
    out = [f"\\begin{{{env}}}"]
    if env in ("equation*", "multline*"):
        lhs_text, lines = rendered[0]
        if lhs_text == "zero":
            body = lines[:-1] + [lines[-1] + " = 0"]
        elif lhs_text is None:
            body = lines
        else:
            body = [f"{lhs_text} = {lines[0]}"] + lines[1:]
        out.append(" \\\\\n".join(body))
    else:
        rows = []
        for lhs_text, lines in rendered:
            if lhs_text == "zero":
                if len(lines) == 1:
                    rows.append(f"{lines[0]} &= 0")
                else:
                    rows.append(f"& {lines[0]}")
                    rows.extend(f"&\\quad {ln}" for ln in lines[1:-1])
                    rows.append(f"&\\quad {lines[-1]} = 0")
            elif lhs_text is None:
                rows.append(f"& {lines[0]}")
                rows.extend(f"&\\quad {ln}" for ln in lines[1:])
            else:
                rows.append(f"{lhs_text} &= {lines[0]}")
                rows.extend(f"&\\quad {ln}" for ln in lines[1:])
        out.append(" \\\\\n".join(rows))
    out.append(f"\\end{{{env}}}")
    return "\n".join(out)


# ------------------------------------------------------------------------------------------------
# documents
# ------------------------------------------------------------------------------------------------

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


def model_repr_latex(model, *, max_rows: int = 24) -> str:
    r"""Notebook display of a model (its ``_repr_latex_``): the name, the stationary equations, the
    invariants and the blocking, as ``$$\begin{aligned} ... \end{aligned}$$`` (from ``model.latex()``).

    A model with more than ``max_rows`` equations shows the first ``max_rows - 1``, a ``\vdots`` row
    and the blocking.

    Parameters
    ----------
    model : MeanFieldModel
        Anything with ``latex(environment=...)`` (one ``&`` per line, the blocking last).
    max_rows : int
        Rows shown, ``>= 2``.

    Returns
    -------
    str

    Raises
    ------
    TypeError
        If ``model`` has no ``latex`` method.
    ValueError
        If ``max_rows < 2``.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> print(model_repr_latex(RandomRouting(1)))
    $$\begin{aligned}
    &\text{RandomRouting(C=1)} \\
    - \rho x_{0} + x_{1} &= 0 \\
    \rho x_{0} - x_{1} &= 0 \\
    x_{0} + x_{1} &= 1 \\
    B &= x_{1}
    \end{aligned}$$
    """
    if not callable(getattr(model, "latex", None)):
        raise TypeError(f"model_repr_latex needs a model with a latex() method, got {type(model).__name__}")
    if isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 2:
        raise ValueError(f"max_rows must be an integer >= 2, got {max_rows!r}")
    body = model.latex(environment="aligned")
    inner = body.split("\n", 1)[1].rsplit("\n", 1)[0]
    rows = inner.split(" \\\\\n")
    if len(rows) > max_rows:
        rows = rows[:max_rows - 1] + [r"&\vdots"] + rows[-1:]
    head = r"&\text{" + escape_text(repr(model)) + "}"
    return "$$\\begin{aligned}\n" + " \\\\\n".join([head] + rows) + "\n\\end{aligned}$$"


# ------------------------------------------------------------------------------------------------
# a strict structural checker
# ------------------------------------------------------------------------------------------------

class LatexCheckError(ValueError):
    """Raised by :func:`check_latex` with ``raise_on_error=True``.

    Parameters
    ----------
    problems : list of str
        Every finding (kept as ``.problems``).
    """

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems[:5]) + (" ..." if len(self.problems) > 5 else ""))


_DISPLAY_ENVS = {"equation", "equation*", "align", "align*", "multline", "multline*", "gather", "gather*",
                 "flalign", "flalign*", "alignat", "alignat*", "displaymath", "math", "eqnarray", "eqnarray*",
                 "dmath", "dmath*", "dgroup", "dgroup*"}
_INNER_MATH_ENVS = {"aligned", "alignedat", "gathered", "split", "cases", "matrix", "pmatrix", "bmatrix",
                    "vmatrix", "Vmatrix", "smallmatrix", "array", "subarray"}
_TEXT_ENVS = {"document", "tabular", "tabular*", "table", "table*", "center", "flushleft", "flushright",
              "itemize", "enumerate", "description", "figure", "figure*", "minipage", "abstract", "quote",
              "quotation", "verbatim", "longtable", "threeparttable", "tablenotes"}
_ALIGN_ENVS = {"align", "align*", "flalign", "flalign*", "alignat", "alignat*", "aligned", "alignedat", "split",
               "cases", "matrix", "pmatrix", "bmatrix", "vmatrix", "Vmatrix", "smallmatrix", "array",
               "tabular", "tabular*", "longtable", "eqnarray", "eqnarray*", "subarray"}
_MATH_ONLY = _GREEK | _BINARY | _RELATION | {"frac", "dfrac", "tfrac", "sqrt", "left", "right", "sum", "prod",
                                             "int", "infty", "mathrm", "operatorname", "bigl", "bigr", "Bigl",
                                             "Bigr", "biggl", "biggr", "binom", "mathbf", "mathcal", "log",
                                             "ln", "exp", "lim", "max", "min", "cdots", "partial", "nabla",
                                             "hat", "bar", "tilde", "vec", "dot", "ddot", "overline",
                                             "underline", "underbrace", "overbrace", "mathbb", "quad"}
_MATH_ONLY -= {"quad", "overline", "underline"}   # also valid in text mode
_TEXT_IN_MATH = {"text", "mbox", "textrm", "textit", "textbf", "hbox", "intertext"}


def _strip_comments(src: str) -> str:
    out = []
    for line in src.split("\n"):
        j = 0
        cut = len(line)
        while j < len(line):
            if line[j] == "\\":
                j += 2
                continue
            if line[j] == "%":
                cut = j
                break
            j += 1
        out.append(line[:cut] + ("\x01" if cut < len(line) else ""))
    return "\n".join(out)


def check_latex(source: str, *, standalone: bool | None = None, raise_on_error: bool = False) -> list[str]:
    r"""Structural problems of a LaTeX source (empty list: none found).

    Checks balanced braces; matched ``\begin``/``\end``; math-only material (``^``, ``_``, ``\frac``,
    greek letters, ``\left`` ...) only in math mode; math environments (``aligned``, ``cases``, ...)
    only inside math, display environments (``align*``, ``multline*``, ...) only outside it; ``$``
    pairs; ``&`` only in alignment environments; no blank line inside math; ``\left``/``\right``
    balanced on every line of a display (lines are separate boxes).

    Parameters
    ----------
    source : str
        LaTeX source.
    standalone : bool, optional
        True also requires ``\documentclass`` and a ``document`` environment; False forbids them.
    raise_on_error : bool
        Raise :class:`LatexCheckError` instead of returning the problems.

    Returns
    -------
    list of str
        The problems, with line numbers.

    Examples
    --------
    >>> check_latex(r"\begin{aligned} x &= 1 \end{aligned}")[0]
    'environment aligned used outside math mode (line 1)'
    >>> check_latex(r"\begin{equation*} x = \frac{1}{2} \end{equation*}")
    []
    """
    problems: list[str] = []
    src = _strip_comments(source)
    has_class = r"\documentclass" in src
    if standalone is True:
        if not has_class:
            problems.append("standalone document without \\documentclass")
        if r"\begin{document}" not in src:
            problems.append("standalone document without \\begin{document}")
    elif standalone is False and (has_class or r"\begin{document}" in src):
        problems.append("snippet contains \\documentclass or a document environment")
    # stack entries: (kind, name, line, math_inside)
    stack: list[tuple[str, str, int, bool]] = []
    pending_text_group = False
    line = 1
    i, n = 0, len(src)
    lr_depth = 0          # \left ... \right balance since the last line break in math

    def math() -> bool:
        return bool(stack) and stack[-1][3]

    def in_align() -> bool:
        for kind, name, _, _ in reversed(stack):
            if kind == "env":
                return name in _ALIGN_ENVS
        return False

    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            nxt = src.find("\n", i + 1)
            if nxt >= 0 and src[i + 1:nxt].strip() == "" and math():
                problems.append(f"blank line (paragraph break) inside math mode (line {line})")
            i += 1
            continue
        if c == "\x01":   # where a comment was
            i += 1
            continue
        if c == "\\":
            j = i + 1
            while j < n and src[j].isalpha():
                j += 1
            if j == i + 1:
                sym = src[i + 1:i + 2]
                if sym == "\\" and math() and lr_depth != 0:
                    problems.append(f"\\left/\\right not balanced on a line of a display (line {line})")
                    lr_depth = 0
                if sym == "[":
                    if math():
                        problems.append(f"\\[ inside math mode (line {line})")
                    stack.append(("delim", "\\[", line, True))
                elif sym == "]" and stack and stack[-1][1] == "\\[":
                    stack.pop()
                elif sym == "(":
                    stack.append(("delim", "\\(", line, True))
                elif sym == ")" and stack and stack[-1][1] == "\\(":
                    stack.pop()
                i = j + 1
                continue
            name = src[i + 1:j]
            i = j
            if name in ("begin", "end"):
                arg, k = _group(src, i)
                i = k
                env = arg.strip()
                if name == "begin":
                    if env in _DISPLAY_ENVS:
                        if math():
                            problems.append(f"display environment {env} inside math mode (line {line})")
                        stack.append(("env", env, line, True))
                        lr_depth = 0
                    elif env in _INNER_MATH_ENVS:
                        if not math():
                            problems.append(f"environment {env} used outside math mode (line {line})")
                        stack.append(("env", env, line, True))
                    elif env in _TEXT_ENVS:
                        if math():
                            problems.append(f"text environment {env} inside math mode (line {line})")
                        stack.append(("env", env, line, False))
                    else:
                        problems.append(f"unknown environment {env} (line {line})")
                        stack.append(("env", env, line, math()))
                else:
                    open_envs = [k for k, e in enumerate(stack) if e[0] == "env" and e[1] == env]
                    if stack and stack[-1][0] != "env" and open_envs:
                        k = open_envs[-1]
                        for _kind, name_, ln, _ in stack[k + 1:]:
                            problems.append(f"unclosed {name_} opened on line {ln} before \\end{{{env}}} "
                                            f"(line {line})")
                        del stack[k:]
                    elif not stack or stack[-1][0] != "env":
                        problems.append(f"\\end{{{env}}} without a matching \\begin (line {line})")
                    elif stack[-1][1] != env:
                        problems.append(f"\\end{{{env}}} closes \\begin{{{stack[-1][1]}}} of line "
                                        f"{stack[-1][2]} (line {line})")
                        stack.pop()
                    else:
                        if env in _DISPLAY_ENVS and lr_depth != 0:
                            problems.append(f"\\left/\\right not balanced in {env} (line {line})")
                        stack.pop()
                continue
            if name in ("left", "right"):
                if not math():
                    problems.append(f"\\{name} outside math mode (line {line})")
                lr_depth += 1 if name == "left" else -1
                continue
            if name in _TEXT_IN_MATH:
                pending_text_group = True
                continue
            if name in _MATH_ONLY and not math():
                problems.append(f"math command \\{name} outside math mode (line {line})")
            continue
        if c == "{":
            if pending_text_group:
                stack.append(("brace", "text", line, False))
                pending_text_group = False
            else:
                stack.append(("brace", "{", line, math()))
            i += 1
            continue
        pending_text_group = False
        if c == "}":
            if not stack or stack[-1][0] != "brace":
                what = "unbalanced }" if not stack else f"}} closes {stack[-1][1]} of line {stack[-1][2]}"
                problems.append(f"{what} (line {line})")
                if stack and stack[-1][0] == "brace":
                    stack.pop()
            else:
                stack.pop()
            i += 1
            continue
        if c == "$":
            dbl = src[i:i + 2] == "$$"
            tok = "$$" if dbl else "$"
            if stack and stack[-1][0] == "delim" and stack[-1][1] == tok:
                stack.pop()
            elif math():
                problems.append(f"{tok} inside math mode (line {line})")
            else:
                stack.append(("delim", tok, line, True))
            i += len(tok)
            continue
        if c in "^_" and not math():
            problems.append(f"{'superscript' if c == '^' else 'subscript'} {c} outside math mode (line {line})")
        if c == "&" and not in_align():
            problems.append(f"alignment tab & outside an alignment environment (line {line})")
        i += 1
    for kind, name, ln, _ in stack:
        problems.append(f"unclosed {'environment ' if kind == 'env' else ''}{name} opened on line {ln}")
    if raise_on_error and problems:
        raise LatexCheckError(problems)
    return problems


# ------------------------------------------------------------------------------------------------
# compiling with a real engine
# ------------------------------------------------------------------------------------------------

@dataclass
class LatexCompileResult:
    """Outcome of :func:`compile_latex`: ``ok`` (exit status 0 and no ``!`` error), the error lines,
    the overfull boxes (``(kind, points)``) and the log."""
    ok: bool
    engine: str
    errors: list = field(default_factory=list)
    overfull: list = field(default_factory=list)
    log: str = ""

    @property
    def max_overfull(self) -> float:
        """The widest overfull box in points (0 when there is none)."""
        return max((pt for _, pt in self.overfull), default=0.0)


def find_tex_engine(preferred=("pdflatex", "lualatex", "xelatex")) -> str | None:
    """The first TeX engine on ``PATH``.

    Parameters
    ----------
    preferred : sequence of str
        Engine names in order of preference.

    Returns
    -------
    str or None
        Its path, None when there is none.

    Examples
    --------
    >>> find_tex_engine(preferred=("no-such-tex-engine",)) is None
    True
    """
    for name in preferred:
        path = shutil.which(name)
        if path:
            return path
    return None


_OVERFULL = re.compile(r"Overfull \\([hv])box \(([\d.]+)pt too (wide|high)\)")


def compile_latex(source: str, *, engine: str | None = None, packages=PACKAGES, timeout: float = 120.0
                  ) -> LatexCompileResult:
    """Compile ``source`` (a whole document, or a snippet that is wrapped by :func:`document`) with a
    real TeX engine in a temporary directory; never writes elsewhere.

    Parameters
    ----------
    source : str
    engine : str, optional
        Path of the engine (default :func:`find_tex_engine`).
    packages : sequence of str
        Packages for a snippet.
    timeout : float
        Seconds.

    Returns
    -------
    LatexCompileResult

    Raises
    ------
    FileNotFoundError
        When no TeX engine is installed (see :func:`find_tex_engine`).

    Examples
    --------
    >>> if find_tex_engine():
    ...     r = compile_latex(r"\\begin{equation*} x = 1 \\end{equation*}")
    ...     assert r.ok and not r.overfull
    """
    exe = engine or find_tex_engine()
    if exe is None:
        raise FileNotFoundError("no TeX engine (pdflatex, lualatex, xelatex) on PATH")
    if r"\documentclass" not in source:
        source = document(source, packages=packages)
    with tempfile.TemporaryDirectory(prefix="symloss-tex-") as tmp:
        tex = os.path.join(tmp, "doc.tex")
        with open(tex, "w", encoding="utf-8") as fh:
            fh.write(source)
        env = dict(os.environ, TEXMFOUTPUT=tmp, openout_any="p")
        proc = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "doc.tex"],
                              cwd=tmp, capture_output=True, text=True, timeout=timeout, env=env, check=False)
        log_path = os.path.join(tmp, "doc.log")
        log = ""
        if os.path.exists(log_path):
            with open(log_path, encoding="utf-8", errors="replace") as fh:
                log = fh.read()
    errors = [ln for ln in log.splitlines() if ln.startswith("!")]
    overfull = [(f"{m.group(1)}box", float(m.group(2))) for m in _OVERFULL.finditer(log)]
    return LatexCompileResult(ok=proc.returncode == 0 and not errors, engine=os.path.basename(exe),
                              errors=errors, overfull=overfull, log=log)
