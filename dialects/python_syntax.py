"""The Python that tile IR may hold as text, checked when the IR is verified.

A few tile properties are Python source that the emitter writes out verbatim:
a `tile.call` callee (`tl.math.exp2`), a kernel's decorators
(`triton.autotune(configs=get_configs(), key=['n'])`), parameter defaults and
annotations, and names (functions, parameters, keywords, attribute paths).
The frontend produces them from the user's file; IR text can hold anything.
These checks make sure each piece is the kind of Python its property means,
so that the emitted file does what the IR says and nothing else: a callee is
a dotted name of a module the emitted file imports, not
`"tl.exp(x); import os; os.getcwd"`; a decorator evaluates Triton's API and
the kernel file's own module-level names (`tile.prelude`), not
`os.system('...')`.

Each check raises :class:`xdsl.utils.exceptions.VerifyException` with a
message naming the property and the offending text.
"""

from __future__ import annotations

import ast
import keyword
from functools import lru_cache

from xdsl.utils.exceptions import VerifyException

PRELUDE_ATTR = "tile.prelude"
"""Module attribute: the kernel file's module-level Python that the jit
functions reach (see ``ir/frontend/prelude.py``), written above them."""

MODULE_ALIASES = ("tl", "triton")
"""The modules every emitted file imports (``import triton``, ``import
triton.language as tl``): a dotted callee starts with one of them
(``tl.extra.libdevice.exp``, ``tl.math.exp2``, ``triton.cdiv``)."""

BARE_CALLEES = ("min", "max")
"""Python builtins Triton's frontend accepts in a kernel, called by bare name."""

EXPRESSION_BUILTINS = frozenset({
    "abs", "all", "any", "bool", "dict", "divmod", "enumerate", "filter", "float", "frozenset", "int", "isinstance",
    "len", "list", "map", "max", "min", "pow", "range", "reversed", "round", "set", "sorted", "str", "sum", "tuple",
    "zip",
})  # fmt: skip
"""Builtins a decorator or default may call (``key=list(...)``, ``range(...)``
in a config list); anything else must come from Triton or the kernel file."""


def is_identifier(name: str) -> bool:
    """A Python name that is not a keyword (``class``, ``None``, ...)."""
    return name.isidentifier() and not keyword.iskeyword(name)


def check_identifier(what: str, name: str) -> None:
    if not is_identifier(name):
        raise VerifyException(f"{what} {name!r} is not a Python identifier")


def check_binding_name(what: str, name: str) -> None:
    """A name the emitted file binds (a function or parameter): an identifier
    that does not shadow a module the emitted code refers to."""
    check_identifier(what, name)
    if name in MODULE_ALIASES:
        raise VerifyException(f"{what} {name!r} would shadow the module '{name}' the emitted kernel uses")


def check_attribute_path(what: str, path: str) -> None:
    """``dtype.element_ty``: dotted identifiers, none a dunder (``__class__``
    reaches outside the kernel's values)."""
    for part in path.split("."):
        if not is_identifier(part):
            raise VerifyException(f"{what} {path!r} is not a dotted path of Python identifiers")
        if part.startswith("__"):
            raise VerifyException(f"{what} {path!r} reaches the dunder attribute '{part}'")


def check_callee(callee: str, positional: int) -> None:
    """A `tile.call` callee: ``tl.*``/``triton.*`` dotted names, ``min``/``max``,
    or a method ``.name`` called on the first positional operand."""
    what = "tile.call: callee"
    if callee.startswith("."):
        check_attribute_path(what, callee[1:])
        if "." in callee[1:]:
            raise VerifyException(f"{what} {callee!r}: a method callee is one name ('.to')")
        if positional < 1:
            raise VerifyException(f"{what} {callee!r} is a method and needs the object as its first operand")
        return
    check_attribute_path(what, callee)
    root = callee.split(".")[0]
    if "." not in callee and callee not in BARE_CALLEES:
        raise VerifyException(f"{what} {callee!r}: a bare callee must be one of {', '.join(BARE_CALLEES)}")
    if "." in callee and root not in MODULE_ALIASES:
        raise VerifyException(f"{what} {callee!r} must start with one of {', '.join(MODULE_ALIASES)}")


def check_keywords(what: str, names: list[str], taken: tuple[str, ...] = ()) -> None:
    """Keyword argument names: identifiers, each once, none of ``taken`` (the
    keywords the op itself writes, e.g. a load's ``mask``)."""
    seen: set[str] = set()
    for name in names:
        check_identifier(f"{what}: keyword", name)
        if name in seen or name in taken:
            raise VerifyException(f"{what}: keyword {name!r} given twice")
        seen.add(name)


@lru_cache(maxsize=64)
def prelude_names(prelude: str) -> frozenset[str]:
    """The names the top-level statements of ``prelude`` bind."""
    try:
        tree = ast.parse(prelude)
    except SyntaxError as err:
        raise VerifyException(f"{PRELUDE_ATTR} is not Python: {err.msg} (line {err.lineno})") from None
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in statement.names)
        elif isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        else:
            raise VerifyException(
                f"{PRELUDE_ATTR}: line {statement.lineno} ({ast.unparse(statement)[:40]!r}) is not an import, an "
                "assignment, a function or a class definition, which are all the prelude holds"
            )
    return frozenset(names)


def check_module_expression(what: str, text: str, module_names: frozenset[str]) -> None:
    """``text`` is one Python expression that reads only Triton (``triton``,
    ``tl``), a few builtins, ``module_names`` (the prelude's) and its own
    lambda and comprehension variables, with no dunder attribute and no
    assignment expression. Decorators, defaults and annotations run at module
    scope when the emitted file is imported: this keeps them to what the
    kernel file itself could have meant."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as err:
        raise VerifyException(f"{what} {text!r} is not a Python expression ({err.msg})") from None
    local: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda):
            args = node.args
            local.update(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
            local.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
        elif isinstance(node, ast.comprehension):
            local.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
    allowed = set(MODULE_ALIASES) | EXPRESSION_BUILTINS | module_names | local
    for node in ast.walk(tree):
        if isinstance(node, ast.NamedExpr):
            raise VerifyException(f"{what} {text!r} assigns a name (':=')")
        if isinstance(node, ast.Attribute) and node.attr.startswith("__"):
            raise VerifyException(f"{what} {text!r} reads the dunder attribute '{node.attr}'")
        if isinstance(node, ast.Name) and (node.id not in allowed or node.id.startswith("__")):
            raise VerifyException(
                f"{what} {text!r} reads '{node.id}', which is neither triton, tl, an allowed builtin nor a "
                f"module-level name of the kernel file ({PRELUDE_ATTR})"
            )
