"""``syncopate.ops``: all-gather + matmul and matmul + reduce-scatter as
``torch.library`` custom ops, with the arguments and results of PyTorch's
async-TP ops, so switching is a one-line change (and matmul + all-reduce,
``matmul_all_reduce``, which torch has no fused op for)::

    torch.ops.symm_mem.fused_all_gather_matmul(A_shard, Bs, gather_dim, group_name, return_A=True)
    syncopate.ops.all_gather_matmul(A_shard, Bs, gather_dim, group_name, return_A=True)

    torch.ops.symm_mem.fused_matmul_reduce_scatter(A, B, reduce_op, scatter_dim, group_name)
    syncopate.ops.matmul_reduce_scatter(A, B, reduce_op, scatter_dim, group_name)

Both are also reachable as ``torch.ops.syncopate.<name>``. A call of
``syncopate.ops.<name>`` that nothing traces or differentiates (plain
tensors, no autograd to record, no mode active) runs the implementation
directly, without the custom op's dispatch; every other call, and every
call of ``torch.ops.syncopate.<name>``, goes through the op. Each op has

* a fake implementation (shapes only), so ``torch.compile(fullgraph=True)``
  traces a caller without a graph break;
* an autograd formula: the input gradient of all-gather + matmul is a
  matmul + reduce-scatter and the input gradient of matmul + reduce-scatter
  an all-gather + matmul, each through these same ops (so fused where the
  fused path applies); weight gradients are local matmuls;
* two implementations: the fused syncopate kernel (pytorch/fused_ops.py)
  and the unfused collective + ``torch.matmul`` (pytorch/unfused_ops.py),
  both giving PyTorch's results. A call the fused kernel refuses (its
  ``*_refusal`` names why: not CUDA, not an NCCL group of two or more
  ranks, not fp16/bf16, the collective on the features' dim, ...) runs unfused,
  announced by one ``RuntimeWarning`` per reason and process. A call it
  accepts runs whichever path is faster for its shape, measured on the
  first eager call of the shape's bucket and cached, the same on every
  rank (pytorch/op_path.py; ``SYNCOPATE_OPS_PATH=fused|unfused`` forces
  one), so the op is not slower than the unfused collective + matmul.

``group_name`` is a process group's ``group_name`` (``dist.group.WORLD.group_name``
for the default group), as for the ``symm_mem`` ops.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode

from syncopate.pytorch import fused_ops, op_autograd, op_path, op_stats, replayed_ops, settled_calls, unfused_ops
from syncopate.pytorch.unfused_ops import group_size

__all__ = ["all_gather_matmul", "matmul_all_reduce", "matmul_reduce_scatter"]

# The schemas and tags of torch's symm_mem ops, names included (``A=`` works as there); needs_fixed_stride_order:
# Inductor passes the inputs in the strides the caller gave, as it does for symm_mem's ops.
_AG_SCHEMA = "(Tensor A, Tensor[] Bs, int gather_dim, str group_name, *, bool return_A=True) -> (Tensor?, Tensor[])"
_RS_SCHEMA = "(Tensor A, Tensor B, str reduce_op, int scatter_dim, str group_name) -> Tensor"
_AR_SCHEMA = "(Tensor A, Tensor B, str reduce_op, str group_name) -> Tensor"


_TAGS = (torch.Tag.needs_fixed_stride_order,)


def _run(op: str, sig: tuple, refusal: Callable[[], str | None], key: Callable[[], op_path.Key],
         A: torch.Tensor, Bs: list[torch.Tensor], fused: Callable[[], Any], unfused: Callable[[], Any],
         replayed: Callable[[], Any] | None) -> Any:
    """One call of ``op`` with signature ``sig`` and no settled path
    (pytorch/settled_calls.py): the path measured for its key where the
    fused kernel takes it (pytorch/op_path.py; ``replayed`` None where the
    replay does not apply), else the unfused one, counted, logged and
    announced with the refusal; a path that is now fixed is settled for
    ``sig``."""
    why = refusal()
    shapes = (tuple(A.shape), *(tuple(B.shape) for B in Bs))
    if why is not None:
        op_stats.record(op, shapes, why)
        unfused_ops.warn_unfused(op, why)
        settled_calls.settle(sig, "unfused")
        return unfused()
    op_key = key()
    result = op_path.run(op_key, shapes, fused, unfused, replayed)
    taken = op_path.settled_path(op_key, replayed is not None, op_path.capturing())
    if taken is not None:
        settled_calls.settle(sig, taken)
    return result


def _settled_call(op: str, path: str, *args: Any) -> Any:
    """A call whose path is settled: counted, then that path's implementation of ``op``."""
    op_stats.count(op, path)
    module = fused_ops if path == "fused" else replayed_ops if path == "replayed" else unfused_ops
    return getattr(module, op)(*args)


