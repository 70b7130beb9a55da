"""Tensor-parallel styles for ``torch.distributed.tensor.parallel.parallelize_module``
whose collective + matmul run as ``syncopate.ops``.

Sequence parallelism (Megatron style): between the tensor-parallel blocks
each rank holds a slice of the tokens (``sequence_dim`` of the activations).

* :class:`SyncopateColwiseParallel` (for the first linear of a block: QKV,
  gate/up): the weight is sharded by output features; the forward takes the
  rank's token slice and runs ``all_gather_matmul`` (gather the tokens,
  multiply by the local weight), giving every token and this rank's
  output features.
* :class:`SyncopateRowwiseParallel` (the block's last linear: attention
  output, down): the weight is sharded by input features; the forward takes
  every token with this rank's input features and runs
  ``matmul_reduce_scatter`` (sum the partial products, keep this rank's
  token slice).

* :class:`SyncopateSharedColwiseParallel` (applied to the module that
  holds several column-wise linears fed the same input: q/k/v, gate/up):
  one ``all_gather_matmul`` with every linear's weight in ``Bs``, so the
  input is gathered once, and its backward is one reduce-scatter.

``keep_gathered=True`` (column-wise styles) keeps the gathered input for
the backward's weight gradients instead of gathering it again there: one
collective fewer per step, the gathered activations' memory held until the
backward (off by default, as memory matters in long sequences).

They play the role of ``ColwiseParallel(input_layouts=Shard(1))`` and
``RowwiseParallel(output_layouts=Shard(1))``. Parameters become ``DTensor``
shards on the mesh (``Shard(0)`` / ``Shard(1)`` of ``nn.Linear.weight``; the
column-wise bias ``Shard(0)``, the row-wise bias replicated and added after
the reduction, its gradient a ``Partial`` sum over the ranks' tokens), so optimizers and distributed checkpoints see ordinary
tensor-parallel parameters; activations stay plain local tensors. An
input that is a ``DTensor`` (what torch's ``SequenceParallel`` hands on
unless ``use_local_output=True``) is taken as its local shard when its
placement is the one the style expects (``Shard(sequence_dim)`` before a
column-wise linear, ``Shard(-1)`` before a row-wise one), and refused in
one line naming the fix otherwise. Only ``nn.Linear`` modules are accepted
and the mesh must be one-dimensional (pass the tensor-parallel sub-mesh).
"""

from __future__ import annotations

import functools
from typing import Any

import torch
from torch import nn
from torch.distributed.tensor import Partial, Replicate, Shard, distribute_tensor
from torch.distributed.tensor.parallel import ParallelStyle

__all__ = ["SyncopateColwiseParallel", "SyncopateRowwiseParallel", "SyncopateSharedColwiseParallel", "disable", "enable"]


def enable(group: Any = None) -> None:
    """Make ``torch.compile``'s micro-pipeline TP (Inductor's async-TP)
    insert ``syncopate.ops`` where it would insert ``torch.ops.symm_mem``'s
    fused ops: a model parallelised with torch's own ``ColwiseParallel`` /
    ``RowwiseParallel`` / ``SequenceParallel`` plans and compiled runs
    syncopate's ops with no plan rewrite (pytorch/inductor_tp.py). ``group``:
    the TP process group (or its name); the default group when None. Call
    it on every rank before ``torch.compile``; :func:`disable` undoes it."""
    import syncopate.ops  # noqa: F401  (registers torch.ops.syncopate.*)
    from syncopate.pytorch import inductor_tp

    inductor_tp.enable(group)


def disable() -> None:
    """Undo :func:`enable`."""
    from syncopate.pytorch import inductor_tp

    inductor_tp.disable()


def _check(module: nn.Module, mesh: Any, style: str) -> str:
    if not isinstance(module, nn.Linear):
        raise TypeError(f"{style} applies to nn.Linear modules, got {type(module).__name__}")
    if mesh.ndim != 1:
        raise ValueError(f"{style} needs a one-dimensional device mesh (the tensor-parallel dim), got {mesh.ndim}-D")
    return mesh.get_group().group_name


def _shard_parameter(module: nn.Module, name: str, mesh: Any, placement: Any) -> None:
    param = getattr(module, name)
    if param is not None:
        module.register_parameter(name, nn.Parameter(distribute_tensor(param.data, mesh, [placement]),
                                                     requires_grad=param.requires_grad))


class SyncopateColwiseParallel(ParallelStyle):
    """Column-wise linear with a sequence-parallel input: ``all_gather_matmul``.

    ``sequence_dim``: the token dim of the input, along which ranks hold
    slices (1 for ``[batch, seq, hidden]``, 0 for ``[tokens, hidden]``).
    """

    def __init__(self, sequence_dim: int = 1, keep_gathered: bool = False):
        super().__init__()
        self.sequence_dim = sequence_dim
        self.keep_gathered = keep_gathered

    def _apply(self, module: nn.Module, device_mesh: Any) -> nn.Module:
        group_name = _check(module, device_mesh, type(self).__name__)
        _shard_parameter(module, "weight", device_mesh, Shard(0))
        _shard_parameter(module, "bias", device_mesh, Shard(0))
        gather = _SharedGather((module,), self.sequence_dim, group_name, self.keep_gathered, type(self).__name__)
        module.forward = functools.partial(gather.output, 0)
        return module


