r"""Shared pieces of the seed-003 claims (two M/M/N/N queues under JSQ); registers no claim.

* the case table of the transition rules (``CASES``, ``DEPARTURES``), checked against the rule
  function of :mod:`symloss.twoqueue` (``_table_matches_model``) and aggregated symbolically
  (``_lumpability_symbolic``): the aggregation lemma ``p(N, N) = E(2N, rho)`` of the claim
  ``seed003.blocking_equals_erlang`` (``proofs_check.claims.seed003_twoqueue``), re-checked by every
  regime claim (``_aggregation_recheck``);
* arb helpers of the regime claims (``proofs_check.claims.seed003_regimes``): rationals and balls
  from stored strings, stored-versus-fresh ball comparison, SymPy zero tests of stored expressions.
"""
from __future__ import annotations

import re
from fractions import Fraction

import sympy
from flint import arb, fmpq

from proofs_check.core import CertificateError
from symloss.core.precision import flint_prec
from symloss.twoqueue import derivation as dv, transitions

#: working precision (bits) of the regime claims' arb enclosures
PREC = 256

# ---- case table of the transition rules (state (m, n), K = m + n) -----------------------------------
# each case: condition (text), the transitions as (dm, dn, rate) with rate a SymPy-parsable string
CASES = [
    {"case": "m < n", "moves": [[1, 0, "rho"]]},
    {"case": "m > n", "moves": [[0, 1, "rho"]]},
    {"case": "m = n < N", "moves": [[1, 0, "rho/2"], [0, 1, "rho/2"]]},
    {"case": "m = n = N", "moves": []},
]

DEPARTURES = [[-1, 0, "m"], [0, -1, "n"]]   # present when m > 0, resp. n > 0 (rate 0 otherwise)


def _case_of(N, m, n):
    if m < n:
        return 0
    if m > n:
        return 1
    return 2 if m < N else 3


def _table_matches_model(Nmax: int) -> int:
    """Every state of every N <= Nmax: the rule function of symloss.twoqueue equals the table."""
    count = 0
    for N in range(1, Nmax + 1):
        for m in range(N + 1):
            for n in range(N + 1):
                want = []
                for dm, dn, r in CASES[_case_of(N, m, n)]["moves"]:
                    want.append((m + dm, n + dn, Fraction(1, 2) if r == "rho/2" else Fraction(1), 0))
                if m > 0:
                    want.append((m - 1, n, Fraction(0), m))
                if n > 0:
                    want.append((m, n - 1, Fraction(0), n))
                got = [(a, b, Fraction(c), int(k)) for (a, b, c, k) in transitions(N, m, n)]
                if sorted(got) != sorted(want):
                    raise CertificateError(f"rule table differs from the model at N={N}, state {(m, n)}")
                count += 1
    return count


def _lumpability_symbolic() -> list[dict]:
    """For each case: total rate K -> K+1 and K -> K-1 (symbolic), must be rho*[K<2N] and m+n."""
    m, n, rho = sympy.symbols("m n rho", positive=True)
    out = []
    for c in CASES:
        up = sum((sympy.sympify(r, locals={"rho": rho}) for dm, dn, r in c["moves"] if dm + dn == 1),
                 sympy.Integer(0))
        down = sum((sympy.sympify(r, locals={"m": m, "n": n}) for dm, dn, r in DEPARTURES), sympy.Integer(0))
        up_expected = sympy.Integer(0) if c["case"] == "m = n = N" else rho
        if sympy.simplify(up - up_expected) != 0 or sympy.simplify(down - (m + n)) != 0:
            raise CertificateError(f"case {c['case']}: rates up={up}, down={down} do not aggregate")
        if any(dm + dn not in (1,) for dm, dn, r in c["moves"]):
            raise CertificateError(f"case {c['case']}: an arrival does not raise K by one")
        out.append({"case": c["case"], "up": str(up), "down": str(down)})
    return out


# --------------------------------------------------------------------------------------------------
# arb and SymPy helpers of the regime claims
# --------------------------------------------------------------------------------------------------

def _aggregation_recheck() -> dict:
    """p(N, N) = E(2N, rho): the aggregation lemma, re-derived from the model's rules (cheap part of
    claim seed003.blocking_equals_erlang) and from the generated level rates."""
    n = _table_matches_model(6)
    lump = _lumpability_symbolic()
    lam, mu = dv.level_rates()
    if sympy.simplify(lam - dv.rsym) != 0 or sympy.simplify(mu - dv.K) != 0:
        raise CertificateError(f"level rates generated from the rules are ({lam}, {mu}), not (rho, K)")
    return {"states_checked": n, "lumpability": lump, "level_rates": [str(lam), str(mu)]}


def _q(s: str):
    p, _, q = s.partition("/")
    return fmpq(int(p), int(q or 1))


def _arb(x):
    return arb(x) if not hasattr(x, "p") else arb(x.p) / x.q


def _ball_str(x) -> str:
    return x.str(30, radius=True)


def _same_ball(stored: str, fresh: str) -> bool:
    """Two balls printed with 30 digits (stored and recomputed) overlap."""
    with flint_prec(PREC):
        try:
            a, b = arb(stored), arb(fresh)
        except Exception as exc:  # noqa: BLE001
            raise CertificateError(f"unreadable ball {stored!r}: {exc}") from None
        return bool(a.overlaps(b))


def _check_instances(stored: list, fresh_fn, keys, label):
    for x in stored:
        fresh = fresh_fn(x)
        for key in keys:
            if key not in x or not _same_ball(x[key], fresh[key]):
                raise CertificateError(f"{label} instance {x.get('N', x.get('C'))}, rho={x['rho']}: "
                                       f"stored {key} does not match a fresh arb enclosure")


def _sym_zero(expr_str: str, local: dict) -> bool:
    """The stored expression simplifies to 0 (names parsed as positive symbols unless given)."""
    names = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", expr_str)) - {
        "log", "exp", "sqrt", "pi", "erf", "erfc", "oo", "Integer", "Rational", "E", "I"}
    loc = {nm: sympy.Symbol(nm, positive=True) for nm in names}
    loc.update(local)
    e = sympy.sympify(expr_str, locals=loc).rewrite(sympy.erf)
    e = sympy.expand_log(e, force=True)
    return sympy.simplify(e) == 0


def _dec_to_q(s: str) -> str:
    """'0.15' -> '15/100'."""
    if "." not in s:
        return s
    ip, fp = s.split(".")
    return f"{int(ip + fp)}/{10 ** len(fp)}"


def arb_mid(s: str) -> float:
    return float(s.strip("[]").split("+/-")[0])
