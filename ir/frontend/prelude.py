"""Module-level Python that a file's jit functions need.

A kernel file is more than its ``@triton.jit`` functions: decorators call
module-level functions (``@triton.autotune(configs=get_configs(), ...)``),
name module-level constants and imports (``from triton import jit``), and
kernels read constexpr globals (``GROUP: tl.constexpr = 8``). The frontend
keeps the jit functions as IR; :func:`prelude_parts` returns, verbatim and in
file order, the other top-level statements those functions reach, so the
emitted file defines everything its decorators and defaults evaluate.

Reached means: a name used in a jit function (its decorators, defaults or
body) that a top-level statement binds, and, transitively, the names those
statements use. Statements other than imports, assignments, function and
class definitions (``if __name__ == ...``, loops, bare calls) are never
carried: running them on import of the emitted file would be a side effect
the user did not ask for.
"""

from __future__ import annotations

import ast

from syncopate.ir.frontend.helper_modules import absolute_module

_BINDERS = (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.FunctionDef, ast.ClassDef)


def _in_header(statement: ast.stmt) -> bool:
    """``import triton`` / ``import triton.language as tl``: every emitted file starts with them."""
    if not isinstance(statement, ast.Import):
        return False
    return all((a.name, a.asname) in (("triton", None), ("triton.language", "tl")) for a in statement.names)


def _bound_names(statement: ast.stmt) -> set[str]:
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in statement.names}
    if isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
        return {statement.name}
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]  # type: ignore[attr-defined]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _used_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _free_names(function: ast.FunctionDef) -> set[str]:
    """Module-level names a jit function reads: everything its decorators and
    defaults read (they run at module scope), and the names its body reads
    that are neither parameters nor assigned in the body (those are locals,
    even when a global of the same name exists)."""
    args = function.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    stored = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    body = set().union(*(_used_names(s) for s in function.body)) - params - stored
    outer = [*function.decorator_list, *args.defaults, *(d for d in args.kw_defaults if d is not None)]
    return body.union(*(_used_names(n) for n in outer))


def prelude_parts(tree: ast.Module, source: str, jit_names: set[str], defined: set[str] = frozenset(),
                  package: str | None = None, statement_lines: dict[str, int] | None = None) -> list[str]:
    """The top-level statements of ``tree`` (other than the jit functions
    ``jit_names``) that the jit functions reach, as source text, one text
    per statement (:func:`join_prelude` makes them one block); names in
    ``defined`` are bound by the emitted file itself (a jit helper imported
    from another module is carried as a function), so the statements binding
    them are not followed. A relative import is carried as the absolute
    import it means in ``package`` (the file's package): the emitted file
    lives elsewhere, where ``from .configs import ...`` would not resolve.
    ``statement_lines``, when given, receives each text's first line in the
    file, for errors about it."""
    statement_lines = {} if statement_lines is None else statement_lines
    jit_defs = [s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name in jit_names]
    candidates = [s for s in tree.body if isinstance(s, _BINDERS) and s not in jit_defs and not _in_header(s)]
    binders: dict[str, list[ast.stmt]] = {}
    for statement in candidates:
        for name in _bound_names(statement):
            binders.setdefault(name, []).append(statement)
    wanted: set[int] = set()
    pending = set().union(*(_free_names(d) for d in jit_defs)) if jit_defs else set()
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen or name in defined:
            continue
        seen.add(name)
        for statement in binders.get(name, []):
            if id(statement) not in wanted:
                wanted.add(id(statement))
                pending |= _used_names(statement) - seen
    lines = source.splitlines()
    carried = [s for s in candidates if id(s) in wanted]
    parts = []
    for statement in carried:
        text = "\n".join(lines[_first_line(statement) - 1 : statement.end_lineno])
        if isinstance(statement, ast.ImportFrom) and statement.level:
            text = _absolute_import(statement, package) or text
        parts.append(f"\n\n{text}\n\n" if isinstance(statement, (ast.FunctionDef, ast.ClassDef)) else text)
        statement_lines[parts[-1]] = _first_line(statement)
    return parts


def _absolute_import(statement: ast.ImportFrom, package: str | None) -> str | None:
    module = absolute_module(package, statement.level, statement.module)
    if module is None:
        return None  # the dots climb out of the package: Python refuses it in the user's file too
    return ast.unparse(ast.ImportFrom(module=module, names=statement.names, level=0))


def join_prelude(parts: list[str]) -> str:
    return "\n".join(parts).replace("\n\n\n\n", "\n\n").strip("\n")


def part_at(prelude: str, parts: list[str], line: int) -> tuple[int, int]:
    """The index of the part of ``parts`` (joined into ``prelude``) holding
    ``line`` of the prelude, and the line's offset inside that part."""
    found, start, position = 0, 1, 0
    for index, part in enumerate(parts):
        text = part.strip("\n")
        at = prelude.find(text, position)
        if at < 0:
            continue
        first = prelude.count("\n", 0, at) + 1
        if first > line:
            break
        found, start, position = index, first, at + len(text)
    return found, line - start


def _first_line(statement: ast.stmt) -> int:
    """A definition starts at its first decorator, not at ``def``."""
    decorators = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(d.lineno for d in decorators)])
