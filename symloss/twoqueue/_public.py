"""Where a moved object is documented: its public module.

The solvers of :mod:`symloss.twoqueue` live in modules by subsystem; the objects users import keep
their old public path (``symloss.twoqueue.jsq``, ``.asymptotic``, ``.derivation``), re-exported from
it. :func:`public_home` records that path as the object's ``__module__`` (as NumPy's ``set_module``
does), so the API reference documents it there once, its doctests run with that module and it pickles
by that path.
"""
from __future__ import annotations

import inspect

__all__ = ["public_home"]


def public_home(module: str):
    """Decorator: set ``__module__`` of a function or class (and of the methods and properties written
    in the class) to ``module``, the public path the object is re-exported from.

    Parameters
    ----------
    module : str
        The public module, e.g. ``"symloss.twoqueue.jsq"``; it must re-export the object.

    Returns
    -------
    callable
        The decorator (returns its argument, re-homed).

    Examples
    --------
    >>> from symloss.twoqueue._public import public_home
    >>> @public_home("symloss.twoqueue.jsq")
    ... def f():
    ...     pass
    >>> f.__module__
    'symloss.twoqueue.jsq'
    """
    def deco(obj):
        old = obj.__module__
        obj.__module__ = module
        if inspect.isclass(obj):
            for value in vars(obj).values():
                for f in (value, getattr(value, "__func__", None), getattr(value, "fget", None)):
                    if f is not None and (inspect.isfunction(f) or inspect.isclass(f)) \
                            and getattr(f, "__module__", None) == old:
                        f.__module__ = module
        return obj
    return deco
