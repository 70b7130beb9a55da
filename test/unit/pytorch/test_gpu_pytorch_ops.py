"""The fused GPU path of syncopate.ops and syncopate.compile on two GPUs
(NCCL, symmetric memory): values with no unfused notice, torch.compile,
CUDA-graph replay with fresh inputs, gradients, the symmetric-buffer
check of syncopate.compile, an autotuned kernel, and the measured choice
between the fused and the unfused path. Needs two GPUs (checks in pytorch_gpu_checks.py).

    TRITON_INTERPRET=0 python -m pytest -q test/unit/pytorch/test_gpu_pytorch_ops.py
"""


import pytest
import torch
from gloo_ranks import run_checks

CHECKS = ["fused_all_gather_matmul", "fused_batch_sequence_dim", "fused_matmul_reduce_scatter", "compiled_matches_eager",
          "cuda_graph_replay", "gradients_match_unfused", "compile_needs_symmetric", "compile_autotuned", "measured_choice_agrees",
          "torch_plan_compiles_to_syncopate_ops", "replayed_back_to_back", "serving_row_counts"]

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two CUDA GPUs"),
]


@pytest.fixture(scope="module")
def results():
    # the checks test the fused kernel, which the measured choice may pass over at their small shapes;
    # measured_choice_agrees sets the variable to auto for itself
    return run_checks("pytorch_gpu_checks", CHECKS, env={"TRITON_INTERPRET": "0", "SYNCOPATE_OPS_PATH": "fused"},
                      backend="nccl")


@pytest.mark.parametrize("check", CHECKS)
def test_check_passes_on_every_rank(results, check):
    for rank, found in enumerate(results):
        assert found[check] is None, f"rank {rank}:\n{found[check]}"
