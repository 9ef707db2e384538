"""One CLI grammar: the same option spellings everywhere (old ones as hidden aliases), one-line errors
naming the option with exit status 2 and no traceback (unless --debug), "did you mean" hints, output
paths checked before any work, --json with provenance on every command, help texts without escape
artefacts, progress bars, erlang --log as the natural log, simulate printing its seed."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
import time

import pytest

from symloss.cli import build_parser, main

PROV_KEYS = {"symloss", "python", "dependencies", "dps", "seed", "command", "date", "git", "platform"}


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:        # argparse errors and --help
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str, cmd: str | None = None) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}:\n{err}"
    assert "Traceback" not in err
    assert lines[0].startswith("symloss" + (f" {cmd}" if cmd else "")), lines[0]
    assert "error" in lines[0]
    return lines[0]


# ------------------------------------------------------------------------------------------------
# errors
# ------------------------------------------------------------------------------------------------

BAD = [
    # (erlang 1e400 1 is valid: E(1e400, 1) is certified, see tests/adversarial; the parser bound is 1e400)
    (["erlang", "1e401", "1"], "out of range"),
    (["erlang", "10", "1e99999999"], "out of range"),
    (["erlang", "10", "abc"], "a must be a real number"),
    (["erlang", "10"], "give C and a"),
    (["erlang", "10", "7", "--dps", "2"], "--dps must be an integer in [5, 100000]"),
    (["erlang", "10", "7", "--log", "--log10"], "not allowed with argument"),
    (["blocking", "--digits", "3"], "unknown option --digits; did you mean --dps?"),
    (["blocking", "--policy", "power", "--C", "2", "--d", "2", "--rho", "1", "--rh", "2"], "unknown option --rh"),
    (["blocking", "--policy", "power", "--C", "2", "--d", "2"], "--rho is required"),
    (["blocking", "--policy", "power"], "--C and --rho are required"),
    (["blocking", "--policy", "magic", "--C", "2", "--rho", "1"], "invalid choice: 'magic'"),
    (["blocking", "--policy", "power", "--C", "2", "--d", "2", "--rho", "-1"], "--rho must be a real number > 0"),
    (["threshold", "--C", "3", "--d", "2", "--dt", "2"], "--dt must be > --d"),
    (["table", "--C", "1:3", "--d", "2", "--dt", "d"], "--dt must give values > d"),
    (["derive", "--policy", "power", "--C", "0", "--d", "2"], "--C must be an integer"),
    (["simulate", "--policy", "power", "--N", "10", "--C", "2", "--rho", "1"], "--d is required"),
    (["simulate", "--policy", "retrial", "--N", "0", "--C", "2", "--d", "2", "--rho", "1"], "--N must be an integer"),
    (["simulate", "--policy", "retrial", "--N", "10", "--C", "2", "--d", "2", "--rho", "1", "--events", "2.5"],
     "--events must be an integer"),
    (["simulate", "--policy", "retrial", "--N", "10", "--C", "2", "--d", "2", "--rho", "1", "--seed", "-1"],
     "--seed must be an integer"),
    (["simulate", "--N", "10", "--C", "2", "--rho", "1"], "--policy is required"),
    (["finite-n", "--C", "2", "--d", "3", "--dt", "2", "--N", "10"], "--dt must be > --d"),
    (["supermarket", "meanfield", "--lam", "1.5"], "--lam must be a real number in (0, 1)"),
    (["supermarket", "pair", "--lam", "0.7"], "needs --k"),
    (["supermarket", "meanfield"], "--lam is required"),
    (["twoqueue", "--N", "2", "--rho", "x"], "--rho must be a real number"),
    (["twoqueue", "--N", "2", "--rho", "1", "--latex"], "--latex needs --method exact"),
    (["twoqueue"], "--N is required"),
    (["admission", "--N", "10"], "--lam-H is required"),
    (["admission", "--N", "10", "--lam-H", "0.5", "--lam-L", "1", "--r-H", "2", "--r-L", "1", "--mu", "x"],
     "--mu must be a real number"),
    (["admission", "--N", "100000", "--lam-H", "0.5", "--lam-L", "1", "--r-H", "2", "--r-L", "1"], "--max-work"),
    (["verify", "--claim", "no.such.*"], "no claim matches"),
    (["verify", "--recheck", "/nonexistent/certs.json"], "--recheck: file '/nonexistent/certs.json' does not exist"),
    (["sweep", "/nonexistent/spec.toml"], "SPEC.toml: file '/nonexistent/spec.toml' does not exist"),
    (["sweep"], "give a SPEC.toml"),
    (["blockng"], "unknown command 'blockng'; did you mean 'blocking'?"),
    (["--digits", "3"], "unknown option --digits"),
]


@pytest.mark.parametrize("argv, message", BAD, ids=[" ".join(a)[:50] for a, _ in BAD])
def test_every_error_is_one_line_naming_the_option(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    line = one_line_error(err)
    assert message in line, line
    assert out == ""


def test_recheck_of_a_file_that_is_not_json(capsys, tmp_path):
    bad = tmp_path / "certs.json"
    bad.write_text("not json")
    code, _, err = run(capsys, "verify", "--recheck", str(bad))
    assert code == 2 and "is not JSON" in one_line_error(err, "verify")
    bad.write_text('{"something": 1}')
    code, _, err = run(capsys, "verify", "--recheck", str(bad))
    assert code == 2 and "no 'claims' list" in one_line_error(err, "verify")


def test_output_paths_are_checked_before_any_work(capsys, tmp_path):
    """A table that would take hours, written into a missing directory: refused at once."""
    t0 = time.perf_counter()
    code, _, err = run(capsys, "table", "--C", "1:1000", "--d", "2:6", "--dt", "d+1:d+2",
                       "--json", str(tmp_path / "missing" / "t.json"))
    assert time.perf_counter() - t0 < 5
    msg = one_line_error(err, "table")
    assert code == 2 and "error: --json=" in msg and "does not exist" in msg
    code, _, err = run(capsys, "table", "--C", "1:1000", "--d", "2:6", "--dt", "d+1", "--csv", str(tmp_path))
    assert code == 2 and "is a directory" in one_line_error(err, "table")
    code, _, err = run(capsys, "table", "--C", "1", "--d", "2", "--dt", "3", "--json", "--csv")
    assert code == 2 and "would both go to stdout" in one_line_error(err, "table")
    code, _, err = run(capsys, "erlang", "--json", "10", "7")
    assert code == 2 and "looks like a number" in one_line_error(err)
    store = tmp_path / "s.sqlite"
    spec = tmp_path / "spec.toml"
    spec.write_text('function = "math:comb"\nexecutor = "serial"\nstore = "missing/dir/s.sqlite"\n'
                    '[grid]\nn = [3]\nk = [1]\n')
    code, _, err = run(capsys, "sweep", str(spec), "--no-progress")
    assert code == 2 and "store (in the spec)=" in one_line_error(err, "sweep")
    assert not store.exists()


def test_debug_shows_the_traceback(capsys):
    code, _, err = run(capsys, "--debug", "erlang", "10", "abc")
    assert code == 2 and "Traceback" in err and err.strip().splitlines()[-1].startswith("symloss erlang: error:")
    code, _, err = run(capsys, "erlang", "10", "abc", "--debug")
    assert code == 2 and "Traceback" in err


def test_errors_in_a_subprocess_have_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "symloss", "erlang", "1e401", "1"], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


# ------------------------------------------------------------------------------------------------
# grammar
# ------------------------------------------------------------------------------------------------

def _subparsers():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return sub.choices


def test_the_same_quantity_has_the_same_option_everywhere():
    for name, p in _subparsers().items():
        opts = {s for a in p._actions if a.help != "==SUPPRESS==" for s in a.option_strings}
        for bad in ("-N", "-C", "-d", "--reps", "--digits", "--precision", "--capacity", "--load"):
            assert bad not in opts, f"symloss {name} shows {bad}"
        for quantity in ("--json",):
            assert quantity in opts, f"symloss {name} has no {quantity}"
    subs = _subparsers()
    for name in ("blocking", "derive", "simulate"):
        assert "--policy" in subs[name]._option_string_actions
    for name in ("blocking", "threshold", "table", "derive", "simulate", "finite-n"):
        assert "--C" in subs[name]._option_string_actions and "--d" in subs[name]._option_string_actions
    for name in ("erlang", "blocking", "threshold", "table", "supermarket", "twoqueue", "admission"):
        assert "--dps" in subs[name]._option_string_actions
    for name in ("simulate", "finite-n", "supermarket", "admission"):
        assert "--seed" in subs[name]._option_string_actions
    for name in ("simulate", "finite-n", "twoqueue", "admission", "supermarket"):
        assert "--N" in subs[name]._option_string_actions
    for name in ("admission", "simulate", "finite-n", "table", "verify", "sweep", "supermarket", "twoqueue"):
        p = subs[name]
        assert "--no-progress" in p._option_string_actions or "--quiet" in p._option_string_actions


def test_help_texts_have_no_escape_artefacts(capsys):
    texts = [build_parser().format_help()] + [p.format_help() for p in _subparsers().values()]
    for t in texts:
        assert "%%" not in t and "%(" not in t
    assert "95%" in _subparsers()["simulate"].format_help()
    assert "natural logarithm" in _subparsers()["erlang"].format_help()


def test_deprecated_spellings_still_work(capsys):
    code, out, _ = run(capsys, "simulate", "retrial", "-N", "10", "-C", "2", "-d", "2", "--rho", "1",
                       "--events", "1e4", "--no-progress")
    assert code == 0 and "seed 0" in out
    code, out, _ = run(capsys, "twoqueue", "2", "3/2", "--method", "exact")
    assert code == 0 and "27/563" in out
    code, out, err = run(capsys, "admission", "--N", "20", "--lam-H", "0.5", "--lam-L", "1", "--r-H", "2", "--r-L", "1",
                         "--horizon", "2", "--reps", "2", "--c", "8", "--no-progress")
    assert code == 0 and "paths: 2 x horizon 2" in out
    code, _, err = run(capsys, "simulate", "power", "--policy", "retrial", "--N", "5", "--C", "1", "--rho", "1")
    assert code == 2 and "differ" in one_line_error(err)


def test_a_negative_number_is_a_value_not_an_option(capsys):
    code, _, err = run(capsys, "blocking", "--policy", "power", "--C", "2", "--d", "2", "--rho", "-1")
    assert code == 2 and "must be a real number > 0" in err and "unknown option" not in err


# ------------------------------------------------------------------------------------------------
# --json on every command, with provenance
# ------------------------------------------------------------------------------------------------

def _spec(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(textwrap.dedent("""
        function = "math:comb"
        executor = "serial"
        store = "comb.sqlite"
        [grid]
        n = [4, 5]
        k = [2]
    """))
    return spec


JSON_CASES = {
    "erlang": (["erlang", "10", "7", "--dps", "20"], {"dps": 20}),
    "blocking": (["blocking", "--policy", "retrial", "--C", "2", "--d", "2", "--rho", "1", "--dps", "20"], {"dps": 20}),
    "threshold": (["threshold", "--C", "2", "--d", "2", "--dt", "3", "--dps", "10"], {"dps": 10}),
    "table": (["table", "--C", "1:2", "--d", "2", "--dt", "3", "--dps", "10", "--no-progress"], {"dps": 10}),
    "derive": (["derive", "--policy", "power", "--C", "2", "--d", "2", "--series", "0"], {}),
    "simulate": (["simulate", "--policy", "power", "--N", "10", "--C", "2", "--d", "2", "--rho", "1", "--events", "1e4",
                  "--seed", "7"], {"seed": 7}),
    "finite-n": (["finite-n", "--C", "2", "--d", "2", "--dt", "3", "--N", "4", "--method", "exact"], {"seed": 0}),
    "supermarket": (["supermarket", "meanfield", "--lam", "0.7", "--dps", "20"], {"dps": 20}),
    "twoqueue": (["twoqueue", "--N", "4", "--rho", "4"], {}),
    "admission": (["admission", "--N", "20", "--lam-H", "0.5", "--lam-L", "1", "--r-H", "2", "--r-L", "1", "--horizon",
                   "2", "--replications", "2", "--c", "8", "--dps", "15"], {"dps": 15, "seed": 0}),
    "verify": (["verify", "--list"], {}),
}


@pytest.mark.parametrize("name", sorted(JSON_CASES))
def test_json_on_every_command_with_provenance(capsys, name):
    argv, expect = JSON_CASES[name]
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    data = json.loads(out)
    prov = data["provenance"] if "provenance" in data else data["rows"] and data["provenance"]
    assert PROV_KEYS <= set(prov)
    assert prov["command"].startswith(f"symloss {argv[0]}") and prov["command"].endswith("--json")
    assert prov["date"].endswith("Z") and "mpmath" in prov["dependencies"]
    for k, v in expect.items():
        assert prov[k] == v, (k, prov[k])


def test_json_of_sweep_runs_and_status(capsys, tmp_path):
    spec = _spec(tmp_path)
    code, out, _ = run(capsys, "sweep", str(spec), "--no-progress", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["n_done"] == 2 and data["provenance"]["store"].endswith("comb.sqlite")
    code, out, _ = run(capsys, "sweep", "--status", str(tmp_path / "comb.sqlite"), "--json")
    assert code == 0 and json.loads(out)["functions"][0]["done"] == 2
    code, out, _ = run(capsys, "sweep", "--export", str(tmp_path / "comb.sqlite"), "--json")
    data = json.loads(out)
    assert code == 0 and sorted(r["result"] for r in data["rows"]) == [6, 10] and "provenance" in data


def test_json_to_a_file_keeps_the_text_output(capsys, tmp_path):
    path = tmp_path / "e.json"
    code, out, _ = run(capsys, "erlang", "2", "1", "--dps", "10", "--json", str(path))
    assert code == 0 and out.strip() == "0.2"
    assert json.loads(path.read_text())["E"] == "0.2"


# ------------------------------------------------------------------------------------------------
# command specifics
# ------------------------------------------------------------------------------------------------

def test_erlang_log_is_the_natural_log(capsys):
    import symloss
    code, out, _ = run(capsys, "erlang", "10", "7", "--log", "--dps", "20")
    assert code == 0
    assert float(out) == pytest.approx(float(symloss.log_erlang_b(10, 7.0)), rel=1e-13)
    code, out10, _ = run(capsys, "erlang", "10", "7", "--log10", "--dps", "20")
    assert float(out10) == pytest.approx(float(out) / math.log(10), rel=1e-15)
    code, out, _ = run(capsys, "erlang", "--C", "10", "--a", "7", "--dps", "20")
    assert code == 0 and out.strip().startswith("0.0787408829695")


def test_simulate_prints_and_records_its_seed(capsys):
    code, out, _ = run(capsys, "simulate", "--policy", "power", "--N", "10", "--C", "2", "--d", "2", "--rho", "1",
                       "--events", "1e4", "--seed", "42")
    assert code == 0 and "seed 42" in out
    code, out2, _ = run(capsys, "simulate", "--policy", "power", "--N", "10", "--C", "2", "--d", "2", "--rho", "1",
                        "--events", "1e4", "--seed", "42")
    first = lambda text: text.splitlines()[0].split(" events in")[0]   # noqa: E731 - timing differs
    assert first(out) == first(out2)


@pytest.mark.parametrize("argv, desc", [
    (["table", "--C", "1:2", "--d", "2", "--dt", "3", "--dps", "10"], "thresholds"),
    (["admission", "--N", "20", "--lam-H", "0.5", "--lam-L", "1", "--r-H", "2", "--r-L", "1", "--horizon", "2",
      "--replications", "2", "--c", "8"], "admission"),
    (["simulate", "--policy", "power", "--N", "10", "--C", "2", "--d", "2", "--rho", "1", "--events", "1e4"],
     "simulate"),
    (["verify", "--claim", "erlang.recursion"], "claims"),
    (["twoqueue", "--N", "4", "--rho", "4"], "twoqueue"),
    (["supermarket", "meanfield", "--lam", "0.7"], "supermarket"),
])
def test_progress_bars(capsys, monkeypatch, tmp_path, argv, desc):
    monkeypatch.chdir(tmp_path)          # verify keeps its store (symloss_verify.sqlite) in the working directory
    monkeypatch.setenv("SYMLOSS_PROGRESS", "1")
    code, _, err = run(capsys, *argv)
    assert code == 0 and desc in err and "100%" in err
    monkeypatch.setenv("SYMLOSS_PROGRESS", "1")
    code, _, err = run(capsys, *argv, "--no-progress" if argv[0] != "verify" else "--quiet")
    assert code == 0 and desc not in err
