"""Every public entry point of symloss is probed by the adversarial suite (guards against rot: a name added
to symloss.__all__ without adversarial probes fails here)."""
import importlib
import pathlib

import adversarial_strategies

import symloss

HERE = pathlib.Path(__file__).parent

# constants, exception types and result containers: probed through the functions that return them
NOT_CALLABLE_INPUTS = {"__version__", "DEFAULT_DPS", "PrecisionError", "GRAPH_FAMILIES", "BSYM"}  # BSYM: a SymPy symbol


def test_every_public_name_is_probed():
    for path in sorted(HERE.glob("test_*.py")):
        importlib.import_module(path.stem)          # registers the @covers names
    covered = adversarial_strategies.COVERED
    text = "\n".join(p.read_text() for p in HERE.glob("test_*.py"))
    missing = [n for n in symloss.__all__ if n not in NOT_CALLABLE_INPUTS and n not in covered]
    assert not missing, f"public names without adversarial probes: {missing}"
    for n in symloss.__all__:
        assert n in text or n in NOT_CALLABLE_INPUTS, n


def test_every_cli_subcommand_is_probed():
    from symloss.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    text = (HERE / "test_cli_adversarial.py").read_text()
    for name in sub.choices:
        assert f'"{name}' in text, f"CLI subcommand {name!r} has no adversarial probe"
