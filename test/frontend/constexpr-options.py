# A call option given as a constexpr parameter (attorch: `tl.dot(a, b, allow_tf32=ALLOW_TF32)`) is kept as
# that name, emitted as written (err-runtime-option.py: a runtime value is refused).
# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
import triton
import triton.language as tl


@triton.jit
def dots(a_ptr, b_ptr, c_ptr, ALLOW_TF32: tl.constexpr, OUT: tl.constexpr, CACHE: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :], cache_modifier=CACHE)
    b = tl.load(b_ptr + r[:, None] * BLOCK + r[None, :])
    c = tl.dot(a, b, allow_tf32=ALLOW_TF32)
    d = tl.dot(a, b, out_dtype=OUT)
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], c + d)


# CHECK: tile.load {{.*}}static_kwargs = {cache_modifier = @CACHE}
# CHECK: %c = tile.dot %a, %b {static_kwargs = {allow_tf32 = @ALLOW_TF32}} : {{.*}} -> !tile.any
# CHECK: %d = tile.dot %a, %b {static_kwargs = {out_dtype = @OUT}} : {{.*}} -> !tile.any
# EMIT: a = tl.load({{.*}}, cache_modifier=CACHE)
# EMIT: c = tl.dot(a, b, allow_tf32=ALLOW_TF32)
# EMIT: d = tl.dot(a, b, out_dtype=OUT)
