"""All-gather into a copy kernel whose constexprs come from
``@triton.heuristics`` (Liger's and FlagGems' idiom): ``BLOCK`` from the
length, ``EVEN`` from the length and ``BLOCK`` (a heuristic sees the ones
before it), and the grid reads ``BLOCK`` from the launch's meta-parameters.
The caller passes neither. The length changes with the seed (256 - 3 *
seed), so seed 0 runs the unmasked arm and seed 1 the masked one."""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


@triton.heuristics({
    "BLOCK": lambda args: min(triton.next_power_of_2(args["n"]), 64),
    "EVEN": lambda args: args["n"] % args["BLOCK"] == 0,
})
@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs)
        tl.store(y_ptr + offs, x * 2.0)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        tl.store(y_ptr + offs, x * 2.0, mask=offs < n)


N = 256

KERNEL = copy_kernel
PLANS = ["all-gather{tensor=x_ptr dim=0 size=n}"]
COLLECTIVES = {"x_ptr": "x"}


def make_inputs(rank, world, seed):
    _, size = shard_bounds(N - 3 * seed, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"x": torch.randn(size, generator=g)}


def launch(kernel, x):
    y = torch.empty_like(x)
    n = x.numel()
    kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
    return y
