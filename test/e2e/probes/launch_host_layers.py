"""Device probe (not a test): the host time of one steady-state fused launch,
layer by layer, beside the plain Triton launch (1024^3 bf16).

    torchrun --standalone --nproc-per-node=2 test/e2e/probes/launch_host_layers.py

Rows: the whole launch through ``launch_gemm``; ``FusedKernel``'s call with
the arguments bound; the repeat closure alone (a replay without keys);
``arguments_key`` alone; the graph's ``replay()`` alone; the plain kernel
through ``launch_gemm`` and called directly. Host us per call, the median
over ``ROUNDS`` rounds of ``LAUNCHES`` calls (graph_node_cost.py's clock).
"""

from __future__ import annotations

import torch
from graph_node_cost import host_us  # this folder is the script's, so first on sys.path

from syncopate.bench.configs import GemmConfig
from syncopate.bench.fused import program_for
from syncopate.bench.gemm import gemm_kernel, grid, kernel_constexprs, launch_gemm
from syncopate.runtime.fused import FusedKernel, arguments_key
from syncopate.runtime.gpu import GpuWorld

M = K = N = 1024


def main() -> None:
    world = GpuWorld.from_torchrun()
    cfg = GemmConfig(128, 256, 64, 8, 3, "ptr")
    gen = torch.Generator().manual_seed(5)
    a_full = torch.randn(M, K, generator=gen).to(world.device, torch.bfloat16)
    b = (torch.randn(K, N, generator=gen) / 32).to(world.device, torch.bfloat16)
    gathered = world.symmetric(a_full)
    gathered.copy_(a_full)
    plain = gemm_kernel(cfg)
    lines = []
    for workload, backend in (("ag-gemm", "ce"), ("ag-gemm", "sm"), ("gemm-rs", "ce")):
        fused = FusedKernel(program_for(workload, world.world, backend, "arrival", cfg, 1), plain, world.context())
        a = gathered if workload == "ag-gemm" else a_full
        c = torch.empty(M, N, dtype=torch.bfloat16, device=world.device)
        before = set(world.launches)
        for _ in range(5):  # the second launch is captured; later ones replay
            launch_gemm(fused, a, b, c, cfg)
        torch.cuda.synchronize()
        world.barrier()
        cached = [world.launches[k] for k in world.launches if k not in before][0]
        graph = next(iter(cached.graphs.graphs.values()))
        g = grid(M, N, cfg, a.device, 0)
        args = (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
        kwargs = {**kernel_constexprs(cfg, g[0]), **cfg.launch_options()}
        (repeat,) = fused._repeats.values()
        rows = {
            "launch_gemm(fused)": lambda: launch_gemm(fused, a, b, c, cfg),
            "fused[g](...)": lambda: fused[g](*args, **kwargs),
            "repeat()": repeat,
            "arguments_key": lambda: arguments_key(g, args, kwargs),
            "graph.replay()": graph.replay,
            "launch_gemm(triton)": lambda: launch_gemm(plain, a_full, b, c, cfg),
            "plain[g](...)": lambda: plain[g](*args, **kwargs),
        }
        lines.append(f"{workload} {backend}: " + ", ".join(f"{k} {host_us(f):.1f}" for k, f in rows.items()))
    if world.rank == 0:
        print(f"W={world.world} {torch.cuda.get_device_name()}: host us per call")
        print("\n".join(lines))
    world.barrier()


if __name__ == "__main__":
    main()
