"""The exact polynomial tools behind the certificates, one module a subsystem; the public face is
:mod:`proofs_check.algebra` (which documents the data formats and the theorems used).

* :mod:`~proofs_check.exact.serial`: rationals and polynomials as certificate data;
* :mod:`~proofs_check.exact.sturm`: square-free parts, Sturm sequences, root counts, exact signs,
  isolation, refinement, resultants;
* :mod:`~proofs_check.exact.descartes`: Descartes' rule on intervals, cell partitions, the factored
  isolation certificate;
* :mod:`~proofs_check.exact.elimination`: elimination by resultants, monomial factors, Newton polygons;
* :mod:`~proofs_check.exact.certificates`: root-count, isolation, sign and positivity certificates and
  their re-checks.
"""
