"""``symloss erlang C a [--dps N]``: print E(C, a)."""
from fractions import Fraction


def _exact(text: str, name: str):
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{name} must be a real number such as 12, 0.5, 1e6 or 7/3, got {text!r}") from None


def _run(args) -> int:
    import mpmath

    from ...erlang import erlang_b
    C, a = _exact(args.C, "C"), _exact(args.a, "a")
    if C.denominator == 1:
        C = int(C)
    v = erlang_b(C, a, dps=args.dps)
    print(mpmath.nstr(v, args.dps, min_fixed=-4, max_fixed=6) if not args.log
          else mpmath.nstr(mpmath.log(v, 10) if args.log else v, args.dps))
    return 0


def register(sub) -> None:
    p = sub.add_parser("erlang", help="Erlang-B blocking probability E(C, a) to any precision",
                       description="Print E(C, a) = a^C e^-a / Gamma(C+1, a) to DPS significant digits "
                                   "(certified by ball arithmetic). C and a are read exactly "
                                   "(decimal or p/q).")
    p.add_argument("C", help="number of channels, real >= 0")
    p.add_argument("a", help="offered load, real > 0")
    p.add_argument("--dps", type=int, default=30, help="significant digits (default 30)")
    p.add_argument("--log", action="store_true", help="print log10 E(C, a) instead")
    p.set_defaults(func=_run)
