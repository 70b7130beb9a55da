"""Device probe (not a test): does a four-byte copy need an SM? Every
thread slot of every SM is filled with spinning programs, then a copy on
another stream writes the word that releases them. A copy that runs as a
kernel cannot start, and the spinners give up after ``LIMIT`` polls.

    torchrun --standalone --nproc-per-node=2 test/e2e/probes/copy_needs_sm.py

Modes: a copy within this GPU, a copy into the next rank's symmetric
buffer, and the same peer copy replayed from a CUDA graph.
"""

from __future__ import annotations

import time

import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem
import triton
import triton.language as tl
from cuda.bindings import driver

LIMIT = 1 << 22


@triton.jit
def spin(word, counter, out, LIMIT: tl.constexpr):
    tl.atomic_add(counter, 1, sem="release", scope="sys")
    i = 0
    seen = tl.atomic_add(word, 0, sem="acquire", scope="sys")
    while (seen < 1) & (i < LIMIT):
        seen = tl.atomic_add(word, 0, sem="acquire", scope="sys")
        i += 1
    tl.store(out + tl.program_id(0), i)


def main() -> None:
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(rank)
    pad = symm_mem.empty(16, dtype=torch.int32, device="cuda")
    handle = symm_mem.rendezvous(pad, dist.group.WORLD.group_name)
    one = torch.ones(1, dtype=torch.int32, device="cuda")
    programs = 2 * torch.cuda.get_device_properties(rank).multi_processor_count  # 2 x 1024 threads fill an SM
    geq = int(driver.CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ)
    for mode in ("copy within this GPU", "copy to the next rank", "graph: copy to the next rank"):
        target = pad if mode == "copy within this GPU" else handle.get_buffer((rank + 1) % world, (16,), torch.int32)
        graph = None
        if mode.startswith("graph"):
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.stream(torch.cuda.Stream()):
                graph.capture_begin(capture_error_mode="thread_local")
                target[0:1].copy_(one, non_blocking=True)
                graph.capture_end()
        pad.zero_()
        counter = torch.zeros(1, dtype=torch.int32, device="cuda")
        out = torch.zeros(programs, dtype=torch.int32, device="cuda")
        torch.cuda.synchronize()
        dist.barrier()
        spinners, releaser = torch.cuda.Stream(), torch.cuda.Stream()
        with torch.cuda.stream(spinners):
            spin[(programs,)](pad, counter, out, LIMIT=LIMIT, num_warps=32)
        with torch.cuda.stream(releaser):  # only once every spinner runs: every thread slot is taken
            driver.cuStreamWaitValue32(driver.CUstream(releaser.cuda_stream), driver.CUdeviceptr(counter.data_ptr()),
                                       programs, geq)
            graph.replay() if graph is not None else target[0:1].copy_(one, non_blocking=True)
        t0 = time.perf_counter()
        torch.cuda.synchronize()
        gave_up = int(out.max()) >= LIMIT
        print(f"rank {rank} {mode}: {'needs an SM (the spinners gave up)' if gave_up else 'ran while every SM was full'}"
              f", {(time.perf_counter() - t0) * 1e3:.1f} ms", flush=True)
        dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
