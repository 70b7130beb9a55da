# The emitted kernel has no block pointer left: each load and store through one
# is the pointer arithmetic Triton computes for it, so the file runs on Tritons
# without tl.make_block_ptr. With an all-gather of V (advanced along the
# sequence), the wait sits in the loop on the advanced offset.
# RUN: overlap-opt %s -t triton | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=v_ptr world=2 size=N_CTX}' -p overlap -t triton | filecheck %s --check-prefix=FUSED
import triton
import triton.language as tl


@triton.jit
def bp_pv(p_ptr, v_ptr, o_ptr, N_CTX, stride_vn, stride_vd, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
          HEAD_DIM: tl.constexpr):
    start_m = tl.program_id(0)
    v_block = tl.make_block_ptr(v_ptr, (N_CTX, HEAD_DIM), (stride_vn, stride_vd), (0, 0), (BLOCK_N, HEAD_DIM), (1, 0))
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    for start_n in range(0, N_CTX, BLOCK_N):
        p = tl.load(p_ptr + offs_m[:, None] * N_CTX + start_n + tl.arange(0, BLOCK_N)[None, :])
        v = tl.load(v_block, boundary_check=(0,), padding_option="zero")
        acc += tl.dot(p, v)
        v_block = tl.advance(v_block, (BLOCK_N, 0))
    tl.store(o_ptr + offs_m[:, None] * HEAD_DIM + tl.arange(0, HEAD_DIM)[None, :], acc)

# CHECK:       v_block_off0 = 0
# CHECK-NEXT:  for start_n in range(0, N_CTX, BLOCK_N):
# CHECK:           [[ROWS:tmp[_0-9]*]] = v_block_off0 + tl.arange(0, BLOCK_N)
# CHECK-NEXT:      v = tl.load(v_ptr + [[ROWS]][:, None] * stride_vn + tl.arange(0, HEAD_DIM)[None, :] * stride_vd, mask=(([[ROWS]] >= 0) & ([[ROWS]] < N_CTX))[:, None], other=0.0)
# CHECK:           v_block_off0 = v_block_off0 + BLOCK_N
# CHECK-NOT:   make_block_ptr
# CHECK-NOT:   tl.advance

# FUSED:       for start_n in range(0, N_CTX, BLOCK_N):
# FUSED:           syn_wait_span(syn_flags, syn_wait_ag_v_ptr_tab, syn_wait_ag_v_ptr_n, tl.maximum(v_block_off0, 0), tl.minimum(v_block_off0 + BLOCK_N, N_CTX),
# FUSED-NEXT:      v = tl.load(v_ptr
