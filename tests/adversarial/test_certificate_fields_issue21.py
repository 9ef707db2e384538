"""Issue 21: the re-check covers every field of a certificate: each field is verified (from the stored
data or the model's equations) or listed in the certificate's ``unchecked_fields``; any other change, or
an added field, is rejected."""
from __future__ import annotations

import copy
from fractions import Fraction

import pytest
import sympy as sp

import symloss
from proofs_check import core
from symloss import PowerOfD, RetrialOfD
from symloss.meanfield.certified import CertificateMismatch, _check_models, certified_comparison, verify_comparison

IDS = ("erlang.recursion", "seed000.dominance.C2_d2_dt3", "seed000.eventually.C3_d2_dt3", "seed000.same_d.C1_d2",
       "seed000.same_d.C2_d2", "seed000.unique_fixed_point.C2_d2", "seed000.power_unique_fixed_point.C2_d2",
)


@pytest.fixture(scope="module")
def records():
    res = core.run_claims(core.select(list(IDS)))
    assert {r.claim.id for r in res} == set(IDS)
    return {r.claim.id: r.to_dict() for r in res}


def _ok(rec) -> bool:
    (_, ok, _msg), = core.recheck_records([rec])
    return ok


def _set(rec, path, value):
    rec = copy.deepcopy(rec)
    x = rec
    for p in path[:-1]:
        x = x[p]
    x[path[-1]] = value
    return rec


def _tampered(v):
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return v + 1
    if isinstance(v, float):
        return v * 2 + 1
    if isinstance(v, str):
        return v + ("7" if v[-1:].isdigit() else " (edited)")
    if isinstance(v, list):
        return v[:-1] + [_tampered(v[-1])] if v else [0]
    return "edited"


def test_untouched_records_verify(records):
    for cid, rec in records.items():
        assert _ok(rec), (cid, core.recheck_records([rec]))
        assert rec["unchecked_fields"][0] == "seconds"


def test_human_readable_fields_are_checked(records):
    dom = records["seed000.dominance.C2_d2_dt3"]
    ev = records["seed000.eventually.C3_d2_dt3"]
    cases = [
        (dom, ("certificate", "summary"), dom["certificate"]["summary"].replace("degree 36", "degree 35")),
        (dom, ("certificate", "data", "R_v_degree"), 35),                      # a count
        (dom, ("certificate", "data", "roots_in_(0,1)"), 1),                   # a count
        (dom, ("status",), "REFUTED"), (dom, ("certificate", "status"), "EVIDENCE"),
        (dom, ("statement",), dom["statement"] + " "), (dom, ("method",), "by inspection"),
        (dom, ("source",), "folklore"), (dom, ("expected",), "EVIDENCE"),
        (dom, ("certificate", "data", "stamp", "models", 0, "repr"), "RetrialOfD(C=9, d=9)"),
        (ev, ("certificate", "summary"), ev["certificate"]["summary"].replace("1 crossing", "2 crossing")),
        (ev, ("certificate", "data", "comparison", "summary_psi", "count"), 2),
        (records["erlang.recursion"], ("certificate", "summary"), "no identity holds"),
        (records["erlang.recursion"], ("certificate", "data", "integer_range"), [1, 200]),
        (records["seed000.same_d.C1_d2"], ("certificate", "data", "argument"), "trust me"),
    ]
    # the threshold decimal: both ends of the crossing bracket, in the certificate and in the summary
    cells = ev["certificate"]["data"]["comparison"]["cells"]
    i = next(k for k, c in enumerate(cells) if c["test"] == "crossing")
    lo, hi = cells[i]["refined"]["rho"]
    cases.append((ev, ("certificate", "data", "comparison", "cells", i, "refined", "rho", 0), lo[:-3] + "999"))
    cases.append((ev, ("certificate", "data", "comparison", "cells", i, "refined", "rho", 1), hi[:-3] + "000"))
    cases.append((ev, ("certificate", "summary"), ev["certificate"]["summary"].replace(lo[:12], lo[:11] + "8")))
    assert lo[:12] in ev["certificate"]["summary"]
    for rec, path, value in cases:
        assert not _ok(_set(rec, path, value)), path


def test_added_and_undeclared_fields_are_rejected(records):
    rec = records["seed000.same_d.C2_d2"]
    assert not _ok(_set(rec, ("certificate", "data", "note"), "PROVED by hand"))
    assert not _ok(_set(rec, ("comment",), "fine"))
    assert not _ok(_set(rec, ("certificate", "remark"), "fine"))
    # declaring the summary unchecked is not the record's choice
    assert not _ok(_set(rec, ("unchecked_fields",), rec["unchecked_fields"] + ["certificate/summary"]))
    assert not _ok(_set(rec, ("seconds",), -1))
    # declared unchecked fields may change: the timing and the writing version
    assert _ok(_set(rec, ("seconds",), 123.0))
    assert _ok(_set(rec, ("certificate", "data", "stamp", "symloss_version"), "9.9"))


