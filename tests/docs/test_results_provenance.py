"""Result objects show the digits that were asked for and convert to pandas/HTML/LaTeX; every output
records its provenance (versions, dps, seeds, command line, date): JSON, CSV headers, certificates."""
from __future__ import annotations

import json
import re

import mpmath
import pytest

import symloss
from symloss.core.provenance import command_context, provenance, provenance_lines, read_provenance_lines
from symloss.core.results import ResultMixin, ResultTable


def test_str_of_a_40_digit_result_shows_40_digits():
    fp = symloss.RetrialOfD(2, 2).fixed_point(1, dps=40)
    text = str(fp)
    with mpmath.workdps(60):
        exact = mpmath.nstr((mpmath.cbrt(2) - 1) ** 2, 40)
    assert f"blocking: {exact}" in text                  # 40 digits, not the 15 of mp.dps
    assert len(exact.replace("0.", "").lstrip("0")) >= 39
    assert mpmath.mp.dps == 15


def test_every_result_class_has_the_mixin():
    names = ["FixedPointResult", "CrossingResult", "OdeResult", "BlockingSeries", "TwoQueueDistribution",
             "SimulationResult", "ExactFiniteNResult", "RefinedMeanFieldResult", "FiniteNThresholdResult",
             "SupermarketFixedPoint", "OdeSolution", "SupermarketSimulationResult", "DistanceResult",
             "PairApproximationResult", "Estimate", "SweepSummary"]
    for n in names:
        assert issubclass(getattr(symloss, n), ResultMixin), n
    from symloss.admission.results import Decomposition, OnlineOptimum
    from symloss.admission.study import DecompositionStudy
    for cls in (Decomposition, OnlineOptimum, DecompositionStudy):
        assert issubclass(cls, ResultMixin)


def test_display_and_frames():
    opt = symloss.OverloadedLossNetwork(50, 0.5, 1, 2, 1).online_optimal(dps=25)
    html = opt._repr_html_()
    assert html.startswith("<table>") and "threshold" in html
    latex = opt._repr_latex_()
    assert latex.startswith("$$\\begin{array}") and latex.endswith("$$")
    frame = opt.to_frame()
    assert frame.shape[0] == 1 and len(frame.loc[0, "reward"].replace(".", "")) >= 25
    assert str(symloss.Estimate(1.25, 0.05, 10)) == "1.2500 ± 0.0500"   # a class's own __str__ is kept
    study = symloss.OverloadedLossNetwork.decomposition_study([10, 20], 0.5, 1, 2, 1, horizon=2.0,
                                                              replications=2, c=(8,), seed=3)
    f = study.to_frame()
    assert list(f["N"]) == [10, 20] and "C_short" in f.columns     # a study: one row per (N, c)


def test_result_table(tmp_path):
    import pandas as pd

    from symloss.sweeps import threshold_table
    t = threshold_table([2, 3], 2, lambda d: [d + 1], dps=12)
    assert isinstance(t, ResultTable) and len(t) == 2
    text = str(t)
    assert re.search(r"3\s+2\s+3\s+0\.94963560400", text)
    path = tmp_path / "t.csv"
    t.to_csv(path)
    prov = read_provenance_lines(path)
    assert prov["dps"] == 12 and prov["symloss"] == symloss.__version__
    back = pd.read_csv(path, comment="#")
    assert list(back["C"]) == [2, 3] and back.loc[1, "threshold"] == pytest.approx(0.949635604003, rel=1e-11)
    data = json.loads(t.to_json())
    assert data["rows"][1]["threshold"] == "0.949635604003" and data["dps"] == 12
    assert t.to_frame().shape == (2, 6)
    assert "<table>" in t._repr_html_()
    with pytest.raises(ValueError, match="dt must be > d"):
        threshold_table([2], 3, [3])


def test_provenance_record():
    p = provenance(dps=40, seed=7, extra_field=1)
    assert p["dps"] == 40 and p["seed"] == 7 and p["extra_field"] == 1
    assert {"symloss", "python", "dependencies", "command", "date", "platform", "git"} <= set(p)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", p["date"])
    import numpy as np
    assert provenance(seed=np.random.SeedSequence(5))["seed"] == "5"
    with command_context(["table", "--C", "1:2", "--csv", "a b.csv"]):
        assert provenance()["command"] == "symloss table --C 1:2 --csv 'a b.csv'"
    assert all(ln.startswith("# ") and "\n" not in ln for ln in provenance_lines(p))


def test_certificates_carry_provenance(tmp_path, capsys):
    from proofs_check.cli import main
    path = tmp_path / "certs.json"
    assert main(["--claim", "erlang.recursion", "--json", str(path), "--quiet"]) == 0
    data = json.loads(path.read_text())
    prov = data["provenance"]
    assert prov["symloss"] == symloss.__version__ and prov["claims"] == 1
    assert prov["command"].startswith("python -m proofs_check --claim erlang.recursion")
    assert data["claims"][0]["id"] == "erlang.recursion"
    capsys.readouterr()
    assert main(["--recheck", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"certificates written by symloss {symloss.__version__} on {prov['date']}" in out
