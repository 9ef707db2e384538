r"""The re-check of a fast-path certificate of :func:`symloss.meanfield.certified.certified_comparison`
(``_verify_fast``): every stored number recomputed from the models' own equations and checked to
enclose the recomputed value, no search redone (the search is :mod:`symloss.meanfield.certified_search`).
"""
from __future__ import annotations

import time
from fractions import Fraction

from flint import arb

from ..core.precision import flint_prec
from .certified_search import (
    _fast_models,
    _lemmas,
    _parameters,
    _result,
    _sgn,
    _summary,
)
from .comparison_types import CertificateMismatch, _keys, _need
from .enclosures import (
    ball_str,
    large_end_tm,
    parse_ball,
    parse_q,
    psi_mixed,
    psi_point,
    psi_tm,
    q_arb,
    q_str,
    rho_of_a,
    small_end_bound,
)

#: informational). Written into the certificate as ``unchecked_fields``; :func:`verify_comparison` checks
#: every other field and rejects any field it does not know.
UNCHECKED_FAST = ("symloss_version", "provenance")     # provenance: optional, added by the files the CLI writes
_KEYS_FAST = {"format", "symloss_version", "models", "a_is", "binding", "lemmas", "dps", "prec", "K", "small_end",
              "large_end", "cells", "summary_psi", "unchecked_fields"}
_KEYS_MODEL = {"repr", "class", "C", "d", "parameters", "fingerprint"}
_KEYS_SMALL = {"a_lo", "rho_lo", "exponent_retrial", "exponent_power", "constant", "ret_remainder",
               "power_remainder", "bound", "sign"}
_KEYS_LARGE = {"a_hi", "K", "coefficients", "m", "R", "scaled", "sign"}
_KEYS_CELL = {"mixed": {"a", "test", "sign", "bound"}, "taylor": {"a", "test", "sign", "c0", "dev"},
              "crossing": {"a", "test", "sign", "ends", "deriv", "refined"}}
_KEYS_DERIV = {"c0", "dev", "sign"}
_KEYS_REFINED = {"a", "prec", "psi", "rho"}


def _contains(stored: str, fresh: arb, what: str) -> arb:
    b = parse_ball(stored)
    _need(b.contains(fresh), f"stored {what} {stored} does not enclose the recomputed {ball_str(fresh)}")
    return b


def _le_stored(fresh: arb, stored: str, what: str) -> Fraction:
    v = Fraction(stored)
    _need(fresh <= q_arb(v), f"recomputed {what} exceeds the stored bound {stored}")
    return v



def _check_models(data: dict, ret, pod):
    _keys(data["models"], {"retrial", "power"}, "models")
    for key, m in (("retrial", ret), ("power", pod)):
        rec = data["models"][key]
        _keys(rec, _KEYS_MODEL, f"models.{key}")
        _need(rec.get("fingerprint") == m.fingerprint(),
              f"the certificate was made from another {key} definition (fingerprint {str(rec.get('fingerprint', '?'))[:12]}"
              f"... vs {m.fingerprint()[:12]}...)")
        _need((rec.get("C"), rec.get("d")) == (int(m.C), int(m.d)), f"{key} parameters differ")
        _need(rec.get("parameters") == _parameters(m),
              f"{key} parameters differ: stored {rec.get('parameters')!r}, the model has {_parameters(m)!r}")
        _need(rec.get("repr") == repr(m), f"{key} model differs: stored {rec.get('repr')!r}, got {m!r}")
        _need(rec.get("class") == type(m).__name__,
              f"{key} model class differs: stored {rec.get('class')!r}, got {type(m).__name__!r}")



