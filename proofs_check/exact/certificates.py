"""Root-count, isolation, sign and positivity certificates of univariate polynomials, and their re-checks
(which recompute every count and sign from the stored polynomial and points; they never trust a stored count)."""
from __future__ import annotations

from flint import fmpq, fmpz_poly

from proofs_check.core import CertificateError
from proofs_check.exact.descartes import (
    _open_cells,
    descartes_partition,
    descartes_variations,
    recheck_factored_isolation,
)
from proofs_check.exact.serial import poly_from_list, poly_to_list, q, qstr
from proofs_check.exact.sturm import _prepared, cauchy_bound, count_roots, isolate_roots, refine_root, sign_at


def _qs(x):
    return None if x is None else qstr(x)


def certify_no_roots(p: fmpz_poly, lo=None, hi=None, *, method: str = "auto") -> dict:
    """Certificate that ``p`` has no real root in the open interval ``(lo, hi)``.

    ``method="sturm"``: the re-check recomputes the Sturm count; ``method="descartes"`` (finite
    interval only): the certificate stores a partition of ``(lo, hi)`` into cells with Descartes
    variation 0 whose cut points are not roots, and the re-check recomputes every variation (much
    faster than Sturm for degrees in the hundreds). ``"auto"`` takes Descartes above degree 60.
    """
    if method == "auto":
        method = "descartes" if (p.degree() > 60 and lo is not None and hi is not None) else "sturm"
    cert = {"kind": "no_roots", "method": method, "poly": poly_to_list(p), "lo": _qs(lo), "hi": _qs(hi)}
    if method == "sturm":
        cert["count"] = count_roots(p, lo, hi)
    elif method == "descartes":
        p0 = _prepared(p, lo, hi)
        cells = descartes_partition(p0, lo, hi)
        cert["cuts"] = [qstr(c[0]) for c in cells[1:]]
        cert["count"] = sum(c[2] for c in cells)
    else:
        raise ValueError(f"unknown method {method!r}")
    return cert


def certify_isolation(p: fmpz_poly, lo=None, hi=None, *, method: str = "auto", max_width=None) -> dict:
    """Certificate listing every real root of ``p`` in ``(lo, hi)`` by an isolating interval.

    ``method="sturm"``: intervals from Sturm bisection, re-checked by Sturm counts.
    ``method="descartes"`` (``lo`` finite; ``hi = None`` means the Cauchy bound, recomputed by the
    re-check): a partition of ``(lo, hi)`` into cells of Descartes variation 0 or 1; the cells of
    variation 1 are the isolating intervals. ``"auto"``: Descartes above degree 60 when ``lo`` is finite.
    """
    if method == "auto":
        method = "descartes" if (p.degree() > 60 and lo is not None) else "sturm"
    cert = {"kind": "isolation", "method": method, "poly": poly_to_list(p), "lo": _qs(lo), "hi": _qs(hi)}
    if method == "sturm":
        iv = isolate_roots(p, lo, hi, max_width=max_width)
    elif method == "descartes":
        if lo is None:
            raise ValueError("Descartes isolation needs a finite lower end")
        p0 = _prepared(p, lo, hi)
        top = q(hi) if hi is not None else cauchy_bound(p0)
        cells = _open_cells(p0, q(lo), top, descartes_partition(p0, lo, top))
        iv = [(a, b) for a, b, v in cells if v == 1]
        if max_width is not None:
            iv = [refine_root(p0, ab, max_width) for ab in iv]
        cert["cuts"] = [qstr(c[0]) for c in cells[1:]]
    else:
        raise ValueError(f"unknown method {method!r}")
    cert["intervals"] = [[qstr(a), qstr(b)] for a, b in iv]
    cert["count"] = len(iv)
    return cert


def certify_sign(p: fmpz_poly, x) -> dict:
    return {"kind": "sign", "poly": poly_to_list(p), "x": qstr(x), "sign": sign_at(p, q(x))}


def certify_positive(p: fmpz_poly, lo=None, hi=None, sample=None) -> dict:
    """Certificate that ``p > 0`` on ``(lo, hi)``: no root there (Sturm) and ``p(sample) > 0``.
    When every coefficient is >= 0 (and p is non-zero) on ``lo >= 0`` the check is immediate."""
    if sample is None:
        a = q(lo) if lo is not None else (q(hi) - 1 if hi is not None else fmpq(0))
        b = q(hi) if hi is not None else a + 2
        sample = (a + b) / 2 if lo is not None and hi is not None else (a + 1 if hi is None else b - 1)
    return {"kind": "positive", "poly": poly_to_list(p), "lo": _qs(lo), "hi": _qs(hi),
            "count": count_roots(p, lo, hi), "sample": qstr(sample), "sample_sign": sign_at(p, q(sample))}


def _cut_points(p, lo, cuts, hi) -> list:
    """``[lo, *cuts, hi]`` of a stored Descartes certificate, checked: increasing, and no cut point a root
    of ``p``."""
    pts = [lo] + [q(c) for c in cuts] + [hi]
    for a, b in zip(pts, pts[1:]):
        if not a < b:
            raise CertificateError("Descartes cut points are not increasing inside the interval")
    for c in pts[1:-1]:
        if p(c) == 0:
            raise CertificateError(f"cut point {qstr(c)} is a root")
    return pts


