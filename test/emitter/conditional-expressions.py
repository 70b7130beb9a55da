# `a if c else b` on compile-time values is written back as that expression, so a block shape that reads it
# stays a constexpr (an `if` statement assigning a temporary would not); on runtime values it stays an `if`.
# RUN: overlap-opt %s -t triton -o %t.py
# RUN: filecheck %s --input-file %t.py
# RUN: %python %S/inputs/parses.py < %t.py | filecheck %s --check-prefix=PARSE
import triton
import triton.language as tl


@triton.jit
def halves(y_ptr, M, N, n, BM: tl.constexpr, BN: tl.constexpr, SPLIT: tl.constexpr):
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN if not SPLIT else BN // 2])
    width = BN // 2 if SPLIT else BN
    start = 0 if n > 4 else 1
    cols = start + tl.arange(0, width)
    y_desc.store([0, 0], tl.zeros((BM, BN // 2 if SPLIT else BN), dtype=tl.float32) + cols[None, :])

# CHECK: y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN if not SPLIT else BN // 2])
# CHECK: width = BN // 2 if SPLIT else BN
# CHECK: if n > 4:
# CHECK-NEXT: start = 0
# CHECK-NEXT: else:
# CHECK-NEXT: start = 1
# CHECK: tl.zeros((BM, BN // 2 if SPLIT else BN), dtype=tl.float32)
# PARSE: parses: halves
