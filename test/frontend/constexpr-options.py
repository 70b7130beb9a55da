# A call option given as a constexpr parameter (attorch: `tl.dot(a, b, allow_tf32=ALLOW_TF32)`, the
# tutorials' `input_precision=PRECISION`) is kept as that name, emitted as written; a literal
# `input_precision="ieee"` with an accumulator too (err-runtime-option.py: a runtime value is refused).
# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
import triton
import triton.language as tl


@triton.jit
def dots(a_ptr, b_ptr, c_ptr, ALLOW_TF32: tl.constexpr, OUT: tl.constexpr, CACHE: tl.constexpr, BLOCK: tl.constexpr,
         PRECISION: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :], cache_modifier=CACHE)
    b = tl.load(b_ptr + r[:, None] * BLOCK + r[None, :])
    c = tl.dot(a, b, allow_tf32=ALLOW_TF32)
    d = tl.dot(a, b, out_dtype=OUT)
    e = tl.dot(a, b, c, input_precision=PRECISION)
    e = tl.dot(a, b, acc=e, input_precision="ieee")
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], c + d + e)


# CHECK: tile.load {{.*}}static_kwargs = {cache_modifier = @CACHE}
# CHECK: %c = tile.dot %a, %b {static_kwargs = {allow_tf32 = @ALLOW_TF32}} : {{.*}} -> !tile.any
# CHECK: %d = tile.dot %a, %b {static_kwargs = {out_dtype = @OUT}} : {{.*}} -> !tile.any
# CHECK: %e = tile.dot %a, %b acc %c : !tile.any {static_kwargs = {input_precision = @PRECISION}}
# CHECK: %e_1 = tile.dot %a, %b acc %e : !tile.any {static_kwargs = {input_precision = "ieee"}}
# EMIT: a = tl.load({{.*}}, cache_modifier=CACHE)
# EMIT: c = tl.dot(a, b, allow_tf32=ALLOW_TF32)
# EMIT: d = tl.dot(a, b, out_dtype=OUT)
# EMIT: e = tl.dot(a, b, c, input_precision=PRECISION)
# EMIT: e = tl.dot(a, b, e, input_precision='ieee')
