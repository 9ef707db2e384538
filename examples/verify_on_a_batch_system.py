"""Run ``symloss verify --scope full`` on an HPC batch system through dask-jobqueue.

Run this on the login node (it submits batch jobs that start Dask workers, and it is the client that
writes the store)::

    pip install symloss dask-jobqueue
    python examples/verify_on_a_batch_system.py --jobs 32 --queue short --walltime 02:00:00

The example uses SLURM; PBS, SGE, LSF and HTCondor differ only in the class (``PBSCluster``,
``SGECluster``, ``LSFCluster``, ``HTCondorCluster``) and its queue options. Each batch job is one Dask
worker with one thread (the claims are CPU-bound Python). The store ``--store`` must be on a disk the
login node keeps: when the jobs end, the client dies or the allocation runs out, rerunning the same
command computes only the claims that are not in the store yet.
"""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=16, help="batch jobs (one single-core Dask worker each)")
    ap.add_argument("--queue", default=None, help="the batch queue / partition")
    ap.add_argument("--account", default=None, help="the account to charge, if the site needs one")
    ap.add_argument("--walltime", default="02:00:00", help="wall time of each job")
    ap.add_argument("--memory", default="4GB", help="memory of each job (a claim needs well under 1 GB)")
    ap.add_argument("--store", default="symloss_full.sqlite", help="SQLite store of finished certificates")
    ap.add_argument("--json", default="symloss_full.json", help="the certificates, as symloss verify --json")
    args = ap.parse_args(argv)
    try:
        from dask_jobqueue import SLURMCluster
    except ImportError:
        print("this example needs dask-jobqueue: pip install dask-jobqueue", file=sys.stderr)
        return 2
    from symloss.cli import main as symloss_main

    cluster = SLURMCluster(cores=1, processes=1, memory=args.memory, walltime=args.walltime,
                           queue=args.queue, account=args.account,
                           worker_extra_args=["--nthreads", "1"])
    cluster.scale(jobs=args.jobs)
    print(f"Dask scheduler at {cluster.scheduler_address}; {args.jobs} jobs submitted", flush=True)
    try:
        return symloss_main(["verify", "--scope", "full", "--scheduler", cluster.scheduler_address,
                             "--store", args.store, "--json", args.json])
    finally:
        cluster.close()


if __name__ == "__main__":
    sys.exit(main())
