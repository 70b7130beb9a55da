"""`index_select` along a middle dim in the style of FlagGems: the input
`[B, N, A]` flattened to `[B * N, A]` on the host, a 2-D grid of (output
rows, columns) blocks, each output row `k = b * index_len + i` split with `//`
and `%` into its batch and its position in the index tensor, the source row
`b * N + index[i]` read through the loaded ids, and masks built per dim and
combined with `[:, None] & [None, :]`."""

import torch
import triton
import triton.language as tl


@triton.jit
def index_select_mid_kernel(
    inp,
    out,
    before_size,
    N,
    after_size,
    index,
    index_len,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    out_rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = out_rows < before_size * index_len
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < after_size

    batch = out_rows // index_len
    pos = out_rows % index_len
    ids = tl.load(index + pos, mask=row_mask, other=0)
    src_rows = batch * N + ids

    mask = row_mask[:, None] & col_mask[None, :]
    vals = tl.load(inp + src_rows[:, None] * after_size + cols[None, :], mask=mask, other=0.0)
    tl.store(out + out_rows[:, None] * after_size + cols[None, :], vals, mask=mask)


def index_select(inp, dim, index, kernel=index_select_mid_kernel):
    shape = list(inp.shape)
    before_size = 1
    for d in range(dim):
        before_size *= shape[d]
    after_size = 1
    for d in range(dim + 1, inp.ndim):
        after_size *= shape[d]
    N, index_len = shape[dim], index.numel()
    inp_2d = inp.reshape(before_size * N, after_size)
    out_2d = torch.empty((before_size * index_len, after_size), dtype=inp.dtype, device=inp.device)
    grid = lambda meta: (triton.cdiv(before_size * index_len, meta["BLOCK_M"]), triton.cdiv(after_size, meta["BLOCK_N"]))
    kernel[grid](inp_2d, out_2d, before_size, N, after_size, index, index_len, BLOCK_M=8, BLOCK_N=16)
    return out_2d.reshape(shape[:dim] + [index_len] + shape[dim + 1:])


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    B, N, A, L = 3, 7, 20, 5
    x = torch.randn(B * N, A, generator=g)
    ids = torch.randint(0, N, (L,), generator=g)
    out = torch.empty(B * L, A)
    return {
        "kernel": "index_select_mid_kernel",
        "grid": (triton.cdiv(B * L, 8), triton.cdiv(A, 16)),
        "args": [x, out, B, N, A, ids, L],
        "kwargs": {"BLOCK_M": 8, "BLOCK_N": 16},
        "outputs": [1],
        "atol": 0.0,
        "rtol": 0.0,
    }


def reference(case: dict) -> list:
    x, _, B, N, A, ids, L = case["args"]
    return [torch.index_select(x.view(B, N, A), 1, ids).reshape(B * L, A)]


# --- workload: all-gather the token rows ([B * N, A], sequence-parallel),
# then select positions along N of the [B, N, A] view. The rows a program
# reads are computed from loaded ids (batch * N + index[i]) ----------------

KERNEL = index_select_mid_kernel
PLANS = ["all-gather{tensor=inp dim=0 size=rows}"]
COLLECTIVES = {"inp": "x"}
BATCH, SEQ, HIDDEN, PICKS = 4, 9, 20, 6


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(BATCH * SEQ, world, rank)
    gi = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"x": torch.randn(rows, HIDDEN, generator=g),
            "ids": torch.randint(0, SEQ, (PICKS,), generator=gi)}


def launch(kernel, x, ids):
    return index_select(x.view(BATCH, SEQ, HIDDEN), 1, ids, kernel=kernel)
