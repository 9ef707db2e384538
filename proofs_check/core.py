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
uses the :func:`claim` decorator) at import time. Discovery imports every module of that package whose
name does not start with ``_``, in name order (the order of the registry); helpers shared by several
claim modules live outside it, in :mod:`proofs_check.support`.

This module is imported when ``symloss`` builds its parser (``symloss verify`` registers its options),
so it stays light: :func:`certificate_document` imports :mod:`symloss.core.provenance` (which loads
``importlib.metadata``) only when a certificate document is written.
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

from . import claims as _claims_pkg

__all__ = [
    "Status", "Certificate", "Claim", "ClaimResult", "CertificateError",
    "register", "claim", "all_claims", "select", "run_claims", "recheck_records", "dump_json",
    "certificate_document", "QUICK_SELECTION", "SCOPES",
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


#: Data fields no claim's re-check can verify: the symloss version that wrote a certificate (informational;
#: the model fingerprints beside it are checked). ``**`` matches any number of keys.
VERSION_FIELDS = ("**/symloss_version",)


@dataclass(frozen=True)
class Claim:
    """A registered claim.

    ``summarize(data, status)``, when given, rebuilds the certificate's one-line summary from its data:
    the re-check then compares the stored summary with it. ``unchecked`` lists the data fields the
    re-check does not verify (JSON pointers below ``certificate/data``, ``*`` for any key or index),
    e.g. wall-clock timings; every other data field must be read by ``recheck``.
    """
    id: str
    statement: str                      # LaTeX
    source: str                         # seed file and which claim
    method: str
    expected: Status
    prove: Callable[[], Certificate]
    recheck: Callable[[dict], Status] | None = None   # raises CertificateError, else returns status
    tags: tuple[str, ...] = ()
    summarize: Callable[[dict, Status], str] | None = None
    unchecked: tuple[str, ...] = ()
    scope: str = "default"              # "default": run by ``symloss verify``; "full": only with --scope full

    def unchecked_fields(self) -> list[str]:
        """The record fields no re-check verifies (JSON pointers into the record of
        :meth:`ClaimResult.to_dict`): the timing, the summary when the claim has no ``summarize``, and
        the declared data fields."""
        out = ["seconds"]
        if self.summarize is None:
            out.append("certificate/summary")
        out += [f"certificate/data/{u}" for u in VERSION_FIELDS + tuple(self.unchecked)]
        return out


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
            "unchecked_fields": c.unchecked_fields(),
        }


#: ``symloss verify --quick``: the Erlang-B identities, the seed-000 claims for C <= 5 (comparisons for
#: every load, uniqueness, monotonicity, the headline dominance proof, the Erlang bounds for C <= 20)
#: and the exact claims of the other seeds; the statistical and finite-N claims are left out.
QUICK_SELECTION = ("erlang.*", "seed000.dominance.*", "seed000.same_d.C[1-5]_*", "seed000.eventually.C[1-5]_*",
                   "seed000.unique_fixed_point.C[1-5]_*", "seed000.power_unique_fixed_point.C[1-5]_*",
                   "seed000.retrial_monotone_d.C[1-5]_*", "seed000.erlang_bounds.retrial_sandwich",
                   "seed000.erlang_bounds.fluid_lower", "seed001.fluid_lp", "seed002.fixed_point",
                   "seed003.blocking_equals_erlang")

#: The claim scopes: ``"default"`` (what ``symloss verify`` runs, about 4 minutes on two cores) and
#: ``"full"`` (every registered claim: the seed-000 registry up to ``C = 100``, ``d < dt <= 10``, and a
#: few claims at ``C`` up to 1000; ``symloss verify --scope full``, meant for processes or a Dask cluster).
SCOPES = ("default", "full")

_REGISTRY: dict[str, Claim] = {}
_DISCOVERED = False


def register(c: Claim) -> Claim:
    """Add a claim to the registry.

    Parameters
    ----------
    c : Claim
        The claim; registering the same object twice is a no-op.

    Returns
    -------
    Claim
        ``c``.

    Raises
    ------
    ValueError
        If another claim with the same id is registered.
    """
    if c.id in _REGISTRY and _REGISTRY[c.id] is not c:
        raise ValueError(f"claim id {c.id!r} registered twice")
    _REGISTRY[c.id] = c
    return c


