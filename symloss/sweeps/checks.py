"""Checking a sweep's grid before the first point runs.

:func:`check_grid` binds every distinct set of parameter names to the function's signature (unknown
names, missing required arguments, positional-only parameters) and, for the functions of
:data:`symloss.sweeps.functions.FUNCTIONS`, checks every distinct parameter value against the range the function
documents (with the library's own validators) and the cross-conditions (``dt > d``, ``d`` with
``policy``, ...). One :class:`GridError` (a ``ValueError``) lists what is wrong; nothing is launched.
"""
from __future__ import annotations

import difflib
import inspect
import json

from ..admission.network import OverloadedLossNetwork
from ..core.precision import check_dps
from ..core.random import seed_sequence
from ..core.validation import check_int, check_real
from ..meanfield.policies import POLICIES, POLICY_ALIASES, SAMPLES_SERVERS
from .functions import FUNCTIONS, resolve_function

__all__ = ["check_grid", "GridError", "signature_text"]

_MAX_REPORTED = 5


class GridError(ValueError):
    """The grid does not fit the function (raised before any point runs)."""


def signature_text(fn) -> str:
    """The call signature without annotations, e.g. ``blocking(policy, C, rho, d=None, dps=30)``.

    Parameters
    ----------
    fn : callable
        The function a sweep maps over the grid, as
        :func:`~symloss.sweeps.functions.resolve_function` returns it.

    Returns
    -------
    str
        Its qualified name and parameters, defaults as their ``repr``, a ``*`` before the keyword-only
        ones; ``name(...)`` when ``inspect.signature`` cannot read the signature (some builtins).
    """
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return f"{name}(...)"
    parts, star = [], False
    for p in sig.parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
            star = True
        elif p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
        else:
            parts.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}")
    return f"{name}({', '.join(parts)})"


# ------------------------------------------------------------------------------------------------
# value checks of the named functions (the ranges their docstrings state; library validators)
# ------------------------------------------------------------------------------------------------

_POLICY_NAMES = POLICIES


def _pos_real(v, name):
    check_real(v, name, lower=0, lower_open=True)


def _nonneg_real(v, name):
    check_real(v, name, lower=0)


def _prob(v, name):
    check_real(v, name, lower=0, upper=1, lower_open=True, upper_open=True)


def _int_range(lo, hi=None):
    def f(v, name):
        check_int(v, name, min_value=lo, max_value=hi)
    return f


def _opt(check):
    def f(v, name):
        if v is not None:
            check(v, name)
    return f


def _choice(choices):
    def f(v, name):
        if v not in choices:
            raise ValueError(f"{name} must be one of {list(choices)}, got {v!r}")
    return f


def _seed(v, name):
    if isinstance(v, list):
        v = tuple(v)
    seed_sequence(v, name)


def _dps(v, name):
    check_dps(v, name)


def _policy_d(p):
    pol, d = p.get("policy"), p.get("d")
    key = POLICY_ALIASES.get(pol.lower()) if isinstance(pol, str) else None
    if key is not None and SAMPLES_SERVERS[key] and d is None:
        raise ValueError(f"policy {pol!r} needs d (attempts / samples, an integer >= 1)")
    if key == "random" and d not in (None, 1):
        raise ValueError(f"policy {pol!r} samples one server: d must be 1 or absent, got d={d!r}")


def _dt_above_d(p):
    d, dt = p.get("d"), p.get("dt")
    if isinstance(d, (int, float)) and isinstance(dt, (int, float)) and dt <= d:
        raise ValueError(f"dt must be > d (got d={d}, dt={dt}): for dt <= d there is no threshold")


def _sim_policy_d(p):
    pol, d = p.get("policy"), p.get("d")
    if pol in ("retrial", "power") and d is None:
        raise ValueError(f"d is required for policy {pol!r}")
    if pol in ("random", "jsq") and d is not None:
        raise ValueError(f"d must be None for policy {pol!r}, got {d!r}")


def _admission_cross(p):
    lam_H, lam_L, mu = p.get("lam_H"), p.get("lam_L"), p.get("mu", 1)
    try:
        lh, ll, m = float(lam_H), float(lam_L), float(mu)
    except (TypeError, ValueError):
        return
    if not lh < m < lh + ll:
        raise ValueError(f"the network must be overloaded with lam_H < mu < lam_H + lam_L, got lam_H={lam_H}, "
                         f"lam_L={lam_L}, mu={mu}")


_MF_POLICY = _choice(tuple(POLICY_ALIASES))

