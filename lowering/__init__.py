"""syncopate.lowering: tile IR -> Triton Python source."""

from syncopate.lowering.triton_emitter import EmitError, emit_module

__all__ = ["EmitError", "emit_module"]
