# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
# `offset + pointer` is the same address as `pointer + offset` (attorch:
# `tl.store(feat_pid + mean_pointer, mean)`): a tile.addptr with the pointer
# first. A parameter written on the right of a memory op's pointer operand
# is the pointer when no parameter heads the left.
import triton
import triton.language as tl


@triton.jit
def row_sums(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(row * N + x_ptr + cols, mask=cols < N, other=0.0)
    tl.store(row + out_ptr, tl.sum(x, axis=0))

# CHECK:      tile.func @row_sums(%x_ptr: !tile.ptr, %out_ptr: !tile.ptr, %N: !tile.scalar
# CHECK:      %[[R:.*]] = tile.mul %row, %N
# CHECK-NEXT: tile.addptr %x_ptr, %[[R]] : !tile.ptr, !tile.scalar -> !tile.ptr
# CHECK:      %[[P:.*]] = tile.addptr %out_ptr, %row : !tile.ptr, i32 -> !tile.ptr
# CHECK:      tile.store %{{.*}}, %[[P]]
# EMIT:       tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
# EMIT:       tl.store(out_ptr + row, tl.sum(x, axis=0))


# A local computed from a pointer parameter heads the sum: the parameter
# added to it is an offset (vLLM's `input_ptrs + d`), not a pointer.
@triton.jit
def up_half(input, output, d, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    input_ptrs = input + tl.program_id(0) * 2 * d + offs
    tl.store(output + offs, tl.load(input_ptrs + d))

# CHECK-LABEL: tile.func @up_half(%input: !tile.ptr, %output: !tile.ptr, %d: !tile.scalar
