"""Find which parameters of a jit function are pointers, before import.

Triton parameters carry no types, so a parameter is typed `!tile.ptr` when it
reaches the pointer operand of a memory op (tl.load/store/atomic_*, the base
of tl.make_tensor_descriptor and tl.make_block_ptr) as the leftmost term of `+`/`-` chains, through
assignments (`p += offset` keeps p a pointer and makes offset none). The left operand of `+` is taken as
the pointer, as Triton code conventionally writes it; a parameter on the
right of a memory op's pointer operand (`tl.store(row + out_ptr, v)`) is
the pointer when no parameter heads the left. Otherwise the right-hand
parameter stays untyped, and the importer refuses the memory op whose
operand is then no pointer, naming its line.
"""

from __future__ import annotations

import ast

from syncopate.ir.frontend.tl_names import TL, canonical_path

POINTER_CALLS = {"load": 0, "store": 0, "atomic_add": 0, "atomic_max": 0, "atomic_min": 0, "atomic_and": 0,
                 "atomic_or": 0, "atomic_xor": 0, "atomic_xchg": 0, "atomic_cas": 0,
                 "make_tensor_descriptor": 0, "make_block_ptr": 0}  # fmt: skip
POINTER_KEYWORDS = {"pointer", "base", "ptr"}
PASS_THROUGH_CALLS = {"multiple_of", "max_contiguous", "max_constancy"}


def _leftmost_names(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return _leftmost_names(node.left)
    if isinstance(node, ast.Subscript):
        return _leftmost_names(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
        if node.func.attr in PASS_THROUGH_CALLS:
            return _leftmost_names(node.args[0])
        if node.func.attr == "where" and len(node.args) == 3:  # `tl.where(c, x_ptr + i, y_ptr + i)`: both pointers
            return _leftmost_names(node.args[1]) | _leftmost_names(node.args[2])
    if isinstance(node, ast.IfExp):
        return _leftmost_names(node.body) | _leftmost_names(node.orelse)
    return set()


def _pointer_call(func: ast.expr, aliases: dict[str, str]) -> str | None:
    """The memory op a callee names: any ``<x>.load`` (``tl.load``,
    ``tl.core.load``, ``tlc.load``), or a bare name imported from
    ``triton.language`` (``from triton.language.core import load as ld``)."""
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name) and func.id in aliases:
        path = canonical_path(aliases[func.id])
        if path.startswith(f"{TL}.") and path.count(".") == 2:
            return path.rsplit(".", 1)[-1]
    return None


def pointer_parameters(func: ast.FunctionDef, aliases: dict[str, str] | None = None) -> set[str]:
    """Names of `func`'s parameters that are used as pointers; ``aliases``
    maps the file's imported names to what they import."""
    pointer_names: set[str] = set()
    sources: dict[str, list[ast.AST]] = {}
    for node in ast.walk(func):
        name = _pointer_call(node.func, aliases or {}) if isinstance(node, ast.Call) else None
        if name is not None:
            position = POINTER_CALLS.get(name)
            if position is not None and len(node.args) > position:
                pointer_names |= _leftmost_names(node.args[position])
            for keyword in node.keywords:
                if keyword.arg in POINTER_KEYWORDS and position is not None:
                    pointer_names |= _leftmost_names(keyword.value)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    sources.setdefault(target.id, []).append(node.value)
    changed = True
    while changed:
        changed = False
        for name in list(pointer_names):
            for value in sources.get(name, ()):
                new = _leftmost_names(value) - pointer_names
                if new:
                    pointer_names |= new
                    changed = True
    params = {a.arg for a in (*func.args.args, *func.args.kwonlyargs)}
    pointers = pointer_names & params
    # locals computed from a pointer parameter (`input_ptrs = input + offs`): pointers too, so the
    # parameter in `input_ptrs + d` stays an offset
    derived: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, values in sources.items():
            if name not in derived and any(_leftmost_names(v) & (pointers | derived) for v in values):
                derived.add(name)
                changed = True
    heads = params | derived
    for node in ast.walk(func):  # `tl.store(row + out_ptr, v)` (attorch's `feat_pid + mean_pointer`)
        name = _pointer_call(node.func, aliases or {}) if isinstance(node, ast.Call) else None
        position = POINTER_CALLS.get(name) if name is not None else None
        if position is not None and len(node.args) > position:
            pointers |= _right_pointer(node.args[position], params, heads)
    return pointers


def _right_pointer(node: ast.AST, params: set[str], heads: set[str]) -> set[str]:
    """The parameter among the terms of an ``a + b + ...`` chain written
    straight into a memory op's pointer operand, when neither a parameter
    nor a local computed from a pointer (``heads``) heads the first term and
    exactly one term is a parameter (``row * N + x_ptr + cols``): the
    offsets are plainly not the pointer, and that parameter is."""
    terms: list[ast.AST] = []
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        terms.append(node.right)
        node = node.left
    if not terms or _leftmost_names(node) & heads:
        return set()
    named = {t.id for t in terms if isinstance(t, ast.Name) and t.id in params}
    return named if len(named) == 1 else set()


def descriptor_parameters(func: ast.FunctionDef) -> dict[str, int]:
    """Parameters used as tensor descriptors made on the host (a
    ``TensorDescriptor`` argument): ``param.load([i, j])``,
    ``param.store([i, j], value)`` or ``param.atomic_add([i, j], value)`` (any
    ``atomic_*`` method: the ones a descriptor lacks are refused by name
    later), with the rank the offsets give."""
    params = {a.arg for a in (*func.args.args, *func.args.kwonlyargs)}
    found: dict[str, int] = {}
    for node in ast.walk(func):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and (node.func.attr in ("load", "store") or node.func.attr.startswith("atomic_"))
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in params and node.args and isinstance(node.args[0], (ast.List, ast.Tuple))):
            found.setdefault(node.func.value.id, len(node.args[0].elts))
    return found
