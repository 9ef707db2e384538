"""Regenerate the notebooks and store them executed (outputs and figures inline), the one documented way.

Usage (from the repository root or anywhere)::

    python notebooks/build.py                       # every notebook: regenerate, execute, write in place
    python notebooks/build.py retrial_vs_power      # one (or several) by name
    python notebooks/build.py --check               # only check that the stored notebooks are current
    python notebooks/build.py --docs-figures        # also copy the figures the docs show to docs/figures
    python notebooks/build.py --size paper --output /tmp/paper   # paper size, stored notebooks untouched

For each notebook: the cells come from its generator ``make_<name>.py`` when it has one (else from the
stored notebook, outputs stripped), are executed with nbclient in ``notebooks/`` (kernel ``python3``) at
the stored size (``SYMLOSS_NOTEBOOK_SIZE`` unset: each notebook runs in a few minutes; ``--size paper``
runs the paper-size parameters each notebook names, ``--size small`` the test suite's), with a budget per
notebook (``--timeout``, default :data:`BUDGET` seconds; over it the build fails and the stored file is
left alone), and written back in place. The kernel gets ``JPY_SESSION_NAME=notebooks/<name>.ipynb``, so
the provenance of every figure and file the notebook writes names the notebook
(:func:`symloss.core.provenance.provenance_source`).

Figures go to ``symloss.plot.figure_dir()`` of the kernel: ``$SYMLOSS_FIGURE_DIR`` if set, else
``notebooks/symloss-figures/`` (git-ignored). Executing a notebook never writes ``docs/figures``; only
``--docs-figures`` does, copying the files named in :data:`DOCS_FIGURES` from the figure directory.

``tests/docs/test_notebooks_current.py`` checks, without executing anything, what :func:`problems`
reports: every code cell has outputs, no output is an error, and a generated notebook's cells are what
its generator writes now.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import signal
import sys
import time
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: notebook name -> its generator (None: the stored notebook is the source)
NOTEBOOKS = {
    "retrial_vs_power": "make_retrial_vs_power.py",
    "define_your_own_policy": "make_define_your_own_policy.py",
    "jsq_erlang_loss": "make_jsq_erlang_loss.py",
    "supermarket_graphs": "make_supermarket_graphs.py",
    "load_balancing_policies": "make_load_balancing_policies.py",
    "finite_n": None,
    "admission_lookahead": None,
}

#: seconds each notebook may take at the stored size
BUDGET = 600

#: the figures the documentation shows (docs/*.md), copied to docs/figures by --docs-figures
DOCS_FIGURES = (
    "admission_regret_decomposition.pdf", "admission_regret_decomposition.png",
    "supermarket_degree.pdf", "supermarket_degree.png", "supermarket_distance.pdf", "supermarket_distance.png",
    "supermarket_ode.pdf", "supermarket_ode.png", "supermarket_tails.pdf", "supermarket_tails.png",
    "twoqueue_14ltalt12.png", "twoqueue_aeq12.png", "twoqueue_aeq14.png", "twoqueue_agt12.png",
    "twoqueue_alt14.png", "twoqueue_quarter_boundary.png",
)


def notebook_path(name: str) -> Path:
    """The stored notebook ``notebooks/<name>.ipynb``."""
    return HERE / f"{name}.ipynb"


def _generator(name: str):
    spec = importlib.util.spec_from_file_location(f"_symloss_nb_{name}", HERE / NOTEBOOKS[name])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def source_notebook(name: str) -> nbformat.NotebookNode:
    """The notebook to execute: its generator's cells, else the stored cells, without outputs."""
    if NOTEBOOKS[name] is not None:
        nb = _generator(name).build()
    else:
        nb = nbformat.read(str(notebook_path(name)), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        cell.metadata.pop("execution", None)
    nb.metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"})
    return nb


def problems(name: str) -> list[str]:
    """What is not current in the stored notebook ``name`` (empty list: current).

    Every code cell must have outputs, none may be an error, and a generated notebook's cell sources
    (and cell types) must equal what its generator writes now.
    """
    out = []
    path = notebook_path(name)
    if not path.exists():
        return [f"{path.name} does not exist"]
    nb = nbformat.read(str(path), as_version=4)
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        out.append(f"{path.name} is not a valid notebook: {exc}")
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if not cell.get("outputs"):
            out.append(f"{path.name}: code cell {i} has no outputs (run python notebooks/build.py {name})")
        for o in cell.get("outputs", []):
            if o.get("output_type") == "error":
                out.append(f"{path.name}: code cell {i} has an error output: {o.get('ename')}: {o.get('evalue')}")
    if NOTEBOOKS[name] is not None:
        want = [(c.cell_type, c.source) for c in _generator(name).build().cells]
        have = [(c.cell_type, c.source) for c in nb.cells]
        if want != have:
            first = next((i for i, (a, b) in enumerate(zip(want, have)) if a != b), min(len(want), len(have)))
            out.append(f"{path.name}: cells differ from {NOTEBOOKS[name]} from cell {first} on "
                       f"(run python notebooks/build.py {name})")
    return out


class _Budget(Exception):
    pass


def _alarm(signum, frame):
    raise _Budget()


def execute(name: str, *, budget: int = BUDGET, size: str | None = None, output: Path | None = None) -> float:
    """Regenerate and execute ``name``, write it in place (or into the directory ``output``); returns the
    seconds it took."""
    from nbclient import NotebookClient

    nb = source_notebook(name)
    env_keep = {k: os.environ.get(k) for k in ("JPY_SESSION_NAME", "SYMLOSS_NOTEBOOK_SIZE", "SYMLOSS_NOTEBOOK_SMALL",
                                               "MPLBACKEND", "SYMLOSS_FIGURE_DIR")}
    os.environ["JPY_SESSION_NAME"] = f"notebooks/{name}.ipynb"
    os.environ.pop("SYMLOSS_NOTEBOOK_SMALL", None)
    os.environ.pop("MPLBACKEND", None)             # the inline backend: figures stored in the notebook
    if size in (None, "docs"):
        os.environ.pop("SYMLOSS_NOTEBOOK_SIZE", None)
    else:
        os.environ["SYMLOSS_NOTEBOOK_SIZE"] = size
    if env_keep["SYMLOSS_FIGURE_DIR"]:
        os.environ["SYMLOSS_FIGURE_DIR"] = str(Path(env_keep["SYMLOSS_FIGURE_DIR"]).resolve())
    t0 = time.perf_counter()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(int(budget))
    try:
        NotebookClient(nb, timeout=int(budget), kernel_name="python3",
                       resources={"metadata": {"path": str(HERE)}}).execute()
    except _Budget:
        raise SystemExit(f"{name}: over its budget of {budget} s; the stored notebook is unchanged") from None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        for k, v in env_keep.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    seconds = time.perf_counter() - t0
    for cell in nb.cells:
        cell.metadata.pop("execution", None)       # timestamps: no diff noise
    nbformat.validate(nb)
    target = notebook_path(name) if output is None else Path(output) / f"{name}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(target))
    return seconds


def figure_dir() -> Path:
    """Where the kernels of this build save figures (their ``symloss.plot.figure_dir()``)."""
    env = os.environ.get("SYMLOSS_FIGURE_DIR")
    return Path(env).resolve() if env else HERE / "symloss-figures"


def copy_docs_figures() -> list[Path]:
    """Copy :data:`DOCS_FIGURES` from :func:`figure_dir` to ``docs/figures`` (the docs build step)."""
    src, dst = figure_dir(), ROOT / "docs" / "figures"
    missing = [n for n in DOCS_FIGURES if not (src / n).exists()]
    if missing:
        raise SystemExit(f"not in {src}: {', '.join(missing)} (build the notebooks first)")
    dst.mkdir(parents=True, exist_ok=True)
    return [Path(shutil.copy2(src / n, dst / n)) for n in DOCS_FIGURES]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", help=f"notebooks (default: all): {', '.join(NOTEBOOKS)}")
    p.add_argument("--timeout", type=int, default=BUDGET, help="seconds per notebook (default %(default)s)")
    p.add_argument("--size", choices=("docs", "small", "paper"), default="docs",
                   help="the notebooks' parameters (default: docs, the stored run)")
    p.add_argument("--check", action="store_true", help="only report what is not current; execute nothing")
    p.add_argument("--docs-figures", action="store_true", help="copy the figures the docs show to docs/figures")
    p.add_argument("--output", metavar="DIR", default=None,
                   help="write the executed notebooks into DIR instead of in place (e.g. a paper-size run "
                        "that leaves the stored notebooks alone)")
    args = p.parse_args(argv)
    bad = [n for n in args.names if n not in NOTEBOOKS]
    if bad:
        p.error(f"unknown notebook {bad[0]!r}; valid: {', '.join(NOTEBOOKS)}")
    if args.timeout <= 0:
        p.error(f"--timeout must be > 0 seconds, got {args.timeout}")
    names = args.names or list(NOTEBOOKS)
    if args.check:
        found = [msg for n in names for msg in problems(n)]
        print("\n".join(found) if found else f"{len(names)} notebooks current")
        return 1 if found else 0
    for n in names:
        secs = execute(n, budget=args.timeout, size=args.size, output=args.output)
        where = notebook_path(n).relative_to(ROOT) if args.output is None else Path(args.output) / f"{n}.ipynb"
        print(f"{n}: executed in {secs:.0f} s -> {where}", flush=True)
    if args.docs_figures:
        for path in copy_docs_figures():
            print(f"copied {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
