"""Tests for the mean-field subcommands: symloss blocking / threshold / table / derive.

Reference values are computed here independently of symloss.meanfield:
* retrial-of-d: p = E(C, rho (1 + p + ... + p^(d-1))) solved by mpmath.findroot at 80 digits with
  the Erlang-B recursion 1/E(n) = 1 + (n/a)/E(n-1);
* power-of-d: bisection (400 steps, 80 digits) on log u_C of the downward recursion
  u_{k-1}^d = u_k^d + k (u_k - u_{k+1}) / rho, target u_0 = 1;
* worked example (MATH.md section 2): B_pod(2) = s^2, s the root in (0, 1) of s^4 + 2s^3 - 2s^2 - 4s + 1.
"""
from __future__ import annotations

import csv
import json
import re

import mpmath
import pytest

from symloss.cli import main
from symloss.cli.commands.meanfield import parse_int, parse_load, parse_range


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def erlang_b(C, a):
    inv = mpmath.mpf(1)
    for n in range(1, C + 1):
        inv = 1 + n / a * inv
    return 1 / inv


def retrial_reference(C, d, rho):
    with mpmath.workdps(80):
        rho = mpmath.mpf(rho)
        f = lambda p: p - erlang_b(C, rho * sum(p ** j for j in range(d)))
        p = mpmath.findroot(f, (mpmath.mpf("1e-30"), mpmath.mpf(1) - mpmath.mpf("1e-30")), solver="anderson")
        return p ** d


def power_reference(C, d, rho):
    with mpmath.workdps(80):
        rho = mpmath.mpf(rho)

        def g(t):  # u_0^d - 1 as a function of t = log u_C
            u_next, u = mpmath.mpf(0), mpmath.exp(t)
            w = u ** d
            for k in range(C, 0, -1):
                w_prev = w + k * (u - u_next) / rho
                u_next, u, w = u, mpmath.root(w_prev, d), w_prev
            return w - 1
        lo, hi = mpmath.mpf(-2000), mpmath.mpf(0)
        assert g(lo) < 0 < g(hi)
        for _ in range(400):
            m = (lo + hi) / 2
            if g(m) > 0:
                hi = m
            else:
                lo = m
        return mpmath.exp(d * (lo + hi) / 2)


def rel(a, b):
    with mpmath.workdps(80):
        return abs(mpmath.mpf(a) / mpmath.mpf(b) - 1)


# ------------------------------------------------------------------------------------------------
# blocking
# ------------------------------------------------------------------------------------------------

def test_blocking_retrial_to_40_digits(capsys):
    code, out, _ = run(capsys, "blocking", "--policy", "retrial", "--C", "2", "--d", "3", "--rho", "1.5",
                       "--dps", "40")
    assert code == 0
    with mpmath.workdps(60):
        assert rel(out.strip(), retrial_reference(2, 3, mpmath.mpf(3) / 2)) < mpmath.mpf(10) ** -39
    assert len(out.strip().replace("0.", "", 1).lstrip("0")) >= 39


def test_blocking_power_worked_example(capsys):
    code, out, _ = run(capsys, "blocking", "--policy", "power", "--C", "2", "--d", "2", "--rho", "1", "--dps", "30")
    assert code == 0
    with mpmath.workdps(60):
        s = mpmath.findroot(lambda s: s ** 4 + 2 * s ** 3 - 2 * s ** 2 - 4 * s + 1, mpmath.mpf("0.23"))
        assert rel(out.strip(), s ** 2) < mpmath.mpf(10) ** -29


def test_blocking_power_far_below_float_range(capsys):
    code, out, _ = run(capsys, "blocking", "--policy", "power", "--C", "5", "--d", "3", "--rho", "1/2",
                       "--dps", "20")
    assert code == 0 and "e-160" in out
    assert rel(out.strip(), power_reference(5, 3, mpmath.mpf(1) / 2)) < mpmath.mpf(10) ** -19


def test_blocking_random_and_jsq(capsys):
    assert run(capsys, "blocking", "--policy", "random", "--C", "2", "--rho", "1")[1].strip() == "0.2"
    assert run(capsys, "blocking", "--policy", "random", "--C", "2", "--d", "1", "--rho", "1")[1].strip() == "0.2"
    assert run(capsys, "blocking", "--policy", "jsq", "--C", "2", "--rho", "4")[1].strip() == "0.5"
    assert mpmath.mpf(run(capsys, "blocking", "--policy", "jsq", "--C", "3", "--rho", "2")[1]) == 0


