"""Run claims in parallel through the sweep engine (:func:`symloss.sweep`), into its SQLite store.

Each claim is one point of a sweep of :func:`claim_point` (its id, a hash of its statement and a
hash of the package sources, so that a changed claim or changed code is recomputed); the worker returns the claim's full record (status, certificate,
timing) as JSON and the sweep client writes it to the store at once. Rerunning with the same store
skips the claims already done: an interrupted ``symloss verify`` resumes and loses no finished
certificate. ``executor="processes"`` uses local worker processes, ``"dask"`` a Dask cluster
(``scheduler="tcp://host:8786"``, or a ``LocalCluster`` started for the run), ``"serial"`` this
process.

The optional ``pandas`` is imported inside ``_read_store`` only to test whether it is installed
(without it the store is read with ``sqlite3``).

The records come back in the order of the claims; a claim whose worker failed (raised outside the
claim's own search, or was lost) is reported UNDECIDED with the stored error.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from symloss import _version
from symloss.sweeps import load_sweep, sweep

from .core import Certificate, Claim, Status, all_claims, run_claims

__all__ = ["DEFAULT_STORE", "claim_point", "run_claims_store"]

DEFAULT_STORE = "symloss_verify.sqlite"


def _statement_hash(c: Claim) -> str:
    return hashlib.sha256(c.statement.encode()).hexdigest()[:16]


_CODE_HASH = None


def code_hash() -> str:
    """Hash of the source of the ``symloss`` and ``proofs_check`` packages: a store written by other
    code is not reused (its certificates are recomputed)."""
    global _CODE_HASH
    if _CODE_HASH is None:
        h = hashlib.sha256()
        for pkg in (Path(_version.__file__).parent, Path(__file__).parent):
            for f in sorted(pkg.rglob("*.py")):
                h.update(str(f.relative_to(pkg.parent)).encode())
                h.update(f.read_bytes())
        _CODE_HASH = h.hexdigest()[:16]
    return _CODE_HASH


def claim_point(claim: str, statement: str, code: str = "") -> dict:
    """Sweep function: run one claim and return its record (:meth:`proofs_check.core.ClaimResult.to_dict`).

    Parameters
    ----------
    claim : str
        The claim id.
    statement : str
        The hash of its statement; a claim whose statement changed is refused.
    code : str, optional
        The ``code_hash`` of the client (part of the store key only).

    Returns
    -------
    dict
        The claim's record.

    Raises
    ------
    KeyError
        If no claim has the id ``claim``.
    ValueError
        If the statement hash differs.
    """
    by_id = {c.id: c for c in all_claims()}
    if claim not in by_id:
        raise KeyError(f"no claim {claim!r} in the registry")
    c = by_id[claim]
    if _statement_hash(c) != statement:
        raise ValueError(f"claim {claim!r} changed (statement hash differs)")
    (res,) = run_claims([c])
    return res.to_dict()


def _func_name() -> str:
    return f"proofs_check.claim_point[symloss {_version.__version__}]"


def _read_store(store: str, func: str) -> dict:
    """``{claim id: (status, record or error)}`` from the store (pandas through
    :func:`symloss.load_sweep` when available, else the documented ``points`` table read-only)."""
    out = {}
    try:
        import pandas  # noqa: F401 - optional: load_sweep needs it
        have_pandas = True
    except ImportError:
        have_pandas = False
    if have_pandas:
        df = load_sweep(store, func=func, expand=False)
        for params, status, result, error in zip(df["params"], df["status"], df["result"], df["error"]):
            out[params["claim"]] = (status, result if status == "done" else error)
        return out
    conn = sqlite3.connect(f"file:{Path(store).as_posix()}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT params, status, result, error FROM points WHERE func = ? ORDER BY id",
                            (func,)).fetchall()
    finally:
        conn.close()
    for params, status, result, error in rows:
        out[json.loads(params)["claim"]] = (status, json.loads(result) if result is not None else error)
    return out


def run_claims_store(claims: list, *, workers: int | None = None, scheduler=None, store: str = DEFAULT_STORE,
                     progress: bool | str = True, resume: bool = True) -> tuple[list, object]:
    """Run ``claims`` through :func:`symloss.sweep` into ``store`` (see the module docstring).

    Parameters
    ----------
    claims : list of Claim
        The claims to run.
    workers : int, optional
        Local worker processes (``1``: this process, serially; default every core).
    scheduler : str, optional
        Address of a Dask scheduler (``tcp://host:8786``); then the claims run on that cluster.
    store : str, optional
        The SQLite store of finished certificates.
    progress : bool or str, optional
        Show the sweep's progress (:func:`symloss.sweep`; a string is the label, default
        ``"verify claims"``).
    resume : bool, optional
        Take the claims already in the store from it instead of recomputing them.

    Returns
    -------
    tuple
        ``(records, summary)``: one record dict per claim, in the order of ``claims``, and the sweep
        summary.
    """
    if scheduler is not None:
        executor = "dask"
    elif workers == 1:
        executor = "serial"
    else:
        executor = "processes"
    code = code_hash()
    # longest first: the claims that are alone in their family (Erlang bounds over many models,
    # finite-N, the other seeds) take seconds each, the per-(C, d) families a fraction of a second
    fam = {}
    for c in claims:
        fam[c.id.rsplit(".", 1)[0]] = fam.get(c.id.rsplit(".", 1)[0], 0) + 1
    ordered = sorted(claims, key=lambda c: fam[c.id.rsplit(".", 1)[0]] > 3)
    points = [{"claim": c.id, "statement": _statement_hash(c), "code": code} for c in ordered]
    func = _func_name()
    summary = sweep("proofs_check.parallel:claim_point", points, store=str(store), executor=executor,
                    scheduler=scheduler, workers=workers, progress="verify claims" if progress is True else progress,
                    resume=resume, name=func)
    got = _read_store(str(store), func)
    records = []
    for c in claims:
        status, value = got.get(c.id, ("failed", "no row in the store"))
        if status == "done" and isinstance(value, dict):
            records.append(value)
        else:
            err = str(value).strip().splitlines()[-1] if value else "worker failed"
            records.append({"id": c.id, "status": Status.UNDECIDED.value, "expected": str(c.expected.value),
                            "statement": c.statement, "source": c.source, "method": c.method, "seconds": 0.0,
                            "certificate": {"status": Status.UNDECIDED.value, "summary": f"run failed: {err}",
                                            "data": {"error": err}}})
    return records, summary


class StoredResult:
    """A record read back from the store, with the attributes of :class:`~proofs_check.core.ClaimResult`
    that the command line prints."""

    def __init__(self, record: dict, claim: Claim):
        self.record = record
        self.claim = claim
        cert = record.get("certificate") or {}
        self.certificate = Certificate(Status(cert.get("status", "UNDECIDED")), cert.get("data") or {},
                                       cert.get("summary", ""))
        self.seconds = float(record.get("seconds", 0.0))

    @property
    def status(self):
        return Status(self.record["status"])

    @property
    def as_expected(self) -> bool:
        return self.status == self.claim.expected

    def to_dict(self) -> dict:
        return self.record


def as_results(records: list, claims: list) -> list:
    """The records of :func:`run_claims_store` as :class:`StoredResult` objects.

    Parameters
    ----------
    records : list of dict
        One record per claim.
    claims : list of Claim
        The claims, in the same order.

    Returns
    -------
    list of StoredResult
    """
    return [StoredResult(r, c) for r, c in zip(records, claims)]
