"""Adding runtime parameters to a kernel (signal pad, chunk tables, ...)."""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, FunctionType, ModuleOp, StringAttr
from xdsl.ir import Attribute, BlockArgument

from syncopate.dialects import tile
from syncopate.passes.device_helpers_ir import helper_funcs


def kernel_param(func: tile.FuncOp, name: str, type: Attribute) -> BlockArgument:
    """The parameter ``name`` of ``func``, added if missing: before the first
    parameter with a default (Python needs those last), else at the end.
    Launchers pass added parameters by keyword."""
    names = func.arg_names
    if name in names:
        return func.body.block.args[names.index(name)]
    defaults = set(func.defaults.data) if func.defaults is not None else set()
    index = next((i for i, n in enumerate(names) if n in defaults), len(names))
    arg = func.body.block.insert_arg(type, index)
    arg.name_hint = name
    names.insert(index, name)
    func.properties["param_names"] = ArrayAttr([StringAttr(n) for n in names])
    inputs = list(func.function_type.inputs.data)
    inputs.insert(index, type)
    func.properties["function_type"] = FunctionType.from_lists(inputs, list(func.function_type.outputs.data))
    return arg


def import_helpers(module: ModuleOp, names: set[str]) -> None:
    """Append the jit helpers ``names`` of lowering/device_helpers.py (and the
    helpers they call) to ``module`` unless it has them already."""
    present = {f.sym_name.data for f in module.ops if isinstance(f, tile.FuncOp)}
    library = helper_funcs()
    wanted: list[str] = []
    stack = sorted(names)
    while stack:
        name = stack.pop()
        if name in wanted or name in present:
            continue
        wanted.append(name)
        for op in library[name].walk():
            if isinstance(op, tile.CallJitOp):
                stack.append(op.callee.string_value())
    for name in sorted(wanted):
        module.body.block.add_op(library[name].clone())
