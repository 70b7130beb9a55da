# RUN: overlap-opt %s -t triton | filecheck %s
# `is None` tests are emitted as written: Triton 3.6 and 3.9 decide them when
# they compile (test/unit/lowering/test_optional_parameter.py runs them).
import triton
import triton.language as tl


@triton.jit
def optional_args(x_ptr, bias_ptr, res_ptr, out_ptr, n, ACT: tl.constexpr = None, BLOCK: tl.constexpr = 16):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if bias_ptr is not None:
        x += tl.load(bias_ptr + offs, mask=offs < n)
    HAS_RES = res_ptr is not None
    if HAS_RES:
        x += tl.load(res_ptr + offs, mask=offs < n)
    if None is ACT:
        x = tl.maximum(x, 0.0)
    keep = not (HAS_RES and bias_ptr is None)
    tl.store(out_ptr + offs, x, mask=keep)

# CHECK-LABEL: def optional_args(x_ptr, bias_ptr, res_ptr, out_ptr, n, ACT: tl.constexpr = None, BLOCK: tl.constexpr = 16):
# CHECK:       if bias_ptr is not None:
# CHECK:       HAS_RES = res_ptr is not None
# CHECK-NEXT:  if HAS_RES:
# CHECK:       if ACT is None:
# CHECK:       keep = not (HAS_RES and bias_ptr is None)
