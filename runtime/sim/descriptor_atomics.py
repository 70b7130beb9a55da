"""Tensor-descriptor atomics (``desc.atomic_add([i, j], value)``, a TMA
reduction on Hopper) for the Triton interpreter, which has none: Triton 3.9's
``InterpreterBuilder`` lacks ``create_descriptor_reduce``, so such a kernel
fails in ``TRITON_INTERPRET=1`` before any rank runs.

:func:`install` adds that one method, and only while the interpreter lacks
it: the block's addresses and bounds mask come from the descriptor as a
descriptor store's do (``TensorDescHandle.materialize_pointers``: elements
outside the tensor are skipped), and each element is combined through the
interpreter's own element-wise atomic (``create_atomic_rmw``, relaxed, GPU
scope: a TMA reduction orders nothing by itself). Going through that method
keeps the simulator's hooks on it (runtime/sim/delivery.py) in the path.
Descriptor ``inc`` / ``dec`` (no Triton method emits them) are refused.

Nothing else changes: the interpreter's dtype checks (``semantic``) run first,
as on a GPU."""

from __future__ import annotations

from typing import Any


def _descriptor_reduce(self: Any, kind: Any, desc: Any, value: Any, indices: list[Any]) -> Any:
    import numpy as np
    from triton._C.libtriton import ir

    reduce_kind = ir.DESCRIPTOR_REDUCE_KIND
    ptrs, mask = desc.materialize_pointers(indices)
    element = desc.base.dtype.element_ty
    floating = element.is_floating()
    unsigned = element.is_int_unsigned()
    ops = {
        reduce_kind.ADD: ir.ATOMIC_OP.FADD if floating else ir.ATOMIC_OP.ADD,
        reduce_kind.MIN: ir.ATOMIC_OP.UMIN if unsigned else ir.ATOMIC_OP.MIN,
        reduce_kind.MAX: ir.ATOMIC_OP.UMAX if unsigned else ir.ATOMIC_OP.MAX,
        reduce_kind.AND: ir.ATOMIC_OP.AND,
        reduce_kind.OR: ir.ATOMIC_OP.OR,
        reduce_kind.XOR: ir.ATOMIC_OP.XOR,
    }
    if kind not in ops:
        raise NotImplementedError(f"descriptor reduction {kind} in the interpreter")
    # the value as the descriptor's element type, shaped as the block
    data = np.broadcast_to(np.asarray(value.data), ptrs.data.shape)
    from triton.runtime.interpreter import TensorHandle, _get_np_dtype

    block = TensorHandle(np.ascontiguousarray(data.astype(_get_np_dtype(element))), element)
    self.create_atomic_rmw(ops[kind], ptrs, block, mask, ir.MEM_SEMANTIC.RELAXED, ir.MEM_SYNC_SCOPE.GPU)
    return None


def install() -> None:
    """Give the interpreter ``create_descriptor_reduce`` where it lacks it
    (idempotent; a Triton whose interpreter has one keeps its own)."""
    from triton.runtime import interpreter

    builder = interpreter.InterpreterBuilder
    if not hasattr(builder, "create_descriptor_reduce"):
        builder.create_descriptor_reduce = _descriptor_reduce  # type: ignore[attr-defined]