@pytest.mark.parametrize("cid", ["seed000.eventually.C3_d2_dt3", "seed000.same_d.C1_d2",
                                 "seed000.unique_fixed_point.C2_d2", "seed000.power_unique_fixed_point.C2_d2"])
def test_every_field_is_checked_or_declared(records, cid):
    """Tamper every field (leaf) of the record in turn: rejected unless declared unchecked."""
    rec = records[cid]
    declared = rec["unchecked_fields"]
    for path in core.leaf_paths(rec):
        ptr = core.pointer(path)
        if any(core._pointer_matches(u, ptr) for u in declared):
            continue
        v = _tampered(_get(rec, path))
        if ptr.endswith("/dev"):       # stored upper bounds: a tighter (wrong) one must fail
            v = "0"
        if ptr.split("/")[-1] in ("prec", "K"):   # parameters the re-check runs with (a valid certificate again)
            continue
        assert not _ok(_set(rec, path, v)), ptr


def _get(rec, path):
    for p in path:
        rec = rec[p]
    return rec


# --------------------------------------------------------------------------------------------------
# symloss.verify_comparison
# --------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def comparison():
    a, b = RetrialOfD(3, 3), PowerOfD(3, 2)
    return a, b, certified_comparison(a, b, dps=20).certificate


def test_comparison_fields(comparison):
    a, b, cert = comparison
    assert verify_comparison(cert, a, b).count == 1
    assert cert["unchecked_fields"] == ["symloss_version", "provenance"]
    i = next(k for k, c in enumerate(cert["cells"]) if c["test"] == "crossing")
    bad = [(("models", "retrial", "repr"), "RetrialOfD(C=3, d=4)"), (("models", "power", "class"), "JSQ"),
           (("models", "power", "parameters", "d"), "3"), (("small_end", "rho_lo"), "[0.5 +/- 1e-30]"),
           (("small_end", "constant"), "[-0.4 +/- 1e-30]"), (("summary_psi", "count"), 2),
           (("cells", i, "refined", "rho", 0), "0.9"), (("unchecked_fields",), ["symloss_version", "cells"]),
           (("extra",), 1), (("small_end", "note"), "x")]
    for path, value in bad:
        with pytest.raises(CertificateMismatch):
            verify_comparison(_set(cert, path, value), a, b)
    verify_comparison(_set(cert, ("symloss_version",), "0.0.0"), a, b)    # declared unchecked
    verify_comparison(_set(cert, ("provenance",), {"date": "today"}), a, b)   # as the CLI's files add it


def test_comparison_every_field(comparison):
    a, b, cert = comparison
    for path in core.leaf_paths(cert):
        ptr = core.pointer(path)
        if ptr in ("symloss_version",) or ptr.split("/")[-1] in ("prec", "K"):
            continue
        v = "0" if ptr.endswith("/dev") else _tampered(_get(cert, path))
        with pytest.raises(CertificateMismatch):
            verify_comparison(_set(cert, path, v), a, b)


class Boosted(PowerOfD):
    """Power-of-d with every arrival rate multiplied by ``boost`` (a parameter of the subclass)."""

    def __init__(self, C, d, boost):
        super().__init__(C, d)
        self.boost = boost

    def transitions(self):
        b = sp.Rational(self.boost)
        return [(jump, rate * b if any(v > 0 for v in jump) else rate) for jump, rate in super().transitions()]


def test_binding_covers_every_parameter():
    a = RetrialOfD(2, 3)
    cert = certified_comparison(a, Boosted(2, 2, 1)).certificate
    assert cert["models"]["power"]["parameters"] == {"C": "2", "boost": "1", "d": "2"}
    verify_comparison(cert, a, Boosted(2, 2, 1))
    with pytest.raises(CertificateMismatch):
        verify_comparison(cert, a, Boosted(2, 2, Fraction(1, 100)))
    with pytest.raises(CertificateMismatch):                       # the binding of the models alone refuses it
        _check_models(cert, a, Boosted(2, 2, Fraction(1, 100)))
    assert Boosted(2, 2, Fraction(1, 100)).fingerprint() != Boosted(2, 2, 1).fingerprint()
    assert symloss.RetrialOfD(2, 3).fingerprint() == a.fingerprint()
