"""Device probe (not a test): the host cost of syncopate.ops' wrapper on a
host-bound call, against the same unfused implementation called directly
and against NCCL + cuBLAS.

    torchrun --standalone --nproc-per-node=W test/e2e/probes/ops_host_wrapper.py

A 64 x 1024 bf16 shard per rank gathered and multiplied by 1024 x 256, so
the device work is small and every row is bound by the host. The op runs
with ``SYNCOPATE_OPS_PATH=unfused`` (the path NCCL + cuBLAS also takes);
its result is checked against NCCL + cuBLAS first. Rank 0 prints µs per
call, median of 9 rounds of 200 calls with one synchronisation at the end.
"""
import os
import time
import statistics
import torch
import torch.distributed as dist
os.environ["SYNCOPATE_OPS_PATH"] = "unfused"
import syncopate
from syncopate.pytorch import unfused_ops
from syncopate.runtime.gpu import direct_collectives
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
r, W = dist.get_rank(), dist.get_world_size()
g = dist.group.WORLD
name = g.group_name
a = torch.randn(64, 1024, device="cuda", dtype=torch.bfloat16)
B = torch.randn(1024, 256, device="cuda", dtype=torch.bfloat16)
out = torch.empty(64 * W, 1024, device="cuda", dtype=torch.bfloat16)
def seq():
    full = torch.empty(64 * W, 1024, device="cuda", dtype=torch.bfloat16)
    dist.all_gather_into_tensor(full, a)
    return full @ B
rows = {
    "dist AG": lambda: dist.all_gather_into_tensor(out, a),
    "direct AG": lambda: direct_collectives.all_gather_into(out, a, g),
    "seq AG+mm": seq,
    "unfused_ops AG+mm": lambda: unfused_ops.all_gather_matmul(a, [B], 0, name, False),
    "ops AG+mm": lambda: syncopate.ops.all_gather_matmul(a, [B], 0, name, return_A=False),
}
ref = seq()
for k, f in rows.items():
    for _ in range(5): f()
torch.cuda.synchronize()
got = syncopate.ops.all_gather_matmul(a, [B], 0, name, return_A=False)[1][0]
assert torch.allclose(got.float(), ref.float(), atol=1e-2, rtol=1e-2)
res = {k: [] for k in rows}
for _ in range(9):
    for k, f in rows.items():
        dist.barrier(); torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(200): f()
        torch.cuda.synchronize()
        res[k].append((time.perf_counter() - t0) / 200 * 1e6)
if r == 0:
    print(f"us per call, W={W}, 64x1024 bf16 shard, B 1024x256 (median of 9 x 200, sync at the end):")
    for k, v in res.items(): print(f"  {k:20s} {statistics.median(v):7.1f}")
dist.barrier(); dist.destroy_process_group()
