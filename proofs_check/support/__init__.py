"""Helpers shared by several claim modules (registers no claim).

:mod:`proofs_check.claims` is auto-discovered: :func:`proofs_check.core.all_claims` imports every
module there, and each registers its claims. Code that several claim modules use lives here instead,
outside the discovered package:

* :mod:`proofs_check.support.seed000`: the seed-000 machinery (model polynomials, crossing
  resultants, model stamps, certified signs at rational loads, branch expansions, "no crossing" and
  "crossings" proofs, Erlang-B polynomials, root exclusion).
"""
