"""Every CSV file symloss writes is a plain header + rows file (``pandas.read_csv(path)``, no options);
its provenance is in the sidecar ``<name>.csv.provenance.json``."""
from __future__ import annotations

import io
import json

import mpmath
import pandas as pd
import pytest

import symloss
from symloss.core.provenance import (
    SIDECAR_SUFFIX,
    read_csv_provenance,
    read_provenance_lines,
    sidecar_path,
    write_csv,
)
from symloss.core.results import ResultTable


def _plain_csv(path):
    text = path.read_text(encoding="utf-8")
    assert not any(line.startswith("#") for line in text.splitlines())
    return pd.read_csv(path)


def test_write_csv_rows_and_sidecar(tmp_path):
    path = tmp_path / "t.csv"
    prov = symloss.core.provenance.provenance(dps=20, seed=3)
    side = write_csv([{"C": 2, "x": mpmath.mpf(1) / 3, "v": [1, 2], "n": None}, {"C": 3, "x": 0.5}], path, prov,
                     meta={"status": "EVIDENCE: a scan", "notes": ["0 means better at every load"]})
    assert side == sidecar_path(path) and side.name == "t.csv" + SIDECAR_SUFFIX
    back = _plain_csv(path)
    assert list(back.columns) == ["C", "x", "v", "n"] and list(back["C"]) == [2, 3]
    assert back.loc[0, "x"] == pytest.approx(1 / 3, rel=1e-15) and back.loc[0, "v"] == "[1, 2]"
    assert pd.isna(back.loc[0, "n"]) and pd.isna(back.loc[1, "v"])
    info = json.loads(side.read_text())
    assert info == read_csv_provenance(path)
    assert info["csv"] == "t.csv" and info["columns"] == ["C", "x", "v", "n"] and info["rows"] == 2
    assert info["provenance"] == prov and info["status"].startswith("EVIDENCE")
    assert info["notes"] == ["0 means better at every load"]
    # the old reader still finds the record (and the status) through the sidecar
    old = read_provenance_lines(path)
    assert old["dps"] == 20 and old["seed"] == 3 and old["status"].startswith("EVIDENCE")


def test_write_csv_from_a_frame_and_to_a_stream(tmp_path):
    frame = pd.DataFrame({"rho": [0.5, 1.0], "B": [0.01, 0.07]})
    path = tmp_path / "f.csv"
    write_csv(frame, path)
    assert _plain_csv(path).equals(frame)
    assert read_csv_provenance(path)["provenance"]["symloss"] == symloss.__version__
    buf = io.StringIO()
    assert write_csv(frame, buf) is None
    assert buf.getvalue().splitlines() == ["rho,B", "0.5,0.01", "1.0,0.07"]


def test_write_csv_checks_its_arguments(tmp_path):
    with pytest.raises(TypeError, match="data must be"):
        write_csv(3, tmp_path / "a.csv")
    with pytest.raises(TypeError, match="row 1 is a int"):
        write_csv([{"a": 1}, 2], tmp_path / "a.csv")
    with pytest.raises(ValueError, match="reserved"):
        write_csv([{"a": 1}], tmp_path / "a.csv", meta={"provenance": 1})
    with pytest.raises(FileNotFoundError, match="path: the directory"):
        write_csv([{"a": 1}], tmp_path / "missing" / "a.csv")
    assert not list(tmp_path.iterdir())                   # nothing written by a refused call
    with pytest.raises(FileNotFoundError, match="no provenance sidecar"):
        read_csv_provenance(tmp_path / "none.csv")


def test_threshold_table_csv_reads_plainly(tmp_path):
    from symloss.sweeps import threshold_table
    t = threshold_table([2, 3], 2, [3], dps=12)
    path = tmp_path / "thr.csv"
    t.to_csv(path)
    back = _plain_csv(path)
    assert list(back["C"]) == [2, 3] and back.loc[0, "threshold"] == 0
    assert back.loc[1, "threshold"] == pytest.approx(0.949635604003, rel=1e-11)
    info = read_csv_provenance(path)
    assert info["provenance"]["dps"] == 12 and info["status"].startswith("EVIDENCE")
    assert "every load" in " ".join(info["notes"]) and info["title"] == t.title


def test_evaluation_csv_reads_plainly(tmp_path):
    ev = symloss.evaluate([symloss.RetrialOfD(2, 2), symloss.PowerOfD(2, 2)], [0.5, 1.0])
    path = tmp_path / "ev.csv"
    ev.to_csv(path)
    back = _plain_csv(path)
    assert back.shape[0] == 4 and list(back["model"]) == ["retrial-of-2"] * 2 + ["power-of-2"] * 2
    assert back.loc[1, "blocking"] == pytest.approx(0.0675589521784531, rel=1e-14)
    assert read_csv_provenance(path)["status"].startswith("certified")


def test_cli_table_csv_reads_plainly(tmp_path, capsys):
    from symloss.cli import main
    path = tmp_path / "thresholds.csv"
    assert main(["table", "--C", "2:3", "--d", "2", "--dt", "3", "--csv", str(path), "--no-progress"]) == 0
    capsys.readouterr()
    back = _plain_csv(path)
    assert list(back["C"]) == [2, 3]
    info = read_csv_provenance(path)
    assert info["provenance"]["command"].startswith("symloss table --C 2:3")


def test_result_table_csv_is_not_a_comment_file(tmp_path):
    t = ResultTable(["a"], [{"a": 1}], meta={"provenance": {"dps": 5}, "status": "PROVED"})
    path = tmp_path / "r.csv"
    t.to_csv(path)
    assert path.read_text() == "a\n1\n"
    assert read_csv_provenance(path)["provenance"] == {"dps": 5}


def test_cli_certified_table_and_sweep_export_csv_read_plainly(tmp_path, monkeypatch):
    import json

    import pandas as pd

    from symloss.cli import main
    monkeypatch.chdir(tmp_path)
    assert main(["table", "--C", "2:3", "--d", "2", "--dt", "3", "--certified", "--csv", "c.csv"]) == 0
    back = pd.read_csv("c.csv")
    assert list(back["status"]) == ["PROVED", "PROVED"] and list(back["crossings"]) == [0, 1]
    side = json.loads((tmp_path / "c.csv.provenance.json").read_text())
    assert side["rows"] == 2 and "every load" in side["notes"]
