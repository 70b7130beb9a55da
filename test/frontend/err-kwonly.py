# RUN: not overlap-opt %s 2>&1 | filecheck %s
# Keyword-only parameters become ordinary ones in the emitted kernel (Triton
# 3.6 does not bind keyword-only parameters): one without a default cannot
# follow one with a default. See keyword-only.py for the forms that import.
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, n, SCALE: tl.constexpr = 2, *, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, n * SCALE)

# CHECK: {{.*}}err-kwonly.py:10: keyword-only parameter `BLOCK` of `bad` has no default but follows `SCALE`, which has one: the emitted kernel declares keyword-only parameters as ordinary ones (Triton 3.6's @triton.jit does not bind keyword-only parameters), so give `BLOCK` a default or declare it before `SCALE`
