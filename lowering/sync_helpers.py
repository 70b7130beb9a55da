"""Triton helpers that lower-chunk-to-tile and tile-reorder call.

They are imported with syncopate's own frontend and appended to the module,
so the fused kernel's file is self-contained. Flags are int32 words of this
rank's signal pad, one per chunk (index = the plan's flag base + chunk id).
A chunk table holds rows ``(lo, hi, flag index)``: the chunks of one plan
tensor that this rank receives (waits) or produces (signals), as half-open
ranges along the plan's dim. Flags only grow: a delivered chunk's flag is
set to the launch's ``epoch``; a produced chunk's flag gets one increment
per tile, so it is complete at ``epoch * tiles``.
"""

import triton
import triton.language as tl


@triton.jit
def syn_wait_span(flags, table, n, lo, hi, epoch):
    for i in range(0, n):
        chunk_lo = tl.load(table + 3 * i)
        chunk_hi = tl.load(table + 3 * i + 1)
        if (chunk_lo < hi) & (chunk_hi > lo):
            flag = flags + tl.load(table + 3 * i + 2)
            while tl.atomic_add(flag, 0, sem="acquire", scope="sys") < epoch:
                pass
    tl.debug_barrier()


@triton.jit
def syn_signal_span(flags, table, n, lo, hi):
    tl.debug_barrier()
    for i in range(0, n):
        chunk_lo = tl.load(table + 3 * i)
        chunk_hi = tl.load(table + 3 * i + 1)
        if (chunk_lo < hi) & (chunk_hi > lo):
            tl.atomic_add(flags + tl.load(table + 3 * i + 2), 1, sem="release", scope="sys")


@triton.jit
def syn_wait_chunk(flags, index, epoch):
    while tl.atomic_add(flags + index, 0, sem="acquire", scope="sys") < epoch:
        pass
    tl.debug_barrier()


@triton.jit
def syn_signal_chunk(flags, index):
    tl.debug_barrier()
    tl.atomic_add(flags + index, 1, sem="release", scope="sys")


@triton.jit
def syn_tile_linear(order):
    n0 = tl.num_programs(0)
    n1 = tl.num_programs(1)
    linear = tl.program_id(0) + tl.program_id(1) * n0 + tl.program_id(2) * n0 * n1
    return tl.load(order + linear)


@triton.jit
def syn_tile_pid0(order):
    return syn_tile_linear(order) % tl.num_programs(0)


@triton.jit
def syn_tile_pid1(order):
    return (syn_tile_linear(order) // tl.num_programs(0)) % tl.num_programs(1)


@triton.jit
def syn_tile_pid2(order):
    return syn_tile_linear(order) // (tl.num_programs(0) * tl.num_programs(1))
