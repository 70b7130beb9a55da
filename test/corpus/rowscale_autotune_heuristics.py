"""Row scaling with `@triton.autotune` stacked on `@triton.heuristics`
(FlagGems' and Liger's decorator stack): the config gives `BLOCK_M`, the
heuristics give `BLOCK_N` from the row length and `EVEN_M` from the row
count and the config's `BLOCK_M` (Triton applies the config first); the
caller passes no constexpr, and `EVEN_M` picks a masked or unmasked arm."""

import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK_M": 4}, num_warps=4)], key=["M", "N"])
@triton.heuristics({
    "BLOCK_N": lambda args: triton.next_power_of_2(args["N"]),
    "EVEN_M": lambda args: args["M"] % args["BLOCK_M"] == 0,
})
@triton.jit
def scale_rows_kernel(x_ptr, y_ptr, scale, M, N, stride,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, EVEN_M: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    offs = rows[:, None] * stride + cols[None, :]
    if EVEN_M:
        x = tl.load(x_ptr + offs, mask=cols[None, :] < N, other=0.0)
        tl.store(y_ptr + offs, x * scale, mask=cols[None, :] < N)
    else:
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        tl.store(y_ptr + offs, x * scale, mask=mask)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    m, n = 30, 20
    x = torch.randn(m, n, generator=g)
    y = torch.empty(m, n)
    return {
        "kernel": "scale_rows_kernel",
        "grid": (triton.cdiv(m, 4),),
        "args": [x, y, 1.5, m, n, x.stride(0)],
        "kwargs": {},
        "outputs": [1],
        "atol": 1e-6,
        "rtol": 1e-6,
    }


def reference(case: dict) -> list:
    return [case["args"][0] * case["args"][2]]


# --- workload: all-gather the rows (28: every block of 4 rows full) ---------

KERNEL = scale_rows_kernel
PLANS = ["all-gather{tensor=x_ptr dim=0 size=M stride=stride}"]
COLLECTIVES = {"x_ptr": "x"}
ROWS, COLS = 28, 20


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    _, size = shard_bounds(ROWS, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"x": torch.randn(size, COLS, generator=g)}


def launch(kernel, x):
    y = torch.empty_like(x)
    kernel[lambda meta: (triton.cdiv(x.shape[0], meta["BLOCK_M"]),)](x, y, 1.5, x.shape[0], COLS, x.stride(0))
    return y
