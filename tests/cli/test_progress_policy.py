"""The one progress policy of every long command (issue 26, item 6): tqdm on a terminal, plain periodic
lines off it (no carriage returns in a log), ``--no-progress`` everywhere (``verify --quiet`` an alias),
labels for a user."""
from __future__ import annotations

import argparse
import io
import os
import pty
import subprocess
import sys

import pytest

from symloss.cli import build_parser, main
from symloss.core import cli_grammar as g
from symloss.core import cli_progress


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _lines(total, steps, dt, **kw):
    """The lines a ProgressLines writes for ``steps`` updates of one step, ``dt`` seconds apart."""
    buf, now = io.StringIO(), [0.0]
    bar = g.ProgressLines(total=total, desc="claims", unit="claim", file=buf, clock=lambda: now[0], **kw)
    for _ in range(steps):
        now[0] += dt
        bar.update(1)
    bar.close()
    return buf.getvalue()


def test_lines_every_tenth_with_eta_and_no_carriage_return():
    text = _lines(100, 100, 1.0)
    lines = text.splitlines()
    assert "\r" not in text
    # quiet for 2 s, then one line at each 10 % step (the step crossed when the line is due), and the end
    assert lines[0] == "claims 2/100 (2 %) 2 s elapsed, ETA 1 min 38 s"
    assert [ln.split()[1] for ln in lines[1:-1]] == [f"{k}/100" for k in range(10, 100, 10)]
    assert lines[-1] == "claims 100/100 (100 %) done in 1 min 40 s"
    eta = lines[2]              # 20/100 after 20 s: 80 steps at 1 s each remain
    assert eta == "claims 20/100 (20 %) 20 s elapsed, ETA 1 min 20 s"


def test_lines_every_interval_when_steps_are_slow():
    # 10 s between lines even when 10 % takes longer (total 1000, one step every 2 s: 10 % = 200 s)
    lines = _lines(1000, 30, 2.0).splitlines()
    assert [ln.split()[1] for ln in lines[:-1]] == ["1/1000", "6/1000", "11/1000", "16/1000", "21/1000",
                                                    "26/1000"]
    assert lines[-1].endswith("stopped after 1 min")      # closed before the total: not "done"


def test_short_work_stays_silent():
    assert _lines(10, 10, 0.1) == ""           # 1 s in all: nothing in the log
    buf = io.StringIO()
    bar = g.ProgressLines(total=None, desc="points", unit="pt", file=buf, clock=lambda: 5.0)
    bar._t0 = 0.0
    bar.set_postfix(failed=2)
    bar.update(7)
    assert buf.getvalue() == "points 7 pt 5 s elapsed [failed=2]\n"     # unknown total: no ETA


def test_mode_policy(monkeypatch):
    monkeypatch.delenv("SYMLOSS_PROGRESS", raising=False)
    # pytest's captured stderr is not a terminal: plain lines
    assert g.progress_mode(argparse.Namespace(no_progress=False)) == "lines"
    assert g.progress_mode(argparse.Namespace(no_progress=True)) is None
    assert g.progress_mode(argparse.Namespace(quiet=True)) is None
    assert g.progress_mode(False) is None and g.progress_mode(True) == "lines"
    assert isinstance(g.progress_bar(True, total=3), g.ProgressLines)
    for env, mode in (("0", None), ("off", None), ("1", "tty"), ("lines", "lines")):
        monkeypatch.setenv("SYMLOSS_PROGRESS", env)
        assert g.progress_mode(None) == mode
    monkeypatch.setenv("SYMLOSS_PROGRESS", "1")
    assert g.progress_mode(argparse.Namespace(no_progress=True)) is None    # the option wins


def test_every_long_command_has_no_progress():
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name in ("admission", "simulate", "finite-n", "table", "verify", "sweep", "supermarket", "twoqueue",
                 "derive"):
        assert "--no-progress" in sub[name]._option_string_actions, name
    verify = sub["verify"]
    assert "--quiet" in verify._option_string_actions                       # kept as an alias
    assert verify._option_string_actions["--quiet"].dest == verify._option_string_actions["--no-progress"].dest


def test_plain_lines_in_process(capsys, monkeypatch):
    monkeypatch.setenv("SYMLOSS_PROGRESS", "lines")
    monkeypatch.setattr(cli_progress, "PROGRESS_QUIET", 0.0)   # where ProgressLines reads it
    code, out, err = run(capsys, "table", "--C", "1:2", "--d", "2", "--dt", "3", "--dps", "10")
    assert code == 0 and out.splitlines()[0].split() == ["C", "d", "dt", "threshold", "seconds"]
    assert "\r" not in err and "thresholds 1/2 (50 %)" in err and "ETA" in err
    assert err.splitlines()[-1].startswith("thresholds 2/2 (100 %) done in")


def test_user_facing_labels(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SYMLOSS_PROGRESS", "1")
    code, _, err = run(capsys, "simulate", "--policy", "power", "--N", "10", "--C", "2", "--d", "2", "--rho", "1",
                       "--events", "1e4")
    assert code == 0 and "simulate power" in err and "event" in err
    from symloss.sweeps import grid, sweep
    sweep("math:comb", grid(n=[3], k=1), store=tmp_path / "c.sqlite", executor="serial")
    sweep("math:comb", grid(n=[4], k=1), store=tmp_path / "c.sqlite", executor="serial", progress="my points")
    err = capsys.readouterr().err
    assert "sweep comb" in err and "my points" in err and "math:" not in err


@pytest.mark.slow
def test_verify_labels(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SYMLOSS_PROGRESS", "1")
    code, _, err = run(capsys, "verify", "--claim", "erlang.recursion", "--workers", "1")
    assert code == 0 and "verify claims" in err
    code, _, err = run(capsys, "verify", "--claim", "erlang.recursion", "--workers", "1", "--store", "v.sqlite")
    assert code == 0 and "verify claims" in err and "claim_point" not in err and "proofs_check" not in err


def _env():
    env = dict(os.environ)
    env.pop("SYMLOSS_PROGRESS", None)
    return env


TABLE = [sys.executable, "-m", "symloss", "table", "--C", "1", "--d", "2", "--dt", "3", "--dps", "10"]


@pytest.mark.slow
def test_table_off_a_terminal_prints_its_table(tmp_path):
    err_path = tmp_path / "err.log"
    with open(err_path, "w") as err:
        proc = subprocess.run(TABLE, stdout=subprocess.PIPE, stderr=err, text=True, env=_env(), timeout=120)
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[0].split() == ["C", "d", "dt", "threshold", "seconds"]
    assert proc.stdout.splitlines()[1].split()[:4] == ["1", "2", "3", "0.0"]
    assert "\r" not in err_path.read_text()


@pytest.mark.slow
def test_a_terminal_gets_the_tqdm_bar():
    import threading
    import fcntl
    import struct
    import termios
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))   # 120 columns for tqdm
    chunks = []

    def read():                    # drain the terminal while the command runs
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:        # the terminal closed with the process
                return
            if not data:
                return
            chunks.append(data)
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        proc = subprocess.Popen(TABLE, stdout=subprocess.PIPE, stderr=follower, env=_env(), text=True)
        os.close(follower)
        out, _ = proc.communicate(timeout=120)
        reader.join(5)
    finally:
        os.close(leader)
    err = b"".join(chunks).decode(errors="replace")
    assert proc.returncode == 0 and "threshold" in out
    assert "\r" in err and "thresholds" in err           # tqdm frames on a terminal
