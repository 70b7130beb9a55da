"""The GPU World's warning for launches that can starve NCCL (pure
functions on a launch's tile -> chunk graph; no GPU): when the first tile a
launch runs spins on a chunk NCCL delivers, spinning tiles may hold every
SM while NCCL's kernel needs one."""

import pytest

from syncopate.runtime.abi import LaunchPlan
from syncopate.runtime.harness.check import compile_workload
from syncopate.runtime.gpu import first_tile, nccl_starvation_risk, persistent_nccl_refusal
from syncopate.runtime.harness.workload import load_workload

AG_PARAMS = {"M": 50, "N": 36, "K": 40, "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}


def ag_launch(backend: str, order: str, rank: int):
    workload = load_workload("examples/ag_gemm.py")
    program = compile_workload(workload, 2, f"overlap{{backend={backend} order={order}}}")
    return program, LaunchPlan.build(program, AG_PARAMS, (4, 3), rank)


# Rank 1 owns rows [25, 50): row tile 1 (rows 16-31) straddles rank 0's rows, tiles 2 and 3 are its own.
# arrival starts on an own tile; rotate starts on the first tile touching own rows (tile 1, which also
# waits for rank 0's chunk); none starts on tile 0 (rank 0's rows).
@pytest.mark.parametrize("order, first, risky", [("arrival", 2, False), ("rotate", 1, True), ("none", 0, True)])
def test_only_a_launch_that_starts_on_a_remote_nccl_chunk_is_flagged(order, first, risky):
    program, launch = ag_launch("nccl", order, rank=1)
    assert first_tile(launch, program)[0] == first
    risk = nccl_starvation_risk(launch, first_tile(launch, program), 1)
    assert (risk is not None) == risky
    if risky:
        assert "rank 1: the first tile this launch runs waits for a chunk that NCCL delivers" in risk


def test_copy_engine_chunks_are_never_flagged():
    program, launch = ag_launch("ce", "none", rank=1)
    assert nccl_starvation_risk(launch, first_tile(launch, program), 1) is None


def test_attention_waits_on_every_chunk_so_any_order_is_flagged():
    workload = load_workload("examples/attention_ag_kv.py")
    program = compile_workload(workload, 2, "overlap{backend=nccl order=arrival}")
    params = {"S_Q": 20, "N_KV": 45, "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_D": 16}
    for rank in (0, 1):
        launch = LaunchPlan.build(program, params, (2,), rank)
        assert nccl_starvation_risk(launch, first_tile(launch, program), rank) is not None


@pytest.mark.parametrize("order", ["arrival", "rotate", "none"])
def test_a_persistent_kernel_on_nccl_chunks_is_flagged_in_any_order(order):
    """Its programs hold their SMs until every tile is done, even when the first tile is local."""
    params = {**AG_PARAMS, "PROGRAMS": 3}
    program = compile_workload(load_workload("examples/ag_gemm_persistent.py"), 2, f"overlap{{backend=nccl order={order}}}")
    launch = LaunchPlan.build(program, params, (3,), 1)
    assert launch.persistent and launch.tiles == (12,)
    risk = nccl_starvation_risk(launch, first_tile(launch, program), 1)
    assert risk is not None and "this persistent kernel's programs run until every tile is done" in risk
    ce = compile_workload(load_workload("examples/ag_gemm_persistent.py"), 2, f"overlap{{backend=ce order={order}}}")
    ce_launch = LaunchPlan.build(ce, params, (3,), 1)
    assert nccl_starvation_risk(ce_launch, first_tile(ce_launch, ce), 1) is None
    assert persistent_nccl_refusal(ce_launch, None, 3, 3) is None


def test_a_persistent_launch_that_fills_every_sm_on_nccl_chunks_is_refused():
    """It would hang for certain: no program ever hands its SM to NCCL; fewer programs only warn."""
    params = {**AG_PARAMS, "PROGRAMS": 3}
    program = compile_workload(load_workload("examples/ag_gemm_persistent.py"), 2, "overlap{backend=nccl order=arrival}")
    launch = LaunchPlan.build(program, params, (3,), 1)
    risk = nccl_starvation_risk(launch, first_tile(launch, program), 1)
    refusal = persistent_nccl_refusal(launch, risk, 3, 3)
    assert refusal is not None and refusal.startswith(risk) and "Refused: its 3 programs fill all 3 SMs." in refusal
    assert persistent_nccl_refusal(launch, risk, 3, 132) is None  # SMs to spare: NCCL can run, so it only warns
    plain = compile_workload(load_workload("examples/ag_gemm.py"), 2, "overlap{backend=nccl order=none}")
    plain_launch = LaunchPlan.build(plain, AG_PARAMS, (4, 3), 1)
    plain_risk = nccl_starvation_risk(plain_launch, first_tile(plain_launch, plain), 1)
    assert plain_risk is not None and persistent_nccl_refusal(plain_launch, plain_risk, 12, 12) is None


def test_a_persistent_reduce_scatter_on_nccl_is_not_at_risk():
    """Its tiles only announce chunks; nothing in the kernel waits for NCCL (a run refused these rows once)."""
    params = {**AG_PARAMS, "PROGRAMS": 3}
    program = compile_workload(load_workload("examples/gemm_rs_persistent.py"), 2, "overlap{backend=nccl order=arrival}")
    for rank in (0, 1):
        launch = LaunchPlan.build(program, params, (3,), rank)
        assert launch.persistent
        risk = nccl_starvation_risk(launch, first_tile(launch, program), rank)
        assert risk is None and persistent_nccl_refusal(launch, risk, 3, 3) is None