def _all_gather_matmul_impl(A: torch.Tensor, Bs: list[torch.Tensor], gather_dim: int, group_name: str,
                            return_A: bool) -> tuple[torch.Tensor | None, list[torch.Tensor]]:
    sig = settled_calls.signature("all_gather_matmul", group_name, (A, *Bs), gather_dim, return_A,
                                  op_path.capturing())
    settled = settled_calls.path(sig)
    if settled is not None:  # never for an empty Bs (below: not settled)
        return _settled_call("all_gather_matmul", settled, A, Bs, gather_dim, group_name, return_A)
    unfused_ops.check_all_gather_matmul(A, Bs, gather_dim, group_name)
    op_path.mode()  # a misspelt SYNCOPATE_OPS_PATH raises on any machine, not only where the fused path applies
    if not Bs:  # a plain all-gather (the backward's re-gather): no matmul to fuse, nothing to announce
        return unfused_ops.all_gather_matmul(A, Bs, gather_dim, group_name, return_A)
    return _run("all_gather_matmul", sig, lambda: fused_ops.all_gather_matmul_refusal(A, Bs, gather_dim, group_name),
                lambda: op_path.key("all_gather_matmul", group_name, A, Bs, return_A), A, Bs,
                lambda: fused_ops.all_gather_matmul(A, Bs, gather_dim, group_name, return_A),
                lambda: unfused_ops.all_gather_matmul(A, Bs, gather_dim, group_name, return_A),
                _replayed(A, Bs, gather_dim, group_name,
                          lambda: replayed_ops.all_gather_matmul(A, Bs, gather_dim, group_name, return_A)))


@torch.library.custom_op("syncopate::all_gather_matmul", mutates_args=(), schema=_AG_SCHEMA, tags=_TAGS)
def _all_gather_matmul(A: torch.Tensor, Bs: list[torch.Tensor], gather_dim: int, group_name: str, *,
                       return_A: bool = True) -> tuple[torch.Tensor | None, list[torch.Tensor]]:
    return _all_gather_matmul_impl(A, Bs, gather_dim, group_name, return_A)


@_all_gather_matmul.register_fake
def _all_gather_matmul_fake(A: torch.Tensor, Bs: list[torch.Tensor], gather_dim: int, group_name: str, *,
                            return_A: bool = True) -> tuple[torch.Tensor | None, list[torch.Tensor]]:
    unfused_ops.check_all_gather_matmul(A, Bs, gather_dim, group_name)
    shape = list(A.shape)
    shape[gather_dim] *= group_size(group_name)
    gathered = A.new_empty(shape)
    return (gathered if return_A else None), [gathered.new_empty([*shape[:-1], B.shape[1]], dtype=B.dtype) for B in Bs]


def _matmul_reduce_scatter_impl(A: torch.Tensor, B: torch.Tensor, reduce_op: str, scatter_dim: int,
                                group_name: str) -> torch.Tensor:
    sig = settled_calls.signature("matmul_reduce_scatter", group_name, (A, B), reduce_op, scatter_dim,
                                  op_path.capturing())
    settled = settled_calls.path(sig)
    if settled is not None:
        return _settled_call("matmul_reduce_scatter", settled, A, B, reduce_op, scatter_dim, group_name)
    unfused_ops.check_matmul_reduce_scatter(A, B, reduce_op, scatter_dim, group_name)
    op_path.mode()
    return _run("matmul_reduce_scatter", sig,
                lambda: fused_ops.matmul_reduce_scatter_refusal(A, B, scatter_dim, group_name),
                lambda: op_path.key("matmul_reduce_scatter", group_name, A, [B]), A, [B],
                lambda: fused_ops.matmul_reduce_scatter(A, B, reduce_op, scatter_dim, group_name),
                lambda: unfused_ops.matmul_reduce_scatter(A, B, reduce_op, scatter_dim, group_name),
                _replayed(A, [B], scatter_dim, group_name,
                          lambda: replayed_ops.matmul_reduce_scatter(A, B, reduce_op, scatter_dim, group_name)))


@torch.library.custom_op("syncopate::matmul_reduce_scatter", mutates_args=(), schema=_RS_SCHEMA, tags=_TAGS)
def _matmul_reduce_scatter(A: torch.Tensor, B: torch.Tensor, reduce_op: str, scatter_dim: int,
                           group_name: str) -> torch.Tensor:
    return _matmul_reduce_scatter_impl(A, B, reduce_op, scatter_dim, group_name)


@_matmul_reduce_scatter.register_fake
def _matmul_reduce_scatter_fake(A: torch.Tensor, B: torch.Tensor, reduce_op: str, scatter_dim: int,
                                group_name: str) -> torch.Tensor:
    unfused_ops.check_matmul_reduce_scatter(A, B, reduce_op, scatter_dim, group_name)
    shape = [*A.shape[:-1], B.shape[1]]
    shape[scatter_dim] //= group_size(group_name)
    return A.new_empty(shape, dtype=B.dtype)


