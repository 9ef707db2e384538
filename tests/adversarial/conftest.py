"""Shared fixtures of the adversarial suite.

``isolated`` runs the probes that may hang in compiled code or crash the interpreter, each in its own
process, all at once (so the suite pays one time limit, not one per probe), and returns their outcomes
by name. A probe is a Python expression (API) or a ``symloss`` command line (CLI). Each process gets a
CPU-time limit (``SYMLOSS_ADVERSARIAL_CPU`` seconds, default 8: imports take about 2): a probe that
works instead of checking its input is stopped there (SIGXCPU) and reported as not finished, so hanging
probes do not starve the others on a small machine.
"""
import os
import resource
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from symloss.core.cli_progress import PROGRESS_LINE_PATTERN

# wall seconds for all isolated probes: below the 120 s pytest-timeout of the tests that use them, so a
# probe that does not end is reported as not finished (a test failure) instead of an error at setup
LIMIT = float(os.environ.get("SYMLOSS_ADVERSARIAL_LIMIT", "100"))
CPU = int(os.environ.get("SYMLOSS_ADVERSARIAL_CPU", "8"))            # CPU seconds per probe


def _limit_cpu(cpu=CPU):
    def limit():  # pragma: no cover - runs in the child
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))
        os.nice(5)
    return limit

_API = textwrap.dedent("""
    import warnings
    warnings.simplefilter("ignore")
    import numpy as np, mpmath
    from fractions import Fraction
    import symloss
    from symloss import *
    try:
        r = {expr}
        print("ok", repr(r)[:300])
    except BaseException as e:
        print("raised", type(e).__name__ + ":", str(e)[:400].replace(chr(10), " "))
""")

# name -> ("api", expression) or ("cli", argv string), optionally a third item: the probe's CPU seconds
# (default CPU). Every probe must end well inside LIMIT once the entry point checks its input before
# working.
PROBES = {
    # families owned by others (findings; see docs/accuracy_and_limits.md)
    "pod_big_C": ("api", "PowerOfD(100000, 2).blocking(1.0, dps=15)"),
    "crossing_same": ("api", "crossing_loads(1, 2, 2)"),
    "simulate_events_huge": ("api", "simulate('power', N=10, C=2, rho=1.0, d=2, events=10**15)"),
    "simulate_d_huge": ("api", "simulate('power', N=10, C=2, rho=1.0, d=10**9, events=1000)"),
    "simulate_warmup_rho": ("api", "simulate('random', N=10, C=2, rho=1e8, events=1000)"),
    "exact_huge": ("api", "exact_finite_n('random', 10**7, 10**6, 1.0)"),
    "fnt_events_huge": ("api", "finite_n_threshold(2, 2, 3, 50, method='simulation', events=10**15)"),
    "grid_huge": ("api", "len(grid(a=range(10**5), b=range(10**5)))"),
    # own families, in a fresh process (crash risks)
    "sm_initial_wrap": ("api", "simulate_supermarket(make_graph('complete', 100), lam=0.5, t_end=1.0, seed=1, "
                               "initial=np.full(100, 2**31 + 5))"),
    "sm_lam_near_one": ("api", "Supermarket(1, 0.99999).mean_queue_length(15)"),
    "sm_t_end_huge": ("api", "simulate_supermarket(make_graph('complete', 100), lam=0.5, t_end=1e300)"),
    "erlang_float_issue": ("api", "erlang_b_float(10**9, 10**9 + 10)"),
    "admission_path_huge": ("api", "OverloadedLossNetwork(100, 0.5, 1, 2, 1).sample_path(2e6)"),
    # CLI
    "cli_erlang_huge_exponent": ("cli", "erlang 10 1e99999999"),
    "cli_blocking_huge_exponent": ("cli", "blocking --policy power --C 2 --d 2 --rho 1e99999999"),
    "cli_twoqueue_huge_exponent": ("cli", "twoqueue 5 1e99999999"),
    # (kind, what, CPU seconds): measured 6-8 s alone (C = 1000 derivation, scan, certified refinement)
    "cli_threshold_C1000": ("cli", "threshold --C 1000 --d 2 --dt 3 --dps 15", 30),
    "cli_simulate_events_huge": ("cli", "simulate power -N 10 -C 2 --rho 1 -d 2 --events 1e15"),
    "cli_derive_big": ("cli", "derive --policy power --C 50 --d 10"),
    "cli_erlang_uncertifiable": ("cli", "erlang 1e30 1e30"),
    "cli_blocking_overflow": ("cli", "blocking --policy power --C 320 --d 10 --rho 0.5"),
    "cli_table_json_missing_dir": ("cli", "table --C 1:2 --d 2 --dt 3 --json /nonexistent/dir/out.json --no-progress"),
    "cli_supermarket_huge_exponent": ("cli", "supermarket meanfield --lam 1e-99999999"),
    "cli_supermarket_t_end": ("cli", "supermarket simulate --N 100 --lam 0.5 --t-end 1e300"),
    "cli_admission_huge": ("cli", "admission --N 100000 --lam-H 1/2 --lam-L 1 --r-H 2 --r-L 1 --horizon 100"),
    "cli_erlang_ok": ("cli", "erlang 10 5"),
}


class Outcome:
    def __init__(self, kind, rc, out, err, seconds):
        self.kind, self.rc, self.out, self.err, self.seconds = kind, rc, out, err, seconds

    @property
    def finished(self) -> bool:
        """Ended on its own (not stopped by the CPU or wall-clock limit)."""
        return self.rc is not None and self.rc not in (-signal.SIGXCPU, -signal.SIGKILL)

    @property
    def crashed(self) -> bool:
        """Killed by a signal other than the limits (a segfault is -11)."""
        return self.finished and self.rc < 0

    @property
    def last_line(self) -> str:
        lines = self.out.strip().splitlines()
        return lines[-1] if lines else ""

    @property
    def stderr_lines(self) -> list:
        """The stderr lines that are not progress lines (off a terminal, a long command prints plain
        progress lines ``label i/n (p %) ...`` on stderr: symloss.core.cli_progress.ProgressLines)."""
        return [x for x in self.err.strip().splitlines() if x.strip() and not PROGRESS_LINE_PATTERN.search(x)]

    def __repr__(self):
        return (f"Outcome(rc={self.rc}, {self.seconds:.1f}s, out={self.last_line[:200]!r}, "
                f"err={self.stderr_lines[-3:]!r})")


@pytest.fixture(scope="session")
def isolated():
    procs = {}
    t0 = time.perf_counter()
    for name, (kind, what, *cpu) in PROBES.items():
        argv = [sys.executable, "-c", _API.format(expr=what)] if kind == "api" else \
            [sys.executable, "-m", "symloss"] + what.split()
        procs[name] = (kind, subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                              preexec_fn=_limit_cpu(*cpu)), time.perf_counter())
    results = {}
    for name, (kind, p, start) in procs.items():
        left = max(0.1, LIMIT - (time.perf_counter() - t0))
        try:
            out, err = p.communicate(timeout=left)
            results[name] = Outcome(kind, p.returncode, out, err, time.perf_counter() - start)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            results[name] = Outcome(kind, None, out or "", err or "", time.perf_counter() - start)
    return results
