# A wait walks its loop (chunk.wait_span_loop) only when it runs once per
# iteration: a load inside an `if` of the loop body may skip iterations, so
# its wait stays a plain chunk.wait_span (a skipped iteration would leave
# chunks unchecked).
# RUN: overlap-opt %s --plan 'all-gather{tensor=k_ptr world=2 size=N}' -p insert-signals | filecheck %s
import triton
import triton.language as tl


@triton.jit
def masked_walk(k_ptr, o_ptr, N, stride_n, LIMIT, BLOCK: tl.constexpr, D: tl.constexpr):
    ds = tl.arange(0, D)
    acc = tl.zeros((BLOCK, D), dtype=tl.float32)
    for start in range(0, N, BLOCK):
        if start < LIMIT:
            kv = start + tl.arange(0, BLOCK)
            acc += tl.load(k_ptr + kv[:, None] * stride_n + ds[None, :])
    tl.store(o_ptr + tl.arange(0, BLOCK)[:, None] * stride_n + ds[None, :], acc)

# CHECK:      scf.for %start
# CHECK:      scf.if
# CHECK:      chunk.wait_span %start, %BLOCK plan @ag tensor "k_ptr"
# CHECK-NOT:  chunk.wait_span_loop
