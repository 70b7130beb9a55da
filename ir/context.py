"""The xDSL Context every syncopate tool and test uses."""

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.scf import Scf


def make_context(allow_unregistered: bool = False) -> Context:
    """A Context with builtin, arith, scf and this project's tile and chunk dialects."""
    from syncopate.dialects.tile import Tile

    ctx = Context(allow_unregistered=allow_unregistered)
    for dialect in (Builtin, Arith, Scf, Tile):
        ctx.load_dialect(dialect)
    try:
        from syncopate.dialects.chunk import Chunk
    except ImportError:  # pragma: no cover - the chunk dialect is optional while it is being built
        return ctx
    ctx.load_dialect(Chunk)
    return ctx
