# A head offset `off_bh * stride_kb`, its stride declared before the split
# dim's (an outer dim of a (BH, S, D) tensor), with the plan along dim 1 (the
# sequence): it moves along dim 0, so dim 1's rows are the block's alone.
# With the plan along dim 0 the same offset would pick whole heads: see
# scaled-offset.py for the refusal when the plan's tensor has fewer dims.
# RUN: overlap-opt %s --plan 'all-gather{tensor=k_ptr dim=1 world=2 size=S}' -p chunk-dependency-analysis | filecheck %s
import triton
import triton.language as tl


@triton.jit
def keys(k_ptr, out_ptr, S, stride_kb, stride_kn, stride_kd, BLOCK: tl.constexpr, D: tl.constexpr):
    off_bh = tl.program_id(1)
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ds = tl.arange(0, D)
    k = tl.load(k_ptr + off_bh * stride_kb + cols[:, None] * stride_kn + ds[None, :] * stride_kd, mask=cols[:, None] < S)
    tl.store(out_ptr + cols[:, None] * D + ds[None, :], k)

# CHECK: %k = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "k_ptr", dim = 1 : i64, role = "read", lo = "(pid0 * BLOCK)", extent = "BLOCK"
