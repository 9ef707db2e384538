"""LaTeX that compiles: every snippet symloss emits (``derive --latex``, ``--standalone``, ``table --latex``,
``twoqueue --latex``, ``.to_latex()`` of results and tables, ``_repr_latex_``) passes the strict checker
and, where a TeX engine is installed, compiles with pdflatex without errors -- and the derivations
without overfull lines (the C = 3, d = 2 eliminant used to be one line 1232 pt too wide)."""
from __future__ import annotations

import pytest

from symloss.cli import main
from symloss.core.latex import (
    check_latex,
    compile_latex,
    document,
    estimate_width,
    expression_lines,
    find_tex_engine,
    math_block,
)

ENGINE = find_tex_engine()
needs_tex = pytest.mark.skipif(ENGINE is None, reason="no TeX engine installed (the source checks still run)")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------------------------------------
# the checker
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("src, problem", [
    (r"\begin{aligned} x &= 1 \end{aligned}", "aligned used outside math mode"),
    (r"\begin{equation*} x = {1 \end{equation*}", "unclosed { opened on line 1 before"),
    (r"text with x^2 in it", "superscript ^ outside math mode"),
    (r"a & b", "alignment tab"),
    ("\\begin{align*}\nx &= 1\n\ny &= 2\n\\end{align*}", "blank line"),
    ("\\begin{multline*}\n\\left( a + b \\\\\n c \\right)\n\\end{multline*}", r"\left/\right not balanced"),
    (r"\begin{align*} x &= 1", "unclosed environment align*"),
    (r"$ \begin{align*} x \end{align*} $", "display environment align* inside math mode"),
    (r"\frac{1}{2}", r"math command \frac outside math mode"),
    (r"\begin{nonsense} \end{nonsense}", "unknown environment"),
    (r"\end{align*}", "without a matching"),
    (r"x}", "unbalanced }"),
])
def test_checker_finds_the_problem(src, problem):
    found = check_latex(src)
    assert any(problem in p for p in found), found


@pytest.mark.parametrize("src", [
    r"\begin{equation*} \frac{\rho^{2}}{4} \end{equation*}",
    r"\begin{equation*} \begin{aligned} x &= 1 \\ y &= 2 \end{aligned} \end{equation*}",
    "\\begin{align*}\nx &= 1 % a comment\n% a comment line is not a blank line\ny &= 2\n\\end{align*}",
    r"Text \$ 5\% and $x_1$ \text{in} math: $\text{a_b is fine? no}$".replace("a_b", "ab"),
    r"\begin{tabular}{ll} a & b \\ \end{tabular}",
    "\\begin{multline*}\n\\bigl( a + b \\\\\n+ c \\bigr)\n\\end{multline*}",
])
def test_checker_accepts_valid_latex(src):
    assert check_latex(src) == []


def test_checker_standalone_flag():
    doc = document(r"\begin{equation*} x \end{equation*}")
    assert check_latex(doc, standalone=True) == []
    assert any("snippet contains" in p for p in check_latex(doc, standalone=False))
    assert any("without \\documentclass" in p for p in check_latex("$x$", standalone=True))


# ------------------------------------------------------------------------------------------------
# line breaking
# ------------------------------------------------------------------------------------------------

def test_long_expressions_are_broken_within_the_width():
    import sympy as sp

    import symloss
    B = sp.Symbol("B", positive=True)
    el = sp.collect(symloss.PowerOfD(3, 2).eliminant().as_expr(), B)
    assert estimate_width(sp.latex(el)) > 1000            # the one-line form was far too wide
    for width in (300.0, 200.0):
        lines = expression_lines(el, width=width)
        assert len(lines) > 3
        assert all(estimate_width(ln) <= width + 1e-9 for ln in lines[1:])
        assert all(ln.startswith(("+ ", "- ")) for ln in lines[1:])
    block = math_block([sp.Eq(el, 0)])
    assert block.startswith(r"\begin{multline*}") and block.rstrip().endswith(r"\end{multline*}")
    assert check_latex(block) == []
    short = math_block([sp.Eq(B, sp.Symbol("rho") ** 2)])
    assert short.startswith(r"\begin{equation*}")


def test_broken_lines_reassemble_to_the_expression():
    import sympy as sp
    x, y = sp.symbols("x y")
    expr = sum((k + 1) * x ** k * y ** (40 - k) for k in range(40))
    lines = expression_lines(expr, width=150)
    assert len(lines) > 5
    assert " ".join(lines).replace("  ", " ") == sp.latex(expr).replace("  ", " ")


# ------------------------------------------------------------------------------------------------
# what the CLI emits
# ------------------------------------------------------------------------------------------------

DERIVE_CASES = [("power", "2", "2"), ("retrial", "2", "2"), ("power", "3", "2"), ("retrial", "3", "2"),
                ("jsq", "3", None), ("random", "2", None), ("power", "2", "3")]


