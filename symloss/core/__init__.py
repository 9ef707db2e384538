"""Shared machinery: precision policy (:mod:`.precision`), argument checking (:mod:`.validation`),
seeds (:mod:`.random`) and small statistics (:mod:`.stats`)."""
