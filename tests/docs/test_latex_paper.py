"""Paper-mode LaTeX (issue 26): every result kind prints its key quantities with math names, rounded
honestly (an enclosure prints only its certified digits), no Python reprs or internals; series as LaTeX;
PROVED / EVIDENCE and "better at every load" in threshold tables. Every kind is compiled together in one
document with pdflatex where it exists; otherwise (and always) parsed strictly."""
from __future__ import annotations

import decimal
import re
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

import symloss
from symloss.core.latex import check_latex, compile_latex, document, find_tex_engine, model_repr_latex
from symloss.core.results import (
    BOOKTABS_COMMENT,
    Quantity,
    ResultTable,
    certified_digits,
    result_latex,
    result_repr_latex,
    round_significant,
)

ENGINE = find_tex_engine()
decimal.getcontext().prec = 120      # the exact comparisons below

# Commands a paper-mode snippet may use (anything else is a finding of the strict parse).
KNOWN_COMMANDS = {
    "begin", "end", "toprule", "midrule", "bottomrule", "hline", "text", "tfrac", "frac", "times", "rho", "tilde",
    "lambda", "mu", "log", "left", "right", "bigl", "bigr", "approx", "infty", "par", "smallskip", "footnotesize",
    "caption", "label", "centering", "lvert", "rvert", "quad", "mathrm", "min", "max", "vdots", "operatorname",
    "big", "to", "_", "&", "%", "#", "$", "{", "}", ",", "\\", "textbackslash", "multicolumn", "hat", "cdot",
}
REPRS = ("None", "nan", "array(", "<", "object at", "mpf(", "fmpq(", "arb(", "**")


def strict_parse(tex: str) -> list[str]:
    """Findings of a strict parse: the structural checker, unknown commands, ``_`` outside math,
    Python reprs in the printed text (comments excluded)."""
    problems = list(check_latex(tex))
    body = "\n".join(ln for ln in tex.splitlines() if not ln.lstrip().startswith("%"))
    for name in re.findall(r"\\([A-Za-z]+|.)", body):
        if name not in KNOWN_COMMANDS:
            problems.append(f"unknown command \\{name}")
    # text outside math: drop $...$ and display environments, then look for bare _ and reprs
    text = re.sub(r"\$[^$]*\$", " ", body)
    text = re.sub(r"\\begin\{(equation\*|multline\*|aligned)\}.*?\\end\{\1\}", " ", text, flags=re.S)
    if re.search(r"(?<!\\)_", text):
        problems.append("_ outside math")
    for r in REPRS:
        pat = r"\b" + r + r"\b" if r.isalpha() else re.escape(r)
        if re.search(pat, body):
            problems.append(f"Python repr {r!r} in the output")
    return problems


@pytest.fixture(scope="module")
def kinds():
    """One result of every kind (fast settings)."""
    from symloss.meanfield.certified import certified_threshold
    from symloss.sweeps import threshold_table
    out = {
        "FixedPointResult": symloss.RetrialOfD(2, 2).fixed_point(1, dps=40),
        "CrossingResult": symloss.crossing_loads(3, 2, 3, dps=15),
        "DominanceResult": symloss.dominance(symloss.RetrialOfD(2, 3), symloss.PowerOfD(2, 2), rho_min=0.5,
                                             rho_max=10, dps=15),
        "CertifiedComparison": certified_threshold(3, 2, 3, dps=20),
        "BlockingSeries": symloss.blocking_expansion(symloss.PowerOfD(3, 3), 0, n=6),
        "BlockingSeries@oo": symloss.blocking_expansion(symloss.RetrialOfD(3, 2), sp.oo, n=4),
        "TwoQueueDistribution": symloss.TwoQueueJSQ(2, Fraction(3, 2)).stationary_distribution("exact"),
        "TwoQueueDistribution-mp": symloss.TwoQueueJSQ(20, 15).stationary_distribution("mp", dps=30),
        "SimulationResult": symloss.simulate("power", N=20, C=2, rho=1.0, d=2, events=20_000, seed=1),
        "SupermarketFixedPoint": symloss.Supermarket(2, 0.7).fixed_point(20),
        "OnlineOptimum": symloss.OverloadedLossNetwork(50, 0.5, 1, 2, 1).online_optimal(),
        "Estimate": symloss.Estimate(1.25, 0.05, 10),
        "ResultTable": threshold_table([2, 3], 2, lambda d: [d + 1], dps=12),
        "ResultTable-certified": threshold_table([2, 3], 2, lambda d: [d + 1], dps=12, certified=True),
    }
    return out


