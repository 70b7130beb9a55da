"""Host expressions: a kernel's scalar as Python text the host evaluates.

:func:`host_expr` writes a scalar of tile IR over ``pid0..2``,
``num_programs0..2``, kernel parameters and ints (the language
:func:`syncopate.ir.analysis.deps.eval_host` evaluates at launch), or gives
None when the value depends on anything else. A persistent kernel's tile
loop (:func:`tile_loop`) makes its loop variable that language's ``pid0``;
a host descriptor's block size is the launch symbol
:func:`descriptor_block_symbol`. A result of a jit helper the kernel calls
(``pid_m, pid_n = tile_coords(tile, ...)``) is the helper's returned
expression over the call's arguments, where the helper computes it in
straight-line code.
"""

from __future__ import annotations

from collections.abc import Mapping

from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import SymbolTable

from syncopate.dialects import tile
from syncopate.ir.analysis.ssa_values import int_const, param_name, strip, widens_integer


def descriptor_block_symbol(param: str, dim: int) -> str:
    """The host symbol of the block size along ``dim`` of the descriptor
    parameter ``param``: a launch binds it from the ``TensorDescriptor`` it
    passes (runtime/descriptors.py)."""
    return f"{param}__block_shape_{dim}"


# calls a host expression may make (``min(num_m - first_m, GROUP_M)``, ``cdiv(M, BLOCK_M)``, ``int64(pid0)``, a
# widening cast); deps.eval_host evaluates them, and ``//`` / ``%``, as the device does
_HOST_CALLEES = {"min": "min", "max": "max", "tl.minimum": "min", "tl.maximum": "max"}


_HOST_OPS = {tile.AddOp: "+", tile.SubOp: "-", tile.MulOp: "*", tile.FloorDivOp: "//", tile.ModOp: "%"}


def tile_loop(kernel: tile.FuncOp) -> scf.ForOp | None:
    """The persistent tile loop of ``kernel``, if it has one: a top-level
    ``for tile in range(tl.program_id(0), count, step)`` whose step is
    ``tl.num_programs(0)`` or a kernel parameter (the program count the
    launcher passes, e.g. the number of SMs), whose count is a host
    expression, and whose lower bound is the kernel's only program id. Each
    iteration computes the tile ``tile`` of a logical 1-D grid of ``count``
    tiles, so the analysis treats the loop variable as that grid's ``pid0``
    (see :func:`host_expr`) and the runtime orders tiles over that grid."""
    pids = [o for o in kernel.walk() if isinstance(o, tile.ProgramIdOp)]
    if len(pids) != 1 or pids[0].axis.value.data != 0:
        return None
    for op in kernel.body.block.ops:
        if not isinstance(op, scf.ForOp) or _host(op.lb) != "pid0":
            continue
        step = _host(op.step)
        if (step == "num_programs0" or param_name(op.step) is not None) and _host(op.ub) is not None:
            return op
    return None


@dataclass(frozen=True)
class FlatTileLoop:
    """A persistent kernel's one flat loop over (tile, k-step) pairs, the
    older persistent-matmul tutorial's idiom::

        tile_id = <first> - STEP; ki = -1
        for _ in range(lb, ub):                         # step 1
            ki = tl.where(ki == k_tiles - 1, 0, ki + 1)
            if ki == 0:                                 # the tile branch
                tile_id += STEP                         # the tile's id
                ...                                     # its coordinates, offsets
            ...                                         # one k-step
            if ki == k_tiles - 1:                       # the last-step branch
                tl.store(...)                           # once per tile

    ``ki`` counts ``0 .. k_tiles - 1`` over and over (``k_tiles >= 1``), so
    iteration ``n`` is k-step ``n % k_tiles`` of the program's tile number
    ``n // k_tiles``, whose id is ``init + STEP * (n // k_tiles + 1)``; a
    value the tile branch yields and the loop carries unchanged to its next
    iteration (``pid_m``, ``offs_am``) is, anywhere in the loop after the
    branch, what the branch computed from that id at the tile's first
    k-step. A program stores ``trips // k_tiles`` tiles (none when
    ``k_tiles <= 0``: the loop runs ``k_tiles * tiles`` times, i.e. never, in
    the idiom). The host takes the tile's id for ``pid0`` (:func:`host_expr`)
    and, at launch, lists each program's tiles from ``lb``, ``ub``,
    ``init``, ``step`` and ``k_steps`` (runtime/abi.py ``tile_grid``)."""

    loop: scf.ForOp
    branch: scf.IfOp  # `if ki == 0:`
    ki: SSAValue  # the wrapped k-step, `tl.where(...)`, in the loop body
    k_steps: SSAValue  # k_tiles, defined before the loop
    tile_new: SSAValue  # `tile_id + STEP` in the branch: the tile's id
    step: SSAValue
    init: SSAValue  # the counter's value before the loop

    def is_last_step(self, op: Operation) -> bool:
        """``op`` is an ``scf.if ki == k_tiles - 1`` directly in the loop body:
        its then-arm runs once per tile, at the tile's last k-step."""
        return (isinstance(op, scf.IfOp) and op.parent_op() is self.loop
                and _is_eq(op.cond, self.ki, lambda v: _is_minus_one(v, self.k_steps)))

    def carried(self, value: SSAValue) -> SSAValue | None:
        """For a result of the tile branch that the loop carries unchanged to
        its next iteration (the else-arm yields the loop's carried value,
        the loop yields the result back), the then-arm's yielded value."""
        value = strip(value)
        if not isinstance(value, OpResult) or value.op is not self.branch:
            return None
        i = value.index
        then_yield, else_yield = (r.block.last_op for r in (self.branch.true_region, self.branch.false_region))
        loop_yield = self.loop.body.block.last_op
        if not isinstance(then_yield, scf.YieldOp) or not isinstance(else_yield, scf.YieldOp):
            return None
        carried = else_yield.operands[i]
        if not isinstance(carried, BlockArgument) or carried.owner is not self.loop.body.block or carried.index == 0:
            return None
        if not isinstance(loop_yield, scf.YieldOp) or loop_yield.operands[carried.index - 1] is not value:
            return None
        return then_yield.operands[i]