def _poly_and_interval(cert: dict):
    p = poly_from_list(cert["poly"])
    lo = None if cert.get("lo") is None else q(cert["lo"])
    hi = None if cert.get("hi") is None else q(cert["hi"])
    return p, lo, hi


def recheck_no_roots(cert: dict) -> None:
    p, lo, hi = _poly_and_interval(cert)
    method = cert.get("method", "sturm")
    if method == "descartes":
        if lo is None or hi is None:
            raise CertificateError("a Descartes certificate needs a finite interval")
        p0 = _prepared(p, lo, hi)
        pts = _cut_points(p, lo, cert.get("cuts", []), hi)
        n = sum(descartes_variations(p0, a, b) for a, b in zip(pts, pts[1:]))
        if n != 0 or cert.get("count") != 0:
            raise CertificateError(f"Descartes variations {n} on the stored cells (certificate says "
                                   f"{cert.get('count')}): no proof of the absence of roots")
        return
    if method != "sturm":
        raise CertificateError(f"unknown root-count method {method!r}")
    n = count_roots(p, lo, hi)
    if n != 0 or cert.get("count") != 0:
        raise CertificateError(f"polynomial has {n} real root(s) in ({cert.get('lo')}, {cert.get('hi')}), "
                               f"certificate says {cert.get('count')}")


def recheck_isolation(cert: dict) -> list[tuple[fmpq, fmpq]]:
    """Every stored interval lies in ``(lo, hi)``, the intervals are disjoint and increasing, each
    holds exactly one root, and together they hold all roots in ``(lo, hi)`` - all recomputed
    (Sturm counts, or Descartes variations on the stored partition)."""
    p, lo, hi = _poly_and_interval(cert)
    ivs = [(q(a), q(b)) for a, b in cert["intervals"]]
    method = cert.get("method", "sturm")
    prev = None
    for a, b in ivs:
        if not a < b:
            raise CertificateError(f"empty isolating interval [{qstr(a)}, {qstr(b)}]")
        if (lo is not None and not a > lo) or (hi is not None and not b < hi):
            raise CertificateError(f"interval [{qstr(a)}, {qstr(b)}] not inside ({cert.get('lo')}, {cert.get('hi')})")
        if prev is not None and not a >= prev:   # a shared end point is not a root (checked below)
            raise CertificateError("isolating intervals overlap or are not increasing")
        if p(a) == 0 or p(b) == 0:
            raise CertificateError(f"end point of [{qstr(a)}, {qstr(b)}] is a root")
        prev = b
    if method == "sturm":
        total = count_roots(p, lo, hi)
        if total != len(ivs) or cert.get("count") != total:
            raise CertificateError(f"{total} root(s) in ({cert.get('lo')}, {cert.get('hi')}) but "
                                   f"{len(ivs)} interval(s) / count {cert.get('count')} stored")
        for a, b in ivs:
            if count_roots(p, a, b) != 1:
                raise CertificateError(f"[{qstr(a)}, {qstr(b)}] does not hold exactly one root")
        return ivs
    if method != "descartes" or lo is None:
        raise CertificateError(f"unsupported isolation method {method!r}")
    p0 = _prepared(p, lo, hi)
    top = hi if hi is not None else cauchy_bound(p0)
    pts = _cut_points(p, lo, cert.get("cuts", []), top)
    ones = []
    for a, b in zip(pts, pts[1:]):
        v = descartes_variations(p0, a, b)
        if v > 1:
            raise CertificateError(f"cell [{qstr(a)}, {qstr(b)}] has Descartes variation {v} > 1")
        if v == 1:
            ones.append((a, b))
    if len(ones) != len(ivs) or cert.get("count") != len(ivs):
        raise CertificateError(f"{len(ones)} isolating cell(s) but {len(ivs)} interval(s) stored")
    for (a, b), (x, y) in zip(ones, ivs):
        if not (a <= x < y <= b):
            raise CertificateError(f"interval [{qstr(x)}, {qstr(y)}] not inside its isolating cell")
        if (x, y) != (a, b) and not sign_at(p0, x) * sign_at(p0, y) < 0:
            raise CertificateError(f"refined interval [{qstr(x)}, {qstr(y)}] shows no sign change")
    return ivs


def recheck_sign(cert: dict) -> int:
    p = poly_from_list(cert["poly"])
    s = sign_at(p, q(cert["x"]))
    if s != cert.get("sign"):
        raise CertificateError(f"sign of the polynomial at {cert['x']} is {s}, certificate says {cert.get('sign')}")
    return s


def recheck_positive(cert: dict) -> None:
    p, lo, hi = _poly_and_interval(cert)
    x = q(cert["sample"])
    if (lo is not None and not x > lo) or (hi is not None and not x < hi):
        raise CertificateError("sample point outside the interval")
    n = count_roots(p, lo, hi)
    s = sign_at(p, x)
    if n != 0 or s != 1 or cert.get("count") != 0 or cert.get("sample_sign") != 1:
        raise CertificateError(f"positivity fails: {n} root(s) in the interval, sign {s} at the sample")


def recheck_certificate(cert: dict):
    """Dispatch on ``cert["kind"]``."""
    kind = cert.get("kind")
    fn = {"no_roots": recheck_no_roots, "isolation": recheck_isolation, "sign": recheck_sign,
          "positive": recheck_positive, "factored_isolation": recheck_factored_isolation}.get(kind)
    if fn is None:
        raise CertificateError(f"unknown certificate kind {kind!r}")
    return fn(cert)