def _verify_fast(data, model_a, model_b, t0):
    fast = _fast_models(model_a, model_b)
    _need(fast is not None, "the models are not a retrial-of-d / power-of-d pair")
    ret, pod, orient, rb, pb = fast
    _keys(data, _KEYS_FAST | ({"provenance"} if "provenance" in data else set()), "certificate")
    _need(data["unchecked_fields"] == list(UNCHECKED_FAST),
          f"unchecked_fields must be exactly {list(UNCHECKED_FAST)} (every other field is re-checked), "
          f"got {data['unchecked_fields']!r}")
    _need(isinstance(data["symloss_version"], str), "symloss_version must be a string")
    _need(data.get("a_is") == ("retrial" if orient == 1 else "power"), "model order differs")
    _check_models(data, ret, pod)
    C, dt, d = rb["C"], rb["d"], pb["d"]
    _need(data["binding"] == {"retrial": rb["identity"], "power": pb["identity"], "telescoped": pb["telescoped"]},
          "binding records differ")
    _need(data["lemmas"] == _lemmas(C, d, dt) or data["lemmas"] == _lemmas(C, d, dt, v1=True),
          "lemma records differ from the recomputed ones")
    dps, prec, K = int(data["dps"]), int(data["prec"]), int(data["K"])
    _need(5 <= dps <= 100000 and 64 <= prec <= 1 << 16 and 2 <= K <= 64, "parameters out of range")
    small, large, cells = data["small_end"], data["large_end"], data["cells"]
    _keys(small, _KEYS_SMALL, "small_end")
    _keys(large, _KEYS_LARGE, "large_end")
    _need(isinstance(cells, list), "cells must be a list")
    with flint_prec(prec):
        # small end: recomputed from a_lo, must be identical, sign non-zero
        a_lo = parse_q(small["a_lo"])
        _need(a_lo > 0, "a_lo must be positive")
        fresh = small_end_bound(C, d, dt, a_lo)
        _need(fresh["sign"] != 0 and fresh["sign"] == small["sign"], "small-load end piece does not certify its sign")
        for key in ("exponent_retrial", "exponent_power"):
            _need(fresh[key] == small[key], f"small-load {key} differs")
        for key in ("rho_lo", "constant", "power_remainder"):
            _contains(small[key], parse_ball(fresh[key]), f"small-load {key}")
        _need(isinstance(small["ret_remainder"], list) and len(small["ret_remainder"]) == len(fresh["ret_remainder"]),
              "small-load ret_remainder has the wrong length")
        for j, (st, fr) in enumerate(zip(small["ret_remainder"], fresh["ret_remainder"])):
            _contains(st, parse_ball(fr), f"small-load ret_remainder[{j}]")
        _contains(small["bound"], parse_ball(fresh["bound"]), "small-load bound")
        b = parse_ball(small["bound"])
        _need((b > 0 and small["sign"] == 1) or (b < 0 and small["sign"] == -1), "small-load bound does not give its sign")
        # large end
        a_hi = parse_q(large["a_hi"])
        Ke = int(large["K"])
        _need(a_hi > a_lo and 2 <= Ke <= 64, "large-load parameters out of range")
        tm = large_end_tm(C, d, dt, a_hi, Ke)
        coeffs = [q_str(Fraction(int(c.p), int(c.q))) for c in tm.c]
        _need(coeffs == large["coefficients"], "stored exact coefficients of the large-load Taylor model differ")
        m, _cm = tm.leading()
        _need(m == int(large["m"]), "leading order differs")
        _contains(large["R"], tm.R, "large-load remainder")
        sr = tm.scaled_range(m)
        _contains(large["scaled"], sr, "large-load scaled range")
        sb = parse_ball(large["scaled"])
        _need((sb > 0 and large["sign"] == 1) or (sb < 0 and large["sign"] == -1), "large-load sign not certified")
        # cells: tiling and each test
        prev = a_lo
        for i, cell in enumerate(cells):
            x0, x1 = parse_q(cell["a"][0]), parse_q(cell["a"][1])
            _need(x0 == prev and x1 > x0, f"cell {i} does not continue the tiling at a = {q_str(prev)}")
            prev = x1
            _verify_cell(C, d, dt, K, cell, dps, i)
        _need(prev == a_hi, "the cells do not reach the large-load end piece")
    summary = _summary(small, large, cells, dps)
    _need(summary == data["summary_psi"], "stored summary differs from the one recomputed from the cells")
    return _result(model_a, model_b, data, orient, time.perf_counter() - t0)


