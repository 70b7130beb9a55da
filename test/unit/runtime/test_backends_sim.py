"""The SM backend and the debug spin limit on simulated ranks.

SM chunks are never delivered by the simulator: only the fused kernel's own
communication programs (pulling through raw peer pointers, which the Triton
interpreter supports) can fill them, so a match proves they ran.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from syncopate.dialects.chunk import PlanOp
from syncopate.ir.analysis import deps
from syncopate.ir.context import make_context
from syncopate.ir.plans.cli import load_plans
from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.runtime.sim.delivery import SimulationError
from syncopate.runtime.harness.workload import load_workload

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _workload(name: str):
    return load_workload(str(EXAMPLES / f"{name}.py"))


# rotate is the closed form for ring/direct templates, not for an uneven all-to-all
CASES = [(n, o) for n in ["ag_gemm", "ag_gemm_k", "a2a_grouped_gemm", "attention_ag_kv", "ag_gemm_persistent"]
         for o in ["arrival", "rotate", "none"]
         if (n, o) != ("a2a_grouped_gemm", "rotate")]


@pytest.mark.parametrize("name,order", CASES)
def test_sm_backend_matches_reference(name: str, order: str):
    workload = _workload(name)
    program = compile_workload(workload, 3, f"overlap{{backend=sm order={order}}}")
    assert "syn_sm_pull(" in program.source
    results = run_simulated(workload, 3, "late", program=program, comm_programs=2)
    assert all(r.ok for r in results), [(r.rank, r.max_error) for r in results]


@pytest.mark.parametrize("programs", [1, 5])
def test_sm_backend_any_number_of_communication_programs(programs: int):
    workload = _workload("ag_gemm")
    program = compile_workload(workload, 4, "overlap{backend=sm}")
    results = run_simulated(workload, 4, "plan", program=program, comm_programs=programs)
    assert all(r.ok for r in results)


def test_sm_chunks_without_communication_programs_are_caught():
    workload = _workload("ag_gemm")
    program = compile_workload(workload, 2, "overlap{backend=sm}")
    with pytest.raises(Exception, match="no chunk delivered to this rank sets") as err:  # raised inside the interpreter
        run_simulated(workload, 2, "plan", program=program, comm_programs=0)
    assert "SimulationError" in repr(err.value)


def test_lost_chunk_hangs_without_spin_limit_and_is_named_with_it():
    workload = _workload("ag_gemm")
    program = compile_workload(workload, 2, "overlap{backend=ce}")
    plan = program.plans[0]
    lost = next(c for c in plan.chunks if c.src.value.data != c.dst.value.data)
    key = (plan.sym_name.data, lost.chunk_id.value.data)
    with pytest.raises(Exception, match="lost chunk: without a spin limit it would hang"):
        run_simulated(workload, 2, "plan", program=program, lost=frozenset({key}))
    with pytest.raises(SimulationError) as err:
        run_simulated(workload, 2, "plan", program=program, lost=frozenset({key}), spin_limit=3)
    text = str(err.value)
    assert f"rank {lost.dst.value.data}: program" in text
    assert f"chunk {key[1]} of @{key[0]}" in text and f"from rank {lost.src.value.data}" in text
    assert "after 3 polls" in text


def test_all_to_all_source_rows():
    """Rank s's send buffer holds its blocks for ranks 0, 1, ... in order."""
    splits = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]  # splits[s][d]
    flat = ",".join(str(n) for row in splits for n in row)
    plan: PlanOp = load_plans([f"all-to-all{{tensor=x dim=0 world=3 splits={flat}}}"], make_context())[0]
    chunks = deps.concrete_chunks(plan, {}, 0)
    for c in chunks:
        start = deps.all_to_all_source_row(plan, c)
        assert start == sum(splits[c.src][:c.dst]) + (c.lo - sum(splits[s][c.dst] for s in range(c.src)))
        assert start + (c.hi - c.lo) <= sum(splits[c.src])
    # rank 2 receives 8 rows from rank 1 at rows [3 + 6, ...) = after 3 from rank 0 ... check one by hand
    c = next(c for c in chunks if c.src == 1 and c.dst == 2)
    assert (c.lo, c.hi, deps.all_to_all_source_row(plan, c)) == (3, 9, 9)


@pytest.mark.parametrize("programs", [1, 3, 64])
def test_sm_chunks_are_sliced_over_the_communication_programs(programs: int):
    """Each SM chunk is cut into up to ``programs * SLICES_PER_PROGRAM``
    slices that tile its rows exactly, each with a fresh flag after the plan's flags."""
    import torch

    from syncopate.runtime.abi import SLICES_PER_PROGRAM, LaunchPlan

    workload = _workload("ag_gemm")
    program = compile_workload(workload, 3, "overlap{backend=sm}")
    a = torch.randn(50, 40)
    launch = LaunchPlan.build(program, {"a_ptr": a, "M": 50, "N": 36, "K": 40, "BLOCK_M": 16, "BLOCK_N": 16,
                                        "BLOCK_K": 16, "stride_am": 40}, (4, 3), 1)
    slices = launch.sm_slices(programs)
    assert slices and set(slices) == {(c.plan, c.id) for c in launch.sm_chunks()}
    flags = [s.flag for parts in slices.values() for s in parts]
    assert len(set(flags)) == len(flags) and min(flags) == launch.flag_count
    for c in launch.sm_chunks():
        parts = slices[(c.plan, c.id)]
        assert parts[0].lo == c.lo and parts[-1].hi == c.hi and len(parts) == min(programs * SLICES_PER_PROGRAM, c.hi - c.lo)
        assert all(p.hi == q.lo and p.lo < p.hi for p, q in zip(parts, parts[1:]))
    assert launch.total_flags(programs) == launch.flag_count + len(flags)
