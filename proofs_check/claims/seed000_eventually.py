r"""Seed 000, claim 3: for ``dt > d`` retrial-of-dt blocks less than power-of-d at all large loads,
with the certified threshold load and the number of crossings.

``seed000.eventually.C{C}_d{d}_dt{dt}`` for every ``C <= 100`` and ``1 <= d < dt <= 10`` (power-of-1 is
random routing, in tail variables), and at ``C = 200, 500, 1000`` for ``(d, dt) = (1, 2), (2, 3)``
(scope ``"full"`` beyond ``C <= 20`` and a sample at ``C = 30, 50, 100``:
:func:`proofs_check.support.seed000.scope_of`): there is :math:`\rho_0` with
:math:`B_{ret}(\tilde d) < B_{pod}(d)` for every :math:`\rho > \rho_0`.

PROVED by a certified comparison for every load (:mod:`proofs_check.support.seed000_compare`):
the sign of :math:`B_{ret}(\tilde d) - B_{pod}(d)` on :math:`(0, \infty)`, every crossing in an
interval of width :math:`\le 10^{-30}` that holds exactly one crossing, and their count. The
**threshold** (the load above which retrial-of-dt blocks strictly less at every larger load) is the
last crossing's interval, or 0 when there is no crossing and retrial-of-dt is lower at every load.
At large load the certified leading term of :math:`\Psi` is of order :math:`\rho^{-2}`
(:math:`B_{ret}(\tilde d) - B_{pod}(d) = -C(1/d - 1/\tilde d)\rho^{-2} + O(\rho^{-3})`).

The exact thresholds of the earlier elimination method (``C <= 4``, minimal polynomials) are
recomputed by the tests and lie in the certified intervals.
"""
from __future__ import annotations

from proofs_check.core import claim
from proofs_check.support import seed000 as com, seed000_compare as cmp

C_RANGE = range(1, com.REGISTRY_C_MAX + 1)
PAIRS = [(d, dt) for d in range(1, com.REGISTRY_D_MAX) for dt in range(d + 1, com.REGISTRY_D_MAX + 1)]
SOURCE = "Cuesta, Jonckheere, Prabhu, Brun, Retrials in Loss Systems (2026; paper 1 in docs/papers.md), claim 3 (retrial-of-dt beats power-of-d at high load)"


def _statement(C, d, dt):
    return (rf"C = {C}:\ \exists \rho_0\ \forall \rho > \rho_0:\ B_{{ret}}({dt}) < B_{{pod}}({d})"
            rf"\ \text{{(with the certified threshold load and the number of crossings)}}")


_CASES = [(C, d, dt) for C in C_RANGE for d, dt in PAIRS] + [(C, d, dt) for C in com.LARGE_C for d, dt in com.LARGE_C_PAIRS]

for _C, _d, _dt in _CASES:
    _p, _r = cmp.make_eventually(_C, _d, _dt)
    claim(f"seed000.eventually.C{_C}_d{_d}_dt{_dt}", statement=_statement(_C, _d, _dt), source=SOURCE,
          method="certified comparison for every load: 1-D reduction, Taylor models on dyadic cells, "
                 "isolated crossings (Taylor model of the derivative), elementary small-load bounds, exact "
                 "Taylor model at large load",
          expected="PROVED", recheck=_r, tags=com.scale_tags(_C, _dt, ("seed000", "comparison")),
          summarize=cmp.eventually_summary, scope=com.scope_of(_C, (_d, _dt)))(_p)
