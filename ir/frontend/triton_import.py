"""Triton frontend: `@triton.jit` Python source -> `tile` dialect.

`import_file(path)` / `import_source(text, filename)` turn every jit function
of a Python file (kernels and the jit helpers they call) into a `tile.func` in
one `builtin.module`. Python variables become SSA values whose name hints are
the variable names; loop- and branch-carried variables become `scf.for` /
`scf.while` iter args and `scf.if` results. Anything not supported raises
`FrontendError` naming the file, line and construct: the frontend never
guesses.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp, StringAttr
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException

from syncopate.dialects import python_grammar as grammar
from syncopate.dialects import tile
from syncopate.ir.frontend import type_rules as T
from syncopate.ir.frontend.errors import FrontendError, UnknownKernel
from syncopate.ir.frontend import helper_modules
from syncopate.ir.frontend.pointer_scan import pointer_parameters
from syncopate.ir.frontend.prelude import join_prelude, part_at, prelude_parts
from syncopate.ir.frontend.tl_names import canonical_path
from syncopate.ir.frontend.calls import CallImporter
from syncopate.ir.frontend.expressions import ExpressionImporter
from syncopate.ir.frontend.importer_context import TL, TRITON, ImporterContext, constexpr_annotation
from syncopate.ir.frontend.statements import StatementImporter
from syncopate.ir.frontend.tl_calls import TritonCallImporter


def _is_jit_decorator(node: ast.expr, aliases: dict[str, str]) -> bool:
    """``@triton.jit``, ``@jit``, or an alias of it (``from triton import jit as tjit``)."""
    target = node.func if isinstance(node, ast.Call) else node
    text = ast.unparse(target)
    head, _, rest = text.partition(".")
    resolved = aliases.get(head, head) + (f".{rest}" if rest else "")
    return text in ("triton.jit", "jit", "tl.jit") or resolved in ("triton.jit", "triton.runtime.jit.jit")


def _decorate_call_form_jits(tree: ast.Module, aliases: dict[str, str]) -> None:
    """``kernel = triton.jit(fn)`` (or ``triton.jit(fn, do_not_specialize=...)``)
    at module level makes the plain function ``fn`` a jit function, as the
    decorator would: give ``fn`` that decorator, so it is imported (and
    emitted) as one. The assignment itself is host code the import leaves
    alone; ``fn`` keeps its own name, the one the launched JITFunction
    reports."""
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    for statement in tree.body:
        call = statement.value if isinstance(statement, ast.Assign) else None
        if not (isinstance(call, ast.Call) and _is_jit_decorator(call, aliases) and len(call.args) == 1
                and isinstance(call.args[0], ast.Name) and call.args[0].id in functions):
            continue
        fn = functions[call.args[0].id]
        if any(_is_jit_decorator(d, aliases) for d in fn.decorator_list):
            continue  # jit twice: Triton itself refuses it when the file runs
        decorator = ast.Call(func=call.func, args=[], keywords=call.keywords) if call.keywords else call.func
        fn.decorator_list.append(ast.copy_location(decorator, call))


def _module_aliases(tree: ast.Module) -> dict[str, str]:
    aliases = {"triton": TRITON}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
              and isinstance(node.value, ast.Attribute) and (dotted := helper_modules.dotted_name(node.value))):
            # `triton_cast = tl.cast` (Unsloth): a module-level name for a triton function is
            # that function, as an import under another name would be
            head, _, rest = dotted.partition(".")
            last = rest.rsplit(".", 1)[-1]
            if (head in aliases and aliases[head].split(".")[0] == TRITON and rest
                    and T.DTYPE_ALIASES.get(last, last) not in T.DTYPES):  # `DTYPE = tl.float16` stays a constexpr global
                aliases[node.targets[0].id] = f"{aliases[head]}.{rest}"
    return aliases


class FunctionImporter:
    """Builds one tile.func from one jit FunctionDef: one importer per job
    (statements, expressions, calls, ``tl.*`` ops), each holding the
    function's shared :class:`ImporterContext`, which holds them in turn
    (see :mod:`~syncopate.ir.frontend.importer_context`)."""

    def __init__(self, module_importer: ModuleImporter, node: ast.FunctionDef, helper: bool = False):
        self.ctx = ImporterContext(module_importer, node, helper)
        self.ctx.stmts = StatementImporter(self.ctx)
        self.ctx.exprs = ExpressionImporter(self.ctx)
        self.ctx.calls = CallImporter(self.ctx)
        self.ctx.tl_calls = TritonCallImporter(self.ctx)
        self.ctx.fresh = lambda owner, callee: FunctionImporter(owner, callee, helper=True).ctx

    def build(self) -> tile.FuncOp:
        return self.ctx.stmts.build()


def _called_names(node: ast.AST) -> list[str]:
    """The dotted names (``f``, ``tiles.f``) called in ``node``, in order."""
    names = (helper_modules.dotted_name(c.func) for c in ast.walk(node) if isinstance(c, ast.Call))
    return [n for n in names if n is not None]


@dataclass(frozen=True)
class ParameterRole:
    """A way a jit function uses one of its parameters, found by walking
    the call graph (:meth:`ModuleImporter.parameters_in_role`): which
    parameters may have it, which calls use one (``is_use`` of the call's
    canonical ``triton.language`` path, None for other callees) and which
    argument of such a call is the parameter used."""

    name: str
    candidates: Callable[[ast.FunctionDef], set[str]]
    is_use: Callable[[str | None, ast.Call], bool]
    argument: Callable[[ast.Call], ast.expr | None]


def _all_parameters(node: ast.FunctionDef) -> set[str]:
    return {a.arg for a in (*node.args.args, *node.args.kwonlyargs)}


def _constexpr_parameters(node: ast.FunctionDef) -> set[str]:
    return {a.arg for a in (*node.args.args, *node.args.kwonlyargs) if constexpr_annotation(a.annotation)}


def _argument(call: ast.Call, keywords: tuple[str, ...]) -> ast.expr | None:
    """The argument of ``call`` given by one of ``keywords``, else its first positional one."""
    return next((k.value for k in call.keywords if k.arg in keywords), call.args[0] if call.args else None)


PROGRAM_AXIS = ParameterRole(
    "program axis", _constexpr_parameters,
    lambda path, call: path in (f"{TL}.program_id", f"{TL}.num_programs"),
    lambda call: _argument(call, ("axis",)))
BLOCK_POINTER = ParameterRole(
    "block pointer", _all_parameters,
    lambda path, call: path == f"{TL}.advance" or (
        path in (f"{TL}.load", f"{TL}.store")
        and bool({k.arg for k in call.keywords} & {"boundary_check", "padding_option"})),
    lambda call: _argument(call, ("base", "pointer")))


class ModuleImporter:
    """Imports every jit function of one Python file, and the jit helpers its
    jit functions call that it imports from other modules of the user's
    package (``from .utils import tile_id``, see ``helper_modules.py``)."""

    def __init__(self, source: str, filename: str, session: dict[Path, ModuleImporter] | None = None):
        self.filename = filename
        try:
            self.tree = ast.parse(source, filename)
        except SyntaxError as error:
            raise FrontendError(filename, error.lineno or 0, f"Python syntax error: {error.msg}") from None
        self.source = source
        self.aliases = _module_aliases(self.tree)
        self.globals: dict[str, ast.expr] = {}
        for statement in self.tree.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                self.globals[statement.targets[0].id] = statement.value
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
                self.globals[statement.target.id] = statement.value
        _decorate_call_form_jits(self.tree, self.aliases)
        self.own_functions: dict[str, ast.FunctionDef] = {
            node.name: node
            for node in self.tree.body
            if isinstance(node, ast.FunctionDef) and any(_is_jit_decorator(d, self.aliases) for d in node.decorator_list)
        }
        # local name -> jit function, this file's own and the imported helpers its jit functions call
        self.jit_functions: dict[str, ast.FunctionDef] = dict(self.own_functions)
        self.owners: dict[str, ModuleImporter] = {name: self for name in self.own_functions}
        self.unresolved: dict[str, str] = {}  # imported names called as functions, with why they are no helper
        # role name -> jit function -> its parameters in that role (parameters_in_role)
        self.role_cache: dict[str, dict[str, set[str]]] = {}
        self.session = {} if session is None else session  # source file -> its importer, each file parsed once
        self.session[Path(filename).resolve()] = self
        self.import_helpers()

    def import_helpers(self) -> None:
        """Bind the imported names this file's jit functions call (``f``,
        ``tiles.f``) to the jit helpers they name in their modules' source
        (read, never run)."""
        origins = helper_modules.import_origins(self.tree)
        called = {name for node in self.own_functions.values() for name in _called_names(node)}
        for callee in sorted(called - set(self.own_functions)):
            helper = helper_modules.helper_of(callee, origins)
            if helper is None:
                continue
            where = helper_modules.spelled(helper)
            path = helper_modules.module_file(Path(self.filename), helper)
            if path is None:
                roots = ", ".join(str(r) for r in helper_modules.search_roots(Path(self.filename), helper.level)[:2])
                self.unresolved[callee] = f"its module `{where}` was not found (looked under {roots})"
                continue
            module = self.session.get(path.resolve()) or ModuleImporter(path.read_text(), str(path), self.session)
            if helper.function not in module.jit_functions:
                self.unresolved[callee] = f"`{helper.function}` is not a @triton.jit function of {path.name} (module `{where}`)"
                continue
            self.jit_functions[callee] = module.jit_functions[helper.function]
            self.owners[callee] = module.owners[helper.function]

    def build_function(self, node: ast.FunctionDef, helper: bool) -> tile.FuncOp:
        try:
            return FunctionImporter(self, node, helper).build()
        except FrontendError:
            raise
        except Exception as error:  # a frontend bug: still name the function, not a traceback
            raise FrontendError(
                self.filename, node.lineno, f"internal error while importing `{node.name}`: {type(error).__name__}: {error}"
            ) from error

    def result_count(self, name: str) -> int:
        node = self.jit_functions[name]
        last = node.body[-1] if node.body else None
        if isinstance(last, ast.Return) and last.value is not None:
            return len(last.value.elts) if isinstance(last.value, ast.Tuple) else 1
        return 0

    def axis_parameters(self, name: str) -> set[str]:
        """The constexpr parameters of jit function ``name`` that are
        program axes: passed to ``tl.program_id`` / ``tl.num_programs`` as
        the axis, or to a parameter of that kind of a jit helper it calls
        (FlagGems' ``tle.program_id(axis)``)."""
        return self.parameters_in_role(name, PROGRAM_AXIS)

    def block_pointer_parameters(self, name: str) -> set[str]:
        """The parameters of jit function ``name`` it uses as block pointers:
        moved with ``tl.advance``, loaded or stored with ``boundary_check`` /
        ``padding_option``, or passed on to such a parameter of a helper it
        calls. Such a helper is inlined at every call (``inline_call``) and
        not emitted on its own: the lowered kernel has no block pointer to
        pass it."""
        return self.parameters_in_role(name, BLOCK_POINTER)

    def parameters_in_role(self, name: str, role: ParameterRole, visiting: frozenset[str] = frozenset()) -> set[str]:
        """The parameters of jit function ``name`` (among ``role.candidates``)
        that it uses in ``role``: as the argument ``role.argument`` of a call
        ``role.is_use`` accepts, or passed on to a parameter in that role of
        a jit helper it calls (walked down the call graph, each function
        once per role; a recursive call is not followed)."""
        node = self.jit_functions[name]
        owner = self.owners[name]
        cache = owner.role_cache.setdefault(role.name, {})
        if node.name in cache:
            return cache[node.name]
        candidates = role.candidates(node)
        found: set[str] = set()
        for call in ast.walk(node):
            if not isinstance(call, ast.Call):
                continue
            dotted = helper_modules.dotted_name(call.func)
            if dotted is None:
                continue
            head, _, rest = dotted.partition(".")
            path = canonical_path(owner.aliases[head] + (f".{rest}" if rest else "")) if head in owner.aliases else None
            if role.is_use(path, call):
                used = role.argument(call)
                if isinstance(used, ast.Name) and used.id in candidates:
                    found.add(used.id)
            elif dotted in owner.jit_functions and owner.jit_functions[dotted].name not in visiting:
                callee = owner.jit_functions[dotted]
                inner = owner.parameters_in_role(dotted, role, visiting | {node.name})
                names = [a.arg for a in (*callee.args.args, *callee.args.kwonlyargs)]
                passed = dict(zip(names, call.args)) | {k.arg: k.value for k in call.keywords if k.arg}
                found |= {v.id for p, v in passed.items()
                          if p in inner and isinstance(v, ast.Name) and v.id in candidates}
        cache[node.name] = found
        return found

    def returns_block_pointer(self, name: str) -> bool:
        """Jit function ``name`` returns a block pointer it made or moved
        (``return tl.make_block_ptr(...)``, or a name it assigned one):
        inlined at every call, like a helper taking one."""
        node = self.jit_functions[name]
        owner = self.owners[name]

        def makes(value: ast.expr | None) -> bool:
            dotted = helper_modules.dotted_name(value.func) if isinstance(value, ast.Call) else None
            if dotted is None:
                return False
            head, _, rest = dotted.partition(".")
            path = canonical_path(owner.aliases[head] + (f".{rest}" if rest else "")) if head in owner.aliases else None
            return path in (f"{TL}.make_block_ptr", f"{TL}.advance")

        made = {t.id for a in ast.walk(node) if isinstance(a, ast.Assign) and makes(a.value)
                for t in a.targets if isinstance(t, ast.Name)}
        for ret in (r for r in ast.walk(node) if isinstance(r, ast.Return) and r.value is not None):
            elements = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
            if any(makes(e) or (isinstance(e, ast.Name) and e.id in made) for e in elements):
                return True
        return False

    def inlined_pointer_arguments(self, node: ast.FunctionDef) -> set[str]:
        """Names ``node`` passes to a pointer parameter of a helper inlined
        into it (``row_block(y_ptr, ...)`` making a block pointer on
        ``y_ptr``): pointers of ``node`` once the helper's body is its own."""
        found: set[str] = set()
        for call in ast.walk(node):
            dotted = helper_modules.dotted_name(call.func) if isinstance(call, ast.Call) else None
            if dotted is None or dotted not in self.jit_functions or not self.inlined(dotted):
                continue
            callee, owner = self.jit_functions[dotted], self.owners[dotted]
            names = [a.arg for a in (*callee.args.args, *callee.args.kwonlyargs)]
            passed = dict(zip(names, call.args)) | {k.arg: k.value for k in call.keywords if k.arg}
            pointers = pointer_parameters(callee, owner.aliases) | owner.inlined_pointer_arguments(callee)
            found |= {v.id for p, v in passed.items() if p in pointers and isinstance(v, ast.Name)}
        return found

    def inlined(self, name: str) -> bool:
        """Jit function ``name`` is imported into its callers, never emitted on its own."""
        return bool(self.block_pointer_parameters(name)) or self.returns_block_pointer(name)

    def callees(self, node: ast.FunctionDef) -> list[str]:
        """Local names of the jit functions ``node`` calls, in call order; a
        helper taking a block pointer is inlined at its calls, so what it
        calls is named instead of it."""
        found: list[str] = []
        owner = self
        for n in _called_names(node):
            if n not in owner.jit_functions:
                continue
            if owner.inlined(n):
                found += owner.owners[n].callees(owner.jit_functions[n])
            else:
                found.append(n)
        return list(dict.fromkeys(found))

    def emitted_functions(self) -> list[str]:
        """This file's jit functions but the helpers taking or returning a
        block pointer (inlined at every call, see :meth:`inlined`); a kernel
        nothing calls is emitted whatever it does with block pointers (a
        `tl.advance` of a parameter is then refused where it is)."""
        called = {n for node in self.own_functions.values() for n in _called_names(node)}
        return [n for n in self.own_functions if n not in called or not self.inlined(n)]

    def reachable(self, roots: list[str] | None = None) -> dict[str, tuple[ModuleImporter, ast.FunctionDef]]:
        """Symbol -> (owner, def) of this file's jit functions (or of
        ``roots`` among them) and the imported helpers they reach. One
        emitted module holds them all, so two different functions may not
        share a name."""
        functions: dict[str, tuple[ModuleImporter, ast.FunctionDef]] = {}
        names = self.emitted_functions() if roots is None else roots
        pending = [(self, self.own_functions[name]) for name in names]
        while pending:
            owner, node = pending.pop(0)
            known = functions.get(node.name)
            if known is not None and known[1] is not node:
                raise FrontendError(
                    owner.filename, node.lineno, f"jit function `{node.name}` is defined in both {Path(known[0].filename).name} "
                    f"and {Path(owner.filename).name}; the fused file holds both, so rename one"
                )
            if known is not None:
                continue
            functions[node.name] = (owner, node)
            pending += [(owner.owners[n], owner.jit_functions[n]) for n in owner.callees(node)]
        return functions

    def build(self, kernel: str | None = None, left_out: list[FrontendError] | None = None) -> ModuleOp:
        """The tile module of this file's jit functions. With ``kernel``, only
        that kernel and what it reaches must import: another kernel of the
        file the frontend refuses (with what it alone reaches) is left out,
        its error appended to ``left_out``, so one unsupported sibling does
        not stop the fusion of the kernel asked for."""
        if not self.own_functions:
            raise FrontendError(self.filename, 1, "no @triton.jit function found")
        if kernel is not None and kernel not in self.own_functions:
            raise UnknownKernel(self.filename, f"no kernel named '{kernel}' (kernels: {', '.join(self.own_functions)})")
        everything = self.reachable()
        called = {owner.jit_functions[n].name for owner, node in everything.values() for n in owner.callees(node)}
        if kernel is None:
            functions = everything
            funcs = [owner.build_function(node, name in called) for name, (owner, node) in functions.items()]
        else:
            built: dict[str, tile.FuncOp] = {}
            for root in [kernel, *(n for n in self.emitted_functions() if n != kernel)]:
                new = {n: v for n, v in self.reachable([root]).items() if n not in built}
                try:
                    group = {name: owner.build_function(node, name in called) for name, (owner, node) in new.items()}
                except FrontendError as error:
                    if root == kernel:
                        raise
                    if left_out is not None:
                        left_out.append(error)
                    continue
                built.update(group)
            functions = {name: value for name, value in everything.items() if name in built}
            funcs = [built[name] for name in functions]
        module = ModuleOp(funcs)
        module.attributes["tile.source"] = StringAttr(Path(self.filename).name)
        origins: dict[str, tuple[str, int]] = {}
        parts = self.prelude({name: owner for name, (owner, _) in functions.items()}, origins)
        prelude = join_prelude(parts)
        if prelude:
            module.attributes[grammar.PRELUDE_ATTR] = StringAttr(prelude)
            try:
                grammar.prelude_scope(prelude, grammar.prelude_what(module))
            except grammar.ForbiddenPython as error:  # name the kernel file's line, not the prelude's
                index, offset = part_at(prelude, parts, error.line)
                filename, line = origins[parts[index]]
                raise FrontendError(filename, line + offset, f"{error.construct!r} {error.reason}") from None
        for func, (owner, node) in zip(funcs, functions.values()):
            _check_fragments(func, module, owner.filename, _first_line(node))
        return module

    def prelude(self, owners: dict[str, ModuleImporter], origins: dict[str, tuple[str, int]]) -> list[str]:
        """The module-level Python of this file, then of each helper module,
        that the carried functions reach, one text per statement; the imports
        of carried helpers are left out (the emitted file defines them).
        ``origins`` receives each text's file and first line."""
        modules = list(dict.fromkeys([self, *owners.values()]))
        parts: list[str] = []
        for module in modules:
            carried = {name for name, owner in owners.items() if owner is module}
            # `tiles` of a carried `tiles.tile_coords(...)` is no longer needed: the call names the carried def
            defined = set(module.jit_functions) | {n.split(".")[0] for n in module.jit_functions if "." in n}
            package = helper_modules.package_of(Path(module.filename)) if Path(module.filename).is_file() else None
            lines: dict[str, int] = {}
            for part in prelude_parts(module.tree, module.source, carried, defined=defined, package=package,
                                      statement_lines=lines):
                if part not in parts:
                    parts.append(part)
                    origins[part] = (module.filename, lines[part])
        return parts


def _check_fragments(func: tile.FuncOp, module: ModuleOp, filename: str, line: int) -> None:
    """The decorators, defaults and annotations of ``func`` are of the grammar
    an emitted file may hold (dialects/python_grammar.py); a refusal names the
    function's first line (``line`` of ``filename``)."""
    try:
        func.verify_fragments(grammar.module_scope(module), f"`{func.sym_name.data}`")
    except grammar.ForbiddenPython as error:
        raise FrontendError(filename, line, f"{error.what}: {error.construct!r} {error.reason}") from None


def _first_line(node: ast.FunctionDef) -> int:
    """A definition starts at its first decorator."""
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])


