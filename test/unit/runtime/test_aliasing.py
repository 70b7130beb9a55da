"""Launch arguments that share memory with a planned tensor (runtime/aliasing.py):
the fused kernel synchronises only the accesses through the plan's own
parameter, so an alias of it is refused at launch, naming both; views that
provably miss each other (other rows, other column windows of one matrix,
other storages) are not."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from syncopate.runtime.abi import AbiError, LaunchPlan
from syncopate.runtime.aliasing import may_overlap
from syncopate.runtime.harness.check import compile_workload
from syncopate.runtime.harness.workload import load_workload

WORKLOAD = load_workload(str(Path(__file__).resolve().parents[1] / "workloads" / "rowwise_rows.py"))
COLS = WORKLOAD.module.COLS


def _params(x: torch.Tensor, y: torch.Tensor) -> dict:
    return {"X": x, "Y": y, "stride": COLS, "N_COLS": COLS, "eps": 1e-6, "BLOCK": 32}


def test_the_planned_tensor_passed_again_as_the_output_is_refused_naming_both():
    program = compile_workload(WORKLOAD, 2)
    x = torch.randn(6, COLS)
    with pytest.raises(AbiError, match=r"'Y' shares memory with 'X', the tensor plan @ag moves: .* 'Y' could race "
                                       r"with the communication; pass 'Y' a tensor of its own \(for example X.clone\(\)\)"):
        LaunchPlan.build(program, _params(x, x), (6,), 0)
    base = torch.randn(12, COLS)
    with pytest.raises(AbiError, match="'Y' shares memory with 'X'"):  # rows that meet part of it, too
        LaunchPlan.build(program, _params(base[0:6], base[3:9]), (6,), 0)


def test_other_rows_of_one_buffer_launch():
    program = compile_workload(WORKLOAD, 2)
    base = torch.randn(12, COLS)
    launch = LaunchPlan.build(program, _params(base[0:6], base[6:12]), (6,), 0)
    assert sorted((c.lo, c.hi) for c in launch.chunks["ag"] if c.is_local) == [(0, 3), (3, 6)]


@pytest.mark.parametrize("a, b, want", [
    (lambda t: t, lambda t: t, True),
    (lambda t: t, lambda t: t.clone(), False),
    (lambda t: t[:4], lambda t: t[4:], False),
    (lambda t: t[:5], lambda t: t[4:], True),
    (lambda t: t[:, :4], lambda t: t[:, 4:8], False),  # q and k of one qkv matrix
    (lambda t: t[:, :5], lambda t: t[:, 4:8], True),
    (lambda t: t.t(), lambda t: t, True),
    (lambda t: t[:, :4], lambda t: t[2:3, 8:12], False),
    (lambda t: t.view(torch.int32), lambda t: t[1:2], True),  # another dtype's view of the same bytes
    (lambda t: t[:0], lambda t: t, False),  # an empty view touches nothing
    (lambda t: t[::2], lambda t: t[1::2], False),  # even and odd rows
    (lambda t: t[::2], lambda t: t[1::2, 6:].t(), True),  # not a set of rows: not provably apart, refused
    (lambda t: t, lambda t: torch.empty(0).set_(t.untyped_storage(), 12, (4,), (1,)), True),  # another tensor object
], ids=["same", "clone", "row-halves", "rows-meet", "column-windows", "columns-meet", "transpose",
        "window-and-later-row", "dtype-view", "empty", "even-odd-rows", "transposed-window", "set-storage"])
def test_may_overlap(a, b, want):
    t = torch.arange(8 * 12, dtype=torch.float32).reshape(8, 12)
    assert may_overlap(a(t), b(t)) is want
    assert may_overlap(b(t), a(t)) is want


def test_the_answer_does_not_depend_on_where_the_buffer_starts():
    """Views whose rows are apart stay apart wherever the allocation puts
    the buffer's first element relative to a row (an arc of columns may wrap
    past the row's end when counted from the lower view's address)."""
    buf = torch.zeros(8 * 12 + 24)
    for shift in range(24):
        t = buf[shift:shift + 8 * 12].view(8, 12)
        assert not may_overlap(t[::2], t[1::2]), shift
        assert not may_overlap(t[:, :4], t[:, 4:8]), shift
        assert not may_overlap(t[:, 8:], t[:, :4]), shift
        assert may_overlap(t[:, :5], t[:, 4:8]), shift


def test_a_host_descriptor_over_the_planned_tensor_is_refused():
    """The weight's TensorDescriptor made over A's own rows (`w = a[:N]`): the runtime sees a descriptor by its
    base tensor, so the alias is found as for a plain pointer."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fuzz"))
    from input_mutants import Mutant, outcome

    source = (Path(__file__).resolve().parents[1] / "workloads" / "host_descriptor_ag_gemm.py").read_text()
    line = "    w_desc = TensorDescriptor.from_tensor(w, [BLOCK_N, BLOCK_K])\n"
    assert line in source
    aliased = source.replace(line, "    w = a[:N]\n" + line)
    result = outcome(Mutant("w = a[:N]", aliased, 2, "overlap", "plan"))
    assert result.startswith("refused: 'w_desc' shares memory with 'a_desc', the tensor plan @ag moves"), result
    assert outcome(Mutant("own w", source, 2, "overlap", "plan")) == "correct"
