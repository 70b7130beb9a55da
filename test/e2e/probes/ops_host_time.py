"""Where a syncopate.ops call's time goes at a shape: the host time to issue
it and the total time per call, back to back, against NCCL + cuBLAS; then a
cProfile of 100 calls of each op on rank 0 (by own time and cumulative).

    torchrun --standalone --nproc-per-node=W test/e2e/probes/ops_host_time.py M K N

AG: A_shard (M/W x K) @ B (K x N/W). RS: A (M x K/W) @ B (K/W x N). The path
each op chose is logged at INFO on rank 0.
"""

from __future__ import annotations

import cProfile
import io
import logging
import os
import pstats
import sys
import time

import torch
import torch.distributed as dist

import syncopate


def main() -> None:
    M, K, N = (int(x) for x in sys.argv[1:4])
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    r, W = dist.get_rank(), dist.get_world_size()
    g = dist.group.WORLD.group_name
    dev, dt = torch.device("cuda"), torch.bfloat16
    if r == 0:
        logging.basicConfig(level=logging.INFO)
    a = torch.randn(M // W, K, device=dev, dtype=dt)
    b = torch.randn(K, N // W, device=dev, dtype=dt) * K ** -0.5
    x = torch.randn(M, K // W, device=dev, dtype=dt)
    b_rs = torch.randn(K // W, N, device=dev, dtype=dt) * K ** -0.5

    def seq_ag():
        full = torch.empty(M, K, device=dev, dtype=dt)
        dist.all_gather_into_tensor(full, a)
        return full @ b

    def seq_rs():
        out = torch.empty(M // W, N, device=dev, dtype=dt)
        dist.reduce_scatter_tensor(out, x @ b_rs)
        return out

    rows = {
        "AG ops": lambda: syncopate.ops.all_gather_matmul(a, [b], 0, g, return_A=False)[1][0],
        "AG seq": seq_ag,
        "RS ops": lambda: syncopate.ops.matmul_reduce_scatter(x, b_rs, "sum", 0, g),
        "RS seq": seq_rs,
    }
    for op in ("AG", "RS"):  # check first: each op against its sequential reference
        got, ref = rows[f"{op} ops"]().float(), rows[f"{op} seq"]().float()
        err = ((got - ref).abs().max() / ref.abs().max()).item()
        assert err < 2e-2, f"{op}: relative error {err:.2e}"
    for f in rows.values():
        for _ in range(5):
            f()
    torch.cuda.synchronize()
    times = {}
    for name, f in rows.items():
        host, total = [], []
        for _ in range(7):
            dist.barrier()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(20):
                f()
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            host.append((t1 - t0) / 20 * 1e6)
            total.append((time.perf_counter() - t0) / 20 * 1e6)
        times[name] = (sorted(host)[3], sorted(total)[3])
    if r == 0:
        print(f"W={W} M={M} K={K} N={N}: us per call, median of 7 blocks of 20 back-to-back calls")
        for name, (host, total) in times.items():
            print(f"  {name:8s} host {host:8.1f}  total {total:8.1f}")
    for name in ("AG ops", "RS ops"):
        dist.barrier()
        torch.cuda.synchronize()
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(100):
            rows[name]()
        profile.disable()
        torch.cuda.synchronize()
        if r == 0:
            for order in ("tottime", "cumulative"):
                text = io.StringIO()
                pstats.Stats(profile, stream=text).sort_stats(order).print_stats(25)
                print(f"### cProfile {name} x100 by {order}\n" + "\n".join(text.getvalue().splitlines()[6:34]))
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
