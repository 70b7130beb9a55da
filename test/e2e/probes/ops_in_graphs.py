"""Device probe (not a test): syncopate.ops against async-TP and NCCL +
cuBLAS inside CUDA graphs.

    torchrun --standalone --nproc-per-node=W test/e2e/probes/ops_in_graphs.py M K N

Each row (all-gather + matmul and matmul + reduce-scatter, each three
ways) is warmed up eagerly (the ops measure and choose their path there),
then 10 calls are captured in one graph. Every replayed output is checked
against NCCL + cuBLAS before timing; rank 0 prints ms per call (3 replays
x 7 rounds, median) and the paths the ops took. The processes end with
``os._exit``: graphs that hold NCCL work keep ``destroy_process_group``
waiting.
"""
import os
import sys
import time
import torch
import torch.distributed as dist
import syncopate
M, K, N = (int(x) for x in sys.argv[1:4])
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
r, W = dist.get_rank(), dist.get_world_size()
g = dist.group.WORLD.group_name
dev, dt = torch.device("cuda"), torch.bfloat16
try:
    torch.distributed._symmetric_memory.enable_symm_mem_for_group(g)
except Exception:
    pass
gen = torch.Generator(device=dev).manual_seed(r)
a = torch.randn(M // W, K, device=dev, generator=gen).to(dt)
B = (torch.randn(K, N // W, device=dev, generator=gen) * K ** -0.5).to(dt)
x = torch.randn(M, K // W, device=dev, generator=gen).to(dt)
Br = (torch.randn(K // W, N, device=dev, generator=gen) * K ** -0.5).to(dt)
sym = torch.ops.symm_mem
def seq_ag():
    full = torch.empty(M, K, device=dev, dtype=dt); dist.all_gather_into_tensor(full, a); return full @ B
def seq_rs():
    p = x @ Br; out = torch.empty(M // W, N, device=dev, dtype=dt); dist.reduce_scatter_tensor(out, p); return out
rows = {"AG syncopate.ops": lambda: syncopate.ops.all_gather_matmul(a, [B], 0, g, return_A=False)[1][0],
        "AG async-TP": lambda: sym.fused_all_gather_matmul(a, [B], 0, g, return_A=False)[1][0],
        "AG NCCL+cuBLAS": seq_ag,
        "RS syncopate.ops": lambda: syncopate.ops.matmul_reduce_scatter(x, Br, "sum", 0, g),
        "RS async-TP": lambda: sym.fused_matmul_reduce_scatter(x, Br, "sum", 0, g),
        "RS NCCL+cuBLAS": seq_rs}
for k, f in rows.items():
    for _ in range(8): f()   # eager warm-up: the ops measure their path here
torch.cuda.synchronize(); dist.barrier()
ref = {"AG": seq_ag().float(), "RS": seq_rs().float()}
graphs, outs = {}, {}
for k, f in rows.items():
    gr = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s), torch.cuda.graph(gr, stream=s):
        outs[k] = [f() for _ in range(10)]
    torch.cuda.current_stream().wait_stream(s)
    graphs[k] = gr
torch.cuda.synchronize(); dist.barrier()
for k, gr in graphs.items():
    gr.replay()
    torch.cuda.synchronize()
for k, o in outs.items():
    want = ref[k[:2]]
    err = max(((t.float() - want).abs().max() / want.abs().max()).item() for t in o)
    assert err < 2e-2, (k, err)
times = {k: [] for k in graphs}
for _ in range(7):
    for k, gr in graphs.items():
        dist.barrier(); torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(3): gr.replay()
        torch.cuda.synchronize()
        times[k].append((time.perf_counter() - t0) / 30 * 1e3)
if r == 0:
    print(f"CUDA graph ms/call, W={W}, M={M} K={K} N={N} (10 calls per graph, 3 replays, median of 7); every output checked")
    for k, v in times.items():
        print(f"  {k:22s} {sorted(v)[3]:.3f}")
    for p in ("AG", "RS"):
        s_, a_, q = (sorted(times[f"{p} {n}"])[3] for n in ("syncopate.ops", "async-TP", "NCCL+cuBLAS"))
        print(f"  {p}: syncopate vs NCCL+cuBLAS {q / s_:.3f}x, vs async-TP {a_ / s_:.3f}x")
    print("  paths:", syncopate.stats())
dist.barrier(); torch.cuda.synchronize(); os._exit(0)  # graphs holding NCCL work make destroy_process_group wait
