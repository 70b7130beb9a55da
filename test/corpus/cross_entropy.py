"""Cross-entropy forward, one row of logits per program, in the style of
Liger-Kernel: `X_ptr += program_id * X_stride`, an online softmax over
column blocks, the loss per row at `loss_ptr + program_id`. The label's
logit is read with a mask bounding the label to `[0, n_cols)`: an offset read
from memory that nothing bounds is refused by verify-addresses."""

import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_forward_kernel(X_ptr, X_stride, Y_ptr, loss_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)
    X_ptr += program_id * X_stride
    y = tl.load(Y_ptr + program_id)
    m = float("-inf")
    d = 0.0
    for i in range(0, n_cols, BLOCK_SIZE):
        offs = i + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X_ptr + offs, mask=offs < n_cols, other=float("-inf")).to(tl.float32)
        block_max = tl.max(x)
        m_new = tl.maximum(m, block_max)
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new))
        m = m_new
    # the label is read from memory: the mask keeps the read inside the row
    x_y = tl.load(X_ptr + y, mask=(y >= 0) & (y < n_cols)).to(tl.float32)
    loss = tl.log(d) + m - x_y
    tl.store(loss_ptr + program_id, loss)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    rows, cols = 12, 150
    x = torch.randn(rows, cols, generator=g) * 2.0
    y = torch.randint(0, cols, (rows,), generator=g)
    loss = torch.empty(rows)
    return {
        "kernel": "cross_entropy_forward_kernel",
        "grid": (rows,),
        "args": [x, x.stride(0), y, loss, cols],
        "kwargs": {"BLOCK_SIZE": 64},
        "outputs": [3],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    x, _, y = case["args"][:3]
    return [torch.nn.functional.cross_entropy(x, y, reduction="none")]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather the logits' rows (the
# kernel has no row-count parameter: the plan reads it from X_ptr's shape at launch).
# The target logit `X_ptr + y` (a loaded column) stays in the program's row.
FUSE = ("all-gather{tensor=X_ptr dim=0}", 0, 0)
