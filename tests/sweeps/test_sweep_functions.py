"""The functions that tests/test_sweep.py evaluates in sweeps (this file holds no tests).

They live in their own light module (no pytest, hypothesis or pandas imports) because every worker
process of a sweep imports the module of the function it runs: a light module keeps worker start-up
short. Each is deterministic; the side files they append to let the tests count real calls.
"""
from __future__ import annotations

import dataclasses
import os
import signal
import time
from fractions import Fraction
from pathlib import Path

import mpmath


def _log(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (text + "\n").encode())  # one write: atomic append between processes
    finally:
        os.close(fd)


def _arange(n):
    import numpy as np
    return np.arange(n)


def square(x, y=0):
    return x * x + y


KILL_FLAG_ENV = "SYMLOSS_SWEEP_TEST_KILL_FLAG"


def mixed(x, dps=20):
    """A dict with an mpf, a list, a fraction and an array; raises at x == 3.

    When the environment variable SYMLOSS_SWEEP_TEST_KILL_FLAG is set (only for the Dask workers of a
    test), the process computing x == 4 kills itself once (it creates the file named by the variable;
    the rerun finds it), and the one computing (x, dps) == (6, 15) kills itself every time.
    """
    flag = os.environ.get(KILL_FLAG_ENV)
    if flag and ((x == 4 and not os.path.exists(flag)) or (x == 6 and dps == 15)):
        if x == 4:
            Path(flag).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    if x == 3:
        raise ValueError(f"x = {x} is not allowed")
    with mpmath.workdps(dps + 10):
        root = mpmath.sqrt(mpmath.mpf(x) + 2)
    return {"root": root, "powers": [x, x ** 2, x ** 3], "exact": Fraction(x, 7), "arr": _arange(x)}


def counted(x, log, sleep=0.0):
    """x**2, after sleeping; appends "x" to the file log when it completes.

    While a file named log + ".hang" exists, every call hangs for two minutes before completing (the
    test uses it to have the workers busy with long points when it kills the sweep).
    """
    if sleep:
        time.sleep(sleep)
    if os.path.exists(log + ".hang"):
        time.sleep(120)
    _log(log, str(x))
    return x * x


def flaky(x, flag):
    """Fails for odd x until the file flag exists."""
    if x % 2 and not os.path.exists(flag):
        raise RuntimeError(f"odd point {x} before the flag")
    return -x


def killer(x, sleep=0.0):
    """Kills its own worker process at x == 5; x + 100 otherwise."""
    if sleep:
        time.sleep(sleep)
    if x == 5:
        os.kill(os.getpid(), signal.SIGKILL)
    return x + 100


@dataclasses.dataclass
class _Res:
    value: object
    method: str

    def to_dict(self):
        return {"value": self.value, "method": self.method}


def with_dataclass(x):
    return _Res(mpmath.mpf(x) / 3, "exact")


class Escape(BaseException):
    """Not an Exception (like GeneratorExit or a library's own BaseException)."""


def escape(x):
    if x == 1:
        raise Escape("not an Exception")
    return x

