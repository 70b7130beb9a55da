# Block pointers used in ways the lowering cannot express: one-line errors with the line.
# RUN: sed -e 's/tl.advance(a_block, (0, BLOCK_K))  # STEP/tl.advance(a_ptr, (0, BLOCK_K))/' %s > %t.1.py && not overlap-opt %t.1.py 2>&1 | filecheck %s --check-prefix=NOTBP
# RUN: sed -e 's/order=(1, 0))  # A/order=(0, 0))/' %s > %t.2.py && not overlap-opt %t.2.py 2>&1 | filecheck %s --check-prefix=ORDER
# RUN: sed -e 's/boundary_check=(0, 1))  # LOAD/mask=offs < K)/' %s > %t.3.py && not overlap-opt %t.3.py 2>&1 | filecheck %s --check-prefix=MASK
# RUN: sed -e 's/boundary_check=(0, 1))  # LOAD/boundary_check=(2,))/' %s > %t.4.py && not overlap-opt %t.4.py 2>&1 | filecheck %s --check-prefix=CHECKDIM
# RUN: sed -e 's/boundary_check=(0, 1))  # LOAD/padding_option="one")/' %s > %t.5.py && not overlap-opt %t.5.py 2>&1 | filecheck %s --check-prefix=PAD
# RUN: sed -e 's/offsets=(pid_m \* BLOCK_M, 0)/offsets=(pid_m * BLOCK_M,)/' %s > %t.6.py && not overlap-opt %t.6.py 2>&1 | filecheck %s --check-prefix=RANK
# RUN: sed -e 's/a_block = tl.advance(a_block, (0, BLOCK_K))/a_block = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, 0), (BLOCK_K, BLOCK_N), (1, 0))/' %s > %t.7.py && not overlap-opt %t.7.py 2>&1 | filecheck %s --check-prefix=REPLACED
# RUN: sed -e 's/acc += tl.dot(a, b)/acc += tl.dot(a, b) + a_block/' %s > %t.8.py && not overlap-opt %t.8.py 2>&1 | filecheck %s --check-prefix=VALUE
# RUN: sed -e 's/(0, BLOCK_K))  # STEP/(BLOCK_K,))/' %s > %t.9.py && not overlap-opt %t.9.py 2>&1 | filecheck %s --check-prefix=STEPS
import triton
import triton.language as tl


@triton.jit
def bp_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    offs = tl.arange(0, BLOCK_K)
    a_block = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))  # A
    b_block = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, 0), (BLOCK_K, BLOCK_N), (1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_block, boundary_check=(0, 1))  # LOAD
        b = tl.load(b_block)
        acc += tl.dot(a, b)
        a_block = tl.advance(a_block, (0, BLOCK_K))
        b_block = tl.advance(b_block, (BLOCK_K, 0))
        a_block = tl.advance(a_block, (0, BLOCK_K))  # STEP
    tl.store(c_ptr + offs, acc)

# NOTBP: {{.*}}.1.py:{{[0-9]+}}: tl.advance: `a_ptr` is not a block pointer (made by tl.make_block_ptr)
# ORDER: {{.*}}.2.py:{{[0-9]+}}: tl.make_block_ptr: order must be a permutation of the dims 0..1 written as integer literals, got `(0, 0)`
# MASK: {{.*}}.3.py:{{[0-9]+}}: `mask=` cannot be used with a block pointer; use boundary_check
# CHECKDIM: {{.*}}.4.py:{{[0-9]+}}: boundary_check must list dims of the block pointer (0..1) as integer literals, got `(2,)`
# PAD: {{.*}}.5.py:{{[0-9]+}}: padding_option must be one of ['nan', 'zero'] (a string literal)
# RANK: {{.*}}.6.py:{{[0-9]+}}: tl.make_block_ptr: shape, strides, offsets, block_shape and order need one entry per dim (shape 2, strides 2, offsets 1, block_shape 2, order 2)
# REPLACED: {{.*}}.7.py:{{[0-9]+}}: block pointer `a_block` is replaced in this loop by another tensor or block shape; move it with `tl.advance` instead
# VALUE: {{.*}}.8.py:{{[0-9]+}}: a block pointer cannot be used as a value here: `tl.dot(a, b) + a_block` (load or store through it, or move it with tl.advance)
# STEPS: {{.*}}.9.py:{{[0-9]+}}: tl.advance: 1 offsets for a block pointer of 2 dims
