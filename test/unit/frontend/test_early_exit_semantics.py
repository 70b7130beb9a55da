"""Early exits nested in ``if``s keep their meaning: the kernel emitted from
the imported IR gives the original kernel's results under the Triton
interpreter, on every combination of the conditions (the frontend once
dropped an exit nested two ``if``s deep, and the statements after the
outer ``if`` ran on the path that had returned)."""

from __future__ import annotations

import textwrap

import pytest
import torch

from emitted_pair import original_and_emitted

SOURCE = textwrap.dedent('''
    import triton
    import triton.language as tl


    @triton.jit
    def nested(x_ptr, out_ptr, flag_ptr, N: tl.constexpr, HAS_FLAG: tl.constexpr):
        pid = tl.program_id(0)
        cols = tl.arange(0, N)
        if HAS_FLAG:
            if tl.load(flag_ptr + pid) == 1:
                tl.store(out_ptr + pid * N + cols, -1.0)
                return
            tl.store(out_ptr + pid * N + cols, 5.0)
            if tl.load(flag_ptr + pid) == 2:
                return
        tl.store(out_ptr + pid * N + cols, tl.load(x_ptr + pid * N + cols) + 1.0)
''')


@pytest.mark.parametrize("has_flag", [False, True])
def test_nested_exits_run_as_the_original(tmp_path, monkeypatch, has_flag):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    kernels = [module.nested for module in original_and_emitted(tmp_path, SOURCE, f"nested_{has_flag}")]
    rows, n = 4, 8
    x = torch.arange(rows * n, dtype=torch.float32).reshape(rows, n)
    flags = torch.tensor([0, 1, 2, 1], dtype=torch.int32)  # one row per path
    outs = []
    for kernel in kernels:
        out = torch.full((rows, n), 9.0)
        kernel[(rows,)](x, out, flags, N=n, HAS_FLAG=has_flag)
        outs.append(out)
    torch.testing.assert_close(outs[1], outs[0], rtol=0, atol=0)
    if has_flag:  # the paths differ: a dropped exit would make rows 1 and 2 read x + 1
        assert outs[0][1].eq(-1.0).all() and outs[0][2].eq(5.0).all() and outs[0][0].eq(x[0] + 1).all()