def _is_eq(cond: SSAValue, value: SSAValue, other) -> bool:
    """``cond`` is ``value == x`` or ``x == value`` with ``other(x)``."""
    cond = strip(cond)
    if not isinstance(cond, OpResult) or not isinstance(cond.op, tile.CmpOp) or cond.op.predicate.data != "eq":
        return False
    lhs, rhs = strip(cond.op.lhs), strip(cond.op.rhs)
    return (lhs is value and other(rhs)) or (rhs is value and other(lhs))


def _is_minus_one(value: SSAValue, k_steps: SSAValue) -> bool:
    """``value`` is ``k_steps - 1``."""
    value = strip(value)
    return (isinstance(value, OpResult) and isinstance(value.op, tile.SubOp) and strip(value.op.lhs) is k_steps
            and int_const(value.op.rhs) == 1)


def flat_tile_loop(kernel: tile.FuncOp) -> FlatTileLoop | None:
    """The kernel's flat (tile, k-step) loop (:class:`FlatTileLoop`), if it
    has one: a top-level ``scf.for`` of step 1 whose bounds and the
    counter's start and step are host expressions of the program id and
    kernel parameters (scalar ``if``s as ``select``), in a kernel with one
    program id (axis 0) and no other top-level loop."""
    pids = [o for o in kernel.walk() if isinstance(o, tile.ProgramIdOp)]
    loops = [o for o in kernel.body.block.ops if isinstance(o, scf.ForOp)]
    if len(pids) != 1 or pids[0].axis.value.data != 0 or len(loops) != 1:
        return None
    loop = loops[0]
    if int_const(loop.step) != 1 or None in (launch_expr(loop.lb), launch_expr(loop.ub)):
        return None
    return _flat(loop)


def _flat(loop: scf.ForOp) -> FlatTileLoop | None:
    body = loop.body.block
    loop_yield = body.last_op
    if not isinstance(loop_yield, scf.YieldOp):
        return None
    for arg, init, yielded in zip(body.args[1:], loop.iter_args, loop_yield.operands):
        ki = _wrapped_step(arg, init, strip(yielded), body)
        if ki is None:
            continue
        new_ki, k_steps = ki
        for op in body.ops:
            if isinstance(op, scf.IfOp) and _is_eq(op.cond, new_ki, lambda v: int_const(v) == 0):
                found = _counter(loop, op)
                if found is not None:
                    tile_new, step, init_tile = found
                    return FlatTileLoop(loop, op, new_ki, k_steps, tile_new, step, init_tile)
    return None


def _wrapped_step(arg: BlockArgument, init: SSAValue, yielded: SSAValue, body: Block):
    """(the new ki, k_steps) when the carried ``arg`` starts at -1 and the
    loop yields ``tl.where(arg == k_steps - 1, 0, arg + 1)`` computed in its body."""
    if int_const(init) != -1 or not isinstance(yielded, OpResult) or not isinstance(yielded.op, tile.WhereOp):
        return None
    where = yielded.op
    if where.parent_block() is not body or int_const(where.true_value) != 0:
        return None
    plus = strip(where.false_value)
    if not (isinstance(plus, OpResult) and isinstance(plus.op, tile.AddOp)
            and {strip(plus.op.lhs), strip(plus.op.rhs)} & {arg}
            and int_const(plus.op.rhs if strip(plus.op.lhs) is arg else plus.op.lhs) == 1):
        return None
    cond = strip(where.cond)
    if not isinstance(cond, OpResult) or not isinstance(cond.op, tile.CmpOp) or cond.op.predicate.data != "eq":
        return None
    lhs, rhs = strip(cond.op.lhs), strip(cond.op.rhs)
    minus = rhs if lhs is arg else lhs if rhs is arg else None
    if not isinstance(minus, OpResult) or not isinstance(minus.op, tile.SubOp) or int_const(minus.op.rhs) != 1:
        return None
    k_steps = strip(minus.op.lhs)
    if _inside(k_steps, body) or launch_expr(k_steps) is None:
        return None
    return yielded, k_steps


