# A call option given as a runtime value (not a literal, not a constexpr parameter) is refused naming the call.
# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def runtime_option(a_ptr, c_ptr, flag, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :])
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], tl.dot(a, a, allow_tf32=flag))

# CHECK: err-runtime-option.py:11: unsupported tl.dot arguments (options must be literals): `tl.dot(a, a, allow_tf32=flag)`
