"""Driver for keyword-only.py: launches the emitted `kw_kernel` (file on argv)
in the Triton interpreter the way its keyword-only signature is called (every
keyword-only argument by keyword, one default left out) and prints the max
error against torch."""

import importlib.util
import os
import sys

os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402

spec = importlib.util.spec_from_file_location("emitted", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)

x = torch.arange(10, dtype=torch.float32)
out = torch.zeros(10)
module.kw_kernel[(1,)](x, 10, out_ptr=out, scale=3.0, BLOCK=16)
print(f"max_err={(out - (x * 3.0 + 1.0)).abs().max().item()}")
