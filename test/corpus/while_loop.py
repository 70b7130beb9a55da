"""Grid-stride sum of squares with a `while` loop: each program walks the
blocks pid, pid + num_programs, ... and counts how many it visited. Writes one
partial sum and one block count per program."""

import torch
import triton
import triton.language as tl


@triton.jit
def sumsq_while_kernel(x_ptr, partial_ptr, count_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    num_progs = tl.num_programs(0)
    n_blocks = tl.cdiv(n_elements, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    block = pid
    visited = 0
    while block < n_blocks:
        offs = block * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n_elements, other=0.0)
        acc += x * x
        block += num_progs
        visited += 1
    tl.store(partial_ptr + pid, tl.sum(acc, axis=0))
    tl.store(count_ptr + pid, visited)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    n, block, programs = 1234, 64, 6
    x = torch.randn(n, generator=g)
    partial = torch.empty(programs, dtype=torch.float32)
    count = torch.empty(programs, dtype=torch.int32)
    return {
        "kernel": "sumsq_while_kernel",
        "grid": (programs,),
        "args": [x, partial, count, n],
        "kwargs": {"BLOCK": block},
        "outputs": [1, 2],
        "atol": 1e-4,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    x, partial, _, n = case["args"]
    block = case["kwargs"]["BLOCK"]
    programs = case["grid"][0]
    n_blocks = (n + block - 1) // block
    padded = torch.zeros(n_blocks * block)
    padded[:n] = x
    per_block = (padded.view(n_blocks, block) ** 2).sum(dim=1)
    sums = torch.zeros(programs)
    counts = torch.zeros(programs, dtype=torch.int32)
    for blk in range(n_blocks):
        sums[blk % programs] += per_block[blk]
        counts[blk % programs] += 1
    return [sums, counts]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather x (1-D) into the while-loop grid-stride sum
FUSE = ("all-gather{tensor=x_ptr dim=0 size=n_elements}", 0, 0)
