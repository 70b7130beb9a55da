"""Driver for imported-helper.py: loads the emitted file (argv[1]) while the
user's package is not importable (run it from another folder), runs its
`scale_tiles` in the Triton interpreter, then the original
`helperpkg.relative` (its package root, argv[2], put on sys.path only then)
and prints whether the emitted file needed the package and the max
difference of the two outputs."""

import importlib
import importlib.util
import os
import sys

os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402

spec = importlib.util.spec_from_file_location("emitted", sys.argv[1])
emitted = importlib.util.module_from_spec(spec)
spec.loader.exec_module(emitted)
print(f"emitted imports helperpkg: {'helperpkg' in sys.modules}")

sys.path.insert(0, sys.argv[2])
original = importlib.import_module("helperpkg.relative")

M, N, BM, BN = 37, 20, 8, 8
x = torch.randn(M, N)
grid = (-(-M // BM) * -(-N // BN),)
outputs = []
for module in (emitted, original):
    y = torch.zeros(M, N)
    module.scale_tiles[grid](x, y, M, N, x.stride(0), y.stride(0), BLOCK_M=BM, BLOCK_N=BN)
    outputs.append(y)
print(f"max_diff={(outputs[0] - outputs[1]).abs().max().item()} nonzero={bool(outputs[0].abs().sum() > 0)}")
