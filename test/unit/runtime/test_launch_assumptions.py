"""What verify-addresses' proofs assume of a launch is recorded on the
kernel (``chunk.assume``) and checked at each launch (runtime/assumptions.py):
a launch that meets it runs, one that breaks it is refused with the access's
source line before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from fused_matches import assert_fuses_and_matches

from syncopate.dialects.tile import FuncOp
from syncopate.lowering.compile import compile_module
from syncopate.runtime import assumptions
from syncopate.runtime.assumptions import AssumptionError, check
from syncopate.runtime.harness.check import compile_workload
from syncopate.runtime.harness.workload import load_workload

PATH = Path(__file__).resolve().parents[1] / "workloads" / "second_half_rows.py"


def _in_row(groups, stride="stride", guards=()):
    return {"where": "k.py:9: 'tile.load'", "guards": [list(g) for g in guards], "least": {},
            "in_row": {"param": "x", "dim": 0, "stride": stride, "groups": groups}}


def test_a_negative_size_the_proof_assumed_is_refused():
    record = {"where": "k.py:9: 'tile.load'", "guards": [], "least": {"M": 0, "N": 1}}
    check([record], {}, {"M": 0, "N": 1}, (1,), (1,), 0)
    with pytest.raises(AssumptionError, match=r"k.py:9: .*assumes N >= 1 .* N = 0"):
        check([record], {}, {"M": 5, "N": 0}, (1,), (1,), 0)
    with pytest.raises(AssumptionError, match="assumes M >= 0"):
        check([record], {}, {"M": -1, "N": 1}, (1,), (1,), 0)


def test_an_unmasked_column_fits_its_own_dim_or_the_launch_is_refused():
    x = torch.empty(8, 16)
    record = _in_row([[1, "0", "D - 1", False]])
    check([record], {"x": x}, {"stride": 16, "D": 16}, (1,), (1,), 0)
    with pytest.raises(AssumptionError, match=r"k.py:9: .*may leave the row .*shape \(8, 16\)"):
        check([record], {"x": x}, {"stride": 16, "D": 17}, (1,), (1,), 0)


def test_a_batch_coordinate_fits_its_dim_by_the_launch_grid():
    """``pid1 * stride_b`` (a head or batch offset) is bounded by the grid:
    a launch whose grid has more programs than the batch dim is refused."""
    x = torch.empty(3, 8, 16)  # [heads, rows, cols], plan on dim 1
    record = _in_row([["stride_b", "0", "npid1 - 1", False], [1, "0", "15", False]])
    record["in_row"]["dim"] = 1
    values = {"stride": 16, "stride_b": 128}
    check([record], {"x": x}, values, (2, 3), (2, 3), 0)
    with pytest.raises(AssumptionError, match="may leave the row"):
        check([record], {"x": x}, values, (2, 4), (2, 4), 0)


def test_batch_and_head_split_from_one_program_id_fit_their_dims():
    """``(pid1 // H) * stride_z + (pid1 % H) * stride_h`` (lit
    verify-addresses/heads.py): the batch coordinate's bound ``(npid1 - 1)
    // H`` is evaluated with Triton's division; a grid of more than Z * H
    programs, or a head count above the head dim, is refused."""
    x = torch.empty(2, 3, 8, 16)  # [Z, H, S, D], plan on dim 2
    record = _in_row([[1, "0", "D - 1", False], ["stride_h", "0", "H - 1", False],
                      ["stride_z", "0", "TDiv(npid1 - 1, H)", False]])
    record["in_row"]["dim"] = 2
    record["least"] = {"H": 1}
    values = {"stride": 16, "stride_h": 128, "stride_z": 384, "H": 3, "D": 16}
    check([record], {"x": x}, values, (2, 6), (2, 6), 0)
    with pytest.raises(AssumptionError, match="may leave the row"):
        check([record], {"x": x}, values, (2, 7), (2, 7), 0)
    with pytest.raises(AssumptionError, match="may leave the row"):
        check([record], {"x": x}, {**values, "H": 4}, (2, 6), (2, 6), 0)
    with pytest.raises(AssumptionError, match="assumes H >= 1"):
        check([record], {"x": x}, {**values, "H": 0}, (2, 6), (2, 6), 0)


def test_a_descriptor_must_describe_the_planned_tensor():
    """A ``tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1])``
    access is proved on the descriptor's rows: they are the tensor's only
    when its strides are the tensor's and its shape no larger."""
    record = {"where": "k.py:9: 'tile.desc_load'", "guards": [], "least": {"M": 0, "K": 0},
              "descriptor": {"param": "a", "shape": ["M", "K"], "strides": ["K", "1"]}}
    a = torch.empty(8, 16)
    check([record], {"a": a}, {"M": 8, "K": 16}, (1,), (1,), 0)
    check([record], {"a": a}, {"M": 4, "K": 16}, (1,), (1,), 0)  # fewer rows: still the tensor's
    with pytest.raises(AssumptionError, match=r"k.py:9: .*descriptor of 'a' .*shape \[8, 12\]"):
        check([record], {"a": a}, {"M": 8, "K": 12}, (1,), (1,), 0)  # rows 12 apart: not the tensor's
    with pytest.raises(AssumptionError, match="does not describe"):
        check([record], {"a": torch.empty(16, 8).t()}, {"M": 8, "K": 16}, (1,), (1,), 0)
    with pytest.raises(AssumptionError, match="does not describe"):
        check([record], {"a": a}, {"M": 9, "K": 16}, (1,), (1,), 0)


