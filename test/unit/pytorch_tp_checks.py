"""Checks of syncopate.tp on every rank of a gloo group (test_pytorch_tp.py owns them)."""

from __future__ import annotations

import copy

import torch
import torch.distributed as dist
from torch import nn


class Mlp(nn.Module):
    def __init__(self, hidden: int, ffn: int, bias: bool):
        super().__init__()
        self.up = nn.Linear(hidden, ffn, bias=bias, dtype=torch.float64)
        self.down = nn.Linear(ffn, hidden, bias=bias, dtype=torch.float64)

    def forward(self, x):
        return self.down(torch.nn.functional.silu(self.up(x)))


def _parallel(model, sequence_dim):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    from syncopate.tp import SyncopateColwiseParallel, SyncopateRowwiseParallel

    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    return parallelize_module(copy.deepcopy(model), mesh, {"up": SyncopateColwiseParallel(sequence_dim),
                                                          "down": SyncopateRowwiseParallel(sequence_dim)})


def mlp_matches_unparallelized(rank, world):
    """Forward slices and every parameter's gradient equal the plain module's."""
    for shape, dim, bias in (((2, 4 * world, 6), 1, True), ((4 * world, 6), 0, False)):
        torch.manual_seed(0)
        model = Mlp(6, 8, bias)
        x = torch.randn(*shape, dtype=torch.float64)
        ref = model(x)
        ref.sum().backward()
        tp = _parallel(model, dim)
        y = tp(x.chunk(world, dim)[rank])
        torch.testing.assert_close(y, ref.chunk(world, dim)[rank])
        y.sum().backward()  # the ranks' losses add up to the plain module's
        for (name, p), (_, q) in zip(model.named_parameters(), tp.named_parameters()):
            torch.testing.assert_close(q.grad.full_tensor(), p.grad, msg=name)


def refuses_non_linear(rank, world):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    from syncopate.tp import SyncopateColwiseParallel

    mesh = init_device_mesh("cpu", (world,))
    try:
        parallelize_module(nn.Sequential(nn.ReLU()), mesh, {"0": SyncopateColwiseParallel()})
    except TypeError as err:
        assert "applies to nn.Linear modules, got ReLU" in str(err)
    else:
        raise AssertionError("a ReLU was accepted")
