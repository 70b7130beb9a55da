"""Device probe (not a test): how fast are the all-gather pulls the ce backend
issues, alone, with flag writes, on lanes, and while a full grid of programs
polls a flag (atomic, volatile, or with nanosleep between polls)?

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \\
    ROWS=1024 torchrun --nproc-per-node=4 test/e2e/probes/copy_contention.py

Each rank pulls the W-1 peer shards (ROWS x 8192 bf16 each) of a symmetric
buffer the way ``GpuRank._deliver`` does (peer views, ``copy_`` on the
communication stream, ``_write_value`` flags), timed with CUDA events after
a barrier; the table shows the median, maximum over ranks. Rank 0 prints;
every rank checks the gathered rows.
The nanosleep rows use inline PTX: NVIDIA GPUs only.
"""

import os

import torch
import torch.distributed as dist
import triton
import triton.language as tl

from syncopate.runtime.gpu.device import write_value as _write_value
from syncopate.runtime.gpu import GpuWorld


@triton.jit
def spin_atomic(flag, target):
    seen = tl.atomic_add(flag, 0, sem="acquire", scope="sys")
    while seen < target:
        seen = tl.atomic_add(flag, 0, sem="acquire", scope="sys")


@triton.jit
def spin_volatile(flag, target):
    seen = tl.load(flag, volatile=True)
    while seen < target:
        seen = tl.load(flag, volatile=True)
    tl.atomic_add(flag, 0, sem="acquire", scope="sys")


@triton.jit
def spin_sleep(flag, target, NS: tl.constexpr):
    seen = tl.atomic_add(flag, 0, sem="acquire", scope="sys")
    while seen < target:
        tl.inline_asm_elementwise(f"nanosleep.u32 {NS}; mov.u32 $0, 0;", "=r", [], dtype=tl.int32, is_pure=False,
                                  pack=1)
        seen = tl.atomic_add(flag, 0, sem="acquire", scope="sys")


def main() -> None:
    w = GpuWorld.from_torchrun()
    rank, world, device = w.rank, w.world, w.device
    rows_per, cols = int(os.environ.get("ROWS", "1024")), 8192
    buf = w.symmetric(torch.empty(rows_per * world, cols, dtype=torch.bfloat16))
    buf[rank * rows_per:(rank + 1) * rows_per].fill_(rank)
    flags = w.symmetric(torch.empty(64, dtype=torch.int32))
    flags.zero_()
    sources = [(rank - 1 - k) % world for k in range(world - 1)]  # the ring order of the all-gather template
    peers = [w.peer_view(buf, s) for s in sources]
    lanes = [torch.cuda.Stream(device, priority=-1) for _ in range(world)]
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    torch.cuda.synchronize()
    w.barrier()
    epoch = [0]

    def pulls(on_lanes: bool, flag_writes: bool, spin=None) -> None:
        epoch[0] += 1
        e = epoch[0]
        current = torch.cuda.current_stream()
        w.comm_stream.wait_stream(current)
        for lane in lanes:
            lane.wait_stream(current)
        if spin is not None:  # a full grid that holds every SM until the last flag write
            kernel, warps, constexprs = spin
            kernel[(sms,)](flags[world:], e, num_warps=warps, **constexprs)
        for i, (src, view) in enumerate(zip(sources, peers)):
            with torch.cuda.stream(lanes[i] if on_lanes else w.comm_stream):
                part = slice(src * rows_per, (src + 1) * rows_per)
                buf[part].copy_(view[part], non_blocking=True)
                if flag_writes:
                    _write_value(flags, i, e)
        for lane in lanes:
            w.comm_stream.wait_stream(lane)
        if spin is not None:
            with torch.cuda.stream(w.comm_stream):
                _write_value(flags, world, e)
        current.wait_stream(w.comm_stream)

    def timed(name: str, fn, iters: int = 30) -> None:
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(iters):
            w.barrier()
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        median = sorted(times)[len(times) // 2]
        every = [None] * world
        dist.all_gather_object(every, median)
        if rank == 0:
            gib = rows_per * cols * 2 * (world - 1) / 2**30
            print(f"{name:<48} {max(every):.3f} ms  ({gib / max(every) * 1000:.0f} GiB/s pulled per rank)", flush=True)

    gathered = torch.empty(rows_per * world, cols, dtype=torch.bfloat16, device=device)
    shard = buf[rank * rows_per:(rank + 1) * rows_per].clone()
    if rank == 0:
        print(f"W={world}, {rows_per} rows x {cols} bf16 per shard ({rows_per * cols * 2 / 2**20:.0f} MiB)")
    timed("NCCL all_gather_into_tensor", lambda: dist.all_gather_into_tensor(gathered, shard))
    timed("ce pulls, one stream", lambda: pulls(False, False))
    timed("ce pulls, one stream + flag writes", lambda: pulls(False, True))
    timed("ce pulls on W-1 lanes + flag writes", lambda: pulls(True, True))
    timed("one stream + flags, grid polling (atomic)", lambda: pulls(False, True, (spin_atomic, 8, {})))
    timed("one stream + flags, grid polling (atomic, 1 warp)", lambda: pulls(False, True, (spin_atomic, 1, {})))
    timed("one stream + flags, grid polling (volatile)", lambda: pulls(False, True, (spin_volatile, 8, {})))
    for ns in (100, 500, 2000):
        timed(f"one stream + flags, grid polling (nanosleep {ns})",
              lambda ns=ns: pulls(False, True, (spin_sleep, 8, {"NS": ns})))
    ok = all(bool((buf[s * rows_per:(s + 1) * rows_per] == s).all()) for s in range(world))
    print(f"rank {rank}: gathered rows correct: {ok}", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
