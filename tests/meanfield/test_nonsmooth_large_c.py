"""Non-smooth user models at C = 100 (issue 24): join-the-idle-queue and JSQ certified by the piecewise
solver, against independent values.

JIQ above rho = 1: every server is busy (u_1 = 1, sliding on the surface u_1 = 1 with weight theta),
the jobs that find no idle server (rate lam = rho (1 - theta) per server) are routed at random, so the
occupancies pi_k = u_k - u_(k+1) of levels k >= 2 follow the truncated Poisson recursion
pi_k = pi_(k-1) lam / k, and row 1 reads theta rho = 1 - u_2 = pi_1: lam = rho - pi_1(lam), a
one-dimensional equation solved here by mpmath (an independent route to the same fixed point). Before
the tiered faces of symloss.core.piecewise_search the search exhausted its budget of 1024 faces here
(the face {u_1 = 1} is one coordinate among dozens within 1e-2 of a bound), and the weight theta ~ 1e-40
needed more bits than the first precision."""
import sys
from pathlib import Path

import mpmath
import pytest

from symloss import JSQ
from symloss.core.piecewise import verify_piecewise_certificate

sys.path.insert(0, str(Path(__file__).parent))
from nonsmooth_models import user_jiq, user_jsq  # noqa: E402


def _jiq_blocking(C, rho, dps=60):
    with mpmath.workdps(dps):
        rho = mpmath.mpf(rho)

        def pi1(lam):
            w = [mpmath.mpf(1)]
            for k in range(2, C + 1):
                w.append(w[-1] * lam / k)
            return 1 / mpmath.fsum(w), w

        lam = mpmath.findroot(lambda L: L - (rho - pi1(L)[0]), rho - mpmath.mpf("0.5"))
        p1, w = pi1(lam)
        pis = [p1 * x for x in w]                   # pi_1 .. pi_C
        mean = mpmath.fsum((k + 1) * p for k, p in enumerate(pis))     # sum_k u_k = sum_k k pi_k
        return 1 - mean / rho


@pytest.mark.slow
@pytest.mark.parametrize("rho", [50.25, 130.2])
def test_jiq_at_C100_is_certified_and_equals_the_poisson_reference(rho):
    m = user_jiq(100)
    r = m.fixed_point(rho, dps=30)
    assert r.extra["certificate"]["face"] == {"u1": "1/1"}
    ref = _jiq_blocking(100, rho)
    assert abs(r.blocking - ref) <= mpmath.mpf(10) ** -28 * abs(ref)
    assert verify_piecewise_certificate(m, r.extra["certificate"])[0]


@pytest.mark.slow
def test_jsq_at_C100_equals_the_shipped_closed_form():
    m = user_jsq(100)
    for rho in (30.3, 99.5, 130.0):
        mine = m.fixed_point(rho, dps=30)
        assert mine.x == JSQ(100).fixed_point(rho, dps=30).x, rho
        assert verify_piecewise_certificate(m, mine.extra["certificate"])[0]
