"""Plan extents known only at launch.

A row-wise kernel launched with ``grid = (x.shape[0],)`` often has no
row-count parameter: nothing in its signature holds the extent a plan
splits. Such a plan keeps a symbol as its tensor's extent along the split
dim (the template default ``M``, or any ``size=NAME``), and that symbol is
the launched tensor's shape: ``x.shape[dim]`` of the parameter the plan
names, read at every launch.

The rule, shared by the compiler (which accepts such symbols in the plan's
chunks) and the runtime (which binds them before evaluating the chunk
tables):

* a tensor's extent along its split dim that is a bare symbol naming no
  kernel parameter (and not ``W``) is a **launch extent** of that tensor;
* a symbol naming a kernel parameter is that parameter's value, as before;
* a literal extent is checked against the launched tensor (runtime/abi.py).

The shape counts the kernel's rows only if the tensor's layout is the one
the kernel indexes: the runtime also checks that the tensor's stride along
the dim is the plan's stride there (the kernel's stride argument), so a
flattened or strided view cannot pass its element count off as rows.

A launch extent is a property of the tensor, so every plan that names the
same symbol must see the same extent at a launch (checked at launch).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from syncopate.dialects.chunk import PlanOp
from syncopate.ir.plans.expr import Extent

WORLD_SYMBOL = "W"


@dataclass(frozen=True)
class LaunchExtent:
    """``symbol`` is the launched ``param``'s extent along ``dim`` (tensor
    ``tensor`` of plan ``plan``); ``stride`` is the plan's stride of that
    dim (a kernel parameter's name or a number)."""

    symbol: str
    plan: str
    tensor: str
    param: str
    dim: int
    stride: Extent

    def describe(self) -> str:
        return f"{self.symbol} = {self.param}.shape[{self.dim}] (plan @{self.plan})"


def split_dims(plan: PlanOp) -> dict[str, int]:
    """Each tensor's split dim, from its chunks (one per tensor: the verifier's rule)."""
    return {c.tensor.data: c.dim.value.data for c in plan.chunks}


def launch_extents(plan: PlanOp, parameters: Collection[str]) -> list[LaunchExtent]:
    """The plan's extents bound at launch, given the kernel's parameter names."""
    dims = split_dims(plan)
    result = []
    for tensor in plan.tensors:
        dim = dims.get(tensor.tensor.data)
        shape = tensor.shape_values
        if dim is None or dim >= len(shape):
            continue
        extent = shape[dim]
        if isinstance(extent, str) and extent.isidentifier() and extent != WORLD_SYMBOL \
                and extent not in parameters:
            result.append(LaunchExtent(extent, plan.sym_name.data, tensor.tensor.data, tensor.param.data, dim,
                                       tensor.stride_values[dim]))
    return result
