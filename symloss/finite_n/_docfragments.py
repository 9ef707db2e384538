"""The docstring fragments of :mod:`symloss.finite_n`: texts several of its docstrings share, written
once and filled in with :func:`symloss.core.docstrings.fill_doc` (``@fill_doc(FINITE_N_DOCS)``).
"""
from __future__ import annotations

__all__ = ["FINITE_N_DOCS"]

#: name -> text of the shared parameter descriptions and references of the finite-N modules.
FINITE_N_DOCS: dict[str, str] = {
    # the (model, N, sampling) that names one finite-N chain
    "model_N_sampling": """\
model : MeanFieldModel
    The model.
N : int
    Number of servers.
sampling : {"with_replacement", "without_replacement"}
    The finite-N convention.""",
    # one state of a chain and an exact load, as the exact (flint) evaluations take them
    "exact_state_rho": """\
state : array_like of int
    The counts.
rho : flint.fmpq
    Load per server, exact.""",
    # the count chain as a density-dependent population process
    "ref_kurtz": """\
.. [1] T. G. Kurtz, "Solutions of ordinary differential equations as limits of pure jump Markov
   processes", Journal of Applied Probability 7(1), 49-58 (1970)""",
}
