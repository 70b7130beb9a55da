"""The inline PTX of syncopate's device helpers, in the Triton interpreter.

The interpreter runs no inline assembly (``create_inline_asm`` raises), but
a fused kernel's signal helpers issue one instruction,
``cp.async.bulk.wait_group 0`` (lowering/device_helpers.py,
``syn_bulk_store_wait``): wait until this thread's tensor-descriptor stores
have reached global memory. The interpreter performs every store when it
is issued, so there is nothing to wait for and the instruction is a no-op.

:func:`install` lets the interpreter take exactly the instructions in
:data:`NO_OPS` as no-ops (their int32 result is 0) and leaves every other
inline assembly refused as before: a kernel of the user's with inline PTX
still fails in the interpreter, naming it. Installed where fused programs
are loaded (runtime/fused.py).
"""

from __future__ import annotations

from typing import Any

NO_OPS: frozenset[str] = frozenset({"cp.async.bulk.wait_group 0;"})


class _Results:
    """What the language reads back from an inline-assembly op: its results by index."""

    def __init__(self, handles: list[Any]) -> None:
        self.handles = handles

    def get_result(self, index: int) -> Any:
        return self.handles[index]


def install() -> None:
    """Teach the interpreter the no-op instructions (idempotent)."""
    from triton.runtime import interpreter

    builder = interpreter.InterpreterBuilder
    original = builder.create_inline_asm
    if getattr(original, "syncopate_no_ops", False):
        return

    def create_inline_asm(self: Any, inline_asm: str, constraints: str, values: list, types: list, is_pure: bool,
                          pack: int) -> Any:
        if inline_asm.strip() not in NO_OPS or values:
            return original(self, inline_asm, constraints, values, types, is_pure, pack)
        import numpy as np

        return _Results([interpreter.TensorHandle(np.zeros(1, dtype=np.int32), t) for t in types])

    create_inline_asm.syncopate_no_ops = True  # type: ignore[attr-defined]
    builder.create_inline_asm = create_inline_asm  # type: ignore[method-assign]