def _verify_cell(C, d, dt, K, cell, dps, i):
    x0, x1 = parse_q(cell["a"][0]), parse_q(cell["a"][1])
    A0, A1 = q_arb(x0), q_arb(x1)
    test, s = cell["test"], cell["sign"]
    _need(test in _KEYS_CELL, f"cell {i}: unknown test {test!r}")
    _keys(cell, _KEYS_CELL[test], f"cell {i}")
    if test == "crossing":
        _keys(cell["deriv"], _KEYS_DERIV, f"cell {i} deriv")
        _keys(cell["refined"], _KEYS_REFINED, f"cell {i} refined")
    _need(s in (1, -1), f"cell {i}: sign must be +-1")
    if test == "mixed":
        L, U = psi_mixed(C, d, dt, A0, A1)
        fresh = L if s == 1 else U
        b = _contains(cell["bound"], fresh, f"cell {i} mixed bound")
        _need((b > 0) if s == 1 else (b < 0), f"cell {i}: the mixed bound does not give the stored sign")
    elif test == "taylor":
        tm = psi_tm(C, d, dt, x0, x1, K)
        c0 = _contains(cell["c0"], tm.c[0], f"cell {i} Taylor constant")
        dev = _le_stored(tm.deviation(), cell["dev"], f"cell {i} deviation")
        _need((c0 > q_arb(dev)) if s == 1 else (c0 < -q_arb(dev)), f"cell {i}: Taylor bound does not give the sign")
    elif test == "crossing":
        p0, p1 = psi_point(C, d, dt, A0), psi_point(C, d, dt, A1)
        e0 = _contains(cell["ends"][0], p0, f"cell {i} left value")
        e1 = _contains(cell["ends"][1], p1, f"cell {i} right value")
        _need(_sgn(e0) == -s and _sgn(e1) == s, f"cell {i}: no certified sign change")
        dual = psi_tm(C, d, dt, x0, x1, K, dual=True)
        D = dual.d
        dc0 = _contains(cell["deriv"]["c0"], D.c[0], f"cell {i} derivative constant")
        ddev = _le_stored(D.deviation(), cell["deriv"]["dev"], f"cell {i} derivative deviation")
        ds = cell["deriv"]["sign"]
        _need((dc0 > q_arb(ddev)) if ds == 1 else (dc0 < -q_arb(ddev)) if ds == -1 else False,
              f"cell {i}: the derivative is not certified to keep one sign")
        _need(ds == s, f"cell {i}: derivative sign inconsistent with the sign change")
        ref = cell["refined"]
        b0, b1 = parse_q(ref["a"][0]), parse_q(ref["a"][1])
        _need(x0 <= b0 < b1 <= x1, f"cell {i}: refined bracket outside the cell")
        with flint_prec(int(ref["prec"])):
            v0, v1 = psi_point(C, d, dt, q_arb(b0)), psi_point(C, d, dt, q_arb(b1))
            w0 = _contains(ref["psi"][0], v0, f"cell {i} refined left value")
            w1 = _contains(ref["psi"][1], v1, f"cell {i} refined right value")
            _need(_sgn(w0) == -s and _sgn(w1) == s, f"cell {i}: refined bracket has no certified sign change")
            r0, r1 = rho_of_a(C, dt, q_arb(b0)), rho_of_a(C, dt, q_arb(b1))
            rl, rh = Fraction(ref["rho"][0]), Fraction(ref["rho"][1])
            _need(q_arb(rl) <= r0 and r1 <= q_arb(rh), f"cell {i}: stored load bounds do not enclose rho(a)")
            _need(rh - rl <= Fraction(1, 10 ** dps), f"cell {i}: crossing interval wider than 1e-{dps}")
    else:
        raise CertificateMismatch(f"cell {i}: unknown test {test!r}")


# ==================================================================================================
# threshold reports (the command line's --certified, the notebook, the docs table)
