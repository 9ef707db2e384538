"""Claims, certificates and the registry.

A *claim* is a mathematical statement from one of the seed papers together with a function that
*searches* for a certificate (``prove``) and a function that *re-checks* a stored certificate without
repeating the search (``recheck``). Certificates are plain JSON data.

Status values (three-valued logic in the python-flint sense: a comparison of balls counts only when
it is certainly true):

* ``PROVED``    - rigorous: exact algebra, real-root isolation with Sturm counts, or arb balls;
* ``REFUTED``   - a certified counterexample;
* ``UNDECIDED`` - the search neither proved nor refuted the claim;
* ``EVIDENCE``  - numerical agreement (at two precisions), never presented as a proof.

Adding a claim is one small module in :mod:`proofs_check.claims` that calls :func:`register` (or
uses the :func:`claim` decorator) at import time.
"""
from __future__ import annotations

import fnmatch
import importlib
import json
import pkgutil
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Iterable

__all__ = [
    "Status", "Certificate", "Claim", "ClaimResult", "CertificateError",
    "register", "claim", "all_claims", "select", "run_claims", "recheck_records", "dump_json",
    "certificate_document", "QUICK_SELECTION",
]


class Status(str, Enum):
    PROVED = "PROVED"
    REFUTED = "REFUTED"
    UNDECIDED = "UNDECIDED"
    EVIDENCE = "EVIDENCE"

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value


class CertificateError(Exception):
    """A stored certificate does not verify (or does not belong to its claim)."""


@dataclass
class Certificate:
    """What a claim's search returns: a status, JSON data an independent re-check can verify,
    and a one-line human summary."""
    status: Status
    data: dict[str, Any] = field(default_factory=dict)
    summary: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"status": Status(self.status).value, "summary": self.summary, "data": self.data}


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str                      # LaTeX
    source: str                         # seed file and which claim
    method: str
    expected: Status
    prove: Callable[[], Certificate]
    recheck: Callable[[dict], Status] | None = None   # raises CertificateError, else returns status
    tags: tuple[str, ...] = ()


@dataclass
class ClaimResult:
    claim: Claim
    certificate: Certificate
    seconds: float

    @property
    def status(self) -> Status:
        return Status(self.certificate.status)

    @property
    def as_expected(self) -> bool:
        return self.status == self.claim.expected

    def to_dict(self) -> dict[str, Any]:
        c = self.claim
        return {
            "id": c.id, "status": self.status.value, "expected": Status(c.expected).value,
            "statement": c.statement, "source": c.source, "method": c.method,
            "seconds": round(self.seconds, 4), "certificate": self.certificate.to_dict(),
        }


#: ``symloss verify --quick``: the Erlang-B identities, the seed-000 claims for C <= 5 (comparisons for
#: every load, uniqueness, monotonicity, the headline dominance proof, the Erlang bounds for C <= 20)
#: and the exact claims of the other seeds; the statistical and finite-N claims are left out.
QUICK_SELECTION = ("erlang.*", "seed000.dominance.*", "seed000.same_d.C[1-5]_*", "seed000.eventually.C[1-5]_*",
                   "seed000.unique_fixed_point.C[1-5]_*", "seed000.power_unique_fixed_point.C[1-5]_*",
                   "seed000.retrial_monotone_d.C[1-5]_*", "seed000.erlang_bounds.retrial_sandwich",
                   "seed000.erlang_bounds.fluid_lower", "seed001.fluid_lp", "seed002.fixed_point",
                   "seed003.blocking_equals_erlang")

_REGISTRY: dict[str, Claim] = {}
_DISCOVERED = False


def register(c: Claim) -> Claim:
    if c.id in _REGISTRY and _REGISTRY[c.id] is not c:
        raise ValueError(f"claim id {c.id!r} registered twice")
    _REGISTRY[c.id] = c
    return c


