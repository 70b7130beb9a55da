"""All-gather into a kernel that spells `tl.load` three ways: `tl.load`
(its own rows), `tl.core.load` and `tlc.load` after `import
triton.language.core as tlc` (the reversed rows `M - 1 - offs`). Each is the same op, so each must wait
for the chunks it reads (test/unit/analysis/test_aliased_tl.py; a name
imported from the module, `from triton.language.core import load as ld`, is
checked there at import only: Triton's interpreter patches the modules'
attributes, not names already bound in a kernel's globals)."""

import torch
import triton
import triton.language as tl
import triton.language.core as tlc

from syncopate.runtime.workload import shard_bounds


@triton.jit
def mirror_sum(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rev = M - 1 - offs
    cols = tl.arange(0, BLOCK_N)
    mask = (offs[:, None] < M) & (cols[None, :] < N)
    rmask = (rev[:, None] >= 0) & (cols[None, :] < N)
    a = tl.load(x_ptr + offs[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    b = tl.core.load(x_ptr + rev[:, None] * stride_xm + cols[None, :], mask=rmask, other=0.0)
    c = tlc.load(x_ptr + rev[:, None] * stride_xm + cols[None, :], mask=rmask, other=0.0)
    tl.core.store(y_ptr + offs[:, None] * stride_ym + cols[None, :], a + b + 2 * c, mask=mask)


M_DIM, N_DIM = 32, 8
BLOCK_M, BLOCK_N = 8, 8

KERNEL = mirror_sum
PLANS = ["all-gather{tensor=x_ptr dim=0}"]
COLLECTIVES = {"x_ptr": "x"}


def make_inputs(rank, world, seed):
    _, size = shard_bounds(M_DIM, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"x": torch.randn(size, N_DIM, generator=g)}


def launch(kernel, x):
    M, N = x.shape
    y = torch.empty(M, N, dtype=torch.float32, device=x.device)
    kernel[(triton.cdiv(M, BLOCK_M),)](x, y, M, N, x.stride(0), y.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y
