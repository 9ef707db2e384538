"""Certified verification of the seed papers' claims (``symloss verify``)."""
from .core import (Certificate, CertificateError, Claim, ClaimResult, Status, all_claims, claim,
                   recheck_records, register, run_claims, select)

__all__ = ["Certificate", "CertificateError", "Claim", "ClaimResult", "Status", "all_claims", "claim",
           "recheck_records", "register", "run_claims", "select"]
