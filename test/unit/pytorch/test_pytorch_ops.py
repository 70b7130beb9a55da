"""syncopate.ops and syncopate.compile on a real two-process gloo group (CPU).

The checks live in pytorch_op_checks.py and run in one spawn of two ranks
(gloo_ranks.py); each test here asserts its check passed on every rank.
Covered: values against references built from every rank's inputs and
against PyTorch's own symm_mem fallback, gradcheck in fp64 through the
unfused path, fake-tensor shapes, torch.compile(fullgraph=True) forward and
backward, the one-time notice, argument errors, and syncopate.compile of
an all-gather and a reduce-scatter kernel with the compile cache, of
an autotuned kernel, and of kernels with @triton.heuristics.
"""

import pytest
from gloo_ranks import run_checks

CHECKS = ["ag_values", "rs_values", "same_as_torch_fallback", "ag_gradcheck", "rs_gradcheck", "fake_tracing",
          "compile_fullgraph", "warns_once", "bad_arguments", "compile_kernel", "compile_reduce_scatter",
          "compile_autotuned", "compile_heuristics", "opcheck_passes", "unfused_moves_each_byte_once",
          "decisions_are_visible", "ar_values", "ar_gradcheck", "ar_op_contract", "ag_backward_transposes_no_weight"]


@pytest.fixture(scope="module")
def results():
    return run_checks("pytorch_op_checks", CHECKS, env={"TRITON_INTERPRET": "1"})


@pytest.mark.parametrize("check", CHECKS)
def test_check_passes_on_every_rank(results, check):
    for rank, found in enumerate(results):
        assert found[check] is None, f"rank {rank}:\n{found[check]}"


def test_plain_eager_calls_skip_the_dispatcher_and_others_go_through_it(monkeypatch):
    """syncopate.ops runs the implementation directly only where the custom
    op would add nothing but its dispatch: not for a tensor that autograd
    records, nor under a dispatch mode (fake tensors), nor while tracing."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    from syncopate import ops

    plain, grad = torch.ones(2, 2), torch.ones(2, 2, requires_grad=True)
    assert ops._plain_eager_call(plain, torch.nn.Parameter(torch.ones(2, 2), requires_grad=False))
    assert not ops._plain_eager_call(plain, grad)
    with torch.no_grad():
        assert ops._plain_eager_call(plain, grad)
    with FakeTensorMode():
        assert not ops._plain_eager_call(plain)
    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    assert not ops._plain_eager_call(plain)
