"""One directory for figures (SYMLOSS_FIGURE_DIR, else ./symloss-figures) and figure provenance that
names the notebook, not the kernel launcher."""
from __future__ import annotations

import json
import sys
import types

import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from PIL import Image  # noqa: E402

from symloss import plot  # noqa: E402
from symloss.core import provenance as prov_mod  # noqa: E402


def _fig():
    fig, axes = plot.new_figure("single")
    axes[0, 0].plot([1, 2], [3, 4])
    return fig


def test_bare_name_goes_to_the_default_directory_under_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("SYMLOSS_FIGURE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    paths = plot.savefig(_fig(), "curves", formats=("pdf", "png"))
    assert [p.as_posix() for p in paths] == ["symloss-figures/curves.pdf", "symloss-figures/curves.png"]
    assert (tmp_path / "symloss-figures" / "curves.png").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["symloss-figures"]   # nothing else written


def test_environment_variable_names_the_directory(tmp_path, monkeypatch):
    out = tmp_path / "figs"
    monkeypatch.setenv("SYMLOSS_FIGURE_DIR", str(out))
    monkeypatch.chdir(tmp_path)
    (path,) = plot.savefig(_fig(), "ratio.png")
    assert path == out / "ratio.png" and path.exists() and plot.figure_dir() == out
    # a path with a directory is written where it says
    (other,) = plot.savefig(_fig(), tmp_path / "here.pdf")
    assert other == tmp_path / "here.pdf" and other.exists()
    (dot,) = plot.savefig(_fig(), "./dot.pdf")
    assert (tmp_path / "dot.pdf").exists() and dot.name == "dot.pdf"


def test_figure_dir_refuses_a_file(tmp_path, monkeypatch):
    f = tmp_path / "file"
    f.write_text("x")
    monkeypatch.setenv("SYMLOSS_FIGURE_DIR", str(f))
    with pytest.raises(ValueError, match="SYMLOSS_FIGURE_DIR must name a directory"):
        plot.figure_dir()


def test_png_provenance_names_the_notebook(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMLOSS_FIGURE_DIR", str(tmp_path))
    monkeypatch.setenv("JPY_SESSION_NAME", "notebooks/retrial_vs_power.ipynb")
    (png,) = plot.savefig(_fig(), "a.png")
    p = json.loads(Image.open(png).text["Provenance"])
    assert p["source"] == "notebooks/retrial_vs_power.ipynb"
    assert p["command"] == "notebook notebooks/retrial_vs_power.ipynb"
    # an explicit source wins over the environment
    old = prov_mod.set_provenance_source("paper/fig3.ipynb")
    try:
        (png,) = plot.savefig(_fig(), "b.png")
        assert json.loads(Image.open(png).text["Provenance"])["source"] == "paper/fig3.ipynb"
    finally:
        prov_mod.set_provenance_source(old)


def test_a_kernel_with_unknown_notebook_records_no_launcher_or_connection_file(monkeypatch):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.setattr(sys, "argv", ["/venv/lib/python3.12/site-packages/ipykernel_launcher.py", "-f",
                                      "/root/.local/share/jupyter/runtime/kernel-1234abcd.json"])
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    p = prov_mod.provenance()
    assert "kernel-1234abcd" not in p["command"] and "ipykernel_launcher" not in p["command"]
    assert "set_provenance_source" in p["command"] and "source" not in p


def test_ipython_session_global_names_the_notebook(monkeypatch):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    shell = types.SimpleNamespace(user_ns={"__session__": "/home/u/work/study.ipynb"})
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    assert prov_mod.provenance_source() == "/home/u/work/study.ipynb"
    shell.user_ns = {"__vsc_ipynb_file__": "/w/vs.ipynb"}
    assert prov_mod.provenance_source() == "/w/vs.ipynb"
    shell.user_ns = {}
    assert prov_mod.provenance_source() is None


def test_the_cli_context_is_not_overridden_by_a_notebook(monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", "x.ipynb")
    with prov_mod.command_context(["erlang", "10", "7"]):
        p = prov_mod.provenance()
    assert p["command"] == "symloss erlang 10 7" and "source" not in p


def test_set_provenance_source_checks_its_argument():
    with pytest.raises(TypeError, match="source must be a path"):
        prov_mod.set_provenance_source(3)
    with pytest.raises(ValueError, match="non-empty"):
        prov_mod.set_provenance_source("  ")
