"""The main job end to end: every registered claim runs, has its expected status, and its certificate
round-trips through JSON and is accepted by ``--recheck`` (as a user would run it)."""
import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

SEED000 = "seed000.*"


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    # seed 000 claims run in test_proofs_check.py; here every other claim, through the CLI
    path = tmp_path_factory.mktemp("verify") / "certs.json"
    from proofs_check import all_claims
    ids = [c.id for c in all_claims() if not c.id.startswith("seed000.")]
    args = [sys.executable, "-m", "symloss", "verify", "--quiet", "--json", str(path),
            "--store", str(path.with_suffix(".sqlite"))]
    for i in ids:
        args += ["--claim", i]
    proc = subprocess.run(args, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return path, ids


def test_every_claim_as_expected(certs):
    path, ids = certs
    records = json.loads(path.read_text())["claims"]
    assert sorted(r["id"] for r in records) == sorted(ids)
    for r in records:
        assert r["status"] == r["expected"], r["id"]
        assert set(r) >= {"id", "status", "expected", "statement", "source", "method", "seconds", "certificate"}


def test_recheck_accepts_and_tampering_is_caught(certs, tmp_path):
    path, _ = certs
    ok = subprocess.run([sys.executable, "-m", "symloss", "verify", "--recheck", str(path)],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    records = json.loads(path.read_text())
    # change a status: must be rejected
    records["claims"][0]["status"] = "REFUTED"
    records["claims"][0]["certificate"]["status"] = "REFUTED"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(records))
    proc = subprocess.run([sys.executable, "-m", "symloss", "verify", "--recheck", str(bad)],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "FAIL" in proc.stdout


def test_unknown_claim_glob_exits_nonzero():
    proc = subprocess.run([sys.executable, "-m", "symloss", "verify", "--claim", "no.such.*"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
