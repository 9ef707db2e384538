"""The policy names: the canonical names, their accepted spellings and whether a policy takes ``d``
(data only, no model is imported: the command line builds its parsers from it at startup).
:mod:`symloss.meanfield.policies` maps a name to its shipped model (:func:`~symloss.meanfield.policies.policy_model`).

Examples
--------
>>> from symloss.core.policy_names import POLICIES, canonical_policy
>>> POLICIES
('random', 'retrial', 'power', 'jsq')
>>> canonical_policy("Retrial_of_d")
'retrial'
"""
from __future__ import annotations

__all__ = ["POLICIES", "POLICY_ALIASES", "SAMPLES_SERVERS", "canonical_policy"]

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


def canonical_policy(policy, name: str = "policy") -> str:
    """The canonical name of a policy spelling.

    Parameters
    ----------
    policy : str
        A name from ``POLICY_ALIASES`` (case-insensitive).
    name : str, optional
        The argument name used in the error message.

    Returns
    -------
    str
        One of ``POLICIES``.

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