#: name in FUNCTIONS -> ({parameter: check(value, name)}, [cross-checks on the whole point])
_SPECS: dict[str, tuple[dict, list]] = {
    "erlang_b": ({"C": _nonneg_real, "a": _pos_real, "dps": _dps}, []),
    "erlang_b_float": ({"C": _nonneg_real, "a": _pos_real}, []),
    "log_erlang_b": ({"C": _nonneg_real, "a": _pos_real}, []),
    "erlang_capacity": ({"a": _pos_real, "eps": _prob}, []),
    "erlang_load": ({"C": _int_range(1), "eps": _prob, "dps": _dps}, []),
    "threshold_load": ({"C": _int_range(1, 1000), "d": _int_range(1, 64), "dt": _int_range(1, 64), "dps": _dps,
                        "rho_max": _opt(_pos_real)}, [_dt_above_d]),
    "crossing_loads": ({"C": _int_range(1, 1000), "d": _int_range(1, 64), "dt": _int_range(1, 64), "dps": _dps,
                        "rho_min": _pos_real, "rho_max": _opt(_pos_real)}, []),
    "blocking": ({"policy": _MF_POLICY, "C": _int_range(1, 100_000), "d": _opt(_int_range(1, 64)), "rho": _pos_real,
                  "dps": _dps}, [_policy_d]),
    "fixed_point": ({"policy": _MF_POLICY, "C": _int_range(1, 100_000), "d": _opt(_int_range(1, 64)),
                     "rho": _pos_real, "dps": _dps}, [_policy_d]),
    "simulate": ({"policy": _choice(_POLICY_NAMES), "N": _int_range(1), "C": _int_range(1), "rho": _pos_real,
                  "d": _opt(_int_range(1)), "events": _int_range(1), "warmup": _opt(_int_range(0)),
                  "replications": _int_range(1), "seed": _opt(_seed),
                  "sampling": _choice(("with_replacement", "without_replacement"))}, [_sim_policy_d]),
    "exact_finite_n": ({"policy": _choice(_POLICY_NAMES), "N": _int_range(1), "C": _int_range(1), "rho": _pos_real,
                        "d": _opt(_int_range(1))}, [_sim_policy_d]),
    "finite_n_threshold": ({"C": _int_range(1), "d": _int_range(1, 64), "dt": _int_range(1, 64), "N": _int_range(2),
                            "seed": _opt(_seed)}, [_dt_above_d]),
    "refined_mean_field": ({"policy": _choice(_POLICY_NAMES), "rho": _pos_real, "C": _int_range(1),
                            "d": _opt(_int_range(1)), "N": _opt(_int_range(1))}, [_sim_policy_d]),
    "simulate_supermarket": ({"d": _int_range(1), "lam": _prob, "t_end": _pos_real, "seed": _opt(_seed),
                              "N": _opt(_int_range(1)), "k": _opt(_int_range(1))}, []),
    "pair_approximation": ({"k": _int_range(1), "lam": _prob}, []),
    "admission": ({"N": _int_range(2, 100_000), "lam_H": _pos_real, "lam_L": _pos_real, "r_H": _pos_real,
                   "r_L": _pos_real, "mu": _pos_real}, [_admission_cross]),
}
_ALIASES = {"erlang": "erlang_b", "erlang_capacity": "erlang_capacity", "threshold": "threshold_load",
            "crossing": "crossing_loads", "simulation": "simulate", "supermarket": "simulate_supermarket",
            "admission_study": "admission"}


def _spec_for(fn):
    for name in list(_SPECS) + list(_ALIASES):
        key = _ALIASES.get(name, name)
        if name not in FUNCTIONS or key not in _SPECS:
            continue
        try:
            if resolve_function(name)[0] is fn:
                return key, _SPECS[key]
        except (ValueError, TypeError, ImportError):  # pragma: no cover - a module that cannot import
            continue
    return None, None


# ------------------------------------------------------------------------------------------------
# the check
# ------------------------------------------------------------------------------------------------

def _bind_problem(sig: inspect.Signature, names: frozenset, fn) -> str | None:
    params = sig.parameters
    has_var_kw = any(p.kind is p.VAR_KEYWORD for p in params.values())
    accepted = {n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY,
                                                           p.POSITIONAL_ONLY)}
    out = []
    unknown = sorted(n for n in names if n not in accepted)
    if unknown and not has_var_kw:
        parts = []
        for n in unknown:
            hint = difflib.get_close_matches(n, sorted(accepted - names), n=1, cutoff=0.5)
            parts.append(f"{n!r}" + (f" (did you mean {hint[0]!r}?)" if hint else ""))
        out.append(f"grid parameter{'s' if len(unknown) > 1 else ''} {', '.join(parts)} "
                   f"{'are not arguments' if len(unknown) > 1 else 'is not an argument'} of {signature_text(fn)}")
    missing = [n for n, p in params.items()
               if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and n not in names]
    if missing:
        out.append(f"no value for the required argument{'s' if len(missing) > 1 else ''} "
                   f"{', '.join(map(repr, missing))}" + ("" if out else f" of {signature_text(fn)}"))
    return "; ".join(out) or None


