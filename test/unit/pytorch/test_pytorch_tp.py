"""syncopate.tp parallel styles on a real two-process gloo group (CPU): a
sequence-parallel MLP (column-wise up, row-wise down) gives the plain
module's output slices and parameter gradients, also under
torch.compile(fullgraph=True); non-Linear modules are refused.
Also overlap-bench's tp-layer rows on the same group (bench/tp_layer.py)."""

import pytest
from gloo_ranks import run_checks

CHECKS = ["mlp_matches_unparallelized", "dtensor_inputs", "shared_inputs_gather_once", "shared_style_refuses_what_it_cannot_shard",
          "rowwise_without_sequence_parallelism",
          "mlp_compiles_fullgraph", "refuses_non_linear", "tp_layer_bench_rows", "tp_layer_mismatch_detected"]


@pytest.fixture(scope="module")
def results():
    return run_checks("pytorch_tp_checks", CHECKS)


@pytest.mark.parametrize("check", CHECKS)
def test_check_passes_on_every_rank(results, check):
    for rank, found in enumerate(results):
        assert found[check] is None, f"rank {rank}:\n{found[check]}"