def _inside(value: SSAValue, block: Block) -> bool:
    """``value`` is computed in ``block`` (or a region nested in it)."""
    owner = value.owner if isinstance(value, BlockArgument) else value.op.parent_block()
    while owner is not None:
        if owner is block:
            return True
        parent = owner.parent_op()
        owner = parent.parent_block() if parent is not None else None
    return False


def _counter(loop: scf.ForOp, branch: scf.IfOp):
    """(the tile's id, step, the counter's start) when a result of ``branch``
    is a counter the loop carries: the else-arm yields the carried value,
    the then-arm ``carried + step`` (step defined before the loop), and the
    loop yields the result back."""
    then_yield, else_yield = (r.block.last_op for r in (branch.true_region, branch.false_region))
    loop_yield = loop.body.block.last_op
    if not all(isinstance(y, scf.YieldOp) for y in (then_yield, else_yield, loop_yield)):
        return None
    for i, (new, old) in enumerate(zip(then_yield.operands, else_yield.operands)):
        if not isinstance(old, BlockArgument) or old.owner is not loop.body.block or old.index == 0:
            continue
        if loop_yield.operands[old.index - 1] is not branch.results[i]:
            continue
        add = strip(new)
        if not isinstance(add, OpResult) or not isinstance(add.op, tile.AddOp) or add.op.parent_op() is not branch:
            continue
        lhs, rhs = strip(add.op.lhs), strip(add.op.rhs)
        step = rhs if lhs is old else lhs if rhs is old else None
        if step is None or _inside(step, loop.body.block) or launch_expr(step) is None:
            continue
        init = loop.iter_args[old.index - 1]
        if launch_expr(init) is None:
            continue
        return add, step, init
    return None


def _flat_of(value: SSAValue) -> FlatTileLoop | None:
    """The flat tile loop whose body (at any depth) computes ``value``."""
    op = value.op if isinstance(value, OpResult) else value.owner.parent_op()
    while op is not None and not isinstance(op, tile.FuncOp):
        parent = op.parent_op()
        if isinstance(op, scf.ForOp) and isinstance(parent, tile.FuncOp):
            flat = flat_tile_loop(parent)
            return flat if flat is not None and flat.loop is op else None
        op = parent
    return None


def _tile_loop_variable(value: SSAValue) -> bool:
    """``value`` is the induction variable of its kernel's tile loop."""
    if not isinstance(value, BlockArgument) or value.index != 0:
        return False
    loop = value.owner.parent_op()
    func = loop.parent_op() if isinstance(loop, scf.ForOp) else None
    return isinstance(func, tile.FuncOp) and tile_loop(func) is loop


def host_expr(value: SSAValue) -> str | None:
    """A Python expression of ``value`` over ``pid0..2``, ``num_programs0..2``,
    kernel parameters and ints (``+ - * // %`` with Triton's meaning: ``//``
    and ``%`` truncate toward zero, as :func:`deps.eval_host` evaluates them;
    ``cdiv(a, b)``, Triton's ``(a + (b - 1)) // b``; ``int64(x)``, a widening
    cast; two-argument ``min``/``max``); None when it depends on loaded data, a loop
    variable or an op outside this small affine-like language. The
    induction variable of a persistent tile loop (:func:`tile_loop`) is
    ``pid0``: the tile's id in the loop's logical grid."""
    if _tile_loop_variable(strip(value)):
        return "pid0"
    return _host(value)


def launch_expr(value: SSAValue) -> str | None:
    """:func:`host_expr` of a value a flat tile loop's launch needs (its
    bounds, the counter's start and step): the program id is ``pid0`` even
    in a kernel with a flat tile loop, and a scalar ``if``'s result is
    ``select(cond, then, else)`` (comparisons ``lt(a, b)`` ...), as
    ``if start_pid < num_tiles % NUM_SMS: tiles_per_SM += 1`` computes it."""
    return _host(value, None, launch=True)


_CMP = {"lt", "le", "gt", "ge", "eq", "ne"}


