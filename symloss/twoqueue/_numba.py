"""The numba kernels of :mod:`symloss.twoqueue`, imported on first use.

Importing numba costs about a second; ``import symloss.twoqueue`` does not pay it. Every solver that
runs a kernel of the private ``symloss.twoqueue._kernels`` gets the module from :func:`kernels` (the
one lazy import of the room). Attributes are read from the module at call time, so a test that
patches ``_kernels.STENCIL_RULES`` patches what the solvers use.
"""
from __future__ import annotations

__all__ = ["kernels"]


def kernels():
    """The module ``symloss.twoqueue._kernels`` (numba kernels, compiled on first call, disk cache).

    Returns
    -------
    module
        ``symloss.twoqueue._kernels``, imported once; each kernel compiles on its first call.

    Examples
    --------
    >>> from symloss.twoqueue._numba import kernels
    >>> kernels().layout(2).tolist()                  # level offsets for N = 2
    [0, 1, 2, 4, 5, 6]
    """
    from . import _kernels  # numba: about 1 s to import, so loaded only when a kernel runs
    return _kernels
