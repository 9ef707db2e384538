"""Lookahead and online policies of the admission-control model (descriptions; the work is done
by the numba kernels of ``symloss.admission._kernels``).
"""
from __future__ import annotations

from ..core.validation import check_int, check_real

__all__ = ["TrunkReservation", "SSS", "PFI", "WindowDP"]

# ------------------------------------------------------------------------------------------------
# policies (descriptions; the work is done by numba kernels below)
# ------------------------------------------------------------------------------------------------

class _Policy:
    name = "policy"

    def __repr__(self) -> str:
        return self.name


class TrunkReservation(_Policy):
    """Accept H whenever a server is idle; accept L only while more than ``K`` servers are idle.

    Parameters
    ----------
    K : int >= 0
        The reserve: idle servers kept for H jobs.
    """

    def __init__(self, K: int):
        self.K = check_int(K, "K", min_value=0)
        self.name = f"TrunkReservation(K={self.K})"


class SSS(_Policy):
    r"""Single Short Sensor with window ``W`` (Bray 2026).

    An L job arriving at time ``t`` with ``n`` busy servers is accepted iff, in the hypothetical
    continuation of the path in which this L job is accepted, every later L job is rejected and
    every later H job is accepted when a server is idle, the idle count :math:`I(s) = N - n(s)`
    satisfies :math:`I(s) \ge 1` for all :math:`s \in [t, t+W]` (in particular :math:`N-n-1 \ge 1`
    at ``t``). H jobs are always accepted when a server is idle. The continuation uses the same
    uniformised events (potential departures with their marks), so the policy sees only the next
    ``W`` time units of the path.

    Parameters
    ----------
    W : float >= 0
        Lookahead window in time units (the paper takes :math:`W = c \ln N / N`).
    """

    def __init__(self, W):
        W = check_real(W, "W", lower=0)
        self.W = float(W)
        self.name = f"SSS(W={self.W:.6g})"


class PFI(_Policy):
    r"""Promise of Future Idleness (Bray 2026).

    An L job is accepted iff, in the continuation in which it is accepted and every later L job
    is rejected (H accepted when possible), the idle count reaches ``level`` (default
    :math:`\lfloor\sqrt N\rfloor`) before it drops below 1. If the path ends first the job is
    accepted. This is an unbounded lookahead (it looks as far as that first passage needs).

    Parameters
    ----------
    level : int, optional
        Idle count to reach (default :math:`\lfloor\sqrt N\rfloor`).
    """

    def __init__(self, level: int | None = None):
        self.level = None if level is None else check_int(level, "level", min_value=1)
        self.name = "PFI()" if level is None else f"PFI(level={self.level})"


class WindowDP(_Policy):
    r"""Rolling window dynamic program with lookahead ``W`` (our computable stand-in for the best
    ``W``-lookahead policy).

    At each L arrival (time ``t``, ``n`` busy) it solves exactly, by backward induction over the
    uniformised events in :math:`(t, t+W]` with state ``n``, the problem "maximise the rewards
    collected in the window plus a terminal value :math:`h(n(t+W))`", and accepts iff accepting is
    optimal in that problem (ties: accept). H jobs are always accepted when a server is idle.

    ``terminal="online"`` uses the bias ``h`` of the optimal online MDP (so ``W = 0`` gives back
    the online optimum; it keeps an online-size reserve at the window's end); ``terminal="zero"``
    uses :math:`h \equiv 0` (accept unless the window shows that it costs an H job; better for long
    windows, poor for short ones). Either way the policy uses only the next ``W`` time units of the
    path, so its reward is a lower bound on the best ``W``-lookahead reward :math:`R_W`.

    Parameters
    ----------
    W : float >= 0
        Lookahead window in time units.
    terminal : {"online", "zero"}
        Terminal value at the end of the window.
    """

    def __init__(self, W, terminal: str = "online"):
        W = check_real(W, "W", lower=0)
        if terminal not in ("online", "zero"):
            raise ValueError(f"terminal must be 'online' or 'zero', got {terminal!r}")
        self.W = float(W)
        self.terminal = terminal
        self.name = f"WindowDP(W={self.W:.6g})" if terminal == "online" else \
            f"WindowDP(W={self.W:.6g}, terminal=zero)"