class SyncopateSharedColwiseParallel(ParallelStyle):
    """Column-wise linears that read the same input, gathered once:
    apply it to their parent module, naming them (``linears``). Each
    linear's weight is sharded as :class:`SyncopateColwiseParallel` shards
    it; the first of them called with an input runs one
    ``all_gather_matmul`` for all of them, and the others, called with the
    same tensor (unmodified), return their part of it. A linear called
    with another input (cross-attention's keys, say) computes the group
    again for that input: correct, without the saving.
    """

    def __init__(self, linears: tuple[str, ...] | list[str], sequence_dim: int = 1, keep_gathered: bool = False):
        super().__init__()
        if len(linears) < 1:
            raise ValueError("SyncopateSharedColwiseParallel needs the names of the linears that share an input")
        self.linears = tuple(linears)
        self.sequence_dim = sequence_dim
        self.keep_gathered = keep_gathered

    def _apply(self, module: nn.Module, device_mesh: Any) -> nn.Module:
        style = type(self).__name__
        children = []
        for name in self.linears:
            child = module.get_submodule(name)
            group_name = _check(child, device_mesh, f"{style} ('{name}')")
            _shard_parameter(child, "weight", device_mesh, Shard(0))
            _shard_parameter(child, "bias", device_mesh, Shard(0))
            children.append(child)
        gather = _SharedGather(tuple(children), self.sequence_dim, group_name, self.keep_gathered, style)
        for i, child in enumerate(children):
            child.forward = functools.partial(gather.output, i)
        return module


class SyncopateRowwiseParallel(ParallelStyle):
    """Row-wise linear with a sequence-parallel output: ``matmul_reduce_scatter``.

    ``sequence_dim``: the token dim of the output, along which ranks keep
    slices; None: no sequence parallelism, every rank keeps every token
    (``matmul_all_reduce``, as ``RowwiseParallel()`` with a replicated output).
    """

    def __init__(self, sequence_dim: int | None = 1):
        super().__init__()
        self.sequence_dim = sequence_dim

    def _apply(self, module: nn.Module, device_mesh: Any) -> nn.Module:
        group_name = _check(module, device_mesh, type(self).__name__)
        _shard_parameter(module, "weight", device_mesh, Shard(1))
        _shard_parameter(module, "bias", device_mesh, Replicate())
        module.forward = functools.partial(_rowwise_forward, module, self.sequence_dim, group_name)
        return module


def _local(param: Any) -> torch.Tensor | None:
    return None if param is None else param.to_local()


def _local_input(x: Any, shard_dim: int, style: str) -> torch.Tensor:
    """``x`` as this rank's plain tensor: a DTensor sharded as the style
    expects gives its local shard; any other DTensor is refused."""
    from torch.distributed.tensor import DTensor

    if not isinstance(x, DTensor):
        return x
    expected = Shard(shard_dim % x.ndim)
    placements = tuple(Shard(p.dim % x.ndim) if isinstance(p, Shard) else p for p in x.placements)
    if placements != (expected,):
        raise ValueError(f"{style} takes this rank's shard of its input ({expected!r}), got a DTensor with placements "
                         f"{tuple(x.placements)}: give the module before it use_local_output=True "
                         "(e.g. SequenceParallel(use_local_output=True)) or pass x.to_local() of a "
                         f"{expected!r} DTensor")
    return x.to_local()


class _SharedGather:
    """The column-wise linears of one style application: one
    ``all_gather_matmul`` for all of them per input. The results of an
    input wait until each linear took its own; a linear called again, or
    with another tensor or a modified one, starts a new group."""

    def __init__(self, modules: tuple[nn.Linear, ...], dim: int, group_name: str, keep: bool, style: str):
        self.modules, self.dim, self.group_name, self.keep, self.style = modules, dim, group_name, keep, style
        self.pending: tuple[torch.Tensor, int, list[torch.Tensor | None]] | None = None

    def output(self, index: int, x: torch.Tensor) -> torch.Tensor:
        pending = self.pending
        if pending is None or pending[0] is not x or pending[1] != x._version or pending[2][index] is None:
            pending = self.pending = (x, x._version, self._compute(x))
        outputs = pending[2]
        y, outputs[index] = outputs[index], None
        if all(o is None for o in outputs):
            self.pending = None  # every linear took its part: hold no activation
        assert y is not None
        return y

    def _compute(self, x: torch.Tensor) -> list[torch.Tensor | None]:
        from syncopate import ops

        local = _local_input(x, self.dim, self.style)
        # return_A keeps the gathered input as a saved tensor of the op, so the backward does not gather again
        _, ys = ops.all_gather_matmul(local, [_local(m.weight).t() for m in self.modules], self.dim,
                                      self.group_name, return_A=self.keep)
        return [y if m.bias is None else y + _local(m.bias) for m, y in zip(self.modules, ys)]


def _rowwise_forward(module: nn.Linear, dim: int | None, group_name: str, x: torch.Tensor) -> torch.Tensor:
    from syncopate import ops

    x = _local_input(x, -1, "SyncopateRowwiseParallel")
    if dim is None:  # every rank keeps every token: the bias (replicated) is added everywhere alike
        y = ops.matmul_all_reduce(x, _local(module.weight).t(), "sum", group_name)
        return y if module.bias is None else y + _local(module.bias)
    y = ops.matmul_reduce_scatter(x, _local(module.weight).t(), "sum", dim, group_name)
    if module.bias is None:
        return y
    # Each rank adds the bias to its own tokens only: its gradient is a partial sum over the ranks.
    return y + module.bias.to_local(grad_placements=[Partial()])
