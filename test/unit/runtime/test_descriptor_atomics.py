"""runtime/sim/descriptor_atomics.py: the interpreter's missing
``create_descriptor_reduce`` adds (and combines) the block's in-bounds
elements as a TMA reduction does, and skips the rest."""

from __future__ import annotations

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

from syncopate.runtime.sim import descriptor_atomics


@triton.jit
def _combine(c_desc, x_ptr, KIND: tl.constexpr, B: tl.constexpr):
    rows = tl.program_id(0) * B + tl.arange(0, B)
    x = tl.load(x_ptr + rows[:, None] * B + tl.arange(0, B)[None, :])
    if KIND == "add":
        c_desc.atomic_add([tl.program_id(0) * B, 0], x)
    elif KIND == "max":
        c_desc.atomic_max([tl.program_id(0) * B, 0], x)
    else:
        c_desc.atomic_xor([tl.program_id(0) * B, 0], x)


def _run(kind: str, c: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    descriptor_atomics.install()
    descriptor_atomics.install()  # idempotent
    _combine[(2,)](TensorDescriptor.from_tensor(c, [8, 8]), x, kind, 8)
    return c


def test_add_skips_the_rows_past_the_tensor():
    c = torch.ones(12, 8)  # the second block's last 4 rows are out of bounds
    x = torch.arange(16 * 8, dtype=torch.float32).reshape(16, 8)
    assert torch.equal(_run("add", c, x), 1 + x[:12])


def test_integer_max_and_xor():
    c = torch.full((16, 8), 5, dtype=torch.int32)
    x = torch.arange(16 * 8, dtype=torch.int32).reshape(16, 8) - 64
    assert torch.equal(_run("max", c.clone(), x), torch.maximum(c, x))
    assert torch.equal(_run("xor", c.clone(), x), c ^ x)
