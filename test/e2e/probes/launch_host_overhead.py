"""Device probe (not a test): eager host time of a fused launch against the
plain Triton launch of the same GEMM with the same arguments.

    torchrun --nproc-per-node=1 test/e2e/probes/launch_host_overhead.py
    SHAPE=4096x8192x4096 torchrun --nproc-per-node=1 test/e2e/probes/launch_host_overhead.py

It runs at any world size (W = 1 exercises the fused launch path with every
chunk local: the launch's host work without transfers). For each row, with
the bench's plain GEMM kernel (bf16, M x K x N from ``SHAPE``), the fused
kernel and the original one are launched back to back, rows interleaved
over ``ROUNDS`` rounds. After a warm-up, in which the launch tables are
built and the kernels compiled, each round times ``LAUNCHES`` eager
launches with a host clock, without synchronising in between, then
synchronises. The host time per launch is the median over rounds. Before timing,
every row's fused output is checked against the plain kernel's. Rank 0
prints both host times and their ratio; issue 33 asks for at most 1.3.
``SYNCOPATE_EAGER_GRAPHS=0`` times launches issued from Python instead of
replayed from their CUDA graphs (runtime/gpu/replay.py).
``LAUNCHES`` is small enough that the launch queue never fills, so the
host clock measures the host's work, not the device's.

``PROFILE=1``: every rank then also runs each fused row's launches under
cProfile, and rank 0 prints the 25 functions with the most own time, to show where
the host time of a launch goes. ``KERNEL=persistent`` (or ``tma``) times
that GEMM kernel instead of the pointer one.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import statistics
import time

import torch

LAUNCHES, ROUNDS, WARMUP = int(os.environ.get("LAUNCHES", "100")), int(os.environ.get("ROUNDS", "15")), 5
M, K, N = (int(x) for x in os.environ.get("SHAPE", "1024x1024x1024").split("x"))
ROWS = [("ag-gemm", "ce", 1), ("ag-gemm", "sm", 1), ("gemm-rs", "ce", 1), ("ag-gemm", "ce", 4)]  # (workload, backend, chunks per rank)


def main() -> None:
    os.environ.pop("TRITON_INTERPRET", None)
    from syncopate.bench.configs import GemmConfig
    from syncopate.bench.fused import program_for
    from syncopate.bench.gemm import gemm_kernel, launch_gemm
    from syncopate.runtime.fused import FusedKernel
    from syncopate.runtime.gpu import GpuWorld

    world = GpuWorld.from_torchrun()
    w, r = world.world, world.rank
    cfg = GemmConfig(128, 256, 64, 8, 3, os.environ.get("KERNEL", "ptr"))
    gen = torch.Generator().manual_seed(5)
    a_full = torch.randn(M, K, generator=gen).to(world.device, torch.bfloat16)
    b = (torch.randn(K, N, generator=gen) / 32).to(world.device, torch.bfloat16)
    gathered = world.symmetric(a_full)
    gathered.copy_(a_full)  # every rank holds every row: the fused and the plain kernel compute the same
    plain = gemm_kernel(cfg)
    rows, outputs = {}, {}
    for workload, backend, chunks in ROWS:
        program = program_for(workload, w, backend, "arrival", cfg, chunks)
        fused = FusedKernel(program, plain, world.context())
        a = gathered if workload == "ag-gemm" else a_full
        c_fused = torch.empty(M, N, dtype=torch.bfloat16, device=world.device)
        c_plain = torch.empty(M, N, dtype=torch.bfloat16, device=world.device)
        rows[(workload, backend, chunks, "fused")] = (lambda f=fused, a=a, c=c_fused: launch_gemm(f, a, b, c, cfg), [])
        rows[(workload, backend, chunks, "triton")] = (lambda a=a, c=c_plain: launch_gemm(plain, a, b, c, cfg), [])
        outputs[(workload, backend, chunks)] = (c_fused, c_plain)
    for run, _ in rows.values():
        for _ in range(WARMUP):
            run()
    torch.cuda.synchronize()
    world.barrier()
    for (workload, backend, chunks), (c_fused, c_plain) in outputs.items():
        check(workload, backend, chunks, c_fused, c_plain, w, r)
    for _ in range(ROUNDS):
        for run, host_us in rows.values():
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(LAUNCHES):
                run()
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            host_us.append((t1 - t0) / LAUNCHES * 1e6)
    if os.environ.get("PROFILE"):
        # every rank launches (a fused launch of W > 1 waits for its peers' tokens); rank 0 prints
        for (workload, backend, _chunks, kind), (run, _) in rows.items():
            if kind != "fused":
                continue
            torch.cuda.synchronize()
            world.barrier()
            profile = cProfile.Profile()
            profile.runcall(lambda run=run: [run() for _ in range(LAUNCHES)])
            torch.cuda.synchronize()
            if r == 0:
                print(f"--- cProfile of {LAUNCHES} eager launches: {workload} {backend} (own time) ---")
                pstats.Stats(profile).sort_stats("tottime").print_stats(25)
    world.barrier()
    if r == 0:
        print(f"fused launch host time, W = {w}, {M}x{K}x{N} bf16, {LAUNCHES} eager launches x {ROUNDS} rounds "
              f"({torch.cuda.get_device_name(world.device)})")
        graphs = "replayed from graphs" if world.eager_graphs else "issued from Python (SYNCOPATE_EAGER_GRAPHS=0)"
        print(f"steady-state fused launches {graphs}; every row's output checked against the plain kernel")
        print(f"{'row':22} {'fused us':>9} {'triton us':>10} {'ratio':>6}")
        for workload, backend, chunks in ROWS:
            fused = statistics.median(rows[(workload, backend, chunks, "fused")][1])
            triton = statistics.median(rows[(workload, backend, chunks, "triton")][1])
            name = f"{workload} {backend}" + (f" x{chunks}" if chunks > 1 else "")
            print(f"{name:22} {fused:9.1f} {triton:10.1f} {fused / triton:6.2f}")
    torch.distributed.destroy_process_group()


def check(workload: str, backend: str, chunks: int, c_fused, c_plain, w: int, r: int) -> None:
    """The fused output after the timed launches' warm-up: an all-gather
    GEMM's equals the plain kernel's on every row (every rank holds every
    row); a reduce-scatter's own rows are the sum of W equal partials."""
    if workload == "ag-gemm":
        got, want = c_fused.float(), c_plain.float()
    else:
        rows = slice(r * (M // w), (r + 1) * (M // w))
        got, want = c_fused[rows].float(), c_plain[rows].float() * w
    err = ((got - want).abs().max() / want.abs().max().clamp_min(1e-6)).item()
    if err > 2e-2:
        raise SystemExit(f"rank {r}: {workload} {backend} x{chunks}: fused output off by {err:.3g} (relative max)")


if __name__ == "__main__":
    main()