def claim(id: str, *, statement: str, source: str, method: str, expected: Status | str,
          recheck: Callable[[dict], Status] | None = None, tags: Iterable[str] = ()):
    """Decorator: register the decorated zero-argument function as the claim's search."""
    def deco(fn: Callable[[], Certificate]):
        register(Claim(id=id, statement=statement, source=source, method=method,
                       expected=Status(expected), prove=fn, recheck=recheck, tags=tuple(tags)))
        return fn
    return deco


def all_claims() -> list[Claim]:
    """Every registered claim (importing each module of :mod:`proofs_check.claims` once)."""
    global _DISCOVERED
    if not _DISCOVERED:
        from . import claims as pkg
        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
            if not info.name.startswith("_"):
                importlib.import_module(f"{pkg.__name__}.{info.name}")
        _DISCOVERED = True
    return list(_REGISTRY.values())


def select(patterns: Iterable[str] | None = None) -> list[Claim]:
    claims = all_claims()
    pats = list(patterns or [])
    if not pats:
        return claims
    return [c for c in claims if any(fnmatch.fnmatchcase(c.id, p) for p in pats)]


def run_claims(claims: list[Claim], progress: Callable[[int, int, Claim, ClaimResult | None], None] | None = None
               ) -> list[ClaimResult]:
    """Run each claim's search; an exception inside a search gives UNDECIDED with the error text."""
    results = []
    for i, c in enumerate(claims):
        if progress:
            progress(i, len(claims), c, None)
        t0 = time.perf_counter()
        try:
            cert = c.prove()
            if not isinstance(cert, Certificate):
                raise TypeError(f"claim {c.id} returned {type(cert).__name__}, not a Certificate")
        except Exception as exc:  # noqa: BLE001 - reported as UNDECIDED, never hidden
            cert = Certificate(Status.UNDECIDED, {"error": f"{type(exc).__name__}: {exc}"},
                               f"search failed: {type(exc).__name__}: {exc}")
        res = ClaimResult(c, cert, time.perf_counter() - t0)
        results.append(res)
        if progress:
            progress(i, len(claims), c, res)
    return results


def recheck_records(records: list[dict]) -> list[tuple[str, bool, str]]:
    """Re-verify stored certificates (as written by ``--json``) without repeating the searches.

    Returns ``(id, ok, message)`` per record. A record is accepted when its claim exists, the
    claim's ``recheck`` accepts the certificate data and confirms the stored status, and the stored
    statement matches the registered one.
    """
    by_id = {c.id: c for c in all_claims()}
    out = []
    for rec in records:
        cid = rec.get("id", "?")
        c = by_id.get(cid)
        if c is None:
            out.append((cid, False, "no such claim in the registry"))
            continue
        cert = rec.get("certificate") or {}
        stored = cert.get("status")
        if rec.get("statement") != c.statement:
            out.append((cid, False, "stored statement differs from the registered claim"))
            continue
        if c.recheck is None:
            out.append((cid, False, "claim has no independent re-check"))
            continue
        try:
            confirmed = Status(c.recheck(cert.get("data") or {}))
        except CertificateError as exc:
            out.append((cid, False, f"certificate rejected: {exc}"))
            continue
        except Exception as exc:  # noqa: BLE001
            out.append((cid, False, f"certificate rejected ({type(exc).__name__}: {exc})"))
            continue
        if stored != confirmed.value or rec.get("status") != confirmed.value:
            out.append((cid, False, f"stored status {stored} but the re-check confirms {confirmed.value}"))
            continue
        out.append((cid, True, f"{confirmed.value} re-verified"))
    return out


def certificate_document(results: list[ClaimResult]) -> dict:
    """The JSON document of ``symloss verify --json``: the provenance (symloss and dependency versions,
    command line, date; see :func:`symloss.core.provenance.provenance`) and one record per claim."""
    from symloss.core.provenance import provenance
    return {"provenance": provenance(claims=len(results)), "claims": [r.to_dict() for r in results]}


def dump_json(results: list[ClaimResult], path: str) -> None:
    """Write :func:`certificate_document` to ``path``."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(certificate_document(results), fh, indent=1)
