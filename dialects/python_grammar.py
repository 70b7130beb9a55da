"""The module-level Python an emitted kernel file may hold.

An emitted file runs on import: its prelude (``tile.prelude``, the kernel
file's module-level imports, assignments and definitions), each kernel's
decorators and its parameters' defaults and annotations are evaluated the
moment the file is imported, and class and function bodies of the prelude
run when a decorator calls them. IR text can hold any string in those
places, so each fragment is parsed with :mod:`ast` and accepted only when
every node is one of a few forms:

* literals (numbers, strings, bytes, booleans, ``None``) and tuples, lists,
  sets and dicts of allowed expressions; arithmetic, comparisons, boolean
  operators, conditional expressions, subscripts, lambdas and comprehensions
  over allowed expressions;
* names the kernel's own module binds (its prelude), the lambda and
  comprehension variables of the fragment, and a few builtins
  (:data:`BUILTINS`);
* Triton names from an explicit allow-list (:data:`TRITON_PATHS`, reached
  as ``triton.*``, ``tl.*`` or through a prelude import of them), then value
  attributes (:data:`VALUE_ATTRIBUTES`) of what those evaluate to.

Everything else is refused: an import of any module but Triton's, an
attribute chain leaving the allow-list (``triton.runtime.build.os.system``),
a dunder name or attribute, ``:=``, statements other than those a config
function needs. An allow-list, not a deny-list: a name is reachable only
because it is listed here.

:func:`prelude_scope` checks a prelude and returns the names it binds;
:func:`check_expression` checks one decorator, default or annotation in it.
Both raise :class:`ForbiddenPython`, whose message names the fragment, its
line and the construct.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

TL = "triton.language"

TRITON_MODULES = frozenset({
    "triton", TL, f"{TL}.core", f"{TL}.standard", f"{TL}.math", f"{TL}.random", f"{TL}.extra",
    f"{TL}.extra.libdevice", f"{TL}.extra.cuda", f"{TL}.extra.cuda.libdevice",
})  # fmt: skip
"""Triton modules a prelude may import and a fragment may name."""

TRITON_API = frozenset({"jit", "autotune", "heuristics", "Config", "cdiv", "next_power_of_2", "language"})
"""``triton.*`` names a decorator or config function uses."""

TL_CORE_NAMES = frozenset("""
    PropagateNan TRITON_MAX_TENSOR_NUMEL add arange associative_scan assume atomic_add atomic_and atomic_cas
    atomic_max atomic_min atomic_or atomic_xchg atomic_xor bfloat16 block_type broadcast broadcast_to cast cat
    clamp constexpr debug_barrier device_assert device_print dot dot_scaled dtype expand_dims float16 float32
    float64 float8e4b15 float8e4b8 float8e4nv float8e5 float8e5b16 full gather histogram inline_asm_elementwise
    int1 int16 int32 int64 int8 join load make_block_ptr make_tensor_descriptor map_elementwise max_constancy
    max_contiguous maximum minimum mul multiple_of num_programs permute pointer_type program_id range reduce
    reshape slice split static_assert static_print static_range store sub tensor trans tuple uint16 uint32
    uint64 uint8 view void where""".split())
"""Names ``triton.language.core`` defines and ``triton.language`` re-exports
as the same object (Triton 3.6 to 3.9): its types, dtypes and ops."""

TL_STANDARD_NAMES = frozenset("""
    argmax argmin cdiv cumprod cumsum flip interleave max min ravel reduce_or sigmoid softmax sort squeeze sum
    swizzle2d topk unsqueeze xor_sum zeros zeros_like""".split())
"""Names ``triton.language.standard`` defines and ``triton.language`` re-exports."""

TRITON_PATHS = frozenset({
    *TRITON_MODULES,
    *(f"triton.{name}" for name in TRITON_API),
    *(f"{module}.{name}" for module in (TL, f"{TL}.core") for name in TL_CORE_NAMES),
    *(f"{module}.{name}" for module in (TL, f"{TL}.standard") for name in TL_STANDARD_NAMES),
    *(f"{TL}.extra.{name}" for name in ("libdevice", "cuda")),
    f"{TL}.extra.cuda.libdevice",
})  # fmt: skip
"""Every Triton object a fragment may reach, by its dotted path."""

ALIASES = {"triton": "triton", "tl": TL}
"""The names every emitted file binds (``import triton``, ``import
triton.language as tl``) and what they mean."""

BUILTINS = frozenset({
    "abs", "all", "any", "bool", "dict", "divmod", "enumerate", "filter", "float", "frozenset", "int", "isinstance",
    "len", "list", "map", "max", "min", "pow", "range", "reversed", "round", "set", "sorted", "str", "sum", "tuple",
    "zip",
})  # fmt: skip
"""Builtins a fragment may read (``key=list(...)``, ``range(...)`` in a config list)."""

VALUE_ATTRIBUTES = frozenset({
    "append", "extend", "items", "keys", "values", "get", "copy", "dtype", "element_ty", "primitive_bitwidth",
    "shape", "value", "kwargs", "num_warps", "num_stages", "num_ctas",
})  # fmt: skip
"""Attributes a fragment may read of a value that is no Triton module: list
and dict methods a config function builds its list with, and the fields of
dtypes, constexprs, tensors and configs a heuristic reads."""

EXPRESSION_NODES = (
    ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp,
    ast.Subscript, ast.Slice, ast.Starred, ast.Call, ast.keyword, ast.Name, ast.Attribute, ast.Lambda, ast.ListComp,
    ast.SetComp, ast.GeneratorExp, ast.DictComp,
    ast.operator, ast.unaryop, ast.boolop, ast.cmpop, ast.expr_context,
)  # fmt: skip
"""The node types an allowed expression is made of; :func:`_Expressions.node` checks each one's parts."""

