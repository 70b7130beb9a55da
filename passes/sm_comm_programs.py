"""Communication programs of the SM backend, built into the fused kernel.

Part of lower-chunk-to-tile (see its docstring). When a consumed plan
(all-gather, all-to-all, ring-exchange) moves chunks with ``backend = "sm"``,
the kernel gets ``syn_comm_programs`` extra programs at the front of grid
axis 0: the runtime launches ``(n + grid0, grid1, grid2)``. Program ids
``(p, 0, 0)`` with ``p < syn_comm_programs`` each run ``syn_sm_pull`` over the
rank's SM chunk table of every such plan tensor (chunk ``i`` goes to program
``i % syn_comm_programs``): a copy of the chunk's elements from the owner's
buffer through a peer pointer, then a release/system-scope raise of the
chunk's flag. Every other program computes tile ``(p - n, q, r)``: each
``tl.program_id(0)`` and ``tl.num_programs(0)`` of the kernel is shifted by
``syn_comm_programs``, so the tile body is unchanged.

Why the front: GPUs dispatch programs in increasing linear id, so the
communication programs are resident before any tile that spins on their
flags; programs at the back could wait forever behind spinning tiles.
"""

from __future__ import annotations

from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, StringAttr, i32
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.utils.exceptions import PassFailedException

from syncopate.dialects import tile
from syncopate.ir.contract import COMM_PROGRAMS_PARAM as COMM_PROGRAMS
from syncopate.ir.contract import ORIGIN_ATTR, ChunkTable
from syncopate.passes.kernel_params import kernel_param

COPY_BLOCK = 8192  # elements per copy step of one communication program (16 KiB of bf16 in flight)
ORIGIN = StringAttr("lower-chunk-to-tile")
i1 = IntegerType(1)


def _emit(builder: Builder, op: Operation) -> Operation:
    op.attributes[ORIGIN_ATTR] = ORIGIN
    return builder.insert(op)


def _shift_axis0(kernel: tile.FuncOp, comm: BlockArgument) -> None:
    for op in list(kernel.walk()):
        if isinstance(op, (tile.ProgramIdOp, tile.NumProgramsOp)) and op.axis.value.data == 0:
            shifted = _emit(Builder(InsertPoint.after(op)), tile.SubOp(op.res, comm, i32))
            op.res.replace_uses_with_if(shifted.results[0], lambda use: use.operation is not shifted)


def add_comm_programs(kernel: tile.FuncOp, tensors: list[tuple[str, str, str]], flags: SSAValue,
                      epoch: SSAValue) -> list[ChunkTable]:
    """Give ``kernel`` SM communication programs for ``tensors`` (plan,
    tensor, kernel pointer parameter). Returns the chunk tables it added."""
    block = kernel.body.block
    terminator = block.last_op
    if not isinstance(terminator, tile.ReturnOp) or terminator.values:
        raise PassFailedException(f"lower-chunk-to-tile: @{kernel.sym_name.data} must end in a plain return for the SM backend")
    if any(isinstance(o, tile.ReturnOp) and o is not terminator for o in kernel.walk()):
        raise PassFailedException(f"lower-chunk-to-tile: @{kernel.sym_name.data} returns early; the SM backend needs one exit")
    comm = kernel_param(kernel, COMM_PROGRAMS, tile.ScalarType())
    _shift_axis0(kernel, comm)

    tile_block = Block()
    for op in [o for o in block.ops if o is not terminator]:
        op.detach()
        tile_block.add_op(op)
    tile_block.add_op(scf.YieldOp())

    pull_block = Block()
    inner = Builder(InsertPoint.at_end(pull_block))
    program = _emit(inner, tile.ProgramIdOp(0)).results[0]
    copy_block = _emit(inner, arith.ConstantOp(IntegerAttr(COPY_BLOCK, i32))).results[0]
    tables = []
    for plan, tensor, param in tensors:
        table = ChunkTable.for_tensor(plan, tensor, "sm")
        tab_name, n_name = table.param, table.count
        names = kernel.arg_names
        if param not in names:
            raise PassFailedException(f"lower-chunk-to-tile: plan @{plan} binds '{param}', not a parameter of @{kernel.sym_name.data}")
        base = block.args[names.index(param)]
        tab = kernel_param(kernel, tab_name, tile.PointerType())
        n = kernel_param(kernel, n_name, tile.ScalarType())
        _emit(inner, tile.CallJitOp("syn_sm_pull", [base, flags, tab, n, epoch, program, comm, copy_block], []))
        tables.append(table)
    inner.insert(scf.YieldOp())

    comm_block = Block()
    guard = Builder(InsertPoint.at_end(comm_block))
    p1 = _emit(guard, tile.ProgramIdOp(1)).results[0]
    p2 = _emit(guard, tile.ProgramIdOp(2)).results[0]
    rest = _emit(guard, tile.AddOp(p1, p2, i32)).results[0]
    zero = _emit(guard, arith.ConstantOp(IntegerAttr(0, i32))).results[0]
    first = _emit(guard, tile.CmpOp("eq", rest, zero, i1)).results[0]
    _emit(guard, scf.IfOp(first, [], Region(pull_block), Region(Block([scf.YieldOp()]))))
    guard.insert(scf.YieldOp())

    top = Builder(InsertPoint.before(terminator))
    raw = _emit(top, tile.ProgramIdOp(0)).results[0]
    is_comm = _emit(top, tile.CmpOp("lt", raw, comm, i1)).results[0]
    _emit(top, scf.IfOp(is_comm, [], Region(comm_block), Region(tile_block)))
    return tables
