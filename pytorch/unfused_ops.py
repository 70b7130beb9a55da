"""The unfused implementation of ``syncopate.ops`` (any device and backend),
argument checks shared with the fake implementations, and the one-time
notice that a call runs unfused.

All-gather + matmul: one all-gather of the shards into a single tensor
along ``gather_dim``, then ``torch.matmul`` per B. Matmul +
reduce-scatter: ``torch.matmul``, then a reduce-scatter along
``scatter_dim`` (each rank moves its share of the bytes once, not the
all-reduce's twice), divided by the group size for ``avg``. A collective
on rows (the dim is the first, or every dim before it has size 1) of a
contiguous tensor is the in-place ``torch.distributed`` collective into a
fresh tensor, as NCCL + cuBLAS code calls it, issued on the group itself
(runtime/gpu/direct_collectives.py); any other dim goes through
the functional collectives, as does the autograd formula's reduce-scatter
(:func:`reduce_scatter`), which AOT autograd traces. The results equal PyTorch's ``symm_mem`` ops'
fallbacks (same shapes, dtypes and values) and are fresh tensors that
alias neither the inputs nor each other, as custom ops require.
"""

from __future__ import annotations

import os
import sys
import warnings

import torch

from syncopate.runtime.gpu import direct_collectives

REDUCE_OPS = ("sum", "avg")
_WARNED: set[tuple[str, str]] = set()


def process_group(group_name: str):
    from torch.distributed.distributed_c10d import _resolve_process_group

    return _resolve_process_group(group_name)


def group_size(group_name: str) -> int:
    return process_group(group_name).size()


def warn_unfused(op: str, reason: str) -> None:
    """Say once per process and reason that ``op`` runs unfused, at the
    caller's line (the op is reached through torch's custom-op dispatch, so
    a fixed stack level would name a torch file)."""
    if (op, reason) not in _WARNED:
        _WARNED.add((op, reason))
        warnings.warn(f"syncopate.ops.{op}: no fused kernel for {reason}; running the unfused collective + "
                      "matmul (same results)", RuntimeWarning, stacklevel=_caller_level())


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside syncopate and torch, as seen from warn_unfused."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # syncopate's folder
    inside = (package + os.sep, os.path.dirname(os.path.abspath(torch.__file__)) + os.sep)
    tests = os.path.join(package, "test") + os.sep
    frame, level = sys._getframe(2), 2  # warn_unfused's caller is level 2
    while frame is not None:
        name = frame.f_code.co_filename
        path = os.path.abspath(name)
        if not name.startswith("<") and (not path.startswith(inside) or path.startswith(tests)):
            return level
        frame, level = frame.f_back, level + 1
    return 2


def check_all_gather_matmul(A_shard: torch.Tensor, Bs: list[torch.Tensor], gather_dim: int, group_name: str) -> None:
    op = "syncopate.ops.all_gather_matmul"
    if A_shard.dim() < 2:
        raise ValueError(f"{op}: A_shard must have 2 or more dims, got shape {tuple(A_shard.shape)}")
    if not 0 <= gather_dim < A_shard.dim():
        raise ValueError(f"{op}: gather_dim {gather_dim} is not a dim of A_shard (shape {tuple(A_shard.shape)})")
    for i, B in enumerate(Bs):
        if B.dim() != 2 or B.shape[0] != A_shard.shape[-1] * (group_size(group_name) if gather_dim == A_shard.dim() - 1 else 1):
            raise ValueError(f"{op}: Bs[{i}] must be a matrix whose first dim matches A's last "
                             f"(A_shard {tuple(A_shard.shape)}, gather_dim {gather_dim}, B {tuple(B.shape)})")


def _check_matmul_reduce(op: str, A: torch.Tensor, B: torch.Tensor, reduce_op: str) -> None:
    """The arguments the reducing ops share: A of 2 or more dims, B a matrix
    whose first dim matches A's last, a known reduce_op."""
    if A.dim() < 2:
        raise ValueError(f"{op}: A must have 2 or more dims, got shape {tuple(A.shape)}")
    if B.dim() != 2 or B.shape[0] != A.shape[-1]:
        raise ValueError(f"{op}: B must be a matrix whose first dim matches A's last (A {tuple(A.shape)}, "
                         f"B {tuple(B.shape)})")
    if reduce_op not in REDUCE_OPS:
        raise ValueError(f"{op}: reduce_op must be one of {REDUCE_OPS}, got '{reduce_op}'")


