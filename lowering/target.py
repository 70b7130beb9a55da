"""The `triton` target of overlap-opt (`-t triton`)."""

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from syncopate.lowering.triton_emitter import emit_module


@dataclass(frozen=True)
class TritonTarget(Target):
    """Readable, self-contained Triton Python for every tile.func of the module."""

    name = "triton"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(emit_module(module))
