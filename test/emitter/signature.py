# RUN: overlap-opt %s -t triton -o %t.py
# RUN: filecheck %s --input-file %t.py
# RUN: %python %S/inputs/parses.py < %t.py | filecheck %s --check-prefix=PARSE
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"BLOCK": 64}, num_warps=4), triton.Config({"BLOCK": 128}, num_warps=8, num_stages=3)],
    key=["n"],
)
@triton.jit
def scaled_copy(x_ptr, out_ptr, n: tl.int32, scale, BLOCK: tl.constexpr, EVEN: tl.constexpr = False, MODE: tl.constexpr = "fast"):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x * scale, mask=mask)


@triton.jit
def helper(a, b):
    return a + b, a - b


@triton.jit
def uses_helper(p, n):
    s, d = helper(n, 2)
    tl.store(p, s * d)

# Decorators (the autotune configs as written), parameter order, annotations
# and defaults survive; helpers are emitted as jit functions too.
# CHECK:      import triton
# CHECK-NEXT: import triton.language as tl
# CHECK:      @triton.autotune(configs=[triton.Config({'BLOCK': 64}, num_warps=4), triton.Config({'BLOCK': 128}, num_warps=8, num_stages=3)], key=['n'])
# CHECK-NEXT: @triton.jit
# CHECK-NEXT: def scaled_copy(x_ptr, out_ptr, n: tl.int32, scale, BLOCK: tl.constexpr, EVEN: tl.constexpr = False, MODE: tl.constexpr = 'fast'):
# CHECK-NEXT:     pid = tl.program_id(axis=0)
# CHECK-NEXT:     offs = pid * BLOCK + tl.arange(0, BLOCK)
# CHECK-NEXT:     mask = offs < n
# CHECK-NEXT:     x = tl.load(x_ptr + offs, mask=mask, other=0.0)
# CHECK-NEXT:     tl.store(out_ptr + offs, x * scale, mask=mask)
# CHECK:      @triton.jit
# CHECK-NEXT: def helper(a, b):
# CHECK-NEXT:     return a + b, a - b
# CHECK:      @triton.jit
# CHECK-NEXT: def uses_helper(p, n):
# CHECK-NEXT:     s, d = helper(n, 2)
# CHECK-NEXT:     tl.store(p, s * d)

# The emitted file is Python (ast.parse).
# PARSE: parses: scaled_copy, helper, uses_helper{{$}}
