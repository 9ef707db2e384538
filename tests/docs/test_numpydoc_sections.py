"""numpydoc sections on every public entry point: a docstring (GL08), every parameter documented and no
unknown one (PR01, PR02), a Returns section for functions (RT01) and Examples (EX01), checked with
numpydoc's own validator.

Entry points: the functions and model classes among ``symloss.__all__`` and the public functions of
``symloss.plot``, ``symloss.sweeps`` and ``symloss.core.{provenance,results,latex}``. Result dataclasses
(documented by their Attributes) and exceptions are not entry points.

The model families (``symloss.meanfield``, ``symloss.finite_n``, ``symloss.twoqueue``) and the model API
(``symloss.core.{model,certify,registry,codegen}``) are checked further: every function and class in the
``__all__`` of their modules, every public method of their classes (a method without a docstring of its
own must override a documented one), and, for their ``symloss.X`` entry points, References and Raises
sections.

Every non-private module of ``symloss.core``, ``symloss.meanfield`` and ``symloss.erlang`` (found with
``pkgutil``, so a new module is checked without being listed) gets the same module-by-module check
(GL08, PR01, PR02, RT01); a module without ``__all__`` is checked on its public names (those not starting
with ``_``), as ``tests/architecture/rules.py`` counts them. Examples (EX01) are required of the
functions of the modules listed in ``EXAMPLE_MODULES`` only."""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")
from numpydoc.docscrape import ClassDoc, FunctionDoc  # noqa: E402

import symloss  # noqa: E402

PHASE2 = ("symloss.meanfield", "symloss.finite_n", "symloss.twoqueue")
EXTRA_MODULES = ["symloss.plot", "symloss.sweeps", "symloss.core.provenance", "symloss.core.results",
                 "symloss.core.latex"]
# every module of the model families and of the model API whose __all__ is checked in full, Examples included
EXAMPLE_MODULES = ["symloss.meanfield.models", "symloss.meanfield.compare", "symloss.meanfield.series",
                  "symloss.meanfield.elimination", "symloss.meanfield.accelerators",
                  "symloss.finite_n.chain", "symloss.finite_n.common", "symloss.finite_n.exact",
                  "symloss.finite_n.generated", "symloss.finite_n.refined", "symloss.finite_n.simulate",
                  "symloss.finite_n.threshold",
                  "symloss.twoqueue.jsq", "symloss.twoqueue.definition", "symloss.twoqueue.kernels",
                  "symloss.twoqueue.solvers", "symloss.twoqueue.levels", "symloss.twoqueue.asymptotic",
                  "symloss.twoqueue.derivation", "symloss.twoqueue.series",
                  "symloss.core.model", "symloss.core.certify", "symloss.core.registry", "symloss.core.codegen",
                  "symloss.core.results"]
# packages every non-private module of which is checked too (GL08, PR01, PR02, RT01; no EX01)
DISCOVERED_PACKAGES = ("symloss.core", "symloss.meanfield", "symloss.erlang")


def _discovered_modules() -> list[str]:
    """Every module of :data:`DISCOVERED_PACKAGES` (the packages themselves included) with no
    ``_``-prefixed part in its dotted name."""
    out = []
    for info in pkgutil.walk_packages(symloss.__path__, "symloss."):
        name = info.name
        if not (name in DISCOVERED_PACKAGES or name.startswith(tuple(p + "." for p in DISCOVERED_PACKAGES))):
            continue
        if any(part.startswith("_") for part in name.split(".")[1:]):
            continue
        out.append(name)
    return sorted(out)


DISCOVERED_MODULES = _discovered_modules()
FAMILY_MODULES = EXAMPLE_MODULES + [m for m in DISCOVERED_MODULES if m not in EXAMPLE_MODULES]


def _entry_points():
    seen = {}
    for name in sorted(symloss.__all__):
        if name == "__version__":
            continue
        obj = getattr(symloss, name)
        seen[name] = obj
    for modname in EXTRA_MODULES:
        mod = importlib.import_module(modname)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if name.startswith("_"):
                continue
            seen[f"{modname}.{name}"] = obj
    out = []
    for label, obj in seen.items():
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if inspect.isclass(obj) and (dataclasses.is_dataclass(obj) or issubclass(obj, BaseException)):
            continue
        out.append((label, obj))
    return out


def _validate(path: str, wanted: set) -> list[str]:
    res = numpydoc_validate.validate(path)
    return [f"{code}: {msg}" for code, msg in res["errors"] if code in wanted]


def _problems(obj) -> list[str]:
    wanted = {"GL08", "PR01", "PR02"}
    if inspect.isfunction(obj):
        wanted |= {"RT01", "EX01"}
    return _validate(f"{obj.__module__}.{obj.__qualname__}", wanted)


ENTRY = _entry_points()
PHASE1 = [(lbl, o) for lbl, o in ENTRY if not o.__module__.startswith(PHASE2)]
LATER = [(lbl, o) for lbl, o in ENTRY if o.__module__.startswith(PHASE2)]


@pytest.mark.parametrize("label,obj", PHASE1, ids=[lbl for lbl, _ in PHASE1])
def test_entry_point_has_numpydoc_sections(label, obj):
    problems = _problems(obj)
    assert not problems, f"{label}: " + "; ".join(problems)


def test_phase2_entry_points_have_numpydoc_sections():
    bad = {lbl: _problems(o) for lbl, o in LATER}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, "\n".join(f"{k}: {v}" for k, v in sorted(bad.items()))


