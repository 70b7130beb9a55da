"""Run check functions on a real two-process group (gloo on CPU, or NCCL on two GPUs) and collect results.

``run_checks(module, names)`` spawns two processes once; each initializes a
gloo group, runs ``module.<name>(rank, world)`` for every name in order
(every rank runs the same collectives in the same order) and records, per
check, None or the failure's text. One spawn per test module keeps the
start-up cost (importing torch twice) paid once.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
import traceback

WORLD = 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank: int, world: int, port: int, module: str, names: list[str], outdir: str, env: dict,
            backend: str) -> None:
    import importlib

    os.environ.update(env)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), LOCAL_RANK=str(rank),
                      WORLD_SIZE=str(world))
    import torch
    import torch.distributed as dist

    if backend == "nccl":
        torch.cuda.set_device(rank)
        dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device("cuda", rank))
    else:
        dist.init_process_group("gloo", rank=rank, world_size=world)
    checks = importlib.import_module(module)
    results: dict[str, str | None] = {}
    for name in names:
        try:
            getattr(checks, name)(rank, world)
            results[name] = None
        except Exception:  # recorded and reported by the test that owns the check
            results[name] = traceback.format_exc()
        dist.barrier()
    with open(os.path.join(outdir, f"{rank}.json"), "w") as f:
        json.dump(results, f)
    dist.destroy_process_group()


def run_checks(module: str, names: list[str], env: dict | None = None,
               backend: str = "gloo") -> list[dict[str, str | None]]:
    """Each rank's {check name: None (passed) or the failure's traceback}."""
    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory() as outdir:
        env = {"SYNCOPATE_CACHE_DIR": os.path.join(outdir, "cache"), **(env or {})}
        mp.spawn(_worker, args=(WORLD, _free_port(), module, names, outdir, env, backend), nprocs=WORLD, join=True)
        out = []
        for rank in range(WORLD):
            with open(os.path.join(outdir, f"{rank}.json")) as f:
                out.append(json.load(f))
        return out


def _script_worker(rank: int, world: int, port: int, path: str, outdir: str, env: dict) -> None:
    import runpy

    os.environ.update(env)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), LOCAL_RANK=str(rank),
                      WORLD_SIZE=str(world), LOCAL_WORLD_SIZE=str(world))
    try:
        runpy.run_path(path, run_name="__main__")
        error = None
    except BaseException:  # SystemExit too: the script's failure is the test's to report
        error = traceback.format_exc()
    with open(os.path.join(outdir, f"{rank}.json"), "w") as f:
        json.dump({"error": error}, f)


def run_script(path: str, env: dict | None = None) -> list[str | None]:
    """Run the script at ``path`` as torchrun would start it on two CPU ranks
    (env:// rendezvous); each rank's traceback, or None."""
    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory() as outdir:
        env = {"SYNCOPATE_CACHE_DIR": os.path.join(outdir, "cache"), **(env or {})}
        mp.spawn(_script_worker, args=(WORLD, _free_port(), path, outdir, env), nprocs=WORLD, join=True)
        out = []
        for rank in range(WORLD):
            with open(os.path.join(outdir, f"{rank}.json")) as f:
                out.append(json.load(f)["error"])
        return out
