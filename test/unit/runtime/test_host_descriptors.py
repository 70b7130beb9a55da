"""Kernels taking tensor descriptors made on the host (``TensorDescriptor``
arguments). A plan on another tensor leaves them as they are; a plan on a
descriptor spans ``desc.block_shape[d]`` rows per load or store, a symbol
each launch binds from the descriptor it passes (runtime/descriptors.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from triton.tools.tensor_descriptor import TensorDescriptor

from syncopate.runtime.abi import AbiError, launch_env
from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.runtime.descriptors import runtime_params
from syncopate.runtime.gpu.rank import launch_keys
from syncopate.runtime.sim.delivery import DELIVERY_ORDERS
from syncopate.runtime.harness.workload import load_workload
from syncopate.tools import overlap_run

WORKLOADS = Path(__file__).resolve().parents[1] / "workloads"
OTHER_TENSOR = WORKLOADS / "host_descriptor_gemm_rs.py"
GATHER = load_workload(str(WORKLOADS / "host_descriptor_ag_gemm.py"))
SCATTER = load_workload(str(WORKLOADS / "host_descriptor_store_rs.py"))
SPLIT_K = load_workload(str(WORKLOADS / "host_descriptor_splitk_rs.py"))


def test_host_descriptors_fuse_a_plan_on_another_tensor(capsys):
    code = overlap_run.main([str(OTHER_TENSOR), "--world", "2", "--delivery", "isolated"])
    out, err = capsys.readouterr()
    assert code == 0 and "all ranks match the reference" in out, (out, err)


def _assert_every_delivery_ok(workload, world, program, polls: bool) -> None:
    for order in DELIVERY_ORDERS:
        results = run_simulated(workload, world, order, 0, program)
        assert all(r.ok for r in results), (order, [(r.rank, r.max_error) for r in results])
        if polls:
            assert sum(r.polls for r in results) > 0, (order, "the fused kernel never waited")


@pytest.mark.parametrize("world", [2, 3, 4])
def test_a_gather_of_a_host_descriptor_is_correct_under_every_delivery(world):
    _assert_every_delivery_ok(GATHER, world, compile_workload(GATHER, world), polls=True)


@pytest.mark.parametrize("world", [2, 3, 4])
def test_a_reduce_scatter_stored_through_a_host_descriptor_is_correct_under_every_delivery(world):
    _assert_every_delivery_ok(SCATTER, world, compile_workload(SCATTER, world), polls=False)


@pytest.mark.parametrize("world", [2, 3])
def test_a_split_k_reduce_scatter_added_through_a_host_descriptor_is_correct_under_every_delivery(world):
    """Two programs (K slices) add into each tile with c_desc.atomic_add; each
    announces the tile's rows after its add, so a chunk counts both, first
    waiting for the add's bulk writes (a descriptor atomic: BULK_STORES True)."""
    program = compile_workload(SPLIT_K, world)
    lines = [line.strip() for line in program.source.splitlines()]
    add = next(i for i, line in enumerate(lines) if line.startswith("c_desc.atomic_add(["))
    row = lines[add].removeprefix("c_desc.atomic_add([").split(",")[0]  # the offset, named once
    assert lines[add + 1:add + 3] == ["# inserted by lower-chunk-to-tile", (
        f"syn_signal_span(syn_flags, syn_signal_rs_c_desc_tab, syn_signal_rs_c_desc_n, {row}, "
        f"{row} + c_desc.block_shape[0], True)")], lines[add:add + 3]
    _assert_every_delivery_ok(SPLIT_K, world, program, polls=False)


def test_the_waits_span_the_descriptors_block_shape():
    source = compile_workload(GATHER, 2).source
    assert "off_m, off_m + a_desc.block_shape[0]" in source, source


def test_one_program_runs_launches_with_another_block_shape(monkeypatch):
    """The block shape is the launch's: 8-row blocks of A double the tiles
    and halve each wait, with the program compiled for none in particular."""
    program = compile_workload(GATHER, 3)
    monkeypatch.setattr(GATHER.module, "BLOCK_M", 8)
    for order in ("late", "isolated"):
        results = run_simulated(GATHER, 3, order, 0, program)
        assert all(r.ok for r in results), (order, [(r.rank, r.max_error) for r in results])


def _gather_params(block_m: int, a: torch.Tensor | None = None) -> dict:
    a = torch.randn(40, 32, dtype=torch.float16) if a is None else a
    w = torch.randn(32, 32, dtype=torch.float16)
    c = torch.empty(40, 32, dtype=torch.float16)
    return {"a_desc": TensorDescriptor.from_tensor(a, [block_m, 16]), "w_desc": TensorDescriptor.from_tensor(w, [16, 16]),
            "c_desc": TensorDescriptor.from_tensor(c, [block_m, 16]), "M": 40, "N": 32, "K": 32, "BLOCK_N": 16,
            "GROUP": 2, "PROGRAMS": 3}


def test_the_runtime_sees_base_tensors_and_block_sizes():
    program = compile_workload(GATHER, 2)
    params = _gather_params(16)
    view = runtime_params(params, program.launch_facts.moved)
    assert view["a_desc"] is params["a_desc"].base
    assert view["a_desc__block_shape_0"] == 16 and view["a_desc__block_shape_1"] == 16
    assert launch_env(program, view)["a_desc__block_shape_0"] == 16
    plain = {"x": torch.zeros(2), "M": 2}
    assert runtime_params(plain, frozenset({"x"})) is plain


def test_launch_keys_follow_the_block_shape_not_the_descriptor_object():
    program = compile_workload(GATHER, 2)
    facts, moved = program.launch_facts, program.launch_facts.moved
    a = torch.randn(40, 32, dtype=torch.float16)
    first = launch_keys(program, facts, (3,), runtime_params(_gather_params(16, a), moved), ())
    again = launch_keys(program, facts, (3,), runtime_params(_gather_params(16, a), moved), ())
    other = launch_keys(program, facts, (3,), runtime_params(_gather_params(8, a), moved), ())
    assert first[0] == again[0] and first[1] == again[1]  # fresh descriptors over the same tensor: one launch
    assert first[0] != other[0]  # another block shape: other tiles, other tables


def test_a_descriptor_over_part_of_a_moved_tensor_is_refused():
    program = compile_workload(GATHER, 2)
    params = _gather_params(16)
    a = params["a_desc"].base
    params["a_desc"] = TensorDescriptor(a, [20, 32], [32, 1], [16, 16])
    with pytest.raises(AbiError, match=r"'a_desc' is a TensorDescriptor of shape \[20, 32\] .* over a tensor of shape "
                                       r"\[40, 32\].*TensorDescriptor.from_tensor"):
        runtime_params(params, program.launch_facts.moved)
    runtime_params({**params, "a_desc": TensorDescriptor(a, [20, 32], [32, 1], [16, 16])}, frozenset())  # not moved: fine


def test_the_sm_backend_is_refused_for_a_host_descriptor(capsys):
    code = overlap_run.main([str(WORKLOADS / "host_descriptor_ag_gemm.py"), "--world", "2", "-p", "overlap{backend=sm}"])
    _, err = capsys.readouterr()
    assert code != 0
    assert "'a_desc' is a tensor descriptor made on the host; use backend=ce or backend=nccl" in err, err
    assert "Traceback" not in err