def claim(id: str, *, statement: str, source: str, method: str, expected: Status | str,
          recheck: Callable[[dict], Status] | None = None, tags: Iterable[str] = (),
          summarize: Callable[[dict, Status], str] | None = None, unchecked: Iterable[str] = (),
          scope: str = "default"):
    """Decorator: register the decorated zero-argument function as the claim's search.

    Parameters
    ----------
    id : str
        The claim id (``seed000.same_d.C2_d3``).
    statement, source, method : str
        The statement (LaTeX), where it comes from, how it is proved.
    expected : Status or str
        The status the search is expected to return.
    recheck : callable, optional
        ``recheck(data) -> Status``: the independent re-check of the stored certificate data.
    tags : iterable of str, optional
        Free-form tags.
    summarize, unchecked : optional
        See :class:`Claim`.
    scope : {"default", "full"}, optional
        ``"default"``: part of the default ``symloss verify`` run; ``"full"``: run only by
        ``symloss verify --scope full`` (see :data:`SCOPES`).

    Returns
    -------
    callable
        The decorator (it returns the decorated function unchanged).

    Raises
    ------
    ValueError
        If ``scope`` is not one of :data:`SCOPES`.
    """
    _check_scope(scope)

    def deco(fn: Callable[[], Certificate]):
        register(Claim(id=id, statement=statement, source=source, method=method,
                       expected=Status(expected), prove=fn, recheck=recheck, tags=tuple(tags),
                       summarize=summarize, unchecked=tuple(unchecked), scope=scope))
        return fn
    return deco


def all_claims() -> list[Claim]:
    """Every registered claim (importing each module of :mod:`proofs_check.claims` once)."""
    global _DISCOVERED
    if not _DISCOVERED:
        for info in sorted(pkgutil.iter_modules(_claims_pkg.__path__), key=lambda m: m.name):
            if not info.name.startswith("_"):
                importlib.import_module(f"{_claims_pkg.__name__}.{info.name}")
        _DISCOVERED = True
    return list(_REGISTRY.values())


def _check_scope(scope) -> None:
    if scope not in SCOPES:
        raise ValueError(f"scope={scope!r}: must be one of {', '.join(map(repr, SCOPES))}")


def select(patterns: Iterable[str] | None = None, *, scope: str = "default") -> list[Claim]:
    """The registered claims of a scope whose id matches one of ``patterns``.

    Parameters
    ----------
    patterns : iterable of str, optional
        ``fnmatch`` patterns (case-sensitive); none or empty: every claim of the scope.
    scope : {"default", "full"}, optional
        ``"default"``: the claims of the default ``symloss verify`` run; ``"full"``: every registered
        claim (the default ones and those registered with ``scope="full"``).

    Returns
    -------
    list of Claim
        In registry order.

    Raises
    ------
    ValueError
        If ``scope`` is not one of :data:`SCOPES`.
    """
    _check_scope(scope)
    claims = [c for c in all_claims() if scope == "full" or c.scope == "default"]
    pats = list(patterns or [])
    if not pats:
        return claims
    return [c for c in claims if any(fnmatch.fnmatchcase(c.id, p) for p in pats)]


def run_claims(claims: list[Claim], progress: Callable[[int, int, Claim, ClaimResult | None], None] | None = None
               ) -> list[ClaimResult]:
    """Run each claim's search; an exception inside a search gives UNDECIDED with the error text.

    Parameters
    ----------
    claims : list of Claim
        The claims to run, in order.
    progress : callable, optional
        Called as ``progress(i, n, claim, None)`` before and ``progress(i, n, claim, result)`` after each.

    Returns
    -------
    list of ClaimResult
        One per claim, in order.
    """
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


# --------------------------------------------------------------------------------------------------
# the re-check covers every field: which data fields a claim's re-check reads
# --------------------------------------------------------------------------------------------------

RECORD_KEYS = frozenset({"id", "status", "expected", "statement", "source", "method", "seconds", "certificate",
                         "unchecked_fields"})
CERTIFICATE_KEYS = frozenset({"status", "summary", "data"})


def _is_leaf(v) -> bool:
    """Scalars and lists of scalars are single fields; dicts and lists holding containers are walked."""
    if isinstance(v, dict):
        return False
    if isinstance(v, list):
        return not any(isinstance(x, (dict, list)) for x in v)
    return True


