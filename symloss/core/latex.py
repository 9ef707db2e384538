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

The pieces live in modules of their own, all re-exported here: :mod:`~symloss.core.latex_text`
(:func:`escape_text`, :func:`number_latex`, :func:`document`), :mod:`~symloss.core.latex_lines` (width
estimate, line breaking, :func:`math_block`) and :mod:`~symloss.core.latex_check` (checker, compiler);
this module keeps :func:`model_repr_latex`.
"""
from __future__ import annotations

from .latex_check import (  # noqa: F401 - re-exported
    _ALIGN_ENVS,
    _DISPLAY_ENVS,
    _INNER_MATH_ENVS,
    _MATH_ONLY,
    _OVERFULL,
    _TEXT_ENVS,
    _TEXT_IN_MATH,
    LatexCheckError,
    LatexCompileResult,
    _strip_comments,
    check_latex,
    compile_latex,
    find_tex_engine,
)
from .latex_lines import (  # noqa: F401 - re-exported
    _BINARY,
    _DELIM_SIZES,
    _GREEK,
    _RELATION,
    _SPACES,
    DEFAULT_WIDTH_PT,
    TEXTWIDTH_PT,
    _eq_sides,
    _fill,
    _group,
    _is_negative,
    _latex,
    _needs_parens,
    _ordered_terms,
    _pieces,
    estimate_width,
    expression_lines,
    math_block,
)
from .latex_text import (  # noqa: F401 - re-exported
    _FRAC,
    _NUM,
    _TEXT_ESCAPES,
    PACKAGES,
    document,
    escape_text,
    number_latex,
)

__all__ = ["escape_text", "number_latex", "math_block", "expression_lines", "estimate_width", "document",
           "check_latex", "compile_latex", "find_tex_engine", "LatexCompileResult", "LatexCheckError",
           "TEXTWIDTH_PT", "DEFAULT_WIDTH_PT", "PACKAGES", "model_repr_latex"]

#: the docstring examples of the names that moved to other modules still run with this module's (doctest)
__test__ = {name: globals()[name] for name in (
    "document", "escape_text", "number_latex", "estimate_width", "expression_lines", "math_block",
    "check_latex", "compile_latex", "find_tex_engine")}


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


