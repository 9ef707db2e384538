"""The progress policy: one for every long command of both command lines (``symloss``,
``proofs_check``) and for the API's ``progress=`` (re-exported by :mod:`symloss.core.cli_grammar`).

:func:`progress_mode` decides: a tqdm bar on stderr when it is a terminal (``SYMLOSS_PROGRESS=1``
forces it), tqdm's notebook bar in Jupyter, plain periodic lines when stderr is not a terminal (a log
gets no carriage-return frames: :class:`ProgressLines`, whose lines :data:`PROGRESS_LINE_PATTERN`
recognises), nothing with ``--no-progress`` (:func:`add_progress`; ``verify --quiet`` too) or
``SYMLOSS_PROGRESS=0``. :func:`progress_bar` makes the bar of a command, :class:`Stages` one over
named stages. Labels are for a user (``verify claims``, ``simulate power``).
"""
from __future__ import annotations

import os
import re
import sys
import time

#: Plain progress lines (stderr not a terminal): none in the first ``PROGRESS_QUIET`` seconds (a short
#: command leaves nothing in a log), then one at every ``PROGRESS_STEP`` of the total or every
#: ``PROGRESS_INTERVAL`` seconds, whichever comes first, and a last one when the work ends.
PROGRESS_INTERVAL = 10.0
PROGRESS_STEP = 0.1
PROGRESS_QUIET = 2.0

_OFF = ("", "0", "false", "no", "off")


def _stderr_is_tty() -> bool:
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # pragma: no cover - closed or replaced stderr
        return False


def _in_notebook() -> bool:
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # noqa: BLE001 - any failure means: not a notebook  # pragma: no cover
        return False
    return type(shell).__name__ == "ZMQInteractiveShell"


def progress_mode(args=None) -> str | None:
    """How progress is shown: the one policy of every long command of both command lines and of the
    API functions that take ``progress=``.

    * ``None`` (nothing): ``--no-progress`` (``verify --quiet``), ``progress=False`` or
      ``SYMLOSS_PROGRESS=0``;
    * ``"tty"``: a tqdm bar on stderr when it is a terminal (or with ``SYMLOSS_PROGRESS=1``);
    * ``"notebook"``: tqdm's notebook bar in a Jupyter kernel (API calls);
    * ``"lines"``: plain periodic lines on stderr when it is not a terminal (a log file or a pipe gets
      no carriage-return frames; ``SYMLOSS_PROGRESS=lines`` forces them), see :class:`ProgressLines`.

    Parameters
    ----------
    args : argparse.Namespace, bool or None, optional
        The parsed arguments (``args.no_progress`` and ``args.quiet`` are read if present), or
        ``True``/``None`` (the policy decides) or ``False`` (off).

    Returns
    -------
    str or None
        ``"tty"``, ``"notebook"``, ``"lines"`` or ``None``.

    Examples
    --------
    >>> import argparse
    >>> progress_mode(argparse.Namespace(no_progress=True)) is None
    True
    >>> progress_mode(False) is None
    True
    """
    if args is False or getattr(args, "no_progress", False) or getattr(args, "quiet", False):
        return None
    env = os.environ.get("SYMLOSS_PROGRESS")
    if env is not None:
        env = env.strip().lower()
        if env in _OFF:
            return None
        if env == "lines":
            return "lines"
        return "tty"
    if _stderr_is_tty():
        return "tty"
    if _in_notebook():
        return "notebook"
    return "lines"


def progress_enabled(args) -> bool:
    """Whether any progress is shown (:func:`progress_mode` is not ``None``).

    Parameters
    ----------
    args : argparse.Namespace, bool or None
        As in :func:`progress_mode`.

    Returns
    -------
    bool
        False with ``--no-progress`` (``verify --quiet``), ``progress=False`` or ``SYMLOSS_PROGRESS=0``.

    Examples
    --------
    >>> import argparse
    >>> progress_enabled(argparse.Namespace(no_progress=True))
    False
    """
    return progress_mode(args) is not None


def add_progress(p) -> None:
    """Add ``--no-progress`` (no progress bar on stderr; see :func:`progress_enabled`).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser to add the option to.
    """
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def _count_text(n) -> str:
    n = float(n)
    if abs(n) < 100_000:
        return f"{n:.0f}"
    for div, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= div:
            return f"{n / div:.3g}{suffix}"
    return f"{n:.0f}"  # pragma: no cover


def _duration_text(s: float) -> str:
    s = max(0.0, float(s))
    if s < 59.5:
        return f"{s:.0f} s"
    if s < 599.5:
        m, sec = divmod(int(round(s)), 60)
        return f"{m} min" + (f" {sec} s" if sec else "")
    if s < 3600:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


