"""Device probe (not a test): what the readiness and release tokens of
consumed plans (runtime/gpu/gather_tokens.py) cost per launch.

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \\
    torchrun --nproc-per-node=2 test/e2e/probes/gather_token_cost.py

For each backend (ce, sm), two copies of the same fused all-gather GEMM are
launched back to back with fixed inputs: one with the tokens, one with them
switched off (unsafe with changing inputs; here the rows never change, so
both compute the same result, which is checked). Each is timed over
``LAUNCHES`` launches with CUDA events (device time per launch) and a host
clock (host time per launch), rows interleaved over ``ROUNDS`` rounds;
rank 0 prints the medians and the difference. Shapes: M x K x N below
(bf16), the bench's plain GEMM kernel.
"""

from __future__ import annotations

import os
import statistics
import time

import torch

LAUNCHES, ROUNDS = 200, 5
M, K, N = (int(x) for x in os.environ.get("SHAPE", "4096x4096x4096").split("x"))


def main() -> None:
    os.environ.pop("TRITON_INTERPRET", None)
    from syncopate.bench.configs import GemmConfig
    from syncopate.bench.fused import _PROGRAMS, program_for
    from syncopate.bench.gemm import gemm_kernel, launch_gemm
    from syncopate.runtime import gpu as gpu_world
    from syncopate.runtime.fused import FusedKernel
    from syncopate.runtime.gpu import ce, gather_tokens
    from syncopate.runtime.gpu import rank as gpu_rank

    world = gpu_world.GpuWorld.from_torchrun()
    w, r = world.world, world.rank
    cfg = GemmConfig(128, 256, 64, 8, 3, "ptr")
    gen = torch.Generator().manual_seed(3)
    a_full = torch.randn(M, K, generator=gen).to(world.device, torch.bfloat16)
    b = (torch.randn(K, N, generator=gen) / 32).to(world.device, torch.bfloat16)
    reference = a_full.float() @ b.float()
    lo, hi = r * M // w, (r + 1) * M // w
    results = {}
    real_reads, real_delivery = gpu_rank.peer_reads, ce.plan_delivery

    def untokened_delivery(w_, sources, lanes, plan, chunks, params, tokens, awaited):
        # every owner counts as already awaited: the copies wait for no ready token
        return real_delivery(w_, sources, lanes, plan, chunks, params, tokens, set(range(w_.world)))
    for backend in ("ce", "sm"):
        for tokens in (True, False):
            _PROGRAMS.clear()  # a program of its own: its own launch tables and pad
            program = program_for("ag-gemm", w, backend, "arrival", cfg, 1)
            kernel = FusedKernel(program, gemm_kernel(cfg), world.context())
            buf = world.symmetric(a_full)
            buf.copy_(a_full)  # every rank holds every row: no read can see stale data
            out = torch.empty(M, N, dtype=torch.bfloat16, device=world.device)
            # without tokens: no announce, no release, and no copy waits for a ready token (with the
            # announce gone, a copy that still waited would wait forever)
            gpu_rank.peer_reads = real_reads if tokens else (lambda *a: gather_tokens.PeerReads((), {}))
            ce.plan_delivery = real_delivery if tokens else untokened_delivery
            launch_gemm(kernel, buf, b, out, cfg)  # builds the tables (with or without tokens)
            torch.cuda.synchronize()
            ok = torch.allclose(out.float()[lo:hi], reference[lo:hi], atol=0.5, rtol=0.05)
            results[(backend, tokens)] = (kernel, buf, out, ok, [], [])
            if r == 0:  # compiling four fused programs takes minutes: show progress
                print(f"built {backend} tokens={tokens}: check {'ok' if ok else 'FAILED'}", flush=True)
    gpu_rank.peer_reads, ce.plan_delivery = real_reads, real_delivery
    for round_ in range(ROUNDS):
        if r == 0:
            print(f"round {round_ + 1}/{ROUNDS}", flush=True)
        for (backend, tokens), (kernel, buf, out, ok, device_ms, host_us) in results.items():
            world.barrier()
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            t0 = time.perf_counter()
            start.record()
            for _ in range(LAUNCHES):
                launch_gemm(kernel, buf, b, out, cfg)
            end.record()
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            device_ms.append(start.elapsed_time(end) / LAUNCHES)
            host_us.append((t1 - t0) / LAUNCHES * 1e6)
    if r == 0:
        print(f"gather tokens, W = {w}, AG {M}x{K}x{N} bf16, {LAUNCHES} back-to-back launches x {ROUNDS} rounds")
        print(f"{'backend':8} {'tokens':7} {'device us/launch':>17} {'host us/launch':>15} check")
        for (backend, tokens), (_k, _b, _o, ok, device_ms, host_us) in results.items():
            print(f"{backend:8} {str(tokens):7} {statistics.median(device_ms) * 1e3:17.1f} "
                  f"{statistics.median(host_us):15.1f} {'ok' if ok else 'FAIL'}")
        for backend in ("ce", "sm"):
            on, off = results[(backend, True)], results[(backend, False)]
            cost = (statistics.median(on[4]) - statistics.median(off[4])) * 1e3
            host = statistics.median(on[5]) - statistics.median(off[5])
            print(f"TOKEN COST {backend}: {cost:+.1f} us device, {host:+.1f} us host per launch")
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
