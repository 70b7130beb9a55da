# RUN: overlap-opt %s -t triton -o %t.py
# RUN: filecheck %s --input-file %t.py
# RUN: %python %S/inputs/parses.py < %t.py | filecheck %s --check-prefix=PARSE
import triton
import triton.language as tl


@triton.jit
def exprs(out_ptr, a, b, c, BLOCK: tl.constexpr):
    tl.store(out_ptr + 0, (a + b) * c)
    tl.store(out_ptr + 1, a - (b - c))
    tl.store(out_ptr + 2, a - b - c)
    tl.store(out_ptr + 3, a * (b // c))
    tl.store(out_ptr + 4, -(a + b))
    tl.store(out_ptr + 5, (a & b) | (c ^ a))
    tl.store(out_ptr + 6, (a < b) & (b < c))
    tl.store(out_ptr + 7, a % (b * c))
    tl.store(out_ptr + 8, (a + b).to(tl.float16))
    offs = tl.arange(0, BLOCK)
    rows = offs[:, None] * BLOCK + offs[None, :]
    tl.store(out_ptr + rows, tl.where(rows < a, rows, 0))
    m = tl.max(rows, axis=1, keep_dims=True)
    tl.store(out_ptr + offs, tl.sum(tl.trans(rows - m), axis=0))
    neg = float("-inf")
    tl.store(out_ptr, tl.maximum(a, neg))

# Unnamed single-use values are inlined with exactly the parentheses Python
# needs to keep the IR's evaluation order.
# CHECK-LABEL: def exprs(out_ptr, a, b, c, BLOCK: tl.constexpr):
# CHECK-NEXT:  tl.store(out_ptr + 0, (a + b) * c)
# CHECK-NEXT:  tl.store(out_ptr + 1, a - (b - c))
# CHECK-NEXT:  tl.store(out_ptr + 2, a - b - c)
# CHECK-NEXT:  tl.store(out_ptr + 3, a * (b // c))
# CHECK-NEXT:  tl.store(out_ptr + 4, -(a + b))
# CHECK-NEXT:  tl.store(out_ptr + 5, a & b | c ^ a)
# CHECK-NEXT:  tl.store(out_ptr + 6, (a < b) & (b < c))
# CHECK-NEXT:  tl.store(out_ptr + 7, a % (b * c))
# CHECK-NEXT:  tl.store(out_ptr + 8, (a + b).to(tl.float16))
# CHECK-NEXT:  offs = tl.arange(0, BLOCK)
# CHECK-NEXT:  rows = offs[:, None] * BLOCK + offs[None, :]
# CHECK-NEXT:  tl.store(out_ptr + rows, tl.where(rows < a, rows, 0))
# CHECK-NEXT:  m = tl.max(rows, axis=1, keep_dims=True)
# CHECK-NEXT:  tl.store(out_ptr + offs, tl.sum(tl.trans(rows - m), axis=0))
# CHECK-NEXT:  tl.store(out_ptr, tl.maximum(a, float('-inf')))
# CHECK-NOT:   neg

# The emitted file is Python (ast.parse).
# PARSE: parses: exprs{{$}}