def test_the_entry_point_list_is_not_empty():
    assert len(PHASE1) >= 30 and len(LATER) >= 8
    labels = {lbl for lbl, _ in PHASE1}
    assert {"erlang_b", "sweep", "symloss.plot.blocking_ratio", "OverloadedLossNetwork"} <= labels
    later = {lbl for lbl, _ in LATER}
    assert {"dominance", "finite_n_chain", "TwoQueueJSQ", "crossing_loads", "simulate"} <= later


# ------------------------------------------------------------------------------------------------
# the model families and the model API, module by module
# ------------------------------------------------------------------------------------------------

def _documented_in_a_base(cls, name) -> bool:
    for base in cls.__mro__[1:]:
        member = vars(base).get(name)
        if member is not None and getattr(inspect.unwrap(getattr(member, "__func__", member)), "__doc__", None):
            return True
    return False


def _public_names(mod) -> list[str]:
    """``__all__``, or (a module without one) every name of the module not starting with ``_``."""
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in vars(mod) if not n.startswith("_")]
    return list(names)


def _family_items_by_module():
    """``{module: [(path, wanted codes)]}`` of every function, class and public method defined in
    each family module."""
    by_module = {}
    for modname in FAMILY_MODULES:
        items = {}
        mod = importlib.import_module(modname)
        fn_codes = {"GL08", "PR01", "PR02", "RT01"} | ({"EX01"} if modname in EXAMPLE_MODULES else set())
        for name in _public_names(mod):
            obj = getattr(mod, name)
            if getattr(obj, "__module__", None) != modname:      # re-exports are checked where defined
                continue
            path = f"{modname}.{name}"
            if inspect.isfunction(obj):
                items[path] = set(fn_codes)
            elif inspect.isclass(obj):
                if issubclass(obj, BaseException) or dataclasses.is_dataclass(obj):
                    items[path] = {"GL08"}
                else:
                    items[path] = {"GL08", "PR01", "PR02"}
                for attr, member in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    fn = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
                    if isinstance(member, property):
                        if not member.__doc__:
                            items[f"{path}.{attr}"] = {"GL08"}
                        continue
                    if not inspect.isfunction(fn):
                        continue
                    if not fn.__doc__ and _documented_in_a_base(obj, attr):
                        continue                                   # autodoc shows the inherited docstring
                    items[f"{path}.{attr}"] = {"GL08", "PR01", "PR02", "RT01"}
        by_module[modname] = sorted(items.items())
    return by_module


def _family_items():
    """(path, wanted codes) of every function, class and public method of the family modules."""
    return sorted(item for items in _family_items_by_module().values() for item in items)


FAMILY_BY_MODULE = _family_items_by_module()
FAMILY = sorted(item for items in FAMILY_BY_MODULE.values() for item in items)


def test_the_family_list_covers_the_modules():
    paths = [p for p, _ in FAMILY]
    assert len(paths) > 200
    for must in ("symloss.core.model.MeanFieldModel.fixed_point", "symloss.core.model.MeanFieldModel.enclose",
                 "symloss.twoqueue.jsq.TwoQueueJSQ.stationary_distribution",
                 "symloss.finite_n.chain.FiniteNChain.rate_matrix", "symloss.meanfield.compare.dominance",
                 "symloss.twoqueue.asymptotic.asymptotic_law", "symloss.core.certify.enclose"):
        assert must in paths, must


def test_the_discovered_modules_cover_core_meanfield_erlang():
    assert len(DISCOVERED_MODULES) > 60
    for must in ("symloss.core.cli_grammar", "symloss.core.precision", "symloss.core.registry",
                 "symloss.meanfield.taylor", "symloss.meanfield.psi", "symloss.erlang.balls"):
        assert must in DISCOVERED_MODULES, must
    assert not any(part.startswith("_") for m in DISCOVERED_MODULES for part in m.split(".")[1:])
    paths = {p for p, _ in FAMILY}
    for must in ("symloss.core.cli_grammar.parse_range", "symloss.core.precision.check_dps",
                 "symloss.meanfield.taylor.ExactTM.scaled_range", "symloss.meanfield.psi.psi_tm"):
        assert must in paths, must
    # Examples are required only of the modules listed in EXAMPLE_MODULES
    codes = dict(FAMILY)
    assert "EX01" in codes["symloss.meanfield.compare.dominance"]
    assert "EX01" not in codes["symloss.core.cli_grammar.parse_range"]


@pytest.mark.parametrize("modname", FAMILY_MODULES)
def test_family_module_has_numpydoc_sections(modname):
    bad = {}
    for path, wanted in FAMILY_BY_MODULE[modname]:
        problems = _validate(path, wanted)
        if problems:
            bad[path] = problems
    assert not bad, "\n".join(f"{k}: {v}" for k, v in sorted(bad.items()))


def _model_api_entry_points():
    out = []
    for lbl, obj in ENTRY:
        mod = obj.__module__
        if mod.startswith(PHASE2) or mod == "symloss.core.model":
            out.append((lbl, obj))
    return out


@pytest.mark.parametrize("label,obj", _model_api_entry_points(), ids=[lbl for lbl, _ in _model_api_entry_points()])
def test_family_entry_point_has_references_and_raises(label, obj):
    """Each ``symloss.X`` of the model families names its source (References) and, when it takes
    arguments, the errors it raises (Raises)."""
    doc = FunctionDoc(obj) if inspect.isfunction(obj) else ClassDoc(obj)
    takes_args = bool(inspect.signature(obj).parameters)
    missing = [s for s in ("References", "Examples") if not doc[s]]
    if takes_args and not doc["Raises"]:
        missing.append("Raises")
    assert not missing, f"{label}: no {', '.join(missing)} section"
