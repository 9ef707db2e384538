r"""Sizes, budgets and deadlines, checked *before* work starts (:func:`check_budget`,
:func:`check_max_seconds`, :func:`check_max_bytes`, :func:`check_output_path`, :class:`Deadline`):
the error (:class:`BudgetError`, a ``ValueError``; :class:`TimeLimitExceeded`) names the argument, the
estimate and the limit. A deadline that a computation cannot check itself (one long SymPy call) is
enforced from outside by :func:`run_with_deadline`: the steps run in a worker process that is killed at
the deadline.

Split out of :mod:`symloss.core.validation` (which re-exports every name).
"""
from __future__ import annotations

import os
import time

from ._docfragments import CORE_DOCS
from .docstrings import fill_doc
from .real_numbers import real_float

DEFAULT_MAX_BYTES = 4 * 2 ** 30        # memory budget of the simulators and graph builders (4 GiB)
class BudgetError(ValueError):
    """A computation's estimated size (states, memory, events, terms) or time exceeds its budget.

    Raised *before* the work starts; the message gives the estimate, the limit and the argument
    that controls it. A subclass of ``ValueError`` (the input is too large for the budget)."""


class TimeLimitExceeded(TimeoutError):
    """A computation ran past the ``max_seconds`` its caller gave (raised at a checkpoint)."""


# --------------------------------------------------------------------------------------------------
# budgets
# --------------------------------------------------------------------------------------------------

