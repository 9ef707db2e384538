"""The stored notebooks are readable without running them, and current (nothing is executed here).

``notebooks/build.py`` regenerates and executes them; this file checks what it promises, cheaply:
every code cell has outputs, no output is an error, a generated notebook's cells are what its generator
writes now, the figures are inline, and no notebook writes into the repository (figures go to
``symloss.plot.figure_dir()``, never ``docs/figures``). The provenance a stored notebook prints names
the notebook, not the kernel launcher. One optional slow test executes the cheapest notebook.
"""
from __future__ import annotations

import importlib.util
import json
import re
import subprocess
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NB_DIR = ROOT / "notebooks"


def _build():
    spec = importlib.util.spec_from_file_location("_symloss_notebooks_build", NB_DIR / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


BUILD = _build()
NAMES = list(BUILD.NOTEBOOKS)


def test_build_knows_every_notebook_and_generator():
    stored = sorted(p.stem for p in NB_DIR.glob("*.ipynb"))
    assert sorted(NAMES) == stored
    gens = sorted(p.name for p in NB_DIR.glob("make_*.py"))
    assert sorted(g for g in BUILD.NOTEBOOKS.values() if g) == gens


@pytest.mark.parametrize("name", NAMES)
def test_stored_notebook_is_executed_and_current(name):
    assert BUILD.problems(name) == []


@pytest.mark.parametrize("name", NAMES)
def test_figures_are_inline_where_the_notebook_draws(name):
    nb = nbformat.read(str(BUILD.notebook_path(name)), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    shows = [c for c in code if "plt.show()" in c.source]
    for c in shows:                                # each cell that shows a figure stores it as a PNG
        assert any("image/png" in o.get("data", {}) for o in c.outputs), c.source[:80]


@pytest.mark.parametrize("name", NAMES)
def test_notebook_writes_figures_only_to_the_figure_directory(name):
    nb = BUILD.source_notebook(name)
    src = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "docs/figures" not in src and "tempfile" not in src
    for call in re.findall(r"plot\.savefig\(fig, ([^,)]+)", src):
        assert call.startswith("FIG_DIR") or call.startswith('"'), call     # FIG_DIR = plot.figure_dir(), or a bare name
    if "FIG_DIR" in src:
        assert "FIG_DIR = plot.figure_dir()" in src


@pytest.mark.parametrize("name", NAMES)
def test_stored_outputs_name_no_kernel_launcher(name):
    text = BUILD.notebook_path(name).read_text(encoding="utf-8")
    assert "ipykernel_launcher" not in text and not re.search(r"kernel-[0-9a-f-]+\.json", text)


def test_stored_threshold_outputs_say_evidence_or_proved():
    nb = nbformat.read(str(BUILD.notebook_path("retrial_vs_power")), as_version=4)
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "ThresholdLoad(0.949635604002727, EVIDENCE" in text
    assert "PROVED (certificate re-checked)" in text
    nb = nbformat.read(str(BUILD.notebook_path("define_your_own_policy")), as_version=4)
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    # the float scan is EVIDENCE; PROVED only where the certificate was re-checked (certified_comparison
    # followed by verify_comparison)
    assert "EVIDENCE: float scan" in text and "(PROVED, re-checked;" in text
    for line in text.replace("not PROVED", "").splitlines():
        assert "PROVED" not in line or "re-checked" in line, line


def test_problems_reports_a_stale_or_unexecuted_notebook(tmp_path, monkeypatch):
    """Mutation: the check fails on a notebook without outputs, with an error, or edited by hand."""
    name = "retrial_vs_power"
    nb = nbformat.read(str(BUILD.notebook_path(name)), as_version=4)
    monkeypatch.setattr(BUILD, "HERE", tmp_path)
    path = tmp_path / f"{name}.ipynb"
    (tmp_path / BUILD.NOTEBOOKS[name]).write_text((NB_DIR / BUILD.NOTEBOOKS[name]).read_text())
    nbformat.write(nb, str(path))
    assert BUILD.problems(name) == []
    code = [c for c in nb.cells if c.cell_type == "code"]
    code[0].outputs = []
    nbformat.write(nb, str(path))
    assert any("no outputs" in p for p in BUILD.problems(name))
    code[0].outputs = [nbformat.v4.new_output("error", ename="ValueError", evalue="boom", traceback=[])]
    nbformat.write(nb, str(path))
    assert any("error output" in p for p in BUILD.problems(name))
    code[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="x")]
    code[1].source += "\n# edited by hand"
    nbformat.write(nb, str(path))
    assert any("cells differ" in p for p in BUILD.problems(name))


def test_figure_directory_is_ignored_by_git():
    for rel in ("symloss-figures/a.png", "notebooks/symloss-figures/a.png"):
        res = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", rel], capture_output=True)
        assert res.returncode == 0, rel


def test_build_cli_rejects_bad_arguments(capsys):
    with pytest.raises(SystemExit):
        BUILD.main(["no_such_notebook"])
    assert "unknown notebook 'no_such_notebook'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        BUILD.main(["--timeout", "0", "--check"])
    assert "--timeout must be > 0" in capsys.readouterr().err


@pytest.mark.slow
def test_cheapest_notebook_executes_and_its_figure_names_the_notebook(tmp_path, monkeypatch):
    """Execute finite_n (small run) in a scratch directory: figures go to ./symloss-figures there, and
    the PNG's provenance names the notebook (JPY_SESSION_NAME, as Jupyter and build.py set it)."""
    from nbclient import NotebookClient
    from PIL import Image
    monkeypatch.setenv("SYMLOSS_NOTEBOOK_SMALL", "1")
    monkeypatch.delenv("SYMLOSS_FIGURE_DIR", raising=False)
    monkeypatch.setenv("JPY_SESSION_NAME", "notebooks/finite_n.ipynb")
    nb = BUILD.source_notebook("finite_n")
    nb.cells = nb.cells[:7]                         # the simulations and the figures, not the threshold table
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    png = tmp_path / "symloss-figures" / "finite_n_retrial.png"
    assert png.exists()
    prov = json.loads(Image.open(png).text["Provenance"])
    assert prov["source"] == "notebooks/finite_n.ipynb" and prov["command"] == "notebook notebooks/finite_n.ipynb"
