"""Seeded mutants of a row-wise kernel that reads a neighbouring row, in
the ways row kernels of public code (norms, losses, rotary embeddings)
spell their offsets, and how each ends under syncopate.

The base kernel gives each program one row of a gathered ``X`` (an
all-gather of X's rows) and writes ``Y[row] = X[row + d] - X[row]`` for a
neighbour ``d`` of -1, 1 or 2 (zero where that row does not exist). The
neighbour read is where the analysis can go wrong: its wait must cover
``row + d``, not ``row``. Spellings (``kind``):

* ``advance``: ``X += row * stride_x`` first, then ``X + d * stride_x + cols``;
* ``ncols``: the same with the row stride spelt as the column count,
  ``X + d * n_cols + cols`` (the rows are contiguous, so it is the stride);
* ``index``: no pointer advance, ``X + (row + d) * stride_x + cols``;
* ``helper``: the neighbour's pointer from a ``@triton.jit`` helper;
* ``tile``: a block of ``ROWS`` rows per program (``rows = pid * ROWS +
  tl.arange``), 2-D offsets ``(rows + d)[:, None] * stride_x + cols``;

mixed with a random row count, world size, tile order and delivery order.
Every mutant is a valid single-GPU kernel (in bounds, every output row
written), so its fused kernel must match the original on every simulated
rank under the sanitizer, or be refused in one line
(``input_mutants.outcome``); anything else is a soundness bug.

    python test/fuzz/row_mutants.py 100 --seed 3      # prints each outcome
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from input_mutants import Mutant, launched, run_sample, sample  # noqa: E402

KINDS = ("advance", "ncols", "index", "helper", "tile")
HELPER = '''

@triton.jit
def neighbour(row_start, stride, d: tl.constexpr):
    return row_start + d * stride
'''
TEMPLATE = '''"""Y[row] = X[row + D] - X[row] (0 where row + D is not a row)."""

import triton
import triton.language as tl
{helper}

@triton.jit
def row_diff_kernel(X, Y, stride_x, stride_y, n_rows, n_cols, BLOCK: tl.constexpr, ROWS: tl.constexpr):
{body}


import torch  # noqa: E402

from syncopate.runtime.workload import shard_bounds  # noqa: E402

N_ROWS, N_COLS, BLOCK, ROWS = {rows}, 24, 32, 4

KERNEL = row_diff_kernel
PLANS = ["all-gather{{tensor=X dim=0 size=n_rows stride=stride_x}}"]
COLLECTIVES = {{"X": "x"}}


def make_inputs(rank, world, seed):
    start, size = shard_bounds(N_ROWS, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {{"x": torch.randn(size, N_COLS, generator=g)}}


def launch(kernel, x):
    y = torch.empty_like(x)
    grid = ({grid},)
    kernel[grid](x, y, x.stride(0), y.stride(0), x.shape[0], x.shape[1], BLOCK=BLOCK, ROWS=ROWS)
    return y
'''


def _body(kind: str, d: int) -> tuple[str, str]:
    """The kernel body of ``kind`` reading neighbour ``d``, and the grid."""
    there = f"(cols * 0 + row + {d} >= 0) & (cols * 0 + row + {d} < n_rows)"  # a block: the interpreter masks blocks
    if kind == "tile":
        there = f"(rows + {d} >= 0) & (rows + {d} < n_rows)"
        return (f"    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)\n"
                f"    cols = tl.arange(0, BLOCK)\n"
                f"    keep = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)\n"
                f"    x = tl.load(X + rows[:, None] * stride_x + cols[None, :], mask=keep, other=0.0)\n"
                f"    nxt = tl.load(X + (rows + {d})[:, None] * stride_x + cols[None, :],\n"
                f"                  mask=keep & ({there})[:, None], other=0.0)\n"
                f"    tl.store(Y + rows[:, None] * stride_y + cols[None, :], nxt - x, mask=keep)",
                "triton.cdiv(x.shape[0], ROWS)")
    head = ("    row = tl.program_id(0)\n    cols = tl.arange(0, BLOCK)\n    keep = cols < n_cols\n")
    if kind == "index":
        return (head + f"    x = tl.load(X + row * stride_x + cols, mask=keep, other=0.0)\n"
                f"    nxt = tl.load(X + (row + {d}) * stride_x + cols, mask=keep & {there}, other=0.0)\n"
                f"    tl.store(Y + row * stride_y + cols, nxt - x, mask=keep)", "x.shape[0]")
    step = {"advance": f"X + {d} * stride_x", "ncols": f"X + {d} * n_cols",
            "helper": f"neighbour(X, stride_x, {d})"}[kind]
    return (head + "    X += row * stride_x\n    Y += row * stride_y\n"
            f"    x = tl.load(X + cols, mask=keep, other=0.0)\n"
            f"    nxt = tl.load({step} + cols, mask=keep & {there}, other=0.0)\n"
            f"    tl.store(Y + cols, nxt - x, mask=keep)", "x.shape[0]")


def mutant(rng: random.Random, index: int) -> Mutant:
    """The ``index``-th mutant of ``rng``'s sequence."""
    kind = rng.choice(KINDS)
    d = rng.choice((-1, 1, 2))
    rows = rng.choice((7, 12, 16, 23))
    body, grid = _body(kind, d)
    source = TEMPLATE.format(helper=HELPER if kind == "helper" else "", body=body, rows=rows, grid=grid)
    return launched(rng, f"#{index} {kind} d={d} rows={rows}", source)


def mutants(seed: int, count: int) -> list[Mutant]:
    return sample(mutant, seed, count)


def main() -> int:
    return run_sample(__doc__, mutants, 100)


if __name__ == "__main__":
    sys.exit(main())
