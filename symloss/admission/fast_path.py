r"""The admission family in the one fast-path registry (:mod:`symloss.core.registry`, family
``"admission"``; registered for :class:`~symloss.admission.network.OverloadedLossNetwork` by
:mod:`symloss.admission.network`).

The hand-written solvers of the network (the online MDP in log space and its bias, the numba
sample-path and offline kernels, ``evaluate``, ``sample_jobs``, the interval LP, ``decomposition``, the
SymPy closed forms) are written for the shipped rule table
(:data:`symloss.admission.definition.RULES`). They share one binding, the fast path
:data:`ONLINE_MDP`:

* ``applies``: the class's rule table is the shipped one (same classes and jumps, rates identical by
  :func:`~symloss.core.registry.same_system`: :func:`symloss.admission.definition.is_shipped`), cached
  by the registry on the rule table itself (:meth:`OnlineMDPFastPath.binding_key`);
* ``solve`` (for :meth:`~symloss.admission.network.OverloadedLossNetwork.online_optimal`): the threshold
  search and policy iteration of :func:`symloss.admission.online.online_optimal`;
* ``verify``: on the definition's own equations, the birth-death chains generated from the rules
  (:func:`symloss.admission.online.trunk_reservation`, which also gives the returned reward): no
  neighbouring threshold has a larger generated reward, and the policy-improvement margin is not
  negative.

An edited rule table has no generic solver for these methods: they raise
:class:`~symloss.core.model.ModelDefinitionError` (``trunk_reservation`` and ``fluid_reward`` are generated
from the rules and follow the edit).
"""
from __future__ import annotations

import mpmath

from ..core.model import ModelDefinitionError
from ..core.registry import FastPath
from . import definition as _definition, online as _online

__all__ = ["ONLINE_MDP", "OnlineMDPFastPath", "refuse"]


class OnlineMDPFastPath(FastPath):
    """The fast paths of the shipped rule table (the instance :data:`ONLINE_MDP`; the protocol is
    :class:`symloss.core.registry.FastPath`; module docstring). ``solve(net, dps)`` returns
    ``(OnlineOptimum, (g, bias differences))``.

    Examples
    --------
    >>> from symloss import OverloadedLossNetwork
    >>> ONLINE_MDP.applies(OverloadedLossNetwork(20, 0.6, 0.8, 2, 1))[0]
    True
    """
    name = "online MDP"

    def binding_key(self, net):
        try:
            key = ("rules", tuple(type(net).rules))
            hash(key)
        except TypeError:
            return None
        return key

    def decide(self, net):
        if _definition.is_shipped(tuple(type(net).rules)):
            return True, "the rule table is the shipped one (exact SymPy identity of the rates)"
        return False, "the rule table differs from symloss.admission.definition.RULES"

    def solve(self, net, dps):
        return _online.online_optimal(net, dps)

    def verify(self, net, answer, dps):
        res, _bias = answer
        K = int(res.threshold)
        with mpmath.workdps(dps + 5):
            r = mpmath.mpf(res.reward)         # the generated chain's reward at K (online_optimal's step 3)
            for k in (K - 1, K + 1):
                if 0 <= k <= net.N:
                    other = mpmath.mpf(_online.trunk_reservation(net, k, 15).reward)
                    if other > r * (1 + mpmath.mpf(10) ** -12) + mpmath.mpf(10) ** -12:
                        return False, (f"the generated chain's reward at K={k} ({mpmath.nstr(other, 8)}) exceeds "
                                       f"the returned one at K={K}")
        if not res.min_margin >= 0:
            return False, f"the policy-improvement margin {res.min_margin} is negative"
        return True, "local optimality checked on the chains generated from the rules"


#: the admission fast path
ONLINE_MDP = OnlineMDPFastPath()


def refuse(net, what: str):
    """The generic answer of an admission fast path for an edited rule table: an error.

    Parameters
    ----------
    net : OverloadedLossNetwork
        The network.
    what : str
        The method name (for the message).

    Returns
    -------
    None
        Never returns.

    Raises
    ------
    ModelDefinitionError
        Always.

    Examples
    --------
    >>> from symloss import OverloadedLossNetwork
    >>> refuse(OverloadedLossNetwork(20, 0.6, 0.8, 2, 1), "x")
    Traceback (most recent call last):
    ...
    symloss.core.definition.ModelDefinitionError: OverloadedLossNetwork.x: this method is a fast path written for the shipped rules (symloss.admission.definition.RULES) and the rules of this class differ from them; trunk_reservation and fluid_reward are generated from the rules and follow the edit
    """
    raise ModelDefinitionError(
        f"{type(net).__name__}.{what}: this method is a fast path written for the shipped rules "
        f"(symloss.admission.definition.RULES) and the rules of this class differ from them; "
        f"trunk_reservation and fluid_reward are generated from the rules and follow the edit")
