"""The policy-name table: one place that maps a policy name to the shipped model it stands for (the
names themselves, data only, are :mod:`symloss.core.policy_names`).

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

from ..core.policy_names import POLICIES, POLICY_ALIASES, SAMPLES_SERVERS, canonical_policy
from .models import JSQ, PowerOfD, RandomRouting, RetrialOfD

__all__ = ["POLICIES", "POLICY_ALIASES", "SAMPLES_SERVERS", "POLICY_CLASSES", "canonical_policy", "policy_model"]

#: Canonical name -> the shipped model class (:func:`policy_model` looks the class up here at call time).
POLICY_CLASSES = {"random": RandomRouting, "retrial": RetrialOfD, "power": PowerOfD, "jsq": JSQ}
_CLASSES = POLICY_CLASSES


def policy_model(policy, C, d=None, *, name: str = "policy", d_name: str = "d"):
    """The shipped model a policy name stands for.

    Parameters
    ----------
    policy : str
        A policy name or spelling (``canonical_policy``).
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
    cls = POLICY_CLASSES[key]
    if not SAMPLES_SERVERS[key]:
        if d not in (None, 1):
            raise ValueError(f"{d_name} is not used by {name} {key!r} (it samples no servers); omit it or pass 1, "
                             f"got {d!r}")
        return cls(C)
    if d is None:
        raise ValueError(f"{name} {key!r} needs {d_name} (the number of attempts / samples, an integer >= 1)")
    return cls(C, d)
