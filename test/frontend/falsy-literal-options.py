# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
# Call options whose literal is False or 0 (FlagGems: `tl.dot(a, b,
# allow_tf32=False)`) are literals like any other, not runtime values.
import triton
import triton.language as tl


@triton.jit
def dots(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :], volatile=False)
    b = tl.load(b_ptr + r[:, None] * BLOCK + r[None, :])
    c = tl.dot(a, b, allow_tf32=False)
    for k in tl.range(0, 4, num_stages=0):
        c += 1.0
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], c)

# CHECK: tile.load {{.*}}static_kwargs = {volatile = false}
# CHECK: %c = tile.dot %a, %b {static_kwargs = {allow_tf32 = false}}
# EMIT: tl.load({{.*}}, volatile=False)
# EMIT: c = tl.dot(a, b, allow_tf32=False)
# EMIT: tl.range(0, 4, num_stages=0)
