"""Device probe (not a test): the CUDA graph a steady-state fused launch
replays, by node kind, and its replay's host time, for the rows of
launch_host_overhead.py (1024^3 bf16).

    torchrun --standalone --nproc-per-node=4 test/e2e/probes/launch_graph_nodes.py

Each row warms up (the second launch is captured), then rank 0 prints the
fused and plain Triton launch's host time, the graph's nodes by type
(``cuGraphGetNodes``), and the host time of ``CUDAGraph.replay()`` and of
``cuGraphLaunch`` alone. Memory-operation and peer-copy nodes cost host
time at every replay (graph_node_cost.py): this shows how many a launch holds.
"""
import torch
from cuda.bindings import driver as cu
from graph_node_cost import host_us  # this folder is the script's, so first on sys.path

from syncopate.bench.configs import GemmConfig
from syncopate.bench.fused import program_for
from syncopate.bench.gemm import gemm_kernel, launch_gemm
from syncopate.runtime.fused import FusedKernel
from syncopate.runtime.gpu import GpuWorld

world = GpuWorld.from_torchrun()
w, r = world.world, world.rank
M = K = N = 1024
cfg = GemmConfig(128, 256, 64, 8, 3, "ptr")
gen = torch.Generator().manual_seed(5)
a_full = torch.randn(M, K, generator=gen).to(world.device, torch.bfloat16)
b = (torch.randn(K, N, generator=gen) / 32).to(world.device, torch.bfloat16)
gathered = world.symmetric(a_full)
gathered.copy_(a_full)
plain = gemm_kernel(cfg)


def nodes(graph):
    g = cu.CUgraph(graph.raw_cuda_graph())
    _, _, n = cu.cuGraphGetNodes(g, 0)
    _, found, n = cu.cuGraphGetNodes(g, n)
    kinds = {}
    for node in found:
        _, t = cu.cuGraphNodeGetType(node)
        kinds[t.name] = kinds.get(t.name, 0) + 1
    return found, kinds


out = []
for workload, backend, chunks in [("ag-gemm", "ce", 1), ("ag-gemm", "sm", 1), ("gemm-rs", "ce", 1), ("ag-gemm", "ce", 4)]:
    program = program_for(workload, w, backend, "arrival", cfg, chunks)
    fused = FusedKernel(program, plain, world.context())
    a = gathered if workload == "ag-gemm" else a_full
    c = torch.empty(M, N, dtype=torch.bfloat16, device=world.device)
    c2 = torch.empty(M, N, dtype=torch.bfloat16, device=world.device)
    before = set(world.launches)
    for _ in range(5):
        launch_gemm(fused, a, b, c, cfg)
    torch.cuda.synchronize(); world.barrier()
    new = [k for k in world.launches if k not in before]
    cached = world.launches[new[0]]
    graphs = list(cached.graphs.graphs.values())
    row = f"{workload} {backend} x{chunks}"
    fl = host_us(lambda: launch_gemm(fused, a, b, c, cfg))
    tl = host_us(lambda: launch_gemm(plain, a, b, c2, cfg))
    # a reduce-scatter's c holds the group's sum in this rank's rows: only a gather's output equals the plain kernel's
    ok = torch.equal(c, c2) if workload == "ag-gemm" else "n/a"
    if graphs:
        g = graphs[0]
        ns, kinds = nodes(g)
        rp = host_us(g.replay)
        ex = cu.CUgraphExec(g.raw_cuda_graph_exec())
        st = cu.CUstream(torch.cuda.current_stream().cuda_stream)
        direct = host_us(lambda: cu.cuGraphLaunch(ex, st))
        out.append(f"{row}: fused {fl:.1f} us triton {tl:.1f} us ratio {fl/tl:.2f} equal={ok} | graph nodes {len(ns)} {kinds} | torch replay {rp:.1f} us, cuGraphLaunch {direct:.1f} us")
    else:
        out.append(f"{row}: fused {fl:.1f} triton {tl:.1f} ratio {fl/tl:.2f} equal={ok}: no graph")

if r == 0:
    print(f"W={w} {torch.cuda.get_device_name()}")
    print("\n".join(out))
world.barrier()
