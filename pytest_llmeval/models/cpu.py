"""CPU threads for the models of one process: under pytest-xdist, the machine's CPUs shared among the workers.

torch starts as many threads as the machine has cores in every process, so ``pytest -n
2`` on a 2-core runner puts four busy threads on two cores: the workers' model calls
then take about 2.5x as long (the embedding benchmark through pytest). When a model
has been loaded in an xdist worker, its torch is given ``CPUs // workers`` threads,
unless the user chose: ``OMP_NUM_THREADS`` or ``MKL_NUM_THREADS`` set, or torch already
at fewer threads.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

__all__ = ["cpu_share", "share_cpu_threads"]


def cpu_share(environ: Mapping[str, str] | None = None, cpus: int | None = None) -> int | None:
    """The torch threads one xdist worker should use, or ``None`` outside xdist or when the user chose."""
    environ = os.environ if environ is None else environ
    workers = environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if not workers.isdigit() or int(workers) < 1 or environ.get("OMP_NUM_THREADS") or environ.get("MKL_NUM_THREADS"):
        return None
    if cpus is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, cpus // int(workers))


def share_cpu_threads(torch: Any) -> int | None:
    """Lower ``torch``'s threads to this worker's share; returns the new count, or ``None`` if unchanged."""
    share = cpu_share()
    if share is None or torch.get_num_threads() <= share:
        return None
    torch.set_num_threads(share)
    return share
