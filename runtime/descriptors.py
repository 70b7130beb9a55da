"""Tensor descriptors made on the host (``TensorDescriptor`` arguments) as
the runtime sees a launch.

The fused kernel takes the caller's descriptor unchanged: Triton reads its
base, shape, strides and block shape. The runtime moves and checks tensors,
so it sees each descriptor argument as its base tensor, plus one integer
per dim: the block size the analysis used as the extent of the
descriptor's loads and stores (host_exprs.descriptor_block_symbol). That
integer also enters the launch's configuration key, so launches with other
block shapes get their own tables.

A descriptor whose base tensor a plan moves must cover all of it, in its
layout: the runtime moves rows of the base, and the kernel indexes rows of
the descriptor, which are the same rows only then.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from triton.tools.tensor_descriptor import TensorDescriptor

from syncopate.ir.analysis.host_exprs import descriptor_block_symbol
from syncopate.runtime.errors import AbiError


def runtime_params(params: Mapping[str, Any], moved: frozenset[str]) -> Mapping[str, Any]:
    """``params`` as the runtime sees them: each ``TensorDescriptor`` by its
    base tensor, and its block sizes as integer symbols. ``moved``: the
    parameters the plans move. The same mapping when no argument is a
    descriptor."""
    if not any(isinstance(v, TensorDescriptor) for v in params.values()):
        return params
    view: dict[str, Any] = {}
    for name, value in params.items():
        if not isinstance(value, TensorDescriptor):
            view[name] = value
            continue
        if name in moved:
            _check_whole_tensor(name, value)
        view[name] = value.base
        for dim, size in enumerate(value.block_shape):
            view[descriptor_block_symbol(name, dim)] = int(size)
    return view


def _check_whole_tensor(name: str, desc: TensorDescriptor) -> None:
    base = desc.base
    if not isinstance(base, torch.Tensor):
        raise AbiError(f"'{name}' is a TensorDescriptor over {type(base).__name__}, not a tensor; a plan moves "
                              "its tensor's rows")
    shape, strides = [int(s) for s in desc.shape], [int(s) for s in desc.strides]
    if shape != list(base.shape) or strides != list(base.stride()):
        raise AbiError(
            f"'{name}' is a TensorDescriptor of shape {shape} and strides {strides} over a tensor of shape "
            f"{list(base.shape)} and strides {list(base.stride())}; a plan moves the tensor's rows, so the descriptor "
            f"must cover the whole tensor in its layout: make it with TensorDescriptor.from_tensor(t, block_shape)")