def test_blocking_json_and_fixed_point(capsys):
    code, out, _ = run(capsys, "blocking", "--policy", "retrial", "--C", "3", "--d", "2", "--rho", "2.5",
                       "--dps", "25", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["policy"] == "retrial" and data["C"] == 3 and data["d"] == 2 and len(data["x"]) == 4
    assert rel(data["blocking"], retrial_reference(3, 2, mpmath.mpf("2.5"))) < mpmath.mpf(10) ** -24
    assert mpmath.mpf(data["residual"]) < mpmath.mpf(10) ** -25
    code, out, _ = run(capsys, "blocking", "--policy", "power", "--C", "2", "--d", "2", "--rho", "1",
                       "--fixed-point", "--dps", "15")
    assert code == 0 and "u1 = 0.716672749282287" in out and "u2 = 0.230292578846118" in out


@pytest.mark.parametrize("argv, match", [
    (["--policy", "retrial", "--C", "0", "--d", "2", "--rho", "1"], "--C must be an integer"),
    (["--policy", "retrial", "--C", "2.5", "--d", "2", "--rho", "1"], "--C must be an integer"),
    (["--policy", "retrial", "--C", "two", "--d", "2", "--rho", "1"], "--C must be an integer"),
    (["--policy", "retrial", "--C", "2", "--d", "0", "--rho", "1"], "--d must be an integer"),
    (["--policy", "power", "--C", "2", "--d", "1.5", "--rho", "1"], "--d must be an integer"),
    (["--policy", "power", "--C", "2", "--d", "2", "--rho", "0"], "--rho must be a real number > 0"),
    (["--policy", "power", "--C", "2", "--d", "2", "--rho", "-1"], "--rho must be a real number > 0"),
    (["--policy", "power", "--C", "2", "--d", "2", "--rho", "nan"], "--rho must be a finite"),
    (["--policy", "power", "--C", "2", "--d", "2", "--rho", "inf"], "--rho must be a finite"),
    (["--policy", "power", "--C", "2", "--d", "2", "--rho", "abc"], "--rho must be a real number"),
    (["--policy", "power", "--C", "2", "--d", "2", "--rho", "1", "--dps", "4"], "--dps must be an integer"),
    (["--policy", "power", "--C", "2", "--d", "2", "--rho", "1", "--dps", "7.5"], "--dps must be an integer"),
    (["--policy", "power", "--C", "2", "--rho", "1"], "needs --d"),
    (["--policy", "random", "--C", "2", "--d", "3", "--rho", "1"], "--d is not used"),
])
def test_blocking_bad_input(capsys, argv, match):
    code, out, err = run(capsys, "blocking", *argv)
    assert code == 2 and out == ""
    assert match in err and err.startswith("symloss blocking: error:")


def test_unknown_policy_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["blocking", "--policy", "magic", "--C", "2", "--rho", "1"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------
# threshold and table
# ------------------------------------------------------------------------------------------------

def test_threshold_zero_for_C2_d2_dt3(capsys):
    """Seed 000, claim 4: for C = 2, d = 2, dt = 3 retrial-of-3 blocks less at every load."""
    code, out, _ = run(capsys, "threshold", "--C", "2", "--d", "2", "--dt", "3", "--dps", "10", "--json")
    assert code == 0
    data = json.loads(out)
    assert mpmath.mpf(data["threshold"]) == 0 and data["C"] == 2 and data["dps"] == 10


@pytest.mark.slow
def test_threshold_is_a_crossing(capsys):
    """C = 3, d = 2, dt = 3: at the printed load the two blockings agree (independent solvers) and
    retrial-of-3 is strictly lower just above it."""
    code, out, _ = run(capsys, "threshold", "--C", "3", "--d", "2", "--dt", "3", "--dps", "20")
    assert code == 0
    thr = mpmath.mpf(out)
    assert 0.5 < thr < 2
    with mpmath.workdps(80):
        r, p = retrial_reference(3, 3, thr), power_reference(3, 2, thr)
        assert abs(r / p - 1) < mpmath.mpf(10) ** -15
        up = thr * (1 + mpmath.mpf(10) ** -6)
        assert retrial_reference(3, 3, up) < power_reference(3, 2, up)
        down = thr * (1 - mpmath.mpf(10) ** -6)
        assert retrial_reference(3, 3, down) > power_reference(3, 2, down)


@pytest.mark.parametrize("argv, match", [
    (["--C", "3", "--d", "2", "--dt", "2"], "--dt must be > --d"),
    (["--C", "0", "--d", "2", "--dt", "3"], "--C must be an integer"),
    (["--C", "3", "--d", "x", "--dt", "3"], "--d must be an integer"),
    (["--C", "3", "--d", "2", "--dt", "3", "--dps", "2"], "--dps must be an integer"),
])
def test_threshold_bad_input(capsys, argv, match):
    code, out, err = run(capsys, "threshold", *argv)
    assert code == 2 and match in err


def test_table_files_and_progress(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("SYMLOSS_PROGRESS", "1")       # bars are only drawn on a terminal otherwise
    jpath, cpath = tmp_path / "t.json", tmp_path / "t.csv"
    code, out, err = run(capsys, "table", "--C", "1:2", "--d", "2", "--dt", "d+1", "--dps", "10",
                         "--json", str(jpath), "--csv", str(cpath))
    assert code == 0
    assert "thresholds" in err and "100%" in err          # tqdm progress bar on stderr
    lines = out.strip().splitlines()
    assert lines[0].split() == ["C", "d", "dt", "threshold", "seconds"] and len(lines) == 3
    data = json.loads(jpath.read_text())
    assert [(r["C"], r["d"], r["dt"]) for r in data["rows"]] == [(1, 2, 3), (2, 2, 3)]
    assert all(mpmath.mpf(r["threshold"]) == 0 and r["error"] is None for r in data["rows"])
    assert data["provenance"]["dps"] == 10 and data["provenance"]["command"].startswith("symloss table")
    with open(cpath, newline="") as fh:   # provenance as '#' lines first
        rows = list(csv.DictReader(line for line in fh if not line.startswith("#")))
    assert [r["C"] for r in rows] == ["1", "2"] and rows[0]["threshold"] == data["rows"][0]["threshold"]


@pytest.mark.parametrize("argv, match", [
    (["--C", "1:2", "--d", "2", "--dt", "d"], "--dt must give values > d"),
    (["--C", "3:1", "--d", "2", "--dt", "d+1"], "empty range"),
    (["--C", "0:2", "--d", "2", "--dt", "d+1"], "--C values must be"),
    (["--C", "1:2", "--d", "2", "--dt", "e+1"], "cannot read"),
    (["--C", "1:2", "--d", "d", "--dt", "3"], "only allowed in --dt"),
])
def test_table_bad_input(capsys, argv, match):
    code, out, err = run(capsys, "table", *argv)
    assert code == 2 and match in err


def test_parsers():
    assert parse_range("1:10", "--C") == list(range(1, 11))
    assert parse_range("1:10:3", "--C") == [1, 4, 7, 10]
    assert parse_range("2,5,7", "--C") == [2, 5, 7]
    assert parse_range("4", "--C") == [4]
    assert parse_range("d+1:d+2", "--dt", d=2) == [3, 4]
    assert parse_range("2*d", "--dt", d=3) == [6]
    assert parse_range("d-1:d+1", "--dt", d=4) == [3, 4, 5]
    for bad in ("", "1:", "1:2:0", "1.5:3", "__import__('os')", "d**2"):
        with pytest.raises(ValueError):
            parse_range(bad, "--dt", d=2)
    assert parse_int("3", "--C") == 3 and parse_int("3.0", "--C") == 3
    for bad in ("3.5", "nan", "inf", "", "0"):
        with pytest.raises(ValueError):
            parse_int(bad, "--C")
    assert parse_load("3/2") == parse_load("1.5") and parse_load("1e-3") * 1000 == 1
    for bad in ("0", "-2", "nan", "-inf", "1/0", "x"):
        with pytest.raises(ValueError):
            parse_load(bad)


# ------------------------------------------------------------------------------------------------
# derive
# ------------------------------------------------------------------------------------------------

def test_derive_power_latex(capsys):
    code, out, _ = run(capsys, "derive", "--policy", "power", "--C", "2", "--d", "2", "--latex")
    assert code == 0
    # complete display environments (no bare aligned outside math mode)
    envs = re.findall(r"\\begin\{(\w+\*?)\}", out)
    assert len(envs) >= 4 and set(envs) <= {"align*", "multline*", "equation*"} and "aligned" not in envs
    assert len(envs) == len(re.findall(r"\\end\{(\w+\*?)\}", out))
    assert r"\rho" in out and "u_{1}" in out and "&=" in out
    # stationary equations of power-of-2 at C = 2 and the eliminant's extreme terms
    assert r"- \rho u_{1}^{2} + \rho - u_{1} + u_{2} &= 0" in out
    assert r"B^{4} \rho^{6}" in out
    assert r"\frac{\rho^{6}}{4}" in out          # the small-load leading term


def test_derive_plain_text(capsys):
    import sympy as sp
    code, out, _ = run(capsys, "derive", "--policy", "retrial", "--C", "2", "--d", "2")
    assert code == 0 and "\\" not in out
    # the relation in a is the cubic of the issue
    line = next(l for l in out.splitlines() if "a**3" in l)
    a, rho = sp.symbols("a rho")
    lhs = sp.sympify(line.split("=")[0])
    assert sp.expand(lhs - (a ** 3 + 2 * (1 - rho) * a ** 2 + 2 * (1 - rho) * a - 2 * rho)) == 0
    code, out, _ = run(capsys, "derive", "--policy", "jsq", "--C", "3", "--series", "0")
    assert code == 0 and "Max(0, 1 - 3/rho)" in out
    code, out, err = run(capsys, "derive", "--policy", "power", "--C", "2")
    assert code == 2 and "needs --d" in err
