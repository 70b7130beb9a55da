"""Device probe (not a test): what raising a chunk's flag would cost a
CUDA-graph replay, by how it is written, with symmetric-memory peer views.

    torchrun --standalone --nproc-per-node=2 test/e2e/probes/flag_write_cost.py

Rank 0 prints the host time of one replay (``CUDAGraph.replay()`` and
cuda-python's ``cuGraphLaunch``) of graphs holding a kernel plus 8 nodes of
one kind: kernels, stream writes (separate or one batch), 1 MiB peer pulls,
and a pull followed by its flag raised as a stream write, a 4-byte peer
pull or a 4-byte copy from pinned host memory. Then every rank checks
whether a 4-byte pull (eager, or replayed from a graph, alone or after a
1 MiB pull) runs while spinning programs hold every SM: a flag write that
needs an SM could never release them (copy_needs_sm.py checks pushes).
"""
import statistics
import time
import torch
import os
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem
import triton
import triton.language as tl
from copy_needs_sm import spin  # this folder is the script's, so first on sys.path
from cuda.bindings import driver as drv

dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(rank)
peer = (rank + 1) % world
buf = symm_mem.empty(8 * (1 << 18), dtype=torch.float32, device="cuda")
pad = symm_mem.empty(1024, dtype=torch.int32, device="cuda")
hb = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
hp = symm_mem.rendezvous(pad, dist.group.WORLD.group_name)
pad.fill_(7); buf.normal_()
torch.cuda.synchronize(); dist.barrier()
src = hb.get_buffer(peer, (8, 1 << 18), torch.float32)
peerpad = hp.get_buffer(peer, (1024,), torch.int32)
dst = torch.empty(8, 1 << 18, device="cuda")
x = torch.zeros(16, device="cuda")
words = torch.zeros(64, dtype=torch.int32, device="cuda")
pinned = torch.full((8,), 7, dtype=torch.int32).pin_memory()
idx = torch.arange(8, device="cuda")
side = [torch.cuda.Stream() for _ in range(4)]

def cur():
    return drv.CUstream(torch.cuda.current_stream().cuda_stream)

def memop_write(i, v=1):
    drv.cuStreamWriteValue32(cur(), drv.CUdeviceptr(words.data_ptr() + 4 * i), v, 0)

def batch(n):
    ps = []
    for i in range(n):
        op = drv.CUstreamBatchMemOpParams()
        op.writeValue.operation = drv.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WRITE_VALUE_32
        op.writeValue.address = drv.CUdeviceptr(words.data_ptr() + 4 * i)
        op.writeValue.value = 1
        op.writeValue.flags = 0
        ps.append(op)
    drv.cuStreamBatchMemOp(cur(), n, ps, 0)

def fork(n):
    main = torch.cuda.current_stream()
    for s in side[:n]:
        s.wait_stream(main)
        with torch.cuda.stream(s):
            x.add_(1)
    for s in side[:n]:
        main.wait_stream(s)

V = {
    "kernel": lambda: x.add_(1),
    "kernel+8 kernels": lambda: [x.add_(1) for _ in range(9)],
    "kernel+index_fill": lambda: (x.add_(1), words.index_fill_(0, idx, 0)),
    "kernel+8 memop writes": lambda: (x.add_(1), [memop_write(i) for i in range(8)]),
    "kernel+1 batch of 8": lambda: (x.add_(1), batch(8)),
    "kernel+8 peer pulls 1MiB": lambda: (x.add_(1), [dst[i].copy_(src[i], non_blocking=True) for i in range(8)]),
    "kernel+8 (pull+memop flag)": lambda: (x.add_(1), [(dst[i].copy_(src[i], non_blocking=True), memop_write(i)) for i in range(8)]),
    "kernel+8 (pull+4B peer pull)": lambda: (x.add_(1), [(dst[i].copy_(src[i], non_blocking=True), words[i:i+1].copy_(peerpad[i:i+1], non_blocking=True)) for i in range(8)]),
    "kernel+8 (pull+4B H2D)": lambda: (x.add_(1), [(dst[i].copy_(src[i], non_blocking=True), words[i:i+1].copy_(pinned[i:i+1], non_blocking=True)) for i in range(8)]),
    "kernel+8 4B peer pulls": lambda: (x.add_(1), [words[i:i+1].copy_(peerpad[i:i+1], non_blocking=True) for i in range(8)]),
    "kernel+fork/join 1": lambda: (x.add_(1), fork(1)),
    "kernel+fork/join 4": lambda: (x.add_(1), fork(4)),
}

