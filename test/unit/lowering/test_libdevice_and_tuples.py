"""libdevice calls imported as `from triton.language.extra import libdevice`
and tuple / list literals passed to builtins (`tl.reshape(x, (B // 2, 2))`,
`tl.permute(x, [1, 0])`) survive the round trip: the emitted kernel computes
the same in the interpreter, and Triton's real code generator (sm_90, no GPU
needed) accepts the emitted libdevice call, which the interpreter cannot run."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import torch

from syncopate.ir.frontend.triton_import import import_file
from syncopate.lowering.triton_emitter import emit_module

KERNELS = '''
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, libdevice.tanh(x), mask=offs < n)


@triton.jit
def swap_pairs_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    z = tl.reshape(x, (BLOCK // 2, 2))
    z = tl.permute(z, [1, 0])
    z = tl.flip(z, 0)
    z = tl.permute(z, (1, 0))
    tl.store(y_ptr + offs, tl.reshape(z, [BLOCK]), mask=offs < n)
'''


def _emit(tmp_path: Path) -> tuple[Path, Path]:
    original = tmp_path / "kernels.py"
    original.write_text(KERNELS)
    emitted = tmp_path / "emitted.py"
    emitted.write_text(emit_module(import_file(str(original))))
    return original, emitted


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"_libdevice_tuples_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tuple_and_list_arguments_round_trip(tmp_path: Path):
    original, emitted = _emit(tmp_path)
    text = emitted.read_text()
    assert "tl.reshape(x, (BLOCK // 2, 2))" in text and "tl.permute(z, [1, 0])" in text, text
    x = torch.arange(64, dtype=torch.float32)
    expected = x.reshape(32, 2).flip(1).reshape(64)  # each pair swapped
    for path in (original, emitted):
        y = torch.empty(64)
        _load(path).swap_pairs_kernel[(2,)](x, y, 64, BLOCK=32)
        torch.testing.assert_close(y, expected)


def test_emitted_libdevice_call_compiles(tmp_path: Path):
    _, emitted = _emit(tmp_path)
    assert "triton.language.extra.libdevice.tanh(x)" in emitted.read_text()
    harness = Path(__file__).resolve().parents[1] / "corpus" / "test_roundtrip.py"
    script = textwrap.dedent(f"""
        import importlib.util, sys, torch
        spec = importlib.util.spec_from_file_location("__main__", {str(harness)!r})  # its import-time check is for pytest
        harness = importlib.util.module_from_spec(spec); spec.loader.exec_module(harness)
        spec = importlib.util.spec_from_file_location("emitted", {str(emitted)!r})
        emitted = importlib.util.module_from_spec(spec); spec.loader.exec_module(emitted)
        x = torch.empty(64)
        case = {{"args": [x, x, 64], "kwargs": {{"BLOCK": 32}}}}
        text = harness._make_ttir(emitted.tanh_kernel, case)
        print("tanh" in text and "tt.func" in text)
    """)
    env = dict(os.environ, TRITON_INTERPRET="0")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip().endswith("True"), done.stdout[-2000:] + done.stderr[-3000:]