def test_a_masked_coordinate_bounded_by_a_loaded_length_needs_no_value_at_launch():
    """The paged-attention cache: ``offs_t * stride_t`` masked by ``offs_t <
    seq_len`` (``seq_len`` loaded in the kernel) has no range the launch can
    evaluate; the mask keeps it in its dim, so the unmasked head coordinate
    is checked against its own dim alone."""
    cache = torch.empty(6, 4, 3, 8)  # [blocks, tokens, heads, dim], plan on dim 0
    record = _in_row([["stride_t", "0", "Min(BLOCK - 1, v3_load - 1)", True],
                      ["stride_h", "0", "npid1 - 1", False], [1, "0", "D - 1", True]])
    values = {"stride": 96, "stride_t": 24, "stride_h": 8, "BLOCK": 4, "D": 8}
    check([record], {"x": cache}, values, (2, 3), (2, 3), 0)
    with pytest.raises(AssumptionError, match="may leave the row"):
        check([record], {"x": cache}, values, (2, 4), (2, 4), 0)


def test_an_offset_below_the_row_stride_stays_in_the_row_of_a_row_major_tensor():
    """``HALF + cols`` with ``cols < HALF`` (key 1): no dim fits it alone when
    the row holds 2 * HALF, but the whole offset stays below the row stride."""
    x = torch.empty(8, 24)
    record = _in_row([[1, "HALF", "2*HALF - 1", False]])
    check([record], {"x": x}, {"stride": 24, "HALF": 12}, (1,), (1,), 0)
    # `half` a runtime parameter: its own coordinate (1) plus the masked columns
    by_param = _in_row([["half", "1", "1", False], [1, "0", "half - 1", True]])
    check([by_param], {"x": x}, {"stride": 24, "half": 12}, (1,), (1,), 0)
    with pytest.raises(AssumptionError):
        check([by_param], {"x": x}, {"stride": 24, "half": 13}, (1,), (1,), 0)
    with pytest.raises(AssumptionError):
        check([record], {"x": torch.empty(8, 12)}, {"stride": 12, "HALF": 12}, (1,), (1,), 0)
    # a transposed view: its columns are far apart, so below the row stride is not inside the row
    with pytest.raises(AssumptionError):
        check([record], {"x": torch.empty(24, 8).t()}, {"stride": 1, "HALF": 12}, (1,), (1,), 0)


def test_an_arm_the_launch_does_not_take_is_not_checked():
    record = _in_row([[1, "0", "D - 1", False]], guards=[("EVEN", True)])
    x = torch.empty(8, 16)
    check([record], {"x": x}, {"stride": 16, "D": 99, "EVEN": 0}, (1,), (1,), 0)
    with pytest.raises(AssumptionError):
        check([record], {"x": x}, {"stride": 16, "D": 99, "EVEN": 1}, (1,), (1,), 0)


@pytest.mark.parametrize("world", [2, 3])
def test_the_second_half_of_each_row_fuses_and_matches(world):
    assert_fuses_and_matches(load_workload(str(PATH)), world)


