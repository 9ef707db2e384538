"""Named sweep functions (``blocking``, ``threshold``, ``simulate``, ...) and resolving a function
by name or import path.

Policy names resolve through the one policy table, :mod:`symloss.meanfield.policies`
(:func:`~symloss.meanfield.policies.policy_model`). A name of :data:`FUNCTIONS` is looked up by its
public name in the ``symloss`` namespace at call time (``importlib``, as every ``"module:function"``
path is), so a replaced ``symloss.X`` is the object a sweep calls.
"""
from __future__ import annotations

import importlib
import inspect

from ..admission.network import OverloadedLossNetwork
from ..meanfield.policies import POLICY_ALIASES, SAMPLES_SERVERS, policy_model

# ------------------------------------------------------------------------------------------------
# named functions
# ------------------------------------------------------------------------------------------------

def _policy(policy: str, C, d=None):
    """``Policy(C[, d])`` for a policy spelling of :data:`~symloss.meanfield.policies.POLICY_ALIASES`
    (:func:`~symloss.meanfield.policies.policy_model`, the one policy-name table)."""
    if not isinstance(policy, str) or policy.lower() not in POLICY_ALIASES:
        raise ValueError(f"policy must be one of {sorted(POLICY_ALIASES)}, got {policy!r}")
    key = POLICY_ALIASES[policy.lower()]
    if key == "random" and d not in (None, 1):
        raise ValueError(f"random routing samples d = 1 server, got d={d!r}")
    if SAMPLES_SERVERS[key] and d is None:
        raise ValueError(f"policy {policy!r} needs d")
    return policy_model(key, C, d if SAMPLES_SERVERS[key] else None)


def blocking(policy: str, C, rho, d=None, dps: int = 30):
    """Mean-field blocking of a policy at load ``rho``: ``Policy(C[, d]).blocking(rho, dps=dps)``.

    Parameters
    ----------
    policy : {"random", "retrial", "power", "jsq"}
        The names of :func:`symloss.simulate`; the classes are :class:`symloss.RandomRouting`,
        :class:`symloss.RetrialOfD`, :class:`symloss.PowerOfD` and :class:`symloss.JSQ`.
    C : int
        Capacity of each server.
    rho : real > 0
        Load per server.
    d : int, optional
        Attempts (retrial) or samples (power); required for those two.
    dps : int
        Significant digits.

    Returns
    -------
    mpmath.mpf
        The certified mean-field blocking.

    Examples
    --------
    >>> import mpmath
    >>> mpmath.nstr(blocking("random", 2, 1, dps=10), 10)      # E(2, 1) = 1/5
    '0.2'
    """
    return _policy(policy, C, d).blocking(rho, dps=dps)


def fixed_point(policy: str, C, rho, d=None, dps: int = 30):
    """Mean-field fixed point of a policy: ``Policy(C[, d]).fixed_point(rho, dps=dps)``.

    Parameters
    ----------
    policy, C, rho, d, dps :
        As in :func:`blocking`.

    Returns
    -------
    FixedPointResult
        Stored in a sweep through its ``to_dict()``.

    Examples
    --------
    >>> import mpmath
    >>> mpmath.nstr(fixed_point("retrial", 2, 1, d=2, dps=20).blocking, 20)   # (2^(1/3) - 1)^2
    '0.067558952178453145217'
    """
    return _policy(policy, C, d).fixed_point(rho, dps=dps)


def admission(N, lam_H, lam_L, r_H, r_L, mu=1.0, quantity: str = "online_optimal", **kwargs):
    """One quantity of the overloaded loss network with admission control (Bray 2026).

    Builds ``symloss.OverloadedLossNetwork(N, lam_H, lam_L, r_H, r_L, mu)`` and returns
    ``getattr(network, quantity)(**kwargs)``.

    Parameters
    ----------
    N, lam_H, lam_L, r_H, r_L, mu :
        The network (see :class:`symloss.OverloadedLossNetwork`).
    quantity : str
        A public method: ``"online_optimal"`` (default), ``"fluid_reward"``, ``"trunk_reservation"``
        (with ``K=...``), ``"decomposition"`` (with ``horizon=``, ``replications=``, ``seed=``), ...
    **kwargs
        The method's arguments.

    Returns
    -------
    object
        What the method returns (a result object, stored through its ``to_dict()``).

    Examples
    --------
    >>> admission(10, 0.5, 1.0, 2.0, 1.0, quantity="fluid_reward")
    15.0
    """
    net = OverloadedLossNetwork(N, lam_H, lam_L, r_H, r_L, mu=mu)
    if not isinstance(quantity, str) or quantity.startswith("_"):
        raise ValueError(f"quantity must name a public method of OverloadedLossNetwork, got {quantity!r}")
    attr = getattr(net, quantity, None)
    if attr is None:
        raise ValueError(f"OverloadedLossNetwork has no quantity {quantity!r}")
    return attr(**kwargs) if callable(attr) else attr


