"""A constexpr ``if``/``elif`` chain without ``else`` whose name is used
after it (attorch's activation helpers) runs as the original under the
Triton interpreter, for every name the chain knows."""

from __future__ import annotations

import textwrap

import pytest
import torch

from emitted_pair import original_and_emitted

SOURCE = textwrap.dedent('''
    import triton
    import triton.language as tl


    @triton.jit
    def act(x, NAME: tl.constexpr):
        if NAME == "relu":
            y = tl.maximum(x, 0.0)
        elif NAME == "sigmoid":
            y = tl.sigmoid(x)
        elif NAME == "square":
            y = x * x
        return y


    @triton.jit
    def act_kernel(x_ptr, y_ptr, n, NAME: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, act(tl.load(x_ptr + offs, mask=offs < n), NAME), mask=offs < n)
''')


@pytest.mark.parametrize("name", ["relu", "sigmoid", "square"])
def test_each_arm_runs_as_the_original(tmp_path, monkeypatch, name):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    x = torch.linspace(-2, 2, 30)
    outs = []
    for module in original_and_emitted(tmp_path, SOURCE, f"chain_{name}"):
        y = torch.zeros(30)
        module.act_kernel[(2,)](x, y, 30, NAME=name, BLOCK=16)
        outs.append(y)
    torch.testing.assert_close(outs[1], outs[0], rtol=0, atol=0)
    want = {"relu": x.clamp(min=0), "sigmoid": torch.sigmoid(x), "square": x * x}[name]
    torch.testing.assert_close(outs[0], want)
