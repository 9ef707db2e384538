"""Docstring fragments of :mod:`symloss.admission`: the descriptions of the arguments that the module-level
workers behind :class:`OverloadedLossNetwork`'s methods share (``net``, ``seed``, ``n0``), filled in at
import by :func:`symloss.core.docstrings.fill_doc` (``@fill_doc(ADMISSION_DOCS)``).
"""
from __future__ import annotations

__all__ = ["ADMISSION_DOCS"]

#: name -> text of the docstring fragments of the admission room.
ADMISSION_DOCS: dict[str, str] = {
    # the first argument of the module-level workers behind OverloadedLossNetwork's methods
    "net_param": """\
net : OverloadedLossNetwork
    The network (shipped rules, checked by the class).""",
    # the seed of the samplers (paths.sample_path, jobs.sample_jobs)
    "seed_param": """\
seed : None, int, sequence, SeedSequence or Generator
    The seed (:func:`~symloss.admission.paths.rng_of`).""",
    # the start state of the path evaluations, validated by the class
    "n0_param": """\
n0 : int
    The checked start state.""",
}
