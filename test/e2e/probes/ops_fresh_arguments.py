"""Device probe (not a test): do ``syncopate.ops`` calls with a fresh input
and a fresh (kept-alive) output on every call replay one captured graph,
rewritten per call (runtime/gpu/kernel_node_args.py), instead of capturing?

    torchrun --standalone --nproc-per-node=2 test/e2e/probes/ops_fresh_arguments.py

Forces the fused path, counts the runtime's graph captures, rewrites and
replays over ``CALLS`` calls per op (1024 x 4096 x 4096 bf16), and checks
every output against NCCL + torch. Rank 0 prints the counts, the wrong
outputs and the host time per call.
"""

from __future__ import annotations

import os
import statistics
import time

import torch
import torch.distributed as dist

CALLS, M, K, N = 30, 1024, 4096, 4096


def main() -> None:
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    os.environ["SYNCOPATE_OPS_PATH"] = "fused"
    from syncopate import ops
    from syncopate.runtime.gpu import device

    counts = {"capture": 0, "retarget": 0, "replay": 0}
    for name in list(counts):
        def counted(*args, _f=getattr(device, name), _n=name, **kwargs):
            counts[_n] += 1
            return _f(*args, **kwargs)
        setattr(device, name, counted)  # the protocol calls device.<op> by attribute, so this sees every one
    rank, world = dist.get_rank(), dist.get_world_size()
    group = dist.group.WORLD.group_name
    dev, dt = torch.device("cuda"), torch.bfloat16
    b_ag = torch.randn(K, N // world, device=dev, dtype=dt) * K ** -0.5
    b_rs = torch.randn(K // world, N, device=dev, dtype=dt) * K ** -0.5
    kept = []
    for op in ("all_gather_matmul", "matmul_reduce_scatter"):
        before, times, wrong = dict(counts), [], 0
        for i in range(CALLS):
            torch.manual_seed(1000 * i + rank)
            if op == "all_gather_matmul":
                a = torch.randn(M // world, K, device=dev, dtype=dt)
                t0 = time.perf_counter()
                _, (out,) = ops.all_gather_matmul(a, [b_ag], 0, group)
                times.append(time.perf_counter() - t0)
                full = torch.empty(M, K, device=dev, dtype=dt)
                dist.all_gather_into_tensor(full, a)
                ref = (full @ b_ag).float()
            else:
                x = torch.randn(M, K // world, device=dev, dtype=dt)
                t0 = time.perf_counter()
                out = ops.matmul_reduce_scatter(x, b_rs, "sum", 0, group)
                times.append(time.perf_counter() - t0)
                ref = torch.empty(M // world, N, device=dev, dtype=torch.float32)
                dist.reduce_scatter_tensor(ref, x.float() @ b_rs.float())
            kept.append(out)  # alive: the next call's output lands at a new address
            wrong += bool(((out.float() - ref).abs().max() / ref.abs().max()).item() > 2e-2)
        delta = {k: counts[k] - before[k] for k in counts}
        if rank == 0:
            print(f"W={world} {op}: {CALLS} calls with fresh inputs and outputs: {delta}, wrong {wrong}, "
                  f"host ms per call (median of the last 20) {statistics.median(times[10:]) * 1e3:.3f}", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
