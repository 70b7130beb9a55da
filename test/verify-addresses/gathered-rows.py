# Rows read through loaded indices (an embedding or MoE gather): each lane
# reads the row its index names, which lies between the index block's own
# min and max; chunk-dependency-analysis waits for [min, max + 1), and
# verify-addresses proves the gather covered by that wait (strict).
# RUN: overlap-opt %s --plan 'all-gather{tensor=table dim=0 world=2 stride=stride_t}' -p 'chunk-dependency-analysis,insert-signals,verify-addresses{strict=true}' | filecheck %s
# A wait of the program's own rows instead does not cover a gather (strict).
# RUN: overlap-opt %s --plan 'all-gather{tensor=table dim=0 world=2 stride=stride_t}' -p 'chunk-dependency-analysis,insert-signals' --print-debuginfo | sed 's/tile.reduce "max"/tile.reduce "min"/' | not overlap-opt -f mlir -p 'verify-addresses{strict=true}' 2>&1 | filecheck %s --check-prefix=SHORT
import triton
import triton.language as tl


@triton.jit
def gather_rows(table, ids_ptr, out_ptr, n_ids, dim, stride_t, stride_o, BLOCK_I: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_I + tl.arange(0, BLOCK_I)
    ids = tl.load(ids_ptr + offs, mask=offs < n_ids, other=0)
    cols = tl.arange(0, BLOCK_D)
    mask = (offs[:, None] < n_ids) & (cols[None, :] < dim)
    rows = tl.load(table + ids[:, None] * stride_t + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + offs[:, None] * stride_o + cols[None, :], rows, mask=mask)

# CHECK: chunk.wait_span {{.*}} plan @ag tensor "table"
# CHECK: tile.load

# SHORT: verify-addresses: gathered-rows.py:{{[0-9]+}}: 'tile.load' is unproved: reads rows [min0, max0 + 1) of 'table' (plan @ag); waits that dominate it: [min0, min0 + 1)
