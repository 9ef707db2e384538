"""The docstring fragments of :mod:`symloss.twoqueue`: texts several of its docstrings share, written
once and filled in at import with :func:`symloss.core.docstrings.fill_doc` (``@fill_doc(TWOQUEUE_DOCS)``;
the Yao-Knessl reference is :data:`symloss.core.docstrings.FRAGMENTS`' ``references_yao_knessl``).
"""
from __future__ import annotations

__all__ = ["TWOQUEUE_DOCS"]

_N_RHO = """\
N : int
    Servers per station, ``>= 1``.
rho : float
    The load, ``> 0``."""

#: name -> text of the docstring fragments of the two-queue room.
TWOQUEUE_DOCS: dict[str, str] = {
    # the size and load of the model, first arguments of the asymptotics
    "N_rho": _N_RHO,
    # the arguments of the large-load asymptotics (asymptotic_law, AsymptoticLaw, blocking_asymptotic)
    "N_rho_regime_order": _N_RHO + """
regime : str
    One of :data:`~symloss.twoqueue.asymptotic.REGIMES` (the formulas used).
order : {0, 1}
    Leading order, or with the next-order corrections.""",
    # the validation of distribution._conditioning, which both conditional() methods call
    "raises_conditioning": """\
ValueError
    If not exactly one of ``n``, ``total`` is given, or an argument is out of range.""",
    # the rule-table argument of the functions that take one (default: the Yao-Knessl model)
    "rules_param": """\
rules : sequence of Rule
    The rule table (default :data:`~symloss.twoqueue.definition.RULES`, the Yao-Knessl model's).""",
    # the laws on 0..N that TwoQueueDistribution returns (marginals, imbalance, conditionals)
    "returns_law_N1": """\
Returns
-------
numpy.ndarray or list
    ``N + 1`` probabilities (a list in the number type of the exact methods).""",
    # the law of the less occupied queue (min_law_from_diagonal, marginal_min_tail)
    "returns_min_law": """\
Returns
-------
numpy.ndarray
    :math:`P(\\min = m)`, ``m = 0..N``.""",
}

