"""Autograd formulas of ``syncopate.ops``.

All-gather + matmul, ``out_i = A @ B_i`` with ``A`` the shards of the
group concatenated along ``gather_dim``:

* ``grad A_shard`` = this rank's slice of ``sum over ranks of sum_i
  grad_out_i @ B_i^T`` (plus the gathered A's own gradient when the caller
  used it): a matmul + reduce-scatter, run as ``syncopate.ops.matmul_reduce_scatter``
  on the gradients concatenated along N and the B's concatenated along N,
  then transposed as a view (one call for any number of B's, and no
  weight transposed in memory);
* ``grad B_i`` = ``A^T @ grad_out_i`` over the flattened leading dims, a
  local matmul with the gathered A (kept from the forward when it returned
  A, else gathered again).

Matmul + all-reduce, ``out = sum over ranks A_r @ B_r`` (the same on
every rank, and so its gradient): ``grad A = grad_out @ B^T`` and
``grad B = A^T @ grad_out``, both local.

Matmul + reduce-scatter, ``out = slice_r(sum over ranks A @ B)``:

* ``grad A`` = ``all_gather(grad_out) @ B^T``: ``syncopate.ops.all_gather_matmul``
  (which also returns the gathered gradient), divided by the group size for ``avg``;
* ``grad B`` = ``A^T @ all_gather(grad_out)``, local.

The backward only calls custom ops, torch functions and functional
collectives, so AOT autograd traces it too.
"""

from __future__ import annotations

from typing import Any

import torch


def _ag_setup(ctx: Any, inputs: tuple, keyword_only_inputs: dict, output: tuple) -> None:
    A_shard, Bs, gather_dim, group_name = inputs
    # an output nobody used (the gathered A a caller keeps only for this backward) gets None, not zeros:
    # a zero gradient of A would cost a reduce-scatter of zeros
    ctx.set_materialize_grads(False)
    ctx.gather_dim, ctx.group_name = gather_dim, group_name
    ctx.returned_A = output[0] is not None
    ctx.shard_shape = A_shard.shape
    ctx.save_for_backward(*Bs, output[0] if ctx.returned_A else A_shard)


def _ag_backward(ctx: Any, grad_A: torch.Tensor | None, grad_outs: list[torch.Tensor | None]) -> tuple:
    *Bs, saved = ctx.saved_tensors
    dim, name = ctx.gather_dim, ctx.group_name
    A = saved if ctx.returned_A else torch.ops.syncopate.all_gather_matmul(saved, [], dim, name)[0]
    used = [(g, B) for g, B in zip(grad_outs, Bs) if g is not None]
    grad_shard = None
    if ctx.needs_input_grad[0]:
        if used:
            G = used[0][0] if len(used) == 1 else torch.cat([g for g, _ in used], dim=-1)
            # the B's side by side, then one transposed view: a copy of whole rows, where concatenating
            # their transposes would transpose every weight in memory at each backward
            Bt = (used[0][1] if len(used) == 1 else torch.cat([B for _, B in used], dim=1)).t()
            grad_shard = torch.ops.syncopate.matmul_reduce_scatter(G, Bt, "sum", dim, name)
        if grad_A is not None:
            from syncopate.pytorch.unfused_ops import reduce_scatter

            extra = reduce_scatter(grad_A, dim, name)
            grad_shard = extra if grad_shard is None else grad_shard + extra
        if grad_shard is None:
            grad_shard = A.new_zeros(ctx.shard_shape)
    A_flat = A.flatten(0, -2)
    grad_Bs = [None if g is None else A_flat.t() @ g.flatten(0, -2) for g in grad_outs]
    return grad_shard, grad_Bs, None, None


def _rs_setup(ctx: Any, inputs: tuple, output: torch.Tensor) -> None:
    A, B, reduce_op, scatter_dim, group_name = inputs
    ctx.reduce_op, ctx.scatter_dim, ctx.group_name = reduce_op, scatter_dim, group_name
    ctx.save_for_backward(A, B)


def _rs_backward(ctx: Any, grad: torch.Tensor) -> tuple:
    A, B = ctx.saved_tensors
    if ctx.reduce_op == "avg":
        grad = grad / _size(ctx.group_name)
    G, (grad_A,) = torch.ops.syncopate.all_gather_matmul(grad, [B.t()], ctx.scatter_dim, ctx.group_name)
    grad_B = A.flatten(0, -2).t() @ G.flatten(0, -2)
    return grad_A, grad_B, None, None, None


def _ar_setup(ctx: Any, inputs: tuple, output: torch.Tensor) -> None:
    A, B, reduce_op, group_name = inputs
    ctx.reduce_op, ctx.group_name = reduce_op, group_name
    ctx.save_for_backward(A, B)


def _ar_backward(ctx: Any, grad: torch.Tensor) -> tuple:
    """The output is the same on every rank, and so is its gradient: both
    input gradients are local matmuls with this rank's A and B."""
    A, B = ctx.saved_tensors
    if ctx.reduce_op == "avg":
        grad = grad / _size(ctx.group_name)
    grad_A = grad @ B.t() if ctx.needs_input_grad[0] else None
    grad_B = A.flatten(0, -2).t() @ grad.flatten(0, -2) if ctx.needs_input_grad[1] else None
    return grad_A, grad_B, None, None


def _size(group_name: str) -> int:
    from syncopate.pytorch.unfused_ops import group_size

    return group_size(group_name)


def register() -> None:
    """Attach the formulas to the two custom ops (defined in syncopate/ops.py)."""
    torch.library.register_autograd("syncopate::all_gather_matmul", _ag_backward, setup_context=_ag_setup)
    torch.library.register_autograd("syncopate::matmul_reduce_scatter", _rs_backward, setup_context=_rs_setup)
    torch.library.register_autograd("syncopate::matmul_all_reduce", _ar_backward, setup_context=_ar_setup)