#: A line of :class:`ProgressLines` with a known total, as ``PROGRESS_LINE_PATTERN.search(line)`` finds it:
#: ``LABEL N/TOTAL (P %) ...`` -- the counts are integers below 100 000 and ``1.5k``, ``12M``, ``3G``,
#: ``1T`` above (``ProgressLines._counts`` writes them), the percentage an integer, then ``N s elapsed``,
#: ``done in ...`` or ``stopped after ...``. A test that reads a command's stderr drops such lines.
PROGRESS_LINE_PATTERN = re.compile(r"(?:^| )\d+(?:\.\d+)?(?:e\+\d+)?[kMGT]?/\d+(?:\.\d+)?(?:e\+\d+)?[kMGT]? \(\d+ %\) ")


class ProgressLines:
    """The progress of a command as plain lines on stderr, for a log file or a pipe (no ``\\r`` frames):
    ``claims 120/985 (12 %) 14 s elapsed, ETA 1 min``.

    Nothing is written in the first ``PROGRESS_QUIET`` seconds; then a line at every
    ``PROGRESS_STEP`` of the total or every ``PROGRESS_INTERVAL`` seconds (whichever comes
    first) and a last line when the bar closes. The methods are those of a tqdm bar that symloss uses
    (``update``, ``set_postfix_str``, ``set_postfix``, ``set_description``, ``close``; a context manager).
    With a known total, every line matches ``PROGRESS_LINE_PATTERN``.

    Parameters
    ----------
    total : number, optional
        The number of steps (``None``: unknown, no percentage or ETA).
    desc : str, optional
        The label, first on every line.
    unit : str, optional
        The unit of a step (shown when the total is unknown).
    file : file-like, optional
        Where the lines go (default ``sys.stderr`` at each write).
    interval, step, quiet : float, optional
        Override ``PROGRESS_INTERVAL``, ``PROGRESS_STEP`` and ``PROGRESS_QUIET``.
    clock : callable, optional
        The time source (default ``time.monotonic``; a test passes a fake clock).

    Examples
    --------
    >>> import io
    >>> buf, now = io.StringIO(), [0.0]
    >>> bar = ProgressLines(total=10, desc="claims", unit="claim", file=buf, clock=lambda: now[0])
    >>> for i in range(10):
    ...     now[0] += 3.0
    ...     bar.update(1)
    >>> bar.close()
    >>> buf.getvalue().splitlines()[0]
    'claims 1/10 (10 %) 3 s elapsed, ETA 27 s'
    >>> buf.getvalue().splitlines()[-1]
    'claims 10/10 (100 %) done in 30 s'
    >>> all(PROGRESS_LINE_PATTERN.search(line) for line in buf.getvalue().splitlines())
    True
    >>> bool(PROGRESS_LINE_PATTERN.search("simulate power 1.2M/10M (12 %) 14 s elapsed, ETA 1 min"))
    True
    """

    def __init__(self, total=None, desc: str = "", unit: str = "it", *, file=None, interval: float | None = None,
                 step: float | None = None, quiet: float | None = None, clock=None):
        self.total = total
        self.desc = desc
        self.unit = unit
        self.n = 0
        self.postfix = ""
        self._file = file
        self._interval = PROGRESS_INTERVAL if interval is None else float(interval)
        self._step = PROGRESS_STEP if step is None else float(step)
        self._quiet = PROGRESS_QUIET if quiet is None else float(quiet)
        self._clock = clock or time.monotonic
        self._t0 = self._clock()
        self._last_line = None      # time of the last line written
        self._last_step = 0         # PROGRESS_STEP index of the last line written
        self._closed = False

    # the tqdm methods symloss uses -------------------------------------------------------------
    def update(self, n=1) -> None:
        """Advance by ``n`` steps; write a line when one is due.

        Parameters
        ----------
        n : number, optional
            Steps done since the last update.
        """
        self.n += n
        self._maybe_write()

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        """Show ``s`` after the counts on the next line (e.g. the item now running).

        Parameters
        ----------
        s : str, optional
            The text.
        refresh : bool, optional
            Ignored (tqdm's signature).
        """
        self.postfix = str(s)

    def set_postfix(self, ordered_dict=None, refresh: bool = True, **kwargs) -> None:
        """``key=value`` pairs after the counts on the next line (tqdm's signature).

        Parameters
        ----------
        ordered_dict : mapping, optional
            Pairs to show.
        refresh : bool, optional
            Ignored.
        **kwargs
            More pairs.
        """
        items = dict(ordered_dict or {}, **kwargs)
        self.postfix = ", ".join(f"{k}={v}" for k, v in items.items())

    def set_description(self, desc: str = "", refresh: bool = True) -> None:
        """Change the label.

        Parameters
        ----------
        desc : str, optional
            The new label.
        refresh : bool, optional
            Ignored.
        """
        self.desc = str(desc)

    def refresh(self) -> None:
        """Write a line when one is due (tqdm's signature)."""
        self._maybe_write()

    def close(self) -> None:
        """Write the last line, ``done in ...`` (``stopped after ...`` before the total), unless no line
        was written and the work took less than ``PROGRESS_INTERVAL`` (a command of a few seconds
        stays silent, however loaded the machine)."""
        if self._closed:
            return
        self._closed = True
        elapsed = self._clock() - self._t0
        if self._last_line is not None or elapsed >= max(self._quiet, self._interval):
            end = "stopped after" if self.total and self.n < self.total else "done in"
            self._write(f"{self._counts()} {end} {_duration_text(elapsed)}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    # lines -------------------------------------------------------------------------------------
    def _counts(self) -> str:
        # the format PROGRESS_LINE_PATTERN matches (with a total): "LABEL N/TOTAL (P %)"
        head = f"{self.desc} " if self.desc else ""
        if self.total:
            pct = 100.0 * self.n / self.total
            return f"{head}{_count_text(self.n)}/{_count_text(self.total)} ({pct:.0f} %)"
        return f"{head}{_count_text(self.n)} {self.unit}"

    def _maybe_write(self) -> None:
        if self._closed:
            return
        now = self._clock()
        elapsed = now - self._t0
        if elapsed < self._quiet or (self.total and self.n >= self.total):
            return                  # the last line is written by close()
        step_index = int(self.n / self.total / self._step + 1e-9) if self.total else 0
        due_time = self._last_line is None or now - self._last_line >= self._interval
        due_step = bool(self.total) and step_index > self._last_step
        if not (due_time or due_step):
            return
        self._last_line = now
        self._last_step = step_index
        text = f"{self._counts()} {_duration_text(elapsed)} elapsed"
        if self.total and 0 < self.n < self.total:
            text += f", ETA {_duration_text(elapsed * (self.total - self.n) / self.n)}"
        if self.postfix:
            text += f" [{self.postfix}]"
        self._write(text)

    def _write(self, text: str) -> None:
        fh = self._file if self._file is not None else sys.stderr
        try:
            fh.write(text + "\n")
            fh.flush()
        except (OSError, ValueError):  # pragma: no cover - a closed log: progress is not worth an error
            pass


class _NoProgress:
    """The bar of ``--no-progress``: every method does nothing."""

    total = None
    n = 0

    def update(self, n=1):
        self.n += n

    def set_postfix_str(self, s="", refresh=True):
        pass

    def set_postfix(self, ordered_dict=None, refresh=True, **kwargs):
        pass

    def set_description(self, desc="", refresh=True):
        pass

    def refresh(self):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def progress_bar(args=None, total=None, desc: str = "", unit: str = "it", **tqdm_kwargs):
    """The progress bar of a long command, by the one policy :func:`progress_mode`: a tqdm bar on
    stderr on a terminal (erased when it closes), tqdm's notebook bar in Jupyter, plain periodic
    lines (:class:`ProgressLines`) off a terminal, nothing with ``--no-progress``.

    Parameters
    ----------
    args : argparse.Namespace, bool or None, optional
        The parsed arguments, or ``True``/``None`` (the policy decides) / ``False`` (no bar).
    total : number, optional
        Number of steps (``None``: unknown).
    desc : str, optional
        The bar's label, for a user (``"verify claims"``, ``"sweep threshold_load"``), not an internal name.
    unit : str, optional
        The unit of a step.
    **tqdm_kwargs
        More options of the tqdm bar (``smoothing``, ``unit_scale``, ...); ignored by the other modes.

    Returns
    -------
    object
        A bar with tqdm's ``update``, ``set_postfix_str``, ``set_postfix``, ``close`` (a context
        manager).

    Examples
    --------
    >>> bar = progress_bar(False, total=3, desc="points")
    >>> bar.update(3); bar.close()
    """
    mode = progress_mode(args)
    if mode is None:
        return _NoProgress()
    if mode == "lines":
        return ProgressLines(total=total, desc=desc, unit=unit)
    if mode == "notebook":
        from tqdm.auto import tqdm
        return tqdm(total=total, desc=desc, unit=unit, **tqdm_kwargs)
    from tqdm import tqdm
    tqdm_kwargs.setdefault("dynamic_ncols", True)
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=not _stderr_is_tty(), **tqdm_kwargs)


class Stages:
    """A progress bar over the named stages of a command whose single calls have no progress hook.

    Used as a context manager: the bar closes on exit.

    Parameters
    ----------
    args : argparse.Namespace, bool or None
        The parsed arguments (see :func:`progress_bar`).
    names : iterable of str
        The stages, in order; their number is the bar's total.
    desc : str
        The bar's label.
    """

    def __init__(self, args, names, desc: str):
        self.names = list(names)
        self.bar = progress_bar(args, total=len(self.names), desc=desc, unit="stage")

    def __enter__(self):
        return self

    def start(self, name: str) -> None:
        """Show the stage now running beside the bar.

        Parameters
        ----------
        name : str
            The stage's name.
        """
        self.bar.set_postfix_str(name)

    def done(self) -> None:
        """Advance the bar by one finished stage."""
        self.bar.update(1)

    def __exit__(self, *exc):
        self.bar.close()
        return False
