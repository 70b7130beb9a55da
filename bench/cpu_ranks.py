"""``overlap-bench --cpu --world W``: W local gloo ranks, started the way torchrun would.

Each rank is this same command in a process of its own, with torchrun's
environment (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), so
the bench runs exactly as under ``torchrun --nproc-per-node=W ... --cpu``:
rank 0 reports, every rank checks and times. Without a GPU this is how the
collectives, the references of W ranks and the checks of every rank's
result run on one machine (the times mean nothing).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Sequence

MODULE = "syncopate.tools.overlap_bench"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rank_environment(rank: int, world: int, port: int) -> dict[str, str]:
    return {**os.environ, "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(world),
            "LOCAL_WORLD_SIZE": str(world), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}


def launch(argv: Sequence[str], world: int) -> int:
    """Run ``overlap-bench argv`` as ``world`` ranks and wait for all; the
    worst exit status (1: a row WRONG, 2: an error) is the run's."""
    port = free_port()
    procs = [subprocess.Popen([sys.executable, "-m", MODULE, *argv], env=rank_environment(r, world, port))
             for r in range(world)]
    return max(p.wait() for p in procs)
