"""The docstring fragments of :mod:`symloss.meanfield`: the texts that several docstrings of the room
share (a ``Raises`` block of the same validation, the description of the same parameter, a reference),
written once and filled in at import with :func:`symloss.core.docstrings.fill_doc`
(``@fill_doc(MEANFIELD_DOCS)``; the texts shared with other rooms are in
:data:`symloss.core.docstrings.FRAGMENTS`).
"""
from __future__ import annotations

from ..core.docstrings import FRAGMENTS

__all__ = ["MEANFIELD_DOCS"]

_JAGERMAN = """\
.. [2] D. L. Jagerman, "Some properties of the Erlang loss function", Bell System Technical Journal
   53(3) (1974) 525-551 (the overloaded regime rho = aC of Erlang-B)."""

_NO_FACTOR = """\
PrecisionError
    If no factor vanishes at the certified blocking."""

_RAISES_POWER = """\
Raises
------
ValueError
    If the elimination does not end in one polynomial.
BudgetError
    If the Bezout number exceeds ``max_degree`` (a ``ValueError``)."""

_N_SAMPLING = """\
N : int
    Number of servers.
sampling : {"with_replacement", "without_replacement"}
    How the ``d`` servers are drawn."""

#: name -> text of the docstring fragments of the mean-field room.
MEANFIELD_DOCS: dict[str, str] = {
    # -- the shipped models (symloss.meanfield.models) ----------------------------------------------
    "raises_C_d": """\
Raises
------
TypeError
    If ``C`` or ``d`` is not an integer.
ValueError
    If ``C`` or ``d`` is outside its range.""",
    "params_N_sampling": _N_SAMPLING,
    "finite_n_transitions_sections": """\
Parameters
----------
""" + _N_SAMPLING + """

Returns
-------
list of (sympy.SparseMatrix, sympy.Expr) or None
    ``(jump, total rate)`` in :meth:`~symloss.MeanFieldModel.count_symbols` and
    :data:`~symloss.core.model.RHO`; ``None`` with replacement (the count chain is then the
    mean-field rates times ``N``).""",
    "params_max_degree_bezout": """\
Parameters
----------
max_degree : int
    Refuse, before any work, when the Bezout number ``d^C`` of the rows exceeds it (default
    :data:`~symloss.meanfield.elimination.MAX_ELIMINANT_DEGREE`, 48; for an edited definition the
    work index of :func:`~symloss.meanfield.elimination.generic_eliminant`, default 100).""",
    # -- the eliminants (symloss.meanfield.elimination and the model methods that call it) -------------
    "returns_physical_factor": """\
Returns
-------
sympy.Poly
    The physical factor, in ``(rho, B)``.""",
    "raises_retrial_eliminant": """\
Raises
------
BudgetError
    If the predicted degree exceeds ``max_degree`` (a ``ValueError``).
""" + _NO_FACTOR,
    "raises_relation_in_a": """\
Raises
------
ValueError
    If the definition is not the retrial system of the reduction.
BudgetError
    If the degree exceeds ``max_degree`` (a ``ValueError``).""",
    "raises_power_elimination": _RAISES_POWER,
    "raises_power_eliminant": _RAISES_POWER + "\n" + _NO_FACTOR,
    # -- the Taylor models (symloss.meanfield.taylor) -------------------------------------------------
    "param_q": """\
q : int, fractions.Fraction or flint.fmpq
    The exponent, a rational (converted with ``fmpq``).""",
    # -- the accelerators (symloss.meanfield.accelerators, accel_power) -------------------------------
    "accel_solve_params": """\
rho : int, float, Fraction, mpmath.mpf or any real the input layer accepts
    Load per server, taken exactly (a float is its binary value; a non-dyadic rational is a
    ball of each working precision, never a rounded point).
dps : int
    Significant digits of the blocking.
residual : bool
    Compute the drift residual of the returned state.""",
    "uniqueness_rho_returns": """\
rho : number
    The load (the statement holds for every load).

Returns
-------
tuple of (str, str) or None
    ``(status, text)``; ``None`` when the template does not apply.""",
    "float_log_blocking_sections": """\
Parameters
----------
model : MeanFieldModel
    The model (for the method of an accelerator: one for which its ``applies`` holds).
rho : float
    Load per server, ``> 0``.

Returns
-------
float
    The natural logarithm of the blocking (not certified: for scans).""",
    # -- the threshold law (symloss.meanfield.threshold_law) ----------------------------------------
    "params_d_dt": """\
d : int in [1, 64]
    Power-of-d.
dt : int in [2, 64], > d
    Retrial-of-dt.""",
    "raises_d_dt_digits": """\
Raises
------
ValueError, TypeError
    Bad ``d``, ``dt`` or ``digits``.""",
    "references_retrial_jagerman": "References\n----------\n" + FRAGMENTS["ref_retrial"] + "\n" + _JAGERMAN,
}
