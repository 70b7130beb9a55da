"""A launch whose tensor strides are not the ones the plan names is refused
(runtime/abi._check_strides): the analysis found the plan's dim in the
addresses by the stride parameters' names (declaration order, or
``stride=``), and the runtime moves rows along the tensor's own dims, so a
stride argument that is not the tensor's stride along its dim would move
other rows than the kernel reads. Checked at launch, independently of the
analysis."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from syncopate.runtime.abi import AbiError, launch_env
from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.runtime.harness.workload import load_workload

ROOT = Path(__file__).resolve().parents[3]
WORKLOAD = load_workload(str(ROOT / "examples" / "ag_gemm.py"))
M, K, N = 8, 16, 12


@pytest.fixture(scope="module")
def program():
    return compile_workload(WORKLOAD, 2)


def _params(a: torch.Tensor, stride_am: int, stride_ak: int) -> dict:
    b, c = torch.randn(K, N), torch.empty(a.shape[0], N)
    return {"a_ptr": a, "b_ptr": b, "c_ptr": c, "M": a.shape[0], "N": N, "K": K, "stride_am": stride_am,
            "stride_ak": stride_ak, "stride_bk": b.stride(0), "stride_bn": b.stride(1), "stride_cm": c.stride(0),
            "stride_cn": c.stride(1), "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}


def test_the_tensors_own_strides_pass(program):
    a = torch.randn(M, K)
    assert launch_env(program, _params(a, a.stride(0), a.stride(1)))["M"] == M
    col_major = a.t().contiguous().t()  # the same rows, stored by columns: its strides name its dims as declared
    launch_env(program, _params(col_major, col_major.stride(0), col_major.stride(1)))


def test_swapped_stride_arguments_are_refused_naming_the_parameter(program):
    a = torch.randn(M, K)
    with pytest.raises(AbiError, match=r"plan @ag takes 'stride_am' as the stride of dim 0 of 'a_ptr', but the "
                                       r"launch passes stride_am=1 while 'a_ptr' has stride 16 along dim 0"):
        launch_env(program, _params(a, a.stride(1), a.stride(0)))


def test_a_dim_of_one_entry_has_no_stride_to_check(program):
    a = torch.randn(1, K)
    launch_env(program, _params(a, 12345, a.stride(1)))


def test_the_shipped_workload_still_runs(program):
    assert all(r.ok for r in run_simulated(WORKLOAD, 2, "late", 0, program))
