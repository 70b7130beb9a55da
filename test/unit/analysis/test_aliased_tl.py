"""`tl.core.load`, `tlc.load` (``import triton.language.core as tlc``) and
`from triton.language.core import load as ld` are `tl.load`: the frontend
imports them as the same op, so the analysis bounds them and each waits for
the chunks it reads. The reversed rows the aliased loads read are other
ranks' rows, so a fused kernel that waits only for `tl.load`'s rows
differs from the unfused one when a tile sees only what it waited for."""

from __future__ import annotations

from pathlib import Path

from syncopate.ir.frontend.triton_import import import_source
from syncopate.dialects import tile
from syncopate.tools import overlap_run

WORKLOAD = Path(__file__).resolve().parents[1] / "workloads" / "aliased_tl.py"


NAMES = """
import triton
import triton.language as tl
from triton.language.core import load as ld, store
from triton.language import constexpr as cx
from triton.language.standard import zeros_like


@triton.jit
def copy(x_ptr, y_ptr, N, BLOCK: cx):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    store(y_ptr + offs, ld(x_ptr + offs, mask=offs < N) + zeros_like(offs), mask=offs < N)
"""


def test_every_spelling_is_a_load_and_store():
    module = import_source(WORKLOAD.read_text(), str(WORKLOAD))
    ops = list(module.walk())
    assert sum(isinstance(op, tile.LoadOp) for op in ops) == 3
    assert sum(isinstance(op, tile.StoreOp) for op in ops) == 1
    assert not [op for op in ops if isinstance(op, tile.CallOp)]


def test_imported_names_are_the_ops():
    module = import_source(NAMES, "names.py")
    ops = list(module.walk())
    func = next(op for op in ops if isinstance(op, tile.FuncOp))
    # x_ptr and y_ptr reach the pointer operand of `ld`/`store`: pointers; BLOCK is a constexpr
    assert [str(t) for t in func.function_type.inputs.data] == ["!tile.ptr", "!tile.ptr", "!tile.scalar", "!tile.constexpr"]
    assert sum(isinstance(op, tile.LoadOp) for op in ops) == 1
    assert sum(isinstance(op, tile.StoreOp) for op in ops) == 1
    assert [op.callee.data for op in ops if isinstance(op, tile.CallOp)] == ["tl.zeros_like"]


def test_aliased_loads_fuse_and_match(capsys):
    code = overlap_run.main([str(WORKLOAD), "--world", "2", "--delivery", "all"])
    out, err = capsys.readouterr()
    assert code == 0 and "all ranks match" in out and "[isolated]" in out, (out, err)
