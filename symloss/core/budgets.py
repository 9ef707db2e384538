r"""Sizes, budgets and deadlines, checked *before* work starts (:func:`check_budget`,
:func:`check_max_seconds`, :func:`check_max_bytes`, :func:`check_output_path`, :class:`Deadline`):
the error (:class:`BudgetError`, a ``ValueError``; :class:`TimeLimitExceeded`) names the argument, the
estimate and the limit.

Split out of :mod:`symloss.core.validation` (which re-exports every name).
"""
from __future__ import annotations

import os
import time

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


def check_max_seconds(x, name: str = "max_seconds"):
    """``None`` (no time limit) or a positive finite number of seconds, as float.

    Parameters
    ----------
    x : None or number
        The limit.
    name : str
        The argument's name, for the error messages.

    Returns
    -------
    float or None

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


def check_max_bytes(x, name: str = "max_bytes") -> float:
    """``None`` (the default budget ``DEFAULT_MAX_BYTES`` = 4 GiB) or a positive number of bytes.

    Parameters
    ----------
    x : None or number
        The budget.
    name : str
        The argument's name, for the error messages.

    Returns
    -------
    float

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
