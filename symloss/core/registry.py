"""Accelerators: fast, hand-written solvers registered *outside* the model classes, keyed by model
type (as SymPy registers its numeric samplers outside its distributions).

An accelerator is an object with

* ``name`` (str);
* ``applies(model) -> (bool, reason)``: whether this *definition* is the system the accelerator
  solves (an exact SymPy identity of the stationary equations, the invariants and the blocking with
  the accelerator's own template; cached per definition);
* ``solve(model, rho, dps, residual) -> FixedPointResult`` with its own certificate, and the state
  at the working precision in ``extra["_x_work"]``;
* ``verify(model, result, dps) -> (bool, reason)``: the answer checked on the definition's own
  compiled equations (ball residual);
* ``warn_on_mismatch(model) -> bool``;
* optionally ``float_log_blocking(model, rho) -> float`` (fast scans).

:func:`accelerator_for` walks the model's MRO, so a subclass of a shipped policy that changes a rate
finds its parent's accelerator, fails ``applies`` and is solved by the generic certified solver.
"""
from __future__ import annotations

__all__ = ["register_accelerator", "accelerator_for", "registered_accelerators"]

_ACCELERATORS: dict = {}


def register_accelerator(model_class, accelerator) -> None:
    """Register ``accelerator`` for models of class ``model_class`` (and its subclasses).

    Parameters
    ----------
    model_class : type
        A :class:`~symloss.MeanFieldModel` subclass.
    accelerator : object
        An object with ``name``, ``applies(model)``, ``solve(model, rho, dps, residual)``,
        ``verify(model, result, dps)`` and ``warn_on_mismatch(model)`` (module docstring).

    Returns
    -------
    None

    See Also
    --------
    accelerator_for, symloss.meanfield.accelerators

    Examples
    --------
    >>> from symloss import PowerOfD
    >>> from symloss.core.registry import accelerator_for
    >>> accelerator_for(PowerOfD(2, 2)).name
    'shooting'
    """
    from .model import MeanFieldModel
    if not (isinstance(model_class, type) and issubclass(model_class, MeanFieldModel)):
        raise TypeError(f"model_class must be a MeanFieldModel subclass, got {model_class!r}")
    missing = [a for a in ("name", "applies", "solve", "verify", "warn_on_mismatch") if not hasattr(accelerator, a)]
    if missing:
        raise TypeError(f"accelerator must have name, applies, solve, verify and warn_on_mismatch; "
                        f"{type(accelerator).__name__} lacks {missing}")
    _ACCELERATORS[model_class] = accelerator


def accelerator_for(model):
    """The accelerator registered for the nearest class in ``type(model).__mro__``, or ``None``.

    Parameters
    ----------
    model : MeanFieldModel
        The model.

    Returns
    -------
    object or None

    Examples
    --------
    >>> from symloss import RandomRouting, define_model
    >>> from symloss.core.registry import accelerator_for
    >>> accelerator_for(RandomRouting(2)).name        # found on the parent class RetrialOfD
    'Erlang-B reduction'
    """
    for cls in type(model).__mro__:
        acc = _ACCELERATORS.get(cls)
        if acc is not None:
            return acc
    return None


def registered_accelerators() -> dict:
    """A copy of the registry.

    Returns
    -------
    dict
        Model class -> accelerator.

    Examples
    --------
    >>> from symloss.core.registry import registered_accelerators
    >>> sorted(cls.__name__ for cls in registered_accelerators())
    ['JSQ', 'PowerOfD', 'RetrialOfD']
    """
    return dict(_ACCELERATORS)
