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
`os.system('...')` (the grammar of such module-level fragments is
``python_grammar.py``).

Each check raises :class:`xdsl.utils.exceptions.VerifyException` with a
message naming the property and the offending text.
"""

from __future__ import annotations

import keyword

from xdsl.utils.exceptions import VerifyException


MODULE_ALIASES = ("tl", "triton")
"""The modules every emitted file imports (``import triton``, ``import
triton.language as tl``): a dotted callee starts with one of them
(``tl.extra.libdevice.exp``, ``tl.math.exp2``, ``triton.cdiv``)."""

BARE_CALLEES = ("min", "max")
"""Python builtins Triton's frontend accepts in a kernel, called by bare name."""

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
