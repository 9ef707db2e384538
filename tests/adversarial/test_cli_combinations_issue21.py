"""Issue 21: the command line refuses a combination the API refuses, and an option it would silently
ignore, with a one-line error naming the option (exit status 2)."""
from __future__ import annotations

import pytest

from symloss.cli import main

SIM = ["simulate", "--N", "5", "--C", "2", "--rho", "1", "--events", "1000"]

IGNORED = [
    (SIM + ["--policy", "random", "--sampling", "without_replacement"], "--sampling"),
    (SIM + ["--policy", "jsq", "--sampling", "with_replacement"], "--sampling"),
    (["finite-n", "--C", "2", "--d", "2", "--dt", "3", "--N", "4", "--method", "exact", "--seed", "3"], "--seed"),
    (["finite-n", "--C", "2", "--d", "2", "--dt", "3", "--N", "4", "--method", "exact", "--replications", "4"],
     "--replications"),
    (["finite-n", "--C", "2", "--d", "2", "--dt", "3", "--N", "4", "--events", "1000"], "--events"),  # auto -> exact
    (["threshold", "--C", "2", "--d", "2", "--dt", "3", "--certificate", "/tmp/x.json"], "--certificate"),
    (["table", "--C", "2", "--d", "2", "--dt", "3", "--certificates", "/tmp/xdir"], "--certificates"),
    (["derive", "--policy", "power", "--C", "2", "--d", "2", "--width", "200"], "--width"),
    # --max-seconds limits the eliminations and the expansions: refused when neither runs
    (["derive", "--policy", "power", "--C", "2", "--d", "2", "--series", "0", "--no-eliminant", "--max-seconds", "5"],
     "--max-seconds"),
    (["derive", "--policy", "jsq", "--C", "2", "--no-eliminant"], "--no-eliminant"),
    (["derive", "--policy", "power", "--C", "2", "--d", "2", "--no-eliminant", "--max-degree", "4"], "--max-degree"),
    (["twoqueue", "--N", "4", "--rho", "4", "--dps", "40"], "--dps"),
    (["twoqueue", "--N", "4", "--rho", "4", "--method", "exact", "--dps", "40"], "--dps"),
    (["twoqueue", "--N", "2", "--rho", "1", "--method", "symbolic", "--asymptotic"], "--asymptotic"),
    (["supermarket", "meanfield", "--lam", "0.7", "--seed", "3"], "--seed"),
    (["supermarket", "meanfield", "--lam", "0.7", "--t-end", "5"], "--t-end"),
    (["supermarket", "pair", "--k", "3", "--lam", "0.7", "--d", "3"], "--d"),
    (["supermarket", "simulate", "--lam", "0.7", "--dps", "40"], "--dps"),
    (["supermarket", "simulate", "--lam", "0.7", "--runs", "3"], "--runs"),
    (["supermarket", "distance", "--lam", "0.7", "--t-end", "3"], "--t-end"),
    (["verify", "--recheck", "/tmp/none.json", "--quick"], "--quick"),
    (["verify", "--recheck", "/tmp/none.json", "--workers", "2"], "--workers"),
    (["verify", "--list", "--store", "/tmp/s.sqlite"], "--store"),
]


@pytest.mark.parametrize("argv, option", IGNORED, ids=[" ".join(a[:2]) + " " + o for a, o in IGNORED])
def test_ignored_option_is_refused(capsys, argv, option):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"error: {option} would be ignored" in lines[0], err
    assert out == ""


def test_refined_without_replacement_is_refused_by_the_api(capsys):
    # the refined mean field describes the with-replacement chain only: the CLI passes --sampling to the API,
    # whose check refuses it, before the simulation runs
    argv = SIM + ["--policy", "retrial", "--d", "2", "--sampling", "without_replacement", "--refined"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "sampling" in err and "with_replacement" in err and len(err.strip().splitlines()) == 1


def test_d_with_random_is_refused(capsys):
    assert main(SIM + ["--policy", "random", "--d", "2"]) == 2
    assert "--d must be None" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    SIM + ["--policy", "retrial", "--d", "2", "--sampling", "without_replacement"],
    ["twoqueue", "--N", "3", "--rho", "2", "--method", "mp", "--dps", "20"],
    ["supermarket", "meanfield", "--lam", "0.7", "--dps", "20", "--d", "3"],
    ["derive", "--policy", "power", "--C", "2", "--d", "2", "--latex", "--width", "200", "--series", "0"],
])
def test_options_that_are_used_still_work(capsys, argv):
    assert main(argv) == 0, capsys.readouterr().err
