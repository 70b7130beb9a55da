"""specialize{NAME=value ...}: bind constexpr parameters to numbers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.builder import Builder, InsertPoint
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp, StringAttr, f32, i1, i32
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec
from xdsl.utils.exceptions import PassFailedException

from syncopate.dialects import tile
from syncopate.ir.contract import ORIGIN_ATTR


@dataclass(frozen=True)
class SpecializePass(ModulePass):
    """Bind constexpr parameters to values (e.g. specialize{BLOCK_M=64}).

    Assumes: every NAME is a `tl.constexpr` parameter of at least one
    tile.func (a name no function has is an error, so typos are not ignored).
    Guarantees: uses of the parameter become constants; the parameter stays
    in the signature (so launch code need not change), and a
    `tl.static_assert(NAME == value)` is inserted so launching the emitted
    kernel with another value fails at compile time instead of being ignored.
    """

    name: ClassVar[str] = "specialize"

    bindings: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_spec(cls, spec: ArgSpec) -> SpecializePass:
        bindings = []
        for key, values in spec.parameters.items():
            if len(values) != 1:
                raise PassFailedException(f"specialize: `{key}` needs exactly one value")
            bindings.append((key, str(values[0]).lower() if isinstance(values[0], bool) else str(values[0])))
        return cls(tuple(bindings))

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        funcs = [f for f in op.ops if isinstance(f, tile.FuncOp)]
        for name, text in self.bindings:
            targets = [
                (f, arg)
                for f in funcs
                for arg in f.body.block.args
                if arg.name_hint == name and isinstance(arg.type, tile.ConstexprType)
            ]
            if not targets:
                known = sorted({a.name_hint or "" for f in funcs for a in f.body.block.args if isinstance(a.type, tile.ConstexprType)})
                raise PassFailedException(
                    f"specialize: no tl.constexpr parameter named `{name}` (constexpr parameters: {', '.join(known) or 'none'})"
                )
            for func, arg in targets:
                builder = Builder(InsertPoint.at_start(func.body.block))
                constant = builder.insert(_constant(text)).results[0]
                arg.replace_all_uses_with(constant)
                check = builder.insert(tile.CmpOp("eq", arg, constant, i1)).results[0]
                assert_op = builder.insert(tile.CallOp("tl.static_assert", [check], {}, {}, None))
                assert_op.attributes[ORIGIN_ATTR] = StringAttr("specialize")



def _constant(text: str):
    lowered = text.lower()
    if lowered in ("true", "false"):
        return arith.ConstantOp(IntegerAttr(int(lowered == "true"), i1))
    try:
        return arith.ConstantOp(IntegerAttr(int(text), i32))
    except ValueError:
        pass
    try:
        return arith.ConstantOp(FloatAttr(float(text), f32))
    except ValueError:
        return tile.LiteralOp(StringAttr(text.strip("'\"")))