def check_output_path(path, name: str = "path") -> str:
    """``path`` as a string, after checking that a file can be written there (before any work). The one
    check of every output file (API and CLI: the CLI turns these errors into its one-line errors naming
    the option).

    Parameters
    ----------
    path : str or os.PathLike
        The output file.
    name : str, optional
        The argument's name, for the error messages.

    Returns
    -------
    str
        ``os.fspath(path)``.

    Raises
    ------
    TypeError
        Unless a ``str``/``os.PathLike``.
    ValueError
        For an empty name.
    IsADirectoryError
        When it is a directory.
    FileNotFoundError
        When its directory does not exist.
    PermissionError
        When the file exists and is not writable, or the directory does not allow creating it.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> check_output_path(os.path.join(d, "out.csv")).endswith("out.csv")
    True
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {type(path).__name__}")
    path = os.fspath(path)
    if not path:
        raise ValueError(f"{name}: empty file name")
    full = os.path.abspath(os.path.expanduser(path))
    if os.path.isdir(full):
        raise IsADirectoryError(f"{name}={path!r} is a directory, not a file")
    parent = os.path.dirname(full)
    if not os.path.isdir(parent):
        raise FileNotFoundError(f"{name}={path!r}: the directory {parent!r} does not exist (cannot write {path!r})")
    if os.path.exists(full):
        if not os.access(full, os.W_OK):
            raise PermissionError(f"{name}={path!r} is not writable")
    elif not os.access(parent, os.W_OK | os.X_OK):
        raise PermissionError(f"{name}={path!r}: the directory {parent!r} is not writable (cannot write {path!r})")
    return path


@fill_doc(CORE_DOCS)
def check_max_seconds(x, name: str = "max_seconds"):
    """``None`` (no time limit) or a positive finite number of seconds, as float.

    Parameters
    ----------
    x : None or number
        The time limit in seconds; ``None`` for no limit.
    {{param_name}}

    Returns
    -------
    float or None
        The limit as a float, or ``None``.

    Raises
    ------
    TypeError, ValueError
        As ``real_float`` with the range ``(0, inf)``.

    Examples
    --------
    >>> check_max_seconds(2) , check_max_seconds(None)
    (2.0, None)
    """
    if x is None:
        return None
    return real_float(x, name, lower=0, lower_open=True)


@fill_doc(CORE_DOCS)
def check_max_bytes(x, name: str = "max_bytes") -> float:
    """``None`` (the default budget ``DEFAULT_MAX_BYTES`` = 4 GiB) or a positive number of bytes.

    Parameters
    ----------
    x : None or number
        The memory budget in bytes; ``None`` for ``DEFAULT_MAX_BYTES``.
    {{param_name}}

    Returns
    -------
    float
        The budget in bytes, as a float.

    Raises
    ------
    TypeError, ValueError
        For a non-number or a value that is not positive.

    Examples
    --------
    >>> check_max_bytes(1024)
    1024.0
    """
    if x is None:
        return float(DEFAULT_MAX_BYTES)
    return real_float(x, name, lower=0, lower_open=True)


def check_budget(estimate, limit, name: str, *, what: str, unit: str = "", hint: str = "") -> None:
    """Raise :class:`BudgetError` when ``estimate > limit`` (checked before any work).

    Parameters
    ----------
    estimate : float
        The estimated cost.
    limit : float or None
        The limit (``None``: no limit).
    name : str
        The argument that sets ``limit`` (e.g. ``"max_events"``).
    what : str
        What is estimated.
    unit : str, optional
        Unit of the estimate, for the message.
    hint : str, optional
        How to reduce it, for the message.

    Raises
    ------
    BudgetError
        When ``estimate > limit``.

    Examples
    --------
    >>> check_budget(10, 100, "max_events", what="events")
    """
    if limit is not None and estimate > limit:
        u = f" {unit}" if unit else ""
        h = f"; {hint}" if hint else ""
        raise BudgetError(f"{what}: about {estimate:.3g}{u}, more than the limit {name}={limit:.3g}{u}{h}")


class Deadline:
    """A wall-clock budget for loops: ``Deadline(max_seconds, what).check()`` raises
    :class:`TimeLimitExceeded` once ``max_seconds`` have passed (``None``: never).

    Parameters
    ----------
    max_seconds : None or number
        The budget in seconds (checked by :func:`check_max_seconds`).
    what : str, optional
        What is computed, for the message.
    name : str, optional
        The argument's name, for the error messages.

    Examples
    --------
    >>> Deadline(None).check()
    """

    __slots__ = ("limit", "t0", "what")

    def __init__(self, max_seconds, what: str = "computation", name: str = "max_seconds"):
        self.limit = check_max_seconds(max_seconds, name)
        self.what = what
        self.t0 = time.perf_counter()

    @property
    def elapsed(self) -> float:
        """Seconds since the deadline was created (``time.perf_counter``)."""
        return time.perf_counter() - self.t0

    def check(self, detail: str = "") -> None:
        """Raise :class:`TimeLimitExceeded` when the budget has passed.

        Parameters
        ----------
        detail : str, optional
            Where the computation is, for the message.

        Raises
        ------
        TimeLimitExceeded
            Once ``max_seconds`` have passed.
        """
        if self.limit is not None and time.perf_counter() - self.t0 > self.limit:
            d = f" ({detail})" if detail else ""
            raise TimeLimitExceeded(f"{self.what} exceeded max_seconds={self.limit:g} after "
                                    f"{self.elapsed:.2f} s{d}")


# --------------------------------------------------------------------------------------------------
# a deadline enforced from outside: steps in a worker process, killed at the deadline
# --------------------------------------------------------------------------------------------------

def _worker_main(steps, conn) -> None:
    """The worker of :func:`run_with_deadline`: run the steps in order, send each result (or the
    exception) back through ``conn``; stop at the first error."""
    for label, fn, args in steps:
        try:
            value = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - sent to the parent, which raises it
            try:
                conn.send(("error", exc))
            except Exception:  # noqa: BLE001 - an exception that does not pickle
                conn.send(("error", RuntimeError(f"{label}: {type(exc).__name__}: {exc}")))
            return
        try:
            conn.send(("ok", value))
        except Exception as exc:  # noqa: BLE001
            conn.send(("error", RuntimeError(f"{label}: the result cannot be sent back ({type(exc).__name__}: "
                                             f"{exc})")))
            return


def _context():
    import multiprocessing
    import threading
    # fork: the worker starts at once with everything this process has computed (no re-import, no
    # pickling of the inputs); spawn where fork is unavailable or unsafe (other threads running)
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def run_with_deadline(steps, max_seconds, *, what: str = "computation", name: str = "max_seconds"):
    """Run ``steps`` one after the other in a worker process and yield their results as they finish;
    at the deadline the worker is killed and :class:`TimeLimitExceeded` is raised, so a step that never
    reaches a checkpoint (one long SymPy call) cannot overrun the budget.

    Parameters
    ----------
    steps : sequence of (str, callable, tuple)
        ``(label, func, args)``: ``func(*args)`` is computed in the worker (with ``fork`` the
        arguments are inherited, otherwise they and ``func`` must pickle); its result must pickle.
    max_seconds : None or number
        Wall-clock budget of all the steps together, from the call (``None``: no limit, the steps
        still run in the worker).
    what : str, optional
        What is computed, for the message.
    name : str, optional
        The argument (or option) that sets the budget, for the message.

    Yields
    ------
    (str, object)
        ``(label, result)`` of each step, in order, as soon as it is done.

    Raises
    ------
    TimeLimitExceeded
        When the budget has passed; the message names the step that was running and the time.
    Exception
        The exception a step raised (re-raised here), or ``RuntimeError`` when the worker died.

    Examples
    --------
    >>> list(run_with_deadline([("sum", sum, ([1, 2, 3],))], 30))
    [('sum', 6)]
    """
    limit = check_max_seconds(max_seconds, name)
    steps = list(steps)
    for item in steps:
        if not (isinstance(item, tuple) and len(item) == 3 and callable(item[1])):
            raise TypeError(f"steps must be (label, callable, args) triples, got {item!r}")
    import sys
    for fh in (sys.stdout, sys.stderr):     # nothing buffered is written twice by the worker
        try:
            fh.flush()
        except (OSError, ValueError, AttributeError):  # pragma: no cover
            pass
    ctx = _context()
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_worker_main, args=(steps, sender), daemon=True, name="symloss-deadline-worker")
    t0 = time.perf_counter()
    proc.start()
    sender.close()
    try:
        for label, _, _ in steps:
            while True:
                left = None if limit is None else limit - (time.perf_counter() - t0)
                if left is not None and left <= 0:
                    raise TimeLimitExceeded(f"{what}: {label} did not finish within {name}={limit:g} "
                                            f"(stopped after {time.perf_counter() - t0:.1f} s)")
                if receiver.poll(0.25 if left is None else min(left, 0.25)):
                    break
                if not proc.is_alive() and not receiver.poll(0):
                    raise RuntimeError(f"{what}: the worker process computing {label} died "
                                       f"(exit code {proc.exitcode}; out of memory?)")
            try:
                kind, payload = receiver.recv()
            except EOFError:
                raise RuntimeError(f"{what}: the worker process computing {label} died "
                                   f"(exit code {proc.exitcode})") from None
            if kind == "error":
                raise payload
            yield label, payload
    finally:
        if proc.is_alive():
            proc.terminate()
            proc.join(1.0)
            if proc.is_alive():  # pragma: no cover - a worker ignoring SIGTERM
                proc.kill()
                proc.join(1.0)
        else:
            proc.join(0.1)
        receiver.close()
