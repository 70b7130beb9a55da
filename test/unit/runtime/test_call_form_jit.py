"""``kernel = triton.jit(fn)``, the call form of the decorator (issue 38,
idiom F): the frontend imports ``fn`` as a jit function (it used to say
"no @triton.jit function found" at line 1, or drop the kernel when the
file also had a decorated one), and the fused kernel matches the unfused
one on every simulated rank."""

from __future__ import annotations

from pathlib import Path

import pytest

from syncopate.dialects import tile
from syncopate.ir.frontend.triton_import import import_source
from fused_matches import assert_fuses_and_matches

from syncopate.runtime.harness.workload import load_workload

PATH = Path(__file__).resolve().parents[1] / "workloads" / "call_form_jit.py"

BOTH = '''
import triton
import triton.language as tl


@triton.jit
def decorated(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0, mask=tl.arange(0, BLOCK) < n)


def _called(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 2.0, mask=tl.arange(0, BLOCK) < n)


called = triton.jit(_called, do_not_specialize=["n"])
plain = _called  # not a jit call: no kernel
'''


def _names(module) -> list[str]:
    return [op.sym_name.data for op in module.walk() if isinstance(op, tile.FuncOp)]


def test_a_file_with_both_forms_imports_both_kernels():
    assert _names(import_source(BOTH, "both.py")) == ["decorated", "_called"]


def test_the_call_forms_options_become_the_decorators():
    from syncopate.lowering.triton_emitter import emit_module as emit

    text = emit(import_source(BOTH, "both.py"))
    assert "@triton.jit(do_not_specialize=['n'])\ndef _called(" in text


@pytest.mark.parametrize("world", [2, 3])
def test_a_call_form_kernel_fuses_and_matches(world):
    assert_fuses_and_matches(load_workload(str(PATH)), world)
