"""The server-level simulation kernel is resumable: events run in consecutive ranges give bit for bit the
numbers of one call (so ``simulate`` can report progress without changing a result)."""
import numpy as np
import pytest

from symloss.finite_n import _kernels as K


def _setup(N, C, nb=4):
    occ = np.random.default_rng(1).integers(0, C + 1, N).astype(np.int32)
    st = np.array([1, 2, 3, 4], np.uint64)
    return occ, st, (np.zeros(nb), np.zeros(nb, np.int64), np.zeros(nb, np.int64), np.zeros(nb), np.zeros((nb, C + 1)))


@pytest.mark.parametrize("policy", [0, 1, 2, 3])
@pytest.mark.parametrize("step", [1, 977, 40_000])
def test_ranges_equal_one_call(policy, step):
    N, C, d, lam, events, warmup = 30, 3, 2, 25.0, 20_000, 1_000
    bt = np.linspace(0, 1, N + 1)
    occ, st, a = _setup(N, C)
    J1 = K.run_kernel(policy, N, C, d, lam, False, events, warmup, occ, st, bt, *a)
    occ2, st2, b = _setup(N, C)
    state = K.kernel_state(N, C)
    total = events + warmup
    for lo in range(0, total, step):
        J2 = K.run_kernel_range(policy, N, C, d, lam, False, events, warmup, occ2, st2, bt, *b, *state, lo,
                                min(lo + step, total))
    assert J1 == J2 and np.array_equal(occ, occ2) and np.array_equal(st, st2)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert a[1].sum() > 0                                  # arrivals were counted: the test can fail


def test_a_different_split_of_a_different_seed_differs():
    N, C = 30, 3
    bt = np.linspace(0, 1, N + 1)
    occ, st, a = _setup(N, C)
    K.run_kernel(1, N, C, 2, 25.0, False, 5_000, 0, occ, st, bt, *a)
    occ2, st2, b = _setup(N, C)
    st2[0] = 99
    K.run_kernel(1, N, C, 2, 25.0, False, 5_000, 0, occ2, st2, bt, *b)
    assert not np.array_equal(a[0], b[0])


@pytest.mark.parametrize("policy", ["retrial", "power", "jsq"])
def test_simulate_server_kernel_progress_is_bit_identical(monkeypatch, policy):
    import symloss
    from symloss.finite_n import sim_server
    monkeypatch.setattr(sim_server, "PROGRESS_CHUNK", 3_001)
    model = {"retrial": symloss.RetrialOfD(2, 2), "power": symloss.PowerOfD(2, 2), "jsq": symloss.JSQ(2)}[policy]
    a = symloss.simulate(model, N=40, rho=1.2, events=20_000, replications=2, seed=7)
    calls = []
    b = symloss.simulate(model, N=40, rho=1.2, events=20_000, replications=2, seed=7,
                         progress=lambda done, total: calls.append((done, total)))
    assert a.kernel == b.kernel == "server"
    assert a.blocking == b.blocking and a.ci == b.ci and list(a.occupancy) == list(b.occupancy)
    assert len(calls) > 10 and calls[-1][0] == calls[-1][1] == 2 * (a.warmup + a.events)
    assert all(x[0] < y[0] for x, y in zip(calls, calls[1:]))          # the bar moves forward
