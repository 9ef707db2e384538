r"""Checking LaTeX: a strict structural checker (:func:`check_latex`: braces, environments, math mode,
alignment tabs, blank lines in math, ``\left``/``\right`` pairing per line) and a real TeX engine
(:func:`compile_latex`, :func:`find_tex_engine`) reporting errors and overfull boxes.

Split out of :mod:`symloss.core.latex` (which re-exports every name).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field

from .latex_lines import _BINARY, _GREEK, _RELATION, _group
from .latex_text import PACKAGES, document

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
    the overfull boxes (``(kind, points)``) and the log.

    Parameters
    ----------
    ok : bool
        The document compiled without error.
    engine : str
        The TeX engine that ran.
    errors : list of str, optional
        The error lines of the log.
    overfull : list of (str, float), optional
        The overfull boxes: ``("h" or "v", points)``.
    log : str, optional
        The engine's log.
    """
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
    """Compile ``source`` (a whole document, or a snippet that is wrapped by ``document``) with a
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
