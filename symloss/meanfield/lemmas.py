r"""The exact monotonicity lemmas of the retrial-of-d reduction (integer polynomials with non-negative
coefficients, python-flint ``fmpz_poly``; cached per argument, cleared by
``symloss.meanfield.enclosures.clear_caches``): :func:`retrial_g_lemma`, :func:`erlang_increasing_lemma`,
:func:`carried_load_lemma`. Re-exported by :mod:`symloss.meanfield.enclosures`.
"""
from __future__ import annotations

from functools import cache

from flint import fmpz_poly

from ..erlang.balls import erlang_coefficients, tail_poly

__all__ = ["retrial_g_lemma", "retrial_g_facts_v1", "erlang_increasing_lemma", "carried_load_lemma"]


def _erlang_polys(C: int):
    S = fmpz_poly(list(erlang_coefficients(C)))                                       # C! S_C(a)
    f = fmpz_poly([0] * C + [1])                                                   # a^C
    return S, f


def _nonneg_positive_constant(p) -> bool:
    cs = [int(c) for c in p.coeffs()]
    return bool(cs) and cs[0] > 0 and all(c >= 0 for c in cs)


@cache
def retrial_g_lemma(C: int, d: int) -> dict:
    r"""``g(a) = a(1 - E(C,a))/(1 - E(C,a)^d) = A/B`` with ``A = a S^{d-1}``,
    ``B = sum_{j<d} S^{d-1-j} f^j`` (``S = C! S_C(a)``, ``f = a^C``): the numerator ``A'B - AB'`` of
    ``g'`` has non-negative coefficients and a positive constant term, ``g(0) = 0`` and
    ``deg A = deg B + 1`` with positive leading coefficients; so ``g`` increases strictly from 0 to
    infinity. Returns the facts (recomputed exactly; ``holds`` is their conjunction)."""
    S, f = _erlang_polys(C)
    A = fmpz_poly([0, 1]) * S ** (d - 1)
    B = fmpz_poly([0])
    for j in range(d):
        B += S ** (d - 1 - j) * f ** j
    N = A.derivative() * B - A * B.derivative()
    # the signs only: B(0) = (C!)^(d-1) has thousands of digits at C = 1000 (beyond the int-to-string
    # limit of Python's json), and the re-check recomputes the facts anyway
    facts = {"A(0) = 0": A(0) == 0, "B(0) > 0": B(0) > 0, "deg A - deg B": A.degree() - B.degree(),
             "lc A > 0": int(A.leading_coefficient()) > 0, "lc B > 0": int(B.leading_coefficient()) > 0,
             "N = A'B - AB' non-negative": _nonneg_positive_constant(N), "deg N": N.degree()}
    holds = (facts["A(0) = 0"] and facts["B(0) > 0"] and facts["deg A - deg B"] == 1 and facts["lc A > 0"]
             and facts["lc B > 0"] and facts["N = A'B - AB' non-negative"])
    return {"C": C, "d": d, "facts": facts, "holds": bool(holds)}


def retrial_g_facts_v1(C: int, d: int) -> dict:
    """The facts of :func:`retrial_g_lemma` as certificates written before 2026-12-02 stored them
    (``A(0)``, ``B(0)`` as integers), recomputed exactly, so that a re-check still accepts those
    certificates (it compares the stored record with this one).

    Parameters
    ----------
    C, d : int
        Servers and attempts, as in :func:`retrial_g_lemma`.

    Returns
    -------
    dict
        The facts with ``"A(0)"`` and ``"B(0)"`` as exact integers.
    """
    S, f = _erlang_polys(C)
    A = fmpz_poly([0, 1]) * S ** (d - 1)
    B = fmpz_poly([0])
    for j in range(d):
        B += S ** (d - 1 - j) * f ** j
    facts = dict(retrial_g_lemma(C, d)["facts"])
    del facts["A(0) = 0"], facts["B(0) > 0"]
    return {"A(0)": int(A(0)), "B(0)": int(B(0)), **facts}


@cache
def erlang_increasing_lemma(C: int) -> dict:
    r"""``E(C, a)`` increases in ``a``: ``dE/da = f (C S - a S')/(a S^2)`` and ``C S - a S'`` has the
    coefficients ``(C - j) C!/j! >= 0`` with constant term ``C C! > 0`` (``C >= 1``)."""
    S, _f = _erlang_polys(C)
    L = C * S - fmpz_poly([0, 1]) * S.derivative()
    return {"C": C, "C S - a S' non-negative": _nonneg_positive_constant(L),
            "holds": bool(_nonneg_positive_constant(L))}


# ==================================================================================================
# Erlang-B and the comparison function Psi
# ==================================================================================================

@cache
def carried_load_lemma(C: int) -> dict:
    r"""The carried load :math:`c(a) = a(1 - E(C, a)) = a S_{C-1}(a)/S_C(a)` increases strictly in
    ``a``: the numerator :math:`(a S_{C-1})' S_C - a S_{C-1} S_C'` of :math:`c'` has non-negative
    integer coefficients (scaled by :math:`C!^2`) and a positive constant term."""
    S, _f = _erlang_polys(C)
    Sm = tail_poly(C)
    num = fmpz_poly([0, 1]) * Sm
    L = num.derivative() * S - num * S.derivative()
    return {"C": C, "numerator of c' non-negative": _nonneg_positive_constant(L),
            "holds": bool(_nonneg_positive_constant(L))}
