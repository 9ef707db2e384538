"""The regime claims of seed 003 (proofs_check/claims/seed003_regimes.py): status, re-check from the
stored data, and rejection of tampered certificates."""
from __future__ import annotations

import copy
import json

import pytest

from proofs_check.core import CertificateError, Status, select

IDS = ["seed003.blocking_regime.a_gt_half", "seed003.blocking_regime.a_lt_half",
       "seed003.blocking_regime.halfin_whitt", "seed003.imbalance_regime.a_gt_half",
       "seed003.imbalance_regime.a_lt_half", "seed003.imbalance_regime.halfin_whitt",
       "seed003.corner_law.closed_form", "seed003.regime_boundary.quarter", "seed003.regime_boundary.half",
       "seed003.corner_law.limit"]


@pytest.fixture(scope="module")
def certs():
    out = {}
    for cid in IDS:
        (c,) = select([cid])
        cert = c.prove()
        # the certificate is plain JSON data
        data = json.loads(json.dumps(cert.data))
        out[cid] = (c, cert.status, data)
    return out


def test_statuses_and_rechecks(certs):
    for cid, (c, status, data) in certs.items():
        assert status == c.expected, cid
        assert c.recheck(copy.deepcopy(data)) == c.expected, cid


def _bump_ball(s: str) -> str:
    """Change a digit of a stored arb ball in a way far outside its radius."""
    mid, _, rad = s.strip("[]").partition("+/-")
    x = float(mid)
    return f"[{x * (1 + 1e-9) + 1e-12} +/- {rad.strip() or '0'}]"


def _rejected(c, data):
    with pytest.raises(CertificateError):
        c.recheck(data)


def test_blocking_claims_reject_tampering(certs):
    c, _, data = certs["seed003.blocking_regime.a_gt_half"]
    bad = copy.deepcopy(data)
    bad["formulas"]["U"] = "(log(2*pi*C)/2 + 1/(13*C))/rho"          # a weaker Robbins constant
    _rejected(c, bad)
    bad = copy.deepcopy(data)
    bad["instances"][2]["e"] = _bump_ball(bad["instances"][2]["e"])     # a stored enclosure changed
    _rejected(c, bad)
    bad = copy.deepcopy(data)
    bad["symbolic"]["identity"] = bad["symbolic"]["identity"] + " + 1/rho"
    _rejected(c, bad)
    bad = copy.deepcopy(data)
    del bad["instances"][0]
    _rejected(c, bad)

    c, _, data = certs["seed003.blocking_regime.a_lt_half"]
    bad = copy.deepcopy(data)
    bad["formulas"]["upper"] = "1 - c + c/(2*rho*(1 - c))"
    _rejected(c, bad)
    bad = copy.deepcopy(data)
    bad["instances"][1]["E"] = _bump_ball(bad["instances"][1]["E"])
    _rejected(c, bad)
    bad = copy.deepcopy(data)
    bad["symbolic"]["gordon_derivative"] = "x"
    _rejected(c, bad)

    c, _, data = certs["seed003.blocking_regime.halfin_whitt"]
    bad = copy.deepcopy(data)
    bad["U_rule"] = "U = 1"
    _rejected(c, bad)
    bad = copy.deepcopy(data)
    bad["instances"][5]["upper"] = _bump_ball(bad["instances"][5]["upper"])
    _rejected(c, bad)


def test_imbalance_claims_reject_tampering(certs):
    for cid in ("seed003.imbalance_regime.a_gt_half", "seed003.imbalance_regime.a_lt_half",
                "seed003.imbalance_regime.halfin_whitt"):
        c, _, data = certs[cid]
        bad = copy.deepcopy(data)
        bad["table"][1]["bound"][0] = _bump_ball(bad["table"][1]["bound"][0])
        _rejected(c, bad)
        bad = copy.deepcopy(data)
        bad["d_rates"]["d>=2"]["up"] = "K/2"
        _rejected(c, bad)
        bad = copy.deepcopy(data)
        bad["exact_identities"] = bad["exact_identities"][:1]
        _rejected(c, bad)


def test_bounds_are_valid_and_shrink(certs):
    _, _, data = certs["seed003.imbalance_regime.a_lt_half"]
    rows = data["table"]
    for x in rows:
        for obs, b in zip(x["observed_error"], x["bound"]):
            assert obs <= float(b.strip("[]").split("+/-")[0])
    # O(1/rho): the bound at rho = 1000 is 10x smaller than at rho = 100 (same a = 0.35)
    b100 = float(rows[0]["bound"][0].strip("[]").split("+/-")[0])
    b1000 = float(rows[2]["bound"][0].strip("[]").split("+/-")[0])
    assert b1000 == pytest.approx(b100 / 10, rel=0.05)
    _, _, data = certs["seed003.blocking_regime.halfin_whitt"]
    w = [float(x["sqrt_rho_times_width"].strip("[]").split("+/-")[0]) for x in data["instances"]
         if x["beta_target"] == 0]
    assert w[2] < w[1] < w[0] and w[2] < 0.5          # gap * sqrt(rho) shrinks (up to log factors)


def test_corner_and_boundary_claims_reject_tampering(certs):
    c, _, data = certs["seed003.corner_law.closed_form"]
    bad = copy.deepcopy(data)
    bad["symbolic"]["G0"] = "-(a*zeta - 1)/((2*a*zeta - 1)*(a*zeta - 2*a - 2))"
    _rejected(c, bad)
    bad = copy.deepcopy(data)
    bad["numeric"][1]["max_rel_diff"] = 1e-10
    _rejected(c, bad)
    c, _, data = certs["seed003.regime_boundary.quarter"]
    bad = copy.deepcopy(data)
    bad["symbolic"]["poles"] = ["1/a"]
    _rejected(c, bad)
    c, _, data = certs["seed003.regime_boundary.half"]
    bad = copy.deepcopy(data)
    bad["depends_on"] = bad["depends_on"][:-1]
    _rejected(c, bad)
    c, _, data = certs["seed003.corner_law.limit"]
    bad = copy.deepcopy(data)
    bad["rows"][0]["tv"] *= 1.5
    _rejected(c, bad)


def test_evidence_is_labelled(certs):
    c, status, _ = certs["seed003.corner_law.limit"]
    assert status == Status.EVIDENCE and "not a proof" in c.method
