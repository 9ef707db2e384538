"""Erlang-B at any size: certified arbitrary precision (python-flint balls), float and log forms
(numba kernel in the private ``_kernels``), capacity, load, derivatives and the SymPy form."""
from .erlang_b import (
                       erlang_b,
                       erlang_b_ball,
                       erlang_b_capacity,
                       erlang_b_derivative,
                       erlang_b_expr,
                       erlang_b_float,
                       erlang_b_load,
                       erlang_b_recursion,
                       log_erlang_b,
)

__all__ = ["erlang_b", "erlang_b_ball", "erlang_b_float", "log_erlang_b", "erlang_b_expr",
           "erlang_b_derivative", "erlang_b_capacity", "erlang_b_load", "erlang_b_recursion"]
