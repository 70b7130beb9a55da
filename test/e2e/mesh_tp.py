"""torchrun script (4 GPUs): tensor parallelism on one dimension of a 2 x 2
device mesh, as DP x TP jobs lay it out. Each rank calls syncopate.ops on
its TP group (group ranks 0 and 1 are global ranks {0, 1} or {2, 3}), back
to back with fresh inputs; the gathered rows must be exact, the products
close to an fp32 reference, and every call must have taken the fused path
(forced with SYNCOPATE_OPS_PATH=fused: at these small shapes the ops'
measured choice may rightly be the unfused path, which is not what this
test checks).
Prints ``MESH rank R: ok`` or ``MESH rank R: FAIL ...``."""

from __future__ import annotations

import os

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh

import syncopate

CALLS = 4


def randn(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)) / shape[-1] ** 0.25


def main() -> None:
    rank = int(os.environ["RANK"])
    os.environ["SYNCOPATE_OPS_PATH"] = "fused"
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    mesh = init_device_mesh("cuda", (2, 2), mesh_dim_names=("dp", "tp"))
    tp = mesh["tp"].get_group()
    tp_rank, dp_rank = dist.get_rank(tp), mesh["dp"].get_local_rank()
    syncopate.stats(reset=True)
    try:
        for call in range(CALLS):
            seeds = [1000 * call + 10 * dp_rank + r for r in range(2)]  # this DP replica's shards, fresh each call
            shards = [randn(256, 512, seed=s) for s in seeds]
            b = randn(512, 384, seed=7 + dp_rank)
            gathered, (out,) = syncopate.ops.all_gather_matmul(shards[tp_rank].cuda().bfloat16(),
                                                               [b.cuda().bfloat16()], 0, tp.group_name,
                                                               return_A=True)
            full = torch.cat(shards)
            assert torch.equal(gathered.cpu(), full.bfloat16()), "gathered rows differ"
            torch.testing.assert_close(out.float().cpu(), full.bfloat16().float() @ b.bfloat16().float(),
                                       rtol=2e-2, atol=2e-2)
            partials = [randn(512, 256, seed=s + 500) for s in seeds]
            weights = [randn(256, 384, seed=s + 900) for s in seeds]
            reduced = syncopate.ops.matmul_reduce_scatter(partials[tp_rank].cuda().bfloat16(),
                                                          weights[tp_rank].cuda().bfloat16(), "sum", 0, tp.group_name)
            total = sum(p.bfloat16().float() @ w.bfloat16().float() for p, w in zip(partials, weights))
            torch.testing.assert_close(reduced.float().cpu(), total.chunk(2)[tp_rank], rtol=3e-2, atol=3e-2)
        counts = syncopate.stats()
        assert all(counts[op] == {"fused": CALLS, "unfused": 0}
                   for op in ("all_gather_matmul", "matmul_reduce_scatter")), counts
        print(f"MESH rank {rank}: ok", flush=True)
    except Exception as error:  # reported per rank; the test fails on any FAIL line
        print(f"MESH rank {rank}: FAIL {type(error).__name__}: {error}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
