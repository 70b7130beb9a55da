"""Driver for interpret.py: runs the emitted `rowsum_kernel` (file given on
argv) in the Triton interpreter on CPU tensors and prints the max error
against a torch reference."""

import importlib.util
import os
import sys

os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402

spec = importlib.util.spec_from_file_location("emitted", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)

torch.manual_seed(0)
M, K = 37, 100
x = torch.randint(-8, 8, (M, K), dtype=torch.float32)
out = torch.empty(M, dtype=torch.float32)
BLOCK_M, BLOCK_K = 16, 32
grid = ((M + BLOCK_M - 1) // BLOCK_M,)
module.rowsum_kernel[grid](x, out, M, K, x.stride(0), 2.0, BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K)
ref = (x * 2.0).sum(dim=1) + 1.0
print(f"max_err={(out - ref).abs().max().item()}")