def check_grid(fn, points: list[dict], *, func_name: str | None = None) -> None:
    """Raise :class:`GridError` when a point of ``points`` cannot be a valid call of ``fn``.

    Checks, before anything runs: every distinct set of parameter names against ``fn``'s signature;
    for the named symloss functions, every distinct value of every parameter against its documented
    range and every point against the cross-conditions. The error reports the number of bad points,
    the first few problems, and the function's signature.

    Parameters
    ----------
    fn : callable
        The function of the sweep.
    points : list of dict
        The JSON-decoded points (what ``fn`` will receive).
    func_name : str, optional
        The function's key, for the message.

    Raises
    ------
    GridError
        When some point is invalid (nothing has run).

    Examples
    --------
    >>> from symloss.sweeps import grid
    >>> from symloss.sweeps.functions import blocking
    >>> check_grid(blocking, list(grid(policy="power", C=2, d=2, rho=[0.5, 1.0])))
    >>> check_grid(blocking, list(grid(policy="power", C=2, d=2, a=[0.5, 1.0])))
    Traceback (most recent call last):
    ...
    symloss.sweeps.checks.GridError: sweep not started: all 2 points are invalid: grid parameter 'a' is not ...
    """
    if not points:
        return
    problems: dict[str, list] = {}

    def add(msg: str, point: dict) -> None:
        problems.setdefault(msg, []).append(point)

    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        sig = None
    bad_keysets = {}
    if sig is not None:
        for keys in {frozenset(p) for p in points}:
            msg = _bind_problem(sig, keys, fn)
            if msg:
                bad_keysets[keys] = msg
    key, spec = _spec_for(fn)
    value_errors: dict[tuple, str] = {}
    if spec is not None:
        checks, cross = spec
        seen: set = set()
        for p in points:
            for name, value in p.items():
                check = checks.get(name)
                if check is None:
                    continue
                k = (name, json.dumps(value, sort_keys=True, default=str))
                if k in seen:
                    continue
                seen.add(k)
                try:
                    check(value, name)
                except (ValueError, TypeError) as exc:
                    value_errors[k] = f"{exc}"
    n_bad = 0
    for p in points:
        msg = bad_keysets.get(frozenset(p))
        if msg is None and value_errors:
            for name, value in p.items():
                e = value_errors.get((name, json.dumps(value, sort_keys=True, default=str)))
                if e:
                    msg = e
                    break
        if msg is None and spec is not None:
            for c in spec[1]:
                try:
                    c(p)
                except (ValueError, TypeError) as exc:
                    msg = f"{exc}"
                    break
        if msg is None and key == "admission":
            msg = _admission_kwargs(p)
        if msg is not None:
            n_bad += 1
            add(msg, p)
    if not n_bad:
        return
    lines = []
    for msg, pts in list(problems.items())[:_MAX_REPORTED]:
        example = json.dumps(pts[0], sort_keys=True, default=str)
        lines.append(f"{msg} ({len(pts)} point{'s' if len(pts) > 1 else ''}, e.g. {example})")
    more = len(problems) - _MAX_REPORTED
    head = (f"all {len(points)} points are invalid" if n_bad == len(points)
            else f"{n_bad} of {len(points)} points are invalid")
    tail = f"; and {more} more kinds of problem" if more > 0 else ""
    where = f" [function {func_name}]" if func_name else ""
    raise GridError(f"sweep not started: {head}: " + "; ".join(lines) + tail + where)


def _admission_kwargs(p: dict) -> str | None:
    """``admission(..., quantity=..., **kwargs)``: the quantity must be a method and the rest its arguments."""
    q = p.get("quantity", "online_optimal")
    if not isinstance(q, str) or q.startswith("_") or not callable(getattr(OverloadedLossNetwork, q, None)):
        public = sorted(n for n in dir(OverloadedLossNetwork) if not n.startswith("_")
                        and callable(getattr(OverloadedLossNetwork, n)))
        return f"quantity must name a method of OverloadedLossNetwork ({', '.join(public)}), got {q!r}"
    extra = {k for k in p if k not in ("N", "lam_H", "lam_L", "r_H", "r_L", "mu", "quantity")}
    method = getattr(OverloadedLossNetwork, q)
    try:
        sig = inspect.signature(method)
    except (TypeError, ValueError):  # pragma: no cover
        return None
    params = [n for n in sig.parameters if n != "self"]
    if any(sig.parameters[n].kind is inspect.Parameter.VAR_KEYWORD for n in params):
        return None
    unknown = sorted(extra - set(params))
    if unknown:
        return f"{', '.join(map(repr, unknown))} not an argument of OverloadedLossNetwork.{q}{sig}"
    return None