def _derive(capsys, policy, C, d, *extra):
    argv = ["derive", "--policy", policy, "--C", C] + (["--d", d] if d else []) + ["--latex", *extra]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return out


@pytest.mark.parametrize("policy, C, d", DERIVE_CASES)
def test_derive_latex_snippet_is_complete_math(capsys, policy, C, d):
    out = _derive(capsys, policy, C, d)
    assert check_latex(out, standalone=False) == []
    assert "aligned" not in out
    assert out.lstrip().startswith("% symloss: ")          # provenance as comments


@needs_tex
@pytest.mark.parametrize("policy, C, d", DERIVE_CASES)
def test_derive_latex_compiles_without_overfull_lines(capsys, policy, C, d):
    out = _derive(capsys, policy, C, d)
    res = compile_latex(out, packages=("amsmath", "amssymb"))
    assert res.ok, res.errors
    assert res.max_overfull <= 1.0, res.overfull
    doc = _derive(capsys, policy, C, d, "--standalone")
    assert check_latex(doc, standalone=True) == []
    res = compile_latex(doc)
    assert res.ok and res.max_overfull <= 1.0, (res.errors, res.overfull)


@needs_tex
def test_derive_two_column_width(capsys):
    out = _derive(capsys, "power", "3", "2", "--width", "200")
    doc = "\\documentclass[twocolumn]{article}\n\\usepackage{amsmath}\n\\begin{document}\n" + out + "\\end{document}\n"
    res = compile_latex(doc)
    assert res.ok and res.max_overfull <= 1.0, (res.errors, res.overfull)


def test_derive_latex_to_a_file_and_errors(capsys, tmp_path):
    path = tmp_path / "d.tex"
    code, out, _ = run(capsys, "derive", "--policy", "power", "--C", "2", "--d", "2", "--latex", str(path))
    assert code == 0 and "stationary equations" in out        # text on stdout, LaTeX in the file
    assert check_latex(path.read_text(), standalone=False) == []
    code, _, err = run(capsys, "derive", "--policy", "power", "--C", "2", "--d", "2", "--standalone")
    assert code == 2 and "--standalone is used with --latex" in err


def test_table_latex(capsys, tmp_path):
    code, out, _ = run(capsys, "table", "--C", "1:3", "--d", "2", "--dt", "d+1", "--dps", "10", "--latex")
    assert code == 0
    assert r"\toprule" in out and r"$\tilde d$" in out and r"$0.94963560" in out
    assert check_latex(out, standalone=False) == []
    if ENGINE:
        res = compile_latex(out)
        assert res.ok, res.errors


def test_twoqueue_latex(capsys):
    code, out, _ = run(capsys, "twoqueue", "--N", "2", "--rho", "3/2", "--method", "exact", "--latex")
    assert code == 0 and r"\frac{27}{563}" in out
    assert check_latex(out) == []
    if ENGINE:
        assert compile_latex(out).ok


# ------------------------------------------------------------------------------------------------
# to_latex of results and tables
# ------------------------------------------------------------------------------------------------

def _results():
    import symloss
    from symloss.sweeps import threshold_table
    out = {
        "FixedPointResult": symloss.RetrialOfD(2, 2).fixed_point(1, dps=40),
        "OnlineOptimum": symloss.OverloadedLossNetwork(50, 0.5, 1, 2, 1).online_optimal(),
        "SimulationResult": symloss.simulate("power", N=20, C=2, rho=1.0, d=2, events=20_000, seed=1),
        "SupermarketFixedPoint": symloss.Supermarket(2, 0.7).fixed_point(20),
        "ResultTable": threshold_table([2, 3], 2, lambda d: [d + 1], dps=12),
        "Estimate": symloss.Estimate(1.25, 0.05, 10),
    }
    return out


@pytest.fixture(scope="module")
def results():
    return _results()


@pytest.mark.parametrize("name", ["FixedPointResult", "OnlineOptimum", "SimulationResult", "SupermarketFixedPoint",
                                  "ResultTable", "Estimate"])
def test_to_latex_of_results_compiles(results, name):
    r = results[name]
    tex = r.to_latex()
    assert check_latex(tex, standalone=False) == []
    wrapped = r.to_latex(caption=f"A {name} & more", label=f"tab:{name}")
    assert wrapped.startswith(r"\begin{table}") and r"\&" in wrapped and check_latex(wrapped) == []
    assert check_latex(r._repr_latex_()) == []
    if ENGINE:
        res = compile_latex(wrapped)
        assert res.ok, res.errors


def test_to_latex_carries_the_digits(results):
    tex = results["FixedPointResult"].to_latex()
    assert "0.06755895217845314521728442471585155925099" in tex      # 40 digits, not 15
    # paper mode (issue 26): the residual, the method text and the dps are internals, not printed; the
    # status of the uniqueness is (the old field dump printed the residual as 1.6313 \times 10^{-55})
    assert "residual" not in tex and "1.6313" not in tex and "NOT CHECKED" in tex