def timed(launch):
    for _ in range(5):
        launch()
    torch.cuda.synchronize()
    ts = []
    for _ in range(9):
        t0 = time.perf_counter()
        for _ in range(50):
            launch()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        ts.append((t1 - t0) / 50 * 1e6)
    return statistics.median(ts)

res = {}
for name, fn in V.items():
    g = torch.cuda.CUDAGraph(keep_graph=True)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
        torch.cuda.synchronize()
        g.capture_begin(capture_error_mode="thread_local")
        fn()
        g.capture_end()
    g.instantiate()
    torch.cuda.synchronize()
    ex = drv.CUgraphExec(g.raw_cuda_graph_exec())
    res[name] = (timed(g.replay), timed(lambda: drv.cuGraphLaunch(ex, cur())))
    if name == "kernel":
        res["(python no-op lambda)"] = (timed(lambda: None), 0.0)
dist.barrier()
if rank == 0:
    print(torch.cuda.get_device_name(), "graph replay host us: torch replay() | cuGraphLaunch")
    for k, (a, b) in res.items():
        print(f"{k:32} {a:7.2f} {b:7.2f}")

# 4-byte pull while every SM spins
LIMIT = 1 << 22
programs = 2 * torch.cuda.get_device_properties(rank).multi_processor_count
geq = int(drv.CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ)
one = symm_mem.empty(4, dtype=torch.int32, device="cuda"); one.fill_(1)
ho = symm_mem.rendezvous(one, dist.group.WORLD.group_name)
peerone = ho.get_buffer(peer, (4,), torch.int32)
for mode in ("pull 4B from peer", "graph: pull 4B from peer", "H2D 4B pinned", "graph: pull 1MiB then 4B"):
    local = torch.zeros(4, dtype=torch.int32, device="cuda")
    pin1 = torch.ones(4, dtype=torch.int32).pin_memory()
    def act():
        if "H2D" in mode:
            local[0:1].copy_(pin1[0:1], non_blocking=True)
        else:
            if "1MiB" in mode:
                dst[0].copy_(src[0], non_blocking=True)
            local[0:1].copy_(peerone[0:1], non_blocking=True)
    graph = None
    if mode.startswith("graph"):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.stream(torch.cuda.Stream()):
            graph.capture_begin(capture_error_mode="thread_local")
            act()
            graph.capture_end()
    local.zero_()
    counter = torch.zeros(1, dtype=torch.int32, device="cuda")
    out = torch.zeros(programs, dtype=torch.int32, device="cuda")
    torch.cuda.synchronize(); dist.barrier()
    spinners, releaser = torch.cuda.Stream(), torch.cuda.Stream()
    with torch.cuda.stream(spinners):
        spin[(programs,)](local, counter, out, LIMIT=LIMIT, num_warps=32)
    with torch.cuda.stream(releaser):
        drv.cuStreamWaitValue32(drv.CUstream(releaser.cuda_stream), drv.CUdeviceptr(counter.data_ptr()), programs, geq)
        graph.replay() if graph is not None else act()
    t0 = time.perf_counter(); torch.cuda.synchronize()
    gave_up = int(out.max()) >= LIMIT
    print(f"rank {rank} {mode}: {'NEEDS AN SM' if gave_up else 'ran while every SM was full'}, {(time.perf_counter()-t0)*1e3:.1f} ms", flush=True)
    dist.barrier()
dist.destroy_process_group()
