"""The docstring fragments of :mod:`symloss.core`: the texts that several docstrings of the room
share (the description of the same parameter, the ``Raises`` block of the same check), written once
and filled in at import with :func:`symloss.core.docstrings.fill_doc` (``@fill_doc(CORE_DOCS)``; the
texts shared with other rooms are in :data:`symloss.core.docstrings.FRAGMENTS`).
"""
from __future__ import annotations

__all__ = ["CORE_DOCS"]

_YR_FLOAT = """\
y : array_like
    ``log x`` (float64).
r : float
    ``log rho``."""

_YR_ARB = """\
y : sequence of flint.arb
    ``log x`` (balls).
r : flint.arb
    ``log rho`` (a ball)."""

_SEL = """
sel : list of int, optional
    The rows, indices into the ``n`` drift rows then the ``m`` invariant rows (default: the
    model's static square system, ``default_selection``)."""

_PARAMETERS = "Parameters\n----------\n"

_NAME = """\
name : str
    The argument's name, for the error messages."""

#: name -> text of the docstring fragments of the core room.
CORE_DOCS: dict[str, str] = {
    # -- the evaluators of symloss.core.codegen.CompiledModel: at (y, r), of the rows sel --------------
    "parameters_yr_float": _PARAMETERS + _YR_FLOAT,
    "parameters_yr_sel_float": _PARAMETERS + _YR_FLOAT + _SEL,
    "parameters_yr_arb": _PARAMETERS + _YR_ARB,
    "parameters_yr_sel_arb": _PARAMETERS + _YR_ARB + _SEL,
    # -- symloss.core.printers: the lambdify wrappers ---------------------------------------------
    "parameters_lambdify": _PARAMETERS + """\
args : sequence of sympy.Symbol
    The arguments, in the order the returned function takes them.
expr : sympy.Expr, list or sympy.Matrix
    The expression(s) to evaluate.""",
    # -- the float start (symloss.core.float_start) --------------------------------------------------
    "parameters_smooth_model_rho": _PARAMETERS + """\
model : MeanFieldModel
    A model with smooth rates.
rho : float or mpmath.mpf
    The load (an mpf may lie far outside the float range).""",
    # -- the finite-N hooks of symloss.core.model.MeanFieldModel ----------------------------------
    "parameters_N_sampling": _PARAMETERS + """\
N : int
    Number of servers.
sampling : {"with_replacement", "without_replacement"}
    The finite-N convention asked for.""",
    # -- the certified solvers (symloss.core.certify, krawczyk, model) ------------------------------
    "raises_solve": """\
Raises
------
TypeError, ValueError
    If ``rho``, ``dps`` or ``uniqueness`` is not valid.
PrecisionError
    If ``dps`` digits cannot be certified.""",
    "references_krawczyk_rump": """\
References
----------
.. [1] R. Krawczyk, "Newton-Algorithmen zur Bestimmung von Nullstellen mit Fehlerschranken",
   Computing 4, 187-201 (1969).
.. [2] S. M. Rump, "Verification methods: rigorous results using floating-point arithmetic",
   Acta Numerica 19, 287-449 (2010).""",
    "returns_raises_interval_enclosure": """\
Returns
-------
IntervalEnclosure
    The tube, its interval hull, and enclosures of the log-blocking and of
    :math:`d\\log B/d\\log\\rho` valid for every load of the interval.

Raises
------
ValueError
    If ``rho_lo >= rho_hi``.
PrecisionError
    When no tube is found (bisect the interval).""",
    # -- the argument checks (symloss.core.real_numbers, real_arrays, budgets) -----------------------
    "param_name": _NAME,
    "parameters_scalar_name": _PARAMETERS + "x : object\n    A real scalar.\n" + _NAME,
    "parameters_value_name": _PARAMETERS + "x : object\n    The value.\n" + _NAME,
    # -- the fast-path protocol (symloss.core.registry.FastPath) ----------------------------------
    "parameters_subject": _PARAMETERS + """\
subject : object
    The model, network or chain the fast path is asked about.""",
    # -- the M/M/n/n occupancy law (symloss.core.stats) -----------------------------------------------
    "parameters_truncated_poisson": _PARAMETERS + """\
n_max : int
    The truncation (number of servers).
rho : float
    The offered load, ``> 0``.""",
    # -- a state and a load, as the drift evaluations take them (symloss.core.derivation, model) -----
    "x_rho_state": """\
x : sequence
    A state (numbers convertible to ``mpf``, in the order of ``variables``).
rho : number
    The load.""",
    "parameters_checked_transitions": _PARAMETERS + """\
model : MeanFieldModel
    Its checked transitions are summed.""",
    # -- the state-space tests of a box (symloss.core.statespace.StateSpace) -------------------------
    "parameters_box_x": _PARAMETERS + """\
x : sequence of flint.arb
    A box (one ball per variable).""",
    # -- the integer options of the command line (symloss.core.cli_values) --------------------------
    "parameters_int_option": _PARAMETERS + """\
text, name : str
    The value as typed and the option, as in :func:`parse_int` (``name`` defaults to the option
    this function reads, e.g. ``--dps``).""",
}