def _host(value: SSAValue, bound: Mapping[SSAValue, str] | None = None, launch: bool = False) -> str | None:
    """``value`` as host text; ``bound``: inside a jit helper, its
    parameters' host texts at the call being expanded (None: in the kernel);
    ``launch``: see :func:`launch_expr`."""
    value = strip(value)
    if bound is not None and isinstance(value, BlockArgument) and isinstance(value.owner.parent_op(), tile.FuncOp):
        return bound.get(value)  # a helper's parameter: the call's argument, if the host knows it
    if (name := param_name(value)) is not None:
        return name
    const = int_const(value)
    if const is not None:
        return str(const)
    if not isinstance(value, OpResult):
        return None
    op = value.op
    if bound is None and not launch and (flat := _flat_of(value)) is not None:
        # in a flat tile loop: the tile's id is pid0, a value the tile branch carries is what it computed
        if value is flat.tile_new:
            return "pid0"
        if (carried := flat.carried(value)) is not None:
            return _host(carried)
    if isinstance(op, tile.ProgramIdOp):
        if not launch and bound is None and _has_flat(op):
            return None  # its tiles are the loop's, not the programs
        return f"pid{op.axis.value.data}"
    if launch and isinstance(op, tile.CmpOp) and op.predicate.data in _CMP:
        lhs, rhs = _host(op.lhs, None, True), _host(op.rhs, None, True)
        return None if lhs is None or rhs is None else f"{op.predicate.data}({lhs}, {rhs})"
    if launch and isinstance(op, scf.IfOp) and len(op.results) >= 1:
        arms = [r.block.last_op for r in (op.true_region, op.false_region)]
        if not all(isinstance(y, scf.YieldOp) for y in arms):
            return None
        parts = [_host(v, None, True) for v in (op.cond, arms[0].operands[value.index], arms[1].operands[value.index])]
        return None if None in parts else f"select({parts[0]}, {parts[1]}, {parts[2]})"
    if isinstance(op, tile.CastOp) and widens_integer(op):
        src = _sub(op.src, bound, launch)  # `tl.program_id(0).to(tl.int64)`: the same value, computed on in 64 bits
        return None if src is None else f"int64({src})"
    if isinstance(op, tile.NumProgramsOp):
        return f"num_programs{op.axis.value.data}"
    if isinstance(op, tile.DescriptorBlockSizeOp) and (desc := param_name(op.desc)) is not None:
        return descriptor_block_symbol(desc, op.dim.value.data)
    if isinstance(op, tile.CdivOp):
        lhs, rhs = _sub(op.lhs, bound, launch), _sub(op.rhs, bound, launch)
        return None if lhs is None or rhs is None else f"cdiv({lhs}, {rhs})"
    if type(op) in _HOST_OPS:
        lhs, rhs = _sub(op.lhs, bound, launch), _sub(op.rhs, bound, launch)  # type: ignore[attr-defined]
        if lhs is None or rhs is None:
            return None
        return f"({lhs} {_HOST_OPS[type(op)]} {rhs})"
    if isinstance(op, tile.CallOp) and op.callee.data in _HOST_CALLEES and len(op.arguments) == 2 and not op.kwarg_names:
        # Python's min/max of two scalars, e.g. a GROUP_M swizzle's last group, or
        # tl.minimum/tl.maximum of two scalars (a clamped row index)
        args = [_sub(a, bound, launch) for a in op.arguments]
        return None if None in args else f"{_HOST_CALLEES[op.callee.data]}({args[0]}, {args[1]})"
    if isinstance(op, tile.CallJitOp):
        return _helper_result(op, value.index, bound)
    return None


def _has_flat(op: Operation) -> bool:
    func = op.parent_op()
    while func is not None and not isinstance(func, tile.FuncOp):
        func = func.parent_op()
    return func is not None and flat_tile_loop(func) is not None


def _sub(value: SSAValue, bound: Mapping[SSAValue, str] | None, launch: bool = False) -> str | None:
    """An operand's host text: :func:`host_expr` in the kernel, the helper's own terms inside a helper."""
    if launch:
        return _host(value, None, True)
    return host_expr(value) if bound is None else _host(value, bound)


def _helper_result(call: tile.CallJitOp, index: int, bound: Mapping[SSAValue, str] | None) -> str | None:
    """Result ``index`` of a jit helper call: the value the helper returns
    (its entry block's ``tile.return``), over the call's arguments."""
    module = call.parent_op()
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    callee = SymbolTable.lookup_symbol(module, call.callee) if module is not None else None
    if not isinstance(callee, tile.FuncOp):
        return None
    end = callee.body.block.last_op
    if not isinstance(end, tile.ReturnOp) or index >= len(end.values):
        return None
    args = {param: text for param, arg in zip(callee.body.block.args, call.arguments)
            if (text := _sub(arg, bound)) is not None}
    return _host(end.values[index], args)
