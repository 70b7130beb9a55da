# A transposed load puts the gathered dim on block axis 1: the sequence index
# `kv[None, :]` multiplies stride_ks, declared before stride_kd, so it is dim
# 0 whatever its block axis. (Block-axis order would take `ds`, the head dim,
# and wait for the wrong rows.)
# RUN: overlap-opt %s --plan 'all-gather{tensor=k_ptr world=2 size=N}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=v_ptr world=2 size=N}' -p chunk-dependency-analysis | filecheck %s --check-prefix=ROWS
# RUN: overlap-opt %s --plan 'all-gather{tensor=c_ptr world=2 size=D}' -p chunk-dependency-analysis | filecheck %s --check-prefix=CONST
import triton
import triton.language as tl


@triton.jit
def scores(q_ptr, k_ptr, v_ptr, c_ptr, o_ptr, N, stride_ks, stride_kd, stride_vs, stride_vd,
           BLOCK_N: tl.constexpr, D: tl.constexpr):
    ds = tl.arange(0, D)
    q = tl.load(q_ptr + ds)
    for start in range(0, N, BLOCK_N):
        kv = start + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + kv[None, :] * stride_ks + ds[:, None] * stride_kd)
        v = tl.load(v_ptr + kv[:, None] * stride_vs + ds[None, :] * stride_vd)
        c = tl.load(c_ptr + ds[None, :] * 64 + kv[:, None])
        tl.store(o_ptr + kv, tl.sum(k, 0) + tl.sum(v, 1) + tl.sum(c, 1))

# The K rows are [start, start + BLOCK_N), not [0, D):
# CHECK:      %k = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "k_ptr", dim = 0 : i64, role = "read", lo = "?", extent = "BLOCK_N"
# CHECK:      chunk.tensor "k_ptr" -> "k_ptr" shape ["N", "D1"] strides ["stride_ks", "stride_k_ptr_1"]

# The untransposed load agrees with block-axis order:
# ROWS:       %v = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "v_ptr", dim = 0 : i64, role = "read", lo = "?", extent = "BLOCK_N"
# ROWS:       chunk.tensor "v_ptr" -> "v_ptr" shape ["N", "D1"] strides ["stride_vs", "stride_v_ptr_1"]

# Constant strides: the larger one is the outer dim. Dim 0 of c is `ds` (stride 64, block axis 1), not the
# unit-stride `kv` on block axis 0:
# CONST:      %c = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "c_ptr", dim = 0 : i64, role = "read", lo = "0", extent = "D"