def test_the_pipeline_records_the_second_half_and_refuses_rows_too_short():
    workload = load_workload(str(PATH))
    program = compile_workload(workload, 2)
    (record,) = [r for r in assumptions.entries(program.kernel) if "in_row" in r]
    assert record["where"].startswith("second_half_rows.py:18")
    env = {"stride_x": 24, "stride_y": 12, "HALF": 12, "BLOCK": 16}
    check([record], {"X": torch.empty(7, 24)}, env, (7,), (7,), 0)
    with pytest.raises(AssumptionError, match="second_half_rows.py:18"):
        check([record], {"X": torch.empty(7, 12)}, {**env, "stride_x": 12}, (7,), (7,), 0)


def _int32(lo: str, hi: str):
    return {"where": "k.py:9: 'tile.load'", "guards": [], "least": {}, "int32": [["k.py:9: 'tile.mul'", lo, hi]]}


def test_a_32_bit_offset_that_leaves_int32_is_refused():
    """The proof's offsets are true values; Triton computes ``rows *
    stride`` in 32 bits and wraps, so the largest value must fit."""
    record = _int32("0", "M*stride - stride")
    check([record], {}, {"M": 2**15, "stride": 2**16}, (1,), (1,), 0)  # (2**15 - 1) * 2**16 < 2**31
    with pytest.raises(AssumptionError, match=r"k.py:9: .*'tile.mul' reaches 2147549184 .*outside int32.*"
                                              r"\.to\(tl\.int64\)"):
        check([record], {}, {"M": 2**15 + 2, "stride": 2**16}, (1,), (1,), 0)
    with pytest.raises(AssumptionError, match="reaches -2147483649"):
        check([_int32("-M", "0")], {}, {"M": 2**31 + 1}, (1,), (1,), 0)


def test_an_offset_bounded_by_the_tensor_span_is_checked_against_the_tensor():
    """A row with no bound in launch sizes lies in the tensor's span (one
    past its largest element offset), less the other parts."""
    record = _int32("0", "syn_span_x - 1 - 4")
    check([record], {"x": torch.empty((2**15, 2**16), device="meta")}, {}, (1,), (1,), 0)
    with pytest.raises(AssumptionError, match=r"reaches 2147549179 .*syn_span_x"):
        check([record], {"x": torch.empty((2**15 + 1, 2**16), device="meta")}, {}, (1,), (1,), 0)
    check([record], {"x": torch.empty((0, 2**20), device="meta")}, {}, (1,), (1,), 0)  # empty: nothing touched


INT32_KERNEL = Path(__file__).resolve().parents[2] / "verify-addresses" / "int32-offsets.py"


@pytest.mark.parametrize("kernel, wide", [("rows", False), ("widened", True)])
def test_the_pipeline_records_32_bit_offsets_unless_widened(kernel, wide):
    """Through the default pipeline: the un-widened row product is refused
    on a tensor past 2**31 elements; the widened kernel is not."""
    module = compile_module(str(INT32_KERNEL), kernel, ["all-gather{tensor=x_ptr dim=0 world=2 size=M}"], "overlap")
    func = next(op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == kernel)
    (record,) = [r for r in assumptions.entries(func) if "int32" in r]
    env = {"M": 2**16, "N": 2**16, "stride_xm": 2**16, "BLOCK_M": 64, "BLOCK_N": 64}
    big = {"x_ptr": torch.empty((2**16, 2**16), device="meta")}
    if wide:
        check([record], big, env, (2**10,), (2**10,), 0)
    else:
        with pytest.raises(AssumptionError, match=r"int32-offsets.py:22: .*'tile.mul' reaches"):
            check([record], big, env, (2**10,), (2**10,), 0)
    check([record], big, {**env, "M": 2**14}, (2**8,), (2**8,), 0)


def test_verify_sync_records_the_constexpr_signs_it_took():
    """verify-sync's model takes tl.constexpr parameters to be >= 0; it
    records those its proofs read, and the runtime refuses a negative one."""
    module = compile_module(str(INT32_KERNEL), "rows", ["all-gather{tensor=x_ptr dim=0 world=2 size=M}"],
                            "chunk-dependency-analysis,insert-signals,verify-sync")
    func = next(op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == "rows")
    (record,) = [r for r in assumptions.entries(func) if r["where"].startswith("verify-sync")]
    assert record["least"] == {"BLOCK_M": 0}
    check([record], {}, {"BLOCK_M": 64}, (1,), (1,), 0)
    with pytest.raises(AssumptionError, match=r"verify-sync: .*assumes BLOCK_M >= 0 .*BLOCK_M = -64"):
        check([record], {}, {"BLOCK_M": -64}, (1,), (1,), 0)
