r"""The asymptotic regimes of the shortest-queue Erlang loss model in ``a = N/rho`` (Yao and Knessl 2008).

:func:`jsq_regime` is re-exported (and documented) by :mod:`symloss.twoqueue.jsq`; :data:`REGIMES` by
:mod:`symloss.twoqueue.asymptotic`.
"""
from __future__ import annotations

import math

from ..core.docstrings import fill_doc
from ..core.validation import check_real
from ._public import public_home

__all__ = ["REGIMES", "jsq_regime"]

#: the five asymptotic regimes of Yao and Knessl (2008), in ``a = N/rho`` (see :func:`symloss.jsq_regime`)
REGIMES = ("a>1/2", "a~1/2", "1/4<a<1/2", "a~1/4", "a<1/4")


@public_home("symloss.twoqueue.jsq")
@fill_doc
def jsq_regime(a, rho=None, *, width: float = 1.0) -> str:
    r"""The asymptotic regime of the shortest-queue Erlang loss model for ``a = N/rho``.

    The five regimes of Yao and Knessl (2008): ``"a>1/2"``, ``"a~1/2"``, ``"1/4<a<1/2"``,
    ``"a~1/4"``, ``"a<1/4"``.

    Parameters
    ----------
    a : real, > 0
        ``N / rho``.
    rho : real, optional
        The load. Without it only the three open regimes are returned (a = 1/2 and a = 1/4 exactly
        give the transition names). With it, ``a`` is in the transition layer around 1/2 when
        :math:`|2N - \rho| \le w\sqrt{\rho}` (the Halfin-Whitt scale, :math:`\beta = (2N-\rho)/\sqrt\rho`)
        and around 1/4 when :math:`|4N - \rho| \le w\sqrt{\rho}`.
    width : float
        ``w`` above (default 1; an O(1) choice, the layers have no sharp edge).

    Returns
    -------
    str
        One of :data:`~symloss.twoqueue.asymptotic.REGIMES`.

    Raises
    ------
    TypeError
        If ``a``, ``rho`` or ``width`` is not a real number.
    ValueError
        If one of them is not positive and finite.

    See Also
    --------
    TwoQueueJSQ.asymptotic

    {{references_yao_knessl}}

    Examples
    --------
    >>> from symloss import jsq_regime
    >>> jsq_regime(1.0), jsq_regime(0.3), jsq_regime(0.1)
    ('a>1/2', '1/4<a<1/2', 'a<1/4')
    >>> jsq_regime(0.5), jsq_regime(0.51, rho=400)
    ('a~1/2', 'a~1/2')
    """
    a = check_real(a, "a", lower=0, lower_open=True)
    width = float(check_real(width, "width", lower=0, lower_open=True))
    af = float(a)
    if rho is not None:
        rho = float(check_real(rho, "rho", lower=0, lower_open=True))
        s = math.sqrt(rho)
        if abs(2 * af * rho - rho) <= width * s:
            return "a~1/2"
        if abs(4 * af * rho - rho) <= width * s:
            return "a~1/4"
    if af > 0.5:
        return "a>1/2"
    if af == 0.5:
        return "a~1/2"
    if af > 0.25:
        return "1/4<a<1/2"
    if af == 0.25:
        return "a~1/4"
    return "a<1/4"

