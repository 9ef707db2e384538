"""``__test__`` tables: the doctests of code moved out of a module keep running under the old module's
name (``doctest.testmod(old_module)`` finds only what the module itself defines). Used by the modules
that re-export what they used to define (``chain``, ``simulate``, ``refined``, ``rational``).
"""
from __future__ import annotations

import inspect


def doctest_table(*modules) -> dict:
    """The objects with doctests that ``modules`` define (functions, classes, their methods and
    properties, the module docstrings), as a ``__test__`` mapping.

    Parameters
    ----------
    *modules : module
        The modules the code moved to.

    Returns
    -------
    dict
        ``{name: object or docstring}``.
    """
    out = {}
    for mod in modules:
        short = mod.__name__.rpartition(".")[2]
        if mod.__doc__ and ">>>" in mod.__doc__:
            out[short] = mod.__doc__
        for name, obj in vars(mod).items():
            if getattr(obj, "__module__", None) != mod.__name__ or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if obj.__doc__ and ">>>" in obj.__doc__:
                out[f"{short}.{name}"] = obj.__doc__
            if not inspect.isclass(obj):
                continue
            for attr, member in vars(obj).items():
                fn = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
                if inspect.isfunction(fn) and fn.__doc__ and ">>>" in fn.__doc__:
                    out[f"{short}.{name}.{attr}"] = fn.__doc__
    return out
