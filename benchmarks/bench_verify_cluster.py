"""``symloss verify --scope full`` on a Dask cluster, killed and resumed, compared with a serial run.

Run:  python benchmarks/bench_verify_cluster.py [--scope full] [--workers 2] [--sample 60]
                                                [--kill-worker-at 0.15] [--kill-client-at 0.4]

What it does, each step as a separate process so that a kill is a real ``SIGKILL``:

1. starts a ``dask scheduler`` and ``--workers`` single-threaded ``dask worker`` processes on
   127.0.0.1 (the pair a researcher starts by hand; a batch system's dask-jobqueue does the same);
2. starts the client, ``symloss verify --scope SCOPE --scheduler ADDRESS --store STORE --json JSON``,
   and watches the store (read-only SQLite);
3. when ``--kill-worker-at`` of the claims are done, ``SIGKILL``\\s one worker and starts a new one (Dask
   reschedules the lost worker's claims);
4. when ``--kill-client-at`` of the claims are done, ``SIGKILL``\\s the client (no clean-up runs);
5. reruns the same client command: it must replay the finished claims from the store, compute the
   rest and exit 0; its stdout (the replay note, the status table's last lines and the per-family claim
   seconds) is printed;
6. draws ``--sample`` claim ids at random (seeded) and runs them serially in this machine's process
   (``symloss verify --workers 1 --claim ID ...``); the status and the certificate of each (timings
   removed) must equal the cluster run's.

It prints the load (``uptime``) before and after, the wall time of each phase, the number of claims
done at each kill, and exits 1 if any check fails.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_VOLATILE = ("seconds", "elapsed", "wall", "time", "date", "host", "pid")


def _load() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:  # pragma: no cover
        return f"loadavg {os.getloadavg()}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _done(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{store.as_posix()}?mode=ro", uri=True, timeout=5)
        try:
            (n,) = conn.execute("SELECT COUNT(*) FROM points WHERE status = 'done'").fetchone()
        finally:
            conn.close()
        return int(n)
    except sqlite3.Error:
        return 0


def _strip(obj):
    """The record without its timings (they differ between any two runs)."""
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if not any(w in k.lower() for w in _VOLATILE)}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def _worker(address: str, log) -> subprocess.Popen:
    return subprocess.Popen(["dask", "worker", address, "--nthreads", "1", "--nworkers", "1",
                             "--no-dashboard", "--memory-limit", "0"], stdout=log, stderr=log,
                            start_new_session=True)


def _n_claims(scope: str) -> int:
    from proofs_check.core import select
    return len(select(scope=scope))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scope", default="full", choices=["default", "full"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--sample", type=int, default=60)
    ap.add_argument("--kill-worker-at", type=float, default=0.15)
    ap.add_argument("--kill-client-at", type=float, default=0.40)
    ap.add_argument("--dir", default=None, help="working directory (default: a new temporary one)")
    args = ap.parse_args(argv)
    work = Path(args.dir or tempfile.mkdtemp(prefix="symloss_cluster_"))
    work.mkdir(parents=True, exist_ok=True)
    store, out_json = work / "full.sqlite", work / "full.json"
    print(f"load before: {_load()}")
    print(f"working directory: {work}")
    n_total = _n_claims(args.scope)
    print(f"claims in scope {args.scope!r}: {n_total}")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    log = open(work / "cluster.log", "w")
    sched = subprocess.Popen(["dask", "scheduler", "--host", "127.0.0.1", "--port", str(port),
                              "--no-dashboard"], stdout=log, stderr=log, start_new_session=True)
    time.sleep(3)
    workers = [_worker(address, log) for _ in range(args.workers)]
    time.sleep(3)
    client_cmd = ["symloss", "verify", "--scope", args.scope, "--scheduler", address, "--store", str(store),
                  "--json", str(out_json), "--no-progress"]
    ok = True
    t0 = time.perf_counter()
    try:
        with open(work / "client1.out", "w") as c1:
            client = subprocess.Popen(client_cmd, stdout=c1, stderr=subprocess.STDOUT, start_new_session=True)
            killed_worker = killed_client = False
            while client.poll() is None:
                time.sleep(2)
                done = _done(store)
                if not killed_worker and done >= args.kill_worker_at * n_total:
                    os.killpg(workers[0].pid, signal.SIGKILL)
                    workers[0].wait()
                    workers[0] = _worker(address, log)
                    killed_worker = True
                    print(f"[{time.perf_counter() - t0:7.1f} s] SIGKILL worker at {done} done claims; "
                          "started a new worker")
                if killed_worker and not killed_client and done >= args.kill_client_at * n_total:
                    os.killpg(client.pid, signal.SIGKILL)
                    client.wait()
                    killed_client = True
                    print(f"[{time.perf_counter() - t0:7.1f} s] SIGKILL client at {done} done claims")
        if not killed_client:
            print(f"the client finished (rc {client.returncode}) before the kill point; no client kill tested")
            ok = False
        at_kill = _done(store)
        time.sleep(5)  # let the scheduler notice the client is gone
        t1 = time.perf_counter()
        res = subprocess.run(client_cmd, capture_output=True, text=True)
        t_resume = time.perf_counter() - t1
        print(f"[{time.perf_counter() - t0:7.1f} s] resumed client exited {res.returncode} after "
              f"{t_resume:.1f} s ({at_kill} claims were in the store)")
        tail = [line for line in res.stdout.splitlines()
                if "replayed" in line or "as expected" in line or "per family" in line]
        for line in tail:
            print("   ", line)
        if res.returncode != 0 or not any("replayed" in line for line in tail):
            ok = False
            print(res.stdout[-3000:], res.stderr[-3000:])
        print(f"cluster phase wall time: {time.perf_counter() - t0:.1f} s")
    finally:
        for p in workers + [sched]:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in workers + [sched]:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        log.close()
    if not out_json.exists():
        print("no JSON written by the cluster run")
        return 1
    cluster = {r["id"]: r for r in json.load(open(out_json))["claims"]}
    print(f"cluster JSON: {len(cluster)} claims; "
          f"{sum(r['status'] == r['expected'] for r in cluster.values())} as expected")
    ok &= len(cluster) == n_total and all(r["status"] == r["expected"] for r in cluster.values())
    ids = sorted(random.Random(0).sample(sorted(cluster), min(args.sample, len(cluster))))
    serial_json = work / "serial.json"
    cmd = ["symloss", "verify", "--workers", "1", "--scope", args.scope, "--json", str(serial_json),
           "--no-progress"]
    for cid in ids:
        cmd += ["--claim", cid]
    t2 = time.perf_counter()
    subprocess.run(cmd, capture_output=True, text=True)
    serial = {r["id"]: r for r in json.load(open(serial_json))["claims"]}
    same = [cid for cid in ids if cid in serial and _strip(serial[cid]) == _strip(cluster[cid])]
    print(f"serial sample: {len(ids)} claims in {time.perf_counter() - t2:.1f} s; "
          f"{len(same)} equal to the cluster run's records (status and certificate, timings removed)")
    for cid in ids:
        if cid not in same:
            ok = False
            print(f"    differs: {cid}")
    print(f"load after: {_load()}")
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
