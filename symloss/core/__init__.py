"""Shared machinery: the model definition (:mod:`.model`), its compiled evaluators (:mod:`.codegen`),
the generic certified solver (:mod:`.certify`), the accelerator registry (:mod:`.registry`), the
precision policy (:mod:`.precision`), argument checking (:mod:`.validation`), random seeds
(:mod:`.random`), small statistics (:mod:`.stats`), provenance (:mod:`.provenance`), result display
and export (:mod:`.results`) and LaTeX output (:mod:`.latex`)."""
