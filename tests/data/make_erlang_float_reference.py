"""Generate tests/data/erlang_b_float_reference.csv: log E(C, a) over the whole float range of the kernel.

Run:  python tests/data/make_erlang_float_reference.py   (a few minutes)

Each (C, a) pair (floats, written with repr so that they are read back exactly) gets log E(C, a) from one
of two independent methods, each evaluated at two precisions that must agree to 25 significant digits:

* "arb": python-flint's rigorous incomplete gamma, log(a^C e^-a / Gamma(C+1, a)), accepted only when the
  ball's radius is below 1e-25 relative (used wherever it succeeds, mostly C <= 1e15);
* "integral": 1/E = a * int_0^inf exp(C log(1+t) - a t) dt by mpmath.quad (tanh-sinh), centred on the
  peak of the integrand with breakpoints at multiples of its width, at 40 + log10(C) digits (so that
  C log(1+t) keeps 40 significant digits) and again 15 digits higher; for C < a (peak at t = 0) in the
  form 1/E = 1 + a int exp(-a t) expm1(C log1p(t)) dt, which keeps log E ~ -C/a to full relative
  accuracy when C << a.

Neither method shares code with the float kernel (Temme's expansion, Legendre's continued fraction, the
Poisson-tail series). The pairs cover C from 1e-3 to 1e300, a from the subnormals to 1.7e308, the
transition region |a - C - 1| <= 20 sqrt(C + 1) densely, and the region boundaries of the kernel.
"""
import csv
import math
import pathlib

import mpmath
import numpy as np
from flint import arb, ctx

OUT = pathlib.Path(__file__).with_name("erlang_b_float_reference.csv")


def log_eb_arb(x, z):
    for prec in (256, 512, 1024):
        vals = []
        for p in (prec, 2 * prec):
            old = ctx.prec
            ctx.prec = p
            try:
                X, Z = arb(x), arb(z)
                lg = X * Z.log() - Z - Z.gamma_upper(X + 1).log()
                good = lg.is_finite() and lg.rad() < 1e-25 * max(1.0, abs(float(lg.mid())))
                vals.append(mpmath.mpf(lg.mid().str(40, radius=False)) if good else None)
            finally:
                ctx.prec = old
        if None not in vals:
            return vals[1]
    return None


def log_eb_integral(x, z, dps):
    with mpmath.workdps(dps):
        x, z = mpmath.mpf(x), mpmath.mpf(z)

        def f(t):
            return x * mpmath.log1p(t) - z * t
        if x > z:
            ts = x / z - 1
            w = (1 + ts) / mpmath.sqrt(x)
        else:
            ts = mpmath.mpf(0)
            w = 1 / (z - x) if z > x else 1 / mpmath.sqrt(max(x, 1))
            if x > 1:
                w = min(w, 1 / mpmath.sqrt(x)) if z - x < mpmath.sqrt(x) else w
        f0 = f(ts)
        pts = sorted({mpmath.mpf(0)} | {ts + k * w for k in (-60, -30, -15, -8, -4, -2, -1, 0, 1, 2, 4, 8, 15, 30,
                                                             60, 200) if ts + k * w > 0})
        if x < z:
            # peak at t = 0: 1/E = 1 + z int exp(-z t) expm1(x log1p(t)) dt, keeps log E ~ -x/z exact
            def g1(t):
                return mpmath.exp(-z * t) * mpmath.expm1(x * mpmath.log1p(t))
            extra = z * (mpmath.quad(g1, pts) + mpmath.quad(g1, [pts[-1], mpmath.inf]))
            return -mpmath.log1p(extra)

        def g(t):
            return mpmath.exp(f(t) - f0)
        s = mpmath.quad(g, pts) + mpmath.quad(g, [pts[-1], mpmath.inf])
        return -(mpmath.log(z) + f0 + mpmath.log(s))


def reference(x, z):
    v = log_eb_arb(x, z)
    if v is not None:
        return v, "arb"
    d = int(40 + max(0.0, math.log10(max(x, 1.0))))
    u, v = log_eb_integral(x, z, d), log_eb_integral(x, z, d + 15)
    with mpmath.workdps(d + 15):
        if abs(u - v) > mpmath.mpf(10) ** -25 * max(1, abs(v)):
            return None, "integral disagrees"
    return v, "integral"


def cases():
    rng = np.random.default_rng(20240917)
    out = []
    for lx in np.linspace(-3, 300, 80):
        for lam in (1e-3, 0.3, 0.59, 0.61, 0.9, 0.999, 1.0, 1.001, 1.1, 1.5, 10.0, 1e5):
            x = min(float(10.0 ** lx) * (1 + float(rng.uniform(-0.01, 0.01))), 1e300)
            z = x * lam
            if 0 < z < 1.7e308:
                out.append((x, z))
    for x in (1.0, 2.0, 10.0, 49.0, 50.0, 51.0, 100.0, 1e3, 1e4, 1e6, 1e9, 1e12, 1e15, 1e18, 1e30, 1e100):
        for dz in (-20.0, -4.01, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 3.99, 4.01, 20.0):
            z = x + 1 + dz * math.sqrt(x + 1)
            if z > 0:
                out.append((x, z))
    for x, z in ((1e-300, 5e-324), (1e-300, 1.7e308), (5e-324, 1.0), (3.0, 5e-324), (1e5, 5e-324),
                 (1e300, 5e-324), (1e300, 1.7e308), (1e9, 1e9 + 10), (1e16, 1e16), (0.5, 0.5), (2.5, 1e-8)):
        out.append((x, z))
    for _ in range(60):
        lx = float(rng.uniform(-300, 300))
        lz = float(rng.uniform(-323, 308))
        out.append((10.0 ** lx, min(10.0 ** lz, 1.7e308)))
    return out


def main():
    rows = []
    for x, z in cases():
        v, how = reference(x, z)
        if v is None:
            print("skipped", x, z, how)
            continue
        rows.append((repr(x), repr(z), mpmath.nstr(v, 30, strip_zeros=False), how))
    with open(OUT, "w", newline="") as fh:
        fh.write("# log E(C, a) for float pairs (C, a) over the float kernel's range; made by\n"
                 "# tests/data/make_erlang_float_reference.py: python-flint arb gamma_upper (certified radius\n"
                 "# < 1e-25) or mpmath.quad of the integral form at two precisions agreeing to 25 digits.\n")
        w = csv.writer(fh)
        w.writerow(["C", "a", "log_E", "method"])
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
