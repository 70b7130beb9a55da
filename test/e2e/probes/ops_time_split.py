"""Device probe (not a test): where an op's time goes against NCCL + cuBLAS.

    torchrun --standalone --nproc-per-node=W test/e2e/probes/ops_time_split.py M K N

For each ``SYNCOPATE_OPS_PATH`` (auto, unfused, fused) rank 0 prints, per
call of all-gather + matmul and matmul + reduce-scatter, in ms: the wall
time of ``CALLS`` (10) back-to-back calls, median of ``ROUNDS`` (7) rounds, their device time when queued behind a
sleep (the host's cost hidden), and the host time to enqueue them; under
auto also the kernels of 3 calls (torch.profiler). The ``impl`` rows call
the unfused implementation (pytorch/unfused_ops.py) directly, without the
ops' wrapper: their host time against the ops' unfused rows is the
wrapper's cost. Results are checked against NCCL + cuBLAS first. Equal
device times with a longer wall time mean the call is bound by the host.
``PROFILE=auto,unfused,fused`` (paths, comma-separated): rank 0 also prints
the 25 functions with the most own time over 200 calls of each op on each
path (``auto``: the measured choice; with auto and unfused, also of the
unfused implementation called directly). ``LOG=1`` logs the
ops' decisions (the ``syncopate`` logger at INFO).
"""
import os
import sys
import time
import collections
import statistics
import torch
import torch.distributed as dist
import syncopate
if os.environ.get("LOG"):
    import logging
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("syncopate").setLevel(logging.INFO)
from syncopate.pytorch import unfused_ops
M, K, N = (int(x) for x in sys.argv[1:4])
ROUNDS, CALLS = int(os.environ.get("ROUNDS", "7")), int(os.environ.get("CALLS", "10"))  # timed rounds, calls per round
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
r, W = dist.get_rank(), dist.get_world_size()
g = dist.group.WORLD.group_name
dev, dt = torch.device("cuda"), torch.bfloat16
a = torch.randn(M // W, K, device=dev, dtype=dt)
B = torch.randn(K, N // W, device=dev, dtype=dt) * K ** -0.5
x = torch.randn(M, K // W, device=dev, dtype=dt)
Br = torch.randn(K // W, N, device=dev, dtype=dt) * K ** -0.5
def seq_ag():
    full = torch.empty(M, K, device=dev, dtype=dt)
    dist.all_gather_into_tensor(full, a)
    return full @ B
def seq_rs():
    p = x @ Br
    out = torch.empty(M // W, N, device=dev, dtype=dt)
    dist.reduce_scatter_tensor(out, p)
    return out
def ops_ag(): return syncopate.ops.all_gather_matmul(a, [B], 0, g, return_A=False)[1][0]
def ops_rs(): return syncopate.ops.matmul_reduce_scatter(x, Br, "sum", 0, g)
def impl_ag(): return unfused_ops.all_gather_matmul(a, [B], 0, g, False)[1][0]
def impl_rs(): return unfused_ops.matmul_reduce_scatter(x, Br, "sum", 0, g)
rows = {"AG seq": seq_ag, "AG impl": impl_ag, "AG ops": ops_ag, "RS seq": seq_rs, "RS impl": impl_rs, "RS ops": ops_rs}
BASELINES = ("seq", "impl")  # rows timed once (under auto), not per path
for path in ("auto", "unfused", "fused"):
    os.environ["SYNCOPATE_OPS_PATH"] = path
    for k in ("AG ops", "RS ops"):
        for _ in range(3): rows[k]()
    torch.cuda.synchronize(); dist.barrier()
    assert torch.allclose(ops_ag().float(), seq_ag().float(), rtol=2e-2, atol=2e-2)
    assert torch.allclose(ops_rs().float(), seq_rs().float(), rtol=2e-2, atol=5e-2)
    assert torch.allclose(impl_ag().float(), seq_ag().float(), rtol=2e-2, atol=2e-2)
    assert torch.allclose(impl_rs().float(), seq_rs().float(), rtol=2e-2, atol=5e-2)
    res = collections.defaultdict(list)
    for _ in range(ROUNDS):
        for k, f in rows.items():
            if k.endswith(BASELINES) and path != "auto": continue
            dist.barrier(); torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(CALLS): f()
            t1 = time.perf_counter(); torch.cuda.synchronize(); t2 = time.perf_counter()
            res[k + " wall"].append((t2 - t0) / CALLS * 1e3); res[k + " host"].append((t1 - t0) / CALLS * 1e3)
            dist.barrier(); torch.cuda.synchronize()
            torch.cuda._sleep(50_000_000)  # ~25 ms: the calls queue behind it
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(CALLS): f()
            e1.record(); torch.cuda.synchronize()
            res[k + " device"].append(e0.elapsed_time(e1) / CALLS)
    if r == 0:
        print(f"== path={path} W={W} M={M} K={K} N={N} ms/call (median of {ROUNDS} x {CALLS})")
        for k in rows:
            if k + " wall" in res:
                print(f"  {k:8s} wall {statistics.median(res[k+' wall']):.3f}  device {statistics.median(res[k+' device']):.3f}  host {statistics.median(res[k+' host']):.3f}")
    from torch.profiler import profile, ProfilerActivity
    if path == "auto":
        for k in rows:
            dist.barrier(); torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as p:
                for _ in range(3): rows[k]()
                torch.cuda.synchronize()
            if r == 0:
                print("  kernels of 3 calls:", k)
                for e in p.key_averages():
                    if e.device_type.name == "CUDA" or getattr(e, "device_time_total", 0):
                        print(f"     {e.count:3d} x {e.device_time_total/max(e.count,1):8.1f} us  {e.key[:90]}")
for path in filter(None, os.environ.get("PROFILE", "").split(",")):
    import cProfile
    import pstats
    os.environ["SYNCOPATE_OPS_PATH"] = path
    for k in ("AG ops", "AG impl", "RS ops", "RS impl") if path in ("unfused", "auto") else ("AG ops", "RS ops"):
        dist.barrier(); torch.cuda.synchronize()
        before = torch.cuda.memory_stats()
        prof = cProfile.Profile()
        prof.runcall(lambda f=rows[k]: [f() for _ in range(200)])
        torch.cuda.synchronize()
        after = torch.cuda.memory_stats()
        if r == 0:
            grew = {s: after.get(s, 0) - before.get(s, 0) for s in ("num_device_alloc", "num_device_free",
                                                                    "num_alloc_retries", "num_sync_all_streams")}
            print(f"--- cProfile of 200 calls: {k} (path {path}), own time; allocator counts over them: {grew} ---")
            pstats.Stats(prof).sort_stats("tottime").print_stats(25)
print(f"rank {r}", syncopate.stats() if hasattr(syncopate, "stats") else "")
dist.barrier(); dist.destroy_process_group()
