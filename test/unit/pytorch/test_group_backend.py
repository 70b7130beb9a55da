"""Which backend a process group runs CUDA tensors on (pytorch/worlds.backend_name):
a group made without a backend (``init_device_mesh``, a bare
``init_process_group()``) is "undefined" to ``torch.distributed.get_backend``,
yet runs CUDA tensors on NCCL; the fused ops must see that, or no mesh
sub-group ever fuses. No GPU here: the group and CUDA's presence are stand-ins."""

from __future__ import annotations

import pytest
import torch
import torch.distributed as dist

from syncopate.pytorch import fused_ops, worlds


class ProcessGroupNCCL:  # named as torch's NCCL backend class
    pass


class ProcessGroupGloo:
    pass


class Group:
    def __init__(self, cuda_backend):
        self.cuda_backend = cuda_backend

    def _get_backend(self, device):
        assert device == torch.device("cuda")
        if self.cuda_backend is None:
            raise RuntimeError("No backend type associated with device type cuda")
        return self.cuda_backend()

    def size(self):
        return 2


@pytest.fixture
def named(monkeypatch):
    def name(value):
        monkeypatch.setattr(dist, "get_backend", lambda group=None: value)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    return name


@pytest.mark.parametrize("given", ["nccl", "gloo", "cpu:gloo,cuda:nccl"])
def test_a_named_backend_is_kept(named, given):
    named(given)
    assert worlds.backend_name(Group(ProcessGroupGloo)) == given


@pytest.mark.parametrize("cuda_backend, want", [(ProcessGroupNCCL, "nccl"), (ProcessGroupGloo, "undefined"),
                                                (None, "undefined")])
def test_an_undefined_backend_is_the_one_cuda_tensors_run_on(named, cuda_backend, want):
    named("undefined")
    assert worlds.backend_name(Group(cuda_backend)) == want


def test_without_cuda_an_undefined_backend_stays_undefined(named, monkeypatch):
    named("undefined")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert worlds.backend_name(Group(ProcessGroupNCCL)) == "undefined"


@pytest.mark.parametrize("cuda_backend, refused", [(ProcessGroupNCCL, False), (ProcessGroupGloo, True)])
def test_the_fused_ops_take_a_mesh_groups_nccl_backend(named, monkeypatch, cuda_backend, refused):
    """The refusal gets past the backend check for an undefined group on NCCL (it stops at the next check)."""
    named("undefined")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(fused_ops, "process_group", lambda name: Group(cuda_backend))
    A = torch.empty(8, 16, dtype=torch.bfloat16, device="meta")
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))
    why = fused_ops.all_gather_matmul_refusal(A, [torch.empty(16, 8, dtype=torch.bfloat16, device="meta")], 0, "g")
    assert (why == "a 'undefined' process group") == refused
    if not refused:
        assert why is None
