# RUN: not overlap-opt %s 2>&1 | filecheck %s
# RUN: not overlap-opt %S/inputs/block_pointer_helper/early_exit.py 2>&1 | filecheck %s --check-prefix=EARLY
# RUN: not overlap-opt %S/inputs/block_pointer_helper/returned_then_value.py 2>&1 | filecheck %s --check-prefix=VALUE
# A helper that moves or reads a parameter as a block pointer is inlined at
# every call, so each call must pass a block pointer there (a plain pointer
# has no offsets to move: Triton refuses `tl.advance` on it too); an early
# `return` in such a helper is refused at its line; a block pointer a helper
# returns is a record like any other, not a value for arithmetic.
import triton
import triton.language as tl


@triton.jit
def walk(x_block, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for _ in range(0, n, BLOCK):
        acc += tl.load(x_block, boundary_check=(0,))
        x_block = tl.advance(x_block, (BLOCK,))
    return acc


@triton.jit
def kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    tl.store(y_ptr + tl.arange(0, BLOCK), walk(x_ptr + tl.arange(0, BLOCK), n, BLOCK))

# CHECK: err-block-pointer-helper.py:24: jit helper `walk` moves or reads `x_block` as a block pointer (tl.advance, boundary_check), but `x_ptr + tl.arange(0, BLOCK)` is no block pointer made by tl.make_block_ptr
# EARLY: early_exit.py:8: jit helper `first_block` takes or makes a block pointer, so it is inlined where it is called; end it in its only `return`
# VALUE: returned_then_value.py:13: a block pointer cannot be used as a value here: `moved(x_block, BLOCK) + 1`