def check_matmul_reduce_scatter(A: torch.Tensor, B: torch.Tensor, reduce_op: str, scatter_dim: int,
                                group_name: str) -> None:
    op = "syncopate.ops.matmul_reduce_scatter"
    _check_matmul_reduce(op, A, B, reduce_op)
    if not 0 <= scatter_dim < A.dim():
        raise ValueError(f"{op}: scatter_dim {scatter_dim} is not a dim of A (shape {tuple(A.shape)})")
    size = B.shape[1] if scatter_dim == A.dim() - 1 else A.shape[scatter_dim]
    world = group_size(group_name)
    if size % world:
        raise ValueError(f"{op}: the scattered dim has {size} entries, not a multiple of the group size {world}")


def all_gather(A_shard: torch.Tensor, gather_dim: int, group_name: str) -> torch.Tensor:
    """Every rank's ``A_shard`` concatenated along ``gather_dim``, rank 0 first."""
    import torch.distributed._functional_collectives as funcol

    gathered = funcol.all_gather_tensor(A_shard.contiguous(), gather_dim, group_name)
    return funcol.wait_tensor(gathered).clone(memory_format=torch.contiguous_format)


def rows_dim(shape: torch.Size, dim: int) -> bool:
    """Whether a collective on ``dim`` moves whole rows of the tensor's
    storage: every dim before it has size 1 (dim 0 included)."""
    return dim < len(shape) and all(shape[i] == 1 for i in range(dim))


def _gathered_rows(A_shard: torch.Tensor, gather_dim: int, group_name: str) -> torch.Tensor:
    """:func:`all_gather` of a contiguous shard along a rows dim, by the
    in-place collective into one fresh tensor: what NCCL + cuBLAS code does,
    without the functional collective's wrapper and copy (this runs inside
    the custom op, which tracing never enters)."""
    group = process_group(group_name)
    shape = list(A_shard.shape)
    shape[gather_dim] *= group.size()
    out = A_shard.new_empty(shape)
    direct_collectives.all_gather_into(out, A_shard, group)
    return out


def _scattered_rows(t: torch.Tensor, dim: int, group_name: str) -> torch.Tensor:
    """:func:`reduce_scatter` of a contiguous tensor along a rows dim, by the in-place collective."""
    group = process_group(group_name)
    shape = list(t.shape)
    shape[dim] //= group.size()
    out = t.new_empty(shape)
    direct_collectives.reduce_scatter_into(out, t, group)
    return out


def all_gather_matmul(A_shard: torch.Tensor, Bs: list[torch.Tensor], gather_dim: int, group_name: str,
                      return_A: bool) -> tuple[torch.Tensor | None, list[torch.Tensor]]:
    if A_shard.is_contiguous() and rows_dim(A_shard.shape, gather_dim):
        A = _gathered_rows(A_shard, gather_dim, group_name)
    else:
        A = all_gather(A_shard, gather_dim, group_name)
    return (A if return_A else None), [torch.matmul(A, B) for B in Bs]


def reduce_scatter(t: torch.Tensor, dim: int, group_name: str) -> torch.Tensor:
    """This rank's slice along ``dim`` of the sum of ``t`` over the group."""
    import torch.distributed._functional_collectives as funcol

    part = funcol.reduce_scatter_tensor(t.contiguous(), "sum", dim, group_name)
    return funcol.wait_tensor(part).clone(memory_format=torch.contiguous_format)


def matmul_reduce_scatter(A: torch.Tensor, B: torch.Tensor, reduce_op: str, scatter_dim: int,
                          group_name: str) -> torch.Tensor:
    product = torch.matmul(A, B)
    if product.is_contiguous() and rows_dim(product.shape, scatter_dim):
        out = _scattered_rows(product, scatter_dim, group_name)
    else:
        out = reduce_scatter(product, scatter_dim, group_name)
    return out.div_(group_size(group_name)) if reduce_op == "avg" else out


def check_matmul_all_reduce(A: torch.Tensor, B: torch.Tensor, reduce_op: str, group_name: str) -> None:
    _check_matmul_reduce("syncopate.ops.matmul_all_reduce", A, B, reduce_op)


def matmul_all_reduce(A: torch.Tensor, B: torch.Tensor, reduce_op: str, group_name: str) -> torch.Tensor:
    """``A @ B`` summed (or averaged) over the group, on every rank: ``torch.matmul``, then the in-place all-reduce."""
    from syncopate.runtime.gpu import direct_collectives

    out = torch.matmul(A, B)
    direct_collectives.all_reduce(out, process_group(group_name))
    return out.div_(group_size(group_name)) if reduce_op == "avg" else out