def snippet(name, r) -> str:
    """The paper-mode LaTeX of a result as a text-mode snippet."""
    if name.startswith("TwoQueue"):
        return "\\begin{equation*}\n" + r.to_latex() + "\n\\end{equation*}"
    if name == "CertifiedComparison" and not hasattr(r, "to_latex"):
        return result_latex(r)      # until certified.py gives it the mixin (see the report of issue 26)
    return r.to_latex()


ALL = ["FixedPointResult", "CrossingResult", "DominanceResult", "CertifiedComparison", "BlockingSeries",
       "BlockingSeries@oo", "TwoQueueDistribution", "TwoQueueDistribution-mp", "SimulationResult",
       "SupermarketFixedPoint", "OnlineOptimum", "Estimate", "ResultTable", "ResultTable-certified"]


@pytest.mark.parametrize("name", ALL)
def test_every_kind_parses_strictly(kinds, name):
    tex = snippet(name, kinds[name])
    assert strict_parse(tex) == [], tex
    if r"\toprule" in tex:
        assert tex.splitlines()[0] == BOOKTABS_COMMENT          # the package is named
    assert max(len(ln) for ln in tex.splitlines()) < 260, tex  # no 1000-character field dumps


def test_every_kind_compiles_in_one_document(kinds):
    body = "\n\n".join(snippet(n, kinds[n]) for n in ALL)
    assert check_latex(document(body), standalone=True) == []
    if ENGINE is None:
        pytest.skip("no TeX engine: the strict parse above is the check")
    res = compile_latex(document(body))
    assert res.ok, res.errors
    assert res.max_overfull <= 1.0, res.overfull          # nothing runs off the page


@pytest.mark.parametrize("name", [n for n in ALL if not n.startswith("ResultTable")])
def test_repr_latex_is_math(kinds, name):
    r = kinds[name]
    out = r._repr_latex_() if hasattr(r, "_repr_latex_") else result_repr_latex(r)
    assert out.startswith("$$") and out.endswith("$$")
    assert check_latex(out) == []
    assert not re.search(r"\bNone\b|\bnan\b|array\(|<array", out), out


def test_models_have_a_latex_display():
    out = model_repr_latex(symloss.RetrialOfD(2, 2))
    assert out.startswith("$$\\begin{aligned}") and out.endswith("\\end{aligned}$$") and check_latex(out) == []
    assert "B &=" in out
    big = model_repr_latex(symloss.PowerOfD(60, 2))
    assert r"\vdots" in big and big.count(r"\\") <= 25 and check_latex(big) == []
    with pytest.raises(ValueError, match="max_rows"):
        model_repr_latex(symloss.PowerOfD(2, 2), max_rows=1)
    with pytest.raises(TypeError, match="latex"):
        model_repr_latex(3)


# ------------------------------------------------------------------------------------------------
# honest rounding
# ------------------------------------------------------------------------------------------------

def test_certified_digits_are_the_correct_rounding_of_every_point_inside():
    import random
    rng = random.Random(5)
    for _ in range(300):
        x = Decimal(rng.randint(1, 10 ** 30)) / Decimal(10) ** rng.randint(0, 40)
        w = Decimal(rng.randint(1, 9)) * Decimal(10) ** (x.adjusted() - rng.randint(2, 25))
        lo, hi = x - w, x + w
        text = certified_digits(str(lo), str(hi))
        if text is None:          # the ends straddle a rounding boundary of the leading digit
            q = Decimal(1).scaleb(hi.adjusted())
            assert lo.quantize(q) != hi.quantize(q)
            continue
        k = len(Decimal(text).as_tuple().digits)
        for y in (lo, hi, x, lo + (hi - lo) * Decimal(rng.random())):   # every point rounds to the text
            q = Decimal(text).as_tuple().exponent
            assert y.quantize(Decimal(1).scaleb(q)) == Decimal(text), (lo, hi, text, y)
        # and one digit more would not be certified
        q = Decimal(1).scaleb(Decimal(text).as_tuple().exponent - 1)
        assert lo.quantize(q) != hi.quantize(q) or k >= 31
    assert certified_digits("-1e-3", "1e-3") is None
    assert certified_digits("0.949635604002727", "0.949635604002728", digits=6) == "0.949636"
    with pytest.raises(ValueError, match="lo"):
        certified_digits("2", "1")


