"""Seeds: one place that turns a user's ``seed=`` into :class:`numpy.random.SeedSequence` objects.

Accepted seeds: ``None`` (fresh OS entropy, recorded in the result), a non-negative integer, a
sequence of non-negative integers, a :class:`numpy.random.SeedSequence` and (where a function says
so) a :class:`numpy.random.Generator`, whose stream is advanced by one draw. The caller's
``SeedSequence`` is never changed: children are derived from its entropy and spawn key
(:func:`spawn`), so passing the same object twice gives the same streams twice. For a fresh
``SeedSequence`` the children are exactly those of ``SeedSequence.spawn``.
"""
from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

__all__ = ["seed_sequence", "spawn", "child"]

_SEED_TYPES = "None, a non-negative integer, a sequence of non-negative integers or a numpy.random.SeedSequence"


def seed_sequence(seed, name: str = "seed", *, allow_generator: bool = False) -> np.random.SeedSequence:
    """``seed`` as a :class:`numpy.random.SeedSequence` (see the module docstring); errors name the argument.

    Parameters
    ----------
    seed : None, int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator
        The user's seed (``None``: fresh OS entropy). A Generator only with ``allow_generator``.
    name : str, optional
        The argument's name, for the error messages.
    allow_generator : bool, optional
        Accept a Generator (its stream is advanced by one draw).

    Returns
    -------
    numpy.random.SeedSequence
        ``seed`` itself when it is one (never changed).

    Raises
    ------
    TypeError
        For another type (a bool, a string, a Generator without ``allow_generator``).
    ValueError
        For a negative integer or an empty sequence.

    Examples
    --------
    >>> seed_sequence(7).entropy
    7
    """
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        if not allow_generator:
            raise TypeError(f"{name} must be {_SEED_TYPES}, got a numpy.random.Generator")
        return np.random.SeedSequence(int(seed.integers(0, 2 ** 63)))
    if isinstance(seed, (bool, np.bool_)) or isinstance(seed, (str, bytes)):
        raise TypeError(f"{name} must be {_SEED_TYPES}, got {type(seed).__name__} {seed!r}")
    if isinstance(seed, numbers.Integral):
        if int(seed) < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {int(seed)}")
        return np.random.SeedSequence(int(seed))
    if isinstance(seed, (Sequence, np.ndarray)):
        vals = list(np.asarray(seed).ravel()) if isinstance(seed, np.ndarray) else list(seed)
        if not vals:
            raise ValueError(f"{name} must not be an empty sequence")
        out = []
        for i, v in enumerate(vals):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
                raise TypeError(f"{name}[{i}] must be a non-negative integer, got {v!r}")
            if int(v) < 0:
                raise ValueError(f"{name}[{i}] must be a non-negative integer, got {int(v)}")
            out.append(int(v))
        return np.random.SeedSequence(out)
    if allow_generator:
        raise TypeError(f"{name} must be {_SEED_TYPES} or a numpy.random.Generator, got {type(seed).__name__}")
    raise TypeError(f"{name} must be {_SEED_TYPES}, got {type(seed).__name__} {seed!r}")


def child(ss: np.random.SeedSequence, i: int) -> np.random.SeedSequence:
    """The ``i``-th child of ``ss`` without changing ``ss`` (``ss.spawn`` counts its children).

    Parameters
    ----------
    ss : numpy.random.SeedSequence
        The parent.
    i : int
        The child's index (appended to the spawn key).

    Returns
    -------
    numpy.random.SeedSequence

    Examples
    --------
    >>> import numpy as np
    >>> child(np.random.SeedSequence(7), 3).spawn_key
    (3,)
    """
    return np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (int(i),), pool_size=ss.pool_size)


def spawn(ss: np.random.SeedSequence, n: int, offset: int = 0) -> list[np.random.SeedSequence]:
    """``n`` children ``offset, ..., offset + n - 1`` of ``ss`` (see :func:`child`).

    Parameters
    ----------
    ss : numpy.random.SeedSequence
        The parent (not changed).
    n : int
        How many children.
    offset : int, optional
        Index of the first child.

    Returns
    -------
    list of numpy.random.SeedSequence

    Examples
    --------
    >>> import numpy as np
    >>> [s.spawn_key for s in spawn(np.random.SeedSequence(7), 2, offset=1)]
    [(1,), (2,)]
    """
    return [child(ss, offset + i) for i in range(int(n))]
