"""The exact end pieces of the generic comparison at C = 12 (issue 23): the limit state of a power-of-3
tail rescaled by its valuations has rationals of ~10^5 digits, beyond Python's 4300-digit limit on
decimal integer strings. They used to raise "Exceeds the limit (4300 digits) for integer string
conversion" inside the certificate writer, which the search took for a failed end piece at every
junction load (hybrid(12, 2, 2) vs PowerOfD(12, 3) was refused); they are written and read back
exactly, and the interpreter's limit is left as it was."""
from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import pytest

import symloss
from symloss.meanfield.ball_text import parse_q, q_str

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "finite_n"))
from finite_n_hybrid import hybrid_model as hybrid  # noqa: E402


def test_big_rationals_round_trip_and_the_limit_is_restored():
    before = sys.get_int_max_str_digits()
    for x in (Fraction(3 ** 30000 + 1, 7 ** 20000), Fraction(-(10 ** 9000) - 7), Fraction(1, 2 ** 40000)):
        s = q_str(x)
        assert len(s) > 4300 and parse_q(s) == x
    assert sys.get_int_max_str_digits() == before
    with pytest.raises(ValueError):
        parse_q("1" * 5000 + ".5")                       # still no floats, whatever the length


@pytest.mark.slow
def test_end_piece_with_limit_states_beyond_4300_digits():
    from symloss.meanfield.generic_search import _Generic
    a, b = hybrid(12, 2, 2), symloss.PowerOfD(12, 3)
    g = _Generic(a, b, 30, 128)
    rec, _sign = g.end("zero", Fraction(1, 64), 12, 12, rho_guess=Fraction(1, 8))
    x0 = rec["models"]["b"]["x0"]
    assert max(len(s) for s in x0) > 4300
    em = g._end_pre["zero"][1]["b"][0]
    assert [parse_q(s) for s in x0] == [Fraction(int(v.p), int(v.q)) for v in em.x0]
