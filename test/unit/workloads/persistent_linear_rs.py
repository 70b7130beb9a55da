"""The library's persistent GEMM (kernels/gemm_bf16_persistent.py) with B
an ``nn.Linear`` weight (``B_NK``), its output reduce-scattered in two
blocks of rows, as ``syncopate.ops.matmul_reduce_scatter`` scatters a
``[2, s, h]`` activation on ``s``: each rank computes its partial over its
slice of K, and rank r owns the r-th slice of each block. Row tiles of 16
straddle the blocks' and the owners' bounds."""

import os

import torch

from syncopate.kernels.gemm_bf16_persistent import gemm_persistent_kernel
from syncopate.runtime.workload import load_workload

# the same launch as the all-gather workload's (its blocks and L2 group height), on more programs
_GATHERED = load_workload(os.path.join(os.path.dirname(os.path.abspath(__file__)), "persistent_linear_ag.py")).module
M_DIM, N_DIM, K_LOCAL = 48, 40, 32
PROGRAMS = 5

KERNEL = gemm_persistent_kernel
PLANS = ["reduce-scatter{tensor=c_ptr dim=0 blocks=2}"]
COLLECTIVES = {"c_ptr": "out"}


def make_inputs(rank, world, seed):
    """Rank's A (M x K_LOCAL) and its weight slice (N x K_LOCAL)."""
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    a = torch.randn(M_DIM, K_LOCAL, generator=g).to(torch.float16)
    w = torch.randn(N_DIM, K_LOCAL, generator=g).to(torch.float16)
    return {"a": a, "w": w}


def launch(kernel, a, w):
    """The rank's partial A @ W^T (M x N, fp32)."""
    return _GATHERED.linear(kernel, a, w, PROGRAMS)
