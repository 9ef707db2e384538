"""The API reference builds with Sphinx (numpydoc, MyST, every cross reference resolved: nitpicky)
without a single warning (-W).

The phase-1 build covers every module except ``symloss.meanfield``, ``symloss.finite_n`` and
``symloss.twoqueue``, whose docstrings are being rewritten; the full build, with their pages, is
expected to warn until phase 2 (``xfail(strict=True)``: it fails loudly once it passes, so that the
marker is removed then)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytest.importorskip("sphinx")
pytest.importorskip("numpydoc")
pytest.importorskip("myst_parser")


def _build(tmp_path: Path, scope: str, builder: str = "html") -> subprocess.CompletedProcess:
    env = dict(os.environ, SYMLOSS_DOCS_SCOPE=scope, MPLBACKEND="Agg", COLUMNS="100")
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-E", "-q", "-b", builder,
                           str(ROOT / "docs"), str(tmp_path / builder)],
                          capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)


@pytest.mark.slow
def test_reference_builds_without_warnings(tmp_path):
    proc = _build(tmp_path, "phase1")
    assert proc.returncode == 0, proc.stderr[-4000:]
    html = (tmp_path / "html" / "api" / "sweeps.html").read_text(encoding="utf-8")
    assert "check_grid" in html and "Parameters" in html
    cli = (tmp_path / "html" / "cli.html").read_text(encoding="utf-8")
    for cmd in ("symloss blocking", "symloss simulate", "symloss sweep", "symloss verify"):
        assert cmd in cli                         # the CLI page is generated from the parser
    index = (tmp_path / "html" / "api" / "index.html").read_text(encoding="utf-8")
    assert "symloss.erlang_b" in index and "symloss.threshold_load" in index   # every public name listed


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="phase 2 of issue 16: the docstrings of symloss.meanfield (models.py: "
                   ":attr:`variables` in JSQ.ode; compare.py: :mod:`symloss.meanfield_series` in threshold_load) "
                   "make nitpicky warnings; they are being rewritten in parallel")
def test_full_reference_builds_without_warnings(tmp_path):
    proc = _build(tmp_path, "full")
    assert proc.returncode == 0, proc.stderr[-4000:]


@pytest.mark.slow
def test_full_reference_warnings_are_only_in_the_phase2_modules(tmp_path):
    """What the xfail above tolerates: warnings in meanfield/finite_n/twoqueue docstrings, nothing else."""
    proc = _build(tmp_path, "full")
    lines = [ln for ln in proc.stderr.splitlines() if "WARNING" in ln or "ERROR" in ln]
    others = [ln for ln in lines if not any(f"symloss/{m}/" in ln for m in ("meanfield", "finite_n", "twoqueue"))]
    assert not others, "\n".join(others)
