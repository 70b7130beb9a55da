"""Module constants a kernel reads are folded into the fused kernel; a
launch after one changed is refused, as Triton refuses a kernel whose
globals changed (runtime/module_constants.py). Run on simulated ranks."""

from __future__ import annotations

import importlib.util
import sys
import textwrap

import pytest
import torch
import triton.language as tl

from syncopate.runtime.fused import FusedKernel, compile_fused

SOURCE = textwrap.dedent('''
    import triton
    import triton.language as tl

    SCALE: tl.constexpr = 2
    BIAS = tl.constexpr(3)
    UNUSED = 7


    @triton.jit
    def scale(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
        rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + rows, mask=rows < M)
        tl.store(y_ptr + rows, x * SCALE + BIAS, mask=rows < M)
''')


@pytest.fixture
def kernel_module(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    path = tmp_path / "scaled.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("scaled_kernel_module", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield path, module
    sys.modules.pop(spec.name, None)


def _launch(fused: FusedKernel) -> torch.Tensor:
    x = torch.arange(8, dtype=torch.float32)
    y = torch.zeros(8)
    fused[(2,)](x, y, 8, BLOCK=4)
    return y


def test_a_changed_module_constant_is_refused_and_unchanged_ones_launch(kernel_module):
    path, module = kernel_module
    program = compile_fused(str(path), "scale", ["all-gather{tensor=x_ptr world=1 size=M}"], pipeline="overlap")
    launched = []

    class Context:
        def launch(self, program, grid, params, run, options=None):
            launched.append(grid)
            return None

    fused = FusedKernel(program, module.scale, Context())
    assert dict(fused._constants) == {"SCALE": 2, "BIAS": 3}  # read by the kernel; UNUSED is not
    _launch(fused)
    module.UNUSED = 8  # not read by the kernel: no effect
    _launch(fused)
    assert len(launched) == 2
    module.SCALE = 4
    with pytest.raises(RuntimeError, match=r"scaled\.py:\d+: module constant SCALE of @scale is 4 now, but the "
                                           r"fused kernel was compiled with 2"):
        _launch(fused)
    module.SCALE = tl.constexpr(2)  # the same value, wrapped as written in the file: launches again
    _launch(fused)
    assert len(launched) == 3

