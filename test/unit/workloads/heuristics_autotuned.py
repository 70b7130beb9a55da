"""All-gather into a copy kernel with ``@triton.autotune`` (one config)
stacked on ``@triton.heuristics`` whose ``EVEN`` reads the config's
``BLOCK`` (Triton's autotuner applies the config before the heuristics
run). ``launch`` passes neither; ``launch_plain`` launches the plain jit
function under both decorators, which needs every constexpr given. The
length changes with the seed (256 - 3 * seed): seed 0 runs the unmasked
arm, seed 1 the masked one."""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=2)], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
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


def launch_plain(kernel, x):
    y = torch.empty_like(x)
    n = x.numel()
    kernel[(triton.cdiv(n, 32),)](x, y, n, BLOCK=32, EVEN=n % 32 == 0)
    return y
