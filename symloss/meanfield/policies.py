"""The policy-name table: one place that maps a policy name to the shipped model it stands for.

Every entry point that takes a policy name (the CLI's ``--policy``, the sweep functions, the finite-N
call forms, the claims registry) resolves it here, so the spellings, the rules on ``d`` and the
error messages are the same everywhere.

Examples
--------
>>> from symloss.meanfield.policies import policy_model, POLICIES
>>> POLICIES
('random', 'retrial', 'power', 'jsq')
>>> policy_model("retrial_of_d", 2, 3)
RetrialOfD(C=2, d=3)
"""
from __future__ import annotations

from .models import JSQ, PowerOfD, RandomRouting, RetrialOfD

__all__ = ["POLICIES", "POLICY_ALIASES", "SAMPLES_SERVERS", "canonical_policy", "policy_model"]

#: The canonical policy names, in the order the CLI and the docs list them.
POLICIES = ("random", "retrial", "power", "jsq")

#: Every accepted spelling (lower case) -> the canonical name.
POLICY_ALIASES = {
    "random": "random", "random_routing": "random", "randomrouting": "random",
    "retrial": "retrial", "retrial_of_d": "retrial", "retrialofd": "retrial",
    "power": "power", "power_of_d": "power", "powerofd": "power",
    "jsq": "jsq",
}

#: Canonical name -> whether the policy takes ``d`` (the number of attempts or samples).
SAMPLES_SERVERS = {"random": False, "retrial": True, "power": True, "jsq": False}

_CLASSES = {"random": RandomRouting, "retrial": RetrialOfD, "power": PowerOfD, "jsq": JSQ}


def canonical_policy(policy, name: str = "policy") -> str:
    """The canonical name of a policy spelling.

    Parameters
    ----------
    policy : str
        A name from :data:`POLICY_ALIASES` (case-insensitive).
    name : str, optional
        The argument name used in the error message.

    Returns
    -------
    str
        One of :data:`POLICIES`.

    Raises
    ------
    TypeError
        If ``policy`` is not a string.
    ValueError
        If ``policy`` is not a known spelling.

    Examples
    --------
    >>> canonical_policy("PowerOfD")
    'power'
    """
    if not isinstance(policy, str):
        raise TypeError(f"{name} must be a string, one of {list(POLICIES)}, got {policy!r}")
    key = policy.lower()
    if key not in POLICY_ALIASES:
        raise ValueError(f"{name} must be one of {list(POLICIES)} (or {sorted(set(POLICY_ALIASES) - set(POLICIES))}), "
                         f"got {policy!r}")
    return POLICY_ALIASES[key]


def policy_model(policy, C, d=None, *, name: str = "policy", d_name: str = "d"):
    """The shipped model a policy name stands for.

    Parameters
    ----------
    policy : str
        A policy name or spelling (:func:`canonical_policy`).
    C : int
        Capacity of a server (checked by the model class).
    d : int or None, optional
        Attempts (``retrial``) or samples (``power``); required for those, must be ``None`` or 1
        for ``random`` and ``jsq``.
    name, d_name : str, optional
        Argument names used in error messages (the CLI passes ``"--policy"`` and ``"--d"``).

    Returns
    -------
    MeanFieldModel
        :class:`~symloss.RandomRouting`, :class:`~symloss.RetrialOfD`, :class:`~symloss.PowerOfD`
        or :class:`~symloss.JSQ`.

    Raises
    ------
    TypeError, ValueError
        For an unknown policy, a missing ``d`` or a ``d`` given to a policy that samples no servers.

    Examples
    --------
    >>> policy_model("power", 3, 2)
    PowerOfD(C=3, d=2)
    >>> policy_model("jsq", 3)
    JSQ(C=3)
    """
    key = canonical_policy(policy, name)
    cls = _CLASSES[key]
    if not SAMPLES_SERVERS[key]:
        if d not in (None, 1):
            raise ValueError(f"{d_name} is not used by {name} {key!r} (it samples no servers); omit it or pass 1, "
                             f"got {d!r}")
        return cls(C)
    if d is None:
        raise ValueError(f"{name} {key!r} needs {d_name} (the number of attempts / samples, an integer >= 1)")
    return cls(C, d)
