"""Package-level contracts: public names, CLI wiring, README and CI agreement."""
import os
import pathlib
import re
import subprocess
import sys

import mpmath

import symloss

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_public_name_resolves():
    for name in symloss.__all__:
        assert getattr(symloss, name) is not None, name


def test_cli_lists_subcommands():
    from symloss.cli import build_parser
    text = build_parser().format_help()
    for cmd in ["erlang", "verify", "blocking", "threshold", "table", "derive", "admission", "sweep",
                "supermarket"]:
        assert cmd in text


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)
    test_cmd = [b for b in blocks if "pytest" in b]
    verify_cmd = [b for b in blocks if "symloss verify" in b and "pip install" in b]
    assert len(test_cmd) == 1 and len(verify_cmd) == 1
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_cmd[0].strip() in ci.splitlines()


def test_python_m_proofs_check_lists_claims():
    out = subprocess.run([sys.executable, "-m", "proofs_check", "--list", "--claim", "erlang.*"],
                         capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert "erlang.recursion" in out and "PROVED" in out


def test_default_precision_is_untouched_by_import():
    assert mpmath.mp.dps == 15


def test_subpackages_import_lazily_as_modules():
    code = ("import sys, symloss; assert 'matplotlib' not in sys.modules; "
            "import types; assert isinstance(symloss.plot, types.ModuleType); "
            "assert symloss.plot.__name__ == 'symloss.plot' and 'plot' in dir(symloss); "
            "assert 'plot' not in symloss.__all__; "
            "assert all(isinstance(getattr(symloss, m), types.ModuleType) for m in symloss._SUBMODULES)")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env={**os.environ, "MPLBACKEND": "Agg"})


def test_no_merge_conflict_markers():
    """No source, doc or notebook file carries a left-over merge conflict marker."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    pat = re.compile(r"^(<<<<<<< |>>>>>>> )", re.M)
    bad = []
    for sub in ("symloss", "tests", "docs", "proofs_check", "notebooks", "benchmarks", "examples"):
        for p in (root / sub).rglob("*"):
            if p.suffix in {".py", ".md", ".rst", ".toml", ".ipynb", ".txt", ".cfg"} and p.is_file() \
                    and ".venv" not in p.parts and "_build" not in p.parts:
                if pat.search(p.read_text(encoding="utf-8", errors="replace")):
                    bad.append(str(p.relative_to(root)))
    for name in ("README.md", "pyproject.toml", "CHANGELOG.md"):
        p = root / name
        if p.is_file() and pat.search(p.read_text(encoding="utf-8")):
            bad.append(name)
    assert not bad, f"merge conflict markers in {bad}"
