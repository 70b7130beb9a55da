"""Element-wise vector addition: one program per block, masked tail."""

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(out_ptr + offsets, output, mask=mask)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    n = 1000
    block = 128
    x = torch.randn(n, generator=g)
    y = torch.randn(n, generator=g)
    out = torch.empty(n)
    return {
        "kernel": "add_kernel",
        "grid": (triton.cdiv(n, block),),
        "args": [x, y, out, n],
        "kwargs": {"BLOCK_SIZE": block},
        "outputs": [2],
        "atol": 1e-6,
        "rtol": 1e-6,
    }


def reference(case: dict) -> list:
    x, y = case["args"][0], case["args"][1]
    return [x + y]


# --- workload: all-gather x (a 1-D tensor: no stride= needed) ---------------

KERNEL = add_kernel
PLANS = ["all-gather{tensor=x_ptr dim=0 size=n_elements}"]
COLLECTIVES = {"x_ptr": "x"}
ELEMENTS = 1000


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, size = shard_bounds(ELEMENTS, world, rank)
    gy = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"x": torch.randn(size, generator=g), "y": torch.randn(ELEMENTS, generator=gy)}


def launch(kernel, x, y):
    out = torch.empty_like(y)
    kernel[(triton.cdiv(x.numel(), 128),)](x, y, out, x.numel(), BLOCK_SIZE=128)
    return out
