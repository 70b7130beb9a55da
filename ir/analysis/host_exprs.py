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

from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, OpResult, SSAValue
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


def _host(value: SSAValue, bound: Mapping[SSAValue, str] | None = None) -> str | None:
    """``value`` as host text; ``bound``: inside a jit helper, its
    parameters' host texts at the call being expanded (None: in the kernel)."""
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
    if isinstance(op, tile.ProgramIdOp):
        return f"pid{op.axis.value.data}"
    if isinstance(op, tile.CastOp) and widens_integer(op):
        src = _sub(op.src, bound)  # `tl.program_id(0).to(tl.int64)`: the same value, computed on in 64 bits
        return None if src is None else f"int64({src})"
    if isinstance(op, tile.NumProgramsOp):
        return f"num_programs{op.axis.value.data}"
    if isinstance(op, tile.DescriptorBlockSizeOp) and (desc := param_name(op.desc)) is not None:
        return descriptor_block_symbol(desc, op.dim.value.data)
    if isinstance(op, tile.CdivOp):
        lhs, rhs = _sub(op.lhs, bound), _sub(op.rhs, bound)
        return None if lhs is None or rhs is None else f"cdiv({lhs}, {rhs})"
    if type(op) in _HOST_OPS:
        lhs, rhs = _sub(op.lhs, bound), _sub(op.rhs, bound)  # type: ignore[attr-defined]
        if lhs is None or rhs is None:
            return None
        return f"({lhs} {_HOST_OPS[type(op)]} {rhs})"
    if isinstance(op, tile.CallOp) and op.callee.data in _HOST_CALLEES and len(op.arguments) == 2 and not op.kwarg_names:
        # Python's min/max of two scalars, e.g. a GROUP_M swizzle's last group, or
        # tl.minimum/tl.maximum of two scalars (a clamped row index)
        args = [_sub(a, bound) for a in op.arguments]
        return None if None in args else f"{_HOST_CALLEES[op.callee.data]}({args[0]}, {args[1]})"
    if isinstance(op, tile.CallJitOp):
        return _helper_result(op, value.index, bound)
    return None


def _sub(value: SSAValue, bound: Mapping[SSAValue, str] | None) -> str | None:
    """An operand's host text: :func:`host_expr` in the kernel, the helper's own terms inside a helper."""
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
