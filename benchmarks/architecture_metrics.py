"""The figures of issue 22 (one mechanism per idea), measured from the source tree.

    python benchmarks/architecture_metrics.py [--list]

Prints: import cycles, imports against the room order, own-module imports inside function bodies
(the CLI's lazy imports excepted), modules over 700 lines, duplicate pairs (the ``duplicates`` tool,
within ``symloss/`` plus within ``proofs_check/``) and numpydoc ``Parameters`` coverage of public
functions and methods that take arguments. The targets of the issue are printed beside each figure.
"""
from __future__ import annotations

import collections
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

from architecture import rules  # noqa: E402


def main(argv=None) -> int:
    show = "--list" in (argv if argv is not None else sys.argv[1:])
    cyc = rules.cycles()
    print(f"import cycles: {len(cyc)} (target 0)")
    for c in cyc:
        print("   ", " <-> ".join(c))
    bad = rules.forbidden_imports()
    print(f"imports against the room order: {len(bad)} (target 0)")
    for a, b, line, text in bad:
        print(f"    {a}:{line} -> {b}: {text}")
    fi = rules.function_imports()
    print(f"own-module imports inside functions (CLI excepted): {len(fi)} (target <= 40)")
    if show:
        for mod, n in collections.Counter(m for m, _, _ in fi).most_common():
            print(f"    {n:4d}  {mod}")
    long = rules.long_modules()
    print(f"modules over 700 lines: {len(long)} (target <= 5)")
    for n, p in long:
        print(f"    {n:5d}  {p}")
    dup = rules.duplicate_pairs()
    if dup is None:
        print("duplicate pairs: the duplicates tool is not installed")
    else:
        print(f"duplicate pairs (symloss/ + proofs_check/): {dup[0]} (target <= 30), of which {dup[1]} share "
              f"docstring text only and {dup[0] - dup[1]} share code")
    doc, tot, missing = rules.numpydoc_parameters_coverage()
    print(f"numpydoc Parameters: {doc}/{tot} = {100 * doc / tot:.1f} % (target >= 90 %)")
    if show:
        for m in missing:
            print("    missing:", m)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
