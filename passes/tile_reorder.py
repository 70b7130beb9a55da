"""tile-reorder{order=... group=... axis=...}: run tiles in chunk-arrival order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from xdsl.builder import Builder, InsertPoint
from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i32, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from syncopate.dialects import tile
from syncopate.ir.analysis.chunk_access import analyze
from syncopate.ir.analysis.manager import ALL, query
from syncopate.ir.analysis.host_exprs import FlatTileLoop, flat_tile_loop, tile_loop
from syncopate.ir.contract import ABI_ATTR, ORIGIN_ATTR, AbiKey
from syncopate.ir.contract import ROTATE_PARAM as ROTATE
from syncopate.ir.contract import TILE_ORDER_PARAM as TILE_ORDER
from syncopate.ir.locations import describe
from syncopate.passes.kernel_params import import_helpers, kernel_param
from syncopate.passes.options import ChoiceOptions

ORIGIN = StringAttr("tile-reorder")
Order = Literal["none", "arrival", "rotate"]
"""The tile orders ``order=`` accepts (see the pass docstring)."""


@dataclass(frozen=True)
class TileReorderPass(ChoiceOptions, ModulePass):
    """Map program ids to tiles so that tiles run in the order their chunks arrive.

    The program-id -> tile mapping is rewritten for this rank's arrival order.

    Assumes: the kernel's tiles are independent (any permutation of program
    ids computes the same result, as for every Triton kernel without
    inter-program communication), and chunk-dependency-analysis succeeds.

    Guarantees, by ``order``:

    * ``none`` (default): the kernel is unchanged.
    * ``arrival``: every ``tl.program_id(a)`` becomes coordinate ``a`` of
      ``syn_tile_order[linear program id]`` (the kernel passes its program
      ids and grid sizes to the helper, so later passes that renumber
      programs only rewrite the kernel), a permutation of the grid that
      the runtime builds per rank from the plan and the footprints
      (chunk-dependency-analysis): tiles whose chunks are local come first,
      then tiles by the step at which their last chunk arrives (a lookup
      table works for any plan, including uneven and data-dependent ones;
      tiles with data-dependent footprints keep their relative order). Within
      one arrival step tiles are grouped ``group`` rows of axis 0 at a time
      (L2 reuse, as in Triton's grouped matmul); ``group=1`` keeps row-major.
    * ``rotate``: the closed form for ring/direct templates, no table:
      ``program_id(axis)`` becomes ``(program_id(axis) + syn_rotate) %
      num_programs(axis)``, where the runtime sets ``syn_rotate`` to the
      first tile of this rank's own shard, so each rank starts on local data
      and meets the others' in ring order; for a kernel that only produces
      chunks (reduce-scatter), to the tile after its own shard, so its own
      rows come last (``deps.rotation``).

    A persistent kernel (a tile loop ``for tile in range(tl.program_id(0),
    count, step)``, see ``host_exprs.tile_loop``) keeps its program ids; the
    loop variable is remapped instead, at the top of the loop body: ``tile``
    becomes ``syn_tile_order[tile]`` (``arrival``, a permutation of the
    ``count`` tiles, so each program's k-th iteration runs the tile at
    position ``program + k * step`` of the order) or ``(tile + syn_rotate) %
    count`` (``rotate``; the runtime orders tiles over the loop's 1-D grid).
    Such a kernel whose program id is read anywhere but in the loop's start
    is refused, naming the use: a per-program output or a tile counter
    beside the loop would not follow the remap.

    The kernel's ``chunk.abi`` records the order and the added parameter.
    """

    name: ClassVar[str] = "tile-reorder"

    order: Order = "none"
    group: int = 1
    axis: int = 0

    @property
    def preserved_analyses(self):
        """Renumbering programs replaces the program ids that the bounds of
        the accesses are computed from (a scalar row's bound may be the
        program id itself), so the analysis must see the new ids."""
        return ALL if self.order == "none" else ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.group < 1:
            raise PassFailedException(f"tile-reorder: group must be >= 1, got {self.group}")
        if self.axis not in (0, 1, 2):
            raise PassFailedException(f"tile-reorder: axis must be 0, 1 or 2, got {self.axis}")
        if self.order == "none":
            return
        kernel = query(op, analyze).kernel
        pids = [o for o in kernel.walk() if isinstance(o, tile.ProgramIdOp)]
        if not pids:
            raise PassFailedException(f"tile-reorder: @{kernel.sym_name.data} never calls tl.program_id")
        abi = dict(kernel.attributes[ABI_ATTR].data) if ABI_ATTR in kernel.attributes else {}
        abi[AbiKey.ORDER] = StringAttr(self.order)
        abi[AbiKey.GROUP] = IntegerAttr(self.group, i64)
        abi[AbiKey.AXIS] = IntegerAttr(self.axis, i64)
        loop = tile_loop(kernel)
        flat = flat_tile_loop(kernel) if loop is None else None
        if loop is not None:
            self._remap_tile_loop(op, kernel, loop, abi)
        elif flat is not None:
            self._remap_flat_loop(op, kernel, flat, abi)
        elif self.order == "arrival":
            order = kernel_param(kernel, TILE_ORDER, tile.PointerType())
            entry = Builder(InsertPoint.at_start(kernel.body.block))
            coords = [self._emit(entry, tile.ProgramIdOp(a)).results[0] for a in (0, 1, 2)]
            sizes = [self._emit(entry, tile.NumProgramsOp(a)).results[0] for a in (0, 1)]
            for pid in pids:
                call = tile.CallJitOp(f"syn_tile_pid{pid.axis.value.data}", [order, *coords, *sizes], [i32])
                self._replace(pid, call)
            import_helpers(op, {f"syn_tile_pid{p.axis.value.data}" for p in pids})
            abi[AbiKey.TILE_ORDER] = StringAttr(TILE_ORDER)
        else:
            rotate = kernel_param(kernel, ROTATE, tile.ScalarType())
            for pid in pids:
                if pid.axis.value.data != self.axis:
                    continue
                builder = Builder(InsertPoint.after(pid))
                num = self._emit(builder, tile.NumProgramsOp(self.axis))
                shifted = self._emit(builder, tile.AddOp(pid.res, rotate, i32))
                wrapped = self._emit(builder, tile.ModOp(shifted.results[0], num.results[0], i32))
                pid.res.replace_uses_with_if(wrapped.results[0], lambda use: use.operation is not shifted)
            abi[AbiKey.ROTATE] = StringAttr(ROTATE)
        kernel.attributes[ABI_ATTR] = DictionaryAttr(abi)

    def _remap_tile_loop(self, op: ModuleOp, kernel: tile.FuncOp, loop: scf.ForOp, abi: dict) -> None:
        """Run a persistent kernel's tiles in order: remap its loop variable."""
        if self.axis != 0:
            raise PassFailedException(f"tile-reorder: @{kernel.sym_name.data} walks a 1-D grid of tiles in a loop; "
                                      f"axis={self.axis} does not exist there")
        self._check_program_id_only_starts_the_loop(kernel, loop)
        iv = loop.body.block.args[0]
        uses = [u for u in iv.uses]
        builder = Builder(InsertPoint.at_start(loop.body.block))
        if self.order == "arrival":
            order = kernel_param(kernel, TILE_ORDER, tile.PointerType())
            zero = self._emit(builder, arith.ConstantOp(IntegerAttr(0, i32))).results[0]
            one = self._emit(builder, arith.ConstantOp(IntegerAttr(1, i32))).results[0]
            mapped = self._emit(builder, tile.CallJitOp("syn_tile_pid0", [order, iv, zero, zero, loop.ub, one], [i32]))
            import_helpers(op, {"syn_tile_pid0"})
            abi[AbiKey.TILE_ORDER] = StringAttr(TILE_ORDER)
        else:
            rotate = kernel_param(kernel, ROTATE, tile.ScalarType())
            shifted = self._emit(builder, tile.AddOp(iv, rotate, i32))
            mapped = self._emit(builder, tile.ModOp(shifted.results[0], loop.ub, i32))
            abi[AbiKey.ROTATE] = StringAttr(ROTATE)
        for use in uses:
            use.operation.operands[use.index] = mapped.results[0]

    def _remap_flat_loop(self, op: ModuleOp, kernel: tile.FuncOp, flat: FlatTileLoop, abi: dict) -> None:
        """Run the tiles of a flat (tile, k-step) loop in order: every use of
        the tile's id (``tile_id`` after ``tile_id += NUM_SMS`` in the ``ki ==
        0`` branch, and the branch's result after it) but the counter the
        loop carries becomes ``syn_tile_order[tile_id]``."""
        name = kernel.sym_name.data
        if self.axis != 0:
            raise PassFailedException(f"tile-reorder: @{name} walks a 1-D grid of tiles in a loop; "
                                      f"axis={self.axis} does not exist there")
        if self.order != "arrival":
            raise PassFailedException(
                f"tile-reorder: {describe(flat.loop)}: @{name} walks its tiles in one flat loop over (tile, k-step) "
                f"pairs, whose tile count the kernel does not hold, so order={self.order} cannot wrap its tile ids; "
                "use order=arrival (the default) or order=none")
        self._check_program_id_only_starts_the_loop(kernel, flat.loop, (flat.loop.lb, flat.loop.ub, flat.init, flat.step))
        order = kernel_param(kernel, TILE_ORDER, tile.PointerType())
        import_helpers(op, {"syn_tile_pid0"})
        abi[AbiKey.TILE_ORDER] = StringAttr(TILE_ORDER)
        then_yield = flat.branch.true_region.block.last_op
        counter = flat.branch.results[list(then_yield.operands).index(flat.tile_new)]
        for tile_id, at, keep in ((flat.tile_new, InsertPoint.after(flat.tile_new.owner), then_yield),
                                  (counter, InsertPoint.after(flat.branch), flat.loop.body.block.last_op)):
            uses = [u for u in tile_id.uses if u.operation is not keep]
            if not uses:
                continue
            builder = Builder(at)
            # p1 = p2 = 0, so n0 only wraps the table's entry (each < the tile count < 2**31 - 1)
            zero, one, wide = (self._emit(builder, arith.ConstantOp(IntegerAttr(v, i32))).results[0]
                               for v in (0, 1, 2**31 - 1))
            mapped = self._emit(builder, tile.CallJitOp("syn_tile_pid0", [order, tile_id, zero, zero, wide, one], [i32]))
            for use in uses:
                use.operation.operands[use.index] = mapped.results[0]

    @staticmethod
    def _check_program_id_only_starts_the_loop(kernel: tile.FuncOp, loop: scf.ForOp,
                                               starts: tuple = ()) -> None:
        """Refuse a persistent kernel that reads its program id anywhere but
        in its tile loop's start: the remap moves the loop's tiles, not such
        a use, so a per-program output (``part[pid]``) or a tile counter
        kept beside the loop (``tile_id_c = start_pid - NUM_SMS``, stepped
        each iteration) would no longer match the tile the program ran."""
        start: set[Operation] = set()
        todo = [v.owner for v in (loop.lb, *starts) if isinstance(v.owner, Operation)]
        while todo:
            op = todo.pop()
            if op not in start:
                start.add(op)
                todo += [v.owner for v in op.operands if isinstance(v.owner, Operation)]
        for pid in (o for o in kernel.walk() if isinstance(o, tile.ProgramIdOp)):
            for use in pid.res.uses:
                user = use.operation
                if (user is loop and use.index == 0) or user in start:
                    continue
                raise PassFailedException(
                    f"tile-reorder: {describe(user)}: @{kernel.sym_name.data} is a persistent kernel that uses "
                    "tl.program_id(0) beyond the start of its tile loop; reordering its tiles remaps the loop "
                    "variable, not this use, so what it indexes would no longer match the tile the program ran. "
                    "Compute it from the loop variable, or keep the tile order (tile-reorder{order=none})")

    @staticmethod
    def _emit(builder: Builder, new):
        new.attributes[ORIGIN_ATTR] = ORIGIN
        return builder.insert(new)

    def _replace(self, pid: tile.ProgramIdOp, call: tile.CallJitOp) -> None:
        call.attributes[ORIGIN_ATTR] = ORIGIN
        Builder(InsertPoint.before(pid)).insert(call)
        pid.res.replace_all_uses_with(call.res[0])
        pid.detach()
        pid.erase()