FUNCTION_STATEMENTS = (ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.If, ast.Expr, ast.Pass,
                       ast.Break, ast.Continue)
"""Statements of a prelude function (a config function building a list)."""



TLX = "triton.language.extra.tlx"
TLX_REFUSAL = ("TLX, Meta's warp-specialisation extension of Triton (async tasks, local buffers), is not upstream "
               "Triton, which syncopate imports, fuses and emits; write the kernel with upstream Triton "
               "(tl.range(..., warp_specialize=True) is its upstream form)")


def is_tlx(path: str) -> bool:
    """``path`` names TLX or something in it."""
    return path == TLX or path.startswith(TLX + ".")


class ForbiddenPython(VerifyException):
    """A Python fragment of the IR that is not one of the forms an emitted file may hold.

    ``line`` is the fragment's line (1 for one expression) holding the construct."""

    def __init__(self, what: str, line: int, construct: str, reason: str):
        self.what, self.line, self.construct, self.reason = what, line, construct, reason
        at = f" line {line}" if line > 1 or what.startswith("tile.prelude") else ""
        super().__init__(f"{what}{at}: {construct!r} {reason}")


@dataclass(frozen=True)
class Scope:
    """What the names of a fragment mean: ``triton`` maps a name to the Triton
    path it is bound to (``tl``, a prelude's ``from triton import jit``);
    ``values`` are the other names the module binds; ``local`` the fragment's
    own variables (parameters, lambda and comprehension variables)."""

    triton: Mapping[str, str] = field(default_factory=lambda: dict(ALIASES))
    values: frozenset[str] = frozenset()
    local: frozenset[str] = frozenset()
    members: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """The names each class of the prelude binds (``Tiles.BLOCK``)."""

    def with_local(self, names: Iterable[str]) -> Scope:
        return Scope(self.triton, self.values, self.local | frozenset(names), self.members)


EMPTY_SCOPE = Scope()


def _kind(node: ast.AST) -> str:
    """``an Import``, ``a While``: a node's kind for an error line."""
    name = type(node).__name__
    return f"{'an' if name[0] in 'AEIOU' else 'a'} {name}"


def _construct(node: ast.AST) -> str:
    """The source of ``node``, short enough for one error line."""
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


