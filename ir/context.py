"""The xDSL Context every syncopate tool and test uses."""

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.dialects.scf import Scf
from xdsl.ir import Dialect

import syncopate.ir.xdsl_lexer  # noqa: F401  (xDSL's string-literal regex in linear time)


def all_dialects() -> list[Dialect]:
    """builtin, arith, scf, func and this project's tile and chunk dialects."""
    from syncopate.dialects.chunk import Chunk
    from syncopate.dialects.tile import Tile

    return [Builtin, Arith, Scf, Func, Tile, Chunk]


def make_context(allow_unregistered: bool = False) -> Context:
    ctx = Context(allow_unregistered=allow_unregistered)
    for dialect in all_dialects():
        ctx.load_dialect(dialect)
    return ctx
