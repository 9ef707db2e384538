"""Erlang-B at any size: certified arbitrary precision (python-flint balls), float and log forms
(numba kernel in the private ``_kernels``), capacity, load, derivatives and the SymPy form."""
from . import erlang_b as _erlang_b
from .erlang_b import *  # noqa: F403 - the Erlang-B functions

__all__ = list(_erlang_b.__all__)