class _Expressions:
    """Checks expressions of one fragment against a :class:`Scope`."""

    def __init__(self, what: str):
        self.what = what

    def refuse(self, node: ast.AST, reason: str) -> None:
        raise ForbiddenPython(self.what, getattr(node, "lineno", 1), _construct(node), reason)

    def check(self, node: ast.AST, scope: Scope) -> None:
        """``node`` and everything under it is an allowed expression in ``scope``."""
        if not isinstance(node, EXPRESSION_NODES):
            self.refuse(node, f"is {_kind(node)}, not one of the expressions an emitted file may hold")
        if isinstance(node, ast.Name):
            self.name(node, scope)
        elif isinstance(node, ast.Attribute):
            self.attribute(node, scope)
        elif isinstance(node, ast.Lambda):
            self.lambda_(node, scope)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            self.comprehension(node, scope)
        else:
            for child in ast.iter_child_nodes(node):
                self.check(child, scope)

    def name(self, node: ast.Name, scope: Scope) -> None:
        if node.id.startswith("__"):
            self.refuse(node, "is a dunder name")
        if not isinstance(node.ctx, ast.Load):
            self.refuse(node, "assigns a name")
        if node.id in scope.local or node.id in scope.values or node.id in scope.triton or node.id in BUILTINS:
            return
        self.refuse(node, "is neither triton, tl, an allowed builtin nor a module-level name of the kernel file "
                          "(tile.prelude)")

    def attribute(self, node: ast.Attribute, scope: Scope) -> None:
        """``a.b.c``: a path inside :data:`TRITON_PATHS` while it names a
        Triton module, then only :data:`VALUE_ATTRIBUTES`."""
        if node.attr.startswith("__"):
            self.refuse(node, f"reads the dunder attribute '{node.attr}'")
        path = self.triton_path(node.value, scope)
        if path is not None and path in TRITON_MODULES:
            if f"{path}.{node.attr}" not in TRITON_PATHS:
                self.refuse(node, f"is not a Triton name an emitted file may use ({_allowed_hint(path)})")
            return
        self.check(node.value, scope)  # the root of a chain is what is wrong with `os.system`
        owner = node.value.id if isinstance(node.value, ast.Name) and node.value.id not in scope.local else None
        if node.attr in scope.members.get(owner, ()):
            return
        if node.attr not in VALUE_ATTRIBUTES:
            self.refuse(node, f"reads the attribute '{node.attr}', which is not one of {', '.join(sorted(VALUE_ATTRIBUTES))}")

    def triton_path(self, node: ast.expr, scope: Scope) -> str | None:
        """The Triton path ``node`` names (checked on the way), or None when it is no Triton name."""
        if isinstance(node, ast.Name) and node.id not in scope.local:
            return scope.triton.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.triton_path(node.value, scope)
            if base is not None and base in TRITON_MODULES:
                self.attribute(node, scope)
                return f"{base}.{node.attr}"
        return None

    def lambda_(self, node: ast.Lambda, scope: Scope) -> None:
        args = node.args
        for default in (*args.defaults, *(d for d in args.kw_defaults if d is not None)):
            self.check(default, scope)
        self.check(node.body, scope.with_local(_argument_names(args, self)))

    def comprehension(self, node: ast.expr, scope: Scope) -> None:
        inner = scope
        for generator in node.generators:  # type: ignore[attr-defined]
            if generator.is_async:
                self.refuse(node, "is an async comprehension")
            self.check(generator.iter, inner)
            inner = inner.with_local(self.targets(generator.target))
            for condition in generator.ifs:
                self.check(condition, inner)
        parts = (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)  # type: ignore[attr-defined]
        for part in parts:
            self.check(part, inner)

    def targets(self, target: ast.expr) -> list[str]:
        """The names an assignment or loop target binds: names, tuples and lists of them."""
        if isinstance(target, ast.Name):
            if target.id.startswith("__") or target.id in ALIASES:
                self.refuse(target, f"rebinds '{target.id}'")
            return [target.id]
        if isinstance(target, ast.Starred):
            return self.targets(target.value)
        if isinstance(target, (ast.Tuple, ast.List)):
            return [name for element in target.elts for name in self.targets(element)]
        self.refuse(target, "is not a name or a tuple of names, which are all an emitted file may assign")
        return []


def _argument_names(args: ast.arguments, checker: _Expressions) -> list[str]:
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    for name in names:
        if name.startswith("__"):
            checker.refuse(args, f"binds the dunder name '{name}'")
    return names


def _allowed_hint(module: str) -> str:
    names = sorted(p[len(module) + 1 :] for p in TRITON_PATHS if p.startswith(module + ".") and "." not in p[len(module) + 1 :])
    shown = ", ".join(names[:8])
    return f"{module} allows {shown}{', ...' if len(names) > 8 else ''}"