def test_round_significant_never_pads():
    assert round_significant("2.5", 9) == "2.5"
    assert round_significant(Fraction(1, 3).numerator / 3, 4) == "0.3333"
    assert round_significant("9.996", 3) == "10.0"
    with pytest.raises(ValueError, match="digits"):
        round_significant("1.5", 0)


def test_an_enclosure_prints_only_its_certified_digits(kinds):
    r = kinds["ResultTable-certified"]
    row = r.rows()[1]
    lo, hi = Decimal(row["threshold_lo"]), Decimal(row["threshold_hi"])
    tex = r.to_latex()
    printed = re.search(r"\$(0\.9496[0-9]*)\$", tex).group(1)
    q = Decimal(printed).as_tuple().exponent
    assert lo.quantize(Decimal(1).scaleb(q)) == hi.quantize(Decimal(1).scaleb(q)) == Decimal(printed)
    # the enclosure has width <= 1e-12 at dps = 12: 11 digits are certified here, not the 12 asked for
    assert len(printed) - 2 == 11
    # a 40-digit fixed point: its bracket prints no digit beyond what lo and hi share
    fp = kinds["FixedPointResult"]
    tex = fp.to_latex(columns=["blocking_bracket"])
    val = re.search(r"\$([0-9.]+)\$", tex.splitlines()[-3]).group(1)
    lo, hi = (Decimal(mpmath.nstr(v, 60)) for v in fp.blocking_bracket)
    q = Decimal(1).scaleb(Decimal(val).as_tuple().exponent)
    assert lo.quantize(q) == hi.quantize(q) == Decimal(val)


def test_digits_and_columns(kinds):
    fp = kinds["FixedPointResult"]
    tex = fp.to_latex(digits=6, columns=["rho", "blocking"])
    assert r"$B$ & $0.0675590$" in tex and r"$\rho$" in tex          # 6 significant digits, not 6 decimals
    assert "x_{0}" not in tex
    with pytest.raises(ValueError, match="columns has 'nope'.*valid: .*blocking"):
        fp.to_latex(columns=["nope"])
    with pytest.raises(ValueError, match="digits"):
        fp.to_latex(digits=0)
    full = fp.to_latex()
    for internal in ("seconds", "residual", "method", "dps", "certificate", "verification"):
        assert internal not in full
    s = kinds["BlockingSeries"]
    assert "**" not in s.to_latex() and r"\frac{\rho^{39}}{13824}" in s.to_latex()
    assert s.to_latex(digits=4).count(r"\approx") == 1 and r"7.234 \times 10^{-5}" in s.to_latex(digits=4)
    with pytest.raises(ValueError, match="no columns"):
        s.to_latex(columns=["terms"])
    tq = kinds["TwoQueueDistribution-mp"]
    assert "4.14560649156732791723909927877" in tq.to_latex()          # 30 digits (dps 30)
    assert r"4.146 \times 10^{-8}" in tq.to_latex(digits=4)
    with pytest.raises(ValueError, match="valid: blocking"):
        tq.to_latex(columns=["p"])


def test_float_two_queue_law_prints_no_more_than_its_error_supports():
    res = symloss.TwoQueueJSQ(30, 25).stationary_distribution("float")
    tex = res.to_latex(columns=["blocking"])
    mant = re.search(r"&= ([0-9.]+)", tex).group(1)
    sig = len(mant.replace(".", "").lstrip("0"))
    allowed = max(1, min(15, int(-mpmath.log10(max(res.error, res.residual, 2.0 ** -52)))))
    assert sig <= allowed