#: Names usable in ``sweep("name", ...)`` and in a TOML spec's ``function``: name -> "module:qualname".
#: Any public name of :mod:`symloss` and any ``"package.module:function"`` path also work.
FUNCTIONS = {
    "erlang": "symloss:erlang_b",
    "erlang_b": "symloss:erlang_b",
    "erlang_b_float": "symloss:erlang_b_float",
    "log_erlang_b": "symloss:log_erlang_b",
    "erlang_capacity": "symloss:erlang_b_capacity",
    "erlang_load": "symloss:erlang_b_load",
    "threshold": "symloss:threshold_load",
    "threshold_load": "symloss:threshold_load",
    "crossing": "symloss:crossing_loads",
    "crossing_loads": "symloss:crossing_loads",
    "blocking": "symloss.sweeps.functions:blocking",
    "fixed_point": "symloss.sweeps.functions:fixed_point",
    "simulate": "symloss:simulate",
    "simulation": "symloss:simulate",
    "exact_finite_n": "symloss:exact_finite_n",
    "finite_n_threshold": "symloss:finite_n_threshold",
    "refined_mean_field": "symloss:refined_mean_field",
    "jsq_regime": "symloss:jsq_regime",
    "supermarket": "symloss:simulate_supermarket",
    "simulate_supermarket": "symloss:simulate_supermarket",
    "pair_approximation": "symloss:pair_approximation",
    "admission": "symloss.sweeps.functions:admission",
    "admission_study": "symloss.sweeps.functions:admission",
}


def _import_path(path: str):
    if ":" in path:
        mod, _, qual = path.partition(":")
    elif "." in path:
        mod, _, qual = path.rpartition(".")
    else:
        raise ValueError(f"unknown function {path!r}: use a name from symloss.sweeps.FUNCTIONS "
                         f"({', '.join(sorted(FUNCTIONS))}), a public symloss name, or 'module:function'")
    try:
        obj = importlib.import_module(mod)
    except ImportError as exc:
        raise ValueError(f"function {path!r}: cannot import module {mod!r} ({exc})") from exc
    for part in qual.split("."):
        try:
            obj = getattr(obj, part)
        except (AttributeError, ImportError) as exc:
            raise ValueError(f"function {path!r}: {mod!r} has no usable attribute {qual!r} ({exc})") from exc
    if not callable(obj):
        raise TypeError(f"function {path!r} resolves to a non-callable {type(obj).__name__}")
    return obj


def resolve_function(func):
    """The function a sweep calls, and its key in the store.

    Parameters
    ----------
    func : callable or str
        A callable, a name from :data:`FUNCTIONS` (``"threshold"``, ``"blocking"``, ``"simulate"``,
        ``"admission"``, ``"erlang"``, ...), a public name of :mod:`symloss`, or a dotted path
        ``"package.module:function"``. Modules are imported now, at call time.

    Returns
    -------
    (callable, str)
        The function and ``"module:qualname"``.

    Examples
    --------
    >>> resolve_function("math:comb")[1]
    'math:comb'
    """
    if isinstance(func, str):
        if not func.strip():
            raise ValueError("function name must not be empty")
        key = func.strip()
        if key in FUNCTIONS:
            fn = _import_path(FUNCTIONS[key])
        elif ":" not in key and "." not in key:
            if key not in getattr(importlib.import_module("symloss"), "_EXPORTS", {}):
                _import_path(key)  # raises the 'unknown function' error
            fn = _import_path(f"symloss:{key}")
        else:
            fn = _import_path(key)
    elif callable(func):
        fn = func
    else:
        raise TypeError(f"func must be a callable or a function name, got {type(func).__name__} {func!r}")
    return fn, _function_name(fn)


def _function_name(fn) -> str:
    mod = getattr(fn, "__module__", None)
    qual = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if mod is None or qual is None:
        raise TypeError(f"cannot name function {fn!r}: pass name='...' to sweep()")
    return f"{mod}:{qual}"


def _call(fn, params: dict):
    """``fn(**params)``, passing positional-only parameters (e.g. ``math.comb(n, k, /)``) by position."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn(**params)
    args = []
    kwargs = dict(params)
    for p in sig.parameters.values():
        if p.kind is not p.POSITIONAL_ONLY or p.name not in kwargs:
            break
        args.append(kwargs.pop(p.name))
    return fn(*args, **kwargs)