def check_expression(what: str, text: str, scope: Scope = EMPTY_SCOPE) -> None:
    """``text`` is one allowed expression in ``scope`` (a decorator, default or annotation)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as err:
        raise ForbiddenPython(what, 1, text, f"is not a Python expression ({err.msg})") from None
    except (RecursionError, MemoryError, ValueError):
        raise ForbiddenPython(what, 1, text[:60], "is not a Python expression this check can read") from None
    try:
        _Expressions(what).check(tree.body, scope)
    except RecursionError:
        raise ForbiddenPython(what, 1, text[:60], "nests too deeply") from None


# --------------------------------------------------------------------------
# The prelude
# --------------------------------------------------------------------------


@lru_cache(maxsize=64)
def prelude_scope(prelude: str, what: str = "tile.prelude") -> Scope:
    """The names ``prelude`` binds, once every statement is one an emitted
    file may hold: an import of Triton, an assignment of an allowed
    expression to names, or a function or class definition of
    :func:`_Prelude.function` / :func:`_Prelude.class_` form."""
    try:
        tree = ast.parse(prelude)
    except SyntaxError as err:
        raise ForbiddenPython(what, err.lineno or 1, (err.text or "").strip(), f"is not Python ({err.msg})") from None
    except (RecursionError, MemoryError, ValueError):
        raise ForbiddenPython(what, 1, prelude[:60], "is not Python this check can read") from None
    checker = _Prelude(what)
    try:
        return checker.module(tree)
    except RecursionError:
        raise ForbiddenPython(what, 1, prelude[:60], "nests too deeply") from None


class _Prelude(_Expressions):
    """Checks a prelude's statements: first what each name means, then each statement against that."""

    def module(self, tree: ast.Module) -> Scope:
        triton = dict(ALIASES)
        values: dict[str, ast.stmt] = {}
        for statement in tree.body:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                triton.update(self.imports(statement))
            elif isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
                values.setdefault(self.bound(statement, statement.name), statement)
            elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                values.update((n, values.get(n, statement)) for t in targets for n in self.targets(t))
            else:
                self.refuse(statement, "is not an import, an assignment, a function or a class definition, which "
                                       "are all the prelude holds")
        for name, statement in values.items():
            if name in triton:  # one name, a Triton object and a value: which one a fragment reads depends on order
                self.refuse(statement, f"rebinds the Triton name '{name}'")
        members = {s.name: self.members(s) for s in tree.body if isinstance(s, ast.ClassDef)}
        scope = Scope(triton, frozenset(values), members=members)
        for statement in tree.body:
            self.statement(statement, scope)
        return scope

    def members(self, node: ast.ClassDef) -> frozenset[str]:
        """The names a prelude class's body binds."""
        names: set[str] = set()
        for statement in node.body:
            if isinstance(statement, (ast.Assign, ast.AnnAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                names.update(n for t in targets for n in self.targets(t))
            elif isinstance(statement, ast.FunctionDef):
                names.add(statement.name)
        return frozenset(n for n in names if not n.startswith("_"))

    def bound(self, node: ast.stmt, name: str) -> str:
        if name.startswith("__") or name in ALIASES:
            self.refuse(node, f"rebinds '{name}'")
        return name

    def imports(self, node: ast.Import | ast.ImportFrom) -> dict[str, str]:
        """Name -> Triton path for an import of Triton modules and names; any other import is refused."""
        bound: dict[str, str] = {}
        if isinstance(node, ast.ImportFrom) and (node.level or node.module is None):
            self.refuse(node, "is a relative import; the emitted file imports Triton only")
        for alias in node.names:
            if isinstance(node, ast.Import):
                path = alias.name
                name, meaning = (alias.asname, path) if alias.asname else (path.split(".")[0], path.split(".")[0])
                allowed = path in TRITON_MODULES
            else:
                path = f"{node.module}.{alias.name}"
                name, meaning = alias.asname or alias.name, path
                allowed = node.module in TRITON_MODULES and path in TRITON_PATHS
            if not allowed and is_tlx(path):
                self.refuse(node, f"imports '{path}': {TLX_REFUSAL}")
            if not allowed:
                self.refuse(node, f"imports '{path}', which is not one of the Triton modules and names an emitted "
                                  "file may import")
            if ALIASES.get(name, meaning) != meaning or name.startswith("__"):
                self.refuse(node, f"rebinds '{name}'")
            bound[name] = meaning
        return bound

    def statement(self, node: ast.stmt, scope: Scope) -> None:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            self.assignment(node, scope)
        elif isinstance(node, ast.FunctionDef):
            self.function(node, scope)
        elif isinstance(node, ast.ClassDef):
            self.class_(node, scope)

    def assignment(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign, scope: Scope) -> None:
        if isinstance(node, ast.AnnAssign):
            self.check(node.annotation, scope)
        if node.value is not None:
            self.check(node.value, scope)

    def function(self, node: ast.FunctionDef, scope: Scope) -> None:
        """``def configs(...): ...`` without decorators, whose statements
        (:data:`FUNCTION_STATEMENTS`) assign names and build a value."""
        if node.decorator_list:
            self.refuse(node.decorator_list[0], f"decorates the prelude function '{node.name}'; its decorators would "
                                                "run on import")
        args = node.args
        for part in (*args.defaults, *(d for d in args.kw_defaults if d is not None), node.returns,
                     *(a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
                       if a is not None)):
            if part is not None:
                self.check(part, scope)
        local = set(_argument_names(args, self))
        for statement in ast.walk(ast.Module(body=node.body, type_ignores=[])):
            if isinstance(statement, ast.stmt) and not isinstance(statement, FUNCTION_STATEMENTS):
                self.refuse(statement, f"is {_kind(statement)}, not one of the statements a prelude "
                                       f"function may hold ({', '.join(t.__name__ for t in FUNCTION_STATEMENTS)})")
            if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                local.update(n for t in targets for n in self.targets(t))
        self.body(node.body, scope.with_local(local))

    def body(self, statements: list[ast.stmt], scope: Scope) -> None:
        for node in statements:
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                self.assignment(node, scope)
            elif isinstance(node, (ast.Return, ast.Expr)):
                if node.value is not None:
                    self.check(node.value, scope)
            elif isinstance(node, ast.For):
                self.check(node.iter, scope)
                self.body(node.body + node.orelse, scope)
            elif isinstance(node, ast.If):
                self.check(node.test, scope)
                self.body(node.body + node.orelse, scope)

    def class_(self, node: ast.ClassDef, scope: Scope) -> None:
        """``class Tiles: BLOCK = 64``: no bases, keywords or decorators;
        assignments and prelude-form functions only."""
        if node.bases or node.keywords or node.decorator_list:
            culprit = [*node.decorator_list, *node.bases, *node.keywords][0]
            self.refuse(culprit, f"is a base, keyword or decorator of the prelude class '{node.name}'; a class of "
                                 "the prelude has none")
        for statement in node.body:
            if isinstance(statement, (ast.Assign, ast.AnnAssign)):
                for target in statement.targets if isinstance(statement, ast.Assign) else [statement.target]:
                    self.targets(target)
                self.assignment(statement, scope)
            elif isinstance(statement, ast.FunctionDef):
                self.function(statement, scope)
            elif not isinstance(statement, ast.Pass) and not (
                isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
            ):
                self.refuse(statement, f"is not an assignment, a function or a docstring, which are all the body of "
                                       f"the prelude class '{node.name}' may hold")



# --------------------------------------------------------------------------
# Fragments of a tile module
# --------------------------------------------------------------------------

PRELUDE_ATTR = "tile.prelude"
"""Module attribute: the kernel file's module-level Python that the jit
functions reach (see ``ir/frontend/prelude.py``), written above them."""


def prelude_what(module: Operation | None) -> str:
    """``tile.prelude of kernel.py``: how an error names a module's prelude."""
    source = module.attributes.get("tile.source") if module is not None else None
    return f"{PRELUDE_ATTR} of {source.data}" if isinstance(source, StringAttr) else PRELUDE_ATTR


def module_scope(module: Operation | None) -> Scope:
    """The names a fragment of ``module`` may read, once its prelude is
    checked; a module without a prelude binds only ``triton`` and ``tl``."""
    prelude = module.attributes.get(PRELUDE_ATTR) if module is not None else None
    if prelude is None:
        return EMPTY_SCOPE
    if not isinstance(prelude, StringAttr):
        raise VerifyException(f"{PRELUDE_ATTR} must be a string of Python, got {prelude}")
    return prelude_scope(prelude.data, prelude_what(module))


def fragment_what(where: str, label: str, text: str) -> str:
    """``tile.func @k: decorator 'triton.jit'``, the fragment cut to one short line."""
    shown = text if len(text) <= 80 else text[:77] + "..."
    return f"{where}: {label} {shown!r}"
