"""The examples of the documentation run: every ``>>>`` block of README.md and docs/*.md as a doctest
(NumPy 2 reprs, so no ``np.float64(...)`` may appear in an expected output), the TOML example of
docs/sweep.md and examples/spec.toml as written, and the illustrative sweep calls of docs/sweep.md are
valid grids (checked, not run)."""
from __future__ import annotations

import doctest
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _blocks(path: Path, lang: str | None = None) -> list[str]:
    text = path.read_text(encoding="utf-8")
    out = []
    for m in re.finditer(r"```(\w*)\n(.*?)```", text, flags=re.S):
        if lang is None or m.group(1) == lang:
            out.append(m.group(2))
    return out


def _doctest_pages():
    return [p for p in PAGES if any(">>>" in b for b in _blocks(p, "python"))]


@pytest.mark.parametrize("page", _doctest_pages(), ids=lambda p: p.name)
def test_doc_page_examples(page, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)            # examples that write files write them here
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    source = "\n".join(b for b in _blocks(page, "python") if ">>>" in b)
    assert "np.float64(" not in source and "np.int64(" not in source, "NumPy 2 scalar reprs in the docs"
    test = doctest.DocTestParser().get_doctest(source, {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    res = runner.summarize(verbose=False)
    assert res.failed == 0, f"{res.failed} of {res.attempted} examples of {page.name} failed"
    for ex in test.examples:            # no array dumps: expected outputs stay short
        assert len(ex.want) < 600, f"{page.name}: an expected output of {len(ex.want)} characters"


def test_every_python_block_with_prompts_is_a_complete_doctest():
    for page in PAGES:
        for b in _blocks(page, "python"):
            lines = [ln for ln in b.splitlines() if ln.strip()]
            if any(ln.startswith(">>>") for ln in lines):
                assert lines[0].startswith(">>>"), f"{page.name}: a doctest block starts with {lines[0]!r}"


def _run_sweep_spec(spec_text: str, workdir: Path, name: str = "spec.toml"):
    spec = workdir / name
    spec.write_text(spec_text, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "symloss", "sweep", str(spec), "--no-progress"],
                          capture_output=True, text=True, timeout=600, cwd=workdir)


@pytest.mark.slow
def test_sweep_md_toml_example_runs_as_written(tmp_path):
    tomls = _blocks(ROOT / "docs" / "sweep.md", "toml")
    assert len(tomls) == 1
    proc = _run_sweep_spec(tomls[0], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failed" in proc.stdout and "48 points" in proc.stdout
    import symloss
    df = symloss.load_sweep(tmp_path / "blocking.sqlite", status="done")
    assert len(df) == 48 and set(df["policy"]) == {"retrial", "power"}


@pytest.mark.slow
def test_examples_spec_runs(tmp_path):
    shutil.copy(ROOT / "examples" / "spec.toml", tmp_path / "spec.toml")
    proc = _run_sweep_spec((tmp_path / "spec.toml").read_text(), tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failed" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "symloss", "sweep", str(tmp_path / "spec.toml"),
                           "--no-progress"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and " 0 computed" in proc.stdout   # resumed: nothing left to do


def test_readme_uses_the_shipped_spec():
    readme = (ROOT / "README.md").read_text()
    assert "symloss sweep examples/spec.toml" in readme
    assert (ROOT / "examples" / "spec.toml").is_file()


def test_sweep_md_illustrative_calls_are_valid_grids():
    """The code blocks of docs/sweep.md that are not doctests (they would run for hours) call sweep()
    on grids that the grid check accepts: no unknown parameters, values in range."""
    from symloss.sweeps import check_grid, resolve_function
    from symloss.sweeps.engine import _as_points

    calls = []

    def sweep(func, grid, **kw):       # stands in for symloss.sweep: check, do not run
        fn, name = resolve_function(func)
        check_grid(fn, _as_points(grid), func_name=name)
        calls.append(name)

    import symloss
    blocks = [b for b in _blocks(ROOT / "docs" / "sweep.md", "python") if ">>>" not in b]
    assert blocks
    for b in blocks:
        code = b.replace("from symloss.sweeps import grid, zip_grid, sweep",
                         "from symloss.sweeps import grid, zip_grid")
        exec(compile(code, "docs/sweep.md", "exec"), {"sweep": sweep, "symloss": symloss})
    assert len(calls) >= 4