def test_declared_quantities_mechanism():
    from dataclasses import dataclass

    from symloss.core.results import ResultMixin

    @dataclass
    class R(ResultMixin):
        rho: str
        lo: str
        hi: str
        seconds: float
        latex_quantities = {"rho": (r"\rho", "number"), "b": (r"B", "enclosure", ("lo", "hi"))}

        @property
        def b(self):
            return None

        def to_dict(self):
            return {"rho": self.rho, "lo": self.lo, "hi": self.hi, "seconds": self.seconds}

    tex = R("1.5", "0.123456", "0.123459", 3.0).to_latex()
    assert r"$B$ & $0.12346$" in tex and "seconds" not in tex and "lo" not in tex.replace("\\toprule", "")
    with pytest.raises(ValueError, match="kind"):
        Quantity("x", "x", "weird")


# ------------------------------------------------------------------------------------------------
# PROVED / EVIDENCE and "better at every load"
# ------------------------------------------------------------------------------------------------

def test_threshold_table_says_evidence_and_explains_zero(kinds, tmp_path):
    import pandas as pd

    from symloss.core.provenance import read_provenance_lines
    t = kinds["ResultTable"]
    assert "EVIDENCE" in str(t) and "better at every load" in str(t).splitlines()[2]
    tex = t.to_latex()
    assert "EVIDENCE" in tex and "better at every load" in tex and "$0.0$" not in tex
    assert "seconds" not in tex                                  # no wall times in a paper table
    assert "EVIDENCE" in t._repr_latex_() and "EVIDENCE" in t._repr_html_()
    path = tmp_path / "t.csv"
    t.to_csv(path)
    prov = read_provenance_lines(path)
    assert prov["status"].startswith("EVIDENCE") and "every load" in " ".join(prov["notes"])
    back = pd.read_csv(path, comment="#")
    assert back.loc[0, "threshold"] == 0                         # the data stays numeric


def test_certified_threshold_table_is_proved_per_row(kinds, tmp_path):
    import pandas as pd
    t = kinds["ResultTable-certified"]
    rows = t.rows()
    assert [r["status"] for r in rows] == ["PROVED", "PROVED"]
    assert t.meta["status"].startswith("PROVED")
    lo, hi = Fraction(rows[1]["threshold_lo"]), Fraction(rows[1]["threshold_hi"])
    ref = Fraction(symloss.threshold_load(3, 2, 3, dps=20))        # an independent computation (its exact value)
    assert lo <= ref <= hi and hi - lo <= Fraction(1, 10 ** 12)
    assert "PROVED" in t.to_latex() and t.to_latex().count("PROVED") >= 3
    path = tmp_path / "c.csv"
    t.to_csv(path)
    assert list(pd.read_csv(path, comment="#")["status"]) == ["PROVED", "PROVED"]


def test_certified_table_marks_a_failed_certificate_as_evidence(monkeypatch):
    """Mutation: when the re-check refuses the certificate, the row is not PROVED."""
    from symloss.meanfield import certified
    from symloss.sweeps import threshold_table

    def refuse(*a, **k):
        raise certified.CertificateMismatch("tampered")
    monkeypatch.setattr(certified, "verify_comparison", refuse)
    t = threshold_table([3], 2, [3], dps=10, certified=True)
    row = t.rows()[0]
    assert row["status"] == "EVIDENCE" and "tampered" in row["error"] and row["threshold_lo"] is None
    assert "EVIDENCE" in t.meta["status"]
    with pytest.raises(TypeError, match="certified"):
        threshold_table([3], 2, [3], certified="yes")


def test_certified_comparison_zero_threshold_is_written_out():
    from symloss.meanfield.certified import certified_threshold
    r = certified_threshold(2, 2, 3, dps=15)
    assert r.threshold == {"value": "0"}
    tex = result_latex(r)
    assert "better at every load" in tex and strict_parse(tex) == []


def test_certified_comparison_has_the_mixin():
    from symloss import PowerOfD, RetrialOfD, certified_comparison
    from symloss.meanfield.certified import CertifiedComparison
    assert issubclass(CertifiedComparison, symloss.core.results.ResultMixin)
    tex = certified_comparison(RetrialOfD(3, 3), PowerOfD(3, 2), dps=15).to_latex()
    assert r"\rho^*" in tex and "crossings" in tex and strict_parse(tex) == []


def test_result_table_validation():
    with pytest.raises(ValueError, match="not a column"):
        ResultTable(["a"], [{"a": 1}], quantities={"b": ("b", "number")})
    t = ResultTable(["a"], [{"a": 1}])
    with pytest.raises(ValueError, match="not a column"):
        t.to_latex(columns=["z"])