def import_source(
    source: str, filename: str = "<string>", kernel: str | None = None, left_out: list[FrontendError] | None = None,
) -> ModuleOp:
    """Import every `@triton.jit` function of `source` into one tile module
    (with ``kernel``: see :meth:`ModuleImporter.build`)."""
    return import_source_files(source, filename, kernel, left_out)[0]


def import_source_files(
    source: str, filename: str = "<string>", kernel: str | None = None, left_out: list[FrontendError] | None = None,
) -> tuple[ModuleOp, tuple[str, ...]]:
    """:func:`import_source`, plus the files whose text the import read
    (``filename`` itself and every module of the user's package its jit
    helpers came from): what a cache of the result must check."""
    importer = ModuleImporter(source, filename)
    module = importer.build(kernel, left_out)
    try:
        module.verify()
    except Exception as error:
        _refuse_a_non_boolean_mask(module, filename)
        # a frontend bug, not a user error: say so plainly
        raise FrontendError(filename, 1, f"internal error: imported IR does not verify: {error}") from error
    return module, tuple(sorted(str(p) for p in importer.session if p.is_file()))


def import_file(path: str | Path) -> ModuleOp:
    path = Path(path)
    return import_source(path.read_text(), str(path))




def _refuse_a_non_boolean_mask(module: ModuleOp, filename: str) -> None:
    """A load, store or atomic whose mask is not boolean (``mask=(cols < n) *
    1.0``) is the kernel's error, which Triton refuses too ("Mask must have
    boolean scalar type"): name its line, not an internal error."""
    for op in module.walk():
        mask = getattr(op, "mask", None) if isinstance(op, (tile.LoadOp, tile.StoreOp, tile.AtomicRMWOp)) else None
        if not isinstance(mask, SSAValue):
            continue
        try:
            tile.check_mask(op, mask)
        except VerifyException:
            line = op.location.line.data if isinstance(op.location, FileLineColLoc) else 1
            raise FrontendError(filename, line, f"the mask of this {op.name.removeprefix('tile.')} is {mask.type}, "
                                "not boolean: Triton takes a mask of i1 (a comparison such as `cols < n`)") from None
