r"""Displayed equations that fit the page: the width estimate (:func:`estimate_width`, points at 10 pt
Computer Modern, display style), long SymPy sums broken at ``+``/``-`` signs of any depth
(:func:`expression_lines`) and complete ``align*``/``multline*`` environments (:func:`math_block`).

Split out of :mod:`symloss.core.latex` (which re-exports every name).
"""
from __future__ import annotations

import re

#: ``\textwidth`` of the standard ``article`` class at 10 pt (points).
TEXTWIDTH_PT = 345.0
#: Default target width of a displayed line: the text width less the ``multline`` indent and a margin.
DEFAULT_WIDTH_PT = 300.0
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