def _matmul_all_reduce_impl(A: torch.Tensor, B: torch.Tensor, reduce_op: str, group_name: str) -> torch.Tensor:
    sig = settled_calls.signature("matmul_all_reduce", group_name, (A, B), reduce_op, op_path.capturing())
    settled = settled_calls.path(sig)
    if settled is not None:
        return _settled_call("matmul_all_reduce", settled, A, B, reduce_op, group_name)
    unfused_ops.check_matmul_all_reduce(A, B, reduce_op, group_name)
    op_path.mode()
    return _run("matmul_all_reduce", sig, lambda: fused_ops.matmul_all_reduce_refusal(A, B, group_name),
                lambda: op_path.key("matmul_all_reduce", group_name, A, [B]), A, [B],
                lambda: fused_ops.matmul_all_reduce(A, B, reduce_op, group_name),
                lambda: unfused_ops.matmul_all_reduce(A, B, reduce_op, group_name),
                _replayed(A, [B], 0, group_name, lambda: replayed_ops.matmul_all_reduce(A, B, reduce_op, group_name)))


@torch.library.custom_op("syncopate::matmul_all_reduce", mutates_args=(), schema=_AR_SCHEMA, tags=_TAGS)
def _matmul_all_reduce(A: torch.Tensor, B: torch.Tensor, reduce_op: str, group_name: str) -> torch.Tensor:
    return _matmul_all_reduce_impl(A, B, reduce_op, group_name)


@_matmul_all_reduce.register_fake
def _matmul_all_reduce_fake(A: torch.Tensor, B: torch.Tensor, reduce_op: str, group_name: str) -> torch.Tensor:
    unfused_ops.check_matmul_all_reduce(A, B, reduce_op, group_name)
    return A.new_empty([*A.shape[:-1], B.shape[1]], dtype=B.dtype)


op_autograd.register()


def _replayed(A: torch.Tensor, Bs: list[torch.Tensor], dim: int, group_name: str,
              call: Callable[[], Any]) -> Callable[[], Any] | None:
    """``call`` where the replayed path applies to the call (pytorch/replayed_ops.py), else None."""
    return call if replayed_ops.applies(A, Bs, dim, group_name) else None


def _plain_eager_call(*tensors: torch.Tensor) -> bool:
    """Whether a call can run the implementation without the dispatcher:
    nothing traces it (torch.compile, export), no autograd graph records it,
    and no tensor subclass (DTensor, fake tensors) or torch function or
    dispatch mode needs to see the op. Then the custom op would only add
    its dispatch, a large share of a small call's host time; its results
    are the same fresh tensors either way."""
    if (torch.compiler.is_compiling() or torch._C._is_torch_function_mode_enabled()
            or _get_current_dispatch_mode() is not None):
        return False
    grad = torch.is_grad_enabled()
    return all(type(t) in (torch.Tensor, torch.nn.Parameter) and not (grad and t.requires_grad) for t in tensors)


def all_gather_matmul(A: torch.Tensor, Bs: list[torch.Tensor], gather_dim: int, group_name: str, *,
                      return_A: bool = True) -> tuple[torch.Tensor | None, list[torch.Tensor]]:
    """All-gather ``A`` (this rank's shard) along ``gather_dim`` over the
    group, then multiply the gathered A by each B: returns
    ``(gathered A or None, [gathered A @ B for B in Bs])``.

    As ``torch.ops.symm_mem.fused_all_gather_matmul`` (same argument names):
    ``A`` has two or more dims, each ``B`` is 2-D, the product is over A's
    last dim. With ``return_A=False`` the first result is None.
    """
    if _plain_eager_call(A, *Bs):
        return _all_gather_matmul_impl(A, Bs, gather_dim, group_name, return_A)
    return torch.ops.syncopate.all_gather_matmul(A, Bs, gather_dim, group_name, return_A=return_A)


def matmul_reduce_scatter(A: torch.Tensor, B: torch.Tensor, reduce_op: str, scatter_dim: int,
                          group_name: str) -> torch.Tensor:
    """``A @ B`` reduced over the group (``reduce_op`` "sum" or "avg") and
    scattered along ``scatter_dim``: rank r gets its r-th slice.

    As ``torch.ops.symm_mem.fused_matmul_reduce_scatter``: A has two or more
    dims, B is 2-D, ``A.shape[scatter_dim]`` is a multiple of the group size.
    """
    if _plain_eager_call(A, B):
        return _matmul_reduce_scatter_impl(A, B, reduce_op, scatter_dim, group_name)
    return torch.ops.syncopate.matmul_reduce_scatter(A, B, reduce_op, scatter_dim, group_name)



def matmul_all_reduce(A: torch.Tensor, B: torch.Tensor, reduce_op: str, group_name: str) -> torch.Tensor:
    """``A @ B`` summed (``reduce_op`` "sum") or averaged ("avg") over the
    group, the full result on every rank: a row-parallel linear without
    sequence parallelism (A holds this rank's input features, B its rows of
    the weight). The fused path is the fused matmul + reduce-scatter of A's
    rows (leading dims flattened) followed by an all-gather of the reduced
    rows; the unfused one ``torch.matmul`` + all-reduce. The backward is
    local: ``grad A = grad @ B^T``, ``grad B = A^T @ grad``.
    """
    if _plain_eager_call(A, B):
        return _matmul_all_reduce_impl(A, B, reduce_op, group_name)
    return torch.ops.syncopate.matmul_all_reduce(A, B, reduce_op, group_name)