def leaf_paths(v, path: tuple = ()) -> list[tuple]:
    """Every field (leaf) of JSON data ``v`` as a path of keys / indices."""
    if _is_leaf(v):
        return [path]
    items = v.items() if isinstance(v, dict) else enumerate(v)
    out = []
    for k, x in items:
        out += leaf_paths(x, path + (k,))
    return out


def pointer(path: tuple) -> str:
    """A path as a JSON pointer without the leading ``/`` (RFC 6901 escapes)."""
    return "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _pointer_matches(pattern: str, ptr: str) -> bool:
    """``pattern`` (``*``: one key or index, ``**``: any number of them) equals ``ptr`` or is a prefix
    of it."""
    def match(a, b):
        if not a:
            return True
        if a[0] == "**":
            return any(match(a[1:], b[i:]) for i in range(len(b) + 1))
        return bool(b) and (a[0] == "*" or a[0] == b[0]) and match(a[1:], b[1:])
    return match(pattern.split("/"), ptr.split("/"))


class _Reads:
    def __init__(self):
        self.paths: set = set()


def _plain(v):
    if isinstance(v, _TrackedDict):
        return {k: _plain(x) for k, x in dict.items(v)}
    if isinstance(v, _TrackedList):
        return [_plain(x) for x in list.__iter__(v)]
    return v


def _wrap(v, path, reads):
    if _is_leaf(v):
        reads.paths.add(path)
        return v
    return (_TrackedDict if isinstance(v, dict) else _TrackedList)(v, path, reads)


