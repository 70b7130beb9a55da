# A chained comparison `a <= b < c` is `(a <= b) & (b < c)` with `b` evaluated
# once (as Python and Triton 3.9 read it); emitted with `&`, which Triton 3.6's
# code generator accepts where it refuses the chain. An `is` inside a chain
# is refused.
# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
# RUN: sed -e 's/0 <= offs < n/0 <= offs is None/' %s > %t.py && not overlap-opt %t.py 2>&1 | filecheck %s --check-prefix=IS
import triton
import triton.language as tl


@triton.jit
def inside(x_ptr, n, lo, BLOCK: tl.constexpr):
    offs = lo + tl.arange(0, BLOCK)
    mask = 0 <= offs < n
    ok = 0 < lo <= n < 4096
    tl.store(x_ptr + offs, 1.0, mask=mask & ok)

# CHECK:      %[[A:.*]] = tile.cmp "le", %{{.*}}, %offs
# CHECK-NEXT: %[[B:.*]] = tile.cmp "lt", %offs, %n
# CHECK-NEXT: %mask = tile.and %[[A]], %[[B]] : !tile.block<?xi1>, !tile.block<?xi1> -> !tile.block<?xi1>
# CHECK:      tile.cmp "lt", %{{.*}}, %lo
# CHECK:      tile.cmp "le", %lo, %n
# CHECK:      tile.and
# CHECK:      tile.cmp "lt", %n, %{{.*}}
# CHECK-NEXT: %ok = tile.and

# EMIT:       mask = (0 <= offs) & (offs < n)
# EMIT-NEXT:  ok = (0 < lo) & (lo <= n) & (n < 4096)

# IS: {{.*}}.py:15: unsupported identity test in a chained comparison: `0 <= offs is None`
