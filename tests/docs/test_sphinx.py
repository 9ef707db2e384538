"""The API reference builds with Sphinx (numpydoc, MyST, every cross reference resolved: nitpicky)
without a single warning (-W), every module of every family included. One build (about 20 s) serves
all the tests of this file."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytest.importorskip("sphinx")
pytest.importorskip("numpydoc")
pytest.importorskip("myst_parser")


def _build(out: Path, builder: str = "html") -> subprocess.CompletedProcess:
    env = dict(os.environ, MPLBACKEND="Agg", COLUMNS="100")
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-E", "-q", "-b", builder,
                           str(ROOT / "docs"), str(out / builder)],
                          capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("sphinx")
    return _build(out), out / "html"


@pytest.mark.slow
def test_full_reference_builds_without_warnings(built):
    proc, _html = built
    warnings = [ln for ln in proc.stderr.splitlines() if "WARNING" in ln or "ERROR" in ln]
    assert proc.returncode == 0 and not warnings, proc.stderr[-4000:]


@pytest.mark.slow
def test_reference_builds_without_warnings(built):
    proc, html = built
    assert proc.returncode == 0, proc.stderr[-4000:]
    sweeps = (html / "api" / "sweeps.html").read_text(encoding="utf-8")
    assert "check_grid" in sweeps and "Parameters" in sweeps
    cli = (html / "cli.html").read_text(encoding="utf-8")
    for cmd in ("symloss blocking", "symloss simulate", "symloss sweep", "symloss verify"):
        assert cmd in cli                         # the CLI page is generated from the parser
    index = (html / "api" / "index.html").read_text(encoding="utf-8")
    assert "symloss.erlang_b" in index and "symloss.threshold_load" in index   # every public name listed


# the public names of the models-as-data round, and where their documentation must be
NEW_NAMES = {
    "MeanFieldModel": "core", "define_model": "core", "DefinitionMismatchWarning": "core", "Enclosure": "core",
    "register_accelerator": "core", "RHO": "core", "BSYM": "core", "dominance": "meanfield",
    "DominanceResult": "meanfield", "finite_n_chain": "finite_n", "FiniteNChain": "finite_n",
    "FiniteNModelError": "finite_n",
}


@pytest.mark.slow
def test_every_public_name_and_subpackage_is_linked_from_the_index(built):
    import symloss
    proc, html = built
    assert proc.returncode == 0, proc.stderr[-4000:]
    index = (html / "api" / "index.html").read_text(encoding="utf-8")
    for name in list(symloss._EXPORTS) + [f"{m}" for m in symloss._SUBMODULES]:
        # each entry is a link (an <a> around the literal), not plain text
        assert re.search(r'<a class="reference internal" href="[^"]+"[^>]*><code[^>]*><span class="pre">symloss\.'
                         + re.escape(name) + "</span>", index), name
    for name, page in NEW_NAMES.items():
        text = (html / "api" / f"{page}.html").read_text(encoding="utf-8")
        assert re.search(r'id="symloss\.[\w.]*\.' + re.escape(name) + '"', text), (name, page)


@pytest.mark.slow
def test_family_pages_document_their_modules(built):
    proc, html = built
    assert proc.returncode == 0, proc.stderr[-4000:]
    expect = {
        "meanfield": ["symloss.meanfield.compare.crossing_loads", "symloss.meanfield.models.RetrialOfD",
                      "symloss.meanfield.elimination.generic_eliminant",
                      "symloss.meanfield.accelerators.PowerAccelerator"],
        "finite_n": ["symloss.finite_n.chain.finite_n_chain", "symloss.finite_n.refined.refined_mean_field",
                     "symloss.finite_n.generated.count_kernel"],
        "twoqueue": ["symloss.twoqueue.jsq.TwoQueueJSQ.stationary_distribution",
                     "symloss.twoqueue.definition.RULES", "symloss.twoqueue.asymptotic.asymptotic_law",
                     "symloss.twoqueue.solvers.reduce_levels"],
    }
    for page, ids in expect.items():
        text = (html / "api" / f"{page}.html").read_text(encoding="utf-8")
        for i in ids:
            assert f'id="{i}"' in text, (page, i)
        assert text.count('id="symloss.twoqueue.jsq.transitions"') == 0   # re-exports documented once