class _Tracked:
    """What the tracked containers share: a whole-container use (comparison, copy, pickling) reads
    every field below it; they are not hashable (as the plain containers)."""

    def __init__(self, raw, path, reads):
        super().__init__(raw)
        self._path, self._reads = path, reads

    def _all(self):
        self._reads.paths.update(self._path + p for p in leaf_paths(_plain(self)))

    def __eq__(self, other):
        self._all()
        return _plain(self) == _plain(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None

    def copy(self):
        self._all()
        return _plain(self)

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce_ex__(self, protocol):
        self._all()
        plain = _plain(self)
        return (type(plain), (plain,))


class _TrackedDict(_Tracked, dict):
    """A read-only view of certificate data that records which fields are read (a field compared as a
    whole, e.g. ``stored == recomputed``, counts as read with all its fields)."""

    def __getitem__(self, k):
        return _wrap(dict.__getitem__(self, k), self._path + (k,), self._reads)

    def get(self, k, default=None):
        return self[k] if dict.__contains__(self, k) else default

    def items(self):
        return [(k, self[k]) for k in dict.keys(self)]

    def values(self):
        return [self[k] for k in dict.keys(self)]


class _TrackedList(_Tracked, list):
    """The list counterpart of :class:`_TrackedDict`."""

    def __getitem__(self, i):
        if isinstance(i, slice):
            idx = range(len(self))[i]
            return [self[j] for j in idx]
        j = i + len(self) if isinstance(i, int) and i < 0 else i
        return _wrap(list.__getitem__(self, i), self._path + (j,), self._reads)

    def __iter__(self):
        for j in range(len(self)):
            yield self[j]


def _record_problem(rec: dict, c: Claim) -> str | None:
    """The first field of ``rec`` (outside the certificate data) that is unknown, missing or differs from
    the registry, else None."""
    if not isinstance(rec, dict):
        return "the record is not an object"
    extra, missing = set(rec) - RECORD_KEYS, RECORD_KEYS - set(rec)
    if extra:
        return f"unknown record field(s) {sorted(extra)} (not checked by the re-check)"
    if missing:
        return f"missing record field(s) {sorted(missing)}"
    for key, want in (("statement", c.statement), ("source", c.source), ("method", c.method),
                      ("expected", Status(c.expected).value)):
        if rec.get(key) != want:
            return f"stored {key} differs from the registered claim"
    if rec.get("unchecked_fields") != c.unchecked_fields():
        return (f"stored unchecked_fields {rec.get('unchecked_fields')!r} differ from the claim's "
                f"{c.unchecked_fields()!r} (every other field is re-checked)")
    secs = rec.get("seconds")
    if isinstance(secs, bool) or not isinstance(secs, (int, float)) or not secs >= 0:
        return "seconds must be a number >= 0"
    cert = rec.get("certificate")
    if not isinstance(cert, dict):
        return "certificate must be an object"
    extra, missing = set(cert) - CERTIFICATE_KEYS, CERTIFICATE_KEYS - set(cert)
    if extra or missing:
        return f"certificate fields must be exactly {sorted(CERTIFICATE_KEYS)}, got {sorted(cert)}"
    if not isinstance(cert.get("data"), dict) or not isinstance(cert.get("summary"), str):
        return "certificate data must be an object and its summary a string"
    return None


def recheck_records(records: list[dict]) -> list[tuple[str, bool, str]]:
    """Re-verify stored certificates (as written by ``--json``) without repeating the searches.

    Parameters
    ----------
    records : list of dict
        The ``claims`` list of a certificate document (:func:`certificate_document`).

    Returns ``(id, ok, message)`` per record. A record is accepted only when *every* field is either
    verified or declared unverified by the registry (the record's ``unchecked_fields``, which must be the
    claim's own list):

    * ``id``, ``statement``, ``source``, ``method``, ``expected``: equal to the registered claim;
    * ``status`` and ``certificate/status``: the status the claim's ``recheck`` confirms from the data;
    * ``certificate/data``: every field is read by the claim's ``recheck`` (an added field, or one the
      re-check ignores, rejects the record unless the claim declares it unchecked);
    * ``certificate/summary``: equal to the claim's ``summarize(data, status)``, or declared unchecked
      when the claim has no ``summarize``;
    * ``seconds`` (a timing) is always declared unchecked; ``unchecked_fields`` itself must be the
      claim's list.
    """
    by_id = {c.id: c for c in all_claims()}
    out = []
    for rec in records:
        cid = rec.get("id", "?") if isinstance(rec, dict) else "?"
        c = by_id.get(cid)
        if c is None:
            out.append((cid, False, "no such claim in the registry"))
            continue
        problem = _record_problem(rec, c)
        if problem is not None:
            out.append((cid, False, problem))
            continue
        cert = rec["certificate"]
        stored = cert.get("status")
        if c.recheck is None:
            out.append((cid, False, "claim has no independent re-check"))
            continue
        reads = _Reads()
        data = cert["data"]
        try:
            confirmed = Status(c.recheck(_TrackedDict(data, (), reads)))
        except CertificateError as exc:
            out.append((cid, False, f"certificate rejected: {exc}"))
            continue
        except Exception as exc:  # noqa: BLE001
            out.append((cid, False, f"certificate rejected ({type(exc).__name__}: {exc})"))
            continue
        if stored != confirmed.value or rec.get("status") != confirmed.value:
            out.append((cid, False, f"stored status {stored} but the re-check confirms {confirmed.value}"))
            continue
        declared = [u[len("certificate/data/"):] for u in c.unchecked_fields() if u.startswith("certificate/data/")]
        unread = [pointer(p) for p in leaf_paths(data) if p not in reads.paths and p != ()]
        unread = [p for p in unread if not any(_pointer_matches(u, p) for u in declared)]
        if unread:
            out.append((cid, False, f"field certificate/data/{unread[0]} is not checked by the re-check "
                                    f"({len(unread)} such field(s)); it is neither verified nor declared unchecked"))
            continue
        if c.summarize is not None:
            try:
                want = c.summarize(data, confirmed)
            except Exception as exc:  # noqa: BLE001
                out.append((cid, False, f"the summary cannot be rebuilt from the data ({type(exc).__name__}: {exc})"))
                continue
            if cert["summary"] != want:
                out.append((cid, False, f"stored summary {cert['summary']!r} differs from the one rebuilt from the "
                                        f"verified data {want!r}"))
                continue
        out.append((cid, True, f"{confirmed.value} re-verified"))
    return out


def certificate_document(results: list[ClaimResult]) -> dict:
    """The JSON document of ``symloss verify --json``: the provenance (symloss and dependency versions,
    command line, date; see :func:`symloss.core.provenance.provenance`) and one record per claim.

    Parameters
    ----------
    results : list of ClaimResult
        What :func:`run_claims` returned.

    Returns
    -------
    dict
        ``{"provenance": ..., "claims": [record, ...]}``.
    """
    from symloss.core.provenance import provenance
    return {"provenance": provenance(claims=len(results)), "claims": [r.to_dict() for r in results]}


def dump_json(results: list[ClaimResult], path: str) -> None:
    """Write :func:`certificate_document` to ``path``.

    Parameters
    ----------
    results : list of ClaimResult
        What :func:`run_claims` returned.
    path : str
        The JSON file to write.
    """
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(certificate_document(results), fh, indent=1)
