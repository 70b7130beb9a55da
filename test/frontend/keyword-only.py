# RUN: overlap-opt %s | filecheck %s
# Keyword-only parameters (after `*`) are parameters like the others, in
# declaration order, with their defaults and annotations; a jit helper's
# keyword-only parameter is passed by keyword.
import triton
import triton.language as tl


@triton.jit
def scaled(x, *, factor):
    return x * factor


@triton.jit
def kw_kernel(x_ptr, n, *, out_ptr, scale: tl.float32, BLOCK: tl.constexpr, MODE: tl.constexpr = "fast"):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, scaled(x, factor=scale), mask=offs < n)

# CHECK-LABEL: tile.func @scaled(%x: !tile.any, %factor: !tile.any) -> !tile.any
# The pointer scan sees a keyword-only pointer (`out_ptr + offs`).
# CHECK-LABEL: tile.func @kw_kernel(%x_ptr: !tile.ptr, %n: !tile.scalar, %out_ptr: !tile.ptr, %scale: !tile.scalar, %BLOCK: !tile.constexpr, %MODE: !tile.constexpr)
# CHECK-SAME:  defaults = {MODE = "'fast'"}
# CHECK-SAME:  arg_annotations = {scale = "tl.float32"}
# CHECK:       tile.call_jit @scaled(%x, %scale)
