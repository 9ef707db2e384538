"""User-written non-smooth policies for tests/meanfield/test_nonsmooth.py (define_model only)."""
import sympy as sp

from symloss import RHO, define_model

H = sp.Heaviside


def tails(C):
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    return u, (sp.Integer(1),) + u + (sp.Integer(0),)


def user_jsq(C):
    """JSQ: an arrival joins level k when every lower level is full and level k is not."""
    u, U = tails(C)
    trs = []
    for k in range(1, C + 1):
        lower_full = sp.Integer(1) if k == 1 else H(U[k - 1] - 1, 1)
        trs.append(({u[k - 1]: 1}, RHO * lower_full * (1 - H(U[k] - 1, 1))))
        trs.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    # blocking by flow balance (smooth in the state): 1 - (departure rate per server) / rho
    return define_model(f"user JSQ C={C}", u, trs, blocking=1 - sum(u) / RHO, state_kind="tail", C=C)


def user_jiq(C):
    """Join the idle queue: to an idle server while there is one (u1 < 1), else to a random server."""
    u, U = tails(C)
    idle = sp.Piecewise((1, u[0] < 1), (0, True))
    trs = [({u[0]: 1}, RHO * idle + RHO * (1 - idle) * (1 - u[0]))]
    for k in range(2, C + 1):
        trs.append(({u[k - 1]: 1}, RHO * (1 - idle) * (U[k - 1] - U[k])))
    for k in range(1, C + 1):
        trs.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"user JIQ C={C}", u, trs, blocking=1 - sum(u) / RHO, state_kind="tail", C=C)


def user_threshold(C, d, T, tau):
    """Power-of-d while the fraction of servers with >= T jobs exceeds tau, random routing below."""
    u, U = tails(C)
    on = sp.Piecewise((1, U[T] > tau), (0, True))
    trs = []
    for k in range(1, C + 1):
        trs.append(({u[k - 1]: 1}, RHO * (on * (U[k - 1] ** d - U[k] ** d) + (1 - on) * (U[k - 1] - U[k]))))
        trs.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"threshold d={d} T={T} tau={tau}", u, trs, blocking=1 - sum(u) / RHO,
                        state_kind="tail", C=C)
