"""The exact lemma records stored in comparison certificates serialise at every C the registry reaches
(``seed000.eventually.C1000_*`` failed in a ``--scope full`` run: ``B(0) = (C!)^(d-1)`` as an int had
more digits than Python's int-to-string limit, so the sweep worker could not write the record)."""
import json

import pytest

from symloss.meanfield.lemmas import retrial_g_lemma


@pytest.mark.parametrize("C, d", [(3, 2), (1000, 3)])
def test_retrial_g_lemma_record_is_json(C, d):
    rec = retrial_g_lemma(C, d)
    assert rec["holds"] is True
    assert json.loads(json.dumps(rec)) == rec
    assert rec["facts"]["A(0) = 0"] is True and rec["facts"]["B(0) > 0"] is True


def test_certificates_written_before_the_sign_records_still_verify():
    """A comparison certificate with the lemma record of before (A(0), B(0) as integers) re-checks; the
    same with a wrong B(0) is refused."""
    import copy

    import symloss
    from symloss.meanfield.certified import CertificateMismatch
    from symloss.meanfield.lemmas import retrial_g_facts_v1

    v1 = retrial_g_facts_v1(5, 3)
    assert v1["A(0)"] == 0 and v1["B(0)"] == 120 ** 2          # B(0) = (C!)^(d-1)
    ret, pod = symloss.RetrialOfD(3, 3), symloss.PowerOfD(3, 2)
    cert = symloss.certified_comparison(ret, pod, dps=10).certificate
    old = copy.deepcopy(cert)
    old["lemmas"]["g_increasing"] = retrial_g_facts_v1(3, 3)
    assert old["lemmas"] != cert["lemmas"]
    symloss.verify_comparison(old, ret, pod)
    bad = copy.deepcopy(old)
    bad["lemmas"]["g_increasing"]["B(0)"] += 1
    with pytest.raises(CertificateMismatch, match="lemma records"):
        symloss.verify_comparison(bad, ret, pod)
