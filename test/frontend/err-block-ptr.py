# Block pointers are refused at the call, with the rewrites that fuse (pointer arithmetic
# with loop-carried increments, or a tensor descriptor); Triton 3.9 removed them.
# RUN: not overlap-opt %s 2>&1 | filecheck %s
# Edge: tl.advance on its own is refused the same way (here on a plain pointer).
# RUN: sed -e 's/, boundary_check=(0, 1)//' -e '/offsets=(pid_m \* BLOCK_M, 0)/d' -e 's/= tl.make_block_ptr(.*/= a_ptr/' %s > %t.py
# RUN: not overlap-opt %t.py 2>&1 | filecheck %s --check-prefix=ADVANCE
import triton
import triton.language as tl


@triton.jit
def bp_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_block = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_block = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, pid_n * BLOCK_N), (BLOCK_K, BLOCK_N), (1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_block, boundary_check=(0, 1))
        b = tl.load(b_block, boundary_check=(0, 1))
        acc += tl.dot(a, b)
        a_block = tl.advance(a_block, (0, BLOCK_K))
        b_block = tl.advance(b_block, (BLOCK_K, 0))
    c_block = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn), (pid_m * BLOCK_M, pid_n * BLOCK_N), (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_block, acc, boundary_check=(0, 1))

# CHECK: {{.*}}err-block-ptr.py:16: unsupported block pointer `tl.make_block_ptr` (Triton 3.9 removed tl.make_block_ptr and tl.advance); rewrite it with pointer arithmetic: `ptrs = base + offs_m[:, None] * stride_m + offs_k[None, :] * stride_k` for tl.make_block_ptr, `ptrs += BLOCK_K * stride_k` for tl.advance and `mask=` for boundary_check, or use a tensor descriptor
# ADVANCE: {{.*}}.py:{{[0-9]+}}: unsupported block pointer `tl.advance`
