# RUN: overlap-opt %s -t triton -o %t.py
# RUN: filecheck %s --input-file %t.py
# RUN: %python %S/inputs/parses.py < %t.py | filecheck %s --check-prefix=PARSE
import triton
import triton.language as tl


@triton.jit
def control(out_ptr, n, K, STAGES: tl.constexpr, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    total = 0
    for k in range(0, K, BLOCK):
        acc += k
        total += 1
    for j in tl.range(n, num_stages=STAGES):
        total += j
    if n > 0:
        x = total * 2
    else:
        x = total
    i = 0
    while i < n:
        i += 2
    tl.store(out_ptr + tl.arange(0, BLOCK), acc + x + i)

# Loop-carried values keep their names (no copies); tl.range keeps its
# constexpr option; an if with results assigns in both branches.
# CHECK-LABEL: def control(out_ptr, n, K, STAGES: tl.constexpr, BLOCK: tl.constexpr):
# CHECK-NEXT:  acc = tl.zeros((BLOCK,), dtype=tl.float32)
# CHECK-NEXT:  total = 0
# CHECK-NEXT:  for k in range(0, K, BLOCK):
# CHECK-NEXT:      acc = acc + k
# CHECK-NEXT:      total = total + 1
# CHECK-NEXT:  for j in tl.range(0, n, num_stages=STAGES):
# CHECK-NEXT:      total = total + j
# CHECK-NEXT:  if n > 0:
# CHECK-NEXT:      [[X1:x(_1)?]] = total * 2
# CHECK:       else:
# CHECK-NEXT:      x = total
# CHECK-NEXT:  i = 0
# CHECK-NEXT:  while i < n:
# CHECK-NEXT:      i = i + 2
# CHECK-NEXT:  tl.store(out_ptr + tl.arange(0, BLOCK), acc + x + i)

# The emitted file is Python (ast.parse).
# PARSE: parses: control{{$}}
