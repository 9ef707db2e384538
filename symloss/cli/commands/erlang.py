"""``symloss erlang C a [--dps N] [--log | --log10] [--json [PATH]]``: the Erlang-B function E(C, a)."""
from __future__ import annotations

from fractions import Fraction

from .._common import CliError, add_output, outputs, parse_dps, parse_real
from ._shared import json_output

#: Largest C and a the parser accepts: 1e400 (the decimal-exponent guard of the parsers, so no huge
#: Fraction is ever built). Inside it erlang_b answers (e.g. E(1e400, 1)) or refuses quickly with a
#: PrecisionError (one line), see docs/accuracy_and_limits.md.
MAX_VALUE = 10 ** 400


def _exact(text: str, name: str) -> Fraction:
    v = parse_real(text, name, max_magnitude=MAX_VALUE, example="12, 0.5, 1e6 or 7/3")
    return v


def _run(args) -> int:
    import mpmath

    from ...core.provenance import provenance
    from ...erlang import erlang_b
    if args.C_opt is not None and args.C is not None and args.C_opt != args.C:
        raise CliError(f"C given twice (positional {args.C!r} and --C {args.C_opt!r})")
    if args.a_opt is not None and args.a is not None and args.a_opt != args.a:
        raise CliError(f"a given twice (positional {args.a!r} and --a {args.a_opt!r})")
    C_text = args.C if args.C is not None else args.C_opt
    a_text = args.a if args.a is not None else args.a_opt
    if C_text is None or a_text is None:
        raise CliError("give C and a, e.g. `symloss erlang 100 80` or `symloss erlang --C 100 --a 80`")
    C, a = _exact(C_text, "C"), _exact(a_text, "a")
    if C < 0:
        raise CliError(f"C must be a real number >= 0 (number of channels), got {C_text!r}")
    if a <= 0:
        raise CliError(f"a must be a real number > 0 (offered load), got {a_text!r}")
    dps = parse_dps(args.dps)
    outs = outputs(args, "json")
    if C.denominator == 1:
        C = int(C)
    v = erlang_b(C, a, dps=dps)
    if args.log or args.log10:
        with mpmath.workdps(dps + 20):
            lv = mpmath.log(v) if args.log else mpmath.log10(v)
        text = mpmath.nstr(lv, dps)
    else:
        text = mpmath.nstr(v, dps, min_fixed=-4, max_fixed=6)
    if "json" in outs:
        data = {"C": str(C_text), "a": str(a_text), "dps": dps, "E": mpmath.nstr(v, dps)}
        if args.log:
            data["ln_E"] = text
        if args.log10:
            data["log10_E"] = text
        if json_output(outs, data, provenance(dps=dps)):
            return 0
    print(text)
    return 0


def register(sub) -> None:
    p = sub.add_parser(
        "erlang", help="Erlang-B blocking probability E(C, a) to any precision",
        description="Print E(C, a) = a^C e^-a / Gamma(C+1, a) to DPS significant digits (certified by ball "
                    "arithmetic). C and a are read exactly (decimal or p/q); C may be real (incomplete-gamma "
                    "form).")
    p.add_argument("C", nargs="?", help="number of channels, real >= 0 (or --C)")
    p.add_argument("a", nargs="?", help="offered load, real > 0 (or --a)")
    p.add_argument("--C", dest="C_opt", metavar="C", default=None, help="number of channels (same as the positional C)")
    p.add_argument("--a", dest="a_opt", metavar="A", default=None, help="offered load (same as the positional a)")
    p.add_argument("--dps", default="30", help="significant digits, integer in [5, 100000] (default 30)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--log", action="store_true",
                   help="print the natural logarithm ln E(C, a) (as symloss.log_erlang_b does)")
    g.add_argument("--log10", action="store_true", help="print the decimal logarithm log10 E(C, a)")
    add_output(p, "json", "JSON with E (and the log) and the provenance")
    p.set_defaults(func=_run)

